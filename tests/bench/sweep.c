/* tests/bench/sweep.c: lay_sweep, the sweep benchmark of the "Engine"
 * issue: every stdlib format both ways at three shapes, 1-, 2- and 4-byte
 * types, quantizing formats with zero point 0 and not, converts between
 * vendors, and layouts defined here with lay_ctx_load_string; each case
 * timed as lay / memcpy of the larger buffer (and oneDNN where it can
 * express the layout), every output checked byte for byte against the
 * per-element reference of tests/interp/ref.h.
 *
 * The cases are listed in sweep_cases.c; this file builds, checks, times
 * and summarises them. Usage (run.sh --sweep runs the three phases):
 *   lay_sweep --check               every case once (threads 1 and 2, and
 *                                   oneDNN) against the reference; no timing
 *   lay_sweep --dump DIR            write DIR/cases.jsonl (each case's
 *                                   layouts as numbers), DIR/<i>.src and
 *                                   DIR/<i>.ref for sweep_numpy.py
 *   lay_sweep [--numpy FILE] [--only SUBSTR] [--small] [--target-ms MS]
 *                                   time every case; FILE holds numpy's
 *                                   ratios (sweep_numpy.py's output);
 *                                   --only: the cases whose name contains
 *                                   SUBSTR; --small: without the 8 MB ones
 * Exit status 1 when any output differs or a plan fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctx.h"
#include "lang.h"
#include "lay.h"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "ref.h"
#pragma GCC diagnostic pop

#include "sweep.h"

#ifdef LAY_BENCH_DNNL
#include "dnnl_md.h"
#endif

static double g_target_s = 0.024; /* time per (case, implementation) */
enum { NB = 7, BIG = 1000000, LARGE = 8000000 }; /* bytes: 1 MB, 8 MB */
static int g_fail;
static lay_ctx *g_ctx;

