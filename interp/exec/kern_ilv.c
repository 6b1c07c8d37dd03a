/*
** kern_ilv.c: the executor's 1-byte interleave kernels for the tiles of
** ILV2/DEILV2 and CONV_ILV (kernels ILV and DEILV themselves, any element
** size: kern_ilve.c). 1-byte planes
** interleaved into 2/4/8-wide blocks (SSE2 16 rows a step, AVX2 32) and,
** through the rows of a small tile (HCWNC8 on 7x7 planes), straight into
** the destination rows (8-byte stores through row offsets); the inverse
** deinterleaves; an SSSE3 shuffle for back-to-back rows (RGB -> RGBX);
** the split of 2-byte elements into two byte planes (16x16 byte
** transposes); and fp32 quantize fused with the 8-wide interleave under
** AVX2. A last partial SIMD step is redone as the step ending at the last
** row (its repeated rows get the same bytes).
*/
#include <stdint.h>
#include <string.h>

#include "kern.h"

/* Interleave: n rows of W one-byte elements, d[r*W + w] = s[(w-pre)*ssi + r]
** for pre <= w < pre+K, the pad byte elsewhere (planes into blocks, as
** NCHW -> HCWNC4). SSE2 does 16 rows at a time, AVX2 32 (W == 8); a last
** partial group of rows is redone as the group ending at row n (the rows
** it repeats get the same bytes again). */
#if defined(__SSE2__)
__attribute__((always_inline)) static inline void
ilv16_sse(const uint8_t *const *pl, __m128i padv, const int W, uint8_t *d,
          int64_t r) {
#define LD(w) (pl[w] ? _mm_loadu_si128((const __m128i *)(const void *)(pl[w] + r)) : padv)
#define ST(k, v) _mm_storeu_si128((__m128i *)(void *)(d + r * W) + (k), v)
  if (W == 2) {
    __m128i a = LD(0), b = LD(1);
    ST(0, _mm_unpacklo_epi8(a, b));
    ST(1, _mm_unpackhi_epi8(a, b));
  } else if (W == 4) {
    __m128i a = LD(0), b = LD(1), c = LD(2), e = LD(3);
    __m128i t0 = _mm_unpacklo_epi8(a, b), t1 = _mm_unpackhi_epi8(a, b);
    __m128i t2 = _mm_unpacklo_epi8(c, e), t3 = _mm_unpackhi_epi8(c, e);
    ST(0, _mm_unpacklo_epi16(t0, t2));
    ST(1, _mm_unpackhi_epi16(t0, t2));
    ST(2, _mm_unpacklo_epi16(t1, t3));
    ST(3, _mm_unpackhi_epi16(t1, t3));
  } else {
    __m128i v0 = LD(0), v1 = LD(1), v2 = LD(2), v3 = LD(3), v4 = LD(4),
            v5 = LD(5), v6 = LD(6), v7 = LD(7);
    __m128i p0 = _mm_unpacklo_epi8(v0, v1), p1 = _mm_unpackhi_epi8(v0, v1);
    __m128i p2 = _mm_unpacklo_epi8(v2, v3), p3 = _mm_unpackhi_epi8(v2, v3);
    __m128i p4 = _mm_unpacklo_epi8(v4, v5), p5 = _mm_unpackhi_epi8(v4, v5);
    __m128i p6 = _mm_unpacklo_epi8(v6, v7), p7 = _mm_unpackhi_epi8(v6, v7);
    __m128i q0 = _mm_unpacklo_epi16(p0, p2), q1 = _mm_unpackhi_epi16(p0, p2);
    __m128i q2 = _mm_unpacklo_epi16(p1, p3), q3 = _mm_unpackhi_epi16(p1, p3);
    __m128i q4 = _mm_unpacklo_epi16(p4, p6), q5 = _mm_unpackhi_epi16(p4, p6);
    __m128i q6 = _mm_unpacklo_epi16(p5, p7), q7 = _mm_unpackhi_epi16(p5, p7);
    ST(0, _mm_unpacklo_epi32(q0, q4));
    ST(1, _mm_unpackhi_epi32(q0, q4));
    ST(2, _mm_unpacklo_epi32(q1, q5));
    ST(3, _mm_unpackhi_epi32(q1, q5));
    ST(4, _mm_unpacklo_epi32(q2, q6));
    ST(5, _mm_unpackhi_epi32(q2, q6));
    ST(6, _mm_unpacklo_epi32(q3, q7));
    ST(7, _mm_unpackhi_epi32(q3, q7));
  }
#undef LD
#undef ST
}
#endif

#if defined(LI_HAVE_X86_TARGET)
/* The interleave network of 8 planes x 32 bytes (v0..v7): the three unpack
** rounds on both 128-bit lanes; o[k] holds rows 2k, 2k+1 of the 32 (low
** lane) and 16+2k, 17+2k (high lane), 8 bytes each. */
__attribute__((target("avx2"), always_inline)) static inline void
ilv8x32(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i v4, __m256i v5,
        __m256i v6, __m256i v7, __m256i *o) {
  __m256i p0 = _mm256_unpacklo_epi8(v0, v1), p1 = _mm256_unpackhi_epi8(v0, v1);
  __m256i p2 = _mm256_unpacklo_epi8(v2, v3), p3 = _mm256_unpackhi_epi8(v2, v3);
  __m256i p4 = _mm256_unpacklo_epi8(v4, v5), p5 = _mm256_unpackhi_epi8(v4, v5);
  __m256i p6 = _mm256_unpacklo_epi8(v6, v7), p7 = _mm256_unpackhi_epi8(v6, v7);
  __m256i q0 = _mm256_unpacklo_epi16(p0, p2), q1 = _mm256_unpackhi_epi16(p0, p2);
  __m256i q2 = _mm256_unpacklo_epi16(p1, p3), q3 = _mm256_unpackhi_epi16(p1, p3);
  __m256i q4 = _mm256_unpacklo_epi16(p4, p6), q5 = _mm256_unpackhi_epi16(p4, p6);
  __m256i q6 = _mm256_unpacklo_epi16(p5, p7), q7 = _mm256_unpackhi_epi16(p5, p7);
  o[0] = _mm256_unpacklo_epi32(q0, q4);
  o[1] = _mm256_unpackhi_epi32(q0, q4);
  o[2] = _mm256_unpacklo_epi32(q1, q5);
  o[3] = _mm256_unpackhi_epi32(q1, q5);
  o[4] = _mm256_unpacklo_epi32(q2, q6);
  o[5] = _mm256_unpackhi_epi32(q2, q6);
  o[6] = _mm256_unpacklo_epi32(q3, q7);
  o[7] = _mm256_unpackhi_epi32(q3, q7);
}

/* W == 4, 32 rows a step (NCHW -> HCWNC4): the two SSE2 rounds on both
** 128-bit lanes, the lanes put back in row order (rows 0-15 are the low
** lanes of o0..o3, rows 16-31 the high ones) for four 32-byte stores. */
__attribute__((target("avx2"))) static int64_t
ilv4_avx2(const uint8_t *const *pl, uint8_t pad, uint8_t *d, int64_t n) {
  const __m256i padv = _mm256_set1_epi8((char)pad);
  int64_t r = 0;
#define LD(w) (pl[w] ? _mm256_loadu_si256((const __m256i *)(const void *)(pl[w] + r)) : padv)
#define ST(k, v) _mm256_storeu_si256((__m256i *)(void *)(d + r * 4) + (k), v)
  for (; r + 32 <= n; r += 32) {
    __m256i a = LD(0), b = LD(1), c = LD(2), e = LD(3);
    __m256i t0 = _mm256_unpacklo_epi8(a, b), t1 = _mm256_unpackhi_epi8(a, b);
    __m256i t2 = _mm256_unpacklo_epi8(c, e), t3 = _mm256_unpackhi_epi8(c, e);
    __m256i o0 = _mm256_unpacklo_epi16(t0, t2), o1 = _mm256_unpackhi_epi16(t0, t2);
    __m256i o2 = _mm256_unpacklo_epi16(t1, t3), o3 = _mm256_unpackhi_epi16(t1, t3);
    ST(0, _mm256_permute2x128_si256(o0, o1, 0x20));
    ST(1, _mm256_permute2x128_si256(o2, o3, 0x20));
    ST(2, _mm256_permute2x128_si256(o0, o1, 0x31));
    ST(3, _mm256_permute2x128_si256(o2, o3, 0x31));
  }
#undef LD
#undef ST
  return r;
}

