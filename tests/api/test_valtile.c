/*
** test_valtile.c: value rules on tiles (issue 16 point 2) against
** per-element references written here from LANGUAGE.md: `quantize` with
** arith = f32 / f32_div packed and unpacked (pack: k = f32(1) / f32(S),
** q = sat(round_half_even(f32(x * k)) + Z); unpack, f32: x = f32(f32(q -
** Z) * f32(S)), f32_div: x = f32(f32(q - Z) / k)), per tensor and per
** channel, to int8 / uint8 / int16 / uint16; `affine` with an xoff
** (q = sat(trunc(f32(f32(x - xoff) * k)) + zp)); int16 in two byte planes
** unpacked (u = lo | hi << 8) and dequantized; fp32 <-> bf16 casts
** (round to nearest even; back: the bits moved up). Layouts whose
** channels are a block cut by the tile ([c/16, n, h, w, c%16], [n, c/4,
** h, w, c%4], AMD's [h, c/8, w, n, c%8]), plain rows and rows padded
** to 16 elements ([n, c, h, ceil(w, 16)]), shapes with odd
** extents (vector tails) and channel counts that are not a multiple of
** the block. CTest runs it at every SIMD level (LAY_SIMD).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static int fails, serial, cases;

typedef struct vt {
  const char *name;
  lay_dtype dt;
  size_t size;
  double lo, hi;
} vt;

static const vt k_types[] = {{"int8", LAY_DT_INT8, 1, -128, 127},
                             {"uint8", LAY_DT_UINT8, 1, 0, 255},
                             {"int16", LAY_DT_INT16, 2, -32768, 32767},
                             {"uint16", LAY_DT_UINT16, 2, 0, 65535}};

enum { L_C16, L_C4, L_AMD8, L_ROWS, L_PADW, L_PL16, NLAY };
static const char *const k_lay[] = {
    "[c/16, n, h, w, c%16]", "[n, c/4, h, w, c%4]", "[h, c/8, w, n, c%8]",
    "[n, c, h, w]", "[n, c, h, ceil(w, 16)]",
    ("[c/16, n, h, w, byte, c%16]\n"
     "    where byte = bytes(lo = u & 0xff, hi = (u >> 8) & 0xff)")};

typedef struct shp {
  int64_t N, C, H, W;
} shp;

/* Elements (hw) of layout l, and the offset of CPU element (n, c, h, w). */
static int64_t lay_size(int l, const shp *s) {
  int64_t c16 = (s->C + 15) / 16, c4 = (s->C + 3) / 4, c8 = (s->C + 7) / 8;
  int64_t p = s->N * s->H * s->W, w16 = (s->W + 15) / 16 * 16;
  return l == L_C16 ? c16 * p * 16 : l == L_C4 ? c4 * p * 4
         : l == L_AMD8 ? c8 * p * 8 : l == L_ROWS ? p * s->C
         : l == L_PADW ? s->N * s->C * s->H * w16 : c16 * p * 32;
}

static int64_t lay_off(int l, const shp *s, int64_t n, int64_t c, int64_t h,
                       int64_t w) {
  int64_t c4 = (s->C + 3) / 4, c8 = (s->C + 7) / 8;
  switch (l) {
  case L_C16: return (((c / 16 * s->N + n) * s->H + h) * s->W + w) * 16 + c % 16;
  case L_C4: return (((n * c4 + c / 4) * s->H + h) * s->W + w) * 4 + c % 4;
  case L_AMD8: return (((h * c8 + c / 8) * s->W + w) * s->N + n) * 8 + c % 8;
  case L_ROWS: return ((n * s->C + c) * s->H + h) * s->W + w;
  case L_PADW: return ((n * s->C + c) * s->H + h) * ((s->W + 15) / 16 * 16) + w;
  default: return (((c / 16 * s->N + n) * s->H + h) * s->W + w) * 32 + c % 16;
  }
}

static uint32_t rng = 12345u;
static uint32_t next(void) {
  rng = rng * 1103515245u + 12345u;
  return rng >> 8;
}

static float f32(double v) { return (float)v; }

static double sat(double r, const vt *t) {
  return r < t->lo ? t->lo : r > t->hi ? t->hi : r;
}

