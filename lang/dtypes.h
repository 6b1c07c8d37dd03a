/*
** dtypes.h: the element types, one row per lay_dtype (the one table of
** their facts; lay.h has the enum). Used by types.c (names and numpy
** spellings), padval.c and the lowering (ranges, float formats), the
** executor (interp/exec/value.c) and the test runner's data
** (interp/tools/ltest_data.c).
**
** LG_DTYPES(X) calls X(ID, name, numpy, codes, size, nbits, fl, lo, hi,
** bits, emin, max) for each type, ID being the LAY_DT_ suffix:
**   name   lay's canonical name (lay_dtype_name)
**   numpy  numpy's names of the type, blank-separated ("" when none)
**   codes  numpy's type strings and one-letter codes, blank-separated;
**          these may be written with the byte-order prefix '<' or '|'
**   size   bytes of one element as the planner and executor move it: a
**          4-bit type travels one element per byte (the nibble wrapper,
**          interp/api/nibble.c, expands and compresses the buffers)
**   nbits  bits of one element in a buffer (4 for int4 and uint4: two
**          elements per byte)
**   fl     1 for a float type
**   lo, hi the range of an integer type (0, 0 for a float type): lo an
**          int64_t, hi a uint64_t, so that int64 and uint64 are exact
**   bits, emin, max  a float type's significand bits (with the implicit
**          one), frexp() exponent of its smallest normal number, and
**          largest finite value (0, 0, 0 for an integer type). The fp8
**          types are the OCP 8-bit floating point formats (OFP8 v1.0):
**          E4M3 (fp8e4m3, ml_dtypes' float8_e4m3fn: bias 7, no infinity,
**          NaN S.1111.111, largest 1.75 * 2^8 = 448, smallest normal 2^-6)
**          and E5M2 (fp8e5m2: bias 15, IEEE-like infinities and NaNs,
**          largest 1.75 * 2^15 = 57344, smallest normal 2^-14).
** ORDER: the rows follow lay.h's LAY_DT_ values (uint64, added last, is
** the last row; nothing else depends on the order but value_simd.c's and
** value.c's `<= LAY_DT_UINT32`, which leave the types after uint32 to the
** scalar paths).
*/
#ifndef LG_DTYPES_H
#define LG_DTYPES_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "lay.h"

#define LG_DTYPES(X)                                                         \
  X(FP32, "fp32", "float32 single", "f4 f", 4, 32, 1, 0, 0, 24, -125,        \
    0x1.fffffep127)                                                          \
  X(FP16, "fp16", "float16 half", "f2 e", 2, 16, 1, 0, 0, 11, -13, 65504.0)  \
  X(BF16, "bf16", "bfloat16", "", 2, 16, 1, 0, 0, 8, -125, 0x1.fep127)       \
  X(INT8, "int8", "byte", "i1 b", 1, 8, 0, -128, 127, 0, 0, 0)               \
  X(UINT8, "uint8", "ubyte", "u1 B", 1, 8, 0, 0, 255, 0, 0, 0)               \
  X(INT16, "int16", "short", "i2 h", 2, 16, 0, -32768, 32767, 0, 0, 0)       \
  X(UINT16, "uint16", "ushort", "u2 H", 2, 16, 0, 0, 65535, 0, 0, 0)         \
  X(INT32, "int32", "intc", "i4 i", 4, 32, 0, INT32_MIN, INT32_MAX, 0, 0, 0) \
  X(UINT32, "uint32", "uintc", "u4 I", 4, 32, 0, 0, UINT32_MAX, 0, 0, 0)     \
  X(INT64, "int64", "longlong", "i8 q", 8, 64, 0, INT64_MIN, INT64_MAX, 0,   \
    0, 0)                                                                    \
  X(INT4, "int4", "", "", 1, 4, 0, -8, 7, 0, 0, 0)                           \
  X(UINT4, "uint4", "", "", 1, 4, 0, 0, 15, 0, 0, 0)                         \
  X(FP8E4M3, "fp8e4m3", "float8_e4m3fn fp8_e4m3 e4m3", "", 1, 8, 1, 0, 0, 4, \
    -5, 448.0)                                                               \
  X(FP8E5M2, "fp8e5m2", "float8_e5m2 fp8_e5m2 e5m2", "", 1, 8, 1, 0, 0, 3,   \
    -13, 57344.0)                                                          \
  X(UINT64, "uint64", "ulonglong", "u8 Q", 8, 64, 0, 0, UINT64_MAX, 0, 0, 0)

