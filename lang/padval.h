/*
** padval.h: one element value through the value rule, at compile time
** (lang/padval.c). The lowering uses it for pad values: a pad of a
** transform chain is an element like any other, so the value ops after it
** convert it (numpy semantics), and a pad value must fit its type.
** Internal to lang/.
*/
#ifndef LG_PADVAL_H
#define LG_PADVAL_H

#include "ir.h"

/* v as a value of type t: floats rounded to nearest even (fp16 and bf16
** with subnormals), integers as they are. 0 when v is a value of t (an
** integer in range for integer types, finite after rounding for floats),
** -1 when it is not. LAY_DT_NONE (open type): v unchanged, 0. */
int lg_value_of(lay_dtype t, double v, double *out);

/* 0 when v's pad value is a value of t, else -1: lg_value_of, or for an
** integer type and a pad written as an integer (v->pad_int) its exact
** value (uint64 takes 0 .. 2^64 - 1, int64 -2^63 .. 2^63 - 1). */
int lg_pad_fits(lay_dtype t, const lg_ir_value *v);

/* The hardware value the rule r makes of the CPU-side value x (already a
** value of r->cpu) in channel ch (0 for a per-tensor rule), as the
** executor converts elements (interp/exec/value.c): quantize rounds and
** saturates (or wraps with saturate = 0), dequantize and casts round to
** the target type. */
double lg_value_apply(const lg_ir_value *r, int ch, double x);

/* The same for a value made after the first `from` value ops of a chain
** (LG_V_CHAIN: the steps from `from` on convert it, in order; a single
** rule converts it only when from is 0). A per-tensor step ignores ch. */
double lg_value_apply_from(const lg_ir_value *r, int from, int ch, double x);

#endif /* LG_PADVAL_H */
