/*
** test_value.c: the vectorized value rules (interp/exec/value_simd.c)
** against the scalar path they must reproduce byte for byte. Every rule
** is run with simd = 0 (the scalar reference of value.c, the definition
** of lay's arithmetic) and again with SSE2 (1), AVX2 (2) and AVX-512 (3,
** where the CPU has them); the outputs must be identical. Inputs: ties at .5, values
** just around the saturation bounds, huge values, NaNs (quiet and
** signalling, both signs), infinities, -0.0, denormals and random bit
** patterns; every element type pair, every rounding mode, the three arithmetic
** modes, saturating or not, per tensor and per channel (runs of one
** channel and channels changing at every element), and lengths that are
** not multiples of the vector width. The fp32 <-> fp16 / bf16 casts are
** checked on every 16-bit pattern and on 17 million fp32 patterns spread
** over all 2^32.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t next(void) {
  rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
  return (uint32_t)(rng >> 16);
}

static int levels[3], nlevels;
static long long checked, failures;

static const lay_dtype types[] = {LAY_DT_FP32, LAY_DT_FP16, LAY_DT_BF16,
                                  LAY_DT_INT8, LAY_DT_UINT8, LAY_DT_INT16,
                                  LAY_DT_UINT16, LAY_DT_INT32, LAY_DT_UINT32};
#define NTYPES (int)(sizeof types / sizeof types[0])

/* One element of type t holding an interesting value near scale s. */
static void gen(lay_dtype t, uint8_t *p, double s, double zp) {
  uint32_t k = next() % 16;
  double v;
  uint32_t bits = next() ^ (next() << 16);
  switch (k) {
  case 0: v = (double)((int)(next() % 600) - 300) + 0.5; break; /* ties */
  case 1: v = ((double)((int)(next() % 600) - 300) + 0.5) / s; break;
  case 2: v = ((double)((int)(next() % 70000) - 35000) - zp) / s; break;
  case 3: v = (double)((int)(next() % 5) - 2) * 1e30 + (next() % 2 ? 1e10 : 0); break;
  case 4: v = k % 2 ? INFINITY : -INFINITY; if (next() % 2) v = -v; break;
  case 5: v = next() % 2 ? -0.0 : 0.0; break;
  case 6: v = ldexp((double)(next() % 1000), -(int)(next() % 160)); break;
  case 7: v = ((double)((int)(next() % 2000000) - 1000000)) / 1000.0 / s; break;
  case 8: v = (double)((int)(next() % 300) - 150) / 4.0; break;
  default: v = NAN; break; /* random bits below */
  }
  switch (t) {
  case LAY_DT_FP32: {
    float f = (float)v;
    if (k >= 9) memcpy(&f, &bits, 4); /* NaNs, denormals, anything */
    if (k == 15) { uint32_t u = 0x7f800000u | (bits & 0x807fffffu) | 1; memcpy(&f, &u, 4); }
    memcpy(p, &f, 4);
    return;
  }
  case LAY_DT_FP16: case LAY_DT_BF16: {
    uint16_t h = (uint16_t)bits;
    if (k < 9) h = t == LAY_DT_FP16 ? li_f32_to_f16((float)v) : li_f32_to_bf16((float)v);
    memcpy(p, &h, 2);
    return;
  }
  default: {
    size_t sz = li_dt_size(t);
    if (k < 9 && isfinite(v) && fabs(v) < 4e9) {
      int64_t q = (int64_t)v;
      memcpy(p, &q, sz);
    } else {
      memcpy(p, &bits, sz);
    }
    return;
  }
  }
}

typedef struct rule_vals { double num, den, zp, xoff; } rule_vals;
static const rule_vals rules[] = {
    {1, 1, 0, 0},     {1, 0.05, 3, 0},     {1, 0.05, 0, 0},  {32, 1, 1, 0},
    {4096, 2, 0.5, 0}, {3072, 1, -4, 0},   {3, 7, -5, 0.25}, {1, 3, 128, -1.5},
    {0.001, 1, 0, 0}, {1, 0.0078125, -5, 0},  {1, 1, -0.0, -0.0},
    {1, 3, -0.0, 0},  {1, 3, 2, 0.1}, /* xoff no float holds: added in double */
};
#define NRULES (int)(sizeof rules / sizeof rules[0])
#define NCH 5

