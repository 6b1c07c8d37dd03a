/*
** fuzz_diff.c: a differential fuzz target. The fuzz bytes drive a
** generator of VALID layout specs (1-4 dimensions; whole dimensions, digit
** splits, ceil, explicit pads, slices, unit axes, any permutation, explicit
** strides or alignment, every dtype, sometimes byte planes, a lossless
** cast or a quantize/fixed clause, a pad value) and of a shape of at most
** a few thousand elements. The spec is compiled through the public API
** (lay_ctx_load_string, lay_plan_create for pack and unpack) and checked
** against a slow per-element reference written here from the
** semantics in LANGUAGE.md (the generator records each axis' dimension,
** divisor, modulus and stride, each dimension's window and pads; the
** planner and the IR are not consulted):
**   - the buffer size and every byte of the packed buffer, data and pads
**     (the destination is filled with 0x5A first; every pad element must
**     hold pad_value);
**   - lay_plan_where / lay_plan_at for every element;
**   - unpack(pack(x)) == x inside the window (masked for lossy planes,
**     exact for the chosen values of the lossless value rules);
**   - a run on two threads gives the same bytes as one;
**   - a convert to a second layout of the same dimensions (M) gives what
**     pack M gives on the unpacked data, with garbage in the source's
**     pads, on one thread and two.
** A spec the generator believes valid that fails to compile, or any
** disagreement, aborts with the spec text on stderr. Inputs that start
** with "TC" are transform chains instead, checked against a numpy-style
** reference written from LANGUAGE.md (diff_chain.c).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "diff_chain.h"
#include "fuzz.h"
#include "lang.h"

#define MAX_ELEMS 3000      /* CPU elements of a generated shape */
#define MAX_HW (1 << 20)    /* hardware elements of a generated buffer */

/* ---- The byte source ------------------------------------------------------- */

typedef struct {
  const uint8_t *p;
  size_t n, i;
} src_t;

/* A value in [0, n); 0 once the input is used up. */
static uint32_t rd(src_t *s, uint32_t n) {
  if (n <= 1) return 0;
  uint32_t v = 0;
  for (uint32_t r = n - 1; r; r >>= 8)
    v = (v << 8) | (s->i < s->n ? s->p[s->i++] : 0);
  return v % n;
}

/* ---- Generation ------------------------------------------------------------- */

typedef struct {
  char text[4096];
  size_t len;
} sbuf;

