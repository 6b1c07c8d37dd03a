/*
** hsi_export.c: `lay export`: a layout of the context -> one
** flexmlrt-hsi.json entry (the annotation form when a format names it,
** else an rt_transformations chain).
*/
#define _POSIX_C_SOURCE 200809L

#include "hsi_int.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- lay export ------------------------------------------------------------------------ */

static cJSON *int_array(const int64_t *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) {
    cJSON *x = cJSON_CreateNumber((double)v[i]);
    if (!x || !cJSON_AddItemToArray(a, x)) {
      cJSON_Delete(x);
      cJSON_Delete(a);
      return NULL;
    }
  }
  return a;
}

/* Append one transformation (kind and fields) to arr; 0 or -1 on OOM. */
static int add_op(cJSON *arr, const op *o) {
  cJSON *j = cJSON_CreateObject();
  if (!j || !cJSON_AddItemToArray(arr, j)) {
    cJSON_Delete(j);
    return -1;
  }
  if (!cJSON_AddStringToObject(j, "transformation", hsi_op_names[o->k]))
    return -1;
  switch (o->k) {
  case OP_QUANT:
  case OP_DEQUANT:
  case OP_CAST:
    if (!cJSON_AddNumberToObject(j, "scale", o->scale) ||
        !cJSON_AddStringToObject(j, "to_dtype", lay_dtype_name(o->dout)) ||
        !cJSON_AddNumberToObject(j, "zero_point", o->zp))
      return -1;
    return 0;
  case OP_PAD:
    return cJSON_AddItemToObject(j, "pad_at_start", int_array(o->a, o->rin)) &&
                   cJSON_AddItemToObject(j, "pad_at_end",
                                         int_array(o->b, o->rin)) &&
                   cJSON_AddItemToObject(j, "output_shape",
                                         int_array(o->out, o->rout))
               ? 0
               : -1;
  case OP_RESHAPE:
    return cJSON_AddItemToObject(j, "output_shape", int_array(o->out, o->rout))
               ? 0
               : -1;
  case OP_TRANSPOSE:
    return cJSON_AddItemToObject(j, "perm", int_array(o->a, o->rin)) ? 0 : -1;
  case OP_SLICE:
    return cJSON_AddItemToObject(j, "start", int_array(o->a, o->rin)) &&
                   cJSON_AddItemToObject(j, "size", int_array(o->b, o->rin))
               ? 0
               : -1;
  }
  return -1;
}

/* A layout's chain for one CPU shape, built from its IR (CPU -> NPU). */
typedef struct xchain {
  op ops[6];          /* quantize, slice, pad, reshape, transpose */
  int n;
  int64_t cur[MAXR];  /* the shape after the ops so far */
  int rank;
  int64_t hw[MAXR];   /* hw_shape: the axes' extents in memory order */
  int hw_rank;
  lay_dtype cpu_dt, hw_dt; /* element types */
  double scale, zp;   /* scale_factor and zero_point (-1.0, 0: unset) */
  int window;         /* a slice or an explicit pad: no hw_format */
  char order[256];    /* the axes' labels, "[h, c/4, w, n, c%4]" */
} xchain;

