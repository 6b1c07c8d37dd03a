/*
** test_quant.c: fp32 quantization with arith = f32 and f32_div, per tensor
** and per channel, packed by lay against a per-element reference written
** here from LANGUAGE.md (`arith`): k = f32(1) / f32(S), q = sat(round(
** f32(x * k)) + Z), rounded to nearest even or truncated, saturated to T.
** Scales that are and are not powers of two, zero points 0 and not,
** int8 / uint8 / int16, destinations where a channel is a plane of a
** block ([n, c/4, h, w, c%4]), a row ([n, c, h, w]) or every element
** ([n, h, w, c]), int16 split into two byte planes (Kneron's 4W4C8BHL
** and 1W16C8BHL), extents that are and are not multiples of 4 and 16;
** inputs with ties, huge values and infinities. CTest runs it at every
** SIMD level (LAY_SIMD).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static int fails, serial;

typedef struct qt {
  const char *name;
  lay_dtype dt;
  size_t size;
  double lo, hi;
} qt;

static const qt k_types[] = {{"int8", LAY_DT_INT8, 1, -128, 127},
                             {"uint8", LAY_DT_UINT8, 1, 0, 255},
                             {"int16", LAY_DT_INT16, 2, -32768, 32767}};

/* The reference's value of x in channel scale s, zero point zp. */
static double ref_q(float x, float s, int tr, double zp, const qt *t) {
  float k = 1.0f / s;
  float q = x * k;
  double r = tr ? trunc((double)q) : nearbyint((double)q); /* to even */
  r += zp;
  return r < t->lo ? t->lo : r > t->hi ? t->hi : r;
}

