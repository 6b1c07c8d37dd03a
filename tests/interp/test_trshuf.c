/*
** test_trshuf.c: the narrow transpositions of interp/exec/tr_shuf.c
** against their definition, element by element, at every SIMD level:
**   kernel  li_shuf_ndst (m rows into groups of W elements with pads
**           around them, the pad pattern given; the groups back to back
**           or with gaps whose bytes stay unchanged) for every m in 1..16,
**           every element size, odd column counts, unaligned pointers,
**           guard bytes before and after B;
**   tr2d    li_tr2d (which dispatches to tr_shuf.c) for rows or columns
**           of 1..16 elements, B's rows back to back (ldb == rows) or
**           with gaps whose bytes must stay unchanged (ldb > rows), A's
**           rows back to back (lda == cols) or longer than what is read;
**   block   li_block_any (kern_rows.c, kernel BLOCK): n rows of K
**           elements read ssi apart, each written as a group of W with
**           pads around it, rows dso apart (the bytes between them
**           unchanged); source rows contiguous (sso 1, the tiled
**           transposition for K of a tile or more) or not;
**   plan    lay.h plans (LAY_SIMD set for each level): core.nchw <->
**           core.nhwc for C = 1..17 and onednn.nChw16c / kneron.1w16c8b
**           pack and unpack with C = 5 (a 16-channel block, 11 pads a
**           pixel), against the layouts' index formulas.
*/
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"
#include "kern.h"
#include "plan_int.h"
#include "tr_shuf.h"

