/*
** test_mtile.c: the macro tile (kernel MTILE: interp/exec/mtile.c, planned
** by interp/plan/mtile.c) against its definition and plans that use it
** against the per-element reference.
**
** Usage: test_mtile [kernel|plan]   (no argument: both)
**   kernel  li_mtile_run at every SIMD level the CPU has against
**           li_mtile_ref (plan_int.h's definition of a tile: the chunks'
**           tables, the rotation, the lane exchange, the loops with a
**           stepped-back last iteration), every unit of 1-16 bytes, every
**           register count and rotation the planner makes, 1, 2 and 4
**           lanes, loaded and stored whole or by lane (rows interleaved
**           or split: whole, with the lane exchange or not), random tables,
**           unaligned buffers, 0x5A around the destination;
**   plan    random layouts (each dimension split into up to three digits
**           of random sizes, the digits in a random order; NCHW-like
**           shapes with a batch, odd and power-of-two extents) in 1-, 2-,
**           4- and 8-byte types, packed and unpacked on 1 and 2 threads
**           against ref.h (r_pack / r_unpack); the test fails when the
**           macro tile was chosen for too few of them (a test of nothing).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "plan_int.h"
#include "ref.h"
#include "roundtrip.h"

static int checks, failures;
#define CHECK(c, ...)                                                        \
  do {                                                                       \
    checks++;                                                                \
    if (!(c)) {                                                              \
      failures++;                                                            \
      if (failures <= 20) {                                                  \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                 \
        fprintf(stderr, __VA_ARGS__);                                        \
        fprintf(stderr, "\n");                                               \
      }                                                                      \
    }                                                                        \
  } while (0)

static unsigned long long rs = 88172645463325252ull;
static unsigned rnd32(void) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (unsigned)(rs >> 16);
}
static int64_t rnd(int64_t n) { return (int64_t)(rnd32() % (unsigned)n); }

/* ---- Kernel ---------------------------------------------------------------
** A random tile: chunk tables over slots of 16 bytes (the destination's
** distinct within a tile), loops whose last iteration may step back. */
static void kernel_case(int simd, int lg, int k, int rho, int lanes, int ldw,
                        int stw, int x) {
  const int NR = 1 << k, NL = 1 << lanes, n = NR * NL;
  li_mtile t;
  memset(&t, 0, sizeof t);
  t.lg = lg;
  t.k = k;
  t.rho = rho;
  t.lanes = lanes;
  t.ldw = ldw;
  t.stw = stw;
  if (x) { /* the lane exchange (both sides whole) */
    t.nls = t.nss = lanes;
    for (int b = 0; b < lanes && b < 2; b++) {
      t.lsw[b][0] = t.lsw[b][1] = (int8_t)b;
      t.ssw[b][0] = t.ssw[b][1] = (int8_t)b;
    }
  }
  /* source: chunks anywhere in 64 slots (whole registers: lanes next to
  ** each other), plus a byte offset */
  for (int i = 0; i < NR; i++) {
    int64_t base = 16 * rnd(64 - NL);
    for (int l = 0; l < NL; l++)
      t.in[l * NR + i] = ldw ? base + 16 * l : 16 * rnd(64);
  }
  /* destination: the tile's chunks in distinct slots of n, shuffled
  ** (whole registers: a register's lanes in adjacent slots) */
  int perm[LI_MT_CHUNKS];
  for (int i = 0; i < NR; i++) perm[i] = i;
  for (int i = NR - 1; i > 0; i--) {
    int j = (int)rnd(i + 1), y = perm[i];
    perm[i] = perm[j];
    perm[j] = y;
  }
  int sl[LI_MT_CHUNKS];
  for (int c = 0; c < n; c++) sl[c] = c;
  for (int c = n - 1; c > 0; c--) {
    int j = (int)rnd(c + 1), y = sl[c];
    sl[c] = sl[j];
    sl[j] = y;
  }
  for (int j = 0; j < NR; j++)
    for (int l = 0; l < NL; l++)
      t.out[l * NR + j] = stw ? 16 * (perm[j] * NL + l) : 16 * sl[l * NR + j];
  const int64_t span = 16 * (int64_t)n; /* one tile's destination */
  int64_t sspan = 16 * 64, dtot = span, stot = sspan;
  for (int a = 0; a < 3; a++) {
    li_mloop *m = &t.l[a];
    m->n = 1 + rnd(3);
    m->ss = stot;
    m->ds = dtot;
    int64_t back = m->n > 1 && rnd(2) ? 1 + rnd(span - 1) : 0;
    m->sl = (m->n - 1) * m->ss - back;
    m->dl = (m->n - 1) * m->ds - back;
    stot *= m->n;
    dtot *= m->n;
  }
  const int64_t n0 = 1 + rnd(2);
  const size_t sb = (size_t)(stot * n0) + 32, db = (size_t)(dtot * n0) + 64;
  uint8_t *src = malloc(sb), *got = malloc(db), *want = malloc(db);
  for (size_t i = 0; i < sb; i++) src[i] = (uint8_t)rnd32();
  memset(got, 0x5A, db);
  memset(want, 0x5A, db);
  const size_t so = (size_t)rnd(16), dof = 16 + (size_t)rnd(16);
  li_mtile_run(&t, simd, src + so, got + dof, n0, stot, dtot);
  li_mtile_ref(&t, src + so, want + dof, n0, stot, dtot);
  CHECK(!memcmp(got, want, db),
        "kernel simd %d: unit %d B, %d registers, %d rounds, %d lanes, "
        "loads %s, stores %s, exchange %d", simd, 1 << lg, NR, rho, NL,
        ldw ? "whole" : "by lane", stw ? "whole" : "by lane", x);
  free(src);
  free(got);
  free(want);
}

