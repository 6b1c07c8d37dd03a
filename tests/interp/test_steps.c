/*
** test_steps.c: unit tests of single planning steps and of the plan log.
** Usage: test_steps [GROUP]   (no GROUP: everything)
**   coalesce  li_coalesce (plan/loops.c) alone: CuTe's example, the loops
**             that must not merge, and random nests against its
**             post-condition (planner.h): the offsets of every k agree;
**   registry  every kernel of exec/kernels.h has a name and a loop count;
**   log       lay_ctx_set_log (lay.h): each planning step is reported once,
**             in order, with the text the header promises.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"
#include "planner.h"

static int failures, checks;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    checks++;                                                         \
    if (!(cond)) {                                                    \
      failures++;                                                     \
      fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);           \
      fprintf(stderr, __VA_ARGS__);                                   \
      fputc('\n', stderr);                                            \
    }                                                                 \
  } while (0)

/* ---- coalesce ------------------------------------------------------------ */
static li_loop lp(int64_t ext, int64_t ss, int64_t ds, int64_t cs) {
  li_loop l = {ext, ss, ds, cs, 0};
  return l;
}

static int64_t size_of(const li_loop *L, int n) {
  int64_t s = 1;
  for (int i = 0; i < n; i++) s *= L[i].ext;
  return s;
}

/* The (source, destination, channel) offsets of linear index k of the
** nest: k's digits in the mixed radix of the extents, innermost fastest. */
static void off_of(const li_loop *L, int n, int64_t k, int64_t o[3]) {
  o[0] = o[1] = o[2] = 0;
  for (int i = n - 1; i >= 0; i--) {
    int64_t d = k % L[i].ext;
    k /= L[i].ext;
    o[0] += d * L[i].ss;
    o[1] += d * L[i].ds;
    o[2] += d * L[i].cs;
  }
}

/* li_coalesce's post-condition on in[0..n) -> out[0..m). */
static void check_post(const char *name, const li_loop *in, int n,
                       const li_loop *out, int m, int rows) {
  CHECK(m >= 1, "%s: %d loops", name, m);
  CHECK(size_of(in, n) == size_of(out, m), "%s: size %lld -> %lld", name,
        (long long)size_of(in, n), (long long)size_of(out, m));
  int64_t a[3], b[3], bad = -1;
  for (int64_t k = 0; k < size_of(in, n) && bad < 0; k++) {
    off_of(in, n, k, a);
    off_of(out, m, k, b);
    if (a[0] != b[0] || a[1] != b[1] || a[2] != b[2]) bad = k;
  }
  CHECK(bad < 0, "%s: index %lld moves", name, (long long)bad);
  for (int i = 0; i + 1 < m; i++) {
    const li_loop *o = &out[i], *q = &out[i + 1];
    int chained = !o->tab && !q->tab && o->ss == q->ss * q->ext &&
                  o->ds == q->ds * q->ext && o->cs == q->cs * q->ext;
    CHECK(!chained || (rows && i + 1 == m - 1),
          "%s: loops %d and %d could still merge", name, i, i + 1);
  }
  for (int i = 0; i < m; i++)
    CHECK(out[i].ext > 1 || m == 1 || (rows && i == m - 1),
          "%s: loop %d has extent 1", name, i);
}

static int run_coalesce(const char *name, const li_loop *in, int n, int rows,
                        li_loop *out) {
  memcpy(out, in, sizeof *in * (size_t)(n ? n : 1));
  int m = li_coalesce(out, n, rows);
  check_post(name, in, n, out, m, rows);
  return m;
}

static uint32_t rng = 2024;
static uint32_t rnd(uint32_t n) {
  rng = rng * 1664525u + 1013904223u;
  return (rng >> 8) % n;
}

