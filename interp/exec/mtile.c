/*
** mtile.c: the macro tile (kernel MTILE, plan_int.h li_mtile), the
** general engine's register tile for any box whose innermost digits on
** the two sides differ (after HPTT's micro-kernels, generalized by the
** digits the planner gives each register, lane and position:
** plan/mtile.c).
**
** A tile is 2^k registers of 16, 32 or 64 bytes (SSE2, AVX2, AVX-512BW:
** 1, 2 or 4 lanes of 16 bytes). Each lane of a register is loaded from a
** 16-byte chunk of the source, whose place the plan's table gives; rho
** rounds of the perfect shuffle (tr.c's network: register i with register
** i + NR/2, unpacklo into 2i, unpackhi into 2i + 1, at the unit's width)
** rotate each lane's index (register bits above position bits) left by
** rho bits; each lane of each register is then stored as a 16-byte chunk
** at the place the other table gives. The same three steps make every
** shape: a full T x T transposition (rho = k = log2 T), m < T rows
** interleaved into groups (rho = k), groups split into rows (rho =
** log2 T), or 16-byte chunks copied (k = 0). Where a register's lanes are
** 16 bytes apart on a side, it is loaded or stored whole.
**
** The tile repeats over up to three loops of its own and the box's
** innermost loop with plain pointer steps: one call of the kernel moves
** many tiles.
*/
#include <string.h>

#include "plan_int.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
#include <immintrin.h>
#define MT_X86 1
#endif

int64_t li_mtile_bytes(const li_mtile *t) {
  int64_t n = (int64_t)16 << (t->k + t->lanes);
  for (int i = 0; i < 3; i++) n *= t->l[i].n;
  return n;
}

/* ---- The definition ---------------------------------------------------- */

/* A chunk's code (register index, lane bits above) after the swaps sw. */
static unsigned swapped(unsigned c, int k, const int8_t (*sw)[2], int n) {
  for (int q = 0; q < n; q++) {
    unsigned m = (unsigned)sw[q][0], b = (unsigned)(k + sw[q][1]);
    unsigned x = (c >> m ^ c >> b) & 1;
    c ^= x << m | x << b;
  }
  return c;
}

/* One tile at s, d, element by element: unit p of the chunk the network
** holds in lane l of register i goes to the place the rotation gives. */
static void tile_ref(const uint8_t *s, uint8_t *d, const li_mtile *t) {
  const int tb = 4 - t->lg, bits = t->k + tb, k = t->k;
  const size_t g = (size_t)1 << t->lg;
  const unsigned mask = (1u << bits) - 1;
  for (unsigned l = 0; l < 1u << t->lanes; l++)
    for (unsigned x = 0; x < 1u << bits; x++) {
      unsigned y = bits ? ((x << t->rho) | (x >> (bits - t->rho))) & mask : 0;
      unsigned i = x >> tb, p = x & ((1u << tb) - 1);
      unsigned j = y >> tb, q = y & ((1u << tb) - 1);
      unsigned ci = swapped(i | l << k, k, t->lsw, t->nls);
      unsigned co = swapped(j | l << k, k, t->ssw, t->nss);
      memcpy(d + t->out[co] + q * g, s + t->in[ci] + p * g, g);
    }
}

