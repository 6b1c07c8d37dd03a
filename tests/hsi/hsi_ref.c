/*
** hsi_ref.c: an INDEPENDENT reference for the AMD seed's two
** flexmlrt-hsi.json examples (and the compilation report example). It
** shares no code with lay: it computes the expected bytes element by
** element from the doc's formulas, either with the HCWNCx index formula
** ("[H, C/x, W, N, x]", channels zero-padded) or by running the listed
** rt_transformations as numpy would (pad, reshape, transpose, slice on a
** row-major array), with the values converted as AMD's runtime does
** (VART-ML, Vitis-AI versal_ve/src/vart_ml/npu_runner/quantization.cpp:
** float32, coeff = 1.0f / scale): quantize q = sat(nearbyintf(f32(x *
** coeff)) + zp), dequantize x = f32((q - zp) / coeff), and fp32 -> bf16
** the top 16 bits (float_to_bf16, truncation). The docs' exact formulas
** (x / scale, (q - zp) * scale, rounding to nearest) differ on the ties
** below.
**
**   hsi_ref CASE INPUT_FILE EXPECTED_FILE
** writes pseudo-random input data for CASE and the bytes lay must produce;
**   hsi_ref floats|bytes FILE COUNT
** writes COUNT pseudo-random fp32 values or bytes (test data);
**   hsi_ref xq_in|xq_out SCALE ZP TYPE INPUT_FILE EXPECTED_FILE
** runs the seed's transformation-form chains (input: quantize, pad,
** reshape, transpose; output: transpose, reshape, slice, dequantize) with
** any scale, zero point and integer TYPE (int8 or uint8); the input holds
** every float x for which x / SCALE is exactly a tie k + 1/2, the floats
** next to each k + 1/2, and random values;
**   hsi_ref ann_q CPU_TYPE HW_TYPE SCALE ZP INPUT_FILE EXPECTED_FILE
** runs the annotation form NCHW [1,3,5,6] -> HCWNC4 with AMD's meaning of
** scale_factor and zero_point: quantize to an integer hw type (from fp32
** or an integer CPU type), dequantize from an integer CPU type to fp32.
**   hsi_ref fmt CPU_FORMAT HW_FORMAT N C H W INPUT_FILE EXPECTED_FILE [SEED]
** one uint8 tensor of the dims CPU_FORMAT names (N, C, H, W; a dim it
** does not name is 1) in the buffer of HW_FORMAT, each format's index
** formula written from AMD's docs and VART's code (vart_npu_tensor.hpp's
** MemoryLayout comments, the vart_ml test script's reorder_tensor():
** NC4HW4 [N, C/4, H, W, 4]; NHWC4 NHWC with C rounded up to 4s;
** NHW16C4WC [N, H, W/16, C/4, 16, 4]; NHW, NHC = NHWC as [N, H*W, C];
** NCH its transpose [N, C, H*W]; NWC [N, W, C] for H = 1; ...); padding
** is zero. Prints the hw_shape as a JSON array.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every allocation is kept here and freed at exit (arrays are never
** freed one by one). */
static void *kept[256];
static int nkept;

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p || nkept == 256) {
    fprintf(stderr, "hsi_ref: out of memory\n");
    exit(1);
  }
  return kept[nkept++] = p;
}

static void *xmalloc(size_t n) { return xcalloc(n, 1); }

static void free_kept(void) {
  while (nkept) free(kept[--nkept]);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng >> 32);
}

/* A float input value: ties for the quantizers, bf16 ties, saturation,
** tiny and huge values. */
static float rnd_float(void) {
  uint32_t r = rnd();
  float f;
  uint32_t u;
  switch (r % 6) {
  case 0: /* k / 256: x / (1/128) = k / 2, a tie for odd k */
  case 1:
    return (float)((int)(rnd() % 1601) - 800) / 256.0f;
  case 2: /* k / 8: x / 0.25 = k / 2 */
    return (float)((int)(rnd() % 801) - 400) / 8.0f;
  case 3: /* a bf16 tie: the low 16 bits exactly 0x8000 */
    u = (rnd() & 0xbfff0000u) | 0x8000u;
    memcpy(&f, &u, 4);
    return f;
  case 4: /* any finite value */
    do u = rnd(); while ((u & 0x7f800000u) == 0x7f800000u);
    memcpy(&f, &u, 4);
    return f;
  default:
    return (r >> 8) % 2 ? 3.4028235e38f : -1e-40f;
  }
}

