/*
** test_cast8.c: the OCP 8-bit float conversions (interp/exec/cast8.c)
** against the formats' definition in the OCP 8-bit Floating Point
** Specification (OFP8) rev. 1.0, written here independently:
**   E4M3: value = (-1)^s * 2^(e - 7) * (1 + m/8), e = 1..15, except
**         S.1111.111 (NaN); subnormals (-1)^s * 2^-6 * m/8; no infinity.
**   E5M2: value = (-1)^s * 2^(e - 15) * (1 + m/4), e = 1..30; e = 31 is
**         infinity (m = 0) or NaN; subnormals (-1)^s * 2^-14 * m/4.
** Every code decodes to its value; every finite code encodes back to
** itself; every midpoint between two neighbouring finite codes rounds to
** the one with the even code (round to nearest even), a hair above or
** below it to the nearer; past the largest value the saturating mode
** gives +-max and the non-saturating one NaN (E4M3) or infinity (E5M2);
** truncation rounds toward zero and never overflows.
**
** Then the bulk conversions (li_fp8_to_f32 / _f64, li_fp8_of_f32 / _f64,
** li_fp8_cast) against the element-wise definition checked above, at
** every SIMD level the CPU has (0: portable C, 1: SSE2, 2: AVX2): every
** fp32 exponent with several mantissas, every midpoint between two fp8
** codes and its neighbours +-1 ulp, subnormals, the largest values,
** overflow, infinities, NaNs (quiet, signalling, both signs), -0 and
** random bit patterns, each rounding mode, both saturation modes, at odd
** lengths and offsets (the vector loops' tails); the casts between fp8 and
** the other types against value.c's element-wise li_ld / li_st. And plans (`plan`
** argument, run by CTest at each LAY_SIMD): pack and unpack of fp8
** layouts through lay_plan_run against the per-element definition.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cast8.h"
#include "ir.h"
#include "plan_int.h"

static long checks, failures;

#define CHECK(cond, ...)                         \
  do {                                           \
    checks++;                                    \
    if (!(cond)) {                               \
      failures++;                                \
      if (failures < 30) {                       \
        printf("FAIL line %d: ", __LINE__);      \
        printf(__VA_ARGS__);                     \
        printf("\n");                            \
      }                                          \
    }                                            \
  } while (0)

/* The spec's value of code u (NaN for the NaN codes). */
static double ref_value(int e5, unsigned u) {
  int mb = e5 ? 2 : 3, bias = e5 ? 15 : 7, emax = e5 ? 31 : 15;
  unsigned e = (u >> mb) & (unsigned)emax, m = u & ((1u << mb) - 1);
  double s = (u & 0x80) ? -1 : 1;
  if (e5 && e == 31) return m ? NAN : s * INFINITY;
  if (!e5 && e == 15 && m == 7) return NAN;
  if (e == 0) return s * ldexp((double)m / (1 << mb), 1 - bias);
  return s * ldexp(1 + (double)m / (1 << mb), (int)e - bias);
}

static int is_nan_code(int e5, unsigned u) {
  return e5 ? (u & 0x7c) == 0x7c && (u & 3) : (u & 0x7f) == 0x7f;
}

