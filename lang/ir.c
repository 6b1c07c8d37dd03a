/*
** ir.c: the IR's life cycle, its text dump and size expressions.
**
** lg_ir_free releases an IR (everything lives in its arena). lg_iexpr_eval
** evaluates a size expression with 64-bit overflow checks. The lg_ie_*
** helpers (irutil.h) build and print expressions for the lowering.
**
** The dump (lg_ir_dump, the golden-test format) is one fact per line, in
** this order; optional fields are printed only when set:
**
**   name NAME                         the instance ("amd.hcwnc(8)")
**   rank R                            CPU-side dimensions
**   dim I NAME [fixed=N] [lo=E] [hi=E] [before=E] [after=E]
**                                     one per dimension; E is an infix
**                                     size expression over dimension names
**                                     ("(pad_t + h) * 2" style, ceil(a, b))
**   naxes K                           hardware axes, outermost first
**   axis I LABEL digit DIM div=D mod=M [stride=E] [align=E]
**   axis I LABEL unit [stride=E] [align=E]
**   axis I LABEL plane [stride=E] [align=E]
**   value none|cast|affine cpu=T hw=T ...
**       cast:   round=R saturate=S
**       affine: quantize|dequantize axis=DIM|- n=N round=R saturate=S
**   num V ...  / den V ... / zp V ... / xoff V ...   (affine only, n values)
**   plane I NAME shift=S mask=0xM     one per byte plane
**   pad_value V
**   table N                           only with a gather table, then
**   table[I] V V ...                  16 entries a line, the first 1024
**   table hash 0xH                    FNV-1a of all entries (int64 LE)
**
** T is a dtype name or "none" (open); R is half_even, half_away or
** truncate; numbers are printed in the shortest form that reads back
** exactly.
*/
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irutil.h"
#include "lang.h"
#include "strbuf.h"

void lg_ir_free(lg_ir *ir) {
  if (!ir) return;
  lg_arena_free(ir->arena); /* the IR itself lives in its arena */
}

/* ---- Size expressions ----------------------------------------------------- */

static int add64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}
static int sub64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_sub_overflow(a, b, r);
}
static int mul64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}

/* Floor division and modulus; -1 on b == 0 or overflow. */
static int fdiv64(int64_t a, int64_t b, int64_t *r) {
  if (b == 0 || (a == INT64_MIN && b == -1)) return -1;
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  *r = q;
  return 0;
}
static int fmod64(int64_t a, int64_t b, int64_t *r) {
  if (b == 0) return -1;
  if (b == -1) {
    *r = 0;
    return 0;
  }
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  *r = m;
  return 0;
}

/* a rounded up to a multiple of b (b > 0). */
static int ceil64(int64_t a, int64_t b, int64_t *r) {
  int64_t m;
  if (b <= 0 || fmod64(a, b, &m)) return -1;
  if (m == 0) {
    *r = a;
    return 0;
  }
  return add64(a - m, b, r) ? -1 : 0;
}

static int apply(lg_iexpr_kind k, int64_t a, int64_t b, int64_t *r) {
  switch (k) {
  case LG_IE_ADD: return add64(a, b, r) ? -1 : 0;
  case LG_IE_SUB: return sub64(a, b, r) ? -1 : 0;
  case LG_IE_MUL: return mul64(a, b, r) ? -1 : 0;
  case LG_IE_DIV: return fdiv64(a, b, r);
  case LG_IE_MOD: return fmod64(a, b, r);
  case LG_IE_CEIL: return ceil64(a, b, r);
  default: return -1;
  }
}

static int eval_depth(const lg_iexpr *e, const int64_t *dims, int64_t *out,
                      int depth) {
  if (!e || depth > 4096) return -1;
  switch (e->kind) {
  case LG_IE_CONST: *out = e->v; return 0;
  case LG_IE_DIM:
    if (e->dim < 0 || e->dim >= LG_MAX_RANK || !dims) return -1;
    *out = dims[e->dim];
    return 0;
  default: {
    int64_t a, b;
    if (eval_depth(e->a, dims, &a, depth + 1) ||
        eval_depth(e->b, dims, &b, depth + 1))
      return -1;
    return apply(e->kind, a, b, out);
  }
  }
}

