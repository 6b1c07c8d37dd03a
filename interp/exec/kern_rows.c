/*
** kern_rows.c: the executor's row and block kernels. AVX2 row copies
** (32-byte moves, every load of a row before its first store), rows with
** their pads written in the same pass (TIDL's borders, crouton's d%32
** blended into one store), and the n x k block copies with row pads,
** unrolled for k = 2, 3, 4, 8, 16, 32 and 1-, 2- and 4-byte elements.
*/
#include <stdint.h>
#include <string.h>

#include "kern.h"
#include "tr_shuf.h"

/* AVX2 row copies: n3 x n2 x n rows of B = 32*q bytes (q = 1..4); 32-byte
** moves, every load of a row before its first store. */
#if defined(LI_HAVE_X86_TARGET)
/* Whether n rows `stride` bytes apart put more lines in an L1 set than it
** has ways (plan_int.h's LI_L1_*) while the outer step (`outer` bytes,
** 0 < outer < a line) reuses their lines. */
static int set_crowded(int64_t stride, int64_t n, int64_t outer) {
  const int64_t line = LI_L1_LINE, sets = LI_L1_SETS;
  if (outer <= 0 || outer >= line) return 0;
  int64_t a = stride < 0 ? -stride : stride, g = line * sets;
  while (a % g) g /= 2; /* gcd(|stride|, a way) */
  if (g < line) return 0;                    /* rows spread over every set */
  return n > LI_L1_WAYS * (sets / (g / line)); /* sets used: sets / (g / line) */
}

__attribute__((target("avx2"))) void
li_rows32_avx2(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
            int64_t dso2, int64_t dso, int64_t n2, int64_t n, int q,
            int64_t n3, int64_t sso3, int64_t dso3) {
#define L32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define S32(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
  if (n2 > 1 && set_crowded(sso, n, sso2)) {
    /* The n rows' lines crowd a few L1 sets and consecutive outer steps
    ** share them: a line was gone before the next step read its other
    ** half. Blocks of BLK outer steps a row instead: 8, or where the
    ** destination rows of a block would share one set (dso2 a multiple
    ** of a way), a line's worth. mlir.pack_kc(8, 32) int8 [256,1024]:
    ** unpack (32 rows 8 KB apart) 16.9 -> 4.7 us (8.3 with blocks of 2),
    ** pack (256 rows 1 KB apart, dso2 8 KB) 8.0 -> 5.0 us (8.9 with 8). */
    const int64_t BLK = dso2 % (int64_t)LI_L1_WAY ? 8 : (int64_t)LI_L1_LINE / sso2;
    for (int64_t c = 0; c < n3; c++)
      for (int64_t a0 = 0; a0 < n2; a0 += BLK) {
        const int64_t nb = n2 - a0 < BLK ? n2 - a0 : BLK;
        const uint8_t *sr = s + c * sso3 + a0 * sso2;
        uint8_t *dr = d + c * dso3 + a0 * dso2;
        for (int64_t r = 0; r < n; r++, sr += sso, dr += dso)
          for (int64_t a = 0; a < nb; a++)
            for (int k = 0; k < q; k++)
              S32(dr + a * dso2 + 32 * k, L32(sr + a * sso2 + 32 * k));
      }
    return;
  }
  for (int64_t c = 0; c < n3; c++) {
    for (int64_t a = 0; a < n2; a++) {
      const uint8_t *sr = s + c * sso3 + a * sso2;
      uint8_t *dr = d + c * dso3 + a * dso2;
      if (q == 1 && n == 8) {
        /* blocks of 8 rows (crouton's w%8): unrolled, all loads before the
        ** stores, addresses as pointer steps (k * sso and k * dso as
        ** offsets made T4 about 20% slower: GCC keeps them on the stack) */
        __m256i x[8];
        for (int k = 0; k < 8; k++, sr += sso) x[k] = L32(sr);
        if (dso == 32)
          for (int k = 0; k < 8; k++) S32(dr + 32 * k, x[k]);
        else
          for (int k = 0; k < 8; k++, dr += dso) S32(dr, x[k]);
      } else if (q == 1) {
        for (int64_t r = 0; r < n; r++, sr += sso, dr += dso) S32(dr, L32(sr));
      } else if (q == 2) {
        for (int64_t r = 0; r < n; r++, sr += sso, dr += dso) {
          __m256i x = L32(sr), y = L32(sr + 32);
          S32(dr, x); S32(dr + 32, y);
        }
      } else {
        for (int64_t r = 0; r < n; r++, sr += sso, dr += dso)
          for (int k = 0; k < q; k++) S32(dr + 32 * k, L32(sr + 32 * k));
      }
    }
  }
}

