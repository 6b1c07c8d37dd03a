/*
** value_simd_k.h: the kernels of value_simd.c, written once with GCC
** vector extensions and included twice: VS_ATTR empty (SSE2, each 4-lane
** vector is two registers) and VS_ATTR target("avx2") (one register).
** VS(name) gives each copy its suffix. Every operation is the scalar
** model's IEEE operation (value.c), lane by lane, in the same order; no
** FMA is enabled, so nothing is contracted.
*/

/* value.c's rnd(t, LG_R_HALF_EVEN): (t + m) - m with m = copysign(2^52, t)
** where |t| < 2^52, t itself elsewhere (NaN, inf, large). */
static inline VS_ATTR VS_INL vd VS(rne)(vd t) {
  vl bits = (vl)t;
  vd a = (vd)(bits & ~SIGN64), m = (vd)((bits & SIGN64) | (vl)VD1(0x1p52));
  vd r = (t + m) - m;
  vl small = VS_LT(a, VD1(0x1p52));
  return (vd)(((vl)r & small) | (bits & ~small));
}

/* trunc(t): the nearest integer, one step toward zero where it is farther
** from zero than t (exact below 2^52; beyond, t is integral), with t's
** sign (a zero result is -0.0 for negative t, as trunc's: it shows after
** + zp when zp is -0.0 and the target is a float). */
static inline VS_ATTR VS_INL vd VS(trunc)(vd t) {
  vd r = VS(rne)(t);
  vl bits = (vl)t;
  vd one = (vd)((bits & SIGN64) | (vl)VD1(1.0));
  vl over = VS_LT((vd)(bits & ~SIGN64), (vd)((vl)r & ~SIGN64));
  r = r - (vd)((vl)one & over);
  return (vd)((vl)r | (bits & SIGN64)); /* trunc(-0.3) is -0.0 */
}

/* round(t): half away from zero; t - trunc(t) is exact. */
static inline VS_ATTR VS_INL vd VS(away)(vd t) {
  vd r = VS(trunc)(t), f = t - r;
  vl big = VS_LE(VD1(0.5), (vd)((vl)f & ~SIGN64));
  vd one = (vd)(((vl)t & SIGN64) | (vl)VD1(1.0));
  r = r + (vd)((vl)one & big);
  return (vd)((vl)r | ((vl)t & SIGN64)); /* round(-0.3) is -0.0 */
}

static inline VS_ATTR VS_INL vd VS(rnd)(vd t, int mode) {
  if (mode == LG_R_HALF_AWAY) return VS(away)(t);
  if (mode == LG_R_TRUNC) return VS(trunc)(t);
  return VS(rne)(t);
}

/* Lane constants of channel c[0..3] from array a. */
static inline VS_ATTR VS_INL vd VS(gat)(const double *a, const int *c) {
  vd v = {a[c[0]], a[c[1]], a[c[2]], a[c[3]]};
  return v;
}

/* The channels of lanes i .. i+3 (channel 0 past n) into c; 0 when they
** are those c already holds (runs of one channel keep their constants). */
static inline VS_ATTR VS_INL int VS(chans)(const int32_t *ch, int64_t i,
                                           int64_t n, int *c) {
  int d[4];
  if (i + 4 <= n) {
    d[0] = ch[i]; d[1] = ch[i + 1]; d[2] = ch[i + 2]; d[3] = ch[i + 3];
  } else {
    for (int j = 0; j < 4; j++) d[j] = i + j < n ? (int)ch[i + j] : 0;
  }
  if (d[0] == c[0] && d[1] == c[1] && d[2] == c[2] && d[3] == c[3]) return 0;
  memcpy(c, d, sizeof d);
  return 1;
}

/* The lanes' channels' constants, loaded once per tensor or per step. */
#define VS_CONSTS(CH)                                                      \
  xo = VS(gat)(r->xoff, CH); nu = VS(gat)(r->num, CH);                     \
  de = VS(gat)(r->den, CH); zp = VS(gat)(r->zp, CH);

