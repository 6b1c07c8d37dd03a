/*
** tr.c: the executor's general two-dimensional transposition, the core of
** moving data between any two layouts (after HPTT: a plan of loops around
** a few SIMD micro-kernels, one per element size).
**
** li_tr2d writes B = A^T, where A is `rows` x `cols` elements whose rows
** are contiguous (row i at a + i * lda elements) and B is `cols` x `rows`
** with contiguous rows (row j at b + j * ldb). Every box of a plan whose
** source runs along one loop and whose destination runs along another is
** such a transposition, repeated over its other loops.
**
** The micro-kernel transposes a square tile of T x T elements, T = 16 /
** element size (16x16 bytes, 8x8 2-byte, 4x4 4-byte, 2x2 8-byte
** elements), held in T 16-byte registers: log2(T) rounds of the perfect
** shuffle, each interleaving register i with register i + T/2 at the
** element's width (unpacklo/unpackhi), leave register j holding row j of
** the transposed tile. The same network runs in portable C.
**
** Under AVX2 the same network runs on 32-byte registers: T rows of 2T
** elements, whose two 16-byte lanes are two tiles side by side; under
** AVX-512BW (1-byte elements) on 64-byte registers, four tiles side by
** side.
**
** The walk: the rows of A are taken in macro blocks of up to 256 rows
** (one line of each fits in L1); inside one, column block by column block
** (TR_CB to TR_PAGE bytes of each row where rows lie a page or more
** apart, else one step: B's rows written whole before the next block),
** T rows at a time down the block, tile by tile across it. Edges never go
** element by element:
**   - a last tile that would run past the end of A's rows or columns is
**     shifted back to end at the last one (it rewrites a few elements with
**     the same values: the copy is idempotent);
**   - when A's rows are m = 2, 4 or 8 elements back to back (interleaved
**     channels, m < T), T rows are m registers loaded whole and the same
**     network sorts them into m columns (the narrow tile); the `cols` <= m
**     of them that exist are stored;
**   - when A's rows are longer but only cols <= m = 2, 4 or 8 < T of
**     their elements are read, the heads of T rows are packed back to back
**     in a small buffer and go through the narrow tile;
**   - when B's rows are A's m = 2, 4 or 8 < T rows back to back (ldb = m:
**     m streams interleaved, the HCWNC pixel), m registers take T columns
**     of the m rows, log2(m) rounds interleave them, and they are stored
**     back to back (the narrow destination);
**   - where A has T to 2T - 1 columns (no wide tiles: 16 channel planes),
**     or B's rows lie TR_FAR bytes apart or more, AVX2 takes 2T rows a
**     tile (tall tiles; AVX-512BW 4T for 1-byte elements): each B row
**     stored 32 (64) bytes whole, half (a quarter) the stores to rows
**     that lie far apart;
**   - 2-, 4- and 8-byte elements under AVX2 take 2T x 2T tiles (square
**     tiles: 2T registers of 32 bytes, every load and store 32 bytes
**     whole) where A has 2T rows and columns or more, unless B's 2T rows
**     would fall in one set of L1 more than it has ways (2-byte rows a
**     page apart: NHWC -> NCHW int16 [1,64,64,128], 58 -> 82 us);
**   - where 2- or 4-byte B rows lie near each other (a pixel's 16 or 32
**     channels), AVX-512 takes 4T rows a tile: a whole line a B row;
**   - otherwise, when A has fewer than T columns (3 channels against 16
**     pixels), each tile still loads T elements per row, and stores only
**     the `cols` rows of B that exist;
**   - a tile whose loads would leave the source buffer [lo, hi), or whose
**     B rows are shorter than T (A has fewer than T rows), goes through a
**     staging tile: its rows copied in as whole runs, transposed, its rows
**     copied out as whole runs.
*/
#include <string.h>

#include "plan_int.h"
#include "tr_shuf.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#define TR_SSE2 1
#endif

/* SSE2 kernels compiled for the baseline and, VEX-encoded, for AVX2; the
** copy is chosen when the program loads (GCC's target_clones). */
#if defined(TR_SSE2) && defined(__GNUC__) && !defined(__clang__) && \
    (defined(__x86_64__) || defined(__i386__))
#define TR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TR_CLONES
#endif

#define TR_BYTES 16         /* bytes of one tile row */
#define TR_L1 (16u << 10)   /* bytes of A lines one column step may read */
#define TR_LINE LI_L1_LINE /* bytes of a cache line */
#define TR_CB 256u          /* bytes of each row of A one column block reads */
#define TR_PAGE 4096u       /* bytes of a page */
#define TR_L2B (256u << 10) /* bytes of A one far column block may read */
#define TR_MANY 64          /* rows of A from which far blocks grow */
#define TR_BIG (4u << 20)   /* bytes of A from which far blocks grow */
#define TR_FAR 256u         /* B rows this far apart take tall tiles */
#define TR_SETS LI_L1_SETS /* sets of L1 (plan_int.h) */
#define TR_WAYS LI_L1_WAYS /* lines one set of L1 holds */
#define TR_NEAR 256u        /* 2-, 4-byte B rows this near: 4T-high tiles */
/* col_blocks inlined with its tile kernel known (an indirect call a tile
** cost the 1-byte 16-column transposes, kneron.1w16c8b, ~10%) */
#if defined(__GNUC__)
#define TR_INLINE inline __attribute__((always_inline))
#else
#define TR_INLINE inline
#endif

/* ---- Micro-kernels ---------------------------------------------------------
** tile_E(a, lda, b, ldb, nb): the T x T tile at a (rows lda bytes apart)
** transposed into b (rows ldb bytes apart); only B's first nb rows are
** stored. */

#if defined(TR_SSE2)
/* One round of the perfect shuffle at element width W (8, 16, 32, 64). */
#define TR_ROUND(W, r, n)                                              \
  do {                                                                 \
    __m128i o_[16];                                                    \
    LI_UNROLL for (int i_ = 0; i_ < (n) / 2; i_++) {                             \
      o_[2 * i_] = _mm_unpacklo_epi##W(r[i_], r[i_ + (n) / 2]);        \
      o_[2 * i_ + 1] = _mm_unpackhi_epi##W(r[i_], r[i_ + (n) / 2]);    \
    }                                                                  \
    LI_UNROLL for (int i_ = 0; i_ < (n); i_++) r[i_] = o_[i_];         \
  } while (0)

#define TR_TILE(NAME, W, N, ROUNDS)                                          \
  TR_CLONES static void NAME(const uint8_t *a, size_t lda, uint8_t *b,       \
                             size_t ldb, int nb) {                           \
    __m128i r[N];                                                            \
    LI_UNROLL for (int i = 0; i < (N); i++)                                  \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(a + (size_t)i * lda)); \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, N);          \
    if (nb == (N)) {                                                         \
      LI_UNROLL for (int j = 0; j < (N); j++)                                \
        _mm_storeu_si128((__m128i *)(void *)(b + (size_t)j * ldb), r[j]);    \
    } else {                                                                 \
      for (int j = 0; j < nb; j++)                                           \
        _mm_storeu_si128((__m128i *)(void *)(b + (size_t)j * ldb), r[j]);    \
    }                                                                        \
  }

TR_TILE(tile_1, 8, 16, 4)
TR_TILE(tile_2, 16, 8, 3)
TR_TILE(tile_4, 32, 4, 2)
TR_TILE(tile_8, 64, 2, 1)

/* The wide tile (AVX2): T rows of 2T elements, one 32-byte register a
** row. The unpacks work within each 16-byte lane, so the network
** transposes the two halves side by side: register j's low lane is B's row
** j, its high lane B's row T + j. */
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define TR_AVX2 1
#define TR_ROUND256(W, r, n)                                           \
  do {                                                                 \
    __m256i o_[16];                                                    \
    LI_UNROLL for (int i_ = 0; i_ < (n) / 2; i_++) {                   \
      o_[2 * i_] = _mm256_unpacklo_epi##W(r[i_], r[i_ + (n) / 2]);     \
      o_[2 * i_ + 1] = _mm256_unpackhi_epi##W(r[i_], r[i_ + (n) / 2]); \
    }                                                                  \
    LI_UNROLL for (int i_ = 0; i_ < (n); i_++) r[i_] = o_[i_];         \
  } while (0)

#define TR_WIDE(NAME, W, N, ROUNDS)                                          \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t lda, uint8_t *b, size_t ldb) {                \
    __m256i r[N];                                                            \
    LI_UNROLL for (int i = 0; i < (N); i++)                                  \
      r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(a + (size_t)i * lda)); \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND256(W, r, N);       \
    LI_UNROLL for (int j = 0; j < (N); j++) {                                \
      _mm_storeu_si128((__m128i *)(void *)(b + (size_t)j * ldb),             \
                       _mm256_castsi256_si128(r[j]));                        \
      _mm_storeu_si128((__m128i *)(void *)(b + (size_t)((N) + j) * ldb),     \
                       _mm256_extracti128_si256(r[j], 1));                   \
    }                                                                        \
  }

