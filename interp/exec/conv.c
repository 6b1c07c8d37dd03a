/*
** conv.c: the executor's value path. li_conv_block moves a block of rows
** from one side to the other through stack tiles of TILE elements: the
** source's elements gathered (byte planes combined into their element
** bits), decoded to the CPU type by the source's value rule, encoded by
** the destination's, and scattered (or split into planes), with the
** destination's row pads written around each row. Casts, quantization and
** byte planes all take this path (value.c converts the tiles).
** Two shapes skip the element-by-element tiles: two loops, one contiguous
** in the source and the other in the destination, go through tr.c's 2-D
** transposition and contiguous value runs (conv_tr); rows contiguous on
** both sides are converted in groups straight from side to side
** (conv_direct). Three loops, one contiguous in the source and two that
** make one contiguous run in the destination, are gathered into L1 and
** go through the same transposition (conv_tr3: 4W4C8BHL unpacked); rows
** contiguous on both sides with byte planes are split or combined row by
** row or in groups of rows through L1 (conv_direct_planes; under
** AVX-512 the pair's rows of up to 16 elements where they lie, under
** masks, and a value rule's runs quantized straight from the source or
** dequantized into the destination: value.c li_quant_rows). A step whose
** source run lies outside CONV's three loops (4W4C8BHL: c%4 outside h,
** w/4, w%4) takes the next odometer loop too and goes through an L1
** buffer (li_conv_loops, from exec.c's CONV and SPLIT2 steps): the
** source's runs gathered, transposed, combined and converted a row a
** call (unpacking), or converted, split and transposed (packing). A
** per-channel rule then converts each run of one channel with that
** channel's per-tensor rule (value.c's vector paths).
*/
#include <stdint.h>
#include <string.h>

#include "kern.h"
#include "pair16.h"

static inline __attribute__((always_inline)) void
combine2(const li_vrule *v, const uint8_t *s, int64_t ps,
                     uint8_t *u, int64_t n);
static inline __attribute__((always_inline)) void
split2(const li_vrule *v, const uint8_t *u, uint8_t *d,
                   int64_t ps, int64_t n);

/* The bits u that byte planes split: the low 32 bits of an element of n
** bytes (plane shifts are below 32; lang/lower_value.c). */
static uint32_t ld_bits(const uint8_t *p, size_t n) {
  uint32_t u = 0;
  memcpy(&u, p, n < 4 ? n : 4); /* little-endian host */
  return u;
}

/* An element of n bytes whose bits are u (zero above bit 31). */
static void st_bits(uint8_t *p, size_t n, uint32_t u) {
  uint64_t w = u;
  memcpy(p, &w, n); /* little-endian host */
}

/* Gather m rows x k elements of esz bytes into a contiguous tile; row r
** starts so[r] bytes from s. */
static void gather2(const uint8_t *s, const int64_t *so, int64_t ssi,
                    size_t esz, uint8_t *t, int64_t m, int64_t k) {
  if (ssi == 1) {
    for (int64_t r = 0; r < m; r++)
      memcpy(t + r * k * (int64_t)esz, s + so[r], (size_t)k * esz);
    return;
  }
#define G2(T)                                                              \
  {                                                                        \
    T *tt = (T *)(void *)t;                                                \
    for (int64_t r = 0; r < m; r++)                                        \
      for (int64_t i = 0; i < k; i++)                                      \
        memcpy(&tt[r * k + i], s + so[r] + i * ssi * (int64_t)sizeof(T), sizeof(T)); \
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

/* The inverse of gather2: row r of the tile to do[r] bytes from d. */
static void scatter2(const uint8_t *t, uint8_t *d, const int64_t *dof,
                     int64_t dsi, size_t esz, int64_t m, int64_t k) {
  if (dsi == 1) {
    for (int64_t r = 0; r < m; r++)
      memcpy(d + dof[r], t + r * k * (int64_t)esz, (size_t)k * esz);
    return;
  }
#define S2(T)                                                              \
  {                                                                        \
    const T *tt = (const T *)(const void *)t;                              \
    for (int64_t r = 0; r < m; r++)                                        \
      for (int64_t i = 0; i < k; i++)                                      \
        memcpy(d + dof[r] + i * dsi * (int64_t)sizeof(T), &tt[r * k + i], sizeof(T)); \
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

/* Scatter with the row pads: rows of pre + k + post elements (dsi == 1)
** assembled in a template row and stored whole. */
static void scatter2p(const uint8_t *t, uint8_t *d, const int64_t *dof,
                      int64_t dsi,
                      size_t esz, int64_t m, int64_t k, int64_t pre,
                      int64_t post, const uint8_t *pad) {
  int64_t z = (int64_t)esz;
  if (!pre && !post) {
    if (dsi == 1 && k * z <= 256) {
      for (int64_t r = 0; r < m; r++)
        cpys(d + dof[r], t + r * k * z, (size_t)(k * z));
      return;
    }
    scatter2(t, d, dof, dsi, esz, m, k);
    return;
  }
  if (dsi == 1 && k * z <= 256) {
    for (int64_t r = 0; r < m; r++) {
      uint8_t *dr = d + dof[r];
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
  scatter2(t, d, dof, dsi, esz, m, k);
  for (int64_t r = 0; r < m; r++) {
    uint8_t *dr = d + dof[r];
    if (pre) fill_n(dr - pre * z, 1, pre, pad, esz);
    if (post) fill_n(dr + k * z, 1, post, pad, esz);
  }
}

/* One tile: m rows x k elements, m * k <= TILE; row r starts so[r] bytes
** from s and dof[r] bytes from d. */
static void conv_tile(const li_side *S, const li_side *D, const uint8_t *s,
                      const int64_t *so, int64_t ssi, uint8_t *d,
                      const int64_t *dof, int64_t dsi, int64_t m, int64_t k,
                      const int32_t *ch,
                      int64_t pre, int64_t post, const uint8_t *pad) {
  uint8_t ta[TILE * 8], tb[TILE * 8];
  size_t cs = li_dt_size(S->v.cpu);
  int64_t n = m * k;
  const uint8_t *cpu;
  if (S->v.nplanes) { /* combine the planes into S's element bits */
    int np = S->v.nplanes;
    size_t hs = li_dt_size(S->v.hw);
    uint8_t *bits = S->v.kind == LI_VR_ID ? tb : ta;
    if (hs == 2 && np == 2 && ssi == 1) { /* rows of contiguous bytes */
      for (int64_t r = 0; r < m; r++)
        combine2(&S->v, s + so[r], S->pstride, bits + r * k * 2, k);
    } else if (hs == 2 && np == 2) {
      uint16_t *t16 = (uint16_t *)(void *)bits;
      int64_t ps = S->pstride;
      uint32_t m0 = S->v.mask[0], m1 = S->v.mask[1];
      int h0 = S->v.shift[0], h1 = S->v.shift[1];
      for (int64_t r = 0; r < m; r++) {
        const uint8_t *e = s + so[r];
        for (int64_t i = 0; i < k; i++, e += ssi)
          t16[r * k + i] = (uint16_t)(((e[0] & m0) << h0) | ((e[ps] & m1) << h1));
      }
    } else {
      for (int64_t r = 0; r < m; r++)
        for (int64_t i = 0; i < k; i++) {
          const uint8_t *e = s + so[r] + i * ssi;
          uint32_t u = 0;
          for (int q = 0; q < np; q++)
            u |= ((uint32_t)e[q * S->pstride] & S->v.mask[q]) << S->v.shift[q];
          st_bits(bits + (r * k + i) * (int64_t)hs, hs, u);
        }
    }
    if (S->v.kind != LI_VR_ID) li_decode(&S->v, ta, tb, n, ch);
    cpu = tb;
  } else {
    gather2(s, so, ssi, S->esz, ta, m, k);
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
    if (np == 2 && hs == 2 && dsi == 1) { /* rows of contiguous bytes */
      for (int64_t r = 0; r < m; r++)
        split2(&D->v, bits + r * k * 2, d + dof[r], D->pstride, k);
    } else if (np == 2 && hs == 2) {
      int64_t ps = D->pstride;
      uint32_t m0 = D->v.mask[0], m1 = D->v.mask[1];
      int h0 = D->v.shift[0], h1 = D->v.shift[1];
      const uint16_t *c16 = (const uint16_t *)(const void *)bits;
      for (int64_t r = 0; r < m; r++) {
        uint8_t *e = d + dof[r];
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
          uint8_t *e = d + dof[r] + i * dsi;
          for (int q = 0; q < np; q++)
            e[q * D->pstride] = (uint8_t)((u >> D->v.shift[q]) & D->v.mask[q]);
        }
    }
    if (pre || post)
      for (int64_t r = 0; r < m; r++) {
        uint8_t *dr = d + dof[r];
        for (int q = 0; q < np; q++) {
          if (pre) fill_n(dr - pre + q * D->pstride, 1, pre, pad + q, 1);
          if (post) fill_n(dr + k + q * D->pstride, 1, post, pad + q, 1);
        }
      }
  } else if (D->v.kind == LI_VR_ID) {
    scatter2p(cpu, d, dof, dsi, D->esz, m, k, pre, post, pad);
  } else {
    uint8_t *t = cpu == ta ? tb : ta;
    li_encode(&D->v, cpu, t, n, ch);
    scatter2p(t, d, dof, dsi, D->esz, m, k, pre, post, pad);
  }
}

/* ---- Transposing tiles ----------------------------------------------------
** Two loops of which one (A) is contiguous in the source and the other (B)
** in the destination: the value path as a 2-D transposition (tr.c
** li_tr2d) and contiguous runs. Either each run of A is converted into an
** L1 buffer of the destination's elements and the buffer transposed into
** the destination (convert, then transpose: CT), or the source is
** transposed into a buffer of its own elements and each run of B converted
** into the destination (TC). A per-channel rule needs its channel constant
** along the converted run; it then converts with its per-tensor rule of
** that channel (li_vrule_channel), which takes the vector paths. */
#define TRB 16384 /* bytes of the transposition buffer */

typedef struct tloop {
  int64_t n, ss, ds, cs; /* extent and strides (elements) */
} tloop;

/* The rule r of channel c into v, r itself when it is per tensor. */
static const li_vrule *rule_of(const li_vrule *r, int64_t c, li_vrule *v) {
  if (r->axis < 0 || r->nch <= 1) return r;
  li_vrule_channel(r, (int32_t)c, v);
  return v;
}

/* Bytes of one element of a side's value runs: the 16-bit element bits
** of 2 byte planes, else the element. */
static int64_t run_esz(const li_side *X) {
  return X->v.nplanes ? 2 : (int64_t)X->esz;
}

int li_pair_planes(const li_vrule *v) {
  return v->nplanes == 2 &&
         li_dt_size(v->kind == LI_VR_ID ? v->cpu : v->hw) == 2 &&
         v->shift[0] >= 0 && v->shift[0] < 16 && v->shift[1] >= 0 &&
         v->shift[1] < 16;
}

/* No planes, or the pair in bytes. */
static int planes_ok(const li_side *X) {
  return !X->v.nplanes || (X->esz == 1 && li_pair_planes(&X->v));
}

/* A pair's shifts and masks (2 planes of 16-bit element bits), and
** their vectors: made once a call, so that a loop over rows does not
** reload them from the rule at every row (the stores may alias it). */
typedef struct pair {
  uint32_t m0, m1;
  int h0, h1;
#if defined(__SSE2__)
  __m128i c0, c1, k0, k1;
#endif
} pair;

static inline __attribute__((always_inline)) pair pair_of(const li_vrule *v) {
  pair q;
  q.m0 = v->mask[0] & 0xffu;
  q.m1 = v->mask[1] & 0xffu;
  q.h0 = v->shift[0];
  q.h1 = v->shift[1];
#if defined(__SSE2__)
  q.c0 = _mm_cvtsi32_si128(q.h0);
  q.c1 = _mm_cvtsi32_si128(q.h1);
  q.k0 = _mm_set1_epi16((short)q.m0);
  q.k1 = _mm_set1_epi16((short)q.m1);
#endif
  return q;
}

#if defined(__SSE2__)
/* 8 elements' bits from the two planes' 8 bytes a and b (low halves). */
static inline __attribute__((always_inline)) __m128i
comb8(const pair *q, __m128i a, __m128i b) {
  const __m128i z = _mm_setzero_si128();
  return _mm_or_si128(
      _mm_sll_epi16(_mm_and_si128(_mm_unpacklo_epi8(a, z), q->k0), q->c0),
      _mm_sll_epi16(_mm_and_si128(_mm_unpacklo_epi8(b, z), q->k1), q->c1));
}

/* 16 elements' bits x0, x1 into plane 0's 16 bytes (*lo) and plane 1's. */
static inline __attribute__((always_inline)) void
split16(const pair *q, __m128i x0, __m128i x1, __m128i *lo, __m128i *hi) {
  *lo = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, q->c0), q->k0),
                         _mm_and_si128(_mm_srl_epi16(x1, q->c0), q->k0));
  *hi = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, q->c1), q->k1),
                         _mm_and_si128(_mm_srl_epi16(x1, q->c1), q->k1));
}
#endif