/* The loops around a tile: the box's loop outside, then l[2], l[1],
** l[0]; a loop's last iteration at (sl, dl). ONE(sp, dp, ...) moves a
** tile (the arguments after d0 are its own). The innermost loop steps its
** pointers (a step to the last iteration of its own), where an offset
** chosen and multiplied each tile cost amd.hcwnc4 pack int8 [1,37,29,23]
** ~20% (1.81 -> 1.48 us, min of 7). */
#define MT_LOOPS(ONE, lp, s, d, n0, s0, d0, ...)                             \
  do {                                                                       \
    const li_mloop *l0_ = &(lp)[0], *l1_ = &(lp)[1], *l2_ = &(lp)[2];        \
    const int64_t ss_ = l0_->ss, ds_ = l0_->ds, m_ = l0_->n - 1;             \
    /* the step to the last iteration, from the one before */               \
    const int64_t sj_ = l0_->sl - (m_ - 1) * ss_,                            \
                  dj_ = l0_->dl - (m_ - 1) * ds_;                            \
    for (int64_t a_ = 0; a_ < (n0); a_++) {                                  \
      const uint8_t *sa_ = (s) + a_ * (s0);                                  \
      uint8_t *da_ = (d) + a_ * (d0);                                        \
      for (int64_t b_ = 0; b_ < l2_->n; b_++) {                              \
        const int lb_ = b_ + 1 == l2_->n;                                    \
        const uint8_t *sb_ = sa_ + (lb_ ? l2_->sl : b_ * l2_->ss);           \
        uint8_t *db_ = da_ + (lb_ ? l2_->dl : b_ * l2_->ds);                 \
        for (int64_t c_ = 0; c_ < l1_->n; c_++) {                            \
          const int lc_ = c_ + 1 == l1_->n;                                  \
          const uint8_t *sc_ = sb_ + (lc_ ? l1_->sl : c_ * l1_->ss);         \
          uint8_t *dc_ = db_ + (lc_ ? l1_->dl : c_ * l1_->ds);               \
          const uint8_t *se_ = sc_ + (m_ ? 0 : l0_->sl);                     \
          uint8_t *de_ = dc_ + (m_ ? 0 : l0_->dl);                           \
          for (int64_t e_ = 0; e_ <= m_; e_++) {                             \
            ONE(se_, de_, __VA_ARGS__);                                      \
            const int ln_ = e_ + 1 == m_; /* the next is the last */         \
            se_ += ln_ ? sj_ : ss_;                                          \
            de_ += ln_ ? dj_ : ds_;                                          \
          }                                                                  \
        }                                                                    \
      }                                                                      \
    }                                                                        \
  } while (0)

void li_mtile_ref(const li_mtile *t, const uint8_t *s, uint8_t *d,
                  int64_t n0, int64_t s0, int64_t d0) {
  MT_LOOPS(tile_ref, t->l, s, d, n0, s0, d0, t);
}

/* ---- The SIMD tiles ------------------------------------------------------
** MT_SHAPES: (name, unit bits W, registers NR, rounds RHO, FULL: a full
** transposition or the copy, else rows interleaved or split) of every tile
** the planner makes: chunks copied (NR 1), then for each unit of 1, 2, 4
** and 8 bytes (T = 16, 8, 4, 2 a chunk) NR = 2 .. T registers with rho =
** log2 NR (rows interleaved, or a full transposition at NR = T) or rho =
** log2 T (groups split into rows). */
#define MT_SHAPES(X)                                                         \
  X(c, 8, 1, 0, 1)                                                           \
  X(1_1_1, 8, 2, 1, 0) X(1_1_4, 8, 2, 4, 0) X(1_2_2, 8, 4, 2, 0)             \
  X(1_2_4, 8, 4, 4, 0) X(1_3_3, 8, 8, 3, 0) X(1_3_4, 8, 8, 4, 0)             \
  X(1_4_4, 8, 16, 4, 1)                                                      \
  X(2_1_1, 16, 2, 1, 0) X(2_1_3, 16, 2, 3, 0) X(2_2_2, 16, 4, 2, 0)          \
  X(2_2_3, 16, 4, 3, 0) X(2_3_3, 16, 8, 3, 1)                                \
  X(4_1_1, 32, 2, 1, 0) X(4_1_2, 32, 2, 2, 0) X(4_2_2, 32, 4, 2, 1)          \
  X(8_1_1, 64, 2, 1, 1)

typedef void (*mt_fn)(const li_mtile *, const uint8_t *, uint8_t *, int64_t,
                      int64_t, int64_t);

#if defined(MT_X86)
/* Per register width V (128, 256, 512): the vector type, the target, the
** whole-register load and store, the lane-by-lane load and store (lane l
** of register i at table entry l * NR + i) and the unpacks. */
#define MT_T128 __m128i
#define MT_A128
#define MT_LD128(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define MT_ST128(p, x) _mm_storeu_si128((__m128i *)(void *)(p), (x))
#define MT_LDL128(s, o, i, NR) MT_LD128((s) + (o)[i])
#define MT_STL128(d, o, j, NR, x) MT_ST128((d) + (o)[j], (x))
#define MT_LO128(W, a, b) _mm_unpacklo_epi##W(a, b)
#define MT_HI128(W, a, b) _mm_unpackhi_epi##W(a, b)

