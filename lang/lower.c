/*
** lower.c: name resolution, static checks and lowering of layouts and
** transforms to the IR (see ir.h for the IR's meaning, lower.h for the
** interface, LANGUAGE.md for the language).
**
** The order of work for one instance:
**   1. bind the arguments to the parameters (positional, then named;
**      defaults see the earlier parameters and the dimension names and may
**      become size expressions);
**   2. aliases recurse into their target (guarded against cycles);
**   3. the clauses give the value rule and the byte planes;
**   4. each memory-order item is classified (dimension, digit, padded or
**      sliced dimension, ceil, unit, plane) and becomes an axis; the
**      digits of each dimension must chain;
**   5. with explicit strides, a definition being checked is enumerated at
**      a ladder of shapes, and must map no two elements to one offset
**      (an instance for a concrete shape is left to the planner's check);
**   6. transforms track the tensor as axes of source-dimension digits
**      through the chain; when the chain loses the affine structure the
**      IR is a full gather table instead.
** In partial mode (lg_check_def, the load-time check) missing arguments
** are "unknown" and the checks that need them are skipped. Errors inside
** a template instantiated with arguments (`h8 = h(8)`, or a format
** reference) are reported at the outermost use (see fail()).
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "irutil.h"
#include "lang.h"
#include "lower.h"
#include "inject.h"
#include "padval.h"

#define LW_MAX_PARAMS 64   /* parameters of one layout */
#define LW_MAX_ALIAS 64    /* alias chain depth */
#define LW_MAX_TABLE (1 << 24) /* gather table entries */
#define LW_MAX_CHECK (1 << 18)    /* elements of one bijectivity check shape */
#define LW_CHECK_BUDGET (1 << 20) /* elements of all its shapes together */
#define LW_MAX_PADS 64  /* pad ops of one transform chain */
#define LW_MAX_SEGS 16  /* pad segments tracked on one side of a dimension */

/* Where an expression's text lives, for positioned errors. */
typedef struct srcref {
  const char *file; /* file name used in messages */
  const char *src;  /* its text */
  size_t len;       /* its length */
} srcref;

/* The value of an expression. */
typedef enum vkind {
  V_INT,  /* integer constant i */
  V_NUM,  /* floating constant f */
  V_LIST, /* list of numbers (list, ilist when all are integers) */
  V_IE,   /* size expression over the dimensions */
  V_NAME, /* a name that is neither parameter nor dimension */
  V_UNK   /* unknown (partial mode) */
} vkind;

typedef struct val {
  vkind k;
  int64_t i;
  double f;
  double *list;
  int64_t *ilist;
  int n;
  lg_iexpr *ie;
  const char *name;
  /* V_NAME bound to a parameter by an argument: the argument, where it is
  ** written and the parameter's name, so that an unknown name is reported
  ** there (arg NULL otherwise). */
  const lg_expr *arg;
  srcref arg_sr;
  const char *param;
} val;

typedef struct param {
  const char *name; /* as declared */
  val v;            /* bound value */
} param;

/* What names mean inside an expression. */
typedef struct env {
  srcref sr;                 /* where the expressions are */
  const param *p;            /* the parameters */
  int np;                    /* how many */
  int visible;               /* the first `visible` may be used */
  int self;                  /* the parameter being defaulted, or -1 */
  const char *const *dims;   /* dimension names */
  int rank;                  /* how many */
} env;

/* The lowering context. */
typedef struct lw {
  const lg_module *m;
  lay_error *err;
  lay_status st;              /* the first error */
  lg_arena *a;                /* the IR's arena */
  int partial;                /* missing arguments are unknown */
  int unk_used;               /* an unknown value was used */
  const lg_def *stack[LW_MAX_ALIAS]; /* the alias chain */
  int depth;
  /* The outermost instantiation with arguments (`h8 = h(8)` in a file, or
  ** a format reference such as "ti.tidl(pad_l=1)"): an error inside the
  ** template is reported there, naming the template's own position. */
  int use_set;             /* 1 once a use is recorded */
  srcref use_sr;           /* the text holding the use */
  uint32_t use_pos, use_end; /* its span in that text */
  const char *use_text;    /* the use as written, blanks squeezed out */
  int use_plain;           /* a format reference: no source position */
} lw;

/* ---- Errors -------------------------------------------------------------- */

