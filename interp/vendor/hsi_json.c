/*
** hsi_json.c: the strict JSON (RFC 8259) check that runs before cJSON, the
** line:col of an offending character, and keys given twice.
*/
#define _POSIX_C_SOURCE 200809L

#include "hsi_int.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Strict JSON --------------------------------------------------------------------- */

/* cJSON accepts more than JSON (a leading zero "01", "1.", raw control
** characters in strings, the last of two equal keys silently dropped) and
** places some errors badly (a trailing comma "at the end of input", a
** nesting deeper than its limit as "malformed"). json_scan therefore
** checks the text against RFC 8259 first and stops at the first offending
** character with a reason; cJSON then builds the tree of text known to be
** good, and dup_keys walks it for keys given twice. */


static int jbad(jfail *f, size_t at, const char *why) {
  f->at = at;
  f->why = why;
  return -1;
}

static size_t skip_ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
    i++;
  return i;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The length of the UTF-8 sequence at s[i] (i < n), or 0 when it is not
** one (overlong forms, surrogates and code points past U+10FFFF too). */
static size_t utf8_len(const unsigned char *s, size_t n, size_t i) {
  unsigned c = s[i], cp, min;
  size_t k;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) k = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) k = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) k = 4, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (n - i < k) return 0;
  for (size_t j = 1; j < k; j++) {
    if ((s[i + j] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i + j] & 0x3f);
  }
  return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : k;
}

/* The code unit of a \uXXXX escape at s[i] (the backslash); -1 when the
** text ends first, -2 when it is not four hex digits. */
static long hex4(const char *s, size_t n, size_t i) {
  if (n - i < 6) return -1;
  long v = 0;
  for (size_t j = i + 2; j < i + 6; j++) {
    int c = (unsigned char)s[j];
    int d = is_digit((char)c) ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -2;
    v = v * 16 + d;
  }
  return v;
}

/* The string that starts at s[*i] == '"'; *i moves past its end. */
static int scan_string(const char *s, size_t n, size_t *i, jfail *f) {
  const unsigned char *u = (const unsigned char *)s;
  size_t k = *i + 1;
  while (k < n && s[k] != '"') {
    if (u[k] < 0x20)
      return jbad(f, k, "a control character in a string must be escaped");
    if (s[k] != '\\') {
      size_t l = utf8_len(u, n, k);
      if (!l) return jbad(f, k, "invalid UTF-8");
      k += l;
      continue;
    }
    if (k + 1 >= n) break;
    if (s[k + 1] != 'u') {
      if (!s[k + 1] || !strchr("\"\\/bfnrt", s[k + 1]))
        return jbad(f, k, "unknown escape in a string");
      k += 2;
      continue;
    }
    /* \uXXXX; a surrogate must be a high one followed by a low one. */
    long a = hex4(s, n, k), b = 0;
    if (a == -1) break;
    if (a == -2) return jbad(f, k, "a \\u escape needs four hex digits");
    if (a >= 0xd800 && a <= 0xdbff) {
      size_t r = n - k; /* bytes left from the backslash */
      b = (r > 6 && s[k + 6] != '\\') || (r > 7 && s[k + 7] != 'u')
              ? -2
              : hex4(s, n, k + 6);
      if (b == -1) break;
      if (b < 0xdc00 || b > 0xdfff)
        return jbad(f, k, "a \\u escape is half of a surrogate pair");
      k += 6;
    } else if (a >= 0xdc00 && a <= 0xdfff) {
      return jbad(f, k, "a \\u escape is half of a surrogate pair");
    }
    k += 6;
  }
  if (k >= n) return jbad(f, n, "unexpected end of input");
  *i = k + 1;
  return 0;
}

/* The number that starts at s[*i] ('-' or a digit). */
static int scan_number(const char *s, size_t n, size_t *i, jfail *f) {
  size_t k = *i + (s[*i] == '-');
  if (k < n && s[k] == '0' && k + 1 < n && is_digit(s[k + 1]))
    return jbad(f, k, "a number must not start with a leading zero");
  const char *need = "a digit must follow '-'";
  for (int part = 0; part < 3; part++) {
    if (part == 1) { /* the fraction */
      if (k >= n || s[k] != '.') continue;
      k++;
      need = "a digit must follow '.' in a number";
    } else if (part == 2) { /* the exponent */
      if (k >= n || (s[k] != 'e' && s[k] != 'E')) continue;
      k++;
      if (k < n && (s[k] == '+' || s[k] == '-')) k++;
      need = "a digit must follow the exponent of a number";
    }
    if (k >= n) return jbad(f, n, "unexpected end of input");
    if (!is_digit(s[k])) return jbad(f, k, need);
    if (part == 0 && s[k] == '0') k++;
    else
      while (k < n && is_digit(s[k])) k++;
  }
  *i = k;
  return 0;
}

