/*
** hsi_unit.c: unit tests of interp/vendor/hsi*.c (flexmlrt-hsi.json -> lay).
**
**   hsi_unit SRCDIR [--no-run]
** 1. the spec text of the seed's three reports equals tests/hsi/golden/;
** 2. an export parses back, its output form inverts to the same chain;
** 3. entry lookup by index, name and tensor_name;
** 4. truncating or corrupting a report at every byte never crashes and
**    always gives a positioned or pathed LAY_E_JSON error or a report;
** 5. (unless --no-run) exports of every AMD stdlib layout, other stdlib
**    layouts and the user layouts of user_layouts.lay, with and without
**    --quantize (int8, uint8, zero points, scales not powers of two), run
**    through their report give the bytes of the layout run directly, both
**    directions, as inputs and as outputs; layouts no chain expresses and
**    bad --quantize requests fail with their exact messages;
** 6. strict JSON: each kind of malformed text at its line:col (columns in
**    characters), the nesting limit, keys given twice, the size limit;
** 7. the value rule of scale_factor and zero_point for every combination
**    of float and integer types, with and without a chain;
** 8. every disagreement of every entry is listed, the fine entries run;
**    byte sizes that overflow are inconsistencies with their JSON path.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hsi.h"
#include "lay.h"

static int failures;

#define CHECK(c, ...)                                                   \
  do {                                                                  \
    if (!(c)) {                                                         \
      failures++;                                                       \
      fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);             \
      fprintf(stderr, __VA_ARGS__);                                     \
      fputc('\n', stderr);                                              \
    }                                                                   \
  } while (0)

static char *slurp(const char *dir, const char *name, size_t *len) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) exit(1);
  b[n] = '\0';
  fclose(f);
  if (len) *len = (size_t)n;
  return b;
}

/* 1. golden spec text */
static void test_golden(const char *dir) {
  static const char *const names[] = {"seed_annotation", "seed_report",
                                      "seed_transform"};
  for (int i = 0; i < 3; i++) {
    char jn[128], gn[128];
    snprintf(jn, sizeof jn, "%s.json", names[i]);
    snprintf(gn, sizeof gn, "golden/%s.lay", names[i]);
    size_t len;
    char *json = slurp(dir, jn, &len);
    char *want = slurp(dir, gn, NULL);
    lay_hsi *h = NULL;
    lay_error err;
    lay_status st = lay_hsi_parse(json, len, jn, &h, &err);
    CHECK(st == LAY_OK, "%s: %s", jn, err.message);
    if (h) {
      char *got = lay_hsi_spec(h, "hsi");
      CHECK(got && !strcmp(got, want), "%s: spec text differs:\n%s", jn,
            got ? got : "(null)");
      free(got);
      /* The seed's reports are consistent: no fatal issue. */
      for (int k = 0; k < lay_hsi_issue_count(h); k++)
        CHECK(!lay_hsi_issue_get(h, k)->fatal, "%s: %s", jn,
              lay_hsi_issue_get(h, k)->text);
    }
    lay_hsi_free(h);
    free(json);
    free(want);
  }
}

/* A context with the stdlib and tests/hsi/user_layouts.lay. */
static const char *srcdir;

static lay_ctx *test_ctx(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  char path[1024];
  snprintf(path, sizeof path, "%s/user_layouts.lay", srcdir);
  if (lay_ctx_new(&ctx, &err) || lay_ctx_load_file(ctx, path, &err)) {
    fprintf(stderr, "context: %s:%d:%d: %s\n", err.file, err.line, err.col,
            err.message);
    exit(1);
  }
  return ctx;
}

/* 2. export -> parse; the output form is the inverted chain */
static void test_export_text(void) {
  int64_t shape[4] = {2, 5, 3, 7};
  lay_error err;
  lay_ctx *ctx = test_ctx();
  lay_hsi_quant q = {0.0078125, 3, LAY_DT_INT8};
  char *in = lay_hsi_export(ctx, "amd.hcwnc8", shape, 4, LAY_DT_FP32, &q, 0,
                           &err);
  char *out = lay_hsi_export(ctx, "amd.hcwnc(8)", shape, 4, LAY_DT_FP32, &q, 1,
                            &err);
  CHECK(in && out, "export failed: %s", err.message);
  if (!in || !out) {
    lay_ctx_free(ctx);
    return;
  }
  lay_hsi *a = NULL, *b = NULL;
  CHECK(lay_hsi_parse(in, strlen(in), "in", &a, &err) == LAY_OK, "%s",
        err.message);
  CHECK(lay_hsi_parse(out, strlen(out), "out", &b, &err) == LAY_OK, "%s",
        err.message);
  if (a && b) {
    lay_hsi_info ia, ib;
    CHECK(lay_hsi_info_get(a, 0, 0, &ia) == 0, "no input");
    CHECK(lay_hsi_info_get(b, 1, 0, &ib) == 0, "no output");
    const char *want =
        "transform input0 (x : fp32[n=2, c=5, h=3, w=7]) =\n"
        "    quantize(scale = 0.0078125, zero_point = 3, to = int8, arith = "
        "f32_div)\n"
        "    | pad(start = [0,0,0,0], end = [0,3,0,0])\n"
        "    | reshape([2,1,8,3,7])\n"
        "    | transpose([3,1,4,0,2])\n";
    CHECK(!strcmp(ia.spec, want), "input spec:\n%s", ia.spec);
    /* The same chain, only the name differs. */
    CHECK(!strncmp(ib.spec, "transform output0 ", 18) &&
              !strcmp(ib.spec + 18, want + 17),
          "output spec:\n%s", ib.spec);
    CHECK(ia.ann_spec && !strcmp(ia.ann_spec,
                                 "layout input0_ann (n, c, h, w) : fp32 -> "
                                 "[h, c/8, w, n, c%8]\n    quantize(scale = "
                                 "0.0078125, zero_point = 3, to = int8, arith = "
                                 "f32_div)\n"),
          "annotation:\n%s", ia.ann_spec ? ia.ann_spec : "(null)");
    CHECK(ia.hw_rank == 5 && ia.hw_shape[0] == 3 && ia.hw_shape[1] == 1 &&
              ia.hw_shape[2] == 7 && ia.hw_shape[3] == 2 &&
              ia.hw_shape[4] == 8,
          "hw_shape");
    CHECK(lay_hsi_issue_count(a) == 0 && lay_hsi_issue_count(b) == 0,
          "export has issues");
  }
  lay_hsi_free(a);
  lay_hsi_free(b);
  free(in);
  free(out);
  /* A qnn layout: padding to its chunks, a reshape into the digits of h,
  ** w and d, a transpose into memory order; no AMD formats. */
  int64_t s2[4] = {1, 9, 10, 33};
  char *c = lay_hsi_export(ctx, "qnn.crouton", s2, 4, LAY_DT_UINT8, NULL, 0,
                          &err);
  CHECK(c && strstr(c, "\"pad_at_end\":\t[0, 7, 6, 31]") &&
            strstr(c, "\"output_shape\":\t[1, 2, 8, 2, 8, 2, 32]") &&
            strstr(c, "\"perm\":\t[0, 1, 3, 5, 2, 4, 6]") &&
            strstr(c, "\"hw_shape\":\t[1, 2, 2, 2, 8, 8, 32]") &&
            !strstr(c, "_format"),
        "crouton export:\n%s", c ? c : err.message);
  free(c);
  lay_ctx_free(ctx);
}

