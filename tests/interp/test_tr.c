/*
** test_tr.c: the general transposition li_tr2d (interp/exec/tr.c) against
** its definition, B[j][i] = A[i][j], element by element: every element
** size, shapes around the tile side (1..3 tiles, edges, fewer rows or
** columns than a tile), rows of 2, 4 or 8 interleaved elements of which
** only some are read, B's rows 2, 4 or 8 A rows interleaved, pitches
** wider than the rows (B's rows a page apart among them), the source
** buffer allocated to its last byte (the loads must stay inside it: run
** under ASan by tests/run.sh) and guard bytes around every row of B
** (nothing outside B's elements may be written). Each case at every SIMD level.
** Also li_trc_run (the column table: B's rows at table offsets; its
** narrow form, rows of 2, 4 or 8 columns back to back).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

static unsigned rng = 12345;
static unsigned next(void) {
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

/* 0 when li_tr2d matches the definition for this case. */
static int one_case(size_t esz, int simd, int64_t rows, int64_t cols,
                    int64_t lda, int64_t ldb) {
  size_t abytes = (size_t)((rows - 1) * lda + cols) * esz;
  uint8_t *a = malloc(abytes);
  size_t bbytes = (size_t)((cols - 1) * ldb + rows) * esz + 64;
  uint8_t *b = malloc(bbytes), *want = malloc(bbytes);
  if (!a || !b || !want) return 1;
  for (size_t i = 0; i < abytes; i++) a[i] = (uint8_t)next();
  memset(b, 0xA5, bbytes);
  memset(want, 0xA5, bbytes);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      memcpy(want + (size_t)(j * ldb + i) * esz,
             a + (size_t)(i * lda + j) * esz, esz);
  li_tr2d(esz, simd, a, a + abytes, a, lda, b, ldb, rows, cols);
  int bad = memcmp(b, want, bbytes) != 0;
  if (bad) {
    size_t k = 0;
    while (b[k] == want[k]) k++;
    fprintf(stderr,
            "FAIL esz %zu simd %d rows %lld cols %lld lda %lld ldb %lld: "
            "byte %zu is %02x, expected %02x\n",
            esz, simd, (long long)rows, (long long)cols, (long long)lda,
            (long long)ldb, k, b[k], want[k]);
  }
  free(a);
  free(b);
  free(want);
  return bad;
}

/* li_trc_run (the column table) against its definition: A is rows x T
** (T = 16 / esz) with row i at a + i * lda, B row j at b + grp[j]: here
** column j = (j % m) and image j / m of an HCWNC-like layout, rows
** `rows` elements long, the images `img` apart; the source allocated to
** its last byte, guard bytes everywhere else in B. 0 when it matches. */
static int trc_case(size_t esz, int simd, int64_t rows, int64_t lda,
                    int64_t m, int64_t nc) {
  int64_t T = nc, img = m * (rows + 3) + 2;
  size_t abytes = (size_t)((rows - 1) * lda + T) * esz;
  size_t bbytes = (size_t)(T / m * img + 8) * esz;
  uint8_t *a = malloc(abytes), *b = malloc(bbytes), *want = malloc(bbytes);
  if (!a || !b || !want) return 1;
  li_trg t;
  memset(&t, 0, sizeof t);
  t.g = 1;
  t.ng = (int)nc;
  for (int64_t j = 0; j < T; j++) t.grp[j] = (j % m) * (rows + 3) + (j / m) * img;
  for (size_t i = 0; i < abytes; i++) a[i] = (uint8_t)next();
  memset(b, 0x5A, bbytes);
  memset(want, 0x5A, bbytes);
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < T; j++)
      memcpy(want + (size_t)(t.grp[j] + i) * esz, a + (size_t)(i * lda + j) * esz, esz);
  li_trc_run(&t, esz, simd, a, lda, rows, b);
  int bad = memcmp(b, want, bbytes) != 0;
  if (bad)
    fprintf(stderr, "FAIL column table esz %zu simd %d rows %lld lda %lld m %lld nc %lld\n",
            esz, simd, (long long)rows, (long long)lda, (long long)m, (long long)nc);
  free(a);
  free(b);
  free(want);
  return bad;
}

