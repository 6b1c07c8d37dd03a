/*
** test_plan.c: unit tests of the planner and executor (interp/plan.c,
** exec.c, value.c) on hand-built IRs, against the per-element reference
** in ref.h. Usage: test_plan [GROUP]   (no GROUP: everything)
**
** For each layout and shape: pack == reference byte for byte (the output
** is pre-filled with 0x5A, so a pad byte left unwritten shows up), unpack
** == reference, unpack(pack(x)) == x where the value rule is lossless,
** threads = 2 gives the same bytes, short buffers fail with LAY_E_BUFFER
** and leave the output untouched, where/at agree with the reference.
*/
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "plan.h"
#include "plan_int.h"
#include "ref.h"

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

static uint32_t rng = 12345;
static uint32_t rnd32(void) {
  rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
  return rng;
}

/* Random CPU data of type t; floats include ties, large values, specials. */
static void fill_random(uint8_t *p, int64_t n, lay_dtype t) {
  for (int64_t i = 0; i < n; i++) {
    if (t == LAY_DT_FP32) {
      float f;
      uint32_t r = rnd32() % 100;
      if (r < 80) f = (float)((int)(rnd32() % 80001) - 40000) / 256.0f;
      else if (r < 90) f = (float)((int)(rnd32() % 2001) - 1000) * 0.37f;
      else if (r < 93) f = (float)(rnd32() % 7) * 1e-6f;
      else if (r < 95) f = 70000.0f + (float)(rnd32() % 100);
      else if (r < 97) f = (rnd32() & 1) ? INFINITY : -INFINITY;
      else if (r < 98) f = NAN;
      else f = 1.0f + (float)(rnd32() % 512) * 0x1p-16f; /* bf16/fp16 ties */
      memcpy(p + 4 * i, &f, 4);
    } else {
      size_t s = dsz(t);
      for (size_t k = 0; k < s; k++) p[i * s + k] = (uint8_t)rnd32();
    }
  }
}

static int lossless(const lg_ir *ir, lay_dtype cpu) {
  const lg_ir_value *v = &ir->value;
  if (v->nplanes) {
    uint32_t all = 0;
    for (int k = 0; k < v->nplanes; k++) all |= v->plane[k].mask << v->plane[k].shift;
    return dsz(cpu) == 2 ? (all & 0xffff) == 0xffff : all == 0xffffffffu;
  }
  return v->kind == LG_V_NONE && (!v->hw || v->hw == cpu);
}

static void hexdiff(const char *what, const uint8_t *a, const uint8_t *b,
                    size_t n) {
  for (size_t i = 0; i < n; i++)
    if (a[i] != b[i]) {
      fprintf(stderr, "  %s: first difference at byte %zu: got %02x want %02x\n",
              what, i, a[i], b[i]);
      return;
    }
}

/* where/at against the reference, for every hw element of small buffers. */
static void check_where_at(const char *name, const li_plan *p, const rlay *r) {
  int64_t ng = 1;
  for (int j = 0; j < r->ir->naxes; j++) ng *= r->ext[j];
  if (ng > 200000) return;
  int64_t *owner = malloc(sizeof(int64_t) * (size_t)r->nelem);
  for (int64_t e = 0; e < r->nelem; e++) owner[e] = -1;
  for (int64_t g = 0; g < ng; g++) {
    int64_t k = g, off = 0;
    for (int j = r->ir->naxes - 1; j >= 0; j--) {
      off += (k % r->ext[j]) * r->stride[j];
      k /= r->ext[j];
    }
    owner[off] = g;
  }
  int bad = 0;
  for (int64_t e = 0; e < r->nelem && bad < 3; e++) {
    int64_t want[8], got[8], v[32];
    int wpad = 2, wplane = 0;
    for (int d = 0; d < r->rank; d++) want[d] = -1;
    if (owner[e] >= 0) {
      int64_t k = owner[e], pc[8] = {0};
      for (int j = r->ir->naxes - 1; j >= 0; j--) { v[j] = k % r->ext[j]; k /= r->ext[j]; }
      for (int j = 0; j < r->ir->naxes; j++) {
        const lg_ir_axis *a = &r->ir->axis[j];
        if (a->kind == LG_AX_DIGIT) pc[a->dim] += v[j] * a->div;
        if (a->kind == LG_AX_PLANE) wplane = (int)v[j];
      }
      wpad = 0;
      for (int d = 0; d < r->rank; d++) {
        /* lay.h: a pad's coordinate lies outside the tensor, counted
        ** from its edge (-1 the pad next to the window's start, size
        ** the one after its end), even when a slice keeps only part */
        int64_t w = r->hi[d] - r->lo[d];
        if (pc[d] < r->before[d]) {
          want[d] = pc[d] - r->before[d];
          wpad = 1;
        } else if (pc[d] >= r->before[d] + w) {
          want[d] = r->size[d] + pc[d] - r->before[d] - w;
          wpad = 1;
        } else {
          want[d] = pc[d] - r->before[d] + r->lo[d];
        }
      }
    }
    int ispad = -1, plane = -1;
    lay_error err;
    uint64_t byte = (uint64_t)e * r->hsz + (r->hsz > 1 ? r->hsz - 1 : 0);
    lay_status st = li_plan_at(p, byte, got, r->rank, &ispad, &plane, &err);
    int ok = st == LAY_OK && ispad == wpad && plane == wplane;
    for (int d = 0; ok && d < r->rank; d++) ok = got[d] == want[d];
    if (!ok) {
      bad++;
      CHECK(0, "%s: at(%llu): status %d pad %d/%d plane %d/%d coord0 %lld/%lld",
            name, (unsigned long long)byte, st, ispad, wpad, plane, wplane,
            (long long)got[0], (long long)want[0]);
    }
    if (wpad == 0 && wplane == 0) {
      uint64_t off = 0;
      st = li_plan_where(p, want, r->rank, &off, &err);
      if (st != LAY_OK || off != (uint64_t)e * r->hsz) {
        bad++;
        CHECK(0, "%s: where: status %d offset %llu want %llu", name, st,
              (unsigned long long)off, (unsigned long long)e * r->hsz);
      }
    }
  }
  checks++;
  uint64_t o;
  int64_t outside[8] = {0};
  outside[0] = r->size[0];
  CHECK(li_plan_where(p, outside, r->rank, &o, NULL) == LAY_E_ARG,
        "%s: where out of range", name);
  int a, b;
  int64_t c[8];
  CHECK(li_plan_at(p, (uint64_t)r->nelem * r->hsz, c, 8, &a, &b, NULL) == LAY_E_ARG,
        "%s: at out of range", name);
  free(owner);
}

/* The whole battery for one layout, shape and CPU dtype. */
static void check_layout(const char *name, const lg_ir *ir,
                         const int64_t *shape, lay_dtype cpu) {
  rlay r;
  rlay_init(&r, ir, shape, cpu);
  int rank = ir->rank;
  int64_t n = r_count(shape, rank);
  size_t cb = (size_t)n * r.csz, hb = (size_t)r.nelem * r.hsz;
  uint8_t *x = malloc(cb), *want = malloc(hb), *got = malloc(hb),
          *back = malloc(cb), *wback = malloc(cb);
  fill_random(x, n, cpu);
  r_pack(&r, x, want);
  li_plan *pk = NULL, *up = NULL;
  lay_error err;
  lay_status st = li_plan_build(ir, shape, rank, cpu, LAY_PACK, &pk, &err);
  CHECK(st == LAY_OK, "%s: pack plan: %s", name, err.message);
  st = li_plan_build(ir, shape, rank, cpu, LAY_UNPACK, &up, &err);
  CHECK(st == LAY_OK, "%s: unpack plan: %s", name, err.message);
  if (!pk || !up) goto out;
  CHECK(li_plan_src_bytes(pk) == cb && li_plan_dst_bytes(pk) == hb,
        "%s: bytes %zu/%zu want %zu/%zu", name, li_plan_src_bytes(pk),
        li_plan_dst_bytes(pk), cb, hb);
  /* pack */
  memset(got, 0x5A, hb);
  st = li_plan_run(pk, x, cb, got, hb, 1, &err);
  CHECK(st == LAY_OK && memcmp(got, want, hb) == 0, "%s: pack differs", name);
  if (memcmp(got, want, hb)) hexdiff(name, got, want, hb);
  /* two threads */
  memset(got, 0x5A, hb);
  li_plan_run(pk, x, cb, got, hb, 2, &err);
  CHECK(memcmp(got, want, hb) == 0, "%s: pack with 2 threads differs", name);
  /* short buffers */
  memset(got, 0x5A, hb);
  st = li_plan_run(pk, x, cb - 1, got, hb, 1, &err);
  CHECK(st == LAY_E_BUFFER, "%s: short input accepted", name);
  st = li_plan_run(pk, x, cb, got, hb - 1, 1, &err);
  CHECK(st == LAY_E_BUFFER && strstr(err.message, "output buffer is"),
        "%s: short output accepted", name);
  int untouched = 1;
  for (size_t i = 0; i < hb; i++) untouched &= got[i] == 0x5A;
  CHECK(untouched, "%s: a failed run wrote", name);
  /* unpack */
  r_unpack(&r, want, wback);
  memset(back, 0x5A, cb);
  st = li_plan_run(up, want, hb, back, cb, 1, &err);
  CHECK(st == LAY_OK && memcmp(back, wback, cb) == 0, "%s: unpack differs", name);
  if (memcmp(back, wback, cb)) hexdiff(name, back, wback, cb);
  memset(back, 0x5A, cb);
  li_plan_run(up, want, hb, back, cb, 2, &err);
  CHECK(memcmp(back, wback, cb) == 0, "%s: unpack with 2 threads differs", name);
  if (lossless(ir, cpu)) {
    int64_t xx[8];
    int same = 1;
    for (int64_t k = 0; k < n && same; k++) {
      r_unravel(k, shape, rank, xx);
      if (rlay_in(&r, xx)) same = memcmp(back + k * r.csz, x + k * r.csz, r.csz) == 0;
    }
    CHECK(same, "%s: unpack(pack(x)) != x", name);
  }
  check_where_at(name, pk, &r);
  char *d = li_plan_describe(pk);
  CHECK(d && strstr(d, "boxes:"), "%s: describe", name);
  if (getenv("LAY_TEST_VERBOSE")) fprintf(stderr, "== %s\n%s", name, d);
  free(d);
out:
  li_plan_free(pk);
  li_plan_free(up);
  free(x); free(want); free(got); free(back); free(wback);
}