static void check_format(int e5) {
  lay_dtype t = e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
  unsigned maxc = e5 ? 0x7b : 0x7e;
  double max = e5 ? 57344 : 448;
  for (unsigned u = 0; u < 256; u++) {
    double v = ref_value(e5, u), d = li_fp8_decode(t, (uint8_t)u);
    CHECK(isnan(v) ? isnan(d) : d == v && signbit(d) == signbit(v),
          "%s decode 0x%02x: %g, want %g", e5 ? "e5m2" : "e4m3", u, d, v);
    if (isnan(v)) {
      uint8_t c = li_fp8_encode(t, v, LG_R_HALF_EVEN, 1);
      CHECK(is_nan_code(e5, c), "NaN encodes to 0x%02x", c);
      continue;
    }
    for (int sat = 0; sat < 2; sat++) {
      /* an infinity (E5M2) saturates to the largest value */
      unsigned want = isinf(v) && sat ? (u & 0x80) | maxc : u;
      uint8_t c = li_fp8_encode(t, v, LG_R_HALF_EVEN, sat);
      CHECK(c == want, "%s encode %g (sat %d): 0x%02x, want 0x%02x",
            e5 ? "e5m2" : "e4m3", v, sat, c, want);
    }
  }
  /* midpoints between neighbouring positive finite codes */
  for (unsigned u = 0; u < maxc; u++) {
    double lo = ref_value(e5, u), hi = ref_value(e5, u + 1);
    double mid = (lo + hi) / 2;
    unsigned even = u % 2 ? u + 1 : u;
    for (int sgn = 0; sgn < 2; sgn++) {
      double x = sgn ? -mid : mid;
      unsigned s = sgn ? 0x80 : 0;
      CHECK(li_fp8_encode(t, x, LG_R_HALF_EVEN, 1) == (s | even),
            "midpoint %g: 0x%02x, want 0x%02x", x,
            li_fp8_encode(t, x, LG_R_HALF_EVEN, 1), s | even);
      double below = nextafter(mid, 0), above = nextafter(mid, 1e9);
      CHECK(li_fp8_encode(t, sgn ? -below : below, LG_R_HALF_EVEN, 1) ==
                (s | u), "below midpoint %g", below);
      CHECK(li_fp8_encode(t, sgn ? -above : above, LG_R_HALF_EVEN, 1) ==
                (s | (u + 1)), "above midpoint %g", above);
      CHECK(li_fp8_encode(t, sgn ? -above : above, LG_R_TRUNC, 1) == (s | u),
            "truncate %g", above);
      CHECK(li_fp8_encode(t, sgn ? -mid : mid, LG_R_HALF_AWAY, 1) ==
                (s | (u + 1)), "half away %g", mid);
    }
  }
  /* past the largest value: above the midpoint to the next step, and on */
  double step = e5 ? 8192 : 32;
  double over[] = {nextafter(max + step / 2, INFINITY), max + step, 1e9,
                   INFINITY};
  for (int i = 0; i < 4; i++) {
    for (int sgn = 0; sgn < 2; sgn++) {
      double x = sgn ? -over[i] : over[i];
      unsigned s = sgn ? 0x80 : 0;
      CHECK(li_fp8_encode(t, x, LG_R_HALF_EVEN, 1) == (s | maxc),
            "saturate %g", x);
      uint8_t c = li_fp8_encode(t, x, LG_R_HALF_EVEN, 0);
      CHECK(e5 ? c == (s | 0x7c) : c == (s | 0x7f), "no saturation %g: 0x%02x",
            x, c);
      if (isfinite(x))
        CHECK(li_fp8_encode(t, x, LG_R_TRUNC, 0) == (s | maxc),
              "truncate %g", x);
    }
  }
  /* the midpoint itself: E4M3's max 0x7e (mantissa 110) is even, so 464
  ** rounds down to 448; E5M2's max 0x7b (mantissa 11) is odd, so 61440
  ** rounds up to 65536 and overflows */
  CHECK(li_fp8_encode(t, max + step / 2, LG_R_HALF_EVEN, 0) ==
            (e5 ? 0x7c : 0x7e), "midpoint past max");
  CHECK(li_fp8_encode(t, max + step / 2, LG_R_HALF_EVEN, 1) == maxc,
        "midpoint past max, saturating");
  /* just under the midpoint past max still rounds to max in both modes */
  double under = nextafter(max + step / 2, 0);
  CHECK(li_fp8_encode(t, under, LG_R_HALF_EVEN, 0) == maxc, "under %g", under);
  /* below half the smallest subnormal: zero, with the sign */
  double tiny = ldexp(1, e5 ? -18 : -11);
  CHECK(li_fp8_encode(t, tiny, LG_R_HALF_EVEN, 1) == 0, "tiny");
  CHECK(li_fp8_encode(t, -tiny, LG_R_HALF_EVEN, 1) == 0x80, "-tiny");
}

