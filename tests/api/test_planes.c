/*
** test_planes.c: int16 split into two byte planes (LANGUAGE.md `bytes`),
** packed by lay against a per-element reference written here from
** LANGUAGE.md: plane p of element u is (u >> SHIFT_p) & MASK_p. Layouts
** [n, c/K, h, w/W, byte, w%W, c%K] (Kneron's 4W4C8BHL generalized) and
** [n, c/K, h, w, byte, c%K] for K = 1, 2, 4, 8, 16 and W = 1, 2, 4, 8, 16
** (K 1, W 16: Kneron's 16W1C8BHL), with
** extents that are and are not multiples of the blocks (pads hold 0 in
** both planes), two splits (full bytes, and Kneron's 7-bit low plane);
** each case unpacked back from the reference's planes too (unpack
** recombines OR_p (plane_p & MASK_p) << SHIFT_p: conv.c's three-loop
** transposition for W > 1).
** CTest runs it at every SIMD level (LAY_SIMD).
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static int fails;

static int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* One case: layout text with K, W (W 0: no w split), the split's shifts
** and masks, the shape. */
static void one(lay_ctx *ctx, int K, int W, int kn, const int64_t *s) {
  static const int sh[2][2] = {{0, 8}, {1, 8}};
  static const unsigned mk[2][2] = {{0xff, 0xff}, {0x7f, 0xff}};
  char src[512], name[64];
  static int serial;
  snprintf(name, sizeof name, "p%d", serial++);
  const char *split = kn ? "bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)"
                         : "bytes(lo = u & 0xff, hi = (u >> 8) & 0xff)";
  if (W)
    snprintf(src, sizeof src,
             "namespace t\nlayout %s (n, c, h, w) : int16 -> [n, c/%d, h, w/%d, byte, "
             "w%%%d, c%%%d]\n    where byte = %s\n",
             name, K, W, W, K, split);
  else
    snprintf(src, sizeof src,
             "namespace t\nlayout %s (n, c, h, w) : int16 -> [n, c/%d, h, w, byte, c%%%d]\n"
             "    where byte = %s\n",
             name, K, K, split);
  lay_error err;
  if (lay_ctx_load_string(ctx, name, src, strlen(src), &err) != LAY_OK) {
    fprintf(stderr, "FAIL load %s: %s\n", src, err.message);
    fails++;
    return;
  }
  int64_t N = s[0], C = s[1], H = s[2], Wd = s[3];
  int64_t CK = cdiv(C, K), WB = W ? cdiv(Wd, W) : Wd, WI = W ? W : 1;
  size_t nin = (size_t)(N * C * H * Wd), nout = (size_t)(N * CK * H * WB * 2 * WI * K);
  uint16_t *in = malloc(nin * 2);
  uint8_t *ref = calloc(nout, 1), *out = malloc(nout);
  uint32_t x = 12345u + (uint32_t)serial;
  for (size_t i = 0; i < nin; i++) {
    x = x * 1103515245u + 12345u;
    in[i] = (uint16_t)(x >> 12);
  }
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < Wd; w++) {
          uint32_t u = in[((n * C + c) * H + h) * Wd + w];
          int64_t wb = W ? w / W : w, wi = W ? w % W : 0;
          int64_t o = ((((n * CK + c / K) * H + h) * WB + wb) * 2) * WI * K +
                      wi * K + c % K;
          for (int p = 0; p < 2; p++)
            ref[o + p * WI * K] = (uint8_t)((u >> sh[kn][p]) & mk[kn][p]);
        }
  char q[80];
  snprintf(q, sizeof q, "t.%s", name);
  lay_plan *pl = NULL;
  if (lay_plan_create(ctx, q, s, 4, LAY_DT_INT16, LAY_PACK, &pl, &err) !=
      LAY_OK) {
    fprintf(stderr, "FAIL plan K %d W %d: %s\n", K, W, err.message);
    fails++;
  } else if (lay_plan_dst_bytes(pl) != nout) {
    fprintf(stderr, "FAIL K %d W %d: %zu bytes, reference %zu\n", K, W,
            lay_plan_dst_bytes(pl), nout);
    fails++;
  } else {
    memset(out, 0xa5, nout);
    if (lay_plan_run(pl, in, nin * 2, out, nout, 1, &err) != LAY_OK ||
        memcmp(out, ref, nout)) {
      size_t i = 0;
      while (i < nout && out[i] == ref[i]) i++;
      fprintf(stderr,
              "FAIL pack K %d W %d split %d shape %lld,%lld,%lld,%lld: "
              "byte %zu is %d, reference %d\n",
              K, W, kn, (long long)N, (long long)C, (long long)H,
              (long long)Wd, i, i < nout ? out[i] : -1,
              i < nout ? ref[i] : -1);
      fails++;
    }
  }
  lay_plan_free(pl);
  pl = NULL;
  /* unpack of the reference's planes: OR_p (plane_p & MASK_p) << SHIFT_p
  ** (LANGUAGE.md), the split's bits of each input element */
  uint16_t *back = malloc(nin * 2);
  if (lay_plan_create(ctx, q, s, 4, LAY_DT_INT16, LAY_UNPACK, &pl, &err) !=
      LAY_OK) {
    fprintf(stderr, "FAIL unpack plan K %d W %d: %s\n", K, W, err.message);
    fails++;
  } else {
    memset(back, 0xa5, nin * 2);
    size_t bad = nin;
    if (lay_plan_run(pl, ref, nout, back, nin * 2, 1, &err) != LAY_OK)
      bad = 0;
    for (size_t i = 0; i < nin && bad == nin; i++) {
      uint32_t u = in[i], e = 0;
      for (int p = 0; p < 2; p++)
        e |= ((u >> sh[kn][p]) & mk[kn][p]) << sh[kn][p];
      if (back[i] != (uint16_t)e) bad = i;
    }
    if (bad != nin) {
      fprintf(stderr,
              "FAIL unpack K %d W %d split %d shape %lld,%lld,%lld,%lld: "
              "element %zu\n",
              K, W, kn, (long long)N, (long long)C, (long long)H,
              (long long)Wd, bad);
      fails++;
    }
  }
  lay_plan_free(pl);
  free(back);
  free(in);
  free(ref);
  free(out);
}

int main(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new(&ctx, &err) != LAY_OK) {
    fprintf(stderr, "FAIL ctx: %s\n", err.message);
    return 1;
  }
  static const int64_t shapes[][4] = {
      {1, 64, 56, 56}, {1, 37, 29, 23}, {4, 32, 28, 28}, {2, 16, 3, 5},
      {1, 8, 1, 17},   {3, 5, 7, 9},    {1, 16, 4, 64},  {1, 2, 1, 1}};
  static const int Ks[] = {1, 2, 4, 8, 16}, Ws[] = {0, 1, 2, 4, 8, 16};
  int cases = 0;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int ki = 0; ki < 5; ki++)
      for (int wi = 0; wi < 6; wi++)
        for (int kn = 0; kn < 2; kn++) {
          one(ctx, Ks[ki], Ws[wi], kn, shapes[si]);
          cases++;
        }
  lay_ctx_free(ctx);
  if (fails) {
    fprintf(stderr, "test_planes: %d of %d cases failed\n", fails, cases);
    return 1;
  }
  printf("test_planes: %d cases identical to the reference\n", cases);
  return 0;
}
