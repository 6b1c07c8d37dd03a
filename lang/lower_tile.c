/*
** lower_tile.c: the order item `tile(POSITIONS, SIZES [, PERM])`
** (LANGUAGE.md "Tiled layouts `tile(...)`"), MLIR's linalg.pack for any
** rank: the lists are checked and the item is expanded into the ordinary
** items it stands for (`d/t` or `d` per outer dimension in PERM's order,
** then `d%t` per position), which lower_order.c lowers like any other.
** Before `...` is expanded without a shape, lg_tile_need says how many
** dimensions the lists name (see lower_int.h).
*/
#include <stdio.h>
#include <string.h>

#include "lower_int.h"

/* The tile(...) call of L's order, or NULL when the order is not one. */
static const lg_expr *tile_call(const lg_layout *L) {
  for (int i = 0; i < L->n_items; i++) {
    const lg_expr *e = L->items[i].e;
    if (e && e->kind == LG_X_CALL && !strcmp(e->u.call.fn->u.str.s, "tile"))
      return e;
  }
  return NULL;
}

int lg_is_tile(const lg_layout *L) {
  return L && !L->alias && tile_call(L) != NULL;
}

/* The checks of the item's place in the order and its argument count. */
static int tile_shape(lw *w, const srcref *sr, const lg_layout *L,
                      const lg_expr **call) {
  *call = tile_call(L);
  for (int i = 0; i < L->n_items; i++) {
    const lg_item *it = &L->items[i];
    if (it->e != *call) continue;
    if (L->n_items > 1)
      return lg_fail(w, sr, it->e->pos, LAY_E_LAYOUT,
                     "tile(...) must be the only item of the memory order");
    if (it->stride || it->align)
      return lg_fail(w, sr, it->e->pos, LAY_E_LAYOUT,
                     "tile(...) takes no stride or align");
  }
  int n = (*call)->u.call.args.n;
  if (n < 2 || n > 3)
    return lg_fail(w, sr, (*call)->pos, LAY_E_ARG,
                   "tile takes 2 or 3 arguments (tile(positions, sizes "
                   "[, perm])), got %d", n);
  for (int k = 0; k < n; k++)
    if ((*call)->u.call.args.v[k]->kind == LG_X_NAMED)
      return lg_fail(w, sr, (*call)->u.call.args.v[k]->pos, LAY_E_ARG,
                     "tile takes its arguments by position (tile(positions, "
                     "sizes [, perm]))");
  return 0;
}

/* One list argument of tile: integers. *unk when not known yet. On an
** error, at the argument of the use that gave the list when there is
** one. */
typedef struct tlist {
  const int64_t *v;
  int n;
  srcref sr;        /* where to report about it (a copy: the value it
                    ** came from is gone when the list is checked) */
  uint32_t pos;
  const char *pre;  /* "argument 'pos': " or "" */
} tlist;

static int tile_list(lw *w, const env *en, const lg_expr *e,
                     const char *what, tlist *out, int *unk) {
  val v;
  if (lg_eval(w, en, e, &v)) return -1;
  memset(out, 0, sizeof *out);
  out->sr = en->sr;
  out->pos = e->pos;
  out->pre = "";
  if (v.arg) {
    out->sr = v.arg_sr;
    out->pos = v.arg->pos;
    out->pre = lg_arena_printf(w->a, "argument '%s': ", v.param);
    if (!out->pre) return lg_nomem(w);
  }
  if (v.k == V_UNK) {
    *unk = 1;
    return 0;
  }
  if (v.k == V_NAME) return lg_unknown_name(w, en, e, &v);
  if (v.k == V_INT)
    return lg_fail(w, &out->sr, out->pos, LAY_E_ARG,
                   "%stile: the %s must be a list, not the number %lld",
                   out->pre, what, (long long)v.i);
  if (v.k != V_LIST)
    return lg_fail(w, &out->sr, out->pos, LAY_E_ARG,
                   "%stile: the %s must be a list, not '%s'", out->pre, what,
                   lg_etext(w, &en->sr, e));
  out->v = v.ilist;
  out->n = v.n;
  if (!v.ilist) { /* numbers written as floats: [1.0] is [1] */
    int64_t *iv = lg_walloc(w, sizeof(int64_t) * (size_t)(v.n ? v.n : 1));
    if (!iv) return -1;
    for (int i = 0; i < v.n; i++) {
      double x = v.list[i];
      if (!(x >= -9.0e18 && x <= 9.0e18) || x != (double)(int64_t)x)
        return lg_fail(w, &out->sr, out->pos, LAY_E_ARG,
                       "%stile: the %s hold integers, not %g", out->pre,
                       what, x);
      iv[i] = (int64_t)x;
    }
    out->v = iv;
  }
  return 0;
}