static int64_t round_half_even(double v) {
  double f = floor(v), d = v - f;
  if (d > 0.5) return (int64_t)f + 1;
  if (d < 0.5) return (int64_t)f;
  return fmod(f, 2.0) == 0 ? (int64_t)f : (int64_t)f + 1;
}

/* The range of an integer type named "int8" or "uint8". */
static void type_range(const char *t, int *lo, int *hi) {
  if (!strcmp(t, "int8")) *lo = -128, *hi = 127;
  else if (!strcmp(t, "uint8")) *lo = 0, *hi = 255;
  else {
    fprintf(stderr, "hsi_ref: unknown type %s\n", t);
    exit(2);
  }
}

/* VART-ML's coefficient: the float32 reciprocal of the scale. */
static float coeff_of(double scale) {
  volatile float c = 1.0f / (float)scale;
  return c;
}

/* q = sat(round_half_even(f32(x * coeff)) + zp) into [lo, hi] (VART-ML's
** float_to_int8: clip(nearbyintf(src * coeff)); the zero point added to
** the rounded integer). */
static int quant_to(double x, double scale, double zp, int lo, int hi) {
  volatile float p = (float)x * coeff_of(scale);
  double v = (double)p;
  if (v > 1e9) return hi;
  if (v < -1e9) return lo;
  int64_t q = round_half_even(v) + (int64_t)zp;
  return (int)(q > hi ? hi : q < lo ? lo : q);
}

static int8_t quant(float x, double scale, double zp) {
  return (int8_t)quant_to(x, scale, zp, -128, 127);
}

/* x = f32((q - zp) / coeff) (VART-ML's int8_to_float: src / coeff). */
static float dequant(double q, double scale, double zp) {
  volatile float x = (float)(q - zp) / coeff_of(scale);
  return x;
}

/* fp32 -> bf16 as VART-ML's float_to_bf16: the top 16 bits. */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}

/* ---- A row-major array of doubles, and numpy's ops on it ---------------- */

typedef struct arr {
  int r;
  int64_t s[8];
  double *v;
} arr;

static int64_t count(const arr *a) {
  int64_t n = 1;
  for (int i = 0; i < a->r; i++) n *= a->s[i];
  return n;
}

/* Row-major flat index <-> coordinates. */
static void unflat(const arr *a, int64_t k, int64_t *c) {
  for (int i = a->r - 1; i >= 0; i--) {
    c[i] = k % a->s[i];
    k /= a->s[i];
  }
}

static int64_t flat(const int64_t *s, int r, const int64_t *c) {
  int64_t k = 0;
  for (int i = 0; i < r; i++) k = k * s[i] + c[i];
  return k;
}

static arr make(int r, const int64_t *s) {
  arr a;
  a.r = r;
  memcpy(a.s, s, (size_t)r * sizeof *s);
  a.v = xcalloc((size_t)count(&a), sizeof *a.v);
  return a;
}

static arr np_transpose(arr a, const int *perm) {
  int64_t s[8] = {0}, c[8] = {0}, d[8] = {0};
  for (int i = 0; i < a.r; i++) s[i] = a.s[perm[i]];
  arr o = make(a.r, s);
  for (int64_t k = 0; k < count(&o); k++) {
    unflat(&o, k, c);
    for (int i = 0; i < a.r; i++) d[perm[i]] = c[i];
    o.v[k] = a.v[flat(a.s, a.r, d)];
  }
  return o;
}

