/*
** lower_order.c: layouts in the order form: each memory-order item is
** classified (dimension, digit, padded or sliced dimension, ceil, unit,
** plane) and becomes an axis, the digits of each dimension must chain;
** and chunked<R, d,s, ...> layouts (see lower_int.h).
*/
#include <stdio.h>
#include <string.h>

#include "lower_int.h"

/* ---- Memory-order items -------------------------------------------------- */

enum { IT_DIGIT, IT_UNIT, IT_PLANE };

/* One classified item. */
typedef struct item {
  int kind;          /* IT_* */
  int dim;           /* IT_DIGIT */
  int64_t div, mod;  /* IT_DIGIT */
  int unk;           /* a divisor or modulus is unknown (partial mode) */
  lg_iexpr *lo, *hi, *before, *after;
  int64_t ceil;      /* ceil(d, k): k, else 0 */
  int ceil_in;       /* pads around ceil(d, k): the rounding is inside */
  lg_swz swz;        /* `digit ^ operand`: swz.on set */
  uint32_t pos;      /* the item's position */
  const char *text;  /* its source text */
} item;

static int check_nonneg(lw *w, const env *en, const lg_expr *e,
                        const lg_iexpr *ie, const char *what) {
  int64_t c;
  if (lg_ie_is_const(ie, &c) && c < 0)
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "%s must not be negative, '%s' is %lld", what,
                   lg_etext(w, &en->sr, e), (long long)c);
  return 0;
}

static int classify(lw *w, const env *en, const lg_expr *e,
                    const char *plane, item *it);

/* Add the pad terms of an ADD chain: left of the dimension to before,
** right of it to after. */
static int pad_terms(lw *w, const env *en, const lg_expr *e, int *seen,
                     const lg_expr **core, lg_iexpr **before,
                     lg_iexpr **after, int *unk) {
  if (e->kind == LG_X_BINARY && e->u.op.op == LG_OP_ADD)
    return pad_terms(w, en, e->u.op.a, seen, core, before, after, unk) ||
           pad_terms(w, en, e->u.op.b, seen, core, before, after, unk);
  if (lg_mentions_dim(en, e)) {
    if (*seen)
      return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                     "an order item names exactly one dimension");
    *seen = 1;
    *core = e;
    return 0;
  }
  lg_iexpr *x;
  if (lg_eval_ie(w, en, e, &x)) return -1;
  if (!x) {
    *unk = 1;
    return 0;
  }
  if (check_nonneg(w, en, e, x, "a pad")) return -1;
  if (lg_ie_is_const(x, NULL) && x->v == 0) return 0;
  lg_iexpr **acc = *seen ? after : before;
  *acc = *acc ? lg_ie_bin(w->a, LG_IE_ADD, *acc, x) : x;
  return *acc ? 0 : lg_nomem(w);
}

/* d/k or d%k: a digit of the dimension d (its own digits chain). */
static int classify_digit(lw *w, const env *en, const lg_expr *e,
                          const char *plane, item *it) {
  lg_op op = e->u.op.op;
  if (classify(w, en, e->u.op.a, plane, it)) return -1;
  if (it->kind != IT_DIGIT)
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "'%s': only a dimension can be split",
                   lg_etext(w, &en->sr, e));
  int64_t k;
  int unk;
  if (it->swz.on)
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "'%s': a swizzle d ^ x is a whole item",
                   lg_etext(w, &en->sr, e));
  if (lg_mentions_dim(en, e->u.op.b))
    return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                   "an order item names exactly one dimension");
  int su = w->shape_used;
  if (lg_eval_int(w, en, e->u.op.b, &k, &unk)) return -1;
  it->pos = e->pos;
  if (unk || it->unk) {
    it->unk = 1;
    return 0;
  }
  if (k <= 0)
    return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                   "digit %s: %lld is not a positive integer%s",
                   lg_etext(w, &en->sr, e), (long long)k,
                   w->shape_used != su ? lg_shape_note(w) : "");
  if (op == LG_OP_DIV) {
    if (it->mod && it->mod % k)
      return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                     "digit %s: %lld does not divide %lld",
                     lg_etext(w, &en->sr, e), (long long)k,
                     (long long)it->mod);
    if (__builtin_mul_overflow(it->div, k, &it->div))
      return lg_fail(w, &en->sr, e->pos, LAY_E_OVERFLOW,
                     "digit %s overflows", lg_etext(w, &en->sr, e));
    if (it->mod) it->mod /= k;
  } else {
    if (it->mod && it->mod % k)
      return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                     "digit %s: %lld does not divide %lld",
                     lg_etext(w, &en->sr, e), (long long)k,
                     (long long)it->mod);
    it->mod = k;
  }
  return 0;
}

