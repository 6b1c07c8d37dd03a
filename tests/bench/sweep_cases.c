/* tests/bench/sweep_cases.c: the cases of lay_sweep. Every stdlib format
 * of amd, core, kneron, qnn and ti, and one layout of each of onednn,
 * trt, ethosu, rknn, xla and mlir (parameterized ones with typical
 * arguments) both ways at three shapes
 * (realistic, odd extents, batch > 1); the untyped ones also with 2- and
 * 4-byte elements; quantizers with zero point 0 and not; converts between
 * vendors; the layouts of sw_user_spec (an fp8 cast among them); the
 * layouts whose sizes are known only at plan time (esize, TensorRT's DLA
 * rules, `...`); a few cases of 8 MB and more for the two-thread
 * speed-up. */
#include <stdio.h>
#include <string.h>

#include "sweep.h"

/* Layouts a user would define (loaded with lay_ctx_load_string). */
const char sw_user_spec[] =
    "# lay_sweep's own layouts (tests/bench/sweep_cases.c)\n"
    "namespace sweep\n"
    "# 32-channel blocks, as many NPUs' activations\n"
    "layout c32 (n, c, h, w) -> [n, c/32, h, w, c%32]\n"
    "# a matrix in 8 x 128 tiles\n"
    "layout tile (a, b) -> [a/8, b/128, a%8, b%128]\n"
    "# a planar image with a 1-pixel border and rows pitched to 64 elements\n"
    "layout pitched (n, c, h, w) -> [n, c, 1 + h + 1 align 64, 1 + w + 1]\n"
    "# 4 x 4 pixel tiles, channels between the tile index and the pixels\n"
    "layout px4 (n, c, h, w) -> [n, h/4, w/4, c, h%4, w%4]\n"
    "# fp32 to fp16 in 16-channel blocks\n"
    "layout c16h (n, c, h, w) : fp32 -> [n, c/16, h, w, c%16] cast(to = fp16)\n"
    "# fp32 to fp8 (OCP E4M3) in 16-channel blocks\n"
    "layout c16f8 (n, c, h, w) : fp32 -> [n, c/16, h, w, c%16] cast(to = fp8e4m3)\n"
    "# amd.hcwnc4's memory with qnn's dim names, to convert to qnn layouts\n"
    "layout hcwnc4_bhwd (b, d, h, w) -> [h, d/4, w, b, d%4]\n";

enum { F_NCHW, F_NHWC, F_BHWD, F_W, F_AB, F_1, F_3, F_5, F_IMG, NFAM };
static const struct {
  int rank;
  int64_t s[3][5]; /* realistic, odd, batch */
} k_fam[NFAM] = {
    [F_NCHW] = {4, {{1, 64, 56, 56}, {1, 37, 29, 23}, {4, 32, 28, 28}}},
    [F_NHWC] = {4, {{1, 56, 56, 64}, {1, 29, 23, 37}, {4, 28, 28, 32}}},
    [F_BHWD] = {4, {{1, 56, 56, 128}, {1, 29, 23, 37}, {4, 28, 28, 64}}},
    [F_W] = {4, {{3, 3, 64, 64}, {3, 3, 37, 29}, {5, 5, 32, 64}}},
    [F_AB] = {2, {{256, 1024}, {253, 1021}, {2048, 128}}},
    [F_1] = {1, {{200704}, {100003}, {401408}}},
    [F_3] = {3, {{64, 56, 56}, {37, 29, 23}, {8, 64, 784}}},
    [F_5] = {5, {{1, 64, 56, 7, 8}, {1, 37, 29, 23, 3}, {4, 32, 28, 7, 4}}},
    [F_IMG] = {4, {{1, 3, 224, 224}, {1, 3, 37, 29}, {4, 4, 56, 56}}},
};
static const char *k_kind[3] = {"real", "odd", "batch"};

/* kind: 'u' untyped (int8 at every shape, int16 and fp32 at the realistic
 * one), 'h' untyped of 1- and 2-byte elements only (int8 at every shape,
 * fp16 at the realistic one: the esize layouts), 't' the spec's own type, 'z' typed with a zero point: fmt at
 * every shape, fmt2 (another zero point) at the realistic one, 'c' per
 * channel: fmt has two %s for the scale and radix lists. */
