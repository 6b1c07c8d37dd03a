/*
** value.c: element types and value conversions for the executor.
**
** Loads and stores of every lay_dtype (fp16 and bf16 round to nearest
** even and keep NaNs), and the encode/decode rules of lg_ir_value
** (cast, quantize, dequantize) applied to contiguous runs. A run goes
** through a small stack tile of doubles: one typed load loop, one loop
** for the formula, one typed store loop, each a tight loop per type.
*/
#include <math.h>
#include <string.h>

#include "cast8.h"
#include "dtypes.h"
#include "pair16.h"
#include "plan_int.h"
#include "value_simd.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* The facts of each type are dtypes.h's table. */
size_t li_dt_size(lay_dtype t) { return lg_dtype_size(t); }

const char *li_dt_name(lay_dtype t) { return lg_dtype_name(t); }

int li_dt_is_float(lay_dtype t) { return lg_dtype_is_float(t); }

/* ---- fp16 / bf16 -------------------------------------------------------- */
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

uint16_t li_f32_to_bf16(float f) {
  uint32_t u = f2u(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: keep sign and payload top */
    return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

float li_bf16_to_f32(uint16_t h) { return u2f((uint32_t)h << 16); }

uint16_t li_f32_to_f16(float f) {
  uint32_t u = f2u(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) /* NaN */
    return (uint16_t)(sign | 0x7e00 | ((a >> 13) & 0x3ff));
  if (a >= 0x477ff000u) /* rounds to >= 65520: infinity */
    return (uint16_t)(sign | 0x7c00);
  if (a < 0x38800000u) { /* below the smallest normal: subnormal or zero */
    if (a < 0x33000000u) return sign; /* < 2^-25: rounds to zero */
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    int sh = (int)(126 - e); /* value / 2^-24 = m >> sh, 14 <= sh <= 24 */
    uint32_t q = m >> sh, rem = m & ((1u << sh) - 1), half = 1u << (sh - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return (uint16_t)(sign | q);
  }
  uint32_t r = a - 0x38000000u; /* rebias exponent 127 -> 15 */
  uint32_t q = r >> 13, rem = r & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) q++;
  return (uint16_t)(sign | q);
}

float li_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f,
           m = h & 0x3ff;
  if (e == 0x1f) return u2f(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    float v = (float)m * 0x1p-24f;
    return sign ? -v : v;
  }
  return u2f(sign | ((e + 112) << 23) | (m << 13));
}

/* double -> float rounding to odd: a later rounding to fp16/bf16 (fewer
** than 22 bits) is then the correctly rounded result of the double. */
static float f_odd(double d) {
  float f = (float)d;
  if (isnan(d) || (double)f == d) return f;
  if (fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
  if ((double)f != d) f = u2f(f2u(f) | 1u);
  return f;
}

/* ---- Truncating casts (round = truncate) --------------------------------- */
/* fp32 -> bf16 dropping the low 16 bits, as AMD VART-ML's default
** float_to_bf16 (`if32 >> 16`): toward zero, and a NaN whose payload lies
** only in the low bits becomes an infinity there too. */
static uint16_t bf16_trunc(float f) { return (uint16_t)(f2u(f) >> 16); }

/* fp32 -> fp16 toward zero: past the largest finite fp16 gives 65504,
** below 2^-24 gives zero; NaNs as li_f32_to_f16. */
static uint16_t f16_trunc(float f) {
  uint32_t u = f2u(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000);
  uint32_t a = u & 0x7fffffffu;
  if (a >= 0x7f800000u) return li_f32_to_f16(f); /* NaN, infinity */
  if (a >= 0x47800000u) return (uint16_t)(sign | 0x7bff); /* >= 65536 */
  if (a < 0x38800000u) { /* below the smallest normal */
    if (a < 0x33800000u) return sign; /* < 2^-24 */
    uint32_t e = a >> 23, m = (a & 0x7fffffu) | 0x800000u;
    return (uint16_t)(sign | (m >> (126 - e)));
  }
  return (uint16_t)(sign | ((a - 0x38000000u) >> 13));
}

/* double -> float toward zero (a later truncation to fp16/bf16 is then the
** truncation of the double). */
static float f_trunc(double d) {
  float f = (float)d;
  if (!isnan(d) && fabs((double)f) > fabs(d)) f = nextafterf(f, 0.0f);
  return f;
}

/* A double stored as fp16/bf16 with the rule's rounding. */
static uint16_t half_of(lay_dtype t, double v, int round) {
  if (round == LG_R_TRUNC)
    return t == LAY_DT_FP16 ? f16_trunc(f_trunc(v)) : bf16_trunc(f_trunc(v));
  return t == LAY_DT_FP16 ? li_f32_to_f16(f_odd(v)) : li_f32_to_bf16(f_odd(v));
}

/* ---- Rounding and integer ranges ---------------------------------------- */
static double rnd(double t, int mode) {
  if (mode == LG_R_HALF_AWAY) return round(t);
  if (mode == LG_R_TRUNC) return trunc(t);
  if (fabs(t) < 0x1p52) { /* nearest even in the default rounding mode */
    double m = copysign(0x1p52, t);
    return (t + m) - m;
  }
  return t;
}

static void int_range(lay_dtype t, double *lo, double *hi) {
  int64_t l;
  uint64_t h;
  lg_dtype_range(t, &l, &h);
  *lo = (double)l;
  *hi = (double)h;
}

/* An integral double as uint64 with saturation to 0 .. 2^64 - 1 (NaN gives
** 0), or without: wrap-around modulo 2^64 of a value clamped to -2^63 ..
** 2^64 first (as li_i64_of for int64). */
static uint64_t u64_of(double q, int saturate) {
  if (q != q) return 0;
  if (q >= 0x1p64) return saturate ? UINT64_MAX : 0; /* 2^64 wraps to 0 */
  if (q >= 0) return (uint64_t)q;
  if (saturate) return 0;
  return (uint64_t)(q < -0x1p63 ? INT64_MIN : (int64_t)q);
}

/* An integral double to the integer type's bit pattern. */
static int64_t to_int(lay_dtype t, double q, int saturate) {
  if (q != q) return 0;
  if (saturate) {
    double lo, hi;
    int_range(t, &lo, &hi);
    if (q < lo) q = lo;
    if (q > hi) q = hi;
    return (int64_t)q;
  }
  if (q < -0x1p63) q = -0x1p63;
  if (q >= 0x1p63) q = 0x1.fffffffffffffp62;
  return (int64_t)q; /* stored with wrap-around by truncation */
}

double li_ld(lay_dtype t, const void *p) {
  switch (t) {
  case LAY_DT_FP32: { float f; memcpy(&f, p, 4); return f; }
  case LAY_DT_FP16: { uint16_t h; memcpy(&h, p, 2); return li_f16_to_f32(h); }
  case LAY_DT_BF16: { uint16_t h; memcpy(&h, p, 2); return li_bf16_to_f32(h); }
  case LAY_DT_INT8: return *(const int8_t *)p;
  case LAY_DT_UINT8: return *(const uint8_t *)p;
  case LAY_DT_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
  case LAY_DT_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
  case LAY_DT_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
  case LAY_DT_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
  case LAY_DT_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
  case LAY_DT_UINT64: { uint64_t v; memcpy(&v, p, 8); return (double)v; }
  case LAY_DT_INT4: return *(const int8_t *)p;   /* one nibble per byte */
  case LAY_DT_UINT4: return *(const uint8_t *)p; /* (interp/api/nibble.c) */
  case LAY_DT_FP8E4M3: case LAY_DT_FP8E5M2:
    return li_fp8_decode(t, *(const uint8_t *)p);
  default: return 0;
  }
}

void li_st(lay_dtype t, void *p, double v, int round, int saturate) {
  switch (t) {
  case LAY_DT_FP32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case LAY_DT_FP16: case LAY_DT_BF16: {
    uint16_t h = half_of(t, v, round);
    memcpy(p, &h, 2);
    return;
  }
  case LAY_DT_FP8E4M3: case LAY_DT_FP8E5M2:
    *(uint8_t *)p = li_fp8_encode(t, v, round, saturate);
    return;
  case LAY_DT_INT64: {
    int64_t w = li_i64_of(rnd(v, round), saturate);
    memcpy(p, &w, 8);
    return;
  }
  case LAY_DT_UINT64: {
    uint64_t w = u64_of(rnd(v, round), saturate);
    memcpy(p, &w, 8);
    return;
  }
  default: break;
  }
  int64_t q = to_int(t, rnd(v, round), saturate);
  switch (t) {
  case LAY_DT_INT8: case LAY_DT_UINT8: case LAY_DT_INT4: case LAY_DT_UINT4:
    *(uint8_t *)p = (uint8_t)q;
    return;
  case LAY_DT_INT16: case LAY_DT_UINT16: {
    uint16_t w = (uint16_t)(uint64_t)q; memcpy(p, &w, 2); return;
  }
  case LAY_DT_INT32: case LAY_DT_UINT32: {
    uint32_t w = (uint32_t)(uint64_t)q; memcpy(p, &w, 4); return;
  }
  default: return;
  }
}

/* ---- Runs ----------------------------------------------------------------- */
#define TILE 256

static void ld_run(lay_dtype t, const void *src, double *x, int64_t n) {
  int64_t i;
  switch (t) {
#define LD(T, CT, EXPR)                                    \
  case T: {                                                \
    const uint8_t *s = src;                                \
    for (i = 0; i < n; i++) {                              \
      CT v; memcpy(&v, s + i * (int64_t)sizeof(CT), sizeof(CT)); \
      x[i] = EXPR;                                         \
    }                                                      \
    return;                                                \
  }
  LD(LAY_DT_FP32, float, v)
  LD(LAY_DT_FP16, uint16_t, li_f16_to_f32(v))
  LD(LAY_DT_BF16, uint16_t, li_bf16_to_f32(v))
  LD(LAY_DT_INT8, int8_t, v)
  LD(LAY_DT_UINT8, uint8_t, v)
  LD(LAY_DT_INT16, int16_t, v)
  LD(LAY_DT_UINT16, uint16_t, v)
  LD(LAY_DT_INT32, int32_t, v)
  LD(LAY_DT_UINT32, uint32_t, v)
  LD(LAY_DT_INT64, int64_t, (double)v)
  LD(LAY_DT_UINT64, uint64_t, (double)v)
  LD(LAY_DT_INT4, int8_t, v)
  LD(LAY_DT_UINT4, uint8_t, v)
#undef LD
  case LAY_DT_FP8E4M3: case LAY_DT_FP8E5M2: /* cast8.c's table */
    li_fp8_to_f64(t, src, x, n);
    return;
  default: for (i = 0; i < n; i++) x[i] = 0; return;
  }
}

static void st_run(lay_dtype t, void *dst, const double *x, int64_t n,
                   int round, int saturate) {
  int64_t i;
  uint8_t *d = dst;
  switch (t) {
  case LAY_DT_FP32:
    for (i = 0; i < n; i++) { float f = (float)x[i]; memcpy(d + 4 * i, &f, 4); }
    return;
  case LAY_DT_INT8: case LAY_DT_UINT8: case LAY_DT_INT16:
  case LAY_DT_UINT16: case LAY_DT_INT32: case LAY_DT_UINT32:
  case LAY_DT_INT4: case LAY_DT_UINT4: {
    double lo, hi;
    size_t sz = li_dt_size(t);
    int_range(t, &lo, &hi);
    for (i = 0; i < n; i++) {
      double q = rnd(x[i], round);
      int64_t v;
      if (saturate) {
        if (!(q >= lo)) q = q != q ? 0 : lo; /* also maps NaN to 0 */
        if (q > hi) q = hi;
        v = (int64_t)q;
      } else {
        v = to_int(t, q, 0);
      }
      if (sz == 1) d[i] = (uint8_t)v;
      else if (sz == 2) { uint16_t w = (uint16_t)(uint64_t)v; memcpy(d + 2 * i, &w, 2); }
      else { uint32_t w = (uint32_t)(uint64_t)v; memcpy(d + 4 * i, &w, 4); }
    }
    return;
  }
  case LAY_DT_FP8E4M3: case LAY_DT_FP8E5M2:
    li_fp8_of_f64(t, x, d, n, round, saturate);
    return;
  default:
    for (i = 0; i < n; i++) li_st(t, d + li_dt_size(t) * (size_t)i, x[i], round, saturate);
    return;
  }
}

/* LG_A_F32, LG_A_F32_DIV: the formula in float32, one operation at a
** time, as the vendors' runtimes compute it (TIDL-RT: `(x - zp) * (scale /
** inScale)` with float operands; AMD VART-ML: `x * coeff`, coeff = 1 /
** scale; Kneron PLUS: `x * (scale * 2^radix)`): k = f32(num) / f32(den),
** then f32(f32(x - xoff) * k), rounded with the rule's rounding.
** Dequantizing, LG_A_F32 multiplies by f32(den) / f32(num) (TIDL-RT: `q *
** (1.0f / outTensorScale)`), LG_A_F32_DIV divides by k (Kneron PLUS:
** `(float)q / factor`; VART-ML: `q / coeff`). */
static void quant_run_f32(const li_vrule *r, double *x, int64_t n,
                          const int32_t *ch) {
  for (int64_t i = 0; i < n; i++) {
    int c = r->nch <= 1 || r->axis < 0 || !ch ? 0 : ch[i];
    float k = (float)r->num[c] / (float)r->den[c];
    float t = (float)x[i] - (float)r->xoff[c];
    float q = t * k;
    x[i] = rnd((double)q, r->round) + r->zp[c];
  }
}

static void dequant_run_f32(const li_vrule *r, double *x, int64_t n,
                            const int32_t *ch) {
  int div = r->arith == LG_A_F32_DIV;
  for (int64_t i = 0; i < n; i++) {
    int c = r->nch <= 1 || r->axis < 0 || !ch ? 0 : ch[i];
    float t = (float)(x[i] - r->zp[c]), v;
    if (div) v = t / ((float)r->num[c] / (float)r->den[c]);
    else v = t * ((float)r->den[c] / (float)r->num[c]);
    x[i] = (double)(float)((double)v + r->xoff[c]);
  }
}

static void quant_run(const li_vrule *r, double *x, int64_t n,
                      const int32_t *ch) {
  int64_t i;
  if (r->arith != LG_A_EXACT) {
    quant_run_f32(r, x, n, ch);
    return;
  }
  if (r->nch <= 1 || r->axis < 0) {
    double xo = r->xoff[0], nu = r->num[0], de = r->den[0], zp = r->zp[0];
    int mode = r->round;
    for (i = 0; i < n; i++) x[i] = rnd((x[i] - xo) * nu / de, mode) + zp;
    return;
  }
  for (i = 0; i < n; i++) {
    int32_t c = ch[i];
    x[i] = rnd((x[i] - r->xoff[c]) * r->num[c] / r->den[c], r->round) + r->zp[c];
  }
}

static void dequant_run(const li_vrule *r, double *x, int64_t n,
                        const int32_t *ch) {
  int64_t i;
  if (r->arith != LG_A_EXACT) {
    dequant_run_f32(r, x, n, ch);
    return;
  }
  if (r->nch <= 1 || r->axis < 0) {
    double xo = r->xoff[0], nu = r->num[0], de = r->den[0], zp = r->zp[0];
    for (i = 0; i < n; i++) x[i] = (x[i] - zp) * de / nu + xo;
    return;
  }
  for (i = 0; i < n; i++) {
    int32_t c = ch[i];
    x[i] = (x[i] - r->zp[c]) * r->den[c] / r->num[c] + r->xoff[c];
  }
}

/* fp32 -> fp16/bf16 (rounding to nearest even, or truncating) and back
** without doubles (the common casts). */
static int fast_cast(lay_dtype from, lay_dtype to, int round, const void *src,
                     void *dst, int64_t n) {
  const uint8_t *s = src;
  uint8_t *d = dst;
  int64_t i;
  if (from == LAY_DT_FP32 && (to == LAY_DT_FP16 || to == LAY_DT_BF16)) {
    int tr = round == LG_R_TRUNC;
    for (i = 0; i < n; i++) {
      float f; memcpy(&f, s + 4 * i, 4);
      uint16_t h = to == LAY_DT_FP16 ? (tr ? f16_trunc(f) : li_f32_to_f16(f))
                                     : (tr ? bf16_trunc(f) : li_f32_to_bf16(f));
      memcpy(d + 2 * i, &h, 2);
    }
    return 1;
  }
  if (to == LAY_DT_FP32 && from == LAY_DT_BF16) {
    /* the bits moved up, not through a float: a signalling NaN's payload
    ** stays as it is */
    for (i = 0; i < n; i++) {
      uint16_t h; memcpy(&h, s + 2 * i, 2);
      uint32_t u = (uint32_t)h << 16;
      memcpy(d + 4 * i, &u, 4);
    }
    return 1;
  }
  if (to == LAY_DT_FP32 && from == LAY_DT_FP16) {
    for (i = 0; i < n; i++) {
      uint16_t h; memcpy(&h, s + 2 * i, 2);
      float f = li_f16_to_f32(h);
      memcpy(d + 4 * i, &f, 4);
    }
    return 1;
  }
  return 0;
}

/* An integer into d (ts bytes): its 64 bits u (two's complement when neg),
** big > 0 past 2^64 - 1 and < 0 below -2^63 (u then its bits modulo 2^64),
** saturated to lo .. hi, or with saturate = 0 wrapped (its low bits). */
static void put_int(uint8_t *d, size_t ts, uint64_t u, int neg, int big,
                    int64_t lo, uint64_t hi, int saturate) {
  if (saturate && (big < 0 || (!big && neg && (int64_t)u < lo)))
    u = (uint64_t)lo;
  if (saturate && (big > 0 || (!big && !neg && u > hi))) u = hi;
  if (ts == 1) *d = (uint8_t)u;
  else if (ts == 2) { uint16_t w = (uint16_t)u; memcpy(d, &w, 2); }
  else if (ts == 4) { uint32_t w = (uint32_t)u; memcpy(d, &w, 4); }
  else memcpy(d, &u, 8);
}

/* u as fp32, rounded once to nearest even: u cut to its top 53 bits (exact
** in a double), what was cut off kept as a sticky low bit, so that the one
** rounding, double -> float, sees it. A plain (float)u is one rounding too
** on the CPU, but valgrind emulates it through a double, which rounds
** twice (conformance_uint64's "uint64 to fp32 rounds once"). */
static float u64_f32(uint64_t u) {
  int k = 0;
  while (k < 11 && (u >> k) >= UINT64_C(1) << 53) k++;
  uint64_t r = u >> k;
  if (k && (u & ((UINT64_C(1) << k) - 1))) r |= 1;
  return (float)ldexp((double)r, k);
}

/* Casts between integer types one of which is int64 or uint64, and from
** int64 or uint64 to fp32, without doubles (a double holds 53 bits): the
** value as its 64 bits and a sign, saturated to the target's range or, with
** saturate = 0, wrapped (its low bits, two's complement); to fp32 one
** rounding to nearest even. 0 when the types are others. */
static int int_cast(lay_dtype from, lay_dtype to, int saturate,
                    const void *src, void *dst, int64_t n) {
  int f64 = from == LAY_DT_INT64 || from == LAY_DT_UINT64;
  int t64 = to == LAY_DT_INT64 || to == LAY_DT_UINT64;
  if (li_dt_is_float(from) || !(f64 || t64) ||
      (li_dt_is_float(to) && !(f64 && to == LAY_DT_FP32)))
    return 0;
  int64_t lo;
  uint64_t hi;
  lg_dtype_range(to, &lo, &hi);
  size_t fs = li_dt_size(from), ts = li_dt_size(to);
  const uint8_t *s = src;
  uint8_t *d = dst;
  for (int64_t i = 0; i < n; i++, s += fs, d += ts) {
    uint64_t u;
    int neg;
    if (f64) {
      memcpy(&u, s, 8);
      neg = from == LAY_DT_INT64 && (int64_t)u < 0;
    } else { /* 32 bits or fewer: exact in a double */
      double v = li_ld(from, s);
      neg = v < 0;
      u = (uint64_t)(int64_t)v;
    }
    if (to == LAY_DT_FP32) {
      float f = neg ? -u64_f32(0 - u) : u64_f32(u);
      memcpy(d, &f, 4);
      continue;
    }
    put_int(d, ts, u, neg, 0, lo, hi, saturate);
  }
  return 1;
}

/* quantize between integer types one of which is int64 or uint64, with
** scale 1 (num == den), no x offset and an integral zero point below 2^63
** in size, per tensor: q = x + zp (unpack: x = q - zp) exactly, saturated
** or wrapped as int_cast. 0 when r is another rule. */
static int int_quant(const li_vrule *r, int enc, lay_dtype from,
                     lay_dtype to, const void *src, void *dst, int64_t n) {
  int f64 = from == LAY_DT_INT64 || from == LAY_DT_UINT64;
  int t64 = to == LAY_DT_INT64 || to == LAY_DT_UINT64;
  if ((r->kind != LI_VR_QUANT && r->kind != LI_VR_DEQUANT) ||
      !(f64 || t64) || li_dt_is_float(from) || li_dt_is_float(to) ||
      r->nch > 1 || r->arith != LG_A_EXACT || r->num[0] != r->den[0] ||
      r->xoff[0] != 0 || r->zp[0] != floor(r->zp[0]) ||
      !(fabs(r->zp[0]) < 0x1p63))
    return 0;
  int64_t z = (int64_t)r->zp[0], lo;
  if ((r->kind == LI_VR_QUANT) != enc) z = z == INT64_MIN ? z : -z;
  uint64_t hi;
  lg_dtype_range(to, &lo, &hi);
  size_t fs = li_dt_size(from), ts = li_dt_size(to);
  const uint8_t *s = src;
  uint8_t *d = dst;
  for (int64_t i = 0; i < n; i++, s += fs, d += ts) {
    uint64_t u;
    int neg, big = 0;
    if (f64) {
      memcpy(&u, s, 8);
      neg = from == LAY_DT_INT64 && (int64_t)u < 0;
    } else {
      double v = li_ld(from, s);
      neg = v < 0;
      u = (uint64_t)(int64_t)v;
    }
    if (neg) { /* x in -2^63 .. -1 */
      int64_t t;
      if (__builtin_add_overflow((int64_t)u, z, &t)) big = -1; /* < -2^63 */
      u = (uint64_t)(int64_t)u + (uint64_t)z; /* modulo 2^64 */
      neg = !big && t < 0;
    } else if (z >= 0) { /* x in 0 .. 2^64 - 1 */
      uint64_t t = u + (uint64_t)z;
      big = t < u; /* past 2^64 - 1 */
      u = t;
    } else {
      uint64_t m = 0 - (uint64_t)z; /* |z| */
      neg = u < m;                   /* then u - m > -2^63 */
      u -= m;
    }
    put_int(d, ts, u, neg, big, lo, hi, r->saturate);
  }
  return 1;
}

/* z is an integer, |z| <= 65536 (without floor, a call where the
** baseline x86-64 has no roundsd: asked on every run). */
static int small_int(double z) {
  return fabs(z) <= 65536 && z == (double)(int32_t)z;
}

/* v = 2^k with -101 < k < 99 (frexp's 0.5 * 2^e, -100 < e < 100), read
** from the bits: li_quant_fast is asked on every run. */
static int pow2(double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  int64_t k = (int64_t)(u >> 52) - 1023; /* sign 0 needed: u >> 52 < 2048 */
  return (u & 0xfffffffffffffu) == 0 && k > -101 && k < 99;
}

/* fp32 -> int8/uint8/int16 quantization whose scale num/den is a power of
** two, xoff 0, integral zero point, nearest-even or truncation: then
** (x - xoff) * num / den is exact in fp32 as in double, and SSE2 rounds
** and saturates four elements at a time with the same result. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
#include <immintrin.h>
/* The same with AVX2: 32 elements a step, then 8; when the buffers do not
** overlap (ovl = 0) and n >= 8, the last n % 8 by one more step of 8 over
** the end (the elements it writes twice get the same bytes). Returns the
** elements done. */
typedef struct {
  __m256 sc, hi, lo, xo;
  __m256i zp, bias;
} qk8;

__attribute__((target("avx2"), always_inline)) static inline __m256i
q8v(const qk8 *k, const uint8_t *s, const int trunc) {
  __m256 x = _mm256_loadu_ps((const float *)(const void *)s);
  __m256 ok = _mm256_cmp_ps(x, x, _CMP_ORD_Q);
  __m256 t = _mm256_mul_ps(_mm256_sub_ps(x, k->xo), k->sc);
  t = _mm256_min_ps(_mm256_max_ps(t, k->lo), k->hi);
  __m256i c = trunc ? _mm256_cvttps_epi32(t) : _mm256_cvtps_epi32(t);
  c = _mm256_and_si256(_mm256_add_epi32(c, k->zp), _mm256_castps_si256(ok));
  return _mm256_sub_epi32(c, k->bias); /* uint16: biased into int16 */
}

/* hw and trunc: constants in each copy (quant_avx2) */
__attribute__((target("avx2"), always_inline)) static inline int64_t
quant_avx2_k(const li_vrule *r, float sc, const uint8_t *s, uint8_t *d,
             int64_t n, int ovl, const lay_dtype hw, const int trunc) {
  const int u16 = hw == LAY_DT_UINT16, w16 = u16 || hw == LAY_DT_INT16;
  const qk8 k = {.sc = _mm256_set1_ps(sc), .hi = _mm256_set1_ps(0x1p30f),
                 .lo = _mm256_set1_ps(-0x1p30f),
                 .xo = _mm256_set1_ps((float)r->xoff[0]),
                 .zp = _mm256_set1_epi32((int)r->zp[0]),
                 .bias = _mm256_set1_epi32(u16 ? 32768 : 0)};
  const __m256i x16 = _mm256_set1_epi16(u16 ? (short)0x8000 : 0);
  const __m256i ord = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m256i q[4];
    for (int j = 0; j < 4; j++) q[j] = q8v(&k, s + 4 * (i + 8 * j), trunc);
    __m256i a = _mm256_packs_epi32(q[0], q[1]), b = _mm256_packs_epi32(q[2], q[3]);
    if (w16) {
      a = _mm256_xor_si256(a, x16);
      b = _mm256_xor_si256(b, x16);
      _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i), _mm256_permute4x64_epi64(a, 0xD8));
      _mm256_storeu_si256((__m256i *)(void *)(d + 2 * i + 32), _mm256_permute4x64_epi64(b, 0xD8));
    } else {
      __m256i c = hw == LAY_DT_INT8 ? _mm256_packs_epi16(a, b) : _mm256_packus_epi16(a, b);
      _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_permutevar8x32_epi32(c, ord));
    }
  }
  if (n < 8) return i;
  for (;; i += 8) {
    if (i + 8 > n) {
      if (i >= n || ovl) break;
      i = n - 8; /* the last step over the end */
    }
    __m256i c = q8v(&k, s + 4 * i, trunc);
    __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(c), _mm256_extracti128_si256(c, 1));
    if (w16)
      _mm_storeu_si128((__m128i *)(void *)(d + 2 * i), _mm_xor_si128(w, _mm256_castsi256_si128(x16)));
    else
      _mm_storel_epi64((__m128i *)(void *)(d + i), hw == LAY_DT_INT8 ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w));
  }
  return i;
}