#define MT_T256 __m256i
#define MT_A256 __attribute__((target("avx2")))
#define MT_LD256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define MT_ST256(p, x) _mm256_storeu_si256((__m256i *)(void *)(p), (x))
#define MT_LDL256(s, o, i, NR)                                               \
  _mm256_inserti128_si256(_mm256_castsi128_si256(MT_LD128((s) + (o)[i])),    \
                          MT_LD128((s) + (o)[(NR) + (i)]), 1)
#define MT_STL256(d, o, j, NR, x)                                            \
  do {                                                                       \
    MT_ST128((d) + (o)[j], _mm256_castsi256_si128(x));                       \
    MT_ST128((d) + (o)[(NR) + (j)], _mm256_extracti128_si256((x), 1));       \
  } while (0)
#define MT_LO256(W, a, b) _mm256_unpacklo_epi##W(a, b)
#define MT_HI256(W, a, b) _mm256_unpackhi_epi##W(a, b)

#define MT_T512 __m512i
#define MT_A512 __attribute__((target("avx512f,avx512bw")))
#define MT_LD512(p) _mm512_loadu_si512((const void *)(p))
#define MT_ST512(p, x) _mm512_storeu_si512((void *)(p), (x))
#define MT_LDL512(s, o, i, NR)                                               \
  _mm512_inserti32x4(                                                        \
      _mm512_inserti32x4(                                                    \
          _mm512_inserti32x4(                                                \
              _mm512_castsi128_si512(MT_LD128((s) + (o)[i])),                \
              MT_LD128((s) + (o)[(NR) + (i)]), 1),                           \
          MT_LD128((s) + (o)[2 * (NR) + (i)]), 2),                           \
      MT_LD128((s) + (o)[3 * (NR) + (i)]), 3)
#define MT_STL512(d, o, j, NR, x)                                            \
  do {                                                                       \
    MT_ST128((d) + (o)[j], _mm512_castsi512_si128(x));                       \
    LI_ST_LANE512((d) + (o)[(NR) + (j)], (x), 1);                            \
    LI_ST_LANE512((d) + (o)[2 * (NR) + (j)], (x), 2);                        \
    LI_ST_LANE512((d) + (o)[3 * (NR) + (j)], (x), 3);                        \
  } while (0)
#define MT_LO512(W, a, b) _mm512_unpacklo_epi##W(a, b)
#define MT_HI512(W, a, b) _mm512_unpackhi_epi##W(a, b)

/* The lane exchange: register bit b swapped with lane bit b for every
** lane bit (plan_int.h li_mtile: the swaps (0, 0), (1, 1)), over the
** register pairs (i, i + 2^b). On load the swaps run last to first, on
** store first to last; each is its own inverse. */
#define MT_PAIRS(M, r, NR, XCH)                                              \
  LI_UNROLL for (int i_ = 0; i_ < (NR); i_++)                                \
    if (!(i_ & (M)) && (i_ | (M)) < (NR)) XCH(r[i_], r[i_ | (M)])
#define MT_X256(A, B)                                                        \
  do {                                                                       \
    __m256i a_ = (A), b_ = (B);                                              \
    (A) = _mm256_permute2x128_si256(a_, b_, 0x20);                           \
    (B) = _mm256_permute2x128_si256(a_, b_, 0x31);                           \
  } while (0)
#define MT_XLD128(r, NR) (void)(r)
#define MT_XST128(r, NR) (void)(r)
#define MT_XLD256(r, NR) MT_PAIRS(1, r, NR, MT_X256)
#define MT_XST256(r, NR) MT_PAIRS(1, r, NR, MT_X256)
#define MT_XLD512(r, NR)                                                     \
  do {                                                                       \
    MT_PAIRS(2, r, NR, LI_X512L1);                                           \
    MT_PAIRS(1, r, NR, LI_X512L0);                                           \
  } while (0)
#define MT_XST512(r, NR)                                                     \
  do {                                                                       \
    MT_PAIRS(1, r, NR, LI_X512L0);                                           \
    MT_PAIRS(2, r, NR, LI_X512L1);                                           \
  } while (0)

/* What a call reads on every tile, copied out of the plan (whose bytes
** the stores could alias, as far as the compiler knows): the offsets a
** tile uses. */
typedef struct mt_loc {
  int64_t in[LI_MT_CHUNKS], out[LI_MT_CHUNKS];
} mt_loc;

static inline __attribute__((always_inline)) void
mt_local(mt_loc *c, const li_mtile *t) {
  const int n = 1 << (t->k + t->lanes), nr = 1 << t->k;
  memcpy(c->in, t->in, sizeof *c->in * (size_t)(t->ldw ? nr : n));
  memcpy(c->out, t->out, sizeof *c->out * (size_t)(t->stw ? nr : n));
}

