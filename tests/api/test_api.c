/*
** test_api.c: the public API of lay.h beyond the formats themselves.
**
**   threads  one plan shared by 4 pthreads, each running it 120 times on
**            its own buffers with threads = 2 inside; runs with threads
**            1..8 (and 0, -1, 100) on buffers of 1 MiB and more: the bytes
**            are always those of threads = 1
**   buffers  a short source or destination fails with LAY_E_BUFFER and
**            leaves the destination untouched; a longer one is written only
**            as far as the plan needs
**   version  lay_version_number and lay_version_string against the macros
**   shapes   lay_plan_cpu_shape, lay_plan_hw_shape and the byte sizes
**   errors   lay_status_str, lay_error_format, positioned errors of loaded
**            spec strings and files, plan errors with their status
**   dtypes   lay_dtype_parse with lay's names and numpy's spellings
**
** Usage: test_api GROUP; prints the number of checks and each failure.
*/
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static long g_checks, g_failures;

/* Count one check; report it when it failed. */
#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    g_checks++;                                                                \
    if (!(cond)) {                                                             \
      g_failures++;                                                            \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                     \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

static lay_ctx *g_ctx;

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "test_api: out of memory\n");
    exit(2);
  }
  return p;
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed) {
  for (size_t i = 0; i < n; i++) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    p[i] = (uint8_t)(seed >> 56);
  }
}

/* Fill fp32 values k / 8, exact for the power-of-two scales used here. */
static void fill_floats(uint8_t *p, size_t n, uint64_t seed) {
  for (size_t i = 0; i + 4 <= n; i += 4) {
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    float x = (float)((int)(seed >> 52) - 2048) / 8;
    memcpy(p + i, &x, 4);
  }
}

/* A pack (or unpack) plan for `format`; NULL after reporting. */
static lay_plan *make_plan(const char *format, const int64_t *shape, int rank,
                           lay_dtype t, lay_dir dir) {
  lay_plan *p = NULL;
  lay_error err;
  lay_status st = lay_plan_create(g_ctx, format, shape, rank, t, dir, &p, &err);
  CHECK(st == LAY_OK, "plan %s: %s", format, err.message);
  return p;
}

/* The first byte where a and b differ, or -1. */
static long first_diff(const uint8_t *a, const uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) return (long)i;
  return -1;
}

/* ---- threads ------------------------------------------------------------ */

typedef struct worker {
  const lay_plan *plan; /* shared by every worker */
  const uint8_t *src;   /* this worker's own copy of the input */
  const uint8_t *want;  /* the bytes of a run with threads = 1 */
  size_t sn, dn;        /* their sizes */
  int runs;             /* runs done */
  long bad;             /* runs that failed or gave other bytes */
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  uint8_t *dst = xmalloc(w->dn);
  for (int r = 0; r < 120; r++) {
    memset(dst, r & 1 ? 0x5a : 0xa5, w->dn);
    if (lay_plan_run(w->plan, w->src, w->sn, dst, w->dn, 2, NULL) ||
        memcmp(dst, w->want, w->dn))
      w->bad++;
    w->runs++;
  }
  free(dst);
  return NULL;
}

/* Run the plan once on one thread, then from 4 threads at once. */
static void shared_plan(const char *format, const int64_t *shape, lay_dtype t,
                        lay_dir dir) {
  lay_plan *p = make_plan(format, shape, 4, t, dir);
  if (!p) return;
  size_t sn = lay_plan_src_bytes(p), dn = lay_plan_dst_bytes(p);
  uint8_t *src = xmalloc(sn), *want = xmalloc(dn);
  fill_random(src, sn, 42);
  CHECK(lay_plan_run(p, src, sn, want, dn, 1, NULL) == LAY_OK, "run %s",
        format);
  pthread_t th[4];
  worker w[4];
  for (int i = 0; i < 4; i++) {
    uint8_t *own = xmalloc(sn);
    memcpy(own, src, sn);
    w[i] = (worker){p, own, want, sn, dn, 0, 0};
    CHECK(!pthread_create(&th[i], NULL, worker_main, &w[i]), "pthread_create");
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(th[i], NULL);
    CHECK(w[i].runs == 120 && w[i].bad == 0,
          "%s %s: worker %d: %ld of %d runs gave other bytes", format,
          dir == LAY_PACK ? "pack" : "unpack", i, w[i].bad, w[i].runs);
    free((void *)w[i].src);
  }
  free(src);
  free(want);
  lay_plan_free(p);
}