__attribute__((target("avx2"))) static int64_t
quant_avx2(const li_vrule *r, float sc, const uint8_t *s, uint8_t *d,
           int64_t n, int ovl) {
  const int tr = r->round == LG_R_TRUNC;
#define QA(T)                                                              \
  if (r->hw == T)                                                          \
    return tr ? quant_avx2_k(r, sc, s, d, n, ovl, T, 1)                    \
              : quant_avx2_k(r, sc, s, d, n, ovl, T, 0);
  QA(LAY_DT_INT8)
  QA(LAY_DT_UINT8)
  QA(LAY_DT_INT16)
  QA(LAY_DT_UINT16)
#undef QA
  return 0;
}
#define LI_HAVE_QUANT_AVX2 1

/* The constants of quant_avx512_k and quant_avx512_pairs, locals of
** each (as dq_v's, they go to q_v by value). */
#define Q512_CONSTS(r, sc)                                                 \
  const __m512 scv = _mm512_set1_ps(sc), hi = _mm512_set1_ps(0x1p30f),     \
               lo = _mm512_set1_ps(-0x1p30f),                              \
               xo = _mm512_set1_ps((float)(r)->xoff[0]);                   \
  const __m512i zp = _mm512_set1_epi32((int)(r)->zp[0]);

/* 16 lanes of x quantized, before the saturating narrowing to hw. */
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) static inline __m512i
q_v(__m512 x, __m512 scv, __m512 lo, __m512 hi, __m512 xo, __m512i zp,
    const lay_dtype hw, const int trunc, const int xz) {
  __mmask16 ok = _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q);
  __m512 t = _mm512_mul_ps(xz ? x : _mm512_sub_ps(x, xo), scv);
  t = _mm512_min_ps(_mm512_max_ps(t, lo), hi);
  __m512i c = trunc ? _mm512_cvttps_epi32(t) : _mm512_cvtps_epi32(t);
  c = _mm512_maskz_add_epi32(ok, c, zp);
  if (hw == LAY_DT_UINT8 || hw == LAY_DT_UINT16)
    c = _mm512_max_epi32(c, _mm512_setzero_si512());
  return c;
}

