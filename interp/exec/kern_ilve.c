/*
** kern_ilve.c: interleave and deinterleave of elements of 1, 2, 4 or 8
** bytes (kernels ILV and DEILV): K planes into blocks of W elements
** (W * esz = 2, 4, 8 or 16 bytes, pads around the K), and blocks back into
** planes, over cnt steps of the loop outside the rows in one call.
**
** The network: a round of unpacks at the element's width, u[2j] =
** lo(v[j], v[j + W/2]), u[2j+1] = hi(...), rotates the index bits of
** (register, element) left by one. W planes of 16 bytes (register = plane
** w, element = row) become rows in order after log2(W) rounds (register =
** the rows' high bits, element = their low bits then w); W registers of
** rows (register, element) = (row, w) become planes after log2(16/esz)
** rounds. AVX2 runs the same rounds on both 128-bit lanes (the rows of
** the second half in the high lane) and puts the lanes in order with
** permute2x128 at the stores (interleave) or loads (deinterleave). A row
** count not a multiple of the vector's rows redoes the last step as the
** step ending at the last row (its repeated rows get the same bytes);
** rows fewer than one SSE step go element by element. Blocks apart (a
** batch between a pixel's blocks) are stored or loaded one by one from
** the registers (SSE2 steps). Under AVX-512, blocks of up to 8 bytes
** back to back take masked steps of 128 bytes where those are fewer
** (short rows: li_ilv_masked); blocks of 16 or 32 bytes over rows under
** 16 bytes take masked steps of AVX-512 VBMI byte permutes
** (li_ilv_vbmi). Interleaving can also write np blocks of the pad after
** each step's rows (a fill box the planner gave it).
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kern.h"

static int lg2(int64_t x) {
  int l = 0;
  while (x > 1) { x >>= 1; l++; }
  return l;
}

/* ---- The portable definition --------------------------------------------- */
/* The np blocks of the pad after every step's rows (blocks back to back),
** written after the steps: a call in the SSE and AVX2 drivers' loops,
** even one never taken, cost amd.hcwnc4 pack int8 [1,64,56,56] 7.5 ->
** 8.4 us (registers spilled around it). */
static void pad_blocks(const li_ilv_args *a, uint8_t *d) {
  const int64_t m = a->np * a->W, e = (int64_t)a->esz;
  for (int64_t c2 = 0; c2 < a->cnt2; c2++)
    for (int64_t c = 0; c < a->cnt; c++) {
      uint8_t *p = d + c2 * a->dstep2 + c * a->dstep + a->n * a->W * e;
      if (e == 1) padb(p, m, a->pat[0]); /* no call for short runs */
      else
        for (int64_t i = 0; i < m; i++) memcpy(p + i * e, a->pat, (size_t)e);
    }
}

static void ilv_c(const li_ilv_args *a, const uint8_t *s, uint8_t *d) {
  const size_t e = a->esz;
  const int64_t rb = a->rs ? a->rs : a->W * (int64_t)e;
  for (int64_t c = 0; c < a->cnt; c++, s += a->sstep, d += a->dstep) {
    for (int64_t r = 0; r < a->n; r++)
      for (int w = 0; w < a->W; w++) {
        int k = w - a->pre;
        memcpy(d + r * rb + w * (int64_t)e,
               k >= 0 && k < a->K ? s + k * a->ps + r * (int64_t)e : a->pat,
               e);
      }
  }
}

static void deilv_c(const li_ilv_args *a, const uint8_t *s, uint8_t *d) {
  const size_t e = a->esz;
  const int64_t rb = a->rs ? a->rs : a->W * (int64_t)e;
  for (int64_t c = 0; c < a->cnt; c++, s += a->sstep, d += a->dstep)
    for (int64_t r = 0; r < a->n; r++)
      for (int k = 0; k < a->K; k++)
        memcpy(d + k * a->ps + r * (int64_t)e,
               s + r * rb + (a->pre + k) * (int64_t)e, e);
}

#if defined(__SSE2__)
/* ---- SSE2 ------------------------------------------------------------------ */
#define LO128(le, x, y)                                                   \
  ((le) == 0 ? _mm_unpacklo_epi8(x, y) : (le) == 1 ? _mm_unpacklo_epi16(x, y) \
   : (le) == 2 ? _mm_unpacklo_epi32(x, y) : _mm_unpacklo_epi64(x, y))
#define HI128(le, x, y)                                                   \
  ((le) == 0 ? _mm_unpackhi_epi8(x, y) : (le) == 1 ? _mm_unpackhi_epi16(x, y) \
   : (le) == 2 ? _mm_unpackhi_epi32(x, y) : _mm_unpackhi_epi64(x, y))

/* nr rounds of the unpack at width 2^le over W registers. */
__attribute__((always_inline)) static inline void
rounds128(const int le, const int W, const int nr, __m128i *v) {
  __m128i u[16];
  for (int rd = 0; rd < nr; rd++) {
    for (int j = 0; j < W / 2; j++) {
      u[2 * j] = LO128(le, v[j], v[j + W / 2]);
      u[2 * j + 1] = HI128(le, v[j], v[j + W / 2]);
    }
    for (int j = 0; j < W; j++) v[j] = u[j];
  }
}

/* 16 / B blocks of B = 2^lb bytes (lb < 4) rb apart into one register,
** and back. */
__attribute__((always_inline)) static inline __m128i
ld_rows(const uint8_t *s, int64_t rb, const int lb) {
  if (lb == 3) /* 8-byte moves through unaligned types (no double *) */
    return _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)(const void *)s),
                              _mm_loadl_epi64((const __m128i *)(const void *)(s + rb)));
  if (lb == 2) {
    uint32_t x[4];
    for (int i = 0; i < 4; i++) memcpy(&x[i], s + i * rb, 4);
    return _mm_set_epi32((int)x[3], (int)x[2], (int)x[1], (int)x[0]);
  }
  __m128i v = _mm_setzero_si128();
  uint16_t x;
#define INS(i) (memcpy(&x, s + (i) * rb, 2), v = _mm_insert_epi16(v, (int16_t)x, i))
  INS(0); INS(1); INS(2); INS(3); INS(4); INS(5); INS(6); INS(7);
#undef INS
  return v;
}