/* threads = 1 against 2..8 (and out-of-range counts) on one plan. */
static void thread_counts(lay_plan *p, const char *what, int floats) {
  if (!p) return;
  size_t sn = lay_plan_src_bytes(p), dn = lay_plan_dst_bytes(p);
  uint8_t *src = xmalloc(sn), *one = xmalloc(dn), *many = xmalloc(dn);
  CHECK(dn >= (1u << 20), "%s: the destination is only %zu bytes", what, dn);
  if (floats)
    fill_floats(src, sn, 7);
  else
    fill_random(src, sn, 7);
  memset(one, 0x5a, dn);
  CHECK(lay_plan_run(p, src, sn, one, dn, 1, NULL) == LAY_OK, "%s: run", what);
  static const int counts[] = {2, 3, 4, 5, 6, 7, 8, 0, -1, 100};
  for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
    memset(many, i & 1 ? 0xa5 : 0x5a, dn);
    lay_status st = lay_plan_run(p, src, sn, many, dn, counts[i], NULL);
    long d = first_diff(one, many, dn);
    CHECK(st == LAY_OK && d < 0,
          "%s: threads=%d: status %d, first differing byte %ld", what,
          counts[i], st, d);
  }
  free(src);
  free(one);
  free(many);
}

static void test_threads(void) {
  const int64_t s1[4] = {2, 61, 33, 35}, s2[4] = {1, 28, 28, 256};
  const int64_t s3[4] = {1, 64, 56, 56};
  shared_plan("amd.hcwnc8", s1, LAY_DT_INT8, LAY_PACK);
  shared_plan("amd.hcwnc8", s1, LAY_DT_INT8, LAY_UNPACK);
  shared_plan("qnn.crouton", s2, LAY_DT_INT8, LAY_PACK);
  shared_plan("kneron.4w4c8bhl", s3, LAY_DT_INT16, LAY_PACK);
  shared_plan("ti.tidl(1,1,1,1)", s3, LAY_DT_FP16, LAY_UNPACK);

  const int64_t a[4] = {1, 3, 600, 600}, b[4] = {2, 150, 60, 70};
  const int64_t c[4] = {1, 67, 45, 130}, d[4] = {1, 40, 100, 150};
  const int64_t e[4] = {2, 16, 130, 130}, f[4] = {1, 540, 960, 3};
  const int64_t g[4] = {1, 64, 130, 130};
  lay_plan *p;
  thread_counts(p = make_plan("amd.hcwnc4", a, 4, LAY_DT_INT8, LAY_PACK),
                "amd.hcwnc4 pack", 0);
  lay_plan_free(p);
  thread_counts(p = make_plan("amd.hcwnc8", b, 4, LAY_DT_INT8, LAY_PACK),
                "amd.hcwnc8 pack", 0);
  lay_plan_free(p);
  thread_counts(p = make_plan("amd.hcwnc8", b, 4, LAY_DT_INT8, LAY_UNPACK),
                "amd.hcwnc8 unpack", 0);
  lay_plan_free(p);
  thread_counts(p = make_plan("qnn.crouton", c, 4, LAY_DT_INT16, LAY_PACK),
                "qnn.crouton pack", 0);
  lay_plan_free(p);
  thread_counts(p = make_plan("kneron.1w16c8bhl", d, 4, LAY_DT_INT16, LAY_PACK),
                "kneron.1w16c8bhl pack", 0);
  lay_plan_free(p);
  thread_counts(p = make_plan("ti.tidl(1,1,1,1)", e, 4, LAY_DT_INT16, LAY_PACK),
                "ti.tidl pack", 0);
  lay_plan_free(p);
  thread_counts(
      p = make_plan("amd.hcwnc_q(8, 0.25)", g, 4, LAY_DT_FP32, LAY_PACK),
      "amd.hcwnc_q pack", 1);
  lay_plan_free(p);
  p = NULL;
  CHECK(lay_plan_convert(g_ctx, "core.nhwc", "amd.hcwnc4", f, 4, LAY_DT_UINT8,
                         &p, NULL) == LAY_OK,
        "convert plan");
  thread_counts(p, "core.nhwc -> amd.hcwnc4", 0);
  lay_plan_free(p);
}