/* b + d + a: the dimension d padded with b before it and a after it. */
static int classify_padded(lw *w, const env *en, const lg_expr *e,
                           const char *plane, item *it) {
  int seen = 0, unk = 0;
  const lg_expr *core = NULL;
  lg_iexpr *before = NULL, *after = NULL;
  if (pad_terms(w, en, e, &seen, &core, &before, &after, &unk)) return -1;
  if (!seen)
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "an order item names exactly one dimension");
  if (classify(w, en, core, plane, it)) return -1;
  if (it->kind != IT_DIGIT || it->div != 1 || it->mod != 0 ||
      it->before || it->after || it->swz.on)
    return lg_fail(w, &en->sr, core->pos, LAY_E_LAYOUT,
                   "only a whole dimension, a slice or ceil(d, k) can be "
                   "padded");
  it->ceil_in = it->ceil != 0;
  it->pos = e->pos;
  it->unk |= unk;
  it->before = before;
  it->after = after;
  return 0;
}

/* d[lo:hi]: a window of the dimension d. */
static int classify_slice(lw *w, const env *en, const lg_expr *e,
                          const char *plane, item *it) {
  const lg_expr *b = e->u.slice.base;
  if (b->kind != LG_X_NAME || lg_dim_index(en, b->u.str.s) < 0) {
    if (b->kind == LG_X_NAME) return classify(w, en, b, plane, it);
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "only a dimension can be sliced");
  }
  it->kind = IT_DIGIT;
  it->dim = lg_dim_index(en, b->u.str.s);
  it->div = 1;
  if (e->u.slice.lo && lg_eval_ie(w, en, e->u.slice.lo, &it->lo)) return -1;
  if (e->u.slice.hi && lg_eval_ie(w, en, e->u.slice.hi, &it->hi)) return -1;
  if ((e->u.slice.lo && !it->lo) || (e->u.slice.hi && !it->hi)) it->unk = 1;
  int64_t lo = 0, hi;
  if (it->lo && !lg_ie_is_const(it->lo, &lo)) lo = 0;
  if ((it->lo && lg_ie_is_const(it->lo, &lo) && lo < 0) ||
      (it->hi && lg_ie_is_const(it->hi, &hi) && hi <= lo))
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "slice %s: needs 0 <= start < stop",
                   lg_etext(w, &en->sr, e));
  if (it->lo && lg_ie_is_const(it->lo, &lo) && lo == 0) it->lo = NULL;
  return 0;
}

/* ceil(d, k): the dimension d rounded up to a multiple of k. */
static int classify_ceil(lw *w, const env *en, const lg_expr *e,
                         const char *plane, item *it) {
  const char *fn = e->u.call.fn->u.str.s;
  if (strcmp(fn, "ceil"))
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "unknown function '%s' in a memory order (ceil(d, k))", fn);
  if (e->u.call.args.n != 2)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "ceil takes 2 arguments (ceil(d, k)), got %d",
                   e->u.call.args.n);
  if (classify(w, en, e->u.call.args.v[0], plane, it)) return -1;
  if (it->kind != IT_DIGIT || it->div != 1 || it->mod != 0 || it->ceil ||
      it->swz.on)
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "ceil(d, k) rounds a whole dimension up");
  int64_t k;
  int unk;
  int su = w->shape_used;
  if (lg_eval_int(w, en, e->u.call.args.v[1], &k, &unk)) return -1;
  it->pos = e->pos;
  if (unk) {
    it->unk = 1;
    return 0;
  }
  if (k <= 0)
    return lg_fail(w, &en->sr, e->u.call.args.v[1]->pos, LAY_E_LAYOUT,
                   "ceil: the multiple must be a positive integer%s",
                   w->shape_used != su ? lg_shape_note(w) : "");
  it->ceil = k;
  return 0;
}

