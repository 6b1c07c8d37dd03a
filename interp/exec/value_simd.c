/*
** value_simd.c: the vectorized stages of value.c's tile path (load to
** doubles, quantize / dequantize, store with rounding and saturation,
** fp32 <-> fp16 / bf16 casts). The kernels (value_simd_k.h) are compiled
** twice, for SSE2 and for AVX2 (chosen by the rule's simd level); fp32 ->
** fp16 uses F16C's vcvtps2ph where the CPU has it; the casts take whole
** steps of 16 with AVX-512 first (cast512). Bit for bit the scalar
** code's results: tests/interp/test_value.c compares them on millions of
** values.
*/
#include <stdint.h>
#include <string.h>

#include "value_simd.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
#define LI_VS 1
/* The helpers returning vectors are always inlined: no vector crosses a
** call, whatever the copy's instruction set. */
#define VS_INL __attribute__((always_inline))
#pragma GCC diagnostic ignored "-Wpsabi"
#include <cpuid.h>
#include <immintrin.h>

typedef double vd __attribute__((vector_size(32)));
typedef int64_t vl __attribute__((vector_size(32)));
typedef float vf __attribute__((vector_size(16)));
typedef int32_t vi __attribute__((vector_size(16)));
typedef uint32_t vu __attribute__((vector_size(16)));
typedef int16_t vs __attribute__((vector_size(8)));
typedef uint16_t vus __attribute__((vector_size(8)));
typedef int8_t vb __attribute__((vector_size(4)));
typedef uint8_t vub __attribute__((vector_size(4)));
#define SIGN64 INT64_MIN
#define VD1(x) ((vd){(x), (x), (x), (x)})

/* Comparisons of 4 doubles giving lane masks: SSE2 has no 4-lane
** compare, and GCC lowers a generic one lane by lane through scalar
** branches, so the SSE2 copy compares the two halves with cmppd. */
static inline VS_INL vl cmp_sse(vd a, vd b, int op) {
  __m128d ah[2], bh[2], r[2];
  memcpy(ah, &a, sizeof a);
  memcpy(bh, &b, sizeof b);
  for (int j = 0; j < 2; j++)
    r[j] = op == 0 ? _mm_cmplt_pd(ah[j], bh[j])
           : op == 1 ? _mm_cmple_pd(ah[j], bh[j])
                     : _mm_cmpunord_pd(ah[j], bh[j]);
  vl m;
  memcpy(&m, r, sizeof m);
  return m;
}

#define VS_ATTR
#define VS(name) vs_##name##_sse
#define VS_LT(a, b) cmp_sse((a), (b), 0)
#define VS_LE(a, b) cmp_sse((a), (b), 1)
#define VS_UNORD(a, b) cmp_sse((a), (b), 2)
#include "value_simd_k.h"
#undef VS_ATTR
#undef VS
#undef VS_LT
#undef VS_LE
#undef VS_UNORD
#define VS_ATTR __attribute__((target("avx2")))
#define VS(name) vs_##name##_avx2
#define VS_LT(a, b) ((a) < (b))
#define VS_LE(a, b) ((a) <= (b))
#define VS_UNORD(a, b) (((a) != (a)) | ((b) != (b)))
#include "value_simd_k.h"
#undef VS_ATTR
#undef VS

/* fp32 -> fp16 with F16C, 8 a step: vcvtps2ph rounds to nearest even,
** gives infinity from 65520 up, subnormals exactly, and a NaN as sign |
** 0x7e00 | its top payload bits (quietened): li_f32_to_f16's bits. */
__attribute__((target("avx2,f16c"))) static int64_t
f16_avx2(const uint8_t *s, uint8_t *d, int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps((const float *)(const void *)(s + 4 * i));
    __m128i h = _mm256_cvtps_ph(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    _mm_storeu_si128((__m128i *)(void *)(d + 2 * i), h);
  }
  return i;
}