/* convert A -> B == pack_B(unpack_A(buffer)). */
static void check_convert(const char *name, const lg_ir *a, const lg_ir *b,
                          const int64_t *shape, lay_dtype cpu) {
  rlay ra, rb;
  int rank = a->rank;
  int64_t bshape[8];
  for (int j = 0; j < rank; j++)
    for (int i = 0; i < rank; i++)
      if (!strcmp(a->dim[i].name, b->dim[j].name)) bshape[j] = shape[i];
  rlay_init(&ra, a, shape, cpu);
  rlay_init(&rb, b, bshape, cpu);
  int64_t n = r_count(shape, rank);
  size_t ab = (size_t)ra.nelem * ra.hsz, bb = (size_t)rb.nelem * rb.hsz;
  uint8_t *x = malloc((size_t)n * ra.csz), *abuf = malloc(ab),
          *xa = malloc((size_t)n * ra.csz), *xb = malloc((size_t)n * ra.csz),
          *want = malloc(bb), *got = malloc(bb);
  fill_random(x, n, cpu);
  r_pack(&ra, x, abuf);
  r_unpack(&ra, abuf, xa);
  /* transpose xa into b's CPU order */
  int64_t xi[8], xj[8];
  for (int64_t k = 0; k < n; k++) {
    r_unravel(k, shape, rank, xi);
    for (int i = 0; i < rank; i++)
      for (int j = 0; j < rank; j++)
        if (!strcmp(a->dim[i].name, b->dim[j].name)) xj[j] = xi[i];
    int64_t kb = 0;
    for (int j = 0; j < rank; j++) kb = kb * bshape[j] + xj[j];
    memcpy(xb + kb * ra.csz, xa + k * ra.csz, ra.csz);
  }
  r_pack(&rb, xb, want);
  li_plan *p = NULL;
  lay_error err;
  lay_status st = li_plan_convert(a, b, shape, rank, cpu, &p, &err);
  CHECK(st == LAY_OK, "%s: convert plan: %s", name, err.message);
  if (p) {
    memset(got, 0x5A, bb);
    st = li_plan_run(p, abuf, ab, got, bb, 1, &err);
    CHECK(st == LAY_OK && memcmp(got, want, bb) == 0, "%s: convert differs", name);
    if (memcmp(got, want, bb)) hexdiff(name, got, want, bb);
    memset(got, 0x5A, bb);
    li_plan_run(p, abuf, ab, got, bb, 2, &err);
    CHECK(memcmp(got, want, bb) == 0, "%s: convert with 2 threads differs", name);
    if (memcmp(got, want, bb)) hexdiff(name, got, want, bb);
    if (getenv("LAY_TEST_VERBOSE")) {
      char *d = li_plan_describe(p);
      fprintf(stderr, "== %s\n%s", name, d);
      free(d);
    }
    /* where/at of a convert plan speak of the target buffer, coordinates
    ** in the source's order */
    int bad = 0;
    for (int64_t k = 0; k < n && !bad; k++) {
      int64_t xa[8], xb2[8], back[8];
      r_unravel(k, shape, rank, xa);
      for (int i = 0; i < rank; i++)
        for (int j = 0; j < rank; j++)
          if (!strcmp(a->dim[i].name, b->dim[j].name)) xb2[j] = xa[i];
      if (!rlay_in(&rb, xb2)) continue;
      uint64_t off = 0;
      int ispad = -1, plane = -1;
      bad |= li_plan_where(p, xa, rank, &off, &err) != LAY_OK ||
             off != (uint64_t)rlay_off(&rb, xb2) * rb.hsz;
      bad |= li_plan_at(p, off, back, rank, &ispad, &plane, &err) != LAY_OK ||
             ispad != 0 || memcmp(back, xa, sizeof(int64_t) * (size_t)rank);
    }
    CHECK(!bad, "%s: convert where/at", name);
  }
  li_plan_free(p);
  free(x); free(abuf); free(xa); free(xb); free(want); free(got);
}

/* ---- Layouts ------------------------------------------------------------- */
static void hcwnc(lg_ir *ir, int x) {
  static char l1[8][16], l2[8][16];
  static int k;
  ir_init(ir, "amd.hcwnc", "n,c,h,w");
  char *a = l1[k % 8], *b = l2[k % 8];
  k++;
  snprintf(a, 16, "c/%d", x);
  snprintf(b, 16, "c%%%d", x);
  ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 1, x, 0, a);
  ax_digit(ir, 3, 1, 0, "w");
  ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 1, 1, x, b);
}

static void plain(lg_ir *ir, const char *dims, const int *order, int n) {
  ir_init(ir, "plain", dims);
  for (int i = 0; i < n; i++) ax_digit(ir, order[i], 1, 0, ir->dim[order[i]].name);
}

static const int CROUTON[] = {0,0, 1,0, 2,0, 3,0, 1,8, 2,8, 3,32};
static const int CROUTON4X1[] = {0,0, 1,0, 2,0, 3,0, 1,8, 2,2, 3,32, 2,4};
static const int CONVW[] = {3,0, 2,0, 0,0, 1,0, 2,8, 3,32, 2,4};

static void tidl(lg_ir *ir, int pl, int pr, int pt, int pb, int pch,
                 int64_t ch_pitch, int64_t align) {
  ir_init(ir, "ti.tidl", "n,c,h,w");
  if (pch) ir->dim[1].after = C(pch);
  if (pt) ir->dim[2].before = C(pt);
  if (pb) ir->dim[2].after = C(pb);
  if (pl) ir->dim[3].before = C(pl);
  if (pr) ir->dim[3].after = C(pr);
  ax_digit(ir, 0, 1, 0, "n");
  lg_ir_axis *c = ax_digit(ir, 1, 1, 0, "c");
  lg_ir_axis *h = ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 3, 1, 0, "w");
  if (ch_pitch) c->stride = C(ch_pitch);
  if (align) h->align = C(align);
  ir->value.pad_value = 3;
}

static void k16w1c8b(lg_ir *ir) {
  ir_init(ir, "kneron.16w1c8b", "n,c,h,w");
  ir->dim[3].after = SUB(CEILX(DIM(3), C(16)), DIM(3));
  ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 1, 1, 0, "c");
  ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 3, 1, 0, "w");
}

static void k4w4c8b(lg_ir *ir) {
  ir_init(ir, "kneron.4w4c8b", "n,c,h,w");
  ir->dim[3].after = SUB(CEILX(DIM(3), C(4)), DIM(3));
  ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 1, 4, 0, "c/4");
  ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 3, 1, 0, "w");
  ax_digit(ir, 1, 1, 4, "c%4");
}

static void k1w16c8bhl(lg_ir *ir) {
  ir_init(ir, "kneron.1w16c8bhl", "n,c,h,w");
  ir->value.cpu = LAY_DT_INT16;
  ir->value.nplanes = 2;
  ir->value.plane[0].name = "lo";
  ir->value.plane[0].shift = 1;
  ir->value.plane[0].mask = 0x7f;
  ir->value.plane[1].name = "hi";
  ir->value.plane[1].shift = 8;
  ir->value.plane[1].mask = 0xff;
  ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 1, 16, 0, "c/16");
  ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 3, 1, 0, "w");
  ax_plane(ir);
  ax_digit(ir, 1, 1, 16, "c%16");
}

static double q_num[64], q_den[64], q_zp[64], q_xoff[64];

static void quant(lg_ir *ir, double scale, double zp, lg_round rm, int axis,
                  int n, lay_dtype hw) {
  ir->value.kind = LG_V_AFFINE;
  ir->value.cpu = LAY_DT_FP32;
  ir->value.hw = hw;
  ir->value.round = rm;
  ir->value.axis = axis;
  ir->value.n = n;
  for (int i = 0; i < n; i++) {
    q_num[i] = 1;
    q_den[i] = scale * (1 + i % 3);
    q_zp[i] = zp - (i % 2);
    q_xoff[i] = 0;
  }
  ir->value.num = q_num; ir->value.den = q_den;
  ir->value.zp = q_zp; ir->value.xoff = q_xoff;
}

/* ---- Groups ------------------------------------------------------------- */
static void t_hcwnc(void) {
  lg_ir ir;
  int64_t s1[] = {1, 3, 5, 7}, s2[] = {2, 11, 3, 5}, s3[] = {1, 3, 224, 224},
          s4[] = {1, 20, 7, 7};
  hcwnc(&ir, 1); /* c/1 and c%1: equal divisors, the bounded digit inner */
  check_layout("hcwnc1 2x11x3x5 int8", &ir, s2, LAY_DT_INT8);
  hcwnc(&ir, 4);
  check_layout("hcwnc4 1x3x5x7 int8", &ir, s1, LAY_DT_INT8);
  check_layout("hcwnc4 2x11x3x5 int16", &ir, s2, LAY_DT_INT16);
  check_layout("hcwnc4 1x3x224x224 int8", &ir, s3, LAY_DT_INT8);
  check_layout("hcwnc4 2x11x3x5 int32", &ir, s2, LAY_DT_INT32);
  hcwnc(&ir, 8);
  check_layout("hcwnc8 2x11x3x5 int8", &ir, s2, LAY_DT_INT8);
  check_layout("hcwnc8 1x20x7x7 uint16", &ir, s4, LAY_DT_UINT16);
  check_layout("hcwnc8 1x3x5x7 fp32", &ir, s1, LAY_DT_FP32);
  ir.dim[1].fixed = 3; /* fixed size matches */
  check_layout("hcwnc8 fixed c", &ir, s1, LAY_DT_INT8);
  /* tiles across two loops (interleave / deinterleave) */
  int64_t t1[] = {1, 64, 7, 7}, t2[] = {1, 13, 7, 7}, t3[] = {1, 13, 3, 6};
  hcwnc(&ir, 8);
  check_layout("hcwnc8 1x64x7x7 (tiles)", &ir, t1, LAY_DT_INT8);
  check_layout("hcwnc8 1x13x7x7 (tiles, pads)", &ir, t2, LAY_DT_UINT8);
  hcwnc(&ir, 4);
  check_layout("hcwnc4 1x13x3x6 (tiles)", &ir, t3, LAY_DT_INT8);
  hcwnc(&ir, 2);
  check_layout("hcwnc2 1x13x7x7 (tiles)", &ir, t2, LAY_DT_INT8);
  /* SSE interleave widths 8 and 2 with tails, runtime-width blocks */
  int64_t s5[] = {1, 8, 4, 37}, s6[] = {1, 13, 3, 40}, s7[] = {1, 2, 3, 35},
          s8[] = {2, 5, 7, 7};
  hcwnc(&ir, 8);
  check_layout("hcwnc8 1x8x4x37 (interleave 8)", &ir, s5, LAY_DT_INT8);
  check_layout("hcwnc8 1x13x3x40 (interleave 8 + pads)", &ir, s6, LAY_DT_UINT8);
  check_layout("hcwnc8 2x5x7x7 int16", &ir, s8, LAY_DT_INT16);
  hcwnc(&ir, 2);
  check_layout("hcwnc2 1x2x3x35 (interleave 2)", &ir, s7, LAY_DT_INT8);
  check_layout("hcwnc2 1x13x3x40", &ir, s6, LAY_DT_INT8);
  /* a pad before a chunked dim: fused rows with pads before and after */
  hcwnc(&ir, 4);
  ir.dim[1].before = C(1);
  ir.value.pad_value = 2;
  int64_t s9[] = {1, 6, 3, 33};
  check_layout("hcwnc4 c pad before 1", &ir, s9, LAY_DT_INT8);
  check_layout("hcwnc4 c pad before 1 int32", &ir, s9, LAY_DT_INT32);
}