__attribute__((always_inline)) static inline void
st_rows(uint8_t *d, int64_t rb, __m128i v, const int lb) {
  if (lb == 3) {
    _mm_storel_epi64((__m128i *)(void *)d, v);
    _mm_storel_epi64((__m128i *)(void *)(d + rb), _mm_unpackhi_epi64(v, v));
    return;
  }
  if (lb == 2) {
    for (int i = 0; i < 4; i++, v = _mm_srli_si128(v, 4)) {
      uint32_t x = (uint32_t)_mm_cvtsi128_si32(v);
      memcpy(d + i * rb, &x, 4);
    }
    return;
  }
#define EXT(i) { uint16_t x = (uint16_t)_mm_extract_epi16(v, i); memcpy(d + (i) * rb, &x, 2); }
  EXT(0) EXT(1) EXT(2) EXT(3) EXT(4) EXT(5) EXT(6) EXT(7)
#undef EXT
}

/* One step of 16 >> le rows: planes pl[w] (NULL: the pad) at byte off,
** the rows' blocks to d. */
__attribute__((always_inline)) static inline void
ilv_sse(const int le, const int k, const uint8_t *const *pl, __m128i padv,
        int64_t off, uint8_t *d, int64_t rb) {
  const int W = 1 << k;
  __m128i v[16];
  for (int j = 0; j < W; j++)
    v[j] = pl[j] ? _mm_loadu_si128((const __m128i *)(const void *)(pl[j] + off))
                 : padv;
  rounds128(le, W, k, v);
  if (le + k < 4 && rb != (W << le)) { /* blocks apart: 16 / B a register */
    for (int j = 0; j < W; j++) st_rows(d + j * (16 >> (le + k)) * rb, rb, v[j], le + k);
    return;
  }
  for (int j = 0; j < W; j++) /* one row a register for 16-byte blocks */
    _mm_storeu_si128((__m128i *)(void *)(d + (le + k == 4 ? rb : 16) * j), v[j]);
}

/* One step of 16 >> le rows of blocks at s into planes p0 .. p0+K-1. */
__attribute__((always_inline)) static inline void
deilv_sse(const int le, const int k, const uint8_t *s, int p0, int K,
          uint8_t *d, int64_t ps, int64_t rb) {
  const int W = 1 << k;
  __m128i v[16];
  if (le + k < 4 && rb != (W << le)) { /* blocks apart: 16 / B a register */
    for (int j = 0; j < W; j++) v[j] = ld_rows(s + j * (16 >> (le + k)) * rb, rb, le + k);
  } else {
    for (int j = 0; j < W; j++)
      v[j] = _mm_loadu_si128((const __m128i *)(const void *)(s + (le + k == 4 ? rb : 16) * j));
  }
  rounds128(le, W, 4 - le, v);
  for (int q = 0; q < K; q++)
    _mm_storeu_si128((__m128i *)(void *)(d + q * ps), v[p0 + q]);
}
#endif

#if defined(LI_HAVE_X86_TARGET)
/* ---- AVX2 ------------------------------------------------------------------ */
#define LO256(le, x, y)                                                   \
  ((le) == 0 ? _mm256_unpacklo_epi8(x, y) : (le) == 1 ? _mm256_unpacklo_epi16(x, y) \
   : (le) == 2 ? _mm256_unpacklo_epi32(x, y) : _mm256_unpacklo_epi64(x, y))
#define HI256(le, x, y)                                                   \
  ((le) == 0 ? _mm256_unpackhi_epi8(x, y) : (le) == 1 ? _mm256_unpackhi_epi16(x, y) \
   : (le) == 2 ? _mm256_unpackhi_epi32(x, y) : _mm256_unpackhi_epi64(x, y))

__attribute__((target("avx2"), always_inline)) static inline void
rounds256(const int le, const int W, const int nr, __m256i *v) {
  __m256i u[16];
  for (int rd = 0; rd < nr; rd++) {
    for (int j = 0; j < W / 2; j++) {
      u[2 * j] = LO256(le, v[j], v[j + W / 2]);
      u[2 * j + 1] = HI256(le, v[j], v[j + W / 2]);
    }
    for (int j = 0; j < W; j++) v[j] = u[j];
  }
}

/* 32 >> le rows: the first half's blocks are the low lanes of v[0..W),
** the second half's the high lanes. */
__attribute__((target("avx2"), always_inline)) static inline void
ilv_avx2(const int le, const int k, const uint8_t *const *pl, __m256i padv,
         int64_t off, uint8_t *d, int64_t rb) {
  const int W = 1 << k;
  __m256i v[16];
  for (int j = 0; j < W; j++)
    v[j] = pl[j] ? _mm256_loadu_si256((const __m256i *)(const void *)(pl[j] + off))
                 : padv;
  rounds256(le, W, k, v);
  if (le + k == 4) { /* one row a lane: rows j and W + j */
    for (int j = 0; j < W; j++) {
      _mm_storeu_si128((__m128i *)(void *)(d + j * rb), _mm256_castsi256_si128(v[j]));
      _mm_storeu_si128((__m128i *)(void *)(d + (W + j) * rb),
                       _mm256_extracti128_si256(v[j], 1));
    }
    return;
  }
  for (int i = 0; i < W / 2; i++) {
    _mm256_storeu_si256((__m256i *)(void *)(d + 32 * i),
                        _mm256_permute2x128_si256(v[2 * i], v[2 * i + 1], 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(d + 16 * W + 32 * i),
                        _mm256_permute2x128_si256(v[2 * i], v[2 * i + 1], 0x31));
  }
}

/* 32 >> le rows of blocks: register R takes 16-byte chunk R (low lane)
** and chunk W + R (high lane). */
__attribute__((target("avx2"), always_inline)) static inline void
deilv_avx2(const int le, const int k, const uint8_t *s, int p0, int K,
           uint8_t *d, int64_t ps, int64_t rb) {
  const int W = 1 << k;
  __m256i y[16], v[16];
  if (le + k == 4) { /* one row a lane: rows R and W + R */
    for (int R = 0; R < W; R++)
      v[R] = _mm256_inserti128_si256(
          _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(const void *)(s + R * rb))),
          _mm_loadu_si128((const __m128i *)(const void *)(s + (W + R) * rb)), 1);
    rounds256(le, W, 4 - le, v);
    for (int q = 0; q < K; q++)
      _mm256_storeu_si256((__m256i *)(void *)(d + q * ps), v[p0 + q]);
    return;
  }
  for (int j = 0; j < W; j++)
    y[j] = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32 * j));
  for (int R = 0; R < W; R++)
    v[R] = R & 1 ? _mm256_permute2x128_si256(y[R / 2], y[W / 2 + R / 2], 0x31)
                 : _mm256_permute2x128_si256(y[R / 2], y[W / 2 + R / 2], 0x20);
  if (le + k < 4) {
    /* each lane's rows of W elements to W groups of 16 / W bytes, one a
    ** plane (a byte shuffle); then k rounds of unpacks at the groups'
    ** width rotate (register, group) = (rows, plane) to (plane, rows) */
    uint8_t mk[32];
    const int e = 1 << le, g = 16 / W;
    for (int o = 0; o < 16; o++) {
      int w = o / g, row = o % g / e, b = o % e;
      mk[o] = mk[16 + o] = (uint8_t)(row * W * e + w * e + b);
    }
    const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)mk);
    for (int R = 0; R < W; R++) v[R] = _mm256_shuffle_epi8(v[R], m);
    rounds256(4 - k, W, k, v);
  } else {
    rounds256(le, W, 4 - le, v);
  }
  for (int q = 0; q < K; q++)
    _mm256_storeu_si256((__m256i *)(void *)(d + q * ps), v[p0 + q]);
}
#endif