static double clock_s(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
/* LAY_SWEEP_CLOCK=cpu: one-thread implementations are timed with this
 * thread's CPU time, which leaves out the time the thread waits for a
 * core on a loaded machine (two threads are always timed by the wall). */
static clockid_t g_clock = CLOCK_MONOTONIC;
static void *xalloc(size_t n) {
  size_t r = (n + 63) / 64 * 64;
  void *p = aligned_alloc(64, r ? r : 64);
  if (!p) {
    perror("lay_sweep: aligned_alloc");
    exit(2);
  }
  memset(p, 0, r ? r : 64);
  return p;
}
static int cmp_dbl(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(const double *v, int n) {
  double t[1024];
  memcpy(t, v, (size_t)n * sizeof *t);
  qsort(t, (size_t)n, sizeof *t, cmp_dbl);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

static uint32_t g_rng = 0x2545F491u;
static uint32_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 17;
  g_rng ^= g_rng << 5;
  return g_rng;
}
/* CPU input: random bytes for integers; finite floats k/256, |k| <= 1100,
 * so that quantizers see ties and both clamps and oneDNN copies them bit
 * exactly. */
static void fill(uint8_t *p, int64_t n, lay_dtype t) {
  if (t == LAY_DT_FP32) {
    for (int64_t i = 0; i < n; i++) {
      float f = (float)((int)(rnd() % 2201) - 1100) / 256.0f;
      memcpy(p + 4 * i, &f, 4);
    }
    return;
  }
  size_t s = lay_dtype_size(t);
  for (int64_t i = 0; i < n * (int64_t)s; i++) p[i] = (uint8_t)(rnd() >> 7);
}

/* ---- A case made concrete: IRs, reference buffers, lay's plan ---------- */
typedef struct {
  const sw_case *c;
  lg_ir *ira, *irb;   /* the layout (pack/unpack), or from and to (convert) */
  rlay ra, rb;
  int64_t bshape[8];  /* convert: the shape in `to`'s CPU order */
  int map[8];         /* convert: map[j] = the `from` dim named like to's j */
  lay_dtype cpu;
  uint8_t *src, *ref, *dst;
  size_t sb, db;
  lay_plan *plan;
  double create_us;
} inst;

static void say_err(const char *what, const sw_case *c, const lay_error *e) {
  char buf[1200];
  lay_error_format(e, buf, sizeof buf);
  printf("  !!!!!!!! %s FAILED !!!!!!!! %s: %s\n", what, c->name, buf);
  g_fail = 1;
}

/* The IR of ref for a plan of this shape and element type (esize,
** `require` and `...` need them: lg_instantiate_for). */
static int instantiate(const char *ref, const int64_t *shape, lay_dtype dt,
                       lg_ir **out, const sw_case *c) {
  lay_error e;
  memset(&e, 0, sizeof e);
  if (lg_instantiate_for(li_ctx_module(g_ctx), ref, shape, c->rank, dt, out,
                         &e) != LAY_OK) {
    say_err("instantiate", c, &e);
    return 0;
  }
  return 1;
}

/* The reference output for the case (and its input). */
static void make_ref(inst *x) {
  const sw_case *c = x->c;
  int64_t n = r_count(c->shape, c->rank);
  size_t csz = lay_dtype_size(x->cpu);
  uint8_t *cpu = xalloc((size_t)n * csz);
  fill(cpu, n, x->cpu);
  if (c->dir == LAY_PACK) {
    x->sb = (size_t)n * csz;
    x->db = (size_t)x->ra.nelem * x->ra.hsz;
    x->src = cpu;
    x->ref = xalloc(x->db);
    r_pack(&x->ra, cpu, x->ref);
    return;
  }
  x->sb = (size_t)x->ra.nelem * x->ra.hsz;
  x->src = xalloc(x->sb);
  r_pack(&x->ra, cpu, x->src); /* a valid layout buffer, pads included */
  if (c->dir == LAY_UNPACK) {
    x->db = (size_t)n * csz;
    x->ref = xalloc(x->db);
    r_unpack(&x->ra, x->src, x->ref);
    free(cpu);
    return;
  }
  /* convert: pack_B(transpose(unpack_A(src))) */
  uint8_t *xa = xalloc((size_t)n * csz), *xb = xalloc((size_t)n * csz);
  r_unpack(&x->ra, x->src, xa);
  int64_t xi[8], xj[8];
  for (int64_t k = 0; k < n; k++) {
    r_unravel(k, c->shape, c->rank, xi);
    int64_t kb = 0;
    for (int j = 0; j < c->rank; j++) {
      xj[j] = xi[x->map[j]];
      kb = kb * x->bshape[j] + xj[j];
    }
    memcpy(xb + kb * (int64_t)csz, xa + k * (int64_t)csz, csz);
  }
  x->db = (size_t)x->rb.nelem * x->rb.hsz;
  x->ref = xalloc(x->db);
  r_pack(&x->rb, xb, x->ref);
  free(cpu);
  free(xa);
  free(xb);
}

static lay_status create_plan(inst *x, lay_plan **p, lay_error *e) {
  const sw_case *c = x->c;
  if (c->dir == LAY_CONVERT)
    return lay_plan_convert(g_ctx, c->from, c->fmt, c->shape, c->rank, c->dt, p, e);
  return lay_plan_create(g_ctx, c->fmt, c->shape, c->rank, c->dt, c->dir, p, e);
}

/* Build everything; 0 when the case cannot run (reported). */
static int inst_init(inst *x, const sw_case *c) {
  memset(x, 0, sizeof *x);
  x->c = c;
  const char *la = c->dir == LAY_CONVERT ? c->from : c->fmt;
  if (!instantiate(la, c->shape, c->dt, &x->ira, c)) return 0;
  x->cpu = c->dt ? c->dt : x->ira->value.cpu ? x->ira->value.cpu : LAY_DT_INT8;
  rlay_init(&x->ra, x->ira, c->shape, x->cpu);
  if (c->dir == LAY_CONVERT) {
    /* B's dimension names first (from A's shape: names never depend on
    ** sizes), then B's IR for its own order of the shape */
    if (!instantiate(c->fmt, c->shape, c->dt, &x->irb, c)) return 0;
    for (int j = 0; j < c->rank; j++) {
      x->map[j] = -1;
      for (int i = 0; i < c->rank; i++)
        if (!strcmp(x->ira->dim[i].name, x->irb->dim[j].name)) x->map[j] = i;
      if (x->map[j] < 0) {
        printf("  !!!!!!!! %s: dim '%s' of %s is not in %s\n", c->name, x->irb->dim[j].name,
               c->fmt, c->from);
        g_fail = 1;
        return 0;
      }
      x->bshape[j] = c->shape[x->map[j]];
    }
    lg_ir_free(x->irb);
    x->irb = NULL;
    if (!instantiate(c->fmt, x->bshape, c->dt, &x->irb, c)) return 0;
    rlay_init(&x->rb, x->irb, x->bshape, x->cpu);
  }
  make_ref(x);
  x->dst = xalloc(x->db);
  lay_error e;
  memset(&e, 0, sizeof e);
  double t[5];
  for (int k = 0; k < 5; k++) { /* plan creation: median of five */
    lay_plan *p = NULL;
    double t0 = now_s();
    lay_status st = create_plan(x, &p, &e);
    t[k] = now_s() - t0;
    if (st != LAY_OK) {
      say_err("plan creation", c, &e);
      return 0;
    }
    if (k < 4) lay_plan_free(p);
    else x->plan = p;
  }
  x->create_us = median(t, 5) * 1e6;
  if (lay_plan_src_bytes(x->plan) != x->sb || lay_plan_dst_bytes(x->plan) != x->db) {
    printf("  !!!!!!!! MISMATCH !!!!!!!! %s: plan reads %zu B, writes %zu B; the reference "
           "%zu and %zu\n", c->name, lay_plan_src_bytes(x->plan), lay_plan_dst_bytes(x->plan),
           x->sb, x->db);
    g_fail = 1;
    return 0;
  }
  return 1;
}

static void inst_free(inst *x) {
  lay_plan_free(x->plan);
  lg_ir_free(x->ira);
  lg_ir_free(x->irb);
  free(x->src);
  free(x->ref);
  free(x->dst);
}

static int run_lay(inst *x, int threads) {
  lay_error e;
  if (lay_plan_run(x->plan, x->src, x->sb, x->dst, x->db, threads, &e) != LAY_OK) {
    say_err("lay_plan_run", x->c, &e);
    return 0;
  }
  return 1;
}

/* 1 when dst equals the reference; reports the first difference. */
static int same_as_ref(inst *x, const char *who) {
  if (!memcmp(x->dst, x->ref, x->db)) return 1;
  size_t k = 0, bad = 0, first = 0;
  for (; k < x->db; k++)
    if (x->dst[k] != x->ref[k] && !bad++) first = k;
  printf("  !!!!!!!! MISMATCH !!!!!!!! %s, %s: %zu of %zu bytes differ, first at %zu "
         "(got 0x%02x, want 0x%02x)\n", x->c->name, who, bad, x->db, first, x->dst[first],
         x->ref[first]);
  return 0;
}

/* lay on one and two threads, the output poisoned first. */
static int check_lay(inst *x) {
  int ok = 1;
  for (int th = 1; th <= 2; th++) {
    memset(x->dst, 0x5A, x->db);
    if (!run_lay(x, th)) return 0;
    if (!same_as_ref(x, th == 1 ? "lay" : "lay, 2 threads")) ok = 0;
  }
  if (!ok) g_fail = 1;
  return ok;
}

/* ---- oneDNN: a memory descriptor for a layout when it has one ---------- */
#ifdef LAY_BENCH_DNNL
static dnnl_engine_t g_eng;
static dnnl_stream_t g_strm;

static int dnnl_type(lay_dtype t, dnnl_data_type_t *out) {
  switch (t) {
  case LAY_DT_INT8: *out = dnnl_s8; return 1;
  case LAY_DT_UINT8: *out = dnnl_u8; return 1;
  case LAY_DT_FP32: *out = dnnl_f32; return 1;
  case LAY_DT_INT32: *out = dnnl_s32; return 1;
  case LAY_DT_FP16: *out = dnnl_f16; return 1;
  case LAY_DT_BF16: *out = dnnl_bf16; return 1;
  default: return 0; /* no 16-bit integers in oneDNN */
  }
}

/* The plain row-major CPU tensor. */
static int md_cpu(const int64_t *shape, int rank, lay_dtype t, dnnl_memory_desc_t *md) {
  dnnl_data_type_t dt;
  if (!dnnl_type(t, &dt)) return 0;
  int64_t st[8], s = 1;
  for (int d = rank - 1; d >= 0; d--) {
    st[d] = s;
    s *= shape[d];
  }
  *md = dnnl_md_blocked(rank, shape, shape, dt, st, 0, NULL, NULL, 0);
  return 1;
}

/* A layout as oneDNN's blocked format: dense strides, no planes, unit
 * axes, pads before, windows or value rule; the trailing run of "%"
 * digits are the inner blocks, every other axis is one dimension's outer
 * digit. */
static int md_layout(const rlay *r, dnnl_memory_desc_t *md) {
  const lg_ir *ir = r->ir;
  dnnl_data_type_t dt;
  if (ir->value.kind != LG_V_NONE || ir->value.nplanes || !dnnl_type(r->cpu, &dt)) return 0;
  int64_t inner = 1;
  for (int j = ir->naxes - 1; j >= 0; j--) {
    if (ir->axis[j].kind != LG_AX_DIGIT || r->stride[j] != inner) return 0;
    inner *= r->ext[j];
  }
  for (int d = 0; d < r->rank; d++)
    if (r->before[d] || r->lo[d] || r->hi[d] != r->size[d]) return 0;
  int first = ir->naxes;
  while (first > 0 && ir->axis[first - 1].mod) first--;
  int64_t blks[12], idxs[12], os[8], seen[8] = {0};
  int nb = 0;
  for (int j = first; j < ir->naxes; j++) {
    if (nb == 12) return 0;
    blks[nb] = ir->axis[j].mod;
    idxs[nb++] = ir->axis[j].dim;
  }
  for (int j = 0; j < first; j++) {
    const lg_ir_axis *a = &ir->axis[j];
    if (a->mod || seen[a->dim]++) return 0;
    os[a->dim] = r->stride[j];
  }
  for (int d = 0; d < r->rank; d++) {
    int blocked = 0; /* oneDNN zeroes the padding of blocked dims only */
    for (int b = 0; b < nb; b++) blocked |= idxs[b] == d;
    if (!seen[d] || (r->P[d] != r->size[d] && !blocked)) return 0;
  }
  *md = dnnl_md_blocked(r->rank, r->size, r->P, dt, os, nb, blks, idxs, 0);
  return dnnl_memory_desc_get_size(md) == (size_t)r->nelem * r->hsz;
}

typedef struct {
  dnnl_primitive_t prim;
  dnnl_memory_t ms, md;
  const char *impl;
} dnnl_run;

static int dnnl_setup(inst *x, dnnl_run *d) {
  const sw_case *c = x->c;
  dnnl_memory_desc_t ms, md;
  int ok;
  if (c->dir == LAY_PACK) ok = md_cpu(c->shape, c->rank, x->cpu, &ms) && md_layout(&x->ra, &md);
  else if (c->dir == LAY_UNPACK) ok = md_layout(&x->ra, &ms) && md_cpu(c->shape, c->rank, x->cpu, &md);
  else {
    /* oneDNN needs one dim order on both sides: only when the names match in order */
    ok = md_layout(&x->ra, &ms) && md_layout(&x->rb, &md);
    for (int j = 0; j < c->rank && ok; j++) ok = x->map[j] == j;
  }
  if (!ok) return 0;
  dnnl_primitive_desc_t pd;
  if (dnnl_reorder_primitive_desc_create(&pd, &ms, g_eng, &md, g_eng, NULL) != dnnl_success)
    return 0;
  DNNL_OK(dnnl_primitive_create(&d->prim, pd));
  d->impl = "?";
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &d->impl);
  d->impl = strdup(d->impl);
  DNNL_OK(dnnl_memory_create(&d->ms, &ms, g_eng, x->src));
  DNNL_OK(dnnl_memory_create(&d->md, &md, g_eng, x->dst));
  dnnl_primitive_desc_destroy(pd);
  return 1;
}
static void dnnl_exec(dnnl_run *d) {
  dnnl_exec_arg_t args[2] = {{DNNL_ARG_FROM, d->ms}, {DNNL_ARG_TO, d->md}};
  DNNL_OK(dnnl_primitive_execute(d->prim, g_strm, 2, args));
  DNNL_OK(dnnl_stream_wait(g_strm));
}
static void dnnl_free(dnnl_run *d) {
  if (!d->prim) return;
  dnnl_primitive_destroy(d->prim);
  dnnl_memory_destroy(d->ms);
  dnnl_memory_destroy(d->md);
  free((char *)d->impl);
}
#endif

/* ---- Timing -------------------------------------------------------------- */
enum { T_MC, T_LAY, T_LAY2, T_DNNL, NT };

typedef struct {
  int timed, have[NT];
  double us[NT], x[NT];   /* median time, median ratio to memcpy */
  double speedup2;        /* median over batches of t(1 thread) / t(2) */
  double numpy_x, numpy_us;
  int numpy_have;
  char numpy_note[64];
  size_t big;             /* the larger buffer */
  double create_us;
  char dnnl_impl[48];
} result;

typedef struct {
  inst *x;
  uint8_t *ms, *md;
#ifdef LAY_BENCH_DNNL
  dnnl_run d;
#endif
} runner;

static void run_t(runner *r, int i) {
  switch (i) {
  case T_MC: memcpy(r->md, r->ms, r->x->sb > r->x->db ? r->x->sb : r->x->db); break;
  case T_LAY: run_lay(r->x, 1); break;
  case T_LAY2: run_lay(r->x, 2); break;
#ifdef LAY_BENCH_DNNL
  case T_DNNL: dnnl_exec(&r->d); break;
#endif
  default: break;
  }
}

static void time_case(runner *r, result *res) {
  int act[NT], na = 0;
  for (int i = 0; i < NT; i++)
    if (res->have[i]) act[na++] = i;
  long reps[NT];
  for (int a = 0; a < na; a++) { /* warm up, then calibrate for 2 ms */
    run_t(r, act[a]);
    long n = 0;
    double t0 = now_s(), t;
    do {
      run_t(r, act[a]);
      t = now_s() - t0;
      ++n;
    } while (t < 0.002);
    reps[act[a]] = (long)(g_target_s / NB / (t / (double)n));
    if (reps[act[a]] < 1) reps[act[a]] = 1;
  }
  double tb[NT][NB], tw[NT][NB]; /* the chosen clock, the wall */
  for (int b = 0; b < NB; b++)
    for (int a = 0; a < na; a++) {
      int i = act[a];
      double c0 = clock_s(g_clock), t0 = now_s();
      for (long k = 0; k < reps[i]; k++) run_t(r, i);
      tw[i][b] = (now_s() - t0) / (double)reps[i];
      tb[i][b] = i == T_LAY2 ? tw[i][b] : (clock_s(g_clock) - c0) / (double)reps[i];
    }
  for (int a = 0; a < na; a++) {
    int i = act[a];
    double q[NB];
    for (int b = 0; b < NB; b++)
      q[b] = i == T_LAY2 ? tw[i][b] / tw[T_MC][b] : tb[i][b] / tb[T_MC][b];
    res->us[i] = median(tb[i], NB) * 1e6;
    res->x[i] = median(q, NB);
  }
  if (res->have[T_LAY2]) {
    double q[NB];
    for (int b = 0; b < NB; b++) q[b] = tw[T_LAY][b] / tw[T_LAY2][b];
    res->speedup2 = median(q, NB);
  }
  res->timed = 1;
}

/* ---- The numpy side: the case's layouts as numbers, and numpy's results - */
static void json_doubles(FILE *f, const double *v, int n) {
  fputc('[', f);
  for (int i = 0; i < n; i++) fprintf(f, "%s%.17g", i ? "," : "", v[i]);
  fputc(']', f);
}

static void json_layout(FILE *f, const rlay *r) {
  const lg_ir *ir = r->ir;
  const lg_ir_value *v = &ir->value;
  fprintf(f, "{\"hw\":\"%s\",\"nelem\":%lld,\"dims\":[", lay_dtype_name(r->hw),
          (long long)r->nelem);
  for (int d = 0; d < r->rank; d++)
    fprintf(f, "%s[%lld,%lld,%lld,%lld]", d ? "," : "", (long long)r->lo[d],
            (long long)r->hi[d], (long long)r->before[d], (long long)r->P[d]);
  fprintf(f, "],\"axes\":[");
  for (int j = 0; j < ir->naxes; j++) {
    const lg_ir_axis *a = &ir->axis[j];
    fprintf(f, "%s[\"%c\",%d,%lld,%lld,%lld,%lld]", j ? "," : "",
            a->kind == LG_AX_DIGIT ? 'd' : a->kind == LG_AX_UNIT ? 'u' : 'p', a->dim,
            (long long)a->div, (long long)a->mod, (long long)r->ext[j], (long long)r->stride[j]);
  }
  int n = v->kind == LG_V_AFFINE ? v->n : 0;
  fprintf(f, "],\"v\":{\"kind\":%d,\"dequant\":%d,\"axis\":%d,\"round\":%d,\"pad\":%.17g,",
          (int)v->kind, v->dequant, v->axis, (int)v->round, v->pad_value);
  fprintf(f, "\"split\":\"%s\",\"num\":", lay_dtype_name(v->kind != LG_V_NONE ? v->hw : r->cpu));
  json_doubles(f, v->num, n);
  fprintf(f, ",\"den\":");
  json_doubles(f, v->den, n);
  fprintf(f, ",\"zp\":");
  json_doubles(f, v->zp, n);
  fprintf(f, ",\"xoff\":");
  json_doubles(f, v->xoff, n);
  fprintf(f, ",\"planes\":[");
  for (int k = 0; k < v->nplanes; k++)
    fprintf(f, "%s[%d,%u]", k ? "," : "", v->plane[k].shift, v->plane[k].mask);
  fprintf(f, "]}}");
}

static void write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
    fprintf(stderr, "lay_sweep: cannot write %s: %s\n", path, strerror(errno));
    exit(2);
  }
}