/* The planes' bytes s[i] and s[i + ps] combined into 16-bit element bits
** u[i] = (s[i] & mask0) << shift0 | (s[i + ps] & mask1) << shift1 (16
** bits: shifts of 16 and more leave nothing, as in the scalar loop). A
** run of 4 elements or more ends with a step that overlaps the one before
** (u must not overlap s): the short rows of the Kneron formats (7, 8 or
** 12 of a 16-pixel block) take the vector path too. */
static inline __attribute__((always_inline)) void
combine2q(const pair *q, const uint8_t *s, int64_t ps, uint8_t *u,
          int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  const __m128i z = _mm_setzero_si128();
  if (n >= 16) {
    for (;; i += 16) {
      if (i + 16 > n) i = n - 16;
      __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
      __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + ps));
      _mm_storeu_si128((__m128i *)(void *)(u + 2 * i), comb8(q, a, b));
      _mm_storeu_si128((__m128i *)(void *)(u + 2 * i + 16),
                       comb8(q, _mm_unpackhi_epi64(a, z),
                             _mm_unpackhi_epi64(b, z)));
      if (i + 16 == n) return;
    }
  }
  if (n >= 8) {
    for (;; i = n - 8) {
      __m128i a = _mm_loadl_epi64((const __m128i *)(const void *)(s + i));
      __m128i b = _mm_loadl_epi64((const __m128i *)(const void *)(s + i + ps));
      _mm_storeu_si128((__m128i *)(void *)(u + 2 * i), comb8(q, a, b));
      if (i + 8 == n) return;
    }
  }
  if (n >= 4) { /* 4 to 7: two overlapping steps of 4 (16W1C8BHL's 7) */
    for (;; i = n - 4) {
      int32_t a4, b4;
      memcpy(&a4, s + i, 4);
      memcpy(&b4, s + i + ps, 4);
      _mm_storel_epi64((__m128i *)(void *)(u + 2 * i),
                       comb8(q, _mm_cvtsi32_si128(a4), _mm_cvtsi32_si128(b4)));
      if (i + 4 == n) return;
    }
  }
#endif
  for (; i < n; i++) {
    uint32_t w = (s[i] & q->m0) << q->h0 | (s[i + ps] & q->m1) << q->h1;
    uint16_t w16 = (uint16_t)w;
    memcpy(u + 2 * i, &w16, 2);
  }
}

/* The inverse: 16-bit element bits u[i] split into d[i] and d[i + ps]
** (d must not overlap u). */
static inline __attribute__((always_inline)) void
split2q(const pair *q, const uint8_t *u, uint8_t *d, int64_t ps, int64_t n) {
  int64_t i = 0;
#if defined(__SSE2__)
  __m128i lo, hi;
  if (n >= 16) {
    for (;; i += 16) {
      if (i + 16 > n) i = n - 16;
      split16(q, _mm_loadu_si128((const __m128i *)(const void *)(u + 2 * i)),
              _mm_loadu_si128((const __m128i *)(const void *)(u + 2 * i + 16)),
              &lo, &hi);
      _mm_storeu_si128((__m128i *)(void *)(d + i), lo);
      _mm_storeu_si128((__m128i *)(void *)(d + i + ps), hi);
      if (i + 16 == n) return;
    }
  }
  if (n >= 8) {
    for (;; i = n - 8) {
      split16(q, _mm_loadu_si128((const __m128i *)(const void *)(u + 2 * i)),
              _mm_setzero_si128(), &lo, &hi);
      _mm_storel_epi64((__m128i *)(void *)(d + i), lo);
      _mm_storel_epi64((__m128i *)(void *)(d + i + ps), hi);
      if (i + 8 == n) return;
    }
  }
  if (n >= 4) { /* 4 to 7: two overlapping steps of 4 */
    for (;; i = n - 4) {
      split16(q, _mm_loadl_epi64((const __m128i *)(const void *)(u + 2 * i)),
              _mm_setzero_si128(), &lo, &hi);
      const int32_t l4 = _mm_cvtsi128_si32(lo), h4 = _mm_cvtsi128_si32(hi);
      memcpy(d + i, &l4, 4);
      memcpy(d + i + ps, &h4, 4);
      if (i + 4 == n) return;
    }
  }
#endif
  for (; i < n; i++) {
    uint16_t w;
    memcpy(&w, u + 2 * i, 2);
    d[i] = (uint8_t)(((uint32_t)w >> q->h0) & q->m0);
    d[i + ps] = (uint8_t)(((uint32_t)w >> q->h1) & q->m1);
  }
}

static inline __attribute__((always_inline)) void
combine2(const li_vrule *v, const uint8_t *s, int64_t ps, uint8_t *u,
         int64_t n) {
  pair q = pair_of(v);
  combine2q(&q, s, ps, u, n);
}

static inline __attribute__((always_inline)) void
split2(const li_vrule *v, const uint8_t *u, uint8_t *d, int64_t ps,
       int64_t n) {
  pair q = pair_of(v);
  split2q(&q, u, d, ps, n);
}

/* n contiguous value-run elements (run_esz) of S into D's, every element
** of channel c (per-channel rules). */
static void conv_run(const li_side *S, const li_side *D, const uint8_t *s,
                     uint8_t *d, int64_t n, int64_t c) {
  li_vrule sv, dv;
  const li_vrule *sr = rule_of(&S->v, c, &sv), *dr = rule_of(&D->v, c, &dv);
  if (sr->kind == LI_VR_ID) {
    if (dr->kind == LI_VR_ID) memcpy(d, s, (size_t)(n * run_esz(D)));
    else li_encode(dr, s, d, n, NULL);
    return;
  }
  if (dr->kind == LI_VR_ID) {
    li_decode(sr, s, d, n, NULL);
    return;
  }
  uint8_t t[TILE * 8];
  const int64_t ss = run_esz(S), ds = run_esz(D);
  for (int64_t i = 0; i < n; i += TILE) {
    int64_t m = n - i < TILE ? n - i : TILE;
    li_decode(sr, s + i * ss, t, m, NULL);
    li_encode(dr, t, d + i * ds, m, NULL);
  }
}

static int tr_esz(size_t z) { return z == 1 || z == 2 || z == 4 || z == 8; }

/* 1 when the side's rule converts runs of one channel as tr_rows needs. */
static int tr_rule_ok(const li_vrule *r) {
  if (r->axis < 0 || r->nch <= 1) return 1;
  return r->kind == LI_VR_QUANT || r->kind == LI_VR_DEQUANT;
}

/* A run of S (n elements from s, contiguous) converted into D's value
** bits at d (planes combined first; tmp: room for n 16-bit elements). */
static void conv_in(const li_side *S, const li_side *D, const uint8_t *s,
                    int64_t ps, uint8_t *d, int64_t n, int64_t c,
                    uint8_t *tmp) {
  if (S->v.nplanes) {
    combine2(&S->v, s, ps, tmp, n);
    s = tmp;
  }
  conv_run(S, D, s, d, n, c);
}

/* One step of the two loops a (source stride 1) and b (destination stride
** 1) from s to d, channel c0 at their origin; ct: convert, then transpose.
** Byte planes are transposed plane by plane (1-byte elements), combined
** into or split from their 16-bit element bits in the contiguous runs. */
static void tr_rows(const li_side *S, const li_side *D, const uint8_t *s,
                    uint8_t *d, const tloop *a, const tloop *b, int64_t c0,
                    int ct) {
  _Alignas(64) uint8_t buf[TRB];
  _Alignas(64) uint8_t pb[TRB]; /* the planes' bytes, one after the other */
  _Alignas(64) uint8_t tmp[1024];
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int64_t rs = run_esz(S), rd = run_esz(D);
  const int64_t sps = S->pstride, dps = D->pstride;
  const int simd = S->v.simd;
  const int64_t z = rs > rd ? rs : rd, cap = TRB / z;
  /* the converted loop's block long, the other's what the buffer holds */
  const tloop *cv = ct ? a : b, *ot = ct ? b : a;
  int64_t wc = cv->n < 512 ? cv->n : 512;
  if (wc * ot->n > cap) wc = cap / (ot->n < 16 ? ot->n : 16);
  if (wc > 512) wc = 512; /* tmp's room */
  if (wc > cv->n) wc = cv->n;
  int64_t wo = cap / wc < ot->n ? cap / wc : ot->n;
  for (int64_t c = 0; c < cv->n; c += wc) {
    int64_t nc = cv->n - c < wc ? cv->n - c : wc;
    for (int64_t o = 0; o < ot->n; o += wo) {
      int64_t no = ot->n - o < wo ? ot->n - o : wo;
      int64_t ia = ct ? c : o, ib = ct ? o : c; /* block origin in a, b */
      int64_t na = ct ? nc : no, nb = ct ? no : nc, e = na * nb;
      const uint8_t *sp = s + (ia + ib * b->ss) * se;
      uint8_t *dp = d + (ia * a->ds + ib) * de;
      int64_t cc = c0 + ia * a->cs + ib * b->cs;
      if (ct) { /* rows of a converted into buf (nb x na), transposed */
        for (int64_t j = 0; j < nb; j++)
          conv_in(S, D, sp + j * b->ss * se, sps, buf + j * na * rd, na,
                  cc + j * b->cs, tmp);
        if (D->v.nplanes) {
          split2(&D->v, buf, pb, e, e);
          for (int q = 0; q < 2; q++)
            li_tr2d(1, simd, pb + q * e, pb + (q + 1) * e, pb + q * e, na,
                    dp + q * dps, a->ds, nb, na);
        } else {
          li_tr2d((size_t)de, simd, buf, buf + e * de, buf, na, dp, a->ds,
                  nb, na);
        }
      } else { /* the source transposed into buf (na x nb), rows of b */
        const uint8_t *hi = sp + ((nb - 1) * b->ss + na) * se;
        const uint8_t *rows = buf;
        if (S->v.nplanes) {
          for (int q = 0; q < 2; q++)
            li_tr2d(1, simd, sp + q * sps, hi + q * sps, sp + q * sps, b->ss,
                    pb + q * e, nb, nb, na);
          combine2(&S->v, pb, e, buf, e);
        } else {
          li_tr2d((size_t)se, simd, sp, hi, sp, b->ss, buf, nb, nb, na);
        }
        for (int64_t i = 0; i < na; i++) {
          uint8_t *di = dp + i * a->ds * de;
          if (D->v.nplanes) {
            conv_run(S, D, rows + i * nb * rs, tmp, nb, cc + i * a->cs);
            split2(&D->v, tmp, di, dps, nb);
          } else {
            conv_run(S, D, rows + i * nb * rs, di, nb, cc + i * a->cs);
          }
        }
      }
    }
  }
}

