/*
** limits.c: every documented limit, exceeded, gives its own clear error
** (the right lay_status and a message naming the limit), never a crash, a
** hang or a huge allocation:
**   rank above LAY_MAX_RANK (spec and plan), axes above LAY_MAX_AXES,
**   sizes and byte sizes that overflow 64 bits (shape, pad, ceil, stride,
**   align, where), the front end's gather-table cap and the planner's
**   LI_MAX_TABLE_BYTES, the planner's LI_MAX_BOXES, nesting beyond LG_MAX_DEPTH, a spec string and a
**   spec file over LG_MAX_SOURCE (and exactly at it), imports nested beyond
**   LG_MAX_IMPORTS, an import cycle, alias chains and cycles, and parameter
**   defaults that recurse.
**   limits WORKDIR      (a scratch folder for the file cases)
** Already covered elsewhere and not repeated: the exact positioned texts of
** deep nesting and import cycles (tests/lang/errors/syn_deep_*.lay,
** syn_import_cycle.lay, syn_import_self.lay), LG_MAX_SOURCE for strings
** (tests/lang/robust.c), and the CLI's --shape limits (tests/cli/pack.sh).
*/
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang.h"
#include "lay.h"
#include "plan.h"

static int failures;

#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      failures++;                                              \
      fprintf(stderr, "%s:%d: FAILED: ", __FILE__, __LINE__);  \
      fprintf(stderr, __VA_ARGS__);                            \
      fputc('\n', stderr);                                     \
    }                                                          \
  } while (0)

static lay_ctx *ctx;

/* Load src; expect status want and a message containing msg (and, when
** line > 0, that line). */
static void load(const char *what, const char *src, size_t len,
                 lay_status want, const char *msg, int line) {
  lay_error e;
  memset(&e, 0, sizeof e);
  lay_status st = lay_ctx_load_string(ctx, "<limits>", src, len, &e);
  CHECK(st == want && (!msg || strstr(e.message, msg)) &&
            (line <= 0 || e.line == line),
        "%s: status %d (%s) at %d:%d '%s'; want %d (%s) '%s' at line %d",
        what, (int)st, lay_status_str(st), e.line, e.col, e.message, (int)want,
        lay_status_str(want), msg ? msg : "", line);
}

static void loads(const char *what, const char *src, lay_status want,
                  const char *msg, int line) {
  load(what, src, strlen(src), want, msg, line);
}

static void plan(const char *what, const char *fmt, const int64_t *shape,
                 int rank, lay_dtype t, lay_status want, const char *msg) {
  lay_error e;
  memset(&e, 0, sizeof e);
  lay_plan *p = NULL;
  lay_status st = lay_plan_create(ctx, fmt, shape, rank, t, LAY_PACK, &p, &e);
  CHECK(st == want && (!msg || strstr(e.message, msg)) && (st != LAY_OK) == !p,
        "%s: status %d (%s) '%s'; want %d (%s) '%s'", what, (int)st,
        lay_status_str(st), e.message, (int)want, lay_status_str(want),
        msg ? msg : "");
  lay_plan_free(p);
}