/* ---- buffers ------------------------------------------------------------ */

/* A short source and a short destination fail and write nothing; a long
** destination is written only up to the plan's size. */
static void short_buffers(lay_plan *p, const char *what) {
  if (!p) return;
  size_t sn = lay_plan_src_bytes(p), dn = lay_plan_dst_bytes(p);
  uint8_t *src = xmalloc(sn), *dst = xmalloc(dn + 64), *ref = xmalloc(dn + 64);
  lay_error err;
  fill_random(src, sn, 3);
  memset(dst, 0x5a, dn + 64);
  memset(ref, 0x5a, dn + 64);
  lay_status st = lay_plan_run(p, src, sn - 1, dst, dn, 1, &err);
  CHECK(st == LAY_E_BUFFER && err.code == LAY_E_BUFFER && err.message[0],
        "%s: short source gives %d (%s)", what, st, err.message);
  CHECK(!memcmp(dst, ref, dn + 64), "%s: short source wrote the output", what);
  st = lay_plan_run(p, src, sn, dst, dn - 1, 4, &err);
  CHECK(st == LAY_E_BUFFER && err.code == LAY_E_BUFFER && err.message[0],
        "%s: short destination gives %d (%s)", what, st, err.message);
  CHECK(!memcmp(dst, ref, dn + 64), "%s: short destination was written", what);
  st = lay_plan_run(p, src, sn, NULL, 0, 1, &err);
  CHECK(st == LAY_E_BUFFER, "%s: no destination gives %d", what, st);
  st = lay_plan_run(p, src, sn, dst, dn + 64, 1, &err);
  CHECK(st == LAY_OK, "%s: long destination gives %d", what, st);
  CHECK(!memcmp(dst + dn, ref + dn, 64), "%s: written past the plan's size",
        what);
  CHECK(lay_plan_run(NULL, src, sn, dst, dn, 1, &err) == LAY_E_ARG,
        "%s: no plan", what);
  free(src);
  free(dst);
  free(ref);
}

static void test_buffers(void) {
  const int64_t s[4] = {2, 5, 3, 7}, big[4] = {1, 64, 112, 112};
  lay_plan *p;
  short_buffers(p = make_plan("amd.hcwnc4", s, 4, LAY_DT_INT8, LAY_PACK),
                "amd.hcwnc4 pack");
  lay_plan_free(p);
  short_buffers(p = make_plan("qnn.crouton", s, 4, LAY_DT_FP32, LAY_UNPACK),
                "qnn.crouton unpack");
  lay_plan_free(p);
  short_buffers(
      p = make_plan("kneron.16w1c8bhl", big, 4, LAY_DT_INT16, LAY_PACK),
      "kneron.16w1c8bhl pack");
  lay_plan_free(p);
  short_buffers(
      p = make_plan("ti.tidl(1,1,1,1)", big, 4, LAY_DT_INT8, LAY_PACK),
      "ti.tidl pack");
  lay_plan_free(p);
  p = NULL;
  lay_plan_convert(g_ctx, "kneron.4w4c8b", "amd.hcwnc8", s, 4, LAY_DT_INT8, &p,
                   NULL);
  short_buffers(p, "kneron.4w4c8b -> amd.hcwnc8");
  lay_plan_free(p);
}

/* ---- version ------------------------------------------------------------ */

static void test_version(void) {
  char want[64];
  CHECK(lay_version_number() == LAY_VERSION_NUMBER, "lay_version_number %u",
        lay_version_number());
  CHECK(LAY_VERSION_NUMBER == LAY_VERSION_MAJOR * 10000 +
                                  LAY_VERSION_MINOR * 100 + LAY_VERSION_RELEASE,
        "LAY_VERSION_NUMBER");
  snprintf(want, sizeof want, "%d.%d.%d", LAY_VERSION_MAJOR, LAY_VERSION_MINOR,
           LAY_VERSION_RELEASE);
  CHECK(!strcmp(lay_version_string(), want),
        "lay_version_string '%s', want '%s'", lay_version_string(), want);
}

/* ---- shapes ------------------------------------------------------------- */