/* Three loops: a contiguous in the source (ss 1), b1 contiguous in the
** destination (ds 1), and b2 continuing b1 in the destination (ds ==
** b1's extent) but not in the source (Kneron's 4W4C8BHL unpacked: c%4
** innermost in the source, w%4 inside w/4 in the destination). The
** source's runs of a are gathered, b2 by b1, into a buffer in which b2
** and b1 are one loop J of stride a's extent, and each chunk of the
** buffer goes through tr_rows as the 2-D transposition of a and J
** (transpose, then convert J's contiguous runs): one extra pass over L1.
** 0 when the loops are not of that shape. */
#define GB 8192 /* bytes of the gathered source */
static int conv_tr3(const li_side *S, const li_side *D, const uint8_t *src,
                    uint8_t *dst, const tloop *l, int64_t c0) {
  const tloop *a = NULL, *b1 = NULL, *b2 = NULL;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int k = 3 - i - j;
      if (i == j || k < 0 || k > 2 || k == i || k == j) continue;
      if (l[i].ss == 1 && l[j].ds == 1 && l[k].ds == l[j].n && l[i].n >= 2 &&
          l[j].n >= 2 && l[k].n >= 2 && !a) {
        a = &l[i];
        b1 = &l[j];
        b2 = &l[k];
      }
    }
  if (!a || a->ds <= 1 || b1->ss <= 1 || b1->n * b2->n < 64)
    return 0; /* runs of J too short to pay for the calls (measured: 20) */
  int perch = (S->v.axis >= 0 && S->v.nch > 1) || (D->v.axis >= 0 && D->v.nch > 1);
  if (perch && (b1->cs != 0 || b2->cs != 0)) return 0;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int np = S->v.nplanes ? 2 : 1;
  const int64_t rowb = a->n * se;        /* bytes of a run of a, a plane */
  const int64_t runb = b1->n * rowb;     /* bytes of one step of b2 */
  const int64_t cap = GB / (runb * np);  /* steps of b2 a chunk */
  if (cap < 1) return 0;
  _Alignas(64) uint8_t gb[GB];
  li_side S2 = *S;
  const int whole = b1->ss == a->n; /* b1's runs of a back to back */
  for (int64_t j2 = 0; j2 < b2->n; j2 += cap) {
    const int64_t nj = b2->n - j2 < cap ? b2->n - j2 : cap, nJ = nj * b1->n;
    const int64_t ps = nJ * rowb; /* the planes in the buffer */
    for (int q = 0; q < np; q++)
      for (int64_t t = 0; t < nj; t++) {
        const uint8_t *sp = src + (j2 + t) * b2->ss * se + q * S->pstride;
        uint8_t *gp = gb + q * ps + t * runb;
        if (whole && runb == 16) memcpy(gp, sp, 16);
        else if (whole && runb == 32) memcpy(gp, sp, 32);
        else if (whole) memcpy(gp, sp, (size_t)runb);
        else if (rowb == 4)
          for (int64_t j = 0; j < b1->n; j++) memcpy(gp + j * 4, sp + j * b1->ss * se, 4);
        else
          for (int64_t j = 0; j < b1->n; j++)
            memcpy(gp + j * rowb, sp + j * b1->ss * se, (size_t)rowb);
      }
    if (np == 2) S2.pstride = ps;
    const tloop A = {a->n, 1, a->ds, a->cs}, B = {nJ, a->n, 1, b1->cs};
    tr_rows(&S2, D, gb, dst + j2 * b2->ds * de, &A, &B, c0 + j2 * b2->cs, 0);
  }
  return 1;
}

/* The rows of g (k elements each, strides ssi, dsi, csi) as transposing
** tiles: 0 when they are not two loops of that shape. */
static int conv_tr(const li_side *S, const li_side *D, const uint8_t *src,
                   const li_rows2 *g, int64_t ssi, uint8_t *dst, int64_t dsi,
                   int64_t k, int64_t cb, int64_t csi, int64_t pre,
                   int64_t post) {
  if (pre || post || !planes_ok(S) || !planes_ok(D) || !tr_esz(S->esz) ||
      !tr_esz(D->esz) || !tr_rule_ok(&S->v) || !tr_rule_ok(&D->v) ||
      g->m < 2 || k < 2)
    return 0;
  tloop o = {g->m, g->sso, g->dso, g->cso}, in = {k, ssi, dsi, csi};
  const tloop *a, *b;
  if (o.ss == 1 && in.ds == 1) { a = &o; b = &in; }
  else if (in.ss == 1 && o.ds == 1) { a = &in; b = &o; }
  else {
    const tloop l3[3] = {{g->n2, g->sso2, g->dso2, g->cso2}, o, in};
    return g->n2 >= 2 && conv_tr3(S, D, src, dst, l3, cb);
  }
  if (a->ds <= 1 || b->ss <= 1) return 0; /* not a transposition */
  int perch = (S->v.axis >= 0 && S->v.nch > 1) || (D->v.axis >= 0 && D->v.nch > 1);
  int ct;
  if (perch && a->cs == 0) ct = 1;
  else if (perch && b->cs == 0) ct = 0;
  else if (perch) return 0;
  else ct = a->n >= b->n;
  if ((ct ? a->n : b->n) < 16) return 0; /* runs too short to pay */
  int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  for (int64_t t = 0; t < g->n2; t++)
    tr_rows(S, D, src + t * g->sso2 * se, dst + t * g->dso2 * de, a, b,
            cb + t * g->cso2, ct);
  return 1;
}

/* Rows contiguous on both sides (the caller's test), quantized or
** dequantized where they lie (value.c li_quant_rows, li_dequant_rows: a
** call for up to RA rows of one channel, their offsets listed), the pads
** around each row written before them: one pass. conv_direct's groups
** convert a pitched destination's rows into a buffer and copy them out:
** TIDL's padded q16 pack fp32 [1,64,56,56] 43 -> 34 us so (the pads after
** the rows: 39 us); its unpack 31 -> 25 us against vplan.c's slabs, which
** leave it here (vplan.c rows_at). 0 when the rules are not such a pair or
** the first call declines them (a cast, a chain, not AVX-512): then the
** first group's pads alone are written. */
#define RA 64
static int conv_rows_at(const li_side *S, const li_side *D,
                        const uint8_t *src, const li_rows2 *g, uint8_t *dst,
                        int64_t k, int64_t cb, int64_t pre, int64_t post,
                        const uint8_t *pad) {
  const int q = S->v.kind == LI_VR_ID && D->v.kind == LI_VR_QUANT;
  if (!q && !(S->v.kind == LI_VR_QUANT && D->v.kind == LI_VR_ID)) return 0;
  const li_vrule *rr = q ? &D->v : &S->v;
  const int perch = rr->axis >= 0 && rr->nch > 1;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  int64_t so[RA], dof[RA];
  li_vrule v;
  const li_vrule *r = rr;
  const int64_t step = perch && g->cso ? 1 : RA; /* a call a channel */
  for (int64_t t = 0; t < g->n2; t++) {
    for (int64_t r0 = 0; r0 < g->m; r0 += step) {
      const int64_t nr = g->m - r0 < step ? g->m - r0 : step;
      for (int64_t i = 0; i < nr; i++) {
        so[i] = (t * g->sso2 + (r0 + i) * g->sso) * se;
        dof[i] = (t * g->dso2 + (r0 + i) * g->dso) * de;
      }
      for (int64_t i = 0; i < nr && (pre || post); i++) {
        if (pre) fill_n(dst + dof[i] - pre * de, 1, pre, pad, (size_t)de);
        if (post) fill_n(dst + dof[i] + k * de, 1, post, pad, (size_t)de);
      }
      if (perch) r = rule_of(rr, cb + t * g->cso2 + r0 * g->cso, &v);
      if (!(q ? li_quant_rows(r, src, so, nr, k, dst, dof)
              : li_dequant_rows(r, src, so, dst, dof, nr, k))) {
        if (t == 0 && r0 == 0) return 0; /* a rule the kernels decline */
        for (int64_t i = 0; i < nr; i++) /* another channel's rule */
          conv_run(S, D, src + so[i], dst + dof[i], k, cb + t * g->cso2 +
                   (r0 + i) * g->cso);
      }
    }
  }
  return 1;
}
#undef RA

/* Rows contiguous on both sides, 16 elements or more, each of one channel
** (or per tensor): groups of rows of one channel converted by one call
** (conv_run) from the source (or a gathered copy) into the destination
** (or a buffer scattered from), the pads around each row; 0 when the rows
** are not of that shape. */
static int conv_direct(const li_side *S, const li_side *D,
                       const uint8_t *src, const li_rows2 *g, int64_t ssi,
                       uint8_t *dst, int64_t dsi, int64_t k, int64_t cb,
                       int64_t csi, int64_t pre, int64_t post,
                       const uint8_t *pad) {
  int perch = (S->v.axis >= 0 && S->v.nch > 1) || (D->v.axis >= 0 && D->v.nch > 1);
  if (ssi != 1 || dsi != 1 || k < 16 || (perch && csi != 0) ||
      S->v.nplanes || D->v.nplanes || !tr_rule_ok(&S->v) ||
      !tr_rule_ok(&D->v))
    return 0;
  if (conv_rows_at(S, D, src, g, dst, k, cb, pre, post, pad)) return 1;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  /* rows of one channel (cso 0, or per tensor) in groups: gathered into
  ** sb unless the source has them back to back, converted in one call
  ** into db unless the destination has them back to back (and no pads) */
  _Alignas(64) uint8_t sb[TRB], db[TRB];
  const int64_t z = se > de ? se : de;
  const int64_t R = (g->cso == 0 || !perch) && k * z <= TRB / 4 ? TRB / (k * z) : 1;
  const int sc = g->sso == k, dc = g->dso == k && !pre && !post;
  for (int64_t t = 0; t < g->n2; t++)
    for (int64_t r0 = 0; r0 < g->m; r0 += R) {
      int64_t nr = g->m - r0 < R ? g->m - r0 : R;
      const uint8_t *sr = src + (t * g->sso2 + r0 * g->sso) * se;
      uint8_t *dr = dst + (t * g->dso2 + r0 * g->dso) * de;
      int64_t c = cb + t * g->cso2 + r0 * g->cso;
      if (nr == 1) {
        conv_run(S, D, sr, dr, k, c);
      } else {
        const uint8_t *si = sr;
        uint8_t *di = dc ? dr : db;
        if (!sc) {
          for (int64_t r = 0; r < nr; r++)
            memcpy(sb + r * k * se, sr + r * g->sso * se, (size_t)(k * se));
          si = sb;
        }
        conv_run(S, D, si, di, nr * k, c);
        if (!dc)
          for (int64_t r = 0; r < nr; r++)
            memcpy(dr + r * g->dso * de, db + r * k * de, (size_t)(k * de));
      }
      for (int64_t r = 0; r < nr && (pre || post); r++) {
        uint8_t *p = dr + r * g->dso * de;
        if (pre) fill_n(p - pre * de, 1, pre, pad, (size_t)de);
        if (post) fill_n(p + k * de, 1, post, pad, (size_t)de);
      }
    }
  return 1;
}