static void dump_case(FILE *man, const char *dir, int i, const inst *x) {
  const sw_case *c = x->c;
  char path[4096];
  snprintf(path, sizeof path, "%s/%d.src", dir, i);
  write_file(path, x->src, x->sb);
  snprintf(path, sizeof path, "%s/%d.ref", dir, i);
  write_file(path, x->ref, x->db);
  fprintf(man, "{\"i\":%d,\"name\":\"%s\",\"dir\":\"%s\",\"cpu\":\"%s\",\"shape\":[", i, c->name,
          c->dir == LAY_PACK ? "pack" : c->dir == LAY_UNPACK ? "unpack" : "convert",
          lay_dtype_name(x->cpu));
  for (int d = 0; d < c->rank; d++) fprintf(man, "%s%lld", d ? "," : "", (long long)c->shape[d]);
  fprintf(man, "],\"sb\":%zu,\"db\":%zu,\"a\":", x->sb, x->db);
  json_layout(man, &x->ra);
  if (c->dir == LAY_CONVERT) {
    fprintf(man, ",\"b\":");
    json_layout(man, &x->rb);
    fprintf(man, ",\"map\":[");
    for (int j = 0; j < c->rank; j++) fprintf(man, "%s%d", j ? "," : "", x->map[j]);
    fprintf(man, "]");
  }
  fprintf(man, "}\n");
}

