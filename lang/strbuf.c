/*
** strbuf.c: the growable text buffer of strbuf.h.
*/
#include "strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make room for n more bytes and the NUL. */
static int grow(lg_strbuf *b, size_t n) {
  if (b->oom) return 0;
  if (n > SIZE_MAX - b->n - 1) {
    b->oom = 1;
    return 0;
  }
  if (b->n + n + 1 <= b->cap) return 1;
  size_t nc = b->cap ? b->cap : 256;
  while (nc < b->n + n + 1) {
    if (nc > SIZE_MAX / 2) {
      b->oom = 1;
      return 0;
    }
    nc *= 2;
  }
  char *ns = realloc(b->s, nc);
  if (!ns) {
    b->oom = 1;
    return 0;
  }
  b->s = ns;
  b->cap = nc;
  return 1;
}

void lg_sb_put(lg_strbuf *b, const char *s, size_t n) {
  if (!grow(b, n)) return;
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = '\0';
}

void lg_sb_str(lg_strbuf *b, const char *s) { lg_sb_put(b, s, strlen(s)); }

void lg_sb_printf(lg_strbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[256];
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0) {
    b->oom = 1;
    return;
  }
  if ((size_t)k < sizeof tmp) {
    lg_sb_put(b, tmp, (size_t)k);
    return;
  }
  if (!grow(b, (size_t)k)) return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

char *lg_sb_take(lg_strbuf *b) {
  char *s = b->s;
  if (b->oom) {
    free(s);
    s = NULL;
  } else if (!s) {
    s = calloc(1, 1);
  }
  b->s = NULL;
  b->n = b->cap = 0;
  b->oom = 0;
  return s;
}
