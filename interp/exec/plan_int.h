/*
** plan_int.h: the internal structure of a plan, shared by the planner
** (interp/plan/), the executor (exec.c, conv.c, kern_*.c) and the value
** conversions (value.c).
**
** A plan moves elements from a source side to a destination side. A side
** is a concrete layout: the CPU side (row-major, one digit per dimension)
** or an evaluated IR. The plan itself is a list of boxes: each box is an
** affine loop nest (extent, source stride, destination stride per loop,
** in elements) whose innermost loop is run by a kernel chosen at plan
** time. Fill boxes write a constant element (padding) instead of reading.
*/
#ifndef LI_PLAN_INT_H
#define LI_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "ir.h"
#include "kernels.h"
#include "lay.h"

typedef struct li_plan li_plan;

/* Fill err (may be NULL) through lang's lg_error_plain and give the code
** back: `return li_fail(err, LAY_E_ARG, "no plan");` */
#define li_fail(err, code, ...) \
  (lg_error_plain((err), (code), NULL, __VA_ARGS__), (code))

/* ---- Value rules ---------------------------------------------------------- */
typedef enum li_vkind {
  LI_VR_ID,     /* hw == cpu, bytes copied */
  LI_VR_CAST,   /* plain conversion */
  LI_VR_QUANT,  /* encode quantizes, decode dequantizes */
  LI_VR_DEQUANT,/* encode dequantizes, decode quantizes */
  LI_VR_CHAIN   /* steps applied in order (decode: reversed), see step */
} li_vkind;

typedef struct li_vrule {
  li_vkind kind;          /* the rule */
  lay_dtype cpu, hw;      /* element types (hw = uint8 for planes) */
  int round;              /* lg_round */
  int arith;              /* lg_arith: LG_A_F32 evaluates in float32 */
  int saturate;           /* clamp to the target type's range */
  int axis;               /* per-channel dimension, -1 per tensor */
  int nch;                /* entries of the arrays below */
  double *num, *den, *zp, *xoff; /* malloc'd with the plan */
  int nplanes;            /* 0 or the number of byte planes */
  int shift[LG_MAX_PLANES];
  uint32_t mask[LG_MAX_PLANES];
  double pad;             /* pad value, in the hw type */
  int pad_int;            /* lg_ir_value's: pad_bits is the exact integer */
  uint64_t pad_bits;      /* (int64 or uint64 pads store it, see box.c) */
  int nstep;              /* LI_VR_CHAIN: the steps (CAST, QUANT, DEQUANT),
                             each with its own cpu and hw; they and their
                             arrays live in the block `num` points to
                             (freed with it); axis and nch are those of
                             the per-channel steps (one axis) */
  struct li_vrule *step;
  int64_t nfix;           /* a transform's pads of other values than pad
                             (lg_ir fix): runs of hw elements */
  int64_t *fix;           /* malloc'd: 3 * nfix entries (offset, length,
                             value k), then the stored bytes of each value
                             k, LI_FIX_EL bytes each */
  int simd;               /* LI_SIMD_* the conversions may use */
  int qk_set;             /* li_vrule_prep: qk is li_quant_k's answer,
                             dq the vector dequantization's constants */
  float qk;               /* (0 here: computed on each run) */
  struct {
    int ok, div, zx;      /* ok: the vector paths take the rule */
    float zp, k;
  } dq;
} li_vrule;

#define LI_FIX_EL 8 /* bytes kept for one stored pad value (fix) */

/* value.c */
size_t li_dt_size(lay_dtype t);
const char *li_dt_name(lay_dtype t);
int li_dt_is_float(lay_dtype t);
double li_ld(lay_dtype t, const void *p);               /* one element */
void li_st(lay_dtype t, void *p, double v, int round, int saturate);
uint16_t li_f32_to_f16(float f);
uint16_t li_f32_to_bf16(float f);
float li_f16_to_f32(uint16_t h);
float li_bf16_to_f32(uint16_t h);
/* Convert n contiguous elements src (type rule->hw for decode, rule->cpu
** for encode) into dst; ch[i] is the channel of element i (per-channel
** rules; NULL otherwise). */
void li_encode(const li_vrule *r, const void *src, void *dst, int64_t n,
               const int32_t *ch);