/* ---- rank and axes ----------------------------------------------------------- */
static void t_rank(void) {
  loads("rank 9 spec", "namespace r\nlayout r9 (a,b,c,d,e,f,g,h,i) -> [a,b,c,d,e,f,g,h,i]",
        LAY_E_LIMIT, "more than 8 dimensions", 2);
  loads("rank 8 spec", "namespace r8\nlayout r8 (a,b,c,d,e,f,g,h) -> [h,g,f,e,d,c,b,a]",
        LAY_OK, NULL, 0);
  loads("transform rank 9", "namespace rt\ntransform t (x: int8[1,1,1,1,1,1,1,1,1]) = cast(to = int16)",
        LAY_E_LIMIT, "8", 2);
  int64_t s9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  plan("rank 9 plan", "core.flat1", s9, 9, LAY_DT_INT8, LAY_E_SHAPE,
       "1 to 8 dimensions, not 9");
  plan("rank 0 plan", "core.flat1", s9, 0, LAY_DT_INT8, LAY_E_SHAPE,
       "1 to 8 dimensions, not 0");
  plan("rank 8 plan", "r8.r8", s9, 8, LAY_DT_INT8, LAY_OK, NULL);
  /* 33 axes: 32 binary digits of one dimension and the rest on top */
  char s[2048];
  size_t n = (size_t)snprintf(s, sizeof s, "namespace ax\nlayout a33 (a) -> [a/4294967296");
  for (int i = 31; i >= 1; i--)
    n += (size_t)snprintf(s + n, sizeof s - n, ", a/%lld%%2", 1LL << i);
  n += (size_t)snprintf(s + n, sizeof s - n, ", a%%2]");
  loads("33 axes", s, LAY_E_LIMIT, "more than 32 axes", 2);
  /* exactly 32 is fine */
  n = (size_t)snprintf(s, sizeof s, "namespace ax32\nlayout a32 (a) -> [a/2147483648");
  for (int i = 30; i >= 1; i--)
    n += (size_t)snprintf(s + n, sizeof s - n, ", a/%lld%%2", 1LL << i);
  snprintf(s + n, sizeof s - n, ", a%%2]");
  loads("32 axes", s, LAY_OK, NULL, 0);
  int64_t s1[1] = {5};
  plan("32 axes plan", "ax32.a32", s1, 1, LAY_DT_INT8, LAY_OK, NULL);
}

/* ---- 64-bit overflow --------------------------------------------------------- */
static void t_overflow(void) {
  int64_t big2[2] = {(int64_t)1 << 40, (int64_t)1 << 40};
  plan("2^80 elements", "core.ab", big2, 2, LAY_DT_INT32, LAY_E_OVERFLOW,
       "overflows 64 bits");
  int64_t big3[2] = {(int64_t)1 << 62, 3};
  plan("3 * 2^62 elements", "core.ab", big3, 2, LAY_DT_INT8, LAY_E_OVERFLOW,
       "overflows 64 bits");
  int64_t big4[1] = {(int64_t)1 << 62};
  plan("2^62 fp32 = 2^64 bytes", "core.flat1", big4, 1, LAY_DT_FP32,
       LAY_E_OVERFLOW, "overflows 64 bits");
  int64_t max1[1] = {INT64_MAX};
  plan("INT64_MAX int8", "core.flat1", max1, 1, LAY_DT_INT8, LAY_OK, NULL);
  int64_t neg[2] = {-1, 3};
  plan("negative size", "core.ab", neg, 2, LAY_DT_INT8, LAY_E_SHAPE, NULL);
  loads("overflowing specs",
        "namespace ov\n"
        "layout padmax (a) -> [a + 9223372036854775807]\n"
        "layout ceilbig (a) -> [ceil(a, 4611686018427387904)]\n"
        "layout stride (a, b) -> [a @ 4611686018427387904, b]\n"
        "layout aligned (a, b) -> [a align 4611686018427387904, b]\n"
        "layout digit (a) -> [a/4611686018427387904, a%4611686018427387904]\n",
        LAY_OK, NULL, 0);
  int64_t s1000[1] = {1000}, s3[1] = {3}, s42[2] = {4, 2}, s53[2] = {5, 3};
  plan("pad to INT64_MAX + 1000", "ov.padmax", s1000, 1, LAY_DT_INT8,
       LAY_E_OVERFLOW, "overflows 64 bits");
  plan("ceil to 2^62 of int32", "ov.ceilbig", s3, 1, LAY_DT_INT32,
       LAY_E_OVERFLOW, "overflows 64 bits");
  plan("stride 2^62 x 4", "ov.stride", s42, 2, LAY_DT_INT8, LAY_E_OVERFLOW,
       "overflows 64 bits");
  plan("align 2^62 x 5", "ov.aligned", s53, 2, LAY_DT_INT8, LAY_E_OVERFLOW,
       "overflows 64 bits");
  plan("digit 2^62 of int32", "ov.digit", s3, 1, LAY_DT_INT32, LAY_E_OVERFLOW,
       "overflows 64 bits");
  loads("integer literal over UINT64_MAX",
        "namespace ov2\nlayout x (a) -> [a + 18446744073709551616]",
        LAY_E_SYNTAX, "integer too large", 2);
  /* where: a coordinate outside the shape is refused, not wrapped */
  lay_plan *p = NULL;
  lay_error e;
  int64_t s22[2] = {2, 2};
  CHECK(lay_plan_create(ctx, "core.ab", s22, 2, LAY_DT_INT8, LAY_PACK, &p,
                        &e) == LAY_OK, "core.ab: %s", e.message);
  if (p) {
    int64_t c[2] = {INT64_MAX, INT64_MAX};
    uint64_t off;
    CHECK(lay_plan_where(p, c, 2, &off, &e) == LAY_E_ARG, "where INT64_MAX");
    int is_pad, plane;
    CHECK(lay_plan_at(p, UINT64_MAX, c, 2, &is_pad, &plane, &e) == LAY_E_ARG,
          "at UINT64_MAX: %s", e.message);
  }
  lay_plan_free(p);
}