static arr np_pad(arr a, const int64_t *lo, const int64_t *hi) {
  int64_t s[8] = {0}, c[8] = {0};
  for (int i = 0; i < a.r; i++) s[i] = a.s[i] + lo[i] + hi[i];
  arr o = make(a.r, s);
  for (int64_t k = 0; k < count(&a); k++) {
    unflat(&a, k, c);
    for (int i = 0; i < a.r; i++) c[i] += lo[i];
    o.v[flat(o.s, o.r, c)] = a.v[k];
  }
  return o;
}

static arr np_slice(arr a, const int64_t *start, const int64_t *size) {
  int64_t c[8];
  arr o = make(a.r, size);
  for (int64_t k = 0; k < count(&o); k++) {
    unflat(&o, k, c);
    for (int i = 0; i < a.r; i++) c[i] += start[i];
    o.v[k] = a.v[flat(a.s, a.r, c)];
  }
  return o;
}

static arr np_reshape(arr a, int r, const int64_t *s) {
  a.r = r;
  memcpy(a.s, s, (size_t)r * sizeof *s);
  return a;
}

/* ---- Files ------------------------------------------------------------------ */

static void write_file(const char *path, const void *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
    fprintf(stderr, "hsi_ref: cannot write %s\n", path);
    exit(1);
  }
}

static float *floats(int64_t n) {
  float *x = xmalloc((size_t)n * sizeof *x);
  for (int64_t i = 0; i < n; i++) x[i] = rnd_float();
  return x;
}

/* n floats for quantizing with `scale`: first every x with x / scale
** exactly a tie k + 1/2 (|k| <= 300), then the floats nearest to each
** k + 1/2 and their neighbours (|k| <= 150), then random values. Fails
** when there are fewer than two ties. */
static float *tie_floats(int64_t n, double scale) {
  float *x = xmalloc((size_t)n * sizeof *x);
  int64_t k = 0, ties = 0;
  for (int t = -300; t <= 300 && k < n; t++) {
    float f = (float)((t + 0.5) * scale);
    float c[3] = {f, nextafterf(f, -1e30f), nextafterf(f, 1e30f)};
    for (int j = 0; j < 3 && k < n; j++)
      if ((double)c[j] / scale == t + 0.5) x[k++] = c[j], ties++;
  }
  for (int t = -150; t <= 150 && k + 3 <= n; t++) {
    float f = (float)((t + 0.5) * scale);
    x[k++] = f;
    x[k++] = nextafterf(f, -1e30f);
    x[k++] = nextafterf(f, 1e30f);
  }
  while (k < n) x[k++] = rnd_float();
  if (ties < 2) {
    fprintf(stderr, "hsi_ref: only %lld ties for scale %.17g\n",
            (long long)ties, scale);
    exit(1);
  }
  return x;
}

/* HCWNCx index of (n, c, h, w) for a tensor [N, C, H, W]. */
static int64_t hcwnc(int x, int64_t N, int64_t C, int64_t W, int64_t n,
                     int64_t c, int64_t h, int64_t w) {
  int64_t cb = (C + x - 1) / x;
  return (((h * cb + c / x) * W + w) * N + n) * x + c % x;
}

