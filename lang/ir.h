/*
** ir.h: the IR every spec lowers to, whatever notation it was written in.
**
** A layout instance (a layout with its parameters bound, or a transform
** chain) becomes one lg_ir: a list of logical dimensions (the CPU side),
** a list of digit axes in memory order (the hardware side), and a value
** rule. The IR is still symbolic in the dimension sizes: pads, strides and
** alignments are small expression trees (lg_iexpr) over the sizes, which
** the planner evaluates for a concrete shape.
**
** The index part, for a CPU-side coordinate x[0..rank):
**   1. each dimension d is windowed and padded: its padded coordinate is
**        p_d = x_d - lo_d + before_d,   valid for lo_d <= x_d < hi_d
**      and its padded extent is P_d = before_d + (hi_d - lo_d) + after_d,
**      then rounded up to a multiple of the product of d's fixed digit
**      moduli (implicit padding, as in chunked layouts);
**   2. each DIGIT axis takes the digit (p_d / div) % mod of one dimension
**      (mod == 0: no modulus, "all the rest"); a UNIT axis is always 0; a
**      PLANE axis enumerates the byte planes of the value rule;
**   3. the element's hardware offset (in hardware elements) is
**        sum over axes of digit * stride(axis)
**      where stride is the explicit stride when given, otherwise the
**      row-major stride of the axes inside it (the product of their
**      extents, each inner axis counted with its own stride), rounded up to
**      a multiple of `align` when given. The buffer size is the outermost
**      axis' extent times its stride (at least the highest offset + 1).
** Every hardware element not reached by a valid coordinate is padding and
** holds pad_value (a transform's pads may hold several values: see fix).
**
** The value part: pack converts each CPU element (type cpu) to the
** hardware type (hw) with the rule in lg_ir_value; unpack inverts it.
*/
#ifndef LG_IR_H
#define LG_IR_H

#include <stddef.h>
#include <stdint.h>

#include "lay.h"

#define LG_MAX_RANK LAY_MAX_RANK /* logical dimensions */
#define LG_MAX_AXES LAY_MAX_AXES /* digit axes */
#define LG_MAX_PLANES 4          /* byte planes */
#define LG_MAX_VSTEPS 4          /* value ops of one transform chain */

/* ---- Size expressions --------------------------------------------------- */
typedef enum lg_iexpr_kind {
  LG_IE_CONST, /* the integer `v` */
  LG_IE_DIM,   /* the size of logical dimension `dim` */
  LG_IE_ADD, LG_IE_SUB, LG_IE_MUL,
  LG_IE_DIV,   /* floor division */
  LG_IE_MOD,
  LG_IE_CEIL   /* a rounded up to a multiple of b */
} lg_iexpr_kind;

typedef struct lg_iexpr lg_iexpr;
struct lg_iexpr {
  lg_iexpr_kind kind; /* what this node computes */
  int64_t v;          /* LG_IE_CONST: the value */
  int dim;            /* LG_IE_DIM: the dimension index */
  lg_iexpr *a, *b;    /* operands of binary kinds */
};

/* ---- The index part ------------------------------------------------------ */
typedef struct lg_ir_dim {
  const char *name;   /* CPU-side name ("c"); d0, d1, ... when unnamed */
  int64_t fixed;      /* > 0: the spec fixes this size (transforms) */
  lg_iexpr *lo;       /* window start (slice), NULL = 0 */
  lg_iexpr *hi;       /* window end (exclusive), NULL = the size */
  lg_iexpr *before;   /* explicit pad before the window, NULL = 0 */
  lg_iexpr *after;    /* explicit pad after the window, NULL = 0 */
} lg_ir_dim;

typedef enum lg_axis_kind {
  LG_AX_DIGIT, /* (p_dim / div) % mod */
  LG_AX_UNIT,  /* extent 1 */
  LG_AX_PLANE  /* byte planes of the value rule, extent value.nplanes */
} lg_axis_kind;

typedef struct lg_ir_axis {
  lg_axis_kind kind; /* see above */
  int dim;           /* DIGIT: the dimension; -1 otherwise */
  int64_t div;       /* DIGIT: divisor (1 for the lowest digit) */
  int64_t mod;       /* DIGIT: modulus, 0 = all the rest */
  lg_iexpr *stride;  /* explicit stride in hardware elements, or NULL */
  lg_iexpr *align;   /* stride rounded up to a multiple of this, or NULL */
  const char *label; /* "c/8", "c%8", "w/4%2", "byte", "1": for messages */
  uint32_t pos;      /* source position of the item, for diagnostics */
} lg_ir_axis;

/* ---- The value part ------------------------------------------------------ */
typedef enum lg_value_kind {
  LG_V_NONE,  /* hw == cpu, bytes copied */
  LG_V_CAST,  /* plain conversion cpu -> hw (float->float rounds to nearest
                 even, or toward zero with round = truncate; float->int
                 rounds with `round` and saturates) */
  LG_V_AFFINE,/* quantization, see below */
  LG_V_CHAIN  /* several value ops of a transform chain, applied in order:
                 step[0..nstep), each LG_V_CAST or LG_V_AFFINE with its own
                 cpu (the previous step's hw) and hw; see lg_ir_value */
} lg_value_kind;

typedef enum lg_round {
  LG_R_HALF_EVEN = 0, /* default */
  LG_R_HALF_AWAY = 1,
  LG_R_TRUNC = 2      /* toward zero (TIDL; a cast to fp16/bf16 drops
                         the low bits: bf16 is the top 16 bits of the
                         float32, as AMD VART-ML's default cast) */
} lg_round;