#if defined(__SSE2__)
/* ---- Drivers: cnt steps of n rows --------------------------------------- */
static inline __m128i pad128(size_t e, const uint8_t *pat) {
  uint64_t x = 0;
  switch (e) {
  case 1: x = 0x0101010101010101ull * pat[0]; break;
  case 2: { uint16_t h; memcpy(&h, pat, 2); x = 0x0001000100010001ull * h; break; }
  case 4: { uint32_t h; memcpy(&h, pat, 4); x = 0x0000000100000001ull * h; break; }
  default: memcpy(&x, pat, 8);
  }
  return _mm_set1_epi64x((long long)x);
}

/* The interleave's plane of each element w < W of a block, NULL for
** pads. W is the caller's constant, not a->W: the loops over pl then
** unroll and pl stays in registers (with a->W, amd.hcwnc4 pack int8
** [1,64,56,56] ran 7.5 -> 8.9 us). */
__attribute__((always_inline)) static inline void
planes_at(const li_ilv_args *a, const uint8_t *s, const int W,
          const uint8_t **pl) {
  for (int w = 0; w < W; w++)
    pl[w] = w >= a->pre && w < a->pre + a->K ? s + (w - a->pre) * a->ps : NULL;
}

__attribute__((always_inline)) static inline void
ilv_run_sse(const int le, const int k, const li_ilv_args *a, const uint8_t *s,
            uint8_t *d) {
  const int W = 1 << k;
  const int64_t m = 16 >> le, n = a->n, rb = a->rs ? a->rs : (int64_t)W << le;
  const __m128i padv = pad128(a->esz, a->pat);
  const uint8_t *pl[16];
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    planes_at(a, s + c2 * a->sstep2, W, pl);
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, dc += a->dstep) {
      int64_t r = 0;
      for (; r + m <= n; r += m) ilv_sse(le, k, pl, padv, r << le, dc + r * rb, rb);
      if (r < n) ilv_sse(le, k, pl, padv, (n - m) << le, dc + (n - m) * rb, rb);
      for (int w = 0; w < W; w++)
        if (pl[w]) pl[w] += a->sstep;
    }
  }
}

__attribute__((always_inline)) static inline void
deilv_run_sse(const int le, const int k, const li_ilv_args *a,
              const uint8_t *s, uint8_t *d) {
  const int W = 1 << k;
  const int64_t m = 16 >> le, n = a->n, rb = a->rs ? a->rs : (int64_t)W << le;
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    const uint8_t *sc = s + c2 * a->sstep2;
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, sc += a->sstep, dc += a->dstep) {
      int64_t r = 0;
      for (; r + m <= n; r += m)
        deilv_sse(le, k, sc + r * rb, a->pre, a->K, dc + (r << le), a->ps, rb);
      if (r < n)
        deilv_sse(le, k, sc + (n - m) * rb, a->pre, a->K,
                  dc + ((n - m) << le), a->ps, rb);
    }
  }
}
#endif

#if defined(LI_HAVE_X86_TARGET)
/* AVX2 steps of 32 >> le rows, the last redone ending at row n; rows
** fewer than that (n >= 16 >> le) take SSE steps (VEX-encoded). */
__attribute__((target("avx2"), always_inline)) static inline void
ilv_run_avx2(const int le, const int k, const li_ilv_args *a,
             const uint8_t *s, uint8_t *d) {
  const int W = 1 << k;
  const int64_t m = 32 >> le, n = a->n, rb = a->rs ? a->rs : (int64_t)W << le;
  const __m128i p1 = pad128(a->esz, a->pat);
  const __m256i padv = _mm256_broadcastsi128_si256(p1);
  if (le + k < 4 && rb != (W << le)) { /* blocks apart: SSE steps */
    ilv_run_sse(le, k, a, s, d);
    return;
  }
  const uint8_t *pl[16];
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    planes_at(a, s + c2 * a->sstep2, W, pl);
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, dc += a->dstep) {
      if (n >= m) {
        int64_t r = 0;
        for (; r + m <= n; r += m)
          ilv_avx2(le, k, pl, padv, r << le, dc + r * rb, rb);
        if (r < n) ilv_avx2(le, k, pl, padv, (n - m) << le, dc + (n - m) * rb, rb);
      } else {
        const int64_t h = m / 2;
        ilv_sse(le, k, pl, p1, 0, dc, rb);
        if (n > h) ilv_sse(le, k, pl, p1, (n - h) << le, dc + (n - h) * rb, rb);
      }
      for (int w = 0; w < W; w++)
        if (pl[w]) pl[w] += a->sstep;
    }
  }
}

