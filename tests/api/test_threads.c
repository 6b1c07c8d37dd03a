/*
** test_threads.c: lay_plan_run on several threads (the worker pool of
** interp/exec/pool.c), through the public API.
**
**   formats  every name of the stdlib (lay_ctx_count / lay_ctx_name; the
**            parameterized ones with arguments, per-channel ones with one
**            scale and radix per channel), packed and unpacked with threads
**            1, 2, 3 and 4: the bytes of threads N equal those of threads 1,
**            each run into a destination poisoned with another byte, so a
**            byte a split run leaves unwritten shows. CTest runs it with
**            LAY_SPLIT_MIN=1, so that even these small plans are cut into
**            4 chunks a thread, and once with the default threshold on
**            shapes large enough to be split.
**   guard    every name again (threads 1 and 2), its source and its
**            destination placed against a page that may not be read or
**            written (PROT_NONE), once ending where it begins and once
**            starting where it ends: a kernel that reads or writes a byte
**            past either end of a buffer (a whole vector where a masked or
**            staged one was due) crashes the test; the bytes equal those of
**            a run on malloc'd buffers. Nine converts between vendors'
**            layouts likewise, int8 and int16, at two odd shapes.
**   shared   6 application threads at once, each running 40 times: 3 share
**            one pack plan and 3 share one unpack plan, with threads = 2,
**            3 and 4; every run's bytes equal the plan's threads = 1 bytes.
**            (Run under the ASan and ThreadSanitizer builds too.)
**
** Usage: test_threads formats|guard|shared [big]; prints the number of
** checks and each failure.
*/
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/mman.h>
#include <unistd.h>

#include "lay.h"

static long g_checks, g_failures;
static lay_ctx *g_ctx;

#define CHECK(c, ...)                                                         \
  do {                                                                        \
    g_checks++;                                                               \
    if (!(c)) {                                                               \
      g_failures++;                                                           \
      fprintf(stderr, "FAIL: ");                                              \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
    }                                                                         \
  } while (0)

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "test_threads: out of memory\n");
    exit(2);
  }
  return p;
}

static void fill_random(uint8_t *p, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9e3779b97f4a7c15u + 1;
  for (size_t i = 0; i < n; i++) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    p[i] = (uint8_t)((x * 0x2545f4914f6cdd1du) >> 56);
  }
}

/* ---- formats ------------------------------------------------------------ */

/* Arguments tried, in order, on a name that does not plan without them
** (the stdlib's parameterized formats: AMD's x, quantize and bf16, Kneron's
** fixed point, TIDL's scales; the tile sizes of the xla, mlir and rknn
** templates; the lists of mlir.pack). */
static const char *const ARGS[] = {"(3)", "(8, 0.25, 3)", "(0.5, 3)", "(4)",
                                   "(8, 32)", "(2, 4)", "(32, 8)",
                                   "(32, 32)", "([1, 0], [8, 32])"};

/* The shapes tried for a name, by rank (the first that plans is used). */
static const int64_t SMALL[5][5] = {
    {1531}, {53, 67}, {7, 29, 45}, {2, 37, 29, 45}, {2, 3, 11, 13, 17}};
/* about 1M elements: fp32 moves 8 MB (2 threads at the default 4 MB per
** thread of a copy, 4 for a transpose: exec.c box_weight), int8 2 MB (a
** transpose or a value rule: 1 thread, its estimate 4 MB) */
static const int64_t BIG[5][5] = {
    {1 << 20}, {1031, 1031}, {41, 101, 257}, {2, 41, 97, 131},
    {2, 5, 41, 43, 61}};