static void put(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#include <stdarg.h>
static void put(sbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(b->text + b->len, sizeof b->text - b->len, fmt, ap);
  va_end(ap);
  FZ_CHECK(n >= 0 && (size_t)n < sizeof b->text - b->len, "spec too long");
  b->len += (size_t)n;
}

typedef enum { V_NONE, V_PLANES, V_CAST, V_QUANT, V_FIXED } vmode;

typedef struct {
  int rank;
  int64_t shape[4];
  lay_dtype cpu, hw;  /* hw: the stored element type before planes */
  int typed;          /* the spec writes ": cpu" */
  vmode vm;
  double scale;       /* V_QUANT / V_FIXED */
  int zp, radix, trunc;
  int frac;           /* data has fractional steps (pack check only) */
  int nplanes;
  int shift[4];
  uint32_t mask[4];
  double pad_value;
  int lossy_planes;
  int has_slice;      /* some dimension is sliced (convert is skipped) */
  int mperm[4];       /* layout M: the order of the dimensions */
  int msplit, mmod;   /* layout M: dimension split as d/mmod, d%mmod (-1 none) */
  /* The layout as LANGUAGE.md defines it, for the reference: per
  ** dimension the window [lo, hi) and the pad before it; per axis in
  ** memory order its kind, dimension, divisor and modulus (0: all the
  ** rest) and stride; the buffer's size in hardware elements. */
  int64_t lo[4], hi[4], bef[4];
  int nax;
  int akind[40], adim[40]; /* akind: 0 digit, 1 unit, 2 byte plane */
  int64_t adiv[40], amod[40], astr[40];
  int64_t hwn;
} gen_t;

/* One memory-order item while it is generated. */
typedef struct {
  char text[96];
  int64_t extent;     /* concrete extent for this shape */
  int suffix;         /* 0 none, 1 explicit stride, 2 align */
  int fixed;          /* the extent does not depend on the shape */
  int64_t align;
  int kind, dim;      /* 0 digit of dim, 1 unit, 2 byte plane */
  int64_t div, mod;   /* digit: (p / div) % mod, mod 0 = all the rest */
} item_t;

static const lay_dtype all_types[] = {LAY_DT_INT8,  LAY_DT_UINT8, LAY_DT_INT16,
                                      LAY_DT_UINT16, LAY_DT_INT32, LAY_DT_FP32,
                                      LAY_DT_FP16,  LAY_DT_BF16};

static int is_float(lay_dtype t) {
  return t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16;
}

static void type_range(lay_dtype t, double *lo, double *hi) {
  switch (t) {
  case LAY_DT_INT8: *lo = -128; *hi = 127; break;
  case LAY_DT_UINT8: *lo = 0; *hi = 255; break;
  case LAY_DT_INT16: *lo = -32768; *hi = 32767; break;
  case LAY_DT_UINT16: *lo = 0; *hi = 65535; break;
  case LAY_DT_INT32: *lo = -2147483648.0; *hi = 2147483647.0; break;
  default: *lo = -1e30; *hi = 1e30; break;
  }
}

/* Generate the spec text of layout fz.L into b; 0, or -1 when the shape
** would be too large (the input is then skipped). */
static int generate(src_t *s, gen_t *g, sbuf *b) {
  memset(g, 0, sizeof *g);
  g->rank = 1 + (int)rd(s, 4);
  static const int per[] = {0, 400, 60, 16, 9};
  int64_t total = 1;
  for (int d = 0; d < g->rank; d++) {
    g->shape[d] = 1 + rd(s, (uint32_t)per[g->rank]);
    total *= g->shape[d];
  }
  if (total > MAX_ELEMS) return -1;

  /* The value rule. */
  uint32_t vr = rd(s, 10);
  g->vm = vr < 5 ? V_NONE : vr < 7 ? V_PLANES : vr < 8 ? V_CAST
        : vr < 9 ? V_QUANT : V_FIXED;
  g->cpu = all_types[rd(s, 8)];
  g->typed = (int)rd(s, 2);
  if (g->vm == V_PLANES) {
    static const lay_dtype pt[] = {LAY_DT_INT16, LAY_DT_UINT16, LAY_DT_INT32,
                                   LAY_DT_UINT64};
    g->cpu = pt[rd(s, 4)];
    g->typed = 1;
    if (lay_dtype_size(g->cpu) == 8) { /* the low 32 bits; 28..31 only */
      g->nplanes = 3;
      g->shift[0] = 0, g->shift[1] = 8, g->shift[2] = 28;
      for (int p = 0; p < 3; p++) g->mask[p] = 0xff;
      g->lossy_planes = 1;
    } else if (lay_dtype_size(g->cpu) == 4) {
      g->nplanes = 4;
      for (int p = 0; p < 4; p++) g->shift[p] = 8 * p, g->mask[p] = 0xff;
    } else if (rd(s, 3) == 0) {
      g->nplanes = 2; /* Kneron HL: bit 0 is dropped */
      g->shift[0] = 1, g->mask[0] = 0x7f;
      g->shift[1] = 8, g->mask[1] = 0xff;
      g->lossy_planes = 1;
    } else {
      g->nplanes = 2;
      g->shift[0] = 0, g->mask[0] = 0xff;
      g->shift[1] = 8, g->mask[1] = 0xff;
    }
  } else if (g->vm == V_CAST) {
    static const lay_dtype pairs[][2] = {
        {LAY_DT_INT8, LAY_DT_INT16},   {LAY_DT_INT8, LAY_DT_INT32},
        {LAY_DT_INT8, LAY_DT_FP32},    {LAY_DT_INT8, LAY_DT_FP16},
        {LAY_DT_UINT8, LAY_DT_INT16},  {LAY_DT_UINT8, LAY_DT_UINT16},
        {LAY_DT_UINT8, LAY_DT_FP32},   {LAY_DT_INT16, LAY_DT_INT32},
        {LAY_DT_INT16, LAY_DT_FP32},   {LAY_DT_UINT16, LAY_DT_INT32},
        {LAY_DT_FP16, LAY_DT_FP32},    {LAY_DT_BF16, LAY_DT_FP32},
        {LAY_DT_FP32, LAY_DT_FP32},    {LAY_DT_INT32, LAY_DT_INT32}};
    uint32_t k = rd(s, sizeof pairs / sizeof pairs[0]);
    g->cpu = pairs[k][0];
    g->hw = pairs[k][1];
    g->typed = 1;
  } else if (g->vm == V_QUANT || g->vm == V_FIXED) {
    static const lay_dtype qt[] = {LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16};
    g->cpu = LAY_DT_FP32;
    g->hw = qt[rd(s, 3)];
    g->typed = 1;
    g->scale = ldexp(1.0, (int)rd(s, 5) - 2); /* 0.25 .. 4 */
    if (g->vm == V_QUANT) {
      g->zp = g->hw == LAY_DT_UINT8 ? (int)rd(s, 11) : (int)rd(s, 11) - 5;
      g->trunc = rd(s, 3) == 0;
    } else {
      g->radix = (int)rd(s, 4);
    }
    g->frac = rd(s, 3) == 0;
  }
  if (g->hw == LAY_DT_NONE) g->hw = g->cpu;
  /* The pad value, in the stored type's range. */
  if (g->vm != V_PLANES && rd(s, 2)) {
    double lo, hi;
    type_range(g->hw, &lo, &hi);
    double v = (double)((int)rd(s, 201) - 100);
    if (v < lo) v = lo + rd(s, 10);
    if (v > hi) v = hi;
    g->pad_value = v;
  }

  /* The items of every dimension. */
  item_t it[40];
  memset(it, 0, sizeof it);
  int n = 0;
  for (int d = 0; d < g->rank; d++) {
    int64_t sz = g->shape[d];
    uint32_t kind = rd(s, 6);
    char e[64];
    int64_t len = sz; /* stored extent before rounding */
    int64_t lo = 0, hi = sz, bef = 0, aft = 0;
    if (kind == 4 && sz > 1) { /* slice */
      g->has_slice = 1;
      lo = rd(s, (uint32_t)sz);
      hi = lo + 1 + rd(s, (uint32_t)(sz - lo));
      if (hi == sz && rd(s, 2))
        snprintf(e, sizeof e, "x%d[%lld:]", d, (long long)lo);
      else
        snprintf(e, sizeof e, "x%d[%lld:%lld]", d, (long long)lo,
                 (long long)hi);
      if (rd(s, 2)) {
        aft = 1 + rd(s, 3);
        size_t l = strlen(e);
        snprintf(e + l, sizeof e - l, " + %lld", (long long)aft);
      }
    } else if (kind == 3 || kind == 5) { /* explicit pads */
      bef = rd(s, 4);
      aft = rd(s, 4);
      if (bef && aft)
        snprintf(e, sizeof e, "%lld + x%d + %lld", (long long)bef, d,
                 (long long)aft);
      else if (bef)
        snprintf(e, sizeof e, "%lld + x%d", (long long)bef, d);
      else if (aft)
        snprintf(e, sizeof e, "x%d + %lld", d, (long long)aft);
      else
        snprintf(e, sizeof e, "x%d", d);
    } else {
      snprintf(e, sizeof e, "x%d", d);
    }
    len = bef + (hi - lo) + aft;
    g->lo[d] = lo;
    g->hi[d] = hi;
    g->bef[d] = bef;
    int split = kind == 1 || kind == 5 || (kind == 4 && rd(s, 2));
    if (kind == 2) { /* ceil */
      int64_t k = 1 + rd(s, 9);
      item_t *x = &it[n++];
      snprintf(x->text, sizeof x->text, "ceil(x%d, %lld)", d, (long long)k);
      x->extent = (len + k - 1) / k * k;
      x->dim = d;
      x->div = 1;
      continue;
    }
    if (!split) {
      item_t *x = &it[n++];
      snprintf(x->text, sizeof x->text, "%s", e);
      x->extent = len;
      x->dim = d;
      x->div = 1;
      continue;
    }
    /* Digits: moduli m[0] (lowest) .. m[nd-1], and the rest on top. */
    int nd = 1 + (int)rd(s, 3);
    int64_t m[3], M = 1;
    for (int j = 0; j < nd; j++) {
      m[j] = 2 + rd(s, 7);
      M *= m[j];
    }
    int64_t P = (len + M - 1) / M * M;
    const char *open = strchr(e, '+') ? "(" : "", *close = *open ? ")" : "";
    item_t *x = &it[n++];
    snprintf(x->text, sizeof x->text, "%s%s%s/%lld", open, e, close,
             (long long)M);
    x->extent = P / M;
    x->dim = d;
    x->div = M;
    int64_t div = 1;
    for (int j = 0; j < nd; j++) {
      x = &it[n++];
      if (div == 1)
        snprintf(x->text, sizeof x->text, "%s%s%s%%%lld", open, e, close,
                 (long long)m[j]);
      else
        snprintf(x->text, sizeof x->text, "%s%s%s/%lld%%%lld", open, e,
                 close, (long long)div, (long long)m[j]);
      x->extent = m[j];
      x->fixed = 1;
      x->dim = d;
      x->div = div;
      x->mod = m[j];
      div *= m[j];
    }
  }
  if (g->nplanes) {
    item_t *x = &it[n++];
    snprintf(x->text, sizeof x->text, "byte");
    x->extent = g->nplanes;
    x->fixed = 1;
    x->kind = 2;
  }
  for (int u = (int)rd(s, 4) - 1; u > 0; u--) {
    item_t *x = &it[n++];
    snprintf(x->text, sizeof x->text, "1");
    x->extent = 1;
    x->fixed = 1;
    x->kind = 1;
  }
  /* Memory order: a random permutation. */
  for (int i = n - 1; i > 0; i--) {
    int j = (int)rd(s, (uint32_t)i + 1);
    item_t t = it[i];
    it[i] = it[j];
    it[j] = t;
  }
  /* Strides and alignment, innermost first, with concrete values. */
  int64_t stride = 1, hwn = 1;
  int64_t strides[40];
  int inner_fixed = 1; /* every axis inside i has a fixed extent */
  for (int i = n - 1; i >= 0; i--) {
    int64_t nat = i == n - 1 ? 1 : strides[i + 1] * it[i + 1].extent;
    strides[i] = nat;
    uint32_t sfx = rd(s, 8);
    /* An explicit stride is a constant: only where it is valid for
    ** every shape (the front end checks the layout with other sizes). */
    if (i < n - 1 && sfx == 1 && inner_fixed) {
      it[i].suffix = 1;
      strides[i] = nat + rd(s, 4);
    } else if (sfx == 2) {
      it[i].suffix = 2;
      it[i].align = 1 + rd(s, 8);
      strides[i] = (nat + it[i].align - 1) / it[i].align * it[i].align;
    }
    if (strides[i] > MAX_HW) return -1;
    inner_fixed = inner_fixed && it[i].fixed && !it[i].suffix;
  }
  stride = strides[0];
  hwn = it[0].extent * stride;
  if (hwn > MAX_HW) return -1;
  g->hwn = hwn;
  g->nax = n;
  for (int i = 0; i < n; i++) {
    g->akind[i] = it[i].kind;
    g->adim[i] = it[i].dim;
    g->adiv[i] = it[i].div;
    g->amod[i] = it[i].mod;
    g->astr[i] = strides[i];
  }

  put(b, "namespace fz\nlayout L (");
  for (int d = 0; d < g->rank; d++) put(b, "%sx%d", d ? ", " : "", d);
  put(b, ")");
  if (g->typed) put(b, " : %s", lay_dtype_name(g->cpu));
  put(b, "\n    -> [");
  for (int i = 0; i < n; i++) {
    put(b, "%s%s", i ? ", " : "", it[i].text);
    if (it[i].suffix == 1) put(b, " @ %lld", (long long)strides[i]);
    if (it[i].suffix == 2) put(b, " align %lld", (long long)it[i].align);
  }
  put(b, "]\n");
  for (int p = 0; p < g->nplanes; p++)
    put(b, "%sb%d = (u >> %d) & 0x%x%s", p ? ", " : "    where byte = bytes(",
        p, g->shift[p], (unsigned)g->mask[p], p + 1 < g->nplanes ? "" : ")\n");
  if (g->vm == V_CAST)
    put(b, "    cast(to = %s)\n", lay_dtype_name(g->hw));
  if (g->vm == V_QUANT)
    put(b, "    quantize(scale = %g, zero_point = %d, to = %s%s)\n", g->scale,
        g->zp, lay_dtype_name(g->hw), g->trunc ? ", round = truncate" : "");
  if (g->vm == V_FIXED)
    put(b, "    fixed(scale = %g, radix = %d, to = %s)\n", g->scale, g->radix,
        lay_dtype_name(g->hw));
  if (g->pad_value != 0) put(b, "    pad_value = %g\n", g->pad_value);
  /* Layout M, the target of a convert: the same dimensions in another
  ** order, one of them maybe split, no value rule. */
  for (int d = 0; d < g->rank; d++) g->mperm[d] = d;
  for (int d = g->rank - 1; d > 0; d--) {
    int j = (int)rd(s, (uint32_t)d + 1), t = g->mperm[d];
    g->mperm[d] = g->mperm[j];
    g->mperm[j] = t;
  }
  g->msplit = (int)rd(s, (uint32_t)g->rank + 1) - 1;
  g->mmod = 2 + (int)rd(s, 7);
  put(b, "layout M (");
  for (int d = 0; d < g->rank; d++) put(b, "%sx%d", d ? ", " : "", d);
  put(b, ")");
  if (g->typed) put(b, " : %s", lay_dtype_name(g->cpu));
  put(b, " -> [");
  for (int i = 0; i < g->rank; i++) {
    int d = g->mperm[i];
    if (d == g->msplit)
      put(b, "%sx%d/%d", i ? ", " : "", d, g->mmod);
    else
      put(b, "%sx%d", i ? ", " : "", d);
  }
  if (g->msplit >= 0) put(b, ", x%d%%%d", g->msplit, g->mmod);
  put(b, "]\n");
  return 0;
}

/* ---- Element encoding ------------------------------------------------------- */

static uint16_t fp16_of_int(int v) { /* exact for |v| <= 2048 */
  if (v == 0) return 0;
  uint16_t sign = v < 0 ? 0x8000 : 0;
  unsigned a = (unsigned)(v < 0 ? -v : v);
  int e = 0;
  while ((a >> e) > 1) e++;
  uint16_t mant = (uint16_t)((a << (10 - e)) & 0x3ff);
  return (uint16_t)(sign | (uint16_t)((e + 15) << 10) | mant);
}

/* Store the value v (exactly representable) as type t at p. */
static void store(lay_dtype t, double v, unsigned char *p) {
  switch (t) {
  case LAY_DT_INT8: case LAY_DT_UINT8: p[0] = (unsigned char)(int)v; break;
  case LAY_DT_INT16: case LAY_DT_UINT16: {
    uint16_t u = (uint16_t)(int32_t)v;
    memcpy(p, &u, 2);
    break;
  }
  case LAY_DT_INT32: {
    int32_t u = (int32_t)v;
    memcpy(p, &u, 4);
    break;
  }
  case LAY_DT_FP32: {
    float f = (float)v;
    memcpy(p, &f, 4);
    break;
  }
  case LAY_DT_FP16: {
    uint16_t u = fp16_of_int((int)v);
    memcpy(p, &u, 2);
    break;
  }
  case LAY_DT_BF16: {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    uint16_t h = (uint16_t)(u >> 16);
    memcpy(p, &h, 2);
    break;
  }
  default: break;
  }
}

/* ---- The reference, from LANGUAGE.md ---------------------------------------- */

/* The hardware element offset of CPU coordinate x, plane 0, from the spec
** as generated (not from the IR): padded coordinate p = x - lo + before;
** each digit axis takes (p / div) % mod; the offset is the sum of digit *
** stride. -1 outside the window. *pstride receives the plane axis'
** stride. */
static int64_t ref_offset(const gen_t *g, const int64_t *x, int64_t *pstride) {
  int64_t p[4];
  for (int d = 0; d < g->rank; d++) {
    if (x[d] < g->lo[d] || x[d] >= g->hi[d]) return -1;
    p[d] = x[d] - g->lo[d] + g->bef[d];
  }
  int64_t off = 0;
  *pstride = 0;
  for (int i = 0; i < g->nax; i++) {
    if (g->akind[i] == 2) *pstride = g->astr[i];
    if (g->akind[i] != 0) continue;
    int64_t dg = p[g->adim[i]] / g->adiv[i];
    if (g->amod[i]) dg %= g->amod[i];
    off += dg * g->astr[i];
  }
  return off;
}

/* ---- The check ---------------------------------------------------------------- */

static void fail_spec(const sbuf *b, const int64_t *shape, int rank) {
  fprintf(stderr, "---- spec ----\n%s---- shape", b->text);
  for (int d = 0; d < rank; d++)
    fprintf(stderr, "%s%lld", d ? "," : " ", (long long)shape[d]);
  fprintf(stderr, "\n");
}

#define DCHECK(cond, ...)                                          \
  do {                                                             \
    if (!(cond)) {                                                 \
      fail_spec(&b, g.shape, g.rank);                              \
      FZ_CHECK(cond, __VA_ARGS__);                                 \
    }                                                              \
  } while (0)


long fz_layout_count;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size >= 2 && data[0] == 'T' && data[1] == 'C') /* a transform chain */
    return fz_chain_one(data + 2, size - 2);
  src_t s = {data, size, 0};
  gen_t g;
  sbuf b = {{0}, 0};
  if (generate(&s, &g, &b)) return 0;
  lay_error e;
  lay_ctx *ctx = NULL;
  DCHECK(lay_ctx_new(&ctx, &e) == LAY_OK, "ctx: %s", e.message);
  lay_status st = lay_ctx_load_string(ctx, "<diff>", b.text, b.len, &e);
  DCHECK(st == LAY_OK, "valid spec rejected: %d:%d: %s", e.line, e.col,
         e.message);
  lay_dtype dt = g.typed ? LAY_DT_NONE : g.cpu;
  lay_plan *pk = NULL, *up = NULL;
  st = lay_plan_create(ctx, "fz.L", g.shape, g.rank, dt, LAY_PACK, &pk, &e);
  DCHECK(st == LAY_OK, "pack plan: %s", e.message);
  st = lay_plan_create(ctx, "fz.L", g.shape, g.rank, dt, LAY_UNPACK, &up, &e);
  DCHECK(st == LAY_OK, "unpack plan: %s", e.message);

  struct { int64_t size; } r = {g.hwn};
  size_t ces = lay_dtype_size(g.cpu);
  size_t hes = g.nplanes ? 1 : lay_dtype_size(g.hw);
  int64_t n = 1;
  for (int d = 0; d < g.rank; d++) n *= g.shape[d];
  size_t sb = lay_plan_src_bytes(pk), db = lay_plan_dst_bytes(pk);
  DCHECK(sb == (size_t)n * ces, "src bytes %zu, want %lld", sb,
         (long long)(n * (int64_t)ces));
  DCHECK(db == (size_t)r.size * hes, "dst bytes %zu, reference %lld", db,
         (long long)(r.size * (int64_t)hes));
  DCHECK(lay_plan_src_dtype(pk) == g.cpu, "src dtype %d", lay_plan_src_dtype(pk));
  DCHECK(lay_plan_dst_bytes(up) == sb && lay_plan_src_bytes(up) == db,
         "unpack sizes %zu %zu", lay_plan_src_bytes(up), lay_plan_dst_bytes(up));

  /* The CPU data, the expected buffer (pads first), the expected unpack. */
  unsigned char *x = malloc(sb ? sb : 1), *want = malloc(db ? db : 1),
                *got = malloc(db ? db : 1), *got2 = malloc(db ? db : 1),
                *back = malloc(sb ? sb : 1), *wback = malloc(sb ? sb : 1);
  unsigned char *hit = calloc((size_t)r.size ? (size_t)r.size : 1, 1);
  FZ_CHECK(x && want && got && got2 && back && wback && hit, "out of memory");
  unsigned char padel[8];
  store(g.nplanes ? LAY_DT_UINT8 : g.hw, g.pad_value, padel);
  for (int64_t h = 0; h < r.size; h++) memcpy(want + h * (int64_t)hes, padel, hes);
  uint32_t seed = (uint32_t)size * 2654435761u + 1;
  int64_t xi[4] = {0, 0, 0, 0};
  for (int64_t k = 0; k < n; k++) {
    seed = seed * 1103515245u + 12345u;
    uint32_t rnd = seed >> 8;
    unsigned char *xe = x + k * (int64_t)ces, *be = wback + k * (int64_t)ces;
    double hv = 0; /* the stored value (value rules) */
    if (g.vm == V_NONE || g.vm == V_PLANES) {
      for (size_t j = 0; j < ces; j++) xe[j] = (unsigned char)(rnd >> (8 * (j % 3))) ^ (unsigned char)j;
      if (is_float(g.cpu)) store(g.cpu, (double)((int)(rnd % 201) - 100), xe);
      memcpy(be, xe, ces);
      if (g.vm == V_PLANES) {
        uint32_t u = 0, keep = 0; /* planes split the low 32 bits */
        memcpy(&u, xe, ces < 4 ? ces : 4);
        for (int p = 0; p < g.nplanes; p++) keep |= g.mask[p] << g.shift[p];
        uint64_t w = u & keep; /* what unpack gives back: zero above */
        memcpy(be, &w, ces);
      }
    } else if (g.vm == V_CAST) {
      double lo, hi;
      type_range(g.cpu, &lo, &hi);
      double v = (double)((int)(rnd % 201) - 100);
      if (v < lo) v = -v;
      store(g.cpu, v, xe);
      memcpy(be, xe, ces);
      hv = v;
    } else { /* quantize, fixed: x = k * step, exact in fp32 */
      double lo, hi;
      type_range(g.hw, &lo, &hi);
      double step = g.vm == V_QUANT ? g.scale : 1.0 / (g.scale * ldexp(1.0, g.radix));
      int q = (int)(rnd % 301) - 150;
      double f = g.frac ? 0.25 * (double)((rnd >> 12) % 4) : 0;
      double v = ((double)q + f) * step;
      store(LAY_DT_FP32, v, xe);
      double t = g.vm == V_QUANT ? v / g.scale : v * g.scale * ldexp(1.0, g.radix);
      double rq = g.trunc ? trunc(t) : nearbyint(t); /* half-even */
      rq += g.zp;
      if (rq < lo) rq = lo;
      if (rq > hi) rq = hi;
      hv = rq;
      double xb = g.vm == V_QUANT ? (rq - g.zp) * g.scale
                                  : rq / (g.scale * ldexp(1.0, g.radix));
      store(LAY_DT_FP32, xb, be);
    }
    int64_t ps;
    int64_t off = ref_offset(&g, xi, &ps);
    if (off >= 0) {
      DCHECK(off < r.size, "reference offset %lld beyond %lld", (long long)off,
             (long long)r.size);
      if (g.nplanes) {
        uint32_t u = 0;
        memcpy(&u, xe, ces < 4 ? ces : 4);
        for (int p = 0; p < g.nplanes; p++) {
          int64_t o = off + p * ps;
          DCHECK(!hit[o], "reference maps two elements to %lld", (long long)o);
          hit[o] = 1;
          want[o] = (unsigned char)((u >> g.shift[p]) & g.mask[p]);
        }
      } else {
        DCHECK(!hit[off], "reference maps two elements to %lld", (long long)off);
        hit[off] = 1;
        if (g.vm == V_NONE) memcpy(want + off * (int64_t)hes, xe, hes);
        else store(g.hw, hv, want + off * (int64_t)hes);
      }
      /* where / at against the reference, for a sample of the elements
      ** (every element of a small tensor) */
      if (n > 512 && k % (n / 256) != 0) goto next;
      uint64_t bo;
      st = lay_plan_where(pk, xi, g.rank, &bo, &e);
      DCHECK(st == LAY_OK && bo == (uint64_t)off * hes, "where element %lld: "
             "%llu, reference %lld (%s)", (long long)k, (unsigned long long)bo,
             (long long)(off * (int64_t)hes), st ? e.message : "");
      int64_t c[LAY_MAX_RANK];
      int is_pad = -1, plane = -1;
      st = lay_plan_at(pk, (uint64_t)off * hes + hes - 1, c, LAY_MAX_RANK,
                       &is_pad, &plane, &e);
      DCHECK(st == LAY_OK && !is_pad && plane == 0, "at %lld: %s pad %d",
             (long long)(off * (int64_t)hes), e.message, is_pad);
      for (int d = 0; d < g.rank; d++)
        DCHECK(c[d] == xi[d], "at %lld: coordinate %d is %lld, want %lld",
               (long long)off, d, (long long)c[d], (long long)xi[d]);
    }
  next:
    for (int d = g.rank - 1; d >= 0 && ++xi[d] == g.shape[d]; d--) xi[d] = 0;
  }
  /* Pack: every byte, one thread and two. */
  memset(got, 0x5A, db);
  st = lay_plan_run(pk, x, sb, got, db, 1, &e);
  DCHECK(st == LAY_OK, "pack: %s", e.message);
  for (size_t i = 0; i < db; i++)
    DCHECK(got[i] == want[i], "pack byte %zu (element %zu, %s) is 0x%02x, "
           "reference 0x%02x", i, i / hes, hit[i / hes] ? "data" : "pad",
           got[i], want[i]);
  memset(got2, 0x5A, db);
  st = lay_plan_run(pk, x, sb, got2, db, 2, &e);
  DCHECK(st == LAY_OK, "pack on 2 threads: %s", e.message);
  for (size_t i = 0; i < db; i++)
    DCHECK(got2[i] == want[i], "pack on 2 threads: byte %zu (element %zu, %s) "
           "is 0x%02x, reference 0x%02x (1 thread: 0x%02x)", i, i / hes,
           hit[i / hes] ? "data" : "pad", got2[i], want[i], got[i]);
  /* Unpack: the window's elements come back. */
  memset(back, 0x5A, sb);
  st = lay_plan_run(up, got, db, back, sb, 1, &e);
  DCHECK(st == LAY_OK, "unpack: %s", e.message);
  memset(xi, 0, sizeof xi);
  for (int64_t k = 0; k < n; k++) {
    int64_t ps;
    if (ref_offset(&g, xi, &ps) >= 0 && !(g.frac && g.vm >= V_QUANT))
      DCHECK(memcmp(back + k * (int64_t)ces, wback + k * (int64_t)ces, ces) == 0,
             "unpack element %lld differs", (long long)k);
    for (int d = g.rank - 1; d >= 0 && ++xi[d] == g.shape[d]; d--) xi[d] = 0;
  }
  /* Convert L -> M (one plan) gives what pack M gives on the unpacked
  ** data, with garbage in L's pads (a convert may copy whole blocks, L's
  ** pads with them, and fill M's pads after); skipped when L is sliced
  ** (its buffer lacks elements). */
  if (!g.has_slice) {
    lay_plan *pm = NULL, *cv = NULL;
    unsigned char *gl = malloc(db ? db : 1);
    FZ_CHECK(gl, "out of memory");
    for (size_t i = 0; i < db; i++)
      gl[i] = hit[i / hes] ? got[i] : (unsigned char)(0xA5 ^ i);
    st = lay_plan_create(ctx, "fz.M", g.shape, g.rank, dt, LAY_PACK, &pm, &e);
    DCHECK(st == LAY_OK, "pack M: %s", e.message);
    st = lay_plan_convert(ctx, "fz.L", "fz.M", g.shape, g.rank, dt, &cv, &e);
    DCHECK(st == LAY_OK, "convert L -> M: %s", e.message);
    size_t mb = lay_plan_dst_bytes(pm);
    DCHECK(lay_plan_src_bytes(cv) == db && lay_plan_dst_bytes(cv) == mb,
           "convert sizes %zu -> %zu, want %zu -> %zu", lay_plan_src_bytes(cv),
           lay_plan_dst_bytes(cv), db, mb);
    unsigned char *wm = malloc(mb ? mb : 1), *gm = malloc(mb ? mb : 1);
    FZ_CHECK(wm && gm, "out of memory");
    memset(wm, 0x5A, mb);
    st = lay_plan_run(pm, back, sb, wm, mb, 1, &e);
    DCHECK(st == LAY_OK, "pack M: %s", e.message);
    for (int th = 1; th <= 2; th++) {
      memset(gm, 0x5A, mb);
      st = lay_plan_run(cv, gl, db, gm, mb, th, &e);
      DCHECK(st == LAY_OK, "convert: %s", e.message);
      for (size_t i = 0; i < mb; i++)
        DCHECK(gm[i] == wm[i], "convert L -> M (%d thread%s): byte %zu is "
               "0x%02x, pack M of unpack L gives 0x%02x", th, th > 1 ? "s" : "",
               i, gm[i], wm[i]);
    }
    free(wm);
    free(gm);
    free(gl);
    lay_plan_free(pm);
    lay_plan_free(cv);
  }
  /* A short buffer is refused and writes nothing. */
  if (db > 0) {
    memset(got2, 0x5A, db);
    st = lay_plan_run(pk, x, sb, got2, db - 1, 1, &e);
    DCHECK(st == LAY_E_BUFFER, "short dst: %d", st);
    for (size_t i = 0; i < db; i++) DCHECK(got2[i] == 0x5A, "short dst written");
  }
  free(x);
  free(want);
  free(got);
  free(got2);
  free(back);
  free(wback);
  free(hit);
  lay_plan_free(pk);
  lay_plan_free(up);
  lay_ctx_free(ctx);
  fz_layout_count++;
  return 0;
}