/* Fill err with "cannot export 'FORMAT': why"; returns -1. */
static int xfail(lay_error *err, lay_status code, const char *format,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int xfail(lay_error *err, lay_status code, const char *format,
                 const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_error_plain(err, code, NULL, "cannot export '%s': %s", format, msg);
  return -1;
}

/* Append an op of kind k whose output is out[0..rout) to x. */
static op *xpush(xchain *x, opk k, const int64_t *out, int rout) {
  op *o = &x->ops[x->n++];
  memset(o, 0, sizeof *o);
  o->k = k;
  o->rin = x->rank;
  memcpy(o->in, x->cur, sizeof o->in);
  o->rout = rout;
  memcpy(o->out, out, (size_t)rout * sizeof *out);
  o->din = o->dout = x->hw_dt;
  x->rank = rout;
  memcpy(x->cur, o->out, sizeof x->cur);
  return o;
}

static int is_pow2(double v) {
  int e;
  return v > 0 && frexp(v, &e) == 0.5;
}

/* The value part: a quantize step (float -> integer), or the fields
** cpu_dtype, hw_dtype, scale_factor and zero_point, which give the value
** rule of a chain without such a step (implied_value reads them back). */
static int export_value(const lg_ir *ir, const char *format,
                        const lay_hsi_quant *quant, xchain *x,
                        lay_error *err) {
  char nb[32];
  const lg_ir_value *v = &ir->value;
  char why[160];
  x->scale = -1.0;
  x->zp = 0;
  if (ir->nfix)
    return xfail(err, LAY_E_LAYOUT, format,
                 "its pads store %d different values; a chain has one pad "
                 "value",
                 ir->npadv);
  if (v->kind == LG_V_CHAIN)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it has %d value ops; a chain has one quantize step",
                 v->nstep);
  if (quant) {
    lay_dtype to = quant->to ? quant->to : LAY_DT_INT8;
    if (v->kind != LG_V_NONE)
      return xfail(err, LAY_E_ARG, format,
                   "it has its own value rule; --quantize is for a layout "
                   "without one");
    if (!hsi_is_float(x->cpu_dt))
      return xfail(err, LAY_E_TYPE, format,
                   "--quantize needs a float CPU type, not %s",
                   lay_dtype_name(x->cpu_dt));
    if (hsi_is_float(to))
      return xfail(err, LAY_E_TYPE, format,
                   "--quantize quantizes to an integer type, not %s",
                   lay_dtype_name(to));
    if (lay_dtype_bits(to) == 4) /* (types20) */
      return xfail(err, LAY_E_TYPE, format,
                   "--quantize: rt_transformations have no 4-bit type "
                   "such as %s", lay_dtype_name(to));
    if (!(quant->scale > 0) || !isfinite(quant->scale))
      return xfail(err, LAY_E_ARG, format,
                   "--quantize: the scale must be positive, not %s",
                   hsi_gnum(quant->scale, nb));
    if (hsi_zp_fault(quant->zero_point, to, why, sizeof why))
      return xfail(err, LAY_E_ARG, format, "--quantize: zero point %s",
                   why);
    x->hw_dt = to;
    x->scale = quant->scale;
    x->zp = quant->zero_point;
  } else if (v->kind == LG_V_CAST) {
    if (hsi_is_float(x->cpu_dt) && hsi_is_float(x->hw_dt)) return 0; /* a plain cast */
    if (!v->saturate || (hsi_is_float(x->cpu_dt) && v->round != LG_R_HALF_EVEN))
      return xfail(err, LAY_E_LAYOUT, format,
                   "its cast %s -> %s %s; a chain rounds half to even and "
                   "saturates",
                   lay_dtype_name(x->cpu_dt), lay_dtype_name(x->hw_dt),
                   v->saturate ? "does not round half to even"
                               : "wraps around");
    x->scale = 1; /* q = sat(round(x / 1) + 0): the cast */
  } else if (v->kind == LG_V_AFFINE) {
    if (v->n != 1 || v->axis >= 0)
      return xfail(err, LAY_E_LAYOUT, format,
                   "it quantizes per channel (along '%s'); a chain has one "
                   "scale and zero point",
                   v->axis >= 0 && v->axis < ir->rank && ir->dim[v->axis].name
                       ? ir->dim[v->axis].name : "?");
    if (v->xoff[0] != 0 || v->round != LG_R_HALF_EVEN || !v->saturate)
      return xfail(err, LAY_E_LAYOUT, format,
                   "its quantization %s; a chain computes q = sat("
                   "round_half_even(x / scale) + zero_point)",
                   v->xoff[0] != 0 ? "subtracts an offset first"
                   : v->round != LG_R_HALF_EVEN ? "does not round half to even"
                                                 : "wraps around");
    /* lay computes x * num / den; a chain x / scale: the same only when
    ** scale = den / num is exact and dividing by it is multiplying. */
    double num = v->num[0], den = v->den[0];
    if (num != 1 && !(is_pow2(num) && is_pow2(den)))
      return xfail(err, LAY_E_LAYOUT, format,
                   "it multiplies by %.9g / %.9g; a chain divides by one "
                   "scale, which gives other roundings unless both are "
                   "powers of two",
                   num, den);
    x->scale = den / num;
    x->zp = v->zp[0];
    lay_dtype it = v->dequant ? x->cpu_dt : x->hw_dt;
    if (hsi_is_float(it) || (v->dequant && !hsi_is_float(x->hw_dt)))
      return xfail(err, LAY_E_LAYOUT, format,
                   "it converts %s to %s; a chain quantizes to an integer "
                   "type or dequantizes from one",
                   lay_dtype_name(x->cpu_dt), lay_dtype_name(x->hw_dt));
    if (hsi_zp_fault(x->zp, it, why, sizeof why))
      return xfail(err, LAY_E_LAYOUT, format, "its zero point %s", why);
  } else {
    return 0;
  }
  if (hsi_is_float(x->cpu_dt) && !hsi_is_float(x->hw_dt)) { /* a quantize step */
    op *o = xpush(x, OP_QUANT, x->cur, x->rank);
    o->din = x->cpu_dt;
    o->scale = x->scale;
    o->zp = x->zp;
  }
  return 0;
}