TR_WIDE(wide_1, 8, 16, 4)
TR_WIDE(wide_2, 16, 8, 3)
TR_WIDE(wide_4, 32, 4, 2)
TR_WIDE(wide_8, 64, 2, 1)

/* The tall tile (AVX2): 2T rows of T elements, rows i and T + i in the
** two lanes of one register, so that each B row comes out as 2T elements
** of one register, stored 32 bytes whole: where A has fewer than 2T
** columns (no wide tiles) B's rows get half the stores (kneron.1w16c8b
** unpack: 16 channel planes, 16 columns). */
/* 2N rows of 16 bytes into N registers, rows i and N + i in the lanes of
** register i, transposed: register j holds column j of both tiles (the
** tall tile's, the narrow tiles' twice over (lda 16) and the two-tile
** column tables' first half). */
#define TR_TWO_TILES(W, r, N, ROUNDS, a, lda)                                \
  do {                                                                       \
    const uint8_t *a2_ = (a) + (size_t)(N) * (lda);                          \
    LI_UNROLL for (int i = 0; i < (N); i++) {                                \
      __m128i lo_ = _mm_loadu_si128((const __m128i *)(const void *)((a) + (size_t)i * (lda))); \
      __m128i hi_ = _mm_loadu_si128((const __m128i *)(const void *)(a2_ + (size_t)i * (lda))); \
      r[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(lo_), hi_, 1);   \
    }                                                                        \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND256(W, r, N);       \
  } while (0)

#define TR_TALL(NAME, W, N, ROUNDS)                                          \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t lda, uint8_t *b, size_t ldb) {                \
    __m256i r[N];                                                            \
    TR_TWO_TILES(W, r, N, ROUNDS, a, lda);                                   \
    LI_UNROLL for (int j = 0; j < (N); j++)                                  \
      _mm256_storeu_si256((__m256i *)(void *)(b + (size_t)j * ldb), r[j]);   \
  }

/* The square tile (AVX2): 2T rows of 2T elements, one 32-byte register a
** row, as two wide tiles (rows 0..T-1 and T..2T-1) whose lanes are then
** paired: B row j is the low lanes of the two tiles' register j, B row
** T + j their high lanes. Loads and stores are all 32 bytes whole, where
** the wide tile stores 16 and the tall one loads 16 (min of 5 runs,
** before -> after: qnn.nchw unpack fp32 [1,56,56,128] 83 -> 53 us, pack
** int16 39 -> 27; NCHW -> NHWC fp32 [1,256,64,64] 407 -> 239, int64
** [1,64,56,56] 71 -> 52; onednn.nChw16c unpack fp32 [1,64,56,56] 28 ->
** 23). */
#define TR_SQUARE(NAME, W, N, ROUNDS)                                        \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t lda, uint8_t *b, size_t ldb) {                \
    __m256i r[N], s[N];                                                      \
    const uint8_t *a2 = a + (size_t)(N) * lda;                               \
    LI_UNROLL for (int i = 0; i < (N); i++) {                                \
      r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(a + (size_t)i * lda)); \
      s[i] = _mm256_loadu_si256((const __m256i *)(const void *)(a2 + (size_t)i * lda)); \
    }                                                                        \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) {                           \
      TR_ROUND256(W, r, N);                                                  \
      TR_ROUND256(W, s, N);                                                  \
    }                                                                        \
    LI_UNROLL for (int j = 0; j < (N); j++) {                                \
      _mm256_storeu_si256((__m256i *)(void *)(b + (size_t)j * ldb),          \
                          _mm256_permute2x128_si256(r[j], s[j], 0x20));      \
      _mm256_storeu_si256((__m256i *)(void *)(b + (size_t)((N) + j) * ldb),  \
                          _mm256_permute2x128_si256(r[j], s[j], 0x31));      \
    }                                                                        \
  }

TR_SQUARE(square_2, 16, 8, 3)
TR_SQUARE(square_4, 32, 4, 2)
TR_SQUARE(square_8, 64, 2, 1)

TR_TALL(tall_1, 8, 16, 4)
TR_TALL(tall_2, 16, 8, 3)
TR_TALL(tall_4, 32, 4, 2)
TR_TALL(tall_8, 64, 2, 1)

/* The widest tile (AVX-512BW): T rows of 4T elements, one 64-byte
** register a row, its four 16-byte lanes four tiles side by side
** (register j: B rows j, T + j, 2T + j, 3T + j). Half the shuffles of the
** wide tile for as many bytes: 1-byte transposes are bound by them. */
#define TR_ROUND512(W, r, n)                                           \
  do {                                                                 \
    __m512i o_[16];                                                    \
    LI_UNROLL for (int i_ = 0; i_ < (n) / 2; i_++) {                   \
      o_[2 * i_] = _mm512_unpacklo_epi##W(r[i_], r[i_ + (n) / 2]);     \
      o_[2 * i_ + 1] = _mm512_unpackhi_epi##W(r[i_], r[i_ + (n) / 2]); \
    }                                                                  \
    LI_UNROLL for (int i_ = 0; i_ < (n); i_++) r[i_] = o_[i_];         \
  } while (0)

#define TR_WIDE4(NAME, W, N, ROUNDS)                                         \
  __attribute__((target("avx512f,avx512bw"))) static void NAME(              \
      const uint8_t *a, size_t lda, uint8_t *b, size_t ldb) {                \
    __m512i r[N];                                                            \
    LI_UNROLL for (int i = 0; i < (N); i++)                                  \
      r[i] = _mm512_loadu_si512((const void *)(a + (size_t)i * lda));        \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND512(W, r, N);       \
    LI_UNROLL for (int j = 0; j < (N); j++) {                                \
      _mm_storeu_si128((__m128i *)(void *)(b + (size_t)j * ldb),             \
                       _mm512_castsi512_si128(r[j]));                        \
      LI_ST_LANE512(b + (size_t)((N) + j) * ldb, r[j], 1);                   \
      LI_ST_LANE512(b + (size_t)(2 * (N) + j) * ldb, r[j], 2);               \
      LI_ST_LANE512(b + (size_t)(3 * (N) + j) * ldb, r[j], 3);               \
    }                                                                        \
  }

/* 1-byte elements only: wider elements need fewer rounds, and their
** T x 4T tiles measured no faster than T x 2T (some slower). */
TR_WIDE4(wide4_1, 8, 16, 4)

/* The tall tile four high (AVX-512BW): 4T rows, rows i, T + i, 2T + i and
** 3T + i in the four lanes of one register; each B row stored 64 bytes
** whole, a cache line. */
#define TR_TALL4(NAME, W, N, ROUNDS)                                         \
  __attribute__((target("avx512f,avx512bw"))) static void NAME(              \
      const uint8_t *a, size_t lda, uint8_t *b, size_t ldb) {                \
    __m512i r[N];                                                            \
    LI_UNROLL for (int i = 0; i < (N); i++) {                                \
      __m512i v_ = _mm512_castsi128_si512(                                   \
          _mm_loadu_si128((const __m128i *)(const void *)(a + (size_t)i * lda))); \
      v_ = _mm512_inserti32x4(v_, _mm_loadu_si128((const __m128i *)(const void *)( \
               a + (size_t)((N) + i) * lda)), 1);                            \
      v_ = _mm512_inserti32x4(v_, _mm_loadu_si128((const __m128i *)(const void *)( \
               a + (size_t)(2 * (N) + i) * lda)), 2);                        \
      v_ = _mm512_inserti32x4(v_, _mm_loadu_si128((const __m128i *)(const void *)( \
               a + (size_t)(3 * (N) + i) * lda)), 3);                        \
      r[i] = v_;                                                             \
    }                                                                        \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND512(W, r, N);       \
    LI_UNROLL for (int j = 0; j < (N); j++)                                  \
      _mm512_storeu_si512((void *)(b + (size_t)j * ldb), r[j]);              \
  }
TR_TALL4(tall4_1, 8, 16, 4)
/* 2- and 4-byte elements where B's rows are near (macro_block): 4T rows
** of A a tile, each B row's 4T elements one 64-byte store, a line. */
TR_TALL4(tall4_2, 16, 8, 3)
TR_TALL4(tall4_4, 32, 4, 2)
#endif

typedef void (*wide_fn)(const uint8_t *, size_t, uint8_t *, size_t);

