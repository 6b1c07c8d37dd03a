/*
** test_vslab.c: value slabs (interp/plan/vplan.c, interp/exec/vslab.c:
** kernel VSLAB) against the per-element reference of tests/interp/ref.h,
** byte for byte. Layouts of every data kernel a slab's buffer takes
** (interleaves of 3, 4, 8 and 16 channels, 16-channel blocks, padded and
** pitched rows, a tiled matrix, a transposition with the channel
** innermost), each with every kind of value rule: quantize with arith
** exact, f32 and f32_div to int8/uint8/int16/uint16 with zero points and
** x offsets, per channel (quantize and Kneron's fixed point), casts fp32
** -> bf16 (both roundings), fp16, fp8 (E4M3, E5M2), integer narrowing and
** widening, and dequantize (int8 CPU side, fp32 layout). Shapes: odd ones,
** batches, one whose CPU-side runs are split with a rest (a box of its
** own), and random ones. Each case packs (against r_pack), unpacks the
** reference's bytes and bytes drawn at random (against r_unpack), on one
** thread and on three. CTest runs it at every LAY_SIMD level, with the
** special kernels off (LAY_KERNELS=general) and with every run split
** (LAY_SPLIT_MIN=1). The run fails when fewer than half of the plans take
** slabs: a test that no slab reaches would check nothing new. Under
** valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) it runs every
** eighth shape, rotating with the layout and rule: one of the eight of
** each 4-D layout and rule, at most one of a 2-D one's five.
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

static long long checked, failures, plans, slabbed;

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

/* The data movements (rank 4 (n, c, h, w) unless noted): %s is the rule. */
static const struct {
  const char *name, *dims, *mem;
} k_lays[] = {
    {"h3", "(n, c, h, w)", "[h, c/3, w, n, c%3]"},
    {"h4", "(n, c, h, w)", "[h, c/4, w, n, c%4]"},
    {"h8", "(n, c, h, w)", "[h, c/8, w, n, c%8]"},
    {"h16", "(n, c, h, w)", "[h, c/16, w, n, c%16]"},
    {"c16", "(n, c, h, w)", "[n, c/16, h, w, c%16]"},
    {"k4", "(n, c, h, w)", "[n, c/4, h, ceil(w, 4), c%4]"},
    {"pad", "(n, c, h, w)", "[n, c, 1 + h + 2, 2 + w + 1]"},
    {"tr", "(n, c, h, w)", "[n, w, h, c]"},
    {"t2", "(a, b)", "[a/8, b/16, a%8, b%16]"},
};

/* The rules: CPU type, the rule (per channel: s and z are the lists),
** the value range of the CPU data (its quantum, for fp32). */
typedef struct {
  const char *name, *cpu, *rule;
  int perch;
  double unit;
} rule_t;
static const rule_t k_rules[] = {
    {"q8d", "fp32", "quantize(scale = 0.05, zero_point = 3, to = int8, arith = f32_div)", 0, 0.05},
    {"qu8e", "fp32", "quantize(scale = 0.3, zero_point = 7, to = uint8)", 0, 0.3},
    {"q16f", "fp32", "affine(xoff = 1.5, num = 4096, den = 1, to = int16, round = truncate, arith = f32)", 0, 1.0 / 4096},
    {"qu16a", "fp32", "quantize(scale = 0.01, zero_point = 100, to = uint16, round = half_away, arith = f32)", 0, 0.01},
    {"q8x", "fp32", "affine(xoff = 0.1, num = 10, den = 1, to = int8, arith = f32)", 0, 0.1},
    {"bft", "fp32", "cast(to = bf16, round = truncate)", 0, 1},
    {"bf", "fp32", "cast(to = bf16)", 0, 1},
    {"h", "fp32", "cast(to = fp16)", 0, 1},
    {"e4", "fp32", "cast(to = fp8e4m3)", 0, 1},
    {"e5", "fp32", "cast(to = fp8e5m2, round = truncate)", 0, 1},
    {"n8", "int32", "cast(to = int8)", 0, 0},
    {"w32", "int8", "cast(to = int32)", 0, 0},
    {"dq", "int8", "dequantize(scale = 0.5, zero_point = 2, to = fp32)", 0, 0},
    {"qc", "fp32", "quantize(scale = s, zero_point = z, to = int8, axis = c)", 1, 0.1},
    {"fc", "fp32", "fixed(scale = s, radix = z, to = int8, axis = c, arith = f32_div)", 1, 0.1},
};

static const int64_t k_shapes4[][4] = {
    {1, 37, 29, 23}, {2, 5, 3, 7}, {1, 8, 1, 33}, {3, 17, 4, 40},
    {1, 64, 9, 30}, {1, 3, 1, 11003} /* runs split, with a rest */};
