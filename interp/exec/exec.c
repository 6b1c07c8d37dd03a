/*
** exec.c: the executor. Runs a plan's boxes: an odometer over the outer
** loops of each box and a kernel for the innermost one to three loops:
** memcpy and row copies for contiguous runs (AVX2 32-byte moves, with the
** rows' pads written in the same pass), interleaves of 1-byte planes into
** 2/4/8-wide blocks (SSE2 16 rows a step, AVX2 32) and, through the rows
** of a small tile (HCWNC8 on 7x7 planes), straight into the destination
** rows (8-byte stores through row offsets), the inverse deinterleaves, an
** SSSE3 shuffle for back-to-back rows (RGB -> RGBX), the split of 2-byte
** elements into two byte planes (16x16 byte transposes), unrolled n x k
** block copies, strided copies, the value-conversion path through stack
** tiles (byte planes, casts, quantization; fp32 quantize fused with the
** 8-wide interleave under AVX2), fills for pads and holes, and the full
** gather table for IRs that have one. Row pads (the fused padding of the innermost hardware
** axis) are written by the kernels with their rows. Every SIMD path is
** chosen at run time from the plan's instruction-set level (li_simd_level:
** the CPU, lowered by LAY_SIMD) and has a portable C fallback; the bytes
** never depend on the path. A last partial SIMD step is redone as the step
** ending at the last row (its repeated rows get the same bytes). Threads
** split every box's outermost loop (a lone row with its pads is not split);
** boxes are disjoint, so the bytes do not depend on the split.
*/
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

/* The short pad loops below must stay loops: GCC would turn them into a
** memset call per row. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
#include <immintrin.h>
#define LI_HAVE_SSSE3_TARGET 1
#define LI_HAVE_X86_TARGET 1
#endif

#define TILE 256

/* SSE2 kernels compiled twice, for the baseline and (VEX-encoded) for
** AVX2, the copy chosen when the program loads (GCC's target_clones). */
#if defined(LI_HAVE_X86_TARGET) && defined(__GNUC__) && !defined(__clang__)
#define LI_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LI_CLONES
#endif

/* ---- Value path ----------------------------------------------------------- */
static uint32_t ld_bits(const uint8_t *p, size_t n) {
  uint32_t u = 0;
  memcpy(&u, p, n); /* little-endian host */
  return u;
}

/* Gather m rows x k elements of esz bytes into a contiguous tile. */
static void gather2(const uint8_t *s, int64_t sso, int64_t ssi, size_t esz,
                    uint8_t *t, int64_t m, int64_t k) {
  if (ssi == 1) {
    for (int64_t r = 0; r < m; r++)
      memcpy(t + r * k * (int64_t)esz, s + r * sso * (int64_t)esz, (size_t)k * esz);
    return;
  }
#define G2(T)                                                              \
  {                                                                        \
    T *tt = (T *)(void *)t;                                                \
    for (int64_t r = 0; r < m; r++)                                        \
      for (int64_t i = 0; i < k; i++)                                      \
        memcpy(&tt[r * k + i], s + (r * sso + i * ssi) * (int64_t)sizeof(T), sizeof(T)); \
    return;                                                                \
  }
  switch (esz) {
  case 1: G2(uint8_t)
  case 2: G2(uint16_t)
  case 4: G2(uint32_t)
  default: G2(uint64_t)
  }
#undef G2
}

static void scatter2(const uint8_t *t, uint8_t *d, int64_t dso, int64_t dsi,
                     size_t esz, int64_t m, int64_t k) {
  if (dsi == 1) {
    for (int64_t r = 0; r < m; r++)
      memcpy(d + r * dso * (int64_t)esz, t + r * k * (int64_t)esz, (size_t)k * esz);
    return;
  }
#define S2(T)                                                              \
  {                                                                        \
    const T *tt = (const T *)(const void *)t;                              \
    for (int64_t r = 0; r < m; r++)                                        \
      for (int64_t i = 0; i < k; i++)                                      \
        memcpy(d + (r * dso + i * dsi) * (int64_t)sizeof(T), &tt[r * k + i], sizeof(T)); \
    return;                                                                \
  }
  switch (esz) {
  case 1: S2(uint8_t)
  case 2: S2(uint16_t)
  case 4: S2(uint32_t)
  default: S2(uint64_t)
  }
#undef S2
}

static void fill_n(uint8_t *d, int64_t ds, int64_t n, const uint8_t *pat,
                   size_t esz);
static inline void cpys(uint8_t *d, const uint8_t *s, size_t n);

/* n bytes of v: overlapping word stores for short runs. */
__attribute__((always_inline)) static inline void padb(uint8_t *d, int64_t n,
                                                      uint8_t v) {
  if (n <= 0) return;
  if (n > 16) { memset(d, v, (size_t)n); return; }
  uint64_t w = 0x0101010101010101ull * v;
  if (n >= 8) { memcpy(d, &w, 8); memcpy(d + n - 8, &w, 8); return; }
  if (n >= 4) { memcpy(d, &w, 4); memcpy(d + n - 4, &w, 4); return; }
  if (n >= 2) { memcpy(d, &w, 2); memcpy(d + n - 2, &w, 2); return; }
  d[0] = v;
}

/* Scatter with the row pads: rows of pre + k + post elements (dsi == 1)
** assembled in a template row and stored whole. */
static void scatter2p(const uint8_t *t, uint8_t *d, int64_t dso, int64_t dsi,
                      size_t esz, int64_t m, int64_t k, int64_t pre,
                      int64_t post, const uint8_t *pad) {
  int64_t z = (int64_t)esz;
  if (!pre && !post) {
    if (dsi == 1 && k * z <= 256) {
      for (int64_t r = 0; r < m; r++)
        cpys(d + r * dso * z, t + r * k * z, (size_t)(k * z));
      return;
    }
    scatter2(t, d, dso, dsi, esz, m, k);
    return;
  }
  if (dsi == 1 && k * z <= 256) {
    for (int64_t r = 0; r < m; r++) {
      uint8_t *dr = d + r * dso * z;
      if (esz == 1) {
        padb(dr - pre, pre, pad[0]);
        cpys(dr, t + r * k, (size_t)k);
        padb(dr + k, post, pad[0]);
      } else {
        fill_n(dr - pre * z, 1, pre, pad, esz);
        cpys(dr, t + r * k * z, (size_t)(k * z));
        fill_n(dr + k * z, 1, post, pad, esz);
      }
    }
    return;
  }
  scatter2(t, d, dso, dsi, esz, m, k);
  for (int64_t r = 0; r < m; r++) {
    uint8_t *dr = d + r * dso * z;
    if (pre) fill_n(dr - pre * z, 1, pre, pad, esz);
    if (post) fill_n(dr + k * z, 1, post, pad, esz);
  }
}

