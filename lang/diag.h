/*
** diag.h: diagnostics of the front end (internal). Positions stay byte
** offsets until an error is reported; lg_linecol turns one into a 1-based
** line and column. lg_error_at (lang.h) fills a lay_error from a position.
*/
#ifndef LG_DIAG_H
#define LG_DIAG_H

#include <stddef.h>
#include <stdint.h>

#include "lay.h"

/* The 1-based line and column (in bytes) of byte offset pos in src. */
void lg_linecol(const char *src, size_t len, uint32_t pos, int *line,
                int *col);

/* Control characters other than tab become '?' in s: a message quotes
** user text (an import path, a JSON string) and must stay one printable
** line. */
void lg_one_line(char *s);

/* Fill err (may be NULL) with a message that has no source position. */
void lg_error_plain(lay_error *err, lay_status code, const char *file,
                    const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

#endif /* LG_DIAG_H */
