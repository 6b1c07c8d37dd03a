/*
** test_planes2.c: byte-plane ("hl") layouts and the converting paths of
** interp/exec/conv.c (li_conv_loops: a step's loops and the next through
** an L1 buffer, both ways; the grouped rows of conv_direct_planes) and
** the SPLIT2 step, against the per-element reference of ref.h: every
** output byte compared, pack and unpack, per-tensor and per-channel
** rules, odd shapes and batches, Kneron's formats and layouts of the same
** kinds defined here (other blocks, other bit splits, plain int16 with
** the transposition but no planes), and planes.c's tiles (the PLANES
** kernel: 3 and 4 planes, 1-, 4- and 8-byte elements, shifts from 16 on,
** partial blocks, interleaved planes, per channel; the pair, 2 planes of
** 16-bit bits, with a pad value written as the pad rows of the tiles,
** planes a row apart, per channel and per tensor), at every LAY_SIMD
** level the CPU has (under valgrind, where tests/valgrind.sh sets
** LAY_UNDER_VALGRIND, only at the best one).
** Usage: test_planes2   (exit status 1 when any byte differs)
*/
#define _POSIX_C_SOURCE 200809L /* setenv */
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

/* Layouts like Kneron's with other blocks and bit splits. */
static const char k_spec[] =
    "namespace t\n"
    "# 8 pixels x 2 channels an entry, the plane axis outside both\n"
    "layout p8w2c (n, c, h, w) : int16 -> [n, c/2, h, w/8, byte, w%8, c%2]\n"
    "    where byte = bytes(lo = u & 0xff, hi = (u >> 8) & 0xff)\n"
    "# 2 pixels x 8 channels, Kneron's bit split, quantized per channel\n"
    "layout p2w8c_qc(scale, radix) (n, c, h, w) : fp32 -> [n, c/8, h, w/2, byte, w%2, c%8]\n"
    "    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)\n"
    "    fixed(scale = scale, radix = radix, to = int16, axis = c, arith = f32_div)\n"
    "# 4 x 4 again, per tensor, the batch inside the channel blocks\n"
    "layout p4b_q(scale, radix) (n, c, h, w) : fp32 -> [c/4, n, h, w/4, byte, w%4, c%4]\n"
    "    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)\n"
    "    fixed(scale = scale, radix = radix, to = int16, arith = f32_div)\n"
    "# rows of 8 pixels of one channel, planes after each row\n"
    "layout r8 (n, c, h, w) : int16 -> [n, c, h, w/8, byte, w%8]\n"
    "    where byte = bytes(lo = u & 0xff, hi = (u >> 8) & 0xff)\n"
    "# planes.c's tiles (the PLANES kernel): 4 planes of an int32 in\n"
    "# 16-channel entries\n"
    "layout c16b4 (n, c, h, w) : int32 -> [n, c/16, h, w, byte, c%16]\n"
    "    where byte = bytes(b0 = u & 0xff, b1 = (u >> 8) & 0xff, b2 = (u >> 16) & 0xff, b3 = (u >> 24) & 0xff)\n"
    "# 3 planes of an int32, shifts from 16 on, 16 pixels an entry\n"
    "layout w16b3 (n, c, h, w) : int32 -> [n, c, h, w/16, byte, w%16]\n"
    "    where byte = bytes(b0 = (u >> 3) & 0xff, b1 = (u >> 16) & 0x7f, b2 = (u >> 25) & 0xff)\n"
    "# nibble planes of int8, 8 pixels x 4 channels an entry\n"
    "layout n8w4c (n, c, h, w) : int8 -> [n, c/4, h, w/8, byte, w%8, c%4]\n"
    "    where byte = bytes(lo = u & 0x0f, hi = (u >> 4) & 0x0f)\n"
    "# 3 planes of an int16 in 3-channel entries, the batch inside\n"
    "layout c3p3 (n, c, h, w) : int16 -> [c/3, n, h, w, byte, c%3]\n"
    "    where byte = bytes(a = u & 0x3f, b = (u >> 6) & 0x3f, c = (u >> 12) & 0xf)\n"
    "# the same quantized per channel (fp32 -> int16, then the planes)\n"
    "layout c5p3_qc(scale, radix) (n, c, h, w) : fp32 -> [n, c/5, h, w/2, byte, w%2, c%5]\n"
    "    where byte = bytes(a = u & 0x3f, b = (u >> 6) & 0x3f, c = (u >> 12) & 0xf)\n"
    "    fixed(scale = scale, radix = radix, to = int16, axis = c, arith = f32_div)\n"
    "# 2 planes of an int64's low 32 bits, 4 pixels an entry\n"
    "layout w4q (n, c, h, w) : int64 -> [n, c, h, w/4, byte, w%4]\n"
    "    where byte = bytes(a = u & 0xff, b = (u >> 24) & 0xff)\n"
    "# 3 planes interleaved in each element (plane stride 1)\n"
    "layout il3 (n, c, h, w) : int32 -> [n, c, h, w, byte]\n"
    "    where byte = bytes(a = u & 0xff, b = (u >> 8) & 0xff, c = (u >> 16) & 0xff)\n"
    "# the pair (2 planes of 16-bit bits) through the tiles: Kneron's split\n"
    "# with a pad value (0x0102: lo 0x01, hi 0x01) in 16-channel entries\n"
    "layout c16pv (n, c, h, w) : int16 -> [n, c/16, h, w, byte, c%16]\n"
    "    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)\n"
    "    pad_value = 258\n"
    "# a plain lo/hi split, 8-channel entries, each plane a whole row apart\n"
    "layout c8row (n, c, h, w) : uint16 -> [n, c/8, h, byte, w, c%8]\n"
    "    where byte = bytes(lo = u & 0xff, hi = u >> 8)\n"
    "    pad_value = 65535\n"
    "# 2 channels x 8 pixels an entry, the batch inside, quantized (per tensor)\n"
    "layout p2c_q(scale, radix) (n, c, h, w) : fp32 -> [c/2, n, h, w/8, byte, w%8, c%2]\n"
    "    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)\n"
    "    fixed(scale = scale, radix = radix, to = int16, arith = f32_div)\n"
    "# more than 16 rows (c/2, 25 at C = 50), 16-column segments folded\n"
    "# from w%8 and w/8 with c%2 outside them (the tiles' last rows)\n"
    "layout rows2 (n, c, h, w) : int16 -> [n, h, byte, c%2, w%8, w/8, c/2]\n"
    "    where byte = bytes(lo = u & 0xff, hi = (u >> 8) & 0xff)\n"
    "# 24-channel entries of 4 pixels, quantized, 3 planes: tiles of 16\n"
    "# rows and of 8, segments of 20 columns (w = 23) in groups of 4\n"
    "# (planes.c group_job)\n"
    "layout c24q(scale, radix) (n, c, h, w) : fp32 -> [n, c/24, h, w/4, byte, w%4, c%24]\n"
    "    where byte = bytes(a = u & 0x3f, b = (u >> 6) & 0x3f, c = (u >> 12) & 0xf)\n"
    "    fixed(scale = scale, radix = radix, to = int16, arith = f32_div)\n"
    "# rows of 16 pixels quantized to uint16, saturating at both ends, in a\n"
    "# plain lo/hi split (value.c's two rows a step)\n"
    "layout w16u_q (n, c, h, w) : fp32 -> [n, c, h, w/16, byte, w%16]\n"
    "    where byte = bytes(lo = u & 0xff, hi = u >> 8)\n"
    "    quantize(scale = 0.004, zero_point = 100, to = uint16, arith = f32)\n"
    "# no planes: 4 x 4 entries of int16 quantized per channel (the buffer\n"
    "# path without planes, both ways)\n"
    "layout e4_qc(scale, radix) (n, c, h, w) : fp32 -> [n, c/4, h, w/4, w%4, c%4]\n"
    "    fixed(scale = scale, radix = radix, to = int16, axis = c, arith = f32_div)\n";

