/*
** listing.c: the memory-order listing of a plan (`lay show`, the test
** blocks' `order ==`) and the check of a listing pasted from a vendor doc.
**
** Both walk the layout buffer one hardware element at a time through
** lay_plan_at, so they work for every layout the planner can build; they
** are meant for explanation and tests, not for speed. See listing.h for
** the notation.
*/
#include "lay_tools.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "strbuf.h"

/* ---- Elements -------------------------------------------------------------- */

enum { EL_DATA = 0, EL_PAD = 1, EL_HOLE = 2 };

typedef struct elem {
  int kind;                 /* EL_DATA, EL_PAD or EL_HOLE */
  int plane;                /* byte plane (0 without planes) */
  int64_t c[LAY_MAX_RANK];  /* coordinate (padded coordinate for pads) */
} elem;

typedef struct walker {
  const lay_plan *p;
  int rank;        /* CPU-side dimensions */
  size_t esize;    /* bytes per hardware element */
  uint64_t total;  /* hardware elements in the buffer */
  int planes;      /* byte planes, 0 when none */
} walker;

static int walker_init(walker *w, const lay_plan *p) {
  int64_t shape[LAY_MAX_RANK];
  w->p = p;
  w->rank = lay_plan_cpu_shape(p, shape, LAY_MAX_RANK);
  w->esize = lay_plan_layout_elem_bytes(p);
  w->planes = lay_plan_plane_count(p);
  if (w->rank < 1 || w->rank > LAY_MAX_RANK || w->esize == 0) return -1;
  w->total = lay_plan_layout_elements(p); /* int4: two per byte */
  return 0;
}

/* Element k of the buffer; -1 when lay_plan_at refuses it. */
static int get(const walker *w, uint64_t k, elem *e) {
  int is_pad = 0, plane = 0;
  for (int i = 0; i < LAY_MAX_RANK; i++) e->c[i] = -1;
  if (lay_plan_at_element(w->p, k, e->c, w->rank, &is_pad, &plane, NULL))
    return -1;
  e->kind = is_pad == 1 ? EL_PAD : is_pad ? EL_HOLE : EL_DATA;
  e->plane = plane;
  return 0;
}

