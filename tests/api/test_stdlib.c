/*
** test_stdlib.c: every stdlib format, through the public API (lay.h),
** against an independent per-element reference.
**
** The reference is written here from the product brief's table (BRIEF.md
** section 2) and the vendor documents' formulas, never from lay's planner,
** IR or stdlib text. For a format and a CPU-side shape it gives the number
** of element slots in the hardware buffer and the slot of every CPU-side
** coordinate. A slot s holds its element at byte s * size, except in
** Kneron's high/low formats, where s is a slot of the 8-bit layout and the
** 16-bit value's low byte (u >> 1) & 0x7f goes to (s / 16) * 32 + s % 16,
** its high byte (u >> 8) & 0xff 16 bytes later. Value rules (AMD's
** quantize, Kneron's fixed point, TIDL's truncating scale, the bf16 cast)
** are computed in double on inputs chosen so that every result is exact.
**
** For each format, shape and element type: the plan's byte sizes and
** types; pack of a pseudo-random input into a buffer pre-filled with 0x5a
** equals the reference byte for byte (so every pad holds 0); unpack of the
** reference buffer, and of the same buffer with garbage in its pads, gives
** the input back (HL: with bit 0 cleared; quantized: the dequantized
** value); where and at agree with the reference for every element and
** byte. The convert group checks lay_plan_convert against the reference
** (also with garbage in A's pads, on one thread and on four) and against
** lay's own unpack A then pack B. The names group checks that
** every name of the stdlib is covered here.
**
** The other vendors' formats (oneDNN tags, TensorRT formats, Ethos-U
** NHCWB16, RKNN NC1HWC2, XLA tiles, MLIR linalg.pack) are written as the
** vendor writes them: the subscript of a C array (TensorRT's
** "[n][c/2][h][w][c%2]", oneDNN's "nChw8c", Vela's strides, XLA's
** "(floor(e/t), e mod t)", linalg.pack's outer and inner tile dims), a
** list of digits x / div % mod of the CPU-side dimensions, outermost
** first (R_DIGITS).
**
** Usage: test_stdlib GROUP (amd core qnn kneron ti onednn trt ethosu rknn
** xla mlir convert names); prints
** the number of checks, and each failure with the format, shape, type and
** the first differing byte with its coordinate.
*/
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

/* ---- The formats -------------------------------------------------------- */

/* How a format maps a coordinate to a slot (BRIEF.md section 2). */
typedef enum ref_kind {
  R_ROWMAJOR, /* [d0, d1, ...]: the CPU side itself */
  R_HCWNC,    /* AMD (n,c,h,w) -> [h, c/x, w, n, c%x], x = a[0] */
  R_CHUNKED,  /* Qualcomm ChunkedMemoryLayout<...> with `pairs` */
  R_K1W16,    /* Kneron (n,c,h,w) -> [n, c/16, h, w, c%16] */
  R_K1W16C,   /* Kneron's C pseudo-code for outer channel groups */
  R_KCOMPACT, /* Kneron (n,c,h,w) -> [n, h, w, c/16, c%16] (CH_COMPACT) */
  R_K8W1,     /* Kneron (n,c,h,w) -> [n, c, h, ceil8(w)] (16-bit words) */
  R_KHCW16,   /* KL520 (n,c,h,w) -> [n, h, c, ceil16(w)] */
  R_KHCW8,    /* KL520 (n,c,h,w) -> [n, h, c, ceil8(w)] (16-bit words) */
  R_K4W4,     /* Kneron (n,c,h,w) -> [n, c/4, h, ceil4(w), c%4] */
  R_K16W1,    /* Kneron (n,c,h,w) -> [n, c, h, ceil16(w)] */
  R_TIDL,     /* TI: a = pad_l, pad_r, pad_t, pad_b, pad_ch, ch_pitch */
  R_TIDL_NHWC, /* TI, CPU side (n, h, w, c), the same planes and a */
  R_DIGITS,    /* a C array subscript: `digs`, see digits() */
  /* Formats whose sizes depend on the element size es (bytes) of the
  ** type (TensorRT's "elementSize is 2 for FP16 and 1 for Int8", RKNN's
  ** Table 5-1); wider types are refused (LAY_E_SHAPE): */
  R_NC1HWC2_B, /* RKNN [n][c/C2][h][w][c%C2], C2 = a[0] bytes / es */
  R_DLA_LINEAR, /* TensorRT [N][C][H][roundUp(W, 64/es)], [n][c][h][w] */
  R_DLA_HWC4   /* TensorRT C in {1,3,4}, C' = {1,4,4}:
                  [N][H][roundUp(W, 64/C'/es)][C'], [n][h][w][c] */
} ref_kind;

/* The value rule between the CPU element and the hardware element. */
typedef enum val_kind {
  V_COPY,  /* the same bytes */
  V_QUANT, /* AMD, VART-ML's float32 (quantization.cpp): coeff = 1.0f / v0,
               q = sat(nearbyintf(x * coeff) + v1), x = (q - v1) / coeff */
  V_FIXED, /* Kneron PLUS's float32: m = powf(2, v1) * (float)v0 (scale,
               radix), q = sat(nearbyintf(f32(x * m))), x = (float)q / m */
  V_TIDL, /* TI, TIDL-RT's float32: q = sat(trunc(f32((x - v2) * f32(v0 /
             v1)))), x = f32(q * f32(v1 / v0)) + v2 */
  V_BF16  /* fp32 -> bf16 by truncation (VART-ML's float_to_bf16: the top
             16 bits); back exactly */
} val_kind;

typedef struct fmt {
  const char *group; /* the CTest case that checks it */
  const char *name;  /* the format string given to lay (per-channel
                         formats: the name; the arguments are built) */
  const char *dims;  /* CPU-side dimension names, comma separated */
  ref_kind kind;     /* the index rule */
  int64_t a[6];      /* its parameters (see ref_kind) */
  const int *pairs;  /* R_CHUNKED: (dim, size) pairs, outermost first */
  int npairs;        /* the number of pairs */
  const int *digs;   /* R_DIGITS: (dim, div, mod, pad) per subscript */
  int ndigs;         /* the number of subscripts */
  int hl;            /* Kneron high/low byte entries (int16 only); 2:
                        16-bit words stored low byte & 0xfe, high byte */
  lay_dtype own;     /* a copy format's own CPU type (RAW_FLOAT: fp32) */
  int nibhi;         /* own int4/uint4: the layout's first element of a
                        byte in its high nibble (RKNN's matmul B) */
  val_kind val;      /* the value rule */
  lay_dtype hwt;     /* the hardware type of a value rule */
  double v[3];       /* the value rule's constants (see val_kind) */
  int per_channel;   /* V_FIXED: scale and radix per channel c */
  int64_t kmax;      /* value rules: inputs are k / 8, |k| <= kmax */
} fmt;

static const int P_FLAT[] = {0, 0, 1, 0, 2, 0, 3, 0};
/* The prose's N,C,H,W (BRIEF.md), not the table's N,C,W,H. */
static const int P_NCHW[] = {0, 0, 3, 0, 1, 0, 2, 0};
static const int P_D32[] = {0, 0, 1, 0, 3, 0, 2, 0, 2, 4, 3, 32};
static const int P_CROUTON[] = {0, 0, 1, 0, 2, 0, 3, 0, 1, 8, 2, 8, 3, 32};
static const int P_CR4X1[] = {0, 0, 1, 0, 2, 0, 3, 0, 1, 8, 2, 2, 3, 32, 2, 4};
/* SpatialXMajor as the doc's code block writes it (4 rows high). */
static const int P_CR4X1H4[] = {0, 0, 1, 0, 2, 0,  3, 0,
                                1, 4, 2, 2, 3, 32, 2, 4};
static const int P_CR2X2[] = {0, 0, 1, 0, 2,  0, 3, 0, 1,
                              4, 2, 4, 3, 32, 1, 2, 2, 2};
static const int P_CR2[] = {0, 0, 1, 0, 2, 0, 3, 0, 1, 8, 2, 2, 3, 32, 2, 2};
static const int P_CONVW[] = {3, 0, 2, 0, 0, 0, 1, 0, 2, 8, 3, 32, 2, 4};
#define PAIRS(p) .pairs = p, .npairs = (int)(sizeof p / sizeof p[0] / 2)

/* C array subscripts, outermost first: (dim, div, mod, pad) is
** x[dim] / div % mod, or x[dim] / div when mod is 0; `pad` > 0 rounds the
** dimension up to a multiple of it (TensorRT's "(C+7)/8*8"). */
#define DIGS(p) .digs = p, .ndigs = (int)(sizeof p / sizeof p[0] / 4)
/* oneDNN (dnnl_types.h): nChw8c = [n][c/8][h][w][c%8], and so on */
static const int D_NCHW8C[] = {0, 1, 0, 0, 1, 8, 0, 0, 2, 1, 0, 0,
                               3, 1, 0, 0, 1, 1, 8, 0};
static const int D_NCHW16C[] = {0, 1, 0, 0, 1, 16, 0, 0, 2, 1, 0, 0,
                                3, 1, 0, 0, 1, 1, 16, 0};
static const int D_NCDHW16C[] = {0, 1, 0, 0, 1, 16, 0, 0, 2, 1, 0, 0, 3, 1,
                                 0, 0, 4, 1, 0, 0, 1, 1, 16, 0};
/* OIhw16i16o: [o/16][i/16][h][w][i%16][o%16] */
static const int D_OIHW16I16O[] = {0, 16, 0, 0, 1, 16, 0, 0, 2, 1, 0, 0,
                                   3, 1,  0, 0, 1, 1,  16, 0, 0, 1, 16, 0};
/* OIhw4i16o4i: [o/16][i/16][h][w][i/4%4][o%16][i%4] */
static const int D_OIHW4I16O4I[] = {0, 16, 0, 0, 1, 16, 0,  0, 2, 1,
                                    0, 0,  3, 1, 0, 0,  1,  4, 4, 0,
                                    0, 1,  16, 0, 1, 1, 4, 0};
/* gOIhw16i16o: [g][o/16][i/16][h][w][i%16][o%16] */
static const int D_GOIHW16I16O[] = {0, 1, 0, 0, 1, 16, 0,  0, 2, 16,
                                    0, 0, 3, 1, 0, 0,  4, 1, 0, 0,
                                    2, 1, 16, 0, 1, 1, 16, 0};
/* ABcd8b8a: [a/8][b/8][c][d][b%8][a%8] */
static const int D_ABCD8B8A[] = {0, 8, 0, 0, 1, 8, 0, 0, 2, 1, 0, 0,
                                 3, 1, 0, 0, 1, 1, 8, 0, 0, 1, 8, 0};
/* TensorRT (TensorFormat): kCHWx = [n][c/x][h][w][c%x] */
#define D_CHWX(x) {0, 1, 0, 0, 1, x, 0, 0, 2, 1, 0, 0, 3, 1, 0, 0, 1, 1, x, 0}
static const int D_CHW2[] = D_CHWX(2), D_CHW4[] = D_CHWX(4);
static const int D_CHW16[] = D_CHWX(16), D_CHW32[] = D_CHWX(32);
/* kHWCx: [n][h][w][(C+x-1)/x*x]; kHWC: x = 1 */
#define D_HWCX(x) {0, 1, 0, 0, 2, 1, 0, 0, 3, 1, 0, 0, 1, 1, 0, x}
static const int D_HWC[] = D_HWCX(1), D_HWC8[] = D_HWCX(8);
static const int D_HWC16[] = D_HWCX(16);
/* {N, C, D, H, W}: kDHWC8 [n][d][h][w][(C+7)/8*8], kDHWC [n][d][h][w][c],
** kCDHW32 [n][c/32][d][h][w][c%32] */
static const int D_DHWC8[] = {0, 1, 0, 0, 2, 1, 0, 0, 3, 1, 0, 0,
                              4, 1, 0, 0, 1, 1, 0, 8};
