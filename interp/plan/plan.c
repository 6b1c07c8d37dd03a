/*
** plan.c: the planner. Compiles an IR (lang/ir.h) for a concrete shape,
** dtype and direction into an immutable li_plan (plan_int.h).
**
** Order of work:
**   1. each side (the CPU side, or an IR) is evaluated for the shape into
**      an li_side: windows, pads, digit extents, hardware strides, buffer
**      size, checked for overflow and bijectivity;
**   2. every dimension's digits on the two sides are refined into one
**      common mixed radix; the valid interval of each dimension is cut
**      into O(#digits) pieces whose digits are plain ranges, and the
**      product of the pieces over the dimensions gives the data boxes,
**      each an affine loop nest;
**   3. the destination's pads (its padded box outside the window), the
**      elements the source does not provide (its window is smaller) and
**      the holes between strided axes become fill boxes, disjoint, so no
**      byte is written twice;
**   4. each box's loops are ordered by destination stride, coalesced where
**      the strides chain, and given a kernel.
** Pack is CPU side -> IR, unpack IR -> CPU side, convert IR A -> IR B:
** one code path.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_int.h"
#include "strbuf.h"

#define LI_MAX_BOXES 65536  /* boxes of one plan (LAY_E_LIMIT beyond) */

static lay_status fail(lay_error *err, lay_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static lay_status fail(lay_error *err, lay_status code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    memset(err, 0, sizeof *err);
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

#define OVF(err) fail(err, LAY_E_OVERFLOW, "buffer size overflows 64 bits")

static int mul64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_mul_overflow(a, b, r);
}
static int add64(int64_t a, int64_t b, int64_t *r) {
  return __builtin_add_overflow(a, b, r);
}

/* ---- Size expressions ---------------------------------------------------- */
static int eval(const lg_iexpr *e, const int64_t *dims, int rank, int64_t *out) {
  int64_t a, b;
  if (!e) return -1;
  switch (e->kind) {
  case LG_IE_CONST: *out = e->v; return 0;
  case LG_IE_DIM:
    if (e->dim < 0 || e->dim >= rank) return -1;
    *out = dims[e->dim];
    return 0;
  default: break;
  }
  if (eval(e->a, dims, rank, &a) || eval(e->b, dims, rank, &b)) return -1;
  switch (e->kind) {
  case LG_IE_ADD: return add64(a, b, out) ? -1 : 0;
  case LG_IE_SUB: return __builtin_sub_overflow(a, b, out) ? -1 : 0;
  case LG_IE_MUL: return mul64(a, b, out) ? -1 : 0;
  case LG_IE_DIV:
  case LG_IE_MOD: {
    if (b == 0 || (a == INT64_MIN && b == -1)) return -1;
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) { q--; r += b; }
    *out = e->kind == LG_IE_DIV ? q : r;
    return 0;
  }
  case LG_IE_CEIL: {
    if (b <= 0) return -1;
    int64_t r = a % b;
    if (r < 0) r += b;
    if (r == 0) { *out = a; return 0; }
    return add64(a, b - r, out) ? -1 : 0;
  }
  default: return -1;
  }
}

static lay_status eval_opt(const lg_iexpr *e, const int64_t *dims, int rank,
                           int64_t dflt, int64_t *out, const char *what,
                           const char *name, lay_error *err) {
  if (!e) { *out = dflt; return LAY_OK; }
  if (eval(e, dims, rank, out))
    return fail(err, LAY_E_OVERFLOW,
                "the %s of dimension '%s' overflows or divides by zero", what,
                name);
  return LAY_OK;
}

/* ---- Value rules --------------------------------------------------------- */
static lay_status make_rule(const lg_ir_value *v, lay_dtype cpu,
                            const int64_t *shape, int rank,
                            const lg_ir *ir, li_vrule *r, lay_error *err) {
  memset(r, 0, sizeof *r);
  r->cpu = cpu;
  r->hw = v->hw != LAY_DT_NONE ? v->hw : cpu;
  r->round = v->round;
  r->arith = v->arith;
  r->saturate = v->saturate;
  r->axis = -1;
  r->pad = v->pad_value;
  if (v->nplanes > 0) {
    /* Byte planes split the bits of the element after the value rule: the
    ** CPU type without one, else the rule's target type (hw). */
    if (v->nplanes > LG_MAX_PLANES)
      return fail(err, LAY_E_LAYOUT, "a layout has at most %d byte planes",
                  LG_MAX_PLANES);
    r->nplanes = v->nplanes;
    for (int p = 0; p < v->nplanes; p++) {
      if (v->plane[p].shift < 0 || v->plane[p].shift >= 32)
        return fail(err, LAY_E_LAYOUT, "byte plane shift %d is out of range",
                    v->plane[p].shift);
      r->shift[p] = v->plane[p].shift;
      r->mask[p] = v->plane[p].mask;
    }
    if (v->kind == LG_V_NONE || v->hw == LAY_DT_NONE) {
      r->kind = LI_VR_ID;
      r->hw = cpu;
      return LAY_OK;
    }
  }
  switch (v->kind) {
  case LG_V_NONE: r->kind = r->hw == cpu ? LI_VR_ID : LI_VR_CAST; break;
  case LG_V_CAST: r->kind = r->hw == cpu ? LI_VR_ID : LI_VR_CAST; break;
  case LG_V_AFFINE: {
    r->kind = v->dequant ? LI_VR_DEQUANT : LI_VR_QUANT;
    int n = v->n < 1 ? 1 : v->n;
    if (!v->num || !v->den || !v->zp || !v->xoff)
      return fail(err, LAY_E_INTERNAL, "quantization parameters are missing");
    if (n > 1 || v->axis >= 0) {
      if (v->axis < 0 || v->axis >= rank)
        return fail(err, LAY_E_LAYOUT, "per-channel axis %d is out of range",
                    v->axis);
      if (n != 1 && shape[v->axis] != n)
        return fail(err, LAY_E_SHAPE,
                    "per-channel parameters have %d entries, dimension '%s' "
                    "is %lld",
                    n, ir->dim[v->axis].name ? ir->dim[v->axis].name : "?",
                    (long long)shape[v->axis]);
      r->axis = n > 1 ? v->axis : -1;
    }
    r->nch = n;
    r->num = malloc(sizeof(double) * 4 * (size_t)n);
    if (!r->num) return fail(err, LAY_E_NOMEM, "out of memory");
    r->den = r->num + n;
    r->zp = r->den + n;
    r->xoff = r->zp + n;
    for (int i = 0; i < n; i++) {
      r->num[i] = v->num[i];
      r->den[i] = v->den[i];
      r->zp[i] = v->zp[i];
      r->xoff[i] = v->xoff[i];
      if (v->num[i] == 0 || v->den[i] == 0 || v->num[i] != v->num[i] ||
          v->den[i] != v->den[i])
        return fail(err, LAY_E_ARG, "quantization scale %d is zero or NaN", i);
    }
    break;
  }
  }
  if (!li_dt_size(r->hw)) return fail(err, LAY_E_TYPE, "unknown element type");
  return LAY_OK;
}

/* ---- Sides ------------------------------------------------------------- */
static void side_cpu(li_side *s, const int64_t *shape, int rank, lay_dtype t) {
  memset(s, 0, sizeof *s);
  s->is_cpu = 1;
  s->rank = rank;
  s->naxes = rank;
  s->plane_ax = -1;
  int64_t st = 1;
  for (int i = rank - 1; i >= 0; i--) {
    li_sdim *d = &s->dim[i];
    d->size = shape[i];
    d->lo = 0;
    d->hi = shape[i];
    d->ext = shape[i];
    d->nd = 1;
    d->dig[0] = i;
    li_sax *a = &s->ax[i];
    a->kind = LG_AX_DIGIT;
    a->dim = i;
    a->div = 1;
    a->ext = shape[i];
    a->stride = st;
    st *= shape[i]; /* checked by the caller */
  }
  s->nelem = st;
  s->esz = li_dt_size(t);
  s->v.kind = LI_VR_ID;
  s->v.cpu = s->v.hw = t;
  s->v.axis = -1;
  s->v.saturate = 1;
}

static lay_status check_shape(const lg_ir *ir, const int64_t *shape, int rank,
                              lay_error *err) {
  if (rank != ir->rank)
    return fail(err, LAY_E_SHAPE, "shape has %d dimensions, the layout has %d",
                rank, ir->rank);
  for (int i = 0; i < rank; i++) {
    const char *nm = ir->dim[i].name ? ir->dim[i].name : "?";
    if (shape[i] <= 0)
      return fail(err, LAY_E_SHAPE, "dimension '%s' is %lld, it must be positive",
                  nm, (long long)shape[i]);
    if (ir->dim[i].fixed > 0 && ir->dim[i].fixed != shape[i])
      return fail(err, LAY_E_SHAPE, "dimension '%s' is %lld, the layout fixes %lld",
                  nm, (long long)shape[i], (long long)ir->dim[i].fixed);
  }
  return LAY_OK;
}

/* Row-major element count of the shape and its bytes. */
static lay_status cpu_count(const int64_t *shape, int rank, size_t esz,
                            int64_t *n, lay_error *err) {
  int64_t c = 1, b;
  for (int i = 0; i < rank; i++)
    if (mul64(c, shape[i], &c)) return OVF(err);
  if (mul64(c, (int64_t)esz, &b)) return OVF(err);
  *n = c;
  return LAY_OK;
}

