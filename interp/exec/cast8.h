/*
** cast8.h: the OCP 8-bit floating point formats (fp8e4m3, fp8e5m2) and the
** 64-bit integers for the executor's loads and stores (cast8.c).
*/
#ifndef LI_CAST8_H
#define LI_CAST8_H

#include <stdint.h>

#include "lay.h"

/* The value of fp8 bit pattern u of type t (LAY_DT_FP8E4M3 or E5M2):
** exact in a double; NaN for the NaN patterns, +-inf for E5M2's. */
double li_fp8_decode(lay_dtype t, uint8_t u);

/* v as fp8 of type t: rounded with `round` (an lg_round: nearest even by
** default, toward zero, half away), then, past the largest finite value,
** saturate != 0 gives +-max (E4M3 0x7e, E5M2 0x7b; an infinity too), and
** saturate == 0 the OCP non-saturating result: E4M3 NaN (0x7f), E5M2
** +-inf (0x7c). NaN stays NaN (E4M3 0x7f, E5M2 0x7e, with v's sign). */
uint8_t li_fp8_encode(lay_dtype t, double v, int round, int saturate);

/* Runs of n elements (any alignment), the bytes of li_fp8_decode /
** li_fp8_encode element by element; simd is the LI_SIMD_* level the
** loops may use (plan_int.h). fp8 codes to fp32 (as (float) of the
** decoded value: NaN is the positive quiet NaN 0x7fc00000) or double: */
void li_fp8_to_f32(lay_dtype t, const uint8_t *src, void *dst, int64_t n,
                   int simd);
void li_fp8_to_f64(lay_dtype t, const uint8_t *src, double *dst, int64_t n);
/* fp32 (src: n floats) or double values to fp8 codes. */
void li_fp8_of_f32(lay_dtype t, const void *src, uint8_t *dst, int64_t n,
                   int round, int saturate, int simd);
void li_fp8_of_f64(lay_dtype t, const double *src, uint8_t *dst, int64_t n,
                   int round, int saturate);
/* A cast rule's run from -> to without doubles, when the source is fp8
** and the destination fp32, fp16 or bf16, or the destination fp8 and the
** source fp32, fp8, fp16, bf16 or a 8/16-bit integer (values fp32 holds
** exactly): 1, else 0 (not done). */
int li_fp8_cast(lay_dtype from, lay_dtype to, int round, int saturate,
                const void *src, void *dst, int64_t n, int simd);

/* v (integral, or rounded by the caller) as int64 with saturation to the
** type's range (NaN gives 0), or without: wrap-around modulo 2^64 of a
** value clamped to +-2^63 first. */
int64_t li_i64_of(double q, int saturate);

#endif /* LI_CAST8_H */