/* The byte lanes lo <= i < hi (0 <= lo <= hi <= 32) of a blend mask. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
lanes(int lo, int hi) {
  const __m256i idx = _mm256_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                       12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                       22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
  return _mm256_and_si256(_mm256_cmpgt_epi8(idx, _mm256_set1_epi8((char)(lo - 1))),
                          _mm256_cmpgt_epi8(_mm256_set1_epi8((char)hi), idx));
}

/* Rows of B >= 32 bytes with pads before (pre bytes) and after (post),
** TIDL's borders. The cost is in the stores: single pad-byte stores between
** a row's vector stores made the row cost about 1.5x what it does as whole
** vectors, so each row and its pads go out as 32-byte stores in address
** order. */

/* A row and its pads the plain way, for the rows rowspad_whole cannot take:
** 32-byte moves (the last one overlapping), then the pads. */
__attribute__((target("avx2"), always_inline)) static inline void
rowspad_plain(const uint8_t *s, uint8_t *d, int64_t B, int64_t pre,
              int64_t post, uint8_t pad) {
  for (int64_t x = 0; x < B - 32; x += 32) S32(d + x, L32(s + x));
  S32(d + B - 32, L32(s + B - 32));
  padb(d - pre, pre, pad);
  padb(d + B, post, pad);
}

/* A row and its pads (at most 32 bytes each), pre + B + post bytes from
** d - pre: the first store is read from s - pre with its first pre bytes
** replaced by the pad, the last ends at the post pad's end with its last
** post bytes replaced; those between are plain loads (any of their bytes
** past the row is a post pad byte that the last store writes again). The
** reads reach pre bytes before the row and post bytes after it. */
__attribute__((target("avx2"), always_inline)) static inline void
rowspad_whole(const uint8_t *s, uint8_t *d, int64_t B, int pre, int post,
              __m256i padv, __m256i head, __m256i tail) {
  const int64_t T = pre + B + post;
  const uint8_t *sp = s - pre;
  uint8_t *dp = d - pre;
  S32(dp, _mm256_blendv_epi8(L32(sp), padv, head));
  for (int64_t x = 32; x < T - 32; x += 32) S32(dp + x, L32(sp + x));
  S32(dp + T - 32, _mm256_blendv_epi8(L32(sp + T - 32), padv, tail));
}

/* n rows, whole where the reads stay inside the source buffer [sbeg, send)
** (all but the buffer's first and last rows, at most). */
__attribute__((target("avx2"), always_inline)) static inline void
rowspad_loop(const uint8_t *s, int64_t sso, uint8_t *d, int64_t dso,
             int64_t n, int64_t B, int pre, int post, uint8_t pad,
             const uint8_t *sbeg, const uint8_t *send) {
  const __m256i padv = _mm256_set1_epi8((char)pad);
  const __m256i head = lanes(0, pre), tail = lanes(32 - post, 32);
  for (int64_t r = 0; r < n; r++, s += sso, d += dso) {
    if (s - sbeg >= pre && send - s >= B + post)
      rowspad_whole(s, d, B, pre, post, padv, head, tail);
    else
      rowspad_plain(s, d, B, pre, post, pad);
  }
}

/* Pads over 32 bytes go the plain way; one-byte pads on both sides
** (TIDL's usual border) run as constants. */
__attribute__((target("avx2"))) void
li_rowspad_avx2(const uint8_t *s, int64_t sso, uint8_t *d, int64_t dso,
             int64_t n, int64_t B, int64_t pre, int64_t post, uint8_t pad,
             const uint8_t *sbeg, const uint8_t *send) {
  if (pre > 32 || post > 32)
    for (int64_t r = 0; r < n; r++, s += sso, d += dso)
      rowspad_plain(s, d, B, pre, post, pad);
  else if (pre == 1 && post == 1)
    rowspad_loop(s, sso, d, dso, n, B, 1, 1, pad, sbeg, send);
  else
    rowspad_loop(s, sso, d, dso, n, B, (int)pre, (int)post, pad, sbeg, send);
}

