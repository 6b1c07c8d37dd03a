/*
** value_simd.h: the vectorized stages of value.c's tile path (value_simd.c).
** Each stage computes exactly the IEEE operations of its scalar model in
** value.c, in the same order, 4 lanes a step (AVX2: one register; SSE2:
** two): the bytes are the scalar path's. A stage returns 0 when it does
** not handle the case, and the caller then runs the scalar code.
** Double tiles are processed in groups of 4: li_vs_ld pads x up to a
** multiple of 4 with zeros, the formula stages run over that padded
** length, and li_vs_st stores only n elements.
*/
#ifndef LI_VALUE_SIMD_H
#define LI_VALUE_SIMD_H

#include "plan_int.h"

/* Round n up to the stages' group of lanes. */
#define LI_VS_UP(n) (((n) + 3) & ~(int64_t)3)

/* x[i] = li_ld(t, src + i); x padded with zeros to LI_VS_UP(n). */
int li_vs_ld(lay_dtype t, const void *src, double *x, int64_t n, int simd);
/* value.c's quant_run / dequant_run on x[0 .. LI_VS_UP(n)), elements past
** n use channel 0. */
int li_vs_quant(const li_vrule *r, double *x, int64_t n, const int32_t *ch);
int li_vs_dequant(const li_vrule *r, double *x, int64_t n, const int32_t *ch);
/* value.c's st_run for fp32 and, saturating, the integer types (lo, hi:
** the type's range) */
int li_vs_st(lay_dtype t, void *dst, const double *x, int64_t n, int round,
             int saturate, double lo, double hi, int simd);
/* fp32 <-> fp16 / bf16 bit for bit as li_f32_to_f16 and friends. */
int li_vs_cast(lay_dtype from, lay_dtype to, const void *src, void *dst,
               int64_t n, int simd);
/* The same; trunc: fp32 -> bf16 with round = truncate (the high 16 bits);
** decoding to fp32 ignores it. */
int li_vs_cast2(lay_dtype from, lay_dtype to, int trunc, const void *src,
                void *dst, int64_t n, int simd);

#endif