/* xq_in / xq_out SCALE ZP TYPE IN EXPECTED: the seed's chains with any
** quantization. */
static int case_xq(int in_side, double scale, double zp, const char *type,
                   const char *in, const char *ex) {
  int lo, hi;
  type_range(type, &lo, &hi);
  if (in_side) { /* quantize | pad | reshape | transpose */
    int64_t s[4] = {1, 3, 32, 32};
    arr a = make(4, s);
    float *x = tie_floats(count(&a), scale);
    for (int64_t i = 0; i < count(&a); i++)
      a.v[i] = quant_to(x[i], scale, zp, lo, hi);
    int64_t plo[4] = {0, 0, 0, 0}, phi[4] = {0, 5, 0, 0};
    a = np_pad(a, plo, phi);
    int64_t rs[5] = {1, 1, 8, 32, 32};
    a = np_reshape(a, 5, rs);
    int perm[5] = {3, 1, 4, 0, 2};
    a = np_transpose(a, perm);
    unsigned char *y = xmalloc((size_t)count(&a));
    for (int64_t i = 0; i < count(&a); i++) y[i] = (unsigned char)(int)a.v[i];
    write_file(in, x, 1 * 3 * 32 * 32 * 4);
    write_file(ex, y, (size_t)count(&a));
    return 0;
  }
  /* transpose | reshape | slice | dequantize: x = (q - zp) * scale */
  int64_t s[5] = {32, 1, 32, 1, 8};
  arr a = make(5, s);
  int64_t n = count(&a);
  unsigned char *q = xmalloc((size_t)n);
  for (int64_t i = 0; i < n; i++) {
    q[i] = (unsigned char)rnd();
    a.v[i] = lo < 0 ? (double)(int8_t)q[i] : (double)q[i];
  }
  int perm[5] = {3, 1, 4, 0, 2};
  a = np_transpose(a, perm);
  int64_t rs[4] = {1, 8, 32, 32};
  a = np_reshape(a, 4, rs);
  int64_t st[4] = {0, 0, 0, 0}, sz[4] = {1, 4, 32, 32};
  a = np_slice(a, st, sz);
  int64_t m = count(&a);
  float *x = xmalloc((size_t)m * 4);
  for (int64_t i = 0; i < m; i++) x[i] = dequant(a.v[i], scale, zp);
  write_file(in, q, (size_t)n);
  write_file(ex, x, (size_t)m * 4);
  return 0;
}

/* ann_q CPU HW SCALE ZP IN EXPECTED: NCHW [1,3,5,6] -> HCWNC4 [5,1,6,1,4]
** with the value rule of scale_factor and zero_point (equal 1-byte types:
** a copy). */
static int case_ann_q(const char *ct, const char *ht, double scale,
                      double zp, const char *in, const char *ex) {
  int64_t N = 1, C = 3, H = 5, W = 6, n = N * C * H * W, hwn = H * W * N * 4;
  int cpu_float = !strcmp(ct, "fp32"), hw_float = !strcmp(ht, "fp32");
  int lo = 0, hi = 0, clo = 0, chi = 0;
  double *v = xcalloc((size_t)n, sizeof *v);
  if (cpu_float) {
    float *x = tie_floats(n, scale);
    for (int64_t i = 0; i < n; i++) v[i] = x[i];
    write_file(in, x, (size_t)n * 4);
  } else {
    type_range(ct, &clo, &chi);
    unsigned char *b = xmalloc((size_t)n);
    for (int64_t i = 0; i < n; i++) {
      b[i] = (unsigned char)rnd();
      v[i] = clo < 0 ? (double)(int8_t)b[i] : (double)b[i];
    }
    write_file(in, b, (size_t)n);
  }
  if (!hw_float) type_range(ht, &lo, &hi);
  unsigned char *y = xcalloc((size_t)hwn, hw_float ? 4 : 1);
  for (int64_t c = 0; c < C; c++)
    for (int64_t h = 0; h < H; h++)
      for (int64_t w = 0; w < W; w++) {
        int64_t k = hcwnc(4, N, C, W, 0, c, h, w);
        double x = v[(c * H + h) * W + w];
        if (!strcmp(ct, ht)) { /* equal types: copied, never rescaled
                                   (AMD: the scale converts between
                                   cpu_dtype and hw_dtype; VART's demo) */
          y[k] = (unsigned char)(int)x;
        } else if (hw_float) { /* dequantize */
          float f = dequant(x, scale, zp);
          memcpy(y + 4 * k, &f, 4);
        } else {
          y[k] = (unsigned char)quant_to(x, scale, zp, lo, hi);
        }
      }
  write_file(ex, y, (size_t)hwn * (hw_float ? 4 : 1));
  return 0;
}

/* ---- Format strings (fmt) -------------------------------------------------- */

static int64_t up(int64_t x, int64_t b) { return (x + b - 1) / b; }