/* n2 x n rows of B < 32 bytes followed by post pad bytes, B + post == 32: one
** 32-byte load, a blend with the pad and one store per row (the load reads
** up to 32 - B bytes past the row: only while that stays before send, the
** end of the source buffer; the rows after that take the plain path). */
__attribute__((target("avx2"))) void
li_rowsblend_avx2(const uint8_t *s0, int64_t sso2, int64_t sso, uint8_t *d0,
               int64_t dso2, int64_t dso, int64_t n2, int64_t n, int B,
               int post, uint8_t pad, const uint8_t *send) {
  const __m256i padv = _mm256_set1_epi8((char)pad);
  const __m256i take_pad = lanes(B, 32); /* bytes B..31 are the pad's */
  for (int64_t a = 0; a < n2; a++, s0 += sso2, d0 += dso2) {
    const uint8_t *s = s0;
    uint8_t *d = d0;
    int64_t r = 0;
    for (; r < n && s + 32 <= send; r++, s += sso, d += dso)
      S32(d, _mm256_blendv_epi8(L32(s), padv, take_pad));
    for (; r < n; r++, s += sso, d += dso) {
      cpys(d, s, (size_t)B);
      padb(d + B, post, pad);
    }
  }
}

/* n2 x n rows of B < 16 bytes: a masked 16-byte load and store a row,
** with no size dispatch and no call a row (the bytes outside the mask are
** neither read nor written). sweep.px4 unpack int8 [1,37,29,23], whose
** edge columns are 1036 rows of 3 bytes: 3.1 -> 1.8 us (min of 7). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
li_rows_short_avx512(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
                     int64_t dso2, int64_t dso, int64_t n2, int64_t n, int B) {
  const __mmask16 m = (__mmask16)((1u << B) - 1);
  for (int64_t a = 0; a < n2; a++, s += sso2, d += dso2) {
    const uint8_t *sr = s;
    uint8_t *dr = d;
    for (int64_t r = 0; r < n; r++, sr += sso, dr += dso)
      _mm_mask_storeu_epi8(dr, m, _mm_maskz_loadu_epi8(m, sr));
  }
}

/* n2 x n rows of B < 32 * q bytes (q = 1..4) into rows back to back (dso
** == B): a row is q 32-byte loads and stores, the last store's bytes past
** the row written again by the next rows' stores. Only rows whose stores
** end inside the n rows go this way, and only while the loads stay
** before send (the end of the source buffer); the rest are exact copies.
** ti.tidl unpack int8 [4,32,28,28] (28-byte rows, cpys) 4.4 -> 2.3 us. */
__attribute__((target("avx2"))) void
li_rows_dense_avx2(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
                   int64_t dso2, int64_t n2, int64_t n, int B, int q,
                   const uint8_t *send) {
  const int W = 32 * q;
  const int64_t whole = n - (W - 1) / B; /* rows r < whole: r*B + W <= n*B */
  for (int64_t a = 0; a < n2; a++, s += sso2, d += dso2) {
    const uint8_t *sr = s;
    uint8_t *dr = d;
    int64_t r = 0;
    if (q == 1)
      for (; r < whole && sr + 32 <= send; r++, sr += sso, dr += B)
        S32(dr, L32(sr));
    else if (q == 2)
      for (; r < whole && sr + 64 <= send; r++, sr += sso, dr += B) {
        __m256i x = L32(sr), y = L32(sr + 32);
        S32(dr, x); S32(dr + 32, y);
      }
    else
      for (; r < whole && sr + W <= send; r++, sr += sso, dr += B) {
        __m256i x[4];
        for (int k = 0; k < q; k++) x[k] = L32(sr + 32 * k);
        for (int k = 0; k < q; k++) S32(dr + 32 * k, x[k]);
      }
    for (; r < n; r++, sr += sso, dr += B) cpy(dr, sr, (size_t)B);
  }
}
#undef L32
#undef S32
#endif

#if defined(LI_HAVE_X86_TARGET)
/* The bits lo <= i < hi of a 64-bit mask, lo and hi clamped to 0..64. */
static uint64_t lanes64(int lo, int hi) {
  lo = lo < 0 ? 0 : lo > 64 ? 64 : lo;
  hi = hi < 0 ? 0 : hi > 64 ? 64 : hi;
  if (lo >= hi) return 0;
  uint64_t below_hi = hi == 64 ? ~0ull : (1ull << hi) - 1;
  return below_hi & ~((1ull << lo) - 1);
}