/* 3. lookup */
static void test_find(const char *dir) {
  size_t len;
  char *json = slurp(dir, "seed_report.json", &len);
  lay_hsi *h = NULL;
  lay_error err;
  CHECK(lay_hsi_parse(json, len, "r", &h, &err) == LAY_OK, "%s", err.message);
  CHECK(lay_hsi_find(h, 0, "0") == 0, "index 0");
  CHECK(lay_hsi_find(h, 0, "1") == -1, "index 1");
  CHECK(lay_hsi_find(h, 0, "compute_graph.ifm_ddr") == 0, "by name");
  CHECK(lay_hsi_find(h, 1, "compute_graph.ofm_ddr") == 0, "output by name");
  CHECK(lay_hsi_find(h, 0, "compute_graph.ofm_ddr") == -1, "wrong side");
  CHECK(lay_hsi_count(h, 0) == 1 && lay_hsi_count(h, 1) == 1, "counts");
  lay_hsi_free(h);
  free(json);
}

/* 4. hostile input */
static void test_hostile(const char *dir, const char *file, int run) {
  size_t len;
  char *json = slurp(dir, file, &len);
  lay_ctx *ctx = NULL;
  if (run && lay_ctx_new(&ctx, NULL)) ctx = NULL;
  int loaded = 0;
  char *buf = malloc(len + 1);
  lay_error err;
  size_t last = len;
  while (last > 0 && json[last - 1] != '}') last--;
  for (size_t cut = 0; cut + 1 < last; cut++) {
    lay_hsi *h = NULL;
    lay_status st = lay_hsi_parse(json, cut, "t", &h, &err);
    CHECK(st == LAY_E_JSON && !h && err.message[0],
          "cut at %zu: status %d", cut, (int)st);
    lay_hsi_free(h);
  }
  static const char junk[] = "{}[],:\"0-9.eE xtnfl\\";
  uint64_t s = 1;
  for (int round = 0; round < 4000; round++) {
    memcpy(buf, json, len);
    for (int k = 0; k < 1 + round % 3; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (s >> 33) % len;
      if (round % 2) { /* change a digit of a number */
        while (at < len && (buf[at] < '0' || buf[at] > '9')) at++;
        if (at < len) buf[at] = (char)('0' + (s >> 20) % 10);
      } else {
        buf[at] = junk[(s >> 20) % (sizeof junk - 1)];
      }
    }
    lay_hsi *h = NULL;
    lay_status st = lay_hsi_parse(buf, len, "t", &h, &err);
    CHECK((st == LAY_OK) == (h != NULL), "round %d", round);
    if (st) CHECK(st == LAY_E_JSON && err.message[0], "round %d", round);
    if (h) {
      char *t = lay_hsi_spec(h, "hsi");
      CHECK(t != NULL, "spec");
      free(t);
    }
    /* What parses also compiles, unless an entry is inconsistent. */
    int fine = h && ctx;
    for (int k = 0; fine && k < lay_hsi_issue_count(h); k++)
      fine = !lay_hsi_issue_get(h, k)->fatal;
    if (fine) {
      char ns[32];
      snprintf(ns, sizeof ns, "f%d", round);
      lay_status ls = lay_hsi_load(h, ctx, ns, &err);
      CHECK(ls == LAY_OK, "round %d: load: %s:%d:%d: %s", round, err.file,
            err.line, err.col, err.message);
      for (int o = 0; !ls && o < 2; o++)
        for (int e = 0; e < lay_hsi_count(h, o); e++) {
          lay_hsi_info inf;
          char ref[64];
          lay_hsi_info_get(h, o, e, &inf);
          snprintf(ref, sizeof ref, "%s.%s", ns, inf.def);
          lay_plan *pl = NULL;
          lay_status ps = lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank,
                                          inf.cpu_dtype, LAY_PACK, &pl, &err);
          CHECK(ps == LAY_OK, "round %d: %s: %s", round, ref, err.message);
          lay_plan_free(pl);
        }
      loaded++;
    }
    lay_hsi_free(h);
  }
  CHECK(!ctx || loaded > 100, "%s: only %d mutated reports compiled", file,
        loaded);
  if (getenv("HSI_VERBOSE")) fprintf(stderr, "%d mutated reports compiled\n", loaded);
  lay_ctx_free(ctx);
  free(buf);
  free(json);
}

/* ---- 5. running ------------------------------------------------------------ */

static void fill(unsigned char *b, size_t n, lay_dtype dt, uint64_t seed) {
  uint64_t s = seed;
  size_t es = lay_dtype_size(dt);
  for (size_t i = 0; i + es <= n; i += es) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(s >> 33);
    if (dt == LAY_DT_FP32) {
      float f = (float)((int)(r % 2001) - 1000) / 64.0f;
      memcpy(b + i, &f, 4);
    } else {
      memcpy(b + i, &r, es);
    }
  }
}

