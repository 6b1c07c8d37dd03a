/*
** planner.h: what the planner's files share (internal, prefix li_):
** plan.c (entry points, sides, queries), box.c (refinement and boxes),
** loops.c (a box's loops: order, coalesce, kernel) and describe.c (the
** plan in words, and the plan log).
*/
#ifndef LI_PLANNER_H
#define LI_PLANNER_H

#include <stdint.h>

#include "plan.h"
#include "plan_int.h"
#include "strbuf.h"

#define LI_MAX_BOXES 65536 /* boxes of one plan (LAY_E_LIMIT beyond) */
#define LI_MAXR (2 * LG_MAX_AXES + 1) /* refined digits of one dim */
#define LI_MAX_LOOPS (LG_MAX_RANK * LI_MAXR) /* loops of one box as cut */

/* The planner's short name for li_fail (plan_int.h): fill err, return the
** code. */
#define fail li_fail
#define OVF(err) fail(err, LAY_E_OVERFLOW, "buffer size overflows 64 bits")
#define nomem(err) fail(err, LAY_E_NOMEM, "out of memory")

static inline int mul64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static inline int add64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}

/* ---- The plan log (describe.c) -----------------------------------------------
** While a plan is built with a log (li_plan_build_log), each step writes
** its text into `step` and hands it on with li_plog_step; the boxes as cut
** and as coalesced are written box by box into `cut` and `coal` while the
** boxes are built, and handed on as the steps "boxes" and "coalesce". */
typedef struct li_plog {
  const li_log *to; /* the caller's callback */
  lg_strbuf step;   /* the text of the step being written */
  lg_strbuf cut;    /* each box's loops as cut */
  lg_strbuf coal;   /* each box's loops ordered and coalesced */
} li_plog;

/* Hand step `name` with the text of lg->step to the callback; empty it. */
void li_plog_step(li_plog *lg, const char *name);
/* The same with the text of b. */
void li_plog_take(li_plog *lg, lg_strbuf *b, const char *name);
void li_plog_free(li_plog *lg);
/* One line: box `box` (kind from fill, pat, raw), its bases and loops. */
void li_plog_loops(lg_strbuf *b, int box, int fill, int pat, int raw,
                   int64_t sb, int64_t db, const li_loop *L, int n);
/* describe's lines on one side. */
void li_describe_side(lg_strbuf *b, const char *what, const li_side *s);

/* ---- Steps ---------------------------------------------------------------- */
/* plan.c: sorted_axes: s's axes of extent > 1 by stride ascending into
** ord; returns their count. */
int li_sorted_axes(const li_side *s, int *ord);

/* box.c: the boxes of p, whose sides are filled in; dmap[i] is D's dim
** for S's dim i; lg NULL: no log. */
lay_status li_plan_boxes(li_plan *p, const int *dmap, li_plog *lg,
                         lay_error *err);

/* loops.c: order a box's loops: table loops innermost, then by
** destination stride descending, then by source stride descending. */
void li_order_loops(li_loop *L, int n);

/* loops.c: coalesce the loop nest L[0..n) (outermost first) in place, as
** CuTe's coalesce does; returns its new length, at least 1.
**
** Post-condition: for all k in [0, size(L)), off(result, k) == off(L, k),
** where size(L) is the product of the extents and off(L, k) the triple
** (source, destination, channel) of sums over the loops j of digit_j(k)
** times the loop's stride, digit_j(k) being the digits of k in the mixed
** radix of the extents, the innermost loop's fastest. The result has no
** loop of extent 1 (unless it is that one loop, or the row loop below)
** and no two neighbours that could merge.
**
** An inner loop merges into its outer neighbour when the outer one's
** strides are the inner one's times its extent (all three strides).
** Table loops (li_loop.tab != 0) never merge. rows != 0: the innermost
** loop carries row pads (li_box.pre, .post): it stays a loop of its own,
** even of extent 1. */
int li_coalesce(li_loop *L, int n, int rows);

/* loops.c: choose b's kernel (b->kern, b->bk) for its loops L[0 .. b->nl)
** (ordered and coalesced; b's other fields set). The block copy walks its
** outer loops in source order: it may reorder L[0 .. nl - 2). The
** transposition (TR) moves its source's loop next to the innermost; the
** gather tile (TRG) takes the loops of its table out of L (b->nl becomes
** smaller) and adds the table to p->trg. */
void li_choose_kernel(li_plan *p, li_box *b, li_loop *L);

/* loops.c: boxes [from, p->nbox) (emitted in order, their loops back to
** back) where a PLANES box B is the last, partial block of a dim whose
** whole blocks the box before it walks: the two as one, the dim a table
** loop (li_loop.tab). */
void li_merge_ragged(li_plan *p, int from);

/* mtile.c: give b the macro tile (kernel MTILE, exec/mtile.c) when its
** loops L[0 .. *n) make one: the tile's digits leave the loops, the rest
** are its own loops and the box's (*n and b->nl become theirs, the tile
** goes to p->mt). Returns 1 when taken, 0 with L untouched otherwise. */
int li_take_mtile(li_plan *p, li_box *b, li_loop *L, int *n);

/* vplan.c: the data boxes of a plan with a value rule on one side as
** value slabs (kernel VSLAB, p->vs; plan_int.h li_slab) where they take
** that shape; after li_plan_boxes. */
lay_status li_plan_slabs(li_plan *p, lay_error *err);

#endif /* LI_PLANNER_H */
