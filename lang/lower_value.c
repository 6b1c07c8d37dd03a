/*
** lower_value.c: the value rules of a layout or transform: quantize,
** dequantize, fixed, affine and cast into lg_ir_value, the byte planes of
** a where clause, and pad_value (see lower_int.h, ir.h).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "dtypes.h"
#include "lower_int.h"
#include "padval.h"

/* ---- Value rules --------------------------------------------------------- */

static int type_arg(lw *w, const env *en, const lg_expr *e, lay_dtype *t) {
  const char *s;
  *t = LAY_DT_NONE;
  if (lg_name_arg(w, en, e, &s)) return -1;
  if (!s) return 0;
  *t = lay_dtype_parse(s);
  if (*t == LAY_DT_NONE)
    return lg_fail(w, &en->sr, e->pos, LAY_E_TYPE, "unknown type '%s'%s", s,
                   lg_hint_type(w, s));
  return 0;
}

/* The arguments of a value operation, by key. */
enum {
  K_SCALE, K_ZP, K_TO, K_AXIS, K_ROUND, K_SAT, K_RADIX, K_NUM, K_DEN, K_XOFF,
  K_ARITH, K_N
};
static const char *const key_names[K_N] = {
    "scale", "zero_point", "to", "axis", "round", "saturate", "radix",
    "num", "den", "xoff", "arith"};

static int key_of(const char *s) {
  if (!strcmp(s, "to_dtype")) return K_TO;
  if (!strcmp(s, "zp")) return K_ZP;
  for (int k = 0; k < K_N; k++)
    if (!strcmp(s, key_names[k])) return k;
  return -1;
}

int lg_get_nums(lw *w, const env *en, const lg_expr *e, nums *out) {
  val v;
  memset(out, 0, sizeof *out);
  if (lg_eval(w, en, e, &v)) return -1;
  switch (v.k) {
  case V_UNK: out->unk = 1; return 0;
  case V_INT: out->s = (double)v.i; return 0;
  case V_NUM: out->s = v.f; return 0;
  case V_LIST:
    if (v.n == 0)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "an empty list");
    out->n = v.n;
    out->v = v.list;
    return 0;
  case V_NAME: return lg_unknown_name(w, en, e, &v);
  default:
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "'%s' must be a number or a list of numbers",
                   lg_etext(w, &en->sr, e));
  }
}

static double nums_at(const nums *x, int i, double dflt, int given) {
  if (!given || x->unk) return dflt;
  return x->n ? x->v[i] : x->s;
}

/* axis = NAME (a CPU-side dimension, followed through transposes) or an
** integer (numpy: an axis of the tensor at this point of the chain,
** negative from the end). Sets *out to the dimension; -1 when unknown. */
static int axis_arg(lw *w, const env *en, const lg_expr *e, const int *amap,
                    int arank, int *out) {
  *out = -1;
  if (e->kind == LG_X_NAME && lg_dim_index(en, e->u.str.s) >= 0) {
    *out = lg_dim_index(en, e->u.str.s);
    return 0;
  }
  val v;
  if (lg_eval(w, en, e, &v)) return -1;
  if (v.k == V_UNK) return 0;
  if (v.k == V_NAME) {
    *out = lg_dim_index(en, v.name);
    if (*out < 0)
      return lg_fail(w, &en->sr, e->pos, LAY_E_NAME, "'%s' is not a dimension",
                     v.name);
    return 0;
  }
  if (v.k != V_INT)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "axis is a dimension name or an integer, not '%s'",
                   lg_etext(w, &en->sr, e));
  if (v.i < -arank || v.i >= arank)
    return lg_fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                   "axis %lld is out of range for a tensor of rank %d",
                   (long long)v.i, arank);
  int k = (int)(v.i < 0 ? v.i + arank : v.i);
  int d = amap ? amap[k] : k;
  if (d == AX_COMPOSITE)
    return lg_fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                   "axis %lld is not one input dimension at this point of the "
                   "chain (a reshape merged or split it)",
                   (long long)v.i);
  if (d == AX_PAD_ONLY)
    return lg_fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                   "axis %lld is not one input dimension at this point of the "
                   "chain (a slice before it kept only padding)",
                   (long long)v.i);
  if (d == AX_PADDED)
    return lg_fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                   "axis %lld is padded or sliced at this point of the chain "
                   "(quantize before pad or slice)",
                   (long long)v.i);
  *out = d;
  return 0;
}