/* W == 8, 32 rows a step: the SSE2 rounds on both 128-bit lanes (rows
** r..r+15 in the low lane, r+16..r+31 in the high one); 16-byte stores
** (32-byte ones split cache lines when d is only 16-byte aligned). */
__attribute__((target("avx2"))) static int64_t
ilv8_avx2(const uint8_t *const *pl, uint8_t pad, uint8_t *d, int64_t n) {
  const __m256i padv = _mm256_set1_epi8((char)pad);
  int64_t r = 0;
#define LD(w) (pl[w] ? _mm256_loadu_si256((const __m256i *)(const void *)(pl[w] + r)) : padv)
  for (; r + 32 <= n; r += 32) {
    __m256i o[8];
    ilv8x32(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), o);
    __m128i *lo = (__m128i *)(void *)(d + r * 8), *hi = lo + 8;
    for (int k = 0; k < 8; k++) {
      _mm_storeu_si128(lo + k, _mm256_castsi256_si128(o[k]));
      _mm_storeu_si128(hi + k, _mm256_extracti128_si256(o[k], 1));
    }
  }
#undef LD
  return r;
}
#endif

/* W == 8 through row offsets: row r of the interleave (8 bytes) goes to
** d + off[r], the rows written straight from the registers (a tile would
** be read back right after its stores and stall on store forwarding). */
#if defined(__SSE2__)
static inline void st8x2(uint8_t *d, const int64_t *off, int64_t r, __m128i v) {
  _mm_storel_epi64((__m128i *)(void *)(d + off[r]), v);
  _mm_storel_epi64((__m128i *)(void *)(d + off[r + 1]), _mm_unpackhi_epi64(v, v));
}

static inline void ilv8_off_sse(const uint8_t *const *pl, __m128i padv,
                                uint8_t *d, const int64_t *off, int64_t r) {
#define LD(w) (pl[w] ? _mm_loadu_si128((const __m128i *)(const void *)(pl[w] + r)) : padv)
  __m128i v0 = LD(0), v1 = LD(1), v2 = LD(2), v3 = LD(3), v4 = LD(4),
          v5 = LD(5), v6 = LD(6), v7 = LD(7);
#undef LD
  __m128i p0 = _mm_unpacklo_epi8(v0, v1), p1 = _mm_unpackhi_epi8(v0, v1);
  __m128i p2 = _mm_unpacklo_epi8(v2, v3), p3 = _mm_unpackhi_epi8(v2, v3);
  __m128i p4 = _mm_unpacklo_epi8(v4, v5), p5 = _mm_unpackhi_epi8(v4, v5);
  __m128i p6 = _mm_unpacklo_epi8(v6, v7), p7 = _mm_unpackhi_epi8(v6, v7);
  __m128i q0 = _mm_unpacklo_epi16(p0, p2), q1 = _mm_unpackhi_epi16(p0, p2);
  __m128i q2 = _mm_unpacklo_epi16(p1, p3), q3 = _mm_unpackhi_epi16(p1, p3);
  __m128i q4 = _mm_unpacklo_epi16(p4, p6), q5 = _mm_unpackhi_epi16(p4, p6);
  __m128i q6 = _mm_unpacklo_epi16(p5, p7), q7 = _mm_unpackhi_epi16(p5, p7);
  st8x2(d, off, r + 0, _mm_unpacklo_epi32(q0, q4));
  st8x2(d, off, r + 2, _mm_unpackhi_epi32(q0, q4));
  st8x2(d, off, r + 4, _mm_unpacklo_epi32(q1, q5));
  st8x2(d, off, r + 6, _mm_unpackhi_epi32(q1, q5));
  st8x2(d, off, r + 8, _mm_unpacklo_epi32(q2, q6));
  st8x2(d, off, r + 10, _mm_unpackhi_epi32(q2, q6));
  st8x2(d, off, r + 12, _mm_unpacklo_epi32(q3, q7));
  st8x2(d, off, r + 14, _mm_unpackhi_epi32(q3, q7));
}
#endif

#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"), always_inline)) static inline int64_t
ilv8_off_avx2_(const uint8_t *const *pl, uint8_t pad, uint8_t *d,
               const int64_t *off, int64_t n, const int full) {
  const __m256i padv = _mm256_set1_epi8((char)pad);
  int64_t r = 0;
#define LD(w) (full || pl[w] ? _mm256_loadu_si256((const __m256i *)(const void *)(pl[w] + r)) : padv)
  for (;; r += 32) {
    if (r + 32 > n) { /* the last rows: the group ending at row n */
      if (r >= n || n < 32) break;
      r = n - 32;
    }
    __m256i o[8];
    ilv8x32(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), o);
    for (int k = 0; k < 8; k++) {
      __m128i lo = _mm256_castsi256_si128(o[k]), hi = _mm256_extracti128_si256(o[k], 1);
      _mm_storel_epi64((__m128i *)(void *)(d + off[r + 2 * k]), lo);
      _mm_storel_epi64((__m128i *)(void *)(d + off[r + 2 * k + 1]), _mm_unpackhi_epi64(lo, lo));
      _mm_storel_epi64((__m128i *)(void *)(d + off[r + 16 + 2 * k]), hi);
      _mm_storel_epi64((__m128i *)(void *)(d + off[r + 17 + 2 * k]), _mm_unpackhi_epi64(hi, hi));
    }
  }
#undef LD
  return r;
}

__attribute__((target("avx2"))) static int64_t
ilv8_off_avx2(const uint8_t *const *pl, uint8_t pad, uint8_t *d,
              const int64_t *off, int64_t n, int full) {
  if (full) return ilv8_off_avx2_(pl, pad, d, off, n, 1);
  return ilv8_off_avx2_(pl, pad, d, off, n, 0);
}
#endif

/* Runs of at most 8 blocks of 8 bytes (HCWNC8 on planes 7 wide): one 8x8
** byte transposition per run, in and out of registers. tr8x8 transposes
** the rows r0..r7 (8 bytes each, in the low halves) into t[0..3], each
** holding two rows of the transpose (2j low, 2j + 1 high). */
#if defined(__SSE2__)
static inline void tr8x8(__m128i r0, __m128i r1, __m128i r2, __m128i r3,
                         __m128i r4, __m128i r5, __m128i r6, __m128i r7,
                         __m128i *t) {
  __m128i p0 = _mm_unpacklo_epi8(r0, r1), p1 = _mm_unpacklo_epi8(r2, r3);
  __m128i p2 = _mm_unpacklo_epi8(r4, r5), p3 = _mm_unpacklo_epi8(r6, r7);
  __m128i q0 = _mm_unpacklo_epi16(p0, p1), q1 = _mm_unpackhi_epi16(p0, p1);
  __m128i q2 = _mm_unpacklo_epi16(p2, p3), q3 = _mm_unpackhi_epi16(p2, p3);
  t[0] = _mm_unpacklo_epi32(q0, q2);
  t[1] = _mm_unpackhi_epi32(q0, q2);
  t[2] = _mm_unpacklo_epi32(q1, q3);
  t[3] = _mm_unpackhi_epi32(q1, q3);
}

