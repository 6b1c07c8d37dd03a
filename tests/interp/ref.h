/*
** ref.h: the independent reference for the planner tests, and helpers to
** build lg_ir structs by hand.
**
** The reference is written from the header comment of lang/ir.h and the
** vendor formulas, one element at a time, without any of interp/'s code:
** it evaluates the dims and axes, fills the whole buffer with the pad
** value, then stores every CPU element of the window at the sum of its
** digits times the strides. Value rules use nearbyint/round/trunc, and fp16/bf16
** roundings written with doubles (toward zero for a truncating cast); the
** float32 arithmetic of `arith = f32 | f32_div` one float operation at a time.
*/
#ifndef TESTS_INTERP_REF_H
#define TESTS_INTERP_REF_H

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

/* ---- IR construction ------------------------------------------------------ */
static lg_iexpr t_nodes[4096];
static int t_nnodes;

static lg_iexpr *E(lg_iexpr_kind k, int64_t v, int dim, lg_iexpr *a,
                   lg_iexpr *b) {
  lg_iexpr *e = &t_nodes[t_nnodes++ % 4096];
  e->kind = k; e->v = v; e->dim = dim; e->a = a; e->b = b;
  return e;
}
#define C(v) E(LG_IE_CONST, (v), 0, NULL, NULL)
#define DIM(i) E(LG_IE_DIM, 0, (i), NULL, NULL)
#define ADD(a, b) E(LG_IE_ADD, 0, 0, (a), (b))
#define SUB(a, b) E(LG_IE_SUB, 0, 0, (a), (b))
#define MUL(a, b) E(LG_IE_MUL, 0, 0, (a), (b))
#define CEILX(a, b) E(LG_IE_CEIL, 0, 0, (a), (b))

static void ir_init(lg_ir *ir, const char *name, const char *dims) {
  memset(ir, 0, sizeof *ir);
  ir->name = name;
  static char names[64][16];
  static int nn;
  for (const char *p = dims; *p;) {
    const char *q = strchr(p, ',');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    char *s = names[nn++ % 64];
    memcpy(s, p, n);
    s[n] = 0;
    ir->dim[ir->rank++].name = s;
    p += n + (q ? 1 : 0);
  }
  ir->value.saturate = 1;
  ir->value.axis = -1;
}

static lg_ir_axis *ax_digit(lg_ir *ir, int dim, int64_t div, int64_t mod,
                            const char *label) {
  lg_ir_axis *a = &ir->axis[ir->naxes++];
  a->kind = LG_AX_DIGIT; a->dim = dim; a->div = div; a->mod = mod;
  a->label = label;
  return a;
}
static lg_ir_axis *ax_unit(lg_ir *ir) {
  lg_ir_axis *a = &ir->axis[ir->naxes++];
  a->kind = LG_AX_UNIT; a->dim = -1; a->label = "1";
  return a;
}
static lg_ir_axis *ax_plane(lg_ir *ir) {
  lg_ir_axis *a = &ir->axis[ir->naxes++];
  a->kind = LG_AX_PLANE; a->dim = -1; a->label = "byte";
  return a;
}

/* ChunkedMemoryLayout<rank, d,size, ...> on (b,h,w,d)-like dims. */
static void ir_chunked(lg_ir *ir, const char *name, const char *dims,
                       const int *pairs, int npairs) {
  ir_init(ir, name, dims);
  static char labels[256][16];
  static int nl;
  for (int i = 0; i < npairs; i++) {
    int d = pairs[2 * i], sz = pairs[2 * i + 1];
    int64_t div = 1;
    for (int k = i + 1; k < npairs; k++)
      if (pairs[2 * k] == d) div *= pairs[2 * k + 1];
    char *l = labels[nl++ % 256];
    snprintf(l, 16, "%s/%lld%%%d", ir->dim[d].name, (long long)div, sz);
    ax_digit(ir, d, div, sz, l);
  }
}

/* ---- Evaluation ------------------------------------------------------------- */
static int64_t ev(const lg_iexpr *e, const int64_t *s) {
  int64_t a, b;
  switch (e->kind) {
  case LG_IE_CONST: return e->v;
  case LG_IE_DIM: return s[e->dim];
  default: break;
  }
  a = ev(e->a, s);
  b = ev(e->b, s);
  switch (e->kind) {
  case LG_IE_ADD: return a + b;
  case LG_IE_SUB: return a - b;
  case LG_IE_MUL: return a * b;
  case LG_IE_DIV: return a / b;
  case LG_IE_MOD: return a % b;
  case LG_IE_CEIL: return (a + b - 1) / b * b;
  default: return 0;
  }
}