/* ---- Bulk conversions -------------------------------------------------- */
static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

static uint32_t fbits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bitsf(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* The fp32 inputs: a systematic set, then random bit patterns. */
static uint32_t *inputs(size_t *count) {
  size_t cap = 1 << 20, n = 0;
  uint32_t *v = malloc(cap * sizeof *v);
  static const uint32_t mant[] = {0, 1, 2, 3, 0x7fffff, 0x7ffffe, 0x400000,
                                  0x3fffff, 0x400001, 0x080000, 0x07ffff,
                                  0x080001, 0x100000, 0x0fffff, 0x100001,
                                  0x180000, 0x200000, 0x1fffff, 0x200001,
                                  0x300000, 0x600000, 0x700000, 0x5fffff};
  for (uint32_t e = 0; e < 256; e++) /* every exponent */
    for (size_t k = 0; k < sizeof mant / sizeof mant[0]; k++)
      for (uint32_t s = 0; s < 2; s++) v[n++] = s << 31 | e << 23 | mant[k];
  for (int e5 = 0; e5 < 2; e5++) { /* codes, midpoints, +-1 ulp */
    unsigned top = e5 ? 0x7b : 0x7e;
    for (unsigned u = 0; u <= top; u++) {
      double lo = ref_value(e5, u);
      double hi = u < top ? ref_value(e5, u + 1) : lo + (e5 ? 8192 : 32);
      float pts[] = {(float)lo, (float)((lo + hi) / 2)};
      for (int j = 0; j < 2; j++)
        for (int d = -2; d <= 2; d++)
          for (uint32_t s = 0; s < 2; s++) {
            uint32_t b = fbits(pts[j]);
            if (d < 0 && b < (uint32_t)-d) continue;
            v[n++] = (s << 31) | (uint32_t)((int64_t)b + d);
          }
    }
  }
  static const float spec[] = {448, 464, 480, 57344, 61440, 65536, 1e30f,
                               3.4028235e38f, 0x1p-9f, 0x1p-10f, 0x1p-16f,
                               0x1p-17f, 0x1p-126f, 0x1p-149f};
  for (size_t k = 0; k < sizeof spec / sizeof spec[0]; k++)
    for (int d = -1; d <= 1; d++)
      for (uint32_t s = 0; s < 2; s++)
        v[n++] = (s << 31) | (uint32_t)((int64_t)fbits(spec[k]) + d);
  static const uint32_t odd[] = {0x7f800000, 0x7fc00000, 0x7f800001,
                                 0x7fbfffff, 0x7fffffff, 0x7fa00000};
  for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++)
    for (uint32_t s = 0; s < 2; s++) v[n++] = (s << 31) | odd[k];
  while (n < cap) { /* random patterns, half of them small numbers */
    uint32_t u = next() ^ (next() << 16);
    if (n % 2) u = (u & 0x807fffffu) | ((100 + next() % 50) << 23);
    v[n++] = u;
  }
  *count = n;
  return v;
}

static const char *const rname[] = {"half_even", "half_away", "truncate"};
static const int rmode[] = {LG_R_HALF_EVEN, LG_R_HALF_AWAY, LG_R_TRUNC};