/* One case: destination order d (0: [n, c/4, h, w, c%4], 1: [n, c, h, w],
** 2: [n, h, w, c]), per channel or not, the type, arith, rounding. */
static void one(lay_ctx *ctx, int d, int perch, const qt *t, int div,
                int trunc, const int64_t *sh) {
  int64_t N = sh[0], C = sh[1], H = sh[2], W = sh[3];
  static const float scales[] = {0.037f, 0.5f, 1.7f, 0.11f, 3.0f, 0.25f, 0.7312345f};
  float sc[64];
  double zp[64];
  char sl[1200], zl[600];
  size_t a = 0, b = 0;
  int nch = perch ? (int)C : 1;
  for (int c = 0; c < nch; c++) {
    sc[c] = scales[(c + serial) % 7];
    zp[c] = t->lo < 0 ? (double)((c * 5 + serial) % 9 - 4) : (double)(c * 7 % 30);
    a += (size_t)snprintf(sl + a, sizeof sl - a, "%s%.9g", c ? ", " : "", (double)sc[c]);
    b += (size_t)snprintf(zl + b, sizeof zl - b, "%s%g", c ? ", " : "", zp[c]);
  }
  char src[2400], name[32], q[48];
  snprintf(name, sizeof name, "q%d", serial++);
  static const char *const dst[] = {
      "[n, c/4, h, w, c%4]", "[n, c, h, w]", "[n, h, w, c]",
      "[n, c/4, h, w/4, byte, w%4, c%4]\n"
      "    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)",
      "[c/16, n, h, w, byte, c%16]\n"
      "    where byte = bytes(lo = u & 0xff, hi = (u >> 8) & 0xff)"};
  snprintf(src, sizeof src,
           "namespace t\nlayout %s (n, c, h, w) : fp32 -> %s\n"
           "    quantize(scale = %s%s%s, zero_point = %s%s%s, to = %s%s, "
           "arith = %s, round = %s)\n",
           name, dst[d], perch ? "[" : "", sl, perch ? "]" : "",
           perch ? "[" : "", zl, perch ? "]" : "", t->name,
           perch ? ", axis = c" : "", div ? "f32_div" : "f32",
           trunc ? "truncate" : "half_even");
  lay_error err;
  if (lay_ctx_load_string(ctx, name, src, strlen(src), &err) != LAY_OK) {
    fprintf(stderr, "FAIL load %s: %s\n", src, err.message);
    fails++;
    return;
  }
  int64_t CB = (C + 3) / 4, WB = (W + 3) / 4, C16 = (C + 15) / 16;
  size_t nin = (size_t)(N * C * H * W);
  size_t nel = d == 0   ? (size_t)(N * CB * H * W * 4)
               : d == 3 ? (size_t)(N * CB * H * WB * 16)
               : d == 4 ? (size_t)(C16 * N * H * W * 16)
                        : nin;
  size_t nout = nel * (d >= 3 ? 2 : t->size);
  float *in = malloc(nin * 4);
  uint8_t *ref = calloc(nout, 1), *out = malloc(nout);
  uint32_t x = 777u + (uint32_t)serial;
  for (size_t i = 0; i < nin; i++) {
    x = x * 1103515245u + 12345u;
    uint32_t u = x >> 8;
    int c = (int)((i / (size_t)(H * W)) % (size_t)C);
    float s = sc[perch ? c : 0];
    switch (u % 8) {
    case 0: in[i] = ((float)(int)(u % 301) - 150.0f + 0.5f) * s; break; /* ties */
    case 1: in[i] = (u & 1 ? 1 : -1) * 1e30f; break;
    case 2: in[i] = (u & 1 ? 1 : -1) * INFINITY; break;
    default: in[i] = ((float)(u % 100000) / 100000.0f - 0.5f) * 300.0f * s; break;
    }
  }
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
          float v = in[((n * C + c) * H + h) * W + w];
          int k = perch ? (int)c : 0;
          double r = ref_q(v, sc[k], trunc, zp[k], t);
          int64_t o = d == 0   ? (((n * CB + c / 4) * H + h) * W + w) * 4 + c % 4
                      : d == 1 ? ((n * C + c) * H + h) * W + w
                      : d == 2 ? ((n * H + h) * W + w) * C + c
                      : d == 3 ? (((n * CB + c / 4) * H + h) * WB + w / 4) * 32 +
                                     (w % 4) * 4 + c % 4
                               : (((c / 16 * N + n) * H + h) * W + w) * 32 + c % 16;
          if (d >= 3) { /* planes of the int16: lo at o, hi 16 bytes on */
            uint16_t u = (uint16_t)(int16_t)r;
            ref[o] = (uint8_t)(d == 3 ? (u >> 1) & 0x7f : u & 0xff);
            ref[o + 16] = (uint8_t)((u >> 8) & 0xff);
          } else if (t->size == 1) {
            ref[o] = (uint8_t)(int)r;
          } else {
            int16_t s16 = (int16_t)r;
            memcpy(ref + 2 * o, &s16, 2);
          }
        }
  snprintf(q, sizeof q, "t.%s", name);
  lay_plan *pl = NULL;
  if (lay_plan_create(ctx, q, sh, 4, LAY_DT_FP32, LAY_PACK, &pl, &err) != LAY_OK) {
    fprintf(stderr, "FAIL plan %s: %s\n", src, err.message);
    fails++;
  } else if (lay_plan_dst_bytes(pl) != nout) {
    fprintf(stderr, "FAIL %s: %zu bytes, reference %zu\n", src,
            lay_plan_dst_bytes(pl), nout);
    fails++;
  } else {
    memset(out, 0xa5, nout);
    if (lay_plan_run(pl, in, nin * 4, out, nout, 1, &err) != LAY_OK ||
        memcmp(out, ref, nout)) {
      size_t i = 0;
      while (i < nout && out[i] == ref[i]) i++;
      fprintf(stderr, "FAIL pack %s shape %lld,%lld,%lld,%lld: byte %zu is %d, "
              "reference %d\n", src, (long long)N, (long long)C, (long long)H,
              (long long)W, i, i < nout ? out[i] : -1, i < nout ? ref[i] : -1);
      fails++;
    }
  }
  lay_plan_free(pl);
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
      {1, 37, 29, 23}, {2, 8, 5, 17}, {1, 5, 3, 3}, {1, 16, 8, 32}};
  int cases = 0;
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++)
    for (int d = 0; d < 5; d++)
      for (int perch = 0; perch < 2; perch++)
        for (int ti = d >= 3 ? 2 : 0; ti < 3; ti++)
          for (int div = 0; div < 2; div++)
            for (int tr = 0; tr < 2; tr++) {
              one(ctx, d, perch, &k_types[ti], div, tr, shapes[si]);
              cases++;
            }
  lay_ctx_free(ctx);
  if (fails) {
    fprintf(stderr, "test_quant: %d of %d cases failed\n", fails, cases);
    return 1;
  }
  printf("test_quant: %d cases identical to the reference\n", cases);
  return 0;
}