__attribute__((target("avx2"), always_inline)) static inline void
deilv_run_avx2(const int le, const int k, const li_ilv_args *a,
               const uint8_t *s, uint8_t *d) {
  const int W = 1 << k;
  const int64_t m = 32 >> le, n = a->n, rb = a->rs ? a->rs : (int64_t)W << le;
  if (le + k < 4 && rb != (W << le)) { /* blocks apart: SSE steps */
    deilv_run_sse(le, k, a, s, d);
    return;
  }
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    const uint8_t *sc = s + c2 * a->sstep2;
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, sc += a->sstep, dc += a->dstep) {
      if (n >= m) {
        int64_t r = 0;
        for (; r + m <= n; r += m)
          deilv_avx2(le, k, sc + r * rb, a->pre, a->K, dc + (r << le), a->ps, rb);
        if (r < n)
          deilv_avx2(le, k, sc + (n - m) * rb, a->pre, a->K,
                     dc + ((n - m) << le), a->ps, rb);
      } else {
        const int64_t h = m / 2;
        deilv_sse(le, k, sc, a->pre, a->K, dc, a->ps, rb);
        if (n > h)
          deilv_sse(le, k, sc + (n - h) * rb, a->pre, a->K,
                    dc + ((n - h) << le), a->ps, rb);
      }
    }
  }
}
#endif

#if defined(LI_HAVE_X86_TARGET)
/* ---- AVX-512: steps of 128 bytes under masks ------------------------------ */
/* Blocks of B = W * e <= 8 bytes back to back (le + k <= 3): a step is
** 128 bytes of blocks, 128 / B rows, in two registers. In each 128-bit
** lane a byte shuffle groups the lane's rows by element: W units of
** g = 16 / W bytes, unit w the lane's rows of element w. A permute of
** g-byte units over both registers (vpermt2q, d, w for W = 2, 4, 8)
** gathers element w's 8 units into the low 128 / W bytes of one
** register: the plane's rows. Interleaving is the inverse: the planes'
** rows side by side in two registers, the permute, the shuffle. The rows
** past n are masked off every load and store, so any n takes the same
** steps: no step redone over the last rows, no element-by-element rows
** (trt.dla_hwc4 unpack int8 [1,3,37,29], rows of 29 pixels: two SSE
** steps a row before, one masked step now). */
#define ILV512 __attribute__((target("avx512f,avx512bw,avx512vl"), always_inline)) static inline

/* The first nb (<= 64) bytes' mask. */
ILV512 __mmask64 bmask(int64_t nb) {
  return nb >= 64 ? ~(__mmask64)0 : nb <= 0 ? 0 : ((__mmask64)1 << nb) - 1;
}

/* The permute of g = 16 >> k byte units over a and b (units of b
** numbered from 64 / g). */
ILV512 __m512i perm_units(const int k, __m512i a, __m512i idx, __m512i b) {
  return k == 1 ? _mm512_permutex2var_epi64(a, idx, b)
         : k == 2 ? _mm512_permutex2var_epi32(a, idx, b)
                  : _mm512_permutex2var_epi16(a, idx, b);
}

/* A register of the unit indices u[0..64/g), g bytes each. */
ILV512 __m512i units(const int k, const int *u) {
  const int g = 16 >> k;
  uint8_t b[64];
  for (int i = 0; i < 64 / g; i++)
    for (int j = 0; j < g; j++) b[i * g + j] = (uint8_t)(j < 2 ? u[i] >> (8 * j) : 0);
  return _mm512_loadu_si512(b);
}

/* The lane shuffle: deinterleaving, byte o of a lane (element o / g, row
** o % g / e, byte o % e) from row * B + w * e + b; interleaving, byte o
** (row o / B, element o % B / e) from w * g + row * e + b. */
ILV512 __m512i lane_shuffle(const int le, const int k, int inv) {
  const int W = 1 << k, e = 1 << le, g = 16 / W;
  uint8_t m[16];
  for (int o = 0; o < 16; o++) {
    const int b = o % e;
    m[o] = (uint8_t)(inv ? o % g / e * W * e + o / g * e + b
                         : o % (W * e) / e * g + o / (W * e) * e + b);
  }
  return _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)(const void *)m));
}

ILV512 void deilv_run_512(const int le, const int k, const li_ilv_args *a,
                          const uint8_t *s, uint8_t *d) {
  const int W = 1 << k, e = 1 << le, B = W * e, R = 128 / B, U = 4 * W;
  const __m512i sh = lane_shuffle(le, k, 1);
  __m512i idx[8]; /* plane q's 8 units: lanes 0-3 of a, then of b */
  for (int q = 0; q < a->K; q++) {
    int u[32] = {0};
    for (int i = 0; i < 8; i++) u[i] = i / 4 * U + i % 4 * W + a->pre + q;
    idx[q] = units(k, u);
  }
  const int64_t n = a->n, nf = n - n % R, t = n % R;
  const __mmask64 ta = bmask(t * B), tb = bmask(t * B - 64), ts = bmask(t * e),
                  fs = bmask(R * e);
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    const uint8_t *sc = s + c2 * a->sstep2;
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, sc += a->sstep, dc += a->dstep) {
#define DSTEP(R0, MA, MB, MS)                                                 \
  {                                                                           \
    const __m512i x = _mm512_shuffle_epi8(                                    \
        _mm512_maskz_loadu_epi8(MA, sc + (R0) * B), sh);                      \
    const __m512i y = _mm512_shuffle_epi8(                                    \
        _mm512_maskz_loadu_epi8(MB, sc + (R0) * B + 64), sh);                 \
    for (int q = 0; q < a->K; q++)                                            \
      _mm512_mask_storeu_epi8(dc + q * a->ps + (R0) * e, MS,                  \
                              perm_units(k, x, idx[q], y));                   \
  }
      for (int64_t r = 0; r < nf; r += R) DSTEP(r, ~(__mmask64)0, ~(__mmask64)0, fs)
      if (t) DSTEP(nf, ta, tb, ts)
#undef DSTEP
    }
  }
}

/* A plane's rows of a step: its 128 / W bytes, or the first bytes of ms
** (a last step; the rest zero, in rows no store keeps). */
ILV512 __m512i ld_plane(const int k, const uint8_t *p, __mmask64 ms, int full) {
  if (!full) return _mm512_maskz_loadu_epi8(ms, p);
  if (k == 1) return _mm512_loadu_si512(p);
  if (k == 2) return _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)(const void *)p));
  return _mm512_castsi128_si512(_mm_loadu_si128((const __m128i *)(const void *)p));
}

