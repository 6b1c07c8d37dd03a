/*
** plan.c: the planner's entry points. Compiles an IR (lang/ir.h) for a
** concrete shape, dtype and direction into an immutable li_plan
** (plan_int.h), one step after another (the plan log, lay.h
** lay_ctx_set_log, can show the plan after each):
**   sides     each side (the CPU side, or an IR) is evaluated for the shape
**             into an li_side: windows, pads, digit extents, hardware
**             strides, buffer size, checked for overflow and bijectivity
**             (this file);
**   refine    every dimension's digits on the two sides are refined into
**             one common mixed radix (box.c);
**   boxes     the data, pad and hole boxes, each an affine loop nest
**             (box.c);
**   coalesce  each box's loops ordered by destination stride and
**             coalesced where the strides chain (loops.c);
**   kernels   each box given a kernel of the registry (loops.c,
**             exec/kernels.h).
** Pack is CPU side -> IR, unpack IR -> CPU side, convert IR A -> IR B:
** one code path. The queries on a plan (sizes, where/at) are here too;
** describe.c describes a plan in words.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "planner.h"

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
                            const lg_ir *ir, li_vrule *r, lay_error *err);

/* LG_V_CHAIN: each step made as a rule of its own, then moved with its
** arrays into one block, which r->num owns (plan_int.h). */
static lay_status chain_rule(const lg_ir_value *v, lay_dtype cpu,
                             const int64_t *shape, int rank,
                             const lg_ir *ir, li_vrule *r, lay_error *err) {
  li_vrule st[LG_MAX_VSTEPS];
  int n = v->nstep, nd = 0;
  lay_status s = LAY_OK;
  if (n < 1 || n > LG_MAX_VSTEPS || !v->step)
    return fail(err, LAY_E_INTERNAL, "a value chain of %d steps", n);
  memset(st, 0, sizeof st);
  for (int i = 0; i < n && !s; i++) {
    s = make_rule(&v->step[i], i ? st[i - 1].hw : cpu, shape, rank, ir,
                  &st[i], err);
    nd += st[i].num ? 4 * st[i].nch : 0;
  }
  void *blk = s ? NULL : calloc(1, sizeof st + sizeof(double) * (size_t)nd);
  if (!s && !blk) s = fail(err, LAY_E_NOMEM, "out of memory");
  li_vrule *sv = blk;
  double *a = blk ? (double *)(void *)(sv + LG_MAX_VSTEPS) : NULL;
  for (int i = 0; i < n; i++) {
    if (blk) {
      sv[i] = st[i];
      if (st[i].num) {
        int c = st[i].nch;
        memcpy(a, st[i].num, sizeof(double) * 4 * (size_t)c);
        sv[i].num = a;
        sv[i].den = a + c;
        sv[i].zp = a + 2 * c;
        sv[i].xoff = a + 3 * c;
        a += 4 * c;
        if (sv[i].axis >= 0) {
          r->axis = sv[i].axis;
          r->nch = c;
        }
      }
    }
    free(st[i].num);
  }
  if (s) return s;
  r->kind = LI_VR_CHAIN;
  r->hw = st[n - 1].hw;
  r->nstep = n;
  r->step = sv;
  r->num = blk;
  return LAY_OK;
}