int main(void) {
  int fails = 0, cases = 0;
  static const int64_t sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
                                  32, 33, 47, 64, 100};
  int ns = (int)(sizeof sizes / sizeof *sizes);
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++)
    for (size_t esz = 1; esz <= 8; esz *= 2)
      for (int i = 0; i < ns; i++)
        for (int j = 0; j < ns; j++) {
          int64_t r = sizes[i], c = sizes[j];
          fails += one_case(esz, simd, r, c, c, r);
          fails += one_case(esz, simd, r, c, c + 3, r + 5);
          cases += 2;
        }
  /* Interleaved channels (rows of m = 2, 4, 8 elements back to back, only
  ** `cols` <= m of them read): the narrow tile and its edges. */
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++)
    for (size_t esz = 1; esz <= 8; esz *= 2)
      for (int64_t m = 2; m <= 8; m *= 2)
        for (int64_t c = 1; c <= m; c++)
          for (int i = 0; i < ns; i++) {
            fails += one_case(esz, simd, sizes[i], c, m, sizes[i]);
            fails += one_case(esz, simd, sizes[i] + 40, c, m, sizes[i] + 41);
            cases += 2;
          }
  /* The narrow destination: B's rows are A's m = 2, 4, 8 rows back to back
  ** (ldb == m, m streams interleaved), A's rows pitched or not, columns
  ** around the tile side (the last step shifted back, fewer than a tile:
  ** staged). */
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++)
    for (size_t esz = 1; esz <= 8; esz *= 2)
      for (int64_t m = 2; m <= 8; m *= 2)
        for (int i = 0; i < ns; i++) {
          int64_t c = sizes[i];
          fails += one_case(esz, simd, m, c, c, m);
          fails += one_case(esz, simd, m, c, c + 7, m);
          fails += one_case(esz, simd, m, c + 40, c + 41, m);
          cases += 3;
        }
  /* Macro blocks of 256 rows (the last one short or long) and column
  ** blocks of 256 bytes (several, then the narrower tiles and the shifted
  ** last one), pitched or not, at every level. */
  static const int64_t blk[][2] = {{300, 600}, {17, 1013}, {529, 77},
                                   {256, 263}, {272, 16}};
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++)
    for (size_t esz = 1; esz <= 8; esz *= 2)
      for (int i = 0; i < (int)(sizeof blk / sizeof *blk); i++) {
        int64_t r = blk[i][0], c = blk[i][1];
        fails += one_case(esz, simd, r, c, c, r);
        fails += one_case(esz, simd, r, c, c + 3, r + 5);
        cases += 2;
      }
  /* B's rows a page apart or near it (2-byte elements: the square tiles
  ** give way where 2T rows share one set of L1), at every level. */
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++)
    for (size_t esz = 2; esz <= 4; esz *= 2)
      for (int64_t ldb = 4096 / (int64_t)esz; ldb <= 8192 / (int64_t)esz;
           ldb += 2048 / (int64_t)esz + 8) {
        fails += one_case(esz, simd, 48, 40, 41, ldb);
        cases++;
      }
  /* Large, L1-blocked walks with the last macro block short. */
  for (size_t esz = 1; esz <= 8; esz *= 2) {
    fails += one_case(esz, li_simd_level(), 3000, 3, 4, 3000);
    fails += one_case(esz, li_simd_level(), 3136, 64, 64, 3136);
    fails += one_case(esz, li_simd_level(), 64, 3137, 3137, 70);
    cases += 3;
  }
  /* The column table: rows around T and 2T (AVX2 pairs, the shifted last
  ** ones), A's rows exactly T or pitched, 1, 2 or 4 columns an image. */
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++)
    for (size_t esz = 1; esz <= 8; esz *= 2)
      for (int64_t m = 1; m <= 4 && m <= (int64_t)(16 / esz); m *= 2)
        for (int i = 0; i < ns; i++) {
          int64_t T = (int64_t)(16 / esz);
          fails += trc_case(esz, simd, sizes[i], T, m, T);
          fails += trc_case(esz, simd, sizes[i], T + 5, m, T);
          cases += 2;
          /* the narrow form: rows of M = 2, 4, 8 < T columns back to
          ** back (M = m: one image; 2m: two) */
          for (int64_t M = 2; M <= 8 && M < T; M *= 2)
            if (M % m == 0) {
              fails += trc_case(esz, simd, sizes[i], M, m, M);
              cases++;
            }
        }
  printf("%d passed, %d failed\n", cases - fails, fails);
  return fails != 0;
}