/* A plan for name on a shape of `rank`, trying the arguments above; the
** format string used in buf. Per-channel (_qc) formats get one scale and
** radix per channel (dimension 1). */
static lay_plan *plan_for(const char *name, const int64_t *s, int rank,
                          lay_dir dir, char *buf, size_t cap) {
  lay_plan *p = NULL;
  size_t l = strlen(name);
  if (l > 3 && !strcmp(name + l - 3, "_qc")) {
    if (rank < 2) return NULL;
    size_t n = (size_t)snprintf(buf, cap, "%s(scale=[", name);
    for (int64_t c = 0; c < s[1] && n < cap; c++)
      n += (size_t)snprintf(buf + n, cap - n, "%s%g", c ? "," : "",
                            (double)(1 << (c % 3)) / 2);
    n += (size_t)snprintf(buf + n, cap - n, "], radix=[");
    for (int64_t c = 0; c < s[1] && n < cap; c++)
      n += (size_t)snprintf(buf + n, cap - n, "%s%d", c ? "," : "",
                            (int)(c % 4));
    snprintf(buf + n, cap - n, "])");
    return lay_plan_create(g_ctx, buf, s, rank, LAY_DT_NONE, dir, &p, NULL)
               ? NULL
               : p;
  }
  snprintf(buf, cap, "%s", name);
  if (!lay_plan_create(g_ctx, buf, s, rank, LAY_DT_NONE, dir, &p, NULL))
    return p;
  for (size_t i = 0; i < sizeof ARGS / sizeof *ARGS; i++) {
    snprintf(buf, cap, "%s%s", name, ARGS[i]);
    if (!lay_plan_create(g_ctx, buf, s, rank, LAY_DT_NONE, dir, &p, NULL))
      return p;
  }
  return NULL;
}

/* Threads 1..4 on one plan: the same bytes. */
static void compare_counts(lay_plan *p, const char *what) {
  size_t sn = lay_plan_src_bytes(p), dn = lay_plan_dst_bytes(p);
  uint8_t *src = xmalloc(sn), *want = xmalloc(dn), *got = xmalloc(dn);
  fill_random(src, sn, sn ^ dn);
  memset(want, 0x5a, dn);
  lay_error e;
  CHECK(lay_plan_run(p, src, sn, want, dn, 1, &e) == LAY_OK,
        "%s: threads=1: %s", what, e.message);
  for (int t = 2; t <= 4; t++) {
    memset(got, 0xa5 ^ t, dn);
    lay_status st = lay_plan_run(p, src, sn, got, dn, t, &e);
    long first = -1;
    for (size_t i = 0; i < dn && first < 0; i++)
      if (got[i] != want[i]) first = (long)i;
    CHECK(st == LAY_OK && first < 0,
          "%s: threads=%d: status %d, first differing byte %ld of %zu", what,
          t, (int)st, first, dn);
  }
  free(src);
  free(want);
  free(got);
}

/* n bytes against a PROT_NONE page: ending where the page begins (tail),
** else starting where one ends. */
typedef struct guarded {
  uint8_t *map, *p;
  size_t len;
} guarded;