/* The narrow shapes, one table for every narrow kernel: rows of M
** elements of E bytes, W bits an element, RM = log2(M) and RT =
** log2(16 / E) perfect-shuffle rounds. Inside a lookup, with X defined as
** the case of one shape, TR_SHAPE_SWITCH(esz, m) returns the kernel for
** M rows of esz-byte elements, or NULL. */
#define TR_NARROW_SHAPES(X)                                                  \
  X(1x2, 1, 2, 8, 1, 4) X(1x4, 1, 4, 8, 2, 4) X(1x8, 1, 8, 8, 3, 4)          \
  X(2x2, 2, 2, 16, 1, 3) X(2x4, 2, 4, 16, 2, 3) X(4x2, 4, 2, 32, 1, 2)
#define TR_SHAPE_SWITCH(esz, m)                                              \
  if ((m) != 2 && (m) != 4 && (m) != 8) return NULL;                         \
  switch ((int)((esz) << 4 | (size_t)(m))) {                                 \
    TR_NARROW_SHAPES(X)                                                      \
  default: return NULL;                                                      \
  }

/* The narrow tile: T rows of A of M < T elements each, back to back (lda
** = M), are M registers; the same rounds leave register j holding column
** j of the T rows. nb <= M rows of B are stored. */
#define TR_NARROW(NAME, W, M, ROUNDS)                                        \
  TR_CLONES static void NAME(const uint8_t *a, uint8_t *b, size_t ldb,       \
                             int nb) {                                       \
    __m128i r[M];                                                            \
    LI_UNROLL for (int i = 0; i < (M); i++)                                  \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(a + 16 * i));   \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, M);          \
    for (int j = 0; j < nb; j++)                                             \
      _mm_storeu_si128((__m128i *)(void *)(b + (size_t)j * ldb), r[j]);      \
  }

#define X(N, E, M, W, RM, RT) TR_NARROW(narrow_##N, W, M, RT)
TR_NARROW_SHAPES(X)
#undef X

typedef void (*narrow_fn)(const uint8_t *, uint8_t *, size_t, int);

#if defined(TR_AVX2)
/* The narrow tile twice over (AVX2): the low lanes take the first T rows,
** the high lanes the next T, so every column comes out as 2T elements of
** one register. */
#define TR_NARROW2(NAME, W, M, ROUNDS)                                       \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, uint8_t *b, size_t ldb, int nb) {                    \
    __m256i r[M];                                                            \
    TR_TWO_TILES(W, r, M, ROUNDS, a, 16);                                    \
    for (int j = 0; j < nb; j++)                                             \
      _mm256_storeu_si256((__m256i *)(void *)(b + (size_t)j * ldb), r[j]);   \
  }

#define X(N, E, M, W, RM, RT) TR_NARROW2(narrow2_##N, W, M, RT)
TR_NARROW_SHAPES(X)
#undef X
#endif

/* The narrow destination, the narrow tile's inverse: B's rows are M < T
** elements back to back (ldb = M = A's rows: M streams interleaved). M
** registers hold T columns of A's M rows; log2(M) rounds of the perfect
** shuffle interleave them, and the M registers are stored back to back:
** T rows of B. */
#define TR_NDST(NAME, W, M, ROUNDS)                                          \
  TR_CLONES static void NAME(const uint8_t *a, size_t lda, uint8_t *b) {     \
    __m128i r[M];                                                            \
    LI_UNROLL for (int i = 0; i < (M); i++)                                  \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(a + (size_t)i * lda)); \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, M);          \
    LI_UNROLL for (int j = 0; j < (M); j++)                                  \
      _mm_storeu_si128((__m128i *)(void *)(b + 16 * j), r[j]);               \
  }

#define X(N, E, M, W, RM, RT) TR_NDST(ndst_##N, W, M, RM)
TR_NARROW_SHAPES(X)
#undef X

typedef void (*ndst_fn)(const uint8_t *, size_t, uint8_t *);

#if defined(TR_AVX2)
/* The narrow destination over 2T columns (AVX2): the low lanes interleave
** columns 0..T-1, the high lanes T..2T-1; M + M 16-byte stores. */
#define TR_NDST2(NAME, W, M, ROUNDS)                                         \
  __attribute__((target("avx2"))) static void NAME(const uint8_t *a,         \
                                                   size_t lda, uint8_t *b) { \
    __m256i r[M];                                                            \
    LI_UNROLL for (int i = 0; i < (M); i++)                                  \
      r[i] = _mm256_loadu_si256((const __m256i *)(const void *)(a + (size_t)i * lda)); \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND256(W, r, M);       \
    LI_UNROLL for (int j = 0; j < (M); j++) {                                \
      _mm_storeu_si128((__m128i *)(void *)(b + 16 * j),                      \
                       _mm256_castsi256_si128(r[j]));                        \
      _mm_storeu_si128((__m128i *)(void *)(b + 16 * ((M) + j)),              \
                       _mm256_extracti128_si256(r[j], 1));                   \
    }                                                                        \
  }

#define X(N, E, M, W, RM, RT) TR_NDST2(ndst2_##N, W, M, RM)
TR_NARROW_SHAPES(X)
#undef X

/* The AVX2 narrow-destination kernel for M rows of esz bytes, or NULL. */
static ndst_fn ndst2_for(size_t esz, int64_t m) {
#define X(N, E, M, W, RM, RT) case E << 4 | M: return ndst2_##N;
  TR_SHAPE_SWITCH(esz, m)
#undef X
}
#endif

/* The narrow-destination kernel for M rows of A of esz bytes, or NULL. */
static ndst_fn ndst_for(size_t esz, int64_t m) {
#define X(N, E, M, W, RM, RT) case E << 4 | M: return ndst_##N;
  TR_SHAPE_SWITCH(esz, m)
#undef X
}

/* The narrow kernel for rows of m elements of esz bytes (twice: 2T rows a
** call), or NULL. */
static narrow_fn narrow_for(size_t esz, int64_t m, int twice) {
#if defined(TR_AVX2)
  if (twice) {
#define X(N, E, M, W, RM, RT) case E << 4 | M: return narrow2_##N;
    TR_SHAPE_SWITCH(esz, m)
#undef X
  }
#else
  (void)twice;
#endif
#define X(N, E, M, W, RM, RT) case E << 4 | M: return narrow_##N;
  TR_SHAPE_SWITCH(esz, m)
#undef X
}
#endif

/* The portable tile: the same result element by element. */
static void tile_c(size_t esz, const uint8_t *a, size_t lda, uint8_t *b,
                   size_t ldb, int nb) {
  int n = (int)(TR_BYTES / esz);
  for (int j = 0; j < nb; j++)
    for (int i = 0; i < n; i++)
      memcpy(b + (size_t)j * ldb + (size_t)i * esz,
             a + (size_t)i * lda + (size_t)j * esz, esz);
}

typedef void (*tile_fn)(const uint8_t *, size_t, uint8_t *, size_t, int);

/* ---- The walk ------------------------------------------------------------- */

typedef struct walk {
  size_t esz;          /* element bytes */
  int T;               /* tile side in elements */
  tile_fn tile;        /* the SIMD micro-kernel, NULL: portable */
  void (*wide)(const uint8_t *, size_t, uint8_t *, size_t); /* T x 2T
                          tiles (AVX2), NULL when absent */
  void (*wide4)(const uint8_t *, size_t, uint8_t *, size_t); /* T x 4T
                          tiles (AVX-512BW), NULL when absent */
  void (*square)(const uint8_t *, size_t, uint8_t *, size_t); /* 2T x 2T
                          tiles (AVX2), NULL when absent */
  void (*tall)(const uint8_t *, size_t, uint8_t *, size_t); /* 2T x T
                          tiles (AVX2), NULL when absent */
  void (*tall4)(const uint8_t *, size_t, uint8_t *, size_t); /* 4T x T
                          tiles (AVX-512BW), NULL when absent */
  const uint8_t *lo, *hi; /* loads stay inside [lo, hi) */
  size_t lda, ldb;     /* row pitches in bytes */
  int grow;            /* A spans TR_BIG bytes or more: far blocks grow */
  int near1;           /* 1-byte 4T x T tiles where B's rows are near
                          (macro_block) */
} walk;

static void run_tile(const walk *w, const uint8_t *a, uint8_t *b, int nb) {
  if (w->tile) w->tile(a, w->lda, b, w->ldb, nb);
  else tile_c(w->esz, a, w->lda, b, w->ldb, nb);
}

/* A tile of nr rows (of A) x nc columns through a staging tile: rows
** copied in as runs of nc elements, transposed, and nc rows of B copied
** out as runs of nr elements. */
static void staged(const walk *w, const uint8_t *a, uint8_t *b, int nr,
                   int nc) {
  uint8_t in[TR_BYTES * TR_BYTES], out[TR_BYTES * TR_BYTES];
  size_t es = w->esz;
  memset(in, 0, sizeof in);
  for (int i = 0; i < nr; i++)
    memcpy(in + (size_t)i * TR_BYTES, a + (size_t)i * w->lda, (size_t)nc * es);
  walk s = *w;
  s.lda = s.ldb = TR_BYTES;
  run_tile(&s, in, out, w->T);
  for (int j = 0; j < nc; j++)
    memcpy(b + (size_t)j * w->ldb, out + (size_t)j * TR_BYTES, (size_t)nr * es);
}