ILV512 void ilv_run_512(const int le, const int k, const li_ilv_args *a,
                        const uint8_t *s, uint8_t *d) {
  const int W = 1 << k, e = 1 << le, B = W * e, R = 128 / B, U = 4 * W;
  const __m512i sh = lane_shuffle(le, k, 0);
  const __m512i padv = _mm512_broadcast_i32x4(pad128(a->esz, a->pat));
  __m512i ia, ib; /* unit L * W + w of a: plane w's unit L; of b: L + 4 */
  {
    int u[32], v[32];
    for (int i = 0; i < U; i++) {
      const int w = i % W, at = w / (W / 2) * U + w % (W / 2) * 8 + i / W;
      u[i] = at;
      v[i] = at + 4;
    }
    ia = units(k, u);
    ib = units(k, v);
  }
  /* the step after the whole ones: its t rows of data (bytes ka, kb of
  ** its two registers), then pad blocks, t1 rows in all (bytes ma, mb);
  ** the np pad blocks' steps after it pad alone */
  const int64_t n = a->n, nf = n - n % R, N = n + a->np, t = n - nf,
                t1 = N - nf < R ? N - nf : R;
  const __mmask64 fs = bmask(R * e), ts = bmask(t * e), ka = bmask(t * B),
                  kb = bmask(t * B - 64), ma = bmask(t1 * B),
                  mb = bmask(t1 * B - 64);
  const int blend = a->np > 0;
  const uint8_t *pl[8];
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    planes_at(a, s + c2 * a->sstep2, W, pl);
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, dc += a->dstep) {
/* plane w's rows of the step at row R0 (the pad's where it has none) */
#define LD(w, R0, MS, FULL) \
  (!pl[w] ? padv : ld_plane(k, pl[w] + (R0) * e, MS, FULL))
#define LD4(w, R0, MS, FULL) _mm512_castsi512_si128(LD(w, R0, MS, FULL))
#define ISTEP(R0, MA, MB, MS, FULL)                                           \
  {                                                                           \
    __m512i T[2]; /* the planes' rows side by side, 128 / W bytes each */     \
    for (int j = 0; j < 2; j++) {                                             \
      const int w0 = j * W / 2;                                               \
      T[j] = LD(w0, R0, MS, FULL);                                            \
      if (W == 4) {                                                           \
        T[j] = _mm512_inserti64x4(                                            \
            T[j], _mm512_castsi512_si256(LD(w0 + 1, R0, MS, FULL)), 1);       \
      } else if (W == 8) {                                                    \
        T[j] = _mm512_inserti32x4(T[j], LD4(w0 + 1, R0, MS, FULL), 1);        \
        T[j] = _mm512_inserti32x4(T[j], LD4(w0 + 2, R0, MS, FULL), 2);        \
        T[j] = _mm512_inserti32x4(T[j], LD4(w0 + 3, R0, MS, FULL), 3);        \
      }                                                                       \
    }                                                                         \
    __m512i x = _mm512_shuffle_epi8(perm_units(k, T[0], ia, T[1]), sh),      \
            y = _mm512_shuffle_epi8(perm_units(k, T[0], ib, T[1]), sh);      \
    if (!(FULL) && blend) { /* the pad blocks after the rows */              \
      x = _mm512_mask_mov_epi8(padv, ka, x);                                 \
      y = _mm512_mask_mov_epi8(padv, kb, y);                                 \
    }                                                                         \
    _mm512_mask_storeu_epi8(dc + (R0) * B, MA, x);                            \
    _mm512_mask_storeu_epi8(dc + (R0) * B + 64, MB, y);                       \
  }
      for (int64_t r = 0; r < nf; r += R) ISTEP(r, ~(__mmask64)0, ~(__mmask64)0, fs, 1)
      if (t1) ISTEP(nf, ma, mb, ts, 0)
      for (int64_t r = nf + R; r < N; r += R) { /* pad blocks alone */
        const int64_t tr = N - r < R ? N - r : R;
        _mm512_mask_storeu_epi8(dc + r * B, bmask(tr * B), padv);
        _mm512_mask_storeu_epi8(dc + r * B + 64, bmask(tr * B - 64), padv);
      }
#undef ISTEP
#undef LD4
#undef LD
      for (int w = 0; w < W; w++)
        if (pl[w]) pl[w] += a->sstep;
    }
  }
}

/* Blocks of 16 bytes (le + k = 4: 16 1-byte planes, HCWNC16 and
** 1W16C8B; 8 2-byte ones, ...) over rows of 32 >> le or more: steps of 64
** >> le rows, each plane's 64 bytes a register, the k rounds of unpacks
** on the four 128-bit lanes at once (register j's lane L: row L * W + j),
** each row stored 16 bytes whole from its lane (LI_ST_LANE512), or, where
** the rows are back to back, the registers' lanes exchanged and stored
** whole (ilv_lanes_whole). The AVX2 steps take twice the shuffles a row:
** their 32-byte registers hold two rows a step. A last step of fewer
** rows loads them masked and stores those rows alone, where n is under a
** step, else it is redone as the step ending at row n. */
#define LO512(le, x, y)                                                     \
  ((le) == 0   ? _mm512_unpacklo_epi8(x, y)                                 \
   : (le) == 1 ? _mm512_unpacklo_epi16(x, y)                                \
   : (le) == 2 ? _mm512_unpacklo_epi32(x, y)                                \
               : _mm512_unpacklo_epi64(x, y))
#define HI512(le, x, y)                                                     \
  ((le) == 0   ? _mm512_unpackhi_epi8(x, y)                                 \
   : (le) == 1 ? _mm512_unpackhi_epi16(x, y)                                \
   : (le) == 2 ? _mm512_unpackhi_epi32(x, y)                                \
               : _mm512_unpackhi_epi64(x, y))