/* Encoding fp32 (and the same values as doubles) and decoding. */
static void check_bulk(int simd, const uint32_t *in, size_t n) {
  uint8_t *out = malloc(n + 64), *o64 = malloc(n + 64);
  double *d = malloc(n * sizeof *d);
  for (size_t i = 0; i < n; i++) d[i] = (double)bitsf(in[i]);
  for (int e5 = 0; e5 < 2; e5++) {
    lay_dtype t = e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
    for (int rm = 0; rm < 3; rm++)
      for (int sat = 0; sat < 2; sat++) {
        li_fp8_of_f32(t, in, out, (int64_t)n, rmode[rm], sat, simd);
        li_fp8_of_f64(t, d, o64, (int64_t)n, rmode[rm], sat);
        long bad = 0;
        for (size_t i = 0; i < n; i++) {
          uint8_t want = li_fp8_encode(t, d[i], rmode[rm], sat);
          if (out[i] != want || o64[i] != want) {
            if (bad++ < 3)
              CHECK(0, "simd %d %s %s sat %d: 0x%08x -> f32 0x%02x f64 0x%02x, want 0x%02x",
                    simd, e5 ? "e5m2" : "e4m3", rname[rm], sat, in[i], out[i],
                    o64[i], want);
            else failures++;
          }
        }
        checks += (long)n;
      }
    /* decoding every code, at offsets and lengths around the vectors */
    uint8_t codes[300];
    float f[300];
    double g[300];
    for (int i = 0; i < 300; i++) codes[i] = (uint8_t)(i * 7 + 3);
    for (int off = 0; off < 3; off++)
      for (int len = 0; len <= 297; len += len < 40 ? 1 : 37) {
        memset(f, 0xa5, sizeof f);
        li_fp8_to_f32(t, codes + off, f, len, simd);
        li_fp8_to_f64(t, codes + off, g, len);
        for (int i = 0; i < len; i++) {
          double v = li_fp8_decode(t, codes[off + i]);
          uint32_t want = fbits((float)v);
          CHECK(fbits(f[i]) == want && memcmp(&g[i], &v, 8) == 0,
                "simd %d decode 0x%02x: 0x%08x, want 0x%08x", simd,
                codes[off + i], fbits(f[i]), want);
        }
        CHECK(len == 300 || fbits(f[len]) == 0xa5a5a5a5u, "decode past %d", len);
      }
    /* encoding at odd lengths and offsets: the tails, nothing written past */
    for (int off = 0; off < 3; off++)
      for (int len = 0; len <= 200; len += len < 70 ? 1 : 43) {
        uint8_t buf[260];
        memset(buf, 0xa5, sizeof buf);
        li_fp8_of_f32(t, in + 5000 + off, buf + off, len, LG_R_HALF_EVEN, 1, simd);
        for (int i = 0; i < len; i++)
          CHECK(buf[off + i] == li_fp8_encode(t, (double)bitsf(in[5000 + off + i]),
                                              LG_R_HALF_EVEN, 1),
                "simd %d length %d element %d", simd, len, i);
        CHECK(buf[off + len] == 0xa5 && (off == 0 || buf[off - 1] == 0xa5),
              "simd %d length %d: written outside", simd, len);
      }
  }
  free(out);
  free(o64);
  free(d);
}

/* Doubles that fp32 does not hold: a hair around every midpoint. */
static void check_f64(void) {
  for (int e5 = 0; e5 < 2; e5++) {
    lay_dtype t = e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
    unsigned top = e5 ? 0x7b : 0x7e;
    for (unsigned u = 0; u <= top; u++) {
      double lo = ref_value(e5, u);
      double hi = u < top ? ref_value(e5, u + 1) : lo + (e5 ? 8192 : 32);
      double mid = (lo + hi) / 2;
      double x[8] = {nextafter(mid, 0), nextafter(mid, 1e300), mid,
                     nextafter(lo, 1e300), nextafter(hi, 0), -mid,
                     -nextafter(mid, 0), -nextafter(mid, 1e300)};
      for (int rm = 0; rm < 3; rm++)
        for (int sat = 0; sat < 2; sat++) {
          uint8_t o[8];
          li_fp8_of_f64(t, x, o, 8, rmode[rm], sat);
          for (int i = 0; i < 8; i++)
            CHECK(o[i] == li_fp8_encode(t, x[i], rmode[rm], sat),
                  "f64 %.17g %s sat %d: 0x%02x, want 0x%02x", x[i], rname[rm],
                  sat, o[i], li_fp8_encode(t, x[i], rmode[rm], sat));
        }
    }
    double big[] = {1e300, -1e300, 0x1p-1074, -0x1p-1074, 1e-300, 0.0, -0.0,
                    INFINITY, -INFINITY, NAN, -NAN};
    for (int rm = 0; rm < 3; rm++)
      for (int sat = 0; sat < 2; sat++) {
        uint8_t o[11];
        li_fp8_of_f64(t, big, o, 11, rmode[rm], sat);
        for (int i = 0; i < 11; i++)
          CHECK(o[i] == li_fp8_encode(t, big[i], rmode[rm], sat),
                "f64 %g %s sat %d: 0x%02x", big[i], rname[rm], sat, o[i]);
      }
  }
}