static void t_chunked(void) {
  lg_ir ir;
  int64_t s1[] = {1, 3, 5, 30}, s2[] = {2, 9, 20, 50}, s3[] = {1, 56, 56, 64};
  ir_chunked(&ir, "qnn.crouton", "b,h,w,d", CROUTON, 7);
  check_layout("crouton 1x3x5x30", &ir, s1, LAY_DT_UINT8);
  check_layout("crouton 2x9x20x50", &ir, s2, LAY_DT_INT8);
  check_layout("crouton 1x56x56x64 fp16", &ir, s3, LAY_DT_FP16);
  ir_chunked(&ir, "qnn.crouton4x1", "b,h,w,d", CROUTON4X1, 8);
  check_layout("crouton4x1 1x3x5x30", &ir, s1, LAY_DT_UINT8);
  check_layout("crouton4x1 2x9x20x50", &ir, s2, LAY_DT_INT16);
  ir_chunked(&ir, "qnn.conv_weight", "fh,fw,cin,cout", CONVW, 7);
  int64_t w1[] = {3, 3, 13, 40}, w2[] = {1, 1, 32, 32};
  check_layout("conv_weight 3x3x13x40", &ir, w1, LAY_DT_INT8);
  check_layout("conv_weight 1x1x32x32", &ir, w2, LAY_DT_INT8);
}

static void t_tidl(void) {
  lg_ir ir;
  int64_t s1[] = {1, 3, 5, 7}, s2[] = {2, 4, 6, 9}, s3[] = {1, 64, 32, 32};
  tidl(&ir, 1, 1, 1, 1, 0, 0, 0);
  check_layout("tidl 1 pads", &ir, s1, LAY_DT_INT8);
  check_layout("tidl 1 pads big", &ir, s3, LAY_DT_INT8);
  tidl(&ir, 2, 1, 0, 3, 1, 0, 0);
  check_layout("tidl asym + pad_ch", &ir, s2, LAY_DT_INT16);
  tidl(&ir, 1, 1, 1, 1, 0, 100, 0);
  check_layout("tidl ch_pitch 100", &ir, s2, LAY_DT_INT8);
  tidl(&ir, 1, 2, 1, 1, 0, 0, 16);
  check_layout("tidl align 16", &ir, s2, LAY_DT_INT8);
  tidl(&ir, 1, 2, 1, 1, 2, 211, 8);
  check_layout("tidl ch_pitch + align", &ir, s2, LAY_DT_UINT16);
  /* one row with its pads as the whole data box, in an output big enough
  ** (>= 64 KiB) for two threads: the row must not be cut between them */
  int64_t s4[] = {1, 1, 1, 6};
  tidl(&ir, 2, 3, 0, 7000, 0, 0, 0);
  check_layout("tidl one padded row, 2 threads", &ir, s4, LAY_DT_INT16);
  check_layout("tidl one padded row, 2 threads int8", &ir, s4, LAY_DT_INT8);
}

static void t_kneron(void) {
  lg_ir ir;
  int64_t s1[] = {1, 3, 5, 7}, s2[] = {2, 9, 3, 21}, s3[] = {1, 20, 3, 5};
  k16w1c8b(&ir);
  check_layout("16w1c8b 1x3x5x7", &ir, s1, LAY_DT_INT8);
  check_layout("16w1c8b 2x9x3x21", &ir, s2, LAY_DT_INT8);
  k4w4c8b(&ir);
  check_layout("4w4c8b 1x3x5x7", &ir, s1, LAY_DT_INT8);
  check_layout("4w4c8b 2x9x3x21", &ir, s2, LAY_DT_INT8);
  k1w16c8bhl(&ir);
  check_layout("1w16c8bhl 1x20x3x5", &ir, s3, LAY_DT_INT16);
  check_layout("1w16c8bhl 2x9x3x21", &ir, s2, LAY_DT_INT16);
  /* fixed point int16 through the planes (kneron.16w1c8bhl_q) */
  lg_ir q;
  k1w16c8bhl(&q);
  quant(&q, 1, 0, LG_R_HALF_AWAY, -1, 1, LAY_DT_INT16);
  q_num[0] = 256;
  q_den[0] = 1;
  check_layout("1w16c8bhl fixed radix 8", &q, s2, LAY_DT_FP32);
  lg_ir h4;
  hcwnc(&h4, 4);
  check_convert("1w16c8bhl fixed -> hcwnc4 fp32", &q, &h4, s3, LAY_DT_FP32);
  check_convert("hcwnc4 fp32 -> 1w16c8bhl fixed", &h4, &q, s3, LAY_DT_FP32);
  /* the documented values: 0x1234 -> lo 0x1A, hi 0x12; -1 unpacks to -2 */
  int64_t one[] = {1, 1, 1, 1};
  li_plan *p = NULL, *u = NULL;
  lay_error err;
  CHECK(li_plan_build(&ir, one, 4, LAY_DT_NONE, LAY_PACK, &p, &err) == LAY_OK,
        "hl plan: %s", err.message);
  CHECK(li_plan_build(&ir, one, 4, LAY_DT_NONE, LAY_UNPACK, &u, &err) == LAY_OK,
        "hl unplan: %s", err.message);
  if (p && u) {
    int16_t v = 0x1234, back = 0;
    uint8_t buf[32];
    CHECK(li_plan_dst_bytes(p) == 32, "hl bytes %zu", li_plan_dst_bytes(p));
    li_plan_run(p, &v, 2, buf, 32, 1, &err);
    CHECK(buf[0] == 0x1A && buf[16] == 0x12, "hl 0x1234 -> %02x %02x", buf[0], buf[16]);
    v = -1;
    li_plan_run(p, &v, 2, buf, 32, 1, &err);
    li_plan_run(u, buf, 32, &back, 2, 1, &err);
    CHECK(back == -2, "hl -1 -> %d", back);
    int64_t c[4];
    int pad, plane;
    CHECK(li_plan_at(p, 16, c, 4, &pad, &plane, &err) == LAY_OK && plane == 1 &&
              pad == 0 && c[1] == 0, "hl at(16) plane %d pad %d", plane, pad);
    CHECK(li_plan_at(p, 17, c, 4, &pad, &plane, &err) == LAY_OK && plane == 1 &&
              pad == 1 && c[1] == 1, "hl at(17) plane %d pad %d c %lld", plane, pad,
          (long long)c[1]);
  }
  li_plan_free(p);
  li_plan_free(u);
  CHECK(li_plan_build(&ir, one, 4, LAY_DT_INT8, LAY_PACK, &p, &err) == LAY_E_TYPE &&
            !strcmp(err.message, "--dtype int8 contradicts the layout's int16"),
        "dtype conflict: %s", err.message);
}

static void t_window(void) {
  lg_ir ir;
  int64_t s1[] = {2, 5, 6, 7};
  int ord[] = {0, 2, 3, 1};
  plain(&ir, "n,c,h,w", ord, 4);
  ir.dim[2].lo = C(1);
  ir.dim[2].hi = SUB(DIM(2), C(1));
  ir.dim[3].lo = C(2);
  ir.dim[3].before = C(1);
  ir.dim[3].after = C(2);
  ir.value.pad_value = -1;
  check_layout("slice window nhwc", &ir, s1, LAY_DT_INT8);
  check_layout("slice window nhwc fp32", &ir, s1, LAY_DT_FP32);
  /* unit axis and a dimension of size 1 in no axis */
  ir_init(&ir, "unit", "n,c,h,w");
  ax_digit(&ir, 1, 1, 0, "c");
  ax_unit(&ir);
  ax_digit(&ir, 2, 1, 0, "h");
  ax_unit(&ir);
  ax_digit(&ir, 3, 1, 0, "w");
  int64_t s2[] = {1, 4, 3, 5};
  check_layout("unit axes, n absent", &ir, s2, LAY_DT_INT16);
}

static void t_values(void) {
  lg_ir ir;
  int64_t s1[] = {1, 3, 6, 10}, s2[] = {2, 5, 4, 4};
  const char *rn[] = {"half-even", "half-away", "trunc"};
  char nm[96];
  for (int rm = 0; rm < 3; rm++) {
    hcwnc(&ir, 8);
    quant(&ir, 1.0 / 128, 0, (lg_round)rm, -1, 1, LAY_DT_INT8);
    snprintf(nm, sizeof nm, "quantize int8 %s", rn[rm]);
    check_layout(nm, &ir, s1, LAY_DT_FP32);
    hcwnc(&ir, 4);
    quant(&ir, 0.25, 3, (lg_round)rm, 1, 5, LAY_DT_UINT8);
    snprintf(nm, sizeof nm, "quantize per-channel uint8 %s", rn[rm]);
    check_layout(nm, &ir, s2, LAY_DT_FP32);
  }
  /* per-channel with a window: unpack fills the rest with the pad
  ** dequantized per channel */
  hcwnc(&ir, 4);
  quant(&ir, 0.25, 3, LG_R_HALF_EVEN, 1, 5, LAY_DT_INT8);
  ir.dim[2].lo = C(1);
  ir.dim[1].hi = C(4);
  ir.value.pad_value = 5;
  check_layout("per-channel quantize with window", &ir, s2, LAY_DT_FP32);
  hcwnc(&ir, 8);
  quant(&ir, 1.0 / 128, 0, LG_R_HALF_EVEN, -1, 1, LAY_DT_INT8);
  int64_t big[] = {1, 3, 64, 64};
  check_layout("quantize int8 big", &ir, big, LAY_DT_FP32);
  /* the SSE2 path: power-of-two scales, integral zero points */
  for (int rm = 0; rm < 3; rm++) {
    lay_dtype qt[] = {LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16};
    for (int k = 0; k < 3; k++) {
      hcwnc(&ir, 8);
      quant(&ir, k == 2 ? 1.0 / 512 : 0.25, k == 1 ? 3 : -2, (lg_round)rm, -1,
            1, qt[k]);
      snprintf(nm, sizeof nm, "quantize pow2 %s type %d", rn[rm], (int)qt[k]);
      check_layout(nm, &ir, big, LAY_DT_FP32);
    }
  }
  /* Kneron fixed point: num = S * 2^R, den = 1, int16 */
  hcwnc(&ir, 4);
  quant(&ir, 1, 0, LG_R_HALF_AWAY, -1, 1, LAY_DT_INT16);
  q_num[0] = 0.75 * 128;
  q_den[0] = 1;
  check_layout("fixed point radix 7", &ir, s1, LAY_DT_FP32);
  /* TIDL style: xoff, trunc, int16 */
  quant(&ir, 1, 0, LG_R_TRUNC, -1, 1, LAY_DT_INT16);
  q_xoff[0] = 1.5;
  q_num[0] = 32;
  q_den[0] = 0.5;
  check_layout("tidl quant xoff trunc", &ir, s1, LAY_DT_FP32);
  /* casts */
  lay_dtype to[] = {LAY_DT_BF16, LAY_DT_FP16, LAY_DT_INT16};
  for (int k = 0; k < 3; k++) {
    hcwnc(&ir, 4);
    ir.value.kind = LG_V_CAST;
    ir.value.cpu = LAY_DT_FP32;
    ir.value.hw = to[k];
    snprintf(nm, sizeof nm, "cast fp32 -> %d", (int)to[k]);
    check_layout(nm, &ir, s1, LAY_DT_FP32);
    check_layout(nm, &ir, big, LAY_DT_FP32);
  }
  /* dequantizing pack: CPU int8 -> fp32 */
  hcwnc(&ir, 4);
  quant(&ir, 0.5, 2, LG_R_HALF_EVEN, -1, 1, LAY_DT_FP32);
  ir.value.cpu = LAY_DT_INT8;
  ir.value.dequant = 1;
  check_layout("dequant int8 -> fp32", &ir, s1, LAY_DT_INT8);
  /* fp16 specials, checked directly */
  float fs[] = {1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65520.0f, 65519.0f,
                0x1p-25f, 0x1.8p-25f, 0x1p-24f, -0.0f, 6.1e-5f, 0x1.ffcp-15f,
                0x1.ffep-15f, -3.0e-6f, 1e9f, -65504.0f, 0x1.002p0f};
  for (unsigned i = 0; i < sizeof fs / sizeof *fs; i++) {
    uint16_t w = r_f16(fs[i], LG_R_HALF_EVEN), g = li_f32_to_f16(fs[i]);
    CHECK(g == w, "fp16(%a) = %04x want %04x", (double)fs[i], g, w);
  }
}