/* The casts below with AVX-512, 16 a step, whole steps only (the rest
** goes to the AVX2 copies): the same operations lane for lane, the
** narrowing into a register and a plain store (a narrowing store to
** memory is slow on Zen 4). kind: 0 bf16 -> fp32, 1 fp32 -> bf16
** truncating, 2 fp32 -> bf16 as li_f32_to_bf16, 3 fp32 -> fp16 (vcvtps2ph
** as f16_avx2), 4 fp16 -> fp32 (vcvtph2ps as h2f_avx2, exponent 31 lanes
** by li_f16_to_f32's bits). amd.hcwnc_bf16(16) pack fp32 [1,64,56,56]: the
** cast took 1.3x a memcpy of the fp32 side with AVX2. */
/* GCC at -O0 expands _mm512_cvtps_ph to a macro that passes
** (__mmask16)-1 to the builtin's mask (-Wsign-conversion). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-conversion"
__attribute__((target("avx512f,avx512bw,avx512vl"))) static int64_t
cast512(int kind, const uint8_t *s, uint8_t *d, int64_t n) {
  const size_t fs = kind == 0 || kind == 4 ? 2 : 4, ts = 6 - fs;
  const __m512i one = _mm512_set1_epi32(1), rb = _mm512_set1_epi32(0x7fff),
                q40 = _mm512_set1_epi32(0x40), ab = _mm512_set1_epi32(0x7fffffff),
                inf = _mm512_set1_epi32(0x7f800000),
                e31 = _mm512_set1_epi32(0x7c00), m10 = _mm512_set1_epi32(0x3ff),
                sg = _mm512_set1_epi32(0x8000);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const uint8_t *x = s + fs * (size_t)i;
    uint8_t *y = d + ts * (size_t)i;
    if (kind == 0 || kind == 4) {
      const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)x);
      const __m512i w = _mm512_cvtepu16_epi32(h);
      __m512i f;
      if (kind == 0) {
        f = _mm512_slli_epi32(w, 16);
      } else {
        const __mmask16 sp = _mm512_cmpeq_epi32_mask(_mm512_and_si512(w, e31), e31);
        f = _mm512_castps_si512(_mm512_cvtph_ps(h));
        if (sp) /* infinities or NaNs: rare, a branch */
          f = _mm512_mask_mov_epi32(
              f, sp,
              _mm512_or_si512(
                  _mm512_or_si512(_mm512_slli_epi32(_mm512_and_si512(w, sg), 16), inf),
                  _mm512_slli_epi32(_mm512_and_si512(w, m10), 13)));
      }
      _mm512_storeu_si512((void *)y, f);
      continue;
    }
    const __m512i u = _mm512_loadu_si512((const void *)x);
    __m256i o;
    if (kind == 3) {
      o = _mm512_cvtps_ph(_mm512_castsi512_ps(u),
                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else if (kind == 1) {
      o = _mm512_cvtepi32_epi16(_mm512_srli_epi32(u, 16));
    } else {
      const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(u, ab), inf);
      const __m512i hi = _mm512_srli_epi32(u, 16);
      __m512i r = _mm512_srli_epi32(
          _mm512_add_epi32(_mm512_add_epi32(u, rb), _mm512_and_si512(hi, one)), 16);
      if (nan) r = _mm512_mask_mov_epi32(r, nan, _mm512_or_si512(hi, q40));
      o = _mm512_cvtepi32_epi16(r);
    }
    _mm256_storeu_si256((__m256i *)(void *)y, o);
  }
  return i;
}
#pragma GCC diagnostic pop