/* The same with AVX-512 (LI_SIMD_AVX512), 16 elements a step and the last
** n % 16 under a mask: NaN lanes zeroed by a masked add, the saturating
** narrowings (vpmovsdb, vpmovusdb after a max with 0, and the 16-bit
** ones) instead of packs and permutes, x - xoff left out where xoff is 0
** (x - 0 is x, -0 and NaN included). Whole steps narrow into a register
** and store it: the narrowing store to memory, masked or not, ran ~1.5x
** slower on Zen 4 (kneron.4w4c8b_q(1, 5) pack fp32 [1,64,56,56] 33 -> 19
** us, min of 5). Returns n. */
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) static inline int64_t
quant_avx512_k(const li_vrule *r, float sc, const uint8_t *s, uint8_t *d,
               int64_t n, const lay_dtype hw, const int trunc, const int xz) {
  Q512_CONSTS(r, sc)
  for (int64_t i = 0; i < n; i += 16) {
    const int whole = n - i >= 16;
    const __mmask16 m = (__mmask16)(whole ? 0xffffu : (1u << (n - i)) - 1u);
    __m512 x = whole ? _mm512_loadu_ps(s + 4 * i)
                     : _mm512_maskz_loadu_ps(m, s + 4 * i);
    const __m512i c = q_v(x, scv, lo, hi, xo, zp, hw, trunc, xz);
    uint8_t *o = d + i * (hw == LAY_DT_INT8 || hw == LAY_DT_UINT8 ? 1 : 2);
    if (whole && hw == LAY_DT_INT8)
      _mm_storeu_si128((__m128i *)(void *)o, _mm512_cvtsepi32_epi8(c));
    else if (whole && hw == LAY_DT_UINT8)
      _mm_storeu_si128((__m128i *)(void *)o, _mm512_cvtusepi32_epi8(c));
    else if (whole && hw == LAY_DT_INT16)
      _mm256_storeu_si256((__m256i *)(void *)o, _mm512_cvtsepi32_epi16(c));
    else if (whole)
      _mm256_storeu_si256((__m256i *)(void *)o, _mm512_cvtusepi32_epi16(c));
    else if (hw == LAY_DT_INT8)
      _mm512_mask_cvtsepi32_storeu_epi8(o, m, c);
    else if (hw == LAY_DT_UINT8)
      _mm512_mask_cvtusepi32_storeu_epi8(o, m, c);
    else if (hw == LAY_DT_INT16)
      _mm512_mask_cvtsepi32_storeu_epi16(o, m, c);
    else
      _mm512_mask_cvtusepi32_storeu_epi16(o, m, c);
  }
  return n;
}

/* The runs from q on (at most nr - q) that continue each other on both
** sides: run i at a[i] (a + sb bytes past the one before) and at b[i] (b
** NULL: runs back to back, db bytes each), so that one call converts
** them as one run: rows of 23 fp32 took a masked step of 7 each
** (kneron.4w4c8bhl_q pack fp32 [1,37,29,23], its h and w rows back to
** back in NCHW: 8.4 -> 7.9 us, min of 40, alternated). At least 1. */
static inline int64_t runs_joined(const int64_t *a, const int64_t *b,
                                  int64_t q, int64_t nr, int64_t sb,
                                  int64_t db) {
  int64_t k = 1;
  while (q + k < nr && a[q + k] == a[q + k - 1] + sb &&
         (!b || b[q + k] == b[q + k - 1] + db))
    k++;
  return k;
}

/* quant_avx512_k over nr runs of len elements, run q at s + so[q] bytes,
** its results at d + dof[q] bytes (dof NULL: back to back from d); 1 when
** it took the rule's type. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) static int
quant_avx512_rows(const li_vrule *r, float sc, const uint8_t *s,
                  const int64_t *so, int64_t nr, int64_t len, uint8_t *d,
                  const int64_t *dof) {
  const int tr = r->round == LG_R_TRUNC, xz = r->xoff[0] == 0;
  const int64_t ob = len * (int64_t)li_dt_size(r->hw);
  /* joined where the first two runs join (a loop's runs are alike):
  ** testing every run cost rows that never join (TIDL's pitched rows) */
  const int join = nr > 1 && runs_joined(so, dof, 0, nr, 4 * len, ob) > 1;
#define QZ(T, TR, XZ)                                                      \
  if (r->hw == T && tr == TR && xz == XZ) {                                \
    for (int64_t q = 0, k = 1; q < nr; q += k) {                           \
      if (join) k = runs_joined(so, dof, q, nr, 4 * len, ob);              \
      quant_avx512_k(r, sc, s + so[q], d + (dof ? dof[q] : q * ob),       \
                     k * len, T, TR, XZ);                                  \
    }                                                                      \
    return 1;                                                              \
  }
