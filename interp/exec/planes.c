/*
** planes.c: 2-byte elements split into 2 byte planes over three loops
** (the SPLIT2 kernel, exec.c step_SPLIT2). The source's rows (one element
** of each of K <= 16 channels, K a power of two) run contiguous across the
** two outer loops when ss2 == n1 (Kneron's 4W4C8BHL: w%4 inside w/4), so
** 16 rows at a time are loaded as K vectors, shifted, masked and packed to
** bytes, and log2(K) rounds of byte unpacks turn the K x 16 tile of each
** plane into 16 rows of K bytes in registers. Destination rows of K bytes
** back to back (dso == K) are stored 16 bytes at a time. Everything else
** goes to kern_ilv.c li_split2, one step of the outer loop at a time.
** li_split2_conv is the same with a value rule: each chunk of CR rows is
** first converted (li_encode, per channel as each channel's own rule)
** into a stack buffer of 16-bit elements, then split from there: one
** extra pass over L1.
*/
#include "kern.h"

#if defined(__SSE2__)
/* 16 rows x K elements from s (row r, channel k at s + (r + k*ssi)*2):
** lo[i], hi[i] hold rows i*16/K .. (i+1)*16/K - 1, K bytes each. */
static void split_tile_sse(const uint8_t *s, int64_t ssi, int K,
                           const li_split_args *a, __m128i *lo, __m128i *hi) {
  const __m128i c0 = _mm_cvtsi32_si128(a->h0), c1 = _mm_cvtsi32_si128(a->h1);
  const __m128i m0 = _mm_set1_epi16((short)a->m0),
                m1 = _mm_set1_epi16((short)a->m1);
  for (int k = 0; k < K; k++) {
    const uint8_t *e = s + k * ssi * 2;
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)e);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(e + 16));
    lo[k] = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, c0), m0),
                             _mm_and_si128(_mm_srl_epi16(x1, c0), m0));
    hi[k] = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, c1), m1),
                             _mm_and_si128(_mm_srl_epi16(x1, c1), m1));
  }
  __m128i u[16], v[16];
  for (int h = K / 2; h >= 1; h /= 2) { /* log2(K) rounds */
    for (int j = 0; j < K / 2; j++) {
      u[2 * j] = _mm_unpacklo_epi8(lo[j], lo[j + K / 2]);
      u[2 * j + 1] = _mm_unpackhi_epi8(lo[j], lo[j + K / 2]);
      v[2 * j] = _mm_unpacklo_epi8(hi[j], hi[j + K / 2]);
      v[2 * j + 1] = _mm_unpackhi_epi8(hi[j], hi[j + K / 2]);
    }
    for (int j = 0; j < K; j++) {
      lo[j] = u[j];
      hi[j] = v[j];
    }
  }
}

/* Rows [r0, r0 + 16) of the flat row index r = j*n1 + i, stored at
** d + j*ds2 + i*dso. */
static void split_rows16(const uint8_t *s, int64_t ssi, uint8_t *d,
                         const li_split_args *a, int64_t n1, int64_t ds2,
                         int64_t r0, int K) {
  __m128i lo[16], hi[16];
  split_tile_sse(s, ssi, K, a, lo, hi);
  const int per = 16 / K; /* rows a vector */
  /* whole vectors inside one group: r0 is a multiple of per (16 * i, or
  ** N - 16 with N = n2 * n1 a multiple of per) */
  if (a->dso == K && n1 % per == 0) {
    int64_t j = r0 / n1, i1 = r0 % n1;
    for (int i = 0; i < K; i++) {
      uint8_t *o = d + j * ds2 + i1 * K;
      _mm_storeu_si128((__m128i *)(void *)o, lo[i]);
      _mm_storeu_si128((__m128i *)(void *)(o + a->ps), hi[i]);
      if ((i1 += per) == n1) {
        i1 = 0;
        j++;
      }
    }
    return;
  }
  uint8_t tl[256], th[256];
  for (int i = 0; i < K; i++) {
    _mm_storeu_si128((__m128i *)(void *)(tl + 16 * i), lo[i]);
    _mm_storeu_si128((__m128i *)(void *)(th + 16 * i), hi[i]);
  }
  for (int q = 0; q < 16; q++) {
    int64_t r = r0 + q;
    uint8_t *o = d + (r / n1) * ds2 + (r % n1) * a->dso;
    memcpy(o, tl + q * K, (size_t)K);
    memcpy(o + a->ps, th + q * K, (size_t)K);
  }
}
#endif

