/*
** test_vrun.c: the value rules on short runs (interp/exec/value.c's fast
** quantize / dequantize / bf16 paths with their steps over the end of a
** run, and kern_ilv.c's fused quantize + interleave) against the
** per-element reference of tests/interp/ref.h, byte for byte.
**
**   test_vrun runs   li_encode / li_decode on every length 1 .. 100 (and a
**                    few long ones), misaligned, at every SIMD level the
**                    CPU has: quantize fp32 -> int8/uint8/int16/uint16 with
**                    arith exact (power-of-two scales), f32 and f32_div, every
**                    rounding mode, zero points 0, 3, -5, 128, 0.5, x offsets
**                    0, 1.5, -2, 0.1, 1e10 + 1; dequantize back; fp32 <-> bf16 / fp16 both
**                    roundings; fp32 <-> fp8 (e4m3, e5m2) every rounding
**                    saturating or not. Inputs: ties, values around the saturation
**                    bounds, huge values, infinities, NaNs, -0.0, denormals.
**                    Under valgrind (LAY_UNDER_VALGRIND) at the best level
**                    only, every fourth quantize rule.
**   test_vrun plans  user layouts that interleave 4, 8 and 16 wide with a
**                    quantizing rule (any scale, zero point, f32 arith) or
**                    a cast, and Kneron's per-channel fixed point,
**                    pack and unpack, odd shapes, at the LAY_SIMD level of
**                    the environment (CMake runs it at 0, 1 and 2).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "lang.h"
#include "lay.h"
#include "plan_int.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ref.h"
#pragma GCC diagnostic pop

static long long checked, failures;

static uint64_t rng = 0x2545f4914f6cdd1du;
static uint32_t next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* An fp32 value worth testing near scale s (the quantized unit is 1/s). */
static float gen_f(double s) {
  uint32_t k = next() % 14, bits = next() ^ (next() << 16);
  double v;
  switch (k) {
  case 0: v = ((double)((int)(next() % 600) - 300) + 0.5) / s; break; /* ties */
  case 1: v = ((double)((int)(next() % 70000) - 35000)) / s; break;
  case 2: v = ((double)((int)(next() % 2000000) - 1000000)) / 1000.0 / s; break;
  case 3: v = (double)((int)(next() % 5) - 2) * 1e30; break;
  case 4: v = next() % 2 ? INFINITY : -INFINITY; break;
  case 5: v = next() % 2 ? -0.0 : 0.0; break;
  case 6: v = ldexp((double)(next() % 1000), -(int)(next() % 160)); break;
  case 7: v = NAN; break;
  case 8: v = ((double)((int)(next() % 300) - 150) + 0.5) / s + 1.5; break;
  default: /* anything; NaNs quiet (the reference passes them through a
           ** double, which quietens a signalling one) */
    if ((bits & 0x7f800000u) == 0x7f800000u && (bits & 0x7fffffu)) bits |= 0x400000u;
    { float f; memcpy(&f, &bits, 4); return f; }
  }
  return (float)v;
}

static const lay_dtype qtypes[] = {LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16,
                                   LAY_DT_UINT16};

