/*
** cli_suggest.c: what the CLI and the REPL say to help after a mistake:
** "did you mean" (an edit distance, case-insensitive, the name without its
** namespace, a prefix) for layouts, commands, options, parameters and
** dtypes; the list of a layout's parameters after an unknown one; layouts
** given inline ('(n, c, h, w) -> [...]'); JSON strings.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_lay.h"

/* ---- Did you mean ---------------------------------------------------------- */

/* The edit distance (insert, delete, substitute, swap of two neighbours)
** between a[0..na) and b[0..nb), case-insensitive; values past `cap` are
** cut at cap + 1. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb,
                       size_t cap) {
  if (na > 63 || nb > 63) return cap + 1;
  size_t d[64][64];
  for (size_t i = 0; i <= na; i++) d[i][0] = i;
  for (size_t j = 0; j <= nb; j++) d[0][j] = j;
  for (size_t i = 1; i <= na; i++)
    for (size_t j = 1; j <= nb; j++) {
      int same = tolower((unsigned char)a[i - 1]) ==
                 tolower((unsigned char)b[j - 1]);
      size_t v = d[i - 1][j - 1] + !same;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 &&
          tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
          d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[na][nb] > cap ? cap + 1 : d[na][nb];
}

void cli_suggest_init(cli_suggest *s, const char *word) {
  memset(s, 0, sizeof *s);
  s->word = word;
  s->best = (size_t)-1;
}

void cli_suggest_add(cli_suggest *s, const char *cand) {
  if (!cand || !s->word) return;
  size_t nw = strlen(s->word), nc = strlen(cand);
  /* Two characters ("-x") are too few to guess from. */
  if (nw - (s->word[0] == '-') < 2) return;
  /* Typos allowed: 1 for short words, then one per 3 characters. */
  size_t cap = nw < 4 ? 1 : nw / 3;
  size_t d = distance(s->word, nw, cand, nc, cap);
  /* The name without its namespace ("hcwnc4" for amd.hcwnc4), and the
  ** word without one against it. */
  const char *dot = strrchr(cand, '.');
  const char *wdot = strrchr(s->word, '.');
  if (dot && !wdot) {
    size_t d2 = distance(s->word, nw, dot + 1, strlen(dot + 1), cap);
    if (d2 < d) d = d2;
  }
  if (dot && wdot) { /* the same name in another namespace */
    size_t d3 = distance(wdot + 1, strlen(wdot + 1), dot + 1,
                         strlen(dot + 1), cap);
    if (!d3 && d > 1) d = 1;
  }
  /* A word of 3 or more characters that starts a candidate ("float" of
  ** "float32"), or a candidate of 3 or more that starts the word ("pad_l"
  ** of "pad_left"), is near, but no nearer than any other within reach. */
  size_t nmin = nw < nc ? nw : nc;
  if (d > cap && nmin >= 3 && nw != nc && !strncasecmp(cand, s->word, nmin))
    d = cap;
  if (d > cap) return;
  if (d < s->best) {
    s->best = d;
    s->n = 0;
  }
  if (d == s->best && s->n < CLI_SUGGEST_MAX) s->cand[s->n++] = cand;
}

const char *cli_suggest_text(const cli_suggest *s, char *buf, size_t cap) {
  if (!s->n) return "";
  size_t n = (size_t)snprintf(buf, cap, " (did you mean ");
  for (int i = 0; i < s->n && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s'%s'",
                          !i ? "" : i == s->n - 1 ? " or " : ", ",
                          s->cand[i]);
  if (n < cap) snprintf(buf + n, cap - n, "?)");
  return buf;
}

void cli_suggest_layout(lay_ctx *ctx, const char *word, char *buf,
                        size_t cap) {
  cli_suggest s;
  cli_suggest_init(&s, word);
  size_t n = lay_ctx_count(ctx);
  for (size_t i = 0; i < n; i++) cli_suggest_add(&s, lay_ctx_name(ctx, i));
  cli_suggest_text(&s, buf, cap);
  if (!s.n && cap) buf[0] = '\0';
}

void cli_suggest_dtype(const char *word, char *buf, size_t cap) {
  /* lay's names and numpy's (lay_dtype_parse takes both). */
  static const char *const numpy[] = {"float32", "float16", "bfloat16",
                                      "int8",    "uint8",   "int16",
                                      "uint16",  "int32"};
  cli_suggest s;
  cli_suggest_init(&s, word);
  for (int t = LAY_DT_FP32; t <= LAY_DT_INT32; t++)
    cli_suggest_add(&s, lay_dtype_name((lay_dtype)t));
  for (size_t i = 0; i < sizeof numpy / sizeof *numpy; i++)
    if (lay_dtype_parse(numpy[i]) != LAY_DT_NONE &&
        strcmp(numpy[i], lay_dtype_name(lay_dtype_parse(numpy[i]))))
      cli_suggest_add(&s, numpy[i]);
  cli_suggest_text(&s, buf, cap);
  if (!s.n && cap) buf[0] = '\0';
}

/* Append to a library error's message what would fix it: the layout name
** nearest to an unknown one; for an unknown parameter, the nearest one
** and the list of the layout's parameters. */
void cli_explain_error(lay_ctx *ctx, lay_error *err) {
  const char *m = err->message;
  char word[128], owner[128], hint[512] = "";
  size_t len = strlen(m);
  if (sscanf(m, "unknown layout '%127[^']'", word) == 1) {
    cli_suggest_layout(ctx, word, hint, sizeof hint);
  } else if (sscanf(m, "unknown parameter '%127[^']' of '%127[^']'", word,
                    owner) == 2) {
    lay_def_info d;
    if (lay_ctx_def_info(ctx, owner, &d, NULL)) return;
    cli_suggest s;
    cli_suggest_init(&s, word);
    for (int i = 0; i < d.nparams; i++) cli_suggest_add(&s, d.params[i]);
    char one[256];
    size_t n = (size_t)snprintf(hint, sizeof hint, "%s; %s takes ",
                                cli_suggest_text(&s, one, sizeof one), owner);
    if (!d.nparams) snprintf(hint + n, sizeof hint - n, "no parameters");
    for (int i = 0; i < d.nparams && n < sizeof hint; i++)
      n += (size_t)snprintf(hint + n, sizeof hint - n, "%s%s",
                            !i ? "" : i == d.nparams - 1 ? " and " : ", ",
                            d.params[i]);
  }
  if (hint[0] && len < sizeof err->message)
    snprintf(err->message + len, sizeof err->message - len, "%s", hint);
}

/* ---- JSON ---------------------------------------------------------------- */

void cli_json_str(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n && s[i]; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}


/* ---- Inline layouts ------------------------------------------------------ */

const char *cli_inline(lay_ctx *ctx, const char *format, char *buf,
                       size_t cap) {
  const char *s = format;
  while (*s == ' ' || *s == '\t') s++;
  if (*s != '(' || !strstr(s, "->")) return format;
  static int count;
  snprintf(buf, cap, "lay_inline_%d", ++count);
  /* The text on a line of its own, so that an error's column is the
  ** column in the text given. */
  cli_text t = {0};
  cli_text_printf(&t, "layout %s\n%s\n", buf, format);
  lay_error err;
  lay_status st = t.oom ? LAY_E_NOMEM
                        : lay_ctx_load_string(ctx, "<inline>", t.s, t.n, &err);
  free(t.s);
  if (st) {
    if (err.line > 1) err.line--;
    cli_print_error(&err);
    return NULL;
  }
  return buf;
}

