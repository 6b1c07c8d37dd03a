/*
** lower_expr.c: the lowering's expressions (constants, lists, size
** expressions over the dimensions, ceil), the binding of arguments to
** parameters and the dimensions of a layout (see lower_int.h).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lower_int.h"

/* ---- Expressions --------------------------------------------------------- */

static const char *const op_names[] = {"+", "-", "*", "/", "%", "<<", ">>",
                                       "&", "|", "^", "-", "~", "==",
                                       "!=", "<", "<=", ">", ">=", "in"};

static int lookup(lw *w, const env *en, const lg_expr *e, val *out) {
  const char *s = e->u.str.s;
  memset(out, 0, sizeof *out);
  for (int i = 0; i < en->np; i++) {
    if (strcmp(en->p[i].name, s)) continue;
    if (i >= en->visible) {
      if (i == en->self)
        return lg_fail(w, &en->sr, e->pos, LAY_E_NAME,
                       "parameter '%s' cannot be used in its own default", s);
      return lg_fail(w, &en->sr, e->pos, LAY_E_NAME,
                     "parameter '%s' is used before it is defined", s);
    }
    *out = en->p[i].v;
    if (out->k == V_UNK) w->unk_used = 1;
    if (en->p[i].shaped) w->shape_used++;
    return 0;
  }
  for (int i = 0; i < en->rank; i++) {
    if (strcmp(en->dims[i], s)) continue;
    if (w->shape && en->rank == w->shape_rank) { /* a plan's shape */
      out->k = V_INT;
      out->i = w->shape[i];
      w->shape_used++;
      return 0;
    }
    out->k = V_IE;
    out->ie = lg_ie_dim(w->a, i);
    return out->ie ? 0 : lg_nomem(w);
  }
  if (!strcmp(s, "esize") && w->esize > 0) { /* the stored element's bytes */
    w->esize_used = 1;
    out->k = V_INT;
    out->i = w->esize;
    return 0;
  }
  out->k = V_NAME;
  out->name = s;
  return 0;
}

/* "unknown name 'b'" for a V_NAME value; at the argument that bound it to
** a parameter, when it came from one. */
int lg_unknown_name(lw *w, const env *en, const lg_expr *e,
                    const val *v) {
  if (v->arg)
    return lg_fail(w, &v->arg_sr, v->arg->pos, LAY_E_NAME,
                   "argument '%s': unknown name '%s'", v->param, v->name);
  return lg_fail(w, &en->sr, e->pos, LAY_E_NAME, "unknown name '%s'%s",
                 v->name, lg_hint_name(w, en, v->name, 1, NULL));
}

/* A list where a number is expected: at the argument that gave it when a
** parameter holds it. */
static int list_misuse(lw *w, const env *en, const lg_expr *e,
                       const val *v) {
  char buf[120];
  size_t k = 0;
  k += (size_t)snprintf(buf, sizeof buf, "[");
  for (int i = 0; i < v->n && k < sizeof buf - 8; i++)
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%g", i ? ", " : "",
                          v->list[i]);
  snprintf(buf + k, sizeof buf - k, "%s]", k >= sizeof buf - 8 ? "..." : "");
  if (v->arg)
    return lg_fail(w, &v->arg_sr, v->arg->pos, LAY_E_ARG,
                   "argument '%s': a number is expected here, not the list "
                   "%s", v->param, buf);
  return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                 "'%s' is the list %s, a number is expected here",
                 lg_etext(w, &en->sr, e), buf);
}

