/*
** diag.c: diagnostics. Turns byte offsets into line:col, copies the
** offending source line into the lay_error (a window around the column
** when the line is too long for the field), and implements the public
** lay_status_str and lay_error_format (the 3-line form of lay.h, with the
** caret placed by characters, not bytes).
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

/* Clear err and fill its code, file and message. */
static void fill(lay_error *err, lay_status code, const char *file,
                 const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 0)))
#endif
    ;
static void fill(lay_error *err, lay_status code, const char *file,
                 const char *fmt, va_list ap) {
  memset(err, 0, sizeof *err);
  err->code = code;
  set_file(err, file);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  lg_one_line(err->message);
}

void lg_error_plain(lay_error *err, lay_status code, const char *file,
                    const char *fmt, ...) {
  if (!err) return;
  va_list ap;
  va_start(ap, fmt);
  fill(err, code, file, fmt, ap);
  va_end(ap);
}

/* The stored source line: LINE_CAP bytes of text at most (the field's
** size less its NUL). A longer line is cut around the column: when the
** column lies in its first PREFIX_MAX bytes, the line's start followed by
** "..."; otherwise a window "..." + WINDOW_MAX bytes + "..." that starts
** WINDOW_LEAD bytes before the column. A window is always shorter than
** PREFIX_MAX, so lay_error_format recognises it by a column past the
** stored text, and then finds the caret at 3 + WINDOW_LEAD. */
#define LINE_CAP (sizeof ((lay_error *)0)->source_line - 1)
#define PREFIX_MAX (LINE_CAP - 3)
#define WINDOW_LEAD 60
#define WINDOW_MAX (PREFIX_MAX - 7)

static int is_cont(unsigned char c) { return (c & 0xc0) == 0x80; }

/* Append src[from, to) to the source line at *n, control characters made
** '?'. For a cut line (`cut`), orphan UTF-8 continuation bytes at the
** start become '.' and a character cut at the end is dropped, so the text
** stays valid UTF-8 while every byte keeps its offset. */
static void copy_span(lay_error *err, size_t *n, const char *src,
                      size_t from, size_t to, int cut) {
  size_t i = from;
  for (; cut && i < to && is_cont((unsigned char)src[i]); i++)
    err->source_line[(*n)++] = '.';
  if (cut) {
    /* Drop a multi-byte character whose tail lies past `to`. */
    size_t k = to;
    while (k > i && is_cont((unsigned char)src[k - 1])) k--;
    if (k > i && (unsigned char)src[k - 1] >= 0xc0) {
      unsigned char lead = (unsigned char)src[k - 1];
      size_t need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
      if (to - (k - 1) < need) to = k - 1;
    }
  }
  for (; i < to; i++) {
    unsigned char c = (unsigned char)src[i];
    err->source_line[(*n)++] =
        (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
}

void lg_error_at(lay_error *err, lay_status code, const char *file,
                 const char *src, size_t len, uint32_t pos, const char *fmt,
                 ...) {
  if (!err) return;
  va_list ap;
  va_start(ap, fmt);
  fill(err, code, file, fmt, ap);
  va_end(ap);
  if (!src) return;
  if (pos > len) pos = (uint32_t)len;
  lg_linecol(src, len, pos, &err->line, &err->col);
  /* The line holding pos, without its newline (or CR LF). */
  size_t start = pos - (size_t)(err->col - 1), end = start, n = 0;
  while (end < len && src[end] != '\n') end++;
  if (end > start && src[end - 1] == '\r') end--;
  size_t col0 = (size_t)(err->col - 1);
  if (end - start <= LINE_CAP) {
    copy_span(err, &n, src, start, end, 0);
  } else if (col0 < PREFIX_MAX) {
    copy_span(err, &n, src, start, start + PREFIX_MAX, 1);
    memcpy(err->source_line + n, "...", 3);
    n += 3;
  } else {
    size_t from = start + col0 - WINDOW_LEAD, to = from + WINDOW_MAX;
    memcpy(err->source_line, "...", 3);
    n = 3;
    copy_span(err, &n, src, from, to < end ? to : end, 1);
    if (to < end) {
      memcpy(err->source_line + n, "...", 3);
      n += 3;
    }
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
      size_t at = (size_t)(e->col - 1);
      /* A column past the stored text: a window around the column (see
      ** lg_error_at) puts the caret at a fixed place; any other line
      ** that does not reach the column gets no caret. */
      if (at > sl) {
        if (sl < 3 || memcmp(e->source_line, "...", 3)) goto done;
        at = 3 + WINDOW_LEAD;
        if (at > sl) goto done;
      }
      puts_(&o, "\n    ");
      put(&o, e->source_line, sl);
      puts_(&o, "\n    ");
      /* One blank per character before the caret: tabs stay tabs, UTF-8
      ** continuation bytes take no room. */
      for (size_t i = 0; i < at; i++) {
        unsigned char c = (unsigned char)e->source_line[i];
        if (c == '\t') put(&o, "\t", 1);
        else if (!is_cont(c)) put(&o, " ", 1);
      }
      puts_(&o, "^");
    }
  }
done:
  if (cap > 0) buf[o.n < cap ? o.n : cap - 1] = '\0';
  return o.n;
}