static unsigned rng = 4242;
static unsigned next(void) {
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

#define GUARD 48 /* bytes around B that nothing may write */

/* li_shuf_ndst for m rows of esz bytes into groups of W (pre pads first)
** gp apart, cols columns, A and B at byte offsets ao, bo from 16-byte
** alignment. */
static int ndst_case(size_t esz, int simd, int64_t m, int64_t W, int64_t gp,
                     int64_t pre, int64_t cols, int64_t lda, size_t ao,
                     size_t bo) {
  size_t abytes = (size_t)((m - 1) * lda + cols) * esz;
  size_t gbytes = (size_t)(cols * gp) * esz;
  uint8_t *abuf = malloc(abytes + 16), *bbuf = malloc(gbytes + 2 * GUARD + 16);
  uint8_t *want = malloc(gbytes + 2 * GUARD + 16);
  if (!abuf || !bbuf || !want) return 1;
  uint8_t *a = abuf + ao, *b = bbuf + bo, *w = want + bo;
  uint8_t pat[8] = {0};
  for (size_t i = 0; i < esz; i++) pat[i] = (uint8_t)(0xC0 + i);
  for (size_t i = 0; i < abytes; i++) a[i] = (uint8_t)next();
  memset(bbuf, 0x5A, gbytes + 2 * GUARD + 16);
  memset(want, 0x5A, gbytes + 2 * GUARD + 16);
  int done = li_shuf_ndst(esz, simd, a, a + abytes, a, lda, m, cols,
                          b + GUARD, gp, W, pre, pat);
  if (done) /* the definition: group j = pads, A's column j, pads */
    for (int64_t j = 0; j < cols; j++)
      for (int64_t e = 0; e < W; e++) {
        uint8_t *q = w + GUARD + (size_t)(j * gp + e) * esz;
        int64_t i = e - pre;
        if (i >= 0 && i < m) memcpy(q, a + (size_t)(i * lda + j) * esz, esz);
        else memcpy(q, pat, esz);
      }
  /* taken exactly where documented: AVX2, m < T, W * esz <= 64, cols >= T,
  ** gaps only after groups of whole 16-byte chunks */
  int64_t T = (int64_t)(16 / esz);
  int expect = simd >= LI_SIMD_AVX2 && m < T && W * (int64_t)esz <= 64 &&
               cols >= T && (gp == W || W * (int64_t)esz % 16 == 0);
  int bad = memcmp(bbuf, want, gbytes + 2 * GUARD + 16) != 0 ||
            done != expect;
  if (bad) {
    size_t k = 0;
    while (k < gbytes + 2 * GUARD + 16 && bbuf[k] == want[k]) k++;
    fprintf(stderr,
            "FAIL ndst esz %zu simd %d m %lld W %lld gp %lld pre %lld cols "
            "%lld lda %lld ao %zu bo %zu: done %d (expected %d), byte %lld "
            "of B\n",
            esz, simd, (long long)m, (long long)W, (long long)gp, (long long)pre,
            (long long)cols, (long long)lda, ao, bo, done, expect,
            (long long)k - (long long)(GUARD + bo));
  }
  free(abuf);
  free(bbuf);
  free(want);
  return bad;
}

/* li_tr2d against B[j][i] = A[i][j]: A allocated to its last byte, B's
** gap bytes and guards unchanged. */
static int tr2d_case(size_t esz, int simd, int64_t rows, int64_t cols,
                     int64_t lda, int64_t ldb, size_t bo) {
  size_t abytes = (size_t)((rows - 1) * lda + cols) * esz;
  size_t bbytes = (size_t)((cols - 1) * ldb + rows) * esz + 2 * GUARD + 16;
  uint8_t *a = malloc(abytes), *bbuf = malloc(bbytes), *want = malloc(bbytes);
  if (!a || !bbuf || !want) return 1;
  for (size_t i = 0; i < abytes; i++) a[i] = (uint8_t)next();
  memset(bbuf, 0xA5, bbytes);
  memset(want, 0xA5, bbytes);
  uint8_t *b = bbuf + GUARD + bo, *w = want + GUARD + bo;
  for (int64_t i = 0; i < rows; i++)
    for (int64_t j = 0; j < cols; j++)
      memcpy(w + (size_t)(j * ldb + i) * esz, a + (size_t)(i * lda + j) * esz,
             esz);
  li_tr2d(esz, simd, a, a + abytes, a, lda, b, ldb, rows, cols);
  int bad = memcmp(bbuf, want, bbytes) != 0;
  if (bad) {
    size_t k = 0;
    while (bbuf[k] == want[k]) k++;
    fprintf(stderr,
            "FAIL tr2d esz %zu simd %d rows %lld cols %lld lda %lld ldb %lld "
            "bo %zu: byte %lld of B\n",
            esz, simd, (long long)rows, (long long)cols, (long long)lda,
            (long long)ldb, bo, (long long)k - (long long)(GUARD + bo));
  }
  free(a);
  free(bbuf);
  free(want);
  return bad;
}

/* li_block_any against its definition: row r's group at d + r*dso - pre
** holds pre pads, s[r*sso + i*ssi] for i < K, then pads up to W. */
static int block_case(size_t esz, int simd, int64_t n, int K, int pre, int W,
                      int64_t sso, int64_t ssi, int64_t dso) {
  int64_t last = (n - 1) * sso + (K - 1) * ssi;
  size_t abytes = (size_t)(last + 1) * esz;
  size_t bbytes = (size_t)((n - 1) * dso + W) * esz + 2 * GUARD;
  uint8_t *a = malloc(abytes), *bbuf = malloc(bbytes), *want = malloc(bbytes);
  if (!a || !bbuf || !want) return 1;
  uint8_t pat[8] = {0};
  for (size_t i = 0; i < esz; i++) pat[i] = (uint8_t)(0xE0 + i);
  for (size_t i = 0; i < abytes; i++) a[i] = (uint8_t)next();
  memset(bbuf, 0x3C, bbytes);
  memset(want, 0x3C, bbytes);
  for (int64_t r = 0; r < n; r++)
    for (int e = 0; e < W; e++) {
      uint8_t *q = want + GUARD + (size_t)(r * dso + e) * esz;
      int i = e - pre;
      if (i >= 0 && i < K) memcpy(q, a + (size_t)(r * sso + i * ssi) * esz, esz);
      else memcpy(q, pat, esz);
    }
  li_block_any(esz, 0, a, sso, ssi, bbuf + GUARD + (size_t)pre * esz, dso, n,
               K, pre, W, pat, simd, a, a + abytes);
  int bad = memcmp(bbuf, want, bbytes) != 0;
  if (bad) {
    size_t k = 0;
    while (bbuf[k] == want[k]) k++;
    fprintf(stderr,
            "FAIL block esz %zu simd %d n %lld K %d pre %d W %d sso %lld ssi "
            "%lld dso %lld: byte %lld of B\n",
            esz, simd, (long long)n, K, pre, W, (long long)sso, (long long)ssi,
            (long long)dso, (long long)k - GUARD);
  }
  free(a);
  free(bbuf);
  free(want);
  return bad;
}

static int blocks(int simd, int *cases) {
  static const size_t eszs[] = {1, 2, 4};
  static const int ks[] = {2, 3, 7, 8, 15, 16, 17, 23, 37, 40};
  static const int64_t ns[] = {1, 2, 5, 16, 17, 33, 667};
  int fails = 0;
  for (int ei = 0; ei < 3; ei++)
    for (int ki = 0; ki < 10; ki++)
      for (int ni = 0; ni < 7; ni++) {
        size_t esz = eszs[ei];
        int K = ks[ki];
        int64_t n = ns[ni];
        for (int v = 0; v < 6; v++) { /* pads: none, few, most of a group */
          int pre = v & 1,
              post = v == 0 ? 0 : v == 3 ? 3 : v == 4 ? 27 : v == 5 ? 11 : 1;
          int W = pre + K + post;
          int64_t dso = v == 2 ? W + 5 : W; /* a gap after each group */
          /* source rows contiguous (column i at i * ssi), or not */
          fails += block_case(esz, simd, n, K, pre, W, 1, n + v, dso);
          fails += block_case(esz, simd, n, K, pre, W, K + 1, 1, dso);
          *cases += 2;
        }
      }
  return fails;
}

static int kernels(int simd, int *cases) {
  static const size_t eszs[] = {1, 2, 4, 8};
  static const int64_t ncols[] = {1, 3, 15, 16, 17, 31, 33, 67, 200};
  int fails = 0;
  for (int ei = 0; ei < 4; ei++) {
    size_t esz = eszs[ei];
    for (int64_t m = 1; m <= 16; m++)
      for (int ci = 0; ci < 9; ci++) {
        int64_t c = ncols[ci];
        /* groups of m, of m with pads around, of a 16-element block, of
        ** the widest group taken (64 bytes) and one past it */
        int64_t Ws[5] = {m, m + 3, 16, 64 / (int64_t)esz,
                         64 / (int64_t)esz + 1};
        for (int wi = 0; wi < 5; wi++) {
          int64_t W = Ws[wi];
          if (W < m) continue;
          int64_t pre = wi == 1 ? 1 : wi == 3 ? (W - m) / 2 : 0;
          fails += ndst_case(esz, simd, m, W, W, pre, c, c + (m & 1),
                             (size_t)(m % 3), (size_t)(c % 5));
          /* gaps between the groups: W more elements (another image's) */
          fails += ndst_case(esz, simd, m, W, 2 * W, pre, c, c, 1, 3);
          *cases += 2;
        }
        /* B rows back to back, B rows with gaps, A rows back to back, A
        ** rows longer than the columns read */
        if (m <= 16) {
          fails += tr2d_case(esz, simd, m, c, c, m, (size_t)(c % 3));
          fails += tr2d_case(esz, simd, m, c, c + 1, m + 2, 1);
          fails += tr2d_case(esz, simd, c, m, m, c, (size_t)(m % 3));
          fails += tr2d_case(esz, simd, c, m, m + 3, c + 1, 0);
          if (m > 1) fails += tr2d_case(esz, simd, c, m - 1, m, c, 2);
          *cases += 5;
        }
      }
  }
  return fails;
}

/* ---- Plans through lay.h ------------------------------------------------ */

/* Run one plan on src and compare with want (dst_bytes). */
static int run_plan(lay_ctx *ctx, const char *from, const char *to,
                    const int64_t *shape, lay_dir dir, lay_dtype dt,
                    const uint8_t *src, const uint8_t *want, size_t dbytes,
                    const char *what) {
  lay_plan *p = NULL;
  lay_error e;
  lay_status st = to ? lay_plan_convert(ctx, from, to, shape, 4, dt, &p, &e)
                     : lay_plan_create(ctx, from, shape, 4, dt, dir, &p, &e);
  if (st != LAY_OK) {
    fprintf(stderr, "FAIL %s: plan: %s\n", what, e.message);
    return 1;
  }
  if (lay_plan_dst_bytes(p) != dbytes) {
    fprintf(stderr, "FAIL %s: %zu destination bytes, expected %zu\n", what,
            lay_plan_dst_bytes(p), dbytes);
    lay_plan_free(p);
    return 1;
  }
  uint8_t *out = malloc(dbytes);
  if (!out) return 1;
  memset(out, 0xEE, dbytes);
  st = lay_plan_run(p, src, lay_plan_src_bytes(p), out, dbytes, 1, &e);
  int bad = st != LAY_OK || memcmp(out, want, dbytes) != 0;
  if (bad) {
    size_t k = 0;
    while (k < dbytes && out[k] == want[k]) k++;
    fprintf(stderr, "FAIL %s: byte %zu is %02x, expected %02x\n", what, k,
            k < dbytes ? out[k] : 0, k < dbytes ? want[k] : 0);
  }
  free(out);
  lay_plan_free(p);
  return bad;
}

/* NCHW <-> NHWC, offsets from the index formulas. */
static int plan_nhwc(lay_ctx *ctx, lay_dtype dt, int64_t C, int lv) {
  size_t es = lay_dtype_size(dt);
  const int64_t N = 2, H = 7, W = 9;
  int64_t shape[4] = {N, C, H, W};
  size_t bytes = (size_t)(N * C * H * W) * es;
  uint8_t *x = malloc(bytes), *y = malloc(bytes);
  if (!x || !y) return 1;
  for (size_t i = 0; i < bytes; i++) x[i] = (uint8_t)next();
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++)
          memcpy(y + (size_t)(((n * H + h) * W + w) * C + c) * es,
                 x + (size_t)(((n * C + c) * H + h) * W + w) * es, es);
  char what[96];
  snprintf(what, sizeof what, "nchw->nhwc %s C %lld simd %d",
           lay_dtype_name(dt), (long long)C, lv);
  int f = run_plan(ctx, "core.nchw", "core.nhwc", shape, LAY_CONVERT, dt, x,
                   y, bytes, what);
  int64_t hshape[4] = {N, H, W, C};
  snprintf(what, sizeof what, "nhwc->nchw %s C %lld simd %d",
           lay_dtype_name(dt), (long long)C, lv);
  f += run_plan(ctx, "core.nhwc", "core.nchw", hshape, LAY_CONVERT, dt, y, x,
                bytes, what);
  free(x);
  free(y);
  return f;
}