/* One tile at A's (r, c) with nc valid columns: whole when its loads stay
** inside the source buffer, else staged. */
static void one_tile(const walk *w, const uint8_t *a, uint8_t *b, int nc) {
  const uint8_t *end = a + (size_t)(w->T - 1) * w->lda + TR_BYTES;
  if (a >= w->lo && end <= w->hi) run_tile(w, a, b, nc);
  else staged(w, a, b, w->T, nc);
}

/* A T x 2T tile at A's (r, c): whole when its loads stay inside the
** source buffer, else as two T x T tiles. */
static void wide_tile(const walk *w, const uint8_t *a, uint8_t *b) {
  const uint8_t *end = a + (size_t)(w->T - 1) * w->lda + 2 * TR_BYTES;
  if (a >= w->lo && end <= w->hi) {
    w->wide(a, w->lda, b, w->ldb);
  } else {
    one_tile(w, a, b, w->T);
    one_tile(w, a + TR_BYTES, b + (size_t)w->T * w->ldb, w->T);
  }
}

/* A T x 4T tile at A's (r, c): whole when its loads stay inside the
** source buffer, else as two T x 2T tiles. */
static void wide4_tile(const walk *w, const uint8_t *a, uint8_t *b) {
  const uint8_t *end = a + (size_t)(w->T - 1) * w->lda + 4 * TR_BYTES;
  if (a >= w->lo && end <= w->hi) {
    w->wide4(a, w->lda, b, w->ldb);
  } else {
    wide_tile(w, a, b);
    wide_tile(w, a + 2 * TR_BYTES, b + (size_t)(2 * w->T) * w->ldb);
  }
}

/* A 2T x 2T tile at A's (r, c): whole when its loads stay inside the
** source buffer, else as two T x 2T tiles. */
static void square_tile(const walk *w, const uint8_t *a, uint8_t *b) {
  const uint8_t *end = a + (size_t)(2 * w->T - 1) * w->lda + 2 * TR_BYTES;
  if (a >= w->lo && end <= w->hi) {
    w->square(a, w->lda, b, w->ldb);
  } else {
    wide_tile(w, a, b);
    wide_tile(w, a + (size_t)w->T * w->lda, b + (size_t)w->T * w->esz);
  }
}

typedef void (*tile_at)(const walk *, const uint8_t *, uint8_t *);

/* A 4T x T tile at A's (r, c) (its loads, T elements a row, stay inside
** A's columns). */
static void tall4_tile(const walk *w, const uint8_t *a, uint8_t *b) {
  w->tall4(a, w->lda, b, w->ldb);
}

/* The elements of each row of A one column block of nr rows reads, where
** A's rows lie a page or more apart: TR_CB bytes, and from TR_MANY rows
** on more where A spans TR_BIG bytes or more (a smaller A stays in the
** caches: qnn.nchw unpack fp32 [1,56,56,128], 1.6 MB, lost ~40% with
** 2 KB a row), while the block's A bytes stay within TR_L2B, a page at most
** (a multiple of 64 bytes: of every tile step). Many rows of A are more
** streams than the prefetcher follows at once unless each runs long
** enough: NCHW -> NHWC int8 [1,128,256,256] (128 rows 64 KB apart) ran at
** ~2.9x memcpy with 256 bytes a row, ~2x with 2 KB (standalone, min of
** 40); few rows lost by it (4 rows of 4-byte groups, kneron.4w4c8b ->
** kneron.1w16c8b [1,64,56,56]: 5.5 -> 6.5 us with 4 KB). */
static TR_INLINE int64_t col_block(const walk *w, int64_t nr) {
  size_t rb = TR_L2B / (size_t)nr & ~(size_t)(TR_LINE - 1);
  if (rb < TR_CB) rb = TR_CB;
  if (rb > TR_PAGE) rb = TR_PAGE;
  return (int64_t)(rb / w->esz);
}

/* Columns c0..c1 of rows r0..r1 in tiles `step` columns wide and `rs`
** rows high: column blocks (col_block) of each row, in each one rs rows
** at a time, so that every stream of A is read a block in a row and the
** block's rows of B are written whole before the next block. */
static TR_INLINE void col_blocks(const walk *w, const uint8_t *a, uint8_t *b,
                       int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                       int64_t step, int64_t rs, tile_at f) {
  /* col_block's elements, a multiple of every step (4T at most: 64
  ** bytes), where A's rows lie in pages of their own; nearer rows keep
  ** the column step outermost, one step a block (amd.hcwnc16 unpack fp32
  ** ~20% faster so). */
  int64_t T = w->T;
  if (w->lda < TR_PAGE) {
    for (int64_t c = c0; c < c1; c += step)
      for (int64_t r = r0; r < r1; r += rs) {
        int64_t rr = r + rs > r1 ? r1 - rs : r; /* shifted back */
        f(w, a + (size_t)rr * w->lda + (size_t)c * w->esz,
          b + (size_t)c * w->ldb + (size_t)rr * w->esz);
      }
    return;
  }
  /* TR_CB bytes (under TR_MANY rows) is a constant: its loop below is
  ** compiled with the block known (6.8 -> 5.5 us, kneron.4w4c8b ->
  ** kneron.1w16c8b [1,64,56,56]) */
  int64_t cb = r1 - r0 < TR_MANY || !w->grow ? T * (int64_t)(TR_CB / TR_BYTES)
                                             : col_block(w, r1 - r0);
  for (int64_t k = c0; k < c1; k += cb) {
    int64_t ke = k + cb < c1 ? k + cb : c1;
    for (int64_t r = r0; r < r1; r += rs) {
      int64_t rr = r + rs > r1 ? r1 - rs : r; /* shifted back */
      for (int64_t c = k; c < ke; c += step)
        f(w, a + (size_t)rr * w->lda + (size_t)c * w->esz,
          b + (size_t)c * w->ldb + (size_t)rr * w->esz);
    }
  }
}

static void whole_tile(const walk *w, const uint8_t *a, uint8_t *b) {
  one_tile(w, a, b, w->T);
}