/* li_fp8_cast from the narrow types (and fp8 to fp8) against decoding the
** source element (li_ld) and encoding it. */
static void check_cast(int simd) {
  static const lay_dtype from[] = {LAY_DT_FP16, LAY_DT_BF16, LAY_DT_INT8,
                                   LAY_DT_UINT8, LAY_DT_INT16, LAY_DT_UINT16,
                                   LAY_DT_FP8E4M3, LAY_DT_FP8E5M2};
  enum { N = 1000 };
  uint8_t src[2 * N], out[N];
  for (int i = 0; i < 2 * N; i++) src[i] = (uint8_t)next();
  for (int k = 0; k < 8; k++)
    for (int e5 = 0; e5 < 2; e5++) {
      lay_dtype t = e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
      if (from[k] == t) continue;
      size_t fs = from[k] == LAY_DT_FP16 || from[k] == LAY_DT_BF16 ||
                          from[k] == LAY_DT_INT16 || from[k] == LAY_DT_UINT16
                      ? 2 : 1;
      for (int rm = 0; rm < 3; rm++)
        for (int sat = 0; sat < 2; sat++) {
          CHECK(li_fp8_cast(from[k], t, rmode[rm], sat, src, out, N - 3, simd),
                "cast %d not taken", (int)from[k]);
          for (int i = 0; i < N - 3; i++) {
            double v = li_ld(from[k], src + fs * (size_t)i);
            CHECK(out[i] == li_fp8_encode(t, v, rmode[rm], sat),
                  "cast %d -> %d element %d (%g): 0x%02x", (int)from[k],
                  (int)t, i, v, out[i]);
          }
        }
    }
}

/* fp8 -> fp16 / bf16 casts against li_st of the decoded value (value.c's
** element-wise definition), every code, each rounding. */
static void check_cast_half(int simd) {
  uint8_t codes[515];
  uint8_t out[2 * 515], want[2];
  for (int i = 0; i < 515; i++) codes[i] = (uint8_t)(i * 3);
  for (int e5 = 0; e5 < 2; e5++)
    for (int h = 0; h < 2; h++)
      for (int rm = 0; rm < 3; rm++) {
        lay_dtype t = e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
        lay_dtype to = h ? LAY_DT_BF16 : LAY_DT_FP16;
        CHECK(li_fp8_cast(t, to, rmode[rm], 1, codes, out, 515, simd),
              "fp8 -> 16 bits not taken");
        for (int i = 0; i < 515; i++) {
          li_st(to, want, li_fp8_decode(t, codes[i]), rmode[rm], 1);
          CHECK(memcmp(out + 2 * i, want, 2) == 0,
                "simd %d 0x%02x -> %s %s: 0x%02x%02x, want 0x%02x%02x", simd,
                codes[i], h ? "bf16" : "fp16", rname[rm], out[2 * i + 1],
                out[2 * i], want[1], want[0]);
        }
      }
}

