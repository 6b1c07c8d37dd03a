/*
** diag.c: diagnostics. Turns byte offsets into line:col, copies the
** offending source line into the lay_error, and implements the public
** lay_status_str and lay_error_format (the 3-line form of lay.h).
*/
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lang.h"

void lg_linecol(const char *src, size_t len, uint32_t pos, int *line,
                int *col) {
  if (pos > len) pos = (uint32_t)len;
  int l = 1;
  size_t start = 0;
  for (size_t i = 0; i < pos; i++) {
    if (src[i] == '\n') {
      l++;
      start = i + 1;
    }
  }
  *line = l;
  *col = (int)(pos - start) + 1;
}

void lg_one_line(char *s) {
  for (; *s; s++)
    if (((unsigned char)*s < 0x20 && *s != '\t') || *s == 0x7f) *s = '?';
}

/* Copy a file name, truncating to the field's size. */
static void set_file(lay_error *err, const char *file) {
  snprintf(err->file, sizeof err->file, "%s", file ? file : "");
  lg_one_line(err->file);
}

void lg_error_plain(lay_error *err, lay_status code, const char *file,
                    const char *fmt, ...) {
  if (!err) return;
  memset(err, 0, sizeof *err);
  err->code = code;
  set_file(err, file);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  lg_one_line(err->message);
}

void lg_error_at(lay_error *err, lay_status code, const char *file,
                 const char *src, size_t len, uint32_t pos, const char *fmt,
                 ...) {
  if (!err) return;
  memset(err, 0, sizeof *err);
  err->code = code;
  set_file(err, file);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  lg_one_line(err->message);
  if (!src) return;
  if (pos > len) pos = (uint32_t)len;
  lg_linecol(src, len, pos, &err->line, &err->col);
  /* The line holding pos, without its newline; control characters other
  ** than tab become '?' so that the line prints cleanly. */
  size_t start = pos - (size_t)(err->col - 1), n = 0;
  for (size_t i = start; i < len && src[i] != '\n'; i++) {
    if (n + 1 >= sizeof err->source_line) break;
    unsigned char c = (unsigned char)src[i];
    if (c == '\r' && (i + 1 == len || src[i + 1] == '\n')) break;
    err->source_line[n++] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  err->source_line[n] = '\0';
}

const char *lay_status_str(lay_status s) {
  switch (s) {
  case LAY_OK: return "ok";
  case LAY_E_SYNTAX: return "syntax error";
  case LAY_E_NAME: return "name error";
  case LAY_E_TYPE: return "type error";
  case LAY_E_SHAPE: return "shape error";
  case LAY_E_ARG: return "bad argument";
  case LAY_E_LAYOUT: return "invalid layout";
  case LAY_E_BUFFER: return "buffer too small";
  case LAY_E_IO: return "i/o error";
  case LAY_E_NOMEM: return "out of memory";
  case LAY_E_LIMIT: return "limit exceeded";
  case LAY_E_OVERFLOW: return "overflow";
  case LAY_E_JSON: return "malformed json";
  case LAY_E_INTERNAL: return "internal error";
  }
  return "unknown error";
}

/* An output buffer that counts what it would need, like snprintf. */
typedef struct outbuf {
  char *buf;
  size_t cap, n;
} outbuf;

static void put(outbuf *o, const char *s, size_t len) {
  for (size_t i = 0; i < len; i++, o->n++)
    if (o->n + 1 < o->cap) o->buf[o->n] = s[i];
}

static void puts_(outbuf *o, const char *s) { put(o, s, strlen(s)); }

size_t lay_error_format(const lay_error *e, char *buf, size_t cap) {
  outbuf o = {buf, cap, 0};
  char num[64];
  if (!e) {
    puts_(&o, "error: no error information");
  } else {
    if (e->file[0]) {
      puts_(&o, e->file);
      puts_(&o, ":");
      if (e->line <= 0) puts_(&o, " ");
    }
    if (e->line > 0) {
      snprintf(num, sizeof num, "%d:%d: ", e->line, e->col > 0 ? e->col : 1);
      puts_(&o, num);
    }
    puts_(&o, "error: ");
    puts_(&o, e->message);
    if (e->line > 0 && e->source_line[0] && e->col > 0) {
      const char *z = memchr(e->source_line, 0, sizeof e->source_line);
      size_t sl = z ? (size_t)(z - e->source_line) : sizeof e->source_line;
      /* A column past the (possibly truncated) line gets no caret. */
      if ((size_t)(e->col - 1) > sl) goto done;
      puts_(&o, "\n    ");
      put(&o, e->source_line, sl);
      puts_(&o, "\n    ");
      /* Tabs before the column stay tabs, so the caret lines up. */
      for (int i = 0; i + 1 < e->col; i++)
        put(&o, (size_t)i < sl && e->source_line[i] == '\t' ? "\t" : " ", 1);
      puts_(&o, "^");
    }
  }
done:
  if (cap > 0) buf[o.n < cap ? o.n : cap - 1] = '\0';
  return o.n;
}