static void kernels(void) {
  const int top = li_simd_level();
  for (int simd = LI_SIMD_SSE; simd <= top; simd++)
    for (int lanes = 0; lanes <= (simd >= LI_SIMD_AVX512 ? 2 : simd - 1);
         lanes++)
      for (int lg = 0; lg <= 4; lg++) {
        const int t = 4 - lg;
        for (int k = 0; k <= t; k++)
          for (int v = 0; v < 2; v++) {
            const int rho = k == 0 ? 0 : v ? t : k;
            if (v && (k == 0 || k == t)) continue;
            const int narrow = k > 0 && k < t;
            /* rows interleaved or split load and store whole (their
            ** kernels have no other variant: the definition runs); the
            ** lane exchange where a register bit is there for each lane */
            for (int w = narrow && lanes ? 3 : 0; w < 4; w++)
              for (int x = 0; x < 1 + (narrow && lanes && lanes <= k); x++) {
                for (int rep = 0; rep < 6; rep++)
                  kernel_case(simd, lg, k, rho, lanes, w & 1, w >> 1, x);
              }
          }
      }
}

/* ---- Plans ------------------------------------------------------------- */
static int used_mtile, plans_made;

/* What the plans took (roundtrip's seen). */
static void seen(const char *desc) {
  plans_made++;
  if (strstr(desc, " macro tile ")) used_mtile++;
}

static void check_layout(const char *name, const lg_ir *ir,
                         const int64_t *shape, lay_dtype cpu) {
  rlay r;
  rlay_init(&r, ir, shape, cpu);
  const size_t cb = (size_t)r_count(shape, ir->rank) * r.csz;
  uint8_t *x = malloc(cb);
  char why[4096];
  for (size_t i = 0; i < cb; i++) x[i] = (uint8_t)rnd32();
  CHECK(!roundtrip(ir, shape, cpu, x, seen, why, sizeof why), "%s: %s", name,
        why);
  free(x);
}

/* A random blocked layout of (n, c, h, w): each dimension cut into up to
** three digits (sizes from 2, 3, 4, 8, 16, 32; the outermost takes the
** rest), all digits in a random order. */
static void random_layout(lg_ir *ir, char *name, size_t cap) {
  static char lab[16][16];
  static const int64_t sizes[] = {2, 4, 8, 16, 32, 3, 2, 4};
  int nd = 0, dim[16];
  int64_t div[16], mod[16];
  for (int d = 0; d < 4; d++) {
    int cuts = (int)rnd(3);
    int64_t below = 1;
    for (int c = 0; c < cuts; c++) { /* inner digits, innermost first */
      int64_t sz = sizes[rnd(8)];
      dim[nd] = d;
      div[nd] = below;
      mod[nd] = sz;
      nd++;
      below *= sz;
    }
    dim[nd] = d; /* the rest */
    div[nd] = below;
    mod[nd] = 0;
    nd++;
  }
  for (int i = nd - 1; i > 0; i--) { /* a random memory order */
    int j = (int)rnd(i + 1);
    int y = dim[i]; dim[i] = dim[j]; dim[j] = y;
    int64_t a = div[i]; div[i] = div[j]; div[j] = a;
    a = mod[i]; mod[i] = mod[j]; mod[j] = a;
  }
  ir_init(ir, "random", "n,c,h,w");
  size_t at = (size_t)snprintf(name, cap, "[");
  for (int i = 0; i < nd; i++) {
    snprintf(lab[i], sizeof lab[i], "%c/%lld%%%lld", "nchw"[dim[i]],
             (long long)div[i], (long long)mod[i]);
    ax_digit(ir, dim[i], div[i], mod[i], lab[i]);
    if (at < cap)
      at += (size_t)snprintf(name + at, cap - at, "%s%s", i ? " " : "",
                             lab[i]);
  }
  if (at < cap) snprintf(name + at, cap - at, "]");
}

static void plans(void) {
  static const lay_dtype dts[] = {LAY_DT_INT8, LAY_DT_INT16, LAY_DT_FP32,
                                  LAY_DT_INT64};
  static const int64_t ext[] = {1, 2, 3, 4, 5, 7, 8, 16, 28, 32, 37, 64};
  for (int i = 0; i < 400; i++) {
    lg_ir ir;
    char lname[256], name[400];
    random_layout(&ir, lname, sizeof lname);
    int64_t shape[4];
    for (int d = 0; d < 4; d++) shape[d] = ext[rnd(12)];
    while (shape[0] * shape[1] * shape[2] * shape[3] > (1 << 15))
      shape[rnd(4)] = ext[rnd(6)];
    const lay_dtype dt = dts[rnd(4)];
    snprintf(name, sizeof name, "%s %s [%lld,%lld,%lld,%lld]", lname,
             li_dt_name(dt), (long long)shape[0], (long long)shape[1],
             (long long)shape[2], (long long)shape[3]);
    check_layout(name, &ir, shape, dt);
  }
  if (li_simd_level() >= LI_SIMD_SSE)
    CHECK(used_mtile * 4 > plans_made, "the macro tile was chosen for %d of "
          "%d plans", used_mtile, plans_made);
}

int main(int argc, char **argv) {
  const char *g = argc > 1 ? argv[1] : "";
  if (!*g || !strcmp(g, "kernel")) kernels();
  if (!*g || !strcmp(g, "plan")) plans();
  printf("test_mtile %s: %d checks, %d failures (macro tile in %d of %d "
         "plans)\n", *g ? g : "all", checks, failures, used_mtile,
         plans_made);
  return failures != 0;
}