/* The digit axes of dimension d, outermost first, into ax (*n of them):
** 0, or -1 when they do not cut the padded extent P into a mixed radix
** (each digit's divisor the product of the moduli inside it). ext gets
** each axis' extent. */
static int dim_digits(const lg_ir *ir, int d, int64_t P, int *ax, int *n,
                      int64_t *ext) {
  *n = 0;
  for (int i = 0; i < ir->naxes; i++) {
    if (ir->axis[i].kind != LG_AX_DIGIT || ir->axis[i].dim != d) continue;
    int k = (*n)++;
    while (k > 0 && ir->axis[ax[k - 1]].div < ir->axis[i].div) {
      ax[k] = ax[k - 1];
      k--;
    }
    ax[k] = i;
  }
  int64_t inner = 1;
  for (int k = *n - 1; k >= 0; k--) {
    const lg_ir_axis *a = &ir->axis[ax[k]];
    if (a->div != inner || (k > 0 && a->mod <= 0)) return -1;
    ext[ax[k]] = a->mod > 0 ? a->mod : P / inner;
    if (inner > INT64_MAX / ext[ax[k]]) return -1;
    inner *= ext[ax[k]];
  }
  return *n && inner == P ? 0 : -1;
}

/* A size expression of the IR for the CPU shape; `dflt` when e is NULL. */
static int xeval(const lg_iexpr *e, const int64_t *shape, int64_t dflt,
                 int64_t *out) {
  if (!e) {
    *out = dflt;
    return 0;
  }
  return lg_iexpr_eval(e, shape, out);
}