static lay_ctx *g_ctx;
static int g_fail, g_cases;
static uint64_t g_rnd = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void) {
  g_rnd ^= g_rnd << 13;
  g_rnd ^= g_rnd >> 7;
  g_rnd ^= g_rnd << 17;
  return (uint32_t)(g_rnd >> 16);
}

/* CPU values: fp32 over a range that saturates int16 at the scales used
** (and exact halves, which the rounding must get right), else bits. */
static void fill(uint8_t *p, int64_t n, lay_dtype t) {
  if (t == LAY_DT_FP32) {
    for (int64_t i = 0; i < n; i++) {
      float f = (float)((int32_t)(rnd() % 200001u) - 100000) / 256.0f;
      if (i % 7 == 0) f = (float)((int32_t)(rnd() % 64u) - 32) + 0.5f;
      memcpy(p + 4 * i, &f, 4);
    }
    return;
  }
  for (int64_t i = 0; i < n * (int64_t)lay_dtype_size(t); i++)
    p[i] = (uint8_t)rnd();
}

/* "[0.5, 0.75, ...]" and "[4, 5, ...]" for C channels. */
static void qc_lists(int64_t C, char *scale, char *radix, size_t cap) {
  size_t a = 0, b = 0;
  for (int64_t k = 0; k < C; k++) {
    a += (size_t)snprintf(scale + a, cap - a, "%s%g", k ? ", " : "[",
                          0.5 + 0.25 * (double)(k % 4));
    b += (size_t)snprintf(radix + b, cap - b, "%s%d", k ? ", " : "[",
                          3 + (int)(k % 5));
  }
  snprintf(scale + a, cap - a, "]");
  snprintf(radix + b, cap - b, "]");
}