/* The hw_shape of format f for N, C, H, W into s; its rank, 0 if unknown. */
static int fmt_shape(const char *f, int64_t N, int64_t C, int64_t H,
                     int64_t W, int64_t *s) {
  int64_t b = !strcmp(f, "HCWNC4") ? 4 : !strcmp(f, "HCWNC8") ? 8
            : !strcmp(f, "HCWNC16") ? 16 : 0;
  if (b) { s[0] = H, s[1] = up(C, b), s[2] = W, s[3] = N, s[4] = b; return 5; }
  if (!strcmp(f, "NCHW")) { s[0] = N, s[1] = C, s[2] = H, s[3] = W; return 4; }
  if (!strcmp(f, "NHWC")) { s[0] = N, s[1] = H, s[2] = W, s[3] = C; return 4; }
  if (!strcmp(f, "NHW")) { s[0] = N, s[1] = H, s[2] = W; return 3; }
  if (!strcmp(f, "NHC")) { s[0] = N, s[1] = H * W, s[2] = C; return 3; }
  if (!strcmp(f, "NCH")) { s[0] = N, s[1] = C, s[2] = H * W; return 3; }
  if (!strcmp(f, "NWC")) { s[0] = N, s[1] = H * W, s[2] = C; return 3; }
  if (!strcmp(f, "NC")) { s[0] = N, s[1] = C; return 2; }
  if (!strcmp(f, "CHW")) { s[0] = C, s[1] = H, s[2] = W; return 3; }
  if (!strcmp(f, "HWC")) { s[0] = H, s[1] = W, s[2] = C; return 3; }
  if (!strcmp(f, "NC4HW4") || !strcmp(f, "NC8HW8")) {
    b = f[2] - '0';
    s[0] = N, s[1] = up(C, b), s[2] = H, s[3] = W, s[4] = b;
    return 5;
  }
  if (!strcmp(f, "NHWC4") || !strcmp(f, "NHWC8")) {
    b = f[4] - '0';
    s[0] = N, s[1] = H, s[2] = W, s[3] = up(C, b) * b;
    return 4;
  }
  if (!strcmp(f, "NHW16C4WC")) {
    s[0] = N, s[1] = H, s[2] = up(W, 16), s[3] = up(C, 4), s[4] = 16, s[5] = 4;
    return 6;
  }
  if (!strcmp(f, "NHW16WC4C")) {
    s[0] = N, s[1] = H, s[2] = up(W, 16), s[3] = 16, s[4] = up(C, 4), s[5] = 4;
    return 6;
  }
  if (!strcmp(f, "NH2HWC4C")) {
    s[0] = N, s[1] = up(H, 2), s[2] = 2, s[3] = W, s[4] = up(C, 4), s[5] = 4;
    return 6;
  }
  if (!strcmp(f, "NH2C4HWC")) {
    s[0] = N, s[1] = up(H, 2), s[2] = up(C, 4), s[3] = 2, s[4] = W, s[5] = 4;
    return 6;
  }
  return 0;
}