/* The canonical name; "none" for LAY_DT_NONE. */
static inline const char *lg_dtype_name(lay_dtype t) {
  switch (t) {
#define X(id, nm, np, co, size, nb, fl, lo, hi, bits, emin, max) \
  case LAY_DT_##id: return nm;
    LG_DTYPES(X)
#undef X
  default: return "none";
  }
}

/* Bytes of one element; 0 for LAY_DT_NONE. */
static inline size_t lg_dtype_size(lay_dtype t) {
  switch (t) {
#define X(id, nm, np, co, size, nb, fl, lo, hi, bits, emin, max) \
  case LAY_DT_##id: return size;
    LG_DTYPES(X)
#undef X
  default: return 0;
  }
}

/* 1 for fp32, fp16, bf16, fp8e4m3, fp8e5m2. */
static inline int lg_dtype_is_float(lay_dtype t) {
  switch (t) {
#define X(id, nm, np, co, size, nb, fl, lo, hi, bits, emin, max) \
  case LAY_DT_##id: return fl;
    LG_DTYPES(X)
#undef X
  default: return 0;
  }
}

/* Bits of one element in a buffer (4 for int4 and uint4); 0 for
** LAY_DT_NONE. */
static inline int lg_dtype_bits(lay_dtype t) {
  switch (t) {
#define X(id, nm, np, co, size, nb, fl, lo, hi, bits, emin, max) \
  case LAY_DT_##id: return nb;
    LG_DTYPES(X)
#undef X
  default: return 0;
  }
}

/* The range of an integer type, exact (uint64's hi is 2^64 - 1); 1 and 0
** for any other. */
static inline void lg_dtype_range(lay_dtype t, int64_t *lo, uint64_t *hi) {
  switch (t) {
#define X(id, nm, np, co, size, nb, fl, l, h, bits, emin, max) \
  case LAY_DT_##id: *lo = (int64_t)(l); *hi = (uint64_t)(h); return;
    LG_DTYPES(X)
#undef X
  default: *lo = 1; *hi = 0; return;
  }
}

/* The range of an integer type as doubles: lo, and hi1 = hi + 1 (every hi
** is 2^k - 1, so hi + 1 is exact where (double)hi rounds up to it for int64
** and uint64). A double v is in range when lo <= v < hi1. */
static inline void lg_dtype_drange(lay_dtype t, double *lo, double *hi1) {
  int64_t l;
  uint64_t h;
  lg_dtype_range(t, &l, &h);
  *lo = (double)l;
  *hi1 = (double)(h / 2 + 1) * 2.0; /* exact for h = 2^k - 1 */
}

/* 1 when the integral double v is a value of integer type t. */
static inline int lg_dtype_holds(lay_dtype t, double v) {
  double lo, hi1;
  lg_dtype_drange(t, &lo, &hi1);
  return v == floor(v) && v >= lo && v < hi1;
}

/* A float type's format (see above); 0 for any other type. */
static inline int lg_dtype_float(lay_dtype t, int *bits, int *emin,
                                 double *max) {
  switch (t) {
#define X(id, nm, np, co, size, nb, fl, lo, hi, b, e, m) \
  case LAY_DT_##id: *bits = b; *emin = e; *max = m; return fl;
    LG_DTYPES(X)
#undef X
  default: return 0;
  }
}

#endif /* LG_DTYPES_H */