/* The three lists, checked against a rank (rank < 0: not known yet, the
** positions and the permutation are checked among themselves only).
** *unk when some list is not known yet. */
static int tile_lists(lw *w, const env *en, const lg_expr *call, int rank,
                      tlist *pos, tlist *sz, tlist *perm, int *unk) {
  const lg_list *a = &call->u.call.args;
  *unk = 0;
  if (tile_list(w, en, a->v[0], "positions", pos, unk) ||
      tile_list(w, en, a->v[1], "sizes", sz, unk))
    return -1;
  memset(perm, 0, sizeof *perm);
  if (a->n == 3 && tile_list(w, en, a->v[2], "permutation", perm, unk))
    return -1;
  if (*unk) return 0;
  if (pos->n != sz->n)
    return lg_fail(w, &sz->sr, sz->pos, LAY_E_ARG,
                   "%stile: %d position%s but %d size%s (one size per "
                   "position)", sz->pre, pos->n, pos->n == 1 ? "" : "s",
                   sz->n, sz->n == 1 ? "" : "s");
  for (int i = 0; i < pos->n; i++) {
    int64_t p = pos->v[i];
    if (rank >= 0 && (p < 0 || p >= rank))
      return lg_fail(w, &pos->sr, pos->pos, LAY_E_ARG,
                     "%stile: position %lld is out of range for %d "
                     "dimension%s (0 to %d)", pos->pre, (long long)p, rank,
                     rank == 1 ? "" : "s", rank - 1);
    if (p < 0)
      return lg_fail(w, &pos->sr, pos->pos, LAY_E_ARG,
                     "%stile: position %lld is out of range (positions "
                     "count from 0)", pos->pre, (long long)p);
    for (int j = 0; j < i; j++)
      if (pos->v[j] == p)
        return lg_fail(w, &pos->sr, pos->pos, LAY_E_ARG,
                       "%stile: position %lld is given twice", pos->pre,
                       (long long)p);
    if (sz->v[i] <= 0)
      return lg_fail(w, &sz->sr, sz->pos, LAY_E_ARG,
                     "%stile: size %lld of position %lld is not a positive "
                     "integer", sz->pre, (long long)sz->v[i], (long long)p);
  }
  if (perm->n == 0) return 0;
  if (rank >= 0 && perm->n != rank)
    return lg_fail(w, &perm->sr, perm->pos, LAY_E_ARG,
                   "%stile: the permutation has %d entr%s, the layout has %d "
                   "dimension%s", perm->pre, perm->n,
                   perm->n == 1 ? "y" : "ies", rank, rank == 1 ? "" : "s");
  for (int i = 0; i < perm->n; i++) {
    int64_t p = perm->v[i];
    const char *why = NULL;
    if (p < 0 || p >= perm->n) why = "is out of range";
    for (int j = 0; !why && j < i; j++)
      if (perm->v[j] == p) why = "is given twice";
    if (!why) continue;
    char buf[200];
    lg_fmt_list(buf, sizeof buf, perm->v, perm->n);
    return lg_fail(w, &perm->sr, perm->pos, LAY_E_ARG,
                   "%stile: %s is not a permutation of 0 .. %d (%lld %s)",
                   perm->pre, buf, perm->n - 1, (long long)p, why);
  }
  return 0;
}