/* value.c's quant_run (enc) or dequant_run on 4 lanes a step; mode,
** f32 (arith) and perch are constants in each inlined copy. */
static inline VS_ATTR VS_INL void VS(qk)(const li_vrule *r, double *x,
                                         int64_t n, const int32_t *ch,
                                         int enc, int mode, int f32,
                                         int perch, int recip, double rd) {
  vd rdiv = VD1(rd);
  int64_t np = LI_VS_UP(n);
  int c[4] = {0, 0, 0, 0};
  vd xo, nu, de, zp;
  VS_CONSTS(c)
  for (int64_t i = 0; i < np; i += 4) {
    vd v;
    memcpy(&v, x + i, sizeof v);
    if (perch && VS(chans)(ch, i, n, c)) {
      VS_CONSTS(c)
    }
    if (enc && f32) {
      vf k = __builtin_convertvector(nu, vf) / __builtin_convertvector(de, vf);
      vf t = __builtin_convertvector(v, vf) - __builtin_convertvector(xo, vf);
      vf q = t * k;
      v = VS(rnd)(__builtin_convertvector(q, vd), mode) + zp;
    } else if (enc && recip) {
      v = VS(rnd)((v - xo) * nu * rdiv, mode) + zp;
    } else if (enc) {
      v = VS(rnd)((v - xo) * nu / de, mode) + zp;
    } else if (f32) {
      vf k = __builtin_convertvector(de, vf) / __builtin_convertvector(nu, vf);
      vf t = __builtin_convertvector(v - zp, vf);
      vf w = t * k;
      v = __builtin_convertvector(
          __builtin_convertvector(__builtin_convertvector(w, vd) + xo, vf), vd);
    } else if (recip) {
      v = (v - zp) * de * rdiv + xo;
    } else {
      v = (v - zp) * de / nu + xo;
    }
    memcpy(x + i, &v, sizeof v);
  }
}

/* quant_run (enc) or dequant_run: one specialized copy per case. */
static VS_ATTR void VS(quant)(const li_vrule *r, double *x, int64_t n,
                              const int32_t *ch, int enc, double rd) {
  int perch = ch && r->nch > 1 && r->axis >= 0;
  /* quantizing, f32 and f32_div compute alike (apply_simd leaves
  ** f32_div's dequantize, a float32 division, to the scalar path) */
  int f32 = r->arith != LG_A_EXACT;
  if (!perch && !f32 && rd != 0) { /* the divisor's exact reciprocal */
    if (!enc) VS(qk)(r, x, n, ch, 0, 0, 0, 0, 1, rd);
    else if (r->round == LG_R_HALF_AWAY) VS(qk)(r, x, n, ch, 1, LG_R_HALF_AWAY, 0, 0, 1, rd);
    else if (r->round == LG_R_TRUNC) VS(qk)(r, x, n, ch, 1, LG_R_TRUNC, 0, 0, 1, rd);
    else VS(qk)(r, x, n, ch, 1, LG_R_HALF_EVEN, 0, 0, 1, rd);
    return;
  }
#define VQ(E, M, F, P) VS(qk)(r, x, n, ch, E, M, F, P, 0, 0)
#define VQM(E, F, P)                                                       \
  if (r->round == LG_R_HALF_AWAY) VQ(E, LG_R_HALF_AWAY, F, P);             \
  else if (r->round == LG_R_TRUNC) VQ(E, LG_R_TRUNC, F, P);                \
  else VQ(E, LG_R_HALF_EVEN, F, P);
  if (!enc) {
    if (f32) { if (perch) VQ(0, 0, 1, 1); else VQ(0, 0, 1, 0); }
    else { if (perch) VQ(0, 0, 0, 1); else VQ(0, 0, 0, 0); }
  } else if (f32) {
    if (perch) { VQM(1, 1, 1) } else { VQM(1, 1, 0) }
  } else {
    if (perch) { VQM(1, 0, 1) } else { VQM(1, 0, 0) }
  }
#undef VQ
#undef VQM
}

/* fp16 bits (zero-extended to 32) -> fp32 bits, as li_f16_to_f32: NaN
** payloads move up untouched (a signalling NaN stays signalling). */
static inline VS_ATTR VS_INL vu VS(h2f)(vu h) {
  vu sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  vu nrm = sign | ((e + 112u) << 23) | (m << 13);
  vu inf = sign | 0x7f800000u | (m << 13);
  vf sub = __builtin_convertvector(m, vf) * 0x1p-24f;
  vu subu = (vu)sub | sign;
  vu isinf = (vu)(e == 0x1fu), iszero = (vu)(e == 0u);
  return (nrm & ~isinf & ~iszero) | (inf & isinf) | (subu & iszero);
}