static int int_op(lw *w, const env *en, const lg_expr *e, lg_op op,
                  int64_t a, int64_t b, int64_t *r) {
  int bad = 0;
  switch (op) {
  case LG_OP_ADD: bad = __builtin_add_overflow(a, b, r); break;
  case LG_OP_SUB: bad = __builtin_sub_overflow(a, b, r); break;
  case LG_OP_MUL: bad = __builtin_mul_overflow(a, b, r); break;
  case LG_OP_DIV:
  case LG_OP_MOD: {
    if (b == 0)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "division by zero in '%s'",
                     lg_etext(w, &en->sr, e));
    if (a == INT64_MIN && b == -1) {
      bad = 1;
      break;
    }
    int64_t q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
      q--;
      m += b;
    }
    *r = op == LG_OP_DIV ? q : m;
    break;
  }
  case LG_OP_SHL:
    if (b < 0 || b > 62 || a < 0 || (a >> (62 - b)) != 0) bad = 1;
    else *r = a << b;
    break;
  case LG_OP_SHR:
    if (b < 0 || b > 63) bad = 1;
    else *r = a >> b;
    break;
  case LG_OP_AND: *r = a & b; break;
  case LG_OP_OR: *r = a | b; break;
  case LG_OP_XOR: *r = a ^ b; break;
  default: bad = 1; break;
  }
  if (bad)
    return lg_fail(w, &en->sr, e->pos, LAY_E_OVERFLOW, "'%s' overflows",
                   lg_etext(w, &en->sr, e));
  return 0;
}

/* "'x' must be an integer"; for a literal past INT64_MAX (a number: build.c)
** that it is too large. */
static int not_int(lw *w, const env *en, const lg_expr *e) {
  const char *t = lg_etext(w, &en->sr, e);
  if (e->kind == LG_X_FLOAT && t && t[0] && !t[strspn(t, "0123456789")])
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "integer too large: '%s' is past 2^63 - 1 (only a "
                   "pad_value may go up to 2^64 - 1)", t);
  return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "'%s' must be an integer", t);
}

/* A value as a size expression (V_INT or V_IE); NULL for V_UNK. */
static int as_ie(lw *w, const env *en, const lg_expr *e, const val *v,
                 lg_iexpr **out) {
  *out = NULL;
  switch (v->k) {
  case V_INT:
    *out = lg_ie_const(w->a, v->i);
    return *out ? 0 : lg_nomem(w);
  case V_IE: *out = v->ie; return 0;
  case V_UNK: return 0;
  case V_NAME: return lg_unknown_name(w, en, e, v);
  case V_LIST:
    if (e->kind != LG_X_LIST) return list_misuse(w, en, e, v);
    /* fall through */
  default:
    return not_int(w, en, e);
  }
}

static int eval_binary(lw *w, const env *en, const lg_expr *e, val *out) {
  val a, b;
  lg_op op = e->u.op.op;
  if (lg_eval(w, en, e->u.op.a, &a) || lg_eval(w, en, e->u.op.b, &b)) return -1;
  memset(out, 0, sizeof *out);
  if (a.k == V_NAME) return lg_unknown_name(w, en, e->u.op.a, &a);
  if (b.k == V_NAME) return lg_unknown_name(w, en, e->u.op.b, &b);
  if (a.k == V_UNK || b.k == V_UNK) {
    out->k = V_UNK;
    return 0;
  }
  if (a.k == V_LIST && e->u.op.a->kind != LG_X_LIST)
    return list_misuse(w, en, e->u.op.a, &a);
  if (b.k == V_LIST && e->u.op.b->kind != LG_X_LIST)
    return list_misuse(w, en, e->u.op.b, &b);
  if (a.k == V_LIST || b.k == V_LIST)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "a list cannot be used with '%s'", op_names[op]);
  if (a.k == V_INT && b.k == V_INT) {
    out->k = V_INT;
    return int_op(w, en, e, op, a.i, b.i, &out->i);
  }
  if (a.k == V_IE || b.k == V_IE) {
    static const lg_iexpr_kind kinds[] = {LG_IE_ADD, LG_IE_SUB, LG_IE_MUL,
                                          LG_IE_DIV, LG_IE_MOD};
    if (op > LG_OP_MOD && w->partial) { /* known when a plan is made */
      out->k = V_UNK;
      w->unk_used = 1;
      return 0;
    }
    if (op > LG_OP_MOD)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                     "'%s' of a dimension's size is known only when a plan "
                     "is made for a shape", op_names[op]);
    lg_iexpr *x, *y;
    if (as_ie(w, en, e->u.op.a, &a, &x) || as_ie(w, en, e->u.op.b, &b, &y))
      return -1;
    int64_t c;
    if ((op == LG_OP_DIV || op == LG_OP_MOD) && lg_ie_is_const(y, &c) &&
        c == 0)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "division by zero in '%s'",
                     lg_etext(w, &en->sr, e));
    out->k = V_IE;
    out->ie = lg_ie_bin(w->a, kinds[op], x, y);
    return out->ie ? 0 : lg_nomem(w);
  }
  /* Floating point. */
  double x = a.k == V_INT ? (double)a.i : a.f;
  double y = b.k == V_INT ? (double)b.i : b.f;
  out->k = V_NUM;
  switch (op) {
  case LG_OP_ADD: out->f = x + y; break;
  case LG_OP_SUB: out->f = x - y; break;
  case LG_OP_MUL: out->f = x * y; break;
  case LG_OP_DIV:
    if (y == 0)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "division by zero in '%s'",
                     lg_etext(w, &en->sr, e));
    out->f = x / y;
    break;
  default:
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "'%s' needs integers",
                   op_names[op]);
  }
  if (!isfinite(out->f))
    return lg_fail(w, &en->sr, e->pos, LAY_E_OVERFLOW, "'%s' overflows",
                   lg_etext(w, &en->sr, e));
  return 0;
}