/* check_convert, and the plan is one plan whose data go through a table
** loop of offset pairs (the digits of a dimension have no common radix). */
static void check_convert_kernel(const char *name, const lg_ir *a,
                                 const lg_ir *b, const int64_t *shape,
                                 lay_dtype cpu) {
  check_convert(name, a, b, shape, cpu);
  li_plan *p = NULL;
  lay_error err;
  if (li_plan_convert(a, b, shape, a->rank, cpu, &p, &err)) return;
  char *d = li_plan_describe(p);
  CHECK(d && strstr(d, "element copy through offset pairs") &&
            strstr(d, "table of offset pairs"),
        "%s: no table loop in the plan:\n%s", name, d ? d : "");
  free(d);
  li_plan_free(p);
}

static void t_convert(void) {
  lg_ir a, b;
  int64_t s1[] = {1, 11, 5, 7}, s2[] = {2, 6, 3, 5};
  hcwnc(&a, 4);
  hcwnc(&b, 8);
  check_convert("hcwnc4 -> hcwnc8", &a, &b, s1, LAY_DT_INT8);
  check_convert("hcwnc8 -> hcwnc4", &b, &a, s1, LAY_DT_INT16);
  int nhwc[] = {0, 1, 2, 3};
  plain(&a, "n,h,w,c", nhwc, 4);
  hcwnc(&b, 4);
  int64_t s3[] = {1, 10, 19, 3};
  check_convert("nhwc -> hcwnc4", &a, &b, s3, LAY_DT_UINT8);
  int64_t s4[] = {1, 108, 192, 3};
  check_convert("nhwc -> hcwnc4 big", &a, &b, s4, LAY_DT_UINT8);
  hcwnc(&b, 8);
  int64_t s4b[] = {1, 6, 37, 5};
  check_convert("nhwc -> hcwnc8 (expand 5 -> 8)", &a, &b, s4b, LAY_DT_INT8);
  hcwnc(&b, 4);
  b.dim[1].before = C(1);
  b.value.pad_value = 7;
  check_convert("nhwc -> hcwnc4 c pad before (expand, pre 1)", &a, &b, s4, LAY_DT_INT8);
  hcwnc(&b, 4);
  ir_chunked(&a, "crouton", "b,h,w,d", CROUTON, 7);
  ir_chunked(&b, "crouton4x1", "b,h,w,d", CROUTON4X1, 8);
  int64_t s5[] = {2, 9, 20, 50};
  check_convert("crouton -> crouton4x1", &a, &b, s5, LAY_DT_INT8);
  tidl(&a, 1, 1, 1, 1, 0, 0, 0);
  k4w4c8b(&b);
  check_convert("tidl -> 4w4c8b", &a, &b, s2, LAY_DT_INT8);
  /* a window on the source: elements it lacks get its pad, converted */
  int ord[] = {0, 1, 2, 3};
  plain(&a, "n,c,h,w", ord, 4);
  a.dim[2].lo = C(1);
  a.value.pad_value = 9;
  tidl(&b, 2, 0, 1, 0, 0, 0, 0);
  check_convert("window -> tidl", &a, &b, s2, LAY_DT_INT8);
  /* values: quantized A -> plain fp32 B (dequantize on the way) */
  hcwnc(&a, 4);
  quant(&a, 0.125, 1, LG_R_HALF_EVEN, -1, 1, LAY_DT_INT8);
  hcwnc(&b, 8);
  b.value.cpu = LAY_DT_FP32;
  check_convert("quantized hcwnc4 -> fp32 hcwnc8", &a, &b, s1, LAY_DT_FP32);
  k1w16c8bhl(&a);
  tidl(&b, 1, 1, 0, 0, 0, 0, 0);
  int64_t s6[] = {1, 20, 3, 5};
  check_convert("1w16c8bhl -> tidl int16", &a, &b, s6, LAY_DT_INT16);
  /* c%3 against c%4: no common radix; still one plan (no intermediate
  ** buffer), with c as a table loop of offset pairs */
  hcwnc(&a, 4);
  hcwnc(&b, 3);
  check_convert_kernel("hcwnc4 -> hcwnc3 (table loop)", &a, &b, s1, LAY_DT_INT8);
  check_convert_kernel("hcwnc3 -> hcwnc4 (table loop)", &b, &a, s2, LAY_DT_INT16);
  int64_t sbig[] = {1, 1001, 9, 9}; /* >= 64 KiB: two threads split it */
  check_convert_kernel("hcwnc3 -> hcwnc4 big (table loop)", &b, &a, sbig, LAY_DT_INT8);
  int64_t sc[] = {1, 1000, 1, 1}; /* the table loop is the only loop */
  check_convert_kernel("hcwnc3 -> hcwnc4 one pixel (table loop)", &b, &a, sc, LAY_DT_FP32);
  /* a pad of 1 before c shifts one side off the other's digits */
  hcwnc(&b, 4);
  b.dim[1].before = C(1);
  b.value.pad_value = 5;
  check_convert_kernel("hcwnc4 -> hcwnc4 with c shifted by 1 (table loop)", &a, &b,
                       s1, LAY_DT_UINT8);
  /* values through a table loop: quantize per channel along c */
  hcwnc(&a, 4);
  a.value.cpu = LAY_DT_FP32;
  hcwnc(&b, 3);
  quant(&b, 0.25, 2, LG_R_HALF_EVEN, 1, 11, LAY_DT_INT8);
  check_convert_kernel("fp32 hcwnc4 -> per-channel quantized hcwnc3 (table loop)",
                       &a, &b, s1, LAY_DT_FP32);
  /* two table dimensions (c and h), one of them an outer loop */
  ir_init(&a, "a", "n,c,h,w");
  ax_digit(&a, 0, 1, 0, "n");
  ax_digit(&a, 1, 3, 0, "c/3");
  ax_digit(&a, 2, 5, 0, "h/5");
  ax_digit(&a, 3, 1, 0, "w");
  ax_digit(&a, 2, 1, 5, "h%5");
  ax_digit(&a, 1, 1, 3, "c%3");
  ir_init(&b, "b", "n,c,h,w");
  ax_digit(&b, 0, 1, 0, "n");
  ax_digit(&b, 2, 2, 0, "h/2");
  ax_digit(&b, 1, 4, 0, "c/4");
  ax_digit(&b, 3, 1, 0, "w");
  ax_digit(&b, 1, 1, 4, "c%4");
  ax_digit(&b, 2, 1, 2, "h%2");
  int64_t s7[] = {2, 7, 9, 3}, s8[] = {1, 130, 31, 11};
  check_convert_kernel("two table dimensions", &a, &b, s7, LAY_DT_INT8);
  check_convert_kernel("two table dimensions, big", &b, &a, s8, LAY_DT_INT16);
  /* name errors */
  plain(&a, "n,c,h,w", ord, 4);
  plain(&b, "n,c,h,x", ord, 4);
  li_plan *p = NULL;
  lay_error err;
  CHECK(li_plan_convert(&a, &b, s2, 4, LAY_DT_NONE, &p, &err) == LAY_E_NAME &&
            strstr(err.message, "'w'"), "convert name error: %s", err.message);
}

static void t_errors(void) {
  lg_ir ir;
  li_plan *p = NULL;
  lay_error err;
  hcwnc(&ir, 4);
  int64_t s3[] = {1, 3, 5}, s0[] = {1, 0, 5, 5}, sf[] = {1, 3, 5, 5};
  CHECK(li_plan_build(&ir, s3, 3, LAY_DT_NONE, LAY_PACK, &p, &err) == LAY_E_SHAPE &&
            !strcmp(err.message, "shape has 3 dimensions, the layout has 4"),
        "rank: %s", err.message);
  CHECK(li_plan_build(&ir, s0, 4, LAY_DT_NONE, LAY_PACK, &p, &err) == LAY_E_SHAPE,
        "zero dim: %s", err.message);
  ir.dim[1].fixed = 4;
  CHECK(li_plan_build(&ir, sf, 4, LAY_DT_NONE, LAY_PACK, &p, &err) == LAY_E_SHAPE &&
            !strcmp(err.message, "dimension 'c' is 3, the layout fixes 4"),
        "fixed: %s", err.message);
  hcwnc(&ir, 4);
  int64_t huge[] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
  CHECK(li_plan_build(&ir, huge, 4, LAY_DT_FP32, LAY_PACK, &p, &err) == LAY_E_OVERFLOW &&
            !strcmp(err.message, "buffer size overflows 64 bits"),
        "overflow: %s", err.message);
  int64_t huge2[] = {1, (int64_t)1 << 61, 1, 3};
  CHECK(li_plan_build(&ir, huge2, 4, LAY_DT_FP32, LAY_UNPACK, &p, &err) == LAY_E_OVERFLOW,
        "overflow 2: %s", err.message);
  /* explicit stride overlap */
  ir_init(&ir, "overlap", "a,b");
  lg_ir_axis *x = ax_digit(&ir, 0, 1, 0, "a");
  ax_digit(&ir, 1, 1, 0, "b");
  x->stride = C(1);
  int64_t s22[] = {2, 2};
  CHECK(li_plan_build(&ir, s22, 2, LAY_DT_NONE, LAY_PACK, &p, &err) == LAY_E_LAYOUT &&
            !strcmp(err.message,
                    "layout is not a bijection: (0,1) and (1,0) both map to offset 1"),
        "overlap: %s", err.message);
  /* a valid explicit transposition by strides */
  x->stride = C(1);
  ir.axis[1].stride = C(3);
  int64_t s23[] = {3, 4};
  check_layout("explicit strides transposed", &ir, s23, LAY_DT_INT16);
  /* strides that interleave (11 is below the span 22 of b) and still map
  ** the 16 elements to 16 offsets: 11a + 3b, 11 = 2 mod 3 (issue 21) */
  x->stride = C(11);
  int64_t s28[] = {2, 8};
  check_layout("interleaved strides, a bijection", &ir, s28, LAY_DT_INT8);
  x->stride = C(12);
  CHECK(li_plan_build(&ir, s28, 2, LAY_DT_INT8, LAY_PACK, &p, &err) == LAY_E_LAYOUT &&
            !strcmp(err.message,
                    "layout is not a bijection: (0,4) and (1,0) both map to offset 12"),
        "interleaved overlap: %s", err.message);
  /* too many interleaved grid points to enumerate: a clear limit error */
  x->stride = C(4097);
  int64_t s4k[] = {4096, 4096};
  CHECK(li_plan_build(&ir, s4k, 2, LAY_DT_INT8, LAY_PACK, &p, &err) == LAY_E_LIMIT &&
            strstr(err.message, "cannot decide whether the layout is a bijection") &&
            strstr(err.message, "16777216 grid points"),
        "interleaved limit: %s", err.message);
  x->stride = C(1);
  ir.axis[1].stride = NULL;
  /* an open dtype meets the pad value at plan time: it must fit */
  ir.value.pad_value = 70000;
  CHECK(li_plan_build(&ir, s23, 2, LAY_DT_FP16, LAY_PACK, &p, &err) == LAY_E_ARG &&
            !strcmp(err.message, "pad_value 70000 does not fit fp16"),
        "pad_value fp16: %s", err.message);
  CHECK(li_plan_build(&ir, s23, 2, LAY_DT_INT16, LAY_PACK, &p, &err) == LAY_E_ARG &&
            !strcmp(err.message, "pad_value 70000 does not fit int16"),
        "pad_value int16: %s", err.message);
  ir.value.pad_value = 0;
  CHECK(p == NULL, "plan left on error");
}

