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
**
** li_fp8_decode and li_fp8_encode are the definition, one element at a
** time in double; the bulk functions below (li_fp8_to_f32 and friends)
** give the same bytes over runs: decoding through a table of the 256
** codes' fp32 bits (a constant expression of the code), encoding by
** integer arithmetic on the source's bits; both vectorized (cast8_k.h) at
** the plan's SIMD level: encoding with SSE2, AVX2 and AVX-512, decoding
** with AVX2 and AVX-512.
*/
#include <math.h>
#include <string.h>

#include "cast8.h"
#include "dtypes.h"
#include "ir.h"
#include "plan_int.h"
#include "value_simd.h"

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

/* ---- Bulk conversions ---------------------------------------------------- */
/* The fp32 bits of code u of a format with MB mantissa bits and bias B
** (exponent field nonzero; exponent 0 holds m * 2^(1 - B - MB), written
** with its leading bit at position P). Constant expressions: the tables. */
#define F8_EXP(u, MB) (((u) >> (MB)) & ((1u << (7 - (MB))) - 1))
#define F8_MAN(u, MB) ((u) & ((1u << (MB)) - 1))
#define F8_P(m) ((m) >= 4 ? 2u : (m) >= 2 ? 1u : 0u)
#define F8_SUB(m, MB, B)                                               \
  ((m) == 0 ? 0u                                                       \
            : ((F8_P(m) + 128u - (B) - (MB)) << 23) |                  \
                  (((m) - (1u << F8_P(m))) << (23 - F8_P(m))))
#define F8_FIN(u, MB, B)                                               \
  ((((u) & 0x80u) << 24) |                                             \
   (F8_EXP(u, MB) ? ((F8_EXP(u, MB) + 127u - (B)) << 23) |             \
                        (F8_MAN(u, MB) << (23 - (MB)))                 \
                  : F8_SUB(F8_MAN(u, MB), MB, B)))
#define F8_E4(u) (((u) & 0x7fu) == 0x7fu ? 0x7fc00000u : F8_FIN(u, 3u, 7u))
#define F8_E5(u)                                                       \
  (F8_EXP(u, 2u) == 31u                                                \
       ? (F8_MAN(u, 2u) ? 0x7fc00000u : (((u) & 0x80u) << 24) | 0x7f800000u) \
       : F8_FIN(u, 2u, 15u))
#define F8_4(E, b) E(b), E(b + 1u), E(b + 2u), E(b + 3u)
#define F8_16(E, b) F8_4(E, b), F8_4(E, b + 4u), F8_4(E, b + 8u), F8_4(E, b + 12u)
#define F8_64(E, b) F8_16(E, b), F8_16(E, b + 16u), F8_16(E, b + 32u), F8_16(E, b + 48u)
#define F8_256(E) F8_64(E, 0u), F8_64(E, 64u), F8_64(E, 128u), F8_64(E, 192u)

/* (float)li_fp8_decode(t, u) as bits, for every code u. */
static const uint32_t dec_e4m3[256] = {F8_256(F8_E4)};
static const uint32_t dec_e5m2[256] = {F8_256(F8_E5)};

static const uint32_t *dec_table(lay_dtype t) {
  return t == LAY_DT_FP8E5M2 ? dec_e5m2 : dec_e4m3;
}

static float bits_f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* The codes past the largest finite value: finite values (ovf) and
** infinities (infc), for the rounding and saturation. */
static int ovf_code(const fp8fmt *f, int round, int saturate) {
  return round == LG_R_TRUNC || saturate ? f->maxc : f->inf ? 0x7c : f->nanc;
}

static int inf_code(const fp8fmt *f, int saturate) {
  return saturate ? f->maxc : f->inf ? 0x7c : f->nanc;
}

/* v >> sh rounded with mode (0 < sh < 64). */
static uint64_t shr_round(uint64_t v, int sh, int mode) {
  uint64_t q = v >> sh, rem = v & ((UINT64_C(1) << sh) - 1),
           half = UINT64_C(1) << (sh - 1);
  if (mode == LG_R_HALF_AWAY) return q + (rem >= half);
  if (mode == LG_R_TRUNC) return q;
  return q + (rem > half || (rem == half && (q & 1)));
}