/* 1: r quantizes fp32 per tensor with a power-of-two scale, xoff 0, an
** integral zero point, saturating, nearest-even or truncating, to int8,
** uint8 or int16: then x * (num/den) in fp32, the SIMD conversion (the
** MXCSR's nearest-even, or truncation), + zp, a saturating pack and NaN
** -> 0 give li_encode's bytes exactly. */
int li_quant_fast(const li_vrule *r);
/* The factor k of the same vector quantization for every rule it computes
** exactly: li_quant_fast's, and fp32 -> int8/uint8/int16/uint16 with
** arith f32 / f32_div, any finite k = f32(num) / f32(den) != 0, any finite
** xoff (x - f32(xoff), then * k, in float32); 0 for other rules. */
float li_quant_k(const li_vrule *r);
/* The runs' gather and li_encode in one pass, for a rule li_quant_k
** computes, on AVX-512: nr runs of len fp32 elements, run q at s + so[q]
** bytes, quantized into d + dof[q] bytes, or back to back into d where
** dof is NULL (li_encode's bytes). 0, nothing written, for other rules
** and CPUs. */
int li_quant_rows(const li_vrule *r, const uint8_t *s, const int64_t *so,
                  int64_t nr, int64_t len, uint8_t *d, const int64_t *dof);
/* The same into a pair of byte planes (Kneron's HL formats): run q's len
** results (16-bit bits u) stored as plane 0's bytes (u >> sh[0]) & mk[0]
** at d + dof[q] and plane 1's ps bytes on (sh in [0, 16)), each followed
** by post pad bytes pad[0], pad[1] (len + post <= 16); split in registers.
** 0, nothing written, where li_quant_rows declines r or the type is not
** 16-bit. */
int li_quant_pairs(const li_vrule *r, const uint8_t *s, const int64_t *so,
                   int64_t ps, const int sh[2], const uint32_t mk[2],
                   const uint8_t pad[2], int64_t post, uint8_t *d,
                   const int64_t *dof, int64_t nr, int64_t len);
/* Its inverse for a rule li_decode dequantizes to fp32 on AVX-512: nr
** runs of len elements, run q at s + so[q] bytes (so NULL: back to back
** from s), dequantized to d + dof[q] bytes (li_decode's bytes). 0,
** nothing written, else. */
int li_dequant_rows(const li_vrule *r, const uint8_t *s, const int64_t *so,
                    uint8_t *d, const int64_t *dof, int64_t nr, int64_t len);
/* The same from 16-bit bits stored as a pair of byte planes (Kneron's
** HL formats): run q's len <= 16 elements are plane 0's bytes at s +
** so[q] and plane 1's ps bytes on, the bits (p0 & mk[0]) << sh[0] |
** (p1 & mk[1]) << sh[1] (sh in [0, 16)); combined in registers, never
** stored. 0, nothing written, where li_dequant_rows declines r. */
int li_dequant_pairs(const li_vrule *r, const uint8_t *s, const int64_t *so,
                     int64_t ps, const int sh[2], const uint32_t mk[2],
                     uint8_t *d, const int64_t *dof, int64_t nr, int64_t len);
/* The choices li_encode / li_decode make on every run made once (after
** the rule is complete and its simd set; a copy with other constants
** clears qk_set). */
void li_vrule_prep(li_vrule *r);
void li_decode(const li_vrule *r, const void *src, void *dst, int64_t n,
               const int32_t *ch);
/* *v = r's rule for the elements of channel c alone (per tensor: r
** itself); 0 when r is a chain of per-channel steps (no such view). */
int li_vrule_channel(const li_vrule *r, int32_t c, li_vrule *v);
/* After a run that wrote plan p's destination dst whole: the pads whose
** stored value is not the side's one (li_vrule fix). */
void li_fix_pads(const li_plan *p, void *dst);