/* Run `a` and `b` (format names) in direction dir on the same data; 1 when
** both succeed with identical bytes. */
static int same_run(lay_ctx *ctx, const char *a, const char *b,
                    const int64_t *shape, int rank, lay_dtype dt,
                    lay_dir dir) {
  lay_plan *pa = NULL, *pb = NULL;
  lay_error err;
  int ok = 0;
  unsigned char *src = NULL, *da = NULL, *db = NULL;
  if (lay_plan_create(ctx, a, shape, rank, dt, dir, &pa, &err)) {
    fprintf(stderr, "%s: %s\n", a, err.message);
    goto done;
  }
  if (lay_plan_create(ctx, b, shape, rank, dt, dir, &pb, &err)) {
    fprintf(stderr, "%s: %s\n", b, err.message);
    goto done;
  }
  size_t ns = lay_plan_src_bytes(pa), na = lay_plan_dst_bytes(pa),
         nb = lay_plan_dst_bytes(pb);
  if (ns != lay_plan_src_bytes(pb) || na != nb) {
    fprintf(stderr, "%s vs %s: sizes %zu->%zu and %zu->%zu\n", a, b, ns, na,
            lay_plan_src_bytes(pb), nb);
    goto done;
  }
  src = malloc(ns);
  da = malloc(na);
  db = malloc(nb);
  fill(src, ns, lay_plan_src_dtype(pa), 77);
  if (lay_plan_run(pa, src, ns, da, na, 1, &err) ||
      lay_plan_run(pb, src, ns, db, nb, 1, &err)) {
    fprintf(stderr, "run: %s\n", err.message);
    goto done;
  }
  ok = !memcmp(da, db, na);
  if (!ok) fprintf(stderr, "%s vs %s: bytes differ\n", a, b);
done:
  free(src);
  free(da);
  free(db);
  lay_plan_free(pa);
  lay_plan_free(pb);
  return ok;
}

/* Exports run through their report give the bytes of the layout run
** directly, both directions, as an input and as an output entry, and
** --check finds nothing wrong. */
typedef struct xcase {
  const char *fmt;    /* exported */
  const char *direct; /* the layout run directly */
  int rank;
  int64_t shape[4];
  lay_dtype dt;       /* CPU type */
  int quant;          /* --quantize scale, zero point, type */
  double scale, zp;
  lay_dtype to;
} xcase;

static const xcase xcases[] = {
    /* Every AMD stdlib layout. */
    {"amd.hcwnc4", "amd.hcwnc4", 4, {2, 5, 3, 7}, LAY_DT_INT8, 0, 0, 0, 0},
    {"amd.hcwnc8", "amd.hcwnc8", 4, {2, 5, 3, 7}, LAY_DT_INT8, 0, 0, 0, 0},
    {"amd.hcwnc16", "amd.hcwnc16", 4, {1, 17, 2, 3}, LAY_DT_FP32, 0, 0, 0, 0},
    {"amd.hcwnc4", "amd.hcwnc4", 4, {1, 8, 4, 4}, LAY_DT_BF16, 0, 0, 0, 0},
    {"amd.hcwnc(3)", "amd.hcwnc(3)", 4, {2, 7, 3, 2}, LAY_DT_INT16, 0, 0, 0,
     0},
    {"amd.ab", "amd.ab", 2, {3, 5}, LAY_DT_INT8, 0, 0, 0, 0},
    {"amd.ab", "amd.ab", 2, {4, 9}, LAY_DT_FP32, 0, 0, 0, 0},
    {"amd.hcwnc_q(4, 0.0078125)", "amd.hcwnc_q(4, 0.0078125)", 4,
     {1, 3, 5, 6}, LAY_DT_FP32, 0, 0, 0, 0},
    {"amd.hcwnc_q(8, 0.1, -5)", "amd.hcwnc_q(8, 0.1, -5)", 4, {2, 3, 5, 6},
     LAY_DT_FP32, 0, 0, 0, 0},
    {"amd.hcwnc_q(16, 0.037, 3)", "amd.hcwnc_q(16, 0.037, 3)", 4,
     {1, 20, 2, 3}, LAY_DT_FP32, 0, 0, 0, 0},
    {"amd.hcwnc_bf16(4)", "amd.hcwnc_bf16(4)", 4, {1, 3, 5, 6}, LAY_DT_FP32,
     0, 0, 0, 0},
    {"amd.hcwnc_bf16(8)", "amd.hcwnc_bf16(8)", 4, {2, 9, 2, 3}, LAY_DT_FP32,
     0, 0, 0, 0},
    /* --quantize: int8 and uint8, zero points, scales not powers of two. */
    {"amd.hcwnc4", "amd.hcwnc_q(4, 0.0078125)", 4, {1, 3, 5, 6}, LAY_DT_FP32,
     1, 0.0078125, 0, LAY_DT_INT8},
    {"amd.hcwnc8", "amd.hcwnc_q(8, 0.003, -5)", 4, {2, 3, 5, 6}, LAY_DT_FP32,
     1, 0.003, -5, LAY_DT_INT8},
    {"amd.hcwnc16", "amd.hcwnc_q(16, 0.1, 3)", 4, {1, 20, 2, 3}, LAY_DT_FP32,
     1, 0.1, 3, LAY_DT_INT8},
    {"amd.hcwnc4", "t.qu8(4, 0.037, 128)", 4, {2, 5, 3, 3}, LAY_DT_FP32, 1,
     0.037, 128, LAY_DT_UINT8},
    {"amd.hcwnc(8)", "t.qu8(8, 0.1, 3)", 4, {1, 9, 2, 3}, LAY_DT_FP32, 1, 0.1,
     3, LAY_DT_UINT8},
    /* Other stdlib layouts. */
    {"core.nchw", "core.nchw", 4, {2, 3, 4, 5}, LAY_DT_INT8, 0, 0, 0, 0},
    {"core.nhwc", "core.nhwc", 4, {2, 3, 4, 5}, LAY_DT_UINT16, 0, 0, 0, 0},
    {"core.flat3", "core.flat3", 3, {2, 3, 4}, LAY_DT_INT32, 0, 0, 0, 0},
    {"qnn.crouton", "qnn.crouton", 4, {1, 9, 10, 33}, LAY_DT_UINT8, 0, 0, 0,
     0},
    {"qnn.d32", "qnn.d32", 4, {2, 3, 5, 40}, LAY_DT_INT8, 0, 0, 0, 0},
    {"qnn.crouton2x2", "qnn.crouton2x2", 4, {1, 5, 6, 33}, LAY_DT_FP16, 0, 0,
     0, 0},
    {"qnn.conv_weight", "qnn.conv_weight", 4, {3, 3, 9, 33}, LAY_DT_INT8, 0,
     0, 0, 0},
    {"kneron.4w4c8b", "kneron.4w4c8b", 4, {1, 6, 3, 5}, LAY_DT_INT8, 0, 0, 0,
     0},
    {"kneron.16w1c8b", "kneron.16w1c8b", 4, {2, 3, 2, 17}, LAY_DT_INT8, 0, 0,
     0, 0},
    {"kneron.1w16c8b_q(1, 7)", "kneron.1w16c8b_q(1, 7)", 4, {1, 20, 2, 3},
     LAY_DT_FP32, 0, 0, 0, 0},
    {"ti.tidl(pad_l=1, pad_r=2, pad_t=1, pad_b=3, pad_ch=2)",
     "ti.tidl(pad_l=1, pad_r=2, pad_t=1, pad_b=3, pad_ch=2)", 4, {2, 3, 4, 5},
     LAY_DT_INT8, 0, 0, 0, 0},
    /* User layouts: a slice, explicit pads, a unit axis; value rules that
    ** the type fields carry (integer CPU sides). */
    {"t.user", "t.user", 3, {5, 9, 2}, LAY_DT_INT8, 0, 0, 0, 0},
    {"t.i2u", "t.i2u", 2, {7, 9}, LAY_DT_INT8, 0, 0, 0, 0},
    {"t.u2f", "t.u2f", 2, {7, 9}, LAY_DT_UINT8, 0, 0, 0, 0},
    {"t.i2s", "t.i2s", 2, {7, 9}, LAY_DT_INT8, 0, 0, 0, 0},
    {"t.f2i", "t.f2i", 2, {7, 9}, LAY_DT_FP32, 0, 0, 0, 0},
};

