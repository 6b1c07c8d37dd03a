/*
** test_slabs.c: lay_plan_slabs and lay_plan_slab_check (lay.h, issue 16
** point 6) as an application uses them. The expected slab geometry is
** computed here from the layouts' definitions (stdlib/core.lay, amd.lay:
** hcwnc4 is [h, c/4, w, n, c%4]); the bytes of a run slab by slab, with the
** part plans the checks accept, are compared with one whole run.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

static int fails;
#define CHECK(c, ...)                         \
  do {                                        \
    if (!(c)) {                               \
      fails++;                                \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);           \
      fputc('\n', stderr);                    \
    }                                         \
  } while (0)

static lay_plan *plan(lay_ctx *ctx, const char *from, const char *to,
                      const int64_t *shape, lay_dir dir) {
  lay_plan *p = NULL;
  lay_error err;
  lay_status st = dir == LAY_CONVERT
                      ? lay_plan_convert(ctx, from, to, shape, 4, LAY_DT_INT8,
                                         &p, &err)
                      : lay_plan_create(ctx, from, shape, 4, LAY_DT_INT8, dir,
                                        &p, &err);
  CHECK(!st, "plan %s: %s", from, err.message);
  return p;
}

/* Run `full` slab by slab with part plans made like it, the pieces of a
** side gathered or scattered as lay.h says; compare with one whole run. */
static void run_slabs(lay_ctx *ctx, const char *from, const char *to,
                      const int64_t *shape, lay_dir dir, const lay_plan *full,
                      const lay_slabs *sl) {
  size_t ns = lay_plan_src_bytes(full), nd = lay_plan_dst_bytes(full);
  unsigned char *src = malloc(ns), *want = malloc(nd), *got = malloc(nd);
  unsigned char *s1 = malloc(sl->src_bytes), *d1 = malloc(sl->dst_bytes);
  for (size_t i = 0; i < ns; i++) src[i] = (unsigned char)(i * 131 + 7);
  memset(got, 0xee, nd);
  CHECK(!lay_plan_run(full, src, ns, want, nd, 1, NULL), "whole run");
  for (int64_t i = 0; i < sl->count; i++) {
    int64_t cut[4];
    memcpy(cut, shape, sizeof cut);
    cut[sl->dim] = i < sl->count - 1 ? sl->rows
                                     : sl->extent - (sl->count - 1) * sl->rows;
    lay_plan *q = plan(ctx, from, to, cut, dir);
    lay_error err;
    CHECK(!lay_plan_slab_check(full, sl, q, &err), "slab %lld: %s",
          (long long)i, err.message);
    size_t qs = lay_plan_src_bytes(q), qd = lay_plan_dst_bytes(q);
    size_t sp = (size_t)sl->src_pieces, dp = (size_t)sl->dst_pieces;
    for (size_t j = 0; j < sp; j++)
      memcpy(s1 + j * (qs / sp),
             src + j * sl->src_stride + (size_t)i * (sl->src_bytes / sp),
             qs / sp);
    CHECK(!lay_plan_run(q, s1, qs, d1, qd, 1, NULL), "slab run");
    for (size_t j = 0; j < dp; j++)
      memcpy(got + j * sl->dst_stride + (size_t)i * (sl->dst_bytes / dp),
             d1 + j * (qd / dp), qd / dp);
    lay_plan_free(q);
  }
  CHECK(!memcmp(got, want, nd), "%s -> %s: slabs give other bytes", from,
        to ? to : "");
  free(src);
  free(want);
  free(got);
  free(s1);
  free(d1);
}