/* The hw coordinates of (n, c, h, w) in format f (shape s). */
static void fmt_coord(const char *f, int64_t n, int64_t c, int64_t h,
                      int64_t w, int64_t W, int64_t *k) {
  if (!strncmp(f, "HCWNC", 5)) {
    int64_t b = atoi(f + 5);
    k[0] = h, k[1] = c / b, k[2] = w, k[3] = n, k[4] = c % b;
  } else if (!strcmp(f, "NCHW")) { k[0] = n, k[1] = c, k[2] = h, k[3] = w; }
  else if (!strcmp(f, "NHWC") || !strcmp(f, "NHWC4") || !strcmp(f, "NHWC8")) {
    k[0] = n, k[1] = h, k[2] = w, k[3] = c;
  } else if (!strcmp(f, "NHW")) { k[0] = n, k[1] = h, k[2] = w; }
  else if (!strcmp(f, "NHC") || !strcmp(f, "NWC")) {
    k[0] = n, k[1] = h * W + w, k[2] = c;
  } else if (!strcmp(f, "NCH")) { k[0] = n, k[1] = c, k[2] = h * W + w; }
  else if (!strcmp(f, "NC")) { k[0] = n, k[1] = c; }
  else if (!strcmp(f, "CHW")) { k[0] = c, k[1] = h, k[2] = w; }
  else if (!strcmp(f, "HWC")) { k[0] = h, k[1] = w, k[2] = c; }
  else if (!strcmp(f, "NC4HW4") || !strcmp(f, "NC8HW8")) {
    int64_t b = f[2] - '0';
    k[0] = n, k[1] = c / b, k[2] = h, k[3] = w, k[4] = c % b;
  } else if (!strcmp(f, "NHW16C4WC")) {
    k[0] = n, k[1] = h, k[2] = w / 16, k[3] = c / 4, k[4] = w % 16, k[5] = c % 4;
  } else if (!strcmp(f, "NHW16WC4C")) {
    k[0] = n, k[1] = h, k[2] = w / 16, k[3] = w % 16, k[4] = c / 4, k[5] = c % 4;
  } else if (!strcmp(f, "NH2HWC4C")) {
    k[0] = n, k[1] = h / 2, k[2] = h % 2, k[3] = w, k[4] = c / 4, k[5] = c % 4;
  } else { /* NH2C4HWC */
    k[0] = n, k[1] = h / 2, k[2] = c / 4, k[3] = h % 2, k[4] = w, k[5] = c % 4;
  }
}

static int case_fmt(const char *cf, const char *hf, int64_t N, int64_t C,
                    int64_t H, int64_t W, const char *in, const char *ex) {
  int64_t hs[8], k[8], ext[4] = {N, C, H, W};
  int hr = fmt_shape(hf, N, C, H, W, hs);
  if (!hr) return fprintf(stderr, "hsi_ref: unknown format %s\n", hf), 1;
  int64_t hn = 1, n = N * C * H * W;
  for (int i = 0; i < hr; i++) hn *= hs[i];
  unsigned char *x = xmalloc((size_t)n), *y = xcalloc((size_t)hn, 1);
  for (int64_t i = 0; i < n; i++) x[i] = (unsigned char)(1 + rnd() % 255);
  for (int64_t e = 0; e < n; e++) {
    /* The CPU element e: its coordinates by the letters of cf. */
    int64_t v[4] = {0, 0, 0, 0}, r = e;
    for (int i = (int)strlen(cf) - 1; i >= 0; i--) {
      int d = (int)(strchr("NCHW", cf[i]) ? strchr("NCHW", cf[i]) - "NCHW" : 0);
      if (cf[i] == 'A') d = 0;
      if (cf[i] == 'B') d = 1;
      v[d] = r % ext[d];
      r /= ext[d];
    }
    fmt_coord(hf, v[0], v[1], v[2], v[3], W, k);
    y[flat(hs, hr, k)] = x[e];
  }
  write_file(in, x, (size_t)n);
  write_file(ex, y, (size_t)hn);
  printf("[");
  for (int i = 0; i < hr; i++) printf("%s%lld", i ? "," : "", (long long)hs[i]);
  printf("]\n");
  return 0;
}