/* A gather-table layout on `shape` against the reference (each hardware
** element e holds CPU element tab[e] through the value rule, or the pad),
** pack and unpack on one and two threads, and the plan's words for the
** compressed table must contain `desc`. */
static void check_table(const char *name, lg_ir *ir, int64_t *tab, int64_t n,
                        const int64_t *shape, lay_dtype cpu, const char *desc) {
  ir->table = tab;
  ir->ntable = n;
  rlay r;
  memset(&r, 0, sizeof r);
  r.ir = ir;
  r.rank = ir->rank;
  r.cpu = cpu;
  r.hw = ir->value.hw ? ir->value.hw : cpu;
  r.csz = dsz(cpu);
  r.hsz = dsz(r.hw);
  int64_t nc = r_count(shape, ir->rank), x[8];
  int ax = ir->value.axis;
  uint8_t *in = malloc((size_t)nc * r.csz), *want = malloc((size_t)n * r.hsz),
          *got = malloc((size_t)n * r.hsz), *wback = malloc((size_t)nc * r.csz),
          *back = malloc((size_t)nc * r.csz), pad[8];
  fill_random(in, nc, cpu);
  r_pad(&r, pad);
  for (int64_t k = 0; k < nc; k++) { /* elements no entry holds: the pad */
    r_unravel(k, shape, ir->rank, x);
    r_decode(&r, pad, 1, wback + k * r.csz, ax >= 0 ? x[ax] : 0);
  }
  for (int64_t e = 0; e < n; e++) {
    if (tab[e] < 0) {
      memcpy(want + e * r.hsz, pad, r.hsz);
      continue;
    }
    r_unravel(tab[e], shape, ir->rank, x);
    int64_t ch = ax >= 0 ? x[ax] : 0;
    r_encode(&r, in + tab[e] * r.csz, want + e * r.hsz, 0, ch);
    r_decode(&r, want + e * r.hsz, 0, wback + tab[e] * r.csz, ch);
  }
  li_plan *p = NULL, *u = NULL;
  lay_error err;
  CHECK(li_plan_build(ir, shape, ir->rank, cpu, LAY_PACK, &p, &err) == LAY_OK,
        "%s: pack plan: %s", name, err.message);
  CHECK(li_plan_build(ir, shape, ir->rank, cpu, LAY_UNPACK, &u, &err) == LAY_OK,
        "%s: unpack plan: %s", name, err.message);
  for (int th = 1; p && u && th <= 2; th++) {
    memset(got, 0x5A, (size_t)n * r.hsz);
    li_plan_run(p, in, (size_t)nc * r.csz, got, (size_t)n * r.hsz, th, &err);
    CHECK(!memcmp(got, want, (size_t)n * r.hsz), "%s: pack on %d thread(s)", name, th);
    if (memcmp(got, want, (size_t)n * r.hsz)) hexdiff(name, got, want, (size_t)n * r.hsz);
    memset(back, 0x5A, (size_t)nc * r.csz);
    li_plan_run(u, want, (size_t)n * r.hsz, back, (size_t)nc * r.csz, th, &err);
    CHECK(!memcmp(back, wback, (size_t)nc * r.csz), "%s: unpack on %d thread(s)",
          name, th);
  }
  if (p) {
    char *d = li_plan_describe(p);
    CHECK(d && strstr(d, desc), "%s: the plan says\n%s\nnot '%s'", name,
          d ? d : "", desc);
    free(d);
  }
  li_plan_free(p);
  li_plan_free(u);
  free(in); free(want); free(got); free(wback); free(back);
}

static void t_table(void) {
  lg_ir ir;
  /* 2x3 tensor, hw = its transpose and one pad */
  ir_init(&ir, "table", "a,b");
  ir.value.pad_value = 7;
  static int64_t t1[] = {0, 3, 1, 4, 2, 5, -1};
  int64_t s1[] = {2, 3};
  check_table("transpose + pad", &ir, t1, 7, s1, LAY_DT_INT8,
              "1 tile of 7 entries (56 table bytes)");
  /* [A, B, R] -> [B, A, R]: runs of R; tile A*R repeated B times */
  enum { A = 5, B = 4, R = 1000 };
  static int64_t t2[A * B * R];
  for (int64_t b = 0; b < B; b++)
    for (int64_t a = 0; a < A; a++)
      for (int64_t k = 0; k < R; k++) t2[(b * A + a) * R + k] = (a * B + b) * R + k;
  ir_init(&ir, "table", "a,b,r");
  int64_t s2[] = {A, B, R};
  check_table("runs, tiles", &ir, t2, A * B * R, s2, LAY_DT_INT16,
              "4 tiles of 5000 in 5 runs (88 table bytes)");
  check_table("runs, tiles, fp32", &ir, t2, A * B * R, s2, LAY_DT_FP32,
              "4 tiles of 5000 in 5 runs");
  /* no structure: a scrambled order (64 KiB: two threads split it) */
  static int64_t t3[70000];
  for (int64_t e = 0; e < 70000; e++) t3[e] = (e * 7919) % 70000;
  ir_init(&ir, "table", "a,b");
  int64_t s3[] = {7, 10000};
  check_table("scrambled", &ir, t3, 70000, s3, LAY_DT_INT8,
              "1 tile of 70000 entries");
  /* a scrambled tile repeated per batch, with pads between tiles */
  static int64_t t4[6 * 40];
  for (int64_t bt = 0; bt < 6; bt++)
    for (int64_t r = 0; r < 40; r++)
      t4[bt * 40 + r] = r < 35 ? bt * 35 + (r * 11) % 35 : -1;
  ir_init(&ir, "table", "n,c");
  ir.value.pad_value = -3;
  int64_t s4[] = {6, 35};
  check_table("scrambled tiles with pads", &ir, t4, 240, s4, LAY_DT_INT8,
              "6 tiles of 40 entries");
  /* a slice: some CPU elements are in no entry (unpack fills them) */
  static int64_t t5[3000];
  for (int64_t e = 0; e < 3000; e++) t5[e] = e < 1500 ? e + 500 : e + 1000;
  ir_init(&ir, "table", "a,b");
  ir.value.pad_value = 9;
  int64_t s5[] = {4, 1000};
  check_table("slice", &ir, t5, 3000, s5, LAY_DT_UINT8, "2 tiles of 1500 in 1 run");
  /* values: quantized per channel along b, through runs */
  ir_init(&ir, "table", "a,b,r");
  quant(&ir, 0.25, 3, LG_R_HALF_EVEN, 1, B, LAY_DT_INT8);
  check_table("per-channel quantize", &ir, t2, A * B * R, s2, LAY_DT_FP32,
              "in 5 runs");
  ir_init(&ir, "table", "a,b,r");
  quant(&ir, 0.5, -1, LG_R_TRUNC, -1, 1, LAY_DT_INT16);
  check_table("quantize per tensor", &ir, t2, A * B * R, s2, LAY_DT_FP32,
              "in 5 runs");
}

/* convert A -> B where a side is a gather table: equal to unpack A, then
** pack B (each checked against the reference on its own), on one and two
** threads, and one plan: a table loop, no buffer in between. */
static void check_table_convert(const char *name, const lg_ir *a,
                                const lg_ir *b, const int64_t *shape,
                                lay_dtype cpu) {
  li_plan *pa = NULL, *ua = NULL, *pb = NULL, *cv = NULL;
  lay_error err;
  int64_t bshape[8];
  for (int i = 0; i < a->rank; i++)
    for (int j = 0; j < b->rank; j++)
      if (!strcmp(a->dim[i].name, b->dim[j].name)) bshape[j] = shape[i];
  CHECK(!li_plan_build(a, shape, a->rank, cpu, LAY_PACK, &pa, &err) &&
            !li_plan_build(a, shape, a->rank, cpu, LAY_UNPACK, &ua, &err) &&
            !li_plan_build(b, bshape, b->rank, cpu, LAY_PACK, &pb, &err),
        "%s: pack/unpack plans: %s", name, err.message);
  CHECK(!li_plan_convert(a, b, shape, a->rank, cpu, &cv, &err), "%s: convert: %s",
        name, err.message);
  if (pa && ua && pb && cv) {
    size_t xs = li_plan_src_bytes(pa), as = li_plan_dst_bytes(pa),
           bs = li_plan_dst_bytes(pb);
    uint8_t *x = malloc(xs), *abuf = malloc(as), *xa = malloc(xs),
            *xb = malloc(xs), *want = malloc(bs), *got = malloc(bs);
    int64_t n = 1, xi[8], xj[8];
    for (int i = 0; i < a->rank; i++) n *= shape[i];
    fill_random(x, n, cpu);
    li_plan_run(pa, x, xs, abuf, as, 1, &err);
    li_plan_run(ua, abuf, as, xa, xs, 1, &err);
    size_t es = xs / (size_t)n;
    for (int64_t k = 0; k < n; k++) { /* xa into b's CPU order */
      r_unravel(k, shape, a->rank, xi);
      for (int i = 0; i < a->rank; i++)
        for (int j = 0; j < b->rank; j++)
          if (!strcmp(a->dim[i].name, b->dim[j].name)) xj[j] = xi[i];
      int64_t kb = 0;
      for (int j = 0; j < b->rank; j++) kb = kb * bshape[j] + xj[j];
      memcpy(xb + kb * (int64_t)es, xa + k * (int64_t)es, es);
    }
    li_plan_run(pb, xb, xs, want, bs, 1, &err);
    for (int th = 1; th <= 2; th++) {
      memset(got, 0x5A, bs);
      li_plan_run(cv, abuf, as, got, bs, th, &err);
      CHECK(!memcmp(got, want, bs), "%s: convert on %d thread(s) != unpack + pack",
            name, th);
      if (memcmp(got, want, bs)) hexdiff(name, got, want, bs);
    }
    char *d = li_plan_describe(cv);
    CHECK(d && strstr(d, "table of offset pairs") && !strstr(d, "stage"),
          "%s: not one plan with a table loop:\n%s", name, d ? d : "");
    free(d);
    free(x); free(abuf); free(xa); free(xb); free(want); free(got);
  }
  li_plan_free(pa);
  li_plan_free(ua);
  li_plan_free(pb);
  li_plan_free(cv);
}