/* fp32 <-> bf16 with AVX2 intrinsics, 8 a step (the generic 4-lane
** vectors' widening and narrowing moves compile to slow shuffles); when
** the buffers do not overlap (ovl = 0) and n >= 8, the last n % 8 by one
** more step over the end (the elements it writes twice get the same
** bits). mode: 0 bf16 -> fp32 (the bits moved up), 1 fp32 -> bf16
** truncating (the high halves), 2 fp32 -> bf16 as li_f32_to_bf16. */
__attribute__((target("avx2"), always_inline)) static inline void
bf8(const uint8_t *s, uint8_t *d, int mode) {
  if (mode == 0) {
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)s));
    _mm256_storeu_si256((__m256i *)(void *)d, _mm256_slli_epi32(w, 16));
    return;
  }
  __m256i u = _mm256_loadu_si256((const __m256i *)(const void *)s), h;
  if (mode == 1) {
    h = _mm256_srli_epi32(u, 16);
  } else {
    const __m256i abs = _mm256_and_si256(u, _mm256_set1_epi32(0x7fffffff));
    __m256i nan = _mm256_cmpgt_epi32(abs, _mm256_set1_epi32(0x7f800000));
    __m256i odd = _mm256_and_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(1));
    __m256i r = _mm256_srli_epi32(
        _mm256_add_epi32(_mm256_add_epi32(u, _mm256_set1_epi32(0x7fff)), odd), 16);
    __m256i q = _mm256_or_si256(_mm256_srli_epi32(u, 16), _mm256_set1_epi32(0x40));
    h = _mm256_blendv_epi8(r, q, nan);
  }
  __m128i p = _mm_packus_epi32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
  _mm_storeu_si128((__m128i *)(void *)d, p);
}

__attribute__((target("avx2"), always_inline)) static inline int64_t
bf16_k(const uint8_t *s, uint8_t *d, int64_t n, int ovl, int mode) {
  const size_t fs = mode == 0 ? 2 : 4, ts = mode == 0 ? 4 : 2;
  int64_t i = 0;
  for (;; i += 8) {
    if (i + 8 > n) {
      if (i >= n || ovl || n < 8) break;
      i = n - 8; /* the last step over the end */
    }
    bf8(s + fs * (size_t)i, d + ts * (size_t)i, mode);
  }
  return i;
}

__attribute__((target("avx2"))) static int64_t
bf16_avx2(const uint8_t *s, uint8_t *d, int64_t n, int ovl, int mode) {
  if (mode == 0) return bf16_k(s, d, n, ovl, 0);
  if (mode == 1) return bf16_k(s, d, n, ovl, 1);
  return bf16_k(s, d, n, ovl, 2);
}

/* fp16 -> fp32 with F16C, 8 a step (the rest as bf16_avx2): vcvtph2ps
** is exact on every finite value and gives a NaN quietened; the lanes of
** exponent 31 (infinities, NaNs) take li_f16_to_f32's bits instead, the
** payload moved up as it is. */
__attribute__((target("avx2,f16c"))) static int64_t
h2f_avx2(const uint8_t *s, uint8_t *d, int64_t n, int ovl) {
  const __m256i e31 = _mm256_set1_epi32(0x7c00), m10 = _mm256_set1_epi32(0x3ff),
                sg = _mm256_set1_epi32(0x8000), inf = _mm256_set1_epi32(0x7f800000);
  int64_t i = 0;
  for (;; i += 8) {
    if (i + 8 > n) {
      if (i >= n || ovl || n < 8) break;
      i = n - 8; /* the last step over the end */
    }
    __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(s + 2 * i));
    __m256i w = _mm256_cvtepu16_epi32(h);
    __m256i f = _mm256_castps_si256(_mm256_cvtph_ps(h));
    __m256i sp = _mm256_cmpeq_epi32(_mm256_and_si256(w, e31), e31);
    __m256i b = _mm256_or_si256(
        _mm256_or_si256(_mm256_slli_epi32(_mm256_and_si256(w, sg), 16), inf),
        _mm256_slli_epi32(_mm256_and_si256(w, m10), 13));
    _mm256_storeu_si256((__m256i *)(void *)(d + 4 * i), _mm256_blendv_epi8(f, b, sp));
  }
  return i;
}

static int have_f16c(void) {
  static int v = -1;
  unsigned a, b, c, d;
  if (v < 0) /* CPUID.1:ECX bit 29 (clang's __builtin_cpu_supports lacks it) */
    v = __get_cpuid(1, &a, &b, &c, &d) && (c >> 29 & 1u) ? 1 : 0;
  return v;
}
#endif

