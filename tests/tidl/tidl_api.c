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
  lay_ctx_free(ctx);
  if (!fails) printf("tidl_api: ok\n");
  return fails != 0;
}