static lay_status make_rule(const lg_ir_value *v, lay_dtype cpu,
                            const int64_t *shape, int rank,
                            const lg_ir *ir, li_vrule *r, lay_error *err) {
  memset(r, 0, sizeof *r);
  r->cpu = cpu;
  r->hw = v->hw != LAY_DT_NONE ? v->hw : cpu;
  r->round = (int)v->round;
  r->arith = (int)v->arith;
  r->saturate = v->saturate;
  r->axis = -1;
  r->pad = v->pad_value;
  r->pad_int = v->pad_int;
  r->pad_bits = v->pad_bits;
  { /* an open dtype meets the pad value only here (lang checks the rest):
    ** it must come back unchanged from its type, or finite for floats */
    lay_dtype pt = v->kind != LG_V_NONE && v->hw != LAY_DT_NONE ? v->hw : cpu;
    unsigned char el[8];
    li_st(pt, el, v->pad_value, LG_R_HALF_EVEN, 1);
    double back = li_ld(pt, el);
    if (pt != LAY_DT_NONE && isfinite(v->pad_value) &&
        (li_dt_is_float(pt) ? !isfinite(back) : back != v->pad_value))
      return fail(err, LAY_E_ARG, "pad_value %g does not fit %s",
                  v->pad_value, li_dt_name(pt));
  }
  if (ir && v == &ir->value && ir->nfix > 0) {
    /* a transform's pads of several values: their runs and bytes */
    lay_dtype pt = v->hw != LAY_DT_NONE ? v->hw : cpu;
    size_t nb = sizeof(int64_t) * 3 * (size_t)ir->nfix +
                (size_t)LI_FIX_EL * (size_t)ir->npadv;
    if (!ir->fix || !ir->padv || li_dt_size(pt) > LI_FIX_EL ||
        !(r->fix = calloc(1, nb)))
      return fail(err, LAY_E_NOMEM, "out of memory");
    r->nfix = ir->nfix;
    memcpy(r->fix, ir->fix, sizeof(int64_t) * 3 * (size_t)ir->nfix);
    uint8_t *pat = (uint8_t *)(r->fix + 3 * ir->nfix);
    for (int k = 0; k < ir->npadv; k++)
      li_st(pt, pat + LI_FIX_EL * k, ir->padv[k], LG_R_HALF_EVEN, 1);
  }
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
  case LG_V_CHAIN: {
    lay_status s = chain_rule(v, cpu, shape, rank, ir, r, err);
    if (s) return s;
    break;
  }
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

/* Dimension i of side s for IR ir: its window, pads, digits (ascending
** div, a mixed radix) and padded extent. */
static lay_status side_dim(li_side *s, const lg_ir *ir, const int64_t *shape,
                           int rank, int i, lay_error *err) {
  lay_status st;
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
  return LAY_OK;
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

/* The exact test (lang/inject.c) when the quick one (each axis' stride at
** least the span of the smaller ones) fails at axis `bad`: LAY_OK when the
** grid is injective all the same, else the error naming two points. */
static lay_status not_bijective(const li_side *s, int bad, lay_error *err) {
  int64_t ext[LG_MAX_AXES], str[LG_MAX_AXES], ka, kb;
  for (int j = 0; j < s->naxes; j++) {
    ext[j] = s->ax[j].ext;
    str[j] = s->ax[j].stride;
  }
  int r = lg_injective(ext, str, s->naxes, LG_INJECT_BOUND, &ka, &kb);
  if (r == 1) return LAY_OK;
  if (r == -2) return OVF(err);
  if (r == -1)
    return fail(err, LAY_E_LIMIT,
                "cannot decide whether the layout is a bijection: axis '%s' "
                "(stride %lld) and the axes it tangles with span %lld grid "
                "points (at most %lld are enumerated)",
                s->ax[bad].label ? s->ax[bad].label : "?",
                (long long)s->ax[bad].stride, (long long)ka,
                (long long)LG_INJECT_BOUND);
  int64_t x1[LG_MAX_RANK], x2[LG_MAX_RANK], off = 0;
  char b1[160], b2[160];
  grid_coord(s, ka, x1);
  grid_coord(s, kb, x2);
  fmt_coord(b1, sizeof b1, x1, s->rank);
  fmt_coord(b2, sizeof b2, x2, s->rank);
  for (int j = s->naxes - 1; j >= 0; j--) {
    off += (ka % s->ax[j].ext) * s->ax[j].stride;
    ka /= s->ax[j].ext;
  }
  return fail(err, LAY_E_LAYOUT,
              "layout is not a bijection: %s and %s both map to offset %lld",
              b1, b2, (long long)off);
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

/* A side whose strides tangle (an axis' stride below the span of the
** smaller ones) but that is a bijection all the same: its holes are not
** the nested gaps the fill boxes assume, so the side becomes a gather
** table (each hardware element names its CPU element, -1 for a pad or a
** hole). */
static lay_status tangled_table(li_side *s, const int64_t *shape, int rank,
                                lay_error *err) {
  int64_t t, grid = 1, ncpu = 1;
  if (s->v.nplanes)
    return fail(err, LAY_E_LAYOUT,
                "byte planes on a layout whose strides interleave (a stride "
                "below the span of the axes inside it) are not supported");
  if (mul64(s->nelem, (int64_t)sizeof(int64_t), &t) ||
      (size_t)t > LI_MAX_TABLE_BYTES)
    return fail(err, LAY_E_LIMIT, "the gather table exceeds %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  for (int j = 0; j < s->naxes; j++) grid *= s->ax[j].ext; /* <= nelem */
  for (int i = 0; i < rank; i++) ncpu *= shape[i];
  int64_t *tab = malloc(sizeof *tab * (size_t)s->nelem);
  if (!tab) return fail(err, LAY_E_NOMEM, "out of memory");
  for (int64_t e = 0; e < s->nelem; e++) tab[e] = -1;
  for (int64_t k = 0; k < grid; k++) {
    int64_t kk = k, off = 0, pc[LG_MAX_RANK] = {0}, ci = 0;
    for (int j = s->naxes - 1; j >= 0; j--) {
      int64_t v = kk % s->ax[j].ext;
      kk /= s->ax[j].ext;
      off += v * s->ax[j].stride;
      if (s->ax[j].kind == LG_AX_DIGIT) pc[s->ax[j].dim] += v * s->ax[j].div;
    }
    int ok = 1;
    for (int i = 0; i < rank && ok; i++) {
      const li_sdim *d = &s->dim[i];
      ok = pc[i] >= d->before && pc[i] < d->before + (d->hi - d->lo);
      ci = ci * shape[i] + (pc[i] - d->off);
    }
    if (ok) tab[off] = ci;
  }
  s->table = malloc(sizeof *s->table);
  if (!s->table || li_gather_build(tab, s->nelem, ncpu, s->table)) {
    free(tab);
    free(s->table);
    s->table = NULL;
    return fail(err, LAY_E_NOMEM, "out of memory");
  }
  free(tab);
  s->grid = malloc(sizeof *s->grid);
  if (!s->grid) return fail(err, LAY_E_NOMEM, "out of memory");
  *s->grid = *s;
  s->grid->table = NULL;
  s->grid->v.num = NULL;
  s->naxes = 0;
  s->plane_ax = -1;
  memset(s->dim, 0, sizeof s->dim);
  for (int i = 0; i < rank; i++) {
    s->dim[i].size = shape[i];
    s->dim[i].hi = shape[i];
    s->dim[i].ext = shape[i];
  }
  return LAY_OK;
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
  for (int i = 0; i < rank; i++)
    if ((st = side_dim(s, ir, shape, rank, i, err))) return st;
  /* axes: extents, labels */
  for (int j = 0; j < ir->naxes; j++) {
    const lg_ir_axis *a = &ir->axis[j];
    li_sax *x = &s->ax[j];
    x->kind = (int)a->kind;
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
  int tangled = -1;
  for (int k = 0; k < no; k++) {
    const li_sax *a = &s->ax[ord[k]];
    if (a->stride < span && tangled < 0) tangled = ord[k];
    if (mul64(a->stride, a->ext - 1, &t) || add64(t, span, &span))
      return OVF(err);
  }
  if (tangled >= 0) {
    const char *keep[LG_MAX_AXES];
    for (int j = 0; j < s->naxes; j++) {
      keep[j] = s->ax[j].label;
      s->ax[j].label = *pool + (uintptr_t)s->ax[j].label;
    }
    if ((st = not_bijective(s, tangled, err))) return st;
    for (int j = 0; j < s->naxes; j++) s->ax[j].label = keep[j];
  }
  s->nelem = span;
  if (ir->naxes > 0) {
    if (mul64(s->ax[0].ext, s->ax[0].stride, &t)) return OVF(err);
    if (t > s->nelem) s->nelem = t;
  }
  if (mul64(s->nelem, (int64_t)s->esz, &t)) return OVF(err);
  if (tangled >= 0) return tangled_table(s, shape, rank, err);
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
  free(s->grid);
  s->grid = NULL;
  free(s->v.num);
  s->v.num = NULL;
  free(s->v.fix);
  s->v.fix = NULL;
  if (s->table) li_gather_free(s->table);
  free(s->table);
  s->table = NULL;
}

/* sorted_axes, for the box builder (box.c). */
int li_sorted_axes(const li_side *s, int *ord) { return sorted_axes(s, ord); }

static void fix_labels(li_plan *p) {
  li_side *sd[2] = {&p->s, &p->d};
  for (int s = 0; s < 2; s++) {
    if (sd[s]->is_cpu || sd[s]->table) continue;
    for (int j = 0; j < sd[s]->naxes; j++)
      sd[s]->ax[j].label = p->pool + (uintptr_t)sd[s]->ax[j].label;
  }
}

static lay_status finish(li_plan *p, const int *dmap, li_plog *lg,
                         lay_error *err) {
  lay_status st;
  int64_t b;
  if (mul64(p->s.nelem, (int64_t)p->s.esz, &b)) return OVF(err);
  p->sbytes = (size_t)b;
  if (mul64(p->d.nelem, (int64_t)p->d.esz, &b)) return OVF(err);
  p->dbytes = (size_t)b;
  p->simd = li_simd_level();
  p->s.v.simd = p->d.v.simd = p->simd;
  li_vrule_prep(&p->s.v);
  li_vrule_prep(&p->d.v);
  p->slow = !(p->s.v.kind == LI_VR_ID && p->d.v.kind == LI_VR_ID &&
              !p->s.v.nplanes && !p->d.v.nplanes && p->s.esz == p->d.esz);
  if (lg) {
    li_describe_side(&lg->step, "source", &p->s);
    li_describe_side(&lg->step, "destination", &p->d);
    li_plog_step(lg, "sides");
  }
  if ((st = li_plan_boxes(p, dmap, lg, err))) return st;
  if ((st = li_plan_slabs(p, err))) return st;
  if (lg) {
    char *d = li_plan_describe(p);
    if (d) lg_sb_printf(&lg->step, "%s", d);
    free(d);
    li_plog_step(lg, "kernels");
  }
  return LAY_OK;
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

/* finish with the plan log when log asks for one. */
static lay_status finish_log(li_plan *p, const int *dmap, const li_log *log,
                             lay_error *err) {
  if (!log || !log->fn) return finish(p, dmap, NULL, err);
  li_plog lg = {log, {0}, {0}, {0}};
  lay_status st = finish(p, dmap, &lg, err);
  li_plog_free(&lg);
  return st;
}

/* The last steps of every plan: the labels into the plan's pool, the side
** where/at refer to, the dimension map and names (those of `ir`, the
** source's), the boxes (finish_log); *out on success, p freed on failure. */
static lay_status seal(li_plan *p, const li_side *lay, const lg_ir *ir,
                       const int *dmap, const li_log *log, li_plan **out,
                       lay_error *err) {
  fix_labels(p);
  p->lay = lay;
  memcpy(p->dmap, dmap, sizeof p->dmap[0] * (size_t)ir->rank);
  for (int i = 0; i < ir->rank; i++)
    snprintf(p->dname[i], sizeof p->dname[i], "%s",
             ir->dim[i].name ? ir->dim[i].name : "?");
  lay_status st = finish_log(p, dmap, log, err);
  if (st) {
    li_plan_free(p);
    return st;
  }
  *out = p;
  return LAY_OK;
}

lay_status li_plan_build(const lg_ir *ir, const int64_t *shape, int rank,
                         lay_dtype dtype, lay_dir dir, li_plan **out,
                         lay_error *err) {
  return li_plan_build_log(NULL, ir, shape, rank, dtype, dir, out, err);
}

lay_status li_plan_build_log(const li_log *log, const lg_ir *ir,
                             const int64_t *shape, int rank, lay_dtype dtype,
                             lay_dir dir, li_plan **out, lay_error *err) {
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
  return seal(p, L, ir, dmap, log, out, err);
}

lay_status li_plan_convert(const lg_ir *a, const lg_ir *b,
                           const int64_t *shape, int rank, lay_dtype dtype,
                           li_plan **out, lay_error *err) {
  return li_plan_convert_log(NULL, a, b, shape, rank, dtype, out, err);
}

lay_status li_plan_convert_log(const li_log *log, const lg_ir *a,
                               const lg_ir *b, const int64_t *shape, int rank,
                               lay_dtype dtype, li_plan **out,
                               lay_error *err) {
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
  return seal(p, &p->d, a, dmap, log, out, err);
}

void li_plan_free(li_plan *p) {
  if (!p) return;
  side_free(&p->s);
  side_free(&p->d);
  free(p->box);
  free(p->loops);
  free(p->pats);
  free(p->trg);
  free(p->mt);
  free(p->stage);
  free(p->tabs);
  free(p->pool);
  li_slabs_free(p->vs);
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

/* The CPU-side coordinate of padded coordinate pc of dimension d; 1 when
** it is a pad. A pad lies outside the tensor (lay.h), counted from its
** edge: -1 is the pad next to the window's start, size the one after its
** end, also when a slice keeps only part of the dimension (its elements
** outside the window are real, but in no place of this buffer). */
static int pad_coord(const li_sdim *d, int64_t pc, int64_t *x) {
  int64_t w = d->hi - d->lo;
  if (pc < d->before) {
    *x = pc - d->before;
    return 1;
  }
  if (pc >= d->before + w) {
    *x = d->size + (pc - d->before - w);
    return 1;
  }
  *x = pc - d->off;
  return 0;
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
  if (L->table && L->grid) { /* interleaved strides: find the grid point */
    const li_side *G = L->grid;
    int64_t grid = 1, k, pc[LG_MAX_RANK] = {0};
    for (int j = 0; j < G->naxes; j++) grid *= G->ax[j].ext;
    for (k = 0; k < grid; k++) {
      int64_t kk = k, off = 0;
      for (int j = G->naxes - 1; j >= 0; j--) {
        off += (kk % G->ax[j].ext) * G->ax[j].stride;
        kk /= G->ax[j].ext;
      }
      if (off == e) break;
    }
    if (k == grid) { /* a hole */
      *is_pad = 2;
      for (int i = 0; i < cap && i < rank; i++) coord[i] = -1;
      return LAY_OK;
    }
    for (int j = G->naxes - 1; j >= 0; j--) {
      if (G->ax[j].kind == LG_AX_DIGIT)
        pc[G->ax[j].dim] += (k % G->ax[j].ext) * G->ax[j].div;
      k /= G->ax[j].ext;
    }
    for (int i = 0; i < rank; i++) *is_pad |= pad_coord(&G->dim[i], pc[i], &x[i]);
  } else if (L->table) {
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
    for (int i = 0; i < rank; i++) *is_pad |= pad_coord(&L->dim[i], pc[i], &x[i]);
  }
  for (int i = 0; i < cap && i < rank; i++) coord[i] = x[p->dmap[i]];
  return LAY_OK;
}

size_t li_plan_memory(const li_plan *p) {
  size_t n = (size_t)p->nbox * sizeof *p->box +
             (size_t)p->nloops * sizeof *p->loops +
             (size_t)p->npat * sizeof *p->pats +
             (size_t)p->ntrg * sizeof *p->trg +
             (size_t)p->nmt * sizeof *p->mt +
             (size_t)p->nstage * sizeof *p->stage +
             (size_t)p->ntabs * sizeof *p->tabs;
  if (p->s.table) n += li_gather_bytes(p->s.table);
  if (p->d.table) n += li_gather_bytes(p->d.table);
  if (p->vs)
    n += sizeof *p->vs + (size_t)p->vs->n * sizeof *p->vs->slab +
         li_plan_memory(&p->vs->p) - (size_t)p->npat * sizeof *p->pats;
  return n;
}