/* One tile: m rows x k elements, m * k <= TILE. */
static void conv_tile(const li_side *S, const li_side *D, const uint8_t *s,
                      int64_t sso, int64_t ssi, uint8_t *d, int64_t dso,
                      int64_t dsi, int64_t m, int64_t k, const int32_t *ch,
                      int64_t pre, int64_t post, const uint8_t *pad) {
  uint8_t ta[TILE * 8], tb[TILE * 8];
  size_t cs = li_dt_size(S->v.cpu);
  int64_t n = m * k;
  const uint8_t *cpu;
  if (S->v.nplanes) { /* combine the planes into S's element bits */
    int np = S->v.nplanes;
    size_t hs = li_dt_size(S->v.hw);
    uint8_t *bits = S->v.kind == LI_VR_ID ? tb : ta;
    if (hs == 2 && np == 2) {
      uint16_t *t16 = (uint16_t *)(void *)bits;
      int64_t ps = S->pstride;
      uint32_t m0 = S->v.mask[0], m1 = S->v.mask[1];
      int h0 = S->v.shift[0], h1 = S->v.shift[1];
      for (int64_t r = 0; r < m; r++) {
        const uint8_t *e = s + r * sso;
        for (int64_t i = 0; i < k; i++, e += ssi)
          t16[r * k + i] = (uint16_t)(((e[0] & m0) << h0) | ((e[ps] & m1) << h1));
      }
    } else {
      for (int64_t r = 0; r < m; r++)
        for (int64_t i = 0; i < k; i++) {
          const uint8_t *e = s + r * sso + i * ssi;
          uint32_t u = 0;
          for (int q = 0; q < np; q++)
            u |= ((uint32_t)e[q * S->pstride] & S->v.mask[q]) << S->v.shift[q];
          memcpy(bits + (r * k + i) * (int64_t)hs, &u, hs);
        }
    }
    if (S->v.kind != LI_VR_ID) li_decode(&S->v, ta, tb, n, ch);
    cpu = tb;
  } else {
    gather2(s, sso, ssi, S->esz, ta, m, k);
    if (S->v.kind == LI_VR_ID) {
      cpu = ta;
    } else {
      li_decode(&S->v, ta, tb, n, ch);
      cpu = tb;
    }
  }
  if (D->v.nplanes) { /* split D's element bits into the planes */
    const uint8_t *bits = cpu;
    size_t hs = cs;
    if (D->v.kind != LI_VR_ID) {
      uint8_t *t = cpu == ta ? tb : ta;
      li_encode(&D->v, cpu, t, n, ch);
      bits = t;
      hs = li_dt_size(D->v.hw);
    }
    int np = D->v.nplanes;
    if (np == 2 && hs == 2) {
      int64_t ps = D->pstride;
      uint32_t m0 = D->v.mask[0], m1 = D->v.mask[1];
      int h0 = D->v.shift[0], h1 = D->v.shift[1];
      const uint16_t *c16 = (const uint16_t *)(const void *)bits;
      for (int64_t r = 0; r < m; r++) {
        uint8_t *e = d + r * dso;
        for (int64_t i = 0; i < k; i++, e += dsi) {
          uint32_t u = c16[r * k + i];
          e[0] = (uint8_t)((u >> h0) & m0);
          e[ps] = (uint8_t)((u >> h1) & m1);
        }
      }
    } else {
      for (int64_t r = 0; r < m; r++)
        for (int64_t i = 0; i < k; i++) {
          uint32_t u = ld_bits(bits + (r * k + i) * (int64_t)hs, hs);
          uint8_t *e = d + r * dso + i * dsi;
          for (int q = 0; q < np; q++)
            e[q * D->pstride] = (uint8_t)((u >> D->v.shift[q]) & D->v.mask[q]);
        }
    }
    if (pre || post)
      for (int64_t r = 0; r < m; r++) {
        uint8_t *dr = d + r * dso;
        for (int q = 0; q < np; q++) {
          if (pre) fill_n(dr - pre + q * D->pstride, 1, pre, pad + q, 1);
          if (post) fill_n(dr + k + q * D->pstride, 1, post, pad + q, 1);
        }
      }
  } else if (D->v.kind == LI_VR_ID) {
    scatter2p(cpu, d, dso, dsi, D->esz, m, k, pre, post, pad);
  } else {
    uint8_t *t = cpu == ta ? tb : ta;
    li_encode(&D->v, cpu, t, n, ch);
    scatter2p(t, d, dso, dsi, D->esz, m, k, pre, post, pad);
  }
}

void li_conv_block(const li_side *S, const li_side *D, const uint8_t *src,
                   int64_t sso, int64_t ssi, uint8_t *dst, int64_t dso,
                   int64_t dsi, int64_t rows, int64_t k, int64_t cb,
                   int64_t cso, int64_t csi, int64_t pre, int64_t post,
                   const uint8_t *pad) {
  int32_t ch[TILE];
  int perch = S->v.axis >= 0 || D->v.axis >= 0;
  int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  int64_t R = k <= TILE ? TILE / k : 1, kk = k <= TILE ? k : TILE;
  for (int64_t r0 = 0; r0 < rows; r0 += R) {
    int64_t m = rows - r0 < R ? rows - r0 : R;
    for (int64_t i0 = 0; i0 < k; i0 += kk) {
      int64_t w = k - i0 < kk ? k - i0 : kk;
      if (perch)
        for (int64_t r = 0; r < m; r++)
          for (int64_t i = 0; i < w; i++)
            ch[r * w + i] = (int32_t)(cb + (r0 + r) * cso + (i0 + i) * csi);
      conv_tile(S, D, src + (r0 * sso + i0 * ssi) * se, sso, ssi,
                dst + (r0 * dso + i0 * dsi) * de, dso, dsi, m, w,
                perch ? ch : NULL, i0 == 0 ? pre : 0, i0 + w == k ? post : 0,
                pad);
    }
  }
}