/* n2 x n rows of B bytes with pre pad bytes before and post after, T =
** pre + B + post <= LI_ROWSPAD_MAX (TIDL's borders of narrow images,
** pitched rows): each 64 bytes of a row and its pads are one masked load
** into the pad's vector and one masked store, in address order (the pads
** and the row as separate stores, a row in two overlapping 16-byte moves
** and a byte store each side, cost about 2-3x: ti.tidl pack int8
** [1,37,29,23], 23-byte rows, 5.6 -> 2.1 us, the least of 5 runs). The
** masked-off lanes of a load are not read, so the loads never leave the
** row; pat: the pad element of esz bytes (1, 2, 4 or 8), repeated from d -
** pre on. Both row loops in one call: a call per n rows cost ti.tidl pack
** int8 [4,32,28,28] (128 x 28 rows) 6.4 us against 4.5. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
li_rowspad_avx512(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
                  int64_t dso2, int64_t dso, int64_t n2, int64_t n, int B,
                  int pre, int post, const uint8_t *pat, size_t esz) {
  const __m512i padv = li_pad512(pat, esz);
  const int T = pre + B + post, nc = (T + 63) / 64;
  __mmask64 lm[LI_ROWSPAD_MAX / 64] = {0}, sm[LI_ROWSPAD_MAX / 64] = {0};
  for (int c = 0; c < nc; c++) { /* the row's lanes, the stored lanes */
    lm[c] = lanes64(pre - 64 * c, pre + B - 64 * c);
    sm[c] = lanes64(0, T - 64 * c);
  }
  s -= pre;
  d -= pre;
#define ROWSPAD_ROWS(body)                                                   \
  for (int64_t a = 0; a < n2; a++, s += sso2, d += dso2) {                   \
    const uint8_t *sr = s;                                                   \
    uint8_t *dr = d;                                                         \
    for (int64_t r = 0; r < n; r++, sr += sso, dr += dso) { body; }          \
  }
#define ROWSPAD_CHUNK(c)                                                     \
  _mm512_mask_storeu_epi8(dr + 64 * (c), m##c,                               \
                          _mm512_mask_loadu_epi8(padv, l##c, sr + 64 * (c)))
  const __mmask64 l0 = lm[0], m0 = sm[0]; /* the masks in registers */
  if (T <= 32) { /* 32-byte masked stores: 4.5 -> 3.0 us in that case */
    const __m256i pv = _mm512_castsi512_si256(padv);
    const __mmask32 l = (__mmask32)l0, m = (__mmask32)m0;
    ROWSPAD_ROWS(
        _mm256_mask_storeu_epi8(dr, m, _mm256_mask_loadu_epi8(pv, l, sr)));
    return;
  }
  if (nc == 1) {
    ROWSPAD_ROWS(ROWSPAD_CHUNK(0));
    return;
  }
  const __mmask64 l1 = lm[1], m1 = sm[1];
  if (nc == 2) {
    ROWSPAD_ROWS(ROWSPAD_CHUNK(0); ROWSPAD_CHUNK(1));
    return;
  }
  /* the chunks between the first and the last: plain moves where they
  ** hold row bytes only (masked loads and stores of whole lines ran at
  ** 2/3 the bandwidth on Zen 5: ti.tidl pack int8 [1,128,254,254] 415
  ** against 260 us for the AVX2 rows) */
  int mid = 1;
  for (int c = 1; c + 1 < nc; c++) mid &= lm[c] == ~0ull && sm[c] == ~0ull;
  const __mmask64 le = lm[nc - 1], me = sm[nc - 1];
  if (mid) {
    ROWSPAD_ROWS(ROWSPAD_CHUNK(0);
                 for (int c = 1; c + 1 < nc; c++) _mm512_storeu_si512(
                     dr + 64 * c, _mm512_loadu_si512(sr + 64 * c));
                 _mm512_mask_storeu_epi8(
                     dr + 64 * (nc - 1), me,
                     _mm512_mask_loadu_epi8(padv, le, sr + 64 * (nc - 1))));
    return;
  }
  ROWSPAD_ROWS(for (int c = 0; c < nc; c++) _mm512_mask_storeu_epi8(
                   dr + 64 * c, sm[c],
                   _mm512_mask_loadu_epi8(padv, lm[c], sr + 64 * c)));
#undef ROWSPAD_CHUNK
#undef ROWSPAD_ROWS
}

/* A run of len <= 16 pad bytes at p by masked stores on 16-byte
** boundaries, which never cross a line: one, or two where the run
** crosses a boundary (a 64-byte masked store a row from the row's start
** crosses a line in most rows: trt.hwc8 pack int8 [1,37,29,23], 40-byte
** rows, 1.68 -> 1.53 us, min of 7, alternated). */
__attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) static
inline void pad_run16(uint8_t *p, int len, __m128i v) {
  const int a = (int)((uintptr_t)p & 15);
  const uint32_t m = ((1u << len) - 1) << a;
  _mm_mask_storeu_epi8(p - a, (__mmask16)m, v);
  if (m >> 16) _mm_mask_storeu_epi8(p - a + 16, (__mmask16)(m >> 16), v);
}