typedef struct rlay {
  const lg_ir *ir;
  int rank;
  int64_t size[8], lo[8], hi[8], before[8], P[8];
  int64_t ext[32], stride[32];
  int64_t nelem;
  lay_dtype cpu, hw;
  size_t csz, hsz;
} rlay;

static size_t dsz(lay_dtype t) {
  return t == LAY_DT_INT64 || t == LAY_DT_UINT64 ? 8
         : t == LAY_DT_FP32 || t == LAY_DT_INT32 || t == LAY_DT_UINT32 ? 4
         : t == LAY_DT_INT8 || t == LAY_DT_UINT8 || t == LAY_DT_FP8E4M3 ||
                 t == LAY_DT_FP8E5M2
             ? 1
             : 2;
}

/* OCP fp8 (OFP8 1.0), written apart from lay's own: a code's value from
** its fields, and an encoding that searches every finite code for the
** nearest. E4M3: bias 7, 3 mantissa bits, S.1111.111 NaN, no infinity;
** E5M2: bias 15, 2 mantissa bits, exponent 11111 infinity or NaN. */
static double r_f8_val(int e5, unsigned u) {
  int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7, em = e5 ? 31 : 15;
  int e = (int)(u >> mb) & em, m = (int)u & ((1 << mb) - 1);
  double sg = (u & 0x80) ? -1 : 1;
  if (e5 && e == em) return m ? NAN : sg * INFINITY;
  if (!e5 && e == em && m == 7) return NAN;
  return sg * (e ? ldexp(1 + m / (double)(1 << mb), e - bias)
                 : ldexp(m / (double)(1 << mb), 1 - bias));
}

/* v in fp8: the nearest of the finite codes and of the code just past
** the largest finite value, taken as 2^(emax+1) (E4M3: 0x7f = 480, E5M2:
** 0x7c = 65536); ties to the even code, or away from zero with
** LG_R_HALF_AWAY; LG_R_TRUNC: the largest finite code not above |v|. The
** code past the largest means overflow: the largest finite code when
** `sat`, else NaN (E4M3) or infinity (E5M2). */
static uint8_t r_f8(int e5, double v, int mode, int sat) {
  unsigned sg = signbit(v) ? 0x80 : 0, past = e5 ? 0x7c : 0x7f;
  uint8_t big = (uint8_t)(sg | (e5 ? 0x7b : 0x7e));
  uint8_t ovf = (uint8_t)(sg | (e5 ? 0x7c : 0x7f));
  if (isnan(v)) return (uint8_t)(sg | (e5 ? 0x7e : 0x7f));
  double a = fabs(v);
  if (isinf(a)) return sat ? big : ovf;
  unsigned best = 0;
  double bd = INFINITY;
  for (unsigned c = 0; c <= past; c++) {
    double x = c == past ? (e5 ? 65536.0 : 480.0) : r_f8_val(e5, c);
    if (isnan(x) || isinf(x) || (mode == LG_R_TRUNC && (x > a || c == past)))
      continue;
    double d = fabs(a - x);
    int tie_wins = mode == LG_R_HALF_AWAY ? 1 : (c & 1) == 0;
    if (d < bd || (d == bd && mode != LG_R_TRUNC && tie_wins)) {
      bd = d;
      best = c; /* codes rise with their values: a later tie is larger */
    }
  }
  if (best == past) return sat ? big : ovf;
  return (uint8_t)(sg | best);
}