/* ---- Gather tables (gather.c) ------------------------------------------ */
/* Hardware element e = t * period + r (tile t, offset r) holds CPU element
** cpu(r) + t * shift, or is pad (-1). The tile is stored as runs (start[j]
** .. start[j+1], CPU elements consecutive from cpu[j]) when nrun > 0, else
** entry by entry (cpu[r]). */
typedef struct li_gather {
  int64_t n;        /* hardware elements */
  int64_t period;   /* tile length; n % period == 0 */
  int64_t shift;    /* CPU element shift from one tile to the next */
  int64_t nrun;     /* runs of the tile, 0: one entry per element */
  int64_t *cpu;     /* nrun (or period) entries; malloc'd, with start */
  int64_t *start;   /* nrun + 1 run starts, start[nrun] = period */
  int full;         /* every CPU element is held exactly once */
} li_gather;

/* Compress table t of n entries over ncpu CPU elements into g. */
lay_status li_gather_build(const int64_t *t, int64_t n, int64_t ncpu,
                           li_gather *g);
void li_gather_free(li_gather *g);
size_t li_gather_bytes(const li_gather *g);
/* The CPU element of hardware element e (-1: pad) and in *len how many
** elements from e on continue the run (consecutive, or all pad). */
int64_t li_gather_run(const li_gather *g, int64_t e, int64_t *len);
/* The hardware element holding CPU element c, -1 when none does. */
int64_t li_gather_find(const li_gather *g, int64_t c);

/* ---- Sides ------------------------------------------------------------ */
typedef struct li_sdim {
  int64_t size;   /* CPU-side size */
  int64_t lo, hi; /* window */
  int64_t before; /* pad before the window */
  int64_t ext;    /* padded extent of the digit space */
  int64_t off;    /* padded coordinate p = x + off */
  int nd;         /* digits of this dim, ascending div */
  int dig[LG_MAX_AXES]; /* axis indices */
} li_sdim;

typedef struct li_sax {
  int kind;       /* lg_axis_kind */
  int dim;        /* DIGIT: dimension */
  int64_t div, mod, ext, stride; /* stride in hw elements */
  const char *label; /* into the plan's string pool */
} li_sax;

typedef struct li_side {
  int rank;
  li_sdim dim[LG_MAX_RANK];
  int naxes;
  li_sax ax[LG_MAX_AXES];
  int plane_ax;          /* the PLANE axis, -1 */
  int64_t pstride;       /* its stride (0 without planes) */
  int64_t nelem;         /* buffer size in hw elements */
  size_t esz;            /* hw element size */
  li_vrule v;            /* value rule */
  li_gather *table;      /* gather table (naxes == 0), malloc'd */
  int is_cpu;            /* the plain CPU side */
  struct li_side *grid;  /* a table side made from interleaved strides
                            (plan.c tangled_table): the side as its axes
                            describe it, for `at`; malloc'd, else NULL */
} li_side;

/* ---- Boxes ------------------------------------------------------------- */
typedef struct li_loop {
  int64_t ext;     /* iterations */
  int64_t ss, ds;  /* source / destination stride, elements */
  int64_t cs;      /* channel stride (per-channel value rules) */
  int64_t tab;     /* 0, or a table loop: iteration i moves by the offsets
                      plan->tabs[tab - 1 + 2i] (source) and [tab + 2i]
                      (destination), relative to iteration 0; ss = ds = 0 */
} li_loop;

/* The kernels (kernels.h): LI_K_MEMCPY, LI_K_COPY, ... */
typedef enum li_kern {
#define X(id, name, loops, what) LI_K_##id,
  LI_KERNELS(X)
#undef X
  LI_K_COUNT
} li_kern;
const char *li_kern_name(li_kern k); /* "memcpy", ...; exec.c */
int li_kern_loops(li_kern k);        /* the loops it takes at most */

typedef struct li_box {
  int fill;          /* 1: write the constant `pat` instead of reading */
  int nl;            /* loops, outermost first */
  int l0;            /* index of the first loop in plan->loops */
  int64_t sb, db, cb;/* base offsets (elements) and channel */
  li_kern kern;      /* innermost kernel */
  int bk;            /* kernel parameter: block size / row bytes / width */
  int pat;           /* fill: index of the pattern in plan->pats (a
                        PLANES box with bk: its pad rows' pattern) */
  int raw;           /* fill: a hole, raw hw elements even with planes */
  int64_t pre, post; /* data: pad elements written before / after every
                        innermost row (fused row padding, dst stride 1) */
  int stage;         /* data: 0, or 1 + the index of its li_stage */
  int prow;          /* ILV: blocks of the pad written after every row of
                        blocks (a fill box it took: the fill is DONE) */
} li_box;