/* "(0,0,1,2)", "lo(0,0,1,2)"; into buf of cap bytes. */
static void fmt_coord(const walker *w, int plane, const int64_t *c,
                      char *buf, size_t cap) {
  size_t n = 0;
  const char *pn = plane >= 0 ? lay_plan_plane_name(w->p, plane) : NULL;
  n += (size_t)snprintf(buf, cap, "%s(", pn ? pn : "");
  for (int i = 0; i < w->rank && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? "," : "", c[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* ---- The listing ---------------------------------------------------------- */

typedef struct lister {
  walker w;
  lg_strbuf out;
  int line_tokens;      /* tokens written on the current line */
  uint64_t run;         /* elements in the current run, 0 = none */
  int run_dim;          /* the dimension the run steps in, -1 = not yet */
  elem first, second, last;
  int pad_kind;         /* EL_PAD or EL_HOLE of the pending pad group */
  uint64_t pads;        /* elements in it, 0 = none */
} lister;

static void token(lister *l, const char *s) {
  if (l->line_tokens++) lg_sb_str(&l->out, ", ");
  lg_sb_str(&l->out, s);
}

static void put_coord(lister *l, const elem *e, const char *sep) {
  char buf[LAY_MAX_RANK * 24 + 40];
  fmt_coord(&l->w, l->w.planes ? e->plane : -1, e->c, buf, sizeof buf);
  if (sep) {
    lg_sb_str(&l->out, sep);
    lg_sb_str(&l->out, buf);
  } else {
    token(l, buf);
  }
}

static void flush_run(lister *l) {
  if (!l->run) return;
  put_coord(l, &l->first, NULL);
  if (l->run >= 2) put_coord(l, &l->second, NULL);
  if (l->run == 3) put_coord(l, &l->last, NULL);
  if (l->run >= 4) put_coord(l, &l->last, " ... ");
  l->run = 0;
}

static void flush_pads(lister *l) {
  if (!l->pads) return;
  char buf[64];
  snprintf(buf, sizeof buf, "%s x%" PRIu64,
           l->pad_kind == EL_PAD ? "pad" : "hole", l->pads);
  token(l, buf);
  l->pads = 0;
}

/* Does e continue the current run (one dimension steps by +1)? */
static int continues(const lister *l, const elem *e) {
  if (!l->run || l->pads || e->plane != l->last.plane) return 0;
  int dim = -1;
  for (int i = 0; i < l->w.rank; i++) {
    if (e->c[i] == l->last.c[i]) continue;
    if (dim >= 0 || e->c[i] != l->last.c[i] + 1) return 0;
    dim = i;
  }
  return dim >= 0 && (l->run_dim < 0 || dim == l->run_dim) ? dim + 1 : 0;
}

static void add(lister *l, const elem *e) {
  if (e->kind == EL_DATA) {
    int d = continues(l, e);
    if (d) {
      l->run_dim = d - 1;
      if (l->run == 1) l->second = *e;
      l->last = *e;
      l->run++;
      return;
    }
    flush_run(l);
    flush_pads(l);
    if (l->line_tokens) {
      lg_sb_str(&l->out, "\n");
      l->line_tokens = 0;
    }
    l->run = 1;
    l->run_dim = -1;
    l->first = l->last = *e;
    return;
  }
  flush_run(l);
  if (l->pads && l->pad_kind != e->kind) flush_pads(l);
  l->pad_kind = e->kind;
  l->pads++;
}

char *lay_tool_listing(const lay_plan *p, size_t limit_elems) {
  lister l;
  memset(&l, 0, sizeof l);
  if (!p || walker_init(&l.w, p)) return NULL;
  uint64_t n = l.w.total;
  if (limit_elems && n > (uint64_t)limit_elems) n = limit_elems;
  for (uint64_t k = 0; k < n; k++) {
    elem e;
    if (get(&l.w, k, &e)) {
      free(l.out.s);
      return NULL;
    }
    add(&l, &e);
  }
  flush_run(&l);
  flush_pads(&l);
  if (l.line_tokens) lg_sb_str(&l.out, "\n");
  if (n < l.w.total) lg_sb_str(&l.out, "...\n");
  return lg_sb_take(&l.out);
}

/* ---- Reading a pasted listing -------------------------------------------- */

/* What a pasted listing may hold, and nothing else (anything else is an
** error naming its line and column in the listing):
**   (a, b, c, d)      a coordinate: integers, blanks allowed inside; as
**                     many values as the layout has dimensions
**   lo(a, b, c, d)    a coordinate in the byte plane named `lo`
**   ...  or  …        any number of elements (three dots exactly)
**   pad xN, hole xN   N elements of padding / of stride holes (`pad`
**                     alone is one element)
**   , blanks, newlines separators, ignored
**   > remark          from `>` to the end of the line (the docs' remarks:
**                     "> end of chunk", "> is pad introduced by ...")
**   Copy to clipboard a line holding only that (the doc pages' button
**                     label, left inside a pasted code block) */

enum { T_COORD, T_SKIP, T_PAD, T_HOLE };

typedef struct tok {
  int kind;                /* T_COORD, T_SKIP, T_PAD or T_HOLE */
  int n;                   /* T_COORD: values */
  int plane;               /* T_COORD: required plane, -1 = any */
  uint64_t count;          /* T_PAD/T_HOLE: elements */
  size_t off;              /* byte offset of the token in the listing */
  int64_t c[LAY_MAX_RANK]; /* T_COORD: the coordinate */
} tok;

typedef struct toks {
  tok *v;
  size_t n, cap;
} toks;

/* The state of reading one listing. */
typedef struct reader {
  const walker *w;
  const char *s;  /* the listing */
  size_t len;     /* its length */
  size_t i;       /* the next byte to read */
  toks out;       /* the tokens so far */
  char *why;      /* the caller's message buffer */
  size_t whycap;  /* its size */
  size_t *at;     /* where the error's offset goes (may be NULL) */
} reader;

static int is_sp(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* "listing line L, column C: " for byte offset off of s. */
static size_t fmt_pos(const char *s, size_t len, size_t off, char *buf,
                      size_t cap) {
  int line = 1;
  size_t start = 0;
  if (off > len) off = len;
  for (size_t k = 0; k < off; k++)
    if (s[k] == '\n') {
      line++;
      start = k + 1;
    }
  int n = snprintf(buf, cap, "listing line %d, column %zu: ", line,
                   off - start + 1);
  return n < 0 ? 0 : (size_t)n;
}

static int rd_error(reader *rd, size_t off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record a malformed-listing error at byte `off`; returns -1. */
static int rd_error(reader *rd, size_t off, const char *fmt, ...) {
  if (rd->at) *rd->at = off;
  if (!rd->why || !rd->whycap) return -1;
  size_t n = fmt_pos(rd->s, rd->len, off, rd->why, rd->whycap);
  if (n < rd->whycap) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rd->why + n, rd->whycap - n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int push(reader *rd, const tok *x) {
  toks *t = &rd->out;
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 64;
    tok *nv = realloc(t->v, nc * sizeof *nv);
    if (!nv) {
      if (rd->why && rd->whycap) snprintf(rd->why, rd->whycap, "out of memory");
      if (rd->at) *rd->at = x->off;
      return -1;
    }
    t->v = nv;
    t->cap = nc;
  }
  t->v[t->n++] = *x;
  return 0;
}

/* The text of a malformed coordinate for a message: from '(' to its ')'
** or the end of the line, at most 40 bytes, unprintable bytes as '?'. */
static void tuple_text(const reader *rd, size_t open, char *buf, size_t cap) {
  size_t n = 0;
  for (size_t k = open; k < rd->len && rd->s[k] != '\n' && n + 4 < cap &&
                        n < 40; k++) {
    unsigned char c = (unsigned char)rd->s[k];
    buf[n++] = c < 0x20 || c >= 0x7f ? '?' : (char)c;
    if (c == ')') break;
  }
  if (n == 40) {
    memcpy(buf + n, "...", 3);
    n += 3;
  }
  buf[n] = '\0';
}

/* The error for a coordinate opened at `open` that goes wrong at `j`;
** `want` says what should have come there. */
static int bad_tuple(reader *rd, size_t open, size_t j, const char *want) {
  char text[64];
  tuple_text(rd, open, text, sizeof text);
  if (j >= rd->len || rd->s[j] == '\n')
    return rd_error(rd, j, "malformed coordinate '%s': ')' is missing", text);
  unsigned char c = (unsigned char)rd->s[j];
  if (c < 0x20 || c >= 0x7f)
    return rd_error(rd, j, "malformed coordinate '%s': byte 0x%02x where %s "
                    "should be", text, c, want);
  return rd_error(rd, j, "malformed coordinate '%s': '%c' where %s should be",
                  text, c, want);
}

/* Read the coordinate whose '(' is at rd->s[open] into t (t->kind and
** t->plane are the caller's); leaves rd->i past its ')'. */
static int read_tuple(reader *rd, size_t open, tok *t) {
  const char *s = rd->s;
  size_t j = open + 1, len = rd->len;
  t->n = 0;
  for (;;) {
    while (j < len && is_sp(s[j])) j++;
    size_t num = j;
    int neg = 0;
    if (j < len && s[j] == '-') {
      neg = 1;
      j++;
    }
    if (j >= len || !is_digit(s[j])) return bad_tuple(rd, open, j, "a number");
    int64_t v = 0;
    while (j < len && is_digit(s[j])) {
      if (v > (INT64_MAX - 9) / 10) {
        char text[64];
        tuple_text(rd, open, text, sizeof text);
        return rd_error(rd, num, "malformed coordinate '%s': number too large",
                        text);
      }
      v = v * 10 + (s[j++] - '0');
    }
    if (t->n == LAY_MAX_RANK) {
      char text[64];
      tuple_text(rd, open, text, sizeof text);
      return rd_error(rd, num, "malformed coordinate '%s': more than %d values",
                      text, LAY_MAX_RANK);
    }
    t->c[t->n++] = neg ? -v : v;
    while (j < len && is_sp(s[j])) j++;
    if (j < len && s[j] == ',') {
      j++;
      continue;
    }
    if (j < len && s[j] == ')') break;
    return bad_tuple(rd, open, j, "',' or ')'");
  }
  rd->i = j + 1;
  if (t->n != rd->w->rank) {
    char text[64];
    tuple_text(rd, open, text, sizeof text);
    return rd_error(rd, open, "coordinate '%s' has %d value%s, the layout has "
                    "%d dimension%s", text, t->n, t->n == 1 ? "" : "s",
                    rd->w->rank, rd->w->rank == 1 ? "" : "s");
  }
  return 0;
}

static int plane_index(const walker *w, const char *s, size_t n) {
  for (int p = 0; p < w->planes; p++) {
    const char *name = lay_plan_plane_name(w->p, p);
    if (name && strlen(name) == n && !memcmp(name, s, n)) return p;
  }
  return -1;
}

/* The layout's plane names, "lo, hi", into buf. */
static void plane_list(const walker *w, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int p = 0; p < w->planes && n < cap; p++) {
    const char *name = lay_plan_plane_name(w->p, p);
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", p ? ", " : "",
                          name ? name : "?");
  }
}

/* An ellipsis token; consecutive ellipses are one. */
static int skip_tok(reader *rd, size_t off) {
  tok t;
  memset(&t, 0, sizeof t);
  t.kind = T_SKIP;
  t.off = off;
  if (rd->out.n && rd->out.v[rd->out.n - 1].kind == T_SKIP) return 0;
  return push(rd, &t);
}

/* Does the line holding offset i read, blanks aside, "Copy to clipboard",
** with i at its 'C'? Then *end is the end of the line. */
static int copy_button(const reader *rd, size_t i, size_t *end) {
  static const char label[] = "Copy to clipboard";
  size_t k = i;
  while (k > 0 && is_sp(rd->s[k - 1])) k--;
  if (k > 0 && rd->s[k - 1] != '\n') return 0;
  if (rd->len - i < sizeof label - 1 ||
      memcmp(rd->s + i, label, sizeof label - 1))
    return 0;
  k = i + sizeof label - 1;
  while (k < rd->len && is_sp(rd->s[k])) k++;
  if (k < rd->len && rd->s[k] != '\n') return 0;
  *end = k;
  return 1;
}

/* A word at rd->i: a plane-prefixed coordinate, pad/hole [xN], or the
** doc page's "Copy to clipboard" line. */
static int read_word(reader *rd) {
  const walker *w = rd->w;
  const char *s = rd->s;
  size_t i = rd->i, j = i, len = rd->len;
  tok t;
  memset(&t, 0, sizeof t);
  t.off = i;
  t.plane = -1;
  while (j < len && (is_alpha(s[j]) || is_digit(s[j]))) j++;
  size_t wl = j - i;
  int shown = wl > 30 ? 30 : (int)wl;
  if (j < len && s[j] == '(') {
    int pl = plane_index(w, s + i, wl);
    if (pl < 0) {
      char names[128];
      plane_list(w, names, sizeof names);
      if (w->planes)
        return rd_error(rd, i, "'%.*s' is not a byte plane of this layout "
                        "(its planes: %s)", shown, s + i, names);
      return rd_error(rd, i, "'%.*s(' is not a coordinate: this layout has "
                      "no byte planes", shown, s + i);
    }
    t.kind = T_COORD;
    t.plane = pl;
    if (read_tuple(rd, j, &t)) return -1;
    return push(rd, &t);
  }
  if ((wl == 3 && !memcmp(s + i, "pad", 3)) ||
      (wl == 4 && !memcmp(s + i, "hole", 4))) {
    t.kind = wl == 3 ? T_PAD : T_HOLE;
    t.count = 1;
    size_t k = j;
    while (k < len && is_sp(s[k])) k++;
    if (k < len && s[k] == 'x') {
      size_t d = ++k;
      uint64_t v = 0;
      while (k < len && is_digit(s[k])) {
        if (v > (UINT64_MAX - 9) / 10)
          return rd_error(rd, d, "'%.*s xN': count too large", (int)wl, s + i);
        v = v * 10 + (uint64_t)(s[k++] - '0');
      }
      if (k == d || v == 0 || (k < len && (is_alpha(s[k]) || is_digit(s[k]))))
        return rd_error(rd, d, "'%.*s x' needs a count of 1 or more",
                        (int)wl, s + i);
      t.count = v;
      j = k;
    }
    rd->i = j;
    return push(rd, &t);
  }
  size_t end;
  if (copy_button(rd, i, &end)) {
    rd->i = end;
    return 0;
  }
  return rd_error(rd, i, "unexpected '%.*s' (a listing holds coordinates, "
                  "'...', 'pad xN', commas and '>' remarks)", shown, s + i);
}

/* Read the whole listing into rd->out; -1 (with the message) when it is
** malformed or memory runs out. */
static int tokenize(reader *rd) {
  const char *s = rd->s;
  size_t len = rd->len;
  while (rd->i < len) {
    size_t i = rd->i;
    unsigned char c = (unsigned char)s[i];
    if (is_sp((char)c) || c == '\n' || c == ',') {
      rd->i++;
    } else if (c == '>') {
      while (rd->i < len && s[rd->i] != '\n') rd->i++;
    } else if (c == '.') {
      if (len - i < 3 || s[i + 1] != '.' || s[i + 2] != '.' ||
          (len - i > 3 && s[i + 3] == '.'))
        return rd_error(rd, i, "unexpected '.' (an ellipsis is three dots)");
      rd->i += 3;
      if (skip_tok(rd, i)) return -1;
    } else if (c == 0xE2 && len - i >= 3 && (unsigned char)s[i + 1] == 0x80 &&
               (unsigned char)s[i + 2] == 0xA6) {
      rd->i += 3;
      if (skip_tok(rd, i)) return -1;
    } else if (c == '(') {
      tok t;
      memset(&t, 0, sizeof t);
      t.kind = T_COORD;
      t.plane = -1;
      t.off = i;
      if (read_tuple(rd, i, &t) || push(rd, &t)) return -1;
    } else if (is_alpha((char)c)) {
      if (read_word(rd)) return -1;
    } else if (c < 0x20 || c >= 0x7f) {
      return rd_error(rd, i, "unexpected byte 0x%02x", c);
    } else {
      return rd_error(rd, i, "unexpected '%c' (a listing holds coordinates, "
                      "'...', 'pad xN', commas and '>' remarks)", c);
    }
  }
  for (size_t k = 0; k < rd->out.n; k++)
    if (rd->out.v[k].kind != T_SKIP) return 0;
  if (rd->at) *rd->at = 0;
  if (rd->why && rd->whycap)
    snprintf(rd->why, rd->whycap, "the listing has no coordinates");
  return -1;
}

/* ---- Matching a pasted listing ------------------------------------------- */

static void fmt_tok(const walker *w, const tok *t, char *buf, size_t cap) {
  if (t->kind == T_COORD) {
    walker tw = *w;
    tw.rank = t->n;
    fmt_coord(&tw, t->plane, t->c, buf, cap);
  } else if (t->kind == T_SKIP) {
    snprintf(buf, cap, "...");
  } else {
    snprintf(buf, cap, "%s x%" PRIu64, t->kind == T_PAD ? "pad" : "hole",
             t->count);
  }
}

static void fmt_elem(const walker *w, const elem *e, char *buf, size_t cap) {
  if (e->kind == EL_HOLE) {
    snprintf(buf, cap, "hole");
    return;
  }
  size_t n = 0;
  if (e->kind == EL_PAD) n = (size_t)snprintf(buf, cap, "pad ");
  if (n < cap)
    fmt_coord(w, w->planes && e->kind == EL_DATA ? e->plane : -1, e->c,
              buf + n, cap - n);
}

static int coord_ok(const walker *w, const tok *t, const elem *e) {
  if (e->kind == EL_HOLE || t->n != w->rank) return 0;
  if (t->plane >= 0 && (e->kind != EL_DATA || e->plane != t->plane)) return 0;
  for (int i = 0; i < w->rank; i++)
    if (t->c[i] != e->c[i]) return 0;
  return 1;
}

/* The message of a failed match: "listing line L, column C: " + text. */
static void whyf(reader *rd, const tok *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void whyf(reader *rd, const tok *t, const char *fmt, ...) {
  if (rd->at) *rd->at = t->off;
  if (!rd->why || !rd->whycap) return;
  size_t n = fmt_pos(rd->s, rd->len, t->off, rd->why, rd->whycap);
  if (n >= rd->whycap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rd->why + n, rd->whycap - n, fmt, ap);
  va_end(ap);
}

/* "element 31 (byte 31): expected X, found Y" for element k. */
static void mismatch(reader *rd, const tok *t, uint64_t k, const elem *e) {
  char a[LAY_MAX_RANK * 24 + 40], b[LAY_MAX_RANK * 24 + 48];
  fmt_tok(rd->w, t, a, sizeof a);
  if (e) fmt_elem(rd->w, e, b, sizeof b);
  else snprintf(b, sizeof b, "the end of the buffer");
  whyf(rd, t, "element %" PRIu64 " (byte %" PRIu64 "): expected %s, found %s",
       k, k * rd->w->esize, a, b);
}

static void not_found(reader *rd, const tok *t, uint64_t k) {
  char a[LAY_MAX_RANK * 24 + 40];
  fmt_tok(rd->w, t, a, sizeof a);
  whyf(rd, t, "expected %s at or after element %" PRIu64 " (byte %" PRIu64
       "), not found before the end of the buffer", a, k, k * rd->w->esize);
}

/* Match token t at element *k (or, with `search`, at the first place at or
** after it); advances *k past it. 0 on success. */
static int match_tok(reader *rd, const tok *t, int search, uint64_t *k) {
  const walker *w = rd->w;
  elem e;
  if (t->kind == T_COORD) {
    for (uint64_t j = *k; j < w->total; j++) {
      if (get(w, j, &e)) break;
      if (coord_ok(w, t, &e)) {
        *k = j + 1;
        return 0;
      }
      if (!search) {
        mismatch(rd, t, j, &e);
        return -1;
      }
    }
    if (search) not_found(rd, t, *k);
    else mismatch(rd, t, *k, NULL);
    return -1;
  }
  int want = t->kind == T_PAD ? EL_PAD : EL_HOLE;
  uint64_t start = *k, have = 0;
  for (uint64_t j = *k; j < w->total; j++) {
    if (get(w, j, &e)) break;
    if (e.kind == want) {
      if (!have) start = j;
      if (++have == t->count) {
        *k = j + 1;
        return 0;
      }
      continue;
    }
    if (!search) {
      mismatch(rd, t, j, &e);
      return -1;
    }
    have = 0;
  }
  if (search) not_found(rd, t, *k);
  else mismatch(rd, t, start + have, NULL);
  return -1;
}

/* Set up a reader over `expected` for plan p; -1 when p cannot be walked. */
static int reader_init(reader *rd, walker *w, const lay_plan *p,
                       const char *expected, size_t len, char *why,
                       size_t whycap, size_t *at) {
  memset(rd, 0, sizeof *rd);
  rd->w = w;
  rd->s = expected ? expected : "";
  rd->len = expected ? len : 0;
  rd->why = why;
  rd->whycap = whycap;
  rd->at = at;
  if (why && whycap) why[0] = '\0';
  if (at) *at = 0;
  if (!p || walker_init(w, p)) {
    if (why && whycap) snprintf(why, whycap, "the plan cannot be walked");
    return -1;
  }
  return 0;
}

int lay_tool_listing_check(const lay_plan *p, const char *expected, size_t len,
                     char *why, size_t whycap, size_t *at) {
  walker w;
  reader rd;
  if (reader_init(&rd, &w, p, expected, len, why, whycap, at)) return -1;
  int rc = tokenize(&rd);
  free(rd.out.v);
  return rc;
}

int lay_tool_listing_match(const lay_plan *p, const char *expected, size_t len,
                     char *why, size_t whycap, size_t *at) {
  walker w;
  reader rd;
  if (reader_init(&rd, &w, p, expected, len, why, whycap, at)) return -1;
  if (tokenize(&rd)) {
    free(rd.out.v);
    return -1;
  }
  int rc = 0, search = 0;
  uint64_t k = 0;
  for (size_t i = 0; i < rd.out.n && !rc; i++) {
    const tok *t = &rd.out.v[i];
    if (t->kind == T_SKIP) {
      search = 1;
      continue;
    }
    if (match_tok(&rd, t, search, &k)) rc = (int)(i + 1);
    search = 0;
  }
  free(rd.out.v);
  return rc;
}