static void rlay_init(rlay *r, const lg_ir *ir, const int64_t *shape,
                      lay_dtype cpu) {
  memset(r, 0, sizeof *r);
  r->ir = ir;
  r->rank = ir->rank;
  r->cpu = cpu;
  r->hw = ir->value.nplanes ? LAY_DT_UINT8
          : ir->value.hw ? ir->value.hw : cpu;
  r->csz = dsz(cpu);
  r->hsz = dsz(r->hw);
  for (int d = 0; d < r->rank; d++) {
    const lg_ir_dim *id = &ir->dim[d];
    r->size[d] = shape[d];
    r->lo[d] = id->lo ? ev(id->lo, shape) : 0;
    r->hi[d] = id->hi ? ev(id->hi, shape) : shape[d];
    r->before[d] = id->before ? ev(id->before, shape) : 0;
    int64_t after = id->after ? ev(id->after, shape) : 0;
    int64_t P = r->before[d] + r->hi[d] - r->lo[d] + after, chunk = 1;
    for (int j = 0; j < ir->naxes; j++)
      if (ir->axis[j].kind == LG_AX_DIGIT && ir->axis[j].dim == d &&
          ir->axis[j].mod > 0)
        chunk *= ir->axis[j].mod;
    r->P[d] = (P + chunk - 1) / chunk * chunk;
  }
  for (int j = 0; j < ir->naxes; j++) {
    const lg_ir_axis *a = &ir->axis[j];
    r->ext[j] = a->kind == LG_AX_UNIT ? 1
                : a->kind == LG_AX_PLANE ? ir->value.nplanes
                : a->mod ? a->mod : (r->P[a->dim] + a->div - 1) / a->div;
  }
  int64_t inner = 1;
  for (int j = ir->naxes - 1; j >= 0; j--) {
    int64_t s = ir->axis[j].stride ? ev(ir->axis[j].stride, shape) : inner;
    if (ir->axis[j].align) {
      int64_t al = ev(ir->axis[j].align, shape);
      s = (s + al - 1) / al * al;
    }
    r->stride[j] = s;
    inner = s * r->ext[j];
  }
  int64_t maxoff = 0;
  for (int j = 0; j < ir->naxes; j++) maxoff += (r->ext[j] - 1) * r->stride[j];
  r->nelem = r->ext[0] * r->stride[0];
  if (maxoff + 1 > r->nelem) r->nelem = maxoff + 1;
}

/* Element offset of CPU coordinate x (in window), plane 0. */
static int64_t rlay_off(const rlay *r, const int64_t *x) {
  int64_t off = 0;
  for (int j = 0; j < r->ir->naxes; j++) {
    const lg_ir_axis *a = &r->ir->axis[j];
    if (a->kind != LG_AX_DIGIT) continue;
    int64_t p = x[a->dim] - r->lo[a->dim] + r->before[a->dim];
    int64_t dg = p / a->div;
    if (a->mod) dg %= a->mod;
    off += dg * r->stride[j];
  }
  return off;
}
static int64_t rlay_pstride(const rlay *r) {
  for (int j = 0; j < r->ir->naxes; j++)
    if (r->ir->axis[j].kind == LG_AX_PLANE) return r->stride[j];
  return 0;
}
static int rlay_in(const rlay *r, const int64_t *x) {
  for (int d = 0; d < r->rank; d++)
    if (x[d] < r->lo[d] || x[d] >= r->hi[d]) return 0;
  return 1;
}

/* ---- Values ------------------------------------------------------------------ */
/* fp16 by arithmetic: round v to 11 significant bits (nearest even, or
** toward zero with LG_R_TRUNC: 65504 past the largest finite value). */
static uint16_t r_f16(double v, int mode) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  int tr = mode == LG_R_TRUNC;
  if (isnan(v)) return (uint16_t)(sign | 0x7e00);
  double a = fabs(v);
  if (isinf(a) || (!tr && a >= 65520.0)) return (uint16_t)(sign | 0x7c00);
  if (tr && a >= 65504.0) return (uint16_t)(sign | 0x7bff);
  if (a == 0) return sign;
  int e = ilogb(a);
  if (e < -14) e = -14;
  double ulp = ldexp(1.0, e - 10);
  double r = (tr ? trunc(a / ulp) : nearbyint(a / ulp)) * ulp;
  if (r >= 65536.0) return (uint16_t)(sign | 0x7c00);
  if (r == 0) return sign;
  int E = ilogb(r);
  if (E < -14) return (uint16_t)(sign | (uint16_t)(r / 0x1p-24));
  return (uint16_t)(sign | (E + 15) << 10 | (uint16_t)(r / ldexp(1.0, E - 10) - 1024));
}

static double r_f16_val(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                              : ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}