/* The index part: slice, pad, reshape into digits, transpose. */
static int export_index(const lg_ir *ir, const char *format,
                        const int64_t *shape, int as_output, xchain *x,
                        lay_error *err) {
  char nb[32];
  int r = ir->rank, na = ir->naxes;
  if (ir->table || na == 0)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it needs a gather table (a reshape that crosses digits "
                 "after a transpose), which no chain of whole-axis steps "
                 "expresses");
  if (ir->value.nplanes)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it splits elements into byte planes, which no "
                 "rt_transformations step expresses");
  int64_t lo[LG_MAX_RANK], len[LG_MAX_RANK], pre[LG_MAX_RANK],
      post[LG_MAX_RANK], P[LG_MAX_RANK], ext[LG_MAX_AXES];
  int sliced = 0, padded = 0;
  for (int d = 0; d < r; d++) {
    const lg_ir_dim *D = &ir->dim[d];
    int64_t hi, chunk = 1;
    if (xeval(D->lo, shape, 0, &lo[d]) || xeval(D->hi, shape, shape[d], &hi) ||
        xeval(D->before, shape, 0, &pre[d]) ||
        xeval(D->after, shape, 0, &post[d]))
      return xfail(err, LAY_E_OVERFLOW, format, "a size overflows");
    len[d] = hi - lo[d];
    sliced |= lo[d] != 0 || len[d] != shape[d];
    x->window |= sliced || pre[d] || post[d];
    for (int i = 0; i < na; i++)
      if (ir->axis[i].kind == LG_AX_DIGIT && ir->axis[i].dim == d &&
          ir->axis[i].mod > 0)
        chunk *= ir->axis[i].mod;
    P[d] = pre[d] + len[d] + post[d];
    post[d] += (chunk - P[d] % chunk) % chunk; /* the implicit padding */
    P[d] = pre[d] + len[d] + post[d];
    padded |= pre[d] || post[d];
  }
  /* AMD's pad step writes +0 (its bytes: all zero). -0.0 is another value
  ** (fp16 0x8000); and as an output, unpack fills the elements a slice
  ** leaves out with the pad value, where the inverted chain's pad writes
  ** +0. */
  double pv = ir->value.pad_value;
  int plus0 = pv == 0 && !signbit(pv);
  if (padded && !plus0)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it pads with %s; rt_transformations pad with zeros",
                 hsi_gnum(pv, nb));
  if (sliced && as_output && !plus0)
    return xfail(err, LAY_E_LAYOUT, format,
                 "as an output it fills the elements the buffer does not "
                 "hold with %s; rt_transformations pad with zeros",
                 hsi_gnum(pv, nb));
  if (sliced) {
    op *o = xpush(x, OP_SLICE, len, r);
    memcpy(o->a, lo, (size_t)r * sizeof *lo);
    memcpy(o->b, len, (size_t)r * sizeof *len);
  }
  if (padded) {
    op *o = xpush(x, OP_PAD, P, r);
    memcpy(o->a, pre, (size_t)r * sizeof *pre);
    memcpy(o->b, post, (size_t)r * sizeof *post);
  }
  /* The reshape: every dimension cut into its digits, outermost first,
  ** then a 1 for each unit axis; pos[i] is axis i's place in it. */
  int64_t rs[LG_MAX_AXES];
  int pos[LG_MAX_AXES], nr = 0;
  for (int d = 0; d < r; d++) {
    int ax[LG_MAX_AXES], n;
    if (dim_digits(ir, d, P[d], ax, &n, ext))
      return xfail(err, LAY_E_LAYOUT, format,
                   "the digits of '%s' do not cut it into a mixed radix",
                   ir->dim[d].name ? ir->dim[d].name : "?");
    for (int k = 0; k < n; k++) {
      pos[ax[k]] = nr;
      rs[nr++] = ext[ax[k]];
    }
  }
  for (int i = 0; i < na; i++)
    if (ir->axis[i].kind == LG_AX_UNIT) {
      pos[i] = nr;
      ext[i] = 1;
      rs[nr++] = 1;
    }
  if (!hsi_same_shape(rs, nr, x->cur, x->rank)) xpush(x, OP_RESHAPE, rs, nr);
  /* Explicit strides and alignment must be the row-major ones. */
  int64_t natural = 1;
  for (int i = na - 1; i >= 0; i--) {
    const lg_ir_axis *a = &ir->axis[i];
    int64_t st = natural, al = 1;
    if (xeval(a->stride, shape, natural, &st) ||
        xeval(a->align, shape, 1, &al))
      return xfail(err, LAY_E_OVERFLOW, format, "a stride overflows");
    if (st != natural || (al > 0 && natural % al))
      return xfail(err, LAY_E_LAYOUT, format,
                   "axis '%s' has %s, which leaves gaps no chain expresses",
                   a->label ? a->label : "?",
                   st != natural ? "an explicit stride" : "an alignment");
    natural *= ext[i];
  }
  int64_t perm[LG_MAX_AXES];
  int identity = 1;
  size_t k = (size_t)snprintf(x->order, sizeof x->order, "[");
  for (int i = 0; i < na; i++) {
    perm[i] = pos[i];
    identity &= pos[i] == i;
    x->hw[i] = ext[i];
    if (k < sizeof x->order)
      k += (size_t)snprintf(x->order + k, sizeof x->order - k, "%s%s",
                            i ? ", " : "", ir->axis[i].label);
  }
  if (k < sizeof x->order) snprintf(x->order + k, sizeof x->order - k, "]");
  x->hw_rank = na;
  if (!identity) {
    op *o = xpush(x, OP_TRANSPOSE, x->hw, na);
    memcpy(o->a, perm, (size_t)na * sizeof *perm);
  }
  if (!x->n) xpush(x, OP_RESHAPE, x->cur, x->rank); /* never an empty chain */
  return 0;
}

/* cpu_format for a layout's dimension names, and the hw_format whose
** derivation is its memory order (F_NONE when none is). */
static void export_formats(const lg_ir *ir, const xchain *x,
                           const int64_t *shape, int rank, hsi_fmt *cf,
                           hsi_fmt *hf) {
  *cf = *hf = F_NONE;
  char nb[2];
  for (int f = 1; f < F_COUNT && !*cf; f++) {
    const hsi_format *d = &hsi_formats[f];
    int same = d->exported && d->dims && ir->rank == (int)strlen(d->dims);
    for (int i = 0; same && i < ir->rank; i++)
      same = ir->dim[i].name &&
             !strcmp(ir->dim[i].name, hsi_fmt_dim((hsi_fmt)f, i, nb));
    if (same) *cf = (hsi_fmt)f;
  }
  if (!*cf || x->window) return;
  for (int f = 1; f < F_COUNT && !*hf; f++) {
    char order[128];
    int64_t hw[MAXR];
    int hwr;
    if (hsi_formats[f].exported &&
        !hsi_fmt_derive(*cf, shape, rank, (hsi_fmt)f, order, sizeof order,
                        hw, &hwr) &&
        !strcmp(order, x->order))
      *hf = (hsi_fmt)f;
  }
}