/* numpy's results: "name<TAB>x_memcpy<TAB>us<TAB>note" per line. */
static void read_numpy(const char *path, const sw_case *cs, result *rs, int n) {
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("lay_sweep: no numpy results (%s: %s)\n", path, strerror(errno));
    return;
  }
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    char *t1 = strchr(line, '\t');
    if (!t1) continue;
    *t1 = 0;
    for (int i = 0; i < n; i++)
      if (!strcmp(cs[i].name, line)) {
        char note[64] = "";
        if (sscanf(t1 + 1, "%lf\t%lf\t%63[^\n]", &rs[i].numpy_x, &rs[i].numpy_us, note) >= 2) {
          rs[i].numpy_have = rs[i].numpy_x > 0;
          snprintf(rs[i].numpy_note, sizeof rs[i].numpy_note, "%s", note);
        }
        break;
      }
  }
  fclose(f);
}

/* ---- One case ------------------------------------------------------------ */
static int g_check, g_dnnl_differs;
static FILE *g_man;
static const char *g_dump;

static void fmt_x(char *b, size_t n, int have, double x) {
  if (have) snprintf(b, n, "%.2f", x);
  else snprintf(b, n, "-");
}

static void do_case(int i, const sw_case *c, result *res) {
  inst x;
  if (!inst_init(&x, c)) {
    inst_free(&x);
    return;
  }
  res->create_us = x.create_us;
  res->big = x.sb > x.db ? x.sb : x.db;
  int ok = check_lay(&x);
  if (g_man && ok) dump_case(g_man, g_dump, i, &x);
  runner r;
  memset(&r, 0, sizeof r);
  r.x = &x;
  res->have[T_MC] = res->have[T_LAY] = 1;
  res->have[T_LAY2] = res->big >= BIG;
#ifdef LAY_BENCH_DNNL
  if (dnnl_setup(&x, &r.d)) {
    memset(x.dst, 0x5A, x.db);
    dnnl_exec(&r.d);
    if (memcmp(x.dst, x.ref, x.db)) {
      printf("  note: %s: oneDNN's output differs from the reference (%s): not timed\n",
             c->name, r.d.impl);
      g_dnnl_differs++;
    } else {
      res->have[T_DNNL] = 1;
      snprintf(res->dnnl_impl, sizeof res->dnnl_impl, "%s", r.d.impl);
    }
  }
#endif
  if (g_check) {
    printf("%-4s %s%s\n", ok ? "ok" : "FAIL", c->name, res->have[T_DNNL] ? " (onednn ok)" : "");
  } else if (ok) {
    r.ms = xalloc(res->big);
    r.md = xalloc(res->big);
    memset(r.ms, 1, res->big);
    time_case(&r, res);
    if (!same_as_ref(&x, "lay after timing")) g_fail = 1;
    char d[16], np[16], s2[16];
    fmt_x(d, sizeof d, res->have[T_DNNL], res->x[T_DNNL]);
    fmt_x(np, sizeof np, res->numpy_have, res->numpy_x);
    fmt_x(s2, sizeof s2, res->have[T_LAY2], res->speedup2);
    printf("%6.2f %6s %6s %5s %9.2f %9.2f %7.1f %9zu  %s\n", res->x[T_LAY], d, np, s2,
           res->us[T_LAY], res->us[T_MC], res->create_us, res->big, c->name);
    free(r.ms);
    free(r.md);
  }
#ifdef LAY_BENCH_DNNL
  dnnl_free(&r.d);
#endif
  inst_free(&x);
}