static int fail(lw *w, const srcref *sr, uint32_t pos, lay_status code,
                const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static int fail(lw *w, const srcref *sr, uint32_t pos, lay_status code,
                const char *fmt, ...) {
  if (w->st) return -1;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  w->st = code;
  if (w->use_set && code != LAY_E_NOMEM) {
    /* Inside a template: at the use, "REF: message (file:line:col)", the
    ** template's position left out when the error is in the use itself. A
    ** format reference has no position: its text is the error's "file",
    ** so that the CLI prints "lay: REF: message". */
    const srcref *u = &w->use_sr;
    char where[300] = "";
    if (sr && sr->src &&
        !(sr->src == u->src && pos >= w->use_pos && pos < w->use_end)) {
      int line, col;
      lg_linecol(sr->src, sr->len, pos, &line, &col);
      snprintf(where, sizeof where, " (%s:%d:%d)", sr->file, line, col);
    }
    if (w->use_plain)
      lg_error_plain(w->err, code, w->use_text, "%s%s", msg, where);
    else if (*where || !sr || !sr->src)
      lg_error_at(w->err, code, u->file, u->src, u->len, w->use_pos,
                  "%s: %s%s", w->use_text, msg, where);
    else
      lg_error_at(w->err, code, sr->file, sr->src, sr->len, pos, "%s", msg);
    return -1;
  }
  if (sr && sr->src)
    lg_error_at(w->err, code, sr->file, sr->src, sr->len, pos, "%s", msg);
  else
    lg_error_plain(w->err, code, sr ? sr->file : "", "%s", msg);
  return -1;
}

/* Record the outermost use of a template (see lw.use_set). */
static void set_use(lw *w, const srcref *sr, uint32_t pos, uint32_t end,
                    const char *text, int plain) {
  if (w->use_set) return;
  w->use_set = 1;
  w->use_sr = *sr;
  w->use_pos = pos;
  w->use_end = end;
  w->use_text = text;
  w->use_plain = plain;
}

static int nomem(lw *w) {
  return fail(w, NULL, 0, LAY_E_NOMEM, "out of memory");
}

static void *walloc(lw *w, size_t n) {
  void *p = lg_arena_alloc(w->a, n);
  if (!p) nomem(w);
  return p;
}

static srcref def_src(const lg_def *d) {
  srcref s = {d->file, d->src, d->src_len};
  return s;
}

/* The source text of e, blanks squeezed out (for messages), at most 60
** characters. */
static const char *etext(lw *w, const srcref *sr, const lg_expr *e) {
  static const char none[] = "?";
  if (!e || !sr->src || e->end <= e->pos || e->end > sr->len) return none;
  size_t n = e->end - e->pos;
  if (n > 60) n = 60;
  char *s = lg_arena_alloc(w->a, n + 1);
  if (!s) return none;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = sr->src[e->pos + i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') s[k++] = c;
  }
  s[k] = '\0';
  return s;
}

/* ---- Expressions --------------------------------------------------------- */

static const char *const op_names[] = {"+", "-", "*", "/", "%", "<<", ">>",
                                       "&", "|", "^", "-", "~"};

static int eval(lw *w, const env *en, const lg_expr *e, val *out);

static int lookup(lw *w, const env *en, const lg_expr *e, val *out) {
  const char *s = e->u.str.s;
  memset(out, 0, sizeof *out);
  for (int i = 0; i < en->np; i++) {
    if (strcmp(en->p[i].name, s)) continue;
    if (i >= en->visible) {
      if (i == en->self)
        return fail(w, &en->sr, e->pos, LAY_E_NAME,
                    "parameter '%s' cannot be used in its own default", s);
      return fail(w, &en->sr, e->pos, LAY_E_NAME,
                  "parameter '%s' is used before it is defined", s);
    }
    *out = en->p[i].v;
    if (out->k == V_UNK) w->unk_used = 1;
    return 0;
  }
  for (int i = 0; i < en->rank; i++) {
    if (strcmp(en->dims[i], s)) continue;
    out->k = V_IE;
    out->ie = lg_ie_dim(w->a, i);
    return out->ie ? 0 : nomem(w);
  }
  out->k = V_NAME;
  out->name = s;
  return 0;
}

/* "unknown name 'b'" for a V_NAME value; at the argument that bound it to
** a parameter, when it came from one. */
static int unknown_name(lw *w, const env *en, const lg_expr *e,
                        const val *v) {
  if (v->arg)
    return fail(w, &v->arg_sr, v->arg->pos, LAY_E_NAME,
                "argument '%s': unknown name '%s'", v->param, v->name);
  return fail(w, &en->sr, e->pos, LAY_E_NAME, "unknown name '%s'", v->name);
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
      return fail(w, &en->sr, e->pos, LAY_E_ARG, "division by zero in '%s'",
                  etext(w, &en->sr, e));
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
    return fail(w, &en->sr, e->pos, LAY_E_OVERFLOW, "'%s' overflows",
                etext(w, &en->sr, e));
  return 0;
}

/* A value as a size expression (V_INT or V_IE); NULL for V_UNK. */
static int as_ie(lw *w, const env *en, const lg_expr *e, const val *v,
                 lg_iexpr **out) {
  *out = NULL;
  switch (v->k) {
  case V_INT:
    *out = lg_ie_const(w->a, v->i);
    return *out ? 0 : nomem(w);
  case V_IE: *out = v->ie; return 0;
  case V_UNK: return 0;
  case V_NAME: return unknown_name(w, en, e, v);
  default:
    return fail(w, &en->sr, e->pos, LAY_E_ARG, "'%s' must be an integer",
                etext(w, &en->sr, e));
  }
}

static int eval_binary(lw *w, const env *en, const lg_expr *e, val *out) {
  val a, b;
  lg_op op = e->u.op.op;
  if (eval(w, en, e->u.op.a, &a) || eval(w, en, e->u.op.b, &b)) return -1;
  memset(out, 0, sizeof *out);
  if (a.k == V_NAME) return unknown_name(w, en, e->u.op.a, &a);
  if (b.k == V_NAME) return unknown_name(w, en, e->u.op.b, &b);
  if (a.k == V_UNK || b.k == V_UNK) {
    out->k = V_UNK;
    return 0;
  }
  if (a.k == V_LIST || b.k == V_LIST)
    return fail(w, &en->sr, e->pos, LAY_E_ARG,
                "a list cannot be used with '%s'", op_names[op]);
  if (a.k == V_INT && b.k == V_INT) {
    out->k = V_INT;
    return int_op(w, en, e, op, a.i, b.i, &out->i);
  }
  if (a.k == V_IE || b.k == V_IE) {
    static const lg_iexpr_kind kinds[] = {LG_IE_ADD, LG_IE_SUB, LG_IE_MUL,
                                          LG_IE_DIV, LG_IE_MOD};
    if (op > LG_OP_MOD)
      return fail(w, &en->sr, e->pos, LAY_E_ARG,
                  "'%s' needs constant operands", op_names[op]);
    lg_iexpr *x, *y;
    if (as_ie(w, en, e->u.op.a, &a, &x) || as_ie(w, en, e->u.op.b, &b, &y))
      return -1;
    int64_t c;
    if ((op == LG_OP_DIV || op == LG_OP_MOD) && lg_ie_is_const(y, &c) &&
        c == 0)
      return fail(w, &en->sr, e->pos, LAY_E_ARG, "division by zero in '%s'",
                  etext(w, &en->sr, e));
    out->k = V_IE;
    out->ie = lg_ie_bin(w->a, kinds[op], x, y);
    return out->ie ? 0 : nomem(w);
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
      return fail(w, &en->sr, e->pos, LAY_E_ARG, "division by zero in '%s'",
                  etext(w, &en->sr, e));
    out->f = x / y;
    break;
  default:
    return fail(w, &en->sr, e->pos, LAY_E_ARG, "'%s' needs integers",
                op_names[op]);
  }
  if (!isfinite(out->f))
    return fail(w, &en->sr, e->pos, LAY_E_OVERFLOW, "'%s' overflows",
                etext(w, &en->sr, e));
  return 0;
}

static int eval(lw *w, const env *en, const lg_expr *e, val *out) {
  memset(out, 0, sizeof *out);
  if (w->st) return -1;
  if (!e) return fail(w, &en->sr, 0, LAY_E_INTERNAL, "missing expression");
  switch (e->kind) {
  case LG_X_INT: out->k = V_INT; out->i = e->u.i; return 0;
  case LG_X_FLOAT: out->k = V_NUM; out->f = e->u.f; return 0;
  case LG_X_NAME: return lookup(w, en, e, out);
  case LG_X_LIST: {
    int n = e->u.list.n, allint = 1;
    out->k = V_LIST;
    out->n = n;
    out->list = walloc(w, sizeof(double) * (size_t)(n ? n : 1));
    out->ilist = walloc(w, sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!out->list || !out->ilist) return -1;
    for (int i = 0; i < n; i++) {
      val v;
      if (eval(w, en, e->u.list.v[i], &v)) return -1;
      if (v.k == V_UNK) {
        memset(out, 0, sizeof *out);
        out->k = V_UNK;
        return 0;
      }
      if (v.k == V_NAME) return unknown_name(w, en, e->u.list.v[i], &v);
      if (v.k == V_INT) {
        out->list[i] = (double)v.i;
        out->ilist[i] = v.i;
      } else if (v.k == V_NUM) {
        out->list[i] = v.f;
        allint = 0;
      } else {
        return fail(w, &en->sr, e->u.list.v[i]->pos, LAY_E_ARG,
                    "a list holds numbers");
      }
    }
    if (!allint) out->ilist = NULL;
    return 0;
  }
  case LG_X_UNARY: {
    val a;
    if (eval(w, en, e->u.op.a, &a)) return -1;
    *out = a;
    if (a.k == V_UNK) return 0;
    if (a.k == V_NAME) return unknown_name(w, en, e->u.op.a, &a);
    if (e->u.op.op == LG_OP_NOT) {
      if (a.k != V_INT)
        return fail(w, &en->sr, e->pos, LAY_E_ARG, "'~' needs an integer");
      out->i = ~a.i;
      return 0;
    }
    if (a.k == V_INT) {
      if (a.i == INT64_MIN)
        return fail(w, &en->sr, e->pos, LAY_E_OVERFLOW, "'%s' overflows",
                    etext(w, &en->sr, e));
      out->i = -a.i;
    } else if (a.k == V_NUM) {
      out->f = -a.f;
    } else if (a.k == V_IE) {
      lg_iexpr *z = lg_ie_const(w->a, 0);
      out->ie = lg_ie_bin(w->a, LG_IE_SUB, z, a.ie);
      if (!out->ie) return nomem(w);
    } else {
      return fail(w, &en->sr, e->pos, LAY_E_ARG, "a list cannot be negated");
    }
    return 0;
  }
  case LG_X_BINARY: return eval_binary(w, en, e, out);
  case LG_X_CALL: {
    const char *fn = e->u.call.fn->u.str.s;
    if (!strcmp(fn, "ceil") && e->u.call.args.n != 2)
      return fail(w, &en->sr, e->pos, LAY_E_ARG,
                  "ceil takes 2 arguments (ceil(x, k)), got %d",
                  e->u.call.args.n);
    if (!strcmp(fn, "ceil")) {
      val a, b;
      if (eval(w, en, e->u.call.args.v[0], &a) ||
          eval(w, en, e->u.call.args.v[1], &b))
        return -1;
      if (a.k == V_UNK || b.k == V_UNK) {
        out->k = V_UNK;
        return 0;
      }
      if (b.k != V_INT || b.i <= 0)
        return fail(w, &en->sr, e->u.call.args.v[1]->pos, LAY_E_ARG,
                    "ceil: the multiple must be a positive integer");
      lg_iexpr *x, *y;
      if (as_ie(w, en, e->u.call.args.v[0], &a, &x) ||
          as_ie(w, en, e->u.call.args.v[1], &b, &y))
        return -1;
      out->k = V_IE;
      out->ie = lg_ie_bin(w->a, LG_IE_CEIL, x, y);
      if (!out->ie) return nomem(w);
      int64_t c;
      if (lg_ie_is_const(out->ie, &c)) {
        out->k = V_INT;
        out->i = c;
      }
      return 0;
    }
    return fail(w, &en->sr, e->pos, LAY_E_NAME, "unknown function '%s'", fn);
  }
  case LG_X_STR:
    return fail(w, &en->sr, e->pos, LAY_E_ARG, "a string is not a value here");
  default:
    return fail(w, &en->sr, e->pos, LAY_E_ARG, "unexpected '%s'",
                etext(w, &en->sr, e));
  }
}

/* Evaluate e to a size expression (NULL when unknown). */
static int eval_ie(lw *w, const env *en, const lg_expr *e, lg_iexpr **out) {
  val v;
  if (eval(w, en, e, &v)) return -1;
  return as_ie(w, en, e, &v, out);
}

/* Evaluate e to an integer constant; *unk set when unknown. */
static int eval_int(lw *w, const env *en, const lg_expr *e, int64_t *out,
                    int *unk) {
  val v;
  *unk = 0;
  if (eval(w, en, e, &v)) return -1;
  if (v.k == V_UNK) {
    *unk = 1;
    return 0;
  }
  if (v.k == V_INT) {
    *out = v.i;
    return 0;
  }
  if (v.k == V_NAME) return unknown_name(w, en, e, &v);
  if (v.k == V_IE)
    return fail(w, &en->sr, e->pos, LAY_E_ARG,
                "'%s' must be a constant (it depends on a dimension's size)",
                etext(w, &en->sr, e));
  return fail(w, &en->sr, e->pos, LAY_E_ARG, "'%s' must be an integer",
              etext(w, &en->sr, e));
}

/* Does e mention a dimension (outside of parameters)? */
static int mentions_dim(const env *en, const lg_expr *e) {
  if (!e) return 0;
  switch (e->kind) {
  case LG_X_NAME:
    for (int i = 0; i < en->rank; i++)
      if (!strcmp(en->dims[i], e->u.str.s)) return 1;
    return 0;
  case LG_X_UNARY: return mentions_dim(en, e->u.op.a);
  case LG_X_BINARY:
    return mentions_dim(en, e->u.op.a) || mentions_dim(en, e->u.op.b);
  case LG_X_SLICE: return mentions_dim(en, e->u.slice.base);
  case LG_X_CALL:
    for (int i = 0; i < e->u.call.args.n; i++)
      if (mentions_dim(en, e->u.call.args.v[i])) return 1;
    return 0;
  default: return 0;
  }
}

static int dim_index(const env *en, const char *s) {
  for (int i = 0; i < en->rank; i++)
    if (!strcmp(en->dims[i], s)) return i;
  return -1;
}

/* A name argument (a type, a rounding mode, a dimension): the name as
** written, or the name a parameter holds. NULL when unknown. */
static int name_arg(lw *w, const env *en, const lg_expr *e, const char **out) {
  *out = NULL;
  if (e->kind != LG_X_NAME)
    return fail(w, &en->sr, e->pos, LAY_E_ARG, "expected a name, not '%s'",
                etext(w, &en->sr, e));
  for (int i = 0; i < en->np && i < en->visible; i++) {
    if (strcmp(en->p[i].name, e->u.str.s)) continue;
    const val *v = &en->p[i].v;
    if (v->k == V_UNK) return 0;
    if (v->k != V_NAME)
      return fail(w, &en->sr, e->pos, LAY_E_ARG,
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
static int bind(lw *w, const lg_def *def, const lg_layout *L,
                const lg_list *args, const env *caller, uint32_t call_pos,
                param *ps, int *nps) {
  srcref sr = def_src(def);
  int np = L->params.n;
  if (np > LW_MAX_PARAMS)
    return fail(w, &sr, L->pos, LAY_E_LIMIT, "more than %d parameters",
                LW_MAX_PARAMS);
  int set[LW_MAX_PARAMS] = {0};
  for (int i = 0; i < np; i++) {
    ps[i].name = param_name(L->params.v[i]);
    memset(&ps[i].v, 0, sizeof ps[i].v);
    for (int j = 0; j < i; j++)
      if (!strcmp(ps[j].name, ps[i].name))
        return fail(w, &sr, L->params.v[i]->pos, LAY_E_NAME,
                    "duplicate parameter '%s'", ps[i].name);
    for (int j = 0; j < L->dims.n; j++)
      if (!strcmp(L->dims.v[j]->u.str.s, ps[i].name))
        return fail(w, &sr, L->params.v[i]->pos, LAY_E_NAME,
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
        return fail(w, &caller->sr, a->pos, LAY_E_ARG,
                    "unknown parameter '%s' of '%s'", a->u.named.name.s,
                    def->qname);
    } else {
      if (named)
        return fail(w, &caller->sr, a->pos, LAY_E_ARG,
                    "a positional argument cannot follow named ones");
      if (k >= np)
        return fail(w, &caller->sr, a->pos, LAY_E_ARG,
                    "'%s' takes %d argument%s, got %d", def->qname, np,
                    np == 1 ? "" : "s", nargs);
      i = k;
      ve = a;
    }
    if (set[i])
      return fail(w, &caller->sr, a->pos, LAY_E_ARG,
                  "argument '%s' is given twice", ps[i].name);
    set[i] = 1;
    if (eval(w, caller, ve, &ps[i].v)) return -1;
    if (ps[i].v.k == V_NAME && !ps[i].v.arg) {
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
      if (eval(w, &de, p->u.named.value, &ps[i].v)) return -1;
    } else if (w->partial && !args) {
      ps[i].v.k = V_UNK;
    } else {
      return fail(w, &caller->sr, call_pos, LAY_E_ARG,
                  "missing argument '%s' of '%s'", ps[i].name, def->qname);
    }
  }
  return 0;
}

/* ---- Dimensions ------------------------------------------------------------ */

static int set_dims(lw *w, const srcref *sr, lg_ir *ir, const lg_list *dims) {
  if (dims->n > LG_MAX_RANK)
    return fail(w, sr, dims->v[LG_MAX_RANK]->pos, LAY_E_LIMIT,
                "more than %d dimensions", LG_MAX_RANK);
  if (dims->n == 0)
    return fail(w, sr, 0, LAY_E_SHAPE, "a layout needs at least one dimension");
  ir->rank = dims->n;
  for (int i = 0; i < dims->n; i++) {
    const char *s = dims->v[i]->u.str.s;
    for (int j = 0; j < i; j++)
      if (!strcmp(ir->dim[j].name, s))
        return fail(w, sr, dims->v[i]->pos, LAY_E_NAME,
                    "duplicate dimension '%s'", s);
    ir->dim[i].name = s;
  }
  return 0;
}

/* ---- Value rules --------------------------------------------------------- */

static int is_float_type(lay_dtype t) {
  return t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16;
}

static void int_range(lay_dtype t, double *lo, double *hi) {
  switch (t) {
  case LAY_DT_INT8: *lo = -128; *hi = 127; break;
  case LAY_DT_UINT8: *lo = 0; *hi = 255; break;
  case LAY_DT_INT16: *lo = -32768; *hi = 32767; break;
  case LAY_DT_UINT16: *lo = 0; *hi = 65535; break;
  case LAY_DT_INT32: *lo = -2147483648.0; *hi = 2147483647.0; break;
  case LAY_DT_UINT32: *lo = 0; *hi = 4294967295.0; break;
  default: *lo = -INFINITY; *hi = INFINITY; break;
  }
}

static int type_arg(lw *w, const env *en, const lg_expr *e, lay_dtype *t) {
  const char *s;
  *t = LAY_DT_NONE;
  if (name_arg(w, en, e, &s)) return -1;
  if (!s) return 0;
  *t = lay_dtype_parse(s);
  if (*t == LAY_DT_NONE)
    return fail(w, &en->sr, e->pos, LAY_E_TYPE, "unknown type '%s'", s);
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

/* A number or a per-channel list. */
typedef struct nums {
  int unk;   /* unknown (partial mode) */
  int n;     /* 0: scalar s; else the list v of n values */
  double s;
  double *v;
} nums;

static int get_nums(lw *w, const env *en, const lg_expr *e, nums *out) {
  val v;
  memset(out, 0, sizeof *out);
  if (eval(w, en, e, &v)) return -1;
  switch (v.k) {
  case V_UNK: out->unk = 1; return 0;
  case V_INT: out->s = (double)v.i; return 0;
  case V_NUM: out->s = v.f; return 0;
  case V_LIST:
    if (v.n == 0)
      return fail(w, &en->sr, e->pos, LAY_E_ARG, "an empty list");
    out->n = v.n;
    out->v = v.list;
    return 0;
  case V_NAME: return unknown_name(w, en, e, &v);
  default:
    return fail(w, &en->sr, e->pos, LAY_E_ARG,
                "'%s' must be a number or a list of numbers",
                etext(w, &en->sr, e));
  }
}

static double nums_at(const nums *x, int i, double dflt, int given) {
  if (!given || x->unk) return dflt;
  return x->n ? x->v[i] : x->s;
}

/* The tensor a value operation sees, for an integer `axis`: its rank and,
** for each of its axes, the CPU-side dimension it is, AX_COMPOSITE when it
** is not one whole dimension (after a reshape), AX_PADDED when that
** dimension is padded or sliced at this point. NULL amap: the CPU side. */
enum { AX_COMPOSITE = -1, AX_PADDED = -2 };

/* axis = NAME (a CPU-side dimension, followed through transposes) or an
** integer (numpy: an axis of the tensor at this point of the chain,
** negative from the end). Sets *out to the dimension; -1 when unknown. */
static int axis_arg(lw *w, const env *en, const lg_expr *e, const int *amap,
                    int arank, int *out) {
  *out = -1;
  if (e->kind == LG_X_NAME && dim_index(en, e->u.str.s) >= 0) {
    *out = dim_index(en, e->u.str.s);
    return 0;
  }
  val v;
  if (eval(w, en, e, &v)) return -1;
  if (v.k == V_UNK) return 0;
  if (v.k == V_NAME) {
    *out = dim_index(en, v.name);
    if (*out < 0)
      return fail(w, &en->sr, e->pos, LAY_E_NAME, "'%s' is not a dimension",
                  v.name);
    return 0;
  }
  if (v.k != V_INT)
    return fail(w, &en->sr, e->pos, LAY_E_ARG,
                "axis is a dimension name or an integer, not '%s'",
                etext(w, &en->sr, e));
  if (v.i < -arank || v.i >= arank)
    return fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                "axis %lld is out of range for a tensor of rank %d",
                (long long)v.i, arank);
  int k = (int)(v.i < 0 ? v.i + arank : v.i);
  int d = amap ? amap[k] : k;
  if (d == AX_COMPOSITE)
    return fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                "axis %lld is not one input dimension at this point of the "
                "chain (a reshape merged or split it)",
                (long long)v.i);
  if (d == AX_PADDED)
    return fail(w, &en->sr, e->pos, LAY_E_SHAPE,
                "axis %lld is padded or sliced at this point of the chain "
                "(quantize before pad or slice)",
                (long long)v.i);
  *out = d;
  return 0;
}

/* Lower quantize/dequantize/fixed/affine/cast(args) into ir->value. fixed
** holds the dimension sizes when the spec fixes them (transforms); amap and
** arank describe the tensor at this point of the chain (see axis_arg). */
static int value_op(lw *w, const env *en, const char *op,
                    const lg_expr *call, lg_ir *ir, const int64_t *fixed,
                    const int *amap, int arank) {
  enum { OP_Q, OP_DQ, OP_FIXED, OP_AFFINE, OP_CAST } kind;
  static const unsigned allowed[] = {
      1u << K_SCALE | 1u << K_ZP | 1u << K_TO | 1u << K_AXIS |
          1u << K_ROUND | 1u << K_SAT | 1u << K_ARITH,
      1u << K_SCALE | 1u << K_ZP | 1u << K_TO | 1u << K_AXIS |
          1u << K_ROUND | 1u << K_SAT | 1u << K_ARITH,
      1u << K_SCALE | 1u << K_RADIX | 1u << K_TO | 1u << K_AXIS |
          1u << K_ROUND | 1u << K_SAT | 1u << K_ARITH,
      1u << K_NUM | 1u << K_DEN | 1u << K_ZP | 1u << K_XOFF | 1u << K_TO |
          1u << K_AXIS | 1u << K_ROUND | 1u << K_SAT | 1u << K_ARITH,
      1u << K_TO | 1u << K_ROUND | 1u << K_SAT};
  /* The named form of each, for "takes named arguments". */
  static const char *const forms[] = {
      "scale = ..., zero_point = ..., to = ...",
      "scale = ..., zero_point = ..., to = ...",
      "scale = ..., radix = ..., to = ...",
      "num = ..., den = ..., zero_point = ..., xoff = ..., to = ...",
      "to = ..."};
  if (!strcmp(op, "quantize")) kind = OP_Q;
  else if (!strcmp(op, "dequantize")) kind = OP_DQ;
  else if (!strcmp(op, "fixed")) kind = OP_FIXED;
  else if (!strcmp(op, "affine")) kind = OP_AFFINE;
  else kind = OP_CAST;
  uint32_t pos = call->pos;
  lg_ir_value *v = &ir->value;
  if (v->kind != LG_V_NONE)
    return fail(w, &en->sr, pos, LAY_E_LAYOUT,
                "only one value conversion (quantize, dequantize, fixed, "
                "affine, cast) is allowed");
  const lg_expr *arg[K_N] = {0};
  const lg_list *args = call->kind == LG_X_CALL ? &call->u.call.args : NULL;
  for (int i = 0; args && i < args->n; i++) {
    const lg_expr *a = args->v[i];
    if (a->kind != LG_X_NAMED)
      return fail(w, &en->sr, a->pos, LAY_E_ARG,
                  "%s takes named arguments (%s)", op, forms[kind]);
    int k = key_of(a->u.named.name.s);
    if (k < 0 || !(allowed[kind] & (1u << k)))
      return fail(w, &en->sr, a->pos, LAY_E_ARG,
                  "unknown argument '%s' of %s", a->u.named.name.s, op);
    if (arg[k])
      return fail(w, &en->sr, a->pos, LAY_E_ARG,
                  "argument '%s' of %s is given twice", key_names[k], op);
    arg[k] = a->u.named.value;
  }
  static const int required[][3] = {{K_SCALE, K_TO, -1},
                                    {K_SCALE, K_TO, -1},
                                    {K_SCALE, K_RADIX, K_TO},
                                    {K_TO, -1, -1},
                                    {K_TO, -1, -1}};
  for (int r = 0; r < 3; r++) {
    int k = required[kind][r];
    if (k >= 0 && !arg[k])
      return fail(w, &en->sr, pos, LAY_E_ARG, "%s needs '%s'", op,
                  key_names[k]);
  }
  lay_dtype to;
  if (type_arg(w, en, arg[K_TO], &to)) return -1;
  v->hw = to;
  v->round = LG_R_HALF_EVEN;
  v->saturate = 1;
  v->axis = -1;
  if (arg[K_ROUND]) {
    const char *s;
    if (name_arg(w, en, arg[K_ROUND], &s)) return -1;
    if (s) {
      if (!strcmp(s, "half_even")) v->round = LG_R_HALF_EVEN;
      else if (!strcmp(s, "half_away")) v->round = LG_R_HALF_AWAY;
      else if (!strcmp(s, "truncate")) v->round = LG_R_TRUNC;
      else
        return fail(w, &en->sr, arg[K_ROUND]->pos, LAY_E_ARG,
                    "unknown rounding '%s' (half_even, half_away, truncate)",
                    s);
    }
  }
  if (arg[K_ARITH]) {
    const char *s;
    if (name_arg(w, en, arg[K_ARITH], &s)) return -1;
    if (s) {
      if (!strcmp(s, "exact")) v->arith = LG_A_EXACT;
      else if (!strcmp(s, "f32")) v->arith = LG_A_F32;
      else if (!strcmp(s, "f32_div")) v->arith = LG_A_F32_DIV;
      else
        return fail(w, &en->sr, arg[K_ARITH]->pos, LAY_E_ARG,
                    "unknown arithmetic '%s' (exact, f32, f32_div)", s);
    }
  }
  if (arg[K_SAT]) {
    int64_t s;
    int unk;
    if (eval_int(w, en, arg[K_SAT], &s, &unk)) return -1;
    if (!unk && s != 0 && s != 1)
      return fail(w, &en->sr, arg[K_SAT]->pos, LAY_E_ARG,
                  "saturate is 1 or 0");
    if (!unk) v->saturate = (int)s;
  }
  if (arg[K_AXIS] && axis_arg(w, en, arg[K_AXIS], amap, arank, &v->axis))
    return -1;
  if (kind == OP_CAST) {
    v->kind = LG_V_CAST;
    return 0;
  }
  /* The numbers, scalars or per-channel lists. */
  nums x[K_N];
  memset(x, 0, sizeof x);
  int n = 1, listkey = -1, unknown = 0;
  for (int k = 0; k < K_N; k++) {
    if (!arg[k] || k == K_TO || k == K_AXIS || k == K_ROUND || k == K_SAT ||
        k == K_ARITH)
      continue;
    if (get_nums(w, en, arg[k], &x[k])) return -1;
    if (x[k].unk) unknown = 1;
    if (!x[k].n) continue;
    if (listkey >= 0 && x[k].n != n)
      return fail(w, &en->sr, arg[k]->pos, LAY_E_ARG,
                  "%s has %d value%s, %s has %d", key_names[k], x[k].n,
                  x[k].n == 1 ? "" : "s", key_names[listkey], n);
    n = x[k].n;
    listkey = k;
  }
  if (listkey >= 0) {
    if (!arg[K_AXIS] && v->axis < 0)
      return fail(w, &en->sr, arg[listkey]->pos, LAY_E_ARG,
                  "per-channel %s needs an axis (axis = DIMENSION or an "
                  "integer)",
                  key_names[listkey]);
    if (v->axis >= 0 && fixed && fixed[v->axis] > 0 && fixed[v->axis] != n)
      return fail(w, &en->sr, arg[listkey]->pos, LAY_E_SHAPE,
                  "%s has %d value%s for axis '%s' of size %lld",
                  key_names[listkey], n, n == 1 ? "" : "s",
                  ir->dim[v->axis].name, (long long)fixed[v->axis]);
  }
  v->kind = LG_V_AFFINE;
  v->dequant = kind == OP_DQ;
  v->n = n;
  v->num = walloc(w, sizeof(double) * (size_t)n);
  v->den = walloc(w, sizeof(double) * (size_t)n);
  v->zp = walloc(w, sizeof(double) * (size_t)n);
  v->xoff = walloc(w, sizeof(double) * (size_t)n);
  if (!v->num || !v->den || !v->zp || !v->xoff) return -1;
  for (int i = 0; i < n; i++) {
    double scale = nums_at(&x[K_SCALE], i, 1, arg[K_SCALE] != NULL);
    if (kind != OP_AFFINE && !unknown && !(scale > 0 && isfinite(scale)))
      return fail(w, &en->sr, arg[K_SCALE]->pos, LAY_E_ARG,
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
        return fail(w, &en->sr, arg[K_RADIX]->pos, LAY_E_ARG,
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
        return fail(w, &en->sr, pos, LAY_E_ARG,
                    "affine: num and den must not be 0");
      break;
    }
  }
  /* The zero point is a value of the integer side: the target type when
  ** quantizing, the CPU type when dequantizing. */
  lay_dtype zt = kind == OP_DQ ? v->cpu : to;
  if (arg[K_ZP] && !unknown && zt != LAY_DT_NONE && !is_float_type(zt)) {
    double lo, hi;
    int_range(zt, &lo, &hi);
    for (int i = 0; i < n; i++) {
      char buf[64];
      snprintf(buf, sizeof buf, "%g", v->zp[i]);
      if (v->zp[i] != floor(v->zp[i]))
        return fail(w, &en->sr, arg[K_ZP]->pos, LAY_E_ARG,
                    "zero_point %s is not an integer", buf);
      if (v->zp[i] < lo || v->zp[i] > hi)
        return fail(w, &en->sr, arg[K_ZP]->pos, LAY_E_ARG,
                    "zero_point %s does not fit %s (%g to %g)", buf,
                    lay_dtype_name(zt), lo, hi);
    }
  }
  if (kind == OP_Q && to != LAY_DT_NONE && is_float_type(to))
    return fail(w, &en->sr, arg[K_TO]->pos, LAY_E_TYPE,
                "quantize needs an integer 'to' type, not %s",
                lay_dtype_name(to));
  if (kind == OP_DQ) {
    if (to != LAY_DT_NONE && !is_float_type(to))
      return fail(w, &en->sr, arg[K_TO]->pos, LAY_E_TYPE,
                  "dequantize needs a float 'to' type, not %s",
                  lay_dtype_name(to));
    if (v->cpu != LAY_DT_NONE && is_float_type(v->cpu))
      return fail(w, &en->sr, pos, LAY_E_TYPE,
                  "dequantize needs an integer CPU type, not %s",
                  lay_dtype_name(v->cpu));
  }
  return 0;
}

/* where NAME = bytes(lo = (u >> 1) & 0x7f, ...). */
static int where_clause(lw *w, const env *en, const lg_clause *c, lg_ir *ir,
                        const char **plane_name) {
  const lg_expr *b = c->value;
  lg_ir_value *v = &ir->value;
  if (v->nplanes)
    return fail(w, &en->sr, c->pos, LAY_E_LAYOUT,
                "only one 'where' clause is allowed");
  if (b->kind != LG_X_CALL || strcmp(b->u.call.fn->u.str.s, "bytes"))
    return fail(w, &en->sr, b->pos, LAY_E_ARG,
                "expected bytes(NAME = (u >> SHIFT) & MASK, ...)");
  const char *nm = c->name.s;
  if (dim_index(en, nm) >= 0)
    return fail(w, &en->sr, c->pos, LAY_E_NAME,
                "'%s' is already a dimension", nm);
  for (int i = 0; i < en->np; i++)
    if (!strcmp(en->p[i].name, nm))
      return fail(w, &en->sr, c->pos, LAY_E_NAME,
                  "'%s' is already a parameter", nm);
  const lg_list *args = &b->u.call.args;
  if (args->n < 1 || args->n > LG_MAX_PLANES)
    return fail(w, &en->sr, b->pos, LAY_E_LIMIT,
                "bytes() takes 1 to %d planes, got %d", LG_MAX_PLANES,
                args->n);
  for (int i = 0; i < args->n; i++) {
    const lg_expr *a = args->v[i];
    if (a->kind != LG_X_NAMED)
      return fail(w, &en->sr, a->pos, LAY_E_ARG,
                  "a byte plane is NAME = (u >> SHIFT) & MASK");
    for (int j = 0; j < i; j++)
      if (!strcmp(v->plane[j].name, a->u.named.name.s))
        return fail(w, &en->sr, a->pos, LAY_E_NAME,
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
      return fail(w, &en->sr, a->u.named.value->pos, LAY_E_ARG,
                  "a byte plane is (u >> SHIFT) & MASK, u & MASK or u >> SHIFT");
    int64_t s = 0, m = 0xff;
    int unk = 0, unk2 = 0;
    if (sh && eval_int(w, en, sh, &s, &unk)) return -1;
    if (mk && eval_int(w, en, mk, &m, &unk2)) return -1;
    if (!unk && (s < 0 || s > 31))
      return fail(w, &en->sr, sh->pos, LAY_E_ARG,
                  "plane shift %lld is out of range (0 to 31)", (long long)s);
    if (!unk2 && (m <= 0 || m > 0xff))
      return fail(w, &en->sr, mk->pos, LAY_E_ARG,
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

/* All clauses of a layout. */
static int clauses(lw *w, const env *en, const lg_layout *L, lg_ir *ir,
                   const char **plane_name, const lg_clause **pad_clause) {
  for (int i = 0; i < L->n_clauses; i++) {
    const lg_clause *c = &L->clauses[i];
    const char *nm = c->name.s;
    if (c->kind == LG_C_WHERE) {
      if (where_clause(w, en, c, ir, plane_name)) return -1;
    } else if (c->kind == LG_C_SET && !strcmp(nm, "pad_value")) {
      nums x;
      if (*pad_clause)
        return fail(w, &en->sr, c->pos, LAY_E_ARG, "pad_value is given twice");
      *pad_clause = c;
      if (get_nums(w, en, c->value, &x)) return -1;
      if (x.n)
        return fail(w, &en->sr, c->value->pos, LAY_E_ARG,
                    "pad_value must be one number");
      ir->value.pad_value = x.unk ? 0 : x.s;
    } else if (c->kind == LG_C_CALL &&
               (!strcmp(nm, "quantize") || !strcmp(nm, "dequantize") ||
                !strcmp(nm, "fixed") || !strcmp(nm, "affine") ||
                !strcmp(nm, "cast"))) {
      if (value_op(w, en, nm, c->value, ir, NULL, NULL, ir->rank)) return -1;
    } else {
      return fail(w, &en->sr, c->pos, LAY_E_NAME, "unknown clause '%s'", nm);
    }
  }
  return 0;
}

/* Final value checks: the pad value must fit the hardware type, which with
** byte planes is the type whose bits the planes split (ir.h): the pad is an
** element value, split into planes like any element. */
static int finish_value(lw *w, const srcref *sr, const lg_clause *pad,
                        lg_ir *ir) {
  lg_ir_value *v = &ir->value;
  lay_dtype t = v->hw != LAY_DT_NONE ? v->hw : v->cpu;
  double p = v->pad_value, r;
  if (pad && lg_value_of(t, p, &r)) {
    char buf[64];
    snprintf(buf, sizeof buf, "%g", p);
    return fail(w, sr, pad->value->pos, LAY_E_ARG,
                "pad_value %s does not fit %s", buf, lay_dtype_name(t));
  }
  return 0;
}

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
  uint32_t pos;      /* the item's position */
  const char *text;  /* its source text */
} item;

static int check_nonneg(lw *w, const env *en, const lg_expr *e,
                        const lg_iexpr *ie, const char *what) {
  int64_t c;
  if (lg_ie_is_const(ie, &c) && c < 0)
    return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                "%s must not be negative, '%s' is %lld", what,
                etext(w, &en->sr, e), (long long)c);
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
  if (mentions_dim(en, e)) {
    if (*seen)
      return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                  "an order item names exactly one dimension");
    *seen = 1;
    *core = e;
    return 0;
  }
  lg_iexpr *x;
  if (eval_ie(w, en, e, &x)) return -1;
  if (!x) {
    *unk = 1;
    return 0;
  }
  if (check_nonneg(w, en, e, x, "a pad")) return -1;
  if (lg_ie_is_const(x, NULL) && x->v == 0) return 0;
  lg_iexpr **acc = *seen ? after : before;
  *acc = *acc ? lg_ie_bin(w->a, LG_IE_ADD, *acc, x) : x;
  return *acc ? 0 : nomem(w);
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
    int d = dim_index(en, s);
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
    for (int i = 0; i < en->np; i++)
      if (!strcmp(en->p[i].name, s))
        return fail(w, &en->sr, e->pos, LAY_E_NAME,
                    "'%s' is not a dimension", s);
    return fail(w, &en->sr, e->pos, LAY_E_NAME, "unknown name '%s'", s);
  }
  case LG_X_BINARY: {
    lg_op op = e->u.op.op;
    if (op == LG_OP_DIV || op == LG_OP_MOD) {
      if (classify(w, en, e->u.op.a, plane, it)) return -1;
      if (it->kind != IT_DIGIT)
        return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                    "'%s': only a dimension can be split",
                    etext(w, &en->sr, e));
      int64_t k;
      int unk;
      if (mentions_dim(en, e->u.op.b))
        return fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                    "an order item names exactly one dimension");
      if (eval_int(w, en, e->u.op.b, &k, &unk)) return -1;
      it->pos = e->pos;
      if (unk || it->unk) {
        it->unk = 1;
        return 0;
      }
      if (k <= 0)
        return fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                    "digit %s: %lld is not a positive integer",
                    etext(w, &en->sr, e), (long long)k);
      if (op == LG_OP_DIV) {
        if (it->mod && it->mod % k)
          return fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                      "digit %s: %lld does not divide %lld",
                      etext(w, &en->sr, e), (long long)k,
                      (long long)it->mod);
        if (__builtin_mul_overflow(it->div, k, &it->div))
          return fail(w, &en->sr, e->pos, LAY_E_OVERFLOW,
                      "digit %s overflows", etext(w, &en->sr, e));
        if (it->mod) it->mod /= k;
      } else {
        if (it->mod && it->mod % k)
          return fail(w, &en->sr, e->u.op.b->pos, LAY_E_LAYOUT,
                      "digit %s: %lld does not divide %lld",
                      etext(w, &en->sr, e), (long long)k,
                      (long long)it->mod);
        it->mod = k;
      }
      return 0;
    }
    if (op == LG_OP_ADD) {
      int seen = 0, unk = 0;
      const lg_expr *core = NULL;
      lg_iexpr *before = NULL, *after = NULL;
      if (pad_terms(w, en, e, &seen, &core, &before, &after, &unk)) return -1;
      if (!seen)
        return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                    "an order item names exactly one dimension");
      if (classify(w, en, core, plane, it)) return -1;
      if (it->kind != IT_DIGIT || it->div != 1 || it->mod != 0 ||
          it->before || it->after || it->ceil)
        return fail(w, &en->sr, core->pos, LAY_E_LAYOUT,
                    "only a whole dimension or a slice can be padded");
      it->pos = e->pos;
      it->unk |= unk;
      it->before = before;
      it->after = after;
      return 0;
    }
    break;
  }
  case LG_X_SLICE: {
    const lg_expr *b = e->u.slice.base;
    if (b->kind != LG_X_NAME || dim_index(en, b->u.str.s) < 0) {
      if (b->kind == LG_X_NAME) return classify(w, en, b, plane, it);
      return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                  "only a dimension can be sliced");
    }
    it->kind = IT_DIGIT;
    it->dim = dim_index(en, b->u.str.s);
    it->div = 1;
    if (e->u.slice.lo && eval_ie(w, en, e->u.slice.lo, &it->lo)) return -1;
    if (e->u.slice.hi && eval_ie(w, en, e->u.slice.hi, &it->hi)) return -1;
    if ((e->u.slice.lo && !it->lo) || (e->u.slice.hi && !it->hi)) it->unk = 1;
    int64_t lo = 0, hi;
    if (it->lo && !lg_ie_is_const(it->lo, &lo)) lo = 0;
    if ((it->lo && lg_ie_is_const(it->lo, &lo) && lo < 0) ||
        (it->hi && lg_ie_is_const(it->hi, &hi) && hi <= lo))
      return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                  "slice %s: needs 0 <= start < stop", etext(w, &en->sr, e));
    if (it->lo && lg_ie_is_const(it->lo, &lo) && lo == 0) it->lo = NULL;
    return 0;
  }
  case LG_X_CALL: {
    const char *fn = e->u.call.fn->u.str.s;
    if (strcmp(fn, "ceil"))
      return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                  "unknown function '%s' in a memory order (ceil(d, k))", fn);
    if (e->u.call.args.n != 2)
      return fail(w, &en->sr, e->pos, LAY_E_ARG,
                  "ceil takes 2 arguments (ceil(d, k)), got %d",
                  e->u.call.args.n);
    if (classify(w, en, e->u.call.args.v[0], plane, it)) return -1;
    if (it->kind != IT_DIGIT || it->div != 1 || it->mod != 0 || it->ceil)
      return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
                  "ceil(d, k) rounds a whole dimension up");
    int64_t k;
    int unk;
    if (eval_int(w, en, e->u.call.args.v[1], &k, &unk)) return -1;
    it->pos = e->pos;
    if (unk) {
      it->unk = 1;
      return 0;
    }
    if (k <= 0)
      return fail(w, &en->sr, e->u.call.args.v[1]->pos, LAY_E_LAYOUT,
                  "ceil: the multiple must be a positive integer");
    it->ceil = k;
    return 0;
  }
  default: break;
  }
  return fail(w, &en->sr, e->pos, LAY_E_LAYOUT,
              "'%s' is not an order item (a dimension, a digit d/k or d%%k, "
              "ceil(d, k), a padded or sliced dimension, 1 or a plane)",
              etext(w, &en->sr, e));
}