static uint8_t *guard_new(guarded *g, size_t n, int tail) {
  const size_t pg = (size_t)sysconf(_SC_PAGESIZE);
  const size_t body = (n + pg - 1) / pg * pg;
  g->len = body + 2 * pg;
  g->map = mmap(NULL, g->len, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (g->map == MAP_FAILED || mprotect(g->map, pg, PROT_NONE) ||
      mprotect(g->map + pg + body, pg, PROT_NONE)) {
    fprintf(stderr, "test_threads: mmap or mprotect failed\n");
    exit(2);
  }
  g->p = tail ? g->map + pg + body - n : g->map + pg;
  return g->p;
}

/* The plan's bytes with its buffers against guard pages, threads 1 and 2,
** equal to those on malloc'd buffers. */
static void compare_guarded(lay_plan *p, const char *what) {
  size_t sn = lay_plan_src_bytes(p), dn = lay_plan_dst_bytes(p);
  uint8_t *src = xmalloc(sn), *want = xmalloc(dn);
  fill_random(src, sn, sn * 3 + dn);
  memset(want, 0x5a, dn);
  lay_error e;
  CHECK(lay_plan_run(p, src, sn, want, dn, 1, &e) == LAY_OK, "%s: %s", what,
        e.message);
  for (int k = 0; k < 4; k++) {
    guarded gs, gd;
    uint8_t *s = guard_new(&gs, sn, k & 1), *d = guard_new(&gd, dn, k < 2);
    memcpy(s, src, sn);
    memset(d, 0x5a, dn);
    lay_status st = lay_plan_run(p, s, sn, d, dn, 1 + k / 2, &e);
    CHECK(st == LAY_OK && !memcmp(d, want, dn),
          "%s: source %s a guard page, destination %s one, threads %d: "
          "status %d, other bytes", what, k & 1 ? "ending at" : "after",
          k < 2 ? "ending at" : "after", 1 + k / 2, (int)st);
    munmap(gs.map, gs.len);
    munmap(gd.map, gd.len);
  }
  free(src);
  free(want);
}

static int check_formats(int big, int guard) {
  size_t n = lay_ctx_count(g_ctx);
  int planned = 0;
  CHECK(n > 40, "the stdlib has %zu names", n);
  for (size_t i = 0; i < n; i++) {
    const char *name = lay_ctx_name(g_ctx, i);
    char fmt[4096], what[4200];
    int done = 0;
    for (int r = 4; r >= 1 && !done; r--) { /* rank 4 first: most are NCHW */
      for (int dir = LAY_PACK; dir <= LAY_UNPACK; dir++) {
        lay_plan *p = plan_for(name, big ? BIG[r - 1] : SMALL[r - 1], r,
                               (lay_dir)dir, fmt, sizeof fmt);
        if (!p) break;
        snprintf(what, sizeof what, "%s %s rank %d", fmt,
                 dir == LAY_PACK ? "pack" : "unpack", r);
        (guard ? compare_guarded : compare_counts)(p, what);
        lay_plan_free(p);
        done = 1;
      }
    }
    if (!done) { /* a layout that requires 3 channels (trt.dla_hwc4) */
      int64_t s3[4];
      memcpy(s3, big ? BIG[3] : SMALL[3], sizeof s3);
      s3[1] = 3;
      lay_plan *p = plan_for(name, s3, 4, LAY_PACK, fmt, sizeof fmt);
      if (p) {
        snprintf(what, sizeof what, "%s pack rank 4, 3 channels", fmt);
        (guard ? compare_guarded : compare_counts)(p, what);
        lay_plan_free(p);
        done = 1;
      }
    }
    if (!done) { /* rank 5 last */
      lay_plan *p = plan_for(name, big ? BIG[4] : SMALL[4], 5, LAY_PACK, fmt,
                             sizeof fmt);
      if (p) {
        snprintf(what, sizeof what, "%s pack rank 5", fmt);
        (guard ? compare_guarded : compare_counts)(p, what);
        lay_plan_free(p);
        done = 1;
      }
    }
    CHECK(done, "%s: no plan on any rank with any of the arguments tried",
          name);
    planned += done;
  }
  return planned;
}

/* Converts between vendors' layouts (their own kernels: staged slabs, the
** byte transposes of one layout into another), against guard pages too,
** at an odd shape and a batch of 2; int8 and int16. */
static int check_guarded_converts(void) {
  static const char *const CV[][2] = {
      {"core.nchw", "core.nhwc"},        {"core.nhwc", "core.nchw"},
      {"amd.hcwnc4", "amd.hcwnc8"},      {"kneron.1w16c8b", "amd.hcwnc8"},
      {"kneron.4w4c8b", "kneron.1w16c8b"}, {"qnn.flat", "qnn.crouton"},
      {"qnn.crouton", "qnn.crouton2x2"}, {"qnn.crouton", "qnn.d32"},
      {"ti.tidl(pad_l=1, pad_r=1, pad_t=1, pad_b=1)", "core.nchw"}};
  static const int64_t S[2][4] = {{1, 37, 29, 23}, {2, 29, 23, 45}};
  static const lay_dtype DT[2] = {LAY_DT_INT8, LAY_DT_INT16};
  int n = 0;
  for (size_t i = 0; i < sizeof CV / sizeof *CV; i++)
    for (int k = 0; k < 4; k++) {
      lay_plan *p = NULL;
      char what[256];
      snprintf(what, sizeof what, "%s -> %s %s [%lld,%lld,%lld,%lld]",
               CV[i][0], CV[i][1], lay_dtype_name(DT[k / 2]),
               (long long)S[k & 1][0], (long long)S[k & 1][1],
               (long long)S[k & 1][2], (long long)S[k & 1][3]);
      CHECK(!lay_plan_convert(g_ctx, CV[i][0], CV[i][1], S[k & 1], 4,
                              DT[k / 2], &p, NULL),
            "%s: no plan", what);
      if (!p) continue;
      compare_guarded(p, what);
      lay_plan_free(p);
      n++;
    }
  return n;
}

/* ---- shared ------------------------------------------------------------- */

typedef struct app {
  const lay_plan *plan; /* shared with the other apps of its group */
  const uint8_t *src;   /* this app's own input */
  const uint8_t *want;  /* the plan's threads = 1 bytes */
  size_t sn, dn;
  int threads;          /* what this app asks for */
  int runs, bad;
} app;

static void *app_main(void *arg) {
  app *a = arg;
  uint8_t *dst = xmalloc(a->dn);
  for (int r = 0; r < 40; r++) {
    memset(dst, r & 1 ? 0x5a : 0xa5, a->dn);
    if (lay_plan_run(a->plan, a->src, a->sn, dst, a->dn, a->threads, NULL) ||
        memcmp(dst, a->want, a->dn))
      a->bad++;
    a->runs++;
  }
  free(dst);
  return NULL;
}

static int check_shared(void) {
  /* 2x64x96x96 int8: 1.2 MB each way, above the split threshold */
  const int64_t s[4] = {2, 64, 96, 96};
  lay_plan *pl[2] = {NULL, NULL};
  CHECK(!lay_plan_create(g_ctx, "amd.hcwnc8", s, 4, LAY_DT_INT8, LAY_PACK,
                         &pl[0], NULL),
        "plan amd.hcwnc8 pack");
  CHECK(!lay_plan_create(g_ctx, "qnn.crouton", s, 4, LAY_DT_INT8, LAY_UNPACK,
                         &pl[1], NULL),
        "plan qnn.crouton unpack");
  if (!pl[0] || !pl[1]) return 0;
  app a[6];
  pthread_t th[6];
  uint8_t *want[2];
  for (int g = 0; g < 2; g++) {
    size_t sn = lay_plan_src_bytes(pl[g]), dn = lay_plan_dst_bytes(pl[g]);
    uint8_t *src = xmalloc(sn);
    fill_random(src, sn, (uint64_t)g + 7);
    want[g] = xmalloc(dn);
    CHECK(lay_plan_run(pl[g], src, sn, want[g], dn, 1, NULL) == LAY_OK,
          "plan %d: threads=1", g);
    for (int k = 0; k < 3; k++) {
      uint8_t *own = xmalloc(sn);
      memcpy(own, src, sn);
      a[3 * g + k] = (app){pl[g], own, want[g], sn, dn, 2 + k, 0, 0};
    }
    free(src);
  }
  for (int i = 0; i < 6; i++)
    CHECK(!pthread_create(&th[i], NULL, app_main, &a[i]), "pthread_create");
  for (int i = 0; i < 6; i++) {
    pthread_join(th[i], NULL);
    CHECK(a[i].runs == 40 && !a[i].bad,
          "app %d (plan %d, threads=%d): %d of %d runs gave other bytes", i,
          i / 3, a[i].threads, a[i].bad, a[i].runs);
    free((void *)a[i].src);
  }
  for (int g = 0; g < 2; g++) {
    free(want[g]);
    lay_plan_free(pl[g]);
  }
  return 6;
}

int main(int argc, char **argv) {
  const char *group = argc > 1 ? argv[1] : "";
  int big = argc > 2 && !strcmp(argv[2], "big"), n = -1;
  lay_error err;
  if (lay_ctx_new(&g_ctx, &err)) {
    fprintf(stderr, "test_threads: %s\n", err.message);
    return 1;
  }
  if (!strcmp(group, "formats")) n = check_formats(big, 0);
  else if (!strcmp(group, "guard"))
    n = check_formats(big, 1) + check_guarded_converts();
  else if (!strcmp(group, "shared")) n = check_shared();
  lay_ctx_free(g_ctx);
  if (n < 0) {
    fprintf(stderr, "usage: test_threads formats|guard|shared [big]\n");
    return 2;
  }
  printf("test_threads %s%s: %d formats or apps, %ld checks, %ld failures\n",
         group, big ? " big" : "", n, g_checks, g_failures);
  return g_failures ? 1 : 0;
}