static VS_ATTR void VS(ld)(lay_dtype t, const void *src, double *x,
                           int64_t n) {
  const uint8_t *s = src;
  int64_t i = 0;
#define VLD(T, VT, EXPR)                                                   \
  for (; i + 4 <= n; i += 4) {                                             \
    VT w;                                                                  \
    memcpy(&w, s + i * (int64_t)sizeof(T), sizeof w);                      \
    vd v = EXPR;                                                           \
    memcpy(x + i, &v, sizeof v);                                           \
  }                                                                        \
  for (; i < n; i++) {                                                     \
    T e;                                                                   \
    memcpy(&e, s + i * (int64_t)sizeof(T), sizeof e);                      \
    x[i] = (double)e;                                                      \
  }                                                                        \
  break;
/* through int32 lanes: a widening move, then cvtdq2pd */
#define VS_I2D(w) __builtin_convertvector(__builtin_convertvector(w, vi), vd)
  switch (t) {
  case LAY_DT_FP32: VLD(float, vf, __builtin_convertvector(w, vd))
  case LAY_DT_INT8: VLD(int8_t, vb, VS_I2D(w))
  case LAY_DT_UINT8: VLD(uint8_t, vub, VS_I2D(w))
  case LAY_DT_INT16: VLD(int16_t, vs, VS_I2D(w))
  case LAY_DT_UINT16: VLD(uint16_t, vus, VS_I2D(w))
  case LAY_DT_INT32: VLD(int32_t, vi, __builtin_convertvector(w, vd))
  case LAY_DT_UINT32: VLD(uint32_t, vu, __builtin_convertvector(w, vd))
  case LAY_DT_BF16:
    for (; i + 4 <= n; i += 4) {
      vus w;
      memcpy(&w, s + 2 * i, sizeof w);
      vu b = __builtin_convertvector(w, vu) << 16;
      vd v = __builtin_convertvector((vf)b, vd);
      memcpy(x + i, &v, sizeof v);
    }
    for (; i < n; i++) {
      uint16_t h; memcpy(&h, s + 2 * i, 2);
      x[i] = li_bf16_to_f32(h);
    }
    break;
  case LAY_DT_FP16:
    for (; i + 4 <= n; i += 4) {
      vus w;
      memcpy(&w, s + 2 * i, sizeof w);
      vd v = __builtin_convertvector((vf)VS(h2f)(__builtin_convertvector(w, vu)), vd);
      memcpy(x + i, &v, sizeof v);
    }
    for (; i < n; i++) {
      uint16_t h; memcpy(&h, s + 2 * i, 2);
      x[i] = li_f16_to_f32(h);
    }
    break;
  default: break;
  }
#undef VLD
#undef VS_I2D
  for (; i < LI_VS_UP(n); i++) x[i] = 0;
}

/* value.c's st_run, saturating, of 4 lanes into out: rnd, NaN -> 0,
** clamp to [lo, hi], then the integer's low bits. uint32 goes through
** int32 with 2^31 taken off (exact: the value is integral and in range).
** t and mode are constants in each inlined copy. */
static inline VS_ATTR VS_INL void VS(st4)(vd v, lay_dtype t, int mode,
                                          vd lo, vd hi, unsigned char *out) {
  if (t == LAY_DT_FP32) {
    vf f = __builtin_convertvector(v, vf);
    memcpy(out, &f, sizeof f);
    return;
  }
  vd q = VS(rnd)(v, mode);
  vl nan = VS_UNORD(q, q), below = ~VS_LE(lo, q);
  vd lov = (vd)((vl)lo & ~nan);
  q = (vd)(((vl)q & ~below) | ((vl)lov & below));
  vl above = VS_LT(hi, q);
  q = (vd)(((vl)q & ~above) | ((vl)hi & above));
  vi w;
  if (t == LAY_DT_UINT32)
    w = __builtin_convertvector(q - 2147483648.0, vi) ^ INT32_MIN;
  else
    w = __builtin_convertvector(q, vi);
  if (t == LAY_DT_INT8 || t == LAY_DT_UINT8) { /* low bytes, packed */
    __m128i b = _mm_srai_epi32(_mm_slli_epi32((__m128i)w, 24), 24);
    b = _mm_packs_epi32(b, b);
    b = _mm_packs_epi16(b, b);
    uint32_t u = (uint32_t)_mm_cvtsi128_si32(b);
    memcpy(out, &u, 4);
  } else if (t == LAY_DT_INT16 || t == LAY_DT_UINT16) { /* low halves */
    __m128i h = _mm_srai_epi32(_mm_slli_epi32((__m128i)w, 16), 16);
    h = _mm_packs_epi32(h, h);
    _mm_storel_epi64((__m128i *)(void *)out, h);
  } else {
    memcpy(out, &w, sizeof w);
  }
}

static inline VS_ATTR VS_INL void VS(stk)(lay_dtype t, uint8_t *d,
                                          const double *x, int64_t n,
                                          int mode, double lo, double hi,
                                          size_t sz) {
  vd lov = VD1(lo), hiv = VD1(hi);
  unsigned char out[16];
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vd v;
    memcpy(&v, x + i, sizeof v);
    VS(st4)(v, t, mode, lov, hiv, out);
    memcpy(d + (size_t)i * sz, out, 4 * sz);
  }
  if (i < n) { /* x is padded to the group */
    vd v;
    memcpy(&v, x + i, sizeof v);
    VS(st4)(v, t, mode, lov, hiv, out);
    memcpy(d + (size_t)i * sz, out, (size_t)(n - i) * sz);
  }
}