/* "c/8", "c%8", "w/4%2". */
static const char *digit_label(lw *w, const char *dim, int64_t div,
                               int64_t mod) {
  char buf[128];
  int n = snprintf(buf, sizeof buf, "%s", dim);
  if (div > 1 && n < (int)sizeof buf)
    n += snprintf(buf + n, sizeof buf - (size_t)n, "/%lld", (long long)div);
  if (mod > 0 && n < (int)sizeof buf)
    snprintf(buf + n, sizeof buf - (size_t)n, "%%%lld", (long long)mod);
  char *s = lg_arena_printf(w->a, "%s", buf);
  if (!s) nomem(w);
  return s;
}

/* Pads of one dimension, as written on its first item (every other item
** must carry the same: none, or the same pad and slice). */
typedef struct dpad {
  int set;          /* the dimension's first item was seen */
  int unk;          /* its pads are unknown (partial mode) */
  lg_iexpr *lo, *hi, *before, *after;
  int64_t ceil;
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
      return fail(w, &en->sr, order_pos, LAY_E_LAYOUT,
                  "dimension '%s' is missing from the memory order",
                  en->dims[d]);
    if (unk[d]) continue;
    /* Duplicates and a whole item beside others, in source order. */
    for (int a = 0; a < k; a++) {
      for (int b = 0; b < a; b++) {
        const item *x = &its[idx[b]], *y = &its[idx[a]];
        if (x->div == y->div && x->mod == y->mod) {
          if (x->div == 1 && x->mod == 0)
            return fail(w, &en->sr, y->pos, LAY_E_LAYOUT,
                        "dimension '%s' appears twice", en->dims[d]);
          return fail(w, &en->sr, y->pos, LAY_E_LAYOUT,
                      "digit '%s' appears twice",
                      digit_label(w, en->dims[d], y->div, y->mod));
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
            (x->div == y->div && (x->mod != 0 && (y->mod == 0 || x->mod <= y->mod))))
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
        return fail(w, &en->sr, later->pos, LAY_E_LAYOUT,
                    "inconsistent splits of '%s': '%s' and '%s'",
                    en->dims[d],
                    digit_label(w, en->dims[d], earlier->div, earlier->mod),
                    digit_label(w, en->dims[d], later->div, later->mod));
      }
    }
    const item *lo = &its[s[0]], *top = &its[s[k - 1]];
    if (lo->div != 1)
      return fail(w, &en->sr, lo->pos, LAY_E_LAYOUT,
                  "digits of '%s' do not cover it: '%s' needs an inner digit "
                  "'%s'",
                  en->dims[d], digit_label(w, en->dims[d], lo->div, lo->mod),
                  digit_label(w, en->dims[d], 1, lo->div));
    if (top->mod != 0)
      return fail(w, &en->sr, top->pos, LAY_E_LAYOUT,
                  "digits of '%s' do not cover it: '%s' needs an outer digit "
                  "'%s'",
                  en->dims[d],
                  digit_label(w, en->dims[d], top->div, top->mod),
                  digit_label(w, en->dims[d], top->div * top->mod, 0));
    chunk[d] = top->div;
  }
  return 0;
}