/* The value operations (ORDER: the rows of vops). */
typedef enum vop { OP_Q, OP_DQ, OP_FIXED, OP_AFFINE, OP_CAST } vop;

#define KB(k) (1u << (k))
#define K_MODES (KB(K_TO) | KB(K_AXIS) | KB(K_ROUND) | KB(K_SAT) | KB(K_ARITH))
/* Each operation: its name, the keys it takes, the keys it needs and its
** named form (for "takes named arguments"). */
static const struct {
  const char *name;
  unsigned allowed;
  int required[3]; /* -1: none */
  const char *form;
} vops[] = {
    {"quantize", KB(K_SCALE) | KB(K_ZP) | K_MODES, {K_SCALE, K_TO, -1},
     "scale = ..., zero_point = ..., to = ..."},
    {"dequantize", KB(K_SCALE) | KB(K_ZP) | K_MODES, {K_SCALE, K_TO, -1},
     "scale = ..., zero_point = ..., to = ..."},
    {"fixed", KB(K_SCALE) | KB(K_RADIX) | K_MODES, {K_SCALE, K_RADIX, K_TO},
     "scale = ..., radix = ..., to = ..."},
    {"affine", KB(K_NUM) | KB(K_DEN) | KB(K_ZP) | KB(K_XOFF) | K_MODES,
     {K_TO, -1, -1},
     "num = ..., den = ..., zero_point = ..., xoff = ..., to = ..."},
    {"cast", KB(K_TO) | KB(K_ROUND) | KB(K_SAT), {K_TO, -1, -1}, "to = ..."},
};
#undef K_MODES
#undef KB

/* Is `name` a value operation (a clause or an op of a chain)? */
static int is_value_op(const char *name) {
  for (size_t i = 0; i < sizeof vops / sizeof *vops; i++)
    if (!strcmp(name, vops[i].name)) return 1;
  return 0;
}

const char *lg_value_op_name(size_t i) {
  return i < sizeof vops / sizeof *vops ? vops[i].name : NULL;
}

/* The named arguments of a value operation, by key, into arg[K_N]. */
static int value_args(lw *w, const env *en, vop kind, const lg_expr *call,
                      const lg_expr **arg) {
  const char *op = vops[kind].name;
  const lg_list *args = call->kind == LG_X_CALL ? &call->u.call.args : NULL;
  for (int i = 0; args && i < args->n; i++) {
    const lg_expr *a = args->v[i];
    if (a->kind != LG_X_NAMED)
      return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                     "%s takes named arguments (%s)", op, vops[kind].form);
    int k = key_of(a->u.named.name.s);
    if (k < 0 || !(vops[kind].allowed & (1u << k)))
      return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                     "unknown argument '%s' of %s", a->u.named.name.s, op);
    if (arg[k])
      return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                     "argument '%s' of %s is given twice", key_names[k], op);
    arg[k] = a->u.named.value;
  }
  for (int r = 0; r < 3; r++) {
    int k = vops[kind].required[r];
    if (k >= 0 && !arg[k])
      return lg_fail(w, &en->sr, call->pos, LAY_E_ARG, "%s needs '%s'", op,
                     key_names[k]);
  }
  return 0;
}