/* ---- Copy kernels ----------------------------------------------------------- */
#define COPY_T(T)                                                  \
  static void copy_##T(const uint8_t *s, int64_t ss, uint8_t *d,   \
                       int64_t ds, int64_t n) {                    \
    for (int64_t i = 0; i < n; i++) {                              \
      T v;                                                         \
      memcpy(&v, s + i * ss * (int64_t)sizeof(T), sizeof(T));      \
      memcpy(d + i * ds * (int64_t)sizeof(T), &v, sizeof(T));      \
    }                                                              \
  }
COPY_T(uint8_t)
COPY_T(uint16_t)
COPY_T(uint32_t)
COPY_T(uint64_t)

static void copy_any(const uint8_t *s, int64_t ss, uint8_t *d, int64_t ds,
                     int64_t n, size_t esz) {
  switch (esz) {
  case 1: copy_uint8_t(s, ss, d, ds, n); return;
  case 2: copy_uint16_t(s, ss, d, ds, n); return;
  case 4: copy_uint32_t(s, ss, d, ds, n); return;
  case 8: copy_uint64_t(s, ss, d, ds, n); return;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy(d + i * ds * (int64_t)esz, s + i * ss * (int64_t)esz, esz);
  }
}

/* n elements of the pattern at stride ds (elements of esz bytes). */
static void fill_n(uint8_t *d, int64_t ds, int64_t n, const uint8_t *pat,
                   size_t esz) {
  switch (esz) {
  case 1: {
    uint8_t v = pat[0];
    if (ds == 1) { padb(d, n, v); return; }
    for (int64_t i = 0; i < n; i++) d[i * ds] = v;
    return;
  }
#define FILL_T(T)                                                         \
  {                                                                       \
    T v;                                                                  \
    memcpy(&v, pat, sizeof v);                                            \
    for (int64_t i = 0; i < n; i++)                                       \
      memcpy(d + i * ds * (int64_t)sizeof v, &v, sizeof v);               \
    return;                                                               \
  }
  case 2: FILL_T(uint16_t)
  case 4: FILL_T(uint32_t)
  case 8: FILL_T(uint64_t)
#undef FILL_T
  default:
    for (int64_t i = 0; i < n; i++) memcpy(d + i * ds * (int64_t)esz, pat, esz);
  }
}

/* n rows of B bytes, B a compile-time constant. */
#define ROWS_B(B)                                                         \
  static void rows_##B(const uint8_t *s, int64_t sso, uint8_t *d,         \
                       int64_t dso, int64_t n) {                          \
    for (int64_t r = 0; r < n; r++) memcpy(d + r * dso, s + r * sso, B);  \
  }
ROWS_B(4) ROWS_B(8) ROWS_B(16) ROWS_B(32) ROWS_B(64) ROWS_B(128)

/* A copy of n <= 256 bytes, inlined (overlapping word moves). Up to 128
** bytes, every load is issued before the first store: a store ahead of a
** load whose address matches it modulo 4096 would hold the load up. */
typedef struct v16 { uint64_t a, b; } v16;
#define LD16(p) (memcpy(&t, (p), 16), t)
static inline void cpys(uint8_t *d, const uint8_t *s, size_t n) {
  if (n >= 16 && n <= 128) {
    v16 t, a0, a1, a2, a3, b0, b1, b2, b3;
    if (n <= 32) {
      a0 = LD16(s); b0 = LD16(s + n - 16);
      memcpy(d, &a0, 16); memcpy(d + n - 16, &b0, 16);
    } else if (n <= 64) {
      a0 = LD16(s); a1 = LD16(s + 16);
      b0 = LD16(s + n - 32); b1 = LD16(s + n - 16);
      memcpy(d, &a0, 16); memcpy(d + 16, &a1, 16);
      memcpy(d + n - 32, &b0, 16); memcpy(d + n - 16, &b1, 16);
    } else {
      a0 = LD16(s); a1 = LD16(s + 16); a2 = LD16(s + 32); a3 = LD16(s + 48);
      b0 = LD16(s + n - 64); b1 = LD16(s + n - 48);
      b2 = LD16(s + n - 32); b3 = LD16(s + n - 16);
      memcpy(d, &a0, 16); memcpy(d + 16, &a1, 16);
      memcpy(d + 32, &a2, 16); memcpy(d + 48, &a3, 16);
      memcpy(d + n - 64, &b0, 16); memcpy(d + n - 48, &b1, 16);
      memcpy(d + n - 32, &b2, 16); memcpy(d + n - 16, &b3, 16);
    }
    return;
  }
  if (n >= 16) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) memcpy(d + i, s + i, 16);
    if (i < n) memcpy(d + n - 16, s + n - 16, 16);
    return;
  }
  if (n >= 8) { memcpy(d, s, 8); memcpy(d + n - 8, s + n - 8, 8); return; }
  if (n >= 4) { memcpy(d, s, 4); memcpy(d + n - 4, s + n - 4, 4); return; }
  for (size_t i = 0; i < n; i++) d[i] = s[i];
}

static inline void cpy(uint8_t *d, const uint8_t *s, size_t n) {
  if (n > 64) memcpy(d, s, n); /* libc's wide moves win from here */
  else cpys(d, s, n);
}

