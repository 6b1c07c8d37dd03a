/*
** tidl_api.c: the lay_tidl_* functions of lay.h on gen_io's files:
** lay_ctx_load_tidl then an ordinary plan gives TIDL-RT's bytes; parsing
** from memory; find by index and name; info; issues; errors with their
** exact text; lay_tidl_free(NULL).
**   tidl_api WORKDIR
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static int fails;
#define CHECK(c, ...)                                        \
  do {                                                       \
    if (!(c)) {                                              \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
      fprintf(stderr, __VA_ARGS__);                          \
      fprintf(stderr, "\n");                                 \
      fails++;                                               \
    }                                                        \
  } while (0)

static unsigned char *slurp(const char *dir, const char *name, size_t *n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  unsigned char *b = malloc(1 << 20);
  *n = b ? fread(b, 1, 1 << 20, f) : 0;
  fclose(f);
  return b;
}

/* Mutated files: gen_io's good file of every version with one to three
** of its nonzero words (the fields in use) replaced by small, zero,
** negative or random values. The parser never crashes, and every tensor
** it accepts compiles, plans, and has the buffer size it reports. */
static uint32_t g_seed = 12345;
static uint32_t rnd(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return g_seed >> 8;
}

static void mutate_one(const unsigned char *good, size_t n, const size_t *at,
                       int nat, int *accepted, int *rejected) {
  unsigned char *b = malloc(n);
  if (!b) return;
  memcpy(b, good, n);
  for (int m = 1 + (int)(rnd() % 3); m > 0; m--) {
    int32_t x;
    switch (rnd() % 4) {
    case 0: x = (int32_t)(rnd() % 9) - 2; break;
    case 1: x = (int32_t)(rnd() % 100); break;
    case 2: x = 0; break;
    default: x = (int32_t)(rnd() << 8 ^ rnd()); break;
    }
    memcpy(b + at[rnd() % (uint32_t)nat], &x, 4);
  }
  lay_tidl_io *t = NULL;
  lay_error err;
  lay_ctx *ctx = NULL;
  if (lay_tidl_parse(b, n, "m.bin", &t, &err) || lay_ctx_new(&ctx, &err)) {
    (*rejected)++;
    lay_tidl_free(t);
    free(b);
    return;
  }
  CHECK(!lay_tidl_load(t, ctx, "r", &err), "mutated spec: %s", err.message);
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < lay_tidl_count(t, o); i++) {
      lay_tidl_info inf;
      lay_tidl_info_get(t, o, i, &inf);
      if (!inf.spec) {
        (*rejected)++;
        continue;
      }
      (*accepted)++;
      char ref[64];
      snprintf(ref, sizeof ref, "r.%s", inf.def);
      lay_plan *p = NULL;
      lay_status st = lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank,
                                      inf.cpu_dtype, LAY_PACK, &p, &err);
      /* a huge tensor may exceed a documented limit, nothing else */
      CHECK(st == LAY_OK || st == LAY_E_LIMIT || st == LAY_E_OVERFLOW,
            "mutated tensor %s does not plan: %s\n%s", ref, err.message,
            inf.spec);
      if (p)
        CHECK(lay_plan_dst_bytes(p) == inf.buffer_bytes,
              "%s: buffer %zu, info %llu\n%s", ref, lay_plan_dst_bytes(p),
              (unsigned long long)inf.buffer_bytes, inf.spec);
      lay_plan_free(p);
    }
  lay_ctx_free(ctx);
  lay_tidl_free(t);
  free(b);
}