int main(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new(&ctx, &err)) return 1;
  lay_slabs sl;

  /* NCHW -> NHWC, 6 images of 3x8x8: n is outermost on both sides, one
  ** image is 192 bytes on each; 1000 bytes hold 2 images (768 bytes). */
  int64_t s1[4] = {6, 3, 8, 8};
  lay_plan *p = plan(ctx, "core.nchw", "core.nhwc", s1, LAY_CONVERT);
  CHECK(!lay_plan_slabs(p, 1000, &sl, &err), "nchw: %s", err.message);
  CHECK(sl.dim == 0 && sl.extent == 6 && sl.unit == 1 && sl.rows == 2 &&
            sl.count == 3 && sl.src_bytes == 384 && sl.dst_bytes == 384 &&
            sl.src_pieces == 1 && sl.dst_pieces == 1,
        "nchw: dim %d rows %lld count %lld bytes %zu %zu", sl.dim,
        (long long)sl.rows, (long long)sl.count, sl.src_bytes, sl.dst_bytes);
  run_slabs(ctx, "core.nchw", "core.nhwc", s1, LAY_CONVERT, p, &sl);
  /* A budget over the whole: one slab. */
  CHECK(!lay_plan_slabs(p, 1 << 20, &sl, &err) && sl.count == 1 &&
            sl.rows == 6,
        "nchw whole: count %lld", (long long)sl.count);
  lay_plan_free(p);

  /* hcwnc4 pack of 1x3x40x2048: h is outermost in the destination (a row
  ** of h: 2048 pixels of 4 bytes), the CPU side is plain: its slabs come
  ** in 3 pieces (one per channel), a piece of a row 2048 bytes, the
  ** channels 40 * 2048 bytes apart. 3 * (6144 + 8192) bytes: 3 rows. */
  int64_t s2[4] = {1, 3, 40, 2048};
  p = plan(ctx, "amd.hcwnc4", NULL, s2, LAY_PACK);
  CHECK(!lay_plan_slabs(p, 3 * (6144 + 8192), &sl, &err), "hcwnc4: %s",
        err.message);
  CHECK(sl.dim == 2 && sl.rows == 3 && sl.count == 14 &&
            sl.src_bytes == 18432 && sl.dst_bytes == 24576 &&
            sl.src_pieces == 3 && sl.src_stride == 81920 &&
            sl.dst_pieces == 1,
        "hcwnc4 pack: dim %d rows %lld count %lld bytes %zu %zu pieces "
        "%lld stride %zu", sl.dim, (long long)sl.rows, (long long)sl.count,
        sl.src_bytes, sl.dst_bytes, (long long)sl.src_pieces, sl.src_stride);
  run_slabs(ctx, "amd.hcwnc4", NULL, s2, LAY_PACK, p, &sl);
  /* Part plans that are not this plan cut: another layout, other rows. */
  int64_t s3[4] = {1, 3, 3, 2048};
  lay_plan *q = plan(ctx, "amd.hcwnc8", NULL, s3, LAY_PACK);
  CHECK(lay_plan_slab_check(p, &sl, q, &err) == LAY_E_ARG,
        "hcwnc8 accepted as a part of hcwnc4");
  lay_plan_free(q);
  s3[2] = 2;
  q = plan(ctx, "amd.hcwnc4", NULL, s3, LAY_PACK);
  CHECK(lay_plan_slab_check(p, &sl, q, &err) == LAY_E_ARG,
        "2 rows accepted as a slab of 3 (the last has 1)");
  lay_plan_free(q);
  lay_plan_free(p);

  /* Its unpack: the destination in pieces. */
  p = plan(ctx, "amd.hcwnc4", NULL, s2, LAY_UNPACK);
  CHECK(!lay_plan_slabs(p, 3 * (6144 + 8192), &sl, &err), "unpack: %s",
        err.message);
  CHECK(sl.dim == 2 && sl.rows == 3 && sl.src_pieces == 1 &&
            sl.dst_pieces == 3 && sl.dst_stride == 81920 &&
            sl.src_bytes == 24576 && sl.dst_bytes == 18432,
        "hcwnc4 unpack: dim %d pieces %lld", sl.dim,
        (long long)sl.dst_pieces);
  run_slabs(ctx, "amd.hcwnc4", NULL, s2, LAY_UNPACK, p, &sl);
  lay_plan_free(p);

  /* hcwnc4 -> 1w16c8b with 2 images: h outermost on one side, c/16 then n
  ** on the other, neither side plain: no slabs, and why. */
  int64_t s4[4] = {2, 3, 8, 8};
  p = plan(ctx, "amd.hcwnc4", "kneron.1w16c8b", s4, LAY_CONVERT);
  CHECK(lay_plan_slabs(p, 1000, &sl, &err) == LAY_E_ARG && sl.dim == -1 &&
            strstr(err.message, "no dimension is outermost on both sides"),
        "hcwnc4 -> 1w16c8b: %s", err.message);
  lay_plan_free(p);
  lay_ctx_free(ctx);
  if (fails) return 1;
  printf("all slab checks passed\n");
  return 0;
}