int lg_tile_need(lw *w, const lg_def *def, const lg_list *args,
                 const env *caller, uint32_t call_pos, int *need) {
  const lg_layout *L = def->layout;
  srcref sr = lg_def_src(def);
  const lg_expr *call;
  *need = -1;
  if (tile_shape(w, &sr, L, &call)) return -1;
  param ps[LW_MAX_PARAMS];
  int np = 0;
  if (lg_bind(w, def, L, args, caller, call_pos, ps, &np)) return -1;
  const char *dims[LG_MAX_RANK];
  int rank = 0;
  for (int i = 0; i < L->dims.n && rank < LG_MAX_RANK; i++)
    if (strcmp(L->dims.v[i]->u.str.s, "..."))
      dims[rank++] = L->dims.v[i]->u.str.s;
  env en = {sr, ps, np, np, -1, dims, rank};
  tlist pos, sz, perm;
  int unk;
  if (tile_lists(w, &en, call, -1, &pos, &sz, &perm, &unk)) return -1;
  if (unk) return 0;
  /* past LG_MAX_RANK, one more is enough for "more than 8 dimensions" */
  int64_t n = perm.n > 1 ? perm.n : 1;
  for (int i = 0; i < pos.n; i++)
    if (pos.v[i] >= n) n = pos.v[i] > LG_MAX_RANK ? LG_MAX_RANK + 1
                                                  : pos.v[i] + 1;
  *need = n > LG_MAX_RANK ? LG_MAX_RANK + 1 : (int)n;
  return 0;
}

/* A synthetic expression at the span of `at`. */
static lg_expr *synth(lw *w, const lg_expr *at, lg_expr_kind k) {
  lg_expr *e = lg_walloc(w, sizeof *e);
  if (!e) return NULL;
  memset(e, 0, sizeof *e);
  e->kind = k;
  e->pos = at->pos;
  e->end = at->end;
  return e;
}

/* `dim op t` (op LG_OP_DIV or LG_OP_MOD), or `dim` when op < 0. */
static lg_expr *digit(lw *w, const lg_expr *at, const char *dim, int op,
                      int64_t t) {
  lg_expr *d = synth(w, at, LG_X_NAME);
  if (!d) return NULL;
  d->u.str.s = dim;
  d->u.str.n = strlen(dim);
  if (op < 0) return d;
  lg_expr *k = synth(w, at, LG_X_INT), *b = synth(w, at, LG_X_BINARY);
  if (!k || !b) return NULL;
  k->u.i = t;
  b->depth = 1;
  b->u.op.op = (lg_op)op;
  b->u.op.a = d;
  b->u.op.b = k;
  return b;
}

int lg_expand_tile(lw *w, const env *en, const lg_layout *L,
                   const lg_layout **out) {
  const lg_expr *call;
  *out = NULL;
  if (tile_shape(w, &en->sr, L, &call)) return -1;
  tlist pos, sz, perm;
  int unk, r = en->rank;
  if (tile_lists(w, en, call, r, &pos, &sz, &perm, &unk)) return -1;
  if (unk) return 0; /* the lists are known when it is instantiated */
  lg_layout *C = lg_walloc(w, sizeof *C);
  lg_item *iv = lg_walloc(w, sizeof *iv * (size_t)(r + pos.n));
  if (!C || !iv) return -1;
  *C = *L;
  memset(iv, 0, sizeof *iv * (size_t)(r + pos.n));
  for (int j = 0; j < r; j++) {
    int d = perm.n ? (int)perm.v[j] : j, op = -1;
    int64_t t = 0;
    for (int i = 0; i < pos.n; i++)
      if (pos.v[i] == d) {
        op = LG_OP_DIV;
        t = sz.v[i];
      }
    if (!(iv[j].e = digit(w, call, en->dims[d], op, t))) return -1;
  }
  for (int i = 0; i < pos.n; i++)
    if (!(iv[r + i].e = digit(w, call, en->dims[pos.v[i]], LG_OP_MOD,
                              sz.v[i])))
      return -1;
  C->items = iv;
  C->n_items = r + pos.n;
  *out = C;
  return 0;
}