/* ---- Loops of a step and the next through a buffer ----------------------
** The CONV step's loops and the rest of the next odometer loop (exec.c
** step_CONV), outer first, the destination's run innermost (ds 1), the
** source's contiguous loop a further out: CONV's three loops alone would
** gather element by element (4W4C8BHL unpacked: c%4 outside h, w/4 and
** w%4). The other loops J, in chunks of the outermost, go through L1:
** the source's runs along a (with the J loops that continue them in the
** source: w%4 of a 16-byte entry) gathered J by J into a buffer (each
** plane's), the buffer transposed (tr.c li_tr2d) into a's rows of J,
** the planes combined, each row converted by its channel's rule in one
** call (conv_run) and copied out in the destination's runs along J (the
** J loops that continue the innermost in the destination: w%4 and w/4). */
#define LB 16384 /* bytes of each buffer */

/* The first m (<= 3) loops of l as three, the outer ones of extent 1:
** extents e and strides st (elements) on the source (src) or the
** destination side; the nested loops over them stay in registers. */
static void outer3(const li_loop *l, int m, int src, int64_t *e,
                   int64_t *st) {
  for (int i = 0; i < 3; i++) {
    const int k = i - (3 - m); /* loop k of l, or none */
    e[i] = k >= 0 ? l[k].ext : 1;
    st[i] = k >= 0 ? (src ? l[k].ss : l[k].ds) : 0;
  }
}
#define FOR3(e, st, o, BODY)                                             \
  for (int64_t i0_ = 0, q = 0; i0_ < e[0]; i0_++)                        \
    for (int64_t i1_ = 0; i1_ < e[1]; i1_++)                             \
      for (int64_t i2_ = 0; i2_ < e[2]; i2_++, q++) {                    \
        const int64_t o = i0_ * st[0] + i1_ * st[1] + i2_ * st[2];       \
        BODY                                                             \
      }

/* How many innermost loops of l (n of them) continue a run of r elements
** on the source (src) or destination side; *run: the run's length. */
static int fold_run(const li_loop *l, int n, int64_t r, int src,
                    int64_t *run) {
  int k = 0;
  while (k < n && (src ? l[n - 1 - k].ss : l[n - 1 - k].ds) == r) {
    r *= l[n - 1 - k].ext;
    k++;
  }
  *run = r;
  return k;
}

/* One chunk: J's loops (nj of them, outer first), a the source's run. */
static void tr_chunk(const li_side *S, const li_side *D, const uint8_t *src,
                     uint8_t *dst, const li_loop *J, int nj, const li_loop *a,
                     int64_t c0, uint8_t *G, uint8_t *T, uint8_t *DB) {
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int np = S->v.nplanes ? 2 : 1;
  int64_t nJ = 1;
  for (int i = 0; i < nj; i++) nJ *= J[i].ext;
  const int64_t na = a->ext, n = nJ * na;
  /* gather: runs of a (and the J loops continuing it) J by J */
  int64_t srun;
  const int sk = fold_run(J, nj, na, 1, &srun);
  const int64_t sb = srun * se;
  int64_t ge[3], gs[3];
  outer3(J, nj - sk, 1, ge, gs);
  for (int p = 0; p < np; p++) {
    const uint8_t *sp = src + p * S->pstride;
    uint8_t *gp = G + p * n;
#define GATHER(B) FOR3(ge, gs, o, memcpy(gp + q * (B), sp + o * se, (size_t)(B));)
    if (sb == 16) GATHER(16)
    else if (sb == 8) GATHER(8)
    else if (sb == 32) GATHER(32)
    else if (sb == 4) GATHER(4)
    else GATHER(sb)
#undef GATHER
  }
  /* transposed: a's rows of J */
  const size_t te = np == 2 ? 1 : (size_t)se;
  for (int p = 0; p < np; p++)
    li_tr2d(te, S->v.simd, G + p * n, G + (p + 1) * n * (int64_t)te,
            G + p * n, na, T + p * n, nJ, nJ, na);
  const uint8_t *rows = T;
  if (np == 2) { /* the planes combined into 16-bit element bits */
    combine2(&S->v, T, n, G, n);
    rows = G;
  }
  const int64_t rs = run_esz(S);
  int64_t drun;
  const int dk = fold_run(J, nj, 1, 0, &drun);
  int64_t de3[3], ds3[3];
  outer3(J, nj - dk, 0, de3, ds3);
  const int ids = S->v.kind == LI_VR_ID && D->v.kind == LI_VR_ID;
  for (int64_t i = 0; i < na; i++) {
    const uint8_t *r = rows + i * nJ * rs;
    if (!ids) {
      conv_run(S, D, r, DB, nJ, c0 + i * a->cs);
      r = DB;
    }
    uint8_t *di = dst + i * a->ds * de;
    FOR3(de3, ds3, od, cpy(di + od * de, r + q * drun * de, (size_t)(drun * de));)
  }
}

/* The mirror (a packing): a innermost, the destination's run (a
** channel's 4 bytes of 4W4C8BHL's entry row), the source's runs along J.
** Each of a's rows of J is converted by its channel's rule (the source's
** span of the row in one call when the row fills at least half of it,
** else run by run) into a buffer, split into the planes, transposed into
** J's rows of a and copied out in the destination's runs (a and the J
** loops that continue it: w%4 of the entry). */
static void ct_chunk(const li_side *S, const li_side *D, const uint8_t *src,
                     uint8_t *dst, const li_loop *J, int nj, const li_loop *a,
                     int64_t c0, uint8_t *G, uint8_t *T, uint8_t *DB) {
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int64_t rd = run_esz(D);
  const int np = D->v.nplanes ? 2 : 1;
  int64_t nJ = 1, span = 1;
  for (int i = 0; i < nj; i++) {
    nJ *= J[i].ext;
    span += (J[i].ext - 1) * J[i].ss;
  }
  const int64_t na = a->ext, n = nJ * na;
  int64_t srun;
  const int sk = fold_run(J, nj, 1, 1, &srun);
  int64_t ge[3], gs[3];
  outer3(J, nj - sk, 1, ge, gs);
  const int ids = S->v.kind == LI_VR_ID && D->v.kind == LI_VR_ID;
  const int dense = !ids && span <= 2 * nJ && span * rd <= LB;
  for (int64_t i = 0; i < na; i++) {
    const uint8_t *si = src + i * a->ss * se;
    uint8_t *gi = G + i * nJ * rd;
    const int64_t c = c0 + i * a->cs;
    if (dense) {
      conv_run(S, D, si, DB, span, c);
      si = DB;
    }
    const int64_t ze = ids || dense ? rd : se; /* bytes of si's elements */
    if (ids || dense) {
      FOR3(ge, gs, o, cpy(gi + q * srun * rd, si + o * ze, (size_t)(srun * rd));)
    } else {
      FOR3(ge, gs, o, conv_run(S, D, si + o * se, gi + q * srun * rd, srun, c);)
    }
  }
  /* G: a's rows of J (D's run elements); out: J's rows of a */
  const uint8_t *out = T;
  size_t te = (size_t)rd;
  if (np == 2) {
    split2(&D->v, G, T, n, n);
    for (int p = 0; p < 2; p++)
      li_tr2d(1, D->v.simd, T + p * n, T + (p + 1) * n, T + p * n, nJ,
              G + p * n, na, na, nJ);
    out = G;
    te = 1;
  } else {
    li_tr2d(te, D->v.simd, G, G + n * rd, G, nJ, T, na, na, nJ);
  }
  int64_t drun;
  const int dk = fold_run(J, nj, na, 0, &drun);
  const int64_t rb = drun * (int64_t)te;
  int64_t de3[3], ds3[3];
  outer3(J, nj - dk, 0, de3, ds3);
  for (int p = 0; p < np; p++) {
    uint8_t *dp = dst + p * D->pstride;
    const uint8_t *op = out + p * n;
    if (rb == 16) {
      FOR3(de3, ds3, od, memcpy(dp + od * de, op + q * 16, 16);)
    } else {
      FOR3(de3, ds3, od, cpy(dp + od * de, op + q * rb, (size_t)rb);)
    }
  }
}

int li_conv_loops(const li_side *S, const li_side *D, const uint8_t *src,
                  uint8_t *dst, const li_loop *l, int n, int64_t cb) {
  /* byte planes on a side only: without them conv_tr/li_conv_rows were
  ** faster (amd.hcwnc_bf16(4) and hcwnc_q(4) pack fp32 [4,32,28,28]:
  ** 111 -> 146 us and 109 -> 156 us through here) */
  if (!S->v.nplanes && !D->v.nplanes) return 0;
  if (n < 3 || n > 4 || !planes_ok(S) || !planes_ok(D) || !tr_esz(S->esz) ||
      !tr_esz(D->esz) || !tr_rule_ok(&S->v) || !tr_rule_ok(&D->v) ||
      l[n - 1].ds != 1 || l[n - 1].ss == 1 || l[n - 1].ext < 2)
    return 0;
  int ai = -1;
  for (int i = 0; i < n; i++) {
    if (l[i].tab) return 0;
    if (l[i].ss == 1 && ai < 0) ai = i;
  }
  /* a: the source's run outermost (convert after the transposition), or
  ** the destination's innermost (before it, ct) */
  if (ai < 0) return 0;
  const int ct = ai != 0 && !S->v.nplanes;
  if (!ct && (ai != 0 || D->v.nplanes)) return 0;
  if (ct) ai = n - 1;
  if (l[ai].ext < 2 || (!ct && l[0].ds <= 1)) return 0;
  if (S->v.kind == LI_VR_ID && D->v.kind == LI_VR_ID &&
      run_esz(S) != run_esz(D))
    return 0;
  const int perch = (S->v.axis >= 0 && S->v.nch > 1) ||
                    (D->v.axis >= 0 && D->v.nch > 1);
  li_loop J[4];
  int nj = 0;
  int64_t tot = 1;
  for (int i = 0; i < n; i++) {
    if (i == ai) continue;
    J[nj++] = l[i];
    tot *= l[i].ext;
  }
  if (n == 3 && !ct) { /* conv_tr3's shape: its buffer of the source's runs */
    const tloop l3[3] = {{l[0].ext, l[0].ss, l[0].ds, l[0].cs},
                         {l[1].ext, l[1].ss, l[1].ds, l[1].cs},
                         {l[2].ext, l[2].ss, l[2].ds, l[2].cs}};
    if (conv_tr3(S, D, src, dst, l3, cb)) return 1;
  }
  const li_loop *a = &l[ai];
  /* elements a chunk: each buffer holds them (G and T: the planes' bytes
  ** or the source's elements, G also the combined bits; DB a row of D's) */
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  int64_t eb = S->v.nplanes ? 2 : se;
  if (de > eb) eb = de;
  if (run_esz(D) > eb) eb = run_esz(D);
  const int64_t cap = LB / eb;
  /* chunks along J[k], the outermost loop inside which the rest fits
  ** (the loops outside it one step at a time) */
  int k = 0;
  int64_t inner = tot / J[0].ext * a->ext; /* elements a step of J[k] */
  int kc = 0; /* per channel: the loops from J[kc] in keep the channel */
  for (int i = 0; perch && i < nj; i++)
    if (J[i].cs != 0) kc = i + 1;
  while ((inner > cap || k < kc) && k + 1 < nj) inner /= J[++k].ext;
  if (inner > cap || k < kc || tot * a->ext < 64) return 0;
  _Alignas(64) uint8_t G[LB], T[LB], DB[LB];
  const int64_t step = cap / inner; /* J[k]'s iterations a chunk */
  int64_t nout = 1, ix[4] = {0, 0, 0, 0}, os = 0, od = 0, oc = 0;
  for (int i = 0; i < k; i++) nout *= J[i].ext;
  for (int64_t q = 0; q < nout; q++) {
    for (int64_t j = 0; j < J[k].ext; j += step) {
      li_loop Jc[4];
      memcpy(Jc, J + k, sizeof *J * (size_t)(nj - k));
      Jc[0].ext = J[k].ext - j < step ? J[k].ext - j : step;
      (ct ? ct_chunk : tr_chunk)(S, D, src + (os + j * J[k].ss) * se,
                                 dst + (od + j * J[k].ds) * de, Jc, nj - k, a,
                                 cb + oc + j * J[k].cs, G, T, DB);
    }
    for (int i = k - 1; i >= 0; i--) { /* the next step outside J[k] */
      os += J[i].ss;
      od += J[i].ds;
      oc += J[i].cs;
      if (++ix[i] < J[i].ext) break;
      os -= J[i].ss * J[i].ext;
      od -= J[i].ds * J[i].ext;
      oc -= J[i].cs * J[i].ext;
      ix[i] = 0;
    }
  }
  return 1;
}

