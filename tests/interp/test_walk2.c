/*
** test_walk2.c: the data-movement engine's paths for long transposes and
** strided pads, against the per-element reference (ref.h), at every
** LAY_SIMD level the CPU has (set before each plan is built):
**   - channel blocks c%K (K = 2, 4, 8, 16) whose last block is short: the
**     pad channels are fills K elements apart (exec.c's masked 64-byte
**     stores under AVX-512BW, byte by byte below), every element size,
**     odd extents, pads around h and w, pad values that differ by byte;
**     packed, unpacked and converted to blocks of another K;
**   - NCHW <-> NHWC with planes a page apart or more (tr.c's column blocks
**     sized by the rows, col_block) and the source buffer at every
**     16-byte offset from a cache line (tr.c's peel: the columns before
**     the first line boundary taken apart), every element size.
**   - NHWC of any channel count <-> blocks of K (groups of K channels
**     moved as elements, their pitches not whole groups), and li_tr2d_b
**     on byte pitches against its definition.
** Each pack and unpack runs on one and two threads on buffers prefilled
** with 0x5A (an unwritten pad byte shows), the source allocated to its
** last byte. Under valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND)
** only the best level runs; the plain and ASan builds run them all.
*/
#define _GNU_SOURCE /* setenv */
#include "plan.h"
#include "plan_int.h"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ref.h"
#pragma GCC diagnostic pop

static int failures, checks;

static uint32_t rng = 2026;
static uint32_t rnd32(void) {
  rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5;
  return rng;
}

static const lay_dtype types[] = {LAY_DT_INT8, LAY_DT_INT16, LAY_DT_INT32,
                                  LAY_DT_INT64};

/* A run of plan p from src (n bytes at offset off of a line) against want
** (wn bytes), threads 1 and 2; 0 when both match. */
static int run_cmp(const char *name, li_plan *p, const uint8_t *src,
                   size_t sn, size_t off, const uint8_t *want, size_t wn) {
  uint8_t *sb = aligned_alloc(64, (sn + off + 63) / 64 * 64 + 64);
  uint8_t *got = malloc(wn + 1);
  int bad = 0;
  if (!sb || !got) return 1;
  memcpy(sb + off, src, sn);
  for (int th = 1; th <= 2; th++) {
    lay_error err;
    memset(got, 0x5A, wn + 1);
    lay_status st = li_plan_run(p, sb + off, sn, got, wn, th, &err);
    checks++;
    if (st != LAY_OK || memcmp(got, want, wn) || got[wn] != 0x5A) {
      size_t k = 0;
      while (k < wn && got[k] == want[k]) k++;
      fprintf(stderr, "FAIL %s (threads %d, offset %zu, LAY_SIMD %s): "
              "status %d, byte %zu of %zu\n", name, th, off,
              getenv("LAY_SIMD"), st, k, wn);
      failures++;
      bad = 1;
    }
  }
  free(sb);
  free(got);
  return bad;
}

/* Pack and unpack of ir on shape, cpu type t, source at offset off. */
static void check(const char *name, const lg_ir *ir, const int64_t *shape,
                  lay_dtype t, size_t off) {
  rlay r;
  rlay_init(&r, ir, shape, t);
  int64_t n = r_count(shape, ir->rank);
  size_t cb = (size_t)n * r.csz, hb = (size_t)r.nelem * r.hsz;
  uint8_t *x = malloc(cb), *want = malloc(hb), *back = malloc(cb);
  if (!x || !want || !back) { failures++; return; }
  for (size_t i = 0; i < cb; i++) x[i] = (uint8_t)rnd32();
  r_pack(&r, x, want);
  r_unpack(&r, want, back);
  li_plan *pk = NULL, *up = NULL;
  lay_error err;
  checks++;
  if (li_plan_build(ir, shape, ir->rank, t, LAY_PACK, &pk, &err) ||
      li_plan_build(ir, shape, ir->rank, t, LAY_UNPACK, &up, &err)) {
    fprintf(stderr, "FAIL %s: plan: %s\n", name, err.message);
    failures++;
  } else {
    run_cmp(name, pk, x, cb, off, want, hb);
    run_cmp(name, up, want, hb, off, back, cb);
  }
  li_plan_free(pk);
  li_plan_free(up);
  free(x);
  free(want);
  free(back);
}

