/*
** cast8.c: conversions of the OCP 8-bit floating point formats (OCP 8-bit
** Floating Point Specification (OFP8), revision 1.0, 2023) and of int64
** for value.c's loads and stores.
**
** E4M3: sign, 4 exponent bits (bias 7), 3 mantissa bits; no infinity,
** S.1111.111 is NaN, so the largest finite value is S.1111.110 = 1.75 *
** 2^8 = 448; subnormals are m * 2^-9. E5M2: sign, 5 exponent bits (bias
** 15), 2 mantissa bits, IEEE-like: S.11111.00 is infinity, S.11111.xx NaN,
** largest finite S.11110.11 = 1.75 * 2^15 = 57344; subnormals m * 2^-16.
** Conversion from a wider format rounds to nearest even (the OFP8 spec's
** rounding); lay's `round = truncate` and `half_away` are honoured too.
** Out of range, the spec names two modes, both offered by the cast's
** `saturate` argument: saturating (lay's default, saturate = 1) clamps to
** +-max, infinities included; non-saturating (saturate = 0) gives NaN in
** E4M3 and infinity in E5M2. Rounding toward zero never overflows (the
** largest finite value, as lay's truncating fp16 cast).
*/
#include <math.h>

#include "cast8.h"
#include "ir.h"

/* The facts of one fp8 format (dtypes.h holds the same max and emin). */
typedef struct {
  int mbits;    /* stored mantissa bits */
  int bias;     /* exponent bias */
  double max;   /* largest finite value */
  uint8_t maxc; /* its code */
  uint8_t nanc; /* the NaN produced (positive) */
  int inf;      /* 1 when the format has infinities (E5M2) */
} fp8fmt;

static const fp8fmt E4M3 = {3, 7, 448.0, 0x7e, 0x7f, 0};
static const fp8fmt E5M2 = {2, 15, 57344.0, 0x7b, 0x7e, 1};

static const fp8fmt *fmt_of(lay_dtype t) {
  return t == LAY_DT_FP8E5M2 ? &E5M2 : &E4M3;
}

double li_fp8_decode(lay_dtype t, uint8_t u) {
  const fp8fmt *f = fmt_of(t);
  int ebits = 7 - f->mbits, emax = (1 << ebits) - 1;
  int e = (u >> f->mbits) & emax, m = u & ((1 << f->mbits) - 1);
  double s = (u & 0x80) ? -1.0 : 1.0;
  if (f->inf && e == emax) return m ? NAN : s * INFINITY;
  if (!f->inf && e == emax && m == (1 << f->mbits) - 1) return NAN;
  if (e == 0) return s * ldexp(m, 1 - f->bias - f->mbits);
  return s * ldexp(m + (1 << f->mbits), e - f->bias - f->mbits);
}

/* t rounded to an integer with lg_round mode. */
static double round_mode(double t, int mode) {
  if (mode == LG_R_HALF_AWAY) return round(t);
  if (mode == LG_R_TRUNC) return trunc(t);
  return nearbyint(t); /* the default floating-point mode: nearest even */
}

uint8_t li_fp8_encode(lay_dtype t, double v, int round, int saturate) {
  const fp8fmt *f = fmt_of(t);
  uint8_t sign = signbit(v) ? 0x80 : 0;
  if (isnan(v)) return (uint8_t)(sign | f->nanc);
  double a = fabs(v);
  int over_max = round == LG_R_TRUNC || saturate;
  if (isinf(a))
    return (uint8_t)(sign | (saturate ? f->maxc : f->inf ? 0x7c : f->nanc));
  /* the quantum at a: 2^(exponent - mbits), no finer than the subnormals' */
  int emin = 1 - f->bias, k;
  (void)frexp(a, &k); /* a = x * 2^k, 0.5 <= x < 1: exponent k - 1 */
  int e = k - 1 < emin ? emin : k - 1;
  double q = round_mode(ldexp(a, f->mbits - e), round);
  double r = ldexp(q, e - f->mbits);
  if (r > f->max)
    return (uint8_t)(sign | (over_max ? f->maxc : f->inf ? 0x7c : f->nanc));
  if (r < ldexp(1.0, emin)) /* subnormal (or zero): the count of quanta */
    return (uint8_t)(sign | (uint8_t)ldexp(r, f->bias - 1 + f->mbits));
  (void)frexp(r, &k);
  int be = k - 1 + f->bias;
  int m = (int)ldexp(r, f->mbits - (k - 1)) - (1 << f->mbits);
  return (uint8_t)(sign | (be << f->mbits) | m);
}

int64_t li_i64_of(double q, int saturate) {
  if (q != q) return 0;
  if (q >= 0x1p63) return saturate ? INT64_MAX : INT64_MIN; /* 2^63 wraps */
  if (q < -0x1p63) return INT64_MIN;
  return (int64_t)q;
}