/* A 16-channel block with C = 5: onednn.nChw16c [n, c/16, h, w, c%16],
** kneron.1w16c8b [c/16, n, h, w, c%16] and amd.hcwnc16 [h, c/16, w, n,
** c%16] (the images' groups interleaved), pads 0. */
static const char *const block_fmt[] = {"onednn.nChw16c", "kneron.1w16c8b",
                                        "amd.hcwnc16"};
static int plan_block(lay_ctx *ctx, lay_dtype dt, int kind, int lv) {
  size_t es = lay_dtype_size(dt);
  const int64_t N = 2, C = 5, H = 6, W = 35, CB = 1;
  int64_t shape[4] = {N, C, H, W};
  size_t sbytes = (size_t)(N * C * H * W) * es;
  size_t dbytes = (size_t)(N * CB * 16 * H * W) * es;
  uint8_t *x = malloc(sbytes), *y = calloc(dbytes, 1);
  if (!x || !y) return 1;
  for (size_t i = 0; i < sbytes; i++) x[i] = (uint8_t)next();
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
          int64_t o =
              kind == 0 ? (((n * CB + c / 16) * H + h) * W + w) * 16 + c % 16
              : kind == 1 ? (((c / 16 * N + n) * H + h) * W + w) * 16 + c % 16
                          : (((h * CB + c / 16) * W + w) * N + n) * 16 + c % 16;
          memcpy(y + (size_t)o * es,
                 x + (size_t)(((n * C + c) * H + h) * W + w) * es, es);
        }
  const char *fmt = block_fmt[kind];
  char what[96];
  snprintf(what, sizeof what, "%s pack %s C 5 simd %d", fmt,
           lay_dtype_name(dt), lv);
  int f = run_plan(ctx, fmt, NULL, shape, LAY_PACK, dt, x, y, dbytes, what);
  snprintf(what, sizeof what, "%s unpack %s C 5 simd %d", fmt,
           lay_dtype_name(dt), lv);
  f += run_plan(ctx, fmt, NULL, shape, LAY_UNPACK, dt, y, x, sbytes, what);
  free(x);
  free(y);
  return f;
}