/* ---- Bijectivity over a ladder of shapes ------------------------------------ */

/* With explicit strides a layout may map two elements to one offset, and
** whether it does depends on the shape: `[a @ 4, b]` is fine while b <= 4.
** The check enumerates the offsets of every element at a series of
** shapes: a base shape (two chunks per dimension), then each dimension in
** turn, and all of them together, on a ladder of sizes (multiples of the
** chunk and one more, 1c..4c, then doubling) that reaches past the largest
** constant stride, within an element budget. The first collision found
** names the shape and the two coordinates. */

static void fmt_list(char *buf, size_t cap, const int64_t *v, int n);

/* The geometry of a layout at one shape. */
typedef struct bgeo {
  int64_t lo[LG_MAX_RANK], hi[LG_MAX_RANK], before[LG_MAX_RANK];
  int64_t str[LG_MAX_AXES], ext[LG_MAX_AXES];
  int64_t total; /* valid elements */
} bgeo;

/* A collision: two row-major indices of the hardware grid (every axis,
** pads included, as the planner checks it) and the offset they share. */
typedef struct bhit {
  int64_t a, b, off;
} bhit;

/* The geometry at `size`; 0 when the shape is valid and small enough,
** 1 to skip it (an expression does not evaluate, a slice does not fit, or
** the offsets could overflow). */
static int bij_geometry(const lg_ir *ir, const int64_t *chunk,
                        const int64_t *size, bgeo *g) {
  int64_t P[LG_MAX_RANK];
  g->total = 1;
  for (int d = 0; d < ir->rank; d++) {
    const lg_ir_dim *m = &ir->dim[d];
    int64_t after = 0;
    g->lo[d] = 0;
    g->hi[d] = size[d];
    g->before[d] = 0;
    if ((m->lo && lg_iexpr_eval(m->lo, size, &g->lo[d])) ||
        (m->hi && lg_iexpr_eval(m->hi, size, &g->hi[d])) ||
        (m->before && lg_iexpr_eval(m->before, size, &g->before[d])) ||
        (m->after && lg_iexpr_eval(m->after, size, &after)))
      return 1;
    if (g->lo[d] < 0 || g->hi[d] <= g->lo[d] || g->hi[d] > size[d] ||
        g->before[d] < 0 || after < 0 || g->before[d] > (INT64_C(1) << 30) ||
        after > (INT64_C(1) << 30))
      return 1;
    P[d] = g->before[d] + (g->hi[d] - g->lo[d]) + after;
    if (P[d] % chunk[d]) P[d] += chunk[d] - P[d] % chunk[d];
    g->total *= g->hi[d] - g->lo[d];
    if (g->total > LW_MAX_CHECK) return 1;
  }
  int64_t inner = 1;
  for (int i = ir->naxes - 1; i >= 0; i--) {
    const lg_ir_axis *a = &ir->axis[i];
    int64_t ext, s = inner, al;
    switch (a->kind) {
    case LG_AX_DIGIT:
      ext = a->mod ? a->mod : (P[a->dim] + a->div - 1) / a->div;
      break;
    case LG_AX_UNIT: ext = 1; break;
    default: ext = ir->value.nplanes; break;
    }
    if (a->stride && lg_iexpr_eval(a->stride, size, &s)) return 1;
    if (a->align && (lg_iexpr_eval(a->align, size, &al) || al <= 0)) return 1;
    if (a->align && s % al) s += al - s % al;
    if (s < 0 || s > (INT64_C(1) << 40) || ext > (INT64_C(1) << 20))
      return 1;
    g->str[i] = s;
    g->ext[i] = ext;
    if (__builtin_mul_overflow(ext, s, &inner) || inner > (INT64_C(1) << 56))
      return 1;
  }
  return 0;
}