/* One tile: loads whole (LW) or by lane, exchanged (LX); the network;
** stores the same way (SW, SX). The network is unrolled whole, so that
** the tile stays in registers. */
#define MT_TILE(V, N, W, NR, RHO, F)                                          \
  MT_A##V static inline __attribute__((always_inline)) void mt##V##_##N##_1( \
      const uint8_t *s, uint8_t *d, const mt_loc *t, const int LW,           \
      const int LX, const int SW, const int SX) {                            \
    MT_T##V r[NR];                                                           \
    if (LW) {                                                                \
      LI_UNROLL for (int i = 0; i < (NR); i++) r[i] = MT_LD##V(s + t->in[i]); \
      if (LX) MT_XLD##V(r, NR);                                              \
    } else {                                                                 \
      LI_UNROLL for (int i = 0; i < (NR); i++)                               \
        r[i] = MT_LDL##V(s, t->in, i, NR);                                   \
    }                                                                        \
    LI_UNROLL for (int k_ = 0; k_ < (RHO); k_++) {                           \
      MT_T##V o_[NR];                                                        \
      LI_UNROLL for (int i = 0; i < (NR) / 2; i++) {                         \
        o_[2 * i] = MT_LO##V(W, r[i], r[i + (NR) / 2]);                      \
        o_[2 * i + 1] = MT_HI##V(W, r[i], r[i + (NR) / 2]);                  \
      }                                                                      \
      LI_UNROLL for (int i = 0; i < (NR); i++) r[i] = o_[i];                 \
    }                                                                        \
    if (SW) {                                                                \
      if (SX) MT_XST##V(r, NR);                                              \
      LI_UNROLL for (int j = 0; j < (NR); j++) MT_ST##V(d + t->out[j], r[j]); \
    } else {                                                                 \
      LI_UNROLL for (int j = 0; j < (NR); j++)                               \
        MT_STL##V(d, t->out, j, NR, r[j]);                                   \
    }                                                                        \
  }                                                                          \
  MT_VARIANTS_##V##_##F(V, N)                                              \
  MT_A##V static void mt##V##_##N(const li_mtile *t0, const uint8_t *s,      \
                                  uint8_t *d, int64_t n0, int64_t s0,        \
                                  int64_t d0) {                              \
    MT_DISPATCH_##V##_##F(V, N)(t0, s, d, n0, s0, d0);                       \
  }

/* The variants a width and kind of tile has, and the choice among them:
** one lane loads and stores alike (16 bytes: whole); a full transposition
** or the copy by lane or whole on each side; rows interleaved or split
** whole, exchanged or not (the planner's choices; others: the
** definition). */
#define MT_VARIANTS_128_0(V, N) MT_VARIANT(V, N, 1, 0, 1, 0)
#define MT_VARIANTS_128_1(V, N) MT_VARIANT(V, N, 1, 0, 1, 0)
#define MT_DISPATCH_128_0(V, N) mt##V##_##N##_1010
#define MT_DISPATCH_128_1(V, N) mt##V##_##N##_1010
#define MT_VARIANTS_W_1(V, N)                                                \
  MT_VARIANT(V, N, 0, 0, 0, 0) MT_VARIANT(V, N, 0, 0, 1, 0)                  \
  MT_VARIANT(V, N, 1, 0, 0, 0) MT_VARIANT(V, N, 1, 0, 1, 0)
#define MT_VARIANTS_W_0(V, N)                                                \
  MT_VARIANT(V, N, 1, 0, 1, 0) MT_VARIANT(V, N, 1, 1, 1, 0)                  \
  MT_VARIANT(V, N, 1, 0, 1, 1) MT_VARIANT(V, N, 1, 1, 1, 1)                  \
  MT_VARIANT(V, N, 0, 0, 0, 0) MT_VARIANT(V, N, 1, 0, 0, 0)                  \
  MT_VARIANT(V, N, 1, 1, 0, 0) MT_VARIANT(V, N, 0, 0, 1, 0)                  \
  MT_VARIANT(V, N, 0, 0, 1, 1)
