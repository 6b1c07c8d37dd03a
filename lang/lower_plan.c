/*
** lower_plan.c: what a layout knows only once a plan is made for a shape
** and an element type (LANGUAGE.md "Sizes known at plan time"): the
** element size `esize` of the stored type, the leading dimensions `...`
** stands for, and the `require` conditions (see lower_int.h).
*/
#include <stdio.h>
#include <string.h>

#include "lower_int.h"

/* ---- esize ----------------------------------------------------------------- */

static const char *const value_ops[] = {"quantize", "dequantize", "fixed",
                                        "affine", "cast"};

/* The type a layout stores: byte planes store uint8, a value rule its
** `to` type, else the layout's own type; LAY_DT_NONE when open. */
static lay_dtype stored_type(const lg_layout *L) {
  for (int i = 0; i < L->n_clauses; i++) {
    const lg_clause *c = &L->clauses[i];
    if (c->kind == LG_C_WHERE) return LAY_DT_UINT8;
    if (c->kind != LG_C_CALL || c->value->kind != LG_X_CALL) continue;
    int op = 0;
    for (size_t k = 0; k < sizeof value_ops / sizeof *value_ops; k++)
      op |= !strcmp(c->name.s, value_ops[k]);
    const lg_list *a = &c->value->u.call.args;
    for (int k = 0; op && k < a->n; k++) {
      const lg_expr *x = a->v[k];
      if (x->kind != LG_X_NAMED || x->u.named.value->kind != LG_X_NAME ||
          (strcmp(x->u.named.name.s, "to") &&
           strcmp(x->u.named.name.s, "to_dtype")))
        continue;
      lay_dtype t = lay_dtype_parse(x->u.named.value->u.str.s);
      if (t != LAY_DT_NONE) return t;
    }
  }
  return L->dtype ? lay_dtype_parse(L->dtype->u.str.s) : LAY_DT_NONE;
}

/* The bytes of def's stored element: the layout at the end of its alias
** chain decides; with an open type the plan's (w->dtype); 0 when that is
** open too. */
int lg_def_esize(lw *w, const lg_def *def) {
  lay_dtype t = LAY_DT_NONE;
  for (int k = 0; def && k < LW_MAX_ALIAS; k++) {
    if (def->transform || !def->layout) break;
    const lg_layout *L = def->layout;
    if (!L->alias) {
      t = stored_type(L);
      break;
    }
    const lg_expr *n = L->alias->kind == LG_X_CALL ? L->alias->u.call.fn
                                                   : L->alias;
    if (n->kind != LG_X_NAME) break;
    def = w->defs->find(w->defs->ud, n->u.str.s, def->ns);
  }
  if (t == LAY_DT_NONE) t = w->dtype;
  return t == LAY_DT_NONE ? 0 : (int)lay_dtype_size(t);
}

/* ---- `...`: leading dimensions ---------------------------------------------- */

static int is_ell(const lg_expr *e) {
  return e && e->kind == LG_X_NAME && !strcmp(e->u.str.s, "...");
}

/* A NAME expression `d<k>` at the position of `at`. */
static lg_expr *dim_name(lw *w, const lg_expr *at, int k) {
  lg_expr *e = lg_walloc(w, sizeof *e);
  if (!e) return NULL;
  memset(e, 0, sizeof *e);
  e->kind = LG_X_NAME;
  e->pos = at->pos;
  e->end = at->end;
  char *s = lg_arena_printf(w->a, "d%d", k);
  if (!s) {
    lg_nomem(w);
    return NULL;
  }
  e->u.str.s = s;
  e->u.str.n = strlen(s);
  return e;
}