/* One value given by the bits u of an IEEE binary format with sm stored
** mantissa bits and bias sb (fp32: 23, 127; double: 52, 1023) as fp8:
** past 2^emin the rebiased bits rounded at the fp8 mantissa's last bit,
** below it the value counted in quanta 2^(emin - mbits), rounded. */
static uint8_t enc_bits(const fp8fmt *f, uint64_t u, int sm, int sb,
                        int round, int saturate) {
  int top = sm == 23 ? 31 : 63; /* the sign bit */
  uint64_t a = u & ((UINT64_C(1) << top) - 1);
  uint8_t sign = (uint8_t)((u >> (top - 7)) & 0x80);
  uint64_t inf = (uint64_t)(2 * sb + 1) << sm;
  uint64_t q;
  if (a > inf) return (uint8_t)(sign | f->nanc);
  if (a == inf) return (uint8_t)(sign | inf_code(f, saturate));
  if (a < (uint64_t)(sb + 1 - f->bias) << sm) { /* below 2^emin: quanta */
    int e = (int)(a >> sm);
    uint64_t m = (a & ((UINT64_C(1) << sm) - 1)) | (e ? UINT64_C(1) << sm : 0);
    int sh = sm + sb - (f->bias - 1 + f->mbits) - (e ? e : 1);
    q = sh > sm + 2 ? 0 : shr_round(m, sh, round); /* past: < half quantum */
  } else {
    q = shr_round(a - ((uint64_t)(sb - f->bias) << sm), sm - f->mbits, round);
  }
  if (q > f->maxc) return (uint8_t)(sign | ovf_code(f, round, saturate));
  return (uint8_t)(sign | q);
}

void li_fp8_to_f64(lay_dtype t, const uint8_t *src, double *dst, int64_t n) {
  const uint32_t *tb = dec_table(t);
  for (int64_t i = 0; i < n; i++) dst[i] = (double)bits_f(tb[src[i]]);
}

void li_fp8_of_f64(lay_dtype t, const double *src, uint8_t *dst, int64_t n,
                   int round, int saturate) {
  const fp8fmt *f = fmt_of(t);
  for (int64_t i = 0; i < n; i++) {
    uint64_t u;
    memcpy(&u, &src[i], 8);
    dst[i] = enc_bits(f, u, 52, 1023, round, saturate);
  }
}

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
#define LI_C8_SIMD 1
#pragma GCC diagnostic ignored "-Wpsabi"
#include <immintrin.h>
#define K_INL __attribute__((always_inline))

/* SSE2: 4 lanes. */
#define K(name) sse_##name
#define K_ATTR
#define VI __m128i
#define VF __m128
#define AND _mm_and_si128
#define OR _mm_or_si128
#define ADD _mm_add_epi32
#define SUB _mm_sub_epi32
#define SRL _mm_srli_epi32
#define SLL _mm_slli_epi32
#define CMPEQ _mm_cmpeq_epi32
#define CMPGT _mm_cmpgt_epi32
#define BLEND(m, a, b) \
  _mm_or_si128(_mm_and_si128((m), (a)), _mm_andnot_si128((m), (b)))
#define SET1 _mm_set1_epi32
#define MULF _mm_mul_ps
#define SUBF _mm_sub_ps
#define CMPGEF _mm_cmpge_ps
#define CVTN _mm_cvtps_epi32
#define CVTT _mm_cvttps_epi32
#define CVTF _mm_cvtepi32_ps
#define CASTF _mm_castsi128_ps
#define CASTI _mm_castps_si128
#include "cast8_k.h"

/* AVX2: 8 lanes. */
#define K(name) avx2_##name
#define K_ATTR __attribute__((target("avx2")))
#define VI __m256i
#define VF __m256
#define AND _mm256_and_si256
#define OR _mm256_or_si256
#define ADD _mm256_add_epi32
#define SUB _mm256_sub_epi32
#define SRL _mm256_srli_epi32
#define SLL _mm256_slli_epi32
#define CMPEQ _mm256_cmpeq_epi32
#define CMPGT _mm256_cmpgt_epi32
#define BLEND(m, a, b) _mm256_blendv_epi8((b), (a), (m))
#define SET1 _mm256_set1_epi32
#define MULF _mm256_mul_ps
#define SUBF _mm256_sub_ps
#define CMPGEF(a, b) _mm256_cmp_ps((a), (b), _CMP_GE_OQ)
#define CVTN _mm256_cvtps_epi32
#define CVTT _mm256_cvttps_epi32
#define CVTF _mm256_cvtepi32_ps
#define CASTF _mm256_castsi256_ps
#define CASTI _mm256_castps_si256
#include "cast8_k.h"