/* The 1-minute load average, to show how shared the machine was. */
static double loadavg(void) {
  double l = -1;
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (fscanf(f, "%lf", &l) != 1) l = -1;
    fclose(f);
  }
  return l;
}

/* ---- Summary -------------------------------------------------------------- */
static const sw_case *g_cs;
static const result *g_rs;
static int by_lay_x(const void *a, const void *b) {
  double x = g_rs[*(const int *)a].x[T_LAY], y = g_rs[*(const int *)b].x[T_LAY];
  return x > y ? -1 : x < y;
}

static void worst_table(const int *ord, int n, int k) {
  printf("\n| # | case | lay / memcpy | onednn / memcpy | numpy / memcpy | lay us | memcpy us | "
         "larger buffer B |\n|---|---|---|---|---|---|---|---|\n");
  for (int i = 0; i < k && i < n; i++) {
    const result *r = &g_rs[ord[i]];
    char d[16], np[16];
    fmt_x(d, sizeof d, r->have[T_DNNL], r->x[T_DNNL]);
    fmt_x(np, sizeof np, r->numpy_have, r->numpy_x);
    printf("| %d | `%s` | %.2f | %s | %s | %.2f | %.2f | %zu |\n", i + 1, g_cs[ord[i]].name,
           r->x[T_LAY], d, np, r->us[T_LAY], r->us[T_MC], r->big);
  }
}