/* ---- tables ---------------------------------------------------------------- */
static void t_tables(void) {
  /* a transpose then a reshape that mixes the digits: a full gather table
  ** of 5000 * 7001 entries, over the front end's cap */
  loads("front-end gather table",
        "namespace tb\ntransform t (x: int8[5000, 7001]) = transpose([1, 0]) | reshape([5000, 7001])",
        LAY_E_LIMIT, "gather table", 2);
  loads("small gather table",
        "namespace tb2\ntransform t (x: int8[5, 7]) = transpose([1, 0]) | reshape([5, 7])",
        LAY_OK, NULL, 0);
  int64_t s57[2] = {5, 7};
  plan("small gather table plan", "tb2.t", s57, 2, LAY_DT_NONE, LAY_OK, NULL);
  /* the planner's own cap, LI_MAX_TABLE_BYTES: an IR claiming a table one
  ** entry larger must be refused before the table is read */
  lg_ir ir;
  memset(&ir, 0, sizeof ir);
  static int64_t one[1] = {0};
  static char nm[] = "big", dn[] = "a";
  ir.name = nm;
  ir.rank = 1;
  ir.dim[0].name = dn;
  ir.value.cpu = LAY_DT_INT8;
  ir.value.axis = -1;
  ir.table = one;
  ir.ntable = (int64_t)(LI_MAX_TABLE_BYTES / sizeof(int64_t)) + 1;
  int64_t s1[1] = {1};
  li_plan *lp = NULL;
  lay_error e;
  memset(&e, 0, sizeof e);
  lay_status st = li_plan_build(&ir, s1, 1, LAY_DT_NONE, LAY_PACK, &lp, &e);
  char want[64];
  snprintf(want, sizeof want, "exceeds %zu bytes", (size_t)LI_MAX_TABLE_BYTES);
  CHECK(st == LAY_E_LIMIT && strstr(e.message, want) && !lp,
        "planner table cap: %d '%s'", (int)st, e.message);
  li_plan_free(lp);
  ir.ntable = INT64_MAX;
  st = li_plan_build(&ir, s1, 1, LAY_DT_NONE, LAY_UNPACK, &lp, &e);
  CHECK(st == LAY_E_LIMIT && !lp, "planner table INT64_MAX: %d '%s'", (int)st,
        e.message);
  li_plan_free(lp);
}