/* How the affine formula is evaluated (`arith = ...`). */
typedef enum lg_arith {
  LG_A_EXACT = 0,   /* default: in double, one rounding at the end */
  LG_A_F32 = 1,     /* as TIDL-RT does, every step in float32:
                       k = f32(num) / f32(den), q = f32(f32(x - xoff) * k);
                       dequantizing multiplies by the float32 reciprocal:
                       x = f32(f32(q - zp) * (f32(den) / f32(num))) + xoff */
  LG_A_F32_DIV = 2  /* quantizing as LG_A_F32; dequantizing divides by the
                       same k: x = f32(f32(q - zp) / k) + xoff (Kneron
                       PLUS: `(float)q / f32(scale * 2^radix)`; AMD
                       VART-ML: `q / coeff` with coeff = 1 / scale) */
} lg_arith;

/* LG_V_AFFINE, with per-channel arrays along `axis` (n entries) or one
** value for the tensor (n == 1):
**   quantizing   q = sat(round((x - xoff) * num / den) + zp)
**   dequantizing x = (q - zp) * den / num + xoff
** AMD quantize(scale S, zp Z):  num = 1, den = S, xoff = 0.
** Kneron fixed(scale S, radix R): num = S * 2^R, den = 1, zp = 0.
** TIDL: xoff = zero_point, num = tensor_scale, den = in_scale, trunc.
** `dequant` set: pack dequantizes (the chain's CPU side is integer). */
typedef struct lg_ir_value {
  lg_value_kind kind; /* which rule */
  lay_dtype cpu;      /* CPU element type; LAY_DT_NONE = open */
  lay_dtype hw;       /* hardware element type, LAY_DT_NONE = same as cpu:
                         the type of the value the rule produces. With byte
                         planes it is the type whose bits the planes split
                         (the cpu type without a rule, else the rule's
                         target type); the stored elements are then uint8 */
  int dequant;        /* 1: pack applies the dequantizing formula */
  int axis;           /* per-channel dimension, -1 for per-tensor */
  int n;              /* entries in num/den/zp/xoff (1 or the axis size) */
  double *num, *den, *zp, *xoff;
  lg_round round;     /* rounding for float -> int */
  lg_arith arith;     /* LG_A_EXACT, LG_A_F32 or LG_A_F32_DIV (affine
                         rules only) */
  int saturate;       /* 1 (default): clamp to the hw type's range */
  int nplanes;        /* 0, or the number of byte planes; each stored
                         element is then one uint8 plane of the hw-typed
                         value (see hw) */
  struct {
    const char *name; /* "lo", "hi" */
    int shift;        /* plane = (u >> shift) & mask */
    uint32_t mask;
  } plane[LG_MAX_PLANES];
  int nstep;          /* LG_V_CHAIN: the steps, 2 to LG_MAX_VSTEPS; cpu is
                         step[0]'s, hw the last step's, axis and n those
                         of the per-channel steps (all along one axis);
                         num/den/zp/xoff NULL. Unpack inverts the steps
                         in reverse order, each as its own rule would */
  struct lg_ir_value *step;
  double pad_value;   /* the value of every pad element, in the hw type;
                         with planes it is split like any element: plane
                         p of a pad element is (u >> shift) & mask of the
                         hw-typed pad value's bit pattern u */
  int pad_int;        /* a layout's pad_value written as an integer
                         literal: 1, its value is pad_bits as int64; 2, as
                         uint64 (past INT64_MAX); 0: pad_value only. The
                         64-bit types store it exactly (a double holds 53
                         bits) */
  uint64_t pad_bits;
  int nibble_hi;      /* a 4-bit layout buffer (int4, uint4): 1 when the
                         first element of each byte in memory order is its
                         high nibble (`nibbles = high_first`), 0 (default)
                         its low nibble */
} lg_ir_value;

/* ---- A layout instance --------------------------------------------------- */
typedef struct lg_ir {
  const char *name;   /* qualified name with arguments, "ti.tidl(pad_l=1)" */
  int rank;           /* CPU-side dimensions */
  lg_ir_dim dim[LG_MAX_RANK];
  int naxes;          /* hardware axes, outermost first */
  lg_ir_axis axis[LG_MAX_AXES];
  lg_ir_value value;
  /* A transform whose index part has no affine structure lowers to a full
  ** gather table instead of axes (naxes == 0): for each hardware element,
  ** the CPU-side element index, or -1 for padding. */
  int64_t *table;     /* NULL unless the fallback was needed */
  int64_t ntable;     /* hardware elements in the table */
  /* A transform whose stored pads hold several values (pads of different
  ** values, or one pad converted differently in the channels of a
  ** per-channel value op): value.pad_value is the most common one, and
  ** the other pad elements are runs of hardware elements, run r holding
  ** the hardware value padv[fix[3r + 2]] in fix[3r + 1] elements from
  ** offset fix[3r]. nfix == 0 otherwise. */
  int npadv;          /* entries of padv */
  double *padv;       /* the stored pad values, in the hw type */
  int64_t nfix;       /* runs in fix */
  int64_t *fix;       /* 3 * nfix entries */
  struct lg_arena *arena; /* owns every pointer above */
  /* Where a layout's pad_value is written (src NULL when it sets none), so
  ** that a type known only to the plan reports it there; why: what set the
  ** value, "pad_value = v, with pv.par(300)" or "" (lang/lower_pad.c). */
  struct {
    const char *file, *src; /* the defining text (the module keeps it) */
    size_t len;
    uint32_t pos;           /* the value's byte offset */
    const char *why;
  } pad_src;
} lg_ir;

#endif /* LG_IR_H */