#define QT(T) QZ(T, 0, 0) QZ(T, 0, 1) QZ(T, 1, 0) QZ(T, 1, 1)
  QT(LAY_DT_INT8)
  QT(LAY_DT_UINT8)
  QT(LAY_DT_INT16)
  QT(LAY_DT_UINT16)
#undef QT
#undef QZ
  return 0;
}

/* n contiguous elements: one run. Returns n, or 0 for other types. */
static int64_t quant_avx512(const li_vrule *r, float sc, const uint8_t *s,
                            uint8_t *d, int64_t n) {
  const int64_t o = 0;
  return quant_avx512_rows(r, sc, s, &o, 1, n, d, NULL) ? n : 0;
}

/* quant_avx512_pairs two rows a step under AVX-512 VBMI, where a row and
** its pads fill the planes' 16 bytes, 16 bytes apart (16W1C8BHL's
** entries), and no plane takes a bit past 15 (mk << sh <= 0xffff): both
** rows' 32-bit results clamped to 16 bits, one multishift each takes a
** lane's two plane bytes, one two-table byte permute puts the rows' 64
** bytes in order (row 0's planes, then row 1's), then the masks and the
** pads. A row took a saturating narrowing, two shifts by a register, a
** pack and a permute, most of them on the one shuffle port. uint16 is
** the clamp to [0, 65535] of q_v's int16 steps. Returns the rows done (an
** even count). */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi"), always_inline)) static inline int64_t
qpairs_vbmi_k(const li_vrule *r, float sc, const uint8_t *s, const int64_t *so,
              const int sh[2], const uint32_t mk[2], const uint8_t pad[2],
              int64_t len, uint8_t *d, const int64_t *dof, int64_t nr,
              const int TR, const int XZ) {
  const lay_dtype T = LAY_DT_INT16, hw = r->hw;
  Q512_CONSTS(r, sc)
  /* byte 32 r + 16 pl + e <- byte 64 r + 8 (e >> 1) + 2 (e & 1) + pl */
  static const uint8_t ix[64] = {
#define IX(r, pl, e) (uint8_t)(64 * (r) + 8 * ((e) >> 1) + 2 * ((e) & 1) + (pl))
#define IX4(r, pl, e) IX(r, pl, e), IX(r, pl, e + 1), IX(r, pl, e + 2), \
    IX(r, pl, e + 3)
#define IX16(r, pl) IX4(r, pl, 0), IX4(r, pl, 4), IX4(r, pl, 8), IX4(r, pl, 12)
      IX16(0, 0), IX16(0, 1), IX16(1, 0), IX16(1, 1)
#undef IX16
#undef IX4
#undef IX
  };
  uint64_t c = 0; /* byte 2 e + pl of a qword: bits sh[pl] on of its dword e */
  for (int b = 0; b < 4; b++)
    c |= (uint64_t)(32 * (b >> 1) + sh[b & 1]) << (8 * b);
  const __mmask64 pl1 = 0xffff0000ffff0000ull,
                  keep = (uint64_t)((1u << len) - 1u) * 0x0001000100010001ull;
  const __m512i ctl = _mm512_set1_epi64((long long)c),
                p = _mm512_loadu_si512(ix),
                mb = _mm512_mask_blend_epi8(pl1, _mm512_set1_epi8((char)mk[0]),
                                            _mm512_set1_epi8((char)mk[1])),
                pp = _mm512_mask_blend_epi8(pl1, _mm512_set1_epi8((char)pad[0]),
                                            _mm512_set1_epi8((char)pad[1])),
                lo16 = _mm512_set1_epi32(hw == LAY_DT_INT16 ? -32768 : 0),
                hi16 = _mm512_set1_epi32(hw == LAY_DT_INT16 ? 32767 : 65535);
  const __mmask16 m = (__mmask16)((1u << len) - 1u);
  int64_t q = 0;
  for (; q + 2 <= nr; q += 2) {
    __m512i a = q_v(_mm512_maskz_loadu_ps(m, s + so[q]), scv, lo, hi, xo, zp,
                    T, TR, XZ);
    __m512i b = q_v(_mm512_maskz_loadu_ps(m, s + so[q + 1]), scv, lo, hi, xo,
                    zp, T, TR, XZ);
    a = _mm512_min_epi32(_mm512_max_epi32(a, lo16), hi16);
    b = _mm512_min_epi32(_mm512_max_epi32(b, lo16), hi16);
    __m512i v = _mm512_and_si512(
        _mm512_permutex2var_epi8(_mm512_multishift_epi64_epi8(ctl, a), p,
                                 _mm512_multishift_epi64_epi8(ctl, b)),
        mb);
    v = _mm512_mask_blend_epi8(keep, pp, v);
    uint8_t *o = d + dof[q], *o1 = d + dof[q + 1];
    li_pair_store2(o, o1, v);
  }
  return q;
}

__attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi"))) static int64_t
qpairs_vbmi(const li_vrule *r, float sc, const uint8_t *s, const int64_t *so,
            const int sh[2], const uint32_t mk[2], const uint8_t pad[2],
            int64_t len, uint8_t *d, const int64_t *dof, int64_t nr) {
  const int tr = r->round == LG_R_TRUNC, xz = r->xoff[0] == 0;
#define QV(TR, XZ)                                                         \
  if (tr == TR && xz == XZ)                                                \
    return qpairs_vbmi_k(r, sc, s, so, sh, mk, pad, len, d, dof, nr, TR, XZ);
  QV(0, 0) QV(0, 1) QV(1, 0) QV(1, 1)
#undef QV
  return 0;
}

/* quant_avx512_rows into a pair of byte planes (li_quant_pairs): a run's
** 16-bit results split in registers, plane 0's bytes (u >> sh[0]) &
** mk[0] at d + dof[q], plane 1's ps bytes on, then post pad bytes each. */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static int
quant_avx512_pairs(const li_vrule *r, float sc, const uint8_t *s,
                   const int64_t *so, int64_t ps, const int sh[2],
                   const uint32_t mk[2], const uint8_t pad[2], int64_t post,
                   uint8_t *d, const int64_t *dof, int64_t nr, int64_t len) {
  const int tr = r->round == LG_R_TRUNC, xz = r->xoff[0] == 0;
  Q512_CONSTS(r, sc)
  const __m256i m0 = _mm256_set1_epi16((short)mk[0]),
                m1 = _mm256_set1_epi16((short)mk[1]);
  const __m128i c0 = _mm_cvtsi32_si128(sh[0]), c1 = _mm_cvtsi32_si128(sh[1]);
  const __m128i p0 = _mm_set1_epi8((char)pad[0]), p1 = _mm_set1_epi8((char)pad[1]);
  const __mmask16 m = (__mmask16)((1u << len) - 1u),
                  w = (__mmask16)((1u << (len + post)) - 1u);
  /* one 32-byte store where the planes are 16 bytes apart and a row and
  ** its pads fill them (16W1C8BHL's entries): plane 1's bytes in the high
  ** lane, as they are after the pack */
  const int one = ps == 16 && len + post == 16, pads = post > 0;
  const __m256i pp = _mm256_set_m128i(p1, p0);
  const __mmask32 m2 = (__mmask32)m | (__mmask32)m << 16;
  const int vb = one && nr >= 2 && li_have_vbmi() &&
                 ((mk[0] << sh[0]) | (mk[1] << sh[1])) <= 0xffffu;
#define QP(T, TR, XZ, ONE, PADS)                                           \
  if (r->hw == T && tr == TR && xz == XZ && one == ONE && pads == PADS) {  \
    int64_t q = 0;                                                         \
    if (ONE && vb)                                                         \
      q = qpairs_vbmi(r, sc, s, so, sh, mk, pad, len, d, dof, nr);         \
    for (; q < nr; q++) {                                                  \
      const __m512i c =                                                    \
          q_v(_mm512_maskz_loadu_ps(m, s + so[q]), scv, lo, hi, xo, zp, T, \
              TR, XZ);                                                     \
      const __m256i u = T == LAY_DT_INT16 ? _mm512_cvtsepi32_epi16(c)      \
                                          : _mm512_cvtusepi32_epi16(c);    \
      __m256i v = li_pair_split(u, c0, c1, m0, m1);                        \
      uint8_t *o = d + dof[q];                                             \
      if (PADS) v = _mm256_mask_blend_epi8(m2, pp, v);                     \
      if (ONE) {                                                           \
        _mm256_storeu_si256((__m256i *)(void *)o, v);                      \
      } else {                                                             \
        _mm_mask_storeu_epi8(o, w, _mm256_castsi256_si128(v));             \
        _mm_mask_storeu_epi8(o + ps, w, _mm256_extracti128_si256(v, 1));   \
      }                                                                    \
    }                                                                      \
    return 1;                                                              \
  }
#define QF(T, TR, XZ) QP(T, TR, XZ, 0, 0) QP(T, TR, XZ, 0, 1) QP(T, TR, XZ, 1, 0) QP(T, TR, XZ, 1, 1)
#define QT(T) QF(T, 0, 0) QF(T, 0, 1) QF(T, 1, 0) QF(T, 1, 1)
  QT(LAY_DT_INT16)
  QT(LAY_DT_UINT16)
#undef QT
#undef QF
#undef QP
  return 0;
}
#undef Q512_CONSTS
#define LI_HAVE_QUANT_AVX512 1
#endif

int li_quant_fast(const li_vrule *r) {
  return r->kind == LI_VR_QUANT && r->cpu == LAY_DT_FP32 && r->nch <= 1 &&
         r->saturate &&
         (r->hw == LAY_DT_INT8 || r->hw == LAY_DT_UINT8 || r->hw == LAY_DT_INT16) &&
         (r->round == LG_R_HALF_EVEN || r->round == LG_R_TRUNC) &&
         r->xoff[0] == 0 && pow2(r->num[0]) && pow2(r->den[0]) &&
         small_int(r->zp[0]);
}

/* The factor fast_quant multiplies by, 0 when it cannot take r: that of
** li_quant_fast, or with arith f32/f32_div (every step in float32, as
** quant_run_f32) any scale, k = f32(num) / f32(den) finite and not 0 (x *
** k is then the reference's product, and inf * k saturates as there), and
** any finite xoff (f32(x) - f32(xoff) is the reference's first step);
** uint16 too (biased by 2^15 through the signed packs). */
static float quant_k(const li_vrule *r) {
  /* the tests of both cases, the cheap ones first */
  if (r->kind != LI_VR_QUANT || r->cpu != LAY_DT_FP32 || r->nch > 1 ||
      !r->saturate || r->round == LG_R_HALF_AWAY)
    return 0;
  const double zp = r->zp[0];
  if (!small_int(zp)) return 0;
  if (r->arith == LG_A_EXACT) /* li_quant_fast's rules */
    return r->hw != LAY_DT_UINT16 && li_quant_fast(r)
               ? (float)(r->num[0] / r->den[0]) : 0;
  if (!isfinite((float)r->xoff[0]) ||
      !(r->hw == LAY_DT_INT8 || r->hw == LAY_DT_UINT8 ||
        r->hw == LAY_DT_INT16 || r->hw == LAY_DT_UINT16))
    return 0;
  float k = (float)r->num[0] / (float)r->den[0];
  return isfinite(k) && k != 0 ? k : 0;
}