static double r_ld(lay_dtype t, const uint8_t *p) {
  switch (t) {
  case LAY_DT_FP32: { float f; memcpy(&f, p, 4); return f; }
  case LAY_DT_FP16: { uint16_t h; memcpy(&h, p, 2); return r_f16_val(h); }
  case LAY_DT_BF16: { uint32_t u = (uint32_t)(p[0] | p[1] << 8) << 16; float f; memcpy(&f, &u, 4); return f; }
  case LAY_DT_INT8: return (int8_t)p[0];
  case LAY_DT_UINT8: return p[0];
  case LAY_DT_INT16: { int16_t v; memcpy(&v, p, 2); return v; }
  case LAY_DT_UINT16: { uint16_t v; memcpy(&v, p, 2); return v; }
  case LAY_DT_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
  case LAY_DT_UINT32: { uint32_t v; memcpy(&v, p, 4); return v; }
  case LAY_DT_INT64: { int64_t v; memcpy(&v, p, 8); return (double)v; }
  case LAY_DT_UINT64: { /* its two halves, one rounding to a double */
    uint32_t lo, hi;
    memcpy(&lo, p, 4);
    memcpy(&hi, p + 4, 4);
    return ldexp((double)hi, 32) + (double)lo;
  }
  case LAY_DT_FP8E4M3: return r_f8_val(0, p[0]);
  case LAY_DT_FP8E5M2: return r_f8_val(1, p[0]);
  default: return 0;
  }
}

/* bf16: nearest even, or toward zero with LG_R_TRUNC (the top 16 bits,
** a NaN's included, as VART-ML's float_to_bf16). */
static uint16_t r_bf16(double v, int mode) {
  float f = (float)v; /* the tests feed values exact in fp32 */
  uint32_t u;
  int tr = mode == LG_R_TRUNC;
  memcpy(&u, &f, 4);
  if (isnan(f)) return (uint16_t)(tr ? u >> 16 : (u >> 16) | 0x40);
  if (f == 0 || isinf(f)) return (uint16_t)(u >> 16);
  int e = ilogb(f);
  if (e < -126) e = -126;
  double ulp = ldexp(1.0, e - 7);
  double r = (tr ? trunc((double)f / ulp) : nearbyint((double)f / ulp)) * ulp;
  float g = (float)r; /* exact, or overflows to inf */
  memcpy(&u, &g, 4);
  return (uint16_t)(u >> 16);
}

static double r_round(double t, int mode) {
  if (mode == LG_R_HALF_AWAY) return round(t);
  if (mode == LG_R_TRUNC) return trunc(t);
  return nearbyint(t);
}

static void r_st(lay_dtype t, uint8_t *p, double v, int mode, int sat) {
  switch (t) {
  case LAY_DT_FP32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case LAY_DT_FP16: { uint16_t h = r_f16(v, mode); memcpy(p, &h, 2); return; }
  case LAY_DT_BF16: { uint16_t h = r_bf16(v, mode); memcpy(p, &h, 2); return; }
  case LAY_DT_FP8E4M3: p[0] = r_f8(0, v, mode, sat); return;
  case LAY_DT_FP8E5M2: p[0] = r_f8(1, v, mode, sat); return;
  case LAY_DT_UINT64: { /* 0 .. 2^64 - 1, a byte at a time */
    double q = r_round(v, mode);
    if (!(q > 0)) q = 0;
    for (int k = 0; k < 8; k++) {
      double b = q >= 0x1p64 ? 255 : fmod(floor(ldexp(q, -8 * k)), 256);
      p[k] = (uint8_t)b;
    }
    (void)sat;
    return;
  }
  default: break;
  }
  double lo = t == LAY_DT_INT8 ? -128 : t == LAY_DT_UINT8 ? 0
            : t == LAY_DT_INT16 ? -32768 : t == LAY_DT_UINT16 ? 0
            : t == LAY_DT_UINT32 ? 0 : t == LAY_DT_INT64 ? -0x1p63 : -2147483648.0;
  double hi = t == LAY_DT_INT8 ? 127 : t == LAY_DT_UINT8 ? 255
            : t == LAY_DT_INT16 ? 32767 : t == LAY_DT_UINT16 ? 65535
            : t == LAY_DT_UINT32 ? 4294967295.0
            : t == LAY_DT_INT64 ? 0x1p63 - 1024 /* the last double below */
            : 2147483647.0;
  double q = r_round(v, mode);
  if (isnan(q)) q = 0;
  (void)sat;
  if (q < lo) q = lo;
  if (q > hi) q = hi;
  int64_t iv = (int64_t)q;
  memcpy(p, &iv, dsz(t)); /* little-endian */
}

/* Encode one CPU element (bytes) into hw element(s) at dst (planes at
** pstride bytes apart). ch: channel index. */
static void r_encode_t(const rlay *r, lay_dtype hwt, const uint8_t *src,
                       uint8_t *dst, int64_t ch);