static int cmp_i64pair(const void *a, const void *b) {
  const int64_t *x = a, *y = b;
  if (x[0] != y[0]) return x[0] < y[0] ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int fmt_coord(char *buf, size_t cap, const int64_t *c, int rank) {
  size_t n = 0;
  n += (size_t)snprintf(buf + n, cap - n, "(");
  for (int i = 0; i < rank && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "",
                          (long long)c[i]);
  if (n < cap) n += (size_t)snprintf(buf + n, cap - n, ")");
  return (int)n;
}

/* Padded CPU-side coordinate of hardware grid point number k (row-major
** over the axes). */
static void grid_coord(const li_side *s, int64_t k, int64_t *x) {
  int64_t v[LG_MAX_AXES];
  for (int j = s->naxes - 1; j >= 0; j--) {
    v[j] = k % s->ax[j].ext;
    k /= s->ax[j].ext;
  }
  for (int i = 0; i < s->rank; i++) x[i] = -s->dim[i].off;
  for (int j = 0; j < s->naxes; j++)
    if (s->ax[j].kind == LG_AX_DIGIT) x[s->ax[j].dim] += v[j] * s->ax[j].div;
}

static lay_status not_bijective(const li_side *s, int bad, lay_error *err) {
  int64_t total = 1;
  for (int j = 0; j < s->naxes; j++)
    if (mul64(total, s->ax[j].ext, &total) || total > ((int64_t)1 << 20)) {
      total = -1;
      break;
    }
  if (total > 0) {
    int64_t(*o)[2] = malloc(sizeof *o * (size_t)total);
    if (o) {
      for (int64_t k = 0; k < total; k++) {
        int64_t kk = k, off = 0;
        for (int j = s->naxes - 1; j >= 0; j--) {
          off += (kk % s->ax[j].ext) * s->ax[j].stride;
          kk /= s->ax[j].ext;
        }
        o[k][0] = off;
        o[k][1] = k;
      }
      qsort(o, (size_t)total, sizeof *o, cmp_i64pair);
      for (int64_t k = 1; k < total; k++)
        if (o[k][0] == o[k - 1][0]) {
          int64_t x1[LG_MAX_RANK], x2[LG_MAX_RANK];
          char b1[160], b2[160];
          grid_coord(s, o[k - 1][1], x1);
          grid_coord(s, o[k][1], x2);
          fmt_coord(b1, sizeof b1, x1, s->rank);
          fmt_coord(b2, sizeof b2, x2, s->rank);
          long long off = (long long)o[k][0];
          free(o);
          return fail(err, LAY_E_LAYOUT,
                      "layout is not a bijection: %s and %s both map to "
                      "offset %lld",
                      b1, b2, off);
        }
      free(o);
    }
  }
  return fail(err, LAY_E_LAYOUT,
              "layout is not a bijection: axis '%s' (stride %lld) overlaps "
              "the axes inside it",
              s->ax[bad].label ? s->ax[bad].label : "?",
              (long long)s->ax[bad].stride);
}

/* Sort axes of extent > 1 by stride ascending into ord; returns count. */
static int sorted_axes(const li_side *s, int *ord) {
  int n = 0;
  for (int j = 0; j < s->naxes; j++)
    if (s->ax[j].ext > 1) ord[n++] = j;
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && s->ax[ord[b]].stride < s->ax[ord[b - 1]].stride;
         b--) {
      int t = ord[b]; ord[b] = ord[b - 1]; ord[b - 1] = t;
    }
  return n;
}

static lay_status side_ir(li_side *s, const lg_ir *ir, const int64_t *shape,
                          int rank, lay_dtype cpu, char **pool, size_t *pool_n,
                          lay_error *err) {
  lay_status st;
  memset(s, 0, sizeof *s);
  s->rank = rank;
  s->plane_ax = -1;
  if ((st = check_shape(ir, shape, rank, err))) return st;
  if ((st = make_rule(&ir->value, cpu, shape, rank, ir, &s->v, err))) return st;
  s->esz = s->v.nplanes ? 1 : li_dt_size(s->v.hw);
  if (ir->naxes < 0 || ir->naxes > LG_MAX_AXES)
    return fail(err, LAY_E_LIMIT, "a layout has at most %d axes", LG_MAX_AXES);
  s->naxes = ir->naxes;
  for (int i = 0; i < rank; i++) {
    const lg_ir_dim *id = &ir->dim[i];
    const char *nm = id->name ? id->name : "?";
    li_sdim *d = &s->dim[i];
    int64_t after, n, P;
    d->size = shape[i];
    if ((st = eval_opt(id->lo, shape, rank, 0, &d->lo, "window start", nm, err)) ||
        (st = eval_opt(id->hi, shape, rank, shape[i], &d->hi, "window end", nm, err)) ||
        (st = eval_opt(id->before, shape, rank, 0, &d->before, "pad", nm, err)) ||
        (st = eval_opt(id->after, shape, rank, 0, &after, "pad", nm, err)))
      return st;
    if (d->lo < 0 || d->hi > shape[i] || d->lo >= d->hi)
      return fail(err, LAY_E_SHAPE,
                  "the window [%lld, %lld) of dimension '%s' is empty or "
                  "outside its size %lld",
                  (long long)d->lo, (long long)d->hi, nm, (long long)shape[i]);
    if (d->before < 0 || after < 0)
      return fail(err, LAY_E_SHAPE, "dimension '%s' has a negative pad", nm);
    n = d->hi - d->lo;
    if (add64(d->before, n, &P) || add64(P, after, &P)) return OVF(err);
    d->off = d->before - d->lo;
    /* digits of this dim, ascending div */
    d->nd = 0;
    for (int j = 0; j < ir->naxes; j++) {
      const lg_ir_axis *a = &ir->axis[j];
      if (a->kind != LG_AX_DIGIT) continue;
      if (a->dim < 0 || a->dim >= rank)
        return fail(err, LAY_E_LAYOUT, "axis %d names no dimension", j);
      if (a->dim != i) continue;
      int k = d->nd++;
      /* ascending div; on a tie (c/1 with c%1) the bounded digit first */
      while (k > 0 && (ir->axis[d->dig[k - 1]].div > a->div ||
                       (ir->axis[d->dig[k - 1]].div == a->div &&
                        ir->axis[d->dig[k - 1]].mod <= 0 && a->mod > 0))) {
        d->dig[k] = d->dig[k - 1];
        k--;
      }
      d->dig[k] = j;
    }
    int64_t chunk = 1;
    for (int k = 0; k < d->nd; k++) {
      const lg_ir_axis *a = &ir->axis[d->dig[k]];
      int64_t want = 1;
      if (k > 0) {
        const lg_ir_axis *b = &ir->axis[d->dig[k - 1]];
        if (b->mod <= 0 || mul64(b->div, b->mod, &want)) want = -1;
      }
      if (a->div != want || a->mod < 0)
        return fail(err, LAY_E_LAYOUT,
                    "the digits of dimension '%s' do not form a mixed radix "
                    "(at '%s')",
                    nm, a->label ? a->label : "?");
      if (a->mod > 0 && mul64(chunk, a->mod, &chunk)) return OVF(err);
    }
    if (P % chunk) {
      int64_t r = chunk - P % chunk;
      if (add64(P, r, &P)) return OVF(err);
    }
    if (d->nd == 0) {
      if (P != 1)
        return fail(err, LAY_E_LAYOUT,
                    "dimension '%s' (padded size %lld) appears in no axis", nm,
                    (long long)P);
    } else {
      const lg_ir_axis *top = &ir->axis[d->dig[d->nd - 1]];
      if (top->mod > 0 && P > chunk)
        return fail(err, LAY_E_LAYOUT,
                    "dimension '%s' (padded size %lld) does not fit its "
                    "digits (%lld values)",
                    nm, (long long)P, (long long)chunk);
    }
    d->ext = P;
  }
  /* axes: extents, labels */
  for (int j = 0; j < ir->naxes; j++) {
    const lg_ir_axis *a = &ir->axis[j];
    li_sax *x = &s->ax[j];
    x->kind = a->kind;
    x->dim = a->kind == LG_AX_DIGIT ? a->dim : -1;
    x->div = a->div;
    x->mod = a->mod;
    if (a->kind == LG_AX_DIGIT)
      x->ext = a->mod > 0 ? a->mod : s->dim[a->dim].ext / a->div;
    else if (a->kind == LG_AX_UNIT)
      x->ext = 1;
    else {
      if (s->v.nplanes <= 0 || s->plane_ax >= 0)
        return fail(err, LAY_E_LAYOUT,
                    "a byte-plane axis needs exactly one byte-plane rule");
      x->ext = s->v.nplanes;
      s->plane_ax = j;
    }
    const char *lb = a->label ? a->label : "?";
    size_t ln = strlen(lb) + 1;
    char *np = realloc(*pool, *pool_n + ln);
    if (!np) return fail(err, LAY_E_NOMEM, "out of memory");
    *pool = np;
    memcpy(np + *pool_n, lb, ln);
    x->label = (const char *)(uintptr_t)*pool_n; /* fixed up later */
    *pool_n += ln;
  }
  if (s->v.nplanes && s->plane_ax < 0)
    return fail(err, LAY_E_LAYOUT, "byte planes need a byte-plane axis");
  /* strides, innermost first */
  int64_t cur = 1;
  for (int j = ir->naxes - 1; j >= 0; j--) {
    const lg_ir_axis *a = &ir->axis[j];
    int64_t sd = cur, al;
    if (a->stride && eval(a->stride, shape, rank, &sd))
      return fail(err, LAY_E_OVERFLOW, "the stride of axis '%s' overflows",
                  a->label ? a->label : "?");
    if (sd < 0)
      return fail(err, LAY_E_LAYOUT, "axis '%s' has a negative stride",
                  a->label ? a->label : "?");
    if (a->align) {
      if (eval(a->align, shape, rank, &al) || al <= 0)
        return fail(err, LAY_E_LAYOUT, "axis '%s' has a bad alignment",
                    a->label ? a->label : "?");
      if (sd % al && add64(sd, al - sd % al, &sd)) return OVF(err);
    }
    s->ax[j].stride = sd;
    if (mul64(sd, s->ax[j].ext, &cur)) return OVF(err);
  }
  if (s->plane_ax >= 0) s->pstride = s->ax[s->plane_ax].stride;
  /* buffer size and bijectivity */
  int64_t span = 1, t;
  int ord[LG_MAX_AXES], no = sorted_axes(s, ord);
  for (int k = 0; k < no; k++) {
    const li_sax *a = &s->ax[ord[k]];
    if (a->stride < span) {
      s->ax[ord[k]].label = *pool + (uintptr_t)a->label;
      for (int j = 0; j < s->naxes; j++)
        if (j != ord[k]) s->ax[j].label = *pool + (uintptr_t)s->ax[j].label;
      return not_bijective(s, ord[k], err);
    }
    if (mul64(a->stride, a->ext - 1, &t) || add64(t, span, &span))
      return OVF(err);
  }
  s->nelem = span;
  if (ir->naxes > 0) {
    if (mul64(s->ax[0].ext, s->ax[0].stride, &t)) return OVF(err);
    if (t > s->nelem) s->nelem = t;
  }
  if (mul64(s->nelem, (int64_t)s->esz, &t)) return OVF(err);
  return LAY_OK;
}