/* [a, b, ...]: a list of numbers (ilist too when all are integers). */
static int eval_list(lw *w, const env *en, const lg_expr *e, val *out) {
  int n = e->u.list.n, allint = 1;
  out->k = V_LIST;
  out->n = n;
  out->list = lg_walloc(w, sizeof(double) * (size_t)(n ? n : 1));
  out->ilist = lg_walloc(w, sizeof(int64_t) * (size_t)(n ? n : 1));
  if (!out->list || !out->ilist) return -1;
  for (int i = 0; i < n; i++) {
    val v;
    if (lg_eval(w, en, e->u.list.v[i], &v)) return -1;
    if (v.k == V_UNK) {
      memset(out, 0, sizeof *out);
      out->k = V_UNK;
      return 0;
    }
    if (v.k == V_NAME) return lg_unknown_name(w, en, e->u.list.v[i], &v);
    if (v.k == V_INT) {
      out->list[i] = (double)v.i;
      out->ilist[i] = v.i;
    } else if (v.k == V_NUM) {
      out->list[i] = v.f;
      allint = 0;
    } else if (v.k == V_LIST && e->u.list.v[i]->kind != LG_X_LIST) {
      return list_misuse(w, en, e->u.list.v[i], &v);
    } else {
      return lg_fail(w, &en->sr, e->u.list.v[i]->pos, LAY_E_ARG,
                     "a list holds numbers");
    }
  }
  if (!allint) out->ilist = NULL;
  return 0;
}

/* -a and ~a. */
static int eval_unary(lw *w, const env *en, const lg_expr *e, val *out) {
  val a;
  if (lg_eval(w, en, e->u.op.a, &a)) return -1;
  *out = a;
  if (a.k == V_UNK) return 0;
  if (a.k == V_NAME) return lg_unknown_name(w, en, e->u.op.a, &a);
  if (e->u.op.op == LG_OP_NOT) {
    if (a.k != V_INT)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "'~' needs an integer");
    out->i = ~a.i;
    return 0;
  }
  if (a.k == V_INT) {
    if (a.i == INT64_MIN)
      return lg_fail(w, &en->sr, e->pos, LAY_E_OVERFLOW, "'%s' overflows",
                     lg_etext(w, &en->sr, e));
    out->i = -a.i;
  } else if (a.k == V_NUM) {
    out->f = -a.f;
  } else if (a.k == V_IE) {
    lg_iexpr *z = lg_ie_const(w->a, 0);
    out->ie = lg_ie_bin(w->a, LG_IE_SUB, z, a.ie);
    if (!out->ie) return lg_nomem(w);
  } else if (e->u.op.a->kind != LG_X_LIST) {
    return list_misuse(w, en, e->u.op.a, &a);
  } else {
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "a list cannot be negated");
  }
  return 0;
}