static const int D_DHWC[] = {0, 1, 0, 0, 2, 1, 0, 0, 3, 1, 0, 0,
                             4, 1, 0, 0, 1, 1, 0, 0};
static const int D_CDHW32[] = {0, 1, 0, 0, 1, 32, 0, 0, 2, 1, 0, 0, 3, 1,
                               0, 0, 4, 1, 0, 0,  1, 1, 32, 0};
/* Vela's NHCWB16 strides: (n, h, w, c) at [n][h][c/16][w][c%16] */
static const int D_NHCWB16[] = {0, 1, 0, 0, 1, 1, 0, 0, 3, 16, 0, 0,
                                2, 1, 0, 0, 3, 1, 16, 0};
/* RKNN NC1HWC2: [n][c/C2][h][w][c%C2] */
static const int D_NC1HWC2_16[] = D_CHWX(16), D_NC1HWC2_8[] = D_CHWX(8);
static const int D_NC1HWC2_4[] = D_CHWX(4), D_NC1HWC2_5[] = D_CHWX(5);
/* RKNN matmul (Table 3-5 and its conversion code): A and C [K/s][M][s],
** B [N/sn][K/sk][sn][sk]; CPU sides (m, k), (k, n), (m, n) */
#define D_MMA(s) {1, s, 0, 0, 0, 1, 0, 0, 1, 1, s, 0}
#define D_MMB(sn, sk) {1, sn, 0, 0, 0, sk, 0, 0, 1, 1, sn, 0, 0, 1, sk, 0}
static const int D_MMA16[] = D_MMA(16), D_MMA8[] = D_MMA(8);
static const int D_MMA4[] = D_MMA(4), D_MMA5[] = D_MMA(5);
static const int D_MMB32X32[] = D_MMB(32, 32), D_MMB16X32[] = D_MMB(16, 32);
static const int D_MMB8X16[] = D_MMB(8, 16), D_MMB3X5[] = D_MMB(3, 5);
static const int D_MMA32[] = D_MMA(32), D_MMB64X32[] = D_MMB(64, 32);
/* XLA: linear_index((floor(e/t), e mod t), (ceil(d/t), t)) */
static const int D_XLA_2X2[] = {0, 2, 0, 0, 1, 2, 0, 0, 0, 1, 2, 0, 1, 1, 2, 0};
static const int D_XLA_8X128[] = {0, 8, 0, 0, 1, 128, 0, 0,
                                  0, 1, 8, 0, 1, 1, 128, 0};
static const int D_XLA_MINOR4[] = {0, 1, 0, 0, 1, 4, 0, 0, 1, 1, 4, 0};
static const int D_XLA_3D_2X4[] = {0, 1, 0, 0, 1, 2, 0, 0, 2, 4, 0, 0,
                                   1, 1, 2, 0, 2, 1, 4, 0};
/* T(8,128)(2,1) and T(32,128)(4,1): the tile tiled again by (2,1), (4,1) */
static const int D_XLA_8X128_2X1[] = {0, 8, 0, 0, 1, 128, 0, 0, 0, 2, 4, 0,
                                      1, 1, 128, 0, 0, 1, 2, 0};
static const int D_XLA_32X128_4X1[] = {0, 32, 0, 0, 1, 128, 0, 0, 0, 4, 8, 0,
                                       1, 1, 128, 0, 0, 1, 4, 0};
/* linalg.pack: the outer dims (permuted by outer_dims_perm), then the
** tiles of inner_dims_pos in order */
static const int D_PACK_NC_8X32[] = {0, 8, 0, 0, 1, 32, 0, 0,
                                     0, 1, 8, 0, 1, 1, 32, 0};
static const int D_PACK_KC_2X3[] = {1, 3, 0, 0, 0, 2, 0, 0,
                                    0, 1, 2, 0, 1, 1, 3, 0};
static const int D_PACK_KCRS_4X2[] = {0, 1, 0, 0, 1, 1, 0, 0, 2, 2, 0, 0,
                                      3, 4, 0, 0, 3, 1, 4, 0, 2, 1, 2, 0};
static const int D_PACK_CBA_2[] = {2, 1, 0, 0, 1, 2, 0, 0,
                                   0, 1, 0, 0, 1, 1, 2, 0};
static const int D_PACK_BA_4X2[] = {0, 2, 0, 0, 1, 4, 0, 0, 2, 1, 0, 0,
                                    3, 1, 0, 0, 1, 1, 4, 0, 0, 1, 2, 0};

/* The fields every row has, then the format's own (designated). */
#define F(g, n, d, k) .group = g, .name = n, .dims = d, .kind = k
#define NCHW "n,c,h,w"
#define BHWD "b,h,w,d"
#define I8 LAY_DT_INT8
#define I16 LAY_DT_INT16
#define NCDHW "n,c,d,h,w"
#define DG(g, n, d, p) F(g, n, d, R_DIGITS), DIGS(p)

