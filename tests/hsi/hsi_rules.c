/*
** hsi_rules.c: the rules of AMD reports that issue 17 and 21 added, through
** lay.h only:
** 1. a bad field or an unknown format makes its entry unusable (a fatal
**    issue naming its JSON path), never the report; the other entries run;
** 2. numbers written as strings and dtype names in upper case (VART's
**    DataType names) are read, each with a note;
** 3. integers are exact to 64 bits (2^53 + 1 stays odd, 2^62 is read);
**    2^63 is refused with its JSON path;
** 4. the 4096-tensor limit counts inputs and outputs together.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static lay_hsi *parse(const char *json, lay_error *err) {
  lay_hsi *h = NULL;
  lay_status st = lay_hsi_parse(json, strlen(json), "r.json", &h, err);
  return st ? NULL : h;
}

/* The first issue of entry (o, i) whose text contains `part`. */
static const lay_hsi_issue *issue_with(const lay_hsi *h, int o, int i,
                                       const char *part) {
  for (int k = 0; k < lay_hsi_issue_count(h); k++) {
    const lay_hsi_issue *is = lay_hsi_issue_get(h, k);
    if (is->output == o && is->index == i && strstr(is->text, part))
      return is;
  }
  return NULL;
}

#define GOOD                                                            \
  "{\"cpu_shape\": [1, 2, 2, 3], \"cpu_format\": \"NCHW\", "            \
  "\"cpu_dtype\": \"uint8\", \"hw_shape\": [1, 2, 3, 2], "              \
  "\"hw_format\": \"NHWC\", \"hw_dtype\": \"uint8\"}"

/* 1. */
static void test_bad_entry(void) {
  const char *json =
      "{\"inputs\": [{\"cpu_shape\": [1, 3], \"cpu_format\": \"AB\", "
      "\"cpu_dtype\": \"uint8\", \"hw_shape\": [1, 3], \"hw_format\": "
      "\"XYZ\", \"hw_dtype\": \"uint8\"}, " GOOD ", {\"cpu_shape\": \"abc\"}],"
      " \"outputs\": []}";
  lay_error err;
  lay_hsi *h = parse(json, &err);
  CHECK(h, "a bad entry failed the report: %s", err.message);
  if (!h) return;
  const lay_hsi_issue *is = lay_hsi_entry_issue(h, 0, 0);
  CHECK(is && !strncmp(is->text, "inputs[0].hw_format: unknown format 'XYZ'",
                       41), "inputs[0]: %s", is ? is->text : "no issue");
  is = lay_hsi_entry_issue(h, 0, 2);
  CHECK(is && !strcmp(is->text, "inputs[2].cpu_shape: must be an array of "
                                "integers, not a string"),
        "inputs[2]: %s", is ? is->text : "no issue");
  CHECK(!lay_hsi_entry_issue(h, 0, 1), "the good entry has an issue");
  /* The good entry runs: NCHW [1,2,2,3] -> NHWC. */
  lay_ctx *ctx = NULL;
  lay_plan *p = NULL;
  int64_t shape[4] = {1, 2, 2, 3};
  unsigned char in[12], out[12], want[12];
  for (int i = 0; i < 12; i++) in[i] = (unsigned char)(i + 1);
  for (int c = 0; c < 2; c++)
    for (int hh = 0; hh < 2; hh++)
      for (int w = 0; w < 3; w++) want[(hh * 3 + w) * 2 + c] = in[(c * 2 + hh) * 3 + w];
  if (lay_ctx_new(&ctx, &err) || lay_hsi_load(h, ctx, "hsi", &err) ||
      lay_plan_create(ctx, "hsi.input1", shape, 4, LAY_DT_UINT8, LAY_PACK, &p,
                      &err) ||
      lay_plan_run(p, in, 12, out, 12, 1, &err))
    CHECK(0, "the good entry: %s", err.message);
  else CHECK(!memcmp(out, want, 12), "the good entry's bytes");
  lay_plan_free(p);
  lay_ctx_free(ctx);
  lay_hsi_free(h);
}