/* A staged box (box.c, exec.c): a data box cut at the blocks of a side
** with blocked digits, widened at the tensor's ragged edges to whole
** blocks, so that it has the loops of the interior boxes and their
** kernel. Its other side, X, is plain (one strided digit a dimension: the
** CPU side, NHWC); the box's strides on X are those of a dense row-major
** array P over the box's coordinates (X's memory order), in which the
** elements outside the tensor are pads. The loops [0, k) walk P; at each
** of their steps the kernel runs loops [k, nl) on P's span elements from
** the step's offset, in a stack slab: filled from X first, the pad
** element where X has none (dst 0: X is the source), or written by the
** kernel and its elements inside the tensor copied to X after (dst 1). */
#define LI_STAGE_BYTES (16 << 10) /* the slab's bytes */
typedef struct li_stage {
  int dst;                    /* 1: X is the destination */
  int k;                      /* loops outside the slab */
  int nd;                     /* P's dimensions, outermost first */
  int64_t span;               /* elements of the slab, at most
                                 LI_STAGE_BYTES / element size */
  int64_t org;                /* X's element offset of P's origin (the
                                 elements outside the tensor are never
                                 addressed: it may be virtual) */
  int64_t ext[LG_MAX_RANK];   /* P's extents */
  int64_t v0[LG_MAX_RANK], v1[LG_MAX_RANK]; /* the coordinates of P inside
                                 the tensor: [v0, v1) */
  int64_t st[LG_MAX_RANK];    /* X's element stride of each */
} li_stage;

/* A gather tile (tr.c li_trg_run): the transposition of a box whose
** source runs along its innermost loop j (the kernel's one loop) and
** whose destination runs along a combination of other loops, taken out of
** the box into this table. Tile row i (of T = 16 / element size) starts
** at source offset row[i] (elements, from the step's base; -1: a pad row,
** the pad element); element i of a destination row goes to grp[i / g] +
** i % g (from the step's base plus the column times j's stride). */
typedef struct li_trg {
  int64_t row[16];   /* source offset of each tile row, -1: pad */
  int64_t grp[16];   /* destination offset of each group */
  int g;             /* elements per group: 1, 2, 4, 8 or 16 */
  int ng;            /* groups: ng * g == T */
  uint8_t pad[16];   /* the pad element, repeated */
} li_trg;

/* A macro tile (kernel MTILE, exec/mtile.c; planned by plan/mtile.c): the
** box's innermost digits as one register tile. Its elements are units of
** 2^lg bytes (1-16), moved as 16-byte chunks: chunk (lane l, register i)
** is loaded from the step's source base + in[l * NR + i] (NR = 2^k
** registers, 2^lanes lanes of a 16-, 32- or 64-byte register), rho rounds
** of the perfect shuffle at the unit's width (tr.c's network) rotate each
** lane's (register, position) index left by rho bits, and chunk (l, j) is
** stored at the step's destination base + out[l * NR + j]. Between memory
** and the network, swaps of a register bit with a lane bit (a chunk's
** code is its register index, then its lane bits above: swap (m, b)
** exchanges code bits m and k + b) make registers whose lanes lie 16
** bytes apart: a chunk the network holds at code c is loaded from the
** place of code lsw[nls-1](..lsw[0](c)) in the table and stored at
** ssw[nss-1](..ssw[0](c)); in and out list the chunks by their memory
** codes, whole registers (ldw, stw) where lanes lie 16 bytes apart (the
** swaps only with both whole, and only the lane exchange: (b, b) for each
** lane bit b; rows interleaved or split, 0 < k < 4 - lg, with more than
** one lane have SIMD kernels only when whole on both sides). The kernel
** repeats the tile over nl loops of its own (l[0] innermost) inside the
** box's innermost loop. A loop's last iteration may sit less than a step
** after the one before (sl, dl): a tile over a loop whose extent is not
** a multiple of the tile's steps back and rewrites a few elements with
** the same bytes rather than leave the rest to another kernel. */
#define LI_MT_CHUNKS 64 /* chunks of one tile: 16 registers x 4 lanes */
typedef struct li_mloop {
  int64_t n;          /* iterations (at least 1) */
  int64_t ss, ds;     /* bytes from one to the next */
  int64_t sl, dl;     /* bytes from the first to the last */
} li_mloop;
typedef struct li_mtile {
  int lg;             /* log2 of the unit's bytes (0-4) */
  int k;              /* log2 of the registers (0-4) */
  int rho;            /* rounds of the perfect shuffle */
  int lanes;          /* log2 of the 16-byte lanes of a register (0-2) */
  int ldw, stw;       /* lanes 16 bytes apart: whole-register loads, stores */
  int nls, nss;       /* swaps on load, on store (0-2) */
  int8_t lsw[2][2], ssw[2][2]; /* each: register bit m, lane bit b */
  int nl;             /* loops of the kernel's own (0-3) */
  li_mloop l[3];      /* l[0] innermost */
  int64_t in[LI_MT_CHUNKS], out[LI_MT_CHUNKS]; /* chunk offsets, bytes */
} li_mtile;