int li_quant_rows(const li_vrule *r, const uint8_t *s, const int64_t *so,
                  int64_t nr, int64_t len, uint8_t *d, const int64_t *dof) {
#if defined(LI_HAVE_QUANT_AVX512)
  /* the rules and the steps fast_quant takes on such a CPU */
  if (r->kind != LI_VR_QUANT || r->simd < LI_SIMD_AVX512 ||
      (r->nch > 1 && r->axis >= 0))
    return 0;
  const float sc = li_quant_k(r);
  return sc != 0 && quant_avx512_rows(r, sc, s, so, nr, len, d, dof);
#else
  (void)r; (void)s; (void)so; (void)nr; (void)len; (void)d; (void)dof;
  return 0;
#endif
}

int li_quant_pairs(const li_vrule *r, const uint8_t *s, const int64_t *so,
                   int64_t ps, const int sh[2], const uint32_t mk[2],
                   const uint8_t pad[2], int64_t post, uint8_t *d,
                   const int64_t *dof, int64_t nr, int64_t len) {
#if defined(LI_HAVE_QUANT_AVX512)
  if (r->kind != LI_VR_QUANT || r->simd < LI_SIMD_AVX512 ||
      (r->nch > 1 && r->axis >= 0) || len < 1 || post < 0 ||
      len + post > 16 || sh[0] < 0 || sh[0] > 15 || sh[1] < 0 ||
      sh[1] > 15 || !(r->hw == LAY_DT_INT16 || r->hw == LAY_DT_UINT16))
    return 0;
  const float sc = li_quant_k(r);
  return sc != 0 && quant_avx512_pairs(r, sc, s, so, ps, sh, mk, pad, post,
                                       d, dof, nr, len);
#else
  (void)r; (void)s; (void)so; (void)ps; (void)sh; (void)mk; (void)pad;
  (void)post; (void)d; (void)dof; (void)nr; (void)len;
  return 0;
#endif
}

float li_quant_k(const li_vrule *r) {
  return r->qk_set ? r->qk : quant_k(r);
}


static int fast_quant(const li_vrule *r, const void *src, void *dst,
                      int64_t n) {
#if defined(__SSE2__)
  if (r->simd < LI_SIMD_SSE) return 0;
  const float sc = li_quant_k(r);
  if (sc == 0) return 0;
  const __m128 scv = _mm_set1_ps(sc), hi = _mm_set1_ps(0x1p30f),
               lo = _mm_set1_ps(-0x1p30f);
  const __m128i zpv = _mm_set1_epi32((int)r->zp[0]);
  const int u16 = r->hw == LAY_DT_UINT16;
  const __m128i bias = _mm_set1_epi32(u16 ? 32768 : 0),
                x16 = _mm_set1_epi16(u16 ? (short)0x8000 : 0);
  const __m128 xov = _mm_set1_ps((float)r->xoff[0]);
  const uint8_t *s = src;
  uint8_t *d = dst;
  int64_t i = 0, tail = -1, m = 0;
  const int64_t n0 = n;
  float tb[16]; /* the last n % 16 elements, converted as 16 */
  uint8_t ob[32];
  const size_t ts = li_dt_size(r->hw);
  /* the buffers overlap: no step over the end (it would read written bytes) */
  const int ovl = (uintptr_t)s < (uintptr_t)d + (size_t)n * ts &&
                  (uintptr_t)d < (uintptr_t)s + (size_t)n * 4;
#if defined(LI_HAVE_QUANT_AVX2)
  if (r->simd >= LI_SIMD_AVX512 && quant_avx512(r, sc, s, d, n) == n)
    return 1;
  if (r->simd >= LI_SIMD_AVX2) i = quant_avx2(r, sc, s, d, n, ovl);
#endif
  for (;;) {
#define QLOOP(CVT, STORE)                                                    \
  for (; i + 16 <= n; i += 16) {                                             \
    __m128i q0, q1, q2, q3;                                                  \
    QV(q0, 0) QV(q1, 4) QV(q2, 8) QV(q3, 12)                                 \
    __m128i a = _mm_packs_epi32(q0, q1), b = _mm_packs_epi32(q2, q3);        \
    STORE                                                                    \
  }
#define QV(Q, OFF)                                                           \
  {                                                                          \
    __m128 x = _mm_loadu_ps((const float *)(const void *)(s + 4 * (i + OFF))); \
    __m128 ok = _mm_cmpord_ps(x, x);                                         \
    __m128 t = _mm_mul_ps(_mm_sub_ps(x, xov), scv);                          \
    t = _mm_min_ps(_mm_max_ps(t, lo), hi);                                   \
    Q = _mm_and_si128(_mm_add_epi32(CVTF(t), zpv), _mm_castps_si128(ok));    \
    Q = _mm_sub_epi32(Q, bias);                                              \
  }
#define ST8 _mm_storeu_si128((__m128i *)(void *)(d + i), _mm_packs_epi16(a, b));
#define STU8 _mm_storeu_si128((__m128i *)(void *)(d + i), _mm_packus_epi16(a, b));
#define ST16                                                    \
  _mm_storeu_si128((__m128i *)(void *)(d + 2 * i), _mm_xor_si128(a, x16));  \
  _mm_storeu_si128((__m128i *)(void *)(d + 2 * i + 16), _mm_xor_si128(b, x16));
  if (r->round == LG_R_TRUNC) {
#define CVTF _mm_cvttps_epi32
    if (r->hw == LAY_DT_INT8) QLOOP(CVTF, ST8)
    else if (r->hw == LAY_DT_UINT8) QLOOP(CVTF, STU8)
    else QLOOP(CVTF, ST16)
#undef CVTF
  } else {
#define CVTF _mm_cvtps_epi32
    if (r->hw == LAY_DT_INT8) QLOOP(CVTF, ST8)
    else if (r->hw == LAY_DT_UINT8) QLOOP(CVTF, STU8)
    else QLOOP(CVTF, ST16)
#undef CVTF
  }
#undef QLOOP
#undef QV
#undef ST8
#undef STU8
#undef ST16
  if (tail >= 0 || i == n) break;
  if (!ovl && n >= 16) { /* one step of 16 over the end */
    i = n - 16;
    tail = n;
    continue;
  }
  tail = i; /* the rest through tb and ob, 16 elements */
  m = n - i;
  memset(tb, 0, sizeof tb);
  memcpy(tb, s + 4 * i, (size_t)m * 4);
  s = (const uint8_t *)tb;
  d = ob;
  i = 0;
  n = 16;
  }
  if (tail >= 0 && tail < n0)
    memcpy((uint8_t *)dst + ts * (size_t)tail, ob, (size_t)m * ts);
  return 1;
#else
  (void)r; (void)src; (void)dst; (void)n;
  return 0;
#endif
}

/* Dequantization int8/uint8/int16/uint16 -> fp32 in float32 (arith f32
** and f32_div, per tensor), dequant_run_f32's steps 8 lanes at a time:
** with an integral zero point |zp| <= 65536, f32(q - zp) is f32(q) -
** f32(zp) exactly; then the product by f32(den) / f32(num) or the
** quotient by f32(num) / f32(den), both IEEE float32 operations; then +
** xoff in double rounded to float, which is the float32 sum v + f32(xoff)
** where xoff is a float (zx): the double sum of two floats rounded to
** float is their correctly rounded float sum (53 >= 2 * 24 + 2 bits:
** double rounding is innocuous for one operation), the same bits, -0 + +0
** giving +0 both ways; 1.6x faster than the sum in double (TIDL's zero
** points). */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
typedef float dq_f __attribute__((vector_size(32)));
typedef double dq_d __attribute__((vector_size(32)));
typedef float dq_f4 __attribute__((vector_size(16)));
typedef int32_t dq_i __attribute__((vector_size(32)));
typedef int8_t dq_b __attribute__((vector_size(8)));
typedef uint8_t dq_ub __attribute__((vector_size(8)));
typedef int16_t dq_s __attribute__((vector_size(16)));
typedef uint16_t dq_us __attribute__((vector_size(16)));

#define DQ_BODY                                                            \
  int64_t i = 0;                                                           \
  const dq_f zv = {zp, zp, zp, zp, zp, zp, zp, zp},                       \
             kv = {k, k, k, k, k, k, k, k};                                \
  const dq_d xv = {xoff, xoff, xoff, xoff};                                \
  const float xf = (float)xoff;                                            \
  for (;; i += 8) {                                                        \
    if (i + 8 > n) {                                                       \
      if (i >= n || ovl || n < 8) break;                                   \
      i = n - 8; /* the last step over the end */                          \
    }                                                                      \
    dq_f x;                                                                \
    if (t == LAY_DT_INT8) {                                                \
      dq_b w; memcpy(&w, s + i, 8);                                        \
      x = __builtin_convertvector(__builtin_convertvector(w, dq_i), dq_f); \
    } else if (t == LAY_DT_UINT8) {                                        \
      dq_ub w; memcpy(&w, s + i, 8);                                       \
      x = __builtin_convertvector(__builtin_convertvector(w, dq_i), dq_f); \
    } else if (t == LAY_DT_INT16) {                                        \
      dq_s w; memcpy(&w, s + 2 * i, 16);                                   \
      x = __builtin_convertvector(__builtin_convertvector(w, dq_i), dq_f); \
    } else {                                                               \
      dq_us w; memcpy(&w, s + 2 * i, 16);                                  \
      x = __builtin_convertvector(__builtin_convertvector(w, dq_i), dq_f); \
    }                                                                      \
    dq_f v = div ? (x - zv) / kv : (x - zv) * kv;                          \
    if (zx) {                                                              \
      v = v + xf;                                                          \
    } else {                                                               \
      dq_f4 lo = {v[0], v[1], v[2], v[3]}, hi = {v[4], v[5], v[6], v[7]}; \
      dq_f4 a = __builtin_convertvector(__builtin_convertvector(lo, dq_d) + xv, dq_f4); \
      dq_f4 b = __builtin_convertvector(__builtin_convertvector(hi, dq_d) + xv, dq_f4); \
      v = (dq_f){a[0], a[1], a[2], a[3], b[0], b[1], b[2], b[3]};          \
    }                                                                      \
    memcpy(d + 4 * i, &v, 32);                                             \
  }                                                                        \
  return i;

#define DQ_ARGS                                                            \
  lay_dtype t, const uint8_t *s, uint8_t *d, int64_t n, float zp, float k, \
      double xoff, int div, int zx, int ovl
static int64_t dq_sse(DQ_ARGS) { DQ_BODY }

/* The dispatch of a dequantize copy F over the types and the constants
** div and zx (one specialized copy each). */
#define DQ_CASES(F)                                                        \
  DQ_CASE(F, LAY_DT_INT8) DQ_CASE(F, LAY_DT_UINT8)                         \
  DQ_CASE(F, LAY_DT_INT16) DQ_CASE(F, LAY_DT_UINT16)
#define DQ_CASE(F, T)                                                      \
  if (t == T) {                                                            \
    if (div && zx) return F(s, d, n, T, zp, k, xoff, 1, 1, ovl);           \
    if (div) return F(s, d, n, T, zp, k, xoff, 1, 0, ovl);                 \
    if (zx) return F(s, d, n, T, zp, k, xoff, 0, 1, ovl);                  \
    return F(s, d, n, T, zp, k, xoff, 0, 0, ovl);                          \
  }

