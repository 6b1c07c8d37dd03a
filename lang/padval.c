/*
** padval.c: one element value through the value rule at compile time (see
** padval.h): the pad values of transform chains, and the range checks of
** pad values. The arithmetic is the executor's (interp/exec/value.c), so
** a pad stores the bytes a CPU element of the same value would.
*/
#include <math.h>
#include <stdint.h>

#include "dtypes.h"
#include "padval.h"

/* The range of an integer type (dtypes.h): lo and hi as doubles (int64's
** and uint64's hi round up to 2^63 and 2^64, which the executor's store
** saturates back to hi), and hi1 = hi + 1 exact. */
static void int_limits(lay_dtype t, double *lo, double *hi, double *hi1) {
  lg_dtype_drange(t, lo, hi1);
  *hi = *hi1 - 1;
}

/* Round half to even to an integer (|t| < 2^52 has a fraction). */
static double half_even(double t) {
  if (fabs(t) < 0x1p52) {
    double m = copysign(0x1p52, t);
    return (t + m) - m;
  }
  return t;
}

static double rnd(double t, lg_round mode) {
  if (mode == LG_R_HALF_AWAY) return round(t);
  if (mode == LG_R_TRUNC) return trunc(t);
  return half_even(t);
}

/* v rounded to nearest even in float type t (inf past the largest), or
** toward zero with LG_R_TRUNC (the largest finite past it): the
** executor's fp16/bf16 casts. */
static double round_float(lay_dtype t, double v, int bits, int emin,
                          double max, lg_round mode) {
  int tr = mode == LG_R_TRUNC && t != LAY_DT_FP32;
  if (v == 0 || !isfinite(v)) return v;
  int e;
  (void)frexp(v, &e);
  if (e < emin) e = emin;
  double m = ldexp(v, bits - e);
  double r = ldexp(tr ? trunc(m) : half_even(m), e - bits);
  return fabs(r) > max ? copysign(tr ? max : INFINITY, v) : r;
}

int lg_value_of(lay_dtype t, double v, double *out) {
  int bits, emin;
  double max;
  *out = v;
  if (t == LAY_DT_NONE) return 0;
  if (lg_dtype_float(t, &bits, &emin, &max)) {
    if (isnan(v)) return 0;
    *out = round_float(t, v, bits, emin, max, LG_R_HALF_EVEN);
    return isfinite(*out) ? 0 : -1;
  }
  return lg_dtype_holds(t, v) ? 0 : -1;
}

int lg_pad_fits(lay_dtype t, const lg_ir_value *v) {
  double r;
  if (!v->pad_int || t == LAY_DT_NONE || lg_dtype_is_float(t))
    return lg_value_of(t, v->pad_value, &r);
  int64_t lo;
  uint64_t hi;
  lg_dtype_range(t, &lo, &hi);
  if (v->pad_int == 2) return v->pad_bits <= hi ? 0 : -1;
  int64_t x = (int64_t)v->pad_bits;
  return x >= lo && (x < 0 || (uint64_t)x <= hi) ? 0 : -1;
}

/* An integral double stored in integer type t: saturated, or wrapped
** (two's complement, as the executor's truncating store). */
static double to_int(lay_dtype t, double q, int saturate) {
  double lo, hi, hi1;
  int_limits(t, &lo, &hi, &hi1);
  if (q != q || q == 0) return 0; /* an integer has no -0 */
  if (saturate) return q < lo ? lo : q >= hi1 ? hi : q;
  double span = hi1 - lo;
  if (t == LAY_DT_UINT64) /* the executor's: -2^63 .. 2^64 modulo 2^64 */
    return q >= 0 && q < hi1 ? q : q < 0 ? fmax(q, -0x1p63) + 0x1p64 : 0;
  if (!(fabs(q) < 0x1p63)) return 0;
  double m = fmod(q - lo, span);
  if (m < 0) m += span;
  return m + lo;
}

/* x converted to type t as the executor stores a double (li_st). */
static double store(lay_dtype t, double x, lg_round mode, int saturate) {
  int bits, emin;
  double max;
  if (t == LAY_DT_NONE) return x;
  if (lg_dtype_float(t, &bits, &emin, &max))
    return isnan(x) ? x : round_float(t, x, bits, emin, max, mode);
  return to_int(t, rnd(x, mode), saturate);
}

/* The affine formula in float32 (arith = f32, f32_div), as the
** executor's quant_run_f32 / dequant_run_f32. */
static double affine_f32(const lg_ir_value *r, int ch, double x) {
  float k = (float)r->num[ch] / (float)r->den[ch];
  if (!r->dequant)
    return rnd((double)(((float)x - (float)r->xoff[ch]) * k), r->round) +
           r->zp[ch];
  float t = (float)(x - r->zp[ch]), v;
  if (r->arith == LG_A_F32_DIV) v = t / k;
  else v = t * ((float)r->den[ch] / (float)r->num[ch]);
  return (double)(float)((double)v + r->xoff[ch]);
}

double lg_value_apply(const lg_ir_value *r, int ch, double x) {
  return lg_value_apply_from(r, 0, ch, x);
}

double lg_value_apply_from(const lg_ir_value *r, int from, int ch, double x) {
  if (r->kind == LG_V_CHAIN) {
    for (int i = from; i < r->nstep; i++)
      x = lg_value_apply_from(&r->step[i], 0, ch, x);
    return x;
  }
  if (from > 0) return x;
  lay_dtype hw = r->hw != LAY_DT_NONE ? r->hw : r->cpu;
  if (ch < 0 || ch >= r->n) ch = 0;
  switch (r->kind) {
  case LG_V_CAST: return store(hw, x, r->round, r->saturate);
  case LG_V_AFFINE:
    if (r->arith != LG_A_EXACT)
      return store(hw, affine_f32(r, ch, x), r->round, r->saturate);
    if (r->dequant)
      return store(hw, (x - r->zp[ch]) * r->den[ch] / r->num[ch] +
                           r->xoff[ch], r->round, r->saturate);
    return store(hw,
                 rnd((x - r->xoff[ch]) * r->num[ch] / r->den[ch], r->round) +
                     r->zp[ch],
                 r->round, r->saturate);
  default: return x;
  }
}