static void t_coalesce(void) {
  li_loop out[8];
  /* CuTe's coalesce example: (2,(1,6)):(1,(6,2)) is 12:1. Our loops are
  ** outermost first, so its modes come in reverse: 6:2, 1:6, 2:1. */
  li_loop cute[] = {lp(6, 2, 2, 0), lp(1, 6, 6, 0), lp(2, 1, 1, 0)};
  int m = run_coalesce("cute", cute, 3, 0, out);
  CHECK(m == 1 && out[0].ext == 12 && out[0].ss == 1 && out[0].ds == 1,
        "cute: %d loops, first %lld:%lld", m, (long long)out[0].ext,
        (long long)out[0].ss);
  /* strides that do not chain: 2:4 outside 2:1 leaves a gap */
  li_loop gap[] = {lp(2, 4, 4, 0), lp(2, 1, 1, 0)};
  CHECK(run_coalesce("gap", gap, 2, 0, out) == 2, "gap merged");
  /* chained on the source only (a transpose): no merge */
  li_loop tr[] = {lp(3, 4, 1, 0), lp(4, 1, 3, 0)};
  CHECK(run_coalesce("transpose", tr, 2, 0, out) == 2, "transpose merged");
  /* the channel stride must chain too */
  li_loop ch[] = {lp(3, 4, 4, 1), lp(4, 1, 1, 1)};
  CHECK(run_coalesce("channel", ch, 2, 0, out) == 2, "channel merged");
  li_loop ch2[] = {lp(3, 4, 4, 4), lp(4, 1, 1, 1)};
  CHECK(run_coalesce("channel chained", ch2, 2, 0, out) == 1,
        "chained channel not merged");
  /* fills read nothing: source strides 0 chain */
  li_loop fill[] = {lp(5, 0, 8, 0), lp(8, 0, 1, 0)};
  CHECK(run_coalesce("fill", fill, 2, 0, out) == 1, "fill not merged");
  /* rows: the innermost loop keeps its pads, even of extent 1 */
  li_loop row[] = {lp(4, 7, 7, 0), lp(7, 1, 1, 0)};
  CHECK(run_coalesce("rows", row, 2, 1, out) == 2, "row loop merged");
  li_loop row1[] = {lp(4, 1, 9, 0), lp(1, 0, 1, 0)};
  m = run_coalesce("unit row", row1, 2, 1, out);
  CHECK(m == 2 && out[1].ext == 1, "unit row loop dropped");
  /* table loops never merge */
  li_loop tab[] = {lp(2, 3, 3, 0), lp(3, 0, 0, 0)};
  tab[1].tab = 1;
  tab[1].ss = tab[1].ds = 1;
  memcpy(out, tab, sizeof tab);
  CHECK(li_coalesce(out, 2, 0) == 2, "table loop merged");
  /* unit loops go; nothing left is one loop of extent 1 */
  li_loop units[] = {lp(1, 5, 5, 0), lp(1, 1, 1, 0)};
  m = run_coalesce("units", units, 2, 0, out);
  CHECK(m == 1 && out[0].ext == 1 && out[0].ss == 0 && out[0].ds == 0,
        "units: %d loops", m);
  m = li_coalesce(out, 0, 0);
  CHECK(m == 1 && out[0].ext == 1, "empty nest: %d loops", m);
  /* random nests: strides chained to the loop inside or not, on each side */
  for (int t = 0; t < 20000; t++) {
    li_loop in[6];
    int n = 1 + (int)rnd(6), rows = (int)rnd(4) == 0;
    int64_t s = 1 + rnd(3), d = 1 + rnd(3), c = rnd(2);
    for (int i = n - 1; i >= 0; i--) {
      in[i] = lp(1 + rnd(4), s, d, c);
      int64_t e = in[i].ext;
      s = rnd(3) ? s * e : s * e + rnd(3);
      d = rnd(3) ? d * e : 1 + rnd(40);
      c = rnd(3) ? c * e : rnd(5);
    }
    char nm[32];
    snprintf(nm, sizeof nm, "random %d", t);
    run_coalesce(nm, in, n, rows, out);
  }
}

/* ---- registry ------------------------------------------------------------ */
static void t_registry(void) {
  for (int k = 0; k < LI_K_COUNT; k++) {
    const char *nm = li_kern_name((li_kern)k);
    CHECK(nm && *nm && strcmp(nm, "?"), "kernel %d has no name", k);
    /* 1 to 3 loops, or (PLANES) the whole box */
    CHECK(k == LI_K_PLANES ? li_kern_loops((li_kern)k) == 255
                           : li_kern_loops((li_kern)k) >= 1 &&
                                 li_kern_loops((li_kern)k) <= 3,
          "kernel %s takes %d loops", nm, li_kern_loops((li_kern)k));
    for (int j = 0; j < k; j++)
      CHECK(strcmp(nm, li_kern_name((li_kern)j)), "kernels %d and %d are both '%s'",
            j, k, nm);
  }
  CHECK(!strcmp(li_kern_name(LI_K_ROWS), "row copy") &&
            li_kern_loops(LI_K_ROWS) == 3 && li_kern_loops(LI_K_MEMCPY) == 1,
        "the registry's rows moved");
  CHECK(!strcmp(li_kern_name(LI_K_COUNT), "?"), "a name past the table");
}

/* ---- log --------------------------------------------------------------------- */
typedef struct steps {
  int n;
  char name[16][16];
  char *text[16];
} steps;

static void collect(void *user, const char *step, const char *text) {
  steps *s = user;
  if (s->n < 16) {
    snprintf(s->name[s->n], sizeof s->name[s->n], "%s", step);
    size_t len = strlen(text) + 1;
    s->text[s->n] = malloc(len);
    if (s->text[s->n]) memcpy(s->text[s->n], text, len);
  }
  s->n++;
}

static void steps_free(steps *s) {
  for (int i = 0; i < s->n && i < 16; i++) free(s->text[i]);
  memset(s, 0, sizeof *s);
}

static const char *const k_steps[] = {"sides", "refine", "boxes", "coalesce",
                                      "kernels"};