int lg_iexpr_eval(const lg_iexpr *e, const int64_t *dims, int64_t *out) {
  int64_t v;
  if (!out || eval_depth(e, dims, &v, 0)) return -1;
  *out = v;
  return 0;
}

lg_iexpr *lg_ie_const(lg_arena *a, int64_t v) {
  lg_iexpr *e = lg_arena_alloc(a, sizeof *e);
  if (!e) return NULL;
  e->kind = LG_IE_CONST;
  e->v = v;
  e->dim = -1;
  return e;
}

lg_iexpr *lg_ie_dim(lg_arena *a, int dim) {
  lg_iexpr *e = lg_arena_alloc(a, sizeof *e);
  if (!e) return NULL;
  e->kind = LG_IE_DIM;
  e->dim = dim;
  return e;
}

int lg_ie_is_const(const lg_iexpr *e, int64_t *v) {
  if (!e || e->kind != LG_IE_CONST) return 0;
  if (v) *v = e->v;
  return 1;
}

lg_iexpr *lg_ie_bin(lg_arena *a, lg_iexpr_kind k, lg_iexpr *x, lg_iexpr *y) {
  if (!x || !y) return NULL;
  int64_t u = 0, v = 0, r;
  int cx = lg_ie_is_const(x, &u), cy = lg_ie_is_const(y, &v);
  if (cx && cy && !apply(k, u, v, &r)) return lg_ie_const(a, r);
  if ((k == LG_IE_ADD || k == LG_IE_SUB) && cy && v == 0) return x;
  /* Constants go right of a sum and collect there: (h + 1) + 1 = h + 2. */
  if (k == LG_IE_ADD && cx && !cy) return lg_ie_bin(a, k, y, x);
  if (k == LG_IE_ADD && cy && x->kind == LG_IE_ADD &&
      lg_ie_is_const(x->b, &u) && !__builtin_add_overflow(u, v, &r)) {
    lg_iexpr *c = lg_ie_const(a, r);
    return c ? lg_ie_bin(a, k, x->a, c) : NULL;
  }
  if (k == LG_IE_ADD && !cy && x->kind == LG_IE_ADD &&
      lg_ie_is_const(x->b, &u)) {
    lg_iexpr *s = lg_ie_bin(a, k, x->a, y);
    return s ? lg_ie_bin(a, k, s, x->b) : NULL;
  }
  if (k == LG_IE_ADD && cx && u == 0) return y;
  if ((k == LG_IE_MUL || k == LG_IE_DIV || k == LG_IE_CEIL) && cy && v == 1)
    return x;
  if (k == LG_IE_MUL && cx && u == 1) return y;
  lg_iexpr *e = lg_arena_alloc(a, sizeof *e);
  if (!e) return NULL;
  e->kind = k;
  e->dim = -1;
  e->a = x;
  e->b = y;
  return e;
}

int lg_ie_equal(const lg_iexpr *x, const lg_iexpr *y) {
  if (!x || !y) return x == y;
  if (x->kind != y->kind) return 0;
  switch (x->kind) {
  case LG_IE_CONST: return x->v == y->v;
  case LG_IE_DIM: return x->dim == y->dim;
  default: return lg_ie_equal(x->a, y->a) && lg_ie_equal(x->b, y->b);
  }
}

/* A bounded string builder. */
typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void sb_put(sbuf *b, const char *fmt, ...) {
  if (b->n + 1 >= b->cap) return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  b->n += (size_t)k;
  if (b->n >= b->cap) b->n = b->cap - 1;
}

static int prec(lg_iexpr_kind k) {
  switch (k) {
  case LG_IE_ADD: case LG_IE_SUB: return 1;
  case LG_IE_MUL: case LG_IE_DIV: case LG_IE_MOD: return 2;
  default: return 3;
  }
}