/* round, arith, saturate and axis (defaults: half_even, exact, 1, none). */
static int value_modes(lw *w, const env *en, const lg_expr *const *arg,
                       lg_ir_value *v, const int *amap, int arank) {
  v->round = LG_R_HALF_EVEN;
  v->saturate = 1;
  v->axis = -1;
  if (arg[K_ROUND]) {
    const char *s;
    if (lg_name_arg(w, en, arg[K_ROUND], &s)) return -1;
    if (s) {
      if (!strcmp(s, "half_even")) v->round = LG_R_HALF_EVEN;
      else if (!strcmp(s, "half_away")) v->round = LG_R_HALF_AWAY;
      else if (!strcmp(s, "truncate")) v->round = LG_R_TRUNC;
      else
        return lg_fail(w, &en->sr, arg[K_ROUND]->pos, LAY_E_ARG,
                       "unknown rounding '%s' (half_even, half_away, "
                       "truncate)",
                       s);
    }
  }
  if (arg[K_ARITH]) {
    const char *s;
    if (lg_name_arg(w, en, arg[K_ARITH], &s)) return -1;
    if (s) {
      if (!strcmp(s, "exact")) v->arith = LG_A_EXACT;
      else if (!strcmp(s, "f32")) v->arith = LG_A_F32;
      else if (!strcmp(s, "f32_div")) v->arith = LG_A_F32_DIV;
      else
        return lg_fail(w, &en->sr, arg[K_ARITH]->pos, LAY_E_ARG,
                       "unknown arithmetic '%s' (exact, f32, f32_div)", s);
    }
  }
  if (arg[K_SAT]) {
    int64_t s;
    int unk;
    if (lg_eval_int(w, en, arg[K_SAT], &s, &unk)) return -1;
    if (!unk && s != 0 && s != 1)
      return lg_fail(w, &en->sr, arg[K_SAT]->pos, LAY_E_ARG,
                     "saturate is 1 or 0");
    if (!unk) v->saturate = (int)s;
  }
  if (arg[K_AXIS] && axis_arg(w, en, arg[K_AXIS], amap, arank, &v->axis))
    return -1;
  return 0;
}

/* The numeric arguments, scalars or per-channel lists, into x[]; *n is
** the number of channels (1 for scalars), *unknown set when one is
** unknown (partial mode). */
static int value_nums(lw *w, const env *en, const lg_expr *const *arg,
                      const lg_ir *ir, const int64_t *fixed, nums *x, int *n,
                      int *unknown) {
  const lg_ir_value *v = &ir->value;
  int listkey = -1;
  *n = 1;
  *unknown = 0;
  memset(x, 0, sizeof(nums) * K_N);
  for (int k = 0; k < K_N; k++) {
    if (!arg[k] || k == K_TO || k == K_AXIS || k == K_ROUND || k == K_SAT ||
        k == K_ARITH)
      continue;
    if (lg_get_nums(w, en, arg[k], &x[k])) return -1;
    if (x[k].unk) *unknown = 1;
    if (!x[k].n) continue;
    if (listkey >= 0 && x[k].n != *n)
      return lg_fail(w, &en->sr, arg[k]->pos, LAY_E_ARG,
                     "%s has %d value%s, %s has %d", key_names[k], x[k].n,
                     x[k].n == 1 ? "" : "s", key_names[listkey], *n);
    *n = x[k].n;
    listkey = k;
  }
  if (listkey >= 0) {
    if (!arg[K_AXIS] && v->axis < 0)
      return lg_fail(w, &en->sr, arg[listkey]->pos, LAY_E_ARG,
                     "per-channel %s needs an axis (axis = DIMENSION or an "
                     "integer)",
                     key_names[listkey]);
    if (v->axis >= 0 && fixed && fixed[v->axis] > 0 && fixed[v->axis] != *n)
      return lg_fail(w, &en->sr, arg[listkey]->pos, LAY_E_SHAPE,
                     "%s has %d value%s for axis '%s' of size %lld",
                     key_names[listkey], *n, *n == 1 ? "" : "s",
                     ir->dim[v->axis].name, (long long)fixed[v->axis]);
  }
  return 0;
}