/* ceil(x, k), the one function of expressions. */
static int eval_call(lw *w, const env *en, const lg_expr *e, val *out) {
  const char *fn = e->u.call.fn->u.str.s;
  if (!strcmp(fn, "ceil") && e->u.call.args.n != 2)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "ceil takes 2 arguments (ceil(x, k)), got %d",
                   e->u.call.args.n);
  if (!strcmp(fn, "ceil")) {
    val a, b;
    if (lg_eval(w, en, e->u.call.args.v[0], &a)) return -1;
    int su = w->shape_used;
    if (lg_eval(w, en, e->u.call.args.v[1], &b)) return -1;
    if (a.k == V_UNK || b.k == V_UNK) {
      out->k = V_UNK;
      return 0;
    }
    if (b.k == V_IE && w->partial) { /* known when a plan is made */
      out->k = V_UNK;
      w->unk_used = 1;
      return 0;
    }
    if (b.k == V_IE)
      return lg_fail(w, &en->sr, e->u.call.args.v[1]->pos, LAY_E_ARG,
                     "ceil: the multiple '%s' is known only when a plan is "
                     "made for a shape",
                     lg_etext(w, &en->sr, e->u.call.args.v[1]));
    if (b.k != V_INT || b.i <= 0)
      return lg_fail(w, &en->sr, e->u.call.args.v[1]->pos, LAY_E_ARG,
                     "ceil: the multiple must be a positive integer%s",
                     w->shape_used != su ? lg_shape_note(w) : "");
    lg_iexpr *x, *y;
    if (as_ie(w, en, e->u.call.args.v[0], &a, &x) ||
        as_ie(w, en, e->u.call.args.v[1], &b, &y))
      return -1;
    out->k = V_IE;
    out->ie = lg_ie_bin(w->a, LG_IE_CEIL, x, y);
    if (!out->ie) return lg_nomem(w);
    int64_t c;
    if (lg_ie_is_const(out->ie, &c)) {
      out->k = V_INT;
      out->i = c;
    }
    return 0;
  }
  return lg_fail(w, &en->sr, e->pos, LAY_E_NAME, "unknown function '%s'", fn);
}

int lg_eval(lw *w, const env *en, const lg_expr *e, val *out) {
  memset(out, 0, sizeof *out);
  if (w->st) return -1;
  if (!e) return lg_fail(w, &en->sr, 0, LAY_E_INTERNAL, "missing expression");
  switch (e->kind) {
  case LG_X_INT: out->k = V_INT; out->i = e->u.i; return 0;
  case LG_X_FLOAT: out->k = V_NUM; out->f = e->u.f; return 0;
  case LG_X_NAME: return lookup(w, en, e, out);
  case LG_X_LIST: return eval_list(w, en, e, out);
  case LG_X_UNARY: return eval_unary(w, en, e, out);
  case LG_X_BINARY: return eval_binary(w, en, e, out);
  case LG_X_CALL: return eval_call(w, en, e, out);
  case LG_X_STR:
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "a string is not a value here");
  default:
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "unexpected '%s'",
                   lg_etext(w, &en->sr, e));
  }
}

/* Evaluate e to a size expression (NULL when unknown). */
int lg_eval_ie(lw *w, const env *en, const lg_expr *e, lg_iexpr **out) {
  val v;
  if (lg_eval(w, en, e, &v)) return -1;
  return as_ie(w, en, e, &v, out);
}