static void mutated_files(const char *dir) {
  static const char *const files[] = {"v0806.bin", "v09_1.bin", "v09_2.bin",
                                      "v09_4.bin", "v10.bin"};
  int accepted = 0, rejected = 0;
  for (int v = 0; v < 5; v++) {
    size_t n;
    unsigned char *good = slurp(dir, files[v], &n);
    size_t *at = good ? malloc(sizeof *at * (n / 4)) : NULL;
    int nat = 0;
    for (size_t k = 0; at && k + 4 <= n; k += 4)
      if (good[k] | good[k + 1] | good[k + 2] | good[k + 3]) at[nat++] = k;
    for (int it = 0; nat && it < 200; it++)
      mutate_one(good, n, at, nat, &accepted, &rejected);
    free(at);
    free(good);
  }
  CHECK(accepted > 100 && rejected > 100, "mutated: %d accepted, %d rejected",
        accepted, rejected);
}

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  const char *dir = argv[1];
  char path[1024];
  lay_error err;
  lay_ctx *ctx = NULL;
  CHECK(!lay_ctx_new(&ctx, &err), "ctx");
  snprintf(path, sizeof path, "%s/v09_2.bin", dir);
  CHECK(!lay_ctx_load_tidl(ctx, path, "m", &err), "load: %s", err.message);

  /* m.input0 is an ordinary layout: TIDL-RT's bytes. */
  size_t nx, ne;
  unsigned char *x = slurp(dir, "in0.f32", &nx),
                *want = slurp(dir, "in0_v09_2.expect", &ne);
  CHECK(x && want && nx == 240 && ne == 147, "reference files");
  int64_t shape[4] = {1, 3, 4, 5};
  lay_plan *p = NULL;
  CHECK(!lay_plan_create(ctx, "m.input0", shape, 4, LAY_DT_FP32, LAY_PACK,
                         &p, &err),
        "plan: %s", err.message);
  if (p && x && want) {
    unsigned char got[147];
    CHECK(lay_plan_dst_bytes(p) == 147, "buffer %zu", lay_plan_dst_bytes(p));
    CHECK(!lay_plan_run(p, x, nx, got, sizeof got, 1, &err), "run");
    CHECK(!memcmp(got, want, sizeof got), "bytes differ from TIDL-RT");
  }
  lay_plan_free(p);
  free(x);
  free(want);

  /* Parsing from memory; find; info; version. */
  size_t n;
  unsigned char *buf = slurp(dir, "v10.bin", &n);
  lay_tidl_io *t = NULL;
  CHECK(buf && !lay_tidl_parse(buf, n, "v10.bin", &t, &err), "parse");
  CHECK(!strcmp(lay_tidl_version(t), "SDK 10"), "version %s",
        lay_tidl_version(t));
  CHECK(lay_tidl_count(t, 0) == 2 && lay_tidl_count(t, 1) == 2, "counts");
  CHECK(lay_tidl_find(t, 0, "img") == 1, "find by name");
  CHECK(lay_tidl_find(t, 1, "1") == 1, "find by index");
  CHECK(lay_tidl_find(t, 1, "2") == -1, "index out of range");
  CHECK(lay_tidl_find(t, 0, "logits") == -1, "an output is not an input");
  lay_tidl_info inf;
  CHECK(!lay_tidl_info_get(t, 0, 1, &inf), "info");
  CHECK(inf.nhwc && inf.cpu_shape[1] == 2 && inf.cpu_shape[3] == 3 &&
            inf.cpu_dtype == LAY_DT_UINT8 && inf.buffer_bytes == 18,
        "info of img");
  CHECK(!lay_tidl_info_get(t, 1, 0, &inf) && inf.hw_dtype == LAY_DT_INT16 &&
            inf.cpu_dtype == LAY_DT_FP32 && inf.buffer_bytes == 96 &&
            inf.spec && strstr(inf.spec, "layout output0 "),
        "info of logits");
  CHECK(lay_tidl_info_get(t, 1, 2, &inf) == -1, "info out of range");
  CHECK(lay_tidl_issue_count(t) == 1 && !lay_tidl_issue_get(t, 0)->fatal,
        "one note");
  CHECK(lay_tidl_tensor_issue(t, 1, 0) == NULL, "usable");
  lay_tidl_free(t);

  /* A tensor with a bad field: usable siblings, the issue's text. */
  free(buf);
  buf = slurp(dir, "bad_pitch.bin", &n);
  CHECK(buf && !lay_tidl_parse(buf, n, "b.bin", &t, &err), "parse bad");
  const lay_tidl_issue *is = lay_tidl_tensor_issue(t, 0, 0);
  CHECK(is && !strcmp(is->text, "inputs[0] 'input.1': inChannelPitch: 34 is "
                                "less than (inPadT + inHeight) * line pitch "
                                "= (1 + 4) * 7 = 35"),
        "issue: %s", is ? is->text : "none");
  CHECK(!lay_tidl_info_get(t, 0, 0, &inf) && !inf.spec, "no spec");
  CHECK(!lay_tidl_tensor_issue(t, 0, 1), "sibling usable");
  lay_tidl_free(t);

  /* Wrong sizes: the whole file. */
  t = NULL;
  CHECK(lay_tidl_parse(buf, 1000, "s.bin", &t, &err) == LAY_E_ARG && !t,
        "size");
  CHECK(!strncmp(err.message, "1000 bytes is not the size of an "
                              "sTIDL_IOBufDesc_t", 50) &&
            !strcmp(err.file, "s.bin"),
        "size message: %s", err.message);
  CHECK(lay_tidl_parse(NULL, 0, "e.bin", &t, &err) == LAY_E_ARG, "empty");
  CHECK(lay_ctx_load_tidl(ctx, "/nonexistent/io_1.bin", "z", &err) ==
            LAY_E_IO,
        "missing file");
  /* Loading twice into one namespace clashes. */
  CHECK(lay_ctx_load_tidl(ctx, path, "m", &err) == LAY_E_NAME, "clash: %d",
        err.code);
  lay_tidl_free(NULL);
  free(buf);
  mutated_files(dir);
  lay_ctx_free(ctx);
  if (!fails) printf("tidl_api: ok\n");
  return fails != 0;
}