/* exec/mtile.c: tile t over its own loops, inside n0 steps of s0, d0 bytes
** (the box's innermost loop), from s to d; simd: LI_SIMD_* (the plan's:
** t's lanes fit it). li_mtile_ref: the same by the definition, element
** by element (the tests' reference and the portable path). */
void li_mtile_run(const li_mtile *t, int simd, const uint8_t *s, uint8_t *d,
                  int64_t n0, int64_t s0, int64_t d0);
void li_mtile_ref(const li_mtile *t, const uint8_t *s, uint8_t *d,
                  int64_t n0, int64_t s0, int64_t d0);
/* Bytes one step of the kernel moves each way (the tile over its own
** loops; a loop's steps back counted as new bytes). */
int64_t li_mtile_bytes(const li_mtile *t);

#define LI_PAT_MAX 16 /* bytes of one fill pattern (planes: one per plane) */

struct li_plan {
  lay_dir dir;         /* PACK, UNPACK, CONVERT */
  lay_dtype cpu_t;     /* CPU element type */
  li_side s, d;        /* source and destination */
  const li_side *lay;  /* the side where/at refer to */
  size_t sbytes, dbytes;
  int nbox;
  li_box *box;
  int nloops;
  li_loop *loops;
  int npat;
  uint8_t (*pats)[LI_PAT_MAX];
  int ntrg;            /* gather tiles (li_trg) of the TRG boxes */
  li_trg *trg;         /* box bk indexes it */
  int nmt;             /* macro tiles (li_mtile) of the MTILE boxes */
  li_mtile *mt;        /* box bk indexes it */
  int no_mtile;        /* building: li_choose_kernel takes no macro tile
                          (a staged box whose tile no slab holds) */
  int slow;            /* value path through tiles */
  int simd;            /* kernels' instruction sets: LI_SIMD_* */
  int dmap[LG_MAX_RANK]; /* d's dim for each of s's dims */
  char dname[LG_MAX_RANK][32]; /* s's dim names, for messages */
  int64_t *tabs;       /* offset pairs of the table loops: a dimension
                          whose digits on the two sides have no common
                          refinement (c%3 against c%4) gets one pair per
                          coordinate, its offsets on both sides */
  int64_t ntabs;       /* entries (2 per coordinate) */
  int spill;           /* 0, or the data boxes, box[0, spill), write some
                          of the destination's pads that later boxes fill
                          (box.c spill_boxes): they run first */
  int nstage;          /* staged boxes (li_box.stage) */
  li_stage *stage;
  char *pool;          /* labels */
  struct li_slabs *vs; /* the slabs of the VSLAB boxes (bk indexes), NULL */
};