/* d >> k and d & m: the digits d / 2^k and d % 2^k (m = 2^k - 1). */
static int classify_bits(lw *w, const env *en, const lg_expr *e,
                         const char *plane, item *it) {
  lg_op op = e->u.op.op;
  int64_t k;
  int unk;
  if (lg_mentions_dim(en, e->u.op.b))
    return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                   "an order item names exactly one dimension");
  if (lg_eval_int(w, en, e->u.op.b, &k, &unk)) return -1;
  if (unk) {
    if (classify(w, en, e->u.op.a, plane, it)) return -1;
    it->unk = 1;
    return 0;
  }
  if (op == LG_OP_SHR ? k < 0 || k > 62 : k < 0 || (k & (k + 1)) != 0)
    return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                   op == LG_OP_SHR ? "'%s': a shift is 0 to 62 bits"
                                   : "'%s': the mask must be 2^k - 1 (a "
                                     "digit d %% 2^k)",
                   lg_etext(w, &en->sr, e));
  /* rewrite as d / 2^k or d % (m + 1) and classify that */
  lg_expr b = *e->u.op.b, d = *e;
  b.kind = LG_X_INT;
  b.u.i = op == LG_OP_SHR ? (int64_t)1 << k : k + 1;
  d.u.op.op = op == LG_OP_SHR ? LG_OP_DIV : LG_OP_MOD;
  d.u.op.b = &b;
  return classify(w, en, &d, plane, it);
}

/* a ^ b: the digit a permuted by b (a digit of another dimension with a
** modulus, or a constant): a swizzle, planned as a table (swizzle.c). */
static int classify_xor(lw *w, const env *en, const lg_expr *e,
                        const char *plane, item *it) {
  if (classify(w, en, e->u.op.a, plane, it)) return -1;
  if (it->kind != IT_DIGIT || it->swz.on)
    return lg_fail(w, &en->sr, e->u.op.a->pos, LAY_E_LAYOUT,
                   "'%s': the left of '^' is a digit of a dimension",
                   lg_etext(w, &en->sr, e));
  lg_swz *z = &it->swz;
  z->on = 1;
  z->text = lg_etext(w, &en->sr, e);
  z->pos = e->pos;
  if (!lg_mentions_dim(en, e->u.op.b)) {
    int unk;
    z->dim = -1;
    if (lg_eval_int(w, en, e->u.op.b, &z->k, &unk)) return -1;
    if (unk) it->unk = 1;
    else if (z->k < 0)
      return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                     "'%s': a negative swizzle", lg_etext(w, &en->sr, e));
    return 0;
  }
  item o;
  memset(&o, 0, sizeof o);
  if (classify(w, en, e->u.op.b, plane, &o)) return -1;
  if (o.kind != IT_DIGIT || o.mod == 0 || o.swz.on || o.before || o.after ||
      o.lo || o.hi || o.ceil)
    return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                   "'%s': the right of '^' is a digit d/k%%m or d%%m of a "
                   "dimension, or a constant",
                   lg_etext(w, &en->sr, e));
  if (o.dim == it->dim)
    return lg_fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                   "'%s': a digit swizzled by its own dimension",
                   lg_etext(w, &en->sr, e));
  z->dim = o.dim;
  z->div = o.div;
  z->mod = o.mod;
  it->unk |= o.unk;
  return 0;
}