/* The affine rule's num, den, zp and xoff per channel, from x[]. */
static int value_affine(lw *w, const env *en, vop kind,
                        const lg_expr *const *arg, uint32_t pos,
                        const nums *x, int n, int unknown, lg_ir_value *v) {
  v->kind = LG_V_AFFINE;
  v->dequant = kind == OP_DQ;
  v->n = n;
  v->num = lg_walloc(w, sizeof(double) * (size_t)n);
  v->den = lg_walloc(w, sizeof(double) * (size_t)n);
  v->zp = lg_walloc(w, sizeof(double) * (size_t)n);
  v->xoff = lg_walloc(w, sizeof(double) * (size_t)n);
  if (!v->num || !v->den || !v->zp || !v->xoff) return -1;
  for (int i = 0; i < n; i++) {
    double scale = nums_at(&x[K_SCALE], i, 1, arg[K_SCALE] != NULL);
    if (kind != OP_AFFINE && !unknown && !(scale > 0 && isfinite(scale)))
      return lg_fail(w, &en->sr, arg[K_SCALE]->pos, LAY_E_ARG,
                     "scale must be positive");
    v->zp[i] = nums_at(&x[K_ZP], i, 0, arg[K_ZP] != NULL);
    switch (kind) {
    case OP_Q:
    case OP_DQ:
      v->num[i] = 1;
      v->den[i] = scale;
      break;
    case OP_FIXED: {
      double r = nums_at(&x[K_RADIX], i, 0, 1);
      if (!unknown && (r != floor(r) || fabs(r) > 64))
        return lg_fail(w, &en->sr, arg[K_RADIX]->pos, LAY_E_ARG,
                       "radix must be an integer between -64 and 64");
      v->num[i] = ldexp(scale, (int)r);
      v->den[i] = 1;
      break;
    }
    default:
      v->num[i] = nums_at(&x[K_NUM], i, 1, arg[K_NUM] != NULL);
      v->den[i] = nums_at(&x[K_DEN], i, 1, arg[K_DEN] != NULL);
      v->xoff[i] = nums_at(&x[K_XOFF], i, 0, arg[K_XOFF] != NULL);
      if (!unknown && (v->num[i] == 0 || v->den[i] == 0))
        return lg_fail(w, &en->sr, pos, LAY_E_ARG,
                       "affine: num and den must not be 0");
      break;
    }
  }
  return 0;
}

/* The types of an affine rule: the zero point fits the integer side (the
** target type when quantizing, the CPU type when dequantizing); quantize
** goes to an integer type, dequantize from one to a float type. */
static int value_types(lw *w, const env *en, vop kind,
                       const lg_expr *const *arg, uint32_t pos,
                       const lg_ir_value *v, int unknown) {
  lay_dtype to = v->hw;
  lay_dtype zt = kind == OP_DQ ? v->cpu : to;
  if (arg[K_ZP] && !unknown && zt != LAY_DT_NONE &&
      !lg_dtype_is_float(zt)) {
    double lo, hi1; /* hi1 = hi + 1, exact; hi prints as %g rounds it */
    lg_dtype_drange(zt, &lo, &hi1);
    double hi = hi1 - 1;
    for (int i = 0; i < v->n; i++) {
      char buf[64];
      snprintf(buf, sizeof buf, "%g", v->zp[i]);
      if (v->zp[i] != floor(v->zp[i]))
        return lg_fail(w, &en->sr, arg[K_ZP]->pos, LAY_E_ARG,
                       "zero_point %s is not an integer", buf);
      if (!lg_dtype_holds(zt, v->zp[i]))
        return lg_fail(w, &en->sr, arg[K_ZP]->pos, LAY_E_ARG,
                       "zero_point %s does not fit %s (%g to %g)", buf,
                       lay_dtype_name(zt), lo, hi);
    }
  }
  if (kind == OP_Q && to != LAY_DT_NONE && lg_dtype_is_float(to))
    return lg_fail(w, &en->sr, arg[K_TO]->pos, LAY_E_TYPE,
                   "quantize needs an integer 'to' type, not %s",
                   lay_dtype_name(to));
  if (kind == OP_DQ) {
    if (to != LAY_DT_NONE && !lg_dtype_is_float(to))
      return lg_fail(w, &en->sr, arg[K_TO]->pos, LAY_E_TYPE,
                     "dequantize needs a float 'to' type, not %s",
                     lay_dtype_name(to));
    if (v->cpu != LAY_DT_NONE && lg_dtype_is_float(v->cpu))
      return lg_fail(w, &en->sr, pos, LAY_E_TYPE,
                     "dequantize needs an integer CPU type, not %s",
                     lay_dtype_name(v->cpu));
  }
  return 0;
}