/* ---- boxes ------------------------------------------------------------------- */
/* Eight dimensions, each padded by one before and after and cut into three
** digits (x/16, x/4%4, x%4): the valid coordinates of each dimension fall
** into four pieces of plain digit ranges, so the data alone needs 4^8 =
** 65536 boxes, and the pads more: over LI_MAX_BOXES. With one dimension
** smaller the plan stays under it. That layout casts fp32 to fp16; the
** same layout moving bytes as they are widens each dimension's range to
** whole blocks (box.c's staged boxes): a few boxes. */
static void t_boxes(void) {
  static const char dims[] = "abcdefgh";
  static const char *const name[2] = {"many", "bytes"};
  for (int v = 0; v < 2; v++) {
    char s[2048];
    size_t n = (size_t)snprintf(s, sizeof s,
                                "namespace bx%s\nlayout %s (a, b, c, d, e, f, g, "
                                "h)%s -> [", v ? "b" : "", name[v],
                                v ? "" : " : fp32");
    for (int k = 0; k < 3; k++)
      for (int i = 0; i < 8; i++)
        n += (size_t)snprintf(s + n, sizeof s - n, "%s(1 + %c + 1)%s",
                              k || i ? ", " : "", dims[i],
                              k == 0 ? "/16" : k == 1 ? "/4%4" : "%4");
    snprintf(s + n, sizeof s - n, "]%s", v ? "" : " cast(to = fp16)");
    loads("many boxes spec", s, LAY_OK, NULL, 0);
  }
  int64_t sh[8] = {30, 30, 30, 30, 30, 30, 30, 30};
  plan("more than 65536 boxes", "bx.many", sh, 8, LAY_DT_FP32, LAY_E_LIMIT,
       "the plan needs more than 65536 boxes");
  plan("staged boxes", "bxb.bytes", sh, 8, LAY_DT_INT8, LAY_OK, NULL);
  sh[7] = 2;
  plan("under the box limit", "bx.many", sh, 8, LAY_DT_FP32, LAY_OK, NULL);
}

/* ---- nesting and source size ------------------------------------------------- */
static void t_depth_and_size(const char *dir) {
  /* LG_MAX_DEPTH through the public API: brackets and an expression */
  size_t d = LG_MAX_DEPTH + 1;
  char *s = malloc(64 + 2 * d);
  size_t n = (size_t)sprintf(s, "namespace dp\nlayout x (a) -> [");
  for (size_t i = 0; i < d; i++) s[n++] = '(';
  s[n++] = 'a';
  for (size_t i = 0; i < d; i++) s[n++] = ')';
  s[n++] = ']';
  load("nesting 257", s, n, LAY_E_LIMIT, "nesting deeper than 256 levels", 2);
  free(s);

  /* LG_MAX_SOURCE through a file: one byte over, and exactly at it */
  char path[1024];
  snprintf(path, sizeof path, "%s/big.lay", dir);
  for (int over = 1; over >= 0; over--) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL, "cannot write %s", path);
    if (!f) return;
    static char blank[1 << 16];
    memset(blank, ' ', sizeof blank);
    size_t left = LG_MAX_SOURCE + (size_t)over;
    const char *head = "# blank\n";
    fputs(head, f);
    left -= strlen(head);
    while (left) {
      size_t k = left < sizeof blank ? left : sizeof blank;
      fwrite(blank, 1, k, f);
      left -= k;
    }
    fclose(f);
    lay_error e;
    memset(&e, 0, sizeof e);
    lay_status st = lay_ctx_load_file(ctx, path, &e);
    if (over)
      CHECK(st == LAY_E_LIMIT && strstr(e.message, "16"),
            "file over LG_MAX_SOURCE: %d '%s'", (int)st, e.message);
    else
      CHECK(st == LAY_OK, "file of exactly LG_MAX_SOURCE: %d '%s'", (int)st,
            e.message);
    remove(path);
  }
}