#define MT_VARIANTS_256_1 MT_VARIANTS_W_1
#define MT_VARIANTS_256_0 MT_VARIANTS_W_0
#define MT_VARIANTS_512_1 MT_VARIANTS_W_1
#define MT_VARIANTS_512_0 MT_VARIANTS_W_0
#define MT_DISPATCH_W_1(V, N)                                                \
  (t0->ldw ? (t0->stw ? mt##V##_##N##_1010 : mt##V##_##N##_1000)             \
           : (t0->stw ? mt##V##_##N##_0010 : mt##V##_##N##_0000))
#define MT_DISPATCH_W_0(V, N)                                                \
  (!t0->ldw ? (!t0->stw   ? mt##V##_##N##_0000                               \
               : t0->nss ? mt##V##_##N##_0011                                \
                         : mt##V##_##N##_0010)                               \
   : !t0->stw ? (t0->nls ? mt##V##_##N##_1100 : mt##V##_##N##_1000)          \
   : t0->nls  ? (t0->nss ? mt##V##_##N##_1111 : mt##V##_##N##_1110)          \
              : (t0->nss ? mt##V##_##N##_1011 : mt##V##_##N##_1010))
#define MT_DISPATCH_256_1 MT_DISPATCH_W_1
#define MT_DISPATCH_256_0 MT_DISPATCH_W_0
#define MT_DISPATCH_512_1 MT_DISPATCH_W_1
#define MT_DISPATCH_512_0 MT_DISPATCH_W_0

/* The loops of one tile variant: mt<V>_<name>_<LW LX SW SX>. */
#define MT_VARIANT(V, N, LW, LX, SW, SX)                                     \
  MT_A##V static void mt##V##_##N##_##LW##LX##SW##SX(                        \
      const li_mtile *t0, const uint8_t *s, uint8_t *d, int64_t n0,          \
      int64_t s0, int64_t d0) {                                              \
    mt_loc k_loc;                                                            \
    mt_local(&k_loc, t0);                                                    \
    const mt_loc *t = &k_loc;                                                \
    MT_LOOPS(mt##V##_##N##_1, t0->l, s, d, n0, s0, d0, t, LW, LX, SW, SX);   \
  }
#define X(N, W, NR, RHO, F) MT_TILE(128, N, W, NR, RHO, F)
MT_SHAPES(X)
#undef X
#define X(N, W, NR, RHO, F) MT_TILE(256, N, W, NR, RHO, F)
MT_SHAPES(X)
#undef X
#define X(N, W, NR, RHO, F) MT_TILE(512, N, W, NR, RHO, F)
MT_SHAPES(X)
#undef X

/* The tile's kernel at register width V for units of W bits (the copy's
** any), NR registers and RHO rounds, or NULL. */
#define MT_MATCH(V, N, W, NR, RHO)                                           \
  if (nr == (NR) && (nr == 1 || (w == (W) && rho == (RHO)))) return mt##V##_##N;
static mt_fn mt_for128(int w, int nr, int rho) {
#define X(N, W, NR, RHO, F) MT_MATCH(128, N, W, NR, RHO)
  MT_SHAPES(X)
#undef X
  return NULL;
}
static mt_fn mt_for256(int w, int nr, int rho) {
#define X(N, W, NR, RHO, F) MT_MATCH(256, N, W, NR, RHO)
  MT_SHAPES(X)
#undef X
  return NULL;
}
static mt_fn mt_for512(int w, int nr, int rho) {
#define X(N, W, NR, RHO, F) MT_MATCH(512, N, W, NR, RHO)
  MT_SHAPES(X)
#undef X
  return NULL;
}
#endif

void li_mtile_run(const li_mtile *t, int simd, const uint8_t *s, uint8_t *d,
                  int64_t n0, int64_t s0, int64_t d0) {
#if defined(MT_X86)
  const int w = 8 << (t->lg < 3 ? t->lg : 3), nr = 1 << t->k;
  mt_fn f = NULL;
  if (t->lanes == 0 && simd >= LI_SIMD_SSE) f = mt_for128(w, nr, t->rho);
  else if (t->lanes == 1 && simd >= LI_SIMD_AVX2) f = mt_for256(w, nr, t->rho);
  else if (t->lanes == 2 && simd >= LI_SIMD_AVX512)
    f = mt_for512(w, nr, t->rho);
  if (f) {
    f(t, s, d, n0, s0, d0);
    return;
  }
#else
  (void)simd;
#endif
  li_mtile_ref(t, s, d, n0, s0, d0);
}