/* Rows contiguous on both sides, byte planes on one side or both (16-bit
** element bits, no row pads), each row of one channel of a per-channel
** rule (or per tensor). Without value rules, rows of 8 elements and more
** are split or combined straight from side to side (rows1: the pair's
** vectors made once, a row's last vector overlapping the one before).
** Otherwise up to RB elements of rows at a time (rows of one
** channel) go through L1 as one run (rows_grouped): the source's rows
** gathered back to back (planes combined row by row, combine2q),
** converted by one call (conv_run: the vector paths of the channel's
** rule) and split row by row into the destination (split2q); through a
** buffer of the planes and 16-byte row copies, the copies read back the
** split's wider stores: kneron.16w1c8bhl_q pack fp32 [1,64,56,56] ran
** ~40% slower so. Short rows (16W1C8BHL's
** 7 elements) so pay the calls once a group, not once a row. */
#define RB 1024 /* elements a group */

#if defined(LI_HAVE_X86_TARGET) && defined(__SSE2__)
/* The pair's bits of a 16-element row under AVX2, the row one 32-byte
** register: split, its 16 elements shifted and masked twice and packed
** into the two planes' 16 bytes (the SSE2 path takes two loads, twice
** the shifts and masks); combined, the planes' 16 bytes each widened,
** masked, shifted and or-ed. kneron.16w1c8bhl int16 [1,64,56,56] pack
** 46 -> 29 us, unpack 37 -> 22 (min of 5). */
__attribute__((target("avx2"), always_inline)) static inline __m256i
split16_x(const pair *q, __m256i k0, __m256i k1, __m256i x) {
  return li_pair_split(x, q->c0, q->c1, k0, k1);
}

__attribute__((target("avx2"), always_inline)) static inline __m256i
split16_v(const pair *q, __m256i k0, __m256i k1, const uint8_t *s) {
  return split16_x(q, k0, k1, _mm256_loadu_si256((const __m256i *)(const void *)s));
}

__attribute__((target("avx2"), always_inline)) static inline void
split16_y(const pair *q, __m256i k0, __m256i k1, const uint8_t *s,
          uint8_t *d, int64_t ps) {
  const __m256i p = split16_v(q, k0, k1, s);
  _mm_storeu_si128((__m128i *)(void *)d, _mm256_castsi256_si128(p));
  _mm_storeu_si128((__m128i *)(void *)(d + ps), _mm256_extracti128_si256(p, 1));
}

__attribute__((target("avx2"), always_inline)) static inline void
comb16_y(const pair *q, __m256i k0, __m256i k1, const uint8_t *s,
         int64_t ps, uint8_t *d) {
  _mm256_storeu_si256(
      (__m256i *)(void *)d,
      li_pair_comb(_mm_loadu_si128((const __m128i *)(const void *)s),
                   _mm_loadu_si128((const __m128i *)(const void *)(s + ps)),
                   q->c0, q->c1, k0, k1));
}

/* Split: rows of k <= 16 elements into the planes, 16 bytes apart, two
** rows a step under AVX-512 VBMI (row q at s + so[q], or q * ss where so
** is NULL; its planes at d + dof[q], or q * ds; pad NULL: k is 16): the
** rows' 64 bytes one register, one multishift takes each element's two
** plane bytes, one byte permute puts them in the planes' order, the pads
** blended in, then a 32-byte store a row. A row took two shifts by a
** register (two uops each), a pack, a permute and an extract, mostly on
** the one shuffle port. Where no plane takes a bit past 15
** (split2_vbmi_ok). Returns the rows done (an even count).
** kneron.16w1c8bhl pack int16 [4,32,28,28] 11.8 -> 10.7 us. */
static int split2_vbmi_ok(const pair *q, int64_t ps, int64_t nr, int simd) {
  return simd >= LI_SIMD_AVX512 && ps == 16 && nr >= 2 &&
         ((q->m0 << q->h0) | (q->m1 << q->h1)) <= 0xffffu && li_have_vbmi();
}

__attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi"))) static int64_t
split2_vbmi(const pair *q, const uint8_t *s, const int64_t *so, int64_t ss,
            int64_t k, uint8_t *d, const int64_t *dof, int64_t ds, int64_t nr,
            const uint8_t *pad) {
  /* byte 32 r + 16 pl + e <- byte 32 r + 2 e + pl */
  static const uint8_t ix[64] = {
#define IX(o) (uint8_t)(((o) & 32) | ((o) & 15) << 1 | ((o) >> 4 & 1))
#define IX8(o) IX(o), IX(o + 1), IX(o + 2), IX(o + 3), IX(o + 4), IX(o + 5), \
    IX(o + 6), IX(o + 7)
      IX8(0), IX8(8), IX8(16), IX8(24), IX8(32), IX8(40), IX8(48), IX8(56)
#undef IX8
#undef IX
  };
  const __mmask16 km = (__mmask16)((1u << k) - 1u);
  const __mmask64 pl1 = 0xffff0000ffff0000ull,
                  keep = (uint64_t)km * 0x0001000100010001ull;
  const __m512i ctl = _mm512_set1_epi64((long long)li_pair_ctl(q->h0, q->h1)),
                mb = _mm512_set1_epi16((short)(q->m0 | q->m1 << 8)),
                p = _mm512_loadu_si512(ix),
                p0 = _mm512_set1_epi8((char)(pad ? pad[0] : 0)),
                pp = _mm512_mask_set1_epi8(p0, pl1, (char)(pad ? pad[1] : 0));
  int64_t r = 0;
  for (; r + 2 <= nr; r += 2) {
    const uint8_t *a = s + (so ? so[r] : r * ss),
                  *b = s + (so ? so[r + 1] : (r + 1) * ss);
    uint8_t *o = d + (dof ? dof[r] : r * ds),
            *o1 = d + (dof ? dof[r + 1] : (r + 1) * ds);
    const __m512i x = _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_maskz_loadu_epi16(km, a)),
        _mm256_maskz_loadu_epi16(km, b), 1);
    const __m512i v = _mm512_mask_blend_epi8(
        keep, pp, _mm512_permutexvar_epi8(p, li_pair_split512(x, ctl, mb)));
    li_pair_store2(o, o1, v);
  }
  return r;
}

/* rows1's rows of 16 elements straight from side to side. */
__attribute__((target("avx2"))) static void
rows16_avx2(const pair *q, int split, const uint8_t *src, const li_rows2 *g,
            int64_t se, int64_t de, uint8_t *dst, int64_t ps, int simd) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const int vb = split && split2_vbmi_ok(q, ps, g->m, simd);
  for (int64_t j = 0; j < g->n2; j++) {
    const uint8_t *sr = src + j * g->sso2 * se;
    uint8_t *dr = dst + j * g->dso2 * de;
    int64_t r = 0;
    if (vb) {
      r = split2_vbmi(q, sr, NULL, g->sso * se, 16, dr, NULL, g->dso * de,
                      g->m, NULL);
      sr += r * g->sso * se;
      dr += r * g->dso * de;
    }
    for (; r < g->m; r++, sr += g->sso * se, dr += g->dso * de)
      if (split) split16_y(q, k0, k1, sr, dr, ps);
      else comb16_y(q, k0, k1, sr, ps, dr);
  }
}

/* rows16_avx2 two rows at a time where two rows lie back to back on both
** sides (planes 16 bytes apart: 64 bytes a side), under AVX-512 VBMI:
** splitting, one multishift takes each element's two plane bytes, (u >>
** h) & m, into bytes pl + 2w of its qword and one byte permute puts them
** in the planes' order; combining, the permute's inverse and
** li_pair_comb's shifts on 32 elements. A row's 32 bytes a register
** took two shuffles a row and two stores (kneron.16w1c8bhl int16
** [1,64,56,56] pack 24.1 -> 20.2 us, unpack 22.5 -> 19.5).
** rows16_vbmi_ok: where the multishift reads no bit of a neighbour (mk
** << h <= 0xffff). */
static int rows16_vbmi_ok(const pair *q, const li_rows2 *g, int64_t se,
                          int64_t de, int64_t ps, int simd) {
  return simd >= LI_SIMD_AVX512 && ps == 16 && g->m >= 2 &&
         g->sso * se == 32 && g->dso * de == 32 &&
         ((q->m0 << q->h0) | (q->m1 << q->h1)) <= 0xffffu && li_have_vbmi();
}

__attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi"))) static void
rows16_vbmi(const pair *q, int split, const uint8_t *src, const li_rows2 *g,
            int64_t se, int64_t de, uint8_t *dst) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const int hi8 = q->h1 == 8; /* plane 1 the high byte (li_pair_comb512) */
  uint8_t ix[64]; /* byte 32 r + 16 pl + e of the planes <-> 32 r + 2 e + pl */
  for (int o = 0; o < 64; o++)
    ix[o] = (uint8_t)(split ? (o & 32) | (o & 15) << 1 | (o >> 4 & 1)
                            : (o & 32) | (o & 1) << 4 | (o & 31) >> 1);
  const __m512i msv = _mm512_set1_epi64((long long)li_pair_ctl(q->h0, q->h1)),
                mb = _mm512_set1_epi16((short)(q->m0 | q->m1 << 8)),
                m0 = _mm512_set1_epi16((short)q->m0),
                m1 = _mm512_set1_epi16((short)(hi8 ? q->m1 << 8 : q->m1)),
                p = _mm512_loadu_si512(ix);
  for (int64_t j = 0; j < g->n2; j++) {
    const uint8_t *sr = src + j * g->sso2 * se;
    uint8_t *dr = dst + j * g->dso2 * de;
    int64_t r = 0;
    for (; r + 2 <= g->m; r += 2, sr += 64, dr += 64) {
      const __m512i x = _mm512_loadu_si512(sr);
      if (split) {
        _mm512_storeu_si512(
            dr, _mm512_permutexvar_epi8(p, li_pair_split512(x, msv, mb)));
      } else {
        _mm512_storeu_si512(dr, li_pair_comb512(_mm512_permutexvar_epi8(p, x),
                                                q->c0, q->c1, m0, m1, hi8));
      }
    }
    if (r < g->m) { /* the odd row */
      if (split) split16_y(q, k0, k1, sr, dr, 16);
      else comb16_y(q, k0, k1, sr, 16, dr);
    }
  }
}