static const int64_t k_shapes2[][2] = {{37, 300}, {5, 7}, {64, 520}};

/* An fp32 value around unit: ties, big, tiny, infinities, NaNs, -0. */
static float gen_f(double unit) {
  switch (next() % 12) {
  case 0: return (float)(((double)((int)(next() % 600) - 300) + 0.5) * unit);
  case 1: return (float)((double)((int)(next() % 70000) - 35000) * unit);
  case 2: return (float)ldexp((double)(next() % 1000), -(int)(next() % 150));
  case 3: return next() % 2 ? INFINITY : -INFINITY;
  case 4: return NAN;
  case 5: return -0.0f;
  case 6: return (float)((double)((int)(next() % 2000000) - 1000000) * 1e-6 * 1e5);
  default: return (float)((double)((int)(next() % 200000) - 100000) / 1000.0 * unit * 50);
  }
}

/* Random bytes of type t, NaNs quiet (the reference reads through a
** double, which quietens a signalling one); fp16 NaNs made infinities
** (the reference reads every one as the default NaN, lay keeps its
** payload). */
static void gen_hw(lay_dtype t, uint8_t *p, int64_t n) {
  size_t z = dsz(t);
  for (int64_t i = 0; i < n * (int64_t)z; i++) p[i] = (uint8_t)next();
  for (int64_t i = 0; i < n; i++) {
    uint8_t *e = p + (size_t)i * z;
    if (t == LAY_DT_BF16 && (e[1] & 0x7f) == 0x7f && (e[0] & 0x80)) e[0] |= 0x40;
    if (t == LAY_DT_FP16 && (e[1] & 0x7c) == 0x7c) { /* infinities */
      e[1] &= 0xfc;
      e[0] = 0;
    }
    if (t == LAY_DT_FP32 && (e[3] & 0x7f) == 0x7f && (e[2] & 0x80)) e[2] |= 0x40;
  }
}

static void report(const char *what, const char *fmt, const int64_t *s,
                   int rank, const uint8_t *got, const uint8_t *want,
                   size_t n) {
  size_t i = 0;
  while (i < n && got[i] == want[i]) i++;
  printf("FAIL %s %s [", what, fmt);
  for (int d = 0; d < rank; d++) printf("%s%lld", d ? "," : "", (long long)s[d]);
  printf("]: byte %zu of %zu got %02x want %02x\n", i, n, got[i], want[i]);
  failures++;
}

/* One format on one shape: pack, unpack of the reference's bytes and of
** random ones, on one and three threads. */
static void one_case(lay_ctx *ctx, const char *fmt, const int64_t *shape,
                     int rank, lay_dtype cpu, double unit) {
  lg_ir *ir = NULL;
  lay_error e;
  memset(&e, 0, sizeof e);
  if (lg_instantiate_for(li_ctx_module(ctx), fmt, shape, rank, cpu, &ir, &e) !=
      LAY_OK) {
    printf("FAIL %s: instantiate: %s\n", fmt, e.message);
    failures++;
    return;
  }
  rlay r;
  rlay_init(&r, ir, shape, cpu);
  const int64_t n = r_count(shape, rank);
  const size_t hb = (size_t)r.nelem * r.hsz, cb = (size_t)n * r.csz;
  uint8_t *x = malloc(cb), *want = malloc(hb), *got = malloc(hb + 1);
  uint8_t *back = malloc(cb + 1), *wback = malloc(cb), *rnd = malloc(hb);
  if (cpu == LAY_DT_FP32) {
    for (int64_t i = 0; i < n; i++) {
      float f = gen_f(unit);
      memcpy(x + 4 * i, &f, 4);
    }
  } else {
    gen_hw(cpu, x, n);
  }
  r_pack(&r, x, want);
  gen_hw(r.hw, rnd, r.nelem);
  for (int dir = 0; dir < 2; dir++) {
    lay_plan *p = NULL;
    if (lay_plan_create(ctx, fmt, shape, rank, cpu, dir ? LAY_UNPACK : LAY_PACK,
                        &p, &e) != LAY_OK) {
      printf("FAIL %s: plan: %s\n", fmt, e.message);
      failures++;
      continue;
    }
    char *d = lay_plan_describe(p);
    plans++;
    slabbed += d && strstr(d, "convert a slab") != NULL;
    lay_free(d);
    for (int th = 1; th <= 3; th += 2) {
      if (!dir) {
        memset(got, 0x5a, hb + 1);
        checked++;
        if (lay_plan_run(p, x, cb, got, hb, th, &e) != LAY_OK ||
            memcmp(got, want, hb) || got[hb] != 0x5a)
          report(th > 1 ? "pack (3 threads)" : "pack", fmt, shape, rank, got,
                 want, hb);
        continue;
      }
      for (int src = 0; src < 2; src++) {
        const uint8_t *in = src ? rnd : want;
        r_unpack(&r, in, wback);
        memset(back, 0x5a, cb + 1);
        checked++;
        if (lay_plan_run(p, in, hb, back, cb, th, &e) != LAY_OK ||
            memcmp(back, wback, cb) || back[cb] != 0x5a)
          report(src ? "unpack of random bytes" : "unpack", fmt, shape, rank,
                 back, wback, cb);
      }
    }
    lay_plan_free(p);
  }
  free(x); free(want); free(got); free(back); free(wback); free(rnd);
  lg_ir_free(ir);
}