/* Convert a -> b (the same dims in the same order) on shape, source at
** offset off, against pack_b(unpack_a(pack_a(x))). */
static void check_convert(const char *name, const lg_ir *a, const lg_ir *b,
                          const int64_t *shape, lay_dtype t, size_t off) {
  rlay ra, rb;
  rlay_init(&ra, a, shape, t);
  rlay_init(&rb, b, shape, t);
  int64_t n = r_count(shape, a->rank);
  size_t cb = (size_t)n * ra.csz, ab = (size_t)ra.nelem * ra.hsz,
         bb = (size_t)rb.nelem * rb.hsz;
  uint8_t *x = malloc(cb), *abuf = malloc(ab), *want = malloc(bb);
  if (!x || !abuf || !want) { failures++; return; }
  for (size_t i = 0; i < cb; i++) x[i] = (uint8_t)rnd32();
  r_pack(&ra, x, abuf);
  r_unpack(&ra, abuf, x);
  r_pack(&rb, x, want);
  li_plan *p = NULL;
  lay_error err;
  checks++;
  if (li_plan_convert(a, b, shape, a->rank, t, &p, &err)) {
    fprintf(stderr, "FAIL %s: convert plan: %s\n", name, err.message);
    failures++;
  } else {
    run_cmp(name, p, abuf, ab, off, want, bb);
  }
  li_plan_free(p);
  free(x);
  free(abuf);
  free(want);
}

/* n, c, h, w with c in blocks of K: axes n, c/K, h, w, c%K; optional pads
** before/after h and w; a pad value whose bytes differ (int16 and up). */
static void blocked(lg_ir *ir, int64_t K, int padhw, double pad) {
  ir_init(ir, "blocked", "n,c,h,w");
  ax_digit(ir, 0, 1, 0, "n");
  ax_digit(ir, 1, K, 0, "c/K");
  ax_digit(ir, 2, 1, 0, "h");
  ax_digit(ir, 3, 1, 0, "w");
  ax_digit(ir, 1, 1, K, "c%K");
  if (padhw) {
    ir->dim[2].before = C(1);
    ir->dim[2].after = C(1);
    ir->dim[3].before = C(2);
    ir->dim[3].after = C(1);
  }
  ir->value.pad_value = pad;
}

static void t_strided_pads(void) {
  char nm[96];
  for (int it = 0; it < 96; it++) {
    int64_t K = (int64_t)2 << (rnd32() % 4); /* 2, 4, 8, 16 */
    lay_dtype t = types[rnd32() % 4];
    int64_t shape[4] = {1 + (int64_t)(rnd32() % 2), K + 1 + (int64_t)(rnd32() % (3 * K)),
                        1 + (int64_t)(rnd32() % 13), 1 + (int64_t)(rnd32() % 61)};
    if (shape[1] % K == 0) shape[1]++; /* a short last block: pad channels */
    lg_ir ir;
    blocked(&ir, K, (int)(rnd32() % 2), it % 2 ? 0.0 : 258.0 + it);
    if (t == LAY_DT_INT8) ir.value.pad_value = it % 5;
    snprintf(nm, sizeof nm, "c%%%lld %s [%lld,%lld,%lld,%lld] #%d", (long long)K,
             li_dt_name(t), (long long)shape[0], (long long)shape[1],
             (long long)shape[2], (long long)shape[3], it);
    check(nm, &ir, shape, t, 0);
    /* to blocks of K2: the pad channels of b's last block are a fill K2
    ** elements apart (amd.hcwnc4 -> amd.hcwnc8) */
    int64_t K2 = (int64_t)2 << (rnd32() % 4);
    lg_ir b;
    blocked(&b, K2, (int)(rnd32() % 2), it % 3 ? 7.0 : 0.0);
    if (shape[1] % K2 == 0) shape[1]++;
    snprintf(nm, sizeof nm, "c%%%lld -> c%%%lld %s [%lld,%lld,%lld,%lld] #%d",
             (long long)K, (long long)K2, li_dt_name(t), (long long)shape[0],
             (long long)shape[1], (long long)shape[2], (long long)shape[3], it);
    check_convert(nm, &ir, &b, shape, t, 16 * (size_t)(it % 4));
  }
}

/* NHWC of an NCHW CPU side (pack: rows c, pitch h * w; unpack: rows h * w,
** pitch c), h * w * esz a multiple of 64 and 4096 or more: the far
** column blocks and the peel. */
static void t_far_transposes(void) {
  char nm[96];
  static const int64_t shapes[][4] = {
      {1, 20, 64, 72}, {1, 3, 64, 64}, {2, 37, 32, 130}, {1, 130, 8, 512}};
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 4; k++) {
      lay_dtype t = types[k];
      const int64_t *s = shapes[(i + k) % 4];
      size_t off = (size_t)(16 * ((i + k) % 4)); /* 0, 16, 32, 48 */
      lg_ir ir;
      ir_init(&ir, "nhwc", "n,c,h,w");
      ax_digit(&ir, 0, 1, 0, "n");
      ax_digit(&ir, 2, 1, 0, "h");
      ax_digit(&ir, 3, 1, 0, "w");
      ax_digit(&ir, 1, 1, 0, "c");
      snprintf(nm, sizeof nm, "nhwc %s [%lld,%lld,%lld,%lld] +%zu",
               li_dt_name(t), (long long)s[0], (long long)s[1],
               (long long)s[2], (long long)s[3], off);
      check(nm, &ir, s, t, off);
      if (i == 0) /* every offset of a line for the first shape */
        for (size_t o = 8; o < 64; o += 8) check(nm, &ir, s, t, o);
    }
}

