/*
** lower_transform.c: transforms: the input shape, the chain of value and
** index ops, and the IR as axes of source digits or as a gather table
** (see lower_int.h); lower_padfix.c gives the pads their stored values.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"
#include "padval.h"

/* Run the index ops of the chain; with tbl, also on the index array. */
static int run_chain(lw *w, const env *en, const lg_transform *T, tstate *t,
                     int64_t *shape, int *rank, tarr *tbl, tpads *pp,
                     lg_ir *ir, int values) {
  pp->n = pp->nval = 0;
  for (int i = 0; i < T->ops.n; i++) {
    const lg_expr *op = T->ops.v[i];
    const char *nm =
        op->kind == LG_X_CALL ? op->u.call.fn->u.str.s : op->u.str.s;
    if (!strcmp(nm, "quantize") || !strcmp(nm, "dequantize") ||
        !strcmp(nm, "cast")) {
      if (values) {
        int64_t fixed[LG_MAX_RANK];
        int amap[LG_MAX_AXES];
        for (int d = 0; d < ir->rank; d++) fixed[d] = ir->dim[d].fixed;
        /* Which input dimension each axis of the tensor is, here. */
        for (int k = 0; k < *rank; k++) {
          int d = t->affine ? lg_whole_dim(t, k) : -1;
          if (d < 0)
            amap[k] = t->pad_only ? AX_PAD_ONLY : AX_COMPOSITE;
          else if (t->pext[d] != fixed[d] || t->lo[d] || t->hi[d] != fixed[d])
            amap[k] = AX_PADDED;
          else
            amap[k] = d;
        }
        if (lg_value_op(w, en, nm, op, ir, fixed, amap, *rank)) return -1;
      }
      pp->nval++;
      continue;
    }
    if (lg_index_op(w, en, op, nm, t, shape, rank, tbl, ir, pp)) return -1;
  }
  return 0;
}

/* The input of a transform: its dimensions (named, or d0, d1, ...) and
** their fixed sizes into ir and shape[], and its CPU type. */
static int transform_input(lw *w, const srcref *sr, const lg_transform *T,
                           lg_ir *ir, const char **dims, int64_t *shape) {
  const lg_list *sh = &T->shape;
  if (sh->n < 1 || sh->n > LG_MAX_RANK)
    return lg_fail(w, sr, T->pos, LAY_E_LIMIT,
                   "a transform's input has 1 to %d dimensions", LG_MAX_RANK);
  ir->rank = sh->n;
  for (int i = 0; i < sh->n; i++) {
    const lg_expr *e = sh->v[i];
    const lg_expr *ve = e->kind == LG_X_NAMED ? e->u.named.value : e;
    if (ve->kind != LG_X_INT || ve->u.i <= 0 || ve->u.i > (INT64_C(1) << 40))
      return lg_fail(w, sr, ve->pos, LAY_E_SHAPE,
                     "a size of the input shape must be a positive integer");
    const char *nm = e->kind == LG_X_NAMED
                         ? e->u.named.name.s
                         : lg_arena_printf(w->a, "d%d", i);
    if (!nm) return lg_nomem(w);
    for (int j = 0; j < i; j++)
      if (!strcmp(dims[j], nm))
        return lg_fail(w, sr, e->pos, LAY_E_NAME, "duplicate dimension '%s'",
                       nm);
    dims[i] = nm;
    ir->dim[i].name = nm;
    ir->dim[i].fixed = ve->u.i;
    shape[i] = ve->u.i;
  }
  if (T->dtype) {
    ir->value.cpu = lay_dtype_parse(T->dtype->u.str.s);
    if (ir->value.cpu == LAY_DT_NONE)
      return lg_fail(w, sr, T->dtype->pos, LAY_E_TYPE, "unknown type '%s'%s",
                     T->dtype->u.str.s, lg_hint_type(w, T->dtype->u.str.s));
  }
  ir->value.axis = -1;
  ir->value.saturate = 1;
  return 0;
}

/* The tracked tensor before the first op: axis i is dimension i whole. */
static void track_init(tstate *t, const int64_t *shape, int n) {
  memset(t, 0, sizeof *t);
  t->n = n;
  t->affine = 1;
  for (int i = 0; i < n; i++) {
    t->ax[i].ext = shape[i];
    t->ax[i].nd = 1;
    t->ax[i].d[0].dim = i;
    t->ax[i].d[0].div = 1;
    t->ax[i].d[0].ext = shape[i];
    t->lo[i] = 0;
    t->hi[i] = t->pext[i] = shape[i];
  }
}

