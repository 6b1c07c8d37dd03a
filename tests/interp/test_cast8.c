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
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cast8.h"
#include "ir.h"

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

int main(void) {
  check_format(0);
  check_format(1);
  printf("test_cast8: %ld checks, %ld failures\n", checks, failures);
  return failures != 0;
}
