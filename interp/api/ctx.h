/*
** ctx.h: what lay.c shares with the rest of interp/ beyond lay.h
** (internal, prefix li_): the embedded stdlib table, the module behind a
** context (for the test runner), and the facts about a plan's layout
** buffer that the memory-order listing needs but lay.h does not expose.
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

/* lay_ctx_new without the embedded stdlib file named `skip`
** ("stdlib/amd.lay"; NULL = none), so that `lay check stdlib/amd.lay`
** checks the file in place of its embedded copy. */
lay_status li_ctx_new_except(lay_ctx **out, const char *skip,
                             lay_error *err);

/* The front-end module holding everything the context compiled. */
lg_module *li_ctx_module(lay_ctx *ctx);

/* The layout buffer of a plan (for a pack plan the destination, for an
** unpack plan the source, for a convert plan the destination): its size
** in bytes and the size of one of its elements in bytes (1 for byte-plane
** layouts). */
size_t li_layout_bytes(const lay_plan *p);
size_t li_layout_elem(const lay_plan *p);
/* The name of byte plane `plane` ("lo", "hi"); NULL when the layout has
** no planes or the index is out of range. */
const char *li_plane_name(const lay_plan *p, int plane);
/* The number of byte planes of the layout (0 when none). */
int li_plane_count(const lay_plan *p);

#endif /* LI_CTX_H */