static lay_status side_table(li_side *s, const lg_ir *ir, const int64_t *shape,
                             int rank, lay_dtype cpu, lay_error *err) {
  lay_status st;
  memset(s, 0, sizeof *s);
  s->rank = rank;
  s->plane_ax = -1;
  if ((st = check_shape(ir, shape, rank, err))) return st;
  if ((st = make_rule(&ir->value, cpu, shape, rank, ir, &s->v, err))) return st;
  if (s->v.nplanes)
    return fail(err, LAY_E_LAYOUT, "a gather table cannot carry byte planes");
  s->esz = li_dt_size(s->v.hw);
  int64_t n = 0, t;
  if ((st = cpu_count(shape, rank, 1, &n, err))) return st;
  if (ir->ntable <= 0) return fail(err, LAY_E_LAYOUT, "empty gather table");
  if (mul64(ir->ntable, (int64_t)sizeof(int64_t), &t) ||
      (size_t)t > LI_MAX_TABLE_BYTES)
    return fail(err, LAY_E_LIMIT, "the gather table exceeds %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  for (int64_t e = 0; e < ir->ntable; e++)
    if (ir->table[e] < -1 || ir->table[e] >= n)
      return fail(err, LAY_E_LAYOUT,
                  "gather table entry %lld is outside the tensor", (long long)e);
  s->table = malloc(sizeof *s->table);
  if (!s->table || li_gather_build(ir->table, ir->ntable, n, s->table)) {
    free(s->table);
    s->table = NULL;
    return fail(err, LAY_E_NOMEM, "out of memory");
  }
  s->nelem = ir->ntable;
  for (int i = 0; i < rank; i++) {
    s->dim[i].size = shape[i];
    s->dim[i].hi = shape[i];
    s->dim[i].ext = shape[i];
  }
  if (mul64(s->nelem, (int64_t)s->esz, &t)) return OVF(err);
  return LAY_OK;
}

static void side_free(li_side *s) {
  free(s->v.num);
  s->v.num = NULL;
  if (s->table) li_gather_free(s->table);
  free(s->table);
  s->table = NULL;
}

/* ---- Box building ----------------------------------------------------- */
/* A piece of one dimension: the refined digits' ranges. */
#define LI_MAXR (2 * LG_MAX_AXES + 1) /* refined digits of one dim */
typedef struct piece {
  int64_t start[LI_MAXR], cnt[LI_MAXR];
} piece;

/* Refinement of one dimension: common units and, per refined digit, the
** element strides on each side. */
typedef struct refdim {
  int k;                         /* refined digits */
  int64_t unit[LI_MAXR];         /* ascending */
  int64_t rad[LI_MAXR];          /* radix (0 for the top digit) */
  int64_t ss[LI_MAXR], ds[LI_MAXR];
  int64_t sconst, dconst;        /* element offsets from the pad shifts */
  int64_t off;                   /* q = x + off */
  int64_t tab;                   /* a table dimension (no common radix):
                                    li_loop.tab of its one digit, else 0 */
  int npieces;
  piece *pieces;
} refdim;

typedef struct builder {
  li_plan *p;
  lay_error *err;
  int cap;
  int lcap;
  int raw;     /* emitting holes */
  int rowi;    /* data: index of the fused row loop in emit's input, -1 */
  int64_t pre, post; /* its pads */
} builder;

static int add_piece(refdim *r, const piece *pc) {
  piece *np = realloc(r->pieces, sizeof *np * (size_t)(r->npieces + 1));
  if (!np) return -1;
  r->pieces = np;
  np[r->npieces++] = *pc;
  return 0;
}

/* Digit values of q in the refined radix. */
static void digits_of(const refdim *r, int64_t q, int64_t *dg) {
  for (int i = 0; i < r->k; i++) {
    int64_t v = q / r->unit[i];
    dg[i] = r->rad[i] ? v % r->rad[i] : v;
  }
}

/* Emit pieces for [A, B) where digits above level k agree. */
static int decomp(refdim *r, int64_t A, int64_t B, int k) {
  int64_t u = r->unit[k], a = A / u, b = (B - 1) / u;
  piece pc;
  int64_t dg[LI_MAXR];
  if ((A % u == 0 && B % u == 0) || k == 0) {
    digits_of(r, A, dg);
    for (int i = 0; i < r->k; i++) {
      if (i > k) { pc.start[i] = dg[i]; pc.cnt[i] = 1; }
      else if (i == k) { pc.start[i] = dg[i]; pc.cnt[i] = b - a + 1; }
      else { pc.start[i] = 0; pc.cnt[i] = r->rad[i]; }
    }
    return add_piece(r, &pc);
  }
  if (a == b) return decomp(r, A, B, k - 1);
  int64_t tail = -1;
  if (A % u) {
    if (decomp(r, A, (a + 1) * u, k - 1)) return -1;
    a++;
  }
  if (B % u) { tail = b * u; b--; }
  if (a <= b) {
    digits_of(r, a * u, dg);
    for (int i = 0; i < r->k; i++) {
      if (i > k) { pc.start[i] = dg[i]; pc.cnt[i] = 1; }
      else if (i == k) { pc.start[i] = dg[i]; pc.cnt[i] = b - a + 1; }
      else { pc.start[i] = 0; pc.cnt[i] = r->rad[i]; }
    }
    if (add_piece(r, &pc)) return -1;
  }
  if (tail >= 0) return decomp(r, tail, B, k - 1);
  return 0;
}

/* Decompose [A, B) (in q) into pieces. */
static int cut(refdim *r, int64_t A, int64_t B) {
  if (A >= B) return 0;
  return decomp(r, A, B, r->k - 1);
}

/* Strides of refined digits for one side's dim: element stride of each
** refined digit, and the constant from a shift `delta` (q_side = q + delta,
** delta a multiple of the side's top unit). Returns -1 when a unit is not
** in the chain. */
static int side_strides(const li_side *s, int dim, const refdim *r,
                        int64_t delta, int64_t *st, int64_t *cst) {
  const li_sdim *d = &s->dim[dim];
  *cst = 0;
  for (int i = 0; i < r->k; i++) st[i] = 0;
  if (d->nd == 0) return 0;
  for (int i = 0; i < r->k; i++) {
    int j = -1;
    for (int m = 0; m < d->nd; m++)
      if (s->ax[d->dig[m]].div <= r->unit[i]) j = m;
    if (j < 0) return -1;
    const li_sax *a = &s->ax[d->dig[j]];
    st[i] = (r->unit[i] / a->div) * a->stride;
  }
  const li_sax *top = &s->ax[d->dig[d->nd - 1]];
  *cst = delta / top->div * top->stride;
  return 0;
}

static int64_t top_unit(const li_side *s, int dim) {
  const li_sdim *d = &s->dim[dim];
  return d->nd ? s->ax[d->dig[d->nd - 1]].div : 1;
}

/* Build the refined radix of S's dim i and D's dim j; 0 ok, 1 unsupported. */
static int refine(const li_side *S, int i, const li_side *D, int j,
                  refdim *r) {
  int64_t u[LI_MAXR];
  int n = 0;
  memset(r, 0, sizeof *r);
  const li_side *sd[2] = {S, D};
  int di[2] = {i, j};
  u[n++] = 1;
  for (int s = 0; s < 2; s++) {
    const li_sdim *d = &sd[s]->dim[di[s]];
    for (int m = 0; m < d->nd; m++) {
      int64_t v = sd[s]->ax[d->dig[m]].div;
      int k;
      for (k = 0; k < n && u[k] != v; k++) {}
      if (k == n) u[n++] = v;
    }
  }
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && u[b] < u[b - 1]; b--) {
      int64_t t = u[b]; u[b] = u[b - 1]; u[b - 1] = t;
    }
  for (int a = 0; a + 1 < n; a++)
    if (u[a + 1] % u[a]) return 1;
  r->k = n;
  for (int a = 0; a < n; a++) {
    r->unit[a] = u[a];
    r->rad[a] = a + 1 < n ? u[a + 1] / u[a] : 0;
  }
  /* reference side: the one the other's shift is aligned to */
  int64_t offS = S->dim[i].off, offD = D->dim[j].off, delta = offD - offS;
  if (delta % top_unit(D, j) == 0) {
    r->off = offS;
    if (side_strides(S, i, r, 0, r->ss, &r->sconst) ||
        side_strides(D, j, r, delta, r->ds, &r->dconst))
      return 1;
  } else if (delta % top_unit(S, i) == 0) {
    r->off = offD;
    if (side_strides(S, i, r, -delta, r->ss, &r->sconst) ||
        side_strides(D, j, r, 0, r->ds, &r->dconst))
      return 1;
  } else {
    return 1;
  }
  return 0;
}

/* One dim of a single side (fills): the side's own radix. */
static void refine_one(const li_side *D, int j, refdim *r) {
  const li_sdim *d = &D->dim[j];
  memset(r, 0, sizeof *r);
  if (d->nd == 0) {
    r->k = 1;
    r->unit[0] = 1;
    r->rad[0] = 0;
  } else {
    r->k = d->nd;
    for (int m = 0; m < d->nd; m++) {
      const li_sax *a = &D->ax[d->dig[m]];
      r->unit[m] = a->div;
      r->rad[m] = m + 1 < d->nd ? a->mod : 0;
      r->ds[m] = a->stride;
    }
  }
  r->off = d->off;
}

static lay_status nomem(lay_error *err) {
  return fail(err, LAY_E_NOMEM, "out of memory");
}

/* The element offset that coordinate x of dim i contributes on side s. */
static int64_t dim_offset(const li_side *s, int i, int64_t x) {
  const li_sdim *d = &s->dim[i];
  int64_t q = x + d->off, e = 0;
  for (int m = 0; m < d->nd; m++) {
    const li_sax *a = &s->ax[d->dig[m]];
    int64_t v = q / a->div;
    e += (a->mod > 0 ? v % a->mod : v) * a->stride;
  }
  return e;
}