static int classify(lw *w, const env *en, const lg_expr *e,
                    const char *plane, item *it) {
  it->pos = e->pos;
  switch (e->kind) {
  case LG_X_INT:
    if (e->u.i != 1) break;
    it->kind = IT_UNIT;
    return 0;
  case LG_X_NAME: {
    const char *s = e->u.str.s;
    int d = lg_dim_index(en, s);
    if (d >= 0) {
      it->kind = IT_DIGIT;
      it->dim = d;
      it->div = 1;
      it->mod = 0;
      return 0;
    }
    if (plane && !strcmp(plane, s)) {
      it->kind = IT_PLANE;
      return 0;
    }
    if (!strcmp(s, "..."))
      return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                     "'...' must be the first item of the memory order, "
                     "and the first dimension");
    for (int i = 0; i < en->np; i++)
      if (!strcmp(en->p[i].name, s))
        return lg_fail(w, &en->sr, e->pos, LAY_E_NAME,
                       "'%s' is not a dimension", s);
    return lg_fail(w, &en->sr, e->pos, LAY_E_NAME, "unknown name '%s'%s", s,
                   lg_hint_name(w, en, s, 0, plane));
  }
  case LG_X_BINARY:
    if (e->u.op.op == LG_OP_DIV || e->u.op.op == LG_OP_MOD)
      return classify_digit(w, en, e, plane, it);
    if (e->u.op.op == LG_OP_ADD) return classify_padded(w, en, e, plane, it);
    if (e->u.op.op == LG_OP_SHR || e->u.op.op == LG_OP_AND)
      return classify_bits(w, en, e, plane, it);
    if (e->u.op.op == LG_OP_XOR) return classify_xor(w, en, e, plane, it);
    if (e->u.op.op == LG_OP_OR || e->u.op.op == LG_OP_SHL)
      return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                     "'%s': '%s' in an order item would leave holes or "
                     "merge elements (a swizzle is d ^ x, a digit d >> k "
                     "or d & (2^k - 1))",
                     lg_etext(w, &en->sr, e),
                     e->u.op.op == LG_OP_OR ? "|" : "<<");
    break;
  case LG_X_SLICE: return classify_slice(w, en, e, plane, it);
  case LG_X_CALL: return classify_ceil(w, en, e, plane, it);
  default: break;
  }
  return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                 "'%s' is not an order item (a dimension, a digit d/k or d%%k, "
                 "ceil(d, k), a padded or sliced dimension, 1 or a plane)",
                 lg_etext(w, &en->sr, e));
}

/* "c/8", "c%8", "w/4%2". */
const char *lg_digit_label(lw *w, const char *dim, int64_t div,
                           int64_t mod) {
  char buf[128];
  int n = snprintf(buf, sizeof buf, "%s", dim);
  if (div > 1 && n < (int)sizeof buf)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "/%lld", (long long)div);
  if (mod > 0 && n < (int)sizeof buf)
    snprintf(buf + n, sizeof buf - (size_t)n, "%%%lld", (long long)mod);
  char *s = lg_arena_printf(w->a, "%s", buf);
  if (!s) lg_nomem(w);
  return s;
}

/* Pads of one dimension, as written on its first item (every other item
** must carry the same: none, or the same pad and slice). */
typedef struct dpad {
  int set;          /* the dimension's first item was seen */
  int unk;          /* its pads are unknown (partial mode) */
  lg_iexpr *lo, *hi, *before, *after;
  int64_t ceil;
  int ceil_in;
} dpad;