/* The pads alone of n rows (row r at d + r * dso: pre pad bytes, B bytes
** of data left as they are, post pad bytes; pre + B + post <= 64): byte
** pads of up to 16 bytes as pad_run16's runs, others one masked store a
** row, where two byte-run stores a row took trt.hwc16 pack int8
** [1,37,29,23] 3.7 us against 1.9 (trt.hwc8 2.1 against 1.7). */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
li_pads_avx512(uint8_t *d, int64_t dso, int64_t n, int pre, int B, int post,
               const uint8_t *pat, size_t esz) {
  if (esz == 1 && pre <= 16 && post <= 16) { /* byte pads: any phase */
    const __m128i v = _mm_set1_epi8((char)pat[0]);
    for (int64_t r = 0; r < n; r++, d += dso) {
      if (pre) pad_run16(d, pre, v);
      if (post) pad_run16(d + pre + B, post, v);
    }
    return;
  }
  const __m512i padv = li_pad512(pat, esz);
  const __mmask64 m = lanes64(0, pre) | lanes64(pre + B, pre + B + post);
  for (int64_t r = 0; r < n; r++, d += dso) _mm512_mask_storeu_epi8(d, m, padv);
}
#endif

/* n rows of K elements: row r reads s + r*sso + i*ssi, writes a row of W
** elements at d + r*dso - pre: pads, the K elements, pads (W <= 64). */
#define BLOCK_T(T, K)                                                       \
  static void block_##T##_##K(const uint8_t *s, int64_t sso, int64_t ssi,   \
                              uint8_t *d, int64_t dso, int64_t n, int pre,  \
                              int W, const uint8_t *pat) {                  \
    const int64_t z = (int64_t)sizeof(T);                                   \
    int post = W - K - pre;                                                 \
    T pv;                                                                   \
    memcpy(&pv, pat ? pat : (const uint8_t *)"\0\0\0\0\0\0\0", sizeof(T)); \
    if (W == K && (K * z) % 8 == 0) { /* whole words, built in registers */ \
      for (int64_t r = 0; r < n; r++) {                                     \
        for (int c = 0; c < K * z / 8; c++) {                               \
          uint64_t u = 0;                                                   \
          for (int i = 0; i < 8 / z; i++) {                                 \
            T v;                                                            \
            memcpy(&v, s + (c * (8 / z) + i) * ssi * z, sizeof(T));         \
            u |= (uint64_t)v << (8 * z * i);                                \
          }                                                                 \
          memcpy(d + c * 8, &u, 8);                                         \
        }                                                                   \
        s += sso * z;                                                       \
        d += dso * z;                                                       \
      }                                                                     \
      return;                                                               \
    }                                                                       \
    for (int64_t r = 0; r < n; r++) {                                       \
      if (sizeof(T) == 1) padb(d - pre, pre, pat ? pat[0] : 0);             \
      else                                                                  \
        for (int i = 0; i < pre; i++) memcpy(d - (pre - i) * z, &pv, sizeof(T)); \
      for (int i = 0; i < K; i++) {                                         \
        T v;                                                                \
        memcpy(&v, s + i * ssi * z, sizeof(T));                             \
        memcpy(d + i * z, &v, sizeof(T));                                   \
      }                                                                     \
      if (sizeof(T) == 1) padb(d + K * z, post, pat ? pat[0] : 0);          \
      else                                                                  \
        for (int i = 0; i < post; i++) memcpy(d + (K + i) * z, &pv, sizeof(T)); \
      s += sso * z;                                                         \
      d += dso * z;                                                         \
    }                                                                       \
  }