int main(int argc, char **argv) {
  atexit(free_kept);
  if (argc == 7 && (!strcmp(argv[1], "xq_in") || !strcmp(argv[1], "xq_out")))
    return case_xq(!strcmp(argv[1], "xq_in"), atof(argv[2]), atof(argv[3]),
                   argv[4], argv[5], argv[6]);
  if (argc == 11 && !strcmp(argv[1], "fmt")) /* a SEED after: other data */
    rng ^= (uint64_t)atoll(argv[10]) * 0x2545f4914f6cdd1dull;
  if ((argc == 10 || argc == 11) && !strcmp(argv[1], "fmt"))
    return case_fmt(argv[2], argv[3], atoll(argv[4]), atoll(argv[5]),
                    atoll(argv[6]), atoll(argv[7]), argv[8], argv[9]);
  if (argc == 8 && !strcmp(argv[1], "ann_q"))
    return case_ann_q(argv[2], argv[3], atof(argv[4]), atof(argv[5]),
                      argv[6], argv[7]);
  if (argc == 4 && !strcmp(argv[1], "floats")) { /* floats FILE COUNT */
    int64_t n = atoll(argv[3]);
    float *x = floats(n);
    write_file(argv[2], x, (size_t)n * 4);
    return 0;
  }
  if (argc == 4 && !strcmp(argv[1], "bytes")) { /* bytes FILE COUNT */
    int64_t n = atoll(argv[3]);
    unsigned char *x = xmalloc((size_t)n + 1);
    for (int64_t i = 0; i < n; i++) x[i] = (unsigned char)rnd();
    write_file(argv[2], x, (size_t)n);
    return 0;
  }
  if (argc != 4) {
    fprintf(stderr, "usage: hsi_ref CASE INPUT EXPECTED\n");
    return 2;
  }
  const char *cs = argv[1], *in = argv[2], *ex = argv[3];
  if (!strcmp(cs, "ann_in_pack") || !strcmp(cs, "ann_out_pack")) {
    /* Annotation form: NCHW fp32 -> HCWNC4 bf16, a plain cast. */
    int64_t N = 1, C = strcmp(cs, "ann_in_pack") ? 4 : 3,
            H = C == 3 ? 32 : 30, W = H;
    int64_t n = N * C * H * W, hwn = H * 1 * W * N * 4;
    float *x = floats(n);
    uint16_t *y = xcalloc((size_t)hwn, 2);
    for (int64_t a = 0; a < N; a++)
      for (int64_t c = 0; c < C; c++)
        for (int64_t h = 0; h < H; h++)
          for (int64_t w = 0; w < W; w++)
            y[hcwnc(4, N, C, W, a, c, h, w)] =
                to_bf16(x[((a * C + c) * H + h) * W + w]);
    write_file(in, x, (size_t)n * 4);
    write_file(ex, y, (size_t)hwn * 2);
  } else if (!strcmp(cs, "ann_out_unpack")) {
    /* HCWNC4 bf16 [30,1,30,1,4] -> NCHW fp32 [1,4,30,30]: bf16 widens. */
    int64_t N = 1, C = 4, H = 30, W = 30, hwn = H * W * N * 4;
    uint16_t *y = xmalloc((size_t)hwn * 2);
    /* Every bit pattern, signalling and quiet NaNs among them: widening
    ** is exact (the payload and its quiet bit kept). */
    static const uint16_t nans[] = {0x7f81, 0xff81, 0x7fbf, 0x7fc0, 0xffc1,
                                    0x7f80, 0xff80};
    for (int64_t i = 0; i < hwn; i++)
      y[i] = i % 5 ? (uint16_t)rnd() : nans[i / 5 % 7];
    float *x = xmalloc((size_t)(N * C * H * W) * 4);
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
          uint32_t u = (uint32_t)y[hcwnc(4, N, C, W, 0, c, h, w)] << 16;
          memcpy(&x[(c * H + h) * W + w], &u, 4);
        }
    write_file(in, y, (size_t)hwn * 2);
    write_file(ex, x, (size_t)(N * C * H * W) * 4);
  } else if (!strcmp(cs, "xf_in_pack")) {
    /* The input chain as listed, run as numpy would. */
    int64_t s[4] = {1, 3, 32, 32};
    arr a = make(4, s);
    float *x = floats(count(&a));
    for (int64_t i = 0; i < count(&a); i++)
      a.v[i] = quant(x[i], 0.0078125, 0);
    int64_t lo[4] = {0, 0, 0, 0}, hi[4] = {0, 5, 0, 0};
    a = np_pad(a, lo, hi);
    int64_t rs[5] = {1, 1, 8, 32, 32};
    a = np_reshape(a, 5, rs);
    int perm[5] = {3, 1, 4, 0, 2};
    a = np_transpose(a, perm);
    int64_t n = count(&a);
    int8_t *y = xmalloc((size_t)n);
    for (int64_t i = 0; i < n; i++) y[i] = (int8_t)a.v[i];
    write_file(in, x, 1 * 3 * 32 * 32 * 4);
    write_file(ex, y, (size_t)n);
  } else if (!strcmp(cs, "xf_in_unpack")) {
    /* The inverse of the input chain, by the HCWNC8 index formula. */
    int64_t N = 1, C = 3, H = 32, W = 32, hwn = H * W * N * 8;
    int8_t *q = xmalloc((size_t)hwn);
    for (int64_t i = 0; i < hwn; i++) q[i] = (int8_t)rnd();
    float *x = xmalloc((size_t)(C * H * W) * 4);
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++)
          x[(c * H + h) * W + w] =
              (float)((double)q[hcwnc(8, N, C, W, 0, c, h, w)] * 0.0078125);
    write_file(in, q, (size_t)hwn);
    write_file(ex, x, (size_t)(C * H * W) * 4);
  } else if (!strcmp(cs, "xf_out_unpack")) {
    /* The output chain as listed (NPU -> CPU), run as numpy would. */
    int64_t s[5] = {32, 1, 32, 1, 8};
    arr a = make(5, s);
    int64_t n = count(&a);
    int8_t *q = xmalloc((size_t)n);
    for (int64_t i = 0; i < n; i++) a.v[i] = q[i] = (int8_t)rnd();
    int perm[5] = {3, 1, 4, 0, 2};
    a = np_transpose(a, perm);
    int64_t rs[4] = {1, 8, 32, 32};
    a = np_reshape(a, 4, rs);
    int64_t st[4] = {0, 0, 0, 0}, sz[4] = {1, 4, 32, 32};
    a = np_slice(a, st, sz);
    int64_t m = count(&a);
    float *x = xmalloc((size_t)m * 4);
    for (int64_t i = 0; i < m; i++) x[i] = dequant(a.v[i], 0.25, 0);
    write_file(in, q, (size_t)n);
    write_file(ex, x, (size_t)m * 4);
  } else if (!strcmp(cs, "xf_out_pack")) {
    /* The output's inverse direction, by the HCWNC8 index formula. */
    int64_t N = 1, C = 4, H = 32, W = 32, hwn = H * W * N * 8;
    float *x = floats(C * H * W);
    int8_t *q = xcalloc((size_t)hwn, 1);
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++)
          q[hcwnc(8, N, C, W, 0, c, h, w)] =
              quant(x[(c * H + h) * W + w], 0.25, 0);
    write_file(in, x, (size_t)(C * H * W) * 4);
    write_file(ex, q, (size_t)hwn);
  } else if (!strcmp(cs, "rep_in_pack") || !strcmp(cs, "rep_out_unpack")) {
    /* The compilation report: int8 NCHW <-> HCWNC4 / HCWNC8. */
    int in_side = !strcmp(cs, "rep_in_pack");
    int x8 = in_side ? 4 : 8;
    int64_t N = 1, C = in_side ? 3 : 2048, H = in_side ? 224 : 7, W = H;
    int64_t cb = (C + x8 - 1) / x8, n = N * C * H * W,
            hwn = H * cb * W * N * x8;
    int8_t *cpu = xmalloc((size_t)n), *hw = xcalloc((size_t)hwn, 1);
    if (in_side) {
      for (int64_t i = 0; i < n; i++) cpu[i] = (int8_t)rnd();
    } else {
      for (int64_t i = 0; i < hwn; i++) hw[i] = (int8_t)rnd();
    }
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
          int64_t k = hcwnc(x8, N, C, W, 0, c, h, w), j = (c * H + h) * W + w;
          if (in_side) hw[k] = cpu[j];
          else cpu[j] = hw[k];
        }
    write_file(in, in_side ? cpu : hw, (size_t)(in_side ? n : hwn));
    write_file(ex, in_side ? hw : cpu, (size_t)(in_side ? hwn : n));
  } else {
    fprintf(stderr, "hsi_ref: unknown case %s\n", cs);
    return 2;
  }
  return 0;
}