/* A member's key and its colon at s[*i]; *i moves to the value. */
static int scan_key(const char *s, size_t n, size_t *i, jfail *f) {
  if (*i >= n) return jbad(f, n, "unexpected end of input");
  if (s[*i] != '"') return jbad(f, *i, NULL);
  if (scan_string(s, n, i, f)) return -1;
  *i = skip_ws(s, n, *i);
  if (*i >= n) return jbad(f, n, "unexpected end of input");
  if (s[*i] != ':') return jbad(f, *i, NULL);
  *i = skip_ws(s, n, *i + 1);
  return 0;
}

/* 0 when s[0..n) is one JSON value (RFC 8259) nested at most
** JSON_MAX_DEPTH levels, else -1 with *f set. */
int hsi_json_scan(const char *s, size_t n, jfail *f) {
  static const char *const lit[] = {"true", "false", "null"};
  char open[JSON_MAX_DEPTH]; /* '{' or '[' of each open container */
  int depth = 0;
  size_t i = skip_ws(s, n, 0);
  memset(f, 0, sizeof *f);
  for (;;) {
    /* A value starts at i. */
    if (i >= n) return jbad(f, n, "unexpected end of input");
    char c = s[i];
    if (c == '{' || c == '[') {
      if (depth == JSON_MAX_DEPTH) {
        f->deep = 1;
        return jbad(f, i, NULL);
      }
      open[depth++] = c;
      i = skip_ws(s, n, i + 1);
      if (i < n && s[i] == (c == '{' ? '}' : ']')) {
        depth--;
        i++;
      } else if (c == '[') {
        continue;
      } else {
        if (scan_key(s, n, &i, f)) return -1;
        continue;
      }
    } else if (c == '"') {
      if (scan_string(s, n, &i, f)) return -1;
    } else if (c == '-' || is_digit(c)) {
      if (scan_number(s, n, &i, f)) return -1;
    } else {
      size_t l = 0;
      for (int k = 0; k < 3 && !l; k++)
        if (n - i >= strlen(lit[k]) && !memcmp(s + i, lit[k], strlen(lit[k])))
          l = strlen(lit[k]);
      if (!l) return jbad(f, i, NULL);
      i += l;
    }
    /* After a value: a comma, the closing bracket, or the end. */
    for (;;) {
      i = skip_ws(s, n, i);
      if (!depth)
        return i < n ? jbad(f, i, "text after the end of the report") : 0;
      if (i >= n) return jbad(f, n, "unexpected end of input");
      char close = open[depth - 1] == '{' ? '}' : ']';
      if (s[i] == close) {
        depth--;
        i++;
        continue;
      }
      if (s[i] != ',') return jbad(f, i, NULL);
      size_t comma = i;
      i = skip_ws(s, n, i + 1);
      if (i < n && (s[i] == '}' || s[i] == ']'))
        return jbad(f, comma, "trailing comma");
      if (open[depth - 1] == '{' && scan_key(s, n, &i, f)) return -1;
      break;
    }
  }
}