/* rows_grouped's nr rows of 16 elements: split from u's rows (back to
** back) into the planes at d + o[r], or combined from the planes at
** s + o[r] into u's rows. */
__attribute__((target("avx2"))) static void
split_group16(const pair *q, const uint8_t *u, uint8_t *d, const int64_t *o,
              int64_t nr, int64_t ps) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  for (int64_t r = 0; r < nr; r++) split16_y(q, k0, k1, u + 32 * r, d + o[r], ps);
}

/* split_group16 for rows of k < 16 elements (u's rows back to back, 32
** bytes readable past the last) and 16 - k pad bytes after each row in
** both planes (the last block of 16W1C8BHL's rows): a row's 16-element
** load reads on into the next row, its lanes past k become the pads, and
** each plane's 16 bytes are one store. Before, the rows were split and
** a fill box wrote their pads: kneron.16w1c8bhl pack int16 [1,64,56,56]
** 46.9 -> 25.2 us (the row pads fused in plan/box.c, this path). */
__attribute__((target("avx2"))) static void
split_group16p(const pair *q, const uint8_t *u, int64_t k, uint8_t *d,
               const int64_t *o, int64_t nr, int64_t ps, const uint8_t *pad) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const __m128i in = _mm_cmpgt_epi8(
      _mm_set1_epi8((char)k),
      _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
  const __m256i keep = _mm256_set_m128i(in, in),
                pv = _mm256_set_m128i(_mm_set1_epi8((char)pad[1]),
                                      _mm_set1_epi8((char)pad[0]));
  for (int64_t r = 0; r < nr; r++) {
    const __m256i p =
        _mm256_blendv_epi8(pv, split16_v(q, k0, k1, u + 2 * k * r), keep);
    uint8_t *dr = d + o[r];
    _mm_storeu_si128((__m128i *)(void *)dr, _mm256_castsi256_si128(p));
    _mm_storeu_si128((__m128i *)(void *)(dr + ps), _mm256_extracti128_si256(p, 1));
  }
}

__attribute__((target("avx2"))) static void
comb_group16(const pair *q, const uint8_t *s, const int64_t *o, uint8_t *u,
             int64_t nr, int64_t ps) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  for (int64_t r = 0; r < nr; r++) comb16_y(q, k0, k1, s + o[r], ps, u + 32 * r);
}

/* comb16_y's element bits, of the planes' first lanes of km alone (no
** byte past them read), in a register. */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"), always_inline)) static inline __m256i
comb16_m(const pair *q, __m256i k0, __m256i k1, __mmask16 km, const uint8_t *s,
         int64_t ps) {
  return li_pair_comb(_mm_maskz_loadu_epi8(km, s), _mm_maskz_loadu_epi8(km, s + ps),
                      q->c0, q->c1, k0, k1);
}

/* comb_group16 for rows of k < 16 elements, back to back in u, under
** AVX-512 masks (no byte past a row read or written), where combine2q
** takes 8 elements a step with SSE and the rest one by one
** (kneron.16w1c8bhl_q unpack fp32 [4,32,28,28]: a row's last 12 pixels). */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void
comb_groupk(const pair *q, const uint8_t *s, const int64_t *o, uint8_t *u,
            int64_t nr, int64_t ps, int64_t k) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const __mmask16 km = (__mmask16)((1u << k) - 1u);
  for (int64_t r = 0; r < nr; r++)
    _mm256_mask_storeu_epi16(u + 2 * k * r, km,
                             comb16_m(q, k0, k1, km, s + o[r], ps));
}

/* rows16_avx2 for rows of k < 16 elements, under AVX-512 masks (no lane
** past k read or written), where split2q and combine2q take 8 and 4
** elements a step and the rest one by one. */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void
rowsk_avx512(const pair *q, int split, const uint8_t *src, const li_rows2 *g,
             int64_t se, int64_t de, uint8_t *dst, int64_t ps, int64_t k) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const __mmask16 km = (__mmask16)((1u << k) - 1u);
  for (int64_t j = 0; j < g->n2; j++) {
    const uint8_t *sr = src + j * g->sso2 * se;
    uint8_t *dr = dst + j * g->dso2 * de;
    for (int64_t r = 0; r < g->m; r++, sr += g->sso * se, dr += g->dso * de)
      if (split) {
        const __m256i p =
            split16_x(q, k0, k1, _mm256_maskz_loadu_epi16(km, sr));
        _mm_mask_storeu_epi8(dr, km, _mm256_castsi256_si128(p));
        _mm_mask_storeu_epi8(dr + ps, km, _mm256_extracti128_si256(p, 1));
      } else {
        _mm256_mask_storeu_epi16(dr, km, comb16_m(q, k0, k1, km, sr, ps));
      }
  }
}

/* split_group16p's rows read where they lie (row r at s + so[r]), k <= 16
** 16-bit elements each under an AVX-512 mask (no lane past k is read),
** with no copy of them into a buffer first: kneron.16w1c8bhl pack int16
** [4,32,28,28] (rows of 12 + 4 pad) spent ~30% of its time in that copy. */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void
split_rows16p(const pair *q, const uint8_t *s, const int64_t *so, int64_t k,
              uint8_t *d, const int64_t *o, int64_t nr, int64_t ps,
              const uint8_t *pad) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const __mmask16 km = (__mmask16)((1u << k) - 1u);
  const __m128i in = _mm_movm_epi8(km);
  const __m256i keep = _mm256_set_m128i(in, in),
                pv = _mm256_set_m128i(_mm_set1_epi8((char)pad[1]),
                                      _mm_set1_epi8((char)pad[0]));
  int64_t r = 0;
  if (split2_vbmi_ok(q, ps, nr, LI_SIMD_AVX512))
    r = split2_vbmi(q, s, so, 0, k, d, o, 0, nr, pad);
  for (; r < nr; r++) {
    const __m256i x = _mm256_maskz_loadu_epi16(km, s + so[r]);
    const __m256i p = _mm256_blendv_epi8(pv, split16_x(q, k0, k1, x), keep);
    uint8_t *dr = d + o[r];
    _mm_storeu_si128((__m128i *)(void *)dr, _mm256_castsi256_si128(p));
    _mm_storeu_si128((__m128i *)(void *)(dr + ps), _mm256_extracti128_si256(p, 1));
  }
}

/* Its inverse without pads: rows of k <= 16 elements combined from the
** planes at s + o[r] and stored at d + dof[r], both under masks (no byte
** past k read or written), not through a buffer and a copy a row. */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void
comb_rows16(const pair *q, const uint8_t *s, const int64_t *o, int64_t k,
            uint8_t *d, const int64_t *dof, int64_t nr, int64_t ps) {
  const __m256i k0 = _mm256_set1_epi16((short)q->m0),
                k1 = _mm256_set1_epi16((short)q->m1);
  const __mmask16 km = (__mmask16)((1u << k) - 1u);
  for (int64_t r = 0; r < nr; r++)
    _mm256_mask_storeu_epi16(d + dof[r], km, comb16_m(q, k0, k1, km, s + o[r], ps));
}
#endif

/* One row at a time, straight from side to side. */
static void rows1(const li_side *S, const li_side *D, const uint8_t *src,
                  const li_rows2 *g, uint8_t *dst, int64_t k, int64_t cb) {
  const int ids = S->v.kind == LI_VR_ID && D->v.kind == LI_VR_ID;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  _Alignas(64) uint8_t u[2 * RB], t[8 * RB];
  if (ids && !(S->v.nplanes && D->v.nplanes)) { /* the bits, split or combined */
    const pair q = pair_of(D->v.nplanes ? &D->v : &S->v);
    const int64_t ps = D->v.nplanes ? D->pstride : S->pstride;
#if defined(LI_HAVE_X86_TARGET) && defined(__SSE2__)
    if (k == 16 && rows16_vbmi_ok(&q, g, se, de, ps, S->v.simd)) {
      rows16_vbmi(&q, D->v.nplanes != 0, src, g, se, de, dst);
      return;
    }
    if (k == 16 && S->v.simd >= LI_SIMD_AVX2) {
      rows16_avx2(&q, D->v.nplanes != 0, src, g, se, de, dst, ps, S->v.simd);
      return;
    }
    if (k < 16 && S->v.simd >= LI_SIMD_AVX512) {
      rowsk_avx512(&q, D->v.nplanes != 0, src, g, se, de, dst, ps, k);
      return;
    }
#endif
    for (int64_t j = 0; j < g->n2; j++) {
      const uint8_t *sr = src + j * g->sso2 * se;
      uint8_t *dr = dst + j * g->dso2 * de;
      for (int64_t r = 0; r < g->m; r++, sr += g->sso * se, dr += g->dso * de)
        if (D->v.nplanes) split2q(&q, sr, dr, ps, k);
        else combine2q(&q, sr, ps, dr, k);
    }
    return;
  }
  for (int64_t j = 0; j < g->n2; j++)
    for (int64_t r = 0; r < g->m; r++) {
      const uint8_t *sr = src + (j * g->sso2 + r * g->sso) * se;
      uint8_t *dr = dst + (j * g->dso2 + r * g->dso) * de;
      int64_t c = cb + j * g->cso2 + r * g->cso;
      if (!D->v.nplanes) {
        conv_in(S, D, sr, S->pstride, dr, k, c, u);
      } else {
        conv_in(S, D, sr, S->pstride, t, k, c, u);
        split2(&D->v, t, dr, D->pstride, k);
      }
    }
}

/* The next group of rows_grouped's rows, from row *pi of the outer
** loop's step *pj: at most R, of that step alone unless cross. Their
** offsets (bytes) from the first row's in so and dof; in *sc and *dc
** whether they lie back to back (rows of k elements of se and de bytes)
** in S and in D; *pj and *pi move past them. A function of its own, so
** that its counters stay in registers (inlined into rows_grouped they
** lived on the stack, a store and a load every row). */
__attribute__((noinline)) static int64_t
group_rows(const li_rows2 *g, int64_t *pj, int64_t *pi, int64_t R, int cross,
           int64_t k, int64_t se, int64_t de, int64_t *so, int64_t *dof,
           int *sc, int *dc) {
  const int64_t m = g->m, i = *pi;
  const int64_t ss = g->sso * se, ds = g->dso * de;
  const int64_t left = cross ? (g->n2 - *pj) * m - i : m - i;
  const int64_t nr = left < R ? left : R;
  /* the group's rows, step by step: row a of a step at o + a * ss, o the
  ** step's row 0 (the flags and the counters out of the loop: a step of
  ** 3 rows, with them in it, took ~20 cycles) */
  int64_t os = -i * ss, od = -i * ds;
  for (int64_t q = 0, a = i; q < nr; a = 0) {
    const int64_t t = m - a < nr - q ? m - a : nr - q;
    for (int64_t x = a; x < a + t; x++, q++) {
      so[q] = os + x * ss;
      dof[q] = od + x * ds;
    }
    os += g->sso2 * se;
    od += g->dso2 * de;
  }
  /* back to back: each row k elements after the one before, in a step
  ** (where one holds two of the rows) and across a step's end (where the
  ** group crosses one) */
  const int two = (nr >= 2 && m - i >= 2) || (m >= 2 && nr - (m - i) >= 2),
            crosses = nr > m - i;
  const int64_t ks = k * se, kd = k * de;
  *sc = (!two || ss == ks) &&
        (!crosses || (g->sso2 - (m - 1) * g->sso) * se == ks);
  *dc = (!two || ds == kd) &&
        (!crosses || (g->dso2 - (m - 1) * g->dso) * de == kd);
  *pj += (i + nr) / m;
  *pi = (i + nr) % m;
  return nr;
}