/* One row of K elements (scalar). */
static void split_row(const uint8_t *s, int64_t ssi, uint8_t *o,
                      const li_split_args *a, int K) {
  for (int k = 0; k < K; k++) {
    uint16_t u;
    memcpy(&u, s + k * ssi * 2, 2);
    o[k] = (uint8_t)(((uint32_t)u >> a->h0) & a->m0);
    o[k + a->ps] = (uint8_t)(((uint32_t)u >> a->h1) & a->m1);
  }
}

void li_split2_3(const uint8_t *s, uint8_t *d, const li_split_args *a,
                 int64_t n2, int64_t ss2, int64_t ds2, int64_t n1, int K,
                 int simd) {
#if defined(__SSE2__)
  const int64_t N = n2 * n1;
  if (simd >= LI_SIMD_SSE && a->sso == 1 && ss2 == n1 && N >= 16 &&
      (K == 2 || K == 4 || K == 8 || K == 16) &&
      (K != 16 || n1 < 16)) { /* K == 16, n1 >= 16: li_split2's AVX2 */
    int64_t r = 0;
    for (; r + 16 <= N; r += 16)
      split_rows16(s + r * 2, a->ssi, d, a, n1, ds2, r, K);
    if (r < N) /* the last 16 rows, overlapping: the same bytes again */
      split_rows16(s + (N - 16) * 2, a->ssi, d, a, n1, ds2, N - 16, K);
    return;
  }
#endif
  for (int64_t j = 0; j < n2; j++)
    li_split2(s + j * ss2 * 2, d + j * ds2, a, n1, K, simd);
}

#define CR 256 /* rows a chunk of li_split2_conv */

int li_split2_conv(const li_side *S, const li_side *D, const uint8_t *s,
                   uint8_t *d, const li_split_args *a, const int64_t *o3,
                   int64_t n1, int64_t cso, int K, int64_t cb, int64_t csi,
                   int simd) {
#if defined(__SSE2__)
  const int64_t n2 = o3[0], ss2 = o3[1], ds2 = o3[2], N = n2 * n1;
  if (n2 > 1 && (ss2 != n1 || o3[3] != 0)) { /* one step at a time */
    const int64_t one[4] = {1, 0, 0, 0}, se = (int64_t)S->esz;
    for (int64_t j = 0; j < n2; j++)
      if (!li_split2_conv(S, D, s + j * ss2 * se, d + j * ds2, a, one, n1, cso,
                          K, cb + j * o3[3], csi, simd))
        return 0; /* at j == 0: the same conditions hold for every step */
    return 1;
  }
  if (simd < LI_SIMD_SSE || a->sso != 1 || N < 16 ||
      cso != 0 || S->v.kind != LI_VR_ID || S->v.nplanes ||
      !(K == 2 || K == 4 || K == 8 || K == 16) ||
      li_dt_size(D->v.hw) != 2)
    return 0;
  li_vrule v[16];
  for (int k = 0; k < K; k++)
    if (!li_vrule_channel(&D->v, (int32_t)(cb + k * csi), &v[k])) return 0;
  uint16_t buf[16 * CR];
  const int64_t se = (int64_t)S->esz;
  for (int64_t r0 = 0; r0 < N; r0 += CR) {
    int64_t m = N - r0 < CR ? N - r0 : CR, r = 0;
    for (int k = 0; k < K; k++)
      li_encode(&v[k], s + (r0 + k * a->ssi) * se, buf + k * CR, m, NULL);
    const uint8_t *b = (const uint8_t *)buf;
    for (; r + 16 <= m; r += 16)
      split_rows16(b + r * 2, CR, d, a, n1, ds2, r0 + r, K);
    if (r < m && m >= 16) { /* the last 16 rows, overlapping */
      split_rows16(b + (m - 16) * 2, CR, d, a, n1, ds2, r0 + m - 16, K);
      r = m;
    }
    for (; r < m; r++) {
      int64_t g = r0 + r;
      split_row(b + r * 2, CR, d + (g / n1) * ds2 + (g % n1) * a->dso, a, K);
    }
  }
  return 1;
#else
  (void)S; (void)D; (void)s; (void)d; (void)a; (void)o3; (void)n1;
  (void)cso; (void)K; (void)cb; (void)csi; (void)simd;
  return 0;
#endif
}