/* Cases where lay is slower than `other` (numpy or oneDNN), worst first. */
static void slower_than(const int *ord, int n, const char *other, int is_numpy) {
  int have = 0, slower = 0;
  for (int i = 0; i < n; i++) {
    const result *r = &g_rs[ord[i]];
    int h = is_numpy ? r->numpy_have : r->have[T_DNNL];
    double ox = is_numpy ? r->numpy_x : r->x[T_DNNL];
    if (!h) continue;
    have++;
    if (r->x[T_LAY] > ox) {
      if (slower++ < 10)
        printf("  slower than %s: %s: lay %.2f, %s %.2f\n", other, g_cs[ord[i]].name,
               r->x[T_LAY], other, ox);
    }
  }
  printf("- lay slower than %s: %d of the %d cases %s runs%s\n", other, slower, have, other,
         slower > 10 ? " (the ten worst by lay's ratio listed above)" : "");
}

static void summary(int n) {
  int ord[1024], m = 0;
  for (int i = 0; i < n; i++)
    if (g_rs[i].timed) ord[m++] = i;
  if (!m) return;
  qsort(ord, (size_t)m, sizeof *ord, by_lay_x);
  double xs[1024];
  int b1 = 0, b2 = 0, b3 = 0;
  for (int i = 0; i < m; i++) {
    double x = xs[i] = g_rs[ord[i]].x[T_LAY];
    if (x <= 1.3) b1++;
    else if (x <= 2.5) b2++;
    else b3++;
  }
  double med = median(xs, m);
  printf("\n## Sweep summary (%d cases; lay / memcpy of the larger buffer, medians of %d "
         "batches; %s clock; load average %.1f at the end on %ld cores)\n\n", m, NB,
         g_clock == CLOCK_MONOTONIC ? "wall" : "CPU-time", loadavg(),
         sysconf(_SC_NPROCESSORS_ONLN));
  printf("| band | cases |\n|---|---|\n| <= 1.3x | %d |\n| <= 2.5x | %d |\n| > 2.5x | %d |\n",
         b1, b2, b3);
  printf("\n- median: %.2fx memcpy\n", med);
  static const char *groups[] = {"stdlib", "convert", "user", "large"};
  for (int g = 0; g < 4; g++) {
    double v[1024];
    int k = 0;
    for (int i = 0; i < m; i++)
      if (!strcmp(g_cs[ord[i]].group, groups[g])) v[k++] = g_rs[ord[i]].x[T_LAY];
    if (k) printf("- median of the %s cases (%d): %.2fx\n", groups[g], k, median(v, k));
  }
  printf("- five worst:");
  for (int i = 0; i < 5 && i < m; i++)
    printf("%s `%s` %.2fx", i ? ";" : "", g_cs[ord[i]].name, g_rs[ord[i]].x[T_LAY]);
  printf("\n\nThe ten worst:\n");
  worst_table(ord, m, 10);
  printf("\n");
  slower_than(ord, m, "numpy", 1);
  slower_than(ord, m, "onednn", 0);
  int small = 0, small_bad = 0;
  for (int i = 0; i < m; i++) {
    const result *r = &g_rs[ord[i]];
    if (r->big >= 64 * 1024) continue;
    small++;
    if (r->us[T_LAY] > 2.5 * r->us[T_MC] + 0.2) {
      if (small_bad++ < 5)
        printf("  small buffer over 2.5x memcpy + 0.2 us: %s: lay %.2f us, memcpy %.2f us\n",
               g_cs[ord[i]].name, r->us[T_LAY], r->us[T_MC]);
    }
  }
  printf("- buffers under 64 KB over 2.5x memcpy + 0.2 us: %d of %d\n", small_bad, small);
  /* two threads */
  double sl[1024], sm[1024];
  int nl = 0, nm = 0, slow2 = 0;
  printf("- two threads (lay_plan_run(..., 2)) against one, median over batches of t1/t2:\n");
  for (int i = 0; i < n; i++) {
    const result *r = &g_rs[i];
    if (!r->timed || !r->have[T_LAY2]) continue;
    if (r->speedup2 < 1) slow2++;
    if (r->big >= LARGE) {
      sl[nl++] = r->speedup2;
      printf("  %.2fx  %s (%.1f MB)\n", r->speedup2, g_cs[i].name, (double)r->big / 1e6);
    } else {
      sm[nm++] = r->speedup2;
    }
  }
  if (nl) printf("  cases of 8 MB and more: median %.2fx (target >= 1.6x each)\n", median(sl, nl));
  if (nm) printf("  cases of 1 to 8 MB: %d, median %.2fx\n", nm, median(sm, nm));
  printf("  two threads slower than one: %d of %d cases of 1 MB and more\n", slow2, nl + nm);
  for (int i = 0, k = 0; i < n && k < 5; i++) { /* which, the first five */
    const result *r = &g_rs[i];
    if (!r->timed || !r->have[T_LAY2] || r->speedup2 >= 1) continue;
    printf("    %.2fx  %s (%.1f MB)\n", r->speedup2, g_cs[i].name, (double)r->big / 1e6);
    k++;
  }
  double cmax = 0, cv[1024];
  int cmi = ord[0];
  for (int i = 0; i < m; i++) {
    cv[i] = g_rs[ord[i]].create_us;
    if (cv[i] > cmax) {
      cmax = cv[i];
      cmi = ord[i];
    }
  }
  printf("- plan creation (median of 5 per case): max %.1f us (`%s`), median %.1f us; "
         "target < 1000 us: %s\n", cmax, g_cs[cmi].name, median(cv, m), cmax < 1000 ? "met" : "NOT met");
  printf("- targets: every case <= 2.5x: %s; median <= 1.3x: %s\n",
         b3 ? "NOT met" : "met", med <= 1.3 ? "met" : "NOT met");
}

