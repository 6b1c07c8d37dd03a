/*
** diff_chain.c: the transform-chain half of the differential fuzz target
** (fuzz_diff.c hands it inputs that start with "TC"). The fuzz bytes drive
** a generator of transform chains, `transform T (x : TYPE[SHAPE]) = OP |
** ...`, of pads (with and without values), slices (some keep only
** padding), transposes, reshapes and value ops (quantize, dequantize,
** cast; often several, applied in order), and of the input data. Unpack
** is checked too: every stored input element back through the inverted
** value ops (unvalue).
** The reference runs the chain on a tensor of doubles with numpy's
** semantics as LANGUAGE.md states them, written here without the planner
** or the IR: a pad is an element whose value (0 unless given) is one of
** the tensor's type there, the value ops convert every element, pads
** included (quantize q = sat(round(x / S) + Z), dequantize x = (q - Z) *
** S, cast: round to the target type, toward zero to fp16/bf16 with
** round = truncate). It then expects either the exact
** packed bytes, or one of the refusals LANGUAGE.md documents (more than 4
** value ops; per-channel ops along two dimensions; stored pads whose
** pad that overflows through the value ops after it; a pad whose channels
** differ in a chain that lowers to a gather table) with its message. The
** pads of a chain may hold different values: each its own.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_chain.h"
#include "fuzz.h"

#define CH_MAX 2048 /* elements of a tensor along the chain */

long fz_chain_count[7];

typedef struct {
  const uint8_t *p;
  size_t n, i;
} csrc;

static uint32_t crd(csrc *s, uint32_t n) {
  if (n <= 1) return 0;
  uint32_t v = 0;
  for (uint32_t r = n - 1; r; r >>= 8)
    v = (v << 8) | (s->i < s->n ? s->p[s->i++] : 0);
  return v % n;
}

/* The tensor: values, and which pad op made each element (-1: data). */
typedef struct {
  int rank;
  int64_t shape[8];
  int64_t n;
  double v[CH_MAX];
  int pad[CH_MAX];
  int64_t src[CH_MAX]; /* the input element, -1 for a pad */
  lay_dtype t;
} tens;

typedef struct {
  char s[4096];
  size_t len;
} cbuf;

