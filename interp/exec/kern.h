/*
** kern.h: what the executor's files share (internal): the instruction-set
** macros, the small copy and fill helpers every kernel inlines, and the
** kernels that kern_rows.c and kern_ilv.c give exec.c's steps.
**
** Every SIMD path is chosen at run time from the plan's instruction-set
** level (plan_int.h li_simd_level: the CPU, lowered by LAY_SIMD) and has
** a portable C fallback; the bytes never depend on the path.
*/
#ifndef LI_KERN_H
#define LI_KERN_H

#include <stdint.h>
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

#define TILE 256 /* elements of the value path's stack tiles */

/* SSE2 kernels compiled twice, for the baseline and (VEX-encoded) for
** AVX2, the copy chosen when the program loads (GCC's target_clones). */
#if defined(LI_HAVE_X86_TARGET) && defined(__GNUC__) && !defined(__clang__)
#define LI_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define LI_CLONES
#endif

/* ---- Copy and fill helpers ------------------------------------------------ */
/* n bytes of v: overlapping word stores for short runs. */
__attribute__((always_inline)) static inline void padb(uint8_t *d, int64_t n,
                                                      uint8_t v) {
  if (n <= 0) return;
  if (n > 64) { memset(d, v, (size_t)n); return; }
  uint64_t w = 0x0101010101010101ull * v;
  if (n > 16) { /* overlapping 16-byte stores, not a call */
    const uint64_t w2[2] = {w, w};
    memcpy(d, w2, 16);
    if (n > 32) { memcpy(d + 16, w2, 16); memcpy(d + n - 32, w2, 16); }
    memcpy(d + n - 16, w2, 16);
    return;
  }
  if (n >= 8) { memcpy(d, &w, 8); memcpy(d + n - 8, &w, 8); return; }
  if (n >= 4) { memcpy(d, &w, 4); memcpy(d + n - 4, &w, 4); return; }
  if (n >= 2) { memcpy(d, &w, 2); memcpy(d + n - 2, &w, 2); return; }
  d[0] = v;
}

#define COPY_T(T)                                                  \
  static inline void copy_##T(const uint8_t *s, int64_t ss, uint8_t *d,   \
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