/* The CPU-side and hardware shapes of `format` on `shape`, both ways. */
static void shapes_of(const char *format, const int64_t *shape,
                      const int64_t *hw, const char *const *names, int hrank,
                      size_t src, size_t dst) {
  for (int dir = LAY_PACK; dir <= LAY_UNPACK; dir++) {
    lay_plan *p = make_plan(format, shape, 4, LAY_DT_INT8, (lay_dir)dir);
    if (!p) return;
    int64_t got[LAY_MAX_AXES];
    const char *nm[LAY_MAX_AXES];
    int r = lay_plan_cpu_shape(p, got, LAY_MAX_AXES);
    CHECK(r == 4 && !memcmp(got, shape, 4 * sizeof *got),
          "%s: cpu shape rank %d", format, r);
    r = lay_plan_hw_shape(p, got, nm, LAY_MAX_AXES);
    CHECK(r == hrank && !memcmp(got, hw, (size_t)hrank * sizeof *got),
          "%s: hw shape rank %d [%lld,%lld,...]", format, r, (long long)got[0],
          (long long)got[1]);
    for (int i = 0; i < hrank && i < r; i++)
      CHECK(!strcmp(nm[i], names[i]), "%s: hw axis %d is '%s', want '%s'",
            format, i, nm[i], names[i]);
    /* a short array: the rank, and only cap entries written */
    got[2] = -7;
    r = lay_plan_hw_shape(p, got, NULL, 2);
    CHECK(r == hrank && got[0] == hw[0] && got[1] == hw[1] && got[2] == -7,
          "%s: hw shape with cap 2", format);
    got[1] = -7;
    r = lay_plan_cpu_shape(p, got, 1);
    CHECK(r == 4 && got[0] == shape[0] && got[1] == -7,
          "%s: cpu shape with cap 1", format);
    size_t s = dir == LAY_PACK ? src : dst, d = dir == LAY_PACK ? dst : src;
    CHECK(lay_plan_src_bytes(p) == s && lay_plan_dst_bytes(p) == d,
          "%s: bytes %zu -> %zu, want %zu -> %zu", format,
          lay_plan_src_bytes(p), lay_plan_dst_bytes(p), s, d);
    lay_plan_free(p);
  }
}

static void test_shapes(void) {
  const int64_t rgb[4] = {1, 3, 224, 224}, deep[4] = {1, 2048, 7, 7};
  const int64_t hw4[5] = {224, 1, 224, 1, 4}, hw8[5] = {7, 256, 7, 1, 8};
  const char *const n4[5] = {"h", "c/4", "w", "n", "c%4"};
  const char *const n8[5] = {"h", "c/8", "w", "n", "c%8"};
  shapes_of("amd.hcwnc4", rgb, hw4, n4, 5, 3 * 224 * 224, 4 * 224 * 224);
  shapes_of("amd.hcwnc8", deep, hw8, n8, 5, 2048 * 49, 2048 * 49);
  CHECK(lay_plan_cpu_shape(NULL, NULL, 0) == 0, "cpu shape of no plan");
  CHECK(lay_plan_hw_shape(NULL, NULL, NULL, 0) == 0, "hw shape of no plan");
}

/* ---- errors ------------------------------------------------------------- */

static void test_status(void) {
  const char *seen[LAY_E_INTERNAL + 1];
  for (int s = LAY_OK; s <= LAY_E_INTERNAL; s++) {
    const char *str = lay_status_str((lay_status)s);
    seen[s] = str;
    CHECK(str && str[0], "lay_status_str(%d) is empty", s);
    for (int t = 0; str && t < s; t++)
      CHECK(strcmp(seen[t], str), "lay_status_str(%d) == lay_status_str(%d)", s,
            t);
  }
  CHECK(!strcmp(lay_status_str(LAY_OK), "ok"), "LAY_OK");
  CHECK(!strcmp(lay_status_str(LAY_E_SYNTAX), "syntax error"), "LAY_E_SYNTAX");
  CHECK(!strcmp(lay_status_str(LAY_E_BUFFER), "buffer too small"),
        "LAY_E_BUFFER");
  CHECK(lay_status_str((lay_status)99) != NULL, "lay_status_str(99)");
}