/* One format, one shape, one direction: lay's output against ref.h's. */
static void run_case(const char *fmt, const int64_t *shape, lay_dtype dt,
                     lay_dir dir, int lv, int tiles) {
  lay_error e;
  memset(&e, 0, sizeof e);
  lg_ir *ir = NULL;
  g_cases++;
  if (lg_instantiate_for(li_ctx_module(g_ctx), fmt, shape, 4, dt, &ir, &e) !=
      LAY_OK) {
    fprintf(stderr, "FAIL %s: instantiate: %s\n", fmt, e.message);
    g_fail++;
    return;
  }
  rlay r;
  rlay_init(&r, ir, shape, dt);
  const int64_t n = shape[0] * shape[1] * shape[2] * shape[3];
  const size_t cb = (size_t)n * lay_dtype_size(dt);
  const size_t hb = (size_t)r.nelem * r.hsz;
  uint8_t *cpu = malloc(cb), *buf = malloc(hb), *want = NULL, *out = NULL;
  size_t ob = dir == LAY_PACK ? hb : cb;
  want = malloc(ob);
  out = malloc(ob);
  if (!cpu || !buf || !want || !out) abort();
  fill(cpu, n, dt);
  r_pack(&r, cpu, buf); /* pack's reference, unpack's input */
  if (dir == LAY_PACK) memcpy(want, buf, hb);
  else r_unpack(&r, buf, want);
  lay_plan *p = NULL;
  if (lay_plan_create(g_ctx, fmt, shape, 4, dt, dir, &p, &e) != LAY_OK) {
    fprintf(stderr, "FAIL %s: plan: %s\n", fmt, e.message);
    g_fail++;
  } else {
    char *ds = lay_plan_describe(p);
    const char *kg = getenv("LAY_KERNELS"); /* general: CONV runs them */
    if ((tiles == 1 || (tiles == 2 && shape[1] >= 16)) && lv > 0 &&
        !(kg && !strcmp(kg, "general")) &&
        (!ds || !strstr(ds, "data, byte planes"))) { /* a box of the kernel */
      fprintf(stderr, "FAIL %.60s %s simd %d: no PLANES box\n%s", fmt,
              dir == LAY_PACK ? "pack" : "unpack", lv, ds ? ds : "");
      g_fail++;
    }
    free(ds);
    for (int th = 1; th <= 2; th++) {
      memset(out, 0xEE, ob);
      const uint8_t *in = dir == LAY_PACK ? cpu : buf;
      size_t ib = dir == LAY_PACK ? cb : hb;
      lay_status st = lay_plan_run(p, in, ib, out, ob, th, &e);
      size_t k = 0;
      while (st == LAY_OK && k < ob && out[k] == want[k]) k++;
      if (st != LAY_OK || k < ob) {
        fprintf(stderr,
                "FAIL %.60s %s [%lld,%lld,%lld,%lld] %s simd %d threads %d: "
                "byte %zu of %zu is %02x, expected %02x\n",
                fmt, dir == LAY_PACK ? "pack" : "unpack", (long long)shape[0],
                (long long)shape[1], (long long)shape[2], (long long)shape[3],
                lay_dtype_name(dt), lv, th, k, ob, k < ob ? out[k] : 0,
                k < ob ? want[k] : 0);
        g_fail++;
      }
    }
    lay_plan_free(p);
  }
  lg_ir_free(ir);
  free(cpu);
  free(buf);
  free(want);
  free(out);
}

/* The formats: name (%s %s: the per-channel lists), its CPU type; tiles:
** planes.c's PLANES kernel runs a data box (checked), 2: where C fills a
** 16-channel entry (the pair takes the tiles where a box has a rows'
** loop, and unpacking where the tiles' rows are whole 16-byte runs). */
typedef struct fmt_row {
  const char *fmt;
  lay_dtype dt;
  int perch, tiles;
} fmt_row;