int main(int argc, char **argv) {
  const char *only = NULL, *numpy = NULL;
  int small = 0;
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--check")) g_check = 1;
    else if (!strcmp(argv[a], "--dump") && a + 1 < argc) g_dump = argv[++a];
    else if (!strcmp(argv[a], "--numpy") && a + 1 < argc) numpy = argv[++a];
    else if (!strcmp(argv[a], "--only") && a + 1 < argc) only = argv[++a];
    else if (!strcmp(argv[a], "--small")) small = 1;
    else if (!strcmp(argv[a], "--target-ms") && a + 1 < argc) g_target_s = atof(argv[++a]) / 1e3;
    else {
      fprintf(stderr, "usage: %s [--check] [--dump DIR] [--numpy FILE] [--only SUBSTRING] "
              "[--small] [--target-ms MS]\n", argv[0]);
      return 2;
    }
  }
  if (g_target_s <= 0) g_target_s = 0.024;
  const char *ck = getenv("LAY_SWEEP_CLOCK");
  if (ck && !strcmp(ck, "cpu")) g_clock = CLOCK_THREAD_CPUTIME_ID;
#ifdef LAY_BENCH_DNNL
  if (!getenv("OMP_NUM_THREADS")) { /* oneDNN on one thread, as lay_bench */
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
  }
  DNNL_OK(dnnl_engine_create(&g_eng, dnnl_cpu, 0));
  DNNL_OK(dnnl_stream_create(&g_strm, g_eng, dnnl_stream_default_flags));
