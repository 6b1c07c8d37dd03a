/*
** test_ilv2.c: the element interleave and deinterleave (interp/exec/
** kern_ilve.c, kernels ILV and DEILV) against their definitions.
** Usage: test_ilv2 [kernel|plan]   (no argument: both)
**   kernel  li_ilv and li_deilv called directly, at every SIMD level the
**           CPU has: elements of 1, 2, 4 and 8 bytes, blocks of W = 2..16
**           elements (W * esz <= 16), K planes with pre pads before them
**           (and the rest of the block after), every row count 1..40,
**           1 to 3 steps with gaps between them whose bytes must stay as
**           they were, blocks back to back or 21 bytes apart, (li_ilv,
**           back to back) 0, 3 or 70 blocks of the pad after each step's
**           rows (70: steps of pad blocks alone), guard bytes around the
**           output;
**   plan    plans built from hand-made IRs (li_plan_build) against the
**           per-element reference (ref.h) for pack and unpack: AMD's
**           [h, c/x, w, n, c%x] (batch 1 and 2: blocks side by side) and
**           a batched [n, h, c/x, w, c%x] for x = 2, 4, 8, 16, every width
**           w = 1..40, channel counts that leave a partial last block
**           (pads), batch 1 to 3; t x t pixel tiles [n, h/t, w/t, c, h%t,
**           w%t] for t = 2, 4 (runs of t pixels as the kernels' units),
**           every width 1..40, whole and partial tiles; int8, int16,
**           int32, fp32 and int64. ctest runs it at each LAY_SIMD level
**           and with LAY_KERNELS=general; with the special kernels on it
**           also checks that the interleave and deinterleave were chosen.
*/
#include "kern.h"
#include "plan.h"
#include "plan_int.h"
#include "ref.h"
#include "roundtrip.h"

static int failures, checks;

#define CHECK(cond, ...)                                              \
  do {                                                                \
    checks++;                                                         \
    if (!(cond)) {                                                    \
      if (failures++ < 20) {                                          \
        fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);         \
        fprintf(stderr, __VA_ARGS__);                                 \
        fputc('\n', stderr);                                          \
      }                                                               \
    }                                                                 \
  } while (0)

static uint32_t rng = 777;
static uint32_t rnd32(void) {
  rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
  return rng;
}

#define GUARD 64

