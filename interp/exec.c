/*
** exec.c: the executor. Runs a plan's boxes: an odometer over the outer
** loops of each box and a kernel for the innermost one to three loops:
** memcpy and row copies for contiguous runs, SSE2 interleaves of 1-byte
** planes into 2/4/8-wide blocks (directly, or through a stack tile when
** the rows span two loops) and the inverse deinterleave, an SSSE3 shuffle
** for back-to-back rows (RGB -> RGBX), unrolled n x k block copies,
** strided copies, the value-conversion path through stack tiles (byte
** planes, casts, quantization), fills for pads and holes, and the full
** gather table for IRs that have one. Row pads (the fused padding of the
** innermost hardware axis) are written by the kernels with their rows.
** Threads split every box's outermost loop; boxes are disjoint, so the
** bytes do not depend on the split.
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
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <tmmintrin.h>
#define LI_HAVE_SSSE3_TARGET 1
#endif

#define TILE 256

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
static inline void padb(uint8_t *d, int64_t n, uint8_t v) {
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

/* A copy of n <= 256 bytes, inlined (overlapping word moves). */
static inline void cpys(uint8_t *d, const uint8_t *s, size_t n) {
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

/* Interleave: n rows of W one-byte elements, d[r*W + w] = s[(w-pre)*ssi + r]
** for pre <= w < pre+K, the pad byte elsewhere (planes into blocks, as
** NCHW -> HCWNC4). SSE2 does 16 rows at a time. */
static void ilv_u8(const uint8_t *s, int64_t ssi, int K, int pre, int W,
                   uint8_t pad, uint8_t *d, int64_t n) {
  int64_t r = 0;
#if defined(__SSE2__)
  const __m128i padv = _mm_set1_epi8((char)pad);
  const uint8_t *pl[8];
  for (int w = 0; w < 8; w++)
    pl[w] = w >= pre && w < pre + K && w < W ? s + (w - pre) * ssi : NULL;
#define LD(w) (pl[w] ? _mm_loadu_si128((const __m128i *)(const void *)(pl[w] + r)) : padv)
#define ST(k, v) _mm_storeu_si128((__m128i *)(void *)(d + r * W) + (k), v)
  if (W == 2) {
    for (; r + 16 <= n; r += 16) {
      __m128i a = LD(0), b = LD(1);
      ST(0, _mm_unpacklo_epi8(a, b));
      ST(1, _mm_unpackhi_epi8(a, b));
    }
  } else if (W == 4) {
    for (; r + 16 <= n; r += 16) {
      __m128i a = LD(0), b = LD(1), c = LD(2), e = LD(3);
      __m128i t0 = _mm_unpacklo_epi8(a, b), t1 = _mm_unpackhi_epi8(a, b);
      __m128i t2 = _mm_unpacklo_epi8(c, e), t3 = _mm_unpackhi_epi8(c, e);
      ST(0, _mm_unpacklo_epi16(t0, t2));
      ST(1, _mm_unpackhi_epi16(t0, t2));
      ST(2, _mm_unpacklo_epi16(t1, t3));
      ST(3, _mm_unpackhi_epi16(t1, t3));
    }
  } else if (W == 8) {
    for (; r + 16 <= n; r += 16) {
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
  }
#undef LD
#undef ST
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
** 16 rows is four rounds of byte unpacks (each rotates the index bits). */
static void deilv_u8(const uint8_t *t, int W, int p0, int K, uint8_t *d,
                     int64_t dps, int64_t n) {
  int64_t r = 0;
#if defined(__SSE2__)
  for (; r + 16 <= n; r += 16) {
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
                      uint8_t *d, int64_t n) {
  int64_t r = 0;
#if defined(LI_HAVE_SSSE3_TARGET)
  if (__builtin_cpu_supports("ssse3") && W <= 16 && K * (16 / W) <= 16) r = expand_ssse3(s, K, pre, W, pad, d, n);
#endif
  for (; r < n; r++) {
    uint8_t *dr = d + r * W;
    for (int w = 0; w < W; w++)
      dr[w] = w >= pre && w < pre + K ? s[r * K + w - pre] : pad;
  }
}

/* ---- Boxes ------------------------------------------------------------------ */
static void table_run(const li_plan *p, const uint8_t *src, uint8_t *dst,
                      int64_t from, int64_t to) {
  const li_side *S = &p->s, *D = &p->d;
  if (S->table) { /* unpack: hw element e -> CPU element table[e] */
    for (int64_t e = from; e < to; e++) {
      int64_t c = S->table[e];
      if (c < 0) continue;
      if (p->slow)
        li_conv_block(S, D, src + e * (int64_t)S->esz, 0, 1,
                      dst + c * (int64_t)D->esz, 0, 1, 1, 1, 0, 0, 0, 0, 0,
                      NULL);
      else
        memcpy(dst + c * (int64_t)D->esz, src + e * (int64_t)S->esz, D->esz);
    }
    return;
  }
  for (int64_t e = from; e < to; e++) { /* pack */
    int64_t c = D->table[e];
    uint8_t *d = dst + e * (int64_t)D->esz;
    if (c < 0)
      memcpy(d, p->pats[0], D->esz);
    else if (p->slow)
      li_conv_block(S, D, src + c * (int64_t)S->esz, 0, 1, d, 0, 1, 1, 1, 0,
                    0, 0, 0, 0, NULL);
    else
      memcpy(d, src + c * (int64_t)S->esz, D->esz);
  }
}

void li_exec_box(const li_plan *p, const li_box *b, const uint8_t *src,
                 uint8_t *dst, int64_t from, int64_t to) {
  li_loop L[LG_MAX_RANK * (2 * LG_MAX_AXES + 1)];
  int nl = b->nl;
  if (from >= to) return;
  memcpy(L, p->loops + b->l0, sizeof *L * (size_t)nl);
  if (b->kern == LI_K_TABLE) {
    table_run(p, src, dst, from, to);
    return;
  }
  int64_t sb = b->sb + from * L[0].ss, db = b->db + from * L[0].ds,
          cb = b->cb + from * L[0].cs;
  L[0].ext = to - from;
  int kl = (b->kern == LI_K_ROWS && nl >= 3) || b->kern == LI_K_ILV2 ||
                   b->kern == LI_K_DEILV2 ? 3 :
           b->kern == LI_K_BLOCK || b->kern == LI_K_ROWS || b->kern == LI_K_ILV ||
                   b->kern == LI_K_EXPAND ||
                   b->kern == LI_K_CONV_ILV ||
                   (b->kern == LI_K_CONV && nl >= 2) ? 2 : 1;
  int no = nl - kl;
  int64_t idx[LG_MAX_RANK * (2 * LG_MAX_AXES + 1)];
  memset(idx, 0, sizeof *idx * (size_t)nl);
  size_t se = p->s.esz, de = p->d.esz;
  const li_loop *in = &L[nl - 1];
  const uint8_t *pat = p->pats[b->pat];
  int planes = p->d.v.nplanes && !b->raw ? p->d.v.nplanes : 0;
  int64_t pre = b->pre, post = b->post;
  const uint8_t *dpat = p->pats[0];
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
      for (int64_t a = 0; a < n2; a++) {
        const uint8_t *s = src + (sb + (o2 ? a * o2->ss : 0)) * (int64_t)se;
        uint8_t *dd = d + (o2 ? a * o2->ds : 0) * (int64_t)de;
        if (pre || post) {
          int64_t pb = pre * (int64_t)de, qb = post * (int64_t)de;
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
             d - pre, o->ext);
      pre = post = 0;
      break;
    }
    case LI_K_ILV2: {
      const li_loop *o = &L[nl - 2], *o2 = &L[nl - 3];
      uint8_t tile[4096];
      int64_t rows = o2->ext * o->ext, rb = o->ext * b->bk;
      ilv_u8(src + sb, in->ss, (int)in->ext, (int)pre, b->bk, dpat[0], tile,
             rows);
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
      for (int64_t a = 0; a < o->ext; a++)
        cpy(tile + a * rb, s0 + a * o->ss, (size_t)rb);
      deilv_u8(tile, W, (int)p0, (int)pl->ext, d, pl->ds, o->ext * in->ext);
      break;
    }
    case LI_K_EXPAND: {
      const li_loop *o = &L[nl - 2];
      expand_u8(src + sb, (int)in->ext, (int)pre, b->bk, dpat[0], d - pre,
                o->ext);
      pre = post = 0;
      break;
    }
    case LI_K_CONV_ILV: {
      const li_loop *o = &L[nl - 2];
      uint8_t tmp[8 * TILE];
      int K = (int)in->ext;
      int direct = p->s.v.kind == LI_VR_ID && p->s.v.axis < 0 &&
                   p->d.v.axis < 0;
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
        ilv_u8(tmp, TILE, K, (int)pre, b->bk, dpat[0], d + r0 * b->bk - pre, m);
      }
      pre = post = 0;
      break;
    }
    case LI_K_COPY:
      copy_any(src + sb * (int64_t)se, in->ss, d, in->ds, in->ext, de);
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
}

/* ---- Run ------------------------------------------------------------------- */
typedef struct job {
  const li_plan *p;
  const uint8_t *src;
  uint8_t *dst;
  int t, nt;
} job;

static void run_part(const li_plan *p, const uint8_t *src, uint8_t *dst,
                     int t, int nt) {
  for (int i = 0; i < p->nbox; i++) {
    const li_box *b = &p->box[i];
    int64_t e = p->loops[b->l0].ext;
    int64_t q = e / nt, rm = e % nt; /* part t of e, without overflow */
    int64_t from = q * t + (t < rm ? t : rm);
    int64_t to = from + q + (t < rm ? 1 : 0);
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
  if (p->sub[0]) { /* two stages through a CPU-side buffer */
    size_t tb = p->sub[0]->dbytes;
    void *tmp = malloc(tb ? tb : 1);
    if (!tmp) return rfail(err, LAY_E_NOMEM, "out of memory");
    lay_status st = li_plan_run(p->sub[0], src, src_bytes, tmp, tb, threads, err);
    if (!st) st = li_plan_run(p->sub[1], tmp, tb, dst, dst_bytes, threads, err);
    free(tmp);
    return st;
  }
  int nt = threads;
  if (nt > LI_MAX_THREADS) nt = LI_MAX_THREADS;
  if ((int64_t)p->dbytes < ((int64_t)1 << 16)) nt = 1;
  for (int i = 0; i < p->nbox && nt > 1; i++)
    if (p->box[i].kern == LI_K_TABLE) nt = 1;
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