/* A group's runs (run rows each, from sr + so[r], back to back in the
** group's order) gathered and quantized into u in one pass
** (li_quant_rows), where S holds D's rule's CPU values; 0 else. Through a
** copy of the runs first, the copy was ~37% of kneron.16w1c8bhl_q pack
** fp32 [1,64,56,56]. */
static int quant_runs(const li_side *S, const li_side *D, const uint8_t *sr,
                      const int64_t *so, int64_t nr, int64_t run, int64_t k,
                      int64_t c, uint8_t *u) {
  if (S->v.kind != LI_VR_ID || D->v.kind != LI_VR_QUANT) return 0;
  li_vrule dv;
  const li_vrule *dr = rule_of(&D->v, c, &dv);
  int64_t ro[RB];
  const int64_t *o = so;
  if (run > 1) { /* the runs' offsets: every run-th row's */
    for (int64_t r = 0, q = 0; r < nr; r += run) ro[q++] = so[r];
    o = ro;
  }
  return li_quant_rows(dr, sr, o, nr / run, run * k, u, NULL);
}

/* Its inverse: the group's nr rows of k elements, back to back from u,
** dequantized straight into D's rows at dr + dof[r] (li_dequant_rows),
** where D holds S's rule's CPU values; 0 else. */
static int dequant_runs(const li_side *S, const li_side *D, const uint8_t *u,
                        uint8_t *dr, const int64_t *dof, int64_t nr, int64_t k,
                        int64_t c) {
  if (D->v.kind != LI_VR_ID || S->v.kind != LI_VR_QUANT) return 0;
  li_vrule sv;
  return li_dequant_rows(rule_of(&S->v, c, &sv), u, NULL, dr, dof, nr, k);
}

/* dequant_runs from S's pair of planes at sr + so[r], combined in
** registers (li_dequant_pairs): no pass through u. */
static int dequant_pairs(const li_side *S, const li_side *D, const pair *q,
                         const uint8_t *sr, const int64_t *so, uint8_t *dr,
                         const int64_t *dof, int64_t nr, int64_t k,
                         int64_t c) {
  if (D->v.kind != LI_VR_ID || S->v.kind != LI_VR_QUANT || D->v.nplanes)
    return 0;
  li_vrule sv;
  const int sh[2] = {q->h0, q->h1};
  const uint32_t mk[2] = {q->m0, q->m1};
  return li_dequant_pairs(rule_of(&S->v, c, &sv), sr, so, S->pstride, sh, mk,
                          dr, dof, nr, k);
}

/* quant_runs into D's pair of planes at dr + dof[r], split in registers
** with post pad bytes after each row (li_quant_pairs): no pass through u
** or t. */
static int quant_pairs(const li_side *S, const li_side *D, const pair *q,
                       const uint8_t *sr, const int64_t *so, uint8_t *dr,
                       const int64_t *dof, int64_t nr, int64_t k, int64_t c,
                       int64_t post, const uint8_t *pad) {
  if (S->v.kind != LI_VR_ID || D->v.kind != LI_VR_QUANT || S->v.nplanes)
    return 0;
  li_vrule dv;
  const int sh[2] = {q->h0, q->h1};
  const uint32_t mk[2] = {q->m0, q->m1};
  const uint8_t z[2] = {0, 0};
  return li_quant_pairs(rule_of(&D->v, c, &dv), sr, so, D->pstride, sh, mk,
                        post ? pad : z, post, dr, dof, nr, k);
}

/* Groups of up to R rows (of one channel unless cross) through L1. */
static void rows_grouped(const li_side *S, const li_side *D,
                         const uint8_t *src, const li_rows2 *g, uint8_t *dst,
                         int64_t k, int64_t cb, int64_t R, int cross,
                         int64_t pre, int64_t post, const uint8_t *pad) {
  const int ids = S->v.kind == LI_VR_ID && D->v.kind == LI_VR_ID;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int64_t rs = run_esz(S), rd = run_esz(D);
  const int64_t sps = S->pstride, dps = D->pstride;
  /* 32 bytes past their rows: split_group16p's loads read on */
  _Alignas(64) uint8_t u[2 * RB + 32], sb[8 * RB], t[8 * RB];
  int64_t so[RB], dof[RB]; /* the group's rows (bytes from sr, dr) */
  int64_t j = 0, i = 0; /* the next row */
  /* Groups of whole steps where a step's rows fit: then a step's rows,
  ** when back to back in S, are one run to gather (a copy a row was most
  ** of kneron.16w1c8bhl_q pack's time). */
  int64_t run = 1;
  if (g->m <= R) {
    if (cross) R -= R % g->m;
    if (g->sso == k && !S->v.nplanes) run = g->m;
  }
  /* the planes' shifts and masks, made once a call */
  const pair qs = pair_of(S->v.nplanes ? &S->v : &D->v),
             qd = pair_of(D->v.nplanes ? &D->v : &S->v);
  /* A group of R rows that began and ended at a step's first row: the
  ** next one from a step's first row has the same offsets (kept: rk rows,
  ** rsc and rdc), built once (group_rows a group was ~17% of
  ** kneron.16w1c8bhl_q's time, 3 rows a step); the last group, shorter,
  ** their first rows (rows back to back stay so in a prefix): a call of
  ** kneron.16w1c8bhl_qc pack [1,64,56,56] (a channel, 3 groups) built 2
  ** of them, now 1. */
  int64_t rk = 0;
  int rsc = 0, rdc = 0;
  /* the bits moved between the rows where they lie, 16 at a time under
  ** AVX-512 masks (split_rows16p, comb_rows16) */
  const int direct16 =
      ids && k <= 16 && !pre && (S->v.nplanes != 0) != (D->v.nplanes != 0) &&
      (D->v.nplanes ? D->v.simd >= LI_SIMD_AVX512 && post && k + post == 16
                    : S->v.simd >= LI_SIMD_AVX512);
  while (j < g->n2) {
    const uint8_t *sr = src + (j * g->sso2 + i * g->sso) * se;
    uint8_t *dr = dst + (j * g->dso2 + i * g->dso) * de;
    const int64_t c = cb + j * g->cso2 + i * g->cso;
    int sc, dcon; /* rows back to back in S's plane, D's */
    int64_t nr;
    if (rk && i == 0) { /* the last group a prefix of them */
      nr = (g->n2 - j) * g->m < rk ? (g->n2 - j) * g->m : rk;
      j += nr / g->m;
      sc = rsc;
      dcon = rdc;
    } else {
      const int i0 = i == 0;
      nr = group_rows(g, &j, &i, R, cross, k, se, de, so, dof, &sc, &dcon);
      if (i0 && i == 0 && nr == R && cross) {
        rk = nr;
        rsc = sc;
        rdc = dcon;
      }
    }
#if defined(LI_HAVE_X86_TARGET) && defined(__SSE2__)
    if (direct16 && !(S->v.nplanes && sc)) {
      if (S->v.nplanes) comb_rows16(&qs, sr, so, k, dr, dof, nr, sps);
      else split_rows16p(&qd, sr, so, k, dr, dof, nr, dps, pad);
      continue;
    }
#endif
    if (S->v.nplanes && !sc && !ids &&
        dequant_pairs(S, D, &qs, sr, so, dr, dof, nr, k, c))
      continue;
    if (D->v.nplanes && !ids && !pre &&
        quant_pairs(S, D, &qd, sr, so, dr, dof, nr, k, c, post, pad))
      continue;
    const int64_t n = nr * k;
    const uint8_t *bits = sr; /* S's run elements, back to back */
    if (S->v.nplanes && sc) {
      combine2(&S->v, sr, sps, u, n);
      bits = u;
    } else if (S->v.nplanes) { /* row by row from the planes */
#if defined(LI_HAVE_X86_TARGET) && defined(__SSE2__)
      if (k == 16 && S->v.simd >= LI_SIMD_AVX2)
        comb_group16(&qs, sr, so, u, nr, sps);
      else if (k < 16 && rs == 2 && S->v.simd >= LI_SIMD_AVX512)
        comb_groupk(&qs, sr, so, u, nr, sps, k);
      else
#endif
        for (int64_t r = 0; r < nr; r++)
          combine2q(&qs, sr + so[r], sps, u + r * k * rs, k);
      bits = u;
    }
    const int dc = !D->v.nplanes && dcon;
    const uint8_t *out = bits; /* D's run elements, back to back */
    int conv = !ids; /* the value rule still to run */
    if (!sc && !S->v.nplanes && conv &&
        quant_runs(S, D, sr, so, nr, run, k, c, dc ? dr : t)) {
      out = dc ? NULL : t; /* gathered and quantized in one pass */
      conv = 0;
    } else if (!sc && !S->v.nplanes) { /* gathered: a copy per run of rows
                                          ** back to back */
      for (int64_t r = 0; r < nr; r += run)
        cpy(sb + r * k * rs, sr + so[r], (size_t)(run * k * rs));
      bits = out = sb;
    }
    if (conv && !D->v.nplanes && !dc &&
        dequant_runs(S, D, bits, dr, dof, nr, k, c)) {
      out = NULL; /* dequantized into D's rows in one pass */
      conv = 0;
    }
    if (conv) {
      conv_run(S, D, bits, dc ? dr : t, n, c);
      out = dc ? NULL : t;
    }
    if (D->v.nplanes && dcon && !pre && !post) {
      split2(&D->v, out, dr, dps, n);
    } else if (D->v.nplanes && (pre || post)) { /* rows and their pads */
#if defined(LI_HAVE_X86_TARGET) && defined(__SSE2__)
      if (!pre && k + post == 16 && out != sr && D->v.simd >= LI_SIMD_AVX2)
        split_group16p(&qd, out, k, dr, dof, nr, dps, pad);
      else
#endif
        for (int64_t r = 0; r < nr; r++) {
          uint8_t *e = dr + dof[r];
          split2q(&qd, out + r * k * rd, e, dps, k);
          for (int q = 0; q < 2; q++) {
            padb(e - pre + q * dps, pre, pad[q]);
            padb(e + k + q * dps, post, pad[q]);
          }
        }
    } else if (D->v.nplanes) { /* row by row into the planes */
#if defined(LI_HAVE_X86_TARGET) && defined(__SSE2__)
      if (k == 16 && D->v.simd >= LI_SIMD_AVX2)
        split_group16(&qd, out, dr, dof, nr, dps);
      else
#endif
        for (int64_t r = 0; r < nr; r++)
          split2q(&qd, out + r * k * rd, dr + dof[r], dps, k);
    } else if (out && dc) {
      memcpy(dr, out, (size_t)(n * rd));
    } else if (out) {
      for (int64_t r = 0; r < nr; r++)
        cpy(dr + dof[r], out + r * k * rd, (size_t)(k * rd));
    }
  }
}