int li_vs_ld(lay_dtype t, const void *src, double *x, int64_t n, int simd) {
#if defined(LI_VS)
  if (simd < LI_SIMD_SSE || t < LAY_DT_FP32 || t > LAY_DT_UINT32) return 0;
  if (simd >= LI_SIMD_AVX2) vs_ld_avx2(t, src, x, n);
  else vs_ld_sse(t, src, x, n);
  return 1;
#else
  (void)t; (void)src; (void)x; (void)n; (void)simd;
  return 0;
#endif
}

#if defined(LI_VS)
/* 1/v when v is a power of two whose reciprocal is a normal double, else
** 0. Then y / v and y * (1/v) are both the correctly rounded value of the
** same real number y * 2^-e, for every y (subnormal results, overflow,
** infinities, NaNs and signed zeros included): the same double. */
static double exact_recip(double v) {
  uint64_t u;
  memcpy(&u, &v, 8);
  int64_t k = (int64_t)(u >> 52) - 1023; /* v = 2^k when positive, normal */
  if ((u & 0xfffffffffffffu) != 0 || k < -1000 || k > 1000) return 0;
  u = (uint64_t)(1023 - k) << 52; /* 2^-k */
  memcpy(&v, &u, 8);
  return v;
}
#endif

int li_vs_quant(const li_vrule *r, double *x, int64_t n, const int32_t *ch) {
#if defined(LI_VS)
  if (r->simd < LI_SIMD_SSE) return 0;
  double rd = exact_recip(r->den[0]);
  if (r->simd >= LI_SIMD_AVX2) vs_quant_avx2(r, x, n, ch, 1, rd);
  else vs_quant_sse(r, x, n, ch, 1, rd);
  return 1;
#else
  (void)r; (void)x; (void)n; (void)ch;
  return 0;
#endif
}

int li_vs_dequant(const li_vrule *r, double *x, int64_t n, const int32_t *ch) {
#if defined(LI_VS)
  if (r->simd < LI_SIMD_SSE) return 0;
  double rd = exact_recip(r->num[0]);
  if (r->simd >= LI_SIMD_AVX2) vs_quant_avx2(r, x, n, ch, 0, rd);
  else vs_quant_sse(r, x, n, ch, 0, rd);
  return 1;
#else
  (void)r; (void)x; (void)n; (void)ch;
  return 0;
#endif
}

int li_vs_st(lay_dtype t, void *dst, const double *x, int64_t n, int round,
             int saturate, double lo, double hi, int simd) {
#if defined(LI_VS)
  int ok = t == LAY_DT_FP32 ||
           (saturate && t >= LAY_DT_INT8 && t <= LAY_DT_UINT32);
  if (simd < LI_SIMD_SSE || !ok) return 0;
  if (simd >= LI_SIMD_AVX2) vs_st_avx2(t, dst, x, n, round, lo, hi);
  else vs_st_sse(t, dst, x, n, round, lo, hi);
  return 1;
#else
  (void)t; (void)dst; (void)x; (void)n; (void)round; (void)saturate;
  (void)lo; (void)hi; (void)simd;
  return 0;
#endif
}

int li_vs_cast(lay_dtype from, lay_dtype to, const void *src, void *dst,
               int64_t n, int simd) {
  return li_vs_cast2(from, to, 0, src, dst, n, simd);
}

