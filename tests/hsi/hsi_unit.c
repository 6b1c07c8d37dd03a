/*
** hsi_unit.c: unit tests of interp/hsi.c (flexmlrt-hsi.json -> lay).
**
**   hsi_unit SRCDIR [--no-run]
** 1. the spec text of the seed's three reports equals tests/hsi/golden/;
** 2. an export parses back, its output form inverts to the same chain;
** 3. entry lookup by index, name and tensor_name;
** 4. truncating or corrupting a report at every byte never crashes and
**    always gives a positioned or pathed LAY_E_JSON error or a report;
** 5. (unless --no-run) every AMD stdlib layout, exported and run through
**    its report, gives the same bytes as the layout run directly, both
**    directions, with and without quantization; and the generated specs
**    of the seed reports compile through the front end.
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
    li_hsi *h = NULL;
    lay_error err;
    lay_status st = li_hsi_parse(json, len, jn, &h, &err);
    CHECK(st == LAY_OK, "%s: %s", jn, err.message);
    if (h) {
      char *got = li_hsi_spec(h, "hsi");
      CHECK(got && !strcmp(got, want), "%s: spec text differs:\n%s", jn,
            got ? got : "(null)");
      free(got);
      /* The seed's reports are consistent: no fatal issue. */
      for (int k = 0; k < li_hsi_issue_count(h); k++)
        CHECK(!li_hsi_issue_get(h, k)->fatal, "%s: %s", jn,
              li_hsi_issue_get(h, k)->text);
    }
    li_hsi_free(h);
    free(json);
    free(want);
  }
}

/* 2. export -> parse; the output form is the inverted chain */
static void test_export_text(void) {
  int64_t shape[4] = {2, 5, 3, 7};
  lay_error err;
  char *in = li_hsi_export("amd.hcwnc8", shape, 4, LAY_DT_FP32, 1, 0.0078125,
                           3, 0, &err);
  char *out = li_hsi_export("hcwnc8", shape, 4, LAY_DT_FP32, 1, 0.0078125, 3,
                            1, &err);
  CHECK(in && out, "export failed: %s", err.message);
  if (!in || !out) return;
  li_hsi *a = NULL, *b = NULL;
  CHECK(li_hsi_parse(in, strlen(in), "in", &a, &err) == LAY_OK, "%s",
        err.message);
  CHECK(li_hsi_parse(out, strlen(out), "out", &b, &err) == LAY_OK, "%s",
        err.message);
  if (a && b) {
    li_hsi_info ia, ib;
    CHECK(li_hsi_info_get(a, 0, 0, &ia) == 0, "no input");
    CHECK(li_hsi_info_get(b, 1, 0, &ib) == 0, "no output");
    const char *want =
        "transform input0 (x : fp32[n=2, c=5, h=3, w=7]) =\n"
        "    quantize(scale = 0.0078125, zero_point = 3, to = int8)\n"
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
                                 "0.0078125, zero_point = 3, to = int8)\n"),
          "annotation:\n%s", ia.ann_spec ? ia.ann_spec : "(null)");
    CHECK(ia.hw_rank == 5 && ia.hw_shape[0] == 3 && ia.hw_shape[1] == 1 &&
              ia.hw_shape[2] == 7 && ia.hw_shape[3] == 2 &&
              ia.hw_shape[4] == 8,
          "hw_shape");
    CHECK(li_hsi_issue_count(a) == 0 && li_hsi_issue_count(b) == 0,
          "export has issues");
  }
  li_hsi_free(a);
  li_hsi_free(b);
  free(in);
  free(out);
  /* Bad export requests. */
  CHECK(!li_hsi_export("amd.hcwnc5", shape, 4, 0, 0, 0, 0, 0, &err) &&
            err.code == LAY_E_NAME,
        "hcwnc5 accepted");
  CHECK(!li_hsi_export("amd.ab", shape, 4, 0, 0, 0, 0, 0, &err) &&
            err.code == LAY_E_SHAPE,
        "4-D ab accepted");
  CHECK(!li_hsi_export("amd.hcwnc4", shape, 4, LAY_DT_INT8, 1, 0.5, 0, 0,
                       &err) &&
            err.code == LAY_E_TYPE,
        "int8 quantize accepted");
}