/* One value op into ir->value, which holds no rule yet (kind LG_V_NONE,
** cpu the type it converts from). */
static int value_one(lw *w, const env *en, vop kind, const lg_expr *call,
                     lg_ir *ir, const int64_t *fixed, const int *amap,
                     int arank) {
  lg_ir_value *v = &ir->value;
  const lg_expr *arg[K_N] = {0};
  if (value_args(w, en, kind, call, arg)) return -1;
  lay_dtype to;
  if (type_arg(w, en, arg[K_TO], &to)) return -1;
  v->hw = to;
  if (value_modes(w, en, arg, v, amap, arank)) return -1;
  if (kind == OP_CAST) {
    v->kind = LG_V_CAST;
    return 0;
  }
  nums x[K_N];
  int n, unknown;
  if (value_nums(w, en, arg, ir, fixed, x, &n, &unknown) ||
      value_affine(w, en, kind, arg, call->pos, x, n, unknown, v))
    return -1;
  return value_types(w, en, kind, arg, call->pos, v, unknown);
}

/* A value op after others in a transform chain: `prev` (a rule or a
** chain) and the new rule `nv` become one LG_V_CHAIN in *v. */
static int value_append(lw *w, const env *en, const lg_expr *call,
                        const lg_ir *ir, const lg_ir_value *prev,
                        const lg_ir_value *nv, lg_ir_value *v) {
  int np = prev->kind == LG_V_CHAIN ? prev->nstep : 1;
  if (np + 1 > LG_MAX_VSTEPS)
    return lg_fail(w, &en->sr, call->pos, LAY_E_LIMIT,
                   "more than %d value ops in one transform", LG_MAX_VSTEPS);
  lg_ir_value *st = lg_walloc(w, sizeof *st * (size_t)(np + 1));
  if (!st) return -1;
  if (prev->kind == LG_V_CHAIN)
    memcpy(st, prev->step, sizeof *st * (size_t)np);
  else
    st[0] = *prev;
  st[np] = *nv;
  memset(v, 0, sizeof *v);
  v->kind = LG_V_CHAIN;
  v->cpu = st[0].cpu;
  v->hw = nv->hw;
  v->axis = -1;
  v->n = 1;
  v->saturate = 1;
  v->nstep = np + 1;
  v->step = st;
  /* The executor gives each element one channel: the per-channel steps
  ** of a chain run along one dimension. */
  for (int i = 0; i <= np; i++) {
    st[i].pad_value = 0;
    if (st[i].kind != LG_V_AFFINE || st[i].axis < 0) continue;
    if (v->axis >= 0 && v->axis != st[i].axis)
      return lg_fail(w, &en->sr, call->pos, LAY_E_LAYOUT,
                     "the per-channel value ops of a chain run along one "
                     "dimension ('%s' and '%s')",
                     ir->dim[v->axis].name, ir->dim[st[i].axis].name);
    v->axis = st[i].axis;
    if (st[i].n > 1) v->n = st[i].n;
  }
  return 0;
}

/* Lower quantize/dequantize/fixed/affine/cast(args) into ir->value. fixed
** holds the dimension sizes when the spec fixes them (transforms); amap and
** arank describe the tensor at this point of the chain (see axis_arg).
** amap is non-NULL in a transform chain, where a value op may follow
** others: they become one LG_V_CHAIN, applied in order (numpy: each op's
** result is a tensor of its type, which the next op converts). */
int lg_value_op(lw *w, const env *en, const char *op, const lg_expr *call,
                lg_ir *ir, const int64_t *fixed, const int *amap,
                int arank) {
  vop kind = OP_CAST;
  for (int i = 0; i < OP_CAST; i++)
    if (!strcmp(op, vops[i].name)) kind = (vop)i;
  lg_ir_value *v = &ir->value;
  if (v->kind == LG_V_NONE)
    return value_one(w, en, kind, call, ir, fixed, amap, arank);
  if (!amap)
    return lg_fail(w, &en->sr, call->pos, LAY_E_LAYOUT,
                   "only one value conversion (quantize, dequantize, fixed, "
                   "affine, cast) is allowed");
  lg_ir_value prev = *v;
  memset(v, 0, sizeof *v);
  v->cpu = prev.hw != LAY_DT_NONE ? prev.hw : prev.cpu;
  int rc = value_one(w, en, kind, call, ir, fixed, amap, arank);
  lg_ir_value nv = *v;
  *v = prev;
  if (rc) return -1;
  return value_append(w, en, call, ir, &prev, &nv, v);
}

