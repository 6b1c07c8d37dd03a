/*
** kneron_unit.c: lay.h's Kneron descriptor functions as an application
** uses them: load a kp.TensorDescriptor, plan its references, read its
** facts; errors with their codes and positions. The expected offsets are
** the SDK's formula from Kneron's "Convert ONNX & NPU Data on the KL730
** Platform" (inner product with stride_npu, plus (c >> 4) * (G - 16)).
**   kneron_unit SRCDIR
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static int g_fail, g_checks;

#define CHECK(cond, ...)                                \
  do {                                                  \
    g_checks++;                                         \
    if (!(cond)) {                                      \
      g_fail++;                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                     \
      fputc('\n', stderr);                              \
    }                                                   \
  } while (0)

static uint64_t where(lay_ctx *ctx, const char *ref, const int64_t *shape,
                      const int64_t *x) {
  lay_plan *p = NULL;
  lay_error e;
  uint64_t off = (uint64_t)-1;
  if (lay_plan_create(ctx, ref, shape, 4, LAY_DT_NONE, LAY_PACK, &p, &e) ||
      lay_plan_where(p, x, 4, &off, &e))
    fprintf(stderr, "%s: %s\n", ref, e.message);
  lay_plan_free(p);
  return off;
}

static void v2_group(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/good/v2_1w16c8b_n2.json", dir);
  lay_kneron *k = NULL;
  lay_error e;
  CHECK(lay_kneron_read(path, &k, &e) == LAY_OK, "read: %s", e.message);
  if (!k) return;
  lay_kneron_info inf;
  lay_kneron_info_get(k, &inf);
  CHECK(!strcmp(inf.name, "v2_1w16c8b_n2"), "name %s", inf.name);
  CHECK(!strcmp(inf.data_layout, "1W16C8B"), "layout %s", inf.data_layout);
  CHECK(inf.shape_version == 2 && inf.rank == 4 && inf.shape[0] == 2 &&
            inf.shape[1] == 17 && inf.shape[2] == 2 && inf.shape[3] == 3,
        "shape");
  CHECK(inf.dtype == LAY_DT_FP32 && inf.fixed_dtype == LAY_DT_INT8, "dtypes");
  CHECK(inf.npu_bytes == 384, "npu_bytes %llu",
        (unsigned long long)inf.npu_bytes);
  CHECK(inf.nscales == 1, "nscales %d", inf.nscales);
  CHECK(!strcmp(inf.ref, "tensor(192,96,48,16,1)"), "ref %s", inf.ref);
  CHECK(!strcmp(inf.fixed_ref, "tensor_fixed(192,96,48,16,1)"), "fixed_ref %s",
        inf.fixed_ref);
  lay_ctx *ctx = NULL;
  lay_ctx_new(&ctx, &e);
  CHECK(lay_kneron_load(k, ctx, "kp", &e) == LAY_OK, "load: %s", e.message);
  /* the SDK: n * 96 + c + h * 48 + w * 16 + (c >> 4) * (192 - 16) */
  char ref[256];
  snprintf(ref, sizeof ref, "kp.%s", inf.fixed_ref);
  static const int64_t xs[][4] = {{1, 0, 0, 0}, {0, 16, 0, 0}, {0, 16, 1, 2},
                                  {1, 0, 1, 2}, {1, 16, 1, 2}};
  for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
    const int64_t *x = xs[i];
    uint64_t want = (uint64_t)(x[0] * 96 + x[1] + x[2] * 48 + x[3] * 16 +
                               (x[1] >> 4) * 176);
    uint64_t got = where(ctx, ref, inf.shape, x);
    CHECK(got == want, "where (%lld,%lld,%lld,%lld) = %llu, want %llu",
          (long long)x[0], (long long)x[1], (long long)x[2], (long long)x[3],
          (unsigned long long)got, (unsigned long long)want);
  }
  /* the same names again: a clash */
  CHECK(lay_ctx_load_kneron(ctx, path, "kp", &e) == LAY_E_NAME,
        "second load: %d %s", e.code, e.message);
  CHECK(lay_ctx_load_kneron(ctx, path, "kp2", &e) == LAY_OK, "kp2: %s",
        e.message);
  char *spec = lay_kneron_spec(k, "kp");
  CHECK(spec && strstr(spec, "namespace kp\n") &&
            strstr(spec, "fixed(scale = 0.5, radix = 3, to = int8, arith = f32_div)"),
        "spec: %s", spec ? spec : "(null)");
  lay_free(spec);
  lay_ctx_free(ctx);
  lay_kneron_free(k);
}

/* Version 1 on KL520: the stdlib's H, C, W output. */
static void v1_kl520(const char *dir) {
  char path[1024];
  snprintf(path, sizeof path, "%s/good/v1_kl520_16w1c8b.json", dir);
  lay_ctx *ctx = NULL;
  lay_error e;
  lay_ctx_new(&ctx, &e);
  CHECK(lay_ctx_load_kneron(ctx, path, "k5", &e) == LAY_OK, "load: %s",
        e.message);
  int64_t shape[4] = {1, 3, 2, 20}, x[4] = {0, 1, 1, 5};
  /* (h * C + c) * ceil(W, 16) + w */
  CHECK(where(ctx, "k5.tensor_fixed", shape, x) == (1 * 3 + 1) * 32 + 5,
        "KL520 H, C, W");
  CHECK(where(ctx, "k5.tensor", shape, x) == (1 * 3 + 1) * 32 + 5,
        "KL520 H, C, W (fp32)");
  lay_ctx_free(ctx);
}

static void errors(void) {
  lay_kneron *k = (lay_kneron *)1;
  lay_error e;
  const char *bad = "{\n  \"index\": 0,\n  \"name\": [1,]\n}\n";
  CHECK(lay_kneron_parse(bad, strlen(bad), "t.json", &k, &e) == LAY_E_JSON,
        "syntax: %d", e.code);
  CHECK(k == NULL, "out set to NULL");
  CHECK(e.line == 3 && e.col == 14, "position %d:%d", e.line, e.col);
  CHECK(!strcmp(e.file, "t.json"), "file %s", e.file);
  CHECK(!strcmp(e.message, "malformed JSON"), "message %s", e.message);
  const char *noshape =
      "{\"data_layout\": 2, \"tensor_shape_info\": {\"version\": 2, \"data\": "
      "{\"stride_onnx\": [1], \"stride_npu\": [1]}}}";
  CHECK(lay_kneron_parse(noshape, strlen(noshape), "t.json", &k, &e) ==
            LAY_E_JSON,
        "no shape");
  CHECK(!strcmp(e.message,
                "tensor_shape_info.data: missing required field 'shape'"),
        "message %s", e.message);
  CHECK(lay_kneron_parse("{}", LAY_KNERON_MAX_JSON + 1, "big.json", &k, &e) ==
            LAY_E_LIMIT,
        "limit");
  CHECK(lay_kneron_read("/nonexistent/x.json", &k, &e) == LAY_E_IO, "io");
  lay_kneron_free(NULL);
  lay_kneron_info inf;
  lay_kneron_info_get(NULL, &inf);
  CHECK(inf.ref == NULL && inf.rank == 0, "info of NULL");
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  v2_group(dir);
  v1_kl520(dir);
  errors();
  printf("kneron_unit: %d checks, %d failures\n", g_checks, g_fail);
  return g_fail != 0;
}
