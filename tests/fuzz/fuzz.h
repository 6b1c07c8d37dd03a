/*
** fuzz.h: what the fuzz targets share: an invariant check that aborts
** (so that libFuzzer and the replay runner both report it with a stack),
** and the check that a failure is a clean lay_error.
*/
#ifndef LAY_FUZZ_H
#define LAY_FUZZ_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

#define FZ_CHECK(cond, ...)                                          \
  do {                                                               \
    if (!(cond)) {                                                   \
      fprintf(stderr, "%s:%d: invariant failed: %s: ", __FILE__,     \
              __LINE__, #cond);                                      \
      fprintf(stderr, __VA_ARGS__);                                  \
      fputc('\n', stderr);                                           \
      abort();                                                       \
    }                                                                \
  } while (0)

/* A failure must carry a valid code equal to the status and a one-line,
** NUL-terminated, non-empty message; lay_error_format must not overrun. */
static inline void fz_clean_error(lay_status st, const lay_error *e) {
  if (st == LAY_OK) return;
  FZ_CHECK(st > LAY_OK && st <= LAY_E_INTERNAL, "status %d", (int)st);
  FZ_CHECK(st != LAY_E_INTERNAL, "internal error: %s", e->message);
  FZ_CHECK(e->code == st, "code %d, status %d (%s)", (int)e->code, (int)st,
           e->message);
  FZ_CHECK(memchr(e->message, 0, sizeof e->message) != NULL, "unterminated");
  FZ_CHECK(e->message[0] != '\0', "empty message for status %d", (int)st);
  /* One line, no control characters: a message quotes user text (a name,
  ** a JSON string) and is printed to a terminal. LAY_FUZZ_LAX_MESSAGES set
  ** lets a fuzzing session go on past a known bug of this kind. */
  if (!getenv("LAY_FUZZ_LAX_MESSAGES"))
    for (const char *c = e->message; *c; c++)
      FZ_CHECK((unsigned char)*c >= 0x20 || *c == '\t',
               "control character 0x%02x in message: %s", (unsigned)*c,
               e->message);
  FZ_CHECK(memchr(e->file, 0, sizeof e->file) != NULL, "unterminated file");
  FZ_CHECK(memchr(e->source_line, 0, sizeof e->source_line) != NULL,
           "unterminated source line");
  char buf[1200];
  size_t need = lay_error_format(e, buf, sizeof buf);
  FZ_CHECK(strlen(buf) == (need < sizeof buf ? need : sizeof buf - 1),
           "lay_error_format length");
}

#endif /* LAY_FUZZ_H */