/* The CPU-side coordinate of grid point k (outside the window on pads). */
static void bij_coord(const lg_ir *ir, const bgeo *g, int64_t k,
                      int64_t *x) {
  for (int d = 0; d < ir->rank; d++) x[d] = g->lo[d] - g->before[d];
  for (int i = ir->naxes - 1; i >= 0; i--) {
    int64_t v = k % g->ext[i];
    k /= g->ext[i];
    if (ir->axis[i].kind == LG_AX_DIGIT) x[ir->axis[i].dim] += v * ir->axis[i].div;
  }
}

/* The exact test of the grid at geometry g (lang/inject.c, the planner's
** own): 1 and *hit at a collision, else 0 (also when it cannot decide:
** the shape is left to the planner). */
static int bij_scan(const lg_ir *ir, const bgeo *g, bhit *hit) {
  int64_t ka, kb;
  if (lg_injective(g->ext, g->str, ir->naxes, LW_MAX_CHECK, &ka, &kb) != 0)
    return 0;
  hit->a = ka;
  hit->b = kb;
  hit->off = 0;
  for (int i = ir->naxes - 1; i >= 0; i--) {
    hit->off += (ka % g->ext[i]) * g->str[i];
    ka /= g->ext[i];
  }
  return 1;
}

/* The ladder of sizes for a dimension with chunk c, up to `limit`:
** c, c+1, 2c, 2c+1, 3c, 3c+1, 4c, 4c+1, then 8c, 8c+1, 16c, ... Returns
** how many (at most cap). */
static int bij_ladder(int64_t c, int64_t limit, int64_t *v, int cap) {
  int n = 0;
  for (int64_t k = 1; n + 2 <= cap; k = k < 4 ? k + 1 : 2 * k) {
    int64_t s;
    if (__builtin_mul_overflow(c, k, &s) || s > limit) break;
    for (int64_t t = s; t <= s + 1; t++)
      if (!n || t > v[n - 1]) v[n++] = t;
  }
  return n;
}

/* Report a collision: the shape, both coordinates, the offset; the caret
** goes to the largest explicit stride among the axes on which the two
** elements differ (the stride that is too small for what lies inside it). */
static int bij_report(lw *w, const srcref *sr, const lg_layout *L,
                      const lg_ir *ir, const int64_t *size, const bgeo *g,
                      const bhit *hit) {
  int64_t x[LG_MAX_RANK], y[LG_MAX_RANK];
  bij_coord(ir, g, hit->a, x);
  bij_coord(ir, g, hit->b, y);
  int best = -1, first = -1;
  for (int i = 0; i < ir->naxes; i++) {
    const lg_ir_axis *a = &ir->axis[i];
    if (!a->stride || i >= L->n_items || !L->items[i].stride) continue;
    if (first < 0) first = i;
    int differ = a->kind != LG_AX_DIGIT;
    if (a->kind == LG_AX_DIGIT) {
      int64_t p = (x[a->dim] - g->lo[a->dim] + g->before[a->dim]) / a->div;
      int64_t q = (y[a->dim] - g->lo[a->dim] + g->before[a->dim]) / a->div;
      if (a->mod) {
        p %= a->mod;
        q %= a->mod;
      }
      differ = p != q;
    }
    if (differ && (best < 0 || g->str[i] > g->str[best])) best = i;
  }
  if (best < 0) best = first;
  uint32_t pos = best >= 0 ? L->items[best].stride->pos : L->order_pos;
  char sh[256], a[256], b[256];
  fmt_list(sh, sizeof sh, size, ir->rank);
  int la = 0, lb = 0;
  for (int d = 0; d < ir->rank; d++) {
    la += snprintf(a + la, sizeof a - (size_t)la, "%s%lld", d ? "," : "(",
                   (long long)x[d]);
    lb += snprintf(b + lb, sizeof b - (size_t)lb, "%s%lld", d ? "," : "(",
                   (long long)y[d]);
  }
  return fail(w, sr, pos, LAY_E_LAYOUT,
              "layout is not a bijection for shape %s: %s) and %s) both map "
              "to offset %lld",
              sh, a, b, (long long)hit->off);
}

/* Run the check over the ladder of shapes. */
static int check_bijection(lw *w, const srcref *sr, const lg_layout *L,
                           const lg_ir *ir, const int64_t *chunk) {
  enum { LADDER = 48 };
  int rank = ir->rank;
  /* The largest constant stride: the ladder reaches past it. */
  int64_t kmax = 0;
  for (int i = 0; i < ir->naxes; i++) {
    int64_t c;
    if (ir->axis[i].stride && lg_ie_is_const(ir->axis[i].stride, &c) &&
        c > kmax)
      kmax = c;
  }
  int64_t ladder[LG_MAX_RANK][LADDER], base[LG_MAX_RANK];
  int nl[LG_MAX_RANK], steps = 0;
  int64_t basecount = 1;
  for (int d = 0; d < rank; d++) {
    int64_t k = kmax > 6 ? (kmax < INT64_MAX - 2 ? kmax + 2 : INT64_MAX) : 8,
            limit;
    if (__builtin_mul_overflow(chunk[d], k, &limit)) limit = INT64_MAX;
    nl[d] = bij_ladder(chunk[d], limit, ladder[d], LADDER);
    if (nl[d] > steps) steps = nl[d];
    base[d] = 2 * chunk[d];
    if (basecount < LW_MAX_CHECK) basecount *= base[d];
  }
  /* A base shape too large to enumerate keeps one chunk per dimension. */
  if (basecount > LW_MAX_CHECK / 16)
    for (int d = 0; d < rank; d++) base[d] = chunk[d];
  int64_t spent = 0;
  int nplanes = ir->value.nplanes ? ir->value.nplanes : 1, rc = 0;
  /* Shape 0 is the base; then, for each step of the ladder, each
  ** dimension alone and then all of them together. */
  for (int s = -1; s < steps && !rc && spent < LW_CHECK_BUDGET; s++) {
    for (int d = 0; d <= rank && !rc; d++) {
      int64_t size[LG_MAX_RANK];
      memcpy(size, base, sizeof(int64_t) * (size_t)rank);
      if (s >= 0 && d < rank) {
        if (s >= nl[d]) continue;
        size[d] = ladder[d][s];
      } else if (s >= 0) {
        if (rank == 1) continue;
        for (int e = 0; e < rank; e++)
          size[e] = ladder[e][s < nl[e] ? s : nl[e] - 1];
      } else if (d > 0) {
        continue;
      }
      bgeo g;
      if (bij_geometry(ir, chunk, size, &g)) continue;
      int64_t n = g.total * nplanes;
      if (spent + n > LW_CHECK_BUDGET) continue;
      spent += n;
      bhit hit;
      if (bij_scan(ir, &g, &hit))
        rc = bij_report(w, sr, L, ir, size, &g, &hit);
    }
  }
  return rc;
}

/* ---- Layouts in the order form -------------------------------------------- */

static int add_axis(lw *w, const srcref *sr, lg_ir *ir, uint32_t pos,
                    lg_ir_axis **out) {
  if (ir->naxes >= LG_MAX_AXES)
    return fail(w, sr, pos, LAY_E_LIMIT, "more than %d axes", LG_MAX_AXES);
  *out = &ir->axis[ir->naxes++];
  memset(*out, 0, sizeof **out);
  (*out)->dim = -1;
  (*out)->pos = pos;
  return 0;
}

static int lower_order(lw *w, const env *en, const lg_layout *L, lg_ir *ir,
                       const char *plane) {
  item *its = walloc(w, sizeof(item) * (size_t)(L->n_items ? L->n_items : 1));
  if (!its) return -1;
  if (L->n_items > LG_MAX_AXES)
    return fail(w, &en->sr, L->items[LG_MAX_AXES].e->pos, LAY_E_LIMIT,
                "more than %d axes", LG_MAX_AXES);
  int unk[LG_MAX_RANK] = {0}, nplane = 0, explicit_stride = 0;
  dpad pad[LG_MAX_RANK];
  memset(pad, 0, sizeof pad);
  for (int i = 0; i < L->n_items; i++) {
    const lg_item *li = &L->items[i];
    item *it = &its[i];
    memset(it, 0, sizeof *it);
    if (classify(w, en, li->e, plane, it)) return -1;
    it->pos = li->e->pos;
    it->text = etext(w, &en->sr, li->e);
    lg_ir_axis *ax = NULL;
    if (add_axis(w, &en->sr, ir, li->e->pos, &ax)) return -1;
    if (it->kind == IT_PLANE) {
      if (nplane++)
        return fail(w, &en->sr, li->e->pos, LAY_E_LAYOUT,
                    "plane '%s' appears twice", plane);
      ax->kind = LG_AX_PLANE;
      ax->label = plane;
    } else if (it->kind == IT_UNIT) {
      ax->kind = LG_AX_UNIT;
      ax->label = "1";
    } else {
      int d = it->dim;
      if (it->unk) unk[d] = 1;
      ax->kind = LG_AX_DIGIT;
      ax->dim = d;
      ax->div = it->div;
      ax->mod = it->mod;
      ax->label = digit_label(w, en->dims[d], it->div, it->mod);
      dpad *p = &pad[d];
      if (!p->set) {
        p->set = 1;
        p->unk = it->unk;
        p->lo = it->lo;
        p->hi = it->hi;
        p->before = it->before;
        p->after = it->after;
        p->ceil = it->ceil;
      } else if (!it->unk && !p->unk &&
                 (!lg_ie_equal(p->lo, it->lo) || !lg_ie_equal(p->hi, it->hi) ||
                  !lg_ie_equal(p->before, it->before) ||
                  !lg_ie_equal(p->after, it->after) || p->ceil != it->ceil)) {
        return fail(w, &en->sr, li->e->pos, LAY_E_LAYOUT,
                    "inconsistent padding of '%s' (all items of a "
                    "dimension carry the same pad and slice)",
                    en->dims[d]);
      }
    }
    if (li->stride) {
      explicit_stride = 1;
      if (eval_ie(w, en, li->stride, &ax->stride)) return -1;
      if (check_nonneg(w, en, li->stride, ax->stride, "a stride")) return -1;
    }
    if (li->align) {
      int64_t c;
      if (eval_ie(w, en, li->align, &ax->align)) return -1;
      if (lg_ie_is_const(ax->align, &c) && c <= 0)
        return fail(w, &en->sr, li->align->pos, LAY_E_LAYOUT,
                    "align must be positive, '%s' is %lld",
                    etext(w, &en->sr, li->align), (long long)c);
    }
  }
  if (plane && !nplane)
    return fail(w, &en->sr, L->order_pos, LAY_E_LAYOUT,
                "plane '%s' is missing from the memory order", plane);
  int64_t chunk[LG_MAX_RANK];
  if (check_chains(w, en, its, L->n_items, unk, L->order_pos, chunk))
    return -1;
  /* The pads of each dimension; ceil(d, k) pads after the window. */
  for (int d = 0; d < en->rank; d++) {
    dpad *p = &pad[d];
    lg_ir_dim *m = &ir->dim[d];
    m->lo = p->lo;
    m->hi = p->hi;
    m->before = p->before;
    m->after = p->after;
    if (p->ceil > 1) {
      lg_iexpr *ext = p->hi ? p->hi : lg_ie_dim(w->a, d);
      if (p->lo) ext = lg_ie_bin(w->a, LG_IE_SUB, ext, p->lo);
      if (p->before) ext = lg_ie_bin(w->a, LG_IE_ADD, p->before, ext);
      if (p->after) ext = lg_ie_bin(w->a, LG_IE_ADD, ext, p->after);
      lg_iexpr *up = lg_ie_bin(w->a, LG_IE_CEIL, ext,
                               lg_ie_const(w->a, p->ceil));
      lg_iexpr *extra = lg_ie_bin(w->a, LG_IE_SUB, up, ext);
      m->after = p->after ? lg_ie_bin(w->a, LG_IE_ADD, p->after, extra)
                          : extra;
      if (!m->after) return nomem(w);
    }
  }
  if (explicit_stride && !w->unk_used) {
    for (int d = 0; d < en->rank; d++)
      if (unk[d]) return 0;
    return 1; /* the caller runs the bijectivity check */
  }
  return 0;
}