static const fmt_row k_fmts[] = {
    {"kneron.4w4c8bhl", LAY_DT_INT16, 0, 2},
    {"kneron.16w1c8bhl", LAY_DT_INT16, 0, 0},
    {"kneron.1w16c8bhl", LAY_DT_INT16, 0, 2},
    {"kneron.4w4c8bhl_q(0.75, 12)", LAY_DT_FP32, 0, 2},
    {"kneron.16w1c8bhl_q(0.75, 12)", LAY_DT_FP32, 0, 0},
    {"kneron.4w4c8bhl_qc(%s, %s)", LAY_DT_FP32, 1, 2},
    {"kneron.16w1c8bhl_qc(%s, %s)", LAY_DT_FP32, 1, 0},
    {"kneron.1w16c8bhl_qc(%s, %s)", LAY_DT_FP32, 1, 2},
    {"kneron.1w16c8bhl_q(0.75, 12)", LAY_DT_FP32, 0, 2},
    {"t.p8w2c", LAY_DT_INT16, 0, 2},
    {"t.p2w8c_qc(%s, %s)", LAY_DT_FP32, 1, 2},
    {"t.p4b_q(0.5, 7)", LAY_DT_FP32, 0, 2},
    {"t.c16pv", LAY_DT_INT16, 0, 2},
    {"t.c8row", LAY_DT_UINT16, 0, 2},
    {"t.p2c_q(0.25, 9)", LAY_DT_FP32, 0, 2},
    {"t.rows2", LAY_DT_INT16, 0, 0}, /* PLANES packs it (25 rows) */
    {"t.c24q(0.5, 6)", LAY_DT_FP32, 0, 1},
    {"t.r8", LAY_DT_INT16, 0, 0},
    {"t.e4_qc(%s, %s)", LAY_DT_FP32, 1, 0},
    {"t.w16u_q", LAY_DT_FP32, 0, 0},
    {"t.c16b4", LAY_DT_INT32, 0, 1},
    {"t.w16b3", LAY_DT_INT32, 0, 1},
    {"t.n8w4c", LAY_DT_INT8, 0, 1},
    {"t.c3p3", LAY_DT_INT16, 0, 1},
    {"t.c5p3_qc(%s, %s)", LAY_DT_FP32, 1, 1},
    {"t.w4q", LAY_DT_INT64, 0, 1},
    {"t.il3", LAY_DT_INT32, 0, 1},
};

/* Odd extents (blocks cut), batches, a shape whose J rows need chunks,
** and one too small for the buffer path. */
static const int64_t k_shapes[][4] = {
    {1, 37, 29, 23}, {2, 5, 7, 9}, {3, 6, 5, 17}, {1, 4, 3, 4},
    {2, 9, 40, 61}, {1, 16, 8, 16}, {2, 20, 5, 7}, {1, 50, 2, 32},
};

/* A random shape (the same ones at each SIMD level: the generator is
** reseeded), and the case run both ways. */
static void run_random(const fmt_row *f, int lv) {
  int64_t sh[4] = {1 + rnd() % 3, 1 + rnd() % 40, 1 + rnd() % 12,
                   1 + rnd() % 40};
  char fmt[4096], sc[1024], rx[1024];
  const char *name = f->fmt;
  if (f->perch) {
    qc_lists(sh[1], sc, rx, sizeof sc);
    snprintf(fmt, sizeof fmt, f->fmt, sc, rx);
    name = fmt;
  }
  run_case(name, sh, f->dt, LAY_PACK, lv, f->tiles);
  run_case(name, sh, f->dt, LAY_UNPACK, lv, f->tiles);
}

int main(void) {
  lay_error e;
  memset(&e, 0, sizeof e);
  const int top = li_simd_level();
  for (int lv = getenv("LAY_UNDER_VALGRIND") ? top : 0; lv <= top; lv++) {
    char s[2] = {(char)('0' + lv), 0};
    setenv("LAY_SIMD", s, 1); /* read when a plan is made */
    if (lay_ctx_new(&g_ctx, &e) != LAY_OK ||
        lay_ctx_load_string(g_ctx, "<test_planes2>", k_spec, strlen(k_spec),
                            &e) != LAY_OK) {
      fprintf(stderr, "FAIL context: %s\n", e.message);
      return 1;
    }
    for (size_t f = 0; f < sizeof k_fmts / sizeof *k_fmts; f++)
      for (size_t k = 0; k < sizeof k_shapes / sizeof *k_shapes; k++) {
        char fmt[4096], sc[1024], rx[1024];
        const char *name = k_fmts[f].fmt;
        if (k_fmts[f].perch) {
          qc_lists(k_shapes[k][1], sc, rx, sizeof sc);
          snprintf(fmt, sizeof fmt, k_fmts[f].fmt, sc, rx);
          name = fmt;
        }
        run_case(name, k_shapes[k], k_fmts[f].dt, LAY_PACK, lv,
                 k_fmts[f].tiles);
        run_case(name, k_shapes[k], k_fmts[f].dt, LAY_UNPACK, lv,
                 k_fmts[f].tiles);
      }
    g_rnd = 0x2545F4914F6CDD1Dull; /* random shapes of the tiles' formats */
    for (size_t f = 0; f < sizeof k_fmts / sizeof *k_fmts; f++)
      for (int k = 0; k < 4 && k_fmts[f].tiles; k++) run_random(&k_fmts[f], lv);
    lay_ctx_free(g_ctx);
  }
  printf("test_planes2: %d cases at SIMD levels 0..%d, %d failed\n", g_cases,
         top, g_fail);
  return g_fail != 0;
}