static int plan_main(void);

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "plan") == 0) return plan_main();
  check_format(0);
  check_format(1);
  size_t n;
  uint32_t *in = inputs(&n);
  for (int simd = 0; simd <= li_simd_level() && simd <= LI_SIMD_AVX512; simd++) {
    check_bulk(simd, in, n);
    check_cast(simd);
    check_cast_half(simd);
  }
  free(in);
  check_f64();
  printf("test_cast8: %ld checks, %ld failures\n", checks, failures);
  return failures != 0;
}

/* ---- Plans ---------------------------------------------------------------- */
/* Layouts of fp8: the destination order (0: [n, c/16, h, w, c%16], 1:
** [n, h, w, c], 2: [n, c/4, h, w, c%4]), the type, rounding, saturation. */
static const struct {
  int order, e5, rm, sat;
  const char *src;
} k_plans[] = {
    {0, 0, 0, 1, "layout p0 (n, c, h, w) : fp32 -> [n, c/16, h, w, c%16] cast(to = fp8e4m3)\n"},
    {1, 1, 2, 0, "layout p1 (n, c, h, w) : fp32 -> [n, h, w, c] cast(to = fp8e5m2, round = truncate, saturate = 0)\n"},
    {2, 0, 1, 0, "layout p2 (n, c, h, w) : fp32 -> [n, c/4, h, w, c%4] cast(to = fp8e4m3, round = half_away, saturate = 0)\n"},
    {0, 1, 0, 0, "layout p3 (n, c, h, w) : fp32 -> [n, c/16, h, w, c%16] cast(to = fp8e5m2, saturate = 0)\n"},
};

/* fp8 on the CPU side (the tile path's fp8 loads and stores): fp8 -> int8
** packs as int8 stores a double (round to nearest even, saturate, NaN 0),
** unpacks as the int8 value encoded; dequantize(scale = 0.25) of int8 to
** fp8 packs q / 4 encoded, unpacks the code's value * 4 as int8 stores it. */
static const char *const k_plans2[] = {
    "layout p4 (n, c, h, w) : fp8e4m3 -> [n, c/16, h, w, c%16] cast(to = int8)\n",
    "layout p5 (n, c, h, w) : int8 -> [n, h, w, c] dequantize(scale = 0.25, zero_point = 0, to = fp8e5m2)\n",
};

static int64_t plan_offset(int order, const int64_t *sh, int64_t n, int64_t c,
                           int64_t h, int64_t w) {
  int64_t C = sh[1], H = sh[2], W = sh[3];
  if (order == 1) return ((n * H + h) * W + w) * C + c;
  int64_t b = order == 0 ? 16 : 4, CB = (C + b - 1) / b;
  return (((n * CB + c / b) * H + h) * W + w) * b + c % b;
}