/* AVX-512: 16 lanes; the comparisons give masks, which only BLEND takes
** (CMPGEF's, subtracted as -1, made a vector). */
#define K(name) avx512_##name
#define K_ATTR __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl")))
#define VI __m512i
#define VF __m512
#define AND _mm512_and_si512
#define OR _mm512_or_si512
#define ADD _mm512_add_epi32
#define SUB _mm512_sub_epi32
#define SRL(a, n) _mm512_srli_epi32((a), (unsigned)(n))
#define SLL(a, n) _mm512_slli_epi32((a), (unsigned)(n))
#define CMPEQ _mm512_cmpeq_epi32_mask
#define CMPGT _mm512_cmpgt_epi32_mask
#define BLEND(m, a, b) _mm512_mask_blend_epi32((m), (b), (a))
#define SET1 _mm512_set1_epi32
#define MULF _mm512_mul_ps
#define SUBF _mm512_sub_ps
#define CMPGEF(a, b) \
  _mm512_castsi512_ps(_mm512_movm_epi32(_mm512_cmp_ps_mask((a), (b), _CMP_GE_OQ)))
#define CVTN _mm512_cvtps_epi32
#define CVTT _mm512_cvttps_epi32
#define CVTF _mm512_cvtepi32_ps
#define CASTF _mm512_castsi512_ps
#define CASTI _mm512_castps_si512
#include "cast8_k.h"

/* The encoding loops, one copy per format (its shift) and rounding: 16
** (SSE2) or 32 (AVX2) codes a step, their signs packed as the codes are
** (all ones or zero, from the sign bits) and or'ed in as 0x80. */
#define LD4(I) _mm_loadu_si128((const __m128i *)(const void *)(s + 4 * i + 16 * (I)))
#define ENC_SSE(SH, MODE)                                                  \
  for (; i + 16 <= n; i += 16) {                                           \
    __m128i u0 = LD4(0), u1 = LD4(1), u2 = LD4(2), u3 = LD4(3);            \
    __m128i sg = _mm_packs_epi16(                                          \
        _mm_packs_epi32(_mm_srai_epi32(u0, 31), _mm_srai_epi32(u1, 31)),   \
        _mm_packs_epi32(_mm_srai_epi32(u2, 31), _mm_srai_epi32(u3, 31)));  \
    __m128i q = _mm_packus_epi16(                                          \
        _mm_packs_epi32(sse_enc(u0, &c, MODE, SH), sse_enc(u1, &c, MODE, SH)), \
        _mm_packs_epi32(sse_enc(u2, &c, MODE, SH), sse_enc(u3, &c, MODE, SH))); \
    _mm_storeu_si128((__m128i *)(void *)(d + i),                           \
                     _mm_or_si128(q, _mm_and_si128(sg, b80)));             \
  }

static int64_t enc_sse(const fp8fmt *f, const uint8_t *s, uint8_t *d,
                       int64_t n, int round, int saturate) {
  sse_cst c;
  const __m128i b80 = _mm_set1_epi8((char)0x80);
  int64_t i = 0;
  sse_setup(&c, f, round, saturate);
  if (f->mbits == 3) {
    if (round == LG_R_HALF_EVEN) ENC_SSE(20, LG_R_HALF_EVEN)
    else if (round == LG_R_TRUNC) ENC_SSE(20, LG_R_TRUNC)
    else ENC_SSE(20, LG_R_HALF_AWAY)
  } else {
    if (round == LG_R_HALF_EVEN) ENC_SSE(21, LG_R_HALF_EVEN)
    else if (round == LG_R_TRUNC) ENC_SSE(21, LG_R_TRUNC)
    else ENC_SSE(21, LG_R_HALF_AWAY)
  }
  return i;
}