/* Rows r0..r1 of A (r1 - r0 >= T), every column: the widest tiles while
** they fit, then T x T tiles, the last one shifted back. */
static void macro_block(const walk *w, const uint8_t *a, uint8_t *b,
                        int64_t r0, int64_t r1, int64_t cols) {
  int64_t T = w->T, c = 0;
  /* B's rows TR_FAR bytes apart or more: tall tiles over every column (B
  ** rows stored 32 or 64 bytes whole) rather than wide ones (16 bytes a B
  ** row): NHWC -> NCHW int8 [1,256,256,128] ~2600 -> ~1200 us, [1,56,56,64]
  ** ~10% faster. From 256 bytes (it was 1024; the 16-byte stores of a
  ** wide tile, each a row of B, bound the small ones): [1,29,23,37] 3.1 ->
  ** 1.8 us, [4,28,28,32] 9.3 -> 6.9 us, [1,16,20,37] 1.17 -> 0.73 us
  ** (min of 7, alternated); int16 ones unchanged, and 64 gained nothing
  ** below 256. 1- and 2-byte elements only: fp32's [1,56,56,64] went 35
  ** -> 41 us so */
  const int far = w->tall && w->esz <= 2 && w->ldb >= TR_FAR && r1 - r0 >= 2 * T;
  /* 2- and 4-byte elements whose B rows are TR_NEAR bytes apart or less
  ** (16 or 32 channels of a pixel: nChw16c, c32 packed): tall tiles 4T
  ** high, a whole line a B row per store, where the wide tiles stored a
  ** quarter line four times (sweep.c32 pack fp32 [1,64,56,56] 1.86 ->
  ** 1.27x memcpy, rknn.nc1hwc2(16) pack 1.64 -> 1.36x, qnn.nchw unpack
  ** int16 [1,56,56,128] ~10-20% faster; medians of 3). B rows far apart
  ** lose by it, as for `far` above; 2T-high tiles for 2T to 4T - 1 rows
  ** measured no faster. 1-byte elements too where A is small and its 4T
  ** rows' lines fall in different sets of L1 (w->near1): a B row's 64
  ** bytes one store, where the wide tile extracted and stored 16-byte
  ** lanes; in col_blocks' order (NCHW -> NHWC int8 [1,64,56,56] 5.0 ->
  ** 3.9 us, [4,64,28,28] 5.5 -> 4.3, qnn.nchw unpack int8 [1,56,56,128]
  ** 11.3 -> 9.7; rows a page apart, [1,64,128,128], ran 3x slower, and
  ** A of 8 MB 2x: the many rows each tile reads thrash L1's sets and
  ** outrun the prefetcher's streams). */
  const int near = w->tall4 && (w->esz == 4 || w->esz == 2 || w->near1) &&
                   w->ldb <= TR_NEAR && r1 - r0 >= 4 * T && cols >= T;
  /* 2T x 2T tiles over the columns while they fit, before any other
  ** (they beat the 4T-high tiles below on 2-byte elements and ran alike
  ** on 4-byte ones, onednn.nChw16c [1,64,56,56]) */
  if (w->square && r1 - r0 >= 2 * T) {
    int64_t e = cols & ~(2 * T - 1);
    col_blocks(w, a, b, r0, r1, c, e, 2 * T, 2 * T, square_tile);
    c = e;
  }
  if (near && c == 0 && w->esz == 1) {
    int64_t e = cols & ~(T - 1);
    col_blocks(w, a, b, r0, r1, 0, e, T, 4 * T, tall4_tile);
    if (e < cols)
      col_blocks(w, a, b, r0, r1, cols - T, cols, T, 4 * T, tall4_tile);
    return;
  }
  if (near && c == 0) {
    for (int64_t k = 0; k < cols; k += T) {
      int64_t kk = k + T > cols ? cols - T : k, r = r0; /* shifted back */
      for (; r < r1; r += 4 * T) {
        int64_t rr = r + 4 * T > r1 ? r1 - 4 * T : r;
        w->tall4(a + (size_t)rr * w->lda + (size_t)kk * w->esz, w->lda,
                 b + (size_t)kk * w->ldb + (size_t)rr * w->esz, w->ldb);
      }
    }
    return;
  }
  if (w->wide4 && !far) { /* column blocks of 4T while they fit */
    int64_t e = c + ((cols - c) & ~(4 * T - 1)); /* T is a power of two */
    col_blocks(w, a, b, r0, r1, c, e, 4 * T, T, wide4_tile);
    c = e;
  }
  if (w->wide && !far) { /* column blocks of 2T while they fit */
    int64_t e = c + ((cols - c) & ~(2 * T - 1));
    col_blocks(w, a, b, r0, r1, c, e, 2 * T, T, wide_tile);
    c = e;
  }
  if (w->tall && cols - c >= T && (far || cols - c < 2 * T) && r1 - r0 >= 2 * T) {
    /* fewer than 2T columns left: T of them (the second set shifted back
    ** onto the first) down the rows, 2T rows a tile */
    for (int64_t k = c; k < cols; k += T) {
      int64_t kk = k + T > cols ? cols - T : k, r = r0;
      if (w->tall4) /* 4T rows a tile while they fit */
        for (; r + 4 * T <= r1; r += 4 * T)
          w->tall4(a + (size_t)r * w->lda + (size_t)kk * w->esz, w->lda,
                   b + (size_t)kk * w->ldb + (size_t)r * w->esz, w->ldb);
      for (; r < r1; r += 2 * T) {
        int64_t rr = r + 2 * T > r1 ? r1 - 2 * T : r; /* shifted back */
        w->tall(a + (size_t)rr * w->lda + (size_t)kk * w->esz, w->lda,
                b + (size_t)kk * w->ldb + (size_t)rr * w->esz, w->ldb);
      }
    }
    c = cols;
  }
  if (cols - c >= T) {
    int64_t e = c + ((cols - c) & ~(T - 1));
    col_blocks(w, a, b, r0, r1, c, e, T, T, whole_tile);
    c = e;
  }
  if (c < cols) { /* the last columns: one tile shifted back, or all */
    int64_t c0 = cols < T ? 0 : cols - T, nc = cols < T ? cols : T;
    for (int64_t r = r0; r < r1; r += T) {
      int64_t rr = r + T > r1 ? r1 - T : r; /* shifted back */
      one_tile(w, a + (size_t)rr * w->lda + (size_t)c0 * w->esz,
               b + (size_t)c0 * w->ldb + (size_t)rr * w->esz, (int)nc);
    }
  }
}

/* The columns to take apart before the rest, so that the wide tiles'
** loads start on a cache line: a 32- or 64-byte load across two lines
** costs two. Where A's rows are whole lines apart, all rows share the
** misalignment of a; from 8T columns on. A buffer from malloc is 16 bytes
** off a line: NCHW -> NHWC int8 [1,128,256,256], 64-byte loads, ~1.5x
** slower so (standalone, min of 40). */
static int64_t peel(const walk *w, const uint8_t *a, int simd, int64_t cols) {
  size_t off = (size_t)((uintptr_t)a & (TR_LINE - 1));
  if (simd < LI_SIMD_AVX2 || !off || w->lda % TR_LINE ||
      cols < 8 * (int64_t)w->T || (TR_LINE - off) % w->esz)
    return 0;
  return (int64_t)((TR_LINE - off) / w->esz);
}

/* The rows of A to take apart before the rest, so that the tiles' stores
** into B start on a cache line (li_tr2d_b): where B's rows are whole
** lines apart, all share the misalignment of b; from 4 lines a B row. */
static int64_t peel_b(const walk *w, const uint8_t *b, int simd, int64_t rows) {
  size_t off = (size_t)((uintptr_t)b & (TR_LINE - 1));
  if (simd < LI_SIMD_AVX2 || !off || w->ldb % TR_LINE ||
      rows * (int64_t)w->esz < 4 * TR_LINE || (TR_LINE - off) % w->esz)
    return 0;
  return (int64_t)((TR_LINE - off) / w->esz);
}

/* The most of n rows `ld` bytes apart whose first bytes fall in one set
** of L1 (TR_SETS sets of a line each): more than its ways, and the rows
** a tile stores evict each other before they are whole. */
static int same_set(size_t ld, size_t n) {
  uint8_t cnt[TR_SETS] = {0};
  int most = 0;
  for (size_t i = 0; i < n; i++) {
    const int k = ++cnt[(i * ld / TR_LINE) % TR_SETS];
    if (k > most) most = k;
  }
  return most;
}

void li_tr2d(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
             const uint8_t *a, int64_t lda, uint8_t *b, int64_t ldb,
             int64_t rows, int64_t cols) {
  li_tr2d_b(esz, simd, lo, hi, a, lda * (int64_t)esz, b, ldb * (int64_t)esz,
            rows, cols);
}