static int plans(int lv, int *cases) {
  lay_ctx *ctx = NULL;
  lay_error e;
  if (lay_ctx_new(&ctx, &e) != LAY_OK) {
    fprintf(stderr, "FAIL context: %s\n", e.message);
    return 1;
  }
  static const lay_dtype dts[] = {LAY_DT_UINT8, LAY_DT_INT16, LAY_DT_FP32, LAY_DT_INT64};
  int f = 0;
  for (int d = 0; d < 4; d++) {
    for (int64_t C = 1; C <= 17; C++, ++*cases) f += plan_nhwc(ctx, dts[d], C, lv);
    if (dts[d] != LAY_DT_INT64)
      for (int k = 0; k < 3; k++, ++*cases) f += plan_block(ctx, dts[d], k, lv);
  }
  lay_ctx_free(ctx);
  return f;
}

int main(void) {
  int fails = 0, cases = 0, top = li_simd_level();
  for (int simd = 0; simd <= top; simd++) {
    fails += kernels(simd, &cases);
    fails += blocks(simd, &cases);
    char lv[2] = {(char)('0' + simd), 0};
    setenv("LAY_SIMD", lv, 1); /* read when a plan is made */
    fails += plans(simd, &cases);
  }
  printf("%d cases at SIMD levels 0..%d, %d failed\n", cases, top, fails);
  return fails != 0;
}