/* NHWC with any number of channels -> blocks of K (the groups of the
** blocks' whole channels 4 or 2 bytes, their pixels C elements apart,
** not whole groups: tr.c's byte pitches), and back. */
static void t_group_pitches(void) {
  char nm[96];
  for (int it = 0; it < 40; it++) {
    int64_t K = (int64_t)2 << (rnd32() % 3); /* 2, 4, 8 */
    lay_dtype t = types[rnd32() % 2];        /* groups of 2..16 bytes */
    int64_t shape[4] = {1 + (int64_t)(rnd32() % 2), 2 * K + 1 + (int64_t)(rnd32() % (5 * K)),
                        1 + (int64_t)(rnd32() % 9), 4 + (int64_t)(rnd32() % 40)};
    lg_ir a, b;
    ir_init(&a, "nhwc", "n,c,h,w");
    ax_digit(&a, 0, 1, 0, "n");
    ax_digit(&a, 2, 1, 0, "h");
    ax_digit(&a, 3, 1, 0, "w");
    ax_digit(&a, 1, 1, 0, "c");
    blocked(&b, K, 0, 0.0);
    snprintf(nm, sizeof nm, "nhwc -> c%%%lld %s [%lld,%lld,%lld,%lld] #%d",
             (long long)K, li_dt_name(t), (long long)shape[0],
             (long long)shape[1], (long long)shape[2], (long long)shape[3], it);
    check_convert(nm, &a, &b, shape, t, 16 * (size_t)(it % 4));
    snprintf(nm, sizeof nm, "c%%%lld -> nhwc %s [%lld,%lld,%lld,%lld] #%d",
             (long long)K, li_dt_name(t), (long long)shape[0],
             (long long)shape[1], (long long)shape[2], (long long)shape[3], it);
    check_convert(nm, &b, &a, shape, t, 16 * (size_t)(it % 4));
  }
}

/* li_tr2d_b against its definition, pitches in bytes that are not whole
** elements, the source allocated to its last byte, guards around B. */
static void t_byte_pitches(void) {
  for (int it = 0; it < 200; it++) {
    size_t esz = (size_t)1 << (rnd32() % 4);
    int64_t rows = 1 + (int64_t)(rnd32() % 40), cols = 1 + (int64_t)(rnd32() % 40);
    int64_t la = cols * (int64_t)esz + (int64_t)(rnd32() % 9);
    int64_t lb = rows * (int64_t)esz + (int64_t)(rnd32() % 9);
    size_t an = (size_t)((rows - 1) * la + cols * (int64_t)esz);
    size_t bn = (size_t)((cols - 1) * lb + rows * (int64_t)esz) + 32;
    uint8_t *a = malloc(an), *b = malloc(bn), *want = malloc(bn);
    if (!a || !b || !want) { failures++; return; }
    for (size_t i = 0; i < an; i++) a[i] = (uint8_t)rnd32();
    memset(b, 0xA5, bn);
    memset(want, 0xA5, bn);
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++)
        memcpy(want + j * lb + i * (int64_t)esz, a + i * la + j * (int64_t)esz, esz);
    li_tr2d_b(esz, li_simd_level(), a, a + an, a, la, b, lb, rows, cols);
    checks++;
    if (memcmp(b, want, bn)) {
      fprintf(stderr, "FAIL li_tr2d_b esz %zu rows %lld cols %lld la %lld lb %lld (LAY_SIMD %s)\n",
              esz, (long long)rows, (long long)cols, (long long)la, (long long)lb,
              getenv("LAY_SIMD"));
      failures++;
    }
    free(a);
    free(b);
    free(want);
  }
}

int main(void) {
  char lv[2] = {0, 0};
  const int top = li_simd_level();
  const int low = getenv("LAY_UNDER_VALGRIND") ? top : 0;
  for (int l = top; l >= low; l--) {
    lv[0] = (char)('0' + l);
    setenv("LAY_SIMD", lv, 1);
    t_strided_pads();
    t_far_transposes();
    t_group_pitches();
    t_byte_pitches();
  }
  printf("test_walk2: %d checks, %d failures\n", checks, failures);
  return failures != 0;
}