void li_tr2d_b(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
               const uint8_t *a, int64_t la, uint8_t *b, int64_t lb,
               int64_t rows, int64_t cols) {
  if (rows <= 0 || cols <= 0) return;
  /* the pitches in elements, -1 where a pitch is not whole elements (a
  ** group of 4 bytes in pixels of 37): only the full tiles take those */
  const int whole = la % (int64_t)esz == 0 && lb % (int64_t)esz == 0;
  const int64_t lda = whole ? la / (int64_t)esz : -1;
  const int64_t ldb = whole ? lb / (int64_t)esz : -1;
  if (whole && li_shuf_may(esz, simd, lda, ldb, rows, cols) &&
      li_shuf_tr2d(esz, simd, lo, hi, a, lda, b, ldb, rows, cols))
    return; /* narrow rows of any other width: tr_shuf.c */
  walk w = {esz,  (int)(TR_BYTES / esz), NULL, NULL, NULL, NULL, NULL, NULL, lo, hi,
            (size_t)la, (size_t)lb, rows * la >= (int64_t)TR_BIG, 0};
#if defined(TR_SSE2)
  if (simd >= LI_SIMD_SSE)
    w.tile = esz == 1 ? tile_1 : esz == 2 ? tile_2 : esz == 4 ? tile_4 : tile_8;
#if defined(TR_AVX2)
  if (simd >= LI_SIMD_AVX2)
    w.wide = esz == 1 ? wide_1 : esz == 2 ? wide_2 : esz == 4 ? wide_4 : wide_8;
  if (simd >= LI_SIMD_AVX2 && esz > 1 && rows >= 2 * (int64_t)w.T &&
      same_set(w.ldb, 2 * (size_t)w.T) <= TR_WAYS)
    w.square = esz == 2 ? square_2 : esz == 4 ? square_4 : square_8;
  if (simd >= LI_SIMD_AVX512 && esz == 1) w.wide4 = wide4_1;
  if (simd >= LI_SIMD_AVX2 && rows >= 2 * (int64_t)w.T) { /* tall tiles fit */
    w.tall = esz == 1 ? tall_1 : esz == 2 ? tall_2 : esz == 4 ? tall_4 : tall_8;
    if (simd >= LI_SIMD_AVX512 && esz == 1) w.tall4 = tall4_1;
    /* the cheap tests first: same_set's loop a call cost the far
    ** transposes of small steps ~30% (kneron.1w16c8b unpack int8
    ** [1,37,29,23], 0.9 -> 1.2 us) */
    w.near1 = esz == 1 && w.tall4 && !w.grow && w.ldb <= TR_NEAR &&
              rows >= 4 * (int64_t)w.T && cols >= (int64_t)w.T &&
              same_set(w.lda, 4 * (size_t)w.T) <= TR_WAYS;
    if (simd >= LI_SIMD_AVX512 && esz == 2) w.tall4 = tall4_2;
    if (simd >= LI_SIMD_AVX512 && esz == 4) w.tall4 = tall4_4;
  }
#endif
#else
  (void)simd;
#endif
  int64_t T = w.T;
#if defined(TR_SSE2)
  /* Rows of fewer than T elements back to back (interleaved channels):
  ** T rows are m registers. */
  int twice = simd >= LI_SIMD_AVX2 && rows >= 2 * T;
  narrow_fn nf = simd >= LI_SIMD_SSE && rows >= T && cols <= lda
                     ? narrow_for(esz, lda, twice) : NULL;
  if (nf) {
    int64_t step = twice ? 2 * T : T;
    for (int64_t r = 0; r < rows; r += step) {
      int64_t rr = r + step > rows ? rows - step : r; /* shifted back */
      const uint8_t *ar = a + (size_t)rr * w.lda;
      uint8_t *br = b + (size_t)rr * esz;
      if (ar + (size_t)step * w.lda <= hi) {
        nf(ar, br, w.ldb, (int)cols);
      } else {
        for (int64_t h = 0; h < step; h += T)
          staged(&w, ar + (size_t)h * w.lda, br + (size_t)h * esz, w.T,
                 (int)cols);
      }
    }
    return;
  }
  /* Longer rows of which only cols <= m < T elements are read (a pixel's
  ** first channels): the m-element heads of T (or 2T) rows packed back to
  ** back in L1, then the narrow tile: a quarter of the full tile's
  ** shuffles for 4 of 16 columns. */
  int64_t m = cols <= 2 ? 2 : cols <= 4 ? 4 : 8;
  narrow_fn hf = simd >= LI_SIMD_SSE && rows >= T && cols < T && cols <= 8 &&
                         lda > m ? narrow_for(esz, m, twice) : NULL;
  if (hf) {
    int64_t step = twice ? 2 * T : T;
    size_t hb = (size_t)m * esz;
    uint8_t buf[2 * TR_BYTES * 8];
    for (int64_t r = 0; r < rows; r += step) {
      int64_t rr = r + step > rows ? rows - step : r; /* shifted back */
      const uint8_t *ar = a + (size_t)rr * w.lda;
      uint8_t *br = b + (size_t)rr * esz;
      if (ar + (size_t)(step - 1) * w.lda + hb <= hi) {
        for (int64_t i = 0; i < step; i++) {
          const uint8_t *x = ar + (size_t)i * w.lda;
          switch (hb) { /* constant sizes: plain moves */
          case 2: memcpy(buf + 2 * i, x, 2); break;
          case 4: memcpy(buf + 4 * i, x, 4); break;
          default: memcpy(buf + 8 * i, x, 8); break;
          }
        }
        hf(buf, br, w.ldb, (int)cols);
      } else {
        for (int64_t h = 0; h < step; h += T)
          staged(&w, ar + (size_t)h * w.lda, br + (size_t)h * esz, w.T,
                 (int)cols);
      }
    }
    return;
  }
  /* B's rows of rows < T elements back to back: interleaved streams. */
  ndst_fn df = simd >= LI_SIMD_SSE && cols >= T && ldb == rows
                   ? ndst_for(esz, rows) : NULL;
  if (df) {
    int64_t c = 0;
#if defined(TR_AVX2)
    ndst_fn df2 = simd >= LI_SIMD_AVX2 ? ndst2_for(esz, rows) : NULL;
    if (df2) /* 2T columns a step while they fit inside A */
      for (; c + 2 * T <= cols; c += 2 * T) {
        const uint8_t *ac = a + (size_t)c * esz;
        if (ac < lo || ac + (size_t)(rows - 1) * w.lda + 2 * TR_BYTES > hi) break;
        df2(ac, w.lda, b + (size_t)c * w.ldb);
      }
#endif
    for (; c < cols; c += T) {
      int64_t c0 = c + T > cols ? cols - T : c; /* shifted back */
      const uint8_t *ac = a + (size_t)c0 * esz;
      uint8_t *bc = b + (size_t)c0 * w.ldb;
      if (ac >= lo && ac + (size_t)(rows - 1) * w.lda + TR_BYTES <= hi)
        df(ac, w.lda, bc);
      else
        staged(&w, ac, bc, (int)rows, (int)T);
    }
    return;
  }
#endif
  if (rows < T) { /* B's rows are shorter than a tile: all staged */
    for (int64_t c = 0; c < cols; c += T) {
      int nc = (int)(cols - c < T ? cols - c : T);
      staged(&w, a + (size_t)c * esz, b + (size_t)c * w.ldb, (int)rows, nc);
    }
    return;
  }
  /* Macro blocks of rows whose lines read by one column step (a line a
  ** row) fit in TR_L1, a multiple of T rows; the last one takes the rest
  ** (at least T rows). Not fewer: B's rows are then written whole lines at
  ** a time (blocks of 16 rows wrote 16 of B's 64 bytes a pass, 4 passes
  ** over B: NCHW -> NHWC int8 64 channels ~4x slower). */
  int64_t mb = (int64_t)(TR_L1 / TR_LINE); /* a multiple of every T */
  int64_t pe = peel(&w, a, simd, cols);
  /* B off a line where its rows are whole lines apart (a malloc'd or
  ** numpy buffer: 16 bytes off): the rows of A whose elements go before
  ** B's first line boundary as a strip of their own (T rows at least, some
  ** written twice), so that the other tiles' stores start on a line; a
  ** 32- or 64-byte store across two lines costs two. Into B 16 bytes off
  ** a line (min of 7): trt.chw32 unpack int8 [1,64,56,56] 9.1 -> 5.0 us,
  ** kneron.1w16c8b_batch_inside unpack fp32 35.4 -> 22.8 us, qnn.nchw
  ** pack fp32 36.0 -> 26.0 us (aligned: 5.0, 24.7, 26-28 us). */
  const int64_t rp = peel_b(&w, b, simd, rows);
  int strip = rp > 0;
  for (int64_t r = 0;;) {
    const int64_t r1 = strip ? (rp < T ? T : rp)
                       : r + mb > rows || rows - (r + mb) < T ? rows : r + mb;
    for (int q = pe ? 0 : 1; q < 2; q++) /* one call: it stays inlined */
      macro_block(&w, q ? a + (size_t)pe * esz : a, q ? b + (size_t)pe * w.ldb : b,
                  r, r1, q ? cols - pe : pe);
    if (r1 == rows) break;
    r = strip ? rp : r1;
    strip = 0;
  }
}

/* ---- Gather tiles ------------------------------------------------------------
** li_trg_run: the transposition where A's rows are not one loop but a
** small table (a combination of the destination's innermost loops, some of
** them pad positions) and B's rows are written as groups of g contiguous
** elements (see plan_int.h li_trg). The tile is loaded row by row from the
** table (a pad row is the pad element repeated), transposed by the same
** network, and each B row stored group by group. */

/* Store B row j (register bytes `v`) as t->ng groups of gb bytes. */
static inline void trg_store(const li_trg *t, size_t gb, const uint8_t *v,
                             uint8_t *d, size_t esz) {
  for (int k = 0; k < t->ng; k++) {
    uint8_t *q = d + t->grp[k] * (int64_t)esz; /* < 0: a pad before the row */
    const uint8_t *x = v + (size_t)k * gb;
    switch (gb) { /* constant sizes: plain moves */
    case 16: memcpy(q, x, 16); break;
    case 8: memcpy(q, x, 8); break;
    case 4: memcpy(q, x, 4); break;
    case 2: memcpy(q, x, 2); break;
    case 1: *q = *x; break; /* not a call a byte (amd.hcwnc(x=5) pack
                               int8 [1,64,56,56]: 800 -> 220 us) */
    default: memcpy(q, x, gb); break;
    }
  }
}