typedef struct {
  const char *fmt, *fmt2;
  int fam;
  char kind;
} fmt_row;

static const fmt_row k_formats[] = {
    {"amd.hcwnc(32)", 0, F_NCHW, 'u'},
    {"amd.hcwnc4", 0, F_NCHW, 'u'},
    {"amd.hcwnc8", 0, F_NCHW, 'u'},
    {"amd.hcwnc16", 0, F_NCHW, 'u'},
    {"amd.ab", 0, F_AB, 'u'},
    {"amd.hcwnc_q(8, 0.05)", "amd.hcwnc_q(8, 0.05, 3)", F_NCHW, 'z'},
    {"amd.hcwnc_q(4, 0.0078125, -5)", 0, F_NCHW, 't'},
    {"amd.hcwnc_bf16(4)", 0, F_NCHW, 't'},
    {"amd.hcwnc_bf16(16)", 0, F_NCHW, 't'},
    {"core.nchw", 0, F_NCHW, 'u'},
    {"core.nhwc", 0, F_NHWC, 'u'},
    {"core.ab", 0, F_AB, 'u'},
    {"core.flat1", 0, F_1, 'u'},
    {"core.flat2", 0, F_AB, 'u'},
    {"core.flat3", 0, F_3, 'u'},
    {"core.flat4", 0, F_NCHW, 'u'},
    {"core.flat5", 0, F_5, 'u'},
    {"kneron.1w16c8b", 0, F_NCHW, 'u'},
    {"kneron.1w16c8b_batch_inside", 0, F_NCHW, 'u'},
    {"kneron.4w4c8b", 0, F_NCHW, 'u'},
    {"kneron.16w1c8b", 0, F_NCHW, 'u'},
    {"kneron.1w16c8bhl", 0, F_NCHW, 't'},
    {"kneron.1w16c8bhl_batch_inside", 0, F_NCHW, 't'},
    {"kneron.4w4c8bhl", 0, F_NCHW, 't'},
    {"kneron.16w1c8bhl", 0, F_NCHW, 't'},
    {"kneron.1w16c8b_q(1, 5)", 0, F_NCHW, 't'},
    {"kneron.4w4c8b_q(1, 5)", 0, F_NCHW, 't'},
    {"kneron.16w1c8b_q(1, 5)", 0, F_NCHW, 't'},
    {"kneron.1w16c8bhl_q(0.75, 12)", 0, F_NCHW, 't'},
    {"kneron.4w4c8bhl_q(0.75, 12)", 0, F_NCHW, 't'},
    {"kneron.16w1c8bhl_q(0.75, 12)", 0, F_NCHW, 't'},
    {"kneron.1w16c8b_qc(%s, %s)", 0, F_NCHW, 'c'},
    {"kneron.4w4c8b_qc(%s, %s)", 0, F_NCHW, 'c'},
    {"kneron.16w1c8b_qc(%s, %s)", 0, F_NCHW, 'c'},
    {"kneron.1w16c8bhl_qc(%s, %s)", 0, F_NCHW, 'c'},
    {"kneron.4w4c8bhl_qc(%s, %s)", 0, F_NCHW, 'c'},
    {"kneron.16w1c8bhl_qc(%s, %s)", 0, F_NCHW, 'c'},
    {"qnn.flat", 0, F_BHWD, 'u'},
    {"qnn.nchw", 0, F_BHWD, 'u'},
    {"qnn.d32", 0, F_BHWD, 'u'},
    {"qnn.crouton", 0, F_BHWD, 'u'},
    {"qnn.crouton4x1", 0, F_BHWD, 'u'},
    {"qnn.crouton4x1_h4", 0, F_BHWD, 'u'},
    {"qnn.crouton2x2", 0, F_BHWD, 'u'},
    {"qnn.crouton2", 0, F_BHWD, 'u'},
    {"qnn.conv_weight", 0, F_W, 'u'},
    {"ti.tidl(pad_l=1, pad_r=1, pad_t=1, pad_b=1)", 0, F_NCHW, 'u'},
    {"ti.tidl(pad_l=2, pad_r=2, pad_t=2, pad_b=2, pad_ch=2)", 0, F_NCHW, 'u'},
    {"ti.tidl_q8(32, pad_l=1, pad_r=1, pad_t=1, pad_b=1)",
     "ti.tidl_q8(32, zero_point=1, pad_l=1, pad_r=1, pad_t=1, pad_b=1)", F_NCHW, 'z'},
    {"ti.tidl_qu8(32, pad_l=1, pad_r=1, pad_t=1, pad_b=1)",
     "ti.tidl_qu8(32, zero_point=-2, pad_l=1, pad_r=1, pad_t=1, pad_b=1)", F_NCHW, 'z'},
    {"ti.tidl_q16(4096, pad_l=1, pad_r=1, pad_t=1, pad_b=1)",
     "ti.tidl_q16(4096, in_scale=2, zero_point=0.5, pad_l=1, pad_r=1, pad_t=1, pad_b=1)",
     F_NCHW, 'z'},
    {"ti.tidl_qu16(4096, pad_l=1, pad_r=1, pad_t=1, pad_b=1)",
     "ti.tidl_qu16(4096, zero_point=-4, pad_l=1, pad_r=1, pad_t=1, pad_b=1)", F_NCHW, 'z'},
    /* one layout of each of the other vendors' namespaces */
    {"onednn.nChw16c", 0, F_NCHW, 'u'},
    {"trt.hwc8", 0, F_NCHW, 'u'},
    {"ethosu.nhcwb16", 0, F_NHWC, 'u'},
    {"rknn.nc1hwc2(16)", 0, F_NCHW, 'u'},
    {"xla.tiled(8, 128)", 0, F_AB, 'u'},
    {"mlir.pack_kc(8, 32)", 0, F_AB, 'u'},
    /* the layouts of the language's plan-time sizes: C2 = 16 bytes / esize,
    ** TensorRT's DLA C' and 64-byte lines, a rank-polymorphic format */
    {"rknn.rk3588_nc1hwc2", 0, F_NCHW, 'h'},
    {"trt.dla_hwc4", 0, F_IMG, 'h'},
    {"trt.chw4_nd", 0, F_NCHW, 'u'},
    /* the sweep's own layouts (group "user") */
    {"sweep.c32", 0, F_NCHW, 'u'},
    {"sweep.tile", 0, F_AB, 'u'},
    {"sweep.pitched", 0, F_NCHW, 'u'},
    {"sweep.px4", 0, F_NCHW, 'u'},
    {"sweep.c16h", 0, F_NCHW, 't'},
    {"sweep.c16f8", 0, F_NCHW, 't'},
};