static void test_error_format(void) {
  lay_error e;
  char buf[512];
  memset(&e, 0, sizeof e);
  e.code = LAY_E_NAME;
  snprintf(e.file, sizeof e.file, "t.lay");
  e.line = 2;
  e.col = 18;
  snprintf(e.message, sizeof e.message, "unknown name 'b'");
  snprintf(e.source_line, sizeof e.source_line, "layout x (a) -> [b]");
  const char *want = "t.lay:2:18: error: unknown name 'b'\n"
                     "    layout x (a) -> [b]\n"
                     "                     ^";
  size_t n = lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(buf, want) && n == strlen(want), "positioned error:\n%s", buf);
  /* a short buffer: truncated, NUL-terminated, the needed length */
  char small[11];
  n = lay_error_format(&e, small, sizeof small);
  CHECK(n == strlen(want) && !strncmp(small, want, 10) && !small[10],
        "truncated: '%s' %zu", small, n);
  /* without a position */
  e.line = e.col = 0;
  e.source_line[0] = 0;
  lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(buf, "t.lay: error: unknown name 'b'"), "file only: '%s'", buf);
  e.file[0] = 0;
  lay_error_format(&e, buf, sizeof buf);
  CHECK(!strcmp(buf, "error: unknown name 'b'"), "no file: '%s'", buf);
}

/* Load `src` as "<name>" and expect status st at line:col. */
static void load_error(const char *src, lay_status st, int line, int col,
                       const char *source_line, const char *msg_part) {
  lay_error err;
  lay_status got =
      lay_ctx_load_string(g_ctx, "user.lay", src, strlen(src), &err);
  char buf[2048];
  lay_error_format(&err, buf, sizeof buf);
  CHECK(got == st && err.code == st && !strcmp(err.file, "user.lay") &&
            err.line == line && err.col == col &&
            !strcmp(err.source_line, source_line) &&
            strstr(err.message, msg_part),
        "loading '%s': status %d, want %d at %d:%d:\n%s", src, got, st, line,
        col, buf);
}

static void test_load_errors(void) {
  load_error("namespace t\nlayout x (a) -> [b]\n", LAY_E_NAME, 2, 18,
             "layout x (a) -> [b]", "'b'");
  load_error("namespace t\nlayout y (a) -> [a\n", LAY_E_SYNTAX, 2, 19,
             "layout y (a) -> [a", "]");
  load_error("namespace amd\n\n  layout hcwnc4 (a) -> [a]\n", LAY_E_NAME, 3, 10,
             "  layout hcwnc4 (a) -> [a]", "hcwnc4");

  /* a file: its path in the error */
  const char *path = "test_api_bad.lay";
  FILE *fp = fopen(path, "w");
  CHECK(fp != NULL, "cannot write %s", path);
  if (fp) {
    fputs("namespace u\n# a comment\nlayout z (a, b) -> [b, a, c]\n", fp);
    fclose(fp);
    lay_error err;
    lay_status st = lay_ctx_load_file(g_ctx, path, &err);
    CHECK(st == LAY_E_NAME && strstr(err.file, path) && err.line == 3 &&
              err.col == 27,
          "file error: %d %s:%d:%d %s", st, err.file, err.line, err.col,
          err.message);
    remove(path);
  }
  lay_error err;
  CHECK(lay_ctx_load_file(g_ctx, "no/such/file.lay", &err) == LAY_E_IO,
        "missing file: %s", err.message);

  /* after the failures the context still works, and a good spec loads */
  const char *good = "namespace myv\nlayout t (a, b) -> [b, a]\n";
  CHECK(lay_ctx_load_string(g_ctx, "good.lay", good, strlen(good), &err) ==
            LAY_OK,
        "good spec: %s", err.message);
  const int64_t s[2] = {2, 3};
  lay_plan *p = make_plan("myv.t", s, 2, LAY_DT_INT8, LAY_PACK);
  if (p) {
    const uint8_t in[6] = {1, 2, 3, 4, 5, 6}, want[6] = {1, 4, 2, 5, 3, 6};
    uint8_t out[6];
    CHECK(lay_plan_run(p, in, 6, out, 6, 1, NULL) == LAY_OK &&
              !memcmp(out, want, 6),
          "myv.t pack");
  }
  lay_plan_free(p);
}

/* lay_plan_create with a bad request: the documented status, no plan. */
static void plan_error(const char *format, const int64_t *shape, int rank,
                       lay_dtype t, lay_status want) {
  lay_plan *p = (lay_plan *)&p; /* must be reset to NULL */
  lay_error err;
  lay_status st =
      lay_plan_create(g_ctx, format, shape, rank, t, LAY_PACK, &p, &err);
  CHECK(st == want && err.code == want && !p && err.message[0],
        "%s: status %d (%s), want %d", format, st, err.message, want);
  if (st == LAY_OK) lay_plan_free(p);
}