/* Check that the digits of every dimension chain, and set the chunk
** extents. items[] are the digit items in source order. */
static int check_chains(lw *w, const env *en, const item *its, int n,
                        const int *unk, uint32_t order_pos, int64_t *chunk) {
  for (int d = 0; d < en->rank; d++) {
    chunk[d] = 1;
    int idx[LG_MAX_AXES], k = 0;
    for (int i = 0; i < n; i++)
      if (its[i].kind == IT_DIGIT && its[i].dim == d) idx[k++] = i;
    if (k == 0)
      return lg_fail(w, &en->sr, order_pos, LAY_E_LAYOUT,
                     "dimension '%s' is missing from the memory order",
                     en->dims[d]);
    if (unk[d]) continue;
    /* Duplicates and a whole item beside others, in source order. */
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < a; b++) {
        const item *x = &its[idx[b]], *y = &its[idx[a]];
        if (x->div == y->div && x->mod == y->mod) {
          if (x->div == 1 && x->mod == 0)
            return lg_fail(w, &en->sr, y->pos, LAY_E_LAYOUT,
                           "dimension '%s' appears twice", en->dims[d]);
          return lg_fail(w, &en->sr, y->pos, LAY_E_LAYOUT,
                         "digit '%s' appears twice",
                         lg_digit_label(w, en->dims[d], y->div, y->mod));
        }
      }
    }
    /* Sort by div (then mod), insertion sort. */
    int s[LG_MAX_AXES];
    for (int a = 0; a < k && a < LG_MAX_AXES; a++) s[a] = idx[a];
    for (int a = 1; a < k; a++)
      for (int b = a; b > 0; b--) {
        const item *x = &its[s[b - 1]], *y = &its[s[b]];
        if (x->div < y->div ||
            (x->div == y->div &&
             (x->mod != 0 && (y->mod == 0 || x->mod <= y->mod))))
          break;
        int t = s[b];
        s[b] = s[b - 1];
        s[b - 1] = t;
      }
    for (int a = 0; a + 1 < k; a++) {
      const item *x = &its[s[a]], *y = &its[s[a + 1]];
      int64_t next;
      if (x->mod == 0 || __builtin_mul_overflow(x->div, x->mod, &next) ||
          next != y->div) {
        const item *later = s[a] > s[a + 1] ? x : y;
        const item *earlier = later == x ? y : x;
        return lg_fail(
            w, &en->sr, later->pos, LAY_E_LAYOUT,
            "inconsistent splits of '%s': '%s' and '%s'", en->dims[d],
            lg_digit_label(w, en->dims[d], earlier->div, earlier->mod),
            lg_digit_label(w, en->dims[d], later->div, later->mod));
      }
    }
    const item *lo = &its[s[0]], *top = &its[s[k - 1]];
    if (lo->div != 1)
      return lg_fail(
          w, &en->sr, lo->pos, LAY_E_LAYOUT,
          "digits of '%s' do not cover it: '%s' needs an inner digit "
          "'%s'",
          en->dims[d], lg_digit_label(w, en->dims[d], lo->div, lo->mod),
          lg_digit_label(w, en->dims[d], 1, lo->div));
    if (top->mod != 0)
      return lg_fail(
          w, &en->sr, top->pos, LAY_E_LAYOUT,
          "digits of '%s' do not cover it: '%s' needs an outer digit "
          "'%s'",
          en->dims[d], lg_digit_label(w, en->dims[d], top->div, top->mod),
          lg_digit_label(w, en->dims[d], top->div * top->mod, 0));
    chunk[d] = top->div;
  }
  return 0;
}

/* ---- Layouts in the order form -------------------------------------------- */

int lg_add_axis(lw *w, const srcref *sr, lg_ir *ir, uint32_t pos,
                lg_ir_axis **out) {
  if (ir->naxes >= LG_MAX_AXES)
    return lg_fail(w, sr, pos, LAY_E_LIMIT, "more than %d axes", LG_MAX_AXES);
  *out = &ir->axis[ir->naxes++];
  memset(*out, 0, sizeof **out);
  (*out)->dim = -1;
  (*out)->pos = pos;
  return 0;
}

/* A digit item's axis; its pads must be those of the dimension's first
** item (p). */
static int digit_axis(lw *w, const env *en, const item *it, lg_ir_axis *ax,
                      dpad *p) {
  int d = it->dim;
  ax->kind = LG_AX_DIGIT;
  ax->dim = d;
  ax->div = it->div;
  ax->mod = it->mod;
  ax->label = lg_digit_label(w, en->dims[d], it->div, it->mod);
  if (!p->set) {
    p->set = 1;
    p->unk = it->unk;
    p->lo = it->lo;
    p->hi = it->hi;
    p->before = it->before;
    p->after = it->after;
    p->ceil = it->ceil;
    p->ceil_in = it->ceil_in;
  } else if (!it->unk && !p->unk &&
             (!lg_ie_equal(p->lo, it->lo) || !lg_ie_equal(p->hi, it->hi) ||
              !lg_ie_equal(p->before, it->before) ||
              !lg_ie_equal(p->after, it->after) || p->ceil != it->ceil ||
              p->ceil_in != it->ceil_in)) {
    return lg_fail(w, &en->sr, it->pos, LAY_E_LAYOUT,
                   "inconsistent padding of '%s' (all items of a "
                   "dimension carry the same pad and slice)",
                   en->dims[d]);
  }
  return 0;
}