#define LD8(I) _mm256_loadu_si256((const __m256i *)(const void *)(s + 4 * i + 32 * (I)))
#define ENC_AVX2(SH, MODE)                                                 \
  for (; i + 32 <= n; i += 32) {                                           \
    __m256i u0 = LD8(0), u1 = LD8(1), u2 = LD8(2), u3 = LD8(3);            \
    __m256i sg = _mm256_packs_epi16(                                       \
        _mm256_packs_epi32(_mm256_srai_epi32(u0, 31), _mm256_srai_epi32(u1, 31)), \
        _mm256_packs_epi32(_mm256_srai_epi32(u2, 31), _mm256_srai_epi32(u3, 31))); \
    __m256i q = _mm256_packus_epi16(                                       \
        _mm256_packs_epi32(avx2_enc(u0, &c, MODE, SH), avx2_enc(u1, &c, MODE, SH)), \
        _mm256_packs_epi32(avx2_enc(u2, &c, MODE, SH), avx2_enc(u3, &c, MODE, SH))); \
    q = _mm256_or_si256(q, _mm256_and_si256(sg, b80));                    \
    _mm256_storeu_si256((__m256i *)(void *)(d + i), _mm256_permutevar8x32_epi32(q, ord)); \
  }

__attribute__((target("avx2"))) static int64_t
enc_avx2(const fp8fmt *f, const uint8_t *s, uint8_t *d, int64_t n, int round,
         int saturate) {
  avx2_cst c;
  const __m256i ord = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  const __m256i b80 = _mm256_set1_epi8((char)0x80);
  int64_t i = 0;
  avx2_setup(&c, f, round, saturate);
  if (f->mbits == 3) {
    if (round == LG_R_HALF_EVEN) ENC_AVX2(20, LG_R_HALF_EVEN)
    else if (round == LG_R_TRUNC) ENC_AVX2(20, LG_R_TRUNC)
    else ENC_AVX2(20, LG_R_HALF_AWAY)
  } else {
    if (round == LG_R_HALF_EVEN) ENC_AVX2(21, LG_R_HALF_EVEN)
    else if (round == LG_R_TRUNC) ENC_AVX2(21, LG_R_TRUNC)
    else ENC_AVX2(21, LG_R_HALF_AWAY)
  }
  return i;
}

/* Encoding and decoding with AVX-512, 16 a step, whole steps (the rest
** goes to the AVX2 and SSE2 loops): the codes' signs or'ed in from the
** sign bits, the codes narrowed in a register (sweep.c16f8 pack fp32
** [1,64,56,56] 47 -> 45 us, unpack 35 -> 33: Zen 4 runs the 512-bit
** operations at half rate; the kernel's arithmetic bounds it). */
#define ENC_AVX512(SH, MODE)                                               \
  for (; i + 16 <= n; i += 16) {                                           \
    const __m512i u = _mm512_loadu_si512((const void *)(s + 4 * i));       \
    const __m512i q = _mm512_or_si512(avx512_enc(u, &c, MODE, SH),        \
                                      _mm512_and_si512(_mm512_srli_epi32(u, 24), b80)); \
    _mm_storeu_si128((__m128i *)(void *)(d + i), _mm512_cvtepi32_epi8(q)); \
  }

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) static int64_t
enc_avx512(const fp8fmt *f, const uint8_t *s, uint8_t *d, int64_t n,
           int round, int saturate) {
  avx512_cst c;
  const __m512i b80 = _mm512_set1_epi32(0x80);
  int64_t i = 0;
  avx512_setup(&c, f, round, saturate);
  if (f->mbits == 3) {
    if (round == LG_R_HALF_EVEN) ENC_AVX512(20, LG_R_HALF_EVEN)
    else if (round == LG_R_TRUNC) ENC_AVX512(20, LG_R_TRUNC)
    else ENC_AVX512(20, LG_R_HALF_AWAY)
  } else {
    if (round == LG_R_HALF_EVEN) ENC_AVX512(21, LG_R_HALF_EVEN)
    else if (round == LG_R_TRUNC) ENC_AVX512(21, LG_R_TRUNC)
    else ENC_AVX512(21, LG_R_HALF_AWAY)
  }
  return i;
}

