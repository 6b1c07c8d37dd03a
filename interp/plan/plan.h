/*
** plan.h: the planner and executor's interface (internal, prefix li_).
**
** li_plan_build compiles an IR (lang/ir.h) for a concrete CPU-side shape,
** dtype and direction into an immutable plan; li_plan_compose joins an
** unpack of one layout with a pack of another into a single convert plan.
** lay.c wraps these as the public lay_plan API.
*/
#ifndef LI_PLAN_H
#define LI_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "lay.h"

typedef struct li_plan li_plan;

/* Documented limits. */
#define LI_MAX_TABLE_BYTES ((size_t)256 << 20) /* index tables of one plan */

/* Compile `ir` for `shape` (rank values, CPU-side order) and `dtype` (the
** CPU element type; LAY_DT_NONE = the IR's own, int8 when it has none; a
** conflict with the IR's fixed type is LAY_E_TYPE). dir is LAY_PACK or
** LAY_UNPACK. The plan keeps no pointer into `ir`. */
lay_status li_plan_build(const lg_ir *ir, const int64_t *shape, int rank,
                         lay_dtype dtype, lay_dir dir, li_plan **out,
                         lay_error *err);
/* A convert plan: layout `a` -> layout `b`, dims matched by name; `shape`
** is in a's CPU-side order. */
lay_status li_plan_convert(const lg_ir *a, const lg_ir *b,
                           const int64_t *shape, int rank, lay_dtype dtype,
                           li_plan **out, lay_error *err);
/* The two with the plan log (lay.h lay_ctx_set_log): log->fn(log->user,
** step, text) after each planning step ("sides", "refine", "boxes",
** "coalesce", "kernels"; plan.c says what each does). log NULL, or its fn
** NULL: no log, as li_plan_build and li_plan_convert. */
typedef struct li_log {
  lay_log_fn fn; /* the callback */
  void *user;    /* its first argument */
} li_log;
lay_status li_plan_build_log(const li_log *log, const lg_ir *ir,
                             const int64_t *shape, int rank, lay_dtype dtype,
                             lay_dir dir, li_plan **out, lay_error *err);
lay_status li_plan_convert_log(const li_log *log, const lg_ir *a,
                               const lg_ir *b, const int64_t *shape, int rank,
                               lay_dtype dtype, li_plan **out,
                               lay_error *err);
void li_plan_free(li_plan *p);

size_t li_plan_src_bytes(const li_plan *p);
size_t li_plan_dst_bytes(const li_plan *p);
lay_dtype li_plan_src_dtype(const li_plan *p);
lay_dtype li_plan_dst_dtype(const li_plan *p);
int li_plan_cpu_shape(const li_plan *p, int64_t *shape, int cap);
int li_plan_hw_shape(const li_plan *p, int64_t *shape, const char **names,
                     int cap);

lay_status li_plan_where(const li_plan *p, const int64_t *coord, int rank,
                         uint64_t *offset, lay_error *err);
lay_status li_plan_at(const li_plan *p, uint64_t offset, int64_t *coord,
                      int cap, int *is_pad, int *plane, lay_error *err);
char *li_plan_describe(const li_plan *p); /* malloc'd */
size_t li_plan_memory(const li_plan *p);  /* lay_plan_memory */

#endif /* LI_PLAN_H */