/* `@ S bytes`: the stride S in stored elements, S / esize. A constant S
** must be a multiple of esize; one that depends on the sizes is divided
** when the plan's shape makes it a constant (checked then). */
static int bytes_to_elems(lw *w, const env *en, const lg_expr *e,
                          lg_iexpr **ie, int shaped) {
  int64_t c;
  if (!lg_ie_is_const(*ie, &c)) {
    *ie = lg_ie_bin(w->a, LG_IE_DIV, *ie, lg_ie_const(w->a, w->esize));
    return *ie ? 0 : lg_nomem(w);
  }
  if (c % w->esize)
    return lg_fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                   "stride %lld bytes is not a multiple of the element size "
                   "(esize = %d)%s", (long long)c, w->esize,
                   shaped ? lg_shape_note(w) : "");
  *ie = lg_ie_const(w->a, c / w->esize);
  return *ie ? 0 : lg_nomem(w);
}

/* An item's explicit stride (`@ s`, `@ s bytes`) and alignment (`align k`,
** `align k bytes`). */
static int stride_align(lw *w, const env *en, const lg_item *li,
                        lg_ir_axis *ax) {
  if (li->stride) {
    int su = w->shape_used;
    if (lg_eval_ie(w, en, li->stride, &ax->stride)) return -1;
    if (check_nonneg(w, en, li->stride, ax->stride, "a stride")) return -1;
    if (li->stride_bytes && ax->stride && bytes_to_elems(w, en, li->stride,
                                                         &ax->stride,
                                                         w->shape_used != su))
      return -1;
  }
  if (li->align) {
    int64_t c;
    if (lg_eval_ie(w, en, li->align, &ax->align)) return -1;
    if (lg_ie_is_const(ax->align, &c) && c <= 0)
      return lg_fail(w, &en->sr, li->align->pos, LAY_E_LAYOUT,
                     "align must be positive, '%s' is %lld",
                     lg_etext(w, &en->sr, li->align), (long long)c);
    if (li->align_bytes && ax->align) { /* bytes -> stored elements */
      if (!lg_ie_is_const(ax->align, &c))
        return lg_fail(w, &en->sr, li->align->pos, LAY_E_LAYOUT,
                       "align '%s' bytes must be a constant",
                       lg_etext(w, &en->sr, li->align));
      if (c % w->esize)
        return lg_fail(w, &en->sr, li->align->pos, LAY_E_LAYOUT,
                       "align %lld bytes is not a multiple of the element "
                       "size (esize = %d)", (long long)c, w->esize);
      ax->align = lg_ie_const(w->a, c / w->esize);
      if (!ax->align) return lg_nomem(w);
    }
  }
  return 0;
}

/* The pads of each dimension into the IR; ceil(d, k) pads after the
** window. */
static int dim_pads(lw *w, const env *en, const dpad *pad, lg_ir *ir) {
  for (int d = 0; d < en->rank; d++) {
    const dpad *p = &pad[d];
    lg_ir_dim *m = &ir->dim[d];
    m->lo = p->lo;
    m->hi = p->hi;
    m->before = p->before;
    m->after = p->after;
    if (p->ceil > 1) {
      lg_iexpr *ext = p->hi ? p->hi : lg_ie_dim(w->a, d);
      if (p->lo) ext = lg_ie_bin(w->a, LG_IE_SUB, ext, p->lo);
      if (p->before && !p->ceil_in)
        ext = lg_ie_bin(w->a, LG_IE_ADD, p->before, ext);
      if (p->after && !p->ceil_in)
        ext = lg_ie_bin(w->a, LG_IE_ADD, ext, p->after);
      lg_iexpr *up = lg_ie_bin(w->a, LG_IE_CEIL, ext,
                               lg_ie_const(w->a, p->ceil));
      lg_iexpr *extra = lg_ie_bin(w->a, LG_IE_SUB, up, ext);
      m->after = p->after ? lg_ie_bin(w->a, LG_IE_ADD, p->after, extra)
                          : extra;
      if (!m->after) return lg_nomem(w);
    }
  }
  return 0;
}