/* The spec: every layout with every rule ("<layout>_<rule>"; per-channel
** rules take their lists as the arguments s and z). */
static char *spec(void) {
  size_t cap = 1 << 16, o = 0;
  char *t = malloc(cap);
  o += (size_t)snprintf(t + o, cap - o, "namespace vs\n");
  for (size_t l = 0; l < sizeof k_lays / sizeof *k_lays; l++)
    for (size_t q = 0; q < sizeof k_rules / sizeof *k_rules; q++) {
      const rule_t *R = &k_rules[q];
      if (R->perch && strcmp(k_lays[l].dims, "(n, c, h, w)")) continue;
      o += (size_t)snprintf(t + o, cap - o, "layout %s_%s%s %s : %s -> %s\n    %s\n",
                            k_lays[l].name, R->name, R->perch ? "(s, z)" : "",
                            k_lays[l].dims, R->cpu, k_lays[l].mem, R->rule);
    }
  return t;
}

/* A format name with the per-channel lists for c channels. */
static void fmt_of(char *buf, size_t cap, const char *lay, const rule_t *R,
                   int64_t c) {
  if (!R->perch) {
    snprintf(buf, cap, "vs.%s_%s", lay, R->name);
    return;
  }
  int o = snprintf(buf, cap, "vs.%s_%s([", lay, R->name);
  int fx = !strcmp(R->name, "fc");
  for (int64_t i = 0; i < c; i++)
    o += snprintf(buf + o, cap - (size_t)o, "%s%g", i ? ", " : "",
                  0.05 + 0.07 * (double)(i % 9));
  o += snprintf(buf + o, cap - (size_t)o, "], [");
  for (int64_t i = 0; i < c; i++)
    o += snprintf(buf + o, cap - (size_t)o, "%s%d", i ? ", " : "",
                  fx ? (int)(i % 5) : (int)(i % 7) - 3);
  snprintf(buf + o, cap - (size_t)o, "])");
}

int main(void) {
  lay_ctx *ctx = NULL;
  lay_error e;
  char *t = spec();
  if (lay_ctx_new(&ctx, &e) != LAY_OK ||
      lay_ctx_load_string(ctx, "vslab.lay", t, strlen(t), &e) != LAY_OK) {
    printf("FAIL spec: %s\n", e.message);
    return 1;
  }
  free(t);
  static char fmt[1 << 15];
  const size_t every = getenv("LAY_UNDER_VALGRIND") ? 8 : 1;
  for (size_t l = 0; l < sizeof k_lays / sizeof *k_lays; l++) {
    const int rank = strcmp(k_lays[l].dims, "(a, b)") ? 4 : 2;
    for (size_t q = 0; q < sizeof k_rules / sizeof *k_rules; q++) {
      const rule_t *R = &k_rules[q];
      if (R->perch && rank != 4) continue;
      const lay_dtype cpu = lay_dtype_parse(R->cpu);
      const int nfix = rank == 4 ? (int)(sizeof k_shapes4 / sizeof *k_shapes4)
                                 : (int)(sizeof k_shapes2 / sizeof *k_shapes2);
      for (int k = 0; k < nfix + 2; k++) { /* the fixed shapes, 2 random */
        int64_t s[4];
        for (int d = 0; d < rank; d++)
          s[d] = k < nfix ? (rank == 4 ? k_shapes4[k][d] : k_shapes2[k][d])
                          : 1 + (int64_t)(next() % (d == 0 ? 3 : 70));
        if (((size_t)k + q + l) % every) continue; /* shapes rotate */
        fmt_of(fmt, sizeof fmt, k_lays[l].name, R, rank == 4 ? s[1] : 0);
        one_case(ctx, fmt, s, rank, cpu, R->unit);
      }
    }
  }
  lay_ctx_free(ctx);
  printf("test_vslab: %lld checks, %lld failures; %lld of %lld plans take "
         "slabs\n", checked, failures, slabbed, plans);
  if (2 * slabbed < plans) {
    printf("FAIL: fewer than half of the plans take slabs\n");
    failures++;
  }
  return failures ? 1 : 0;
}