static void t_table_convert(void) {
  lg_ir a, b;
  /* a transposed (a, b, r) with a pad after each tile, as a table */
  enum { A = 5, B = 4, R = 300 };
  static int64_t t1[B * (A * R + 3)];
  for (int64_t bb = 0, e = 0; bb < B; bb++) {
    for (int64_t aa = 0; aa < A; aa++)
      for (int64_t k = 0; k < R; k++) t1[e++] = (aa * B + bb) * R + k;
    for (int k = 0; k < 3; k++) t1[e++] = -1;
  }
  int64_t s1[] = {A, B, R};
  ir_init(&a, "tab", "a,b,r");
  a.table = t1;
  a.ntable = B * (A * R + 3);
  a.value.pad_value = 3;
  int ord[] = {2, 0, 1};
  plain(&b, "a,b,r", ord, 3); /* [r, a, b] */
  b.dim[0].before = C(1);     /* a pad row before a */
  b.value.pad_value = 7;
  check_table_convert("table -> padded plain", &a, &b, s1, LAY_DT_INT16);
  check_table_convert("padded plain -> table", &b, &a, s1, LAY_DT_INT8);
  /* a table that holds part of the tensor (a slice): the destination's
  ** other elements get the source's pad */
  static int64_t t2[A * B * 200];
  for (int64_t e = 0; e < A * B * 200; e++) t2[e] = e / 200 * R + 50 + e % 200;
  ir_init(&b, "tab2", "a,b,r");
  b.table = t2;
  b.ntable = A * B * 200;
  b.value.pad_value = 9;
  check_table_convert("sliced table -> table", &b, &a, s1, LAY_DT_UINT8);
  int nat[] = {0, 1, 2};
  plain(&a, "a,b,r", nat, 3);
  check_table_convert("sliced table -> plain", &b, &a, s1, LAY_DT_FP32);
  /* values on the way: a quantized table side */
  ir_init(&a, "tabq", "a,b,r");
  a.table = t1;
  a.ntable = B * (A * R + 3);
  quant(&a, 0.25, 1, LG_R_HALF_EVEN, -1, 1, LAY_DT_INT8);
  plain(&b, "a,b,r", ord, 3);
  b.value.cpu = LAY_DT_FP32;
  check_table_convert("quantized table -> fp32 plain", &a, &b, s1, LAY_DT_FP32);
}

/* Random layouts: digit splits, orders, pads, windows, alignment, unit
** axes, every dtype; each checked against the reference, and random pairs
** converted. */
static char rlabels[64][48];

static void random_layout(lg_ir *ir, const char *dims, int rank,
                          const int64_t *shape) {
  ir_init(ir, "random", dims);
  int nl = 0;
  for (int d = 0; d < rank; d++) {
    if (rnd32() % 3 == 0) ir->dim[d].before = C(rnd32() % 3);
    if (rnd32() % 3 == 0) ir->dim[d].after = C(rnd32() % 3);
    if (shape[d] > 2 && rnd32() % 4 == 0) {
      ir->dim[d].lo = C(1);
      ir->dim[d].hi = C(shape[d] - (int64_t)(rnd32() % 2));
    }
    int nd = 1 + (int)(rnd32() % 3);
    int64_t div = 1;
    for (int k = 0; k < nd; k++) {
      int64_t mod = k == nd - 1 ? 0 : 2 + (int64_t)(rnd32() % 3);
      char *l = rlabels[nl++ % 64];
      snprintf(l, sizeof rlabels[0], "%s/%lld%%%lld", ir->dim[d].name, (long long)div,
               (long long)mod);
      ax_digit(ir, d, div, mod, l);
      div *= mod;
    }
  }
  if (rnd32() % 4 == 0) ax_unit(ir);
  for (int j = ir->naxes - 1; j > 0; j--) { /* shuffle */
    int k = (int)(rnd32() % (uint32_t)(j + 1));
    lg_ir_axis t = ir->axis[j];
    ir->axis[j] = ir->axis[k];
    ir->axis[k] = t;
  }
  if (rnd32() % 3 == 0) ir->axis[rnd32() % (uint32_t)ir->naxes].align = C(2 + rnd32() % 4);
  ir->value.pad_value = (double)(rnd32() % 5);
}

static void t_random(void) {
  static const lay_dtype types[] = {LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16,
                                    LAY_DT_INT32, LAY_DT_FP32};
  char nm[64];
  for (int it = 0; it < 150; it++) {
    int rank = 1 + (int)(rnd32() % 4);
    int64_t shape[4];
    for (int d = 0; d < rank; d++) shape[d] = 1 + (int64_t)(rnd32() % 9);
    const char *dims = rank == 1 ? "a" : rank == 2 ? "a,b" : rank == 3 ? "a,b,c" : "a,b,c,d";
    lay_dtype t = types[rnd32() % 5];
    lg_ir a, b;
    random_layout(&a, dims, rank, shape);
    snprintf(nm, sizeof nm, "random layout %d", it);
    check_layout(nm, &a, shape, t);
    random_layout(&b, dims, rank, shape);
    snprintf(nm, sizeof nm, "random convert %d", it);
    check_convert(nm, &a, &b, shape, t);
  }
}

/* Staged boxes (box.c, exec.c, stage.c): blocked layouts of odd extents,
** where the boxes at the tensor's edges are widened to whole blocks and
** run through a slab, against the reference: packs (the CPU side
** staged), unpacks (staged into), converts between a plain layout (pads,
** windows, a permuted order, aligned pitches) and a blocked one both
** ways; elements of 1, 2, 4 and 8 bytes; two threads cut the boxes where
** LAY_SPLIT_MIN allows (CTest sets it to 1). The group counts the plans
** that stage: a generator that stopped making them would fail. CTest runs
** it again with LAY_STAGE=all, which stages every box the estimate would
** cut exactly (far more unpacks): then most plans must stage. Under
** valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) every fourth
** layout's bytes are compared; all 120 are counted. */
static char slabels[64][48];

static void blocked_layout(lg_ir *ir, const char *dims, int rank) {
  static const int64_t bl[] = {2, 3, 4, 8, 16, 32};
  ir_init(ir, "blocked", dims);
  int nl = 0;
  for (int d = 0; d < rank; d++) {
    if (rnd32() % 5 == 0) ir->dim[d].before = C(rnd32() % 3);
    if (rnd32() % 5 == 0) ir->dim[d].after = C(rnd32() % 3);
    int nd = 1 + (int)(rnd32() % 3);
    int64_t div = 1;
    for (int k = 0; k < nd; k++) {
      int64_t mod = k == nd - 1 ? 0 : bl[rnd32() % 6];
      char *l = slabels[nl++ % 64];
      snprintf(l, sizeof slabels[0], "%s/%lld%%%lld", ir->dim[d].name,
               (long long)div, (long long)mod);
      ax_digit(ir, d, div, mod, l);
      div *= mod;
    }
  }
  for (int j = ir->naxes - 1; j > 0; j--) {
    int k = (int)(rnd32() % (uint32_t)(j + 1));
    lg_ir_axis t = ir->axis[j];
    ir->axis[j] = ir->axis[k];
    ir->axis[k] = t;
  }
  ir->value.pad_value = (double)(rnd32() % 5);
}

static void plain_layout(lg_ir *ir, const char *dims, int rank,
                         const int64_t *shape) {
  int ord[4] = {0, 1, 2, 3};
  for (int j = rank - 1; j > 0; j--) {
    int k = (int)(rnd32() % (uint32_t)(j + 1)), t = ord[j];
    ord[j] = ord[k];
    ord[k] = t;
  }
  plain(ir, dims, ord, rank);
  for (int d = 0; d < rank; d++) {
    if (rnd32() % 4 == 0) ir->dim[d].before = C(rnd32() % 3);
    if (rnd32() % 4 == 0) ir->dim[d].after = C(rnd32() % 3);
    if (shape[d] > 2 && rnd32() % 5 == 0) {
      ir->dim[d].lo = C(1);
      ir->dim[d].hi = C(shape[d] - (int64_t)(rnd32() % 2));
    }
  }
  if (rnd32() % 3 == 0) ir->axis[rnd32() % (uint32_t)rank].align = C(2 + rnd32() % 7);
  ir->value.pad_value = (double)(rnd32() % 5);
}

static int staged(const lg_ir *a, const lg_ir *b, const int64_t *shape,
                  lay_dtype t, lay_dir dir) {
  li_plan *p = NULL;
  lay_error err;
  if (b) li_plan_convert(a, b, shape, a->rank, t, &p, &err);
  else li_plan_build(a, shape, a->rank, t, dir, &p, &err);
  char *d = p ? li_plan_describe(p) : NULL;
  int n = d && strstr(d, "staged") != NULL;
  free(d);
  li_plan_free(p);
  return n;
}

static void t_staged(void) {
  static const lay_dtype types[] = {LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16,
                                    LAY_DT_FP32, LAY_DT_INT64};
  static const char *const dn[] = {"a", "a,b", "a,b,c", "a,b,c,d"};
  char nm[96];
  int packs = 0, unpacks = 0, converts = 0;
  const char *e = getenv("LAY_STAGE");
  const int all = e && !strcmp(e, "all"), N = 120;
  const int every = getenv("LAY_UNDER_VALGRIND") ? 4 : 1;
  for (int it = 0; it < N; it++) {
    int rank = 2 + (int)(rnd32() % 3);
    int64_t shape[4], n = 1;
    for (int d = 0; d < rank; d++) {
      shape[d] = 1 + (int64_t)(rnd32() % (d == rank - 1 ? 70 : 40));
      if (n * shape[d] > 20000) shape[d] = 1 + 20000 / n % 7;
      n *= shape[d];
    }
    const lay_dtype t = types[rnd32() % 5];
    lg_ir a, b;
    blocked_layout(&a, dn[rank - 1], rank);
    snprintf(nm, sizeof nm, "staged layout %d (%s, %lld elements)", it,
             li_dt_name(t), (long long)n);
    const int cmp = it % every == 0;
    if (cmp) check_layout(nm, &a, shape, t);
    packs += staged(&a, NULL, shape, t, LAY_PACK);
    unpacks += staged(&a, NULL, shape, t, LAY_UNPACK);
    plain_layout(&b, dn[rank - 1], rank, shape);
    snprintf(nm, sizeof nm, "staged convert %d, plain -> blocked", it);
    if (cmp) check_convert(nm, &b, &a, shape, t);
    converts += staged(&b, &a, shape, t, LAY_CONVERT);
    snprintf(nm, sizeof nm, "staged convert %d, blocked -> plain", it);
    if (cmp) check_convert(nm, &a, &b, shape, t);
    converts += staged(&a, &b, shape, t, LAY_CONVERT);
  }
  const int lo = all ? N / 2 : N / 8;
  /* unpacks: the estimate rarely stages them (the drain is a second pass
  ** over what the kernel wrote); LAY_STAGE=all stages them */
  CHECK(packs >= lo && (!all || unpacks >= lo) && converts >= lo,
        "staged plans: %d packs, %d unpacks, %d converts of %d each (%d "
        "wanted)", packs, unpacks, converts, N, lo);
}

