/*
** tr_shuf.h: the narrow transpositions of tr_shuf.c: any small number of
** rows interleaved into groups (planes -> pixels, with pad elements in
** the groups) and groups split back into rows, through byte shuffles
** whose masks are computed from the index formula.
*/
#ifndef LI_TR_SHUF_H
#define LI_TR_SHUF_H

#include <stddef.h>
#include <stdint.h>

/* The narrow destination with pads: A is m rows (row i at a + i*lda
** elements) of `cols` elements; B is `cols` groups of W elements, gp
** apart (gp >= W; the gp - W between them are not written), from g: pre
** pad elements, A's column (m elements), W - pre - m pad elements. pat
** is the pad element (esz bytes). Returns 1 when done, 0 when the shape
** has no kernel here (nothing written then): simd below LI_SIMD_AVX2,
** m >= 16 / esz, W * esz > 64, cols < 16 / esz, or gaps (gp > W) with
** W * esz not a multiple of 16. Loads stay inside [lo, hi). */
int li_shuf_ndst(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
                 const uint8_t *a, int64_t lda, int64_t m, int64_t cols,
                 uint8_t *g, int64_t gp, int64_t W, int64_t pre,
                 const uint8_t *pat);

/* li_tr2d's shapes taken here (same arguments as li_tr2d): B's rows of
** rows < 16 / esz elements back to back (ldb == rows), or A's rows of
** lda < 16 / esz elements of which cols <= lda are read; the m = 2, 4, 8
** cases tr.c's own kernels take are left to them. Returns 1 when done. */
int li_shuf_tr2d(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
                 const uint8_t *a, int64_t lda, uint8_t *b, int64_t ldb,
                 int64_t rows, int64_t cols);

/* Whether li_shuf_tr2d may take the shape (a test inlined into li_tr2d,
** which runs once per step of a box: a call per step cost small
** transposes, qnn.crouton4x1 fp32, ~6%). simd >= 2: LI_SIMD_AVX2. */
static inline int li_shuf_may(size_t esz, int simd, int64_t lda, int64_t ldb,
                              int64_t rows, int64_t cols) {
  return simd >= 2 &&
         ((rows * (int64_t)esz < 16 && ldb == rows) ||
          (lda * (int64_t)esz < 16 && cols <= lda));
}

#endif /* LI_TR_SHUF_H */