static const fmt fmts[] = {
    /* AMD */
    {F("amd", "amd.hcwnc4", NCHW, R_HCWNC), .a = {4}},
    {F("amd", "amd.hcwnc8", NCHW, R_HCWNC), .a = {8}},
    {F("amd", "amd.hcwnc16", NCHW, R_HCWNC), .a = {16}},
    {F("amd", "amd.hcwnc(3)", NCHW, R_HCWNC), .a = {3}},
    {F("amd", "amd.hcwnc(x=5)", NCHW, R_HCWNC), .a = {5}},
    /* blocks of 6, 7 and 12 channels: gather tiles whose narrow rows are
    ** stored over each other (exec/tr.c), the block copy */
    {F("amd", "amd.hcwnc(x=6)", NCHW, R_HCWNC), .a = {6}},
    {F("amd", "amd.hcwnc(x=7)", NCHW, R_HCWNC), .a = {7}},
    {F("amd", "amd.hcwnc(x=12)", NCHW, R_HCWNC), .a = {12}},
    {F("amd", "amd.ab", "a,b", R_ROWMAJOR)},
    {F("amd", "amd.hcwnc_q(8, 0.25, 3)", NCHW, R_HCWNC), .a = {8},
     .val = V_QUANT, .hwt = I8, .v = {0.25, 3}, .kmax = 600},
    {F("amd", "amd.hcwnc_q(x=4, scale=0.5, zero_point=-5)", NCHW, R_HCWNC),
     .a = {4}, .val = V_QUANT, .hwt = I8, .v = {0.5, -5}, .kmax = 1200},
    {F("amd", "amd.hcwnc_q(16, 2)", NCHW, R_HCWNC), .a = {16}, .val = V_QUANT,
     .hwt = I8, .v = {2, 0}, .kmax = 2400},
    {F("amd", "amd.hcwnc_bf16(8)", NCHW, R_HCWNC), .a = {8}, .val = V_BF16,
     .hwt = LAY_DT_BF16},
    {F("amd", "amd.hcwnc_bf16(x=4)", NCHW, R_HCWNC), .a = {4}, .val = V_BF16,
     .hwt = LAY_DT_BF16},
    /* core */
    {F("core", "core.nchw", NCHW, R_ROWMAJOR)},
    {F("core", "core.nhwc", "n,h,w,c", R_ROWMAJOR)},
    {F("core", "core.ab", "a,b", R_ROWMAJOR)},
    {F("core", "core.flat1", "a", R_ROWMAJOR)},
    {F("core", "core.flat2", "a,b", R_ROWMAJOR)},
    {F("core", "core.flat3", "a,b,c", R_ROWMAJOR)},
    {F("core", "core.flat4", "a,b,c,d", R_ROWMAJOR)},
    {F("core", "core.flat5", "a,b,c,d,e", R_ROWMAJOR)},
    /* Qualcomm */
    {F("qnn", "qnn.flat", BHWD, R_CHUNKED), PAIRS(P_FLAT)},
    {F("qnn", "qnn.nchw", BHWD, R_CHUNKED), PAIRS(P_NCHW)},
    {F("qnn", "qnn.d32", BHWD, R_CHUNKED), PAIRS(P_D32)},
    {F("qnn", "qnn.crouton", BHWD, R_CHUNKED), PAIRS(P_CROUTON)},
    {F("qnn", "qnn.crouton4x1", BHWD, R_CHUNKED), PAIRS(P_CR4X1)},
    {F("qnn", "qnn.crouton4x1_h4", BHWD, R_CHUNKED), PAIRS(P_CR4X1H4)},
    {F("qnn", "qnn.crouton2x2", BHWD, R_CHUNKED), PAIRS(P_CR2X2)},
    {F("qnn", "qnn.crouton2", BHWD, R_CHUNKED), PAIRS(P_CR2)},
    {F("qnn", "qnn.conv_weight", "fh,fw,cin,cout", R_CHUNKED), PAIRS(P_CONVW)},
    /* Kneron (1w16c8b: the shipped code's order, batch inside the groups) */
    {F("kneron", "kneron.1w16c8b", NCHW, R_K1W16C)},
    {F("kneron", "kneron.1w16c8b_batch_inside", NCHW, R_K1W16C)},
    {F("kneron", "kneron.1w16c8b_batch_outside", NCHW, R_K1W16)},
    {F("kneron", "kneron.1w16c8b_ch_compact", NCHW, R_KCOMPACT)},
    {F("kneron", "kneron.4w4c8b", NCHW, R_K4W4)},
    {F("kneron", "kneron.16w1c8b", NCHW, R_K16W1)},
    {F("kneron", "kneron.kl520_16w1c8b", NCHW, R_KHCW16)},
    {F("kneron", "kneron.raw_8b", NCHW, R_ROWMAJOR)},
    {F("kneron", "kneron.raw_float", NCHW, R_ROWMAJOR), .own = LAY_DT_FP32},
    {F("kneron", "kneron.1w16c8bhl", NCHW, R_K1W16C), .hl = 1, .hwt = I16},
    {F("kneron", "kneron.1w16c8bhl_batch_inside", NCHW, R_K1W16C), .hl = 1,
     .hwt = I16},
    {F("kneron", "kneron.1w16c8bhl_batch_outside", NCHW, R_K1W16), .hl = 1,
     .hwt = I16},
    {F("kneron", "kneron.1w16c8bhl_ch_compact", NCHW, R_KCOMPACT), .hl = 1,
     .hwt = I16},
    {F("kneron", "kneron.4w4c8bhl", NCHW, R_K4W4), .hl = 1, .hwt = I16},
    {F("kneron", "kneron.16w1c8bhl", NCHW, R_K16W1), .hl = 1, .hwt = I16},
    {F("kneron", "kneron.8w1c16b", NCHW, R_K8W1), .hl = 2, .hwt = I16},
    {F("kneron", "kneron.kl520_8w1c16b", NCHW, R_KHCW8), .hl = 2, .hwt = I16},
    {F("kneron", "kneron.raw_16b", NCHW, R_ROWMAJOR), .hl = 2, .hwt = I16},
    {F("kneron", "kneron.1w16c8b_q(0.5, 3)", NCHW, R_K1W16C), .val = V_FIXED,
     .hwt = I8, .v = {0.5, 3}, .kmax = 300},
    {F("kneron", "kneron.1w16c8b_batch_outside_q(0.5, 3)", NCHW, R_K1W16),
     .val = V_FIXED, .hwt = I8, .v = {0.5, 3}, .kmax = 300},
    {F("kneron", "kneron.1w16c8b_ch_compact_q(2, 2)", NCHW, R_KCOMPACT),
     .val = V_FIXED, .hwt = I8, .v = {2, 2}, .kmax = 300},
    {F("kneron", "kneron.4w4c8b_q(scale=2, radix=1)", NCHW, R_K4W4),
     .val = V_FIXED, .hwt = I8, .v = {2, 1}, .kmax = 300},
    {F("kneron", "kneron.16w1c8b_q(1, 0)", NCHW, R_K16W1), .val = V_FIXED,
     .hwt = I8, .v = {1, 0}, .kmax = 1200},
    {F("kneron", "kneron.kl520_16w1c8b_q(1, 1)", NCHW, R_KHCW16),
     .val = V_FIXED, .hwt = I8, .v = {1, 1}, .kmax = 1200},
    {F("kneron", "kneron.raw_8b_q(0.5, 1)", NCHW, R_ROWMAJOR), .val = V_FIXED,
     .hwt = I8, .v = {0.5, 1}, .kmax = 1200},
    {F("kneron", "kneron.1w16c8bhl_q(0.25, 2)", NCHW, R_K1W16C), .hl = 1,
     .val = V_FIXED, .hwt = I16, .v = {0.25, 2}, .kmax = 320000},
    {F("kneron", "kneron.1w16c8bhl_batch_outside_q(0.25, 2)", NCHW, R_K1W16),
     .hl = 1, .val = V_FIXED, .hwt = I16, .v = {0.25, 2}, .kmax = 320000},
    {F("kneron", "kneron.1w16c8bhl_ch_compact_q(0.25, 2)", NCHW, R_KCOMPACT),
     .hl = 1, .val = V_FIXED, .hwt = I16, .v = {0.25, 2}, .kmax = 320000},
    {F("kneron", "kneron.4w4c8bhl_q(scale=0.5, radix=4)", NCHW, R_K4W4),
     .hl = 1, .val = V_FIXED, .hwt = I16, .v = {0.5, 4}, .kmax = 40000},
    {F("kneron", "kneron.16w1c8bhl_q(1, 1)", NCHW, R_K16W1), .hl = 1,
     .val = V_FIXED, .hwt = I16, .v = {1, 1}, .kmax = 160000},
    {F("kneron", "kneron.8w1c16b_q(1, 3)", NCHW, R_K8W1), .hl = 2,
     .val = V_FIXED, .hwt = I16, .v = {1, 3}, .kmax = 40000},
    {F("kneron", "kneron.kl520_8w1c16b_q(0.5, 2)", NCHW, R_KHCW8), .hl = 2,
     .val = V_FIXED, .hwt = I16, .v = {0.5, 2}, .kmax = 160000},
    {F("kneron", "kneron.raw_16b_q(1, 1)", NCHW, R_ROWMAJOR), .hl = 2,
     .val = V_FIXED, .hwt = I16, .v = {1, 1}, .kmax = 160000},
    {F("kneron", "kneron.1w16c8b_qc", NCHW, R_K1W16C), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.1w16c8b_batch_outside_qc", NCHW, R_K1W16), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.1w16c8b_ch_compact_qc", NCHW, R_KCOMPACT), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.4w4c8b_qc", NCHW, R_K4W4), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.16w1c8b_qc", NCHW, R_K16W1), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.kl520_16w1c8b_qc", NCHW, R_KHCW16), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.raw_8b_qc", NCHW, R_ROWMAJOR), .val = V_FIXED,
     .hwt = I8, .per_channel = 1, .kmax = 600},
    {F("kneron", "kneron.1w16c8bhl_qc", NCHW, R_K1W16C), .hl = 1,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.1w16c8bhl_batch_outside_qc", NCHW, R_K1W16), .hl = 1,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.1w16c8bhl_ch_compact_qc", NCHW, R_KCOMPACT), .hl = 1,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.4w4c8bhl_qc", NCHW, R_K4W4), .hl = 1,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.16w1c8bhl_qc", NCHW, R_K16W1), .hl = 1,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.8w1c16b_qc", NCHW, R_K8W1), .hl = 2,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.kl520_8w1c16b_qc", NCHW, R_KHCW8), .hl = 2,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    {F("kneron", "kneron.raw_16b_qc", NCHW, R_ROWMAJOR), .hl = 2,
     .val = V_FIXED, .hwt = I16, .per_channel = 1, .kmax = 160000},
    /* TI */
    {F("ti", "ti.tidl", NCHW, R_TIDL), .a = {0, 0, 0, 0, 0, 0}},
    {F("ti", "ti.tidl(1,1,1,1)", NCHW, R_TIDL), .a = {1, 1, 1, 1, 0, 0}},
    {F("ti", "ti.tidl(pad_l=1,pad_r=1,pad_t=1,pad_b=1)", NCHW, R_TIDL),
     .a = {1, 1, 1, 1, 0, 0}},
    {F("ti", "ti.tidl(pad_l=2, pad_b=3)", NCHW, R_TIDL),
     .a = {2, 0, 0, 3, 0, 0}},
    {F("ti", "ti.tidl(0,1,2,0,2)", NCHW, R_TIDL), .a = {0, 1, 2, 0, 2, 0}},
    {F("ti", "ti.tidl(pad_ch=1, ch_pitch=1100)", NCHW, R_TIDL),
     .a = {0, 0, 0, 0, 1, 1100}},
    {F("ti", "ti.tidl(1,2,1,0,1,1200)", NCHW, R_TIDL),
     .a = {1, 2, 1, 0, 1, 1200}},
    {F("ti", "ti.tidl_q8(4)", NCHW, R_TIDL), .val = V_TIDL, .hwt = I8,
     .v = {4, 1, 0}, .kmax = 400},
    {F("ti", "ti.tidl_qu8(2, pad_l=1, pad_r=2)", NCHW, R_TIDL),
     .a = {1, 2, 0, 0, 0, 0}, .val = V_TIDL, .hwt = LAY_DT_UINT8,
     .v = {2, 1, 0}, .kmax = 1200},
    {F("ti", "ti.tidl_q16(8, in_scale=2, zero_point=1, pad_t=1, pad_ch=1)",
       NCHW, R_TIDL),
     .a = {0, 0, 1, 0, 1, 0}, .val = V_TIDL, .hwt = I16, .v = {8, 2, 1},
     .kmax = 80000},
    {F("ti", "ti.tidl_qu16(tensor_scale=0.5, pad_b=2, ch_pitch=1200)", NCHW,
       R_TIDL),
     .a = {0, 0, 0, 2, 0, 1200}, .val = V_TIDL, .hwt = LAY_DT_UINT16,
     .v = {0.5, 1, 0}, .kmax = 1100000},
    {F("ti", "ti.tidl_q8(10)", NCHW, R_TIDL), .val = V_TIDL, .hwt = I8,
     .v = {10, 1, 0}, .kmax = 120},
    {F("ti", "ti.tidl_nhwc", "n,h,w,c", R_TIDL_NHWC)},
    {F("ti", "ti.tidl_nhwc(1,0,2,1,1)", "n,h,w,c", R_TIDL_NHWC),
     .a = {1, 0, 2, 1, 1, 0}},
    {F("ti", "ti.tidl_nhwc_q8(4, pad_l=1)", "n,h,w,c", R_TIDL_NHWC),
     .a = {1, 0, 0, 0, 0, 0}, .val = V_TIDL, .hwt = I8, .v = {4, 1, 0},
     .kmax = 400},
    {F("ti", "ti.tidl_nhwc_qu8(2, pad_t=1)", "n,h,w,c", R_TIDL_NHWC),
     .a = {0, 0, 1, 0, 0, 0}, .val = V_TIDL, .hwt = LAY_DT_UINT8,
     .v = {2, 1, 0}, .kmax = 1200},
    {F("ti", "ti.tidl_nhwc_q16(8, in_scale=2, zero_point=1, pad_ch=1)",
       "n,h,w,c", R_TIDL_NHWC),
     .a = {0, 0, 0, 0, 1, 0}, .val = V_TIDL, .hwt = I16, .v = {8, 2, 1},
     .kmax = 80000},
    {F("ti", "ti.tidl_nhwc_qu16(tensor_scale=0.5, pad_r=2)", "n,h,w,c",
       R_TIDL_NHWC),
     .a = {0, 2, 0, 0, 0, 0}, .val = V_TIDL, .hwt = LAY_DT_UINT16,
     .v = {0.5, 1, 0}, .kmax = 1100000},
    /* oneDNN */
    {DG("onednn", "onednn.nChw8c", NCHW, D_NCHW8C)},
    {DG("onednn", "onednn.nChw16c", NCHW, D_NCHW16C)},
    {DG("onednn", "onednn.nCdhw16c", NCDHW, D_NCDHW16C)},
    {DG("onednn", "onednn.OIhw16i16o", "o,i,h,w", D_OIHW16I16O)},
    {DG("onednn", "onednn.OIhw4i16o4i", "o,i,h,w", D_OIHW4I16O4I)},
    {DG("onednn", "onednn.gOIhw16i16o", "g,o,i,h,w", D_GOIHW16I16O)},
    {DG("onednn", "onednn.ABcd8b8a", "a,b,c,d", D_ABCD8B8A)},
    /* TensorRT */
    {F("trt", "trt.linear", NCHW, R_ROWMAJOR)},
    {DG("trt", "trt.chw2", NCHW, D_CHW2)},
    {DG("trt", "trt.hwc8", NCHW, D_HWC8)},
    {DG("trt", "trt.chw4", NCHW, D_CHW4)},
    {DG("trt", "trt.chw16", NCHW, D_CHW16)},
    {DG("trt", "trt.chw32", NCHW, D_CHW32)},
    {DG("trt", "trt.dhwc8", NCDHW, D_DHWC8)},
    {DG("trt", "trt.cdhw32", NCDHW, D_CDHW32)},
    {DG("trt", "trt.hwc", NCHW, D_HWC)},
    {DG("trt", "trt.hwc16", NCHW, D_HWC16)},
    {DG("trt", "trt.dhwc", NCDHW, D_DHWC)},
    {F("trt", "trt.dla_linear", NCHW, R_DLA_LINEAR)},
    {F("trt", "trt.dla_hwc4", NCHW, R_DLA_HWC4)},
    /* the rank-polymorphic twins, on 4 (5) dimensions: d0 leads */
    {F("trt", "trt.linear_nd", "d0,c,h,w", R_ROWMAJOR)},
    {DG("trt", "trt.chw2_nd", "d0,c,h,w", D_CHW2)},
    {DG("trt", "trt.hwc8_nd", "d0,c,h,w", D_HWC8)},
    {DG("trt", "trt.chw4_nd", "d0,c,h,w", D_CHW4)},
    {DG("trt", "trt.chw16_nd", "d0,c,h,w", D_CHW16)},
    {DG("trt", "trt.chw32_nd", "d0,c,h,w", D_CHW32)},
    {DG("trt", "trt.dhwc8_nd", "d0,c,d,h,w", D_DHWC8)},
    {DG("trt", "trt.cdhw32_nd", "d0,c,d,h,w", D_CDHW32)},
    {DG("trt", "trt.hwc_nd", "d0,c,h,w", D_HWC)},
    {DG("trt", "trt.hwc16_nd", "d0,c,h,w", D_HWC16)},
    {DG("trt", "trt.dhwc_nd", "d0,c,d,h,w", D_DHWC)},
    /* Arm Ethos-U */
    {F("ethosu", "ethosu.nhwc", "n,h,w,c", R_ROWMAJOR)},
    {DG("ethosu", "ethosu.nhcwb16", "n,h,w,c", D_NHCWB16)},
    /* Rockchip RKNN */
    {F("rknn", "rknn.nchw", NCHW, R_ROWMAJOR)},
    {F("rknn", "rknn.nhwc", "n,h,w,c", R_ROWMAJOR)},
    {F("rknn", "rknn.rk3588_nc1hwc2", NCHW, R_NC1HWC2_B), .a = {16}},
    {F("rknn", "rknn.rk3566_nc1hwc2", NCHW, R_NC1HWC2_B), .a = {8}},
    {DG("rknn", "rknn.nc1hwc2(16)", NCHW, D_NC1HWC2_16)},
    {DG("rknn", "rknn.nc1hwc2(c2=5)", NCHW, D_NC1HWC2_5)},
    {DG("rknn", "rknn.rk3588_nc1hwc2_int8", NCHW, D_NC1HWC2_16), .own = I8},
    {DG("rknn", "rknn.rk3588_nc1hwc2_uint8", NCHW, D_NC1HWC2_16),
     .own = LAY_DT_UINT8},
    {DG("rknn", "rknn.rk3588_nc1hwc2_fp16", NCHW, D_NC1HWC2_8),
     .own = LAY_DT_FP16},
    {DG("rknn", "rknn.rk3566_nc1hwc2_int8", NCHW, D_NC1HWC2_8), .own = I8},
    {DG("rknn", "rknn.rk3566_nc1hwc2_uint8", NCHW, D_NC1HWC2_8),
     .own = LAY_DT_UINT8},
    {DG("rknn", "rknn.rk3566_nc1hwc2_fp16", NCHW, D_NC1HWC2_4),
     .own = LAY_DT_FP16},
    {DG("rknn", "rknn.mm_a(5)", "m,k", D_MMA5)},
    {DG("rknn", "rknn.mm_b(3, 5)", "k,n", D_MMB3X5)},
    {DG("rknn", "rknn.mm_c", "m,n", D_MMA4)},
    {DG("rknn", "rknn.rk3588_mm_a_int8", "m,k", D_MMA16), .own = I8},
    {DG("rknn", "rknn.rk3588_mm_b_int8", "k,n", D_MMB32X32), .own = I8},
    {DG("rknn", "rknn.rk3588_mm_c_int32", "m,n", D_MMA4), .own = LAY_DT_INT32},
    {DG("rknn", "rknn.rk3588_mm_a_fp16", "m,k", D_MMA8), .own = LAY_DT_FP16},
    {DG("rknn", "rknn.rk3588_mm_b_fp16", "k,n", D_MMB16X32),
     .own = LAY_DT_FP16},
    {DG("rknn", "rknn.rk3588_mm_c_fp32", "m,n", D_MMA4), .own = LAY_DT_FP32},
    {DG("rknn", "rknn.rk3566_mm_a_int8", "m,k", D_MMA8), .own = I8},
    {DG("rknn", "rknn.rk3566_mm_b_int8", "k,n", D_MMB16X32), .own = I8},
    {DG("rknn", "rknn.rk3566_mm_c_int32", "m,n", D_MMA4), .own = LAY_DT_INT32},
    {DG("rknn", "rknn.rk3566_mm_a_fp16", "m,k", D_MMA4), .own = LAY_DT_FP16},
    {DG("rknn", "rknn.rk3566_mm_b_fp16", "k,n", D_MMB8X16),
     .own = LAY_DT_FP16},
    {DG("rknn", "rknn.rk3566_mm_c_fp32", "m,n", D_MMA4), .own = LAY_DT_FP32},
    /* int4 (RK3588, RK3576): A [K/32,M,32] low nibble first, B
    ** [N/64,K/32,64,32] high nibble first (Rockchip's matmul demo), C
    ** int16 [N/8,M,8] */
    {DG("rknn", "rknn.rk3588_mm_a_int4", "m,k", D_MMA32), .own = LAY_DT_INT4},
    {DG("rknn", "rknn.rk3588_mm_b_int4", "k,n", D_MMB64X32),
     .own = LAY_DT_INT4, .nibhi = 1},
    {DG("rknn", "rknn.rk3588_mm_c_int16", "m,n", D_MMA8), .own = I16},
    /* XLA */
    {DG("xla", "xla.tiled(2, 2)", "a,b", D_XLA_2X2)},
    {DG("xla", "xla.tiled_nd(2, 2)", "a,b", D_XLA_2X2)},
    {DG("xla", "xla.tiled(t0=8, t1=128)", "a,b", D_XLA_8X128)},
    {DG("xla", "xla.tiled_minor(4)", "a,b", D_XLA_MINOR4)},
    {DG("xla", "xla.tiled3(2, 4)", "a,b,c", D_XLA_3D_2X4)},
    {DG("xla", "xla.tiled_8x128_2x1", "a,b", D_XLA_8X128_2X1)},
    {DG("xla", "xla.tiled_32x128_4x1", "a,b", D_XLA_32X128_4X1)},
    /* MLIR linalg.pack */
    {DG("mlir", "mlir.pack_nc(8, 32)", "a,b", D_PACK_NC_8X32)},
    {DG("mlir", "mlir.pack_kc(2, 3)", "a,b", D_PACK_KC_2X3)},
    {DG("mlir", "mlir.pack_kcrs_sr(4, 2)", "k,c,r,s", D_PACK_KCRS_4X2)},
    {DG("mlir", "mlir.pack_cba_b(2)", "a,b,c", D_PACK_CBA_2)},
    {DG("mlir", "mlir.pack_ba(4, 2, pad=0)", "a,b,c,d", D_PACK_BA_4X2)},
    /* The general template, on the same lists as each template above. */
    {DG("mlir", "mlir.pack([0, 1], [8, 32])", "d0,d1", D_PACK_NC_8X32)},
    {DG("mlir", "mlir.pack([0, 1], [2, 3], [1, 0])", "d0,d1", D_PACK_KC_2X3)},
    {DG("mlir", "mlir.pack([3, 2], [4, 2])", "d0,d1,d2,d3", D_PACK_KCRS_4X2)},
    {DG("mlir", "mlir.pack([1], [2], [2, 1, 0])", "d0,d1,d2", D_PACK_CBA_2)},
    {DG("mlir", "mlir.pack([1, 0], [4, 2], [], 0)", "d0,d1,d2,d3",
        D_PACK_BA_4X2)},
};
#define NFMTS (int)(sizeof fmts / sizeof fmts[0])