static void test_plan_errors(void) {
  const int64_t s4[4] = {1, 3, 2, 2}, zero[4] = {1, 0, 2, 2};
  const int64_t neg[4] = {1, -3, 2, 2};
  const int64_t huge[4] = {4000000000, 4000000000, 4000000000, 4};
  plan_error("nope.x", s4, 4, LAY_DT_INT8, LAY_E_NAME);
  plan_error("amd.hcwnc4", s4, 3, LAY_DT_INT8, LAY_E_SHAPE);
  plan_error("amd.hcwnc4", zero, 4, LAY_DT_INT8, LAY_E_SHAPE);
  plan_error("amd.hcwnc4", neg, 4, LAY_DT_INT8, LAY_E_SHAPE);
  plan_error("amd.hcwnc4", huge, 4, LAY_DT_INT8, LAY_E_OVERFLOW);
  plan_error("ti.tidl(pad_q=1)", s4, 4, LAY_DT_INT8, LAY_E_ARG);
  plan_error("ti.tidl(1,2,3,4,5,6,7)", s4, 4, LAY_DT_INT8, LAY_E_ARG);
  plan_error("kneron.1w16c8bhl", s4, 4, LAY_DT_INT8, LAY_E_TYPE);
}

/* ---- dtypes ------------------------------------------------------------- */