#if defined(TR_SSE2)
#define TRG_TILE(NAME, W, N, ROUNDS)                                          \
  TR_CLONES static void NAME(const li_trg *t, const uint8_t *s, uint8_t *d,   \
                             int64_t dsc, size_t gb) {                        \
    __m128i r[N];                                                             \
    LI_UNROLL for (int i = 0; i < (N); i++)                                   \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(                 \
          t->row[i] < 0 ? t->pad : s + t->row[i] * (int64_t)(16 / (N))));     \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, N);           \
    if (t->ng == 1 && gb == 16) { /* whole rows, from the registers */       \
      uint8_t *q = d + t->grp[0] * (int64_t)(16 / (N));                       \
      LI_UNROLL for (int j = 0; j < (N); j++)                                 \
        _mm_storeu_si128((__m128i *)(void *)(q + j * dsc * (int64_t)(16 / (N))), r[j]); \
      return;                                                                 \
    }                                                                         \
    uint8_t v[16];                                                            \
    for (int j = 0; j < (N); j++) {                                           \
      _mm_storeu_si128((__m128i *)(void *)v, r[j]);                           \
      trg_store(t, gb, v, d + j * dsc * (int64_t)(16 / (N)), 16 / (N));       \
    }                                                                         \
  }
TRG_TILE(trg_1, 8, 16, 4)
TRG_TILE(trg_2, 16, 8, 3)
TRG_TILE(trg_4, 32, 4, 2)
TRG_TILE(trg_8, 64, 2, 1)

#if defined(TR_AVX2)
/* The wide gather tile (AVX2): T rows of 2T columns, the two 16-byte lanes
** two gather tiles side by side (register j: B rows j and T + j). */
#define TRG_WIDE(NAME, W, N, ROUNDS)                                          \
  __attribute__((target("avx2"))) static void NAME(                           \
      const li_trg *t, const uint8_t *s, uint8_t *d, int64_t dsc, size_t gb) { \
    __m256i r[N];                                                             \
    const int64_t es = 16 / (N);                                              \
    const __m256i pv = _mm256_broadcastsi128_si256(                           \
        _mm_loadu_si128((const __m128i *)(const void *)t->pad));              \
    LI_UNROLL for (int i = 0; i < (N); i++)                                   \
      r[i] = t->row[i] < 0 ? pv                                               \
                           : _mm256_loadu_si256((const __m256i *)(const void *)( \
                                 s + t->row[i] * es));                        \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND256(W, r, N);        \
    if (t->ng == 1) { /* whole rows: stored from the registers */            \
      uint8_t *q = d + t->grp[0] * es;                                        \
      LI_UNROLL for (int j = 0; j < (N); j++) {                               \
        _mm_storeu_si128((__m128i *)(void *)(q + j * dsc * es),               \
                         _mm256_castsi256_si128(r[j]));                       \
        _mm_storeu_si128((__m128i *)(void *)(q + ((N) + j) * dsc * es),       \
                         _mm256_extracti128_si256(r[j], 1));                  \
      }                                                                       \
      return;                                                                 \
    }                                                                         \
    uint8_t v[32];                                                            \
    for (int j = 0; j < (N); j++) {                                           \
      _mm256_storeu_si256((__m256i *)(void *)v, r[j]);                        \
      trg_store(t, gb, v, d + j * dsc * es, (size_t)es);                      \
      trg_store(t, gb, v + 16, d + ((N) + j) * dsc * es, (size_t)es);         \
    }                                                                         \
  }
TRG_WIDE(trgw_1, 8, 16, 4)
TRG_WIDE(trgw_2, 16, 8, 3)
TRG_WIDE(trgw_4, 32, 4, 2)
TRG_WIDE(trgw_8, 64, 2, 1)
#endif

/* The narrow gather tile: P = 2, 4 or 8 table rows, T columns of each
** interleaved (the narrow destination) into P registers stored back to
** back at d (j's destination stride is P). */
#define TRG_NARROW(NAME, W, M, ROUNDS)                                        \
  TR_CLONES static void NAME(const li_trg *t, const uint8_t *s, uint8_t *d,   \
                             size_t esz) {                                    \
    __m128i r[M];                                                             \
    LI_UNROLL for (int i = 0; i < (M); i++)                                   \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(                 \
          t->row[i] < 0 ? t->pad : s + t->row[i] * (int64_t)esz));            \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, M);           \
    LI_UNROLL for (int j = 0; j < (M); j++)                                   \
      _mm_storeu_si128((__m128i *)(void *)(d + 16 * j), r[j]);                \
  }
#define X(N, E, M, W, RM, RT) TRG_NARROW(trgn_##N, W, M, RM)
TR_NARROW_SHAPES(X)
#undef X

typedef void (*trgn_fn)(const li_trg *, const uint8_t *, uint8_t *, size_t);

#if defined(TR_AVX2)
/* The narrow gather tile over 2T columns (AVX2), as TR_NDST2. */
#define TRG_NARROW2(NAME, W, M, ROUNDS)                                       \
  __attribute__((target("avx2"))) static void NAME(                           \
      const li_trg *t, const uint8_t *s, uint8_t *d, size_t esz) {            \
    __m256i r[M];                                                             \
    const __m256i pv = _mm256_broadcastsi128_si256(                           \
        _mm_loadu_si128((const __m128i *)(const void *)t->pad));              \
    LI_UNROLL for (int i = 0; i < (M); i++)                                   \
      r[i] = t->row[i] < 0 ? pv                                               \
                           : _mm256_loadu_si256((const __m256i *)(const void *)( \
                                 s + t->row[i] * (int64_t)esz));              \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND256(W, r, M);        \
    LI_UNROLL for (int j = 0; j < (M); j++) {                                 \
      _mm_storeu_si128((__m128i *)(void *)(d + 16 * j),                       \
                       _mm256_castsi256_si128(r[j]));                         \
      _mm_storeu_si128((__m128i *)(void *)(d + 16 * ((M) + j)),               \
                       _mm256_extracti128_si256(r[j], 1));                    \
    }                                                                         \
  }
#define X(N, E, M, W, RM, RT) TRG_NARROW2(trgn2_##N, W, M, RM)
TR_NARROW_SHAPES(X)
#undef X

static trgn_fn trgn2_for(size_t esz, int m) {
#define X(N, E, M, W, RM, RT) case E << 4 | M: return trgn2_##N;
  TR_SHAPE_SWITCH(esz, m)
#undef X
}
#endif

static trgn_fn trgn_for(size_t esz, int m) {
#define X(N, E, M, W, RM, RT) case E << 4 | M: return trgn_##N;
  TR_SHAPE_SWITCH(esz, m)
#undef X
}
#endif

/* The portable gather tile: the same bytes element by element. */
static void trg_c(const li_trg *t, size_t esz, const uint8_t *s, uint8_t *d,
                  int64_t dsc, int64_t ncol) {
  int T = (int)(TR_BYTES / esz);
  for (int64_t j = 0; j < ncol; j++)
    for (int i = 0; i < T; i++) {
      int k = i / t->g, e = i % t->g;
      if (k >= t->ng) continue;
      const uint8_t *x = t->row[i] < 0 ? t->pad
                                       : s + (t->row[i] + j) * (int64_t)esz;
      memcpy(d + ((t->grp[k] + e) + j * dsc) * (int64_t)esz, x, esz);
    }
}

void li_trg_run(const li_trg *t, size_t esz, int simd, const uint8_t *s,
                int64_t cols, uint8_t *d, int64_t dsc) {
  int64_t T = (int64_t)(TR_BYTES / esz);
#if defined(TR_SSE2)
  trgn_fn nf = t->ng == 1 && t->g < T && dsc == t->g ? trgn_for(esz, t->g)
                                                      : NULL;
  if (simd >= LI_SIMD_SSE && cols >= T && nf) {
    int64_t c = 0;
#if defined(TR_AVX2)
    trgn_fn nf2 = simd >= LI_SIMD_AVX2 ? trgn2_for(esz, t->g) : NULL;
    if (nf2) /* 2T columns a step while they fit */
      for (; c + 2 * T <= cols; c += 2 * T)
        nf2(t, s + c * (int64_t)esz, d + (t->grp[0] + c * dsc) * (int64_t)esz,
            esz);
#endif
    for (; c < cols; c += T) {
      int64_t c0 = c + T > cols ? cols - T : c; /* shifted back */
      nf(t, s + c0 * (int64_t)esz, d + (t->grp[0] + c0 * dsc) * (int64_t)esz,
         esz);
    }
    return;
  }
  void (*f)(const li_trg *, const uint8_t *, uint8_t *, int64_t, size_t) =
      esz == 1 ? trg_1 : esz == 2 ? trg_2 : esz == 4 ? trg_4 : trg_8;
  /* a narrow destination of P = g elements, T / 2 < P < T, that no
  ** narrow network has (int8 12, int16 6; plan/loops.c take_gather): T x
  ** T tiles (the table's other rows pads), B row j stored 16 bytes whole
  ** at j * P, each store overwriting the previous one's excess; a tile's
  ** last excess lies in the next tile's first columns, the row's last
  ** tile is stored exactly */
  if (simd >= LI_SIMD_SSE && cols >= T && t->ng == 1 && t->g < T &&
      dsc == t->g) {
    int64_t c = 0;
    for (; c + 2 * T <= cols; c += T)
      f(t, s + c * (int64_t)esz, d + c * dsc * (int64_t)esz, dsc, 16);
    for (; c < cols; c += T) {
      int64_t c0 = c + T > cols ? cols - T : c; /* shifted back */
      f(t, s + c0 * (int64_t)esz, d + c0 * dsc * (int64_t)esz, dsc,
        (size_t)t->g * esz);
    }
    return;
  }
  if (simd >= LI_SIMD_SSE && cols >= T && t->ng * t->g == (int)T) {
    size_t gb = (size_t)t->g * esz;
    int64_t c = 0;
#if defined(TR_AVX2)
    if (simd >= LI_SIMD_AVX2) { /* 2T columns a step while they fit */
      void (*wf)(const li_trg *, const uint8_t *, uint8_t *, int64_t, size_t) =
          esz == 1 ? trgw_1 : esz == 2 ? trgw_2 : esz == 4 ? trgw_4 : trgw_8;
      for (; c + 2 * T <= cols; c += 2 * T)
        wf(t, s + c * (int64_t)esz, d + c * dsc * (int64_t)esz, dsc, gb);
    }
#endif
    for (; c < cols; c += T) {
      int64_t c0 = c + T > cols ? cols - T : c; /* shifted back */
      f(t, s + c0 * (int64_t)esz, d + c0 * dsc * (int64_t)esz, dsc, gb);
    }
    return;
  }
#else
  (void)simd;
#endif
  trg_c(t, esz, s, d, dsc, cols);
}