/* The executor's SIMD kernels, with the shapes that give full steps,
** overlapping last steps and rows too few for SIMD; CTest runs this group
** (like every group) with the CPU's best kernels (AVX-512BW or AVX2), and
** again with LAY_SIMD=2, 1 and 0 so that the AVX2, SSE2 and portable paths
** are checked too. The kernel must be the one
** the planner names. */
static void kernel_case(const char *name, const lg_ir *ir, const int64_t *shape,
                        lay_dtype cpu, const char *kpack, const char *kunpack) {
  check_layout(name, ir, shape, cpu);
  li_plan *pk = NULL, *up = NULL;
  lay_error err;
  li_plan_build(ir, shape, ir->rank, cpu, LAY_PACK, &pk, &err);
  li_plan_build(ir, shape, ir->rank, cpu, LAY_UNPACK, &up, &err);
  char *dp = pk ? li_plan_describe(pk) : NULL, *du = up ? li_plan_describe(up) : NULL;
  CHECK(dp && strstr(dp, kpack), "%s: pack kernel is not '%s'", name, kpack);
  CHECK(!kunpack || (du && strstr(du, kunpack)), "%s: unpack kernel is not '%s'",
        name, kunpack ? kunpack : "");
  free(dp);
  free(du);
  li_plan_free(pk);
  li_plan_free(up);
}

static void t_kernels_groups(void);

static void t_kernels(void) {
  lg_ir ir;
  static const int64_t tiles[][4] = {
      {1, 24, 7, 7},  /* 49 rows: one 32-row step and an overlapping one */
      {1, 16, 4, 4},  /* 16 rows exactly */
      {1, 16, 3, 7},  /* 21 rows: SSE step and an overlapping one */
      {1, 16, 9, 9},  /* 81 rows: two 32-row steps and an overlapping one */
      {1, 13, 6, 6},  /* the last channel block has 5 of 8 planes */
      {1, 11, 8, 8},  /* 64 rows, 3 planes in the last block */
      {1, 1403, 7, 7}, /* >= 64 KiB out: two threads split the blocks */
      /* runs of n < 4 blocks: a plane's 8-byte store would reach past its
      ** last run into the next plane (fuzz_diff found it, crash-ed4d8dbd) */
      {1, 13, 9, 2},  /* n = 2, the last block with 5 planes */
      {1, 16, 6, 3},  /* n = 3, all eight planes */
      {1, 16, 8, 2},  /* n = 2, all eight planes */
      /* AVX2 (de)interleave by tiles of 32 <= H * W <= 64 pixels: every
      ** copy of it (the pixel pairs that span two rows differ), and the
      ** sizes just outside it */
      {1, 16, 6, 6}, {1, 16, 7, 6}, {1, 16, 8, 6}, {1, 16, 9, 6}, {1, 16, 10, 6},
      {1, 16, 5, 7}, {1, 16, 6, 7}, {1, 24, 8, 7}, {1, 40, 7, 7}, {1, 16, 9, 7},
      {1, 16, 4, 8}, {1, 16, 5, 8}, {1, 16, 6, 8}, {1, 16, 7, 8}, {1, 19, 8, 8},
      {1, 16, 5, 6}, {1, 16, 11, 6}, {1, 16, 4, 7}, {1, 16, 10, 7}, {1, 16, 9, 8},
  };
  char nm[96];
  hcwnc(&ir, 8);
  for (size_t i = 0; i < sizeof tiles / sizeof *tiles; i++) {
    snprintf(nm, sizeof nm, "kernels hcwnc8 %lldx%lldx%lldx%lld",
             (long long)tiles[i][0], (long long)tiles[i][1],
             (long long)tiles[i][2], (long long)tiles[i][3]);
    kernel_case(nm, &ir, tiles[i], LAY_DT_INT8, "interleave through a tile",
                "deinterleave through a tile");
  }
  /* channels shifted by a pad of 3 before them: the first block's planes
  ** start at plane 3 of the deinterleave (tiles of 9x9 rows, and planes of
  ** 256 rows) */
  static const int64_t shifted[][4] = {{1, 21, 9, 9}, {1, 13, 16, 16}, {2, 5, 7, 7}};
  for (size_t i = 0; i < sizeof shifted / sizeof *shifted; i++) {
    hcwnc(&ir, 8);
    ir.dim[1].before = C(3);
    snprintf(nm, sizeof nm, "kernels hcwnc8 c shifted by 3, %lldx%lldx%lldx%lld",
             (long long)shifted[i][0], (long long)shifted[i][1],
             (long long)shifted[i][2], (long long)shifted[i][3]);
    check_layout(nm, &ir, shifted[i], LAY_DT_INT8);
  }
  static const int64_t planes[][4] = {
      {1, 32, 5, 7},  /* 35 pixels: steps of 16 and an overlapping one */
      {1, 16, 4, 4},  /* 16 pixels */
      {2, 48, 6, 6},  /* 36 pixels, three groups, two batches */
      {1, 16, 3, 5},  /* 15 pixels: too few for SIMD */
      {1, 20, 4, 9},  /* 4 channels in the last group: rows of 4 */
      {1, 64, 23, 25}, /* >= 64 KiB out: two threads */
  };
  k1w16c8bhl(&ir);
  for (size_t i = 0; i < sizeof planes / sizeof *planes; i++) {
    snprintf(nm, sizeof nm, "kernels 1w16c8bhl %lldx%lldx%lldx%lld",
             (long long)planes[i][0], (long long)planes[i][1],
             (long long)planes[i][2], (long long)planes[i][3]);
    kernel_case(nm, &ir, planes[i], LAY_DT_INT16, "split into 2 byte planes", NULL);
  }
  /* rows of 32, 64, 96, 128 bytes at a line pitch (32-byte moves), and
  ** with one-byte borders (32 <= row <= 128: pads written in the pass) */
  static const struct { int64_t w, align; } rw[] = {
      {32, 64}, {64, 128}, {96, 128}, {128, 256}, {16, 32}};
  for (size_t i = 0; i < sizeof rw / sizeof *rw; i++) {
    int64_t sh[] = {1, 3, 5, rw[i].w};
    tidl(&ir, 0, 0, 0, 0, 0, 0, rw[i].align);
    snprintf(nm, sizeof nm, "kernels rows %lld pitch %lld", (long long)rw[i].w,
             (long long)rw[i].align);
    kernel_case(nm, &ir, sh, LAY_DT_INT8, "row copy", NULL);
    for (int pl = 1; pl <= 2; pl++) {
      tidl(&ir, pl, 3 - pl, 1, 1, 0, 0, 0);
      snprintf(nm, sizeof nm, "kernels rows %lld pads %d+%d", (long long)rw[i].w,
               pl, 3 - pl);
      kernel_case(nm, &ir, sh, LAY_DT_INT8, "row copy", NULL);
    }
  }
  /* rows of 32 bytes or more with pads of up to 32 bytes a side, stored whole
  ** in 32-byte vectors (the first and last blended with the pad); the
  ** buffer's first and last rows, whose reads would leave the source, and
  ** pads over 32 bytes take the plain path */
  static const int64_t pw[] = {32, 33, 50, 63, 64, 100, 127, 128, 129, 224, 1000};
  static const struct { int pl, pr; } pp[] = {
      {1, 1}, {0, 1}, {1, 0}, {32, 32}, {31, 7}, {3, 32}, {33, 1}, {1, 33}};
  for (size_t i = 0; i < sizeof pw / sizeof *pw; i++)
    for (size_t j = 0; j < sizeof pp / sizeof *pp; j++) {
      int64_t sh[] = {2, 3, 4, pw[i]};
      tidl(&ir, pp[j].pl, pp[j].pr, 1, 0, 0, 0, 0);
      snprintf(nm, sizeof nm, "kernels rows %lld pads %d+%d (whole)",
               (long long)pw[i], pp[j].pl, pp[j].pr);
      kernel_case(nm, &ir, sh, LAY_DT_INT8, "row copy", NULL);
    }
  /* the same from a padded source: the reads before and after a row take
  ** the source's own pad bytes, which the blend must drop */
  {
    lg_ir a, b;
    int64_t sh[] = {1, 3, 5, 100};
    tidl(&a, 2, 2, 1, 1, 0, 0, 0);
    tidl(&b, 1, 1, 1, 1, 0, 0, 0);
    a.value.pad_value = 0x77;
    check_convert("kernels tidl 2+2 -> tidl 1+1 rows 100", &a, &b, sh, LAY_DT_INT8);
  }
  /* rows of w < 32 bytes padded to 32 (crouton's d%32 on 30 channels):
  ** one blended 32-byte store per row while the load stays inside the
  ** source, the plain path for the last rows */
  for (int64_t w = 16; w < 32; w += 3) {
    int64_t sh[] = {2, 3, 5, w};
    tidl(&ir, 0, (int)(32 - w), 0, 1, 0, 0, 0);
    snprintf(nm, sizeof nm, "kernels rows %lld + pad %lld", (long long)w,
             (long long)(32 - w));
    kernel_case(nm, &ir, sh, LAY_DT_INT8, "row copy", NULL);
  }
  int64_t sw[] = {1, 3, 5, 33};
  tidl(&ir, 1, 1, 1, 1, 0, 0, 0);
  kernel_case("kernels rows 33 pads 1+1 int16", &ir, sw, LAY_DT_INT16, "row copy", NULL);
  /* pads of more than 64 bytes before or after a row (the row's
  ** second half holds data only, or pads only) */
  static const struct { int pl, pr; int64_t w; } bp[] = {
      {70, 5, 20}, {3, 80, 17}, {40, 40, 30}, {64, 0, 64}, {0, 64, 64}};
  for (size_t i = 0; i < sizeof bp / sizeof *bp; i++) {
    int64_t sh[] = {1, 2, 3, bp[i].w};
    tidl(&ir, bp[i].pl, bp[i].pr, 1, 0, 0, 0, 0);
    snprintf(nm, sizeof nm, "kernels rows %lld pads %d+%d", (long long)bp[i].w,
             bp[i].pl, bp[i].pr);
    kernel_case(nm, &ir, sh, LAY_DT_INT8, "row copy", NULL);
  }
  /* fp32 quantized into HCWNC8: a slab quantized into L1, then
  ** interleaved (plan/vplan.c), or, a box too small for a slab,
  ** quantize + interleave fused (32-row steps, an overlapping last one;
  ** fewer rows take the tiles) */
  static const int64_t qs[][4] = {{1, 3, 5, 7}, {1, 3, 4, 4}, {1, 8, 6, 11},
                                  {1, 13, 3, 41}, {1, 3, 32, 32},
                                  {1, 5, 91, 97} /* two threads */};
  static const struct { double scale, zp; int rm; lay_dtype hw; } qr[] = {
      {1.0 / 128, 0, LG_R_HALF_EVEN, LAY_DT_INT8},
      {0.25, 3, LG_R_HALF_EVEN, LAY_DT_UINT8},
      {1.0 / 64, -2, LG_R_TRUNC, LAY_DT_INT8},
      {1.0 / 32, 0, LG_R_TRUNC, LAY_DT_UINT8}, /* zero point 0: no low clamp */
  };
  for (size_t j = 0; j < sizeof qr / sizeof *qr; j++)
    for (size_t i = 0; i < sizeof qs / sizeof *qs; i++) {
      hcwnc(&ir, 8);
      quant(&ir, qr[j].scale, qr[j].zp, (lg_round)qr[j].rm, -1, 1, qr[j].hw);
      snprintf(nm, sizeof nm, "kernels quant %zu hcwnc8 %lldx%lldx%lldx%lld", j,
               (long long)qs[i][0], (long long)qs[i][1], (long long)qs[i][2],
               (long long)qs[i][3]);
      kernel_case(nm, &ir, qs[i], LAY_DT_FP32,
                  i == 1 ? "convert + interleave" : "by interleave 8",
                  NULL);
    }
  t_kernels_groups();
}