/* A layout in the order form: each item becomes an axis. Returns 1 when
** the caller must run the bijectivity check (explicit strides, nothing
** unknown), 0 when not, -1 on error. */
int lg_lower_order(lw *w, const env *en, const lg_layout *L, lg_ir *ir,
                   const char *plane) {
  item *its =
      lg_walloc(w, sizeof(item) * (size_t)(L->n_items ? L->n_items : 1));
  if (!its) return -1;
  if (L->n_items > LG_MAX_AXES)
    return lg_fail(w, &en->sr, L->items[LG_MAX_AXES].e->pos, LAY_E_LIMIT,
                   "more than %d axes", LG_MAX_AXES);
  int unk[LG_MAX_RANK] = {0}, nplane = 0, explicit_stride = 0, nswz = 0;
  lg_swz swz[LG_MAX_AXES];
  memset(swz, 0, sizeof swz);
  dpad pad[LG_MAX_RANK];
  memset(pad, 0, sizeof pad);
  for (int i = 0; i < L->n_items; i++) {
    const lg_item *li = &L->items[i];
    item *it = &its[i];
    memset(it, 0, sizeof *it);
    if (classify(w, en, li->e, plane, it)) return -1;
    it->pos = li->e->pos;
    it->text = lg_etext(w, &en->sr, li->e);
    lg_ir_axis *ax = NULL;
    if (lg_add_axis(w, &en->sr, ir, li->e->pos, &ax)) return -1;
    if (it->kind == IT_PLANE) {
      if (nplane++)
        return lg_fail(w, &en->sr, li->e->pos, LAY_E_LAYOUT,
                       "plane '%s' appears twice", plane);
      ax->kind = LG_AX_PLANE;
      ax->label = plane;
    } else if (it->kind == IT_UNIT) {
      ax->kind = LG_AX_UNIT;
      ax->label = "1";
    } else {
      if (it->unk) unk[it->dim] = 1;
      if (digit_axis(w, en, it, ax, &pad[it->dim])) return -1;
      swz[ir->naxes - 1] = it->swz;
      nswz += it->swz.on;
    }
    if (li->stride) explicit_stride = 1;
    if (stride_align(w, en, li, ax)) return -1;
  }
  if (plane && !nplane)
    return lg_fail(w, &en->sr, L->order_pos, LAY_E_LAYOUT,
                   "plane '%s' is missing from the memory order", plane);
  int64_t chunk[LG_MAX_RANK];
  if (check_chains(w, en, its, L->n_items, unk, L->order_pos, chunk))
    return -1;
  if (dim_pads(w, en, pad, ir)) return -1;
  if (nswz) { /* a table for the plan's shape */
    if (w->partial) return 0;
    if (!w->shape)
      for (int i = 0; i < ir->naxes; i++)
        if (swz[i].on)
          return lg_fail(w, &en->sr, swz[i].pos, LAY_E_LAYOUT,
                         "'%s': a swizzle is planned for one shape (give "
                         "the shape)", swz[i].text);
    return lg_swizzle_table(w, &en->sr, ir, chunk, swz) ? -1 : 0;
  }
  if (explicit_stride && !w->unk_used) {
    for (int d = 0; d < en->rank; d++)
      if (unk[d]) return 0;
    return 1; /* the caller runs the bijectivity check */
  }
  return 0;
}

/* ---- chunked<R, d,s, ...> -------------------------------------------------- */