/* Per-channel Kneron scales and radixes, channel c using entry c % 5. */
static const double QC_SCALE[5] = {0.5, 2, 1, 0.25, 4};
static const int QC_RADIX[5] = {3, 0, 2, 4, 1};

/* ---- Small helpers ------------------------------------------------------ */

static long g_checks, g_failures, g_cases;

static uint64_t g_rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void) { /* xorshift64* */
  g_rng ^= g_rng >> 12;
  g_rng ^= g_rng << 25;
  g_rng ^= g_rng >> 27;
  return (uint32_t)((g_rng * 0x2545f4914f6cdd1du) >> 32);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "test_stdlib: out of memory\n");
    exit(2);
  }
  return p;
}

static int64_t ceil_to(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

static int64_t numel(const int64_t *s, int rank) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= s[i];
  return n;
}

/* Row-major linear index -> coordinate. */
static void unravel(int64_t i, const int64_t *s, int rank, int64_t *x) {
  for (int d = rank - 1; d >= 0; d--) {
    x[d] = i % s[d];
    i /= s[d];
  }
}

static int rank_of(const fmt *f) {
  int r = 1;
  for (const char *p = f->dims; *p; p++) r += *p == ',';
  return r;
}

/* "[2,5,3,7]" or "(0,1,2,3)", in one of 8 rotating buffers. */
static const char *list_str(const int64_t *v, int rank, char open,
                            char close) {
  static char buf[8][200];
  static int k;
  char *b = buf[k++ % 8];
  size_t n = (size_t)snprintf(b, sizeof buf[0], "%c", open);
  for (int i = 0; i < rank; i++) /* at most 8 x 21 characters */
    n += (size_t)snprintf(b + n, sizeof buf[0] - n, "%s%" PRId64,
                          i ? "," : "", v[i]);
  snprintf(b + n, sizeof buf[0] - n, "%c", close);
  return b;
}

static const char *shape_str(const int64_t *s, int rank) {
  return list_str(s, rank, '[', ']');
}

static const char *coord_str(const int64_t *x, int rank) {
  return list_str(x, rank, '(', ')');
}

/* The CPU-side element type of format f run with type t. */
static lay_dtype cpu_type(const fmt *f, lay_dtype t) {
  if (f->own) return f->own;
  return f->val != V_COPY ? LAY_DT_FP32 : f->hl ? LAY_DT_INT16 : t;
}

/* The hardware element type (for HL: the 16-bit value before the split). */
static lay_dtype hw_type(const fmt *f, lay_dtype t) {
  if (f->own) return f->own;
  return f->val != V_COPY || f->hl ? f->hwt : t;
}

/* ---- The reference: slots ----------------------------------------------- */