/* The 4W rows of ilv_lanes (row L * W + j in lane L of register j, W =
** 2^k) stored back to back as W whole registers, their first nb bytes
** (a last step of fewer rows: masked): register bits 0 and 1
** exchanged with the lane bits (for W = 2, register bit 0 with lane bit
** 1, then each register's middle lanes swapped), after which register i
** holds rows 4q .. 4q + 3, q = (i >> 2) | (i & 3) << (k - 2). Four
** 64-byte stores and 8 lane shuffles in place of 16 stores of 16 bytes
** and 12 extracts (W = 4): on Zen 5 the lane stores made the AVX-512
** steps slower than the AVX2 ones (amd.hcwnc4 pack fp32 [1,64,56,56]
** 30 against 21 us). */
ILV512 void ilv_st64(uint8_t *d, int64_t o, int64_t nb, __m512i x) {
  if (o + 64 <= nb) _mm512_storeu_si512((void *)(d + o), x);
  else if (o < nb) _mm512_mask_storeu_epi8(d + o, bmask(nb - o), x);
}
ILV512 void ilv_lanes_whole(const int k, __m512i *v, uint8_t *d,
                            int64_t nb) {
  const int W = 1 << k;
  if (k == 1) {
    LI_X512L1(v[0], v[1]);
    ilv_st64(d, 0, nb, _mm512_shuffle_i32x4(v[0], v[0], 0xD8));
    ilv_st64(d, 64, nb, _mm512_shuffle_i32x4(v[1], v[1], 0xD8));
    return;
  }
  for (int i = 0; i < W; i += 2) LI_X512L0(v[i], v[i + 1]);
  for (int i = 0; i < W; i++)
    if (!(i & 2)) LI_X512L1(v[i], v[i + 2]);
  for (int i = 0; i < W; i++)
    ilv_st64(d, 64 * ((i >> 2) | (i & 3) << (k - 2)), nb, v[i]);
}

ILV512 void ilv_lanes(const int le, const int k, const uint8_t *const *pl,
                      __m512i padv, int64_t off, uint8_t *d, int64_t rb,
                      int64_t t) {
  const int W = 1 << k, full = t == (64 >> le);
  const __mmask64 mr = bmask(t << le);
  __m512i v[16], u[16];
  for (int j = 0; j < W; j++)
    v[j] = !pl[j] ? padv
           : full ? _mm512_loadu_si512(pl[j] + off)
                  : _mm512_maskz_loadu_epi8(mr, pl[j] + off);
  for (int rd = 0; rd < k; rd++) {
    for (int j = 0; j < W / 2; j++) {
      u[2 * j] = LO512(le, v[j], v[j + W / 2]);
      u[2 * j + 1] = HI512(le, v[j], v[j + W / 2]);
    }
    for (int j = 0; j < W; j++) v[j] = u[j];
  }
  if (rb == 16) { /* the rows back to back: whole stores */
    ilv_lanes_whole(k, v, d, full ? 64 * W : t << 4);
    return;
  }
  for (int j = 0; j < W; j++) {
    if (full || j < t)
      _mm_storeu_si128((__m128i *)(void *)(d + j * rb),
                       _mm512_castsi512_si128(v[j]));
    if (full || W + j < t) LI_ST_LANE512(d + (W + j) * rb, v[j], 1);
    if (full || 2 * W + j < t) LI_ST_LANE512(d + (2 * W + j) * rb, v[j], 2);
    if (full || 3 * W + j < t) LI_ST_LANE512(d + (3 * W + j) * rb, v[j], 3);
  }
}
#undef LO512
#undef HI512

ILV512 void ilv_run_lanes(const int le, const int k, const li_ilv_args *a,
                          const uint8_t *s, uint8_t *d) {
  const int W = 1 << k;
  const int64_t m = 64 >> le, n = a->n, rb = a->rs ? a->rs : 16;
  const __m512i padv = _mm512_broadcast_i32x4(pad128(a->esz, a->pat));
  const uint8_t *pl[16];
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    planes_at(a, s + c2 * a->sstep2, W, pl);
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, dc += a->dstep) {
      int64_t r = 0;
      for (; r + m <= n; r += m)
        ilv_lanes(le, k, pl, padv, r << le, dc + r * rb, rb, m);
      if (r < n && n >= m)
        ilv_lanes(le, k, pl, padv, (n - m) << le, dc + (n - m) * rb, rb, m);
      else if (r < n)
        ilv_lanes(le, k, pl, padv, 0, dc, rb, n);
      for (int w = 0; w < W; w++)
        if (pl[w]) pl[w] += a->sstep;
    }
  }
}

__attribute__((target("avx512f,avx512bw,avx512vl"))) static void
ilv_lanes_any(int le, const li_ilv_args *a, const uint8_t *s, uint8_t *d) {
  switch (le) {
  case 0: ilv_run_lanes(0, 4, a, s, d); return;
  case 1: ilv_run_lanes(1, 3, a, s, d); return;
  case 2: ilv_run_lanes(2, 2, a, s, d); return;
  default: ilv_run_lanes(3, 1, a, s, d); return;
  }
}

/* The pairs these steps take: blocks of at most 8 bytes. */
#define LI_ILV512_PAIRS(X) X(0, 1) X(0, 2) X(0, 3) X(1, 1) X(1, 2) X(2, 1)

__attribute__((target("avx512f,avx512bw,avx512vl"))) static int
ilv_512_any(int inv, int le, int k, const li_ilv_args *a, const uint8_t *s,
            uint8_t *d) {
#define X(LE, K)                                                    \
  case LE * 8 + K:                                                  \
    if (inv) deilv_run_512(LE, K, a, s, d);                         \
    else ilv_run_512(LE, K, a, s, d);                               \
    return 1;
  switch (le * 8 + k) { LI_ILV512_PAIRS(X) default: return 0; }
#undef X
}

/* Blocks of B = 16 or 32 bytes (W * e = B) over rows under 16 bytes
** (HCWNC16 int8 and int16, HCWNC8 int16 on 7x7 planes: element by element
** or BLOCK before, 0.5 to 0.8 ns an element): steps of R = 128 / B rows,
** 128 bytes, under masks, by AVX-512 VBMI's byte permute over two
** registers. A step's planes lie plane after plane in P[0], P[1] (plane
** w's R * e bytes at w * R * e): interleaving loads each plane's rows
** (planes16) and makes each register of blocks by one permute;
** deinterleaving permutes the blocks into the planes' order, in an L1
** buffer, and stores each plane's rows from there under a mask. */
#define VBMI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi")))

int li_have_vbmi(void) {
  static int v = -1; /* a benign race: every thread computes the same */
  if (v < 0) v = __builtin_cpu_supports("avx512vbmi") ? 1 : 0;
  return v;
}

int li_ilv_vbmi(size_t esz, int W, int64_t n, int simd) {
  const int64_t B = (int64_t)esz * W;
  return simd >= LI_SIMD_AVX512 &&
         (esz == 1 || esz == 2 || esz == 4 || esz == 8) && W >= 2 &&
         W <= 16 && !(W & (W - 1)) && (B == 16 || B == 32) &&
         n * (int64_t)esz < 16 && li_have_vbmi();
}