static void test_dtypes(void) {
  static const struct {
    const char *name;
    lay_dtype t;
  } ok[] = {
      {"fp32", LAY_DT_FP32},     {"float32", LAY_DT_FP32},
      {"single", LAY_DT_FP32},   {"f4", LAY_DT_FP32},
      {"<f4", LAY_DT_FP32},      {"f", LAY_DT_FP32},
      {"fp16", LAY_DT_FP16},     {"float16", LAY_DT_FP16},
      {"half", LAY_DT_FP16},     {"f2", LAY_DT_FP16},
      {"<f2", LAY_DT_FP16},      {"e", LAY_DT_FP16},
      {"bf16", LAY_DT_BF16},     {"bfloat16", LAY_DT_BF16},
      {"int8", LAY_DT_INT8},     {"i1", LAY_DT_INT8},
      {"|i1", LAY_DT_INT8},      {"byte", LAY_DT_INT8},
      {"b", LAY_DT_INT8},        {"uint8", LAY_DT_UINT8},
      {"u1", LAY_DT_UINT8},      {"|u1", LAY_DT_UINT8},
      {"ubyte", LAY_DT_UINT8},   {"B", LAY_DT_UINT8},
      {"int16", LAY_DT_INT16},   {"i2", LAY_DT_INT16},
      {"<i2", LAY_DT_INT16},     {"short", LAY_DT_INT16},
      {"h", LAY_DT_INT16},       {"uint16", LAY_DT_UINT16},
      {"u2", LAY_DT_UINT16},     {"<u2", LAY_DT_UINT16},
      {"ushort", LAY_DT_UINT16}, {"H", LAY_DT_UINT16},
      {"int32", LAY_DT_INT32},   {"i4", LAY_DT_INT32},
      {"<i4", LAY_DT_INT32},     {"intc", LAY_DT_INT32},
      {"i", LAY_DT_INT32},       {"uint32", LAY_DT_UINT32},
      {"u4", LAY_DT_UINT32},     {"<u4", LAY_DT_UINT32},
      {"uintc", LAY_DT_UINT32},  {"I", LAY_DT_UINT32},
      {"int64", LAY_DT_INT64},   {"i8", LAY_DT_INT64},
      {"<i8", LAY_DT_INT64},     {"longlong", LAY_DT_INT64},
      {"q", LAY_DT_INT64},       {"int4", LAY_DT_INT4},
      {"uint4", LAY_DT_UINT4},   {"fp8e4m3", LAY_DT_FP8E4M3},
      {"float8_e4m3fn", LAY_DT_FP8E4M3},
      {"fp8e5m2", LAY_DT_FP8E5M2},
      {"float8_e5m2", LAY_DT_FP8E5M2},
      {"uint64", LAY_DT_UINT64}, {"u8", LAY_DT_UINT64},
      {"<u8", LAY_DT_UINT64},    {"ulonglong", LAY_DT_UINT64},
      {"Q", LAY_DT_UINT64},
  };
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    CHECK(lay_dtype_parse(ok[i].name) == ok[i].t, "'%s' is %d, want %d",
          ok[i].name, lay_dtype_parse(ok[i].name), ok[i].t);
  /* numpy names of types lay does not have, big-endian codes, prefixes
  ** on names, and near misses */
  static const char *const bad[] = {
      "",      "float", "float64", "double", "f8",   ">f4",    "<float32",
      "int",   "int3",  "float8", "long",   "l",    "uint128", "u16",
      "FP32",  "Int8",  "<",       "|",      "<<f4", "f4 ",    " f4",
      "int8x", "uint",  "bool",    "?",      "none", "d"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    CHECK(lay_dtype_parse(bad[i]) == LAY_DT_NONE, "'%s' is accepted as %d",
          bad[i], lay_dtype_parse(bad[i]));
  CHECK(lay_dtype_parse(NULL) == LAY_DT_NONE, "NULL");

  /* canonical names and sizes */
  static const char *const canon[] = {"none",  "fp32",   "fp16",
                                      "bf16",  "int8",   "uint8",
                                      "int16", "uint16", "int32",
                                      "uint32", "int64", "int4",
                                      "uint4", "fp8e4m3", "fp8e5m2",
                                      "uint64"};
  static const size_t size[] = {0, 4, 2, 2, 1, 1, 2, 2, 4, 4, 8, 1, 1, 1, 1, 8};
  static const int bits[] = {0,  32, 16, 16, 8, 8, 16, 16,
                             32, 32, 64, 4,  4, 8, 8,  64};
  for (int t = LAY_DT_NONE; t <= LAY_DT_UINT64; t++) {
    CHECK(lay_dtype_bits((lay_dtype)t) == bits[t], "bits of %d", t);
    CHECK(!strcmp(lay_dtype_name((lay_dtype)t), canon[t]), "name of %d is '%s'",
          t, lay_dtype_name((lay_dtype)t));
    CHECK(lay_dtype_size((lay_dtype)t) == size[t], "size of %d", t);
    if (t)
      CHECK(lay_dtype_parse(canon[t]) == (lay_dtype)t, "round trip of '%s'",
            canon[t]);
  }

  /* a numpy spelling in a spec's type and in a plan */
  const char *spec = "namespace np\nlayout f (a) : float32 -> [a]\n"
                     "layout g (a) : f4 -> [a]\n";
  lay_error err;
  lay_status st =
      lay_ctx_load_string(g_ctx, "np.lay", spec, strlen(spec), &err);
  CHECK(st == LAY_OK, "spec with numpy type names: %s", err.message);
  const int64_t s[1] = {5};
  lay_plan *p = make_plan("np.f", s, 1, lay_dtype_parse("<f4"), LAY_PACK);
  if (p)
    CHECK(lay_plan_src_dtype(p) == LAY_DT_FP32 && lay_plan_dst_bytes(p) == 20,
          "np.f is fp32");
  lay_plan_free(p);
}

int main(int argc, char **argv) {
  const char *group = argc > 1 ? argv[1] : "";
  lay_error err;
  if (lay_ctx_new(&g_ctx, &err)) {
    fprintf(stderr, "test_api: %s\n", err.message);
    return 1;
  }
  int known = 1;
  if (!strcmp(group, "threads"))
    test_threads();
  else if (!strcmp(group, "buffers"))
    test_buffers();
  else if (!strcmp(group, "version"))
    test_version();
  else if (!strcmp(group, "shapes"))
    test_shapes();
  else if (!strcmp(group, "errors")) {
    test_status();
    test_error_format();
    test_load_errors();
    test_plan_errors();
  } else if (!strcmp(group, "dtypes"))
    test_dtypes();
  else
    known = 0;
  lay_ctx_free(g_ctx);
  if (!known) {
    fprintf(stderr,
            "usage: test_api threads|buffers|version|shapes|errors|dtypes\n");
    return 2;
  }
  printf("test_api %s: %ld checks, %ld failures\n", group, g_checks,
         g_failures);
  return g_failures ? 1 : 0;
}