/* AVX2 row copies: n3 x n2 x n rows of B = 32*q bytes (q = 1..4); 32-byte
** moves, every load of a row before its first store. */
#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static void
rows32_avx2(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
            int64_t dso2, int64_t dso, int64_t n2, int64_t n, int q,
            int64_t n3, int64_t sso3, int64_t dso3) {
#define L32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define S32(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
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
__attribute__((target("avx2"))) static void
rowspad_avx2(const uint8_t *s, int64_t sso, uint8_t *d, int64_t dso,
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
__attribute__((target("avx2"))) static void
rowsblend_avx2(const uint8_t *s0, int64_t sso2, int64_t sso, uint8_t *d0,
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
#undef L32
#undef S32
}
#endif

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
  _mm_storeh_pd((double *)(void *)(d + off[r + 1]), _mm_castsi128_pd(v));
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
      _mm_storeh_pd((double *)(void *)(d + off[r + 2 * k + 1]), _mm_castsi128_pd(lo));
      _mm_storel_epi64((__m128i *)(void *)(d + off[r + 16 + 2 * k]), hi);
      _mm_storeh_pd((double *)(void *)(d + off[r + 17 + 2 * k]), _mm_castsi128_pd(hi));
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
      _mm_storeh_pd((double *)(void *)((d) + ((q) / (n) + 1) * (dso2)), _mm_castsi128_pd(v)); \
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
LI_CLONES static void ilv8x8(const uint8_t *s, int64_t ssi, int K, int pre, uint8_t pad,
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

/* cnt tiles of n2 runs of n blocks, as ilv8x8 (inv == 0) or deilv8x8
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
__attribute__((target("avx2"))) static int
tiles8x8(int inv, const uint8_t *s, int64_t ss, int64_t n2, int n,
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
LI_CLONES static void deilv8x8(const uint8_t *s, int64_t sso, int64_t n2, int n, int p0,
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
      tiles8x8(1, s, sso, n2, n, d, dps, cnt, sstep, dstep))
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

static void ilv8_off(const uint8_t *s, int64_t ssi, int K, int pre,
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

static void deilv8_off(const uint8_t *s, const int64_t *off, int p0, int K,
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

static void ilv_u8(const uint8_t *s, int64_t ssi, int K, int pre, int W,
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

static void block_any(size_t esz, int bk, const uint8_t *s, int64_t sso,
                      int64_t ssi, uint8_t *d, int64_t dso, int64_t n, int K,
                      int pre, int W, const uint8_t *pat) {
  block_fn f = bk ? block_for(esz, bk) : NULL;
  if (f) { f(s, sso, ssi, d, dso, n, pre, W, pat); return; }
  if (esz == 1) blockn_uint8_t(s, sso, ssi, d, dso, n, K, pre, W, pat);
  else if (esz == 2) blockn_uint16_t(s, sso, ssi, d, dso, n, K, pre, W, pat);
  else blockn_uint32_t(s, sso, ssi, d, dso, n, K, pre, W, pat);
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

static void deilv_u8(const uint8_t *t, int W, int p0, int K, uint8_t *d,
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

static void expand_u8(const uint8_t *s, int K, int pre, int W, uint8_t pad,
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
typedef struct split_args {
  int64_t sso, ssi, dso, ps;
  int h0, h1;
  uint32_t m0, m1;
} split_args;

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

static void split16_sse(const uint8_t *s, uint8_t *d, const split_args *a,
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
split16_avx2(const uint8_t *s, uint8_t *d, const split_args *a, int64_t n) {
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

static void split2(const uint8_t *s, uint8_t *d, const split_args *a,
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
      o[k] = (uint8_t)((u >> a->h0) & a->m0);
      o[k + a->ps] = (uint8_t)((u >> a->h1) & a->m1);
    }
  }
}

int li_simd_level(void) {
  int lv = LI_SIMD_NONE;
#if defined(__SSE2__)
  lv = LI_SIMD_SSE;
#endif
#if defined(LI_HAVE_X86_TARGET)
  if (__builtin_cpu_supports("avx2")) lv = LI_SIMD_AVX2;
#endif
  const char *e = getenv("LAY_SIMD");
  if (e && e[0] >= '0' && e[0] <= '9' && !e[1] && e[0] - '0' < lv)
    lv = e[0] - '0';
  return lv;
}

/* Quantize + interleave, fused (W == 8, 1-byte hw type): per 32 rows,
** each present plane's 32 floats are quantized in registers (li_quant_fast's
** arithmetic: 8 floats an op with saturating packs, NaN -> 0) into 32
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
  __m256 sc, hi, lo;
  __m256i zp, ord;
  int trunc, u8;
} qv8;

/* 32 floats at f quantized to 32 bytes in row order. zp0 (a constant at
** each use): the zero point is 0, so values below the range need no clamp
** (cvt gives INT_MIN, which the packs saturate) and nothing is added. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
q32(const qv8 *k, const float *f, const int zp0) {
  __m256i q[4];
  for (int j = 0; j < 4; j++) {
    __m256 x = _mm256_loadu_ps(f + 8 * j);
    __m256 ok = _mm256_cmp_ps(x, x, _CMP_ORD_Q);
    __m256 t = _mm256_min_ps(_mm256_mul_ps(x, k->sc), k->hi);
    if (!zp0) t = _mm256_max_ps(t, k->lo);
    __m256i c = k->trunc ? _mm256_cvttps_epi32(t) : _mm256_cvtps_epi32(t);
    if (!zp0) c = _mm256_add_epi32(c, k->zp);
    q[j] = _mm256_and_si256(c, _mm256_castps_si256(ok));
  }
  __m256i a = _mm256_packs_epi32(q[0], q[1]), b = _mm256_packs_epi32(q[2], q[3]);
  __m256i c = k->u8 ? _mm256_packus_epi16(a, b) : _mm256_packs_epi16(a, b);
  return _mm256_permutevar8x32_epi32(c, k->ord);
}

/* Rows [0, n) of the interleave, 32 a step, the last one overlapping. */
__attribute__((target("avx2"), always_inline)) static inline void
qilv8_rows(const qv8 *k, const float *const *pl, __m256i padv, int half,
           uint8_t *d, int64_t n, const int zp0) {
#define QX(w) (pl[w] ? q32(k, pl[w] + r, zp0) : padv)
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

__attribute__((target("avx2"))) static int
qilv8_avx2(const li_vrule *v, const uint8_t *s, int64_t ssi, int K, int pre,
           uint8_t pad, uint8_t *d, int64_t n) {
  const qv8 k = {.sc = _mm256_set1_ps((float)(v->num[0] / v->den[0])),
                 .hi = _mm256_set1_ps(0x1p30f),
                 .lo = _mm256_set1_ps(-0x1p30f),
                 .zp = _mm256_set1_epi32((int)v->zp[0]),
                 .ord = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
                 .trunc = v->round == LG_R_TRUNC,
                 .u8 = v->hw == LAY_DT_UINT8};
  const float *pl[8];
  for (int w = 0; w < 8; w++)
    pl[w] = w >= pre && w < pre + K ? (const float *)(const void *)(s + (w - pre) * ssi * 4) : NULL;
  const __m256i padv = _mm256_set1_epi8((char)pad);
  if (v->zp[0] == 0)
    qilv8_rows(&k, pl, padv, pre + K <= 4, d, n, 1);
  else
    qilv8_rows(&k, pl, padv, pre + K <= 4, d, n, 0);
  return 1;
}

#endif

static int qilv8(const li_side *S, const li_side *D, const uint8_t *s,
                 int64_t ssi, int K, int pre, uint8_t pad, uint8_t *d,
                 int64_t n, int simd) {
#if defined(LI_HAVE_X86_TARGET)
  if (simd >= LI_SIMD_AVX2 && n >= 32 && S->v.kind == LI_VR_ID &&
      S->v.cpu == LAY_DT_FP32 && !S->v.nplanes && !D->v.nplanes &&
      D->esz == 1 && li_quant_fast(&D->v))
    return qilv8_avx2(&D->v, s, ssi, K, pre, pad, d, n);
#else
  (void)S; (void)D; (void)s; (void)ssi; (void)K; (void)pre; (void)pad;
  (void)d; (void)n; (void)simd;
#endif
  return 0;
}

/* ---- Boxes ------------------------------------------------------------------ */
/* The channel of CPU element c along the per-channel axis of the plan's
** value rules (0 without one). */
static int64_t cpu_channel(const li_plan *p, int64_t c) {
  const li_side *C = p->s.is_cpu ? &p->s : &p->d;
  int axis = p->s.v.axis >= 0 ? p->s.v.axis : p->d.v.axis;
  if (axis < 0) return 0;
  for (int i = C->rank - 1; i > axis; i--) c /= C->dim[i].size;
  return c % C->dim[axis].size;
}

/* Hardware elements [from, to) of the gather table's side, run by run: a
** pack reads each run's consecutive CPU elements (or writes the pad), an
** unpack writes them. */
static void table_run(const li_plan *p, const uint8_t *src, uint8_t *dst,
                      int64_t from, int64_t to) {
  const li_side *S = &p->s, *D = &p->d;
  const int pack = D->table != NULL;
  const li_gather *g = pack ? D->table : S->table;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int perch = S->v.axis >= 0 || D->v.axis >= 0;
  for (int64_t e = from, len; e < to; e += len) {
    int64_t c = li_gather_run(g, e, &len);
    if (len > to - e) len = to - e;
    if (c < 0) {
      if (pack) fill_n(dst + e * de, 1, len, p->pats[0], (size_t)de);
      continue;
    }
    const uint8_t *s = src + (pack ? c : e) * se;
    uint8_t *d = dst + (pack ? e : c) * de;
    if (!p->slow) {
      memcpy(d, s, (size_t)(len * de));
    } else if (!perch) {
      li_conv_block(S, D, s, 0, 1, d, 0, 1, 1, len, 0, 0, 0, 0, 0, NULL);
    } else {
      for (int64_t i = 0; i < len; i++)
        li_conv_block(S, D, s + i * se, 0, 1, d + i * de, 0, 1, 1, 1,
                      cpu_channel(p, c + i), 0, 0, 0, 0, NULL);
    }
  }
}

/* A table loop as the kernel: element i from s + t[2i] to d + t[2i+1]
** (offsets in elements, relative to the loop's first pair: s and d are
** its places), converted when the plan converts values; a fill box writes
** its pattern at each d + t[2i+1] instead. */
static void dimtab(const li_plan *p, const li_box *b, const li_loop *in,
                   const uint8_t *s, uint8_t *d, int64_t cb) {
  const int64_t *t = p->tabs + in->tab - 1;
  int64_t se = (int64_t)p->s.esz, de = (int64_t)p->d.esz, n = in->ext;
  s -= t[0] * se; /* a part of the loop that starts at a later pair */
  d -= t[1] * de;
  if (b->fill) {
    const uint8_t *pat = p->pats[b->pat];
    int planes = p->d.v.nplanes && !b->raw ? p->d.v.nplanes : 0;
    for (int64_t i = 0; i < n; i++) {
      uint8_t *q = d + t[2 * i + 1] * de;
      if (planes)
        for (int k = 0; k < planes; k++) q[k * p->d.pstride] = pat[k];
      else
        memcpy(q, pat, (size_t)de);
    }
    return;
  }
  if (p->slow) {
    for (int64_t i = 0; i < n; i++)
      li_conv_block(&p->s, &p->d, s + t[2 * i] * se, 0, 1, d + t[2 * i + 1] * de,
                    0, 1, 1, 1, cb + i * in->cs, 0, 0, 0, 0, NULL);
    return;
  }
  switch (de) {
  case 1:
    for (int64_t i = 0; i < n; i++) d[t[2 * i + 1]] = s[t[2 * i]];
    break;
  case 2:
    for (int64_t i = 0; i < n; i++) memcpy(d + 2 * t[2 * i + 1], s + 2 * t[2 * i], 2);
    break;
  case 4:
    for (int64_t i = 0; i < n; i++) memcpy(d + 4 * t[2 * i + 1], s + 4 * t[2 * i], 4);
    break;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy(d + de * t[2 * i + 1], s + se * t[2 * i], (size_t)de);
    break;
  }
}

void li_exec_box(const li_plan *p, const li_box *b, const uint8_t *src,
                 uint8_t *dst, int64_t from, int64_t to) {
  li_loop L[LG_MAX_RANK * (2 * LG_MAX_AXES + 1)];
  int nl = b->nl;
  if (from >= to) return;
  if (nl <= 2 && b->kern == LI_K_MEMSET) { /* runs: no odometer */
    const li_loop *l = &p->loops[b->l0];
    int64_t de = (int64_t)p->d.esz;
    if (nl == 1) {
      memset(dst + (b->db + from * l->ds) * de, p->pats[b->pat][0],
             (size_t)((to - from) * de));
      return;
    }
    for (int64_t i = from; i < to; i++) /* rows of l[1].ext, dst stride 1 */
      memset(dst + (b->db + i * l->ds) * de, p->pats[b->pat][0],
             (size_t)(l[1].ext * de));
    return;
  }
  for (int i = 0; i < nl; i++) L[i] = p->loops[b->l0 + i];
  if (b->kern == LI_K_TABLE) {
    table_run(p, src, dst, from, to);
    return;
  }
  int64_t sb = b->sb + from * L[0].ss, db = b->db + from * L[0].ds,
          cb = b->cb + from * L[0].cs;
  if (L[0].tab) { /* the part starts at pair `from` */
    const int64_t *t = p->tabs + L[0].tab - 1;
    sb += t[2 * from];
    db += t[2 * from + 1];
    L[0].tab += 2 * from;
  }
  L[0].ext = to - from;
  int kl = (b->kern == LI_K_ROWS && nl >= 3) || b->kern == LI_K_ILV2 ||
                   b->kern == LI_K_DEILV2 ? 3 :
           b->kern == LI_K_BLOCK || b->kern == LI_K_ROWS || b->kern == LI_K_ILV ||
                   b->kern == LI_K_EXPAND ||
                   b->kern == LI_K_CONV_ILV || b->kern == LI_K_SPLIT2 ||
                   (b->kern == LI_K_CONV && nl >= 2) ? 2 : 1;
  int no = nl - kl;
  int64_t idx[LG_MAX_RANK * (2 * LG_MAX_AXES + 1)];
  for (int i = 0; i < nl; i++) idx[i] = 0;
  size_t se = p->s.esz, de = p->d.esz;
  const li_loop *in = &L[nl - 1];
  const uint8_t *pat = p->pats[b->pat];
  int planes = p->d.v.nplanes && !b->raw ? p->d.v.nplanes : 0;
  int64_t pre = b->pre, post = b->post;
  const uint8_t *dpat = p->pats[0];
  int64_t off[512]; /* ILV2/DEILV2 row offsets (rows * 8 <= 4096) */
  int64_t noff = -1;
  /* A kernel that ran the rest of the innermost odometer loop (lj = L[no -
  ** 1], n more steps): the odometer then stands on that loop's last step. */
#define ODO_SKIP(lj, n)                                                      \
  do {                                                                       \
    sb += (n) * (lj)->ss;                                                    \
    db += (n) * (lj)->ds;                                                    \
    cb += (n) * (lj)->cs;                                                    \
    idx[no - 1] += (n);                                                      \
  } while (0)
  for (;;) {
    uint8_t *d = dst + db * (int64_t)de;
    switch (b->kern) {
    case LI_K_MEMCPY:
      cpy(d, src + sb * (int64_t)se, (size_t)in->ext * de);
      break;
    case LI_K_ROWS: { /* the two (or three) innermost loops */
      const li_loop *o = &L[nl - 2];
      const li_loop *o2 = nl >= 3 ? &L[nl - 3] : NULL;
      int64_t n2 = o2 ? o2->ext : 1;
      int64_t sso = o->ss * (int64_t)se, dso = o->ds * (int64_t)de;
#if defined(LI_HAVE_X86_TARGET)
      if (de == 1 && !pre && post && b->bk + post == 32 && p->simd >= LI_SIMD_AVX2) {
        rowsblend_avx2(src + sb, o2 ? o2->ss : 0, sso, d, o2 ? o2->ds : 0, dso,
                       n2, o->ext, b->bk, (int)post, dpat[0], src + p->sbytes);
        pre = post = 0;
        break;
      }
#endif
      for (int64_t a = 0; a < n2; a++) {
        const uint8_t *s = src + (sb + (o2 ? a * o2->ss : 0)) * (int64_t)se;
        uint8_t *dd = d + (o2 ? a * o2->ds : 0) * (int64_t)de;
        if (pre || post) {
          int64_t pb = pre * (int64_t)de, qb = post * (int64_t)de;
#if defined(LI_HAVE_X86_TARGET)
          if (de == 1 && b->bk >= 32 && p->simd >= LI_SIMD_AVX2) {
            rowspad_avx2(s, sso, dd, dso, o->ext, b->bk, pb, qb, dpat[0], src,
                         src + p->sbytes);
            continue;
          }
#endif
          if (de == 1 && b->bk >= 16 && b->bk <= 256) {
            /* one pass per row: pads and inline 16-byte moves */
            for (int64_t r = 0; r < o->ext; r++) {
              uint8_t *dr = dd + r * dso;
              padb(dr - pb, pb, dpat[0]);
              cpys(dr, s + r * sso, (size_t)b->bk);
              padb(dr + b->bk, qb, dpat[0]);
            }
            continue;
          }
          for (int64_t r = 0; r < o->ext; r++) {
            uint8_t *dr = dd + r * dso;
            if (de == 1) padb(dr - pb, pb, dpat[0]);
            else fill_n(dr - pb, 1, pre, dpat, de);
            cpy(dr, s + r * sso, (size_t)b->bk);
            if (de == 1) padb(dr + b->bk, qb, dpat[0]);
            else fill_n(dr + b->bk, 1, post, dpat, de);
          }
          continue;
        }
#if defined(LI_HAVE_X86_TARGET)
        if (p->simd >= LI_SIMD_AVX2 && b->bk % 32 == 0 && b->bk <= 128) {
          /* both loops, and the rest of the next odometer loop, in one call */
          const li_loop *lj = o2 && no >= 1 && !L[no - 1].tab ? &L[no - 1] : NULL;
          int64_t cnt = lj ? lj->ext - idx[no - 1] : 1;
          rows32_avx2(s, o2 ? o2->ss * (int64_t)se : 0, sso, dd,
                      o2 ? o2->ds * (int64_t)de : 0, dso, n2, o->ext, b->bk / 32,
                      cnt, lj ? lj->ss * (int64_t)se : 0, lj ? lj->ds * (int64_t)de : 0);
          if (lj) ODO_SKIP(lj, cnt - 1);
          break;
        }
#endif
        switch (b->bk) {
        case 4: rows_4(s, sso, dd, dso, o->ext); break;
        case 8: rows_8(s, sso, dd, dso, o->ext); break;
        case 16: rows_16(s, sso, dd, dso, o->ext); break;
        case 32: rows_32(s, sso, dd, dso, o->ext); break;
        case 64: rows_64(s, sso, dd, dso, o->ext); break;
        case 128: rows_128(s, sso, dd, dso, o->ext); break;
        default:
          for (int64_t r = 0; r < o->ext; r++)
            cpy(dd + r * dso, s + r * sso, (size_t)b->bk);
          break;
        }
      }
      pre = post = 0;
      break;
    }
    case LI_K_ILV: {
      const li_loop *o = &L[nl - 2];
      ilv_u8(src + sb, in->ss, (int)in->ext, (int)pre, b->bk, dpat[0],
             d - pre, o->ext, p->simd);
      pre = post = 0;
      break;
    }
    case LI_K_ILV2: {
      const li_loop *o = &L[nl - 2], *o2 = &L[nl - 3];
      uint8_t tile[4096];
      int64_t rows = o2->ext * o->ext, rb = o->ext * b->bk;
#if defined(__SSE2__)
      if (b->bk == 8 && o->ext <= 8 && o->ds == 8 && p->simd >= LI_SIMD_SSE) {
        /* the rest of the next odometer loop in the same call */
        const li_loop *lj = no >= 1 && !L[no - 1].tab ? &L[no - 1] : NULL;
        int64_t cnt = lj ? lj->ext - idx[no - 1] : 1;
#if defined(LI_HAVE_X86_TARGET)
        if (p->simd >= LI_SIMD_AVX2 && pre == 0 && in->ext == 8 &&
            tiles8x8(0, src + sb, in->ss, o2->ext, (int)o->ext, d, o2->ds,
                     cnt, lj ? lj->ss : 0, lj ? lj->ds : 0)) {
          if (lj) ODO_SKIP(lj, cnt - 1);
          pre = post = 0;
          break;
        }
#endif
        ilv8x8(src + sb, in->ss, (int)in->ext, (int)pre, dpat[0], d - pre,
               o2->ds, o2->ext, (int)o->ext, src + p->sbytes, cnt,
               lj ? lj->ss : 0, lj ? lj->ds : 0);
        if (lj) ODO_SKIP(lj, cnt - 1);
        pre = post = 0;
        break;
      }
#endif
      if (b->bk == 8) {
        if (noff != rows) /* the rows' places, the same for every box step */
          for (noff = 0; noff < rows; noff++)
            off[noff] = noff / o->ext * o2->ds + noff % o->ext * 8;
        ilv8_off(src + sb, in->ss, (int)in->ext, (int)pre, dpat[0], d - pre,
                 off, rows, p->simd);
        pre = post = 0;
        break;
      }
      ilv_u8(src + sb, in->ss, (int)in->ext, (int)pre, b->bk, dpat[0], tile,
             rows, p->simd);
      for (int64_t a = 0; a < o2->ext; a++)
        cpy(d - pre + a * o2->ds, tile + a * rb, (size_t)rb);
      pre = post = 0;
      break;
    }
    case LI_K_DEILV2: {
      const li_loop *o = &L[nl - 2], *pl = &L[nl - 3];
      uint8_t tile[4096];
      int W = b->bk;
      int64_t p0 = sb % W, rb = in->ext * W;
      const uint8_t *s0 = src + (sb - p0);
      int64_t rows = o->ext * in->ext;
#if defined(__SSE2__)
      if (W == 8 && in->ext <= 8 && o->ds == in->ext && p->simd >= LI_SIMD_SSE) {
        const li_loop *lj = no >= 1 && !L[no - 1].tab ? &L[no - 1] : NULL;
        int64_t cnt = lj ? lj->ext - idx[no - 1] : 1;
        deilv8x8(s0, o->ss, o->ext, (int)in->ext, (int)p0, (int)pl->ext, d,
                 pl->ds, cnt, lj ? lj->ss : 0, lj ? lj->ds : 0, src + p->sbytes,
                 p->simd);
        if (lj) ODO_SKIP(lj, cnt - 1);
        break;
      }
#endif
      if (W == 8) {
        if (noff != rows)
          for (noff = 0; noff < rows; noff++)
            off[noff] = noff / in->ext * o->ss + noff % in->ext * 8;
        deilv8_off(s0, off, (int)p0, (int)pl->ext, d, pl->ds, rows, p->simd);
        break;
      }
      for (int64_t a = 0; a < o->ext; a++)
        cpy(tile + a * rb, s0 + a * o->ss, (size_t)rb);
      deilv_u8(tile, W, (int)p0, (int)pl->ext, d, pl->ds, o->ext * in->ext,
               p->simd);
      break;
    }
    case LI_K_EXPAND: {
      const li_loop *o = &L[nl - 2];
      expand_u8(src + sb, (int)in->ext, (int)pre, b->bk, dpat[0], d - pre,
                o->ext, p->simd);
      pre = post = 0;
      break;
    }
    case LI_K_CONV_ILV: {
      const li_loop *o = &L[nl - 2];
      uint8_t tmp[8 * TILE];
      int K = (int)in->ext;
      int direct = p->s.v.kind == LI_VR_ID && p->s.v.axis < 0 &&
                   p->d.v.axis < 0;
      if (b->bk == 8 && direct &&
          qilv8(&p->s, &p->d, src + sb * (int64_t)se, in->ss, K, (int)pre,
                dpat[0], d - pre, o->ext, p->simd)) {
        pre = post = 0;
        break;
      }
      for (int64_t r0 = 0; r0 < o->ext; r0 += TILE) {
        int64_t m = o->ext - r0 < TILE ? o->ext - r0 : TILE;
        for (int w = 0; w < K; w++) {
          const uint8_t *sr = src + (sb + r0 + w * in->ss) * (int64_t)se;
          if (direct)
            li_encode(&p->d.v, sr, tmp + w * TILE, m, NULL);
          else
            li_conv_block(&p->s, &p->d, sr, 0, 1, tmp + w * TILE, 0, 1, 1, m,
                          cb + w * in->cs, 0, 0, 0, 0, dpat);
        }
        ilv_u8(tmp, TILE, K, (int)pre, b->bk, dpat[0], d + r0 * b->bk - pre, m,
               p->simd);
      }
      pre = post = 0;
      break;
    }
    case LI_K_SPLIT2: {
      const li_loop *o = &L[nl - 2];
      split_args a = {o->ss, in->ss, o->ds, p->d.pstride, p->d.v.shift[0],
                      p->d.v.shift[1], p->d.v.mask[0] & 0xff,
                      p->d.v.mask[1] & 0xff};
      split2(src + sb * (int64_t)se, d, &a, o->ext, (int)in->ext, p->simd);
      break;
    }
    case LI_K_COPY:
      copy_any(src + sb * (int64_t)se, in->ss, d, in->ds, in->ext, de);
      break;
    case LI_K_DIMTAB:
      dimtab(p, b, in, src + sb * (int64_t)se, d, cb);
      break;
    case LI_K_BLOCK: {
      const li_loop *o = &L[nl - 2];
      block_any(de, b->bk, src + sb * (int64_t)se, o->ss, in->ss, d, o->ds,
                o->ext, (int)in->ext, (int)pre, (int)(pre + in->ext + post),
                dpat);
      pre = post = 0; /* written with the block */
      break;
    }
    case LI_K_CONV:
      if (nl >= 2) {
        const li_loop *o = &L[nl - 2];
        li_conv_block(&p->s, &p->d, src + sb * (int64_t)se, o->ss, in->ss, d,
                      o->ds, in->ds, o->ext, in->ext, cb, o->cs, in->cs, pre,
                      post, dpat);
      } else {
        li_conv_block(&p->s, &p->d, src + sb * (int64_t)se, 0, in->ss, d, 0,
                      in->ds, 1, in->ext, cb, 0, in->cs, pre, post, dpat);
      }
      pre = post = 0;
      break;
    case LI_K_MEMSET:
      memset(d, pat[0], (size_t)in->ext * de);
      break;
    case LI_K_PADCONV: { /* rare: a window and per-channel values */
      li_side s1 = p->s;
      s1.pstride = 1; /* the stored pad element has its planes adjacent */
      li_conv_block(&s1, &p->d, p->pats[2], 0, 0, d, 0, in->ds, 1, in->ext,
                    cb, 0, in->cs, 0, 0, NULL);
      break;
    }
    case LI_K_FILL:
      if (planes) {
        for (int64_t i = 0; i < in->ext; i++)
          for (int k = 0; k < planes; k++)
            d[i * in->ds + k * p->d.pstride] = pat[k];
      } else {
        fill_n(d, in->ds, in->ext, pat, de);
      }
      break;
    default:
      break;
    }
    if (pre) fill_n(d - pre * (int64_t)de, 1, pre, dpat, de);
    if (post) fill_n(d + in->ext * (int64_t)de, 1, post, dpat, de);
    pre = b->pre;
    post = b->post;
    int j;
    for (j = no - 1; j >= 0; j--) {
      if (L[j].tab) { /* to the next pair, or back to the first */
        const int64_t *t = p->tabs + L[j].tab - 1;
        int64_t i0 = idx[j], i1 = i0 + 1 < L[j].ext ? i0 + 1 : 0;
        sb += t[2 * i1] - t[2 * i0];
        db += t[2 * i1 + 1] - t[2 * i0 + 1];
      }
      sb += L[j].ss;
      db += L[j].ds;
      cb += L[j].cs;
      if (++idx[j] < L[j].ext) break;
      sb -= L[j].ss * L[j].ext;
      db -= L[j].ds * L[j].ext;
      cb -= L[j].cs * L[j].ext;
      idx[j] = 0;
    }
    if (j < 0) return;
  }
#undef ODO_SKIP
}

/* ---- Run ------------------------------------------------------------------- */
typedef struct job {
  const li_plan *p;
  const uint8_t *src;
  uint8_t *dst;
  int t, nt;
} job;

/* Part t of nt of the iterations [0, e): from and to. */
static void part(int64_t e, int t, int nt, int64_t *from, int64_t *to) {
  if (nt == 1) { /* no division: on a plan as small as T4tiny's, the three */
    *from = 0;   /* boxes' divisions were a tenth of the call */
    *to = e;
    return;
  }
  int64_t q = e / nt, rm = e % nt; /* without overflow */
  *from = q * t + (t < rm ? t : rm);
  *to = *from + q + (t < rm ? 1 : 0);
}

static void run_part(const li_plan *p, const uint8_t *src, uint8_t *dst,
                     int t, int nt) {
  int64_t from, to;
  for (int i = 0; i < p->nbox; i++) {
    const li_box *b = &p->box[i];
    int64_t e = p->loops[b->l0].ext;
    if (b->nl == 1 && (b->pre || b->post)) {
      /* a single row with its pads: a split would write pads at the cut */
      if (t == 0) li_exec_box(p, b, src, dst, 0, e);
      continue;
    }
    part(e, t, nt, &from, &to);
    li_exec_box(p, b, src, dst, from, to);
  }
}

static void *run_thread(void *arg) {
  job *j = arg;
  run_part(j->p, j->src, j->dst, j->t, j->nt);
  return NULL;
}

static lay_status rfail(lay_error *err, lay_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static lay_status rfail(lay_error *err, lay_status code, const char *fmt, ...) {
  if (err) {
    va_list ap;
    memset(err, 0, sizeof *err);
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

#define LI_MAX_THREADS 64

lay_status li_plan_run(const li_plan *p, const void *src, size_t src_bytes,
                       void *dst, size_t dst_bytes, int threads,
                       lay_error *err) {
  if (!p) return rfail(err, LAY_E_ARG, "no plan");
  if (src_bytes < p->sbytes)
    return rfail(err, LAY_E_BUFFER, "input is %zu bytes, the plan needs %zu",
                 src_bytes, p->sbytes);
  if (dst_bytes < p->dbytes)
    return rfail(err, LAY_E_BUFFER,
                 "output buffer is %zu bytes, the plan needs %zu", dst_bytes,
                 p->dbytes);
  if ((!src && p->sbytes) || (!dst && p->dbytes))
    return rfail(err, LAY_E_ARG, "missing buffer");
  int nt = threads;
  if (nt > LI_MAX_THREADS) nt = LI_MAX_THREADS;
  if ((int64_t)p->dbytes < ((int64_t)1 << 16)) nt = 1;
  /* an unpack through a gather table that does not hold every element
  ** fills the CPU side first: one thread */
  if (p->s.table && p->d.is_cpu && p->nbox > 1) nt = 1;
  if (nt <= 1) {
    run_part(p, src, dst, 0, 1);
    return LAY_OK;
  }
  pthread_t th[LI_MAX_THREADS];
  job jb[LI_MAX_THREADS];
  int started = 0;
  for (int t = 1; t < nt; t++) {
    jb[t] = (job){p, src, dst, t, nt};
    if (pthread_create(&th[t], NULL, run_thread, &jb[t])) break;
    started = t;
  }
  run_part(p, src, dst, 0, nt);
  for (int t = 1; t <= started; t++) pthread_join(th[t], NULL);
  /* parts whose thread did not start run here */
  for (int t = started + 1; t < nt; t++) run_part(p, src, dst, t, nt);
  return LAY_OK;
}