/* ---- Kernels ------------------------------------------------------------- */
/* One call of li_ilv (inv 0) or li_deilv (inv 1): cnt steps of n rows of
** blocks of W elements of e bytes, planes ps apart, np blocks of the pad
** after each step's rows (li_ilv); the steps' source and destination
** sstep, dstep apart (gaps between them). */
static void kernel_case(int inv, size_t e, int W, int K, int pre, int64_t n,
                        int64_t cnt, int simd, int gap, int64_t np) {
  /* blocks may lie apart (gap bytes between them, unchanged) */
  const int64_t rb = W * (int64_t)e + gap;
  const int64_t ps = n * (int64_t)e + 8 * (int64_t)e; /* a gap after a plane */
  const int64_t pbytes = (K > 0 ? K : 1) * ps;       /* one step's planes */
  const int64_t bbytes = (n + np) * rb;               /* one step's blocks */
  const int64_t sstep = (inv ? bbytes : pbytes) + 3 * (int64_t)e;
  const int64_t dstep = (inv ? pbytes : bbytes) + 5 * (int64_t)e;
  const size_t sb = (size_t)(cnt * sstep), db = (size_t)(cnt * dstep);
  uint8_t *s = malloc(sb), *d = malloc(db + 2 * GUARD), *w = malloc(db + 2 * GUARD);
  uint8_t pat[8];
  for (size_t i = 0; i < 8; i++) pat[i] = (uint8_t)(0xA0 + i);
  for (size_t i = 0; i < sb; i++) s[i] = (uint8_t)rnd32();
  memset(d, 0x5A, db + 2 * GUARD);
  memset(w, 0x5A, db + 2 * GUARD);
  /* the definition */
  for (int64_t c = 0; c < cnt; c++)
    for (int64_t r = 0; r < n; r++)
      for (int x = 0; x < W; x++) {
        int k = x - pre;
        if (!inv) {
          const uint8_t *from = k >= 0 && k < K ? s + c * sstep + k * ps + r * (int64_t)e : pat;
          memcpy(w + GUARD + c * dstep + r * rb + x * (int64_t)e, from, e);
        } else if (k >= 0 && k < K) {
          memcpy(w + GUARD + c * dstep + k * ps + r * (int64_t)e,
                 s + c * sstep + r * rb + x * (int64_t)e, e);
        }
      }
  for (int64_t c = 0; c < cnt; c++) /* the pad blocks */
    for (int64_t i = 0; i < np * W; i++)
      memcpy(w + GUARD + c * dstep + n * rb + i * (int64_t)e, pat, e);
  li_ilv_args a = {e, W, K, pre, n, ps, cnt, sstep, dstep, pat, 1, 0, 0, rb, np};
  if (inv) li_deilv(&a, s, d + GUARD, simd);
  else li_ilv(&a, s, d + GUARD, simd);
  int same = memcmp(d, w, db + 2 * GUARD) == 0;
  CHECK(same, "%s esz %zu W %d K %d pre %d n %lld cnt %lld rb %lld np %lld simd %d differs",
        inv ? "deilv" : "ilv", e, W, K, pre, (long long)n, (long long)cnt,
        (long long)rb, (long long)np, simd);
  free(s); free(d); free(w);
}

static void kernels(void) {
  const int top = li_simd_level();
  for (int simd = 0; simd <= top; simd++)
    for (size_t e = 1; e <= 8; e *= 2)
      for (int W = 2; W * (int)e <= 16; W *= 2)
        for (int K = 1; K <= W; K++)
          for (int pre = 0; pre + K <= W; pre += (W > 4 ? 3 : 1))
            for (int64_t n = 1; n <= 40; n++)
              for (int inv = 0; inv < 2; inv++)
                for (int gap = 0; gap <= 21; gap += 21)
                  for (int j = 0; j < (inv || gap ? 1 : 3); j++)
                    kernel_case(inv, e, W, K, pre, n, 1 + (n + K) % 3, simd,
                                gap, (int64_t[]){0, 3, 70}[j]);
}

/* ---- Plans --------------------------------------------------------------- */
static void fill_random(uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++) p[i] = (uint8_t)rnd32();
}

static int used_ilv, used_deilv;

/* pack and unpack against the reference, output pre-filled with 0x5A. */
/* What the plans took (roundtrip's seen). */
static void seen(const char *desc) {
  if (strstr(desc, " deinterleave,")) used_deilv++;
  if (strstr(desc, " interleave,")) used_ilv++;
}

static void check_layout(const char *name, const lg_ir *ir,
                         const int64_t *shape, lay_dtype cpu) {
  rlay r;
  rlay_init(&r, ir, shape, cpu);
  const size_t cb = (size_t)r_count(shape, ir->rank) * r.csz;
  uint8_t *x = malloc(cb);
  char why[4096];
  fill_random(x, cb);
  CHECK(!roundtrip(ir, shape, cpu, x, seen, why, sizeof why), "%s: %s", name,
        why);
  free(x);
}

/* [h, c/x, w, n, c%x] (amd.hcwnc) or, batched, [n, h, c/x, w, c%x]. */
static void blocked(lg_ir *ir, int x, int batched) {
  static char l1[4][16], l2[4][16];
  static int k;
  char *a = l1[k % 4], *b = l2[k % 4];
  k++;
  snprintf(a, 16, "c/%d", x);
  snprintf(b, 16, "c%%%d", x);
  ir_init(ir, batched ? "nhcwc" : "hcwnc", "n,c,h,w");
  if (batched) ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 1, x, 0, a);
  ax_digit(ir, 3, 1, 0, "w");
  if (!batched) ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 1, 1, x, b);
}