#define DEC_AVX512(SH, E5)                                                 \
  for (; i + 16 <= n; i += 16)                                             \
    _mm512_storeu_si512((void *)(d + 4 * i),                               \
                        avx512_dec(_mm512_cvtepu8_epi32(_mm_loadu_si128(   \
                                       (const __m128i *)(const void *)(s + i))), \
                                   &c, SH, E5));

__attribute__((target("avx512f,avx512bw,avx512dq,avx512vl"))) static int64_t
dec_avx512(const fp8fmt *f, const uint8_t *s, uint8_t *d, int64_t n) {
  avx512_cst c;
  int64_t i = 0;
  avx512_setup(&c, f, LG_R_HALF_EVEN, 1);
  if (f->mbits == 3) DEC_AVX512(20, 0)
  else DEC_AVX512(21, 1)
  return i;
}

/* Decoding with AVX2, 16 codes a step, one loop per format (SSE2's
** version of the kernel, 4 lanes, took 0.42 ns an element where the table
** takes 0.29: SSE2 decodes through the table). */
#define DEC_AVX2(SH, E5)                                                   \
  for (; i + 16 <= n; i += 16)                                             \
    for (int k = 0; k < 2; k++) {                                          \
      __m256i w = _mm256_cvtepu8_epi32(                                    \
          _mm_loadl_epi64((const __m128i *)(const void *)(s + i + 8 * k))); \
      _mm256_storeu_si256((__m256i *)(void *)(d + 4 * i + 32 * k),         \
                          avx2_dec(w, &c, SH, E5));                        \
    }

__attribute__((target("avx2"))) static int64_t
dec_avx2(const fp8fmt *f, const uint8_t *s, uint8_t *d, int64_t n) {
  avx2_cst c;
  int64_t i = 0;
  avx2_setup(&c, f, LG_R_HALF_EVEN, 1);
  if (f->mbits == 3) DEC_AVX2(20, 0)
  else DEC_AVX2(21, 1)
  return i;
}
#endif

void li_fp8_to_f32(lay_dtype t, const uint8_t *src, void *dst, int64_t n,
                   int simd) {
  uint8_t *d = dst;
  int64_t i = 0;
#if defined(LI_C8_SIMD)
  if (simd >= LI_SIMD_AVX2) {
    i = simd >= LI_SIMD_AVX512 ? dec_avx512(fmt_of(t), src, d, n) : 0;
    i += dec_avx2(fmt_of(t), src + i, d + 4 * i, n - i);
    /* the rest by one step of 16 over the end when the buffers are apart */
    if (i < n && n >= 16 && ((uintptr_t)src + (size_t)n <= (uintptr_t)d ||
                             (uintptr_t)d + 4 * (size_t)n <= (uintptr_t)src))
      i = n - 16 + dec_avx2(fmt_of(t), src + n - 16, d + 4 * (n - 16), 16);
  }
#else
  (void)simd;
#endif
  const uint32_t *tb = dec_table(t);
  for (; i < n; i++) memcpy(d + 4 * i, &tb[src[i]], 4);
}

void li_fp8_of_f32(lay_dtype t, const void *src, uint8_t *dst, int64_t n,
                   int round, int saturate, int simd) {
  const fp8fmt *f = fmt_of(t);
  const uint8_t *s = src;
  int64_t i = 0;
#if defined(LI_C8_SIMD)
  if (simd >= LI_SIMD_SSE) {
    uint8_t tb[64] = {0}, ob[16];
    if (simd >= LI_SIMD_AVX512) i = enc_avx512(f, s, dst, n, round, saturate);
    if (simd >= LI_SIMD_AVX2) i += enc_avx2(f, s + 4 * i, dst + i, n - i, round, saturate);
    i += enc_sse(f, s + 4 * i, dst + i, n - i, round, saturate);
    if (i == n) return;
    if (n >= 16 && ((uintptr_t)s + 4 * (size_t)n <= (uintptr_t)dst ||
                    (uintptr_t)dst + (size_t)n <= (uintptr_t)s)) {
      /* one step of 16 over the end (the bytes written twice are equal) */
      enc_sse(f, s + 4 * (n - 16), dst + n - 16, 16, round, saturate);
      return;
    }
    memcpy(tb, s + 4 * i, (size_t)(n - i) * 4); /* the tail as 16 */
    enc_sse(f, tb, ob, 16, round, saturate);
    memcpy(dst + i, ob, (size_t)(n - i));
    return;
  }
#else
  (void)simd;
#endif
  for (; i < n; i++) {
    uint32_t u;
    memcpy(&u, s + 4 * i, 4);
    dst[i] = enc_bits(f, u, 23, 127, round, saturate);
  }
}