/* Evaluate e to an integer constant; *unk set when unknown. */
int lg_eval_int(lw *w, const env *en, const lg_expr *e, int64_t *out,
                int *unk) {
  val v;
  *unk = 0;
  if (lg_eval(w, en, e, &v)) return -1;
  if (v.k == V_UNK) {
    *unk = 1;
    return 0;
  }
  if (v.k == V_INT) {
    *out = v.i;
    return 0;
  }
  if (v.k == V_NAME) return lg_unknown_name(w, en, e, &v);
  if (v.k == V_IE && w->partial) { /* known when a plan is made */
    *unk = 1;
    w->unk_used = 1;
    return 0;
  }
  if (v.k == V_IE)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "'%s' depends on a dimension's size: it is known only "
                   "when a plan is made for a shape",
                   lg_etext(w, &en->sr, e));
  if (v.k == V_LIST && e->kind != LG_X_LIST)
    return list_misuse(w, en, e, &v);
  return not_int(w, en, e);
}

/* Does e mention a dimension (outside of parameters)? */
int lg_mentions_dim(const env *en, const lg_expr *e) {
  if (!e) return 0;
  switch (e->kind) {
  case LG_X_NAME:
    for (int i = 0; i < en->rank; i++)
      if (!strcmp(en->dims[i], e->u.str.s)) return 1;
    return 0;
  case LG_X_UNARY: return lg_mentions_dim(en, e->u.op.a);
  case LG_X_BINARY:
    return lg_mentions_dim(en, e->u.op.a) || lg_mentions_dim(en, e->u.op.b);
  case LG_X_SLICE: return lg_mentions_dim(en, e->u.slice.base);
  case LG_X_CALL:
    for (int i = 0; i < e->u.call.args.n; i++)
      if (lg_mentions_dim(en, e->u.call.args.v[i])) return 1;
    return 0;
  default: return 0;
  }
}

int lg_dim_index(const env *en, const char *s) {
  for (int i = 0; i < en->rank; i++)
    if (!strcmp(en->dims[i], s)) return i;
  return -1;
}

/* A name argument (a type, a rounding mode, a dimension): the name as
** written, or the name a parameter holds. NULL when unknown. */
int lg_name_arg(lw *w, const env *en, const lg_expr *e, const char **out) {
  *out = NULL;
  if (e->kind != LG_X_NAME)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG, "expected a name, not '%s'",
                   lg_etext(w, &en->sr, e));
  for (int i = 0; i < en->np && i < en->visible; i++) {
    if (strcmp(en->p[i].name, e->u.str.s)) continue;
    const val *v = &en->p[i].v;
    if (v->k == V_UNK) return 0;
    if (v->k != V_NAME)
      return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                     "parameter '%s' must be a name here", e->u.str.s);
    *out = v->name;
    return 0;
  }
  *out = e->u.str.s;
  return 0;
}

/* ---- Parameters ---------------------------------------------------------- */

static const char *param_name(const lg_expr *e) {
  return e->kind == LG_X_NAMED ? e->u.named.name.s : e->u.str.s;
}