/* ---- Value slabs (plan/vplan.c builds them, exec/vslab.c runs them) ----
** A box whose elements change value (one side's rule, no byte planes) is
** run as its data movement on hardware elements plus one pass over L1: a
** step of a VSLAB box (its loops: the box's outer loops) converts a slab
** of the CPU side's runs into an L1 buffer of hardware elements and moves
** the buffer into the destination with the data kernel the same box would
** have without the rule (packing), or moves the source into the buffer
** and converts its runs into the CPU side (unpacking). The data boxes of
** the buffers are those of a plan of their own (li_slabs.p: the same
** destination, or source, the buffer on the other side, no rule). */
#define LI_SLAB_BYTES 32768 /* a slab's buffer: hardware elements (16 KB: the
                               value cases' median 10% slower) */
#define LI_SLAB_X 8         /* loops over a slab's runs */
typedef struct li_slab {
  int pack;        /* 1: CPU side = source (convert, then move) */
  int box;         /* the buffer's data box, in li_slabs.p.box */
  int nx;          /* loops over the runs, outer first */
  li_loop x[LI_SLAB_X]; /* ext; ss: stride on the CPU side; ds: in the
                           buffer; cs: channel (elements) */
  int64_t run;     /* elements of a run, contiguous on both */
  int64_t elems;   /* elements of a slab */
} li_slab;
typedef struct li_slabs {
  li_plan p;       /* the buffers' data plan (its pats are the plan's) */
  int n;           /* slabs */
  li_slab *slab;
  /* while vplan.c makes them: the arrays' capacities (slab, p.box,
  ** p.loops, and the plan's own box and loops), grown twice at a time */
  int cap, bcap, lcap, pbcap, plcap;
} li_slabs;
/* vslab.c: the slab k of p's VSLAB box from the source offset sb, the
** destination offset db, channel cb (elements), then along the loop `in`
** (its ext steps). */
void li_slab_run(const li_plan *p, int k, const uint8_t *src, uint8_t *dst,
                 int64_t sb, int64_t db, int64_t cb, const li_loop *in);
void li_slabs_free(li_slabs *v); /* accepts NULL */

/* conv.c: whether v splits 16-bit element bits into 2 byte planes (the
** pair: Kneron's 'hl' formats), which conv.c's row paths and planes.c's
** AVX2 tiles move, pads included. */
int li_pair_planes(const li_vrule *v);

/* exec.c */
/* Instruction sets the executor may use, chosen at plan time: the best the
** CPU has, lowered by the environment variable LAY_SIMD (0 = portable C
** only, 1 = SSE2/SSSE3, 2 = AVX2 and FMA, 3 = AVX-512 F, BW, DQ and VL, all of which
** that level's kernels may use), which the tests use to run every
** fallback path. */
#define LI_SIMD_NONE 0
#define LI_SIMD_SSE 1
#define LI_SIMD_AVX2 2
#define LI_SIMD_AVX512 3
int li_simd_level(void);
/* Unroll the next loop whole (a kernel's register network: rolled, its
** vectors live on the stack; GCC's -O2 does not peel them on its own,
** and planes.c's pair tiles ran 3.5x slower there than at -O3). Not at
** GCC's -O0, which ignores the pragma with a warning (an error under
** -Werror: a Debug build failed). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__OPTIMIZE__)
#define LI_UNROLL _Pragma("GCC unroll 16")
#elif defined(__clang__)
#define LI_UNROLL _Pragma("unroll")
#else
#define LI_UNROLL
#endif
/* Store 16-byte lane K (a constant, 1..3) of the 512-bit V at P, or its
** upper 32 bytes (LI_ST_HALF512): extract to a register, then store.
** The store form of the extract saves a shuffle on Intel (tr.c's 1-byte
** tile: qnn.nchw unpack int8 [1,29,23,37] 1.19 -> 1.04 us) but is slow
** on AMD's Zen 5: there it made amd.hcwnc4 pack int8 [4,32,28,28] 11.4
** against 4.2 us, and no sweep case measured faster with it. Only inside
** AVX-512 code. */
#define LI_ST_LANE512(p, v, k) \
  _mm_storeu_si128((__m128i *)(void *)(p), _mm512_extracti32x4_epi32(v, k))
#define LI_ST_HALF512(p, v) \
  _mm256_storeu_si256((__m256i *)(void *)(p), _mm512_extracti64x4_epi64(v, 1))