/* Groups and interleaved rows through the transposition (plan/loops.c
** take_groups, narrow_dst; exec/tr.c's narrow destination): converts
** between channel blocks (a run of 2 or 4 bytes contiguous on both sides
** moved as one element: HCWNC4 -> HCWNC8 and back; 8-byte runs stay
** rows), and packs whose destination rows are 2, 4 or 8 source rows
** interleaved, every element size, with channels that fill the blocks
** (the kernel named where a row of groups reaches 16 bytes: shorter ones
** are copied as rows, take_groups) and with pads (checked against the
** reference only). */
static void t_kernels_groups(void) {
  static const lay_dtype ty[] = {LAY_DT_INT8, LAY_DT_INT16, LAY_DT_FP32};
  static const int64_t full[][4] = {
      {1, 16, 5, 7}, {2, 8, 9, 9}, {1, 24, 3, 17}, {1, 8, 1, 40}, {3, 8, 2, 5}};
  static const int64_t odd[][4] = {{1, 13, 5, 7}, {2, 6, 3, 19}};
  char nm[112];
  lg_ir a, b, ir;
  for (size_t t = 0; t < sizeof ty / sizeof *ty; t++) {
    size_t esz = li_dt_size(ty[t]);
    for (int x = 2; x <= 4; x *= 2) {
      for (size_t i = 0; i < sizeof full / sizeof *full; i++)
        for (int dir = 0; dir < 2; dir++) {
          hcwnc(&a, dir ? 2 * x : x);
          hcwnc(&b, dir ? x : 2 * x);
          snprintf(nm, sizeof nm, "kernels groups hcwnc%d -> hcwnc%d %s %lldx%lldx%lldx%lld",
                   dir ? 2 * x : x, dir ? x : 2 * x, li_dt_name(ty[t]),
                   (long long)full[i][0], (long long)full[i][1],
                   (long long)full[i][2], (long long)full[i][3]);
          check_convert(nm, &a, &b, full[i], ty[t]);
          li_plan *p = NULL;
          lay_error err;
          char want[40];
          snprintf(want, sizeof want, "of %d-element groups", x);
          if (x * (int)esz <= 4 && full[i][0] == 1 &&
              full[i][3] * x * (int64_t)esz >= 16 &&
              !li_plan_convert(&a, &b, full[i], 4, ty[t], &p, &err)) {
            char *d = li_plan_describe(p);
            /* the groups as units of the (de)interleave where their rows
            ** reach 16 bytes (kern_ilve.c), else as the transposition's
            ** elements */
            CHECK(d && (strstr(d, "interleave") ||
                        (strstr(d, "transpose") && strstr(d, want))),
                  "%s: not an interleave or a transposition %s:\n%s", nm,
                  want, d ? d : "");
            free(d);
          }
          li_plan_free(p);
        }
      for (size_t i = 0; i < sizeof odd / sizeof *odd; i++) {
        hcwnc(&a, x);
        hcwnc(&b, 2 * x);
        snprintf(nm, sizeof nm, "kernels groups hcwnc%d -> hcwnc%d %s odd %zu", x,
                 2 * x, li_dt_name(ty[t]), i);
        check_convert(nm, &a, &b, odd[i], ty[t]);
        check_convert(nm, &b, &a, odd[i], ty[t]);
      }
    }
  }
  /* interleaved rows from a table (the narrow gather tile): crouton2x2's
  ** 2x2 pixel groups (4 rows), 2x4 (8 rows) and 1x2 (2 rows, one loop: the
  ** narrow destination), with pads (channels or pixels short of a block);
  ** unpacked, the 2x2 and 2x4 groups are the narrow column table */
  static const int C2X2[] = {0,0, 1,0, 2,0, 3,0, 1,4, 2,4, 3,32, 1,2, 2,2};
  static const int C2X4[] = {0,0, 1,0, 2,0, 3,0, 1,4, 2,2, 3,32, 1,2, 2,4};
  static const int C1X2[] = {0,0, 1,0, 2,0, 3,0, 1,4, 2,4, 3,32, 2,2};
  static const struct { const int *c; int n, rows; } cr[] = {
      {C2X2, 9, 4}, {C2X4, 9, 8}, {C1X2, 8, 2}};
  static const int64_t cs[][4] = {{1, 8, 8, 64}, {2, 4, 12, 32}, {1, 7, 9, 37}};
  for (size_t c = 0; c < sizeof cr / sizeof *cr; c++)
    for (size_t t = 0; t < 2; t++)
      for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        ir_chunked(&ir, "crouton_rows", "b,h,w,d", cr[c].c, cr[c].n);
        snprintf(nm, sizeof nm, "kernels interleaved table rows %d %s %lldx%lldx%lldx%lld",
                 cr[c].rows, li_dt_name(ty[t]), (long long)cs[i][0],
                 (long long)cs[i][1], (long long)cs[i][2], (long long)cs[i][3]);
        char want[40];
        snprintf(want, sizeof want, "of %d rows interleaved", cr[c].rows);
        int full_blocks = cs[i][3] % 32 == 0 && cs[i][1] % 4 == 0;
        if (!full_blocks || cr[c].rows * (int)li_dt_size(ty[t]) >= 16 ||
            cr[c].rows == 2)
          check_layout(nm, &ir, cs[i], ty[t]);
        else
          kernel_case(nm, &ir, cs[i], ty[t], want, "column table");
        lg_ir plainb;
        static const int nhwc[] = {0, 1, 2, 3};
        plain(&plainb, "b,h,w,d", nhwc, 4);
        check_convert(nm, &plainb, &ir, cs[i], ty[t]);
      }
  /* the gather tile over 2T columns a step (AVX2) and the T-column steps
  ** after it: HCWNC4 with batch 4 (16-byte rows of n x c%4), widths around
  ** 2T and channels short of a block */
  static const int64_t gt[][4] = {
      {4, 8, 3, 32}, {4, 8, 2, 33}, {4, 8, 2, 47}, {4, 8, 1, 64}, {4, 13, 2, 40}};
  for (size_t i = 0; i < sizeof gt / sizeof *gt; i++) {
    hcwnc(&ir, 4);
    snprintf(nm, sizeof nm, "kernels gather tile hcwnc4 %lldx%lldx%lldx%lld",
             (long long)gt[i][0], (long long)gt[i][1], (long long)gt[i][2],
             (long long)gt[i][3]);
    if (gt[i][1] % 4) check_layout(nm, &ir, gt[i], LAY_DT_INT8);
    else kernel_case(nm, &ir, gt[i], LAY_DT_INT8, "gather tile", NULL);
    check_layout(nm, &ir, gt[i], LAY_DT_INT16); /* 2- and 4-byte elements */
    check_layout(nm, &ir, gt[i], LAY_DT_INT32);
  }
  /* the column table: HCWNC4 unpacked with a batch, a tile's T columns
  ** the 4 channels of T / 4 images (contiguous in the source, two loops
  ** in the destination); widths of one tile, a shifted last one, 2T
  ** (AVX2) and past it; batches that keep an outer part of n; channels
  ** short of a block; widths under a tile (not taken, still checked) */
  static const int64_t ct[][4] = {{4, 8, 3, 16}, {4, 8, 2, 17}, {4, 8, 2, 47},
                                  {8, 12, 2, 40}, {4, 13, 2, 33}, {2, 8, 3, 9},
                                  {6, 8, 2, 20}, {4, 4, 1, 5}};
  static const lay_dtype ctt[] = {LAY_DT_INT8, LAY_DT_INT16, LAY_DT_FP32};
  for (size_t i = 0; i < sizeof ct / sizeof *ct; i++)
    for (size_t t = 0; t < sizeof ctt / sizeof *ctt; t++) {
      int64_t T = 16 / (int64_t)li_dt_size(ctt[t]);
      hcwnc(&ir, 4);
      snprintf(nm, sizeof nm, "kernels column table hcwnc4 %s %lldx%lldx%lldx%lld",
               li_dt_name(ctt[t]), (long long)ct[i][0], (long long)ct[i][1],
               (long long)ct[i][2], (long long)ct[i][3]);
      check_layout(nm, &ir, ct[i], ctt[t]);
      li_plan *up = NULL;
      lay_error err;
      li_plan_build(&ir, ct[i], 4, ctt[t], LAY_UNPACK, &up, &err);
      char *du = up ? li_plan_describe(up) : NULL;
      int want = T > 4 && ct[i][0] % (T / 4) == 0 && ct[i][3] >= T;
      CHECK(du && (!strstr(du, "column table")) == !want,
            "%s: the unpack should%s take the column table:\n%s", nm,
            want ? "" : " not", du ? du : "");
      free(du);
      li_plan_free(up);
    }
  /* interleaved rows: NCHW -> HCWNC x with x * esz < 16 and W >= 16 / esz:
  ** the planes interleaved by kern_ilve.c's unpack network (ILV) for every
  ** element size (they went through the transposition's narrow
  ** destination, 1.5-2.2x slower) */
  static const int64_t wide[][4] = {{1, 8, 3, 19}, {1, 16, 2, 33}, {1, 8, 1, 16}};
  for (size_t t = 1; t < sizeof ty / sizeof *ty; t++) {
    size_t esz = li_dt_size(ty[t]);
    for (int x = 2; x <= 8 && x * (int)esz < 16; x *= 2)
      for (size_t i = 0; i < sizeof wide / sizeof *wide; i++) {
        hcwnc(&ir, x);
        snprintf(nm, sizeof nm, "kernels interleaved rows hcwnc%d %s %lldx%lldx%lldx%lld",
                 x, li_dt_name(ty[t]), (long long)wide[i][0],
                 (long long)wide[i][1], (long long)wide[i][2],
                 (long long)wide[i][3]);
        kernel_case(nm, &ir, wide[i], ty[t], "interleave", NULL);
      }
  }
}

int main(int argc, char **argv) {
  static const struct { const char *name; void (*fn)(void); } groups[] = {
      {"hcwnc", t_hcwnc}, {"chunked", t_chunked}, {"tidl", t_tidl},
      {"kneron", t_kneron}, {"window", t_window}, {"values", t_values},
      {"convert", t_convert}, {"errors", t_errors}, {"table", t_table},
      {"random", t_random}, {"kernels", t_kernels},
      {"table_convert", t_table_convert}, {"staged", t_staged}};
  fesetround(FE_TONEAREST);
  /* the kernels group checks each special kernel's SIMD paths on shapes
  ** the planner gives it: with the macro tile first, most of them would
  ** go to the tile (tested by test_mtile); the planner reads this once */
  if (argc >= 2 && !strcmp(argv[1], "kernels"))
    setenv("LAY_KERNELS", "special", 1);
  for (size_t i = 0; i < sizeof groups / sizeof *groups; i++)
    if (argc < 2 || !strcmp(argv[1], groups[i].name)) groups[i].fn();
  printf("%d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
