/*
** cli_suggest.c: what the CLI and the REPL say to help after a mistake:
** "did you mean" (lay.h's lay_suggest) over layouts and dtypes; the list
** of a layout's parameters after an unknown one; layouts given inline
** ('(n, c, h, w) -> [...]'); JSON strings.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_lay.h"

/* ---- Did you mean ---------------------------------------------------------- */

void cli_suggest_layout(lay_ctx *ctx, const char *word, char *buf,
                        size_t cap) {
  cli_suggest s;
  cli_suggest_init(&s, word);
  size_t n = lay_ctx_count(ctx);
  for (size_t i = 0; i < n; i++) cli_suggest_add(&s, lay_ctx_name(ctx, i));
  cli_suggest_text(&s, buf, cap);
}

void cli_suggest_dtype(const char *word, char *buf, size_t cap) {
  cli_suggest s;
  cli_suggest_init(&s, word);
  lay_suggest_dtypes(&s);
  cli_suggest_text(&s, buf, cap);
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