/* ---- chunked<R, d,s, ...> -------------------------------------------------- */

static int lower_chunked(lw *w, const srcref *sr, const lg_expr *c,
                         lg_ir *ir) {
  const int64_t *v = c->u.chunked.v;
  const uint32_t *vp = c->u.chunked.vpos;
  int n = c->u.chunked.n;
  if (n < 1) return fail(w, sr, c->pos, LAY_E_LAYOUT, "missing rank");
  int64_t R = v[0];
  if (R < 1 || R > LG_MAX_RANK)
    return fail(w, sr, vp[0], LAY_E_LIMIT, "rank %lld is out of range (1 to %d)",
                (long long)R, LG_MAX_RANK);
  if (ir->rank && ir->rank != R)
    return fail(w, sr, vp[0], LAY_E_SHAPE,
                "rank %lld does not match the %d dimensions", (long long)R,
                ir->rank);
  if (!ir->rank) {
    ir->rank = (int)R;
    for (int d = 0; d < R; d++) {
      ir->dim[d].name = lg_arena_printf(w->a, "d%d", d);
      if (!ir->dim[d].name) return nomem(w);
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
      return fail(w, sr, c->pos, LAY_E_LAYOUT,
                  "chunked<> needs the rank, then pairs of dimension and size");
    if ((n - 1) / 2 > LG_MAX_AXES)
      return fail(w, sr, c->pos, LAY_E_LIMIT, "more than %d axes",
                  LG_MAX_AXES);
    for (int i = 1; i < n; i += 2) {
      if (v[i] < 0 || v[i] >= R)
        return fail(w, sr, vp[i], LAY_E_LAYOUT,
                    "dimension index %lld out of range for rank %lld",
                    (long long)v[i], (long long)R);
      if (v[i + 1] < 0)
        return fail(w, sr, vp[i + 1], LAY_E_LAYOUT,
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
          return fail(w, sr, c->u.chunked.flat ? c->pos : vp[1 + 2 * j],
                      LAY_E_LAYOUT, "dimension %d has two '%d,0' pairs", d,
                      d);
        rest = j;
        continue;
      }
      div[j] = prod;
      if (__builtin_mul_overflow(prod, pairs[2 * j + 1], &prod))
        return fail(w, sr, vp[2 + 2 * j], LAY_E_OVERFLOW,
                    "the chunk of dimension %d overflows", d);
    }
    if (rest < 0)
      return fail(w, sr, c->pos, LAY_E_LAYOUT,
                  "dimension %d has no '%d,0' pair (all the rest of it)", d,
                  d);
    div[rest] = prod;
  }
  for (int j = 0; j < np; j++) {
    lg_ir_axis *ax = NULL;
    uint32_t pos = c->u.chunked.flat ? c->pos : vp[1 + 2 * j];
    if (add_axis(w, sr, ir, pos, &ax)) return -1;
    ax->kind = LG_AX_DIGIT;
    ax->dim = (int)pairs[2 * j];
    ax->div = div[j];
    ax->mod = pairs[2 * j + 1];
    ax->label = digit_label(w, ir->dim[ax->dim].name, ax->div, ax->mod);
    if (!ax->label) return -1;
  }
  return 0;
}

/* ---- Transforms ------------------------------------------------------------ */

/* A digit of a source dimension inside the tracked tensor. */
typedef struct tdig {
  int dim;
  int64_t div, ext;
} tdig;

/* One axis of the tracked tensor. */
typedef struct tax {
  int64_t ext;
  int nd;
  tdig d[LG_MAX_AXES];
} tax;

/* The tracked tensor. */
typedef struct tstate {
  int n;                   /* axes */
  tax ax[LG_MAX_AXES];
  int affine;              /* still expressible as axes */
  int64_t lo[LG_MAX_RANK], hi[LG_MAX_RANK], before[LG_MAX_RANK],
      after[LG_MAX_RANK], pext[LG_MAX_RANK];
  /* Which pad op made the padding of each dimension: segments before and
  ** after the window, innermost first (a later pad adds an outer one, a
  ** slice cuts the outer ones). */
  int nseg[LG_MAX_RANK][2];
  struct tseg {
    int id;
    int64_t len;
  } seg[LG_MAX_RANK][2][LW_MAX_SEGS];
} tstate;

/* The pad ops of a chain: each pad's value, as written (a value of the
** tensor's type at that point), and how many value ops precede it. */
typedef struct tpads {
  int n;     /* pads seen so far in this pass */
  int nval;  /* value ops seen so far in this pass */
  double v[LW_MAX_PADS];
  int stage[LW_MAX_PADS];
  uint32_t pos[LW_MAX_PADS];
  int live[LW_MAX_PADS]; /* some element of this pad is stored */
} tpads;

/* Add a pad segment of len to side k (0 before, 1 after) of dimension d. */
static void seg_add(tstate *t, int d, int k, int id, int64_t len) {
  if (!len) return;
  if (t->nseg[d][k] >= LW_MAX_SEGS) {
    t->affine = 0; /* the gather table tracks any number */
    return;
  }
  t->seg[d][k][t->nseg[d][k]++] = (struct tseg){id, len};
}

/* Cut len of padding from the outside of side k of dimension d. */
static void seg_cut(tstate *t, int d, int k, int64_t len) {
  while (len > 0 && t->nseg[d][k] > 0) {
    struct tseg *g = &t->seg[d][k][t->nseg[d][k] - 1];
    int64_t c = len < g->len ? len : g->len;
    g->len -= c;
    len -= c;
    if (!g->len) t->nseg[d][k]--;
  }
}

/* Is axis a exactly one whole source dimension? Its index, else -1. */
static int whole_dim(const tstate *t, int a) {
  const tax *x = &t->ax[a];
  if (x->nd != 1 || x->d[0].div != 1 || x->d[0].ext != t->pext[x->d[0].dim])
    return -1;
  return x->d[0].dim;
}

/* Merge neighbouring digits of one dimension that chain (outer, inner). */
static void normalize(tax *x) {
  for (int i = 0; i + 1 < x->nd;) {
    tdig *o = &x->d[i], *in = &x->d[i + 1];
    if (o->dim == in->dim && o->div == in->div * in->ext) {
      o->div = in->div;
      o->ext *= in->ext;
      memmove(&x->d[i + 1], &x->d[i + 2],
              sizeof(tdig) * (size_t)(x->nd - i - 2));
      x->nd--;
    } else {
      i++;
    }
  }
}

static void fmt_list(char *buf, size_t cap, const int64_t *v, int n) {
  size_t k = 0;
  k += (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)v[i]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* The integer list argument of a transform op. */
static int int_list(lw *w, const env *en, const lg_expr *e, const char *op,
                    const char *what, int64_t **out, int *n) {
  val v;
  *out = NULL;
  *n = 0;
  if (eval(w, en, e, &v)) return -1;
  if (v.k != V_LIST || !v.ilist)
    return fail(w, &en->sr, e->pos, LAY_E_ARG,
                "%s: %s must be a list of integers", op, what);
  *out = v.ilist;
  *n = v.n;
  return 0;
}

/* The ops' arguments: positional or by name (with the AMD aliases). */
typedef struct targs {
  const lg_expr *v[4];
} targs;

static int get_targs(lw *w, const env *en, const lg_expr *op, const char *nm,
                     const char *const *keys, int nkeys, targs *t) {
  memset(t, 0, sizeof *t);
  if (op->kind != LG_X_CALL) return 0;
  const lg_list *args = &op->u.call.args;
  for (int i = 0; i < args->n; i++) {
    const lg_expr *a = args->v[i];
    int k = -1;
    if (a->kind == LG_X_NAMED) {
      const char *s = a->u.named.name.s;
      for (int j = 0; j < nkeys && k < 0; j++) {
        const char *kj = keys[j];
        /* "start|pad_at_start": names separated by '|'. */
        for (const char *p = kj; *p && k < 0;) {
          size_t l = strcspn(p, "|");
          if (strlen(s) == l && !strncmp(p, s, l)) k = j;
          p += l;
          if (*p) p++;
        }
      }
      if (k < 0)
        return fail(w, &en->sr, a->pos, LAY_E_ARG,
                    "unknown argument '%s' of %s", s, nm);
      a = a->u.named.value;
    } else {
      k = i;
      if (k >= nkeys)
        return fail(w, &en->sr, a->pos, LAY_E_ARG,
                    "%s takes at most %d argument%s", nm, nkeys,
                    nkeys == 1 ? "" : "s");
    }
    if (t->v[k])
      return fail(w, &en->sr, a->pos, LAY_E_ARG,
                  "argument %d of %s is given twice", k + 1, nm);
    t->v[k] = a;
  }
  return 0;
}

/* Apply one index op to an index array (the gather-table replay). */
typedef struct tarr {
  int n;
  int64_t shape[LG_MAX_AXES];
  int64_t *v;
} tarr;

static int64_t shape_count(const int64_t *s, int n) {
  int64_t c = 1;
  for (int i = 0; i < n; i++) c *= s[i];
  return c;
}

/* Row-major strides of a shape. */
static void strides_of(const int64_t *s, int n, int64_t *st) {
  int64_t c = 1;
  for (int i = n - 1; i >= 0; i--) {
    st[i] = c;
    c *= s[i];
  }
}

/* dst[shape out] <- src through a per-output-axis map: out coord o maps to
** source coordinate (o[k] - off[k]) on source axis perm[k]; fill outside
** (a pad's mark, -1 - its id). */
static int remap(lw *w, tarr *t, int n, const int64_t *oshape,
                 const int *perm, const int64_t *off, int64_t fill) {
  int64_t total = shape_count(oshape, n);
  int64_t *out = malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
  if (!out) return nomem(w);
  int64_t sst[LG_MAX_AXES], o[LG_MAX_AXES] = {0};
  strides_of(t->shape, t->n, sst);
  for (int64_t i = 0; i < total; i++) {
    int64_t src = 0, ok = 1;
    for (int k = 0; k < n; k++) {
      int64_t c = o[k] - off[k];
      if (c < 0 || c >= t->shape[perm[k]]) ok = 0;
      else src += c * sst[perm[k]];
    }
    out[i] = ok ? t->v[src] : fill;
    for (int k = n - 1; k >= 0; k--) {
      if (++o[k] < oshape[k]) break;
      o[k] = 0;
    }
  }
  free(t->v);
  t->v = out;
  t->n = n;
  memcpy(t->shape, oshape, sizeof(int64_t) * (size_t)n);
  return 0;
}

/* The index part of one op, both on the tracked digits and (when tbl) on
** the index array. */
static int index_op(lw *w, const env *en, const lg_expr *op, const char *nm,
                    tstate *t, int64_t *shape, int *rank, tarr *tbl,
                    const lg_ir *ir, tpads *pp) {
  uint32_t pos = op->pos;
  int r = *rank;
  char b1[256], b2[256];
  if (!strcmp(nm, "pad")) {
    static const char *const keys[] = {"start|pad_at_start", "end|pad_at_end",
                                       "value", "output_shape"};
    targs a;
    if (get_targs(w, en, op, nm, keys, 4, &a)) return -1;
    int64_t s0[LG_MAX_AXES] = {0}, s1[LG_MAX_AXES] = {0}, *v = NULL;
    int n = 0;
    for (int k = 0; k < 2; k++) {
      if (!a.v[k]) continue;
      if (int_list(w, en, a.v[k], nm, k ? "end" : "start", &v, &n)) return -1;
      if (n != r)
        return fail(w, &en->sr, a.v[k]->pos, LAY_E_SHAPE,
                    "pad: %d value%s for rank %d", n, n == 1 ? "" : "s", r);
      for (int i = 0; i < n; i++) {
        if (v[i] < 0)
          return fail(w, &en->sr, a.v[k]->pos, LAY_E_SHAPE,
                      "pad: negative amount %lld", (long long)v[i]);
        (k ? s1 : s0)[i] = v[i];
      }
    }
    if (pp->n >= LW_MAX_PADS)
      return fail(w, &en->sr, pos, LAY_E_LIMIT,
                  "more than %d pads in one transform", LW_MAX_PADS);
    int id = pp->n++;
    /* The pad is an element of the tensor here: its value (0 unless
    ** given) is one of the tensor's type at this point of the chain. */
    pp->v[id] = 0;
    pp->stage[id] = pp->nval;
    pp->pos[id] = pos;
    if (a.v[2]) {
      nums x;
      if (get_nums(w, en, a.v[2], &x)) return -1;
      if (x.n)
        return fail(w, &en->sr, a.v[2]->pos, LAY_E_ARG,
                    "pad: value must be one number");
      lay_dtype ty = pp->nval && ir->value.hw != LAY_DT_NONE ? ir->value.hw
                                                             : ir->value.cpu;
      if (lg_value_of(ty, x.s, &pp->v[id])) {
        char buf[64];
        snprintf(buf, sizeof buf, "%g", x.s);
        return fail(w, &en->sr, a.v[2]->pos, LAY_E_ARG,
                    "pad: value %s does not fit %s", buf, lay_dtype_name(ty));
      }
      pp->pos[id] = a.v[2]->pos;
    }
    int64_t ns[LG_MAX_AXES];
    for (int i = 0; i < r; i++)
      if (__builtin_add_overflow(shape[i], s0[i] + s1[i], &ns[i]) ||
          ns[i] > (INT64_C(1) << 40))
        return fail(w, &en->sr, pos, LAY_E_OVERFLOW, "pad: size overflows");
    if (a.v[3]) {
      if (int_list(w, en, a.v[3], nm, "output_shape", &v, &n)) return -1;
      if (n != r || memcmp(v, ns, sizeof(int64_t) * (size_t)r)) {
        fmt_list(b1, sizeof b1, v, n);
        fmt_list(b2, sizeof b2, ns, r);
        return fail(w, &en->sr, a.v[3]->pos, LAY_E_SHAPE,
                    "pad: output_shape %s does not match %s", b1, b2);
      }
    }
    for (int i = 0; i < r && t->affine; i++) {
      if (!s0[i] && !s1[i]) continue;
      int d = whole_dim(t, i);
      if (d < 0) {
        t->affine = 0;
        break;
      }
      t->before[d] += s0[i];
      t->after[d] += s1[i];
      seg_add(t, d, 0, id, s0[i]);
      seg_add(t, d, 1, id, s1[i]);
      t->pext[d] += s0[i] + s1[i];
      t->ax[i].d[0].ext = t->pext[d];
      t->ax[i].ext = t->pext[d];
    }
    if (tbl) {
      int perm[LG_MAX_AXES];
      for (int i = 0; i < r; i++) perm[i] = i;
      if (remap(w, tbl, r, ns, perm, s0, -1 - (int64_t)id)) return -1;
    }
    memcpy(shape, ns, sizeof(int64_t) * (size_t)r);
    return 0;
  }
  if (!strcmp(nm, "slice")) {
    static const char *const keys[] = {"start|begin", "size", "stop|end"};
    targs a;
    if (get_targs(w, en, op, nm, keys, 3, &a)) return -1;
    int64_t st[LG_MAX_AXES] = {0}, sz[LG_MAX_AXES], *v = NULL;
    int n = 0;
    memcpy(sz, shape, sizeof(int64_t) * (size_t)r);
    if (a.v[1] && a.v[2])
      return fail(w, &en->sr, pos, LAY_E_ARG, "slice: give size or stop");
    if (a.v[0]) {
      if (int_list(w, en, a.v[0], nm, "start", &v, &n)) return -1;
      if (n != r)
        return fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                    "slice: %d value%s for rank %d", n, n == 1 ? "" : "s", r);
      memcpy(st, v, sizeof(int64_t) * (size_t)r);
      for (int i = 0; i < r; i++) sz[i] = shape[i] - st[i];
    }
    for (int k = 1; k < 3; k++) {
      if (!a.v[k]) continue;
      if (int_list(w, en, a.v[k], nm, k == 1 ? "size" : "stop", &v, &n))
        return -1;
      if (n != r)
        return fail(w, &en->sr, a.v[k]->pos, LAY_E_SHAPE,
                    "slice: %d value%s for rank %d", n, n == 1 ? "" : "s", r);
      for (int i = 0; i < r; i++) sz[i] = k == 1 ? v[i] : v[i] - st[i];
    }
    for (int i = 0; i < r; i++)
      if (st[i] < 0 || sz[i] <= 0 || st[i] > shape[i] - sz[i])
        return fail(w, &en->sr, pos, LAY_E_SHAPE,
                    "slice: [%lld:%lld] is out of range for axis %d of size "
                    "%lld",
                    (long long)st[i], (long long)(st[i] + sz[i]), i,
                    (long long)shape[i]);
    for (int i = 0; i < r && t->affine; i++) {
      if (st[i] == 0 && sz[i] == shape[i]) continue;
      int d = whole_dim(t, i);
      if (d < 0) {
        t->affine = 0;
        break;
      }
      int64_t b = t->before[d], e = t->hi[d] - t->lo[d];
      int64_t s0 = st[i], s1 = st[i] + sz[i];
      int64_t nlo = t->lo[d] + (s0 > b ? s0 - b : 0);
      int64_t nhi = t->lo[d] + (s1 - b < e ? s1 - b : e);
      if (nhi <= nlo) { /* only padding: the gather table holds it */
        t->affine = 0;
        break;
      }
      seg_cut(t, d, 0, t->before[d] - (b > s0 ? b - s0 : 0));
      seg_cut(t, d, 1, t->after[d] - (s1 > b + e ? s1 - (b + e) : 0));
      t->before[d] = b > s0 ? b - s0 : 0;
      t->after[d] = s1 > b + e ? s1 - (b + e) : 0;
      t->lo[d] = nlo;
      t->hi[d] = nhi;
      t->pext[d] = sz[i];
      t->ax[i].d[0].ext = sz[i];
      t->ax[i].ext = sz[i];
    }
    if (tbl) {
      int perm[LG_MAX_AXES];
      int64_t off[LG_MAX_AXES];
      for (int i = 0; i < r; i++) {
        perm[i] = i;
        off[i] = -st[i];
      }
      if (remap(w, tbl, r, sz, perm, off, -1)) return -1;
    }
    memcpy(shape, sz, sizeof(int64_t) * (size_t)r);
    return 0;
  }
  if (!strcmp(nm, "transpose")) {
    static const char *const keys[] = {"perm|axes"};
    targs a;
    if (get_targs(w, en, op, nm, keys, 1, &a)) return -1;
    int64_t p[LG_MAX_AXES], *v = NULL;
    int n = r;
    if (a.v[0]) {
      if (int_list(w, en, a.v[0], nm, "perm", &v, &n)) return -1;
      int seen[LG_MAX_AXES] = {0}, ok = n == r;
      for (int i = 0; i < n && ok; i++) {
        if (v[i] < 0 || v[i] >= r || seen[v[i]]) ok = 0;
        else seen[v[i]] = 1;
      }
      if (!ok) {
        fmt_list(b1, sizeof b1, v, n);
        return fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                    "transpose: %s is not a permutation of %d axes", b1, r);
      }
      memcpy(p, v, sizeof(int64_t) * (size_t)r);
    } else {
      for (int i = 0; i < r; i++) p[i] = r - 1 - i; /* numpy: reversed */
    }
    tax old[LG_MAX_AXES];
    int64_t os[LG_MAX_AXES], ns[LG_MAX_AXES];
    int perm[LG_MAX_AXES];
    int64_t off[LG_MAX_AXES] = {0};
    memcpy(old, t->ax, sizeof(tax) * (size_t)r);
    memcpy(os, shape, sizeof(int64_t) * (size_t)r);
    for (int i = 0; i < r; i++) {
      t->ax[i] = old[p[i]];
      ns[i] = os[p[i]];
      perm[i] = (int)p[i];
    }
    if (tbl && remap(w, tbl, r, ns, perm, off, -1)) return -1;
    memcpy(shape, ns, sizeof(int64_t) * (size_t)r);
    return 0;
  }
  if (!strcmp(nm, "reshape")) {
    static const char *const keys[] = {"shape|output_shape|newshape"};
    targs a;
    if (get_targs(w, en, op, nm, keys, 1, &a)) return -1;
    if (!a.v[0]) return fail(w, &en->sr, pos, LAY_E_ARG, "reshape needs a shape");
    int64_t *v = NULL, ns[LG_MAX_AXES], total = shape_count(shape, r), known = 1;
    int n = 0, infer = -1;
    if (int_list(w, en, a.v[0], nm, "the shape", &v, &n)) return -1;
    if (n < 1 || n > LG_MAX_AXES)
      return fail(w, &en->sr, a.v[0]->pos, LAY_E_LIMIT,
                  "reshape: 1 to %d sizes", LG_MAX_AXES);
    for (int i = 0; i < n; i++) {
      if (v[i] == -1) {
        if (infer >= 0)
          return fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                      "reshape: more than one -1");
        infer = i;
        continue;
      }
      if (v[i] <= 0)
        return fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                    "reshape: size %lld is not positive", (long long)v[i]);
      if (__builtin_mul_overflow(known, v[i], &known) ||
          known > (INT64_C(1) << 50))
        return fail(w, &en->sr, a.v[0]->pos, LAY_E_OVERFLOW,
                    "reshape: the shape overflows");
    }
    memcpy(ns, v, sizeof(int64_t) * (size_t)n);
    if (infer >= 0) {
      if (total % known) {
        fmt_list(b1, sizeof b1, v, n);
        return fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                    "reshape: %lld elements do not fit %s",
                    (long long)total, b1);
      }
      ns[infer] = total / known;
      known = total;
    }
    if (known != total) {
      fmt_list(b1, sizeof b1, v, n);
      return fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                  "reshape: %lld elements into %s (%lld)", (long long)total,
                  b1, (long long)known);
    }
    if (t->affine) {
      tdig flat[LG_MAX_AXES];
      int nf = 0, at = 0;
      for (int i = 0; i < r; i++)
        for (int j = 0; j < t->ax[i].nd; j++) flat[nf++] = t->ax[i].d[j];
      tax nax[LG_MAX_AXES];
      for (int i = 0; i < n && t->affine; i++) {
        tax *x = &nax[i];
        memset(x, 0, sizeof *x);
        x->ext = ns[i];
        int64_t prod = 1, E = ns[i];
        while (prod < E && t->affine) {
          if (at >= nf) {
            t->affine = 0;
            break;
          }
          tdig *g = &flat[at];
          if (E % prod == 0 && (E / prod) % g->ext == 0) {
            if (x->nd >= LG_MAX_AXES) { t->affine = 0; break; }
            x->d[x->nd++] = *g;
            prod *= g->ext;
            at++;
          } else if (E % prod == 0 && g->ext % (E / prod) == 0) {
            int64_t q = E / prod, rest = g->ext / q;
            if (x->nd >= LG_MAX_AXES) { t->affine = 0; break; }
            tdig hi = {g->dim, g->div * rest, q};
            x->d[x->nd++] = hi;
            g->ext = rest;
            prod = E;
          } else {
            t->affine = 0;
          }
        }
        while (t->affine && at < nf && flat[at].ext == 1 &&
               x->nd < LG_MAX_AXES)
          x->d[x->nd++] = flat[at++];
        normalize(x);
      }
      if (t->affine) {
        while (at < nf && flat[at].ext == 1 && n > 0 &&
               nax[n - 1].nd < LG_MAX_AXES)
          nax[n - 1].d[nax[n - 1].nd++] = flat[at++];
        if (at != nf) t->affine = 0;
      }
      if (t->affine) memcpy(t->ax, nax, sizeof(tax) * (size_t)n);
    }
    if (tbl) {
      tbl->n = n;
      memcpy(tbl->shape, ns, sizeof(int64_t) * (size_t)n);
    }
    memcpy(shape, ns, sizeof(int64_t) * (size_t)n);
    *rank = n;
    t->n = n;
    return 0;
  }
  return fail(w, &en->sr, pos, LAY_E_NAME,
              "unknown operation '%s' (quantize, dequantize, cast, pad, "
              "reshape, transpose, slice)",
              nm);
}

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
          int d = t->affine ? whole_dim(t, k) : -1;
          if (d < 0)
            amap[k] = AX_COMPOSITE;
          else if (t->pext[d] != fixed[d] || t->lo[d] || t->hi[d] != fixed[d])
            amap[k] = AX_PADDED;
          else
            amap[k] = d;
        }
        if (value_op(w, en, nm, op, ir, fixed, amap, *rank)) return -1;
      }
      pp->nval++;
      continue;
    }
    if (index_op(w, en, op, nm, t, shape, rank, tbl, ir, pp)) return -1;
  }
  return 0;
}

