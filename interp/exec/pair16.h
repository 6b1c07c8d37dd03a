/*
** pair16.h: the pair of byte planes of 16-bit elements (Kneron's HL
** formats), 16 elements in one AVX2 register, written once for planes.c's
** tiles, conv.c's rows and value.c's fused quantize and dequantize.
**
** Split: plane 0's byte of u is (u >> c0) & m0 and plane 1's (u >> c1) &
** m1; the 16 results of each go in one 128-bit lane, plane 0's low.
** Combine is the inverse: (b0 & m0) << c0 | (b1 & m1) << c1. The masks
** are 16-bit lanes of at most 0xff, so the bytes pack without saturating.
*/
#ifndef LI_PAIR16_H
#define LI_PAIR16_H

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__)) && \
    defined(__SSE2__)
#include <immintrin.h>

/* The 16 elements of x split: plane 0's bytes low, plane 1's high. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
li_pair_split(__m256i x, __m128i c0, __m128i c1, __m256i m0, __m256i m1) {
  const __m256i a = _mm256_and_si256(_mm256_srl_epi16(x, c0), m0);
  const __m256i b = _mm256_and_si256(_mm256_srl_epi16(x, c1), m1);
  return _mm256_permute4x64_epi64(_mm256_packus_epi16(a, b), 0xd8);
}

/* The 16 elements combined from plane 0's bytes p0 and plane 1's p1. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
li_pair_comb(__m128i p0, __m128i p1, __m128i c0, __m128i c1, __m256i m0,
             __m256i m1) {
  const __m256i a = _mm256_and_si256(_mm256_cvtepu8_epi16(p0), m0);
  const __m256i b = _mm256_and_si256(_mm256_cvtepu8_epi16(p1), m1);
  return _mm256_or_si256(_mm256_sll_epi16(a, c0), _mm256_sll_epi16(b, c1));
}
#endif

#endif