int lg_expand_ellipsis(lw *w, const srcref *sr, const lg_layout *L,
                       const lg_layout **out) {
  *out = L;
  int nd = L->dims.n;
  for (int i = 1; i < nd; i++)
    if (is_ell(L->dims.v[i]))
      return lg_fail(w, sr, L->dims.v[i]->pos, LAY_E_LAYOUT,
                     "'...' must be the first dimension");
  int has = nd > 0 && is_ell(L->dims.v[0]);
  int tile = lg_is_tile(L); /* tile(...) orders all dimensions itself */
  for (int i = 0; i < L->n_items; i++)
    if (is_ell(L->items[i].e) && (i > 0 || !has))
      return lg_fail(w, sr, L->items[i].e->pos, LAY_E_LAYOUT,
                     i > 0 ? "'...' must be the first item of the memory "
                             "order"
                           : "'...' in the memory order needs '...' as the "
                             "first dimension");
  if (!has) return 0;
  if (!tile && (!L->items || !is_ell(L->items[0].e)))
    return lg_fail(w, sr, L->order_pos, LAY_E_LAYOUT,
                   "the memory order must start with '...', as the "
                   "dimensions do");
  if (!tile && (L->items[0].stride || L->items[0].align))
    return lg_fail(w, sr, L->items[0].e->pos, LAY_E_LAYOUT,
                   "'...' takes no stride or align");
  int named = nd - 1;
  int extra = w->shape_rank ? w->shape_rank - named : w->ell_extra;
  if (tile && !w->shape_rank && w->tile_rank - named > extra)
    extra = w->tile_rank - named;
  if (tile && !w->shape_rank && named + extra == 0) extra = 1;
  if (extra < 0)
    return lg_fail(w, sr, L->dims.v[0]->pos, LAY_E_SHAPE,
                   "shape has %d dimensions, the layout needs at least %d "
                   "(its dimensions start with '...')",
                   w->shape_rank, named);
  if (named + extra > LG_MAX_RANK)
    return lg_fail(w, sr, L->dims.v[0]->pos, LAY_E_LIMIT,
                   "more than %d dimensions", LG_MAX_RANK);
  w->ell_used = 1;
  lg_layout *C = lg_walloc(w, sizeof *C);
  lg_expr **dv = lg_walloc(w, sizeof *dv * (size_t)(named + extra + 1));
  lg_item *iv =
      lg_walloc(w, sizeof *iv * (size_t)(L->n_items - 1 + extra + 1));
  if (!C || !dv || !iv) return -1;
  *C = *L;
  if (tile) { /* the dimensions only: tile(...) stays the order */
    for (int k = 0; k < extra; k++)
      if (!(dv[k] = dim_name(w, L->dims.v[0], k))) return -1;
    for (int j = 0; j < named; j++) dv[extra + j] = L->dims.v[1 + j];
    C->dims.v = dv;
    C->dims.n = C->dims.cap = named + extra;
    *out = C;
    return 0;
  }
  for (int k = 0; k < extra; k++) {
    dv[k] = dim_name(w, L->dims.v[0], k);
    lg_expr *ie = dim_name(w, L->items[0].e, k);
    if (!dv[k] || !ie) return -1;
    memset(&iv[k], 0, sizeof iv[k]);
    iv[k].e = ie;
  }
  for (int j = 0; j < named; j++) dv[extra + j] = L->dims.v[1 + j];
  for (int j = 1; j < L->n_items; j++) iv[extra + j - 1] = L->items[j];
  C->dims.v = dv;
  C->dims.n = C->dims.cap = named + extra;
  C->items = iv;
  C->n_items = L->n_items - 1 + extra;
  *out = C;
  return 0;
}

int lg_layout_dims(lw *w, const srcref *sr, const lg_layout *L,
                   const char **dims, int *rank) {
  const lg_layout *C;
  *rank = 0;
  if (lg_expand_ellipsis(w, sr, L, &C)) return -1;
  for (; *rank < C->dims.n && *rank < LG_MAX_RANK; (*rank)++)
    dims[*rank] = C->dims.v[*rank]->u.str.s;
  return 0;
}

/* ---- require ------------------------------------------------------------------ */

/* An integer operand of a condition; *known 0 when it is not known yet
** (no shape, or partial mode). */
static int cond_int(lw *w, const env *en, const lg_expr *e, int64_t *v,
                    int *known) {
  val x;
  if (lg_eval(w, en, e, &x)) return -1;
  if (x.k == V_NAME) return lg_unknown_name(w, en, e, &x);
  if (x.k == V_UNK || x.k == V_IE) {
    *known = 0;
    return 0;
  }
  if (x.k != V_INT)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "a requirement compares integers, '%s' is not one",
                   lg_etext(w, &en->sr, e));
  *v = x.i;
  return 0;
}