/* W <= 8 blocks of 8 bytes from t to d (W - 1 predictable branches). */
static inline void st_run(uint8_t *d, const __m128i *t, int W) {
#define ST16(o, v) _mm_storeu_si128((__m128i *)(void *)(d + (o)), v)
#define ST8(o, v) _mm_storel_epi64((__m128i *)(void *)(d + (o)), v)
  if (W >= 2) ST16(0, t[0]); else ST8(0, t[0]);
  if (W >= 4) ST16(16, t[1]); else if (W == 3) ST8(16, t[1]);
  if (W >= 6) ST16(32, t[2]); else if (W == 5) ST8(32, t[2]);
  if (W == 8) ST16(48, t[3]); else if (W == 7) ST8(48, t[3]);
#undef ST16
#undef ST8
}

#if defined(LI_HAVE_X86_TARGET)
/* Two 8x8 transpositions at once, one a lane: x[j] holds bytes 16j..16j+15
** of a run (blocks 2j and 2j + 1), and afterwards planes 2j (low 8 bytes)
** and 2j + 1 (high 8). */
__attribute__((target("avx2"), always_inline)) static inline void
tr8x8x2(__m256i *x) {
  __m256i a0 = _mm256_unpacklo_epi8(x[0], x[1]), a1 = _mm256_unpackhi_epi8(x[0], x[1]);
  __m256i a2 = _mm256_unpacklo_epi8(x[2], x[3]), a3 = _mm256_unpackhi_epi8(x[2], x[3]);
  __m256i b0 = _mm256_unpacklo_epi8(a0, a1), b1 = _mm256_unpackhi_epi8(a0, a1);
  __m256i b2 = _mm256_unpacklo_epi8(a2, a3), b3 = _mm256_unpackhi_epi8(a2, a3);
  x[0] = _mm256_unpacklo_epi32(b0, b2);
  x[1] = _mm256_unpackhi_epi32(b0, b2);
  x[2] = _mm256_unpacklo_epi32(b1, b3);
  x[3] = _mm256_unpackhi_epi32(b1, b3);
}

/* Tiles of HCWNC8 by whole planes (AVX2): n2 runs of 6 <= n <= 8 blocks
** of 8 bytes, all eight planes, 32 <= n2 * n <= 64, n and n2 constants in
** each copy. A tile's pixels (its blocks) in plane order, p = a * n + w,
** go 32 at a time: a step takes pixels p0..p0 + 31, and two steps, p0 = 0
** and p0 = n2 * n - 32, cover a tile. In a step's two groups of four
** registers, register i holds pixels p0 + 2i, p0 + 2i + 1 in lane 0 and
** the pixels 16 later in lane 1 (the second group 8 pixels on); one
** transposition a group, and unpacking the two groups' low and high
** halves, turn pixels into planes 2j and 2j + 1 whole, or back.
**
** The interleave's step: one 32-byte load a plane, unpacked into the
** groups, transposed, and each pixel pair stored as 16 bytes, or as two
** 8-byte halves where the pair spans two runs; the second step stores
** only the pairs the first did not. */
#define IL_PAIR(d, dso2, n, q, v)                                              \
  do {                                                                         \
    if ((q) % (n) != (n) - 1) {                                                \
      _mm_storeu_si128((__m128i *)(void *)((d) + (q) / (n) * (dso2) + (q) % (n) * 8), v); \
    } else {                                                                   \
      _mm_storel_epi64((__m128i *)(void *)((d) + (q) / (n) * (dso2) + ((n) - 1) * 8), v); \
      _mm_storel_epi64((__m128i *)(void *)((d) + ((q) / (n) + 1) * (dso2)), _mm_unpackhi_epi64(v, v)); \
    }                                                                          \
  } while (0)

__attribute__((target("avx2"), always_inline)) static inline void
ilv8x8_step(const uint8_t *s, int64_t ssi, const int n, const int p0,
            const int from, uint8_t *d, int64_t dso2) {
  __m256i x[4], y[4];
  for (int j = 0; j < 4; j++) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(s + 2 * j * ssi + p0));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + (2 * j + 1) * ssi + p0));
    x[j] = _mm256_unpacklo_epi64(a, b);
    y[j] = _mm256_unpackhi_epi64(a, b);
  }
  tr8x8x2(x);
  tr8x8x2(y);
  for (int j = 0; j < 4; j++) { /* the pairs at p0 + 2j, 8, 16 and 24 later */
    const int q = p0 + 2 * j;
    if (q + 1 >= from) IL_PAIR(d, dso2, n, q, _mm256_castsi256_si128(x[j]));
    if (q + 9 >= from) IL_PAIR(d, dso2, n, q + 8, _mm256_castsi256_si128(y[j]));
    if (q + 17 >= from) IL_PAIR(d, dso2, n, q + 16, _mm256_extracti128_si256(x[j], 1));
    if (q + 25 >= from) IL_PAIR(d, dso2, n, q + 24, _mm256_extracti128_si256(y[j], 1));
  }
}
#undef IL_PAIR

#endif

/* cnt tiles (tile c at s + c * sstep, d + c * dstep) of n2 runs of W <= 8
** blocks: block w of run a gets plane bytes s[(k - pre) * ssi + a * W + w]
** for planes pre <= k < pre + K, the pad byte elsewhere, at d + a * dso2 +
** 8w + k. The planes' 8-byte loads read up to 8 - W bytes past a run: the
** runs whose loads would pass send (the source's end) are copied out
** first. */
LI_CLONES void li_ilv8x8(const uint8_t *s, int64_t ssi, int K, int pre, uint8_t pad,
                   uint8_t *d, int64_t dso2, int64_t n2, int W,
                   const uint8_t *send, int64_t cnt, int64_t sstep,
                   int64_t dstep) {
  const __m128i padv = _mm_set1_epi8((char)pad);
  int64_t po[8]; /* plane offsets; -1: a pad plane */
  for (int k = 0; k < 8; k++) po[k] = k >= pre && k < pre + K ? (k - pre) * ssi : -1;
  __m128i t[4];
  for (int64_t c = 0; c < cnt; c++, s += sstep, d += dstep) {
    /* runs whose every load stays before send */
    int64_t room = send - (s + (int64_t)(K - 1) * ssi) - 8, safe = 0, a = 0;
    if (room >= 0) safe = room / W + 1 < n2 ? room / W + 1 : n2;
    uint8_t *dr = d;
    if (K == 8) { /* all eight planes: no pad rows to choose */
      const uint8_t *q = s;
#define LD(k) _mm_loadl_epi64((const __m128i *)(const void *)(q + (k) * ssi))
      for (; a < safe; a++, dr += dso2, q += W) {
        tr8x8(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), t);
        st_run(dr, t, W);
      }
#undef LD
    }
#define LD(k) (po[k] >= 0 ? _mm_loadl_epi64((const __m128i *)(const void *)(s + po[k] + a * W)) : padv)
    for (; a < safe; a++, dr += dso2) {
      tr8x8(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), t);
      st_run(dr, t, W);
    }
#undef LD
    for (; a < n2; a++, dr += dso2) {
      uint8_t b[8][8];
      for (int k = 0; k < 8; k++) {
        memset(b[k], pad, 8);
        if (po[k] >= 0) memcpy(b[k], s + po[k] + a * W, (size_t)W);
      }
#define LB(k) _mm_loadl_epi64((const __m128i *)(const void *)b[k])
      tr8x8(LB(0), LB(1), LB(2), LB(3), LB(4), LB(5), LB(6), LB(7), t);
#undef LB
      st_run(dr, t, W);
    }
  }
}