/* The lane exchanges of two 512-bit registers A and B, a register bit
** (A's 0, B's 1) swapped with lane bit 0 (LI_X512L0) or lane bit 1
** (LI_X512L1): afterwards lane (x, y) of the register r holds lane (r, y)
** (or (x, r)) of register x (or y). mtile.c's exchanged loads and stores,
** kern_ilve.c's whole stores. Only inside AVX-512 code. */
#define LI_X512L0(A, B)                                                      \
  do {                                                                       \
    const __m512i a_ = (A), b_ = (B);                                        \
    (A) = _mm512_permutex2var_epi64(                                         \
        a_, _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13), b_);                \
    (B) = _mm512_permutex2var_epi64(                                         \
        a_, _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15), b_);              \
  } while (0)
#define LI_X512L1(A, B)                                                      \
  do {                                                                       \
    const __m512i a_ = (A), b_ = (B);                                        \
    (A) = _mm512_shuffle_i32x4(a_, b_, 0x44);                                \
    (B) = _mm512_shuffle_i32x4(a_, b_, 0xEE);                                \
  } while (0)
/* The L1 data cache the kernels block for (32 KB, 8 ways of 64-byte
** lines: 64 sets, a way every 4 KB), shared by tr.c's tiles and
** kern_rows.c's row blocks. */
#define LI_L1_LINE 64u
#define LI_L1_SETS 64u
#define LI_L1_WAYS 8
#define LI_L1_WAY (LI_L1_LINE * LI_L1_SETS) /* bytes between lines of a set */
/* conv.c: a rows x k block from S (strides sso, ssi in S elements) to D
** (dso, dsi), S's unpack rule then D's pack rule; channel of (r, i) is
** cb + r*cso + i*csi; pre/post pad elements of D's pad around each row
** (dsi == 1 then). */
void li_conv_block(const li_side *S, const li_side *D, const uint8_t *src,
                   int64_t sso, int64_t ssi, uint8_t *dst, int64_t dso,
                   int64_t dsi, int64_t rows, int64_t k, int64_t cb,
                   int64_t cso, int64_t csi, int64_t pre, int64_t post,
                   const uint8_t *pad);
/* Rows over two loops: n2 x m rows, row (a, r) at a*sso2 + r*sso (S
** elements), a*dso2 + r*dso (D elements), channel a*cso2 + r*cso. */
typedef struct li_rows2 {
  int64_t n2, sso2, dso2, cso2;
  int64_t m, sso, dso, cso;
} li_rows2;
/* li_conv_block over the rows of g (its rows and k elements a row). */
void li_conv_rows(const li_side *S, const li_side *D, const uint8_t *src,
                  const li_rows2 *g, int64_t ssi, uint8_t *dst, int64_t dsi,
                  int64_t k, int64_t cb, int64_t csi, int64_t pre,
                  int64_t post, const uint8_t *pad);
/* conv.c: the n (3 or 4) loops l of a CONV step (outer first) through
** an L1 buffer when one of them is contiguous in the source and the
** innermost in the destination, no pads, byte planes on a side; 0 when
** not of that shape. */
int li_conv_loops(const li_side *S, const li_side *D, const uint8_t *src,
                  uint8_t *dst, const li_loop *l, int n, int64_t cb);
/* planes.c: a box between a side with byte planes and one without, all
** its loops (l, n of them, the outer one cut to the part run) in one call
** (the PLANES kernel); li_planes_ok: whether li_planes_run takes them. */
int li_planes_ok(const li_plan *p, const li_box *b, const li_loop *l,
                 int n);
int li_planes_run(const li_plan *p, const li_box *b, const li_loop *l, int n,
                  const uint8_t *src, const uint8_t *send, uint8_t *dst,
                  int64_t cb);