/* The report holding the entry, as cJSON text; NULL on OOM. */
static char *export_json(const xchain *x, const int64_t *shape, int rank,
                         hsi_fmt cf, hsi_fmt hf, int as_output) {
  cJSON *root = cJSON_CreateObject();
  cJSON *ins = cJSON_AddArrayToObject(root, "inputs");
  cJSON *outs = cJSON_AddArrayToObject(root, "outputs");
  cJSON *e = cJSON_CreateObject(), *chain = NULL;
  char *text = NULL;
  if (!root || !ins || !outs || !e ||
      !cJSON_AddItemToArray(as_output ? outs : ins, e)) {
    cJSON_Delete(e);
    goto done;
  }
  /* No "name": that is the compiler's own identifier for the buffer. */
  if (!cJSON_AddItemToObject(e, "cpu_shape", int_array(shape, rank)) ||
      (cf && !cJSON_AddStringToObject(e, "cpu_format", hsi_fmt_name(cf))) ||
      !cJSON_AddStringToObject(e, "cpu_dtype", lay_dtype_name(x->cpu_dt)) ||
      !cJSON_AddItemToObject(e, "hw_shape", int_array(x->hw, x->hw_rank)) ||
      (hf && !cJSON_AddStringToObject(e, "hw_format", hsi_fmt_name(hf))) ||
      !cJSON_AddStringToObject(e, "hw_dtype", lay_dtype_name(x->hw_dt)) ||
      !cJSON_AddNumberToObject(e, "scale_factor", x->scale) ||
      !cJSON_AddNumberToObject(e, "zero_point", x->zp) ||
      !(chain = cJSON_AddArrayToObject(e, "rt_transformations")))
    goto done;
  for (int i = 0; i < x->n; i++) {
    /* outputs list the chain NPU -> CPU: the inverses, last first */
    op inv;
    if (as_output) hsi_invert_op(&x->ops[x->n - 1 - i], &inv);
    if (add_op(chain, as_output ? &inv : &x->ops[i])) goto done;
  }
  text = cJSON_Print(root);
done:
  cJSON_Delete(root);
  return text;
}

char *lay_hsi_export(lay_ctx *ctx, const char *format, const int64_t *shape,
                    int rank, lay_dtype dtype, const lay_hsi_quant *quant,
                    int as_output, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!ctx || !format || !shape) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context, format or shape");
    return NULL;
  }
  lg_ir *ir = NULL;
  lay_plan *plan = NULL;
  char *text = NULL, *out = NULL;
  xchain x;
  memset(&x, 0, sizeof x);
  if (lg_instantiate(li_ctx_module(ctx), format, &ir, err)) return NULL;
  /* The plan checks the shape and the dtype, and gives both types. */
  if (quant && !dtype) dtype = ir->value.cpu ? ir->value.cpu : LAY_DT_FP32;
  if (lay_plan_create(ctx, format, shape, rank, dtype, LAY_PACK, &plan, err))
    goto done;
  x.cpu_dt = lay_plan_src_dtype(plan);
  x.hw_dt = lay_plan_dst_dtype(plan);
  x.rank = rank;
  memcpy(x.cur, shape, (size_t)rank * sizeof *shape);
  if (export_value(ir, format, quant, &x, err) ||
      export_index(ir, format, shape, as_output, &x, err))
    goto done;
  /* What the chain gives is what lay runs: the same buffer shape. */
  int64_t ph[LAY_MAX_AXES];
  int pr = lay_plan_hw_shape(plan, ph, NULL, LAY_MAX_AXES);
  if (!hsi_same_shape(ph, pr, x.hw, x.hw_rank)) {
    xfail(err, LAY_E_INTERNAL, format,
          "the chain's hw_shape differs from the plan's (a bug in lay)");
    goto done;
  }
  hsi_fmt cf, hf;
  export_formats(ir, &x, shape, rank, &cf, &hf);
  if (!(text = export_json(&x, shape, rank, cf, hf, as_output)) ||
      !(out = malloc(strlen(text) + 2))) {
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    goto done;
  }
  snprintf(out, strlen(text) + 2, "%s\n", text);
done:
  cJSON_free(text);
  lay_plan_free(plan);
  lg_ir_free(ir);
  return out;
}