/* The low n < 8 bytes of v to d, from registers (overlapping stores). */
static inline void st_low(uint8_t *d, __m128i v, int n) {
  uint64_t x = (uint64_t)_mm_cvtsi128_si64(v);
  if (n >= 4) {
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> (8 * (n - 4)));
    memcpy(d, &lo, 4);
    memcpy(d + n - 4, &hi, 4);
  } else if (n >= 2) {
    uint16_t lo = (uint16_t)x, hi = (uint16_t)(x >> (8 * (n - 2)));
    memcpy(d, &lo, 2);
    memcpy(d + n - 2, &hi, 2);
  } else {
    d[0] = (uint8_t)x;
  }
}

/* Two runs of 6 <= n <= 8 blocks at once (all eight planes, loads inside
** the source; AVX2's VEX encoding): each plane's 2n bytes, the first run's
** n and the second's n, gathered by one byte shuffle into one 16-byte store (its 16 - 2n <= 4
** bytes of overhang are overwritten by the run after the pair, which the
** caller guarantees). Returns the runs done (an even number). */
#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static int64_t
deilv8x8_pairs(const uint8_t *sr, int64_t sso, int64_t pairs, int n,
               uint8_t *dr, int64_t dps) {
  /* bytes 0..n-1 of the first run's plane, then 0..n-1 of the second's */
  static const int8_t mk[3][16] = {
      {0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 15, 15, 15, 15},
      {0, 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 15},
      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}};
  const __m128i m = _mm_loadu_si128((const __m128i *)(const void *)mk[n - 6]);
  __m128i t[4], u[4];
#define LD(q, w) _mm_loadl_epi64((const __m128i *)(const void *)((q) + 8 * (w)))
#define ST(p, v) _mm_storeu_si128((__m128i *)(void *)(p), _mm_shuffle_epi8(v, m))
  /* the planes' places, moved along together (no multiplications) */
  uint8_t *d0 = dr, *d1 = dr + dps, *d2 = dr + 2 * dps, *d3 = dr + 3 * dps;
  const int64_t d4 = 4 * dps;
  for (int64_t i = 0; i < pairs; i++, sr += 2 * sso) {
    const uint8_t *q = sr + sso;
    tr8x8(LD(sr, 0), LD(sr, 1), LD(sr, 2), LD(sr, 3), LD(sr, 4), LD(sr, 5),
          LD(sr, 6), LD(sr, 7), t);
    tr8x8(LD(q, 0), LD(q, 1), LD(q, 2), LD(q, 3), LD(q, 4), LD(q, 5), LD(q, 6),
          LD(q, 7), u);
    ST(d0, _mm_unpacklo_epi64(t[0], u[0]));
    ST(d1, _mm_unpackhi_epi64(t[0], u[0]));
    ST(d2, _mm_unpacklo_epi64(t[1], u[1]));
    ST(d3, _mm_unpackhi_epi64(t[1], u[1]));
    ST(d0 + d4, _mm_unpacklo_epi64(t[2], u[2]));
    ST(d1 + d4, _mm_unpackhi_epi64(t[2], u[2]));
    ST(d2 + d4, _mm_unpacklo_epi64(t[3], u[3]));
    ST(d3 + d4, _mm_unpackhi_epi64(t[3], u[3]));
    d0 += 2 * n;
    d1 += 2 * n;
    d2 += 2 * n;
    d3 += 2 * n;
  }
#undef LD
#undef ST
  return 2 * pairs;
}
#endif

#if defined(LI_HAVE_X86_TARGET)
/* The deinterleave's step (see the interleave's, above): each pixel pair
** one 16-byte load, or two 8-byte loads where the pair spans two runs;
** then one 32-byte store a plane. Every byte stored is a plane byte, and
** every load stays inside the runs. */
#define DL_PAIR(s, sso, n, p)                                                  \
  ((p) % (n) != (n) - 1                                                        \
       ? _mm_loadu_si128((const __m128i *)(const void *)((s) + (p) / (n) * (sso) + (p) % (n) * 8)) \
       : _mm_castpd_si128(_mm_loadh_pd(                                        \
             _mm_castsi128_pd(_mm_loadl_epi64((const __m128i *)(const void *)((s) + (p) / (n) * (sso) + ((n) - 1) * 8))), \
             (const double *)(const void *)((s) + ((p) / (n) + 1) * (sso)))))
#define DL_REG(s, sso, n, p)                                                   \
  _mm256_inserti128_si256(_mm256_castsi128_si256(DL_PAIR(s, sso, n, p)),      \
                          DL_PAIR(s, sso, n, (p) + 16), 1)

__attribute__((target("avx2"), always_inline)) static inline void
deilv8x8_step(const uint8_t *s, int64_t sso, const int n, const int p0,
              uint8_t *d, int64_t dps) {
  __m256i x[4] = {DL_REG(s, sso, n, p0), DL_REG(s, sso, n, p0 + 2),
                  DL_REG(s, sso, n, p0 + 4), DL_REG(s, sso, n, p0 + 6)};
  __m256i y[4] = {DL_REG(s, sso, n, p0 + 8), DL_REG(s, sso, n, p0 + 10),
                  DL_REG(s, sso, n, p0 + 12), DL_REG(s, sso, n, p0 + 14)};
  tr8x8x2(x);
  tr8x8x2(y);
  for (int j = 0; j < 4; j++) {
    _mm256_storeu_si256((__m256i *)(void *)(d + 2 * j * dps + p0),
                        _mm256_unpacklo_epi64(x[j], y[j]));
    _mm256_storeu_si256((__m256i *)(void *)(d + (2 * j + 1) * dps + p0),
                        _mm256_unpackhi_epi64(x[j], y[j]));
  }
}
#undef DL_REG
#undef DL_PAIR

/* cnt tiles of n2 runs of n blocks, as li_ilv8x8 (inv == 0) or li_deilv8x8
** (inv == 1) take them, all eight planes, by the steps above: p0 = 0 and
** p0 = n2 * n - 32. */
__attribute__((target("avx2"), always_inline)) static inline void
tiles8x8_(const int inv, const uint8_t *s, int64_t ss, const int n2,
          const int n, uint8_t *d, int64_t ds, int64_t cnt, int64_t sstep,
          int64_t dstep) {
  for (int64_t c = 0; c < cnt; c++, s += sstep, d += dstep) {
    if (inv) deilv8x8_step(s, ss, n, 0, d, ds);
    else ilv8x8_step(s, ss, n, 0, 0, d, ds);
    if (n2 * n == 32) continue;
    if (inv) deilv8x8_step(s, ss, n, n2 * n - 32, d, ds);
    else ilv8x8_step(s, ss, n, n2 * n - 32, 32, d, ds);
  }
}

/* The copy of tiles8x8_ for n2 and n; 0, having done nothing, for n2 and
** n outside 32 <= n2 * n <= 64 and 6 <= n <= 8. */
__attribute__((target("avx2"))) int
li_tiles8x8(int inv, const uint8_t *s, int64_t ss, int64_t n2, int n,
         uint8_t *d, int64_t ds, int64_t cnt, int64_t sstep, int64_t dstep) {
#define T(N2, N)                                                               \
  case N2 * 16 + N:                                                            \
    if (inv) tiles8x8_(1, s, ss, N2, N, d, ds, cnt, sstep, dstep);             \
    else tiles8x8_(0, s, ss, N2, N, d, ds, cnt, sstep, dstep);                 \
    return 1;
  switch (n2 > 10 ? 0 : n2 * 16 + n) {
    T(6, 6) T(7, 6) T(8, 6) T(9, 6) T(10, 6)
    T(5, 7) T(6, 7) T(7, 7) T(8, 7) T(9, 7)
    T(4, 8) T(5, 8) T(6, 8) T(7, 8) T(8, 8)
    default: return 0;
  }
#undef T
}
#endif