static void cput(cbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void cput(cbuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(b->s + b->len, sizeof b->s - b->len, fmt, ap);
  va_end(ap);
  FZ_CHECK(k >= 0 && (size_t)k < sizeof b->s - b->len, "chain too long");
  b->len += (size_t)k;
}

static void list(cbuf *b, const int64_t *v, int n) {
  cput(b, "[");
  for (int i = 0; i < n; i++) cput(b, "%s%lld", i ? ", " : "", (long long)v[i]);
  cput(b, "]");
}

/* ---- Types, from LANGUAGE.md ---------------------------------------------- */

static int isf(lay_dtype t) {
  return t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16;
}

static void irange(lay_dtype t, double *lo, double *hi) {
  switch (t) {
  case LAY_DT_INT8: *lo = -128; *hi = 127; return;
  case LAY_DT_UINT8: *lo = 0; *hi = 255; return;
  case LAY_DT_INT16: *lo = -32768; *hi = 32767; return;
  case LAY_DT_UINT16: *lo = 0; *hi = 65535; return;
  default: *lo = -2147483648.0; *hi = 2147483647.0; return;
  }
}

/* Round to nearest, ties to even (toward zero when trunc), to `bits`
** significant bits with the smallest normal exponent emin (IEEE formats
** with subnormals). */
static double fround(double v, int bits, int emin, int trunc_) {
  if (v == 0 || !isfinite(v)) return v;
  int e;
  frexp(v, &e);
  if (e < emin) e = emin;
  double sc = ldexp(v, bits - e);
  double r = trunc_ ? trunc(sc) : nearbyint(sc); /* FE_TONEAREST */
  return ldexp(r, e - bits);
}

/* A double as a value of float type t: inf past the largest, or with
** round = truncate (mode 2, fp16/bf16 only) the largest finite value. */
static double as_float(lay_dtype t, double v, int mode) {
  if (t == LAY_DT_FP16 || t == LAY_DT_BF16) {
    int h = t == LAY_DT_FP16;
    double max = h ? 65504 : 0x1.fep127;
    double r = fround(v, h ? 11 : 8, h ? -13 : -125, mode == 2);
    if (isinf(v)) return v;
    return fabs(r) > max ? copysign(mode == 2 ? max : INFINITY, v) : r;
  }
  return (double)(float)v;
}

static double rnd_mode(double x, int mode) {
  return mode == 1 ? round(x) : mode == 2 ? trunc(x) : nearbyint(x);
}

/* Store v in type t (floats rounded; integers rounded with mode, then
** saturated). */
static double conv(lay_dtype t, double v, int mode) {
  if (isf(t)) return as_float(t, v, mode);
  double lo, hi, q = rnd_mode(v, mode) + 0.0; /* an integer has no -0 */
  irange(t, &lo, &hi);
  return q < lo ? lo : q > hi ? hi : q;
}

static void bytes_of(lay_dtype t, double v, unsigned char *p) {
  switch (t) {
  case LAY_DT_FP32: { float f = (float)v; memcpy(p, &f, 4); return; }
  case LAY_DT_FP16: case LAY_DT_BF16: {
    /* v is exactly representable (as_float): build the bits. */
    int bf = t == LAY_DT_BF16, mb = bf ? 7 : 10, eb = bf ? 8 : 5;
    int bias = (1 << (eb - 1)) - 1;
    uint16_t s = signbit(v) ? 0x8000 : 0, h;
    double a = fabs(v);
    if (isinf(a)) h = (uint16_t)(((1 << eb) - 1) << mb);
    else if (a == 0) h = 0;
    else {
      int e;
      frexp(a, &e); /* a = m * 2^e, m in [0.5, 1) */
      int be = e - 1 + bias;
      if (be <= 0) h = (uint16_t)ldexp(a, bias - 1 + mb); /* subnormal */
      else h = (uint16_t)((be << mb) | ((uint32_t)ldexp(a, mb - (e - 1)) & ((1u << mb) - 1)));
    }
    h |= s;
    memcpy(p, &h, 2);
    return;
  }
  case LAY_DT_INT8: case LAY_DT_UINT8: *p = (unsigned char)(int)v; return;
  case LAY_DT_INT16: case LAY_DT_UINT16: {
    uint16_t w = (uint16_t)(int32_t)v; memcpy(p, &w, 2); return;
  }
  default: { uint32_t w = (uint32_t)(int64_t)v; memcpy(p, &w, 4); return; }
  }
}

/* ---- The ops on the reference tensor ------------------------------------ */

static void strides(const tens *x, int64_t *st) {
  int64_t c = 1;
  for (int i = x->rank - 1; i >= 0; i--) { st[i] = c; c *= x->shape[i]; }
}

/* out[o] = in[src(o)] through a per-axis map (coordinate o - off on the
** same axis, perm[k] the source axis); outside: a pad of id with value. */
static void remap(tens *x, const int64_t *ns, const int *perm,
                  const int64_t *off, int id, double val) {
  static tens y;
  int64_t st[8], o[8] = {0}, n = 1;
  strides(x, st);
  for (int k = 0; k < x->rank; k++) n *= ns[k];
  for (int64_t i = 0; i < n; i++) {
    int64_t s = 0, ok = 1;
    for (int k = 0; k < x->rank; k++) {
      int64_t c = o[k] - off[k];
      if (c < 0 || c >= x->shape[perm[k]]) ok = 0;
      else s += c * st[perm[k]];
    }
    y.v[i] = ok ? x->v[s] : val;
    y.pad[i] = ok ? x->pad[s] : id;
    y.src[i] = ok ? x->src[s] : -1;
    for (int k = x->rank - 1; k >= 0; k--) {
      if (++o[k] < ns[k]) break;
      o[k] = 0;
    }
  }
  memcpy(x->v, y.v, sizeof(double) * (size_t)n);
  memcpy(x->pad, y.pad, sizeof(int) * (size_t)n);
  memcpy(x->src, y.src, sizeof(int64_t) * (size_t)n);
  memcpy(x->shape, ns, sizeof(int64_t) * (size_t)x->rank);
  x->n = n;
}

/* A value of type t for a pad, written as the spec text writes it. */
static double pad_value_of(csrc *s, lay_dtype t) {
  if (isf(t)) return 0.25 * (double)((int)crd(s, 81) - 40);
  double lo, hi;
  irange(t, &lo, &hi);
  int v = (int)crd(s, 40) - 20;
  if (crd(s, 4) == 0) v = (int)(crd(s, 2) ? hi : lo);
  return v < lo ? lo + (lo - v) : v > hi ? hi : v;
}

/* ---- Unpack ------------------------------------------------------------- */

/* A value op of the chain, to invert (LANGUAGE.md: unpack inverts the ops
** in reverse order, each as it would alone: a cast casts back, a quantize
** dequantizes x = (q - Z) * S, a dequantize quantizes q = round(x / S) +
** Z, each storing into the type the op converted from, with its rounding
** and saturating). */
typedef struct {
  int kind;        /* 0 cast, 1 quantize, 2 dequantize */
  lay_dtype from;  /* the type the op converts from */
  int mode;        /* its rounding */
  int pcdim;       /* per-channel: the input dimension, else -1 */
  double sc[8];
  int zp[8];
} vrec;

/* The CPU value unpack makes of stored value v of input element e. */
static double unvalue(const vrec *ops, int n, double v, int64_t e,
                      const int64_t *in_shape, int in_rank) {
  for (int k = n - 1; k >= 0; k--) {
    const vrec *o = &ops[k];
    int c = 0;
    if (o->pcdim >= 0) {
      int64_t st = 1;
      for (int d = in_rank - 1; d > o->pcdim; d--) st *= in_shape[d];
      c = (int)((e / st) % in_shape[o->pcdim]);
    }
    if (o->kind == 0) v = conv(o->from, v, o->mode);
    else if (o->kind == 1) v = conv(o->from, (v - o->zp[c]) * o->sc[c], o->mode);
    else v = conv(o->from, rnd_mode(v / o->sc[c], o->mode) + o->zp[c], o->mode);
  }
  return v;
}

/* ---- One case ---------------------------------------------------------- */

int fz_chain_one(const uint8_t *data, size_t size) {
  csrc s = {data, size, 0};
  static tens x;
  static const lay_dtype cpus[] = {LAY_DT_FP32, LAY_DT_INT8, LAY_DT_UINT8,
                                   LAY_DT_INT16, LAY_DT_FP16};
  static const lay_dtype qt[] = {LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16,
                                 LAY_DT_INT32};
  static const lay_dtype ft[] = {LAY_DT_FP32, LAY_DT_FP16, LAY_DT_BF16};
  static const double scales[] = {0.25, 0.5, 1, 2, 3, 0.125};
  static const char *const rounds[] = {"half_even", "half_away", "truncate"};
  cbuf b = {{0}, 0};
  memset(&x, 0, sizeof x);
  x.t = cpus[crd(&s, 5)];
  x.rank = 1 + (int)crd(&s, 3);
  x.n = 1;
  for (int i = 0; i < x.rank; i++) {
    x.shape[i] = 1 + crd(&s, 5);
    x.n *= x.shape[i];
  }
  int64_t in_shape[8], in_n = x.n;
  int in_rank = x.rank;
  lay_dtype in_t = x.t;
  memcpy(in_shape, x.shape, sizeof in_shape);
  /* The input: small integers and quarters, exact in every input type. */
  unsigned char *src = malloc((size_t)in_n * 4);
  FZ_CHECK(src, "out of memory");
  for (int64_t i = 0; i < x.n; i++) {
    double v;
    if (isf(x.t)) v = 0.25 * (double)((int)crd(&s, 161) - 80);
    else {
      double lo, hi;
      irange(x.t, &lo, &hi);
      v = lo + (double)crd(&s, (uint32_t)(hi - lo + 1 < 400 ? hi - lo + 1 : 400));
    }
    x.v[i] = v;
    x.pad[i] = -1;
    x.src[i] = i;
    bytes_of(x.t, v, src + i * (int64_t)lay_dtype_size(x.t));
  }
  cput(&b, "namespace fz\ntransform T (x : %s", lay_dtype_name(x.t));
  list(&b, x.shape, x.rank);
  cput(&b, ") =");
  int nops = 1 + (int)crd(&s, 6), nval = 0, npad = 0, perch = 0;
  /* Axes that are still one whole input dimension (no pad, slice or
  ** reshape yet): a per-channel quantize may run along them; dimof: which
  ** input dimension each axis is. */
  int whole[8] = {1, 1, 1, 1, 1, 1, 1, 1}, dimof[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  int pcdim = -1; /* the input dimension of the per-channel quantizes */
  /* The first refusal LANGUAGE.md states for the chain while it is made
  ** (more than 4 value ops; per-channel ops along two dimensions). */
  const char *early = NULL;
  vrec ops[8];
  int nrec = 0;
  /* A reshape after a per-channel quantize may make the chain a gather
  ** table, whose pads have no channel (LANGUAGE.md): a refusal then. So
  ** does a slice that keeps only padding, with a per-channel op anywhere. */
  int reshaped_pc = 0, pad_only = 0;
  for (int k = 0; k < nops; k++) {
    int r = x.rank, perm[8];
    int64_t ns[8], off[8];
    for (int i = 0; i < r; i++) { perm[i] = i; off[i] = 0; ns[i] = x.shape[i]; }
    cput(&b, "%s", k ? "\n  | " : " ");
    switch (crd(&s, 6)) {
    case 0: case 1: { /* pad */
      int64_t p0[8], p1[8], grow = 1;
      for (int i = 0; i < r; i++) {
        p0[i] = crd(&s, 3);
        p1[i] = crd(&s, 3);
        if (p0[i] || p1[i]) whole[i] = 0;
        ns[i] = x.shape[i] + p0[i] + p1[i];
        off[i] = p0[i];
        grow *= ns[i];
      }
      if (grow > CH_MAX || npad >= 64) { cput(&b, "transpose"); goto tr; }
      double v = 0;
      cput(&b, "pad(start = ");
      list(&b, p0, r);
      cput(&b, ", end = ");
      list(&b, p1, r);
      if (crd(&s, 3)) {
        v = pad_value_of(&s, x.t);
        cput(&b, ", value = %.17g", v);
      }
      cput(&b, ")");
      remap(&x, ns, perm, off, npad++, v);
      break;
    }
    case 2: { /* slice */
      int64_t st[8], sz[8];
      for (int i = 0; i < r; i++) {
        st[i] = crd(&s, (uint32_t)x.shape[i]);
        sz[i] = 1 + crd(&s, (uint32_t)(x.shape[i] - st[i]));
        if (st[i] || sz[i] != x.shape[i]) whole[i] = 0;
        ns[i] = sz[i];
        off[i] = -st[i];
      }
      cput(&b, "slice(start = ");
      list(&b, st, r);
      cput(&b, ", size = ");
      list(&b, sz, r);
      cput(&b, ")");
      remap(&x, ns, perm, off, -1, 0);
      int data = 0;
      for (int64_t i = 0; i < x.n && !data; i++) data = x.pad[i] < 0;
      if (!data) pad_only = 1;
      break;
    }
    case 3: { /* reshape: the same elements, row-major */
      int64_t n = x.n, v[8];
      int m = 0;
      while (m < 3 && n > 1) {
        int64_t f = 1 + crd(&s, (uint32_t)(n < 6 ? n : 6));
        while (n % f) f--;
        if (f == 1 || crd(&s, 3) == 0) break;
        v[m++] = f;
        n /= f;
      }
      v[m++] = n;
      for (int i = 0; i < 8; i++) whole[i] = 0;
      if (perch) reshaped_pc = 1;
      int infer = (int)crd(&s, (uint32_t)m + 1) - 1;
      cput(&b, "reshape([");
      for (int i = 0; i < m; i++)
        cput(&b, "%s%lld", i ? ", " : "", i == infer ? -1LL : (long long)v[i]);
      cput(&b, "])");
      x.rank = m;
      memcpy(x.shape, v, sizeof(int64_t) * (size_t)m);
      break;
    }
    case 4: { /* value op */
      if (nval && crd(&s, 3) == 0) { cput(&b, "transpose"); goto tr; }
      if (++nval > 4 && !early) early = "more than 4 value ops in one transform";
      int mode = (int)crd(&s, 3);
      double sc = scales[crd(&s, 6)];
      int pc = -1; /* per-channel along this axis */
      for (int i = 0; i < r && pc < 0; i++)
        if (whole[i] && x.shape[i] > 1 && crd(&s, 3) == 0) pc = i;
      if (isf(x.t) && pc >= 0) { /* per-channel quantize */
        perch = 1;
        if (pad_only && !early) /* LANGUAGE.md: no dimension is left */
          early = "a slice before it kept only padding";
        if (pcdim >= 0 && pcdim != dimof[pc] && !early)
          early = "the per-channel value ops of a chain run along one "
                  "dimension";
        pcdim = dimof[pc];
        lay_dtype to = qt[crd(&s, 4)];
        double lo, hi, csc[8];
        int czp[8];
        irange(to, &lo, &hi);
        int64_t st[8], nc = x.shape[pc];
        for (int c = 0; c < nc; c++) {
          csc[c] = scales[crd(&s, 6)];
          czp[c] = (int)crd(&s, 3) - 1;
          if (czp[c] < lo) czp[c] = (int)lo;
        }
        cput(&b, "quantize(scale = [");
        for (int c = 0; c < nc; c++) cput(&b, "%s%g", c ? ", " : "", csc[c]);
        cput(&b, "], zero_point = [");
        for (int c = 0; c < nc; c++) cput(&b, "%s%d", c ? ", " : "", czp[c]);
        cput(&b, "], axis = %d, to = %s, round = %s)", pc, lay_dtype_name(to),
             rounds[mode]);
        vrec *o = nrec < 8 ? &ops[nrec++] : NULL;
        if (o) {
          *o = (vrec){1, x.t, mode, dimof[pc], {0}, {0}};
          for (int c = 0; c < nc; c++) {
            o->sc[c] = csc[c];
            o->zp[c] = czp[c];
          }
        }
        strides(&x, st);
        for (int64_t i = 0; i < x.n; i++) {
          int c = (int)((i / st[pc]) % nc);
          x.v[i] = conv(to, rnd_mode(x.v[i] / csc[c], mode) + czp[c], 0);
        }
        x.t = to;
      } else if (isf(x.t) && crd(&s, 3)) { /* quantize */
        lay_dtype to = qt[crd(&s, 4)];
        double lo, hi;
        irange(to, &lo, &hi);
        int zp = (int)crd(&s, 7) - 3;
        if (zp < lo) zp = (int)lo;
        cput(&b, "quantize(scale = %g, zero_point = %d, to = %s, round = %s)",
             sc, zp, lay_dtype_name(to), rounds[mode]);
        if (nrec < 8) ops[nrec++] = (vrec){1, x.t, mode, -1, {sc}, {zp}};
        for (int64_t i = 0; i < x.n; i++)
          x.v[i] = conv(to, rnd_mode(x.v[i] / sc, mode) + zp, 0);
        x.t = to;
      } else if (!isf(x.t) && crd(&s, 2)) { /* dequantize */
        lay_dtype to = ft[crd(&s, 3)];
        double lo, hi;
        irange(x.t, &lo, &hi);
        int zp = (int)crd(&s, 7) - 3;
        if (zp < lo) zp = (int)lo;
        cput(&b, "dequantize(scale = %g, zero_point = %d, to = %s)", sc, zp,
             lay_dtype_name(to));
        if (nrec < 8) ops[nrec++] = (vrec){2, x.t, 0, -1, {sc}, {zp}};
        for (int64_t i = 0; i < x.n; i++) x.v[i] = conv(to, (x.v[i] - zp) * sc, 0);
        x.t = to;
      } else { /* cast */
        lay_dtype to = crd(&s, 2) ? ft[crd(&s, 3)] : qt[crd(&s, 4)];
        cput(&b, "cast(to = %s, round = %s)", lay_dtype_name(to), rounds[mode]);
        if (nrec < 8) ops[nrec++] = (vrec){0, x.t, mode, -1, {0}, {0}};
        for (int64_t i = 0; i < x.n; i++) x.v[i] = conv(to, x.v[i], mode);
        x.t = to;
      }
      break;
    }
    default: /* transpose */
      cput(&b, "transpose(");
      {
        int64_t p[8];
        for (int i = 0; i < r; i++) p[i] = i;
        for (int i = r - 1; i > 0; i--) {
          int j = (int)crd(&s, (uint32_t)i + 1);
          int64_t t = p[i]; p[i] = p[j]; p[j] = t;
        }
        list(&b, p, r);
        int w2[8], d2[8];
        for (int i = 0; i < r; i++) {
          perm[i] = (int)p[i];
          ns[i] = x.shape[p[i]];
          w2[i] = whole[p[i]];
          d2[i] = dimof[p[i]];
        }
        memcpy(whole, w2, sizeof(int) * (size_t)r);
        memcpy(dimof, d2, sizeof(int) * (size_t)r);
      }
      cput(&b, ")");
      remap(&x, ns, perm, off, -1, 0);
      break;
    tr: /* numpy's transpose without axes: reversed */
      {
        int w2[8], d2[8];
        for (int i = 0; i < r; i++) {
          perm[i] = r - 1 - i;
          ns[i] = x.shape[r - 1 - i];
          off[i] = 0;
          w2[i] = whole[r - 1 - i];
          d2[i] = dimof[r - 1 - i];
        }
        memcpy(whole, w2, sizeof(int) * (size_t)r);
        memcpy(dimof, d2, sizeof(int) * (size_t)r);
      }
      remap(&x, ns, perm, off, -1, 0);
      break;
    }
  }
  cput(&b, "\n");
  /* What LANGUAGE.md says happens. */
  int expect_err = 0;
  const char *why = NULL, *why2 = NULL;
  if (early) {
    expect_err = 1;
    why = early;
  } else {
    /* A finite pad stays finite through the value ops after it. */
    for (int64_t i = 0; i < x.n; i++)
      if (x.pad[i] >= 0 && isinf(x.v[i])) {
        expect_err = 1;
        why = "through the value ops after it";
      }
  }
  if (!expect_err && (reshaped_pc || (pad_only && perch))) {
    /* allowed: the gather table's refusal of a pad whose channels differ */
    why2 = "whose pads have no channel";
  }
  lay_error e;
  lay_ctx *ctx = NULL;
  FZ_CHECK(lay_ctx_new(&ctx, &e) == LAY_OK, "ctx");
  lay_status st = lay_ctx_load_string(ctx, "<chain>", b.s, b.len, &e);
  if (!expect_err && why2 && st != LAY_OK && strstr(e.message, why2)) {
    fz_chain_count[1]++;
    lay_ctx_free(ctx);
    free(src);
    return 0;
  }
  if (expect_err) {
    if (st != LAY_OK &&
        (strstr(e.message, why) || (why2 && strstr(e.message, why2)))) {
      fz_chain_count[1]++;
      lay_ctx_free(ctx);
      free(src);
      return 0;
    }
    fprintf(stderr, "---- chain ----\n%s", b.s);
    FZ_CHECK(0, "expected the refusal '%s', got %d: %s", why, (int)st,
             st ? e.message : "ok");
  }
  if (st != LAY_OK) fprintf(stderr, "---- chain ----\n%s", b.s);
  FZ_CHECK(st == LAY_OK, "valid chain rejected: %d:%d: %s", e.line, e.col,
           e.message);
  lay_plan *pk = NULL;
  st = lay_plan_create(ctx, "fz.T", in_shape, in_rank, LAY_DT_NONE, LAY_PACK,
                       &pk, &e);
  if (st != LAY_OK) fprintf(stderr, "---- chain ----\n%s", b.s);
  FZ_CHECK(st == LAY_OK, "plan: %s", e.message);
  size_t es = lay_dtype_size(x.t), db = lay_plan_dst_bytes(pk);
  if (db != (size_t)x.n * es) fprintf(stderr, "---- chain ----\n%s", b.s);
  FZ_CHECK(db == (size_t)x.n * es, "dst bytes %zu, reference %lld", db,
           (long long)x.n * (long long)es);
  FZ_CHECK(lay_plan_src_bytes(pk) == (size_t)in_n * lay_dtype_size(in_t),
           "src bytes");
  unsigned char *got = malloc(db ? db : 1), *want = malloc(db ? db : 1);
  FZ_CHECK(got && want, "out of memory");
  for (int64_t i = 0; i < x.n; i++) bytes_of(x.t, x.v[i], want + i * (int64_t)es);
  for (int th = 1; th <= 2; th++) {
    memset(got, 0x5a, db);
    st = lay_plan_run(pk, src, lay_plan_src_bytes(pk), got, db, th, &e);
    FZ_CHECK(st == LAY_OK, "run: %s", e.message);
    for (size_t j = 0; j < db; j++)
      if (got[j] != want[j]) {
        int64_t el = (int64_t)(j / es);
        fprintf(stderr, "---- chain ----\n%s", b.s);
        FZ_CHECK(0, "%d thread(s): element %lld (%s, value %.17g): byte %zu "
                    "is %02x, the reference %02x",
                 th, (long long)el, x.pad[el] < 0 ? "data" : "pad",
                 x.v[el], j, got[j], want[j]);
      }
  }
  { /* unpack the reference bytes: each stored input element comes back
    ** through the inverted ops; pads and removed elements are not read */
    lay_plan *up = NULL;
    size_t ies = lay_dtype_size(in_t);
    st = lay_plan_create(ctx, "fz.T", in_shape, in_rank, LAY_DT_NONE,
                         LAY_UNPACK, &up, &e);
    FZ_CHECK(st == LAY_OK, "unpack plan: %s", e.message);
    unsigned char *back = malloc((size_t)in_n * ies), el[8];
    FZ_CHECK(back, "out of memory");
    st = lay_plan_run(up, want, db, back, (size_t)in_n * ies, 1, &e);
    FZ_CHECK(st == LAY_OK, "unpack: %s", e.message);
    for (int64_t i = 0; i < x.n; i++) {
      if (x.src[i] < 0) continue;
      double v = unvalue(ops, nrec, x.v[i], x.src[i], in_shape, in_rank);
      bytes_of(in_t, v, el);
      if (memcmp(el, back + x.src[i] * (int64_t)ies, ies)) {
        fprintf(stderr, "---- chain ----\n%s", b.s);
        FZ_CHECK(0, "unpack: input element %lld (stored %.17g) comes back "
                    "with other bytes than the reference %.17g",
                 (long long)x.src[i], x.v[i], v);
      }
    }
    free(back);
    lay_plan_free(up);
  }
  fz_chain_count[0]++;
  for (int64_t i = 0; i < x.n; i++)
    if (x.pad[i] >= 0) {
      fz_chain_count[2]++;
      break;
    }
  if (nval) fz_chain_count[3]++;
  if (perch) fz_chain_count[4]++;
  if (nval > 1) fz_chain_count[5]++;
  {
    const unsigned char *p0 = NULL;
    for (int64_t i = 0; i < x.n; i++) /* stored pads of different bytes */
      if (x.pad[i] >= 0) {
        if (!p0) p0 = want + i * (int64_t)es;
        else if (memcmp(p0, want + i * (int64_t)es, es)) {
          fz_chain_count[6]++;
          break;
        }
      }
  }
  free(got);
  free(want);
  free(src);
  lay_plan_free(pk);
  lay_ctx_free(ctx);
  return 0;
}