/* 2. */
static void test_strings(void) {
  const char *json =
      "{\"inputs\": [{\"cpu_shape\": [\"1\", \"3\", 2, 2], \"cpu_format\": "
      "\"NCHW\", \"cpu_dtype\": \"FLOAT32\", \"hw_shape\": [2, 1, 2, 1, 4], "
      "\"hw_format\": \"HCWNC4\", \"hw_dtype\": \"INT8\", \"scale_factor\": "
      "\"0.5\", \"zero_point\": \"-3\"}], \"outputs\": []}";
  lay_error err;
  lay_hsi *h = parse(json, &err);
  CHECK(h, "strings: %s", err.message);
  if (!h) return;
  lay_hsi_info inf;
  lay_hsi_info_get(h, 0, 0, &inf);
  CHECK(inf.rank == 4 && inf.cpu_shape[0] == 1 && inf.cpu_shape[1] == 3,
        "cpu_shape from strings");
  CHECK(inf.cpu_dtype == LAY_DT_FP32 && inf.hw_dtype == LAY_DT_INT8,
        "upper-case dtypes");
  CHECK(!lay_hsi_entry_issue(h, 0, 0), "an issue: %s",
        lay_hsi_entry_issue(h, 0, 0)->text);
  CHECK(issue_with(h, 0, 0, "cpu_shape[0]: the number \"1\" is written as a "
                            "string; read as a number"), "note cpu_shape[0]");
  CHECK(issue_with(h, 0, 0, "scale_factor: the number \"0.5\" is written"),
        "note scale_factor");
  CHECK(issue_with(h, 0, 0, "cpu_dtype: dtype 'FLOAT32' read as fp32 (case "
                            "ignored)"), "note cpu_dtype");
  CHECK(inf.spec && strstr(inf.spec, "quantize(scale = 0.5, zero_point = -3, "
                                     "to = int8, arith = f32_div)"),
        "the value rule: %s", inf.spec ? inf.spec : "(none)");
  lay_hsi_free(h);
}

/* 3. */
static void test_exact_ints(void) {
  const char *json =
      "{\"inputs\": [{\"cpu_shape\": [4611686018427387904], \"cpu_format\": "
      "\"AB\", \"cpu_dtype\": \"uint8\", \"hw_shape\": [9007199254740993], "
      "\"hw_dtype\": \"uint8\", \"rt_transformations\": []}], "
      "\"outputs\": []}";
  lay_error err;
  lay_hsi *h = parse(json, &err);
  CHECK(h, "2^62: %s", err.message);
  if (h) {
    lay_hsi_info inf;
    lay_hsi_info_get(h, 0, 0, &inf);
    CHECK(inf.cpu_shape[0] == (int64_t)1 << 62, "2^62 read as %lld",
          (long long)inf.cpu_shape[0]);
    CHECK(inf.hw_shape[0] == ((int64_t)1 << 53) + 1, "2^53+1 read as %lld",
          (long long)inf.hw_shape[0]);
    lay_hsi_free(h);
  }
  json = "{\"inputs\": [{\"cpu_shape\": [9223372036854775808]}], "
         "\"outputs\": []}";
  h = parse(json, &err);
  const lay_hsi_issue *is = h ? lay_hsi_entry_issue(h, 0, 0) : NULL;
  CHECK(is && !strcmp(is->text, "inputs[0].cpu_shape[0]: must be an integer "
                                "in the 64-bit range, not "
                                "9223372036854775808"),
        "2^63: %s", is ? is->text : err.message);
  lay_hsi_free(h);
}

/* 4. */
static char *many(int ni, int no) {
  char *s = malloc((size_t)(ni + no) * 3 + 64), *q = s;
  q += sprintf(q, "{\"inputs\": [");
  for (int i = 0; i < ni; i++) q += sprintf(q, "%s{}", i ? "," : "");
  q += sprintf(q, "], \"outputs\": [");
  for (int i = 0; i < no; i++) q += sprintf(q, "%s{}", i ? "," : "");
  sprintf(q, "]}");
  return s;
}

static void test_limit(void) {
  lay_error err;
  char *json = many(LAY_HSI_MAX_TENSORS / 2, LAY_HSI_MAX_TENSORS / 2);
  lay_hsi *h = parse(json, &err);
  CHECK(h, "2048 + 2048 tensors: %s", err.message);
  lay_hsi_free(h);
  free(json);
  json = many(LAY_HSI_MAX_TENSORS, 1);
  h = parse(json, &err);
  CHECK(!h && err.code == LAY_E_JSON &&
            !strcmp(err.message, "outputs: 1 entries, with the 4096 inputs "
                                 "more than 4096 tensors"),
        "4096 + 1 tensors: %s", h ? "accepted" : err.message);
  lay_hsi_free(h);
  free(json);
}

int main(void) {
  test_bad_entry();
  test_strings();
  test_exact_ints();
  test_limit();
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