static void ie_print(sbuf *b, const lg_iexpr *e, const char *const *names,
                     int rank, int depth) {
  if (!e || depth > 64) {
    sb_put(b, "?");
    return;
  }
  switch (e->kind) {
  case LG_IE_CONST: sb_put(b, "%" PRId64, e->v); return;
  case LG_IE_DIM:
    if (names && e->dim >= 0 && e->dim < rank && names[e->dim])
      sb_put(b, "%s", names[e->dim]);
    else
      sb_put(b, "#%d", e->dim);
    return;
  case LG_IE_CEIL:
    sb_put(b, "ceil(");
    ie_print(b, e->a, names, rank, depth + 1);
    sb_put(b, ", ");
    ie_print(b, e->b, names, rank, depth + 1);
    sb_put(b, ")");
    return;
  default: {
    static const char ops[] = "??+-*/%";
    int p = prec(e->kind);
    /* Left operand: parens when it binds looser; right: also when equal
    ** (the operators are left-associative). */
    int pl = prec(e->a->kind) < p, pr = prec(e->b->kind) <= p;
    if (pl) sb_put(b, "(");
    ie_print(b, e->a, names, rank, depth + 1);
    if (pl) sb_put(b, ")");
    sb_put(b, " %c ", ops[e->kind]);
    if (pr) sb_put(b, "(");
    ie_print(b, e->b, names, rank, depth + 1);
    if (pr) sb_put(b, ")");
    return;
  }
  }
}

void lg_ie_print(const lg_iexpr *e, const char *const *names, int rank,
                 char *buf, size_t cap) {
  if (!cap) return;
  sbuf b = {buf, 0, cap};
  buf[0] = '\0';
  ie_print(&b, e, names, rank, 0);
}

/* ---- The dump ------------------------------------------------------------- */

/* The shortest %g form that reads back as exactly v. */
static void fmt_num(char *buf, size_t cap, double v) {
  for (int p = 1; p <= 17; p++) {
    snprintf(buf, cap, "%.*g", p, v);
    if (strtod(buf, NULL) == v) return;
  }
}

static const char *round_name(lg_round r) {
  switch (r) {
  case LG_R_HALF_EVEN: return "half_even";
  case LG_R_HALF_AWAY: return "half_away";
  case LG_R_TRUNC: return "truncate";
  }
  return "?";
}

static void db_expr(lg_strbuf *d, const char *key, const lg_iexpr *e,
                    const lg_ir *ir) {
  if (!e) return;
  const char *names[LG_MAX_RANK];
  for (int i = 0; i < LG_MAX_RANK; i++)
    names[i] = i < ir->rank ? ir->dim[i].name : NULL;
  char buf[1024];
  lg_ie_print(e, names, ir->rank, buf, sizeof buf);
  lg_sb_printf(d, " %s=%s", key, buf);
}

static void db_list(lg_strbuf *d, const char *key, const double *v, int n) {
  lg_sb_printf(d, "%s", key);
  for (int i = 0; i < n; i++) {
    char buf[64];
    fmt_num(buf, sizeof buf, v ? v[i] : 0);
    lg_sb_printf(d, " %s", buf);
  }
  lg_sb_printf(d, "\n");
}

/* One value rule (a chain: its steps after it, "step K ..."). */
static void db_value(lg_strbuf *d, const char *what, const lg_ir_value *v,
                     const lg_ir *ir) {
  static const char *kinds[] = {"none", "cast", "affine", "chain"};
  lg_sb_printf(d, "%s %s cpu=%s hw=%s", what,
         v->kind >= 0 && v->kind <= LG_V_CHAIN ? kinds[v->kind] : "?",
         lay_dtype_name(v->cpu), lay_dtype_name(v->hw));
  if (v->kind == LG_V_CAST)
    lg_sb_printf(d, " round=%s saturate=%d", round_name(v->round), v->saturate);
  if (v->kind == LG_V_AFFINE) {
    lg_sb_printf(d, " %s axis=%s n=%d round=%s saturate=%d",
           v->dequant ? "dequantize" : "quantize",
           v->axis >= 0 && v->axis < ir->rank && ir->dim[v->axis].name
               ? ir->dim[v->axis].name
               : "-",
           v->n, round_name(v->round), v->saturate);
    if (v->arith == LG_A_F32) lg_sb_printf(d, " arith=f32");
    if (v->arith == LG_A_F32_DIV) lg_sb_printf(d, " arith=f32_div");
  }
  lg_sb_printf(d, "\n");
  if (v->kind == LG_V_AFFINE) {
    db_list(d, "num", v->num, v->n);
    db_list(d, "den", v->den, v->n);
    db_list(d, "zp", v->zp, v->n);
    db_list(d, "xoff", v->xoff, v->n);
  }
  if (v->kind == LG_V_CHAIN)
    for (int i = 0; i < v->nstep && v->step; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "step %d", i);
      db_value(d, nm, &v->step[i], ir);
    }
}

