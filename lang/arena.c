/*
** arena.c: the bump allocator behind every AST and IR (see arena.h).
** Blocks are chained; a request larger than a block gets its own block.
*/
#include "arena.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LG_ARENA_BLOCK 16384

typedef struct lg_block {
  struct lg_block *next; /* the block allocated before this one */
  size_t used;           /* bytes handed out from data */
  size_t size;           /* bytes available in data */
  _Alignas(16) unsigned char data[];
} lg_block;

struct lg_arena {
  lg_block *head; /* the newest block, the one being filled */
};

lg_arena *lg_arena_new(void) { return calloc(1, sizeof(lg_arena)); }

void lg_arena_free(lg_arena *a) {
  if (!a) return;
  for (lg_block *b = a->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a);
}

void *lg_arena_alloc(lg_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (n == 0) n = 16;
  lg_block *b = a->head;
  if (!b || b->size - b->used < n) {
    size_t size = n > LG_ARENA_BLOCK ? n : LG_ARENA_BLOCK;
    b = malloc(sizeof(lg_block) + size);
    if (!b) return NULL;
    b->size = size;
    b->used = 0;
    b->next = a->head;
    a->head = b;
  }
  void *p = b->data + b->used;
  b->used += n;
  memset(p, 0, n);
  return p;
}

char *lg_arena_strndup(lg_arena *a, const char *s, size_t n) {
  char *p = lg_arena_alloc(a, n + 1);
  if (p) memcpy(p, s, n);
  return p;
}

char *lg_arena_printf(lg_arena *a, const char *fmt, ...) {
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *p = n < 0 ? NULL : lg_arena_alloc(a, (size_t)n + 1);
  if (p) vsnprintf(p, (size_t)n + 1, fmt, aq);
  va_end(aq);
  return p;
}