int li_vs_cast2(lay_dtype from, lay_dtype to, int trunc, const void *src,
                void *dst, int64_t n, int simd) {
#if defined(LI_VS)
  const uint8_t *s = src;
  uint8_t *d = dst;
  int64_t i;
  if (simd < LI_SIMD_SSE) return 0;
  const int kind = from == LAY_DT_BF16 && to == LAY_DT_FP32   ? 0
                   : from == LAY_DT_FP32 && to == LAY_DT_BF16 ? 1 + !trunc
                   : from == LAY_DT_FP32 && to == LAY_DT_FP16 && !trunc ? 3
                   : from == LAY_DT_FP16 && to == LAY_DT_FP32 ? 4 : -1;
  if (simd >= LI_SIMD_AVX512 && kind >= 0) {
    const size_t fs = kind == 0 || kind == 4 ? 2 : 4, ts = 6 - fs;
    if ((uintptr_t)s >= (uintptr_t)d + (size_t)n * ts ||
        (uintptr_t)d >= (uintptr_t)s + (size_t)n * fs) { /* apart */
      i = cast512(kind, s, d, n);
      if (i == n) return 1;
      s += fs * (size_t)i;
      d += ts * (size_t)i;
      n -= i;
    }
  }
  if (simd >= LI_SIMD_AVX2 &&
      ((from == LAY_DT_FP32 && to == LAY_DT_BF16) ||
       (from == LAY_DT_BF16 && to == LAY_DT_FP32))) {
    size_t fs = from == LAY_DT_FP32 ? 4 : 2, ts = 6 - fs;
    int ovl = (uintptr_t)s < (uintptr_t)d + (size_t)n * ts &&
              (uintptr_t)d < (uintptr_t)s + (size_t)n * fs;
    i = bf16_avx2(s, d, n, ovl, from == LAY_DT_BF16 ? 0 : trunc ? 1 : 2);
    if (i == n) return 1;
    if (trunc && to == LAY_DT_BF16) { /* the rest below, from i */
      for (; i < n; i++) memcpy(d + 2 * i, s + 4 * i + 2, 2);
      return 1;
    }
    s += fs * (size_t)i;
    d += ts * (size_t)i;
    n -= i;
  }
  if (simd >= LI_SIMD_AVX2 && from == LAY_DT_FP16 && to == LAY_DT_FP32 &&
      have_f16c()) {
    int ovl = (uintptr_t)s < (uintptr_t)d + (size_t)n * 4 &&
              (uintptr_t)d < (uintptr_t)s + (size_t)n * 2;
    i = h2f_avx2(s, d, n, ovl);
    if (i == n) return 1;
    s += 2 * (size_t)i;
    d += 4 * (size_t)i;
    n -= i;
  }
  if (trunc && to != LAY_DT_FP32) { /* to bf16 only: the high halves */
    if (from != LAY_DT_FP32 || to != LAY_DT_BF16) return 0;
    i = simd >= LI_SIMD_AVX2 ? vs_bf16t_avx2(s, d, n) : vs_bf16t_sse(s, d, n);
    for (; i < n; i++) memcpy(d + 2 * i, s + 4 * i + 2, 2);
    return 1;
  }
  if (from == LAY_DT_FP32 && to == LAY_DT_FP16) {
    if (simd >= LI_SIMD_AVX2 && have_f16c()) i = f16_avx2(s, d, n);
    else i = 0;
    i += simd >= LI_SIMD_AVX2 ? vs_f16_avx2(s + 4 * i, d + 2 * i, n - i)
                              : vs_f16_sse(s + 4 * i, d + 2 * i, n - i);
  } else if ((from == LAY_DT_FP32 && to == LAY_DT_BF16) ||
             (to == LAY_DT_FP32 && (from == LAY_DT_FP16 || from == LAY_DT_BF16))) {
    i = simd >= LI_SIMD_AVX2 ? vs_cast_avx2(from, to, s, d, n)
                             : vs_cast_sse(from, to, s, d, n);
  } else {
    return 0;
  }
  size_t fs = from == LAY_DT_FP32 ? 4 : 2, ts = to == LAY_DT_FP32 ? 4 : 2;
  for (; i < n; i++) { /* the tail, element by element */
    uint32_t u = 0;
    memcpy(&u, s + fs * (size_t)i, fs);
    float f;
    uint16_t h;
    if (from == LAY_DT_FP32) {
      memcpy(&f, &u, 4);
      h = to == LAY_DT_FP16 ? li_f32_to_f16(f) : li_f32_to_bf16(f);
      memcpy(d + ts * (size_t)i, &h, 2);
    } else {
      if (from == LAY_DT_BF16) u <<= 16;
      else { f = li_f16_to_f32((uint16_t)u); memcpy(&u, &f, 4); }
      memcpy(d + ts * (size_t)i, &u, 4);
    }
  }
  return 1;
#else
  (void)from; (void)to; (void)trunc; (void)src; (void)dst; (void)n;
  (void)simd;
  return 0;
#endif
}