/* 64 >> lp planes' rows, from byte o of each (mr: t * e bytes of each,
** zeros after; the pad's for a pad plane), side by side in a register,
** 2^lp bytes each: 16-byte loads and in-register moves (masked 64-byte
** loads reaching back to each plane's place were slower than the element
** loop they replace). */
VBMI __attribute__((always_inline)) static inline __m512i
planes16(const int lp, const uint8_t *const *pl, int64_t o, __mmask64 mr,
         __m512i padv) {
#define LX(w) (pl[w] ? _mm_maskz_loadu_epi8((__mmask16)mr, pl[w] + o) \
                     : _mm512_castsi512_si128(padv))
#define LY(w) (pl[w] ? _mm256_maskz_loadu_epi8((__mmask32)mr, pl[w] + o) \
                     : _mm512_castsi512_si256(padv))
  __m512i z;
  if (lp == 3) {
    z = _mm512_castsi128_si512(_mm_unpacklo_epi64(LX(0), LX(1)));
    z = _mm512_inserti32x4(z, _mm_unpacklo_epi64(LX(2), LX(3)), 1);
    z = _mm512_inserti32x4(z, _mm_unpacklo_epi64(LX(4), LX(5)), 2);
    z = _mm512_inserti32x4(z, _mm_unpacklo_epi64(LX(6), LX(7)), 3);
  } else if (lp == 4) {
    z = _mm512_castsi128_si512(LX(0));
    z = _mm512_inserti32x4(z, LX(1), 1);
    z = _mm512_inserti32x4(z, LX(2), 2);
    z = _mm512_inserti32x4(z, LX(3), 3);
  } else if (lp == 5) {
    z = _mm512_inserti64x4(_mm512_castsi256_si512(LY(0)), LY(1), 1);
  } else {
    z = pl[0] ? _mm512_maskz_loadu_epi8(mr, pl[0] + o) : padv;
  }
#undef LX
#undef LY
  return z;
}

VBMI __attribute__((always_inline)) static inline void
ilv16_vbmi_(const int le, const int lb, const int inv, const li_ilv_args *a,
            const uint8_t *s, uint8_t *d) {
  const int e = 1 << le, B = 1 << lb, W = B >> le, H = W / 2, R = 128 / B,
            PB = R * e, lp = 7 - lb + le;
  /* out byte o <- P byte, or (inv) P byte o <- in byte: constants in
  ** each copy (divisions by variables here were most of a call) */
  uint8_t ix[128];
  for (int o = 0; o < 128; o++) { /* (block or plane, row, byte) */
    const int b = o & (e - 1);
    ix[o] = (uint8_t)(inv ? ((o & (PB - 1)) >> le << lb) + (o >> lp << le) + b
                          : ((o & (B - 1)) >> le << lp) + (o >> lb << le) + b);
  }
  const __m512i i0 = _mm512_loadu_si512(ix), i1 = _mm512_loadu_si512(ix + 64);
  const __m512i padv = _mm512_broadcast_i32x4(pad128(a->esz, a->pat));
  const int64_t n = a->n, ps = a->ps;
  const int K = a->K, pre = a->pre; /* locals: the stores may alias a */
  const uint8_t *pl[16];
  /* the planes of a step, deinterleaved (16 bytes more: a plane of 8
  ** bytes is read as 16) */
  _Alignas(64) uint8_t buf[128 + 16];
  for (int64_t c2 = 0; c2 < a->cnt2; c2++) {
    planes_at(a, s + c2 * a->sstep2, W, pl);
    const uint8_t *sc = s + c2 * a->sstep2;
    uint8_t *dc = d + c2 * a->dstep2;
    for (int64_t c = 0; c < a->cnt; c++, sc += a->sstep, dc += a->dstep) {
      for (int64_t r0 = 0; r0 < n; r0 += R) {
        const int64_t t = n - r0 < R ? n - r0 : R;
        const __mmask64 mr = bmask(t * e), ma = bmask(t * B),
                        mb = bmask(t * B - 64);
        if (!inv) {
          __m512i P[2];
          for (int j = 0; j < 2; j++)
            P[j] = planes16(lp, pl + j * H, r0 * e, mr, padv);
          _mm512_mask_storeu_epi8(dc + r0 * B, ma,
                                  _mm512_permutex2var_epi8(P[0], i0, P[1]));
          _mm512_mask_storeu_epi8(dc + r0 * B + 64, mb,
                                  _mm512_permutex2var_epi8(P[0], i1, P[1]));
        } else { /* the planes through buf: stores of their own width */
          const __m512i x = _mm512_maskz_loadu_epi8(ma, sc + r0 * B),
                        y = _mm512_maskz_loadu_epi8(mb, sc + r0 * B + 64);
          _mm512_store_si512(buf, _mm512_permutex2var_epi8(x, i0, y));
          _mm512_store_si512(buf + 64, _mm512_permutex2var_epi8(x, i1, y));
          uint8_t *dq = dc + r0 * e;
          const uint8_t *b = buf + pre * PB;
          for (int q = 0; q < K; q++, dq += ps, b += PB) {
            if (PB <= 16)
              _mm_mask_storeu_epi8(
                  dq, (__mmask16)mr,
                  _mm_loadu_si128((const __m128i *)(const void *)b));
            else if (PB == 32)
              _mm256_mask_storeu_epi8(
                  dq, (__mmask32)mr,
                  _mm256_loadu_si256((const __m256i *)(const void *)b));
            else
              _mm512_mask_storeu_epi8(dq, mr, _mm512_loadu_si512(b));
          }
        }
      }
      if (!inv)
        for (int w = 0; w < W; w++)
          if (pl[w]) pl[w] += a->sstep;
    }
  }
}

/* The copies: blocks of 16 bytes (lb 4) of 1-, 2-, 4- and 8-byte
** elements, of 32 bytes (lb 5) of 2-, 4- and 8-byte ones. */
#define LI_VBMI_PAIRS(X) \
  X(0, 4) X(1, 4) X(2, 4) X(3, 4) X(1, 5) X(2, 5) X(3, 5)