char *lg_ir_dump(const lg_ir *ir) {
  if (!ir) return NULL;
  lg_strbuf d = {0};
  lg_sb_printf(&d, "name %s\n", ir->name ? ir->name : "?");
  lg_sb_printf(&d, "rank %d\n", ir->rank);
  for (int i = 0; i < ir->rank && i < LG_MAX_RANK; i++) {
    const lg_ir_dim *m = &ir->dim[i];
    lg_sb_printf(&d, "dim %d %s", i, m->name ? m->name : "?");
    if (m->fixed > 0) lg_sb_printf(&d, " fixed=%" PRId64, m->fixed);
    db_expr(&d, "lo", m->lo, ir);
    db_expr(&d, "hi", m->hi, ir);
    db_expr(&d, "before", m->before, ir);
    db_expr(&d, "after", m->after, ir);
    lg_sb_printf(&d, "\n");
  }
  lg_sb_printf(&d, "naxes %d\n", ir->naxes);
  for (int i = 0; i < ir->naxes && i < LG_MAX_AXES; i++) {
    const lg_ir_axis *a = &ir->axis[i];
    lg_sb_printf(&d, "axis %d %s", i, a->label ? a->label : "?");
    switch (a->kind) {
    case LG_AX_DIGIT:
      lg_sb_printf(&d, " digit %s div=%" PRId64 " mod=%" PRId64,
             a->dim >= 0 && a->dim < ir->rank && ir->dim[a->dim].name
                 ? ir->dim[a->dim].name
                 : "?",
             a->div, a->mod);
      break;
    case LG_AX_UNIT: lg_sb_printf(&d, " unit"); break;
    case LG_AX_PLANE: lg_sb_printf(&d, " plane"); break;
    }
    db_expr(&d, "stride", a->stride, ir);
    db_expr(&d, "align", a->align, ir);
    lg_sb_printf(&d, "\n");
  }
  const lg_ir_value *v = &ir->value;
  db_value(&d, "value", v, ir);
  for (int p = 0; p < v->nplanes && p < LG_MAX_PLANES; p++)
    lg_sb_printf(&d, "plane %d %s shift=%d mask=0x%" PRIx32 "\n", p,
           v->plane[p].name ? v->plane[p].name : "?", v->plane[p].shift,
           v->plane[p].mask);
  char num[64];
  fmt_num(num, sizeof num, v->pad_value);
  lg_sb_printf(&d, "pad_value %s\n", num);
  if (ir->nfix) {
    db_list(&d, "padv", ir->padv, ir->npadv);
    lg_sb_printf(&d, "fix %" PRId64 "\n", ir->nfix);
    for (int64_t i = 0; i < ir->nfix && i < 256; i++)
      lg_sb_printf(&d, "fix[%" PRId64 "] offset=%" PRId64 " n=%" PRId64
                   " padv=%" PRId64 "\n",
                   i, ir->fix[3 * i], ir->fix[3 * i + 1], ir->fix[3 * i + 2]);
  }
  if (ir->table) {
    lg_sb_printf(&d, "table %" PRId64 "\n", ir->ntable);
    for (int64_t i = 0; i < ir->ntable && i < 1024; i++) {
      if (i % 16 == 0) lg_sb_printf(&d, "table[%" PRId64 "]", i);
      lg_sb_printf(&d, " %" PRId64, ir->table[i]);
      if (i % 16 == 15 || i + 1 == ir->ntable || i == 1023) lg_sb_printf(&d, "\n");
    }
    uint64_t h = 1469598103934665603ull;
    for (int64_t i = 0; i < ir->ntable; i++) {
      uint64_t x = (uint64_t)ir->table[i];
      for (int k = 0; k < 8; k++) {
        h ^= (x >> (8 * k)) & 0xff;
        h *= 1099511628211ull;
      }
    }
    lg_sb_printf(&d, "table hash 0x%016" PRIx64 "\n", h);
  }
  return lg_sb_take(&d);
}