static const struct {
  const char *from, *to;
  int fam;
} k_converts[] = {
    {"core.nchw", "core.nhwc", F_NCHW},
    {"core.nhwc", "core.nchw", F_NHWC},
    {"amd.hcwnc4", "amd.hcwnc8", F_NCHW},
    {"amd.hcwnc8", "core.nchw", F_NCHW},
    {"kneron.1w16c8b", "amd.hcwnc8", F_NCHW},
    {"amd.hcwnc16", "kneron.1w16c8b", F_NCHW},
    {"kneron.4w4c8b", "kneron.1w16c8b", F_NCHW},
    {"kneron.16w1c8b", "core.nchw", F_NCHW},
    {"ti.tidl(pad_l=1, pad_r=1, pad_t=1, pad_b=1)", "core.nchw", F_NCHW},
    {"core.nhwc", "amd.hcwnc4", F_NHWC},
    {"qnn.flat", "qnn.crouton", F_BHWD},
    {"qnn.crouton", "qnn.d32", F_BHWD},
    {"qnn.crouton", "qnn.crouton2x2", F_BHWD},
    {"sweep.hcwnc4_bhwd", "qnn.crouton", F_NCHW},
    {"qnn.crouton", "sweep.hcwnc4_bhwd", F_BHWD},
};