/* st_run: one specialized copy per type and rounding. */
static VS_ATTR void VS(st)(lay_dtype t, void *dst, const double *x,
                           int64_t n, int mode, double lo, double hi) {
  uint8_t *d = dst;
#define VSTM(T, SZ)                                                        \
  case T:                                                                  \
    if (mode == LG_R_HALF_AWAY) VS(stk)(T, d, x, n, LG_R_HALF_AWAY, lo, hi, SZ); \
    else if (mode == LG_R_TRUNC) VS(stk)(T, d, x, n, LG_R_TRUNC, lo, hi, SZ);    \
    else VS(stk)(T, d, x, n, LG_R_HALF_EVEN, lo, hi, SZ);                  \
    return;
  switch (t) {
  case LAY_DT_FP32: VS(stk)(LAY_DT_FP32, d, x, n, 0, lo, hi, 4); return;
  VSTM(LAY_DT_INT8, 1)
  VSTM(LAY_DT_UINT8, 1)
  VSTM(LAY_DT_INT16, 2)
  VSTM(LAY_DT_UINT16, 2)
  VSTM(LAY_DT_INT32, 4)
  VSTM(LAY_DT_UINT32, 4)
  default: return;
  }
#undef VSTM
}

/* fp32 -> fp16 as li_f32_to_f16, without F16C: normal results rebias the
** exponent and round to nearest even on the 13 bits dropped (+ 0xfff +
** the kept lowest bit carries exactly when the rest is over half or half
** with an odd result); subnormal ones and zeros come from the float sum
** |x| + 0.5f, whose rounding (to nearest even, at 2^-24) is that of
** |x| / 2^-24; from 65520 up infinity, NaNs quietened with their top
** payload bits. */
static VS_ATTR int64_t VS(f16)(const uint8_t *s, uint8_t *d, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vu u;
    memcpy(&u, s + 4 * i, sizeof u);
    vu sign = (u >> 16) & 0x8000u, a = u & 0x7fffffffu;
    vu nrm = (a + 0xc8000fffu + ((a >> 13) & 1u)) >> 13;
    vf af = (vf)a;
    vu sub = (vu)(af + 0.5f) - 0x3f000000u;
    vu nan = (vu)((vi)a > 0x7f800000), inf = (vu)((vi)a >= 0x477ff000);
    vu small = (vu)((vi)a < 0x38800000);
    vu r = (nrm & ~small) | (sub & small);
    r = (r & ~inf) | (0x7c00u & inf);
    r = (r & ~nan) | ((0x7e00u | ((a >> 13) & 0x3ffu)) & nan);
    vus h = __builtin_convertvector(r | sign, vus);
    memcpy(d + 2 * i, &h, sizeof h);
  }
  return i;
}

/* fp32 -> bf16 truncating (round = truncate): the high 16 bits. */
static VS_ATTR int64_t VS(bf16t)(const uint8_t *s, uint8_t *d, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    vu u;
    memcpy(&u, s + 4 * i, sizeof u);
    vus h = __builtin_convertvector(u >> 16, vus);
    memcpy(d + 2 * i, &h, sizeof h);
  }
  return i;
}

/* fp32 -> bf16 as li_f32_to_bf16, fp16 -> fp32 / bf16 -> fp32 bitwise. */
static VS_ATTR int64_t VS(cast)(lay_dtype from, lay_dtype to,
                                const uint8_t *s, uint8_t *d, int64_t n) {
  int64_t i = 0;
  if (from == LAY_DT_FP32 && to == LAY_DT_BF16) {
    for (; i + 4 <= n; i += 4) {
      vu u;
      memcpy(&u, s + 4 * i, sizeof u);
      vu nan = (vu)((vi)(u & 0x7fffffffu) > 0x7f800000);
      vu r = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
      vu q = (u >> 16) | 0x40u;
      vus h = __builtin_convertvector((r & ~nan) | (q & nan), vus);
      memcpy(d + 2 * i, &h, sizeof h);
    }
  } else if (from == LAY_DT_FP16 && to == LAY_DT_FP32) {
    for (; i + 4 <= n; i += 4) {
      vus w;
      memcpy(&w, s + 2 * i, sizeof w);
      vu f = VS(h2f)(__builtin_convertvector(w, vu));
      memcpy(d + 4 * i, &f, sizeof f);
    }
  } else if (from == LAY_DT_BF16 && to == LAY_DT_FP32) {
    for (; i + 4 <= n; i += 4) {
      vus w;
      memcpy(&w, s + 2 * i, sizeof w);
      vu f = __builtin_convertvector(w, vu) << 16;
      memcpy(d + 4 * i, &f, sizeof f);
    }
  }
  return i;
}