static int eval_cond(lw *w, const env *en, const lg_expr *c, int *ok,
                     int *known) {
  int64_t a = 0, b = 0; /* an unknown operand leaves 0: *ok then unused */
  *known = 1;
  if (cond_int(w, en, c->u.op.a, &a, known)) return -1;
  if (c->u.op.op == LG_OP_IN) {
    const lg_list *l = &c->u.op.b->u.list;
    *ok = 0;
    for (int i = 0; i < l->n; i++) {
      if (cond_int(w, en, l->v[i], &b, known)) return -1;
      if (a == b) *ok = 1;
    }
    return 0;
  }
  if (cond_int(w, en, c->u.op.b, &b, known)) return -1;
  switch (c->u.op.op) {
  case LG_OP_EQ: *ok = a == b; break;
  case LG_OP_NE: *ok = a != b; break;
  case LG_OP_LT: *ok = a < b; break;
  case LG_OP_LE: *ok = a <= b; break;
  case LG_OP_GT: *ok = a > b; break;
  default: *ok = a >= b; break;
  }
  return 0;
}

static int mentions(const lg_expr *e, const char *name) {
  if (!e) return 0;
  switch (e->kind) {
  case LG_X_NAME: return !strcmp(e->u.str.s, name);
  case LG_X_UNARY: return mentions(e->u.op.a, name);
  case LG_X_BINARY:
    return mentions(e->u.op.a, name) || mentions(e->u.op.b, name);
  case LG_X_LIST:
    for (int i = 0; i < e->u.list.n; i++)
      if (mentions(e->u.list.v[i], name)) return 1;
    return 0;
  case LG_X_CALL:
    for (int i = 0; i < e->u.call.args.n; i++)
      if (mentions(e->u.call.args.v[i], name)) return 1;
    return 0;
  default: return 0;
  }
}

/* "c = 2, cp = 4": the values of the names e mentions, each once. */
static void cond_values(lw *w, const env *en, const lg_expr *e, char *buf,
                        size_t cap, size_t *n) {
  if (!e || *n >= cap) return;
  if (e->kind == LG_X_BINARY || e->kind == LG_X_UNARY) {
    cond_values(w, en, e->u.op.a, buf, cap, n);
    if (e->kind == LG_X_BINARY) cond_values(w, en, e->u.op.b, buf, cap, n);
    return;
  }
  if (e->kind == LG_X_CALL || e->kind == LG_X_LIST) {
    const lg_list *l = e->kind == LG_X_CALL ? &e->u.call.args : &e->u.list;
    for (int i = 0; i < l->n; i++) cond_values(w, en, l->v[i], buf, cap, n);
    return;
  }
  if (e->kind != LG_X_NAME) return;
  char key[80];
  snprintf(key, sizeof key, "%s = ", e->u.str.s);
  for (const char *s = buf; (s = strstr(s, key)) != NULL; s++)
    if (s == buf || s[-1] == ' ') return; /* listed already */
  val v;
  lay_status st = w->st;
  if (lg_eval(w, en, e, &v) || v.k != V_INT) {
    w->st = st;
    return;
  }
  *n += (size_t)snprintf(buf + *n, cap - *n, "%s%s%lld", *n ? ", " : "", key,
                         (long long)v.i);
}

int lg_requires(lw *w, const env *en, const lg_layout *L) {
  for (int i = 0; i < L->n_reqs; i++) {
    const lg_expr *c = L->reqs[i].value;
    int ok = 1, known = 1;
    if (eval_cond(w, en, c, &ok, &known)) return -1;
    if (!known || ok) continue;
    if (w->esize_trial && mentions(c, "esize")) { /* not for this esize */
      w->req_false = 1;
      return 0;
    }
    char text[200], vals[200] = "";
    size_t k = 0, n = 0;
    for (uint32_t p = c->pos; p < c->end && p < en->sr.len && k + 1 < sizeof text;
         p++) {
      char ch = en->sr.src[p];
      int blank = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
      if (blank && (k == 0 || text[k - 1] == ' ')) continue;
      text[k++] = blank ? ' ' : ch;
    }
    text[k] = '\0';
    cond_values(w, en, c, vals, sizeof vals, &n);
    return lg_fail(w, &en->sr, c->pos, LAY_E_SHAPE,
                   "requirement failed: %s%s%s%s", text, n ? " (" : "", vals,
                   n ? ")" : "");
  }
  return 0;
}

/* ---- Messages ------------------------------------------------------------------ */

const char *lg_shape_note(lw *w) {
  char buf[200];
  if (!w->shape) return "";
  lg_fmt_list(buf, sizeof buf, w->shape, w->shape_rank);
  const char *s = lg_arena_printf(w->a, " for shape %s", buf);
  return s ? s : "";
}
