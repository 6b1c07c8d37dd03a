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
#include <stdint.h>

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

/* AVX-512 VBMI, 32 elements a register (where no plane's bits pass bit
** 15: mask << shift <= 0xffff). Split: the multishift control (one qword,
** li_pair_ctl) takes plane pl's byte of element w of each qword into its
** byte pl + 2w, masked by mb (m0 | m1 << 8 in each 16-bit lane). */
static inline uint64_t li_pair_ctl(int h0, int h1) {
  uint64_t c = 0;
  for (int b = 0; b < 8; b++)
    c |= (uint64_t)(16 * (b >> 1) + (b & 1 ? h1 : h0)) << (8 * b);
  return c;
}

__attribute__((target("avx512f,avx512bw,avx512vbmi"), always_inline)) static inline __m512i
li_pair_split512(__m512i x, __m512i ctl, __m512i mb) {
  return _mm512_and_si512(_mm512_multishift_epi64_epi8(ctl, x), mb);
}

/* Two rows' planes, 32 bytes each (v's low half, its high half), at o
** and o1: one store where they lie back to back. */
__attribute__((target("avx2,avx512f"), always_inline)) static inline void
li_pair_store2(uint8_t *o, uint8_t *o1, __m512i v) {
  if (o1 == o + 32) {
    _mm512_storeu_si512(o, v);
  } else {
    _mm256_storeu_si256((__m256i *)(void *)o, _mm512_castsi512_si256(v));
    _mm256_storeu_si256((__m256i *)(void *)o1,
                        _mm512_extracti64x4_epi64(v, 1));
  }
}

/* Combine: each 16-bit lane w holds plane 0's byte low and 1's high; m1
** is the mask shifted left 8 where plane 1 is the high byte (hi8: then
** (w >> 8 & m1) << 8 is w & m1, one ternary-logic op with the OR). */
__attribute__((target("avx512f,avx512bw"), always_inline)) static inline __m512i
li_pair_comb512(__m512i w, __m128i c0, __m128i c1, __m512i m0, __m512i m1,
                int hi8) {
  const __m512i a = _mm512_sll_epi16(_mm512_and_si512(w, m0), c0);
  if (hi8) return _mm512_ternarylogic_epi32(a, w, m1, 0xf8); /* a | w & m1 */
  return _mm512_or_si512(
      a, _mm512_sll_epi16(_mm512_and_si512(_mm512_srli_epi16(w, 8), m1), c1));
}
#endif

#endif