/* The hw value q of type t at byte offset o (planes: lo at o, hi at o+16). */
static double ld_q(const uint8_t *b, int64_t o, const vt *t, int planes) {
  if (planes) return (int16_t)(uint16_t)(b[o] | b[o + 16] << 8);
  switch (t->dt) {
  case LAY_DT_INT8: return (int8_t)b[o];
  case LAY_DT_UINT8: return b[o];
  case LAY_DT_INT16: { int16_t v; memcpy(&v, b + 2 * o, 2); return v; }
  default: { uint16_t v; memcpy(&v, b + 2 * o, 2); return v; }
  }
}

static void st_q(uint8_t *b, int64_t o, const vt *t, double r) {
  if (t->size == 1) {
    b[o] = (uint8_t)(int)r;
  } else {
    uint16_t u = (uint16_t)(int32_t)r;
    memcpy(b + 2 * o, &u, 2);
  }
}

static int load(lay_ctx *ctx, const char *name, const char *src) {
  lay_error err;
  if (lay_ctx_load_string(ctx, name, src, strlen(src), &err) == LAY_OK) return 1;
  fprintf(stderr, "FAIL load %s: %s\n", src, err.message);
  fails++;
  return 0;
}

/* Run t.name in direction dir from in to out; compare with ref. */
static void check(lay_ctx *ctx, const char *name, const char *src,
                  const shp *s, lay_dir dir, const void *in, size_t nin,
                  uint8_t *out, const uint8_t *ref, size_t nout) {
  char q[48];
  lay_error err;
  lay_plan *pl = NULL;
  int64_t sh[4] = {s->N, s->C, s->H, s->W};
  snprintf(q, sizeof q, "t.%s", name);
  cases++;
  if (lay_plan_create(ctx, q, sh, 4, LAY_DT_FP32, dir, &pl, &err) != LAY_OK) {
    fprintf(stderr, "FAIL plan %s: %s\n", src, err.message);
    fails++;
    return;
  }
  memset(out, 0xa5, nout);
  if (lay_plan_run(pl, in, nin, out, nout, 1, &err) != LAY_OK ||
      memcmp(out, ref, nout)) {
    size_t i = 0;
    while (i < nout && out[i] == ref[i]) i++;
    fprintf(stderr, "FAIL %s %s shape %lld,%lld,%lld,%lld: byte %zu is %d, "
            "reference %d\n", dir == LAY_PACK ? "pack" : "unpack", src,
            (long long)s->N, (long long)s->C, (long long)s->H,
            (long long)s->W, i, i < nout ? out[i] : -1, i < nout ? ref[i] : -1);
    fails++;
  }
  lay_plan_free(pl);
}