static void plan_case(lay_ctx *ctx, int k, const int64_t *sh) {
  lay_dtype t = k_plans[k].e5 ? LAY_DT_FP8E5M2 : LAY_DT_FP8E4M3;
  int rm = rmode[k_plans[k].rm], sat = k_plans[k].sat;
  int64_t N = sh[0], C = sh[1], H = sh[2], W = sh[3];
  size_t nin = (size_t)(N * C * H * W);
  int64_t b = k_plans[k].order == 0 ? 16 : k_plans[k].order == 2 ? 4 : 1;
  size_t nout = (size_t)(N * ((C + b - 1) / b) * b * H * W);
  float *in = malloc(nin * 4), *back = malloc(nin * 4);
  uint8_t *ref = calloc(nout, 1), *out = malloc(nout);
  for (size_t i = 0; i < nin; i++) {
    uint32_t u = next();
    switch (u % 6) {
    case 0: in[i] = bitsf(next() ^ (next() << 16)); break; /* anything */
    case 1: in[i] = (float)ldexp((double)(u % 64), (int)(next() % 40) - 24); break;
    default: in[i] = ((float)(int)(u % 20001) - 10000.0f) / (float)(1 + next() % 300); break;
    }
  }
  char name[16];
  snprintf(name, sizeof name, "p%d", k);
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
          float v = in[((n * C + c) * H + h) * W + w];
          ref[plan_offset(k_plans[k].order, sh, n, c, h, w)] =
              li_fp8_encode(t, (double)v, rm, sat);
        }
  lay_plan *pk = NULL, *up = NULL;
  lay_error err;
  if (lay_plan_create(ctx, name, sh, 4, LAY_DT_FP32, LAY_PACK, &pk, &err) != LAY_OK ||
      lay_plan_create(ctx, name, sh, 4, LAY_DT_FP32, LAY_UNPACK, &up, &err) != LAY_OK) {
    CHECK(0, "plan %s: %s", name, err.message);
  } else {
    CHECK(lay_plan_dst_bytes(pk) == nout, "%s: %zu bytes, want %zu", name,
          lay_plan_dst_bytes(pk), nout);
    memset(out, 0xa5, nout);
    CHECK(lay_plan_run(pk, in, nin * 4, out, nout, 1, &err) == LAY_OK, "run %s", name);
    for (size_t i = 0; i < nout; i++)
      CHECK(out[i] == ref[i], "%s [%lld,%lld,%lld,%lld] pack byte %zu: 0x%02x, want 0x%02x",
            name, (long long)N, (long long)C, (long long)H, (long long)W, i,
            out[i], ref[i]);
    memset(back, 0xa5, nin * 4);
    CHECK(lay_plan_run(up, ref, nout, back, nin * 4, 1, &err) == LAY_OK, "unpack %s", name);
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = 0; c < C; c++)
        for (int64_t h = 0; h < H; h++)
          for (int64_t w = 0; w < W; w++) {
            uint8_t code = ref[plan_offset(k_plans[k].order, sh, n, c, h, w)];
            uint32_t want = fbits((float)li_fp8_decode(t, code));
            uint32_t got = fbits(back[((n * C + c) * H + h) * W + w]);
            CHECK(got == want, "%s unpack 0x%02x: 0x%08x, want 0x%08x", name,
                  code, got, want);
          }
  }
  lay_plan_free(pk);
  lay_plan_free(up);
  free(in);
  free(back);
  free(ref);
  free(out);
}

static double sat_i8(double v) {
  if (v != v) return 0;
  v = nearbyint(v); /* the default mode: to even */
  return v < -128 ? -128 : v > 127 ? 127 : v;
}