/* The division mode of the vector kernels: 2 (the division as a product
** and two FMA corrections: div_fma) where |k| is in [2^-60, 2^60], the
** range in which Markstein's theorem holds for our |y| < 2^18; else
** div as given (1: vdivps). */
static inline int div_mode(int div, float k) {
  return div && fabsf(k) >= 0x1p-60f && fabsf(k) <= 0x1p60f ? 2 : div;
}

/* The AVX2 copy with intrinsics (the generic vectors' lane moves between
** float and double compile to element by element code): 8 a step, the
** same operations (div 2: the division as div_fma below). */
__attribute__((target("avx2,fma"), always_inline)) static inline __m256
dq8(const uint8_t *s, lay_dtype t, __m256 zv, __m256 kv, __m256 rv,
    __m256d xv, __m256 xf, int div, int zx) {
  __m256i w;
  if (t == LAY_DT_INT8)
    w = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)s));
  else if (t == LAY_DT_UINT8)
    w = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(const void *)s));
  else if (t == LAY_DT_INT16)
    w = _mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(const void *)s));
  else
    w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)s));
  __m256 y = _mm256_sub_ps(_mm256_cvtepi32_ps(w), zv), v;
  if (div == 2) { /* div_fma on 8 lanes */
    v = _mm256_mul_ps(y, rv);
    v = _mm256_fmadd_ps(_mm256_fnmadd_ps(v, kv, y), rv, v);
    v = _mm256_fmadd_ps(_mm256_fnmadd_ps(v, kv, y), rv, v);
  } else {
    v = div ? _mm256_div_ps(y, kv) : _mm256_mul_ps(y, kv);
  }
  if (zx) return _mm256_add_ps(v, xf);
  __m128 a = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(v)), xv));
  __m128 b = _mm256_cvtpd_ps(_mm256_add_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(v, 1)), xv));
  return _mm256_set_m128(b, a);
}

__attribute__((target("avx2,fma"), always_inline)) static inline int64_t
dq_avx2_k(const uint8_t *s, uint8_t *d, int64_t n, lay_dtype t, float zp,
          float k, double xoff, int div, int zx, int ovl) {
  const __m256 zv = _mm256_set1_ps(zp), kv = _mm256_set1_ps(k),
               rv = _mm256_set1_ps(1.0f / k);
  div = div_mode(div, k);
  const __m256d xv = _mm256_set1_pd(xoff);
  const __m256 xf = _mm256_set1_ps((float)xoff);
  const size_t fs = li_dt_size(t);
  int64_t i = 0;
  for (;; i += 8) {
    if (i + 8 > n) {
      if (i >= n || ovl || n < 8) break;
      i = n - 8; /* the last step over the end */
    }
    _mm256_storeu_ps((float *)(void *)(d + 4 * i),
                     dq8(s + fs * (size_t)i, t, zv, kv, rv, xv, xf, div, zx));
  }
  return i;
}

__attribute__((target("avx2,fma"))) static int64_t dq_avx2(DQ_ARGS) {
  DQ_CASES(dq_avx2_k)
  return 0;
}
#undef DQ_BODY

/* The 16 elements at x of type t (lanes of m alone read), widened to
** int32. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline)) static inline __m512i
dq_ld(const uint8_t *x, lay_dtype t, __mmask16 m, int whole) {
  if (t == LAY_DT_INT8 || t == LAY_DT_UINT8) {
    const __m128i b = whole ? _mm_loadu_si128((const __m128i *)(const void *)x)
                            : _mm_maskz_loadu_epi8(m, x);
    return t == LAY_DT_INT8 ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
  }
  const __m256i h = whole ? _mm256_loadu_si256((const __m256i *)(const void *)x)
                          : _mm256_maskz_loadu_epi16(m, x);
  return t == LAY_DT_INT16 ? _mm512_cvtepi16_epi32(h) : _mm512_cvtepu16_epi32(h);
}

/* y / k rounded once, without a division (vdivps on 16 lanes took half
** of kneron.1w16c8bhl_q unpack's time): q0 = y * r, r = 1 / k rounded;
** then twice q += (y - q k) r, the remainder exact in an FMA. After the
** first step q is within an ulp of y / k, and the second gives y / k
** rounded to nearest (Markstein's theorem: r within half an ulp of 1 /
** k, no overflow or underflow: the caller's |k| in [2^-60, 2^60], |y| <
** 2^18). Checked against the division for every integer y in [-70000,
** 70000] and 3000 scales: no difference, after the first step already. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline)) static inline __m512
div_fma(__m512 y, __m512 kv, __m512 rv) {
  __m512 q = _mm512_mul_ps(y, rv);
  q = _mm512_fmadd_ps(_mm512_fnmadd_ps(q, kv, y), rv, q);
  return _mm512_fmadd_ps(_mm512_fnmadd_ps(q, kv, y), rv, q);
}

/* dq_avx2_k's float32 steps on 16 lanes (div 2: the division by
** div_fma). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline)) static inline __m512
dq_v(__m512i w, __m512 zv, __m512 kv, __m512 rv, __m512 xf, __m512d xv,
     int div, int zx) {
  const __m512 y = _mm512_sub_ps(_mm512_cvtepi32_ps(w), zv);
  __m512 v = div == 2   ? div_fma(y, kv, rv)
             : div == 1 ? _mm512_div_ps(y, kv)
                        : _mm512_mul_ps(y, kv);
  if (zx) return _mm512_add_ps(v, xf);
  const __m256 a = _mm512_cvtpd_ps(_mm512_add_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), xv));
  const __m256 b = _mm512_cvtpd_ps(_mm512_add_pd(
      _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1))), xv));
  return _mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1);
}

/* dq_avx2_k with AVX-512, 16 a step (whole steps unmasked, as
** before the tail was added) and the last n % 16 under a mask (no
** element past n read or written; rows of 7 dequantized where they
** lie: li_dequant_rows): the same operations lane for lane
** (kneron.4w4c8b_q(1, 5) unpack fp32 [4,32,28,28] 10.5 -> 8.7 us,
** amd.hcwnc_q(4, 0.0078125, -5) [1,64,56,56] 22.7 -> 20.5; min of 5).
** Returns n. */
typedef struct dq512 {
  __m512 zv, kv, rv, xf;
  __m512d xv;
} dq512;

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline)) static inline dq512
dq512_of(float zp, float k, double xoff) {
  return (dq512){_mm512_set1_ps(zp), _mm512_set1_ps(k),
                 _mm512_set1_ps(1.0f / k), _mm512_set1_ps((float)xoff),
                 _mm512_set1_pd(xoff)};
}