/* where NAME = bytes(lo = (u >> 1) & 0x7f, ...). */
static int where_clause(lw *w, const env *en, const lg_clause *c, lg_ir *ir,
                        const char **plane_name) {
  const lg_expr *b = c->value;
  lg_ir_value *v = &ir->value;
  if (v->nplanes)
    return lg_fail(w, &en->sr, c->pos, LAY_E_LAYOUT,
                   "only one 'where' clause is allowed");
  if (b->kind != LG_X_CALL || strcmp(b->u.call.fn->u.str.s, "bytes"))
    return lg_fail(w, &en->sr, b->pos, LAY_E_ARG,
                   "expected bytes(NAME = (u >> SHIFT) & MASK, ...)");
  const char *nm = c->name.s;
  if (lg_dim_index(en, nm) >= 0)
    return lg_fail(w, &en->sr, c->pos, LAY_E_NAME,
                   "'%s' is already a dimension", nm);
  for (int i = 0; i < en->np; i++)
    if (!strcmp(en->p[i].name, nm))
      return lg_fail(w, &en->sr, c->pos, LAY_E_NAME,
                     "'%s' is already a parameter", nm);
  const lg_list *args = &b->u.call.args;
  if (args->n < 1 || args->n > LG_MAX_PLANES)
    return lg_fail(w, &en->sr, b->pos, LAY_E_LIMIT,
                   "bytes() takes 1 to %d planes, got %d", LG_MAX_PLANES,
                   args->n);
  for (int i = 0; i < args->n; i++) {
    const lg_expr *a = args->v[i];
    if (a->kind != LG_X_NAMED)
      return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                     "a byte plane is NAME = (u >> SHIFT) & MASK");
    for (int j = 0; j < i; j++)
      if (!strcmp(v->plane[j].name, a->u.named.name.s))
        return lg_fail(w, &en->sr, a->pos, LAY_E_NAME,
                       "plane '%s' appears twice", a->u.named.name.s);
    const lg_expr *e = a->u.named.value, *sh = NULL, *mk = NULL;
    if (e->kind == LG_X_BINARY && e->u.op.op == LG_OP_AND) {
      mk = e->u.op.b;
      e = e->u.op.a;
    }
    if (e->kind == LG_X_BINARY && e->u.op.op == LG_OP_SHR) {
      sh = e->u.op.b;
      e = e->u.op.a;
    }
    if (e->kind != LG_X_NAME || strcmp(e->u.str.s, "u"))
      return lg_fail(
          w, &en->sr, a->u.named.value->pos, LAY_E_ARG,
          "a byte plane is (u >> SHIFT) & MASK, u & MASK or u >> SHIFT");
    int64_t s = 0, m = 0xff;
    int unk = 0, unk2 = 0;
    if (sh && lg_eval_int(w, en, sh, &s, &unk)) return -1;
    if (mk && lg_eval_int(w, en, mk, &m, &unk2)) return -1;
    if (!unk && (s < 0 || s > 31))
      return lg_fail(w, &en->sr, sh->pos, LAY_E_ARG,
                     "plane shift %lld is out of range (0 to 31)",
                     (long long)s);
    if (!unk2 && (m <= 0 || m > 0xff))
      return lg_fail(w, &en->sr, mk->pos, LAY_E_ARG,
                     "plane mask 0x%llx does not fit a byte (1 to 0xff)",
                     (unsigned long long)m);
    v->plane[i].name = a->u.named.name.s;
    v->plane[i].shift = (int)s;
    v->plane[i].mask = (uint32_t)m;
  }
  v->nplanes = args->n;
  *plane_name = nm;
  return 0;
}