/* quantize(scale, zero_point, to = t, arith) on layout l, packed and
** unpacked; perch: a scale and zero point per channel. */
static void quant(lay_ctx *ctx, int l, const vt *t, int perch, int div,
                  const shp *s) {
  static const float scales[] = {0.037f, 0.5f, 1.7f, 0.11f, 3.0f, 0.7312345f};
  float sc[64];
  double zp[64];
  char sl[1200], zl[600], src[2400], name[32];
  size_t a = 0, b = 0;
  int nch = perch ? (int)s->C : 1;
  for (int c = 0; c < nch; c++) {
    sc[c] = scales[(c + serial) % 6];
    zp[c] = t->lo < 0 ? (double)((c * 5 + serial) % 9 - 4) : (double)(c * 7 % 30);
    a += (size_t)snprintf(sl + a, sizeof sl - a, "%s%.9g", c ? ", " : "", (double)sc[c]);
    b += (size_t)snprintf(zl + b, sizeof zl - b, "%s%g", c ? ", " : "", zp[c]);
  }
  snprintf(name, sizeof name, "v%d", serial++);
  snprintf(src, sizeof src,
           "namespace t\nlayout %s (n, c, h, w) : fp32 -> %s\n"
           "    quantize(scale = %s%s%s, zero_point = %s%s%s, to = %s%s, "
           "arith = %s)\n",
           name, k_lay[l], perch ? "[" : "", sl, perch ? "]" : "",
           perch ? "[" : "", zl, perch ? "]" : "", l == L_PL16 ? "int16" : t->name,
           perch ? ", axis = c" : "", div ? "f32_div" : "f32");
  if (!load(ctx, name, src)) return;
  const int planes = l == L_PL16;
  size_t nin = (size_t)(s->N * s->C * s->H * s->W);
  size_t nhw = (size_t)lay_size(l, s), hb = planes ? nhw : nhw * t->size;
  float *x = malloc(nin * 4), *xr = malloc(nin * 4), *xo = malloc(nin * 4);
  uint8_t *hw = malloc(hb), *ref = malloc(hb), *out = malloc(hb > nin * 4 ? hb : nin * 4);
  for (size_t i = 0; i < nin; i++) {
    uint32_t u = next();
    int c = (int)((i / (size_t)(s->H * s->W)) % (size_t)s->C);
    float k = sc[perch ? c : 0];
    switch (u % 8) {
    case 0: x[i] = ((float)(int)(u % 301) - 150.0f + 0.5f) * k; break;
    case 1: x[i] = (u & 1 ? 1 : -1) * 1e30f; break;
    case 2: x[i] = (u & 1 ? 1 : -1) * INFINITY; break;
    default: x[i] = ((float)(u % 100000) / 100000.0f - 0.5f) * 70000.0f * k; break;
    }
  }
  for (size_t i = 0; i < hb; i++) hw[i] = (uint8_t)next();
  memset(ref, 0, hb); /* the pad channels of a block are zeros */
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t c = 0; c < s->C; c++)
      for (int64_t h = 0; h < s->H; h++)
        for (int64_t w = 0; w < s->W; w++) {
          size_t i = (size_t)(((n * s->C + c) * s->H + h) * s->W + w);
          int ci = perch ? (int)c : 0;
          float k = 1.0f / sc[ci];
          int64_t o = lay_off(l, s, n, c, h, w);
          const vt *qt = planes ? &k_types[2] : t;
          double r = sat(nearbyint((double)f32((double)x[i] * (double)k)) + zp[ci], qt);
          if (planes) {
            uint16_t u = (uint16_t)(int16_t)r;
            ref[o] = (uint8_t)(u & 0xff);
            ref[o + 16] = (uint8_t)(u >> 8);
          } else {
            st_q(ref, o, t, r);
          }
          float d = f32(ld_q(hw, o, qt, planes) - zp[ci]);
          xr[i] = div ? f32((double)d / (double)k) : f32((double)d * (double)sc[ci]);
        }
  check(ctx, name, src, s, LAY_PACK, x, nin * 4, out, ref, hb);
  check(ctx, name, src, s, LAY_UNPACK, hw, hb, (uint8_t *)xo,
        (const uint8_t *)xr, nin * 4);
  free(x); free(xr); free(xo); free(hw); free(ref); free(out);
}

/* affine(xoff, num, den, to = t, round = truncate, arith = f32): TIDL's. */
static void affine(lay_ctx *ctx, int l, const vt *t, const shp *s) {
  char src[600], name[32];
  const float xoff = (float)(serial % 5) - 1.5f, num = 32.0f, den = 3.0f;
  snprintf(name, sizeof name, "v%d", serial++);
  snprintf(src, sizeof src,
           "namespace t\nlayout %s (n, c, h, w) : fp32 -> %s\n"
           "    affine(xoff = %g, num = %g, den = %g, to = %s, round = truncate, "
           "arith = f32)\n", name, k_lay[l], (double)xoff, (double)num,
           (double)den, t->name);
  if (!load(ctx, name, src)) return;
  size_t nin = (size_t)(s->N * s->C * s->H * s->W);
  size_t hb = (size_t)lay_size(l, s) * t->size;
  float *x = malloc(nin * 4);
  uint8_t *ref = calloc(hb, 1), *out = malloc(hb);
  const float k = num / den;
  for (size_t i = 0; i < nin; i++) {
    uint32_t u = next();
    x[i] = u % 7 == 0 ? (u & 1 ? 1e20f : -INFINITY)
                      : ((float)(u % 100000) / 100000.0f - 0.5f) * 5000.0f;
  }
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t c = 0; c < s->C; c++)
      for (int64_t h = 0; h < s->H; h++)
        for (int64_t w = 0; w < s->W; w++) {
          size_t i = (size_t)(((n * s->C + c) * s->H + h) * s->W + w);
          float q = f32((double)f32((double)x[i] - (double)xoff) * (double)k);
          st_q(ref, lay_off(l, s, n, c, h, w), t, sat(trunc((double)q), t));
        }
  check(ctx, name, src, s, LAY_PACK, x, nin * 4, out, ref, hb);
  free(x); free(ref); free(out);
}