/* line:col (1-based; the column counts characters, a UTF-8 sequence
** being one) of byte offset `off` in json; fills the source line. */
void hsi_json_pos(const char *json, size_t len, size_t off, lay_error *e) {
  int line = 1;
  size_t ls = 0;
  if (off > len) off = len;
  for (size_t i = 0; i < off; i++)
    if (json[i] == '\n') line++, ls = i + 1;
  int col = 1;
  for (size_t i = ls; i < off; i++)
    col += ((unsigned char)json[i] & 0xc0) != 0x80;
  e->line = line;
  e->col = col;
  size_t k = 0;
  for (size_t i = ls; i < len && json[i] != '\n' && json[i] != '\r'; i++) {
    if (k + 1 >= sizeof e->source_line) break;
    unsigned char c = (unsigned char)json[i];
    e->source_line[k++] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  e->source_line[k] = '\0';
}

/* One member of an object: its key and its position. */
typedef struct member {
  const char *key;
  int at;
} member;

static int member_cmp(const void *a, const void *b) {
  const member *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The key that object j gives twice, the one whose second occurrence
** comes first; NULL when there is none (or *oom set). */
static const char *dup_key(const cJSON *j, int *oom) {
  int n = cJSON_GetArraySize(j), k = 0;
  if (n < 2) return NULL;
  member *v = malloc((size_t)n * sizeof *v);
  if (!v) {
    *oom = 1;
    return NULL;
  }
  for (const cJSON *c = j->child; c && k < n; c = c->next, k++) {
    v[k].key = c->string ? c->string : "";
    v[k].at = k;
  }
  qsort(v, (size_t)k, sizeof *v, member_cmp);
  const char *key = NULL;
  int first = k;
  for (int i = 1; i < k; i++)
    if (!strcmp(v[i].key, v[i - 1].key) && v[i].at < first) {
      first = v[i].at;
      key = v[i].key;
    }
  free(v);
  return key;
}

/* Fail on an object under j (j itself first, then its members in order)
** that gives a key twice. path holds j's JSON path ("" for the report);
** members extend it in place, within cap bytes. 0, or -1 reported. */
int hsi_dup_keys(pctx *p, const cJSON *j, char *path, size_t cap) {
  int oom = 0, obj = cJSON_IsObject(j);
  const char *key = obj ? dup_key(j, &oom) : NULL;
  if (oom) return hsi_perr(p, *path ? path : "report", "out of memory");
  if (key)
    return hsi_perr(p, *path ? path : "report", "duplicate key '%s'", key);
  size_t len = strlen(path);
  int i = 0;
  for (const cJSON *c = j->child; c; c = c->next, i++) {
    if (obj)
      snprintf(path + len, cap - len, "%s%s", len ? "." : "",
               c->string ? c->string : "");
    else
      snprintf(path + len, cap - len, "[%d]", i);
    if (hsi_dup_keys(p, c, path, cap)) return -1;
    path[len] = '\0';
  }
  return 0;
}


/* ---- Where each value was written ----------------------------------------- */

/* cJSON keeps neither a number's text (it holds a double: 9007199254740993
** becomes ...992) nor where a value was. Both are recovered here from the
** text, which json_scan has found strict: numbers and objects appear in
** the text in the order of a pre-order walk of the tree, so the k-th
** number token is the k-th number node, and the k-th '{' the k-th object.
** A number node gets its token as valuestring (which cJSON_Delete frees);
** an object its byte offset in valueint (unused by cJSON for objects). */

typedef struct jcursor {
  const char *s;
  size_t n, num, obj; /* the text; where the next number and '{' are sought */
} jcursor;

/* The offset of the next number token (kind 'n') or '{' (kind 'o') at or
** after *at, outside strings; n when there is none. */
static size_t next_token(const char *s, size_t n, size_t at, char kind) {
  int in_str = 0;
  /* `at` is never inside a string: it follows a token of the same kind. */
  for (size_t i = at; i < n; i++) {
    char c = s[i];
    if (in_str) {
      if (c == '\\') i++;
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
    } else if (kind == 'o' && c == '{') {
      return i;
    } else if (kind == 'n' && (c == '-' || is_digit(c))) {
      return i;
    }
  }
  return n;
}

static int mark(cJSON *j, jcursor *c) {
  if (cJSON_IsNumber(j)) {
    size_t i = next_token(c->s, c->n, c->num, 'n'), e = i;
    while (e < c->n && (is_digit(c->s[e]) || strchr("+-.eE", c->s[e]))) e++;
    if (!(j->valuestring = malloc(e - i + 1))) return -1;
    memcpy(j->valuestring, c->s + i, e - i);
    j->valuestring[e - i] = '\0';
    c->num = e;
  } else if (cJSON_IsObject(j)) {
    size_t i = next_token(c->s, c->n, c->obj, 'o');
    j->valueint = (int)i;
    c->obj = i + 1;
  }
  for (cJSON *k = j->child; k; k = k->next)
    if (mark(k, c)) return -1;
  return 0;
}

int hsi_json_mark(cJSON *root, const char *json, size_t len) {
  jcursor c = {json, len, 0, 0};
  return mark(root, &c);
}

/* The offset of object j in the text (hsi_json_mark). */
size_t hsi_json_at(const cJSON *j) {
  return j && cJSON_IsObject(j) && j->valueint > 0 ? (size_t)j->valueint : 0;
}