/* Bind `args` (evaluated in `caller`) to the parameters of layout L (of
** def). `call_pos` is where missing arguments are reported (in caller). */
int lg_bind(lw *w, const lg_def *def, const lg_layout *L,
            const lg_list *args, const env *caller, uint32_t call_pos,
            param *ps, int *nps) {
  srcref sr = lg_def_src(def);
  int np = L->params.n;
  if (np > LW_MAX_PARAMS)
    return lg_fail(w, &sr, L->pos, LAY_E_LIMIT, "more than %d parameters",
                   LW_MAX_PARAMS);
  int set[LW_MAX_PARAMS] = {0};
  for (int i = 0; i < np; i++) {
    ps[i].name = param_name(L->params.v[i]);
    memset(&ps[i].v, 0, sizeof ps[i].v);
    ps[i].shaped = 0;
    for (int j = 0; j < i; j++)
      if (!strcmp(ps[j].name, ps[i].name))
        return lg_fail(w, &sr, L->params.v[i]->pos, LAY_E_NAME,
                       "duplicate parameter '%s'", ps[i].name);
    for (int j = 0; j < L->dims.n; j++)
      if (!strcmp(L->dims.v[j]->u.str.s, ps[i].name))
        return lg_fail(w, &sr, L->params.v[i]->pos, LAY_E_NAME,
                       "'%s' is both a parameter and a dimension", ps[i].name);
  }
  *nps = np;
  int nargs = args ? args->n : 0, named = 0;
  for (int k = 0; k < nargs; k++) {
    const lg_expr *a = args->v[k];
    int i;
    const lg_expr *ve;
    if (a->kind == LG_X_NAMED) {
      named = 1;
      ve = a->u.named.value;
      for (i = 0; i < np; i++)
        if (!strcmp(ps[i].name, a->u.named.name.s)) break;
      if (i == np)
        return lg_fail(w, &caller->sr, a->pos, LAY_E_ARG,
                       "unknown parameter '%s' of '%s'", a->u.named.name.s,
                       def->qname);
    } else {
      if (named)
        return lg_fail(w, &caller->sr, a->pos, LAY_E_ARG,
                       "a positional argument cannot follow named ones");
      if (k >= np)
        return lg_fail(w, &caller->sr, a->pos, LAY_E_ARG,
                       "'%s' takes %d argument%s, got %d", def->qname, np,
                       np == 1 ? "" : "s", nargs);
      i = k;
      ve = a;
    }
    if (set[i])
      return lg_fail(w, &caller->sr, a->pos, LAY_E_ARG,
                     "argument '%s' is given twice", ps[i].name);
    set[i] = 1;
    int su = w->shape_used;
    if (lg_eval(w, caller, ve, &ps[i].v)) return -1;
    ps[i].shaped = w->shape_used != su;
    if (!ps[i].v.arg) { /* errors about the value go to the argument */
      ps[i].v.arg = ve;
      ps[i].v.arg_sr = caller->sr;
      ps[i].v.param = ps[i].name;
    }
  }
  const char *dims[LG_MAX_RANK];
  int rank = L->dims.n < LG_MAX_RANK ? L->dims.n : LG_MAX_RANK;
  for (int j = 0; j < rank; j++) dims[j] = L->dims.v[j]->u.str.s;
  for (int i = 0; i < np; i++) {
    if (set[i]) continue;
    const lg_expr *p = L->params.v[i];
    if (p->kind == LG_X_NAMED) {
      env de = {sr, ps, np, i, i, dims, rank};
      int su = w->shape_used;
      if (lg_eval(w, &de, p->u.named.value, &ps[i].v)) return -1;
      ps[i].shaped = w->shape_used != su;
    } else if (w->partial && !args) {
      ps[i].v.k = V_UNK;
    } else {
      return lg_fail(w, &caller->sr, call_pos, LAY_E_ARG,
                     "missing argument '%s' of '%s'", ps[i].name, def->qname);
    }
  }
  return 0;
}

/* ---- Dimensions ------------------------------------------------------------ */

int lg_set_dims(lw *w, const srcref *sr, lg_ir *ir, const lg_list *dims) {
  if (dims->n > LG_MAX_RANK)
    return lg_fail(w, sr, dims->v[LG_MAX_RANK]->pos, LAY_E_LIMIT,
                   "more than %d dimensions", LG_MAX_RANK);
  if (dims->n == 0)
    return lg_fail(w, sr, 0, LAY_E_SHAPE,
                   "a layout needs at least one dimension");
  ir->rank = dims->n;
  for (int i = 0; i < dims->n; i++) {
    const char *s = dims->v[i]->u.str.s;
    for (int j = 0; j < i; j++)
      if (!strcmp(ir->dim[j].name, s))
        return lg_fail(w, sr, dims->v[i]->pos, LAY_E_NAME,
                       "duplicate dimension '%s'", s);
    ir->dim[i].name = s;
  }
  return 0;
}