/* One rule both ways over runs of every length, at every SIMD level. */
static void run_rule(lg_ir *ir, li_vrule *v, int maxlv, const char *what) {
  rlay r;
  memset(&r, 0, sizeof r);
  r.ir = ir;
  r.cpu = LAY_DT_FP32;
  r.csz = 4;
  r.hw = ir->value.hw;
  r.hsz = dsz(r.hw);
  enum { MAXN = 1100 };
  static uint8_t src[4 * MAXN + 8], want[4 * MAXN], got[4 * MAXN + 8],
      hsrc[4 * MAXN + 8], back[4 * MAXN], gback[4 * MAXN + 8];
  double s = ir->value.num[0] / ir->value.den[0];
  for (int n = 1; n <= MAXN; n = n < 100 ? n + 1 : n + 1000) { /* 1..100, 1100 */
    int off = (int)(next() % 4); /* misaligned runs */
    for (int i = 0; i < n; i++) {
      float f = gen_f(s);
      /* ref.h's fp8 search cannot tell codes apart far past the range
      ** (every distance rounds to the value): saturation from 1e5 */
      if ((r.hw == LAY_DT_FP8E4M3 || r.hw == LAY_DT_FP8E5M2) && isfinite(f) &&
          fabsf(f) > 1e5f)
        f = copysignf(1e5f, f);
      if (r.hw == LAY_DT_FP16 && isnan(f)) /* ref.h: no fp16 payloads */
        f = copysignf(NAN, f);
      memcpy(src + off + 4 * i, &f, 4);
      r_encode_t(&r, r.hw, src + off + 4 * i, want + r.hsz * (size_t)i, 0);
    }
    /* the hw elements to decode: what encoding gives and random bits */
    for (size_t i = 0; i < (size_t)n * r.hsz; i++)
      hsrc[off + i] = next() % 3 ? want[i] : (uint8_t)next();
    if (r.hw == LAY_DT_BF16 || r.hw == LAY_DT_FP16) /* quiet NaNs only, as gen_f */
      for (int i = 0; i < n; i++) {
        uint16_t h;
        memcpy(&h, hsrc + off + 2 * i, 2);
        if (r.hw == LAY_DT_BF16 && (h & 0x7f80u) == 0x7f80u && (h & 0x7fu)) h |= 0x40u;
        /* (ref.h's fp16 NaN is a double NaN: no payload) */
        if (r.hw == LAY_DT_FP16 && (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu))
          h = (uint16_t)((h & 0x8000u) | 0x7e00u);
        memcpy(hsrc + off + 2 * i, &h, 2);
      }
    for (int i = 0; i < n; i++)
      r_decode_t(&r, r.hw, hsrc + off + r.hsz * (size_t)i, back + 4 * i, 0);
    /* each level, then the top; under valgrind the top only */
    for (int lp = getenv("LAY_UNDER_VALGRIND") ? maxlv : 0; lp <= maxlv + 1;
         lp++) {
      int lv = lp <= maxlv ? lp : maxlv;  /* one with the choice made once */
      v->simd = lv;
      v->qk_set = 0;
      if (lp > maxlv) li_vrule_prep(v); /* as plans do */
      /* the input in a heap block that ends where the run ends (ASan sees
      ** any read past it) */
      uint8_t *sx = malloc((size_t)off + 4 * (size_t)n);
      memcpy(sx + off, src + off, 4 * (size_t)n);
      memset(got, 0xa5, sizeof got);
      li_encode(v, sx + off, got + off, n, NULL);
      free(sx);
      checked++;
      if (memcmp(got + off, want, (size_t)n * r.hsz) ||
          got[off + (size_t)n * r.hsz] != 0xa5 || (off && got[off - 1] != 0xa5)) {
        if (failures++ < 10) {
          size_t i = 0;
          while (i < (size_t)n * r.hsz && got[off + i] == want[i]) i++;
          float f;
          memcpy(&f, src + off + 4 * (i / r.hsz), 4);
          printf("FAIL %s encode n=%d simd=%d: byte %zu got %02x want %02x (x = %a)\n",
                 what, n, lv, i, got[off + i], want[i], (double)f);
        }
      }
      uint8_t *hx = malloc((size_t)off + r.hsz * (size_t)n);
      memcpy(hx + off, hsrc + off, r.hsz * (size_t)n);
      memset(gback, 0xa5, sizeof gback);
      li_decode(v, hx + off, gback + off, n, NULL);
      free(hx);
      checked++;
      if (memcmp(gback + off, back, (size_t)n * 4) || gback[off + 4 * n] != 0xa5) {
        if (failures++ < 10) {
          int i = 0;
          while (i < 4 * n && gback[off + i] == back[i]) i++;
          printf("FAIL %s decode n=%d simd=%d: byte %d\n", what, n, lv, i);
        }
      }
    }
  }
}