/* The inverse, cnt tiles (tile c at s + c * sstep, d + c * dstep) of n2
** runs of n <= 8 blocks of 8 bytes (run a at s + a * sso) into planes: byte
** p0 + k of block w goes to d[k * dps + a * n + w] for k < K. A plane's n
** bytes are stored as 8 while those 8 stay inside the plane's n2 * n (the
** later runs overwrite the overhang), exactly n for the runs after that:
** with n < 4 that is more than the last run, whose overhang would reach
** into the next plane. A run's eight 8-byte loads
** read 8 - n blocks past it while that stays before send (the source's
** end); the extra bytes land in the overhang only. */
LI_CLONES void li_deilv8x8(const uint8_t *s, int64_t sso, int64_t n2, int n, int p0,
                     int K, uint8_t *d, int64_t dps, int64_t cnt,
                     int64_t sstep, int64_t dstep, const uint8_t *send,
                     int simd) {
  __m128i t[4];
#if defined(LI_HAVE_X86_TARGET)
  const int pairs_ok = n >= 6 && simd >= LI_SIMD_AVX2;
#else
  (void)simd;
#endif
  const __m128i z = _mm_setzero_si128();
#define STK(k, v) _mm_storel_epi64((__m128i *)(void *)(dr + (k) * dps), v)
#define HI(v) _mm_unpackhi_epi64(v, v)
  /* runs a with a * n + 8 <= n2 * n store 8 bytes a plane */
  const int64_t nwide = n2 * n >= 8 ? (n2 * n - 8) / n + 1 : 0;
#if defined(LI_HAVE_X86_TARGET)
  if (pairs_ok && p0 == 0 && K == 8 &&
      li_tiles8x8(1, s, sso, n2, n, d, dps, cnt, sstep, dstep))
    return;
#endif
  for (int64_t c = 0; c < cnt; c++, s += sstep, d += dstep) {
    const uint8_t *sr = s;
    uint8_t *dr = d;
    int64_t a = 0;
    if (p0 == 0 && K == 8 && s + (n2 - 1) * sso + 64 <= send) {
      /* all eight planes, every load inside the source: no branches */
#if defined(LI_HAVE_X86_TARGET)
      if (pairs_ok && n2 >= 3) { /* pairs while a run follows them */
        a = deilv8x8_pairs(sr, sso, (n2 - 1) / 2, n, dr, dps);
        sr += a * sso;
        dr += a * n;
      }
#endif
#define LD(w) _mm_loadl_epi64((const __m128i *)(const void *)(sr + 8 * (w)))
      for (; a < nwide; a++, sr += sso, dr += n) {
        tr8x8(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), t);
        STK(0, t[0]); STK(1, HI(t[0])); STK(2, t[1]); STK(3, HI(t[1]));
        STK(4, t[2]); STK(5, HI(t[2])); STK(6, t[3]); STK(7, HI(t[3]));
      }
      for (; a < n2; a++, sr += sso, dr += n) { /* exactly n bytes a plane */
        tr8x8(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), t);
        for (int k = 0; k < 4; k++) {
          st_low(dr + 2 * k * dps, t[k], n);
          st_low(dr + (2 * k + 1) * dps, HI(t[k]), n);
        }
      }
#undef LD
    }
    for (; a < n2; a++, sr += sso, dr += n) {
#define LD(w) (w < n ? _mm_loadl_epi64((const __m128i *)(const void *)(sr + 8 * w)) : z)
      tr8x8(LD(0), LD(1), LD(2), LD(3), LD(4), LD(5), LD(6), LD(7), t);
#undef LD
      const int exact = a >= nwide;
      for (int k = 0; k < K; k++) {
        int q = p0 + k;
        __m128i v = q & 1 ? HI(t[q >> 1]) : t[q >> 1];
        if (!exact) STK(k, v);
        else st_low(dr + k * dps, v, n);
      }
    }
  }
#undef STK
#undef HI
}
#endif

void li_ilv8_off(const uint8_t *s, int64_t ssi, int K, int pre,
                     uint8_t pad, uint8_t *d, const int64_t *off, int64_t n,
                     int simd) {
  int64_t r = 0;
#if defined(__SSE2__)
  if (simd >= LI_SIMD_SSE && n >= 16) {
    const __m128i padv = _mm_set1_epi8((char)pad);
    const uint8_t *pl[8];
    for (int w = 0; w < 8; w++)
      pl[w] = w >= pre && w < pre + K ? s + (w - pre) * ssi : NULL;
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX2)
      r = ilv8_off_avx2(pl, pad, d, off, n, pre == 0 && K == 8);
#endif
    for (; r + 16 <= n; r += 16) ilv8_off_sse(pl, padv, d, off, r);
    if (r < n) ilv8_off_sse(pl, padv, d, off, n - 16);
    return;
  }
#else
  (void)simd;
#endif
  for (; r < n; r++)
    for (int w = 0; w < 8; w++)
      d[off[r] + w] = w >= pre && w < pre + K ? s[(w - pre) * ssi + r] : pad;
}

/* The inverse: 8-byte rows read at s + off[r] split into planes
** d[(w - p0) * dps + r] for p0 <= w < p0 + K. */
#if defined(__SSE2__)
static inline __m128i ld8x2(const uint8_t *s, const int64_t *off, int64_t r) {
  __m128i a = _mm_loadl_epi64((const __m128i *)(const void *)(s + off[r]));
  return _mm_castpd_si128(_mm_loadh_pd(_mm_castsi128_pd(a),
                                       (const double *)(const void *)(s + off[r + 1])));
}

static inline void deilv8_off_sse(const uint8_t *s, const int64_t *off,
                                  int p0, int K, uint8_t *d, int64_t dps,
                                  int64_t r) {
  __m128i v[8], u[8];
  for (int j = 0; j < 8; j++) v[j] = ld8x2(s, off, r + 2 * j);
  for (int round = 0; round < 4; round++) {
    for (int j = 0; j < 4; j++) {
      u[2 * j] = _mm_unpacklo_epi8(v[j], v[j + 4]);
      u[2 * j + 1] = _mm_unpackhi_epi8(v[j], v[j + 4]);
    }
    for (int j = 0; j < 8; j++) v[j] = u[j];
  }
  for (int k = 0; k < K; k++)
    _mm_storeu_si128((__m128i *)(void *)(d + k * dps + r), v[p0 + k]);
}
#endif

#if defined(LI_HAVE_X86_TARGET)
/* The deinterleave network of 32 rows of 8 bytes (v[j]: rows 2j, 2j+1 in
** the low lane, 16+2j, 17+2j in the high one): four rounds of byte unpacks
** leave plane w's 32 bytes in v[w]; planes p0 .. p0+K-1 are stored at
** d + k * dps. v is used up. */
__attribute__((target("avx2"), always_inline)) static inline void
deilv8x32(__m256i *v, int p0, int K, uint8_t *d, int64_t dps) {
  __m256i u[8];
  for (int round = 0; round < 4; round++) {
    for (int j = 0; j < 4; j++) {
      u[2 * j] = _mm256_unpacklo_epi8(v[j], v[j + 4]);
      u[2 * j + 1] = _mm256_unpackhi_epi8(v[j], v[j + 4]);
    }
    for (int j = 0; j < 8; j++) v[j] = u[j];
  }
  for (int k = 0; k < K; k++)
    _mm256_storeu_si256((__m256i *)(void *)(d + k * dps), v[p0 + k]);
}
#endif