/* A dimension whose digits on the two sides have no common radix (c%3
** against c%4, or pads that shift one side off the other's digits):
** one table digit over its valid coordinates [lo, hi), each coordinate's
** offsets on both sides appended to p->tabs, relative to coordinate lo
** (whose offsets go into the constants). */
static lay_status tab_dim(li_plan *p, const li_side *S, int i,
                          const li_side *D, int j, int64_t lo, int64_t hi,
                          refdim *r, lay_error *err) {
  memset(r, 0, sizeof *r);
  r->k = 1;
  r->unit[0] = 1;
  int64_t n = hi > lo ? hi - lo : 0, bytes;
  if (mul64(n, 2 * (int64_t)sizeof(int64_t), &bytes) ||
      add64(bytes, p->ntabs * (int64_t)sizeof(int64_t), &bytes) ||
      (size_t)bytes > LI_MAX_TABLE_BYTES)
    return fail(err, LAY_E_LIMIT, "the plan's index tables exceed %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  int64_t *t = realloc(p->tabs, (size_t)bytes ? (size_t)bytes : 1);
  if (!t) return nomem(err);
  p->tabs = t;
  t += p->ntabs;
  r->sconst = n ? dim_offset(S, i, lo) : 0;
  r->dconst = n ? dim_offset(D, j, lo) : 0;
  for (int64_t x = 0; x < n; x++) {
    t[2 * x] = dim_offset(S, i, lo + x) - r->sconst;
    t[2 * x + 1] = dim_offset(D, j, lo + x) - r->dconst;
  }
  r->tab = p->ntabs + 1;
  p->ntabs += 2 * n;
  return LAY_OK;
}

static int cmp_loop(const void *a, const void *b) {
  const li_loop *x = a, *y = b;
  if (!x->tab != !y->tab) return x->tab ? 1 : -1; /* table loops inside */
  if (x->ds != y->ds) return x->ds > y->ds ? -1 : 1;
  if (x->ss != y->ss) return x->ss > y->ss ? -1 : 1;
  return 0;
}

/* LI_K_DEILV2 needs every source stride but the plane loop's to be a
** multiple of the block width W, so that sb % W is the first plane. */
static int deilv_ok(const li_loop *L, int n, int64_t sb, int64_t W) {
  for (int i = 0; i < n; i++)
    if (i != n - 3 && L[i].ss % W) return 0;
  return sb % W + L[n - 3].ext <= W;
}

/* Add a box from loops (any order): sort, coalesce, choose the kernel. */
static lay_status emit(builder *bd, li_loop *L, int n, int64_t sb, int64_t db,
                       int64_t cb, int fill, int pat) {
  li_plan *p = bd->p;
  int m = 0;
  int64_t pre = fill ? 0 : bd->pre, post = fill ? 0 : bd->post;
  for (int i = 0; i < n; i++)
    if (L[i].ext > 1 || (i == bd->rowi && (pre || post))) L[m++] = L[i];
  n = m;
  qsort(L, (size_t)n, sizeof *L, cmp_loop);
  m = 0;
  for (int i = 0; i < n; i++) {
    if (m > 0) {
      li_loop *o = &L[m - 1];
      if (!o->tab && !L[i].tab && o->ss == L[i].ss * L[i].ext &&
          o->ds == L[i].ds * L[i].ext && o->cs == L[i].cs * L[i].ext &&
          !(i == n - 1 && (pre || post))) {
        o->ext *= L[i].ext;
        o->ss = L[i].ss;
        o->ds = L[i].ds;
        o->cs = L[i].cs;
        continue;
      }
    }
    L[m++] = L[i];
  }
  n = m;
  if (n == 0) {
    L[0].ext = 1;
    L[0].ss = L[0].ds = L[0].cs = L[0].tab = 0;
    n = 1;
  }
  if (p->nbox == bd->cap) {
    int nc = bd->cap ? bd->cap * 2 : 16;
    li_box *nb = realloc(p->box, sizeof *nb * (size_t)nc);
    if (!nb) return nomem(bd->err);
    p->box = nb;
    bd->cap = nc;
  }
  if (p->nloops + n > bd->lcap) {
    int nc = bd->lcap * 2 + n + 16;
    li_loop *nl = realloc(p->loops, sizeof *nl * (size_t)nc);
    if (!nl) return nomem(bd->err);
    p->loops = nl;
    bd->lcap = nc;
  }
  li_box *b = &p->box[p->nbox++];
  memset(b, 0, sizeof *b);
  b->fill = fill;
  b->pat = pat;
  b->nl = n;
  b->l0 = p->nloops;
  b->sb = sb;
  b->db = db;
  b->cb = cb;
  b->pre = pre;
  b->post = post;
  memcpy(p->loops + p->nloops, L, sizeof *L * (size_t)n);
  p->nloops += n;
  const li_loop *in = &L[n - 1];
  size_t esz = p->d.esz;
  if (in->tab) { /* offset pairs: copies, or (fill) the pattern at each */
    b->raw = bd->raw;
    b->kern = LI_K_DIMTAB;
  } else if (fill) {
    int same = 1;
    for (size_t k = 1; k < esz; k++)
      if (p->pats[pat][k] != p->pats[pat][0]) same = 0;
    b->raw = bd->raw;
    b->kern = (in->ds == 1 && same && (!p->d.v.nplanes || b->raw))
                  ? LI_K_MEMSET : LI_K_FILL;
    if (pat == 1 && (p->s.v.axis >= 0 || p->d.v.axis >= 0))
      b->kern = LI_K_PADCONV; /* the source's pad, converted per channel */
  } else if (p->slow) {
    b->kern = LI_K_CONV;
    /* planes of one source run each, converted then interleaved */
    if (n >= 2 && in->ds == 1 && esz == 1 && L[n - 2].ss == 1 &&
        !p->s.v.nplanes && !p->d.v.nplanes && L[n - 2].cs == 0 &&
        (L[n - 2].ds == 2 || L[n - 2].ds == 4 || L[n - 2].ds == 8) &&
        L[n - 2].ds == pre + in->ext + post && L[n - 2].ext >= 16) {
      b->kern = LI_K_CONV_ILV;
      b->bk = (int)L[n - 2].ds;
    }
    /* 2-byte elements split bit-wise into two byte planes, rows of up to
    ** 16 contiguous destination bytes (Kneron's 1W16C8BHL) */
    if (n >= 2 && in->ds == 1 && in->ext <= 16 && !pre && !post &&
        p->s.v.kind == LI_VR_ID && !p->s.v.nplanes && p->s.esz == 2 &&
        p->d.v.kind == LI_VR_ID && p->d.v.nplanes == 2 && esz == 1 &&
        li_dt_size(p->d.v.cpu) == 2 && p->d.v.shift[0] < 16 &&
        p->d.v.shift[1] < 16 && p->d.v.shift[0] >= 0 && p->d.v.shift[1] >= 0) {
      b->kern = LI_K_SPLIT2;
      b->bk = (int)in->ext;
    }
  } else if (n >= 2 && in->ds == 1 && esz == 1 && L[n - 2].ss == 1 &&
             (L[n - 2].ds == 2 || L[n - 2].ds == 4 || L[n - 2].ds == 8) &&
             L[n - 2].ds == pre + in->ext + post && L[n - 2].ext >= 16) {
    b->kern = LI_K_ILV;
    b->bk = (int)L[n - 2].ds;
  } else if (n >= 2 && esz == 1 && in->ss == 1 && in->ds == 1 &&
             (pre || post) && L[n - 2].ss == in->ext &&
             L[n - 2].ds == pre + in->ext + post &&
             (L[n - 2].ds == 4 || L[n - 2].ds == 8 || L[n - 2].ds == 16)) {
    b->kern = LI_K_EXPAND;
    b->bk = (int)L[n - 2].ds;
  } else if (in->ss == 1 && in->ds == 1 && n >= 2 &&
             in->ext * (int64_t)esz <= 4096 &&
             (in->ext * (int64_t)esz >= 16 || (!pre && !post))) {
    b->kern = LI_K_ROWS; /* rows of contiguous bytes, pads around each */
    b->bk = (int)(in->ext * (int64_t)esz);
  } else if (in->ss == 1 && in->ds == 1 && !pre && !post) {
    b->kern = LI_K_MEMCPY;
  } else if (n >= 3 && esz == 1 && !pre && !post && in->ds == 1 &&
             (in->ss == 2 || in->ss == 4 || in->ss == 8) &&
             L[n - 2].ds == in->ext && L[n - 3].ss == 1 &&
             L[n - 3].ext <= in->ss && L[n - 3].ext * 2 > in->ss &&
             L[n - 2].ext * in->ext * in->ss <= 4096 &&
             L[n - 2].ext * in->ext >= 16 && deilv_ok(L, n, sb, in->ss)) {
    /* the inverse of LI_K_ILV2: blocks of ss elements (the plane loop
    ** L[n-3] picks k of them) copied into a tile, split into planes */
    b->kern = LI_K_DEILV2;
    b->bk = (int)in->ss;
  } else if (n >= 2 && in->ds == 1 && (esz == 1 || esz == 2 || esz == 4) &&
             pre + in->ext + post <= 64) {
    b->kern = LI_K_BLOCK;
    b->bk = (in->ext == 2 || in->ext == 3 || in->ext == 4 || in->ext == 8 ||
             in->ext == 16 || in->ext == 32) ? (int)in->ext : 0;
    /* the block reads scattered sources: walk the outer loops in source
    ** order (the block's own rows stay innermost) */
    for (int a = 1; a < n - 2; a++)
      for (int c = a; c > 0 && L[c].ss > L[c - 1].ss; c--) {
        li_loop t = L[c]; L[c] = L[c - 1]; L[c - 1] = t;
      }
    memcpy(p->loops + b->l0, L, sizeof *L * (size_t)n);
    int64_t W = pre + in->ext + post;
    if (n >= 3 && esz == 1 && L[n - 2].ss == 1 && L[n - 2].ds == W &&
        L[n - 3].ss == L[n - 2].ext && (W == 2 || W == 4 || W == 8) &&
        L[n - 3].ext * L[n - 2].ext * W <= 4096 &&
        L[n - 3].ext * L[n - 2].ext >= 16) {
      /* source rows run on across the two loops: interleave them all into
      ** a tile, then copy the tile's rows out (HCWNC8 on 7x7 planes) */
      b->kern = LI_K_ILV2;
      b->bk = (int)W;
    }
  } else if (in->ss == 1 && in->ds == 1) {
    b->kern = LI_K_MEMCPY;
  } else {
    b->kern = LI_K_COPY;
  }
  return LAY_OK;
}

/* Product of pieces over dims: data boxes. */
static lay_status data_boxes(builder *bd, refdim *R, int rank, int chdim,
                             int rowdim, int64_t K, int64_t offD) {
  int idx[LG_MAX_RANK] = {0};
  int64_t total = 1;
  for (int i = 0; i < rank; i++) {
    if (R[i].npieces == 0) return LAY_OK;
    total *= R[i].npieces;
    if (total + bd->p->nbox > LI_MAX_BOXES)
      return fail(bd->err, LAY_E_LIMIT, "the plan needs more than %d boxes",
                  LI_MAX_BOXES);
  }
  for (;;) {
    li_loop L[LG_MAX_RANK * LI_MAXR];
    int n = 0;
    int64_t sb = 0, db = 0, cb = 0;
    for (int i = 0; i < rank; i++) {
      const refdim *r = &R[i];
      const piece *pc = &r->pieces[idx[i]];
      int64_t q0 = 0;
      sb += r->sconst;
      db += r->dconst;
      for (int k = 0; k < r->k; k++) {
        sb += pc->start[k] * r->ss[k];
        db += pc->start[k] * r->ds[k];
        q0 += pc->start[k] * r->unit[k];
        if (i == rowdim && k == 0) bd->rowi = n;
        if (pc->cnt[k] > 1 || (i == rowdim && k == 0)) {
          L[n].ext = pc->cnt[k];
          L[n].ss = r->ss[k];
          L[n].ds = r->ds[k];
          L[n].cs = i == chdim ? r->unit[k] : 0;
          L[n].tab = r->tab;
          n++;
        }
      }
      if (i == chdim) cb = q0 - r->off;
      if (i == rowdim) {
        int64_t pd = (q0 + offD - r->off) % K;
        bd->pre = pd;
        bd->post = K - pd - pc->cnt[0];
      }
    }
    lay_status st = emit(bd, L, n, sb, db, cb, 0, 0);
    if (st) return st;
    int i;
    for (i = rank - 1; i >= 0; i--) {
      if (++idx[i] < R[i].npieces) break;
      idx[i] = 0;
    }
    if (i < 0) return LAY_OK;
  }
}

/* Fill boxes on D: for every dim i, pieces "valid" (V), "outside" (O) and
** "all" (F) of D's own digits; emits V0 x .. x V(i-1) x Oi x F(i+1) x ..
** for every i. */
static lay_status fill_boxes(builder *bd, refdim *V, refdim *O, refdim *F,
                             int rank, int pat, int chdim) {
  for (int i = 0; i < rank; i++) {
    refdim *sel[LG_MAX_RANK];
    int skip = 0;
    for (int k = 0; k < rank; k++) {
      sel[k] = k < i ? &V[k] : k == i ? &O[k] : &F[k];
      if (sel[k]->npieces == 0) skip = 1;
    }
    if (skip) continue;
    int64_t total = 1;
    for (int k = 0; k < rank; k++) {
      total *= sel[k]->npieces;
      if (total + bd->p->nbox > LI_MAX_BOXES)
        return fail(bd->err, LAY_E_LIMIT, "the plan needs more than %d boxes",
                    LI_MAX_BOXES);
    }
    int idx[LG_MAX_RANK] = {0};
    for (;;) {
      li_loop L[LG_MAX_RANK * LI_MAXR];
      int n = 0;
      int64_t db = 0, cb = 0;
      for (int k = 0; k < rank; k++) {
        const refdim *r = sel[k];
        const piece *pc = &r->pieces[idx[k]];
        int64_t q0 = 0;
        for (int m = 0; m < r->k; m++) {
          db += pc->start[m] * r->ds[m];
          q0 += pc->start[m] * r->unit[m];
          if (pc->cnt[m] > 1) {
            L[n].ext = pc->cnt[m];
            L[n].ss = L[n].tab = 0;
            L[n].ds = r->ds[m];
            L[n].cs = k == chdim ? r->unit[m] : 0;
            n++;
          }
        }
        if (k == chdim) cb = q0 - r->off;
      }
      lay_status st = emit(bd, L, n, 0, db, cb, 1, pat);
      if (st) return st;
      int k;
      for (k = rank - 1; k >= 0; k--) {
        if (++idx[k] < sel[k]->npieces) break;
        idx[k] = 0;
      }
      if (k < 0) break;
    }
  }
  return LAY_OK;
}

/* Holes between strided axes and after the last offset. */
static lay_status hole_boxes(builder *bd, const li_side *D, int pat) {
  bd->raw = 1;
  int ord[LG_MAX_AXES], no = sorted_axes(D, ord);
  int64_t span = 1;
  for (int k = 0; k < no; k++) {
    const li_sax *a = &D->ax[ord[k]];
    int64_t gap = a->stride - span;
    if (gap > 0) {
      li_loop L[LG_MAX_AXES + 2];
      int n = 0;
      for (int m = k + 1; m < no; m++) {
        L[n].ext = D->ax[ord[m]].ext;
        L[n].ds = D->ax[ord[m]].stride;
        L[n].ss = L[n].cs = L[n].tab = 0;
        n++;
      }
      L[n].ext = a->ext - 1;
      L[n].ds = a->stride;
      L[n].ss = L[n].cs = L[n].tab = 0;
      n++;
      L[n].ext = gap;
      L[n].ds = 1;
      L[n].ss = L[n].cs = L[n].tab = 0;
      n++;
      lay_status st = emit(bd, L, n, 0, span, 0, 1, pat);
      if (st) return st;
    }
    span += a->stride * (a->ext - 1);
  }
  if (D->nelem > span) {
    li_loop L[1] = {{D->nelem - span, 0, 1, 0, 0}};
    return emit(bd, L, 1, 0, span, 0, 1, pat);
  }
  return LAY_OK;
}

/* ---- Plan assembly ------------------------------------------------------ */
static void free_refs(refdim *r, int n) {
  for (int i = 0; i < n; i++) {
    free(r[i].pieces);
    r[i].pieces = NULL;
  }
}

/* A side's pad element as stored: the pad value in the side's hardware
** type, and with byte planes that value split into its planes like any
** element (lang/ir.h: plane k is (u >> shift) & mask of its bits u). */
static void pad_element(const li_side *x, uint8_t *out) {
  if (!x->v.nplanes) {
    li_st(x->v.hw, out, x->v.pad, LG_R_HALF_EVEN, 1);
    return;
  }
  uint8_t el[8] = {0};
  li_st(x->v.hw, el, x->v.pad, LG_R_HALF_EVEN, 1);
  uint32_t u = 0;
  for (size_t i = 0; i < li_dt_size(x->v.hw) && i < 4; i++)
    u |= (uint32_t)el[i] << (8 * i);
  for (int k = 0; k < x->v.nplanes; k++)
    out[k] = (uint8_t)((u >> x->v.shift[k]) & x->v.mask[k]);
}

/* Pad patterns: 0 = D's pad, 1 = S's pad converted to D. */
static void make_pats(li_plan *p) {
  li_side *S = &p->s, *D = &p->d;
  memset(p->pats, 0, sizeof(*p->pats) * 3);
  /* D's own pad element */
  pad_element(D, p->pats[0]);
  /* S's pad element, as S stores it, converted */
  uint8_t sel[LI_PAT_MAX] = {0}, tmp[LI_PAT_MAX * 4] = {0};
  li_side s1 = *S, d1 = *D;
  s1.pstride = 1;
  d1.pstride = 1;
  pad_element(S, sel);
  li_conv_block(&s1, &d1, sel, 0, 1, tmp, 0, 1, 1, 1, 0, 0, 0, 0, 0, NULL);
  memcpy(p->pats[1], tmp, LI_PAT_MAX);
  memcpy(p->pats[2], sel, LI_PAT_MAX); /* S's pad element as stored */
}

/* D's pads (its padded box outside its window) as fill boxes: V = D's
** window, O = outside it, F = all, per dimension (dmap[i]: D's dim for
** index i); on the fused row dimension (rowdim, rows of K) at row
** granularity. V, O and F hold rank refdims each, freed by the caller. */
static lay_status pad_boxes(builder *bd, const li_side *D, const int *dmap,
                            int rank, int rowdim, int64_t K, refdim *V,
                            refdim *O, refdim *F) {
  for (int i = 0; i < rank; i++) {
    int j = dmap[i];
    const li_sdim *b = &D->dim[j];
    int64_t A = b->before, B = b->before + b->hi - b->lo;
    if (i == rowdim) {
      A -= A % K;
      if (B % K) B += K - B % K;
      if (B > b->ext) B = b->ext;
    }
    refine_one(D, j, &V[i]);
    refine_one(D, j, &O[i]);
    refine_one(D, j, &F[i]);
    if (cut(&V[i], A, B) || cut(&O[i], 0, A) || cut(&O[i], B, b->ext) ||
        cut(&F[i], 0, b->ext))
      return nomem(bd->err);
  }
  return fill_boxes(bd, V, O, F, rank, 0, -1);
}

/* Build the boxes of p (sides filled in). dmap[i] = D's dim for S's dim i. */
static lay_status build_boxes(li_plan *p, const int *dmap, lay_error *err) {
  builder bd = {p, err, 0, 0, 0, -1, 0, 0};
  li_side *S = &p->s, *D = &p->d;
  int rank = S->rank;
  lay_status st = LAY_OK;
  refdim *R = calloc((size_t)rank * 4, sizeof *R);
  if (!R) return nomem(err);
  refdim *V = R + rank, *O = R + 2 * rank, *F = R + 3 * rank;
  p->npat = 3;
  p->pats = calloc(3, sizeof *p->pats);
  if (!p->pats) { free(R); return nomem(err); }
  make_pats(p);
  int chdim = -1;
  if (S->v.axis >= 0) chdim = S->v.axis;
  if (D->v.axis >= 0) {
    int c = -1;
    for (int i = 0; i < rank; i++)
      if (dmap[i] == D->v.axis) c = i;
    if (chdim >= 0 && chdim != c) {
      free(R);
      return fail(err, LAY_E_LAYOUT,
                  "both layouts quantize per channel along different "
                  "dimensions");
    }
    chdim = c;
  }
  /* data: a common radix per dimension, or else a table dimension */
  for (int i = 0; i < rank && !st; i++) {
    const li_sdim *a = &S->dim[i], *b = &D->dim[dmap[i]];
    int64_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
    if (refine(S, i, D, dmap[i], &R[i]) &&
        (st = tab_dim(p, S, i, D, dmap[i], lo, hi, &R[i], err)))
      break;
    if (cut(&R[i], lo + R[i].off, hi + R[i].off)) st = nomem(err);
  }
  /* Fused row padding: D's innermost axis (stride 1, the lowest digit of
  ** its dim, K values) is written whole by the data boxes, pads included,
  ** when every row meets at most one data piece, S covers D's window and
  ** no dimension needs a table loop. */
  int rowdim = -1;
  int64_t K = 0;
  if (!st && !D->v.nplanes) {
    int ok = 1, jr = -1;
    for (int i = 0; i < rank; i++) {
      const li_sdim *a = &S->dim[i], *b = &D->dim[dmap[i]];
      if (a->lo > b->lo || a->hi < b->hi) ok = 0;
      if (R[i].tab) ok = 0; /* the table loop is the innermost */
    }
    for (int j = 0; j < D->naxes; j++)
      if (D->ax[j].ext > 1 && D->ax[j].stride == 1) jr = j;
    if (ok && jr >= 0 && D->ax[jr].kind == LG_AX_DIGIT && D->ax[jr].div == 1) {
      K = D->ax[jr].ext;
      for (int i = 0; i < rank; i++)
        if (dmap[i] == D->ax[jr].dim && !R[i].tab &&
            (R[i].k == 1 || (R[i].rad[0] == K && D->ax[jr].mod == K)))
          rowdim = i;
    }
  }
  if (!st)
    st = data_boxes(&bd, R, rank, chdim, rowdim, K,
                    rowdim >= 0 ? D->dim[dmap[rowdim]].off : 0);
  bd.rowi = -1;
  bd.pre = bd.post = 0;
  if (!st) st = pad_boxes(&bd, D, dmap, rank, rowdim, K, V, O, F);
  /* elements inside D's window that S does not provide */
  if (!st) {
    free_refs(V, rank);
    free_refs(O, rank);
    free_refs(F, rank);
    int any = 0;
    for (int i = 0; i < rank && !st; i++) {
      int j = dmap[i];
      const li_sdim *a = &S->dim[i], *b = &D->dim[j];
      int64_t lo = a->lo > b->lo ? a->lo : b->lo,
              hi = a->hi < b->hi ? a->hi : b->hi;
      refine_one(D, j, &V[i]);
      refine_one(D, j, &O[i]);
      refine_one(D, j, &F[i]);
      int64_t off = b->off;
      if (lo < hi) {
        if (cut(&V[i], lo + off, hi + off)) st = nomem(err);
      }
      if (b->lo < lo) {
        any = 1;
        if (cut(&O[i], b->lo + off, (lo < b->hi ? lo : b->hi) + off)) st = nomem(err);
      }
      if (hi < b->hi) {
        any = 1;
        int64_t s0 = hi > b->lo ? hi : b->lo;
        if (cut(&O[i], s0 + off, b->hi + off)) st = nomem(err);
      }
      if (cut(&F[i], b->lo + off, b->hi + off)) st = nomem(err);
    }
    if (!st && any) st = fill_boxes(&bd, V, O, F, rank, 1, chdim);
  }
  if (!st) st = hole_boxes(&bd, D, 0);
  free_refs(R, rank * 4);
  free(R);
  return st;
}

/* The table fallback: one box, kernel TABLE. */
static lay_status table_box(li_plan *p, lay_error *err) {
  builder bd = {p, err, 0, 0, 0, -1, 0, 0};
  p->npat = 3;
  p->pats = calloc(3, sizeof *p->pats);
  if (!p->pats) return nomem(err);
  make_pats(p);
  const li_side *T = p->s.table ? &p->s : &p->d;
  li_loop L[1] = {{T->table->n, 1, 1, 0, 0}};
  lay_status st = emit(&bd, L, 1, 0, 0, 0, 0, 0);
  if (!st) p->box[0].kern = LI_K_TABLE;
  /* unpack: CPU elements no table entry names keep the pad (filled first,
  ** so the plan runs on one thread then) */
  if (!st && p->d.is_cpu && !T->table->full) {
    li_loop M[1] = {{p->d.nelem, 0, 1, 0, 0}};
    st = emit(&bd, M, 1, 0, 0, 0, 1, 1);
    if (!st) { /* run the fill first */
      li_box t = p->box[0];
      p->box[0] = p->box[1];
      p->box[1] = t;
    }
  }
  return st;
}

static void fix_labels(li_plan *p) {
  li_side *sd[2] = {&p->s, &p->d};
  for (int s = 0; s < 2; s++) {
    if (sd[s]->is_cpu || sd[s]->table) continue;
    for (int j = 0; j < sd[s]->naxes; j++)
      sd[s]->ax[j].label = p->pool + (uintptr_t)sd[s]->ax[j].label;
  }
}

/* The place of every CPU element on side X, indexed by the element's
** row-major index on the source side S (rank dims, sizes sz): X's element
** offset, or -1 where X does not hold it (outside its window, or in no
** entry of its gather table). map[i]: X's dim for S's dim i. */
static void element_places(const li_side *X, const int *map, const int64_t *sz,
                           int rank, int64_t n, int64_t *out) {
  int64_t x[LG_MAX_RANK], y[LG_MAX_RANK];
  for (int64_t c = 0; c < n; c++) out[c] = -1;
  if (X->table) { /* each hardware element names its CPU element */
    for (int64_t e = 0, len; e < X->table->n; e += len) {
      int64_t cx = li_gather_run(X->table, e, &len);
      for (int64_t k = 0; cx >= 0 && k < len; k++) {
        int64_t r = cx + k, c = 0;
        for (int j = rank - 1; j >= 0; j--) {
          y[j] = r % X->dim[j].size;
          r /= X->dim[j].size;
        }
        for (int i = 0; i < rank; i++) c = c * sz[i] + y[map[i]];
        out[c] = e + k;
      }
    }
    return;
  }
  for (int64_t c = 0; c < n; c++) {
    int64_t r = c, off = 0;
    for (int i = rank - 1; i >= 0; i--) {
      x[i] = r % sz[i];
      r /= sz[i];
    }
    int in = 1;
    for (int i = 0; i < rank && in; i++) {
      const li_sdim *d = &X->dim[map[i]];
      if (x[i] < d->lo || x[i] >= d->hi) in = 0;
      else off += dim_offset(X, map[i], x[i]);
    }
    if (in) out[c] = off;
  }
}

/* One table-loop box over the offset pairs (so[c], dof[c]) of the CPU
** elements c with a destination place: those the source holds too, copied;
** or (fill) those it does not, given pattern pat. */
static lay_status pairs_box(builder *bd, const int64_t *so, const int64_t *dof,
                            int64_t n, int fill, int pat) {
  li_plan *p = bd->p;
  int64_t cnt = 0, first = -1, bytes;
  for (int64_t c = 0; c < n; c++)
    if (dof[c] >= 0 && (so[c] >= 0) == !fill) {
      if (first < 0) first = c;
      cnt++;
    }
  if (!cnt) return LAY_OK;
  if (mul64(cnt, 2 * (int64_t)sizeof(int64_t), &bytes) ||
      add64(bytes, p->ntabs * (int64_t)sizeof(int64_t), &bytes) ||
      (size_t)bytes > LI_MAX_TABLE_BYTES)
    return fail(bd->err, LAY_E_LIMIT, "the plan's index tables exceed %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  int64_t *t = realloc(p->tabs, (size_t)bytes);
  if (!t) return nomem(bd->err);
  p->tabs = t;
  t += p->ntabs;
  int64_t s0 = fill ? 0 : so[first], d0 = dof[first], k = 0;
  for (int64_t c = first; c < n; c++)
    if (dof[c] >= 0 && (so[c] >= 0) == !fill) {
      t[2 * k] = fill ? 0 : so[c] - s0;
      t[2 * k + 1] = dof[c] - d0;
      k++;
    }
  li_loop L[1] = {{cnt, 0, 0, 0, p->ntabs + 1}};
  p->ntabs += 2 * cnt;
  return emit(bd, L, 1, s0, d0, 0, fill, pat);
}

/* A convert with a gather-table side (a transform chain with no affine
** structure): one table loop over the offset pairs of the CPU elements
** both sides hold; the destination's window elements the source lacks get
** the source's pad (a table loop writing pattern 1); the destination's
** pads and holes the usual fill boxes. Still one plan, no buffer between. */
static lay_status table_convert(li_plan *p, const int *dmap, lay_error *err) {
  li_side *S = &p->s, *D = &p->d;
  int rank = S->rank;
  if (S->v.axis >= 0 || D->v.axis >= 0)
    return fail(err, LAY_E_LAYOUT,
                "a convert through a gather table cannot quantize per channel");
  int64_t sz[LG_MAX_RANK], n = 1, bytes;
  for (int i = 0; i < rank; i++) {
    sz[i] = S->dim[i].size;
    if (mul64(n, sz[i], &n)) return OVF(err);
  }
  if (mul64(n, 2 * (int64_t)sizeof(int64_t), &bytes) ||
      (size_t)bytes > LI_MAX_TABLE_BYTES)
    return fail(err, LAY_E_LIMIT, "the plan's index tables exceed %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  int64_t *so = malloc((size_t)bytes), *dof = so ? so + n : NULL;
  refdim *R = calloc((size_t)rank * 3, sizeof *R);
  p->npat = 3;
  p->pats = calloc(3, sizeof *p->pats);
  if (!so || !R || !p->pats) {
    free(so);
    free(R);
    return nomem(err);
  }
  make_pats(p);
  int ident[LG_MAX_RANK];
  for (int i = 0; i < LG_MAX_RANK; i++) ident[i] = i;
  element_places(S, ident, sz, rank, n, so);
  element_places(D, dmap, sz, rank, n, dof);
  builder bd = {p, err, 0, 0, 0, -1, 0, 0};
  lay_status st = pairs_box(&bd, so, dof, n, 0, 0);
  if (!st) st = pairs_box(&bd, so, dof, n, 1, 1);
  free(so);
  if (!st && !D->table) {
    st = pad_boxes(&bd, D, ident, rank, -1, 0, R, R + rank, R + 2 * rank);
    if (!st) st = hole_boxes(&bd, D, 0);
  } else if (!st) { /* the table's pad entries */
    int64_t npad = 0;
    for (int64_t e = 0, len; e < D->table->n; e += len)
      if (li_gather_run(D->table, e, &len) < 0) npad += len;
    int64_t *no = npad ? malloc(2 * (size_t)npad * sizeof *no) : NULL;
    if (npad && !no) st = nomem(err);
    for (int64_t e = 0, len, k = 0; no && e < D->table->n; e += len)
      if (li_gather_run(D->table, e, &len) < 0)
        for (int64_t i = 0; i < len; i++, k++) {
          no[k] = -1;        /* no source */
          no[npad + k] = e + i;
        }
    if (no) st = pairs_box(&bd, no, no + npad, npad, 1, 0);
    free(no);
  }
  free_refs(R, rank * 3);
  free(R);
  return st;
}

static lay_status finish(li_plan *p, const int *dmap, lay_error *err) {
  lay_status st;
  int64_t b;
  if (mul64(p->s.nelem, (int64_t)p->s.esz, &b)) return OVF(err);
  p->sbytes = (size_t)b;
  if (mul64(p->d.nelem, (int64_t)p->d.esz, &b)) return OVF(err);
  p->dbytes = (size_t)b;
  p->simd = li_simd_level();
  p->s.v.simd = p->d.v.simd = p->simd;
  p->slow = !(p->s.v.kind == LI_VR_ID && p->d.v.kind == LI_VR_ID &&
              !p->s.v.nplanes && !p->d.v.nplanes && p->s.esz == p->d.esz);
  if ((p->s.table || p->d.table) && p->dir == LAY_CONVERT)
    st = table_convert(p, dmap, err);
  else if (p->s.table || p->d.table)
    st = table_box(p, err);
  else
    st = build_boxes(p, dmap, err);
  return st;
}

static lay_status resolve_dtype(const lg_ir *a, const lg_ir *b, lay_dtype dt,
                                lay_dtype *out, lay_error *err) {
  const lg_ir *irs[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    if (!irs[k]) continue;
    lay_dtype c = irs[k]->value.cpu;
    if (c == LAY_DT_NONE) continue;
    if (dt == LAY_DT_NONE) dt = c;
    else if (dt != c)
      return fail(err, LAY_E_TYPE, "--dtype %s contradicts the layout's %s",
                  li_dt_name(dt), li_dt_name(c));
  }
  if (dt == LAY_DT_NONE) dt = LAY_DT_INT8;
  if (!li_dt_size(dt)) return fail(err, LAY_E_TYPE, "unknown element type");
  *out = dt;
  return LAY_OK;
}

static lay_status cpu_side(li_side *s, const int64_t *shape, int rank,
                           lay_dtype t, lay_error *err) {
  int64_t n;
  lay_status st = cpu_count(shape, rank, li_dt_size(t), &n, err);
  if (st) return st;
  side_cpu(s, shape, rank, t);
  return LAY_OK;
}

static lay_status any_side(li_side *s, const lg_ir *ir, const int64_t *shape,
                           int rank, lay_dtype t, li_plan *p, size_t *pn,
                           lay_error *err) {
  if (ir->naxes == 0 && ir->table) return side_table(s, ir, shape, rank, t, err);
  return side_ir(s, ir, shape, rank, t, &p->pool, pn, err);
}

lay_status li_plan_build(const lg_ir *ir, const int64_t *shape, int rank,
                         lay_dtype dtype, lay_dir dir, li_plan **out,
                         lay_error *err) {
  lay_status st;
  lay_dtype t;
  *out = NULL;
  if (!ir || !shape) return fail(err, LAY_E_ARG, "missing layout or shape");
  if (rank < 1 || rank > LG_MAX_RANK || ir->rank < 1 || ir->rank > LG_MAX_RANK)
    return fail(err, rank != ir->rank ? LAY_E_SHAPE : LAY_E_LIMIT,
                "shape has %d dimensions, the layout has %d", rank, ir->rank);
  if (dir != LAY_PACK && dir != LAY_UNPACK)
    return fail(err, LAY_E_ARG, "a plan packs or unpacks");
  if ((st = resolve_dtype(ir, NULL, dtype, &t, err))) return st;
  li_plan *p = calloc(1, sizeof *p);
  if (!p) return nomem(err);
  p->dir = dir;
  p->cpu_t = t;
  size_t pn = 0;
  li_side *L = dir == LAY_PACK ? &p->d : &p->s, *C = dir == LAY_PACK ? &p->s : &p->d;
  int dmap[LG_MAX_RANK];
  for (int i = 0; i < rank; i++) dmap[i] = i;
  if ((st = check_shape(ir, shape, rank, err)) ||
      (st = cpu_side(C, shape, rank, t, err)) ||
      (st = any_side(L, ir, shape, rank, t, p, &pn, err))) {
    li_plan_free(p);
    return st;
  }
  fix_labels(p);
  p->lay = L;
  memcpy(p->dmap, dmap, sizeof dmap);
  for (int i = 0; i < rank; i++)
    snprintf(p->dname[i], sizeof p->dname[i], "%s",
             ir->dim[i].name ? ir->dim[i].name : "?");
  if ((st = finish(p, dmap, err))) {
    li_plan_free(p);
    return st;
  }
  *out = p;
  return LAY_OK;
}

lay_status li_plan_convert(const lg_ir *a, const lg_ir *b,
                           const int64_t *shape, int rank, lay_dtype dtype,
                           li_plan **out, lay_error *err) {
  lay_status st;
  lay_dtype t;
  *out = NULL;
  if (!a || !b || !shape) return fail(err, LAY_E_ARG, "missing layout or shape");
  if (rank != a->rank || rank < 1 || rank > LG_MAX_RANK)
    return fail(err, LAY_E_SHAPE, "shape has %d dimensions, the layout has %d",
                rank, a->rank);
  if (b->rank != a->rank)
    return fail(err, LAY_E_SHAPE,
                "the layouts have %d and %d dimensions", a->rank, b->rank);
  int dmap[LG_MAX_RANK], inv[LG_MAX_RANK];
  int64_t bshape[LG_MAX_RANK];
  for (int j = 0; j < rank; j++) inv[j] = -1;
  for (int i = 0; i < rank; i++) {
    const char *na = a->dim[i].name ? a->dim[i].name : "";
    dmap[i] = -1;
    for (int j = 0; j < rank; j++)
      if (b->dim[j].name && strcmp(na, b->dim[j].name) == 0) dmap[i] = j;
    if (dmap[i] < 0 || inv[dmap[i]] >= 0)
      return fail(err, LAY_E_NAME, "dimension '%s' of the source is not in the target",
                  na);
    inv[dmap[i]] = i;
    bshape[dmap[i]] = shape[i];
  }
  if ((st = resolve_dtype(a, b, dtype, &t, err))) return st;
  li_plan *p = calloc(1, sizeof *p);
  if (!p) return nomem(err);
  p->dir = LAY_CONVERT;
  p->cpu_t = t;
  size_t pn = 0;
  if ((st = any_side(&p->s, a, shape, rank, t, p, &pn, err)) ||
      (st = any_side(&p->d, b, bshape, rank, t, p, &pn, err))) {
    li_plan_free(p);
    return st;
  }
  fix_labels(p);
  p->lay = &p->d;
  memcpy(p->dmap, dmap, sizeof dmap);
  for (int i = 0; i < rank; i++)
    snprintf(p->dname[i], sizeof p->dname[i], "%s",
             a->dim[i].name ? a->dim[i].name : "?");
  if ((st = finish(p, dmap, err))) {
    li_plan_free(p);
    return st;
  }
  *out = p;
  return LAY_OK;
}

void li_plan_free(li_plan *p) {
  if (!p) return;
  side_free(&p->s);
  side_free(&p->d);
  free(p->box);
  free(p->loops);
  free(p->pats);
  free(p->tabs);
  free(p->pool);
  free(p);
}

/* ---- Queries ------------------------------------------------------------ */
size_t li_plan_src_bytes(const li_plan *p) { return p->sbytes; }
size_t li_plan_dst_bytes(const li_plan *p) { return p->dbytes; }
lay_dtype li_plan_src_dtype(const li_plan *p) {
  return p->s.v.nplanes ? LAY_DT_UINT8 : p->s.v.hw;
}
lay_dtype li_plan_dst_dtype(const li_plan *p) {
  return p->d.v.nplanes ? LAY_DT_UINT8 : p->d.v.hw;
}

int li_plan_cpu_shape(const li_plan *p, int64_t *shape, int cap) {
  for (int i = 0; i < p->s.rank && i < cap; i++) shape[i] = p->s.dim[i].size;
  return p->s.rank;
}

int li_plan_hw_shape(const li_plan *p, int64_t *shape, const char **names,
                     int cap) {
  const li_side *L = p->lay;
  if (L->table) {
    if (cap > 0) {
      shape[0] = L->table->n;
      if (names) names[0] = "table";
    }
    return 1;
  }
  for (int j = 0; j < L->naxes && j < cap; j++) {
    shape[j] = L->ax[j].ext;
    if (names) names[j] = L->ax[j].label;
  }
  return L->naxes;
}


/* ---- where / at ----------------------------------------------------------- */
lay_status li_plan_where(const li_plan *p, const int64_t *coord, int rank,
                         uint64_t *offset, lay_error *err) {
  const li_side *L = p->lay;
  if (rank != p->s.rank)
    return fail(err, LAY_E_ARG, "coordinate has %d values, the tensor has %d",
                rank, p->s.rank);
  int64_t x[LG_MAX_RANK];
  for (int i = 0; i < rank; i++) {
    if (coord[i] < 0 || coord[i] >= p->s.dim[i].size)
      return fail(err, LAY_E_ARG,
                  "coordinate %lld of dimension %d is outside its size %lld",
                  (long long)coord[i], i, (long long)p->s.dim[i].size);
    x[p->dmap[i]] = coord[i];
  }
  int64_t e = 0;
  if (L->table) {
    int64_t ci = 0;
    for (int i = 0; i < rank; i++) ci = ci * L->dim[i].size + x[i];
    e = li_gather_find(L->table, ci);
    if (e < 0)
      return fail(err, LAY_E_ARG, "the element is not in the layout");
    *offset = (uint64_t)e * L->esz;
    return LAY_OK;
  }
  for (int i = 0; i < rank; i++)
    if (x[i] < L->dim[i].lo || x[i] >= L->dim[i].hi)
      return fail(err, LAY_E_ARG,
                  "coordinate %lld of dimension %d is outside the layout's "
                  "window [%lld, %lld)",
                  (long long)x[i], i, (long long)L->dim[i].lo,
                  (long long)L->dim[i].hi);
  for (int j = 0; j < L->naxes; j++) {
    const li_sax *a = &L->ax[j];
    if (a->kind != LG_AX_DIGIT) continue;
    int64_t q = (x[a->dim] + L->dim[a->dim].off) / a->div;
    if (a->mod > 0) q %= a->mod;
    e += q * a->stride;
  }
  *offset = (uint64_t)e * L->esz;
  return LAY_OK;
}

lay_status li_plan_at(const li_plan *p, uint64_t offset, int64_t *coord,
                      int cap, int *is_pad, int *plane, lay_error *err) {
  const li_side *L = p->lay;
  int rank = p->s.rank;
  int64_t x[LG_MAX_RANK];
  *is_pad = 0;
  *plane = 0;
  if (offset >= (uint64_t)L->nelem * L->esz)
    return fail(err, LAY_E_ARG, "offset %llu is outside the %llu-byte buffer",
                (unsigned long long)offset,
                (unsigned long long)((uint64_t)L->nelem * L->esz));
  int64_t e = (int64_t)(offset / L->esz);
  if (L->table) {
    int64_t len, ci = li_gather_run(L->table, e, &len);
    if (ci < 0) {
      *is_pad = 1;
      for (int i = 0; i < rank; i++) x[i] = -1;
    } else {
      for (int i = rank - 1; i >= 0; i--) {
        x[i] = ci % L->dim[i].size;
        ci /= L->dim[i].size;
      }
    }
  } else {
    int ord[LG_MAX_AXES], no = sorted_axes(L, ord);
    int64_t v[LG_MAX_AXES] = {0}, rem = e;
    for (int k = no - 1; k >= 0; k--) {
      const li_sax *a = &L->ax[ord[k]];
      int64_t q = rem / a->stride;
      if (q >= a->ext) q = a->ext - 1;
      v[ord[k]] = q;
      rem -= q * a->stride;
    }
    if (rem != 0) {
      *is_pad = 2;
      for (int i = 0; i < cap && i < rank; i++) coord[i] = -1;
      return LAY_OK;
    }
    int64_t pc[LG_MAX_RANK] = {0};
    for (int j = 0; j < L->naxes; j++) {
      if (L->ax[j].kind == LG_AX_DIGIT) pc[L->ax[j].dim] += v[j] * L->ax[j].div;
      else if (L->ax[j].kind == LG_AX_PLANE) *plane = (int)v[j];
    }
    for (int i = 0; i < rank; i++) {
      const li_sdim *d = &L->dim[i];
      if (pc[i] < d->before || pc[i] >= d->before + (d->hi - d->lo)) *is_pad = 1;
      x[i] = pc[i] - d->off;
    }
  }
  for (int i = 0; i < cap && i < rank; i++) coord[i] = x[p->dmap[i]];
  return LAY_OK;
}

size_t li_plan_memory(const li_plan *p) {
  size_t n = (size_t)p->nbox * sizeof *p->box +
             (size_t)p->nloops * sizeof *p->loops +
             (size_t)p->npat * sizeof *p->pats +
             (size_t)p->ntabs * sizeof *p->tabs;
  if (p->s.table) n += li_gather_bytes(p->s.table);
  if (p->d.table) n += li_gather_bytes(p->d.table);
  return n;
}

/* ---- describe ------------------------------------------------------------ */
static const char *kname(li_kern k) {
  switch (k) {
  case LI_K_MEMCPY: return "memcpy";
  case LI_K_COPY: return "strided copy";
  case LI_K_BLOCK: return "block copy";
  case LI_K_ROWS: return "row copy";
  case LI_K_ILV: return "interleave";
  case LI_K_CONV_ILV: return "convert + interleave";
  case LI_K_EXPAND: return "expand";
  case LI_K_ILV2: return "interleave through a tile";
  case LI_K_DEILV2: return "deinterleave through a tile";
  case LI_K_CONV: return "convert";
  case LI_K_TABLE: return "table gather";
  case LI_K_MEMSET: return "memset";
  case LI_K_FILL: return "fill";
  case LI_K_PADCONV: return "converted pad per channel";
  case LI_K_SPLIT2: return "split into 2 byte planes";
  case LI_K_DIMTAB: return "element copy through offset pairs";
  }
  return "?";
}

static void describe_side(lg_strbuf *b, const char *what, const li_side *s) {
  if (s->is_cpu) {
    lg_sb_printf(b, "%s: CPU side %s[", what, li_dt_name(s->v.cpu));
    for (int i = 0; i < s->rank; i++)
      lg_sb_printf(b, "%s%lld", i ? "," : "", (long long)s->dim[i].size);
    lg_sb_printf(b, "], %llu bytes\n",
              (unsigned long long)((uint64_t)s->nelem * s->esz));
    return;
  }
  if (s->table) {
    const li_gather *g = s->table;
    lg_sb_printf(b, "%s: gather table of %lld %s elements: %lld tile%s of %lld",
                 what, (long long)g->n, li_dt_name(s->v.hw),
                 (long long)(g->n / g->period), g->n / g->period == 1 ? "" : "s",
                 (long long)g->period);
    if (g->nrun)
      lg_sb_printf(b, " in %lld run%s", (long long)g->nrun, g->nrun == 1 ? "" : "s");
    else
      lg_sb_printf(b, " entries");
    lg_sb_printf(b, " (%zu table bytes)\n", li_gather_bytes(g));
    return;
  }
  lg_sb_printf(b, "%s: layout %s [", what,
            s->v.nplanes ? "uint8" : li_dt_name(s->v.hw));
  for (int j = 0; j < s->naxes; j++)
    lg_sb_printf(b, "%s%s:%lld", j ? ", " : "", s->ax[j].label,
              (long long)s->ax[j].ext);
  lg_sb_printf(b, "], strides [");
  for (int j = 0; j < s->naxes; j++)
    lg_sb_printf(b, "%s%lld", j ? ", " : "", (long long)s->ax[j].stride);
  lg_sb_printf(b, "], %llu bytes\n",
            (unsigned long long)((uint64_t)s->nelem * s->esz));
  static const char *const vk[] = {"copy", "cast", "quantize", "dequantize"};
  lg_sb_printf(b, "  value: %s %s -> %s", vk[s->v.kind], li_dt_name(s->v.cpu),
            s->v.nplanes ? "uint8" : li_dt_name(s->v.hw));
  if (s->v.nplanes) lg_sb_printf(b, ", %d byte planes", s->v.nplanes);
  if (s->v.axis >= 0) lg_sb_printf(b, ", per channel along dim %d", s->v.axis);
  lg_sb_printf(b, ", pad %g\n", s->v.pad);
}

char *li_plan_describe(const li_plan *p) {
  lg_strbuf b = {0};
  static const char *const dn[] = {"pack", "unpack", "convert"};
  lg_sb_printf(&b, "plan: %s, %zu bytes in, %zu bytes out\n", dn[p->dir],
            p->sbytes, p->dbytes);
  describe_side(&b, "source", &p->s);
  describe_side(&b, "destination", &p->d);
  int ndata = 0;
  int64_t padel = 0, datael = 0;
  for (int i = 0; i < p->nbox; i++) {
    int64_t n = 1;
    for (int k = 0; k < p->box[i].nl; k++) n *= p->loops[p->box[i].l0 + k].ext;
    if (p->box[i].fill) padel += n; else { ndata++; datael += n; }
  }
  lg_sb_printf(&b, "boxes: %d (%d data: %lld elements; %d fill: %lld elements)\n",
            p->nbox, ndata, (long long)datael, p->nbox - ndata,
            (long long)padel);
  for (int i = 0; i < p->nbox; i++) {
    const li_box *x = &p->box[i];
    lg_sb_printf(&b, "  box %d: %s, %s", i,
              x->fill ? (x->raw ? "hole" : x->pat ? "source pad" : "pad") : "data",
              kname(x->kern));
    if (x->kern == LI_K_BLOCK) lg_sb_printf(&b, " %d", x->bk);
    if (x->pre || x->post)
      lg_sb_printf(&b, ", row pads %lld+%lld", (long long)x->pre,
                (long long)x->post);
    lg_sb_printf(&b, ", base src %lld dst %lld, loops", (long long)x->sb,
              (long long)x->db);
    for (int k = 0; k < x->nl; k++) {
      const li_loop *l = &p->loops[x->l0 + k];
      if (l->tab)
        lg_sb_printf(&b, " %lld(table of offset pairs)", (long long)l->ext);
      else if (x->fill)
        lg_sb_printf(&b, " %lld(dst %lld)", (long long)l->ext, (long long)l->ds);
      else
        lg_sb_printf(&b, " %lld(src %lld, dst %lld)", (long long)l->ext,
                  (long long)l->ss, (long long)l->ds);
    }
    lg_sb_printf(&b, "\n");
  }
  lg_sb_printf(&b, "tables: %zu bytes; the plan holds %zu bytes in all\n",
               (p->s.table ? li_gather_bytes(p->s.table) : 0) +
                   (p->d.table ? li_gather_bytes(p->d.table) : 0) +
                   (size_t)p->ntabs * sizeof *p->tabs,
               li_plan_memory(p));
  return lg_sb_take(&b);
}