static void runs(void) {
  int maxlv = li_simd_level();
  /* scale as num / den: AMD quantize(scale S): num 1, den S; Kneron: num
  ** S * 2^R; TIDL: num = tensor_scale */
  static const double nums[][2] = {{1, 0.05}, {1, 0.0078125}, {1, 3},
                                   {4096, 1}, {32, 1}, {0.1, 1}, {1, 1e-30}};
  /* x offsets: floats (the float32 sum) and not (the sum in double) */
  static const double zps[] = {0, 3, -5, 128, 0.5},
                      xoffs[] = {0, 1.5, -2, 0.1, 1e10 + 1};
  static const int ariths[] = {LG_A_EXACT, LG_A_F32, LG_A_F32_DIV};
  static const int rounds[] = {LG_R_HALF_EVEN, LG_R_HALF_AWAY, LG_R_TRUNC};
  char what[160];
  /* under valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) every
  ** fourth quantize rule: the same code paths, a quarter of the stage's
  ** six minutes; the other runs take them all */
  const size_t every = getenv("LAY_UNDER_VALGRIND") ? 4 : 1;
  size_t nth = 0;
  for (size_t t = 0; t < sizeof qtypes / sizeof qtypes[0]; t++)
    for (size_t a = 0; a < 3; a++)
      for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
        for (size_t z = 0; z < sizeof zps / sizeof zps[0]; z++)
          for (size_t x = 0; x < sizeof xoffs / sizeof *xoffs; x++)
            for (size_t m = 0; m < 3; m++) {
              if (nth++ % every) continue;
              double num = nums[k][0], den = nums[k][1], zp = zps[z],
                     xoff = xoffs[x];
              lg_ir ir;
              memset(&ir, 0, sizeof ir);
              ir.value.kind = LG_V_AFFINE;
              ir.value.cpu = LAY_DT_FP32;
              ir.value.hw = qtypes[t];
              ir.value.axis = -1;
              ir.value.n = 1;
              ir.value.num = &num;
              ir.value.den = &den;
              ir.value.zp = &zp;
              ir.value.xoff = &xoff;
              ir.value.round = (lg_round)rounds[m];
              ir.value.arith = (lg_arith)ariths[a];
              ir.value.saturate = 1;
              li_vrule v;
              memset(&v, 0, sizeof v);
              v.kind = LI_VR_QUANT;
              v.cpu = LAY_DT_FP32;
              v.hw = qtypes[t];
              v.round = rounds[m];
              v.arith = ariths[a];
              v.saturate = 1;
              v.axis = -1;
              v.nch = 1;
              v.num = &num;
              v.den = &den;
              v.zp = &zp;
              v.xoff = &xoff;
              snprintf(what, sizeof what, "%s arith %d %g/%g zp %g xoff %g round %d",
                       lay_dtype_name(qtypes[t]), ariths[a], num, den, zp, xoff,
                       rounds[m]);
              run_rule(&ir, &v, maxlv, what);
            }
  /* fp32 <-> bf16 and fp16 casts, both roundings */
  for (size_t c = 0; c < 4; c++) {
    lay_dtype ht = c < 2 ? LAY_DT_BF16 : LAY_DT_FP16;
    size_t m = c % 2 ? 2 : 0;
    double one = 1;
    lg_ir ir;
    memset(&ir, 0, sizeof ir);
    ir.value.kind = LG_V_CAST;
    ir.value.cpu = LAY_DT_FP32;
    ir.value.hw = ht;
    ir.value.axis = -1;
    ir.value.n = 1;
    ir.value.num = ir.value.den = &one;
    ir.value.round = (lg_round)rounds[m];
    ir.value.saturate = 1;
    li_vrule v;
    memset(&v, 0, sizeof v);
    v.kind = LI_VR_CAST;
    v.cpu = LAY_DT_FP32;
    v.hw = ht;
    v.round = rounds[m];
    v.saturate = 1;
    v.axis = -1;
    v.nch = 1;
    snprintf(what, sizeof what, "%s round %d", lay_dtype_name(ht), rounds[m]);
    run_rule(&ir, &v, maxlv, what);
  }
  /* fp32 <-> fp8 (cast8.c), every rounding, saturating or not */
  for (int e5 = 0; e5 < 2; e5++)
    for (size_t m = 0; m < 3; m++)
      for (int sat = 1; sat < 2; sat++) { /* ref.h: casts saturate */
        double one = 1;
        lay_dtype t = e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
        lg_ir ir;
        memset(&ir, 0, sizeof ir);
        ir.value.kind = LG_V_CAST;
        ir.value.cpu = LAY_DT_FP32;
        ir.value.hw = t;
        ir.value.axis = -1;
        ir.value.n = 1;
        ir.value.num = ir.value.den = &one;
        ir.value.round = (lg_round)rounds[m];
        ir.value.saturate = sat;
        li_vrule v;
        memset(&v, 0, sizeof v);
        v.kind = LI_VR_CAST;
        v.cpu = LAY_DT_FP32;
        v.hw = t;
        v.round = rounds[m];
        v.saturate = sat;
        v.axis = -1;
        v.nch = 1;
        snprintf(what, sizeof what, "fp8 e5 %d round %d sat %d", e5, rounds[m], sat);
        run_rule(&ir, &v, maxlv, what);
      }
}