#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static int64_t
deilv8_off_avx2(const uint8_t *s, const int64_t *off, int p0, int K,
                uint8_t *d, int64_t dps, int64_t n) {
  int64_t r = 0;
  for (;; r += 32) {
    if (r + 32 > n) { /* the last rows: the group ending at row n */
      if (r >= n || n < 32) break;
      r = n - 32;
    }
    __m256i v[8];
    for (int j = 0; j < 8; j++)
      v[j] = _mm256_inserti128_si256(_mm256_castsi128_si256(ld8x2(s, off, r + 2 * j)),
                                     ld8x2(s, off, r + 16 + 2 * j), 1);
    deilv8x32(v, p0, K, d + r, dps);
  }
  return r;
}
#endif

void li_deilv8_off(const uint8_t *s, const int64_t *off, int p0, int K,
                       uint8_t *d, int64_t dps, int64_t n, int simd) {
  int64_t r = 0;
#if defined(__SSE2__)
  if (simd >= LI_SIMD_SSE && n >= 16) {
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX2) r = deilv8_off_avx2(s, off, p0, K, d, dps, n);
#endif
    for (; r + 16 <= n; r += 16) deilv8_off_sse(s, off, p0, K, d, dps, r);
    if (r < n) deilv8_off_sse(s, off, p0, K, d, dps, n - 16);
    return;
  }
#else
  (void)simd;
#endif
  for (; r < n; r++)
    for (int k = 0; k < K; k++) d[k * dps + r] = s[off[r] + p0 + k];
}

void li_ilv_u8(const uint8_t *s, int64_t ssi, int K, int pre, int W,
                   uint8_t pad, uint8_t *d, int64_t n, int simd) {
  int64_t r = 0;
#if defined(__SSE2__)
  if (simd >= LI_SIMD_SSE && n >= 16 && (W == 2 || W == 4 || W == 8)) {
    const __m128i padv = _mm_set1_epi8((char)pad);
    const uint8_t *pl[8];
    for (int w = 0; w < 8; w++)
      pl[w] = w >= pre && w < pre + K && w < W ? s + (w - pre) * ssi : NULL;
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX2 && W == 8) r = ilv8_avx2(pl, pad, d, n);
    if (simd >= LI_SIMD_AVX2 && W == 4) r = ilv4_avx2(pl, pad, d, n);
#endif
#define ILV_SSE(WW)                                                   \
  {                                                                   \
    for (; r + 16 <= n; r += 16) ilv16_sse(pl, padv, WW, d, r);       \
    if (r < n) ilv16_sse(pl, padv, WW, d, n - 16);                    \
  }
    if (W == 2) ILV_SSE(2)
    else if (W == 4) ILV_SSE(4)
    else ILV_SSE(8)
#undef ILV_SSE
    return;
  }
#else
  (void)simd;
#endif
  for (; r < n; r++)
    for (int w = 0; w < W; w++)
      d[r * W + w] = w >= pre && w < pre + K ? s[(w - pre) * ssi + r] : pad;
}

/* Deinterleave: rows of W one-byte planes (t[r*W + w]) into planes
** d[(w - p0) * dps + r] for p0 <= w < p0 + K. SSE2: a transposition of
** 16 rows is four rounds of byte unpacks (each rotates the index bits);
** AVX2 (W == 8) does 32 rows, rows r..r+15 in the low lanes. A last
** partial group is redone as the group ending at row n. */
#if defined(__SSE2__)
static inline void deilv16_sse(const uint8_t *t, int W, int p0, int K,
                               uint8_t *d, int64_t dps, int64_t r) {
  __m128i v[8], u[8];
  int nv = W; /* 16 rows * W bytes = W vectors */
  for (int j = 0; j < nv; j++)
    v[j] = _mm_loadu_si128((const __m128i *)(const void *)(t + r * W + 16 * j));
  for (int round = 0; round < 4; round++) {
    for (int j = 0; j < nv / 2; j++) {
      u[2 * j] = _mm_unpacklo_epi8(v[j], v[j + nv / 2]);
      u[2 * j + 1] = _mm_unpackhi_epi8(v[j], v[j + nv / 2]);
    }
    for (int j = 0; j < nv; j++) v[j] = u[j];
  }
  for (int k = 0; k < K; k++)
    _mm_storeu_si128((__m128i *)(void *)(d + k * dps + r), v[p0 + k]);
}
#endif

#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static int64_t
deilv8_avx2(const uint8_t *t, int p0, int K, uint8_t *d, int64_t dps,
            int64_t n) {
  int64_t r = 0;
  for (; r + 32 <= n; r += 32) {
    __m256i v[8];
    const uint8_t *a = t + r * 8;
    for (int j = 0; j < 8; j++)
      v[j] = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(a + 16 * j))),
          _mm_loadu_si128((const __m128i *)(const void *)(a + 128 + 16 * j)), 1);
    deilv8x32(v, p0, K, d + r, dps);
  }
  return r;
}
#endif

void li_deilv_u8(const uint8_t *t, int W, int p0, int K, uint8_t *d,
                     int64_t dps, int64_t n, int simd) {
  int64_t r = 0;
#if defined(__SSE2__)
  if (simd >= LI_SIMD_SSE && n >= 16) {
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX2 && W == 8) r = deilv8_avx2(t, p0, K, d, dps, n);
#endif
    for (; r + 16 <= n; r += 16) deilv16_sse(t, W, p0, K, d, dps, r);
    if (r < n) deilv16_sse(t, W, p0, K, d, dps, n - 16);
    return;
  }
#else
  (void)simd;
#endif
  for (; r < n; r++)
    for (int k = 0; k < K; k++) d[k * dps + r] = t[r * W + p0 + k];
}

/* Expand: n rows of K contiguous bytes (source rows back to back) into rows
** of W bytes: pre pad bytes, the K bytes, post pad bytes (RGB -> RGBX).
** SSSE3 shuffles 16/W rows per vector when the CPU has it. */
#if defined(LI_HAVE_SSSE3_TARGET)
__attribute__((target("ssse3"))) static int64_t
expand_ssse3(const uint8_t *s, int K, int pre, int W, uint8_t pad, uint8_t *d,
             int64_t n) {
  int R = 16 / W;
  uint8_t mk[16], pv[16];
  for (int j = 0; j < 16; j++) {
    int w = j % W, row = j / W;
    int in = w >= pre && w < pre + K;
    mk[j] = in ? (uint8_t)(row * K + w - pre) : 0x80;
    pv[j] = in ? 0 : pad;
  }
  __m128i m = _mm_loadu_si128((const __m128i *)(const void *)mk);
  __m128i p = _mm_loadu_si128((const __m128i *)(const void *)pv);
  int64_t r = 0;
  for (; r * K + 16 <= n * K && r + R <= n; r += R) {
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + r * K));
    _mm_storeu_si128((__m128i *)(void *)(d + r * W),
                     _mm_or_si128(_mm_shuffle_epi8(v, m), p));
  }
  return r;
}
#endif

void li_expand_u8(const uint8_t *s, int K, int pre, int W, uint8_t pad,
                      uint8_t *d, int64_t n, int simd) {
  int64_t r = 0;
#if !defined(LI_HAVE_SSSE3_TARGET)
  (void)simd;
#else
  if (simd >= LI_SIMD_SSE && __builtin_cpu_supports("ssse3") && W <= 16 &&
      K * (16 / W) <= 16)
    r = expand_ssse3(s, K, pre, W, pad, d, n);
#endif
  for (; r < n; r++) {
    uint8_t *dr = d + r * W;
    for (int w = 0; w < W; w++)
      dr[w] = w >= pre && w < pre + K ? s[r * K + w - pre] : pad;
  }
}