static void r_decode_t(const rlay *r, lay_dtype hwt, const uint8_t *src,
                       uint8_t *dst, int64_t ch);

/* With byte planes, the planes split the bits of the CPU element, or of
** the value rule's target type when there is a rule. */
static void r_encode(const rlay *r, const uint8_t *src, uint8_t *dst,
                     int64_t pstride, int64_t ch) {
  const lg_ir_value *v = &r->ir->value;
  if (v->nplanes) {
    uint32_t u = 0;
    if (v->kind != LG_V_NONE) {
      uint8_t t[8] = {0};
      r_encode_t(r, v->hw, src, t, ch);
      memcpy(&u, t, dsz(v->hw) < 4 ? dsz(v->hw) : 4);
    } else {
      memcpy(&u, src, r->csz < 4 ? r->csz : 4); /* the low 32 bits */
    }
    for (int k = 0; k < v->nplanes; k++)
      dst[k * pstride] = (uint8_t)((u >> v->plane[k].shift) & v->plane[k].mask);
    return;
  }
  r_encode_t(r, r->hw, src, dst, ch);
}

static void r_decode(const rlay *r, const uint8_t *src, int64_t pstride,
                     uint8_t *dst, int64_t ch) {
  const lg_ir_value *v = &r->ir->value;
  if (v->nplanes) {
    uint32_t u = 0;
    for (int k = 0; k < v->nplanes; k++)
      u |= ((uint32_t)src[k * pstride] & v->plane[k].mask) << v->plane[k].shift;
    if (v->kind != LG_V_NONE) {
      uint8_t t[8] = {0};
      memcpy(t, &u, 4);
      r_decode_t(r, v->hw, t, dst, ch);
    } else {
      uint64_t w = u; /* zero above bit 31 */
      memcpy(dst, &w, r->csz);
    }
    return;
  }
  r_decode_t(r, r->hw, src, dst, ch);
}

/* The quantizing formula before rounding: (x - xoff) * num / den, in
** double, or with arith = f32 | f32_div in float32: k = f32(num) /
** f32(den), f32(f32(x - xoff) * k). */
static double r_quant(const lg_ir_value *v, int c, double x) {
  if (v->arith == LG_A_EXACT) return (x - v->xoff[c]) * v->num[c] / v->den[c];
  float k = (float)v->num[c] / (float)v->den[c];
  float t = (float)x - (float)v->xoff[c];
  float p = t * k;
  return p;
}

/* The dequantizing formula: (q - zp) * den / num + xoff in double; f32:
** f32(f32(q - zp) * (f32(den) / f32(num))) + xoff; f32_div: f32(f32(q -
** zp) / k) + xoff. */
static double r_dequant(const lg_ir_value *v, int c, double q) {
  if (v->arith == LG_A_EXACT) return (q - v->zp[c]) * v->den[c] / v->num[c] + v->xoff[c];
  float t = (float)(q - v->zp[c]), y;
  if (v->arith == LG_A_F32_DIV) y = t / ((float)v->num[c] / (float)v->den[c]);
  else y = t * ((float)v->den[c] / (float)v->num[c]);
  return (float)((double)y + v->xoff[c]);
}

static void r_encode_t(const rlay *r, lay_dtype hwt, const uint8_t *src,
                       uint8_t *dst, int64_t ch) {
  const lg_ir_value *v = &r->ir->value;
  double x = r_ld(r->cpu, src);
  int c = v->n > 1 ? (int)ch : 0;
  if (v->kind == LG_V_AFFINE && !v->dequant) {
    double q = r_round(r_quant(v, c, x), v->round) + v->zp[c];
    r_st(hwt, dst, q, v->round, v->saturate);
  } else if (v->kind == LG_V_AFFINE) {
    r_st(hwt, dst, r_dequant(v, c, x), v->round, 1);
  } else if (hwt == r->cpu) {
    memcpy(dst, src, r->csz);
  } else {
    r_st(hwt, dst, x, v->round, 1);
  }
}

static void r_decode_t(const rlay *r, lay_dtype hwt, const uint8_t *src,
                       uint8_t *dst, int64_t ch) {
  const lg_ir_value *v = &r->ir->value;
  double q = r_ld(hwt, src);
  int c = v->n > 1 ? (int)ch : 0;
  if (v->kind == LG_V_AFFINE && !v->dequant) {
    r_st(r->cpu, dst, r_dequant(v, c, q), v->round, 1);
  } else if (v->kind == LG_V_AFFINE) {
    r_st(r->cpu, dst, r_round(r_quant(v, c, q), v->round) + v->zp[c],
         v->round, 1);
  } else if (hwt == r->cpu) {
    memcpy(dst, src, r->csz);
  } else {
    r_st(r->cpu, dst, q, v->round, 1);
  }
}