/* The five steps, in order, each once, and the words each must contain. */
static void check_log(const char *name, const steps *s, const char *sides,
                      const char *refine, const char *kernel) {
  CHECK(s->n == 5, "%s: %d steps", name, s->n);
  for (int i = 0; i < 5 && i < s->n; i++) {
    CHECK(!strcmp(s->name[i], k_steps[i]), "%s: step %d is '%s', not '%s'",
          name, i, s->name[i], k_steps[i]);
    size_t len = s->text[i] ? strlen(s->text[i]) : 0;
    CHECK(len > 0 && s->text[i][len - 1] == '\n', "%s: step %s's text", name,
          k_steps[i]);
  }
  if (s->n < 5) return;
  CHECK(strstr(s->text[0], sides) != NULL, "%s: sides lack '%s':\n%s", name,
        sides, s->text[0]);
  CHECK(strstr(s->text[1], refine) != NULL, "%s: refine lacks '%s':\n%s",
        name, refine, s->text[1]);
  CHECK(strstr(s->text[2], "box 0: ") != NULL, "%s: no box 0 as cut:\n%s",
        name, s->text[2]);
  CHECK(strstr(s->text[3], "box 0: ") != NULL, "%s: no box 0 coalesced:\n%s",
        name, s->text[3]);
  CHECK(strstr(s->text[4], "boxes: ") && strstr(s->text[4], kernel),
        "%s: kernels lack '%s':\n%s", name, kernel, s->text[4]);
}

static void t_log(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new(&ctx, &err)) {
    CHECK(0, "lay_ctx_new: %s", err.message);
    return;
  }
  steps s = {0};
  lay_plan *p = NULL;
  /* no log set: nothing is called */
  const int64_t nchw[] = {1, 3, 8, 8};
  CHECK(!lay_plan_create(ctx, "amd.hcwnc4", nchw, 4, LAY_DT_NONE, LAY_PACK,
                         &p, &err), "create: %s", err.message);
  lay_plan_free(p);
  lay_ctx_set_log(ctx, collect, &s);
  CHECK(!lay_plan_create(ctx, "amd.hcwnc4", nchw, 4, LAY_DT_NONE, LAY_PACK,
                         &p, &err), "create: %s", err.message);
  check_log("hcwnc4 pack", &s, "destination: layout", "dim c", "interleave");
  if (s.n == 5)
    CHECK(strstr(s.text[0], "source: CPU side int8[1,3,8,8]") != NULL,
          "the CPU side:\n%s", s.text[0]);
  lay_plan_free(p);
  steps_free(&s);
  /* a convert: dims matched by name, both sides layouts */
  CHECK(!lay_plan_convert(ctx, "core.nchw", "core.nhwc", nchw, 4, LAY_DT_NONE,
                          &p, &err), "convert: %s", err.message);
  check_log("nchw -> nhwc", &s, "source: layout", "dim h", "copy");
  lay_plan_free(p);
  steps_free(&s);
  /* padding: the pad boxes are cut and coalesced like the data */
  const int64_t img[] = {1, 2, 5, 40};
  CHECK(!lay_plan_create(ctx, "ti.tidl(pad_l=1,pad_r=1,pad_t=1,pad_b=1)", img,
                         4, LAY_DT_NONE, LAY_PACK, &p, &err),
        "tidl: %s", err.message);
  check_log("tidl", &s, "destination: layout", "fused row padding", "row copy");
  if (s.n == 5)
    CHECK(strstr(s.text[2], ": pad,") != NULL, "tidl: no pad box cut:\n%s",
          s.text[2]);
  lay_plan_free(p);
  steps_free(&s);
  /* a plan that fails before its sides are built logs nothing */
  const int64_t bad[] = {1, 3, 8};
  CHECK(lay_plan_create(ctx, "amd.hcwnc4", bad, 3, LAY_DT_NONE, LAY_PACK, &p,
                        &err) == LAY_E_SHAPE, "rank 3 accepted");
  CHECK(s.n == 0, "a failed plan logged %d steps", s.n);
  steps_free(&s);
  /* turned off again */
  lay_ctx_set_log(ctx, NULL, NULL);
  CHECK(!lay_plan_create(ctx, "amd.hcwnc4", nchw, 4, LAY_DT_NONE, LAY_PACK,
                         &p, &err), "create: %s", err.message);
  CHECK(s.n == 0, "the log is still on: %d steps", s.n);
  lay_plan_free(p);
  lay_ctx_set_log(NULL, collect, &s); /* no context: nothing happens */
  lay_ctx_free(ctx);
}

int main(int argc, char **argv) {
  static const struct { const char *name; void (*fn)(void); } groups[] = {
      {"coalesce", t_coalesce}, {"registry", t_registry}, {"log", t_log}};
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
    if (argc < 2 || !strcmp(argv[1], groups[i].name)) groups[i].fn();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