/* Split: n rows of K <= 16 two-byte elements (row r, element k at
** s + (r*sso + k*ssi)*2) into two byte planes: d[r*dso + k] gets
** (u >> h0) & m0 and d[r*dso + k + ps] (u >> h1) & m1. With K == 16 and
** sso == 1, SIMD takes 16 rows at a time: shifts, masks and a saturating
** pack (exact: the masks are <= 0xff) give the 16x16 byte tiles, which
** four rounds of unpacks transpose; AVX2 carries the low and the high
** tile in the two lanes of one register. */

#if defined(__SSE2__)
static void transpose16_sse(__m128i *v) {
  __m128i u[16];
  for (int round = 0; round < 4; round++) {
    for (int j = 0; j < 8; j++) {
      u[2 * j] = _mm_unpacklo_epi8(v[j], v[j + 8]);
      u[2 * j + 1] = _mm_unpackhi_epi8(v[j], v[j + 8]);
    }
    for (int j = 0; j < 16; j++) v[j] = u[j];
  }
}

static void split16_sse(const uint8_t *s, uint8_t *d, const li_split_args *a,
                        int64_t r) {
  __m128i lo[16], hi[16];
  const __m128i c0 = _mm_cvtsi32_si128(a->h0), c1 = _mm_cvtsi32_si128(a->h1);
  const __m128i m0 = _mm_set1_epi16((short)a->m0), m1 = _mm_set1_epi16((short)a->m1);
  for (int k = 0; k < 16; k++) {
    const uint8_t *e = s + (k * a->ssi + r) * 2;
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)e);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(e + 16));
    lo[k] = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, c0), m0),
                             _mm_and_si128(_mm_srl_epi16(x1, c0), m0));
    hi[k] = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, c1), m1),
                             _mm_and_si128(_mm_srl_epi16(x1, c1), m1));
  }
  transpose16_sse(lo);
  transpose16_sse(hi);
  for (int j = 0; j < 16; j++) {
    uint8_t *o = d + (r + j) * a->dso;
    _mm_storeu_si128((__m128i *)(void *)o, lo[j]);
    _mm_storeu_si128((__m128i *)(void *)(o + a->ps), hi[j]);
  }
}
#endif

#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static int64_t
split16_avx2(const uint8_t *s, uint8_t *d, const li_split_args *a, int64_t n) {
  const __m128i c0 = _mm_cvtsi32_si128(a->h0), c1 = _mm_cvtsi32_si128(a->h1);
  const __m256i m0 = _mm256_set1_epi16((short)a->m0),
                m1 = _mm256_set1_epi16((short)a->m1);
  int64_t r = 0;
  for (; r + 16 <= n; r += 16) {
    __m256i v[16], u[16];
    for (int k = 0; k < 16; k++) {
      __m256i x = _mm256_loadu_si256(
          (const __m256i *)(const void *)(s + (k * a->ssi + r) * 2));
      __m256i y = _mm256_packus_epi16(_mm256_and_si256(_mm256_srl_epi16(x, c0), m0),
                                      _mm256_and_si256(_mm256_srl_epi16(x, c1), m1));
      v[k] = _mm256_permute4x64_epi64(y, 0xD8); /* low tile | high tile */
    }
    for (int round = 0; round < 4; round++) {
      for (int j = 0; j < 8; j++) {
        u[2 * j] = _mm256_unpacklo_epi8(v[j], v[j + 8]);
        u[2 * j + 1] = _mm256_unpackhi_epi8(v[j], v[j + 8]);
      }
      for (int j = 0; j < 16; j++) v[j] = u[j];
    }
    for (int j = 0; j < 16; j++) {
      uint8_t *o = d + (r + j) * a->dso;
      if (a->ps == 16) {
        _mm256_storeu_si256((__m256i *)(void *)o, v[j]);
      } else {
        _mm_storeu_si128((__m128i *)(void *)o, _mm256_castsi256_si128(v[j]));
        _mm_storeu_si128((__m128i *)(void *)(o + a->ps),
                         _mm256_extracti128_si256(v[j], 1));
      }
    }
  }
  return r;
}
#endif

void li_split2(const uint8_t *s, uint8_t *d, const li_split_args *a,
                   int64_t n, int K, int simd) {
  int64_t r = 0;
#if defined(__SSE2__)
  if (simd >= LI_SIMD_SSE && K == 16 && a->sso == 1 && n >= 16) {
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX2) r = split16_avx2(s, d, a, n);
#endif
    for (; r + 16 <= n; r += 16) split16_sse(s, d, a, r);
    if (r < n) split16_sse(s, d, a, n - 16);
    return;
  }
#else
  (void)simd;
#endif
  for (; r < n; r++) {
    uint8_t *o = d + r * a->dso;
    for (int k = 0; k < K; k++) {
      uint16_t u;
      memcpy(&u, s + (r * a->sso + k * a->ssi) * 2, 2);
      o[k] = (uint8_t)(((uint32_t)u >> a->h0) & a->m0);
      o[k + a->ps] = (uint8_t)(((uint32_t)u >> a->h1) & a->m1);
    }
  }
}

/* Quantize + interleave, fused (W == 8 or 4, 1-byte hw type): per 32
** rows, each present plane's 32 floats are quantized in registers
** (li_quant_k's arithmetic: f32(x - xoff) * k, 8 floats an op with
** saturating packs, NaN -> 0; fast_quant in value.c does the same) into 32
** bytes, and the 8 byte vectors are interleaved as in ilv8_avx2; d[r*8 + w]
** for n >= 32 rows, the last step overlapping. When planes 4..7 are all
** pad (C <= 4 in HCWNC8), the network's first two rounds run on planes
** 0..3 only and the last pairs their 4-byte groups with the pad. */
#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"), always_inline)) static inline void
st8x32(const __m256i *o, uint8_t *d) {
  __m128i *dl = (__m128i *)(void *)d, *dh = dl + 8;
  for (int k = 0; k < 8; k++) {
    _mm_storeu_si128(dl + k, _mm256_castsi256_si128(o[k]));
    _mm_storeu_si128(dh + k, _mm256_extracti128_si256(o[k], 1));
  }
}

__attribute__((target("avx2"), always_inline)) static inline void
ilv4p4x32(__m256i v0, __m256i v1, __m256i v2, __m256i v3, __m256i padv,
          __m256i *o) {
  __m256i p0 = _mm256_unpacklo_epi8(v0, v1), p1 = _mm256_unpackhi_epi8(v0, v1);
  __m256i p2 = _mm256_unpacklo_epi8(v2, v3), p3 = _mm256_unpackhi_epi8(v2, v3);
  __m256i q[4] = {_mm256_unpacklo_epi16(p0, p2), _mm256_unpackhi_epi16(p0, p2),
                  _mm256_unpacklo_epi16(p1, p3), _mm256_unpackhi_epi16(p1, p3)};
  for (int k = 0; k < 4; k++) {
    o[2 * k] = _mm256_unpacklo_epi32(q[k], padv);
    o[2 * k + 1] = _mm256_unpackhi_epi32(q[k], padv);
  }
}

typedef struct {
  __m256 sc[8], xo[8], hi, lo; /* sc, xo, zp: of each plane's rule */
  __m256i zp[8], ord, m[4];    /* m: the lanes of rows < n (msk) */
  int trunc, u8;
} qv8;