/* Number of slots of a ChunkedMemoryLayout and the slot of x. Pairs are
** outermost first; a dimension's fixed sizes multiply into its chunk
** extent, the rightmost being the least significant digit; `d,0` is the
** rest of d, which is padded to a multiple of its chunk extent. */
static int64_t chunked(const fmt *f, const int64_t *s, const int64_t *x,
                       int64_t *slots) {
  int64_t chunk[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  for (int i = 0; i < f->npairs; i++)
    if (f->pairs[2 * i + 1] > 0) chunk[f->pairs[2 * i]] *= f->pairs[2 * i + 1];
  int64_t slot = 0, total = 1;
  for (int i = 0; i < f->npairs; i++) {
    int d = f->pairs[2 * i], size = f->pairs[2 * i + 1];
    int64_t ext, digit;
    if (size == 0) {
      ext = ceil_to(s[d], chunk[d]) / chunk[d];
      digit = x[d] / chunk[d];
    } else {
      int64_t below = 1; /* the fixed sizes of d to the right of pair i */
      for (int j = i + 1; j < f->npairs; j++)
        if (f->pairs[2 * j] == d && f->pairs[2 * j + 1] > 0)
          below *= f->pairs[2 * j + 1];
      ext = size;
      digit = x[d] / below % size;
    }
    slot = slot * ext + digit;
    total *= ext;
  }
  *slots = total;
  return slot;
}

/* The slot of x in a C array given by subscripts (dim, div, mod, pad),
** outermost first, and the number of slots. Each dimension is padded to
** a multiple of the largest div * mod (or div, or pad) of its subscripts;
** a subscript without mod spans the padded extent / div. */
static int64_t digits(const fmt *f, const int64_t *s, int rank,
                      const int64_t *x, int64_t *slots) {
  int64_t padded[8];
  for (int d = 0; d < rank; d++) {
    int64_t m = 1;
    for (int i = 0; i < f->ndigs; i++) {
      const int *g = f->digs + 4 * i;
      int64_t b = g[2] ? (int64_t)g[1] * g[2] : g[1] > g[3] ? g[1] : g[3];
      if (g[0] == d && b > m) m = b;
    }
    padded[d] = ceil_to(s[d], m);
  }
  int64_t slot = 0, total = 1;
  for (int i = 0; i < f->ndigs; i++) {
    const int *g = f->digs + 4 * i;
    int64_t ext = g[2] ? g[2] : padded[g[0]] / g[1];
    int64_t digit = g[2] ? x[g[0]] / g[1] % g[2] : x[g[0]] / g[1];
    slot = slot * ext + digit;
    total *= ext;
  }
  *slots = total;
  return slot;
}

/* The slot of coordinate x (CPU-side order) of format f on shape s, and
** the number of slots of the buffer in *slots. */
/* The element size of the case being checked (check_case), for the
** R_NC1HWC2_B and R_DLA_* references. */
static int64_t g_es = 1;

/* The slot of coordinate x of the element-size formats (n, c, h, w). */
static int64_t es_slot(const fmt *f, const int64_t *s, const int64_t *x,
                       int64_t *slots) {
  if (f->kind == R_NC1HWC2_B) {
    int64_t c2 = f->a[0] / g_es, c1 = ceil_to(s[1], c2) / c2;
    *slots = s[0] * c1 * s[2] * s[3] * c2;
    return (((x[0] * c1 + x[1] / c2) * s[2] + x[2]) * s[3] + x[3]) * c2 +
           x[1] % c2;
  }
  if (f->kind == R_DLA_LINEAR) {
    int64_t wp = ceil_to(s[3], 64 / g_es);
    *slots = s[0] * s[1] * s[2] * wp;
    return ((x[0] * s[1] + x[1]) * s[2] + x[2]) * wp + x[3];
  }
  int64_t cp = s[1] == 1 ? 1 : 4, wp = ceil_to(s[3], 64 / cp / g_es);
  *slots = s[0] * s[2] * wp * cp;
  return ((x[0] * s[2] + x[2]) * wp + x[3]) * cp + x[1];
}

static int64_t ref_slot(const fmt *f, const int64_t *s, int rank,
                        const int64_t *x, int64_t *slots) {
  if (f->kind == R_NC1HWC2_B || f->kind == R_DLA_LINEAR ||
      f->kind == R_DLA_HWC4)
    return es_slot(f, s, x, slots);
  if (f->kind == R_ROWMAJOR) {
    int64_t i = 0;
    for (int d = 0; d < rank; d++) i = i * s[d] + x[d];
    *slots = numel(s, rank);
    return i;
  }
  if (f->kind == R_CHUNKED) return chunked(f, s, x, slots);
  if (f->kind == R_DIGITS) return digits(f, s, rank, x, slots);
  if (f->kind == R_TIDL_NHWC) { /* s and x are (n, h, w, c) */
    int64_t pl = f->a[0], pr = f->a[1], pt = f->a[2], pb = f->a[3];
    int64_t pch = f->a[4], line = pl + s[2] + pr;
    int64_t pitch = f->a[5] ? f->a[5] : (pt + s[1] + pb) * line;
    *slots = s[0] * (s[3] + pch) * pitch;
    return (x[0] * (s[3] + pch) + x[3]) * pitch + (x[1] + pt) * line + x[2] +
           pl;
  }
  /* the rest are (n, c, h, w) */
  int64_t n = s[0], c = s[1], h = s[2], w = s[3];
  switch (f->kind) {
  case R_ROWMAJOR:
  case R_CHUNKED:
  case R_TIDL_NHWC:
  case R_NC1HWC2_B:
  case R_DLA_LINEAR:
  case R_DLA_HWC4:
  case R_DIGITS: break;
  case R_HCWNC: {
    int64_t bx = f->a[0], cb = ceil_to(c, bx) / bx;
    *slots = h * cb * w * n * bx;
    return (((x[2] * cb + x[1] / bx) * w + x[3]) * n + x[0]) * bx + x[1] % bx;
  }
  case R_K1W16: {
    int64_t cb = ceil_to(c, 16) / 16;
    *slots = n * cb * h * w * 16;
    return (((x[0] * cb + x[1] / 16) * h + x[2]) * w + x[3]) * 16 + x[1] % 16;
  }
  case R_K1W16C: {
    /* Kneron's C code: the strides of one channel group (c 1, w 16,
    ** h 16 * W, n 16 * H * W), plus (c >> 4) * (max - 16), where max is the
    ** largest shape * stride of the other axes (16 * H * W * N). */
    int64_t max = 16 * h * w * n, groups = ceil_to(c, 16) / 16;
    *slots = groups * max;
    return x[1] + x[3] * 16 + x[2] * 16 * w + x[0] * 16 * h * w +
           (x[1] >> 4) * (max - 16);
  }
  case R_KCOMPACT: {
    int64_t cb = ceil_to(c, 16);
    *slots = n * h * w * cb;
    return ((x[0] * h + x[2]) * w + x[3]) * cb + x[1];
  }
  case R_K8W1: {
    int64_t w8 = ceil_to(w, 8);
    *slots = n * c * h * w8;
    return ((x[0] * c + x[1]) * h + x[2]) * w8 + x[3];
  }
  case R_KHCW16:
  case R_KHCW8: {
    int64_t wa = ceil_to(w, f->kind == R_KHCW16 ? 16 : 8);
    *slots = n * h * c * wa;
    return ((x[0] * h + x[2]) * c + x[1]) * wa + x[3];
  }
  case R_K4W4: {
    int64_t cb = ceil_to(c, 4) / 4, w4 = ceil_to(w, 4);
    *slots = n * cb * h * w4 * 4;
    return (((x[0] * cb + x[1] / 4) * h + x[2]) * w4 + x[3]) * 4 + x[1] % 4;
  }
  case R_K16W1: {
    int64_t w16 = ceil_to(w, 16);
    *slots = n * c * h * w16;
    return ((x[0] * c + x[1]) * h + x[2]) * w16 + x[3];
  }
  case R_TIDL: {
    int64_t pl = f->a[0], pr = f->a[1], pt = f->a[2], pb = f->a[3];
    int64_t pch = f->a[4], line = pl + w + pr, plane = (pt + h + pb) * line;
    int64_t pitch = f->a[5] ? f->a[5] : plane;
    *slots = n * (c + pch) * pitch;
    return (x[0] * (c + pch) + x[1]) * pitch + (x[2] + pt) * line + x[3] + pl;
  }
  }
  return -1;
}

/* Byte offsets of slot `slot`: one run of `size` bytes, or for HL the low
** and the high byte. Returns the number of offsets. */
static int slot_offsets(const fmt *f, int64_t slot, size_t size,
                        int64_t off[2]) {
  if (!f->hl) {
    off[0] = slot * (int64_t)size;
    return 1;
  }
  if (f->hl == 2) { /* a 16-bit word: low byte, high byte */
    off[0] = slot * 2;
    off[1] = off[0] + 1;
    return 2;
  }
  off[0] = slot / 16 * 32 + slot % 16;
  off[1] = off[0] + 16;
  return 2;
}

static int64_t ref_bytes(const fmt *f, const int64_t *s, int rank,
                         lay_dtype t) {
  int64_t x[8] = {0}, slots;
  ref_slot(f, s, rank, x, &slots);
  return f->hl ? slots * 2 : slots * (int64_t)lay_dtype_size(hw_type(f, t));
}

/* ---- The reference: values ---------------------------------------------- */

/* The fixed-point multiplier of channel ch as Kneron PLUS computes it:
** powf(2, radix) * scale in float32, scale a float32. */
static float fixed_mul(const fmt *f, int64_t ch) {
  double sc = f->per_channel ? QC_SCALE[ch % 5] : f->v[0];
  double rx = f->per_channel ? QC_RADIX[ch % 5] : f->v[1];
  volatile float m = powf(2.0f, (float)rx) * (float)sc;
  return m;
}

static double sat(double q, lay_dtype t) {
  double lo = 0, hi = 0;
  switch (t) {
  case LAY_DT_INT8:
    lo = -128;
    hi = 127;
    break;
  case LAY_DT_UINT8:
    lo = 0;
    hi = 255;
    break;
  case LAY_DT_INT16:
    lo = -32768;
    hi = 32767;
    break;
  case LAY_DT_UINT16:
    lo = 0;
    hi = 65535;
    break;
  default: return q;
  }
  return q < lo ? lo : q > hi ? hi : q;
}

static void store_int(double q, lay_dtype t, uint8_t *out) {
  uint64_t v = (uint64_t)(int64_t)q;
  for (size_t i = 0; i < lay_dtype_size(t); i++)
    out[i] = (uint8_t)(v >> (8 * i));
}

static int64_t load_int(const uint8_t *in, lay_dtype t) {
  switch (t) {
  case LAY_DT_INT8: return (int8_t)in[0];
  case LAY_DT_UINT8: return in[0];
  case LAY_DT_INT16: return (int16_t)(in[0] | in[1] << 8);
  case LAY_DT_UINT16: return (uint16_t)(in[0] | in[1] << 8);
  default: return 0;
  }
}

/* The hardware element (hw_type bytes) of CPU element `in` of channel ch. */
static void ref_value(const fmt *f, lay_dtype t, int64_t ch, const uint8_t *in,
                      uint8_t *out) {
  float x;
  uint32_t u;
  if (f->val == V_COPY) {
    memcpy(out, in, lay_dtype_size(cpu_type(f, t)));
    return;
  }
  memcpy(&x, in, 4);
  switch (f->val) {
  case V_QUANT: {
    volatile float coeff = 1.0f / (float)f->v[0], p = x * coeff;
    store_int(sat(nearbyintf(p) + f->v[1], f->hwt), f->hwt, out);
    break;
  }
  case V_FIXED: {
    volatile float p = x * fixed_mul(f, ch);
    store_int(sat(nearbyintf(p), f->hwt), f->hwt, out);
    break;
  }
  case V_TIDL: {
    float k = (float)f->v[0] / (float)f->v[1], t = (float)x - (float)f->v[2];
    float q = t * k;
    store_int(sat(trunc((double)q), f->hwt), f->hwt, out);
    break;
  }
  case V_BF16: /* VART truncates: the top 16 bits */
    memcpy(&u, in, 4);
    u >>= 16;
    out[0] = (uint8_t)u;
    out[1] = (uint8_t)(u >> 8);
    break;
  case V_COPY: break;
  }
}

/* The CPU element of hardware element `in` (what unpack gives). */
static void ref_unvalue(const fmt *f, lay_dtype t, int64_t ch,
                        const uint8_t *in, uint8_t *out) {
  float x = 0;
  uint32_t u;
  switch (f->val) {
  case V_COPY: memcpy(out, in, lay_dtype_size(cpu_type(f, t))); return;
  case V_QUANT: {
    volatile float coeff = 1.0f / (float)f->v[0];
    x = (float)(load_int(in, f->hwt) - f->v[1]) / coeff;
    break;
  }
  case V_FIXED: x = (float)load_int(in, f->hwt) / fixed_mul(f, ch); break;
  case V_TIDL: {
    float k = (float)f->v[1] / (float)f->v[0];
    float q = (float)load_int(in, f->hwt) * k;
    x = (float)((double)q + f->v[2]);
    break;
  }
  case V_BF16:
    u = (uint32_t)(in[0] | in[1] << 8) << 16;
    memcpy(&x, &u, 4);
    break;
  }
  memcpy(out, &x, 4);
}

/* A pseudo-random CPU tensor for format f: random bytes, or for value
** rules fp32 values k / 8 (exact, with ties and saturation), or for bf16
** random finite floats, a quarter of them exactly halfway. */
static void make_input(const fmt *f, lay_dtype t, uint8_t *cpu, int64_t n) {
  size_t es = lay_dtype_size(cpu_type(f, t));
  for (int64_t i = 0; i < n; i++) {
    uint8_t *p = cpu + i * (int64_t)es;
    if (f->val == V_COPY) {
      for (size_t b = 0; b < es; b++) p[b] = (uint8_t)rnd();
    } else if (f->val == V_BF16) {
      uint32_t u;
      do {
        u = rnd();
        if (rnd() % 4 == 0) u = (u & 0xffff0000u) | 0x8000u;
      } while ((u & 0x7f800000u) == 0x7f800000u && (u & 0x7fffffu));
      memcpy(p, &u, 4);
    } else {
      int64_t k = (int64_t)(rnd() % (uint32_t)(2 * f->kmax + 1)) - f->kmax;
      float x = (float)k / 8;
      memcpy(p, &x, 4);
    }
  }
}

/* ---- The reference: whole buffers --------------------------------------- */

/* The packed buffer of CPU tensor `cpu`: pads 0, every element at its
** offsets. owner[b] gets the CPU element of byte b (-1 for pad). */
static void ref_pack(const fmt *f, const int64_t *s, int rank, lay_dtype t,
                     const uint8_t *cpu, uint8_t *hw, int64_t *owner) {
  size_t bytes = (size_t)ref_bytes(f, s, rank, t);
  size_t ces = lay_dtype_size(cpu_type(f, t));
  size_t hes = lay_dtype_size(hw_type(f, t));
  memset(hw, 0, bytes);
  if (owner)
    for (size_t b = 0; b < bytes; b++) owner[b] = -1;
  int64_t x[8], slots, off[2];
  for (int64_t i = 0; i < numel(s, rank); i++) {
    uint8_t v[8];
    unravel(i, s, rank, x);
    ref_value(f, t, rank > 1 ? x[1] : 0, cpu + i * (int64_t)ces, v);
    int no = slot_offsets(f, ref_slot(f, s, rank, x, &slots), hes, off);
    if (f->hl == 2) { /* u & 0xfffe, little-endian */
      hw[off[0]] = (uint8_t)(v[0] & 0xfe);
      hw[off[1]] = v[1];
    } else if (f->hl) { /* low (u >> 1) & 0x7f, high (u >> 8) & 0xff */
      unsigned u = (unsigned)(v[0] | v[1] << 8);
      hw[off[0]] = (uint8_t)(u >> 1 & 0x7f);
      hw[off[1]] = (uint8_t)(u >> 8 & 0xff);
    } else {
      memcpy(hw + off[0], v, hes);
    }
    if (owner)
      for (int k = 0; k < no; k++)
        for (size_t b = 0; b < (f->hl ? 1 : hes); b++)
          owner[off[k] + (int64_t)b] = i;
  }
}

/* What unpack of buffer hw gives: every element from its offsets. */
static void ref_unpack(const fmt *f, const int64_t *s, int rank, lay_dtype t,
                       const uint8_t *hw, uint8_t *cpu) {
  size_t ces = lay_dtype_size(cpu_type(f, t));
  size_t hes = lay_dtype_size(hw_type(f, t));
  int64_t x[8], slots, off[2];
  for (int64_t i = 0; i < numel(s, rank); i++) {
    uint8_t v[8];
    unravel(i, s, rank, x);
    slot_offsets(f, ref_slot(f, s, rank, x, &slots), hes, off);
    if (f->hl == 2) { /* bit 0 reads as 0 */
      v[0] = (uint8_t)(hw[off[0]] & 0xfe);
      v[1] = hw[off[1]];
    } else if (f->hl) { /* (high << 8) | (low << 1) */
      unsigned u = (unsigned)(hw[off[1]] << 8 | (hw[off[0]] & 0x7f) << 1);
      v[0] = (uint8_t)u;
      v[1] = (uint8_t)(u >> 8);
    } else {
      memcpy(v, hw + off[0], hes);
    }
    ref_unvalue(f, t, rank > 1 ? x[1] : 0, v, cpu + i * (int64_t)ces);
  }
}

/* ---- Checking ----------------------------------------------------------- */

/* One case being checked, for the failure messages. */
typedef struct tcase {
  const char *format; /* the format string */
  const int64_t *s;   /* CPU-side shape */
  int rank;
  lay_dtype t; /* the CPU-side type */
} tcase;

static int failf(const tcase *k, const char *what, const char *fmt_, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static int failf(const tcase *k, const char *what, const char *fmt_, ...) {
  va_list ap;
  g_failures++;
  fprintf(stderr, "FAIL %s %s %s %s: ", what, k->format,
          shape_str(k->s, k->rank), lay_dtype_name(k->t));
  va_start(ap, fmt_);
  vfprintf(stderr, fmt_, ap);
  va_end(ap);
  fputc('\n', stderr);
  return 1;
}

/* Compare a hardware buffer with the reference; owner[b] is the CPU-side
** element (a linear index in k's shape) of byte b, -1 for pad. */
static int check_hw(const tcase *k, const char *what, const uint8_t *got,
                    const uint8_t *want, const int64_t *owner, size_t n) {
  g_checks++;
  for (size_t b = 0; b < n; b++) {
    if (got[b] == want[b]) continue;
    char where[128] = "pad";
    if (owner[b] >= 0) {
      int64_t x[8];
      unravel(owner[b], k->s, k->rank, x);
      snprintf(where, sizeof where, "element %s", coord_str(x, k->rank));
    }
    return failf(k, what, "byte %zu (%s) is 0x%02x, want 0x%02x", b, where,
                 got[b], want[b]);
  }
  return 0;
}

/* Compare a CPU-side buffer with the expected one. */
static int check_cpu(const tcase *k, const char *what, const uint8_t *got,
                     const uint8_t *want, size_t n) {
  size_t es = lay_dtype_size(k->t);
  g_checks++;
  for (size_t b = 0; b < n; b++) {
    if (got[b] == want[b]) continue;
    int64_t x[8];
    unravel((int64_t)(b / es), k->s, k->rank, x);
    return failf(k, what,
                 "byte %zu (element %s, byte %zu of it) is 0x%02x, "
                 "want 0x%02x",
                 b, coord_str(x, k->rank), b % es, got[b], want[b]);
  }
  return 0;
}

static int check_eq(const tcase *k, const char *what, int64_t got,
                    int64_t want) {
  g_checks++;
  if (got == want) return 0;
  return failf(k, what, "%" PRId64 ", want %" PRId64, got, want);
}

static lay_ctx *g_ctx;

static lay_plan *plan(const tcase *k, const char *what, lay_dtype t,
                      lay_dir dir) {
  lay_plan *p = NULL;
  lay_error err;
  g_checks++;
  if (lay_plan_create(g_ctx, k->format, k->s, k->rank, t, dir, &p, &err)) {
    char buf[1024];
    lay_error_format(&err, buf, sizeof buf);
    failf(k, what, "plan: %s", buf);
    return NULL;
  }
  return p;
}

static int run_on(const tcase *k, const char *what, const lay_plan *p,
                  const void *src, size_t sn, void *dst, size_t dn,
                  int threads) {
  lay_error err;
  g_checks++;
  if (lay_plan_run(p, src, sn, dst, dn, threads, &err))
    return failf(k, what, "run: %s", err.message);
  return 0;
}

static int run(const tcase *k, const char *what, const lay_plan *p,
               const void *src, size_t sn, void *dst, size_t dn) {
  return run_on(k, what, p, src, sn, dst, dn, 1);
}

/* The format string of f on shape s (per-channel formats get one scale
** and radix per channel). */
static const char *format_of(const fmt *f, const int64_t *s) {
  static char buf[2048];
  if (!f->per_channel) return f->name;
  size_t n = (size_t)snprintf(buf, sizeof buf, "%s(scale=[", f->name);
  for (int64_t c = 0; c < s[1]; c++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%g", c ? "," : "",
                          QC_SCALE[c % 5]);
  n += (size_t)snprintf(buf + n, sizeof buf - n, "], radix=[");
  for (int64_t c = 0; c < s[1]; c++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%d", c ? "," : "",
                          QC_RADIX[c % 5]);
  snprintf(buf + n, sizeof buf - n, "])");
  return buf;
}

/* where and at against the reference, for every element and every byte. */
static void check_where_at(const tcase *k, const fmt *f, const lay_plan *p,
                           const int64_t *owner, size_t bytes) {
  size_t hes = lay_dtype_size(hw_type(f, k->t));
  int64_t x[8], y[8], slots, off[2];
  for (int64_t i = 0; i < numel(k->s, k->rank); i++) {
    uint64_t o = 0;
    lay_error err;
    unravel(i, k->s, k->rank, x);
    slot_offsets(f, ref_slot(f, k->s, k->rank, x, &slots), hes, off);
    g_checks++;
    if (lay_plan_where(p, x, k->rank, &o, &err) || (int64_t)o != off[0]) {
      failf(k, "where", "%s gives %" PRIu64 " (%s), want %" PRId64,
            coord_str(x, k->rank), o, err.message, off[0]);
      return;
    }
  }
  for (size_t b = 0; b < bytes; b++) {
    int is_pad, plane;
    lay_error err;
    g_checks++;
    if (lay_plan_at(p, b, y, k->rank, &is_pad, &plane, &err)) {
      failf(k, "at", "byte %zu: %s", b, err.message);
      return;
    }
    int bad = (owner[b] < 0) != (is_pad != 0);
    if (owner[b] >= 0) {
      unravel(owner[b], k->s, k->rank, x);
      bad |= memcmp(x, y, sizeof *x * (size_t)k->rank) != 0;
      if (f->hl) bad |= plane != (int)(f->hl == 2 ? b % 2 : b / 16 % 2);
    }
    if (bad) {
      failf(k, "at", "byte %zu gives %s%s plane %d, want %s", b,
            is_pad ? "pad " : "", coord_str(y, k->rank), plane,
            owner[b] < 0 ? "pad" : coord_str(x, k->rank));
      return;
    }
  }
}

/* Every check of one format on one shape and CPU type t. */
static void check_case(const fmt *f, const int64_t *s, int rank, lay_dtype t,
                       int with_where) {
  lay_dtype ct = cpu_type(f, t);
  tcase k = {format_of(f, s), s, rank, ct};
  g_cases++;
  g_es = (int64_t)lay_dtype_size(ct);
  int64_t n = numel(s, rank);
  size_t cbytes = (size_t)n * lay_dtype_size(ct);
  size_t hbytes = (size_t)ref_bytes(f, s, rank, t);
  uint8_t *cpu = xmalloc(cbytes), *back = xmalloc(cbytes);
  uint8_t *want_back = xmalloc(cbytes);
  uint8_t *hw = xmalloc(hbytes), *want = xmalloc(hbytes);
  int64_t *owner = xmalloc(hbytes * sizeof *owner);
  lay_plan *pk = plan(&k, "pack", ct, LAY_PACK);
  lay_plan *up = plan(&k, "unpack", ct, LAY_UNPACK);
  if (!pk || !up) goto done;

  check_eq(&k, "pack dst_bytes", (int64_t)lay_plan_dst_bytes(pk),
           (int64_t)hbytes);
  check_eq(&k, "pack src_bytes", (int64_t)lay_plan_src_bytes(pk),
           (int64_t)cbytes);
  check_eq(&k, "unpack src_bytes", (int64_t)lay_plan_src_bytes(up),
           (int64_t)hbytes);
  check_eq(&k, "unpack dst_bytes", (int64_t)lay_plan_dst_bytes(up),
           (int64_t)cbytes);
  check_eq(&k, "pack src_dtype", lay_plan_src_dtype(pk), ct);
  check_eq(&k, "unpack dst_dtype", lay_plan_dst_dtype(up), ct);
  if (lay_plan_dst_bytes(pk) != hbytes || lay_plan_src_bytes(up) != hbytes)
    goto done;

  /* pack: every byte, pads included, equals the reference */
  make_input(f, t, cpu, n);
  ref_pack(f, s, rank, t, cpu, want, owner);
  memset(hw, 0x5a, hbytes);
  if (!run(&k, "pack", pk, cpu, cbytes, hw, hbytes))
    check_hw(&k, "pack", hw, want, owner, hbytes);

  /* unpack of the reference buffer gives the input back (through the
  ** value rule), also when the pads hold garbage */
  ref_unpack(f, s, rank, t, want, want_back);
  if (f->val == V_COPY && !f->hl)
    check_cpu(&k, "reference round trip", want_back, cpu, cbytes);
  memset(back, 0x5a, cbytes);
  if (!run(&k, "unpack", up, want, hbytes, back, cbytes))
    check_cpu(&k, "unpack", back, want_back, cbytes);
  for (size_t b = 0; b < hbytes; b++)
    if (owner[b] < 0) want[b] = (uint8_t)(0xa5 ^ b);
  memset(back, 0x5a, cbytes);
  if (!run(&k, "unpack (garbage pads)", up, want, hbytes, back, cbytes))
    check_cpu(&k, "unpack (garbage pads)", back, want_back, cbytes);

  if (with_where) check_where_at(&k, f, pk, owner, hbytes);

done:
  lay_plan_free(pk);
  lay_plan_free(up);
  free(cpu);
  free(back);
  free(want_back);
  free(hw);
  free(want);
  free(owner);
}

/* LAY_DT_NONE takes the spec's own type (int8 when it has none); a type
** that contradicts the spec's (value rules: fp32; HL: int16) fails. */
static void check_types(const fmt *f, const int64_t *s, int rank) {
  lay_plan *p = NULL;
  tcase k = {format_of(f, s), s, rank, cpu_type(f, LAY_DT_INT8)};
  lay_status st = lay_plan_create(g_ctx, k.format, s, rank, LAY_DT_NONE,
                                  LAY_PACK, &p, NULL);
  check_eq(&k, "dtype none: status", st, LAY_OK);
  if (!st) check_eq(&k, "dtype none: CPU type", lay_plan_src_dtype(p), k.t);
  lay_plan_free(p);
  p = NULL;
  if (f->val == V_COPY && !f->hl && !f->own) return;
  k.t = f->val != V_COPY || f->own ? LAY_DT_INT16 : LAY_DT_INT8;
  if (k.t == f->own) k.t = LAY_DT_INT8; /* an int16 format conflicts too */
  st = lay_plan_create(g_ctx, k.format, s, rank, k.t, LAY_PACK, &p, NULL);
  check_eq(&k, "conflicting dtype: status", st, LAY_E_TYPE);
  lay_plan_free(p);
}

/* ---- Shapes and types --------------------------------------------------- */

/* Per rank: dimensions that are multiples of no block, batch > 1, fewer
** channels than one block (RGB), a unit tensor, and (rank 4) one shape
** that is a multiple of every block. A row of zeros ends a list. */
#define NSHAPES 8
static const int64_t SHAPES[6][NSHAPES][5] = {
    {{0}},
    {{37}, {1}, {4096}},
    {{5, 7}, {3, 37}, {17, 1}, {64, 32}},
    {{2, 5, 7}, {3, 9, 11}, {1, 17, 33}},
    {{2, 5, 3, 7},
     {3, 9, 11, 37},
     {1, 17, 6, 33},
     {1, 3, 4, 5},
     {2, 3, 5, 6},
     {1, 1, 1, 1},
     {2, 32, 16, 64}},
    {{2, 3, 1, 5, 7}, {1, 2, 3, 4, 5}, {3, 1, 4, 1, 5}},
};

static const lay_dtype TYPES[] = {LAY_DT_INT8,    LAY_DT_UINT8,  LAY_DT_INT16,
                                  LAY_DT_UINT16,  LAY_DT_FP16,   LAY_DT_BF16,
                                  LAY_DT_FP32,    LAY_DT_INT32,  LAY_DT_UINT32,
                                  LAY_DT_INT64,   LAY_DT_FP8E4M3,
                                  LAY_DT_FP8E5M2, LAY_DT_UINT64};

/* int4 and uint4 (lay.h: two elements per byte, the first in memory order
** in the low nibble; the CPU side likewise): slot s of the reference is
** nibble s % 2 of byte s / 2, pads and a last half byte hold 0. Pack of
** random nibbles equals the reference, unpack gives them back, and
** lay_plan_where_element / lay_plan_at_element name slots, lay_plan_where
** their bytes. */
static void nib_set(uint8_t *b, int64_t i, int v, int hi_first) {
  int high = (int)(i % 2) != hi_first;
  b[i / 2] = (uint8_t)(high ? (b[i / 2] & 0x0f) | v << 4
                            : (b[i / 2] & 0xf0) | (v & 0xf));
}

static void check_nibbles(const fmt *f, const int64_t *s, int rank,
                          lay_dtype t) {
  tcase k = {format_of(f, s), s, rank, t};
  g_cases++;
  int64_t n = numel(s, rank), x[8], slots;
  ref_slot(f, s, rank, x, &slots);
  size_t cbytes = (size_t)(n + 1) / 2, hbytes = (size_t)(slots + 1) / 2;
  uint8_t *cpu = xmalloc(cbytes), *back = xmalloc(cbytes);
  uint8_t *hw = xmalloc(hbytes), *want = xmalloc(hbytes);
  int64_t *owner = xmalloc((size_t)(slots + 1) * sizeof *owner);
  lay_plan *pk = plan(&k, "pack", t, LAY_PACK);
  lay_plan *up = plan(&k, "unpack", t, LAY_UNPACK);
  if (!pk || !up) goto done;
  check_eq(&k, "pack src_bytes", (int64_t)lay_plan_src_bytes(pk),
           (int64_t)cbytes);
  check_eq(&k, "pack dst_bytes", (int64_t)lay_plan_dst_bytes(pk),
           (int64_t)hbytes);
  check_eq(&k, "unpack src_bytes", (int64_t)lay_plan_src_bytes(up),
           (int64_t)hbytes);
  check_eq(&k, "layout elements", (int64_t)lay_plan_layout_elements(pk),
           slots);
  if (lay_plan_dst_bytes(pk) != hbytes || lay_plan_src_bytes(pk) != cbytes)
    goto done;
  memset(cpu, 0, cbytes);
  memset(want, 0, hbytes);
  for (int64_t j = 0; j <= slots; j++) owner[j] = -1;
  for (int64_t i = 0; i < n; i++) {
    int v = (int)(rnd() & 0xf);
    unravel(i, s, rank, x);
    int64_t sl = ref_slot(f, s, rank, x, &slots);
    nib_set(cpu, i, v, 0);
    nib_set(want, sl, v, f->nibhi);
    owner[sl] = i;
  }
  memset(hw, 0x5a, hbytes);
  if (!run(&k, "pack", pk, cpu, cbytes, hw, hbytes))
    check_cpu(&k, "pack", hw, want, hbytes);
  memset(back, 0x5a, cbytes);
  if (!run(&k, "unpack", up, want, hbytes, back, cbytes))
    check_cpu(&k, "unpack", back, cpu, cbytes);
  for (int64_t i = 0; i < n && n < 20000; i++) {
    uint64_t e = 0, o = 0;
    unravel(i, s, rank, x);
    int64_t sl = ref_slot(f, s, rank, x, &slots);
    g_checks++;
    if (lay_plan_where_element(pk, x, rank, &e, NULL) || (int64_t)e != sl ||
        lay_plan_where(pk, x, rank, &o, NULL) || (int64_t)o != sl / 2) {
      failf(&k, "where", "%s gives element %" PRIu64 ", byte %" PRIu64
            ", want %" PRId64 ", %" PRId64, coord_str(x, rank), e, o, sl,
            sl / 2);
      break;
    }
  }
  for (int64_t j = 0; j < slots && n < 20000; j++) {
    int64_t y[8];
    int is_pad = 0, plane = 0;
    g_checks++;
    if (lay_plan_at_element(pk, (uint64_t)j, y, rank, &is_pad, &plane,
                            NULL) ||
        (owner[j] < 0) != (is_pad != 0) ||
        (owner[j] >= 0 && (unravel(owner[j], s, rank, x),
                           memcmp(x, y, sizeof *x * (size_t)rank)))) {
      failf(&k, "at", "element %" PRId64 " gives %s%s", j,
            is_pad ? "pad " : "", coord_str(y, rank));
      break;
    }
  }
done:
  lay_plan_free(pk);
  lay_plan_free(up);
  free(cpu);
  free(back);
  free(hw);
  free(want);
  free(owner);
}

/* The element-size formats refuse types wider than 2 bytes, and
** kDLA_HWC4 a C other than 1, 3 or 4: LAY_E_SHAPE (a `require`). */
static int es_refused(const fmt *f, const int64_t *s, lay_dtype t) {
  if (f->kind != R_NC1HWC2_B && f->kind != R_DLA_LINEAR &&
      f->kind != R_DLA_HWC4)
    return 0;
  if (lay_dtype_size(t) <= 2 &&
      (f->kind != R_DLA_HWC4 || s[1] == 1 || s[1] == 3 || s[1] == 4))
    return 0;
  tcase k = {format_of(f, s), s, 4, t};
  lay_plan *p = NULL;
  g_cases++;
  check_eq(&k, "refused: status",
           lay_plan_create(g_ctx, k.format, s, 4, t, LAY_PACK, &p, NULL),
           LAY_E_SHAPE);
  lay_plan_free(p);
  return 1;
}

static void check_format(const fmt *f) {
  int rank = rank_of(f);
  int ntypes =
      f->val == V_COPY && !f->hl && !f->own ? (int)(sizeof TYPES / sizeof *TYPES)
                                            : 1;
  int own4 = f->own && lay_dtype_bits(f->own) == 4;
  /* under valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) a shape
  ** takes the first type and every fourth other, a different one for each
  ** shape; the plain and ASan+UBSan runs take them all */
  const int every = getenv("LAY_UNDER_VALGRIND") ? 4 : 1;
  for (int si = 0; si < NSHAPES && SHAPES[rank][si][0]; si++) {
    const int64_t *s = SHAPES[rank][si];
    if (own4) {
      check_nibbles(f, s, rank, f->own);
      check_types(f, s, rank);
      continue;
    }
    int refused = 0;
    for (int ti = 0; ti < ntypes; ti++) {
      if (ti > 0 && (ti + si) % every) continue;
      if (!(refused |= es_refused(f, s, TYPES[ti])))
        check_case(f, s, rank, TYPES[ti], ti == 0 && numel(s, rank) < 20000);
      else if (f->kind == R_DLA_HWC4 && s[1] != 1 && s[1] != 3 && s[1] != 4)
        break; /* every type is refused: one check is enough */
    }
    if (ntypes > 1 && !refused) {
      check_nibbles(f, s, rank, LAY_DT_INT4);
      check_nibbles(f, s, rank, LAY_DT_UINT4);
    }
    if (!refused || f->kind != R_DLA_HWC4 || s[1] == 1 || s[1] == 3 ||
        s[1] == 4)
      check_types(f, s, rank);
  }
}

/* ---- Convert ------------------------------------------------------------ */

static const fmt *find_fmt(const char *name) {
  for (int i = 0; i < NFMTS; i++)
    if (!strcmp(fmts[i].name, name)) return &fmts[i];
  fprintf(stderr, "test_stdlib: no reference for '%s'\n", name);
  exit(2);
}

/* perm[j] = the dimension of A that B's dimension j is (by name). */
static int dim_perm(const fmt *a, const fmt *b, int *perm) {
  char an[8][16], bn[8][16];
  int ra = 0, rb = 0;
  for (const char *p = a->dims; ra < 8; ra++) {
    size_t l = strcspn(p, ",");
    snprintf(an[ra], 16, "%.*s", (int)l, p);
    if (!p[l]) {
      ra++;
      break;
    }
    p += l + 1;
  }
  for (const char *p = b->dims; rb < 8; rb++) {
    size_t l = strcspn(p, ",");
    snprintf(bn[rb], 16, "%.*s", (int)l, p);
    if (!p[l]) {
      rb++;
      break;
    }
    p += l + 1;
  }
  if (ra != rb) return -1;
  for (int j = 0; j < rb; j++) {
    perm[j] = -1;
    for (int i = 0; i < ra; i++)
      if (!strcmp(bn[j], an[i])) perm[j] = i;
    if (perm[j] < 0) return -1;
  }
  return 0;
}

/* Transpose a CPU tensor of shape sa (A's order) into B's order. */
static void transpose(const uint8_t *in, const int64_t *sa, int rank,
                      const int *perm, size_t es, uint8_t *out) {
  int64_t sb[8] = {0}, y[8], x[8];
  for (int j = 0; j < rank; j++) sb[j] = sa[perm[j]];
  for (int64_t i = 0; i < numel(sb, rank); i++) {
    unravel(i, sb, rank, y);
    for (int j = 0; j < rank; j++) x[perm[j]] = y[j];
    int64_t ia = 0;
    for (int d = 0; d < rank; d++) ia = ia * sa[d] + x[d];
    memcpy(out + i * (int64_t)es, in + ia * (int64_t)es, es);
  }
}

typedef struct conv_case {
  const char *from, *to;
  int64_t shape[4]; /* in `from`'s CPU-side order */
  lay_dtype t;      /* CPU-side type (value formats: fp32) */
} conv_case;

static const conv_case CONVS[] = {
    /* channel blocks that do not nest */
    {"amd.hcwnc(3)", "amd.hcwnc4", {2, 7, 3, 5}, LAY_DT_INT8},
    {"amd.hcwnc4", "amd.hcwnc(3)", {3, 10, 4, 9}, LAY_DT_FP16},
    {"kneron.4w4c8b", "amd.hcwnc8", {2, 11, 5, 7}, LAY_DT_INT8},
    {"amd.hcwnc8", "kneron.4w4c8b", {1, 17, 6, 33}, LAY_DT_INT32},
    {"amd.hcwnc(x=5)", "kneron.1w16c8b", {2, 23, 3, 5}, LAY_DT_UINT16},
    /* a transpose by dimension names */
    {"core.nhwc", "amd.hcwnc4", {2, 5, 7, 3}, LAY_DT_UINT8},
    {"core.nhwc", "amd.hcwnc4", {1, 9, 37, 3}, LAY_DT_FP32},
    {"amd.hcwnc16", "core.nhwc", {2, 19, 3, 5}, LAY_DT_INT16},
    {"core.nchw", "ti.tidl(1,1,1,1)", {2, 3, 5, 7}, LAY_DT_INT8},
    {"ti.tidl(0,1,2,0,2)", "kneron.16w1c8b", {2, 3, 5, 17}, LAY_DT_INT16},
    {"ti.tidl(1,2,1,0,1,1200)", "amd.hcwnc8", {1, 9, 11, 13}, LAY_DT_BF16},
    {"kneron.1w16c8b",
     "ti.tidl(pad_ch=1, ch_pitch=1100)",
     {2, 17, 3, 9},
     LAY_DT_INT8},
    {"kneron.1w16c8b", "kneron.1w16c8b_batch_outside", {3, 17, 2, 5},
     LAY_DT_INT8},
    {"qnn.crouton", "qnn.d32", {2, 9, 11, 37}, LAY_DT_INT8},
    {"qnn.crouton2x2", "qnn.crouton4x1", {1, 13, 6, 33}, LAY_DT_FP16},
    {"qnn.nchw", "qnn.crouton2", {2, 5, 9, 7}, LAY_DT_FP32},
    {"qnn.flat", "qnn.crouton", {1, 3, 5, 30}, LAY_DT_UINT8},
    {"core.ab", "amd.ab", {5, 37}, LAY_DT_INT8},
    /* high/low byte formats (bit 0 is lost on the way) */
    {"kneron.1w16c8bhl", "kneron.4w4c8bhl", {2, 17, 3, 9}, LAY_DT_INT16},
    {"kneron.16w1c8bhl", "amd.hcwnc8", {1, 5, 3, 19}, LAY_DT_INT16},
    {"core.nchw", "kneron.4w4c8bhl", {2, 7, 3, 6}, LAY_DT_INT16},
    /* value rules: dequantize A, quantize B */
    {"amd.hcwnc_q(8, 0.25, 3)", "ti.tidl_q8(4)", {2, 5, 3, 7}, LAY_DT_FP32},
    {"kneron.1w16c8b_q(0.5, 3)",
     "amd.hcwnc_q(x=4, scale=0.5, zero_point=-5)",
     {1, 17, 6, 5},
     LAY_DT_FP32},
    /* random fp32 bytes, NaNs among them: the truncating bf16 keeps the
    ** top 16 bits (0x7fd4854a -> 0x7fd4) */
    {"core.nchw", "amd.hcwnc_bf16(8)", {2, 9, 3, 5}, LAY_DT_FP32},
    /* (new cases go last: the random inputs of the ones above stay) */
    {"kneron.1w16c8b_ch_compact", "kneron.kl520_16w1c8b", {2, 19, 3, 5},
     LAY_DT_INT8},
    /* the other vendors' namespaces */
    {"onednn.nChw16c", "trt.chw16", {2, 19, 3, 5}, LAY_DT_INT8},
    {"ethosu.nhcwb16", "core.nhwc", {2, 3, 5, 19}, LAY_DT_FP16},
    {"rknn.nc1hwc2(16)", "amd.hcwnc8", {1, 19, 3, 5}, LAY_DT_INT8},
    {"trt.hwc8", "ethosu.nhcwb16", {2, 11, 3, 5}, LAY_DT_INT16},
    {"onednn.OIhw4i16o4i", "onednn.OIhw16i16o", {18, 21, 2, 3}, LAY_DT_UINT8},
    {"xla.tiled(2, 2)", "mlir.pack_kc(2, 3)", {5, 7}, LAY_DT_FP32},
    /* blocks copied whole, the source's pads with them, where both sides
    ** pad (spilled boxes): odd extents in every blocked dimension */
    {"qnn.crouton", "qnn.crouton2x2", {1, 29, 23, 37}, LAY_DT_INT8},
    {"qnn.crouton2x2", "qnn.crouton", {2, 13, 7, 70}, LAY_DT_FP16},
    {"amd.hcwnc4", "amd.hcwnc8", {2, 37, 29, 23}, LAY_DT_INT8},
    {"kneron.1w16c8b", "amd.hcwnc16", {1, 37, 9, 23}, LAY_DT_INT16},
    {"onednn.nChw16c", "onednn.nChw8c", {2, 37, 5, 3}, LAY_DT_FP32},
};

static void check_convert(const conv_case *cc) {
  const fmt *a = find_fmt(cc->from), *b = find_fmt(cc->to);
  g_cases++;
  int perm[8], rank = rank_of(a);
  char name[512];
  snprintf(name, sizeof name, "%s -> %s", cc->from, cc->to);
  tcase k = {name, cc->shape, rank, cc->t};
  if (dim_perm(a, b, perm)) {
    failf(&k, "convert", "the dimension names do not match");
    return;
  }
  int64_t sb[8] = {0};
  for (int j = 0; j < rank; j++) sb[j] = cc->shape[perm[j]];
  /* a format's CPU type for `t` (value formats are fp32 anyway) */
  lay_dtype t = cc->t;
  size_t es = lay_dtype_size(t);
  int64_t n = numel(cc->shape, rank);
  size_t abytes = (size_t)ref_bytes(a, cc->shape, rank, t);
  size_t bbytes = (size_t)ref_bytes(b, sb, rank, t);
  uint8_t *x = xmalloc((size_t)n * es), *xa = xmalloc((size_t)n * es);
  uint8_t *xb = xmalloc((size_t)n * es);
  uint8_t *src = xmalloc(abytes), *want = xmalloc(bbytes);
  uint8_t *got = xmalloc(bbytes), *got2 = xmalloc(bbytes);
  int64_t *owner = xmalloc(bbytes * sizeof *owner);
  lay_plan *cv = NULL, *ua = NULL, *pb = NULL;
  lay_error err;

  /* The reference: unpack A, transpose by names, pack B. */
  make_input(a, t, x, n);
  ref_pack(a, cc->shape, rank, t, x, src, NULL);
  ref_unpack(a, cc->shape, rank, t, src, xa);
  transpose(xa, cc->shape, rank, perm, es, xb);
  tcase kb = {name, sb, rank, t};
  ref_pack(b, sb, rank, t, xb, want, owner);

  g_checks++;
  lay_dtype pt = t;
  if (lay_plan_convert(g_ctx, cc->from, cc->to, cc->shape, rank, pt, &cv,
                       &err)) {
    failf(&k, "convert", "plan: %s", err.message);
    goto done;
  }
  check_eq(&k, "convert src_bytes", (int64_t)lay_plan_src_bytes(cv),
           (int64_t)abytes);
  check_eq(&k, "convert dst_bytes", (int64_t)lay_plan_dst_bytes(cv),
           (int64_t)bbytes);
  if (lay_plan_src_bytes(cv) != abytes || lay_plan_dst_bytes(cv) != bbytes)
    goto done;
  memset(got, 0x5a, bbytes);
  if (!run(&k, "convert", cv, src, abytes, got, bbytes))
    check_hw(&kb, "convert", got, want, owner, bbytes);
  /* the same with garbage in A's pads: B's pads still hold B's pad (a
  ** plan may copy whole blocks, A's pads with them, and fill B's after) */
  {
    uint8_t *srcg = xmalloc(abytes);
    int64_t *aown = xmalloc(abytes * sizeof *aown);
    ref_pack(a, cc->shape, rank, t, x, srcg, aown);
    for (size_t b = 0; b < abytes; b++)
      if (aown[b] < 0) srcg[b] = (uint8_t)(0xa5 ^ b);
    memset(got2, 0x5a, bbytes);
    if (!run(&k, "convert (garbage pads)", cv, srcg, abytes, got2, bbytes))
      check_hw(&kb, "convert (garbage pads)", got2, want, owner, bbytes);
    /* and on 4 threads (CTest's api_stdlib_convert_split cuts these
    ** small plans into chunks: LAY_SPLIT_MIN=1) */
    memset(got2, 0x5a, bbytes);
    if (!run_on(&k, "convert (garbage pads, 4 threads)", cv, srcg, abytes,
                got2, bbytes, 4))
      check_hw(&kb, "convert (garbage pads, 4 threads)", got2, want, owner,
               bbytes);
    free(srcg);
    free(aown);
  }

  /* lay's own unpack A then pack B gives the same bytes */
  tcase ka = {cc->from, cc->shape, rank, t}, kb2 = {cc->to, sb, rank, t};
  ua = plan(&ka, "unpack", pt, LAY_UNPACK);
  pb = plan(&kb2, "pack", pt, LAY_PACK);
  if (!ua || !pb) goto done;
  memset(xa, 0x5a, (size_t)n * es);
  if (run(&ka, "unpack", ua, src, abytes, xa, (size_t)n * es)) goto done;
  transpose(xa, cc->shape, rank, perm, es, xb);
  memset(got2, 0x5a, bbytes);
  if (!run(&kb2, "pack", pb, xb, (size_t)n * es, got2, bbytes))
    check_hw(&kb, "convert vs unpack+pack", got, got2, owner, bbytes);

done:
  lay_plan_free(cv);
  lay_plan_free(ua);
  lay_plan_free(pb);
  free(x);
  free(xa);
  free(xb);
  free(src);
  free(want);
  free(got);
  free(got2);
  free(owner);
}

/* ---- Coverage of the stdlib's names ------------------------------------- */

static void check_names(void) {
  size_t n = lay_ctx_count(g_ctx);
  tcase k = {"stdlib", NULL, 0, LAY_DT_NONE};
  check_eq(&k, "names: count > 40", n > 40, 1);
  for (size_t i = 0; i < n; i++) {
    const char *nm = lay_ctx_name(g_ctx, i);
    int found = 0;
    for (int j = 0; j < NFMTS && !found; j++) {
      size_t l = strcspn(fmts[j].name, "(");
      found = strlen(nm) == l && !strncmp(nm, fmts[j].name, l);
    }
    g_checks++;
    if (!found) {
      g_failures++;
      fprintf(stderr, "FAIL names: stdlib format '%s' has no reference here\n",
              nm);
    }
  }
}

int main(int argc, char **argv) {
  lay_error err;
  const char *group = argc > 1 ? argv[1] : "";
  if (lay_ctx_new(&g_ctx, &err)) {
    fprintf(stderr, "test_stdlib: %s\n", err.message);
    return 1;
  }
  int known = 0, formats = 0;
  if (!strcmp(group, "names")) {
    check_names();
    known = 1;
  } else if (!strcmp(group, "convert")) {
    for (size_t i = 0; i < sizeof CONVS / sizeof *CONVS; i++)
      check_convert(&CONVS[i]);
    formats = (int)(sizeof CONVS / sizeof *CONVS);
    known = 1;
  } else {
    for (int i = 0; i < NFMTS; i++)
      if (!strcmp(fmts[i].group, group)) {
        check_format(&fmts[i]);
        formats++;
        known = 1;
      }
  }
  lay_ctx_free(g_ctx);
  if (!known) {
    fprintf(stderr,
            "usage: test_stdlib amd|core|qnn|kneron|ti|onednn|trt|ethosu|"
            "rknn|xla|mlir|convert|names\n");
    return 2;
  }
  printf("test_stdlib %s: %d formats or pairs, %ld cases (format, shape, "
         "type), %ld checks, %ld failures\n",
         group, formats, g_cases, g_checks, g_failures);
  return g_failures ? 1 : 0;
}