int lg_lower_chunked(lw *w, const srcref *sr, const lg_expr *c,
                     lg_ir *ir) {
  const int64_t *v = c->u.chunked.v;
  const uint32_t *vp = c->u.chunked.vpos;
  int n = c->u.chunked.n;
  if (n < 1) return lg_fail(w, sr, c->pos, LAY_E_LAYOUT, "missing rank");
  int64_t R = v[0];
  if (R < 1 || R > LG_MAX_RANK)
    return lg_fail(w, sr, vp[0], LAY_E_LIMIT,
                   "rank %lld is out of range (1 to %d)", (long long)R,
                   LG_MAX_RANK);
  if (ir->rank && ir->rank != R)
    return lg_fail(w, sr, vp[0], LAY_E_SHAPE,
                   "rank %lld does not match the %d dimensions", (long long)R,
                   ir->rank);
  if (!ir->rank) {
    ir->rank = (int)R;
    for (int d = 0; d < R; d++) {
      ir->dim[d].name = lg_arena_printf(w->a, "d%d", d);
      if (!ir->dim[d].name) return lg_nomem(w);
    }
  }
  int64_t pairs[2 * LG_MAX_AXES];
  int np = 0;
  if (c->u.chunked.flat) {
    for (int d = 0; d < R; d++) {
      pairs[2 * np] = d;
      pairs[2 * np++ + 1] = 0;
    }
  } else {
    if (n % 2 == 0)
      return lg_fail(
          w, sr, c->pos, LAY_E_LAYOUT,
          "chunked<> needs the rank, then pairs of dimension and size");
    if ((n - 1) / 2 > LG_MAX_AXES)
      return lg_fail(w, sr, c->pos, LAY_E_LIMIT, "more than %d axes",
                     LG_MAX_AXES);
    for (int i = 1; i < n; i += 2) {
      if (v[i] < 0 || v[i] >= R)
        return lg_fail(w, sr, vp[i], LAY_E_LAYOUT,
                       "dimension index %lld out of range for rank %lld",
                       (long long)v[i], (long long)R);
      if (v[i + 1] < 0)
        return lg_fail(w, sr, vp[i + 1], LAY_E_LAYOUT,
                       "size %lld is negative", (long long)v[i + 1]);
      pairs[2 * np] = v[i];
      pairs[2 * np++ + 1] = v[i + 1];
    }
  }
  /* Each dimension: exactly one `d,0`; the fixed sizes multiply,
  ** rightmost least significant. */
  int64_t div[LG_MAX_AXES];
  for (int d = 0; d < R; d++) {
    int rest = -1;
    int64_t prod = 1;
    for (int j = np - 1; j >= 0; j--) {
      if (pairs[2 * j] != d) continue;
      if (pairs[2 * j + 1] == 0) {
        if (rest >= 0)
          return lg_fail(w, sr, c->u.chunked.flat ? c->pos : vp[1 + 2 * j],
                         LAY_E_LAYOUT, "dimension %d has two '%d,0' pairs", d,
                         d);
        rest = j;
        continue;
      }
      div[j] = prod;
      if (__builtin_mul_overflow(prod, pairs[2 * j + 1], &prod))
        return lg_fail(w, sr, vp[2 + 2 * j], LAY_E_OVERFLOW,
                       "the chunk of dimension %d overflows", d);
    }
    if (rest < 0)
      return lg_fail(w, sr, c->pos, LAY_E_LAYOUT,
                     "dimension %d has no '%d,0' pair (all the rest of it)", d,
                     d);
    div[rest] = prod;
  }
  for (int j = 0; j < np; j++) {
    lg_ir_axis *ax = NULL;
    uint32_t pos = c->u.chunked.flat ? c->pos : vp[1 + 2 * j];
    if (lg_add_axis(w, sr, ir, pos, &ax)) return -1;
    ax->kind = LG_AX_DIGIT;
    ax->dim = (int)pairs[2 * j];
    ax->div = div[j];
    ax->mod = pairs[2 * j + 1];
    ax->label = lg_digit_label(w, ir->dim[ax->dim].name, ax->div, ax->mod);
    if (!ax->label) return -1;
  }
  return 0;
}