VBMI static void ilv16_vbmi(int inv, const li_ilv_args *a, const uint8_t *s,
                            uint8_t *d) {
  const int le = lg2((int64_t)a->esz), lb = lg2((int64_t)a->esz * a->W);
#define X(LE, LB)                                                   \
  case LE * 8 + LB:                                                 \
    if (inv) ilv16_vbmi_(LE, LB, 1, a, s, d);                       \
    else ilv16_vbmi_(LE, LB, 0, a, s, d);                           \
    return;
  switch (le * 8 + lb) { LI_VBMI_PAIRS(X) default: return; }
#undef X
}
#undef VBMI
#undef ILV512
#else
int li_have_vbmi(void) { return 0; }

int li_ilv_vbmi(size_t esz, int W, int64_t n, int simd) {
  (void)esz; (void)W; (void)n; (void)simd;
  return 0;
}
#endif

/* The (element size, block width) pairs: le = log2(esz), k = log2(W),
** le + k <= 4. */
#define LI_ILV_PAIRS(X) \
  X(0, 1) X(0, 2) X(0, 3) X(0, 4) X(1, 1) X(1, 2) X(1, 3) X(2, 1) X(2, 2) X(3, 1)

#if defined(__SSE2__)
static void ilv_sse_any(int inv, int le, int k, const li_ilv_args *a,
                        const uint8_t *s, uint8_t *d) {
#define X(LE, K)                                                    \
  case LE * 8 + K:                                                  \
    if (inv) deilv_run_sse(LE, K, a, s, d);                         \
    else ilv_run_sse(LE, K, a, s, d);                               \
    return;
  switch (le * 8 + k) { LI_ILV_PAIRS(X) default: return; }
#undef X
}
#endif

#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static void
ilv_avx2_any(int inv, int le, int k, const li_ilv_args *a, const uint8_t *s,
             uint8_t *d) {
#define X(LE, K)                                                    \
  case LE * 8 + K:                                                  \
    if (inv) deilv_run_avx2(LE, K, a, s, d);                        \
    else ilv_run_avx2(LE, K, a, s, d);                              \
    return;
  switch (le * 8 + k) { LI_ILV_PAIRS(X) default: return; }
#undef X
}
#endif

int li_ilv_ok(size_t esz, int W) {
  int64_t b = (int64_t)esz * W;
  return (esz == 1 || esz == 2 || esz == 4 || esz == 8) && W >= 2 &&
         (W & (W - 1)) == 0 && b <= 16;
}

/* Masked AVX-512 steps where they are fewer: rows fewer than an SSE step
** (else element by element), or than an AVX2 step (else two SSE steps)
** and no more than one of theirs. From one AVX2 step on, as many steps
** either way, and AVX2's stores split fewer cache lines (amd.hcwnc4 pack
** int8 [1,64,56,56], rows of 56: 7.5 -> 7.7 us); two steps of 8-byte
** blocks (vpermt2w) lost to two SSE steps (rows of 23, amd.hcwnc8 unpack
** int8 [1,37,29,23]). */
int li_ilv_masked(size_t esz, int W, int64_t n, int simd) {
#if defined(LI_HAVE_X86_TARGET)
  const int le = lg2((int64_t)esz);
  const int64_t B = (int64_t)W << le;
  return simd >= LI_SIMD_AVX512 && li_ilv_ok(esz, W) && B <= 8 &&
         (n < (16 >> le) || (n < (32 >> le) && n <= 128 / B));
#else
  (void)esz; (void)W; (void)n; (void)simd;
  return 0;
#endif
}

/* Both directions: the bounds on the blocks' reads (deinterleave) are the
** caller's (every block read lies in the source, li_deilv's contract). */
static void run(int inv, const li_ilv_args *a0, const uint8_t *s, uint8_t *d,
                int simd) {
  if (a0->cnt <= 0 || a0->n <= 0 || a0->cnt2 <= 0) return;
  li_ilv_args sw = *a0;
  const li_ilv_args *a = a0;
  /* The planes' side's shorter step inside: each plane is then read (or
  ** written) in order, not as many streams a step apart. */
  int64_t p2 = inv ? a0->dstep2 : a0->sstep2, p1 = inv ? a0->dstep : a0->sstep;
  if (a0->cnt > 1 && a0->cnt2 > 1 && llabs(p2) < llabs(p1)) {
    sw.cnt = a0->cnt2; sw.sstep = a0->sstep2; sw.dstep = a0->dstep2;
    sw.cnt2 = a0->cnt; sw.sstep2 = a0->sstep; sw.dstep2 = a0->dstep;
    a = &sw;
  }
#if defined(__SSE2__)
  const int le = lg2((int64_t)a->esz), k = lg2(a->W);
#if defined(LI_HAVE_X86_TARGET)
  if (li_ilv_vbmi(a->esz, a->W, a->n, simd) &&
      (a->rs == 0 || a->rs == (int64_t)a->W << le)) {
    ilv16_vbmi(inv, a, s, d);
    if (!inv && a->np) pad_blocks(a, d);
    return;
  }
  if (li_ilv_masked(a->esz, a->W, a->n, simd) &&
      (a->rs == 0 || a->rs == (int64_t)a->W << le) &&
      ilv_512_any(inv, le, k, a, s, d))
    return;
  if (!inv && simd >= LI_SIMD_AVX512 && li_ilv_ok(a->esz, a->W) &&
      le + k == 4 && a->n >= (32 >> le)) {
    ilv_lanes_any(le, a, s, d);
    if (a->np) pad_blocks(a, d);
    return;
  }
#endif
  if (simd >= LI_SIMD_SSE && li_ilv_ok(a->esz, a->W) &&
      a->n >= (16 >> le)) {
#if defined(LI_HAVE_X86_TARGET)
    if (simd >= LI_SIMD_AVX2)
      ilv_avx2_any(inv, le, k, a, s, d);
    else
#endif
      ilv_sse_any(inv, le, k, a, s, d);
    if (!inv && a->np) pad_blocks(a, d);
    return;
  }
#else
  (void)simd;
#endif
  uint8_t *const d0 = d;
  for (int64_t c2 = 0; c2 < a->cnt2; c2++, s += a->sstep2, d += a->dstep2)
    if (inv) deilv_c(a, s, d);
    else ilv_c(a, s, d);
  if (!inv && a->np) pad_blocks(a, d0);
}


void li_ilv(const li_ilv_args *a, const uint8_t *s, uint8_t *d, int simd) {
  run(0, a, s, d, simd);
}

void li_deilv(const li_ilv_args *a, const uint8_t *s, uint8_t *d, int simd) {
  run(1, a, s, d, simd);
}