/* One run of n elements with the constants c (div: div_mode's). */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline)) static inline void
dq_avx512_run(const uint8_t *s, uint8_t *d, int64_t n, lay_dtype t,
              const dq512 *c, int div, int zx) {
  const size_t fs = li_dt_size(t);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps((float *)(void *)(d + 4 * i),
                     dq_v(dq_ld(s + fs * (size_t)i, t, 0xffff, 1), c->zv,
                          c->kv, c->rv, c->xf, c->xv, div, zx));
  if (i < n) {
    const __mmask16 m = (__mmask16)((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps((float *)(void *)(d + 4 * i), m,
                          dq_v(dq_ld(s + fs * (size_t)i, t, m, 0), c->zv,
                               c->kv, c->rv, c->xf, c->xv, div, zx));
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"), always_inline)) static inline int64_t
dq_avx512_k(const uint8_t *s, uint8_t *d, int64_t n, lay_dtype t, float zp,
            float k, double xoff, int div, int zx, int ovl) {
  (void)ovl; /* not overlapping: dq_avx2_k's signature */
  const dq512 c = dq512_of(zp, k, xoff);
  dq_avx512_run(s, d, n, t, &c, div_mode(div, k), zx);
  return n;
}

__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static int64_t
dq_avx512(DQ_ARGS) {
  DQ_CASES(dq_avx512_k)
  return 0;
}

/* dq_avx512 over nr runs of len elements, run q at s + so[q] bytes (so
** NULL: back to back from s), stored at d + dof[q] bytes
** (li_dequant_rows), the constants made once; 1 when it took type t. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static int
dq_avx512_rows(lay_dtype t, const uint8_t *s, const int64_t *so, uint8_t *d,
               const int64_t *dof, int64_t nr, int64_t len, float zp, float k,
               double xoff, int div, int zx) {
  const int64_t ib = len * (int64_t)li_dt_size(t);
  const dq512 c = dq512_of(zp, k, xoff);
  div = div_mode(div, k);
  const int join = nr > 1 && runs_joined(dof, so, 0, nr, 4 * len, ib) > 1;
#define DR(T, DIV, ZX)                                                     \
  if (t == T && div == DIV && zx == ZX) {                                  \
    if (!join) {                                                           \
      for (int64_t q = 0; q < nr; q++)                                     \
        dq_avx512_run(s + (so ? so[q] : q * ib), d + dof[q], len, T, &c,   \
                      DIV, ZX);                                            \
      return 1;                                                            \
    }                                                                      \
    for (int64_t q = 0, n; q < nr; q += n) {                               \
      n = runs_joined(dof, so, q, nr, 4 * len, ib);                        \
      dq_avx512_run(s + (so ? so[q] : q * ib), d + dof[q], n * len, T, &c, \
                    DIV, ZX);                                              \
    }                                                                      \
    return 1;                                                              \
  }
#define DT(T) DR(T, 0, 0) DR(T, 0, 1) DR(T, 1, 0) DR(T, 1, 1) DR(T, 2, 0) DR(T, 2, 1)
  DT(LAY_DT_INT8)
  DT(LAY_DT_UINT8)
  DT(LAY_DT_INT16)
  DT(LAY_DT_UINT16)
#undef DT
#undef DR
  return 0;
}

/* dq_avx512_rows from a pair of byte planes (li_dequant_pairs): a run's
** planes' len bytes (no byte past them read) combined into 16-bit bits
** in a register, then dq_v. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static int
dq_avx512_pairs(lay_dtype t, const uint8_t *s, const int64_t *so, int64_t ps,
                const int sh[2], const uint32_t mk[2], uint8_t *d,
                const int64_t *dof, int64_t nr, int64_t len, float zp,
                float k, double xoff, int div, int zx) {
  const dq512 c = dq512_of(zp, k, xoff);
  const __m256i m0 = _mm256_set1_epi16((short)mk[0]),
                m1 = _mm256_set1_epi16((short)mk[1]);
  const __m128i c0 = _mm_cvtsi32_si128(sh[0]), c1 = _mm_cvtsi32_si128(sh[1]);
  const __mmask16 m = (__mmask16)((1u << len) - 1u);
  div = div_mode(div, k);
#define DP(T, DIV, ZX)                                                     \
  if (t == T && div == DIV && zx == ZX) {                                  \
    for (int64_t q = 0; q < nr; q++) {                                     \
      const uint8_t *p = s + so[q];                                        \
      const __m256i u = li_pair_comb(_mm_maskz_loadu_epi8(m, p),           \
                                     _mm_maskz_loadu_epi8(m, p + ps), c0,  \
                                     c1, m0, m1);                          \
      const __m512i w = T == LAY_DT_INT16 ? _mm512_cvtepi16_epi32(u)       \
                                          : _mm512_cvtepu16_epi32(u);      \
      _mm512_mask_storeu_ps((float *)(void *)(d + dof[q]), m,              \
                            dq_v(w, c.zv, c.kv, c.rv, c.xf, c.xv, DIV, ZX)); \
    }                                                                      \
    return 1;                                                              \
  }
#define DT(T) DP(T, 0, 0) DP(T, 0, 1) DP(T, 1, 0) DP(T, 1, 1) DP(T, 2, 0) DP(T, 2, 1)
  DT(LAY_DT_INT16)
  DT(LAY_DT_UINT16)
#undef DT
#undef DP
  return 0;
}

#undef DQ_CASES
#undef DQ_CASE
#undef DQ_ARGS

/* The constants of the vector dequantization of r from type `from`: zp,
** the factor k, whether it divides by k and whether xoff is a float32;
** 0 when the vector paths do not take r. */
static int dq_consts(const li_vrule *r, lay_dtype from, float *zp, float *pk,
                     int *pdiv, int *zx) {
  if (r->simd < LI_SIMD_SSE || r->arith == LG_A_EXACT || r->nch > 1 ||
      r->cpu != LAY_DT_FP32 || from != r->hw ||
      !(from == LAY_DT_INT8 || from == LAY_DT_UINT8 || from == LAY_DT_INT16 ||
        from == LAY_DT_UINT16) ||
      !small_int(r->zp[0]))
    return 0;
  int div = r->arith == LG_A_F32_DIV;
  *zx = (double)(float)r->xoff[0] == r->xoff[0];
  float k = div ? (float)r->num[0] / (float)r->den[0]
                : (float)r->den[0] / (float)r->num[0];
  uint32_t kb;
  memcpy(&kb, &k, sizeof kb);
  if (div && (kb & 0x7fffffu) == 0 && isnormal(k) && isnormal(1.0f / k)) {
    /* k a power of two (a Kneron scale of 1): q / k and q * (1 / k) are
    ** the same real number, each rounded once, and 1 / k is exact; the
    ** division ran at a third of the product's speed (vdivps) */
    k = 1.0f / k;
    div = 0;
  }
  *zp = (float)r->zp[0];
  *pk = k;
  *pdiv = div;
  return 1;
}

/* dq_consts from r->hw, as li_vrule_prep kept them (they were 2.9% of
** kneron.16w1c8bhl_q unpack's profile, made once a group of rows). */
static int dq_consts_hw(const li_vrule *r, float *zp, float *pk, int *pdiv,
                        int *zx) {
  if (!r->qk_set || r->simd < LI_SIMD_SSE) return dq_consts(r, r->hw, zp, pk, pdiv, zx);
  *zp = r->dq.zp;
  *pk = r->dq.k;
  *pdiv = r->dq.div;
  *zx = r->dq.zx;
  return r->dq.ok;
}

static void dq_prep(li_vrule *r) {
  memset(&r->dq, 0, sizeof r->dq);
  r->dq.ok = dq_consts(r, r->hw, &r->dq.zp, &r->dq.k, &r->dq.div, &r->dq.zx);
}

int li_dequant_rows(const li_vrule *r, const uint8_t *s, const int64_t *so,
                    uint8_t *d, const int64_t *dof, int64_t nr, int64_t len) {
  float zp, k;
  int div, zx;
  if (r->kind != LI_VR_QUANT || r->simd < LI_SIMD_AVX512 ||
      !dq_consts_hw(r, &zp, &k, &div, &zx))
    return 0;
  return dq_avx512_rows(r->hw, s, so, d, dof, nr, len, zp, k, r->xoff[0], div,
                        zx);
}

int li_dequant_pairs(const li_vrule *r, const uint8_t *s, const int64_t *so,
                     int64_t ps, const int sh[2], const uint32_t mk[2],
                     uint8_t *d, const int64_t *dof, int64_t nr, int64_t len) {
  float zp, k;
  int div, zx;
  if (r->kind != LI_VR_QUANT || r->simd < LI_SIMD_AVX512 || len > 16 ||
      len < 1 || sh[0] < 0 || sh[0] > 15 || sh[1] < 0 || sh[1] > 15 ||
      !(r->hw == LAY_DT_INT16 || r->hw == LAY_DT_UINT16) ||
      !dq_consts_hw(r, &zp, &k, &div, &zx))
    return 0;
  return dq_avx512_pairs(r->hw, s, so, ps, sh, mk, d, dof, nr, len, zp, k,
                         r->xoff[0], div, zx);
}

static int fast_dequant(const li_vrule *r, lay_dtype from, const void *src,
                        void *dst, int64_t n) {
  float zp, k;
  int div, zx;
  if (from != r->hw || !dq_consts_hw(r, &zp, &k, &div, &zx)) return 0;
  const size_t fs = li_dt_size(from);
  const int ovl = (uintptr_t)src < (uintptr_t)dst + (size_t)n * 4 &&
                  (uintptr_t)dst < (uintptr_t)src + (size_t)n * fs;
  int64_t i = 0;
  if (r->simd >= LI_SIMD_AVX512 && !ovl) {
    i = dq_avx512(from, src, dst, n, zp, k, r->xoff[0], div, zx, ovl);
    if (i == n) return 1;
    src = (const uint8_t *)src + (size_t)i * fs;
    dst = (uint8_t *)dst + (size_t)i * 4;
    n -= i;
  }
  i = r->simd >= LI_SIMD_AVX2
          ? dq_avx2(from, src, dst, n, zp, k, r->xoff[0], div, zx, ovl)
          : dq_sse(from, src, dst, n, zp, k, r->xoff[0], div, zx, ovl);
  if (i < n) { /* the tail: dequant_run_f32 itself */
    double x[8];
    ld_run(from, (const uint8_t *)src + (size_t)i * fs, x, n - i);
    dequant_run_f32(r, x, n - i, NULL);
    st_run(LAY_DT_FP32, (uint8_t *)dst + (size_t)i * 4, x, n - i, r->round,
           r->saturate);
  }
  return 1;
}

/* GCC at -O0 expands _mm512_roundscale_pd to a macro that passes
** (__mmask8)-1 to the builtin's char mask (-Wsign-conversion). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
/* Quantization fp32 -> int8/uint8/int16/uint16 in exact arithmetic (a
** quantize packing, a dequantize unpacking), per tensor, saturating, with
** AVX-512 (LI_SIMD_AVX512): quant_run's double
** operations in its order, 8 lanes a step ((x - xoff) * num / den, the
** subtraction and the product left out where they are exact: xoff 0,
** num 1), rounded by vrndscalepd (nearest even, toward zero) or trunc
** and a step away from zero from a half, + zp; then st_run's NaN -> 0 and
** clamp, a truncating narrowing of the in-range integer (stored from a
** register, as quant_avx512_k); the last n % 8 under a mask. Any scale:
** quantize(scale = 0.02) divides by 0.02 (2.6x faster than the tile
** path: division-bound). 0 when r is another rule. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static int
exact_quant(const li_vrule *r, lay_dtype from, lay_dtype hw, const void *src,
            void *dst, int64_t n) {
  if (r->simd < LI_SIMD_AVX512 || r->kind == LI_VR_CAST ||
      from != LAY_DT_FP32 || r->arith != LG_A_EXACT || r->nch > 1 ||
      !r->saturate || !small_int(r->zp[0]) ||
      !(hw == LAY_DT_INT8 || hw == LAY_DT_UINT8 || hw == LAY_DT_INT16 ||
        hw == LAY_DT_UINT16))
    return 0;
  double lo, hi;
  int_range(hw, &lo, &hi);
  const int mode = r->round, sub = r->xoff[0] != 0, mul = r->num[0] != 1;
  const __m512d xo = _mm512_set1_pd(r->xoff[0]), nu = _mm512_set1_pd(r->num[0]),
                de = _mm512_set1_pd(r->den[0]), zp = _mm512_set1_pd(r->zp[0]),
                lov = _mm512_set1_pd(lo), hiv = _mm512_set1_pd(hi),
                half = _mm512_set1_pd(0.5), one = _mm512_set1_pd(1.0),
                sgn = _mm512_set1_pd(-0.0);
  const uint8_t *s = src;
  uint8_t *d = dst;
  for (int64_t i = 0; i < n; i += 8) {
    const int whole = n - i >= 8;
    const __mmask8 m = (__mmask8)(whole ? 0xffu : (1u << (n - i)) - 1u);
    __m512d x = _mm512_cvtps_pd(whole ? _mm256_loadu_ps((const float *)(const void *)(s + 4 * i))
                                      : _mm256_maskz_loadu_ps(m, s + 4 * i));
    if (sub) x = _mm512_sub_pd(x, xo);
    if (mul) x = _mm512_mul_pd(x, nu);
    x = _mm512_div_pd(x, de);
    __m512d t;
    if (mode == LG_R_HALF_EVEN) {
      t = _mm512_roundscale_pd(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else {
      t = _mm512_roundscale_pd(x, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
      if (mode == LG_R_HALF_AWAY) { /* |x - t| exact; x's sign on the step */
        __m512d f = _mm512_andnot_pd(sgn, _mm512_sub_pd(x, t));
        __m512d st = _mm512_or_pd(_mm512_and_pd(x, sgn), one);
        t = _mm512_mask_add_pd(t, _mm512_cmp_pd_mask(f, half, _CMP_GE_OQ), t, st);
      }
    }
    __m512d v = _mm512_add_pd(t, zp);
    const __mmask8 ok = _mm512_cmp_pd_mask(v, v, _CMP_ORD_Q);
    v = _mm512_min_pd(_mm512_max_pd(v, lov), hiv);
    __m256i q = _mm512_maskz_cvtpd_epi32(ok, v);
    if (whole && (hw == LAY_DT_INT8 || hw == LAY_DT_UINT8))
      _mm_storel_epi64((__m128i *)(void *)(d + i), _mm256_cvtepi32_epi8(q));
    else if (whole)
      _mm_storeu_si128((__m128i *)(void *)(d + 2 * i), _mm256_cvtepi32_epi16(q));
    else if (hw == LAY_DT_INT8 || hw == LAY_DT_UINT8)
      _mm256_mask_cvtepi32_storeu_epi8(d + i, m, q);
    else
      _mm256_mask_cvtepi32_storeu_epi16(d + 2 * i, m, q);
  }
  return 1;
}
#pragma GCC diagnostic pop