/* Run r one way at every level and compare with simd 0's bytes. */
static void compare(li_vrule *r, int enc, const uint8_t *src, int64_t n,
                    const int32_t *ch, const char *what) {
  static uint8_t ref[8 * 4200], got[8 * 4200];
  size_t ts = li_dt_size(enc ? r->hw : r->cpu);
  r->simd = 0;
  memset(ref, 0xa5, sizeof ref);
  if (enc) li_encode(r, src, ref, n, ch); else li_decode(r, src, ref, n, ch);
  for (int l = 0; l < nlevels; l++) {
    r->simd = levels[l];
    memset(got, 0xa5, sizeof got);
    if (enc) li_encode(r, src, got, n, ch); else li_decode(r, src, got, n, ch);
    checked += n;
    if (memcmp(ref, got, (size_t)n * ts + 16)) {
      for (int64_t i = 0; i < n + 4; i++)
        if (memcmp(ref + (size_t)i * ts, got + (size_t)i * ts, ts)) {
          uint64_t a = 0, b = 0, s = 0;
          memcpy(&a, ref + (size_t)i * ts, ts);
          memcpy(&b, got + (size_t)i * ts, ts);
          memcpy(&s, src + (size_t)i * li_dt_size(enc ? r->cpu : r->hw),
                 li_dt_size(enc ? r->cpu : r->hw));
          if (failures++ < 20)
            fprintf(stderr, "FAIL %s %s %s->%s kind %d round %d arith %d sat %d "
                    "nch %d simd %d: element %lld of %lld src 0x%llx: scalar 0x%llx, simd 0x%llx\n",
                    what, enc ? "encode" : "decode", li_dt_name(enc ? r->cpu : r->hw),
                    li_dt_name(enc ? r->hw : r->cpu), (int)r->kind, r->round,
                    r->arith, r->saturate, r->nch, r->simd, (long long)i,
                    (long long)n, (unsigned long long)s, (unsigned long long)a,
                    (unsigned long long)b);
          break;
        }
    }
  }
}

/* Every type pair, rule, rounding, arithmetic, saturation, channel mode. */
static void rules_all(void) {
  static uint8_t src[8 * 4200];
  static int32_t ch[4200];
  double num[NCH], den[NCH], zp[NCH], xoff[NCH];
  for (int a = 0; a < NTYPES; a++)
    for (int b = 0; b < NTYPES; b++)
      for (int ri = 0; ri < NRULES; ri++)
        for (int kind = LI_VR_CAST; kind <= LI_VR_DEQUANT; kind++) {
          if (kind == LI_VR_CAST && ri > 0) continue;
          li_vrule r;
          memset(&r, 0, sizeof r);
          r.kind = (li_vkind)kind;
          r.cpu = types[a];
          r.hw = types[b];
          r.num = num; r.den = den; r.zp = zp; r.xoff = xoff;
          for (int c = 0; c < NCH; c++) {
            const rule_vals *v = &rules[((unsigned)ri + (c ? next() : 0u)) % NRULES];
            num[c] = v->num; den[c] = v->den; zp[c] = v->zp; xoff[c] = v->xoff;
          }
          for (int mode = 0; mode < 12; mode++) {
            r.round = mode % 3 == 0 ? LG_R_HALF_EVEN
                      : mode % 3 == 1 ? LG_R_HALF_AWAY : LG_R_TRUNC;
            r.arith = mode / 3 == 1 ? LG_A_F32
                      : mode / 3 == 3 ? LG_A_F32_DIV : LG_A_EXACT;
            r.saturate = mode / 3 != 2;
            int perch = (int)(next() % 3); /* none, runs, every element */
            r.nch = perch ? NCH : 1;
            r.axis = perch ? 0 : -1;
            int64_t n = 1 + (int64_t)(next() % 600);
            if (next() % 8 == 0) n = 4099;
            int64_t run = perch == 1 ? 1 + (int64_t)(next() % 40) : 1;
            for (int64_t i = 0; i < n; i++) ch[i] = (int32_t)((i / run) % NCH);
            for (int enc = 0; enc < 2; enc++) {
              lay_dtype from = enc ? r.cpu : r.hw;
              for (int64_t i = 0; i < n; i++)
                gen(from, src + (size_t)i * li_dt_size(from), num[0] / den[0], zp[0]);
              compare(&r, enc, src, n, perch ? ch : NULL, "rule");
            }
          }
        }
}

/* fp32 -> fp16 / bf16 (to nearest even and truncating) on patterns over
** all 2^32, and back on all 2^16. */
static void casts_all(void) {
  enum { N = 4096 };
  static uint32_t src[N];
  li_vrule r;
  memset(&r, 0, sizeof r);
  r.kind = LI_VR_CAST;
  r.cpu = LAY_DT_FP32;
  r.saturate = 1;
  r.axis = -1;
  for (int h = 0; h < 4; h++) { /* fp16, bf16, then both truncating */
    r.hw = h & 1 ? LAY_DT_BF16 : LAY_DT_FP16;
    r.round = h >= 2 ? LG_R_TRUNC : LG_R_HALF_EVEN;
    uint64_t u = (uint64_t)h * 7;
    while (u < 0x100000000u) {
      int64_t n = 0;
      for (; n < N && u < 0x100000000u; n++, u += 251) src[n] = (uint32_t)u;
      compare(&r, 1, (const uint8_t *)src, n, NULL, "cast");
    }
    uint16_t *s16 = (uint16_t *)(void *)src;
    for (uint32_t base = 0; base < 65536; base += 2 * N) {
      for (uint32_t i = 0; i < 2 * N; i++) s16[i] = (uint16_t)(base + i);
      compare(&r, 0, (const uint8_t *)src, 2 * N, NULL, "cast");
    }
  }
}

int main(void) {
  levels[nlevels++] = LI_SIMD_SSE;
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  if (__builtin_cpu_supports("avx2")) levels[nlevels++] = LI_SIMD_AVX2;
#endif
  if (li_simd_level() >= LI_SIMD_AVX512) levels[nlevels++] = LI_SIMD_AVX512;
  casts_all();
  rules_all();
  printf("%lld values compared at %d SIMD levels, %lld failures\n", checked,
         nlevels, failures);
  return failures != 0;
}