#define BLOCKN_T(T)                                                         \
  static void blockn_##T(const uint8_t *s, int64_t sso, int64_t ssi,        \
                         uint8_t *d, int64_t dso, int64_t n, int K, int pre, \
                         int W, const uint8_t *pat) {                       \
    const int64_t z = (int64_t)sizeof(T);                                   \
    int post = W - K - pre;                                                 \
    T pv;                                                                   \
    memcpy(&pv, pat, sizeof(T));                                            \
    for (int64_t r = 0; r < n; r++) {                                       \
      if (sizeof(T) == 1) padb(d - pre, pre, pat ? pat[0] : 0);             \
      else                                                                  \
        for (int i = 0; i < pre; i++) memcpy(d - (pre - i) * z, &pv, sizeof(T)); \
      for (int i = 0; i < K; i++) {                                         \
        T v;                                                                \
        memcpy(&v, s + i * ssi * z, sizeof(T));                             \
        memcpy(d + i * z, &v, sizeof(T));                                   \
      }                                                                     \
      if (sizeof(T) == 1) padb(d + K * z, post, pat ? pat[0] : 0);          \
      else                                                                  \
        for (int i = 0; i < post; i++) memcpy(d + (K + i) * z, &pv, sizeof(T)); \
      s += sso * z;                                                         \
      d += dso * z;                                                         \
    }                                                                       \
  }
#define BLOCKS(T) \
  BLOCK_T(T, 2) BLOCK_T(T, 3) BLOCK_T(T, 4) BLOCK_T(T, 8) BLOCK_T(T, 16) \
  BLOCK_T(T, 32) BLOCKN_T(T)
BLOCKS(uint8_t)
BLOCKS(uint16_t)
BLOCKS(uint32_t)

typedef void (*block_fn)(const uint8_t *, int64_t, int64_t, uint8_t *, int64_t,
                         int64_t, int, int, const uint8_t *);

static block_fn block_for(size_t esz, int k) {
#define PICK(T)                                   \
  switch (k) {                                    \
  case 2: return block_##T##_2;                   \
  case 3: return block_##T##_3;                   \
  case 4: return block_##T##_4;                   \
  case 8: return block_##T##_8;                   \
  case 16: return block_##T##_16;                 \
  case 32: return block_##T##_32;                 \
  default: return NULL;                           \
  }
  if (esz == 1) PICK(uint8_t)
  if (esz == 2) PICK(uint16_t)
  if (esz == 4) PICK(uint32_t)
#undef PICK
  return NULL;
}

/* The pads of n rows of W elements (pre before the K elements at d +
** r*dso, W - K - pre after them), the pattern's esz bytes each. */
static void block_pads(size_t esz, uint8_t *d, int64_t dso, int64_t n, int K,
                       int pre, int W, const uint8_t *pat, int simd) {
  const int64_t z = (int64_t)esz, post = W - K - pre;
#if defined(LI_HAVE_X86_TARGET)
  if (simd >= LI_SIMD_AVX512 && W * z <= 64 &&
      (esz == 1 || esz == 2 || esz == 4 || esz == 8)) {
    li_pads_avx512(d - pre * z, dso * z, n, (int)(pre * z), (int)(K * z),
                   (int)(post * z), pat, esz);
    return;
  }
#else
  (void)simd;
#endif
  for (int64_t r = 0; r < n; r++) {
    uint8_t *dr = d + r * dso * z;
    if (esz == 1) {
      padb(dr - pre, pre, pat[0]);
      padb(dr + K, post, pat[0]);
    } else {
      fill_n(dr - pre * z, 1, pre, pat, esz);
      fill_n(dr + K * z, 1, post, pat, esz);
    }
  }
}

/* n rows of K elements contiguous in the source (row r at s + r*sso)
** into groups of W elements (8 to 256 bytes; esz 1, 2, 4 or 8) at d + r*dso
** - pre: the pattern over the whole group, then the row's bytes. */
static void block_short_rows(size_t esz, const uint8_t *s, int64_t sso,
                             uint8_t *d, int64_t dso, int64_t n, int K, int pre,
                             int W, const uint8_t *pat) {
  static const uint8_t zero[8];
  const int64_t z = (int64_t)esz, gb = W * z;
  const uint8_t *pt = pat ? pat : zero;
  uint8_t pv[16];
  switch (esz) { /* fixed sizes: no call, no division */
  case 1: memset(pv, pt[0], 16); break;
  case 2: for (int i = 0; i < 16; i += 2) memcpy(pv + i, pt, 2); break;
  case 4: for (int i = 0; i < 16; i += 4) memcpy(pv + i, pt, 4); break;
  default: memcpy(pv, pt, 8); memcpy(pv + 8, pt, 8); break;
  }
  for (int64_t r = 0; r < n; r++) {
    uint8_t *g = d + (r * dso - pre) * z;
    if (gb >= 16) {
      for (int64_t o = 0; o + 16 <= gb; o += 16) memcpy(g + o, pv, 16);
      memcpy(g + gb - 16, pv, 16); /* the tail (gb - 16: whole elements) */
    } else { /* 8 to 15 bytes: two overlapping words */
      memcpy(g, pv, 8);
      memcpy(g + gb - 8, pv, 8);
    }
    cpys(g + pre * z, s + r * sso * z, (size_t)(K * z));
  }
}