/* The name before its arguments: "amd.hcwnc(8)" -> "amd.hcwnc". */
static size_t base_len(const char *ref) { return strcspn(ref, "( "); }

static void run_xcase(lay_ctx *ctx, const xcase *c, int as_out) {
  lay_error err;
  lay_hsi *h = NULL;
  lay_hsi_quant q = {c->scale, c->zp, c->to};
  char *json = lay_hsi_export(ctx, c->fmt, c->shape, c->rank, c->dt,
                             c->quant ? &q : NULL, as_out, &err);
  CHECK(json, "export %s: %s", c->fmt, err.message);
  if (!json) return;
  CHECK(lay_hsi_parse(json, strlen(json), "export", &h, &err) == LAY_OK,
        "%s: %s", c->fmt, err.message);
  static int k;
  char ns[32], def[48];
  snprintf(ns, sizeof ns, "x%d", k++);
  snprintf(def, sizeof def, "%s.%s", ns, as_out ? "output0" : "input0");
  lay_status st = h ? lay_hsi_load(h, ctx, ns, &err) : LAY_E_JSON;
  CHECK(st == LAY_OK, "load %s: %s", c->fmt, err.message);
  for (int dir = 0; !st && dir < 2; dir++)
    CHECK(same_run(ctx, def, c->direct, c->shape, c->rank, c->dt,
                   (lay_dir)dir),
          "%s as %s, %s", c->fmt, as_out ? "output" : "input",
          dir ? "unpack" : "pack");
  lay_hsi_issue *v = NULL;
  int n = 0;
  int bad = st ? 0 : lay_hsi_check(h, ctx, ns, &v, &n, &err);
  CHECK(bad == 0, "check of the %s export: %d (%s)", c->fmt, bad,
        bad < 0 ? err.message : n ? v[0].text : "");
  free(v);
  lay_hsi_free(h);
  free(json);
}

static void test_export_run(void) {
  lay_ctx *ctx = test_ctx();
  size_t nc = sizeof xcases / sizeof *xcases;
  for (size_t i = 0; i < nc; i++)
    for (int as_out = 0; as_out < 2; as_out++)
      run_xcase(ctx, &xcases[i], as_out);
  /* Every AMD layout of the stdlib has a case. */
  int amd = 0;
  for (size_t i = 0; i < lay_ctx_count(ctx); i++) {
    const char *name = lay_ctx_name(ctx, i);
    if (strncmp(name, "amd.", 4)) continue;
    amd++;
    int covered = 0;
    for (size_t k = 0; k < nc && !covered; k++)
      covered = base_len(xcases[k].fmt) == strlen(name) &&
                !strncmp(xcases[k].fmt, name, strlen(name));
    CHECK(covered, "the stdlib layout %s has no export case", name);
  }
  CHECK(amd >= 7, "only %d AMD layouts in the stdlib", amd);
  /* The annotation fields are compared with the chain for AMD formats. */
  int64_t s[4] = {1, 5, 3, 2};
  lay_error err;
  char *json = lay_hsi_export(ctx, "amd.hcwnc_bf16(4)", s, 4, LAY_DT_NONE,
                             NULL, 0, &err);
  lay_hsi *h = NULL;
  if (json && !lay_hsi_parse(json, strlen(json), "bf16", &h, &err) &&
      !lay_hsi_load(h, ctx, "bf", &err)) {
    lay_hsi_issue *v = NULL;
    int n = 0;
    CHECK(lay_hsi_check(h, ctx, "bf", &v, &n, &err) == 0 && n == 1 &&
              strstr(v[0].text, "give the same 96 bytes"),
          "bf16 export check: %s", n ? v[0].text : err.message);
    free(v);
  } else {
    CHECK(0, "bf16 export: %s", err.message);
  }
  lay_hsi_free(h);
  free(json);
  lay_ctx_free(ctx);
}

