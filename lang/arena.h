/*
** arena.h: a bump allocator. Every AST node and IR object of one compile
** lives in one arena, freed in one call.
*/
#ifndef LG_ARENA_H
#define LG_ARENA_H

#include <stddef.h>

typedef struct lg_arena lg_arena;

lg_arena *lg_arena_new(void);
void lg_arena_free(lg_arena *a);                     /* accepts NULL */
void *lg_arena_alloc(lg_arena *a, size_t n);         /* zeroed; NULL on OOM */
char *lg_arena_strndup(lg_arena *a, const char *s, size_t n);
char *lg_arena_printf(lg_arena *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* LG_ARENA_H */