#if defined(LI_HAVE_X86_TARGET)
/* block_short_rows' rows in groups of gb = W * esz <= 64 bytes (AVX-512):
** a row is one masked load of its K elements over the pattern (the pads'
** bytes masked off: never read, and no fault where they lie before the
** source) and one store of the group, 16, 32 or 64 bytes wide, masked
** where gb is not that width. Before, the pattern's word stores and the
** row's overlapping copies, ~6 stores a row: qnn.crouton pack int8
** [1,29,23,37], d % 32 edge rows of 5 bytes in groups of 32, 3.2 -> 2.75
** us; the 32 stdlib cases of 4 shapes that take it, 2-60% faster (min of
** 2 x 7, alternated). */
#define BP_ROWS(V, M, P, LD, ST, MST, FULL)                                  \
  for (int64_t r = 0; r < n; r++) {                                          \
    uint8_t *g = d + (r * dso - pre) * z;                                    \
    const V v = LD(P, (M)km, s + (r * sso - pre) * z);                       \
    if (FULL) ST((void *)g, v);                                              \
    else MST(g, (M)gm, v);                                                   \
  }
__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
block_padded_avx512(size_t esz, const uint8_t *s, int64_t sso, uint8_t *d,
                    int64_t dso, int64_t n, int K, int pre, int W,
                    const uint8_t *pat) {
  static const uint8_t zero[8];
  const int64_t z = (int64_t)esz, gb = W * z;
  const __m512i pv = li_pad512(pat ? pat : zero, esz);
  const __m256i p2 = _mm512_castsi512_si256(pv);
  const __m128i p1 = _mm512_castsi512_si128(pv);
  /* the group's bytes, and the row's in it */
  const uint64_t gm = gb == 64 ? ~0ull : (1ull << gb) - 1,
                 km = (K * z == 64 ? ~0ull : (1ull << (K * z)) - 1) << pre * z;
  if (gb <= 16)
    BP_ROWS(__m128i, __mmask16, p1, _mm_mask_loadu_epi8, _mm_storeu_si128,
            _mm_mask_storeu_epi8, gb == 16)
  else if (gb <= 32)
    BP_ROWS(__m256i, __mmask32, p2, _mm256_mask_loadu_epi8,
            _mm256_storeu_si256, _mm256_mask_storeu_epi8, gb == 32)
  else
    BP_ROWS(__m512i, __mmask64, pv, _mm512_mask_loadu_epi8,
            _mm512_storeu_si512, _mm512_mask_storeu_epi8, gb == 64)
}
#undef BP_ROWS