/* ---- Column tables -----------------------------------------------------------
** li_trc_run: the transposition whose A columns are T elements contiguous
** in the source but spread over two destination loops (AMD HCWNC4's 4
** channels of 4 images, the batch loop that would otherwise cut every tile
** to 4 columns): B row j (column j of A) starts at d + t->grp[j]; A's rows
** are `rows` apart by lda elements, B's rows contiguous. Full T x T tiles
** down the rows, the last one shifted back; under AVX2 two of them at once
** (rows r and r + T in the two lanes), each B row stored 32 bytes whole. */
#if defined(TR_SSE2)
#define TRC_TILE(NAME, W, N, ROUNDS)                                          \
  TR_CLONES static void NAME(const uint8_t *a, size_t lda,                    \
                             uint8_t *const *bp, size_t off) {                \
    __m128i r[N];                                                             \
    LI_UNROLL for (int i = 0; i < (N); i++)                                   \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(a + (size_t)i * lda)); \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, N);           \
    LI_UNROLL for (int j = 0; j < (N); j++)                                   \
      _mm_storeu_si128((__m128i *)(void *)(bp[j] + off), r[j]);               \
  }
TRC_TILE(trc_1, 8, 16, 4)
TRC_TILE(trc_2, 16, 8, 3)
TRC_TILE(trc_4, 32, 4, 2)
TRC_TILE(trc_8, 64, 2, 1)

typedef void (*trc_fn)(const uint8_t *, size_t, uint8_t *const *, size_t);

#if defined(TR_AVX2)
#define TRC_TWO(NAME, W, N, ROUNDS)                                           \
  __attribute__((target("avx2"))) static void NAME(                           \
      const uint8_t *a, size_t lda, uint8_t *const *bp, size_t off) {         \
    __m256i r[N];                                                             \
    TR_TWO_TILES(W, r, N, ROUNDS, a, lda);                                    \
    LI_UNROLL for (int j = 0; j < (N); j++)                                   \
      _mm256_storeu_si256((__m256i *)(void *)(bp[j] + off), r[j]);            \
  }
TRC_TWO(trc2_1, 8, 16, 4)
TRC_TWO(trc2_2, 16, 8, 3)
TRC_TWO(trc2_4, 32, 4, 2)
TRC_TWO(trc2_8, 64, 2, 1)
#endif
#endif

/* The narrow column table: A's rows are M < T elements back to back (lda
** = M); T rows are M registers, and the narrow tile's rounds leave
** register j holding column j, stored at bp[j] (AVX2: 2T rows, the two
** lanes, as TR_NARROW2). */
#if defined(TR_SSE2)
#define TRCN(NAME, W, M, ROUNDS)                                              \
  TR_CLONES static void NAME(const uint8_t *a, uint8_t *const *bp,            \
                             size_t off) {                                    \
    __m128i r[M];                                                             \
    LI_UNROLL for (int i = 0; i < (M); i++)                                   \
      r[i] = _mm_loadu_si128((const __m128i *)(const void *)(a + 16 * i));    \
    LI_UNROLL for (int k = 0; k < (ROUNDS); k++) TR_ROUND(W, r, M);           \
    LI_UNROLL for (int j = 0; j < (M); j++)                                   \
      _mm_storeu_si128((__m128i *)(void *)(bp[j] + off), r[j]);               \
  }
#define X(N, E, M, W, RM, RT) TRCN(trcn_##N, W, M, RT)
TR_NARROW_SHAPES(X)
#undef X
typedef void (*trcn_fn)(const uint8_t *, uint8_t *const *, size_t);
#if defined(TR_AVX2)
#define TRCN2(NAME, W, M, ROUNDS)                                             \
  __attribute__((target("avx2"))) static void NAME(                           \
      const uint8_t *a, uint8_t *const *bp, size_t off) {                     \
    __m256i r[M];                                                             \
    TR_TWO_TILES(W, r, M, ROUNDS, a, 16);                                     \
    LI_UNROLL for (int j = 0; j < (M); j++)                                   \
      _mm256_storeu_si256((__m256i *)(void *)(bp[j] + off), r[j]);            \
  }
#define X(N, E, M, W, RM, RT) TRCN2(trcn2_##N, W, M, RT)
TR_NARROW_SHAPES(X)
#undef X
#endif

/* The narrow column-table kernel for rows of m elements of esz bytes
** (twice: 2T rows a call), or NULL. */
static trcn_fn trcn_for(size_t esz, int64_t m, int twice) {
#if defined(TR_AVX2)
  if (twice) {
#define X(N, E, M, W, RM, RT) case E << 4 | M: return trcn2_##N;
    TR_SHAPE_SWITCH(esz, m)
#undef X
  }
#else
  (void)twice;
#endif
#define X(N, E, M, W, RM, RT) case E << 4 | M: return trcn_##N;
  TR_SHAPE_SWITCH(esz, m)
#undef X
}
#endif

void li_trc_run(const li_trg *t, size_t esz, int simd, const uint8_t *a,
                int64_t lda, int64_t rows, uint8_t *d) {
  const int64_t T = (int64_t)(TR_BYTES / esz), nc = t->ng;
  const size_t la = (size_t)lda * esz;
  uint8_t *bp[16];
  for (int64_t j = 0; j < nc; j++) bp[j] = d + t->grp[j] * (int64_t)esz;
#if defined(TR_SSE2)
  if (nc < T) { /* rows of nc elements back to back: the narrow form */
    int twice = simd >= LI_SIMD_AVX2 && rows >= 2 * T;
    trcn_fn f = simd >= LI_SIMD_SSE && rows >= T && lda == nc
                    ? trcn_for(esz, nc, twice) : NULL;
    if (f) {
      int64_t step = twice ? 2 * T : T;
      for (int64_t r = 0; r < rows; r += step) {
        int64_t rr = r + step > rows ? rows - step : r; /* shifted back */
        f(a + (size_t)rr * la, bp, (size_t)rr * esz);
      }
      return;
    }
  } else if (simd >= LI_SIMD_SSE && rows >= T) {
    int64_t r = 0;
#if defined(TR_AVX2)
    if (simd >= LI_SIMD_AVX2 && rows >= 2 * T) {
      trc_fn f2 = esz == 1 ? trc2_1 : esz == 2 ? trc2_2 : esz == 4 ? trc2_4 : trc2_8;
      for (; r < rows; r += 2 * T) {
        int64_t rr = r + 2 * T > rows ? rows - 2 * T : r; /* shifted back */
        f2(a + (size_t)rr * la, la, bp, (size_t)rr * esz);
      }
      return;
    }
#endif
    trc_fn f = esz == 1 ? trc_1 : esz == 2 ? trc_2 : esz == 4 ? trc_4 : trc_8;
    for (; r < rows; r += T) {
      int64_t rr = r + T > rows ? rows - T : r; /* shifted back */
      f(a + (size_t)rr * la, la, bp, (size_t)rr * esz);
    }
    return;
  }
#else
  (void)simd;
#endif
  for (int64_t j = 0; j < nc; j++)
    for (int64_t i = 0; i < rows; i++)
      memcpy(bp[j] + (size_t)i * esz, a + (size_t)i * la + (size_t)j * esz, esz);
}