static const struct {
  const char *from, *fmt;
  lay_dir dir;
  int rank;
  int64_t shape[4];
  lay_dtype dt;
} k_large[] = {
    {0, "amd.hcwnc4", LAY_PACK, 4, {1, 4, 1080, 1920}, LAY_DT_UINT8},
    {0, "qnn.crouton", LAY_PACK, 4, {1, 128, 128, 512}, LAY_DT_INT8},
    {0, "kneron.1w16c8b", LAY_UNPACK, 4, {1, 128, 256, 256}, LAY_DT_INT8},
    {"core.nchw", "core.nhwc", LAY_CONVERT, 4, {1, 128, 256, 256}, LAY_DT_INT8},
    {0, "amd.hcwnc_q(8, 0.05)", LAY_PACK, 4, {1, 32, 256, 256}, LAY_DT_FP32},
    {0, "ti.tidl(pad_l=1, pad_r=1, pad_t=1, pad_b=1)", LAY_PACK, 4, {1, 128, 254, 254},
     LAY_DT_INT8},
    {0, "sweep.c32", LAY_UNPACK, 4, {1, 64, 128, 256}, LAY_DT_FP32},
    {0, "sweep.tile", LAY_PACK, 2, {2048, 2048}, LAY_DT_INT16},
};

/* Channel counts no block is made for: 3-channel images between planes and
** pixels, and 3 or 5 channels into 16-channel blocks (the rest of the
** block padded). */
static const struct {
  const char *group, *from, *fmt;
  lay_dir dir;
  int rank;
  int64_t shape[4];
  lay_dtype dt;
} k_narrow[] = {
    {"convert", "core.nchw", "core.nhwc", LAY_CONVERT, 4, {1, 3, 224, 224}, LAY_DT_UINT8},
    {"convert", "core.nhwc", "core.nchw", LAY_CONVERT, 4, {1, 224, 224, 3}, LAY_DT_UINT8},
    {"convert", "core.nchw", "core.nhwc", LAY_CONVERT, 4, {1, 3, 224, 224}, LAY_DT_FP32},
    {"convert", "core.nhwc", "core.nchw", LAY_CONVERT, 4, {2, 64, 64, 5}, LAY_DT_INT16},
    {"stdlib", 0, "amd.hcwnc16", LAY_PACK, 4, {2, 5, 64, 64}, LAY_DT_UINT8},
    {"stdlib", 0, "amd.hcwnc16", LAY_UNPACK, 4, {2, 5, 64, 64}, LAY_DT_UINT8},
    {"stdlib", 0, "onednn.nChw16c", LAY_PACK, 4, {1, 3, 224, 224}, LAY_DT_FP32},
    {"large", "core.nchw", "core.nhwc", LAY_CONVERT, 4, {2, 3, 1080, 1920}, LAY_DT_UINT8},
};

static const char *dt_name(lay_dtype t) { return lay_dtype_name(t); }

/* The CPU type of a typed format: int16 for the byte-plane ones without a
 * value rule, fp32 for those that quantize or cast. */
static lay_dtype typed_dt(const char *fmt) {
  return strstr(fmt, "bhl") && !strstr(fmt, "_q") ? LAY_DT_INT16 : LAY_DT_FP32;
}

static int add(sw_case *cs, int n, int cap, const char *group, const char *kind,
               const char *label, const char *fmt, const char *from, lay_dir dir, int rank,
               const int64_t *shape, lay_dtype dt) {
  if (n >= cap) return n;
  sw_case *c = &cs[n];
  memset(c, 0, sizeof *c);
  c->group = group;
  c->shape_kind = kind;
  snprintf(c->fmt, sizeof c->fmt, "%s", fmt);
  c->from = from;
  c->dir = dir;
  c->rank = rank;
  memcpy(c->shape, shape, (size_t)rank * sizeof *shape);
  c->dt = dt;
  char sh[96];
  int o = 0;
  for (int d = 0; d < rank; d++)
    o += snprintf(sh + o, sizeof sh - (size_t)o, "%s%lld", d ? "," : "", (long long)shape[d]);
  if (dir == LAY_CONVERT)
    snprintf(c->name, sizeof c->name, "%s -> %s %s [%s]", from, label, dt_name(dt), sh);
  else
    snprintf(c->name, sizeof c->name, "%s %s %s [%s]", label,
             dir == LAY_PACK ? "pack" : "unpack", dt_name(dt), sh);
  return n + 1;
}