/* 3. lookup */
static void test_find(const char *dir) {
  size_t len;
  char *json = slurp(dir, "seed_report.json", &len);
  li_hsi *h = NULL;
  lay_error err;
  CHECK(li_hsi_parse(json, len, "r", &h, &err) == LAY_OK, "%s", err.message);
  CHECK(li_hsi_find(h, 0, "0") == 0, "index 0");
  CHECK(li_hsi_find(h, 0, "1") == -1, "index 1");
  CHECK(li_hsi_find(h, 0, "compute_graph.ifm_ddr") == 0, "by name");
  CHECK(li_hsi_find(h, 1, "compute_graph.ofm_ddr") == 0, "output by name");
  CHECK(li_hsi_find(h, 0, "compute_graph.ofm_ddr") == -1, "wrong side");
  CHECK(li_hsi_count(h, 0) == 1 && li_hsi_count(h, 1) == 1, "counts");
  li_hsi_free(h);
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
    li_hsi *h = NULL;
    lay_status st = li_hsi_parse(json, cut, "t", &h, &err);
    CHECK(st == LAY_E_JSON && !h && err.message[0],
          "cut at %zu: status %d", cut, (int)st);
    li_hsi_free(h);
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
    li_hsi *h = NULL;
    lay_status st = li_hsi_parse(buf, len, "t", &h, &err);
    CHECK((st == LAY_OK) == (h != NULL), "round %d", round);
    if (st) CHECK(st == LAY_E_JSON && err.message[0], "round %d", round);
    if (h) {
      char *t = li_hsi_spec(h, "hsi");
      CHECK(t != NULL, "spec");
      free(t);
    }
    /* What parses also compiles, unless an entry is inconsistent. */
    int fine = h && ctx;
    for (int k = 0; fine && k < li_hsi_issue_count(h); k++)
      fine = !li_hsi_issue_get(h, k)->fatal;
    if (fine) {
      char ns[32];
      snprintf(ns, sizeof ns, "f%d", round);
      lay_status ls = li_hsi_load(h, ctx, ns, &err);
      CHECK(ls == LAY_OK, "round %d: load: %s:%d:%d: %s", round, err.file,
            err.line, err.col, err.message);
      for (int o = 0; !ls && o < 2; o++)
        for (int e = 0; e < li_hsi_count(h, o); e++) {
          li_hsi_info inf;
          char ref[64];
          li_hsi_info_get(h, o, e, &inf);
          snprintf(ref, sizeof ref, "%s.%s", ns, inf.def);
          lay_plan *pl = NULL;
          lay_status ps = lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank,
                                          inf.cpu_dtype, LAY_PACK, &pl, &err);
          CHECK(ps == LAY_OK, "round %d: %s: %s", round, ref, err.message);
          lay_plan_free(pl);
        }
      loaded++;
    }
    li_hsi_free(h);
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