/* cast(to = bf16) on layout l, packed and unpacked. */
static void bf16(lay_ctx *ctx, int l, const shp *s) {
  char src[400], name[32];
  snprintf(name, sizeof name, "v%d", serial++);
  snprintf(src, sizeof src,
           "namespace t\nlayout %s (n, c, h, w) : fp32 -> %s cast(to = bf16)\n",
           name, k_lay[l]);
  if (!load(ctx, name, src)) return;
  size_t nin = (size_t)(s->N * s->C * s->H * s->W);
  size_t hb = (size_t)lay_size(l, s) * 2;
  float *x = malloc(nin * 4), *xr = malloc(nin * 4), *xo = malloc(nin * 4);
  uint8_t *hw = malloc(hb), *ref = calloc(hb, 1), *out = malloc(hb);
  for (size_t i = 0; i < nin; i++) {
    uint32_t u = next() << 8 | (next() & 0xff);
    if ((u & 0x7f800000u) == 0x7f800000u) u &= 0xbfffffffu; /* no NaN/inf */
    memcpy(&x[i], &u, 4);
  }
  for (size_t i = 0; i < hb; i++) hw[i] = (uint8_t)next();
  for (size_t i = 0; i + 1 < hb; i += 2) /* no NaN bits in the input */
    if ((hw[i + 1] & 0x7f) == 0x7f && (hw[i] & 0x80)) hw[i + 1] &= 0xbf;
  for (int64_t n = 0; n < s->N; n++)
    for (int64_t c = 0; c < s->C; c++)
      for (int64_t h = 0; h < s->H; h++)
        for (int64_t w = 0; w < s->W; w++) {
          size_t i = (size_t)(((n * s->C + c) * s->H + h) * s->W + w);
          int64_t o = lay_off(l, s, n, c, h, w);
          uint32_t u;
          memcpy(&u, &x[i], 4);
          /* to nearest even on the 16 bits dropped */
          uint32_t low = u & 0xffffu, hi16 = u >> 16;
          if (low > 0x8000u || (low == 0x8000u && (hi16 & 1))) hi16++;
          uint16_t b = (uint16_t)hi16;
          memcpy(ref + 2 * o, &b, 2);
          uint16_t hv;
          memcpy(&hv, hw + 2 * o, 2);
          uint32_t back = (uint32_t)hv << 16;
          memcpy(&xr[i], &back, 4);
        }
  check(ctx, name, src, s, LAY_PACK, x, nin * 4, out, ref, hb);
  check(ctx, name, src, s, LAY_UNPACK, hw, hb, (uint8_t *)xo,
        (const uint8_t *)xr, nin * 4);
  free(x); free(xr); free(xo); free(hw); free(ref); free(out);
}

int main(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new(&ctx, &err) != LAY_OK) {
    fprintf(stderr, "FAIL ctx: %s\n", err.message);
    return 1;
  }
  static const shp shapes[] = {
      {1, 37, 29, 23}, {2, 20, 5, 17}, {1, 16, 8, 33}, {1, 3, 7, 61}};
  for (size_t si = 0; si < sizeof shapes / sizeof shapes[0]; si++) {
    const shp *s = &shapes[si];
    for (int l = 0; l < NLAY; l++)
      for (int ti = 0; ti < 4; ti++)
        for (int perch = 0; perch < 2; perch++)
          for (int div = 0; div < 2; div++) {
            if (l == L_PL16 && ti != 2) continue; /* planes: int16 */
            quant(ctx, l, &k_types[ti], perch, div, s);
          }
    for (int l = 0; l < L_PL16; l++) {
      for (int ti = 0; ti < 4; ti++) affine(ctx, l, &k_types[ti], s);
      bf16(ctx, l, s);
    }
  }
  lay_ctx_free(ctx);
  if (fails) {
    fprintf(stderr, "test_valtile: %d of %d cases failed\n", fails, cases);
    return 1;
  }
  printf("test_valtile: %d cases identical to the reference\n", cases);
  return 0;
}