/* ---- Plans ------------------------------------------------------------------ */
static const char *defs =
    "layout q8(s, z) (n, c, h, w) : fp32 -> [h, c/8, w, n, c%8]\n"
    "    quantize(scale = s, zero_point = z, to = int8, arith = f32_div)\n"
    "layout q4(s, z) (n, c, h, w) : fp32 -> [h, c/4, w, n, c%4]\n"
    "    quantize(scale = s, zero_point = z, to = uint8, arith = f32, round = truncate)\n"
    "layout q16(s, z) (n, c, h, w) : fp32 -> [n, c/16, h, w, c%16]\n"
    "    quantize(scale = s, zero_point = z, to = uint8, arith = f32)\n"
    "layout qx(s) (n, c, h, w) : fp32 -> [n, c/8, h, w, c%8]\n"
    "    affine(xoff = 1.5, num = s, den = 1, to = int8, round = truncate, arith = f32)\n"
    "layout b4 (n, c, h, w) : fp32 -> [h, c/4, w, n, c%4] cast(to = bf16, round = truncate)\n"
    "layout b16 (n, c, h, w) : fp32 -> [n, c/16, h, w, c%16] cast(to = bf16)\n";

static void fill_cpu(float *x, int64_t n, double s) {
  for (int64_t i = 0; i < n; i++) x[i] = gen_f(s);
}