/* 32 floats at f quantized to 32 bytes in row order. zp0 (a constant at
** each use): the zero point is 0, so values below the range need no clamp
** (cvt gives INT_MIN, which the packs saturate) and nothing is added. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
q32(const qv8 *k, int w, const float *f, const int zp0, const int msk) {
  __m256i q[4];
  for (int j = 0; j < 4; j++) {
    __m256 x = msk ? _mm256_maskload_ps(f + 8 * j, k->m[j]) : _mm256_loadu_ps(f + 8 * j);
    __m256 ok = _mm256_cmp_ps(x, x, _CMP_ORD_Q);
    __m256 t = _mm256_min_ps(_mm256_mul_ps(_mm256_sub_ps(x, k->xo[w]), k->sc[w]), k->hi);
    if (!zp0) t = _mm256_max_ps(t, k->lo);
    __m256i c = k->trunc ? _mm256_cvttps_epi32(t) : _mm256_cvtps_epi32(t);
    if (!zp0) c = _mm256_add_epi32(c, k->zp[w]);
    q[j] = _mm256_and_si256(c, _mm256_castps_si256(ok));
  }
  __m256i a = _mm256_packs_epi32(q[0], q[1]), b = _mm256_packs_epi32(q[2], q[3]);
  __m256i c = k->u8 ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b);
  return _mm256_permutevar8x32_epi32(c, k->ord);
}

/* 4 byte vectors of 32 rows interleaved 4 wide: d[r*4 + w]. */
__attribute__((target("avx2"), always_inline)) static inline void
ilv4x32(__m256i v0, __m256i v1, __m256i v2, __m256i v3, uint8_t *d) {
  __m256i p0 = _mm256_unpacklo_epi8(v0, v1), p1 = _mm256_unpackhi_epi8(v0, v1);
  __m256i p2 = _mm256_unpacklo_epi8(v2, v3), p3 = _mm256_unpackhi_epi8(v2, v3);
  __m256i q[4] = {_mm256_unpacklo_epi16(p0, p2), _mm256_unpackhi_epi16(p0, p2),
                  _mm256_unpacklo_epi16(p1, p3), _mm256_unpackhi_epi16(p1, p3)};
  __m128i *dl = (__m128i *)(void *)d, *dh = dl + 4;
  for (int k = 0; k < 4; k++) {
    _mm_storeu_si128(dl + k, _mm256_castsi256_si128(q[k]));
    _mm_storeu_si128(dh + k, _mm256_extracti128_si256(q[k], 1));
  }
}

/* Rows [0, n) of the interleave 4 wide, 32 a step, the last overlapping. */
__attribute__((target("avx2"), always_inline)) static inline void
qilv4_rows(const qv8 *k, const float *const *pl, __m256i padv, uint8_t *d,
           int64_t n, const int zp0, const int msk) {
#define QX(w) (pl[w] ? q32(k, w, pl[w] + r, zp0, msk) : padv)
  for (int64_t r = 0;; r += 32) {
    if (r + 32 > n) {
      if (r >= n) break;
      r = n - 32;
    }
    ilv4x32(QX(0), QX(1), QX(2), QX(3), d + r * 4);
  }
#undef QX
}

/* Rows [0, n) of the interleave, 32 a step, the last one overlapping. */
__attribute__((target("avx2"), always_inline)) static inline void
qilv8_rows(const qv8 *k, const float *const *pl, __m256i padv, int half,
           uint8_t *d, int64_t n, const int zp0, const int msk) {
#define QX(w) (pl[w] ? q32(k, w, pl[w] + r, zp0, msk) : padv)
  for (int64_t r = 0;; r += 32) {
    if (r + 32 > n) {
      if (r >= n) break;
      r = n - 32;
    }
    __m256i o[8];
    if (half)
      ilv4p4x32(QX(0), QX(1), QX(2), QX(3), padv, o);
    else
      ilv8x32(QX(0), QX(1), QX(2), QX(3), QX(4), QX(5), QX(6), QX(7), o);
    st8x32(o, d + r * 8);
  }
#undef QX
}

__attribute__((target("avx2"))) static void
qilv8_avx2_rows(const qv8 *k, const float *const *pl, __m256i padv, int half,
                int W, int zp0, uint8_t *d, int64_t n, int msk);

__attribute__((target("avx2"))) static int
qilv8_avx2(const li_vrule *v, const float *sc, const li_vrule *pv,
           const uint8_t *s, int64_t ssi, int K, int pre, int W, uint8_t pad,
           uint8_t *d, int64_t n) {
  qv8 k; /* field by field: no zeroing of the masks nor copies */
  int zp0 = 1;
  for (int j = 0; j < K; j++) { /* plane pre + j: its rule's constants */
    const li_vrule *r = pv ? &pv[j] : v;
    k.sc[pre + j] = _mm256_set1_ps(sc[j]);
    k.xo[pre + j] = _mm256_set1_ps((float)r->xoff[0]);
    k.zp[pre + j] = _mm256_set1_epi32((int)r->zp[0]);
    zp0 &= r->zp[0] == 0;
  }
  k.hi = _mm256_set1_ps(0x1p30f);
  k.lo = _mm256_set1_ps(-0x1p30f);
  k.ord = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  k.trunc = v->round == LG_R_TRUNC;
  k.u8 = v->hw == LAY_DT_UINT8;
  const float *pl[8];
  for (int w = 0; w < 8; w++)
    pl[w] = w >= pre && w < pre + K ? (const float *)(const void *)(s + (w - pre) * ssi * 4) : NULL;
  const __m256i padv = _mm256_set1_epi8((char)pad);
  if (n < 32) { /* short rows: masked loads (zeros past n), then n rows */
    uint8_t ob[8 * 32];
    for (int j = 0; j < 4; j++)
      k.m[j] = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)n - 8 * j),
                                  _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    qilv8_avx2_rows(&k, pl, padv, pre + K <= 4, W, zp0, ob, 32, 1);
    memcpy(d, ob, (size_t)(n * W));
    return 1;
  }
  qilv8_avx2_rows(&k, pl, padv, pre + K <= 4, W, zp0, d, n, 0);
  return 1;
}

/* The copies of the row loops: width, zero point 0 or not. */
__attribute__((target("avx2"))) static void
qilv8_avx2_rows(const qv8 *k, const float *const *pl, __m256i padv, int half,
                int W, int zp0, uint8_t *d, int64_t n, int msk) {
#define QR(Z, M)                                                            \
  if (zp0 == Z && msk == M) {                                               \
    if (W == 4) qilv4_rows(k, pl, padv, d, n, Z, M);                        \
    else qilv8_rows(k, pl, padv, half, d, n, Z, M);                         \
    return;                                                                 \
  }
  QR(0, 0) QR(0, 1) QR(1, 0) QR(1, 1)
#undef QR
}

#endif

int li_qilv8(const li_side *S, const li_side *D, const li_vrule *pv,
             const uint8_t *s, int64_t ssi, int K, int pre, int W,
             uint8_t pad, uint8_t *d, int64_t n, int simd) {
#if defined(LI_HAVE_X86_TARGET)
  float sc[8];
  if (!(simd >= LI_SIMD_AVX2 && n >= 1 && (W == 8 || W == 4) && K >= 1 &&
        pre + K <= W && S->v.kind == LI_VR_ID && S->v.cpu == LAY_DT_FP32 &&
        !S->v.nplanes && !D->v.nplanes && D->esz == 1))
    return 0;
  for (int j = 0; j < K; j++) /* every plane's rule one li_quant_k takes */
    if ((sc[j] = li_quant_k(pv ? &pv[j] : &D->v)) == 0) return 0;
  return qilv8_avx2(&D->v, sc, pv, s, ssi, K, pre, W, pad, d, n);
#else
  (void)S; (void)D; (void)pv; (void)s; (void)ssi; (void)K; (void)pre;
  (void)W; (void)pad; (void)d; (void)n; (void)simd;
  return 0;
#endif
}