/* Layouts a chain cannot express, and bad --quantize requests. */
static void test_export_errors(void) {
  static const struct {
    const char *fmt;
    int rank;
    int64_t shape[4];
    lay_dtype dt;
    int quant;
    double scale, zp;
    lay_dtype to;
    lay_status code;
    const char *msg;
  } cases[] = {
      {"amd.hcwnc5", 4, {1, 3, 4, 4}, 0, 0, 0, 0, 0, LAY_E_NAME,
       "unknown layout 'amd.hcwnc5'"},
      {"amd.ab", 4, {2, 5, 3, 7}, 0, 0, 0, 0, 0, LAY_E_SHAPE, NULL},
      {"amd.hcwnc4", 4, {2, 5, 3, 7}, LAY_DT_INT8, 1, 0.5, 0, LAY_DT_INT8,
       LAY_E_TYPE,
       "cannot export 'amd.hcwnc4': --quantize needs a float CPU type, not "
       "int8"},
      {"kneron.1w16c8bhl", 4, {1, 16, 2, 2}, 0, 0, 0, 0, 0, LAY_E_LAYOUT,
       "cannot export 'kneron.1w16c8bhl': it splits elements into byte "
       "planes, which no rt_transformations step expresses"},
      {"kneron.4w4c8b_qc(1, 7)", 4, {1, 4, 2, 2}, 0, 0, 0, 0, 0,
       LAY_E_LAYOUT,
       "cannot export 'kneron.4w4c8b_qc(1, 7)': it quantizes per channel "
       "(along 'c'); a chain has one scale and zero point"},
      {"kneron.1w16c8b_q(0.3, 7)", 4, {1, 4, 2, 2}, 0, 0, 0, 0, 0,
       LAY_E_LAYOUT,
       "cannot export 'kneron.1w16c8b_q(0.3, 7)': it multiplies by 38.4 / "
       "1; a chain divides by one scale, which gives other roundings unless "
       "both are powers of two"},
      {"ti.tidl(ch_pitch=100)", 4, {1, 2, 3, 4}, 0, 0, 0, 0, 0, LAY_E_LAYOUT,
       "cannot export 'ti.tidl(ch_pitch=100)': axis 'c' has an explicit "
       "stride, which leaves gaps no chain expresses"},
      {"ti.tidl_q8(0.5)", 4, {1, 2, 3, 4}, 0, 0, 0, 0, 0, LAY_E_LAYOUT,
       "cannot export 'ti.tidl_q8(0.5)': its quantization does not round "
       "half to even; a chain computes q = sat(round_half_even(x / scale) + "
       "zero_point)"},
      {"t.f2it", 2, {2, 3}, 0, 0, 0, 0, 0, LAY_E_LAYOUT,
       "cannot export 't.f2it': its cast fp32 -> int8 does not round half to "
       "even; a chain rounds half to even and saturates"},
      {"t.g", 2, {2, 3}, 0, 0, 0, 0, 0, LAY_E_LAYOUT,
       "cannot export 't.g': it needs a gather table (a reshape that "
       "crosses digits after a transpose), which no chain of whole-axis "
       "steps expresses"},
      {"t.padv", 1, {6}, 0, 0, 0, 0, 0, LAY_E_LAYOUT,
       "cannot export 't.padv': it pads with 7; rt_transformations pad with "
       "zeros"},
      {"amd.hcwnc_bf16(4)", 4, {1, 3, 2, 2}, 0, 1, 0.5, 0, LAY_DT_INT8,
       LAY_E_ARG,
       "cannot export 'amd.hcwnc_bf16(4)': it has its own value rule; "
       "--quantize is for a layout without one"},
      {"amd.hcwnc8", 4, {1, 3, 4, 4}, 0, 1, 0.5, 200, LAY_DT_INT8, LAY_E_ARG,
       "cannot export 'amd.hcwnc8': --quantize: zero point 200 is outside "
       "the int8 range [-128, 127]"},
      {"amd.hcwnc8", 4, {1, 3, 4, 4}, 0, 1, 0.5, -1, LAY_DT_UINT8, LAY_E_ARG,
       "cannot export 'amd.hcwnc8': --quantize: zero point -1 is outside the "
       "uint8 range [0, 255]"},
      {"amd.hcwnc8", 4, {1, 3, 4, 4}, 0, 1, 0.5, 2.5, LAY_DT_INT8, LAY_E_ARG,
       "cannot export 'amd.hcwnc8': --quantize: zero point must be an "
       "integer, not 2.5"},
      {"amd.hcwnc8", 4, {1, 3, 4, 4}, 0, 1, 0.5, 0, LAY_DT_BF16, LAY_E_TYPE,
       "cannot export 'amd.hcwnc8': --quantize quantizes to an integer type, "
       "not bf16"},
  };
  lay_ctx *ctx = test_ctx();
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    lay_error err;
    lay_hsi_quant q = {cases[i].scale, cases[i].zp, cases[i].to};
    char *j = lay_hsi_export(ctx, cases[i].fmt, cases[i].shape, cases[i].rank,
                            cases[i].dt, cases[i].quant ? &q : NULL, 0, &err);
    CHECK(!j && err.code == cases[i].code &&
              (!cases[i].msg || !strcmp(err.message, cases[i].msg)),
          "%s: %d %s", cases[i].fmt, (int)err.code, j ? j : err.message);
    free(j);
  }
  lay_ctx_free(ctx);
}

/* The seed reports' specs compile through the front end. */
static void test_seed_load(const char *dir) {
  static const char *const names[] = {"seed_annotation.json",
                                      "seed_report.json",
                                      "seed_transform.json"};
  lay_ctx *ctx = NULL;
  lay_error err;
  CHECK(lay_ctx_new(&ctx, &err) == LAY_OK, "ctx: %s", err.message);
  if (!ctx) return;
  for (int i = 0; i < 3; i++) {
    size_t len;
    char *json = slurp(dir, names[i], &len);
    lay_hsi *h = NULL;
    char ns[16];
    snprintf(ns, sizeof ns, "seed%d", i);
    if (lay_hsi_parse(json, len, names[i], &h, &err) == LAY_OK)
      CHECK(lay_hsi_load(h, ctx, ns, &err) == LAY_OK, "%s: %s:%d:%d: %s",
            names[i], err.file, err.line, err.col, err.message);
    /* Loading twice into one namespace is a name clash, never silent. */
    if (h && i == 0)
      CHECK(lay_hsi_load(h, ctx, ns, &err) == LAY_E_NAME, "second load: %d",
            (int)err.code);
    lay_hsi_free(h);
    free(json);
  }
  lay_ctx_free(ctx);
}