#endif
  setvbuf(stdout, NULL, _IOLBF, 0);
  lay_error e;
  memset(&e, 0, sizeof e);
  if (lay_ctx_new(&g_ctx, &e) != LAY_OK ||
      lay_ctx_load_string(g_ctx, "<lay_sweep>", sw_user_spec, strlen(sw_user_spec), &e) != LAY_OK) {
    char buf[1200];
    lay_error_format(&e, buf, sizeof buf);
    printf("lay_sweep: context FAILED: %s\n", buf);
    return 1;
  }
  static sw_case cs[1024];
  static result rs[1024];
  int n = sw_cases(cs, 1024);
  if (g_dump) {
    char path[4096];
    mkdir(g_dump, 0777);
    snprintf(path, sizeof path, "%s/cases.jsonl", g_dump);
    g_man = fopen(path, "w");
    if (!g_man) {
      fprintf(stderr, "lay_sweep: cannot write %s: %s\n", path, strerror(errno));
      return 2;
    }
  }
  if (numpy) read_numpy(numpy, cs, rs, n);
  printf("lay_sweep: lay %s, %d cases, %s", lay_version_string(), n,
#ifdef LAY_BENCH_DNNL
         "oneDNN on one thread"
#else
         "oneDNN: skipped (libdnnl-dev not installed)"
#endif
  );
  printf("; load average %.1f; clock %s", loadavg(),
         g_clock == CLOCK_MONOTONIC ? "wall" : "thread CPU time (LAY_SWEEP_CLOCK=cpu)");
  if (g_check) printf("; --check: every case once on 1 and 2 threads against the reference\n");
  else printf("; %d batches, %.0f ms per implementation per case\n\n%6s %6s %6s %5s %9s %9s "
              "%7s %9s  %s\n", NB, g_target_s * 1e3, "lay_x", "dnn_x", "np_x", "2T", "lay_us",
              "mc_us", "plan_us", "bytes", "case");
  double t0 = now_s();
  int ran = 0;
  for (int i = 0; i < n; i++) {
    if ((only && !strstr(cs[i].name, only)) || (small && !strcmp(cs[i].group, "large")))
      continue;
    ran++;
    do_case(i, &cs[i], &rs[i]);
  }
  if (g_man) fclose(g_man);
  g_cs = cs;
  g_rs = rs;
  if (!g_check) summary(n);
  if (g_dnnl_differs) printf("- oneDNN's output differed from the reference in %d cases (not timed)\n",
                             g_dnnl_differs);
  printf("\nlay_sweep: %d cases in %.1f s: %s\n", ran, now_s() - t0,
         g_fail ? "FAILED (see MISMATCH / FAILED above)" : "every lay output identical to the reference");
#ifdef LAY_BENCH_DNNL
  dnnl_stream_destroy(g_strm);
  dnnl_engine_destroy(g_eng);
#endif
  lay_ctx_free(g_ctx);
  return g_fail ? 1 : 0;
}