/* ---- imports --------------------------------------------------------------- */
static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL, "cannot write %s: %s", path, strerror(errno));
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static void t_imports(const char *dir) {
  char path[1024], text[256];
  /* a chain of LG_MAX_IMPORTS + 2 files, each importing the next */
  int n = LG_MAX_IMPORTS + 2;
  for (int i = 0; i < n; i++) {
    snprintf(path, sizeof path, "%s/chain%d.lay", dir, i);
    if (i + 1 < n)
      snprintf(text, sizeof text, "import \"chain%d.lay\"\n", i + 1);
    else
      snprintf(text, sizeof text, "namespace deep\nlayout x (a) -> [a]\n");
    write_file(path, text);
  }
  lay_error e;
  memset(&e, 0, sizeof e);
  snprintf(path, sizeof path, "%s/chain0.lay", dir);
  lay_status st = lay_ctx_load_file(ctx, path, &e);
  char want[64];
  snprintf(want, sizeof want, "deeper than %d levels", LG_MAX_IMPORTS);
  CHECK(st == LAY_E_LIMIT && strstr(e.message, want) && e.line == 1,
        "import chain: %d %s:%d '%s'", (int)st, e.file, e.line, e.message);
  /* nothing of the failed load stays */
  int64_t s1[1] = {2};
  plan("nothing left of the chain", "deep.x", s1, 1, LAY_DT_INT8, LAY_E_NAME,
       "unknown layout");
  /* a short chain is fine */
  snprintf(path, sizeof path, "%s/chain%d.lay", dir, n - 3);
  CHECK(lay_ctx_load_file(ctx, path, &e) == LAY_OK, "short chain: %s",
        e.message);
  plan("short chain", "deep.x", s1, 1, LAY_DT_INT8, LAY_OK, NULL);

  /* a three-file cycle */
  for (int i = 0; i < 3; i++) {
    snprintf(path, sizeof path, "%s/cyc%d.lay", dir, i);
    snprintf(text, sizeof text, "import \"cyc%d.lay\"\n", (i + 1) % 3);
    write_file(path, text);
  }
  snprintf(path, sizeof path, "%s/cyc0.lay", dir);
  memset(&e, 0, sizeof e);
  st = lay_ctx_load_file(ctx, path, &e);
  CHECK(st == LAY_E_NAME && strstr(e.message, "import cycle") &&
            strstr(e.message, "cyc1.lay") && strstr(e.message, "cyc2.lay"),
        "import cycle: %d '%s'", (int)st, e.message);
}

/* ---- recursion through names ----------------------------------------------------- */
static void t_recursion(void) {
  loads("parameter defaults that refer to each other",
        "namespace pr\nlayout x(p = q, q = p) (a) -> [a/p, a%p]",
        LAY_E_NAME, "used before it is defined", 2);
  loads("a parameter in its own default",
        "namespace pr2\nlayout x(p = p * 2) (a) -> [a/p, a%p]",
        LAY_E_NAME, "own default", 2);
  loads("alias cycle of three",
        "namespace ac\nlayout a = b\nlayout b = c\nlayout c = a\n",
        LAY_E_NAME, "alias cycle", 0);
  /* a long alias chain: refused at a documented depth, no stack overflow */
  size_t cap = 40 * 100000 + 64, n = 0;
  char *s = malloc(cap);
  n += (size_t)snprintf(s + n, cap - n, "namespace al\nlayout a0 (x) -> [x]\n");
  for (int i = 1; i <= 100000; i++)
    n += (size_t)snprintf(s + n, cap - n, "layout a%d = a%d\n", i, i - 1);
  load("alias chain of 100000", s, n, LAY_E_LIMIT, "aliases nested deeper", 0);
  free(s);
  /* an instantiation argument that refers to the layout's own name */
  loads("argument naming a layout",
        "namespace ar\nlayout h(x) (n, c) -> [n, c/x, c%x]\nlayout h2 = h(h)",
        LAY_E_NAME, "unknown name", 0);
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : ".";
  mkdir(dir, 0777);
  lay_error e;
  if (lay_ctx_new(&ctx, &e)) {
    fprintf(stderr, "lay_ctx_new: %s\n", e.message);
    return 1;
  }
  t_rank();
  t_overflow();
  t_tables();
  t_boxes();
  t_depth_and_size(dir);
  t_imports(dir);
  t_recursion();
  lay_ctx_free(ctx);
  if (failures) fprintf(stderr, "%d limit check(s) failed\n", failures);
  else printf("limits: all checks passed\n");
  return failures ? 1 : 0;
}