static void plan_case(lay_ctx *ctx, const char *fmt, const int64_t *shape,
                      double s) {
  lg_ir *ir = NULL;
  lay_error e;
  memset(&e, 0, sizeof e);
  if (lg_instantiate_for(li_ctx_module(ctx), fmt, shape, 4, LAY_DT_FP32, &ir,
                         &e) != LAY_OK) {
    printf("FAIL %s: instantiate: %s\n", fmt, e.message);
    failures++;
    return;
  }
  rlay r;
  rlay_init(&r, ir, shape, LAY_DT_FP32);
  int64_t n = r_count(shape, 4);
  size_t hb = (size_t)r.nelem * r.hsz, cb = (size_t)n * 4;
  float *x = malloc(cb), *back = malloc(cb), *wback = malloc(cb);
  uint8_t *want = malloc(hb), *got = malloc(hb);
  fill_cpu(x, n, s);
  r_pack(&r, (const uint8_t *)x, want);
  r_unpack(&r, want, (uint8_t *)wback);
  for (int dir = 0; dir < 2; dir++) {
    lay_plan *p = NULL;
    lay_status st = lay_plan_create(ctx, fmt, shape, 4, LAY_DT_FP32,
                                    dir ? LAY_UNPACK : LAY_PACK, &p, &e);
    checked++;
    if (st != LAY_OK) {
      printf("FAIL %s: plan: %s\n", fmt, e.message);
      failures++;
      continue;
    }
    if (!dir) {
      memset(got, 0x5a, hb);
      st = lay_plan_run(p, x, cb, got, hb, 1, &e);
      if (st != LAY_OK || memcmp(got, want, hb)) {
        size_t i = 0;
        while (i < hb && got[i] == want[i]) i++;
        printf("FAIL %s pack [%lld,%lld,%lld,%lld]: byte %zu got %02x want %02x\n",
               fmt, (long long)shape[0], (long long)shape[1], (long long)shape[2],
               (long long)shape[3], i, got[i], want[i]);
        failures++;
      }
    } else {
      memset(back, 0x5a, cb);
      st = lay_plan_run(p, want, hb, back, cb, 1, &e);
      if (st != LAY_OK || memcmp(back, wback, cb)) {
        printf("FAIL %s unpack [%lld,%lld,%lld,%lld]\n", fmt, (long long)shape[0],
               (long long)shape[1], (long long)shape[2], (long long)shape[3]);
        failures++;
      }
    }
    lay_plan_free(p);
  }
  free(x); free(back); free(wback); free(want); free(got);
  lg_ir_free(ir);
}

static void plans(void) {
  lay_ctx *ctx = NULL;
  lay_error e;
  if (lay_ctx_new(&ctx, &e) != LAY_OK ||
      lay_ctx_load_string(ctx, "vrun.lay", defs, strlen(defs), &e) != LAY_OK) {
    printf("FAIL context: %s\n", e.message);
    failures++;
    return;
  }
  static const int64_t shapes[][4] = {{1, 64, 56, 56}, {1, 37, 29, 23},
                                      {2, 5, 3, 7}, {1, 8, 1, 33},
                                      {1, 3, 2, 31}, {3, 17, 4, 40}};
  static const char *fmts[][2] = {
      {"q8(0.05, 0)", "20"}, {"q8(0.3, 3)", "3"}, {"q8(0.0078125, -5)", "128"},
      {"q4(0.1, 3)", "10"}, {"q4(0.7, 0)", "1.4"}, {"q16(0.1, 7)", "10"},
      {"qx(12.5)", "12.5"}, {"b4", "1"}, {"b16", "1"}};
  for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++)
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
      plan_case(ctx, fmts[f][0], shapes[k], atof(fmts[f][1]));
  /* per channel, one channel a plane (Kneron's fixed point per channel,
  ** 4 and 16 wide): a scale and a radix of each channel */
  static const char *pc[] = {"kneron.4w4c8b_qc", "kneron.1w16c8b_qc"};
  for (size_t f = 0; f < 2; f++)
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
      char fmt[4096], sc[1800], rx[1000];
      int o = 0, q = 0;
      for (int64_t c = 0; c < shapes[k][1]; c++) {
        o += snprintf(sc + o, sizeof sc - (size_t)o, "%s%g", c ? ", " : "",
                      0.3 + 0.17 * (double)(c % 7));
        q += snprintf(rx + q, sizeof rx - (size_t)q, "%s%d", c ? ", " : "",
                      (int)(c % 5));
      }
      snprintf(fmt, sizeof fmt, "%s([%s], [%s])", pc[f], sc, rx);
      plan_case(ctx, fmt, shapes[k], 10);
    }
  lay_ctx_free(ctx);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "plans")) plans();
  else runs();
  printf("test_vrun %s: %lld checks, %lld failures\n",
         argc > 1 ? argv[1] : "runs", checked, failures);
  return failures ? 1 : 0;
}