/* n rows of K elements whose source elements lie ssi apart within 32
** bytes, into rows of W <= 32 bytes with pads (AVX-512 VBMI): a row is
** one masked load of its source span, one byte permute that gathers the
** K elements and puts them after the pre pads, a blend with the pads and
** one masked store, where the element loop moved each element alone
** (qnn.crouton4x1 unpack int8 [1,29,23,37]: its d % 32 edge of 5
** channels, blocks of 8 rows of 5 elements 4 bytes apart). 0 when the
** shape is not one of these. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) static int
block_vbmi(size_t esz, const uint8_t *s, int64_t sso, int64_t ssi,
           uint8_t *d, int64_t dso, int64_t n, int K, int pre, int W,
           const uint8_t *pat) {
  const int64_t z = (int64_t)esz, span = ((K - 1) * ssi + 1) * z;
  if (ssi <= 0 || span > 32 || W * z > 32 || (z & (z - 1)) || z > 8 ||
      !li_have_vbmi())
    return 0;
  /* output byte j <- source byte (j / z - pre) * ssi * z + j % z, in
  ** registers (a table built in memory a call was read back before its
  ** byte stores could forward, a stall a call) */
  const int lz = z == 1 ? 0 : z == 2 ? 1 : z == 4 ? 2 : 3;
  const __m512i j = _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22,
                                     21, 20, 19, 18, 17, 16, 15, 14, 13, 12,
                                     11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i el =
      _mm512_sub_epi16(_mm512_srlv_epi16(j, _mm512_set1_epi16((short)lz)),
                       _mm512_set1_epi16((short)pre));
  const __m256i idx = _mm512_cvtepi16_epi8(_mm512_add_epi16(
      _mm512_mullo_epi16(el, _mm512_set1_epi16((short)(ssi * z))),
      _mm512_and_si512(j, _mm512_set1_epi16((short)(z - 1)))));
  static const uint8_t zero[8];
  const __m256i padv = _mm512_castsi512_si256(li_pad512(pat ? pat : zero,
                                                        esz));
  const __mmask32 ml = (__mmask32)(((uint64_t)1 << span) - 1),
                  mw = (__mmask32)(((uint64_t)1 << (W * z)) - 1),
                  md = (__mmask32)((((uint64_t)1 << (K * z)) - 1) << (pre * z));
  d -= pre * z;
  if (span <= 16 && W * z <= 16) { /* 16-byte moves: fewer cross a line */
    const __m128i i16 = _mm256_castsi256_si128(idx),
                  p16 = _mm256_castsi256_si128(padv);
    for (int64_t r = 0; r < n; r++, s += sso * z, d += dso * z) {
      const __m128i v = _mm_maskz_loadu_epi8((__mmask16)ml, s);
      _mm_mask_storeu_epi8(d, (__mmask16)mw,
                           _mm_mask_permutexvar_epi8(p16, (__mmask16)md,
                                                     i16, v));
    }
    return 1;
  }
  for (int64_t r = 0; r < n; r++, s += sso * z, d += dso * z) {
    const __m256i v = _mm256_maskz_loadu_epi8(ml, s);
    const __m256i o = _mm256_mask_permutexvar_epi8(padv, md, idx, v);
    _mm256_mask_storeu_epi8(d, mw, o);
  }
  return 1;
}
#endif

void li_block_any(size_t esz, int bk, const uint8_t *s, int64_t sso,
                      int64_t ssi, uint8_t *d, int64_t dso, int64_t n, int K,
                      int pre, int W, const uint8_t *pat, int simd,
                      const uint8_t *lo, const uint8_t *hi) {
  /* the rows contiguous in the source: a narrow transposition with the
  ** pads in its groups */
  if (sso == 1 && simd >= LI_SIMD_AVX2 &&
      li_shuf_ndst(esz, simd, lo, hi, s, ssi, K, n, d - pre * (int64_t)esz,
                   dso, W, pre, pat))
    return;
  /* the same with rows of a tile or more (too wide for li_shuf_ndst's
  ** registers): the tiled transposition writes the elements, then the
  ** pads go in row by row */
  if (sso == 1 && simd >= LI_SIMD_SSE && K >= (int)(16 / esz) && n >= 2 &&
      (esz == 1 || esz == 2 || esz == 4 || esz == 8)) {
    li_tr2d(esz, simd, lo, hi, s, ssi, d, dso, K, n);
    if (W > K) {
      static const uint8_t zero[8];
      block_pads(esz, d, dso, n, K, pre, W, pat ? pat : zero, simd);
    }
    return;
  }
  /* each row's elements contiguous in the source, groups of 8 to 256
  ** bytes: the group's pads as word stores of the pattern over the whole
  ** group, then the row's bytes over them */
  if (ssi == 1 && W * (int64_t)esz >= 8 && W * (int64_t)esz <= 256 && W > K &&
      (esz == 1 || esz == 2 || esz == 4 || esz == 8)) {
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX512 && W * (int64_t)esz <= 64) {
      block_padded_avx512(esz, s, sso, d, dso, n, K, pre, W, pat);
      return;
    }
#endif
    block_short_rows(esz, s, sso, d, dso, n, K, pre, W, pat);
    return;
  }
  block_fn f = bk ? block_for(esz, bk) : NULL;
  if (f) { f(s, sso, ssi, d, dso, n, pre, W, pat); return; }
#if defined(LI_HAVE_X86_TARGET)
  if (simd >= LI_SIMD_AVX512 &&
      block_vbmi(esz, s, sso, ssi, d, dso, n, K, pre, W, pat))
    return;
#endif
  if (esz == 1) blockn_uint8_t(s, sso, ssi, d, dso, n, K, pre, W, pat);
  else if (esz == 2) blockn_uint16_t(s, sso, ssi, d, dso, n, K, pre, W, pat);
  else blockn_uint32_t(s, sso, ssi, d, dso, n, K, pre, W, pat);
}
