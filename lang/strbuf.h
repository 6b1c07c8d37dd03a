/*
** strbuf.h: a growable, malloc'd text buffer (internal). Used wherever
** lay builds text: IR dumps, plan descriptions, listings, generated specs,
** SVG. An allocation failure latches `oom`; lg_sb_take then returns NULL.
*/
#ifndef LG_STRBUF_H
#define LG_STRBUF_H

#include <stddef.h>

typedef struct lg_strbuf {
  char *s;    /* the text, NUL-terminated when not NULL */
  size_t n;   /* bytes used, without the NUL */
  size_t cap; /* bytes allocated */
  int oom;    /* an allocation failed: the text is lost */
} lg_strbuf;

/* Append n bytes / a C string / formatted text. */
void lg_sb_put(lg_strbuf *b, const char *s, size_t n);
void lg_sb_str(lg_strbuf *b, const char *s);
void lg_sb_printf(lg_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The text (never NULL unless out of memory: "" when empty), handed to the
** caller, who frees it; the buffer is left empty. */
char *lg_sb_take(lg_strbuf *b);

#endif /* LG_STRBUF_H */