/* k_plans2[k] on shape sh: pack and unpack against the references above. */
static void plan_case2(lay_ctx *ctx, int k, const int64_t *sh) {
  int64_t N = sh[0], C = sh[1], H = sh[2], W = sh[3];
  size_t nin = (size_t)(N * C * H * W), es = 1;
  size_t nout = k == 0 ? (size_t)(N * ((C + 15) / 16) * 16 * H * W) : nin;
  uint8_t *in = malloc(nin * es), *back = malloc(nin * es);
  uint8_t *ref = calloc(nout, 1), *out = malloc(nout);
  lay_dtype cpu = k == 0 ? LAY_DT_FP8E4M3 : LAY_DT_INT8;
  for (size_t i = 0; i < nin; i++) in[i] = (uint8_t)next();
  char name[16];
  snprintf(name, sizeof name, "p%d", k + 4);
  for (int64_t n = 0; n < N; n++)
    for (int64_t c = 0; c < C; c++)
      for (int64_t h = 0; h < H; h++)
        for (int64_t w = 0; w < W; w++) {
          size_t i = (size_t)(((n * C + c) * H + h) * W + w);
          if (k == 0) {
            double v = li_fp8_decode(LAY_DT_FP8E4M3, in[i]);
            ref[plan_offset(0, sh, n, c, h, w)] = (uint8_t)(int8_t)sat_i8(v);
          } else {
            ref[plan_offset(1, sh, n, c, h, w)] = li_fp8_encode(
                LAY_DT_FP8E5M2, (double)(int8_t)in[i] / 4, LG_R_HALF_EVEN, 1);
          }
        }
  lay_plan *pk = NULL, *up = NULL;
  lay_error err;
  if (lay_plan_create(ctx, name, sh, 4, cpu, LAY_PACK, &pk, &err) != LAY_OK ||
      lay_plan_create(ctx, name, sh, 4, cpu, LAY_UNPACK, &up, &err) != LAY_OK) {
    CHECK(0, "plan %s: %s", name, err.message);
  } else {
    memset(out, 0xa5, nout);
    CHECK(lay_plan_dst_bytes(pk) == nout, "%s: %zu bytes", name, lay_plan_dst_bytes(pk));
    CHECK(lay_plan_run(pk, in, nin * es, out, nout, 1, &err) == LAY_OK, "run %s", name);
    for (size_t i = 0; i < nout; i++)
      CHECK(out[i] == ref[i], "%s pack byte %zu: 0x%02x, want 0x%02x", name, i,
            out[i], ref[i]);
    memset(back, 0xa5, nin * es);
    CHECK(lay_plan_run(up, ref, nout, back, nin * es, 1, &err) == LAY_OK, "unpack %s", name);
    for (int64_t n = 0; n < N; n++)
      for (int64_t c = 0; c < C; c++)
        for (int64_t h = 0; h < H; h++)
          for (int64_t w = 0; w < W; w++) {
            size_t i = (size_t)(((n * C + c) * H + h) * W + w);
            uint8_t code = ref[plan_offset(k == 0 ? 0 : 1, sh, n, c, h, w)];
            if (k == 0) {
              uint8_t want = li_fp8_encode(LAY_DT_FP8E4M3, (double)(int8_t)code,
                                           LG_R_HALF_EVEN, 1);
              CHECK(back[i] == want, "%s unpack %d: 0x%02x, want 0x%02x", name,
                    (int8_t)code, back[i], want);
            } else {
              double v = li_fp8_decode(LAY_DT_FP8E5M2, code) * 4;
              int8_t want = (int8_t)sat_i8(v);
              CHECK((int8_t)back[i] == want, "%s unpack 0x%02x: %d, want %d",
                    name, code, (int8_t)back[i], want);
            }
          }
  }
  lay_plan_free(pk);
  lay_plan_free(up);
  free(in);
  free(back);
  free(ref);
  free(out);
}

static int plan_main(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new(&ctx, &err) != LAY_OK) {
    printf("FAIL context: %s\n", err.message);
    return 1;
  }
  for (int k = 0; k < (int)(sizeof k_plans / sizeof k_plans[0]); k++)
    if (lay_ctx_load_string(ctx, "test_cast8", k_plans[k].src,
                            strlen(k_plans[k].src), &err) != LAY_OK) {
      printf("FAIL load %s: %s\n", k_plans[k].src, err.message);
      return 1;
    }
  for (int k = 0; k < 2; k++)
    if (lay_ctx_load_string(ctx, "test_cast8", k_plans2[k], strlen(k_plans2[k]),
                            &err) != LAY_OK) {
      printf("FAIL load %s: %s\n", k_plans2[k], err.message);
      return 1;
    }
  static const int64_t shapes[][4] = {{1, 37, 5, 7}, {2, 16, 3, 3}, {1, 3, 1, 1},
                                      {1, 64, 9, 11}, {3, 21, 13, 1}};
  for (int k = 0; k < (int)(sizeof k_plans / sizeof k_plans[0]); k++)
    for (int s = 0; s < 5; s++) plan_case(ctx, k, shapes[s]);
  for (int k = 0; k < 2; k++)
    for (int s = 0; s < 5; s++) plan_case2(ctx, k, shapes[s]);
  lay_ctx_free(ctx);
  printf("test_cast8 plan (LAY_SIMD level %d): %ld checks, %ld failures\n",
         li_simd_level(), checks, failures);
  return failures != 0;
}