/* t x t pixel tiles, channels between the tile index and the pixels:
** [n, h/t, w/t, c, h%t, w%t] (the sweep's px4): runs of t pixels moved
** as units of the (de)interleave, the t rows of a tile its planes. */
static void pixtiles(lg_ir *ir, int t) {
  static char l[4][4][16];
  static int k;
  char(*a)[16] = l[k++ % 4];
  snprintf(a[0], 16, "h/%d", t);
  snprintf(a[1], 16, "w/%d", t);
  snprintf(a[2], 16, "h%%%d", t);
  snprintf(a[3], 16, "w%%%d", t);
  ir_init(ir, "pixtiles", "n,c,h,w");
  ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 2, t, 0, a[0]);
  ax_digit(ir, 3, t, 0, a[1]);
  ax_digit(ir, 1, 1, 0, "c");
  ax_digit(ir, 2, 1, t, a[2]);
  ax_digit(ir, 3, 1, t, a[3]);
}

static void plans(void) {
  static const lay_dtype dts[] = {LAY_DT_INT8, LAY_DT_INT16, LAY_DT_INT32,
                                  LAY_DT_FP32, LAY_DT_INT64};
  for (int batched = 0; batched < 2; batched++)
    for (int x = 2; x <= 16; x *= 2)
      for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++)
        for (int64_t w = 1; w <= 40; w++) {
          lg_ir ir;
          blocked(&ir, x, batched);
          /* two whole blocks and a partial one (x > 2), or one and a half */
          int64_t c = x > 2 ? 2 * x + x / 2 + 1 : 3;
          /* AMD's layout with a batch: the images' blocks of a pixel
          ** side by side (16-byte blocks apart, or the gather tile) */
          int64_t shape[4] = {batched ? 3 : 1 + w % 2, c, 1 + w % 3, w};
          char name[96];
          snprintf(name, sizeof name, "%s%d %s [%lld,%lld,%lld,%lld]",
                   batched ? "nhcwc" : "hcwnc", x, li_dt_name(dts[t]),
                   (long long)shape[0], (long long)shape[1],
                   (long long)shape[2], (long long)shape[3]);
          check_layout(name, &ir, shape, dts[t]);
        }
  for (int t = 2; t <= 4; t += 2)
    for (size_t ti = 0; ti < sizeof dts / sizeof dts[0]; ti++)
      for (int64_t w = 1; w <= 40; w++) {
        lg_ir ir;
        pixtiles(&ir, t);
        /* whole tiles, or a partial last tile row and column (pads) */
        int64_t shape[4] = {1 + w % 2, 3, w % 3 ? 2 * t : 2 * t + 1, w};
        char name[96];
        snprintf(name, sizeof name, "px%d %s [%lld,%lld,%lld,%lld]", t,
                 li_dt_name(dts[ti]), (long long)shape[0], (long long)shape[1],
                 (long long)shape[2], (long long)shape[3]);
        check_layout(name, &ir, shape, dts[ti]);
      }
  const char *k = getenv("LAY_KERNELS");
  if (!(k && !strcmp(k, "general"))) {
    CHECK(used_ilv > 100, "the interleave was chosen for %d plans", used_ilv);
    CHECK(used_deilv > 100, "the deinterleave was chosen for %d plans",
          used_deilv);
  }
}

int main(int argc, char **argv) {
  const char *g = argc > 1 ? argv[1] : "";
  if (!*g || !strcmp(g, "kernel")) kernels();
  if (!*g || !strcmp(g, "plan")) plans();
  printf("test_ilv2 %s: %d checks, %d failures (ilv plans %d, deilv %d)\n",
         *g ? g : "all", checks, failures, used_ilv, used_deilv);
  return failures != 0;
}