/* The pad element as stored (hw bytes). */
static void r_pad(const rlay *r, uint8_t *p) {
  const lg_ir_value *v = &r->ir->value;
  if (v->pad_int && (r->hw == LAY_DT_INT64 || r->hw == LAY_DT_UINT64)) {
    for (int k = 0; k < 8; k++) /* the literal's exact value, LE */
      p[k] = (uint8_t)(v->pad_bits >> (8 * k));
    return;
  }
  r_st(r->hw, p, v->pad_value, LG_R_HALF_EVEN, 1);
}

/* With byte planes the pad is a value of the type the planes split (the
** value rule's target, else the CPU type), split like any element
** (LANGUAGE.md, pad_value: 258 as int16 through Kneron's split stores
** lo 0x01, hi 0x01): plane k's byte at p[k * pstride]. */
static void r_pad_planes(const rlay *r, uint8_t *p, int64_t pstride) {
  const lg_ir_value *v = &r->ir->value;
  const lay_dtype t = v->kind != LG_V_NONE ? v->hw : r->cpu;
  uint8_t b[8] = {0};
  if (v->pad_int && (t == LAY_DT_INT64 || t == LAY_DT_UINT64)) {
    for (int k = 0; k < 8; k++) b[k] = (uint8_t)(v->pad_bits >> (8 * k));
  } else {
    r_st(t, b, v->pad_value, LG_R_HALF_EVEN, 1);
  }
  uint32_t u;
  memcpy(&u, b, 4); /* the low 32 bits, as r_encode splits them */
  for (int k = 0; k < v->nplanes; k++)
    p[k * pstride] = (uint8_t)((u >> v->plane[k].shift) & v->plane[k].mask);
}

static int64_t r_count(const int64_t *s, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= s[i];
  return n;
}

static void r_unravel(int64_t k, const int64_t *s, int rank, int64_t *x) {
  for (int i = rank - 1; i >= 0; i--) { x[i] = k % s[i]; k /= s[i]; }
}

/* pack: cpu -> buffer (nelem * hsz bytes). */
static void r_pack(const rlay *r, const uint8_t *cpu, uint8_t *buf) {
  uint8_t pad[8];
  int64_t n = r_count(r->size, r->rank), x[8], ps = rlay_pstride(r);
  r_pad(r, pad);
  for (int64_t e = 0; e < r->nelem; e++) memcpy(buf + e * r->hsz, pad, r->hsz);
  if (r->ir->value.nplanes && ps > 0) { /* each plane's byte of the pad:
    ** plane (e / ps) % nplanes (blocks of ps bytes, the planes in turn) */
    uint8_t pk[LG_MAX_PLANES];
    r_pad_planes(r, pk, 1);
    for (int64_t e = 0; e < r->nelem; e++)
      buf[e] = pk[(e / ps) % r->ir->value.nplanes];
  }
  int ax = r->ir->value.axis;
  for (int64_t k = 0; k < n; k++) {
    r_unravel(k, r->size, r->rank, x);
    if (!rlay_in(r, x)) continue;
    r_encode(r, cpu + k * r->csz, buf + rlay_off(r, x) * r->hsz, ps,
             ax >= 0 ? x[ax] : 0);
  }
}

/* unpack: buffer -> cpu; elements outside the window get the pad decoded. */
static void r_unpack(const rlay *r, const uint8_t *buf, uint8_t *cpu) {
  int64_t n = r_count(r->size, r->rank), x[8], ps = rlay_pstride(r);
  int ax = r->ir->value.axis;
  uint8_t pad[8] = {0};
  if (r->ir->value.nplanes) r_pad_planes(r, pad, 1);
  else r_pad(r, pad);
  for (int64_t k = 0; k < n; k++) {
    r_unravel(k, r->size, r->rank, x);
    if (rlay_in(r, x))
      r_decode(r, buf + rlay_off(r, x) * r->hsz, ps, cpu + k * r->csz,
               ax >= 0 ? x[ax] : 0);
    else
      r_decode(r, pad, 1, cpu + k * r->csz, ax >= 0 ? x[ax] : 0);
  }
}

#endif