/* A pad_value written as an integer literal (or minus one) keeps its exact
** value beside the double (ir.h pad_int, pad_bits): past 2^53 a double
** cannot tell 2^64 - 1 from 2^64. */
static void pad_literal(lw *w, const env *en, const lg_expr *e,
                        lg_ir_value *v) {
  v->pad_int = 0;
  if (e->kind == LG_X_INT) {
    v->pad_int = 1;
    v->pad_bits = (uint64_t)e->u.i;
  } else if (e->kind == LG_X_UNARY && e->u.op.op == LG_OP_NEG &&
             e->u.op.a->kind == LG_X_INT) {
    v->pad_int = 1;
    v->pad_bits = 0 - (uint64_t)e->u.op.a->u.i;
  } else if (e->kind == LG_X_FLOAT) { /* an integer past INT64_MAX */
    const char *t = lg_etext(w, &en->sr, e);
    size_t n = t ? strspn(t, "0123456789") : 0;
    int64_t b;
    if (n && !t[n] && lg_lex_int(t, n, &b) == 1) {
      v->pad_int = 2;
      v->pad_bits = (uint64_t)b;
    }
  }
}

/* All clauses of a layout. */
int lg_value_clauses(lw *w, const env *en, const lg_layout *L, lg_ir *ir,
                     const char **plane_name, const lg_clause **pad_clause) {
  for (int i = 0; i < L->n_clauses; i++) {
    const lg_clause *c = &L->clauses[i];
    const char *nm = c->name.s;
    if (c->kind == LG_C_WHERE) {
      if (where_clause(w, en, c, ir, plane_name)) return -1;
    } else if (c->kind == LG_C_SET && !strcmp(nm, "pad_value")) {
      nums x;
      if (*pad_clause)
        return lg_fail(w, &en->sr, c->pos, LAY_E_ARG,
                       "pad_value is given twice");
      *pad_clause = c;
      val pv; /* a list from a template's argument: at the argument */
      if (lg_eval(w, en, c->value, &pv)) return -1;
      if (pv.k == V_LIST && pv.arg)
        return lg_fail(w, &pv.arg_sr, pv.arg->pos, LAY_E_ARG,
                       "argument '%s': pad_value must be one number, not a "
                       "list", pv.param);
      if (lg_get_nums(w, en, c->value, &x)) return -1;
      if (x.n)
        return lg_fail(w, &en->sr, c->value->pos, LAY_E_ARG,
                       "pad_value must be one number");
      ir->value.pad_value = x.unk ? 0 : x.s;
      if (!x.unk) pad_literal(w, en, c->value, &ir->value);
    } else if (c->kind == LG_C_SET && !strcmp(nm, "nibbles")) {
      /* the nibble order of a 4-bit layout buffer (types20) */
      const char *s;
      if (lg_name_arg(w, en, c->value, &s)) return -1;
      if (s && strcmp(s, "low_first") && strcmp(s, "high_first"))
        return lg_fail(w, &en->sr, c->value->pos, LAY_E_ARG,
                       "nibbles is low_first or high_first, not '%s'", s);
      ir->value.nibble_hi = s && !strcmp(s, "high_first");
    } else if (c->kind == LG_C_CALL && is_value_op(nm)) {
      if (lg_value_op(w, en, nm, c->value, ir, NULL, NULL, ir->rank)) return -1;
    } else {
      return lg_fail(w, &en->sr, c->pos, LAY_E_NAME, "unknown clause '%s'%s",
                     nm, lg_hint_clause(w, c));
    }
  }
  return 0;
}

/* Final value checks: the pad value must fit the hardware type, which with
** byte planes is the type whose bits the planes split (ir.h): the pad is an
** element value, split into planes like any element. */
int lg_finish_value(lw *w, const srcref *sr, const lg_clause *pad,
                    lg_ir *ir) {
  lg_ir_value *v = &ir->value;
  lay_dtype t = v->hw != LAY_DT_NONE ? v->hw : v->cpu;
  double p = v->pad_value;
  lg_pad_note(w, sr, pad, ir);
  if (pad && lg_pad_fits(t, v)) return lg_pad_fail(w, sr, pad, t, p);
  return 0;
}