/* kern_ilve.c: 1 when ILV and DEILV run n rows of blocks of W elements of
** esz bytes, back to back, in masked AVX-512 steps at level simd (fewer
** steps than SSE and AVX2 take: rows under one AVX2 step). */
int li_ilv_masked(size_t esz, int W, int64_t n, int simd);
/* The same for blocks of 16 or 32 bytes over rows under 16 bytes, by
** AVX-512 VBMI's byte permutes (x86 with VBMI only; ILV and DEILV take
** blocks of 32 bytes there alone). */
int li_ilv_vbmi(size_t esz, int W, int64_t n, int simd);
/* Whether the CPU has AVX-512 VBMI (x86; 0 elsewhere), asked once. */
int li_have_vbmi(void);
/* planes.c: loops as a set of destination offsets, comparable: (extent
** e, stride d) by d descending, loops of one step left out, a loop that
** continues the next one inside folded into it; *m of them. */
void li_loops_canon(const li_loop *l, int n, int64_t *e, int64_t *d, int *m);
/* planes.c: 1 when the plane pad's fill box f (loops L, n) is the rest of
** the rows of an earlier PLANES box, which then writes it (its bk and
** pat); the planner gives f the kernel DONE. */
int li_planes_absorb(li_plan *p, li_box *f, const li_loop *L, int n);
void li_exec_box(const li_plan *p, const li_box *b, const uint8_t *src,
                 uint8_t *dst, int64_t from, int64_t to);
/* Run plan p from src to dst (sizes checked) on up to `threads` threads. */
lay_status li_plan_run(const li_plan *p, const void *src, size_t src_bytes,
                       void *dst, size_t dst_bytes, int threads,
                       lay_error *err);

/* ---- The worker pool (pool.c) ------------------------------------------- */
/* lay_plan_run's threads: one pool per process, started by the first run
** that asks for more than one thread, grown to the most any run asked for,
** stopped and joined by a destructor. li_pool_run runs fn(arg, i) for
** every i in [0, n) on the calling thread and on up to `helpers` workers,
** each chunk once, and returns when all have run; helpers <= 0 (or n <= 1)
** runs them all on the caller without touching the pool. Safe from several
** threads at once. */
#define LI_POOL_MAX 63 /* helpers of one run (threads - 1) */
typedef void (*li_pool_fn)(void *arg, int i);
void li_pool_run(int helpers, int n, li_pool_fn fn, void *arg);
/* The bytes (read + written, weighted by the kernel's cost: exec.c
** box_weight) a run must move per thread before it is split: LI_SPLIT_MIN,
** or the environment variable LAY_SPLIT_MIN read once (the tests set it to
** 1 to split small plans). Measured in exec.c's comment on li_plan_run. */
#define LI_SPLIT_MIN (4 << 20)
int li_pool_split_min(void);
/* The CPUs this process may run on (its affinity mask when the run first
** asks), or the environment variable LAY_CPUS (read once): a run never
** takes more threads than that, since a thread waiting for a core only
** makes the others wait for its part. */
int li_pool_cpus(void);

/* tr.c: the gather tile t over `cols` columns: source s (the step's base),
** destination d, dsc the destination stride of a column (elements). */
void li_trg_run(const li_trg *t, size_t esz, int simd, const uint8_t *s,
                int64_t cols, uint8_t *d, int64_t dsc);
/* tr.c: the column table t (T = 16 / esz columns, contiguous in the
** source; B row j at d + t->grp[j] elements) over `rows` rows of A, lda
** elements apart from a (kernel TRC). */
void li_trc_run(const li_trg *t, size_t esz, int simd, const uint8_t *a,
                int64_t lda, int64_t rows, uint8_t *d);
/* tr.c: B = A^T for elements of esz (1, 2, 4 or 8) bytes. A is rows x
** cols with row i at a + i*lda elements, B is cols x rows with row j at
** b + j*ldb. Loads stay inside [lo, hi) (the source buffer); only B's
** elements are written. simd: LI_SIMD_* the kernels may use. */
void li_tr2d(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
             const uint8_t *a, int64_t lda, uint8_t *b, int64_t ldb,
             int64_t rows, int64_t cols);
/* The same with the pitches la, lb in bytes, which need not be whole
** elements (groups of bytes moved as elements, rows of any length). */
void li_tr2d_b(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
               const uint8_t *a, int64_t la, uint8_t *b, int64_t lb,
               int64_t rows, int64_t cols);

#endif /* LI_PLAN_INT_H */