/* An NHWC annotation packs like core.nhwc -> amd.hcwnc4 converted (dims
** matched by name), and an empty chain is the identity. */
static void test_nhwc_and_empty(void) {
  static const char json[] =
      "{\"inputs\": [{\"cpu_shape\": [2, 3, 5, 7], \"cpu_format\": \"NHWC\",\n"
      "  \"cpu_dtype\": \"int8\", \"hw_shape\": [3, 2, 5, 2, 4],\n"
      "  \"hw_format\": \"HCWNC4\", \"hw_dtype\": \"int8\"}],\n"
      " \"outputs\": [{\"cpu_shape\": [4, 6], \"cpu_dtype\": \"fp32\",\n"
      "  \"hw_shape\": [4, 6], \"hw_dtype\": \"fp32\",\n"
      "  \"rt_transformations\": []}]}";
  lay_error err;
  lay_hsi *h = NULL;
  lay_ctx *ctx = NULL;
  CHECK(lay_hsi_parse(json, strlen(json), "nhwc", &h, &err) == LAY_OK, "%s",
        err.message);
  if (!h) return;
  lay_hsi_info a, b;
  lay_hsi_info_get(h, 0, 0, &a);
  lay_hsi_info_get(h, 1, 0, &b);
  CHECK(!strcmp(a.spec, "layout input0 (n, h, w, c) : int8 -> "
                        "[h, c/4, w, n, c%4]\n"),
        "nhwc spec: %s", a.spec);
  CHECK(!strcmp(b.spec, "transform output0 (x : fp32[4, 6]) =\n"
                        "    reshape([4,6])\n"),
        "empty chain spec: %s", b.spec);
  CHECK(lay_hsi_issue_count(h) == 0, "issues: %s",
        lay_hsi_issue_count(h) ? lay_hsi_issue_get(h, 0)->text : "");
  if (lay_ctx_new(&ctx, &err) == LAY_OK &&
      lay_hsi_load(h, ctx, "hsi", &err) == LAY_OK) {
    lay_plan *p = NULL, *q = NULL;
    int64_t shape[4] = {2, 3, 5, 7};
    if (lay_plan_create(ctx, "hsi.input0", shape, 4, LAY_DT_INT8, LAY_PACK,
                        &p, &err) == LAY_OK &&
        lay_plan_convert(ctx, "core.nhwc", "amd.hcwnc4", shape, 4,
                         LAY_DT_INT8, &q, &err) == LAY_OK) {
      size_t n = lay_plan_src_bytes(p), m = lay_plan_dst_bytes(p);
      unsigned char src[210], d1[240], d2[240];
      CHECK(n == 210 && m == 240 && lay_plan_dst_bytes(q) == 240,
            "sizes %zu %zu", n, m);
      fill(src, sizeof src, LAY_DT_INT8, 5);
      CHECK(!lay_plan_run(p, src, n, d1, m, 1, &err) &&
                !lay_plan_run(q, src, n, d2, m, 1, &err) && !memcmp(d1, d2, m),
            "nhwc bytes differ from core.nhwc -> amd.hcwnc4");
    } else {
      CHECK(0, "plans: %s", err.message);
    }
    lay_plan_free(p);
    lay_plan_free(q);
  } else {
    CHECK(0, "load: %s", err.message);
  }
  lay_ctx_free(ctx);
  lay_hsi_free(h);
}

/* ---- 6. strict JSON ---------------------------------------------------------- */

/* Parse text; the status, and err. */
static lay_status parse_text(const char *text, size_t len, lay_error *err) {
  lay_hsi *h = NULL;
  lay_status st = lay_hsi_parse(text, len, "t.json", &h, err);
  CHECK((st == LAY_OK) == (h != NULL), "report and status disagree");
  lay_hsi_free(h);
  return st;
}