int li_fp8_cast(lay_dtype from, lay_dtype to, int round, int saturate,
                const void *src, void *dst, int64_t n, int simd) {
  int f8from = from == LAY_DT_FP8E4M3 || from == LAY_DT_FP8E5M2;
  int f8to = to == LAY_DT_FP8E4M3 || to == LAY_DT_FP8E5M2;
  if (f8from && to == LAY_DT_FP32) {
    li_fp8_to_f32(from, src, dst, n, simd);
    return 1;
  }
  if (f8from && (to == LAY_DT_FP16 || to == LAY_DT_BF16)) {
    /* fp8's values are exact in fp16 and bf16 (any rounding), its NaN
    ** the fp32 NaN's: through an fp32 tile */
    float x[256];
    for (int64_t i = 0; i < n; i += 256) {
      int64_t m = n - i < 256 ? n - i : 256;
      uint8_t *o = (uint8_t *)dst + 2 * i;
      li_fp8_to_f32(from, (const uint8_t *)src + i, x, m, simd);
      if (li_vs_cast(LAY_DT_FP32, to, x, o, m, simd)) continue;
      for (int64_t j = 0; j < m; j++) {
        uint16_t h = to == LAY_DT_FP16 ? li_f32_to_f16(x[j]) : li_f32_to_bf16(x[j]);
        memcpy(o + 2 * j, &h, 2);
      }
    }
    return 1;
  }
  if (!f8to) return 0;
  if (from == LAY_DT_FP32) {
    li_fp8_of_f32(to, src, dst, n, round, saturate, simd);
    return 1;
  }
  /* from a type whose values fp32 holds exactly: through an fp32 tile */
  const uint8_t *s = src;
  size_t fs = lg_dtype_size(from);
  if (!f8from && from != LAY_DT_FP16 && from != LAY_DT_BF16 &&
      from != LAY_DT_INT8 && from != LAY_DT_UINT8 && from != LAY_DT_INT16 &&
      from != LAY_DT_UINT16)
    return 0;
  float x[256];
  for (int64_t i = 0; i < n; i += 256) {
    int64_t m = n - i < 256 ? n - i : 256;
    const uint8_t *p = s + (size_t)i * fs;
    if (f8from) {
      li_fp8_to_f32(from, p, x, m, simd);
    } else if (!((from == LAY_DT_FP16 || from == LAY_DT_BF16) &&
                 li_vs_cast(from, LAY_DT_FP32, p, x, m, simd))) {
      for (int64_t j = 0; j < m; j++) {
        int16_t h;
        uint16_t w;
        switch (from) { /* fp16, bf16: li_vs_cast when there is no SIMD */
        case LAY_DT_FP16: memcpy(&w, p + 2 * j, 2); x[j] = li_f16_to_f32(w); break;
        case LAY_DT_BF16: memcpy(&w, p + 2 * j, 2); x[j] = li_bf16_to_f32(w); break;
        case LAY_DT_INT8: x[j] = (int8_t)p[j]; break;
        case LAY_DT_UINT8: x[j] = p[j]; break;
        case LAY_DT_INT16: memcpy(&h, p + 2 * j, 2); x[j] = h; break;
        default: memcpy(&w, p + 2 * j, 2); x[j] = w; break;
        }
      }
    }
    li_fp8_of_f32(to, x, (uint8_t *)dst + i, m, round, saturate, simd);
  }
  return 1;
}

int64_t li_i64_of(double q, int saturate) {
  if (q != q) return 0;
  if (q >= 0x1p63) return saturate ? INT64_MAX : INT64_MIN; /* 2^63 wraps */
  if (q < -0x1p63) return INT64_MIN;
  return (int64_t)q;
}