/* The reverse in exact arithmetic: int8/uint8/int16/uint16 -> fp32,
** dequant_run's double operations in its order ((q - zp) * den / num +
** xoff, the product left out where den is 1), then to float; 8 lanes a
** step, the last n % 8 under a mask. 0 when the rule or types are others. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq"))) static int
exact_dequant(const li_vrule *r, lay_dtype from, lay_dtype to,
              const void *src, void *dst, int64_t n) {
  if (r->simd < LI_SIMD_AVX512 || r->arith != LG_A_EXACT || r->nch > 1 ||
      to != LAY_DT_FP32 || !small_int(r->zp[0]) ||
      !(from == LAY_DT_INT8 || from == LAY_DT_UINT8 || from == LAY_DT_INT16 ||
        from == LAY_DT_UINT16))
    return 0;
  const int mul = r->den[0] != 1;
  const __m512d zp = _mm512_set1_pd(r->zp[0]), de = _mm512_set1_pd(r->den[0]),
                nu = _mm512_set1_pd(r->num[0]), xo = _mm512_set1_pd(r->xoff[0]);
  const uint8_t *s = src;
  uint8_t *d = dst;
  for (int64_t i = 0; i < n; i += 8) {
    const __mmask8 m = (__mmask8)(n - i >= 8 ? 0xffu : (1u << (n - i)) - 1u);
    __m256i w;
    if (from == LAY_DT_INT8 || from == LAY_DT_UINT8) {
      __m128i b = _mm_maskz_loadu_epi8(m, s + i);
      w = from == LAY_DT_INT8 ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    } else {
      __m128i h = _mm_maskz_loadu_epi16(m, s + 2 * i);
      w = from == LAY_DT_INT16 ? _mm256_cvtepi16_epi32(h) : _mm256_cvtepu16_epi32(h);
    }
    __m512d x = _mm512_sub_pd(_mm512_cvtepi32_pd(w), zp);
    if (mul) x = _mm512_mul_pd(x, de);
    x = _mm512_add_pd(_mm512_div_pd(x, nu), xo);
    _mm256_mask_storeu_ps(d + 4 * i, m, _mm512_cvtpd_ps(x));
  }
  return 1;
}
#else
static void dq_prep(li_vrule *r) { memset(&r->dq, 0, sizeof r->dq); }
static int exact_dequant(const li_vrule *r, lay_dtype from, lay_dtype to,
                         const void *src, void *dst, int64_t n) {
  (void)r; (void)from; (void)to; (void)src; (void)dst; (void)n;
  return 0;
}
int li_dequant_rows(const li_vrule *r, const uint8_t *s, const int64_t *so,
                    uint8_t *d, const int64_t *dof, int64_t nr, int64_t len) {
  (void)r; (void)s; (void)so; (void)d; (void)dof; (void)nr; (void)len;
  return 0;
}
int li_dequant_pairs(const li_vrule *r, const uint8_t *s, const int64_t *so,
                     int64_t ps, const int sh[2], const uint32_t mk[2],
                     uint8_t *d, const int64_t *dof, int64_t nr, int64_t len) {
  (void)r; (void)s; (void)so; (void)ps; (void)sh; (void)mk; (void)d;
  (void)dof; (void)nr; (void)len;
  return 0;
}

static int fast_dequant(const li_vrule *r, lay_dtype from, const void *src,
                        void *dst, int64_t n) {
  (void)r; (void)from; (void)src; (void)dst; (void)n;
  return 0;
}
static int exact_quant(const li_vrule *r, lay_dtype from, lay_dtype hw,
                       const void *src, void *dst, int64_t n) {
  (void)r; (void)from; (void)hw; (void)src; (void)dst; (void)n;
  return 0;
}
#endif

void li_vrule_prep(li_vrule *r) {
  r->qk = quant_k(r);
  dq_prep(r);
  r->qk_set = 1;
}

/* The tile path with value_simd.c's stages (each the scalar stage's
** operations lane by lane): 0 when a stage does not take the types. */
static int apply_simd(const li_vrule *r, int enc, lay_dtype from,
                      lay_dtype to, const void *src, void *dst, int64_t n,
                      const int32_t *ch) {
  double x[TILE + 4], lo = 0, hi = 0;
  int quant = (r->kind == LI_VR_QUANT) == enc;
  size_t fs = li_dt_size(from), ts = li_dt_size(to);
  int f8f = from == LAY_DT_FP8E4M3 || from == LAY_DT_FP8E5M2;
  int f8t = to == LAY_DT_FP8E4M3 || to == LAY_DT_FP8E5M2;
  if (r->simd < LI_SIMD_SSE || fs == 0 || ts == 0) return 0;
  /* value_simd.c's stages take fp32 .. uint32 (not int64, int4); fp8 is
  ** loaded and stored by cast8.c's runs */
  if ((from > LAY_DT_UINT32 && !f8f) || (to > LAY_DT_UINT32 && !f8t)) return 0;
  /* f32_div dequantizes by a float32 division: the scalar path */
  if (r->arith == LG_A_F32_DIV && !quant && r->kind != LI_VR_CAST) return 0;
  if (to != LAY_DT_FP32 && !f8t && !(r->saturate && !li_dt_is_float(to)))
    return 0;
  if (!li_dt_is_float(to)) int_range(to, &lo, &hi);
  for (int64_t i = 0; i < n; i += TILE) {
    int64_t m = n - i < TILE ? n - i : TILE;
    if (f8f) {
      li_fp8_to_f64(from, (const uint8_t *)src + i, x, m);
      for (int64_t j = m; j < LI_VS_UP(m); j++) x[j] = 0;
    } else {
      li_vs_ld(from, (const uint8_t *)src + (size_t)i * fs, x, m, r->simd);
    }
    if (r->kind == LI_VR_CAST) {
      /* plain conversion */
    } else if (quant) {
      li_vs_quant(r, x, m, ch ? ch + i : NULL);
    } else {
      li_vs_dequant(r, x, m, ch ? ch + i : NULL);
    }
    if (f8t)
      li_fp8_of_f64(to, x, (uint8_t *)dst + i, m, r->round, r->saturate);
    else
      li_vs_st(to, (uint8_t *)dst + (size_t)i * ts, x, m, r->round,
               r->saturate, lo, hi, r->simd);
  }
  return 1;
}

static void apply(const li_vrule *r, int enc, const void *src, void *dst,
                  int64_t n, const int32_t *ch);

/* LI_VR_CHAIN: a tile at a time through every step (encode in order,
** decode in reverse), each converting as its own rule would: the value
** between two steps is an element of the type the first one makes. */
static void apply_chain(const li_vrule *r, int enc, const void *src,
                        void *dst, int64_t n, const int32_t *ch) {
  uint64_t buf[2][TILE]; /* room for TILE elements of any type */
  lay_dtype from = enc ? r->cpu : r->hw, to = enc ? r->hw : r->cpu;
  size_t fs = li_dt_size(from), ts = li_dt_size(to);
  for (int64_t i = 0; i < n; i += TILE) {
    int64_t m = n - i < TILE ? n - i : TILE;
    const void *in = (const uint8_t *)src + (size_t)i * fs;
    for (int k = 0; k < r->nstep; k++) {
      li_vrule s = r->step[enc ? k : r->nstep - 1 - k];
      void *out = k == r->nstep - 1 ? (uint8_t *)dst + (size_t)i * ts
                                    : (void *)buf[k & 1];
      s.simd = r->simd;
      apply(&s, enc, in, out, m, ch ? ch + i : NULL);
      in = out;
    }
  }
}

int li_vrule_channel(const li_vrule *r, int32_t c, li_vrule *v) {
  *v = *r;
  if (r->nch <= 1 || r->axis < 0) return 1;
  if (r->kind != LI_VR_QUANT && r->kind != LI_VR_DEQUANT) return 0;
  v->nch = 1;
  v->axis = -1;
  v->qk_set = 0; /* other constants */
  v->num = r->num + c;
  v->den = r->den + c;
  v->zp = r->zp + c;
  v->xoff = r->xoff + c;
  return 1;
}

/* A per-channel rule over runs of one channel (a row of a channel, a plane
** of CONV_ILV): each run converted by the per-tensor rule of its channel,
** which computes what the per-channel one does for that channel and takes
** the vector paths. 0 when the runs are too short to pay. */
static int apply_runs(const li_vrule *r, int enc, const void *src, void *dst,
                      int64_t n, const int32_t *ch) {
  if (!ch || r->nch <= 1 || r->axis < 0 || n < 16 ||
      (r->kind != LI_VR_QUANT && r->kind != LI_VR_DEQUANT))
    return 0;
  int64_t runs = 1; /* the scan stops as soon as the runs are too many */
  for (int64_t i = 1; i < n; i++)
    if ((runs += ch[i] != ch[i - 1]) * 16 > n) return 0;
  size_t fs = li_dt_size(enc ? r->cpu : r->hw), ts = li_dt_size(enc ? r->hw : r->cpu);
  for (int64_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && ch[j] == ch[i]; j++) {}
    li_vrule v;
    li_vrule_channel(r, ch[i], &v);
    apply(&v, enc, (const uint8_t *)src + (size_t)i * fs,
          (uint8_t *)dst + (size_t)i * ts, j - i, NULL);
  }
  return 1;
}

static void apply(const li_vrule *r, int enc, const void *src, void *dst,
                  int64_t n, const int32_t *ch) {
  lay_dtype from = enc ? r->cpu : r->hw, to = enc ? r->hw : r->cpu;
  size_t fs = li_dt_size(from), ts = li_dt_size(to);
  if (apply_runs(r, enc, src, dst, n, ch)) return;
  if (r->kind == LI_VR_CHAIN) {
    apply_chain(r, enc, src, dst, n, ch);
    return;
  }
  if (r->kind == LI_VR_ID || (r->kind == LI_VR_CAST && from == to)) {
    memcpy(dst, src, (size_t)n * fs);
    return;
  }
  if (r->kind == LI_VR_CAST &&
      (li_vs_cast2(from, to, r->round == LG_R_TRUNC, src, dst, n, r->simd) ||
       fast_cast(from, to, r->round, src, dst, n) ||
       int_cast(from, to, r->saturate, src, dst, n)))
    return;
  if (r->kind == LI_VR_CAST &&
      li_fp8_cast(from, to, r->round, r->saturate, src, dst, n, r->simd))
    return;
  if (r->kind == LI_VR_QUANT && enc && fast_quant(r, src, dst, n)) return;
  if (r->kind == LI_VR_QUANT && !enc && fast_dequant(r, from, src, dst, n))
    return;
  if ((r->kind == LI_VR_QUANT) == enc && exact_quant(r, from, to, src, dst, n))
    return;
  if ((r->kind == LI_VR_QUANT) != enc && r->kind != LI_VR_CAST &&
      exact_dequant(r, from, to, src, dst, n))
    return;
  if (int_quant(r, enc, from, to, src, dst, n)) return;
  if (apply_simd(r, enc, from, to, src, dst, n, ch)) return;
  double x[TILE];
  int quant = (r->kind == LI_VR_QUANT) == enc;
  for (int64_t i = 0; i < n; i += TILE) {
    int64_t m = n - i < TILE ? n - i : TILE;
    ld_run(from, (const uint8_t *)src + (size_t)i * fs, x, m);
    if (r->kind == LI_VR_CAST) {
      /* plain conversion */
    } else if (quant) {
      quant_run(r, x, m, ch ? ch + i : NULL);
    } else {
      dequant_run(r, x, m, ch ? ch + i : NULL);
    }
    st_run(to, (uint8_t *)dst + (size_t)i * ts, x, m, r->round, r->saturate);
  }
}

void li_encode(const li_vrule *r, const void *src, void *dst, int64_t n,
               const int32_t *ch) {
  apply(r, 1, src, dst, n, ch);
}

void li_decode(const li_vrule *r, const void *src, void *dst, int64_t n,
               const int32_t *ch) {
  apply(r, 0, src, dst, n, ch);
}

/* ---- Pads of several values (plan_int.h li_vrule fix) -------------------- */
void li_fix_pads(const li_plan *p, void *dst) {
  const li_side *d = &p->d;
  if (d->is_cpu || !d->v.nfix || !dst) return;
  const int64_t *f = d->v.fix;
  const uint8_t *pat = (const uint8_t *)(f + 3 * d->v.nfix);
  size_t es = d->esz;
  for (int64_t r = 0; r < d->v.nfix; r++) {
    uint8_t *q = (uint8_t *)dst + (size_t)f[3 * r] * es;
    const uint8_t *el = pat + LI_FIX_EL * (size_t)f[3 * r + 2];
    for (int64_t i = 0; i < f[3 * r + 1]; i++, q += es) memcpy(q, el, es);
  }
}
