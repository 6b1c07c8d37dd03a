/*
** ctx.h: what the api room (lay.c) shares with the vendor and tools rooms
** beyond lay.h (internal, prefix li_): the embedded stdlib table and the
** front-end module behind a context (for the test runner).
*/
#ifndef LI_CTX_H
#define LI_CTX_H

#include <stddef.h>

#include "lang.h"
#include "lay.h"

/* The stdlib files embedded by stdlib/embed.cmake into gen/stdlib_data.c,
** ending with an entry whose name is NULL. */
typedef struct {
  const char *name; /* "stdlib/amd.lay" */
  const char *text; /* the file's bytes, NUL-terminated */
  size_t len;       /* bytes, without the terminating NUL */
} li_stdlib_file;
extern const li_stdlib_file li_stdlib_files[];

/* The front-end module holding everything the context compiled. */
lg_module *li_ctx_module(lay_ctx *ctx);

/* The compiled plan behind a lay_plan handle (NULL for NULL): what
** slab.c reads to find a plan's slabs. */
struct li_plan;
const struct li_plan *li_plan_of(const lay_plan *plan);

#endif /* LI_CTX_H */