/* "[0.5, 0.75, ...]" and "[4, 5, ...]" for C channels. */
static void qc_lists(int64_t C, char *scale, char *radix, size_t cap) {
  size_t a = 0, b = 0;
  for (int64_t k = 0; k < C; k++) {
    a += (size_t)snprintf(scale + a, cap - a, "%s%g", k ? ", " : "[", 0.5 + 0.25 * (double)(k % 4));
    b += (size_t)snprintf(radix + b, cap - b, "%s%d", k ? ", " : "[", 4 + (int)(k % 3));
  }
  snprintf(scale + a, cap - a, "]");
  snprintf(radix + b, cap - b, "]");
}

static int add_format(sw_case *cs, int n, int cap, const fmt_row *f) {
  const char *group = strncmp(f->fmt, "sweep.", 6) ? "stdlib" : "user";
  for (int dir = LAY_PACK; dir <= LAY_UNPACK; dir++)
    for (int s = 0; s < 3; s++) {
      const int64_t *sh = k_fam[f->fam].s[s];
      int rank = k_fam[f->fam].rank;
      if (f->kind == 'c') {
        char fmt[1024], sc[480], rx[480], label[96];
        qc_lists(sh[1], sc, rx, sizeof sc);
        snprintf(fmt, sizeof fmt, f->fmt, sc, rx);
        snprintf(label, sizeof label, "%.*s(per-channel)", (int)(strchr(f->fmt, '(') - f->fmt),
                 f->fmt);
        n = add(cs, n, cap, group, k_kind[s], label, fmt, 0, (lay_dir)dir, rank, sh, typed_dt(fmt));
        continue;
      }
      n = add(cs, n, cap, group, k_kind[s], f->fmt, f->fmt, 0, (lay_dir)dir, rank, sh,
              f->kind == 'u' || f->kind == 'h' ? LAY_DT_INT8 : typed_dt(f->fmt));
      if (s == 0 && f->kind == 'h')
        n = add(cs, n, cap, group, "real", f->fmt, f->fmt, 0, (lay_dir)dir, rank, sh, LAY_DT_FP16);
      if (s == 0 && f->kind == 'u') {
        n = add(cs, n, cap, group, "real", f->fmt, f->fmt, 0, (lay_dir)dir, rank, sh, LAY_DT_INT16);
        n = add(cs, n, cap, group, "real", f->fmt, f->fmt, 0, (lay_dir)dir, rank, sh, LAY_DT_FP32);
      }
      if (s == 0 && f->fmt2)
        n = add(cs, n, cap, group, "real", f->fmt2, f->fmt2, 0, (lay_dir)dir, rank, sh,
                typed_dt(f->fmt2));
    }
  return n;
}

int sw_cases(sw_case *cs, int cap) {
  int n = 0;
  for (size_t i = 0; i < sizeof k_formats / sizeof *k_formats; i++)
    n = add_format(cs, n, cap, &k_formats[i]);
  for (size_t i = 0; i < sizeof k_converts / sizeof *k_converts; i++)
    for (int s = 0; s < 2; s++)
      n = add(cs, n, cap, "convert", k_kind[s], k_converts[i].to, k_converts[i].to,
              k_converts[i].from, LAY_CONVERT, k_fam[k_converts[i].fam].rank,
              k_fam[k_converts[i].fam].s[s], LAY_DT_INT8);
  for (size_t i = 0; i < sizeof k_large / sizeof *k_large; i++)
    n = add(cs, n, cap, "large", "large", k_large[i].fmt, k_large[i].fmt, k_large[i].from,
            k_large[i].dir, k_large[i].rank, k_large[i].shape, k_large[i].dt);
  for (size_t i = 0; i < sizeof k_narrow / sizeof *k_narrow; i++)
    n = add(cs, n, cap, k_narrow[i].group, "narrow", k_narrow[i].fmt, k_narrow[i].fmt,
            k_narrow[i].from, k_narrow[i].dir, k_narrow[i].rank, k_narrow[i].shape,
            k_narrow[i].dt);
  return n;
}