/* The pad value of a transform: each stored pad's value goes through the
** value op after it (numpy semantics: a pad is an element of the tensor
** there), in every channel of a per-channel one. The IR has one pad value,
** so the stored pads must all come out the same. */
static int pad_result(lw *w, const srcref *sr, const tpads *pp, lg_ir *ir) {
  const lg_ir_value *v = &ir->value;
  int first = -1;
  double got = 0;
  for (int id = 0; id < pp->n; id++) {
    if (!pp->live[id]) continue;
    int nch = v->kind == LG_V_AFFINE && v->axis >= 0 ? v->n : 1;
    for (int ch = 0; ch < nch; ch++) {
      double h = pp->stage[id] == 0 ? lg_value_apply(v, ch, pp->v[id])
                                    : pp->v[id];
      if (first < 0) {
        first = id;
        got = h;
      } else if (!(h == got && signbit(h) == signbit(got)) &&
                 !(isnan(h) && isnan(got))) {
        char b1[64], b2[64];
        snprintf(b1, sizeof b1, "%g", got);
        snprintf(b2, sizeof b2, "%g", h);
        if (id == first)
          return fail(w, sr, pp->pos[id], LAY_E_ARG,
                      "pad: this pad stores %s in channel 0 of the "
                      "per-channel %s but %s in channel %d; the pads of a "
                      "transform store one value",
                      b1, v->dequant ? "dequantize" : "quantize", b2, ch);
        return fail(w, sr, pp->pos[id], LAY_E_ARG,
                    "pad: this pad stores %s, an earlier pad stores %s; the "
                    "pads of a transform store one value",
                    b2, b1);
      }
    }
  }
  ir->value.pad_value = first >= 0 ? got : 0;
  return 0;
}