static void test_export_run(void) {
  static const struct {
    const char *fmt;    /* exported */
    const char *direct; /* the stdlib layout run directly */
    int rank;
    int64_t shape[4];
    lay_dtype dt;
    int quant;
  } cases[] = {
      {"amd.hcwnc4", "amd.hcwnc4", 4, {2, 5, 3, 7}, LAY_DT_INT8, 0},
      {"amd.hcwnc8", "amd.hcwnc8", 4, {2, 5, 3, 7}, LAY_DT_INT8, 0},
      {"amd.hcwnc16", "amd.hcwnc16", 4, {1, 17, 2, 3}, LAY_DT_FP32, 0},
      {"amd.hcwnc4", "amd.hcwnc4", 4, {1, 8, 4, 4}, LAY_DT_BF16, 0},
      {"amd.ab", "amd.ab", 2, {3, 5}, LAY_DT_INT8, 0},
      {"amd.ab", "amd.ab", 2, {4, 9}, LAY_DT_FP32, 0},
      {"amd.hcwnc4", "amd.hcwnc_q(4, 0.0078125)", 4, {1, 3, 5, 6},
       LAY_DT_FP32, 1},
      {"amd.hcwnc8", "amd.hcwnc_q(8, 0.0078125)", 4, {2, 3, 5, 6},
       LAY_DT_FP32, 1},
      {"amd.hcwnc16", "amd.hcwnc_q(16, 0.0078125)", 4, {1, 20, 2, 3},
       LAY_DT_FP32, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    for (int as_out = 0; as_out < 2; as_out++) {
      lay_error err;
      lay_ctx *ctx = NULL;
      li_hsi *h = NULL;
      char *json = li_hsi_export(cases[i].fmt, cases[i].shape, cases[i].rank,
                                 cases[i].dt, cases[i].quant, 0.0078125, 0,
                                 as_out, &err);
      CHECK(json, "export %s: %s", cases[i].fmt, err.message);
      if (!json) continue;
      CHECK(li_hsi_parse(json, strlen(json), "export", &h, &err) == LAY_OK,
            "%s", err.message);
      CHECK(lay_ctx_new(&ctx, &err) == LAY_OK, "ctx: %s", err.message);
      if (h && ctx) {
        lay_status st = li_hsi_load(h, ctx, "hsi", &err);
        CHECK(st == LAY_OK, "load %s: %s", cases[i].fmt, err.message);
        const char *def = as_out ? "hsi.output0" : "hsi.input0";
        for (int dir = 0; !st && dir < 2; dir++)
          CHECK(same_run(ctx, def, cases[i].direct, cases[i].shape,
                         cases[i].rank, cases[i].dt, (lay_dir)dir),
                "%s as %s, %s", cases[i].fmt, as_out ? "output" : "input",
                dir ? "unpack" : "pack");
        li_hsi_issue *v = NULL;
        int n = 0;
        int bad = st ? 0 : li_hsi_check(h, ctx, "hsi", &v, &n, &err);
        CHECK(bad == 0, "check of the %s export: %d (%s)", cases[i].fmt, bad,
              bad < 0 ? err.message : n ? v[0].text : "");
        /* The annotation was compared with the chain. */
        int compared = 0;
        for (int k = 0; k < n; k++)
          compared |= strstr(v[k].text, "give the same") != NULL;
        CHECK(st || compared, "%s: annotation not compared", cases[i].fmt);
        free(v);
      }
      lay_ctx_free(ctx);
      li_hsi_free(h);
      free(json);
    }
  }
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
    li_hsi *h = NULL;
    char ns[16];
    snprintf(ns, sizeof ns, "seed%d", i);
    if (li_hsi_parse(json, len, names[i], &h, &err) == LAY_OK)
      CHECK(li_hsi_load(h, ctx, ns, &err) == LAY_OK, "%s: %s:%d:%d: %s",
            names[i], err.file, err.line, err.col, err.message);
    /* Loading twice into one namespace is a name clash, never silent. */
    if (h && i == 0)
      CHECK(li_hsi_load(h, ctx, ns, &err) == LAY_E_NAME, "second load: %d",
            (int)err.code);
    li_hsi_free(h);
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
  li_hsi *h = NULL;
  lay_ctx *ctx = NULL;
  CHECK(li_hsi_parse(json, strlen(json), "nhwc", &h, &err) == LAY_OK, "%s",
        err.message);
  if (!h) return;
  li_hsi_info a, b;
  li_hsi_info_get(h, 0, 0, &a);
  li_hsi_info_get(h, 1, 0, &b);
  CHECK(!strcmp(a.spec, "layout input0 (n, h, w, c) : int8 -> "
                        "[h, c/4, w, n, c%4]\n"),
        "nhwc spec: %s", a.spec);
  CHECK(!strcmp(b.spec, "transform output0 (x : fp32[4, 6]) =\n"
                        "    reshape([4,6])\n"),
        "empty chain spec: %s", b.spec);
  CHECK(li_hsi_issue_count(h) == 0, "issues: %s",
        li_hsi_issue_count(h) ? li_hsi_issue_get(h, 0)->text : "");
  if (lay_ctx_new(&ctx, &err) == LAY_OK &&
      li_hsi_load(h, ctx, "hsi", &err) == LAY_OK) {
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
  li_hsi_free(h);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: hsi_unit SRCDIR [--no-run]\n");
    return 2;
  }
  int run = !(argc > 2 && !strcmp(argv[2], "--no-run"));
  test_golden(argv[1]);
  test_export_text();
  test_find(argv[1]);
  test_hostile(argv[1], "seed_transform.json", run);
  test_hostile(argv[1], "seed_annotation.json", run);
  if (run) {
    test_seed_load(argv[1]);
    test_export_run();
    test_nhwc_and_empty();
  }
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