/* 0 when the rows are not of that shape. */
static int conv_direct_planes(const li_side *S, const li_side *D,
                              const uint8_t *src, const li_rows2 *g,
                              int64_t ssi, uint8_t *dst, int64_t dsi,
                              int64_t k, int64_t cb, int64_t csi,
                              int64_t pre, int64_t post, const uint8_t *pad) {
  int perch = (S->v.axis >= 0 && S->v.nch > 1) || (D->v.axis >= 0 && D->v.nch > 1);
  const int ids = S->v.kind == LI_VR_ID && D->v.kind == LI_VR_ID;
  const int pads = pre || post; /* D's planes' row pads (rows_grouped) */
  if (ssi != 1 || dsi != 1 || k > RB || (pads && !D->v.nplanes) ||
      (perch && csi != 0) || (!S->v.nplanes && !D->v.nplanes) ||
      !planes_ok(S) || !planes_ok(D) || !tr_esz(S->esz) || !tr_esz(D->esz) ||
      !tr_rule_ok(&S->v) || !tr_rule_ok(&D->v) ||
      (ids && run_esz(S) != run_esz(D)))
    return 0;
  if (!pads && ((perch && g->cso != 0 && k >= 16) || (ids && k >= 8)))
    rows1(S, D, src, g, dst, k, cb);
  else
    rows_grouped(S, D, src, g, dst, k, cb,
                 perch && g->cso != 0 ? 1 : RB / k, !perch || g->cso2 == 0,
                 pre, post, pad);
  return 1;
}

/* nr rows of n bytes, d = s & the pattern M (32 bytes, its period
** dividing 16); row q at d + q * dr, s + q * sr. A function a level, the
** rows' loop inside it: a call a row of 38 bytes (kneron.8w1c16b's 19
** pixels) cost more than the row. */
#if defined(LI_HAVE_X86_TARGET)
__attribute__((target("avx2"))) static void and_rows_avx2(
    uint8_t *d, int64_t dr, const uint8_t *s, int64_t sr, int64_t nr,
    const uint8_t *M, int64_t n) {
  const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)M);
  for (int64_t q = 0; q < nr; q++, d += dr, s += sr) {
    int64_t i = 0;
    for (; i + 32 <= n; i += 32)
      _mm256_storeu_si256(
          (__m256i *)(void *)(d + i),
          _mm256_and_si256(
              _mm256_loadu_si256((const __m256i *)(const void *)(s + i)), m));
    for (; i < n; i++) d[i] = s[i] & M[i & 31];
  }
}

/* The same with a row's last step under a byte mask: no byte-by-byte
** tail. 32-byte steps: 64-byte ones took 4% more on long rows
** (kneron.8w1c16b unpack int16 [1,64,56,56]). */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void
and_rows_512(uint8_t *d, int64_t dr, const uint8_t *s, int64_t sr, int64_t nr,
             const uint8_t *M, int64_t n) {
  const __m256i m = _mm256_loadu_si256((const __m256i *)(const void *)M);
  const int64_t nf = n & ~(int64_t)31;
  const __mmask32 k = n > nf ? (__mmask32)(~0u >> (32 - (n - nf))) : 0;
  for (int64_t q = 0; q < nr; q++, d += dr, s += sr) {
    for (int64_t i = 0; i < nf; i += 32)
      _mm256_storeu_si256(
          (__m256i *)(void *)(d + i),
          _mm256_and_si256(
              _mm256_loadu_si256((const __m256i *)(const void *)(s + i)), m));
    if (k)
      _mm256_mask_storeu_epi8(
          d + nf, k, _mm256_and_si256(_mm256_maskz_loadu_epi8(k, s + nf), m));
  }
}
#endif

static void and_rows(uint8_t *d, int64_t dr, const uint8_t *s, int64_t sr,
                     int64_t nr, const uint8_t *M, int64_t n, int simd) {
#if defined(LI_HAVE_X86_TARGET)
  if (simd >= LI_SIMD_AVX512) {
    and_rows_512(d, dr, s, sr, nr, M, n);
    return;
  }
  if (simd >= LI_SIMD_AVX2) {
    and_rows_avx2(d, dr, s, sr, nr, M, n);
    return;
  }
#endif
  for (int64_t q = 0; q < nr; q++, d += dr, s += sr) {
    int64_t i = 0;
#if defined(__SSE2__)
    if (simd >= LI_SIMD_SSE) {
      const __m128i m = _mm_loadu_si128((const __m128i *)(const void *)M);
      for (; i + 16 <= n; i += 16)
        _mm_storeu_si128(
            (__m128i *)(void *)(d + i),
            _mm_and_si128(
                _mm_loadu_si128((const __m128i *)(const void *)(s + i)), m));
    }
#endif
    for (; i < n; i++) d[i] = s[i] & M[i & 31];
  }
}

/* Byte planes that are the element's own bytes (plane q its bits from 8q,
** the planes of an element back to back: pstride 1, the element np bytes
** on both sides): each row the source's bytes ANDed with the masks, both
** ways (kneron.8w1c16b's lo & 0xfe, hi: its rows went element by element
** through the tiles, 1 ns an element; unpack int16 [1,3,224,224] 152 ->
** 7.4 us, memcpy 7.4; [1,64,56,56] 202 -> 10.6 us). A value rule on the
** planes' side (the pair's 16-bit bits quantized from or dequantized to
** the CPU side, one channel a row) runs over the rows of a group back to
** back in an L1 buffer, then the AND (kneron.8w1c16b_q(0.75, 12) pack
** fp32 [2,5,17,19] 7.0 -> 0.85 us, unpack 4.3 -> 0.65; [1,3,224,224] pack
** 181 -> 21 us). */
static int conv_masked(const li_side *S, const li_side *D, const uint8_t *src,
                       const li_rows2 *g, int64_t ssi, uint8_t *dst,
                       int64_t dsi, int64_t k, int64_t cb, int64_t csi,
                       int64_t pre, int64_t post) {
  const li_side *P = D->v.nplanes ? D : S, *C = D->v.nplanes ? S : D;
  const int np = P->v.nplanes, pack = P == D;
  const int ids = P->v.kind == LI_VR_ID,
            perch = P->v.axis >= 0 && P->v.nch > 1;
  if (pre || post || (S->v.nplanes && D->v.nplanes) || np < 1 || np > 16 ||
      16 % np || P->esz != 1 || P->pstride != 1 || C->v.kind != LI_VR_ID ||
      (pack ? dsi : ssi) != np || (pack ? ssi : dsi) != 1 ||
      (perch && csi != 0))
    return 0;
  if (ids ? C->esz != (size_t)np || li_dt_size(P->v.cpu) != (size_t)np
          : np != 2 || !li_pair_planes(&P->v))
    return 0;
  uint8_t M[32];
  for (int q = 0; q < np; q++)
    if (P->v.shift[q] != 8 * q) return 0;
  for (int i = 0; i < 32; i++) /* np divides 16 */
    M[i] = (uint8_t)(P->v.mask[i & (np - 1)] & 0xffu);
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  if (ids) {
    for (int64_t j = 0; j < g->n2; j++)
      and_rows(dst + j * g->dso2 * de, g->dso * de, src + j * g->sso2 * se,
               g->sso * se, g->m, M, k * np, S->v.simd);
    return 1;
  }
  /* groups of rows of one step of the outer loop, back to back on the
  ** CPU side (one channel unless the rule is per tensor), at most RB
  ** elements; a row longer than that in pieces */
  _Alignas(64) uint8_t u[2 * RB];
  const int64_t cs = pack ? g->sso : g->dso, ce = (int64_t)C->esz;
  const int64_t R = cs == k && k <= RB && !(perch && g->cso) ? RB / k : 1;
  for (int64_t j = 0; j < g->n2; j++)
    for (int64_t r = 0; r < g->m; r += R) {
      const int64_t nr = g->m - r < R ? g->m - r : R;
      const uint8_t *s = src + (j * g->sso2 + r * g->sso) * se;
      uint8_t *d = dst + (j * g->dso2 + r * g->dso) * de;
      const int64_t c = cb + j * g->cso2 + r * g->cso;
      for (int64_t i = 0; i < (nr > 1 ? 1 : k); i += RB) {
        const int64_t n = nr > 1 ? nr * k : (k - i < RB ? k - i : RB);
        const int64_t rn = (nr > 1 ? k : n) * 2; /* a row's bytes */
        if (pack) {
          conv_run(S, D, s + i * ce, u, n, c);
          and_rows(d + i * 2, g->dso * de, u, rn, nr, M, rn, S->v.simd);
        } else {
          and_rows(u, rn, s + i * 2, g->sso * se, nr, M, rn, S->v.simd);
          conv_run(S, D, u, d + i * ce, n, c);
        }
      }
    }
  return 1;
}

/* Rows over two loops (n2 of them, strides sso2/dso2/cso2, around m
** rows of strides sso/dso/cso), each of k elements: as many whole rows a
** tile as TILE holds, so that short rows (4 channels of a block) still
** fill the tile and the value rules run over long vectors. */
void li_conv_rows(const li_side *S, const li_side *D, const uint8_t *src,
                  const li_rows2 *g, int64_t ssi, uint8_t *dst, int64_t dsi,
                  int64_t k, int64_t cb, int64_t csi, int64_t pre,
                  int64_t post, const uint8_t *pad) {
  if (conv_masked(S, D, src, g, ssi, dst, dsi, k, cb, csi, pre, post) ||
      conv_tr(S, D, src, g, ssi, dst, dsi, k, cb, csi, pre, post) ||
      conv_direct(S, D, src, g, ssi, dst, dsi, k, cb, csi, pre, post, pad) ||
      conv_direct_planes(S, D, src, g, ssi, dst, dsi, k, cb, csi, pre, post,
                         pad))
    return;
  int32_t ch[TILE];
  int64_t so[TILE], dof[TILE], co[TILE];
  int perch = S->v.axis >= 0 || D->v.axis >= 0;
  int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  int64_t R = k <= TILE ? TILE / k : 1, kk = k <= TILE ? k : TILE;
  int64_t rows = g->n2 * g->m, r = 0; /* r: the next row's index in g->m */
  /* the next row's offsets (bytes) and channel, stepped row by row */
  int64_t xs = 0, xd = 0, xc = cb;
  const int64_t ss = g->sso * se, ds = g->dso * de;
  const int64_t ss2 = g->sso2 * se - g->m * ss, ds2 = g->dso2 * de - g->m * ds,
                cs2 = g->cso2 - g->m * g->cso;
  for (int64_t q0 = 0; q0 < rows; q0 += R) {
    int64_t m = rows - q0 < R ? rows - q0 : R;
    for (int64_t q = 0; q < m; q++) {
      so[q] = xs;
      dof[q] = xd;
      co[q] = xc;
      xs += ss;
      xd += ds;
      xc += g->cso;
      if (++r == g->m) { /* to the next step of the outer loop */
        r = 0;
        xs += ss2;
        xd += ds2;
        xc += cs2;
      }
    }
    for (int64_t i0 = 0; i0 < k; i0 += kk) {
      int64_t w = k - i0 < kk ? k - i0 : kk;
      if (perch)
        for (int64_t q = 0; q < m; q++)
          for (int64_t i = 0; i < w; i++)
            ch[q * w + i] = (int32_t)(co[q] + (i0 + i) * csi);
      conv_tile(S, D, src + i0 * ssi * se, so, ssi, dst + i0 * dsi * de, dof,
                dsi, m, w, perch ? ch : NULL, i0 == 0 ? pre : 0,
                i0 + w == k ? post : 0, pad);
    }
  }
}

void li_conv_block(const li_side *S, const li_side *D, const uint8_t *src,
                   int64_t sso, int64_t ssi, uint8_t *dst, int64_t dso,
                   int64_t dsi, int64_t rows, int64_t k, int64_t cb,
                   int64_t cso, int64_t csi, int64_t pre, int64_t post,
                   const uint8_t *pad) {
  li_rows2 g = {1, 0, 0, 0, rows, sso, dso, cso};
  li_conv_rows(S, D, src, &g, ssi, dst, dsi, k, cb, csi, pre, post, pad);
}