static void test_json_strict(void) {
  static const struct {
    const char *text;
    lay_status code;
    int line, col;
    const char *msg;
  } cases[] = {
      {"{\"inputs\":[],\"outputs\":[],}", LAY_E_JSON, 1, 26,
       "malformed JSON: trailing comma"},
      {"{\"inputs\":[1,],\"outputs\":[]}", LAY_E_JSON, 1, 13,
       "malformed JSON: trailing comma"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":01}", LAY_E_JSON, 1, 31,
       "malformed JSON: a number must not start with a leading zero"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":-01}", LAY_E_JSON, 1, 32,
       "malformed JSON: a number must not start with a leading zero"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":\"a\tb\"}", LAY_E_JSON, 1, 33,
       "malformed JSON: a control character in a string must be escaped"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":1e}", LAY_E_JSON, 1, 33,
       "malformed JSON: a digit must follow the exponent of a number"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":-}", LAY_E_JSON, 1, 32,
       "malformed JSON: a digit must follow '-'"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":\"\\u12G4\"}", LAY_E_JSON, 1, 32,
       "malformed JSON: a \\u escape needs four hex digits"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":\"\\udc00\"}", LAY_E_JSON, 1, 32,
       "malformed JSON: a \\u escape is half of a surrogate pair"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":\"\xc3\xa9\xc0\x80\"}", LAY_E_JSON,
       1, 33, "malformed JSON: invalid UTF-8"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":\"\xed\xa0\x80\"}", LAY_E_JSON,
       1, 32, "malformed JSON: invalid UTF-8"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":tru}", LAY_E_JSON, 1, 31,
       "malformed JSON"},
      {"{\"inputs\":[],\"outputs\":[]", LAY_E_JSON, 1, 26,
       "malformed JSON: unexpected end of input"},
      {"{\"inputs\":[],\"outputs\":[]} x", LAY_E_JSON, 1, 28,
       "malformed JSON: text after the end of the report"},
      {"{\"x\":\"\xc3\xa9\xe2\x86\x92\xf0\x9f\x98\x80\" \"y\"}", LAY_E_JSON, 1,
       12, "malformed JSON"},
      {"{\"inputs\":[],\"inputs\":[],\"outputs\":[]}", LAY_E_JSON, 0, 0,
       "report: duplicate key 'inputs'"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":{\"a\":{\"b\":1,\"c\":2,\"b\":3}}}",
       LAY_E_JSON, 0, 0, "x.a: duplicate key 'b'"},
      {"{\"inputs\":[],\"outputs\":[],\"x\":[{},{\"k\":1,\"k\":1}]}",
       LAY_E_JSON, 0, 0, "x[1]: duplicate key 'k'"},
      /* Strict JSON that is fine. */
      {"{\"inputs\":[],\"outputs\":[],\"x\":[0,-0.5e+3,1E-2,"
       "\"\\ud83d\\ude00\\n\",\"\xc3\xa9\",true,false,null]}",
       LAY_OK, 0, 0, ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    lay_error err;
    lay_status st = parse_text(cases[i].text, strlen(cases[i].text), &err);
    CHECK(st == cases[i].code && err.line == cases[i].line &&
              err.col == cases[i].col && !strcmp(err.message, cases[i].msg),
          "case %zu: %d %d:%d %s", i, (int)st, err.line, err.col,
          err.message);
  }
  /* Nesting: 1000 levels are cJSON's limit and fine; one more is not. */
  for (int depth = 999; depth <= 1001; depth++) {
    char *t = malloc(2 * (size_t)depth + 64);
    int n = sprintf(t, "{\"inputs\":[],\"outputs\":[],\"x\":");
    for (int k = 1; k < depth; k++) t[n++] = '[';
    for (int k = 1; k < depth; k++) t[n++] = ']';
    t[n++] = '}';
    lay_error err;
    lay_status st = parse_text(t, (size_t)n, &err);
    if (depth <= 1000)
      CHECK(st == LAY_OK, "depth %d: %s", depth, err.message);
    else
      CHECK(st == LAY_E_LIMIT && err.line == 1 && err.col == 30 + 1000 &&
                !strcmp(err.message, "nested deeper than 1000 levels"),
            "depth %d: %d %d:%d %s", depth, (int)st, err.line, err.col,
            err.message);
    free(t);
  }
  /* A report over the size limit is not read; its error names it. */
  lay_error err;
  lay_hsi *h = NULL;
  CHECK(lay_hsi_parse("{}", LAY_HSI_MAX_JSON + 1, "big.json", &h, &err) ==
                LAY_E_LIMIT &&
            !h && !strcmp(err.file, "big.json") &&
            !strcmp(err.message,
                    "report: 67108865 bytes, larger than 67108864 bytes"),
        "size limit: %s", err.message);
}

/* ---- 7. the annotation's value rule ------------------------------------------- */

/* One annotation entry NCHW [1,3,2,2] -> HCWNC4 with the given types,
** scale_factor and zero_point ("" to leave a field out): its spec's value
** clause, or the text of its first fatal issue. */
static void value_rule(const char *cpu, const char *hw, const char *scale,
                       const char *zp, int chain, char *out, size_t cap) {
  char json[1024];
  snprintf(json, sizeof json,
           "{\"inputs\": [{\"cpu_shape\": [1, 3, 2, 2], \"cpu_format\": "
           "\"NCHW\", \"cpu_dtype\": \"%s\", \"hw_shape\": [2, 1, 2, 1, 4], "
           "\"hw_format\": \"HCWNC4\", \"hw_dtype\": \"%s\"%s%s%s%s%s}], "
           "\"outputs\": []}",
           cpu, hw, *scale ? ", \"scale_factor\": " : "", scale,
           *zp ? ", \"zero_point\": " : "", zp,
           chain ? ", \"rt_transformations\": [{\"transformation\": "
                   "\"pad\", \"pad_at_start\": [0,0,0,0], \"pad_at_end\": "
                   "[0,1,0,0], \"output_shape\": [1,4,2,2]}, "
                   "{\"transformation\": \"reshape\", \"output_shape\": "
                   "[1,1,4,2,2]}, {\"transformation\": \"transpose\", "
                   "\"perm\": [3,1,4,0,2]}]"
                 : "");
  lay_hsi *h = NULL;
  lay_error err;
  snprintf(out, cap, "parse: ");
  if (lay_hsi_parse(json, strlen(json), "v", &h, &err)) {
    snprintf(out, cap, "parse: %s", err.message);
    return;
  }
  const lay_hsi_issue *is = lay_hsi_entry_issue(h, 0, 0);
  lay_hsi_info inf;
  lay_hsi_info_get(h, 0, 0, &inf);
  if (is) {
    snprintf(out, cap, "%s", is->text);
  } else {
    /* The clause: the spec's second line for a layout, the chain's first
    ** step for a transform. */
    const char *nl = strchr(inf.spec, '\n');
    const char *c = nl ? nl + 1 : "";
    while (*c == ' ') c++;
    size_t l = strcspn(c, "\n");
    if (!strncmp(c, "| ", 2) || !strncmp(c, "pad(", 4)) l = 0; /* none */
    snprintf(out, cap, "%.*s", (int)l, c);
  }
  lay_hsi_free(h);
}

static void test_value_rules(void) {
  static const struct {
    const char *cpu, *hw, *scale, *zp;
    int chain;
    const char *want;
  } cases[] = {
      {"fp32", "bf16", "-1.0", "0", 0, "cast(to = bf16, round = truncate)"},
      {"fp32", "bf16", "", "", 0, "cast(to = bf16, round = truncate)"},
      {"fp32", "bf16", "1", "0", 0, "cast(to = bf16, round = truncate)"},
      {"fp32", "bf16", "0.5", "0", 0,
       "inputs[0].scale_factor: 0.5 with zero_point 0 between the float "
       "types fp32 and bf16: a scale applies when quantizing to an integer "
       "type; lay has no scaled float cast (-1.0 is a plain cast)"},
      {"fp32", "bf16", "1", "2", 0,
       "inputs[0].scale_factor: 1 with zero_point 2 between the float types "
       "fp32 and bf16: a scale applies when quantizing to an integer type; "
       "lay has no scaled float cast (-1.0 is a plain cast)"},
      {"fp32", "bf16", "-1.0", "3", 0,
       "inputs[0].zero_point: 3, but scale_factor is unset (-1.0); a zero "
       "point applies only with a scale"},
      /* Equal types never rescale (AMD: the scale converts between
      ** cpu_dtype and hw_dtype; VART's demo copies int8 -> int8). */
      {"fp32", "fp32", "-1.0", "3", 0, ""},
      {"int8", "int8", "0.25", "0", 0, ""},
      {"uint8", "uint8", "0.5", "3", 0, ""},
      {"int8", "uint8", "1", "128", 0,
       "quantize(scale = 1, zero_point = 128, to = uint8, arith = f32_div)"},
      {"int8", "int8", "1", "", 0, ""},
      {"int8", "int8", "1", "0", 0, ""},
      {"int8", "int8", "0.5", "0", 0, ""},
      {"fp32", "int8", "0.1", "-5", 0,
       "quantize(scale = 0.1, zero_point = -5, to = int8, arith = f32_div)"},
      {"fp32", "uint8", "0.037", "128", 0,
       "quantize(scale = 0.037, zero_point = 128, to = uint8, arith = f32_div)"},
      {"uint8", "fp32", "0.25", "3", 0,
       "dequantize(scale = 0.25, zero_point = 3, to = fp32, arith = f32_div)"},
      {"fp32", "uint8", "0.1", "-5", 0,
       "inputs[0].zero_point: -5 is outside the uint8 range [0, 255] "
       "(hw_dtype)"},
      {"int8", "fp32", "0.1", "200", 0,
       "inputs[0].zero_point: 200 is outside the int8 range [-128, 127] "
       "(cpu_dtype)"},
      {"fp32", "int8", "0.1", "", 0,
       "inputs[0].zero_point: missing, but scale_factor 0.1 converts "
       "cpu_dtype fp32 to hw_dtype int8"},
      {"fp32", "int8", "-1.0", "0", 0,
       "inputs[0].scale_factor: missing scale: cpu_dtype fp32 and hw_dtype "
       "int8 differ and no quantize or dequantize step converts them"},
      /* The same rules for a chain without a quantize step. */
      {"int8", "uint8", "1", "128", 1,
       "quantize(scale = 1, zero_point = 128, to = uint8, arith = f32_div)"},
      {"fp32", "bf16", "0.5", "0", 1,
       "inputs[0].scale_factor: 0.5 with zero_point 0 between the float "
       "types fp32 and bf16: a scale applies when quantizing to an integer "
       "type; lay has no scaled float cast (-1.0 is a plain cast)"},
      {"int8", "int8", "1", "0", 1, ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char got[600];
    value_rule(cases[i].cpu, cases[i].hw, cases[i].scale, cases[i].zp,
               cases[i].chain, got, sizeof got);
    CHECK(!strcmp(got, cases[i].want), "case %zu (%s -> %s, %s, %s): %s", i,
          cases[i].cpu, cases[i].hw, cases[i].scale, cases[i].zp, got);
  }
}

/* ---- 8. every disagreement, each tensor on its own ------------------------- */

static void test_all_issues(const char *dir) {
  size_t len;
  char *json = slurp(dir, "bad/m55_many.json", &len);
  lay_hsi *h = NULL;
  lay_error err;
  CHECK(lay_hsi_parse(json, len, "many", &h, &err) == LAY_OK, "%s",
        err.message);
  free(json);
  if (!h) return;
  /* inputs[0] two pad lengths, inputs[1] a perm, outputs[0] two slice
  ** dimensions and the shape that follows; inputs[2] and outputs[1] fine
  ** (outputs[1] with a note for its unknown field). */
  int fatal[2][3] = {{0}}, notes = 0;
  for (int k = 0; k < lay_hsi_issue_count(h); k++) {
    const lay_hsi_issue *is = lay_hsi_issue_get(h, k);
    if (is->fatal) fatal[is->output][is->index]++;
    notes += !is->fatal && strstr(is->text, "outputs[1].extra: unknown "
                                            "field, ignored") != NULL;
  }
  CHECK(fatal[0][0] == 2 && fatal[0][1] == 1 && fatal[0][2] == 0 &&
            fatal[1][0] == 3 && fatal[1][1] == 0 && notes == 1,
        "issues %d %d %d / %d %d, notes %d", fatal[0][0], fatal[0][1],
        fatal[0][2], fatal[1][0], fatal[1][1], notes);
  lay_hsi_info inf;
  lay_hsi_info_get(h, 0, 1, &inf);
  CHECK(inf.spec == NULL, "inputs[1] has a definition");
  lay_ctx *ctx = NULL;
  if (!lay_ctx_new(&ctx, &err) && !lay_hsi_load(h, ctx, "hsi", &err)) {
    lay_hsi_issue *v = NULL;
    int n = 0;
    CHECK(lay_hsi_check(h, ctx, "hsi", &v, &n, &err) == 6, "check: %d",
          n);
    free(v);
    /* The fine entries run. */
    int64_t s[4] = {1, 3, 32, 32};
    lay_plan *p = NULL;
    CHECK(!lay_plan_create(ctx, "hsi.input2", s, 4, LAY_DT_FP32, LAY_PACK,
                           &p, &err),
          "input2: %s", err.message);
    lay_plan_free(p);
  } else {
    CHECK(0, "load: %s", err.message);
  }
  lay_ctx_free(ctx);
  lay_hsi_free(h);
}

/* Byte sizes: the element count fits 64 bits, the bytes do not. */
static void test_byte_sizes(void) {
  static const char *const reports[] = {
      "{\"inputs\": [{\"cpu_shape\": [4294967296, 2147483647], "
      "\"cpu_format\": \"AB\", \"cpu_dtype\": \"int8\", \"hw_shape\": "
      "[4294967296, 2147483647], \"hw_format\": \"AB\", \"hw_dtype\": "
      "\"fp32\", \"scale_factor\": 1, \"zero_point\": 0}], \"outputs\": []}",
      "{\"inputs\": [{\"cpu_shape\": [1073741824, 2147483647], "
      "\"cpu_dtype\": \"fp32\", \"hw_shape\": [1073741824, 2147483647], "
      "\"hw_dtype\": \"fp32\", \"rt_transformations\": [{\"transformation\":"
      " \"pad\", \"pad_at_start\": [0, 0], \"pad_at_end\": [1, 0], "
      "\"output_shape\": [1073741825, 2147483647]}, {\"transformation\": "
      "\"slice\", \"start\": [0, 0], \"size\": [1073741824, -1]}]}], "
      "\"outputs\": []}",
  };
  static const char *const want[] = {
      "inputs[0].hw_shape: [4294967296,2147483647] of fp32: the byte size "
      "overflows 64 bits",
      "inputs[0].rt_transformations[0]: its result [1073741825,2147483647] "
      "fp32: the byte size overflows 64 bits",
  };
  for (int i = 0; i < 2; i++) {
    lay_hsi *h = NULL;
    lay_error err;
    CHECK(lay_hsi_parse(reports[i], strlen(reports[i]), "b", &h, &err) ==
              LAY_OK,
          "%s", err.message);
    const lay_hsi_issue *is = h ? lay_hsi_entry_issue(h, 0, 0) : NULL;
    CHECK(is && !strcmp(is->text, want[i]), "report %d: %s", i,
          is ? is->text : "no issue");
    lay_hsi_free(h);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hsi_unit SRCDIR [--no-run]\n");
    return 2;
  }
  int run = !(argc > 2 && !strcmp(argv[2], "--no-run"));
  srcdir = argv[1];
  test_golden(argv[1]);
  test_json_strict();
  test_value_rules();
  test_byte_sizes();
  test_export_text();
  test_find(argv[1]);
  test_hostile(argv[1], "seed_transform.json", run);
  test_hostile(argv[1], "seed_annotation.json", run);
  if (run) {
    test_seed_load(argv[1]);
    test_export_run();
    test_export_errors();
    test_all_issues(argv[1]);
    test_nhwc_and_empty();
  }
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