static inline void copy_any(const uint8_t *s, int64_t ss, uint8_t *d, int64_t ds,
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
static inline void fill_n(uint8_t *d, int64_t ds, int64_t n, const uint8_t *pat,
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
  static inline void rows_##B(const uint8_t *s, int64_t sso, uint8_t *d,         \
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
  if (n >= 2) { memcpy(d, s, 2); memcpy(d + n - 2, s + n - 2, 2); return; }
  if (n) d[0] = s[0];
}

static inline void cpy(uint8_t *d, const uint8_t *s, size_t n) {
  if (n > 64) memcpy(d, s, n); /* libc's wide moves win from here */
  else cpys(d, s, n);
}

#if defined(LI_HAVE_X86_TARGET)
/* The pad element of esz bytes (1, 2, 4 or 8) at pat in every lane of its
** width: loaded at that width (a memcpy into a zeroed word was a call and
** a store-forwarding stall on every kernel call). */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline __m512i
li_pad512(const uint8_t *pat, size_t esz) {
  switch (esz) {
  case 1: return _mm512_set1_epi8((char)pat[0]);
  case 2: { int16_t v; memcpy(&v, pat, 2); return _mm512_set1_epi16(v); }
  case 4: { int32_t v; memcpy(&v, pat, 4); return _mm512_set1_epi32(v); }
  default: { int64_t v; memcpy(&v, pat, 8); return _mm512_set1_epi64(v); }
  }
}
#endif

/* ---- Row and block kernels (kern_rows.c) ----------------------------------- */
#if defined(LI_HAVE_X86_TARGET)
/* n3 x n2 x n rows of 32*q bytes (q = 1..4), 32-byte moves. */
__attribute__((target("avx2"))) void
li_rows32_avx2(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
               int64_t dso2, int64_t dso, int64_t n2, int64_t n, int q,
               int64_t n3, int64_t sso3, int64_t dso3);
/* n rows of B >= 32 bytes with pre and post pad bytes around each. */
__attribute__((target("avx2"))) void
li_rowspad_avx2(const uint8_t *s, int64_t sso, uint8_t *d, int64_t dso,
                int64_t n, int64_t B, int64_t pre, int64_t post, uint8_t pad,
                const uint8_t *sbeg, const uint8_t *send);
/* n2 x n rows of B bytes with pre and post pad bytes, pre + B + post <=
** LI_ROWSPAD_MAX, the pad element pat of esz bytes. */
#define LI_ROWSPAD_MAX 256
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
li_rowspad_avx512(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
                  int64_t dso2, int64_t dso, int64_t n2, int64_t n, int B,
                  int pre, int post, const uint8_t *pat, size_t esz);
/* The pads alone (pre bytes, B left, post bytes; <= 64) of n rows. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
li_pads_avx512(uint8_t *d, int64_t dso, int64_t n, int pre, int B, int post,
               const uint8_t *pat, size_t esz);
/* n2 x n rows of B < 32 * q bytes (q = 1..4) into rows back to back
** (dso == B). */
__attribute__((target("avx2"))) void
li_rows_dense_avx2(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
                   int64_t dso2, int64_t n2, int64_t n, int B, int q,
                   const uint8_t *send);
/* n2 x n rows of B < 16 bytes, a masked move a row. */
__attribute__((target("avx512f,avx512bw,avx512vl"))) void
li_rows_short_avx512(const uint8_t *s, int64_t sso2, int64_t sso, uint8_t *d,
                     int64_t dso2, int64_t dso, int64_t n2, int64_t n, int B);
/* n2 x n rows of B < 32 bytes and post pad bytes, B + post == 32. */
__attribute__((target("avx2"))) void
li_rowsblend_avx2(const uint8_t *s0, int64_t sso2, int64_t sso, uint8_t *d0,
                  int64_t dso2, int64_t dso, int64_t n2, int64_t n, int B,
                  int post, uint8_t pad, const uint8_t *send);
#endif
/* n rows of K elements of esz bytes into rows of W with pads (bk: K
** unrolled, or 0). Rows contiguous in the source (sso 1) go through
** tr_shuf.c's narrow destination where simd allows; its loads stay in
** [lo, hi). */
void li_block_any(size_t esz, int bk, const uint8_t *s, int64_t sso,
                  int64_t ssi, uint8_t *d, int64_t dso, int64_t n, int K,
                  int pre, int W, const uint8_t *pat, int simd,
                  const uint8_t *lo, const uint8_t *hi);

/* ---- Slabs of staged boxes (stage.c) --------------------------------------- */
#define LI_STAGE_MARGIN 64 /* bytes a slab holds past its span, for the
                              kernels' reads and the fill's pad stores */
#define LI_STAGE_LOG 64    /* row groups whose pads a slab remembers */
/* The pads the last fill wrote into a slab, group by group: a fill that
** meets the same group again writes only its data. */
typedef struct li_stage_grp {
  int64_t off, m, len, c0, c1;
} li_stage_grp;
typedef struct li_stage_log {
  const uint8_t *base; /* the slab */
  int n;               /* groups kept (0: none, a new slab) */
  li_stage_grp grp[LI_STAGE_LOG];
} li_stage_log;
/* Elements [a, a + n) of staged box g's array P into slab: from X (x,
** elements of esz bytes) inside the tensor, the pattern pat elsewhere;
** log the pads already in the slab. Writes up to 32 bytes past the n
** elements. */
void li_stage_fill(const li_stage *g, const uint8_t *x, size_t esz,
                   const uint8_t *pat, uint8_t *slab, int64_t a, int64_t n,
                   li_stage_log *log);
/* The elements of [a, a + n) inside the tensor from slab to X. */
void li_stage_drain(const li_stage *g, const uint8_t *slab, size_t esz,
                    uint8_t *x, int64_t a, int64_t n);

/* ---- Interleaves and deinterleaves (kern_ilv.c) ---------------------------- */
/* n rows of W one-byte elements from K planes (pads around them). */
void li_ilv_u8(const uint8_t *s, int64_t ssi, int K, int pre, int W,
               uint8_t pad, uint8_t *d, int64_t n, int simd);
/* W == 8 through row offsets: row r to d + off[r]. */
void li_ilv8_off(const uint8_t *s, int64_t ssi, int K, int pre, uint8_t pad,
                 uint8_t *d, const int64_t *off, int64_t n, int simd);
/* The inverse of li_ilv8_off. */
void li_deilv8_off(const uint8_t *s, const int64_t *off, int p0, int K,
                   uint8_t *d, int64_t dps, int64_t n, int simd);
/* The inverse of li_ilv_u8, from a tile of rows of W bytes. */
void li_deilv_u8(const uint8_t *t, int W, int p0, int K, uint8_t *d,
                 int64_t dps, int64_t n, int simd);
#if defined(__SSE2__)
/* cnt tiles of n2 runs of W <= 8 blocks of 8 bytes from 8 planes. The
** two are LI_CLONES where they are defined; a declaration carrying the
** attribute would make a second resolver in every file that includes it. */
void li_ilv8x8(const uint8_t *s, int64_t ssi, int K, int pre, uint8_t pad,
               uint8_t *d, int64_t dso2, int64_t n2, int W,
               const uint8_t *send, int64_t cnt, int64_t sstep, int64_t dstep);
/* The inverse of li_ilv8x8. */
void li_deilv8x8(const uint8_t *s, int64_t sso, int64_t n2, int n, int p0,
                 int K, uint8_t *d, int64_t dps, int64_t cnt, int64_t sstep,
                 int64_t dstep, const uint8_t *send, int simd);
#endif
#if defined(LI_HAVE_X86_TARGET)
/* Whole tiles of 32 <= n2 * n <= 64 pixels, 6 <= n <= 8; 0: not taken. */
__attribute__((target("avx2"))) int
li_tiles8x8(int inv, const uint8_t *s, int64_t ss, int64_t n2, int n,
            uint8_t *d, int64_t ds, int64_t cnt, int64_t sstep, int64_t dstep);
#endif
/* Interleave and deinterleave of elements (kern_ilve.c), cnt steps of n
** rows. li_ilv: row r's block of W elements at d + r * rs, element w
** from plane w - pre at s + (w - pre) * ps + r * esz for pre <= w < pre +
** K, the pad element pat elsewhere. li_deilv: the inverse, planes 0..K-1
** at d + k * ps from elements pre + k of the blocks at s (rows rs
** apart; every block is read whole). Step (c2, c) at s + c2 * sstep2 +
** c * sstep, d + c2 * dstep2 + c * dstep, for c2 < cnt2 and c < cnt; ps
** and the steps in bytes. */
typedef struct li_ilv_args {
  size_t esz;
  int W, K, pre;
  int64_t n, ps, cnt, sstep, dstep;
  const uint8_t *pat;
  int64_t cnt2, sstep2, dstep2;
  int64_t rs; /* bytes from a row's block to the next (0: W * esz; more
              ** only for blocks of 16 bytes) */
  int64_t np; /* li_ilv: blocks of pad elements after each step's n rows
              ** (rows back to back: rs 0 or W * esz) */
} li_ilv_args;
/* Whether the SIMD kernels take blocks of W elements of esz bytes
** (1, 2, 4 or 8 bytes; W a power of two, W * esz <= 16). */
int li_ilv_ok(size_t esz, int W);
void li_ilv(const li_ilv_args *a, const uint8_t *s, uint8_t *d, int simd);
void li_deilv(const li_ilv_args *a, const uint8_t *s, uint8_t *d, int simd);
/* n rows of K back-to-back bytes into rows of W with pads. */
void li_expand_u8(const uint8_t *s, int K, int pre, int W, uint8_t pad,
                  uint8_t *d, int64_t n, int simd);
/* The split of 2-byte elements into 2 byte planes (kern_ilv.c). */
typedef struct li_split_args {
  int64_t sso, ssi, dso, ps;
  int h0, h1;
  uint32_t m0, m1;
} li_split_args;
void li_split2(const uint8_t *s, uint8_t *d, const li_split_args *a,
               int64_t n, int K, int simd);
/* li_split2 under a third loop (n2, ss2, ds2) outside its rows (planes.c). */
void li_split2_3(const uint8_t *s, uint8_t *d, const li_split_args *a,
                 int64_t n2, int64_t ss2, int64_t ds2, int64_t n1, int K,
                 int simd);
/* The same with D's value rule applied first (planes.c), over rows of one
** channel each (cso and o3[3], the outer loops' channel strides, 0): o3
** is the third loop's extent, source and destination strides; 0 when not
** taken. */
int li_split2_conv(const li_side *S, const li_side *D, const uint8_t *s,
                   uint8_t *d, const li_split_args *a, const int64_t *o3,
                   int64_t n1, int64_t cso, int K, int64_t cb, int64_t csi,
                   int simd);
/* fp32 quantized and interleaved W (4 or 8) wide in one pass: plane pre +
** k by pv[k] (per-channel rules, one channel a plane) or by D's rule (pv
** NULL), rules li_quant_k takes; 0: not taken. */
int li_qilv8(const li_side *S, const li_side *D, const li_vrule *pv,
             const uint8_t *s, int64_t ssi, int K, int pre, int W,
             uint8_t pad, uint8_t *d, int64_t n, int simd);

#endif /* LI_KERN_H */