static int lower_transform(lw *w, const lg_def *def, lg_ir *ir) {
  const lg_transform *T = def->transform;
  srcref sr = def_src(def);
  const lg_list *sh = &T->shape;
  if (sh->n < 1 || sh->n > LG_MAX_RANK)
    return fail(w, &sr, T->pos, LAY_E_LIMIT,
                "a transform's input has 1 to %d dimensions", LG_MAX_RANK);
  const char *dims[LG_MAX_RANK];
  int64_t shape[LG_MAX_AXES];
  ir->rank = sh->n;
  for (int i = 0; i < sh->n; i++) {
    const lg_expr *e = sh->v[i];
    const lg_expr *ve = e->kind == LG_X_NAMED ? e->u.named.value : e;
    if (ve->kind != LG_X_INT || ve->u.i <= 0 || ve->u.i > (INT64_C(1) << 40))
      return fail(w, &sr, ve->pos, LAY_E_SHAPE,
                  "a size of the input shape must be a positive integer");
    const char *nm = e->kind == LG_X_NAMED
                         ? e->u.named.name.s
                         : lg_arena_printf(w->a, "d%d", i);
    if (!nm) return nomem(w);
    for (int j = 0; j < i; j++)
      if (!strcmp(dims[j], nm))
        return fail(w, &sr, e->pos, LAY_E_NAME, "duplicate dimension '%s'",
                    nm);
    dims[i] = nm;
    ir->dim[i].name = nm;
    ir->dim[i].fixed = ve->u.i;
    shape[i] = ve->u.i;
  }
  if (T->dtype) {
    ir->value.cpu = lay_dtype_parse(T->dtype->u.str.s);
    if (ir->value.cpu == LAY_DT_NONE)
      return fail(w, &sr, T->dtype->pos, LAY_E_TYPE, "unknown type '%s'",
                  T->dtype->u.str.s);
  }
  ir->value.axis = -1;
  ir->value.saturate = 1;
  env en = {sr, NULL, 0, 0, -1, dims, sh->n};
  /* Track the digits. */
  tstate *t = walloc(w, sizeof *t);
  if (!t) return -1;
  memset(t, 0, sizeof *t);
  t->n = sh->n;
  t->affine = 1;
  for (int i = 0; i < sh->n; i++) {
    t->ax[i].ext = shape[i];
    t->ax[i].nd = 1;
    t->ax[i].d[0].dim = i;
    t->ax[i].d[0].div = 1;
    t->ax[i].d[0].ext = shape[i];
    t->lo[i] = 0;
    t->hi[i] = t->pext[i] = shape[i];
  }
  int rank = sh->n;
  tpads *pp = walloc(w, sizeof *pp);
  if (!pp) return -1;
  memset(pp, 0, sizeof *pp);
  int64_t s0[LG_MAX_AXES];
  memcpy(s0, shape, sizeof s0);
  if (run_chain(w, &en, T, t, shape, &rank, NULL, pp, ir, 1)) return -1;
  if (t->affine) {
    for (int d = 0; d < ir->rank; d++)
      for (int k = 0; k < 2; k++)
        for (int j = 0; j < t->nseg[d][k]; j++) pp->live[t->seg[d][k][j].id] = 1;
    if (pad_result(w, &sr, pp, ir)) return -1;
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
        if (add_axis(w, &sr, ir, T->pos, &ax)) return -1;
        ax->kind = LG_AX_UNIT;
        ax->label = "1";
        continue;
      }
      for (int j = 0; j < x->nd; j++) {
        const tdig *g = &x->d[j];
        if (add_axis(w, &sr, ir, T->pos, &ax)) return -1;
        ax->kind = LG_AX_DIGIT;
        ax->dim = g->dim;
        ax->div = g->div;
        ax->mod = g->div * g->ext == t->pext[g->dim] ? 0 : g->ext;
        ax->label = digit_label(w, dims[g->dim], ax->div, ax->mod);
        if (!ax->label) return -1;
      }
    }
    return 0;
  }
  /* No affine structure: replay the chain on the CPU-side indices. */
  int64_t n = shape_count(s0, sh->n), total = shape_count(shape, rank);
  if (total > LW_MAX_TABLE || n > LW_MAX_TABLE)
    return fail(w, &sr, T->pos, LAY_E_LIMIT,
                "this transform needs a gather table of %lld entries (at "
                "most %d)",
                (long long)(total > n ? total : n), LW_MAX_TABLE);
  tarr tbl = {sh->n, {0}, NULL};
  memcpy(tbl.shape, s0, sizeof(int64_t) * (size_t)sh->n);
  tbl.v = malloc(sizeof(int64_t) * (size_t)n);
  if (!tbl.v) return nomem(w);
  for (int64_t i = 0; i < n; i++) tbl.v[i] = i;
  memcpy(shape, s0, sizeof s0);
  rank = sh->n;
  int rc = run_chain(w, &en, T, t, shape, &rank, &tbl, pp, ir, 0);
  if (!rc) {
    int64_t nt = shape_count(tbl.shape, tbl.n);
    for (int64_t i = 0; i < nt; i++)
      if (tbl.v[i] < 0) { /* a pad's mark -1 - id: which pads are stored */
        pp->live[-1 - tbl.v[i]] = 1;
        tbl.v[i] = -1;
      }
    rc = pad_result(w, &sr, pp, ir);
  }
  if (!rc) {
    ir->ntable = shape_count(tbl.shape, tbl.n);
    ir->table = walloc(w, sizeof(int64_t) * (size_t)ir->ntable);
    if (ir->table)
      memcpy(ir->table, tbl.v, sizeof(int64_t) * (size_t)ir->ntable);
    else
      rc = -1;
  }
  free(tbl.v);
  ir->naxes = 0;
  return rc;
}

/* ---- Definitions ----------------------------------------------------------- */

static int lower_def(lw *w, const lg_def *def, const lg_list *args,
                     const env *caller, uint32_t call_pos, lg_ir *ir);

static int lower_layout(lw *w, const lg_def *def, const lg_list *args,
                        const env *caller, uint32_t call_pos, lg_ir *ir) {
  const lg_layout *L = def->layout;
  srcref sr = def_src(def);
  if (set_dims(w, &sr, ir, &L->dims)) return -1;
  param ps[LW_MAX_PARAMS];
  int np = 0;
  if (bind(w, def, L, args, caller, call_pos, ps, &np)) return -1;
  const char *dims[LG_MAX_RANK];
  for (int i = 0; i < ir->rank; i++) dims[i] = ir->dim[i].name;
  env en = {sr, ps, np, np, -1, dims, ir->rank};
  ir->value.axis = -1;
  ir->value.saturate = 1;
  if (L->dtype) {
    ir->value.cpu = lay_dtype_parse(L->dtype->u.str.s);
    if (ir->value.cpu == LAY_DT_NONE)
      return fail(w, &sr, L->dtype->pos, LAY_E_TYPE, "unknown type '%s'",
                  L->dtype->u.str.s);
  }
  const char *plane = NULL;
  const lg_clause *padc = NULL;
  if (clauses(w, &en, L, ir, &plane, &padc)) return -1;
  if (finish_value(w, &sr, padc, ir)) return -1;
  if (L->chunked) {
    if (plane)
      return fail(w, &sr, L->order_pos, LAY_E_LAYOUT,
                  "plane '%s' is missing from the memory order", plane);
    return lower_chunked(w, &sr, L->chunked, ir);
  }
  int rc = lower_order(w, &en, L, ir, plane);
  if (rc < 0) return -1;
  /* The shape ladder runs when a definition is checked (it must hold for
  ** every shape); an instance is planned for one concrete shape, where
  ** the planner checks the offsets itself. */
  if (rc == 1 && w->partial) {
    int64_t chunk[LG_MAX_RANK];
    for (int d = 0; d < ir->rank; d++) {
      chunk[d] = 1;
      for (int i = 0; i < ir->naxes; i++) {
        const lg_ir_axis *a = &ir->axis[i];
        if (a->kind == LG_AX_DIGIT && a->dim == d && a->mod &&
            a->div * a->mod > chunk[d])
          chunk[d] = a->div * a->mod;
      }
    }
    if (check_bijection(w, &sr, L, ir, chunk)) return -1;
  }
  return 0;
}

static int lower_alias(lw *w, const lg_def *def, const lg_list *args,
                       const env *caller, uint32_t call_pos, lg_ir *ir) {
  const lg_layout *L = def->layout;
  const lg_expr *t = L->alias;
  srcref sr = def_src(def);
  int nargs = args ? args->n : 0;
  if (t->kind == LG_X_CHUNKED) {
    if (nargs)
      return fail(w, &caller->sr, args->v[0]->pos, LAY_E_ARG,
                  "'%s' takes no arguments", def->qname);
    ir->value.axis = -1;
    ir->value.saturate = 1;
    return lower_chunked(w, &sr, t, ir);
  }
  const lg_expr *name = t->kind == LG_X_CALL ? t->u.call.fn : t;
  const lg_def *target = lg_module_find(w->m, name->u.str.s, def->ns);
  if (!target)
    return fail(w, &sr, name->pos, LAY_E_NAME, "unknown layout '%s'",
                name->u.str.s);
  if (t->kind == LG_X_CALL && nargs)
    return fail(w, &caller->sr, args->v[0]->pos, LAY_E_ARG,
                "'%s' takes no arguments", def->qname);
  /* A bare alias passes its caller's arguments on. */
  const char *dims[LG_MAX_RANK];
  int rank = 0;
  if (target->layout && !target->layout->alias)
    for (; rank < target->layout->dims.n && rank < LG_MAX_RANK; rank++)
      dims[rank] = target->layout->dims.v[rank]->u.str.s;
  if (t->kind == LG_X_NAME)
    return lower_def(w, target, args, caller, call_pos, ir);
  env en = {sr, NULL, 0, 0, -1, dims, rank};
  set_use(w, &sr, t->pos, t->end, etext(w, &sr, t), 0);
  return lower_def(w, target, &t->u.call.args, &en, t->pos, ir);
}

static int lower_def(lw *w, const lg_def *def, const lg_list *args,
                     const env *caller, uint32_t call_pos, lg_ir *ir) {
  for (int i = 0; i < w->depth; i++) {
    if (w->stack[i] != def) continue;
    char chain[400];
    size_t n = 0;
    for (int j = i; j < w->depth && n < sizeof chain; j++)
      n += (size_t)snprintf(chain + n, sizeof chain - n, "%s -> ",
                            w->stack[j]->qname);
    if (n < sizeof chain) snprintf(chain + n, sizeof chain - n, "%s", def->qname);
    const lg_def *last = w->stack[w->depth - 1];
    srcref sr = def_src(last);
    return fail(w, &sr, last->layout ? last->layout->order_pos : 0,
                LAY_E_NAME, "alias cycle: %s", chain);
  }
  if (w->depth >= LW_MAX_ALIAS) {
    srcref sr = def_src(def);
    return fail(w, &sr, 0, LAY_E_LIMIT, "aliases nested deeper than %d",
                LW_MAX_ALIAS);
  }
  w->stack[w->depth++] = def;
  int rc;
  if (def->transform) {
    if (args && args->n)
      rc = fail(w, &caller->sr, args->v[0]->pos, LAY_E_ARG,
                "transform '%s' takes no arguments", def->qname);
    else
      rc = lower_transform(w, def, ir);
  } else if (def->layout->alias) {
    rc = lower_alias(w, def, args, caller, call_pos, ir);
  } else {
    rc = lower_layout(w, def, args, caller, call_pos, ir);
  }
  w->depth--;
  return rc;
}

/* ---- Entry points ----------------------------------------------------------- */

static lay_status run(const lg_module *m, const lg_def *def,
                      const lg_list *args, const char *ref_text, int partial,
                      lg_ir **out, lay_error *err) {
  if (out) *out = NULL;
  lw w;
  memset(&w, 0, sizeof w);
  w.m = m;
  w.err = err;
  w.partial = partial;
  w.a = lg_arena_new();
  if (!w.a) {
    lg_error_plain(err, LAY_E_NOMEM, "", "out of memory");
    return LAY_E_NOMEM;
  }
  lg_ir *ir = lg_arena_alloc(w.a, sizeof *ir);
  if (!ir) {
    lg_arena_free(w.a);
    lg_error_plain(err, LAY_E_NOMEM, "", "out of memory");
    return LAY_E_NOMEM;
  }
  ir->arena = w.a;
  ir->name = lg_arena_printf(w.a, "%s", ref_text ? ref_text : def->qname);
  ir->value.axis = -1;
  ir->value.saturate = 1;
  /* Arguments of a reference are evaluated in its own text, where the
  ** target's dimension names mean their sizes. */
  env caller = {{"<format>", ref_text, ref_text ? strlen(ref_text) : 0},
                NULL, 0, 0, -1, NULL, 0};
  const char *dims[LG_MAX_RANK];
  if (def->layout && !def->layout->alias) {
    int r = 0;
    for (; r < def->layout->dims.n && r < LG_MAX_RANK; r++)
      dims[r] = def->layout->dims.v[r]->u.str.s;
    caller.dims = dims;
    caller.rank = r;
  }
  if (ref_text)
    set_use(&w, &caller.sr, 0, (uint32_t)caller.sr.len, ref_text, 1);
  if (!ir->name) nomem(&w);
  else lower_def(&w, def, args, &caller, 0, ir);
  if (w.st) {
    lg_arena_free(w.a);
    return w.st;
  }
  if (out) *out = ir;
  else lg_arena_free(w.a);
  return LAY_OK;
}

lay_status lg_lower(const lg_module *m, const lg_def *def,
                    const lg_list *args, const char *ref_text, lg_ir **out,
                    lay_error *err) {
  if (!m || !def || !out) {
    lg_error_plain(err, LAY_E_ARG, "", "no module, definition or output");
    return LAY_E_ARG;
  }
  return run(m, def, args, ref_text, 0, out, err);
}

lay_status lg_check_def(const lg_module *m, const lg_def *def,
                        lay_error *err) {
  if (!m || !def) {
    lg_error_plain(err, LAY_E_ARG, "", "no module or definition");
    return LAY_E_ARG;
  }
  return run(m, def, NULL, NULL, 1, NULL, err);
}