/* The IR of an affine chain: the window and pads of each dimension, and
** the tracked digits as axes (an axis without digits is a unit axis). */
static int affine_ir(lw *w, const srcref *sr, const lg_transform *T,
                     const tstate *t, tpads *pp, const char *const *dims,
                     lg_ir *ir) {
  for (int d = 0; d < ir->rank; d++)
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < t->nseg[d][k]; j++) pp->live[t->seg[d][k][j].id] = 1;
  for (int d = 0; d < ir->rank; d++) {
    lg_ir_dim *m = &ir->dim[d];
    if (t->lo[d]) m->lo = lg_ie_const(w->a, t->lo[d]);
    if (t->hi[d] != m->fixed) m->hi = lg_ie_const(w->a, t->hi[d]);
    if (t->before[d]) m->before = lg_ie_const(w->a, t->before[d]);
    if (t->after[d]) m->after = lg_ie_const(w->a, t->after[d]);
  }
  for (int i = 0; i < t->n; i++) {
    const tax *x = &t->ax[i];
    lg_ir_axis *ax = NULL;
    if (!x->nd) {
      if (lg_add_axis(w, sr, ir, T->pos, &ax)) return -1;
      ax->kind = LG_AX_UNIT;
      ax->label = "1";
      continue;
    }
    for (int j = 0; j < x->nd; j++) {
      const tdig *g = &x->d[j];
      if (lg_add_axis(w, sr, ir, T->pos, &ax)) return -1;
      ax->kind = LG_AX_DIGIT;
      ax->dim = g->dim;
      ax->div = g->div;
      ax->mod = g->div * g->ext == t->pext[g->dim] ? 0 : g->ext;
      ax->label = lg_digit_label(w, dims[g->dim], ax->div, ax->mod);
      if (!ax->label) return -1;
    }
  }
  return lg_pad_store(w, sr, pp, ir, t, NULL, 0);
}

/* No affine structure: replay the chain on the CPU-side indices of the
** input (shape s0) into a gather table; `total` is the output's size. */
static int gather_ir(lw *w, const srcref *sr, const env *en,
                     const lg_transform *T, tstate *t, tpads *pp,
                     const int64_t *s0, int64_t total, lg_ir *ir) {
  int r0 = T->shape.n;
  int64_t n = lg_shape_count(s0, r0);
  if (total > LW_MAX_TABLE || n > LW_MAX_TABLE)
    return lg_fail(w, sr, T->pos, LAY_E_LIMIT,
                   "this transform needs a gather table of %lld entries (at "
                   "most %d)",
                   (long long)(total > n ? total : n), LW_MAX_TABLE);
  tarr tbl = {r0, {0}, NULL};
  memcpy(tbl.shape, s0, sizeof(int64_t) * (size_t)r0);
  tbl.v = malloc(sizeof(int64_t) * (size_t)n);
  if (!tbl.v) return lg_nomem(w);
  for (int64_t i = 0; i < n; i++) tbl.v[i] = i;
  int64_t shape[LG_MAX_AXES];
  memcpy(shape, s0, sizeof shape);
  int rank = r0;
  int rc = run_chain(w, en, T, t, shape, &rank, &tbl, pp, ir, 0);
  if (!rc) {
    int64_t nt = lg_shape_count(tbl.shape, tbl.n);
    for (int64_t i = 0; i < nt; i++) /* a pad's mark -1 - id */
      if (tbl.v[i] < 0) pp->live[-1 - tbl.v[i]] = 1;
    rc = lg_pad_store(w, sr, pp, ir, NULL, tbl.v, nt);
    for (int64_t i = 0; i < nt; i++)
      if (tbl.v[i] < 0) tbl.v[i] = -1;
  }
  if (!rc) {
    ir->ntable = lg_shape_count(tbl.shape, tbl.n);
    ir->table = lg_walloc(w, sizeof(int64_t) * (size_t)ir->ntable);
    if (ir->table)
      memcpy(ir->table, tbl.v, sizeof(int64_t) * (size_t)ir->ntable);
    else
      rc = -1;
  }
  free(tbl.v);
  ir->naxes = 0;
  return rc;
}

/* Lower a transform: run the chain once on the tracked digits (and the
** value ops); when it stays affine the IR is axes of source digits, else
** the chain runs again on the index array for a gather table. */
int lg_lower_transform(lw *w, const lg_def *def, lg_ir *ir) {
  const lg_transform *T = def->transform;
  srcref sr = lg_def_src(def);
  const char *dims[LG_MAX_RANK];
  int64_t shape[LG_MAX_AXES];
  if (transform_input(w, &sr, T, ir, dims, shape)) return -1;
  env en = {sr, NULL, 0, 0, -1, dims, ir->rank};
  tstate *t = lg_walloc(w, sizeof *t);
  tpads *pp = lg_walloc(w, sizeof *pp);
  if (!t || !pp) return -1;
  track_init(t, shape, ir->rank);
  memset(pp, 0, sizeof *pp);
  int64_t s0[LG_MAX_AXES];
  memcpy(s0, shape, sizeof s0);
  int rank = ir->rank;
  if (run_chain(w, &en, T, t, shape, &rank, NULL, pp, ir, 1)) return -1;
  if (t->affine) return affine_ir(w, &sr, T, t, pp, dims, ir);
  return gather_ir(w, &sr, &en, T, t, pp, s0, lg_shape_count(shape, rank),
                   ir);
}
