/*
** lower_int.h: what the lowering's files (lower*.c) share (internal to
** the lowering; module.c sees only lower.h). The files, in the order of
** the work (see lower.c for the order of work for one instance):
**   lower.c           errors, definitions (layouts, aliases), entry points
**   lower_plan.c      what a plan's shape and type give: esize, `...`,
**                     `require`
**   lower_expr.c      expressions, parameters, dimensions
**   lower_value.c     value rules: quantize/dequantize/fixed/affine/cast,
**                     where-planes, pad_value
**   lower_order.c     memory-order items, digit chains, chunked<>
**   lower_tile.c      the order item tile(...): lists, expansion
**   lower_check.c     bijectivity over a ladder of shapes; the gather
**                     table of a swizzled layout at the plan's shape
**   lower_index.c     the index ops of transforms (pad, slice, transpose,
**                     reshape) on the tracked digits and the gather table
**   lower_transform.c transforms: the chain, the IR
**   lower_padfix.c    transforms: the stored values of the pads
** Cross-file functions are lg_*; everything else is static.
*/
#ifndef LG_LOWER_INT_H
#define LG_LOWER_INT_H

#include <stdint.h>

#include "irutil.h"
#include "lang.h"
#include "lower.h"

#define LW_MAX_PARAMS 64   /* parameters of one layout */
#define LW_MAX_ALIAS 64    /* alias chain depth */
#define LW_MAX_TABLE (1 << 24) /* gather table entries */
#define LW_MAX_CHECK (1 << 18)    /* elements of one bijectivity check shape */
#define LW_CHECK_BUDGET (1 << 20) /* elements of all its shapes together */
#define LW_MAX_PADS 64  /* pad ops of one transform chain */
#define LW_MAX_SEGS 16  /* pad segments tracked on one side of a dimension */


/* Where an expression's text lives, for positioned errors. */
typedef struct srcref {
  const char *file; /* file name used in messages */
  const char *src;  /* its text */
  size_t len;       /* its length */
} srcref;

/* The value of an expression. */
typedef enum vkind {
  V_INT,  /* integer constant i */
  V_NUM,  /* floating constant f */
  V_LIST, /* list of numbers (list, ilist when all are integers) */
  V_IE,   /* size expression over the dimensions */
  V_NAME, /* a name that is neither parameter nor dimension */
  V_UNK   /* unknown (partial mode) */
} vkind;

typedef struct val {
  vkind k;
  int64_t i;
  double f;
  double *list;
  int64_t *ilist;
  int n;
  lg_iexpr *ie;
  const char *name;
  /* V_NAME bound to a parameter by an argument: the argument, where it is
  ** written and the parameter's name, so that an unknown name is reported
  ** there (arg NULL otherwise). */
  const lg_expr *arg;
  srcref arg_sr;
  const char *param;
} val;

typedef struct param {
  const char *name; /* as declared */
  val v;            /* bound value */
  int shaped;       /* its value came from the plan's shape */
} param;

/* What names mean inside an expression. */
typedef struct env {
  srcref sr;                 /* where the expressions are */
  const param *p;            /* the parameters */
  int np;                    /* how many */
  int visible;               /* the first `visible` may be used */
  int self;                  /* the parameter being defaulted, or -1 */
  const char *const *dims;   /* dimension names */
  int rank;                  /* how many */
} env;

/* The lowering context. */
typedef struct lw {
  const lg_defs *defs;       /* where alias targets are looked up */
  lay_error *err;
  lay_status st;              /* the first error */
  lg_arena *a;                /* the IR's arena */
  int partial;                /* missing arguments are unknown */
  int unk_used;               /* an unknown value was used */
  const lg_def *stack[LW_MAX_ALIAS]; /* the alias chain */
  int depth;
  /* The outermost instantiation with arguments (`h8 = h(8)` in a file, or
  ** a format reference such as "ti.tidl(pad_l=1)"): an error inside the
  ** template is reported there, naming the template's own position. */
  int use_set;             /* 1 once a use is recorded */
  srcref use_sr;           /* the text holding the use */
  uint32_t use_pos, use_end; /* its span in that text */
  const char *use_text;    /* the use as written, blanks squeezed out */
  int use_plain;           /* a format reference: no source position */
  /* The plan an instance is made for (lg_lower_for, LANGUAGE.md "Sizes
  ** known at plan time"): with a shape, dimension sizes are integers and
  ** `require` is checked; `...` stands for shape_rank minus the named
  ** dimensions. Without one, `...` stands for ell_extra dimensions. */
  const int64_t *shape;    /* the concrete shape, or NULL */
  int shape_rank;          /* its dimensions */
  lay_dtype dtype;         /* the plan's element type, LAY_DT_NONE: open */
  int esize;               /* bytes per stored element (the name esize) */
  int esize_used;          /* esize was looked up */
  int ell_extra;           /* leading dimensions `...` stands for */
  int ell_used;            /* a layout with `...` was lowered */
  int tile_rank;           /* without a shape: the dimensions a tile(...)
                           ** names, the least `...` then stands for */
  int esize_trial;         /* esize is one the static check tries */
  int req_false;           /* a requirement on esize failed (esize_trial) */
  int shape_used;          /* counts the sizes taken from the shape */
} lw;

/* A swizzle item `d ^ x` (lower_order.c): the digit d of its axis XOR x,
** x a digit (p_dim / div) % mod of another dimension or the constant k. */
typedef struct lg_swz {
  int on;           /* the axis is swizzled */
  int dim;          /* x's dimension, -1: the constant k */
  int64_t div, mod, k;
  const char *text; /* the item as written, for messages */
  uint32_t pos;
} lg_swz;

/* A number or a per-channel list. */
typedef struct nums {
  int unk;   /* unknown (partial mode) */
  int n;     /* 0: scalar s; else the list v of n values */
  double s;
  double *v;
} nums;

/* The tensor a value operation sees, for an integer `axis`: its rank and,
** for each of its axes, the CPU-side dimension it is, AX_COMPOSITE when it
** is not one whole dimension (after a reshape), AX_PADDED when that
** dimension is padded or sliced at this point, AX_PAD_ONLY when a slice
** kept only padding (no dimension is left). NULL amap: the CPU side. */
enum { AX_COMPOSITE = -1, AX_PADDED = -2, AX_PAD_ONLY = -3 };

/* ---- Transforms: the tracked tensor (lower_index.c, lower_transform.c) -- */

/* A digit of a source dimension inside the tracked tensor. */
typedef struct tdig {
  int dim;
  int64_t div, ext;
} tdig;

/* One axis of the tracked tensor. */
typedef struct tax {
  int64_t ext;
  int nd;
  tdig d[LG_MAX_AXES];
} tax;

/* The tracked tensor. */
typedef struct tstate {
  int n;                   /* axes */
  tax ax[LG_MAX_AXES];
  int affine;              /* still expressible as axes */
  int pad_only;            /* affine lost to a slice that kept only padding */
  int64_t lo[LG_MAX_RANK], hi[LG_MAX_RANK], before[LG_MAX_RANK],
      after[LG_MAX_RANK], pext[LG_MAX_RANK];
  /* Which pad op made the padding of each dimension: segments before and
  ** after the window, innermost first (a later pad adds an outer one, a
  ** slice cuts the outer ones). */
  int nseg[LG_MAX_RANK][2];
  struct tseg {
    int id;
    int64_t len;
  } seg[LG_MAX_RANK][2][LW_MAX_SEGS];
} tstate;

/* The pad ops of a chain: each pad's value, as written (a value of the
** tensor's type at that point), and how many value ops precede it. */
typedef struct tpads {
  int n;     /* pads seen so far in this pass */
  int nval;  /* value ops seen so far in this pass */
  double v[LW_MAX_PADS];
  int stage[LW_MAX_PADS];
  uint32_t pos[LW_MAX_PADS];
  int live[LW_MAX_PADS]; /* some element of this pad is stored */
} tpads;

/* The index array of the gather-table replay (the CPU-side index of each
** element, or a pad's mark -1 - id). */
typedef struct tarr {
  int n;
  int64_t shape[LG_MAX_AXES];
  int64_t *v;
} tarr;

/* ---- lower.c: errors and helpers ---------------------------------------- */

/* Record the first error (positioned in sr at pos; see lw.use_set); -1. */
int lg_fail(lw *w, const srcref *sr, uint32_t pos, lay_status code,
            const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
int lg_nomem(lw *w);                    /* an out-of-memory error; -1 */
void *lg_walloc(lw *w, size_t n);       /* from the IR's arena; NULL: error */
srcref lg_def_src(const lg_def *d);     /* where a definition's text is */
const char *lg_etext(lw *w, const srcref *sr, const lg_expr *e);
void lg_fmt_list(char *buf, size_t cap, const int64_t *v, int n); /* [1,2] */

/* ---- lower_expr.c: expressions, parameters, dimensions ------------------ */

int lg_eval(lw *w, const env *en, const lg_expr *e, val *out);
int lg_eval_ie(lw *w, const env *en, const lg_expr *e, lg_iexpr **out);
int lg_eval_int(lw *w, const env *en, const lg_expr *e, int64_t *out,
                int *unk);
int lg_unknown_name(lw *w, const env *en, const lg_expr *e, const val *v);
int lg_mentions_dim(const env *en, const lg_expr *e);
int lg_dim_index(const env *en, const char *s);
int lg_name_arg(lw *w, const env *en, const lg_expr *e, const char **out);
int lg_bind(lw *w, const lg_def *def, const lg_layout *L,
            const lg_list *args, const env *caller, uint32_t call_pos,
            param *ps, int *nps);
int lg_set_dims(lw *w, const srcref *sr, lg_ir *ir, const lg_list *dims);

/* ---- lower_plan.c: esize, `...`, require -------------------------------- */

/* The bytes of the element the layout of def stores (esize). */
int lg_def_esize(lw *w, const lg_def *def);
/* L with its leading `...` expanded (L itself when it has none). */
int lg_expand_ellipsis(lw *w, const srcref *sr, const lg_layout *L,
                       const lg_layout **out);
/* The dimension names of L as lowered (`...` expanded). */
int lg_layout_dims(lw *w, const srcref *sr, const lg_layout *L,
                   const char **dims, int *rank);
/* The `require` clauses of L. */
int lg_requires(lw *w, const env *en, const lg_layout *L);
/* " for shape [2,3]" (when the value depends on the plan's shape), for
** messages about a size that is not a positive integer; "" otherwise. */
const char *lg_shape_note(lw *w);

/* ---- lower_value.c: value rules ------------------------------------------ */

/* A number or a list of numbers (pad values, the value ops' numbers). */
int lg_get_nums(lw *w, const env *en, const lg_expr *e, nums *out);
int lg_value_op(lw *w, const env *en, const char *op, const lg_expr *call,
                lg_ir *ir, const int64_t *fixed, const int *amap, int arank);
int lg_value_clauses(lw *w, const env *en, const lg_layout *L, lg_ir *ir,
                     const char **plane_name, const lg_clause **pad_clause);
int lg_finish_value(lw *w, const srcref *sr, const lg_clause *pad,
                    lg_ir *ir);

/* ---- lower_hint.c: did-you-mean of the lowering's errors ----------------- */
/* " (did you mean 'c'?)" or "": word against the dimensions of en (and its
** parameters usable here when params is set, and extra when not NULL). */
const char *lg_hint_name(lw *w, const env *en, const char *word, int params,
                         const char *extra);
const char *lg_hint_type(lw *w, const char *word); /* the element types */
const char *lg_hint_clause(lw *w, const lg_clause *c); /* pad_value, ops */
/* The value operations' names (lower_value.c), NULL past the end. */
const char *lg_value_op_name(size_t i);

/* ---- lower_pad.c: pad_value errors at the pad_value item ----------------- */
/* Record in ir->pad_src where pad's value is written (pad may be NULL). */
void lg_pad_note(lw *w, const srcref *sr, const lg_clause *pad, lg_ir *ir);
/* "pad_value V does not fit T (pad_value = v, with REF)" at pad's value,
** never at the use of the template (it names the use); -1. */
int lg_pad_fail(lw *w, const srcref *sr, const lg_clause *pad, lay_dtype t,
                double v);

/* ---- lower_order.c: memory orders ---------------------------------------- */

int lg_add_axis(lw *w, const srcref *sr, lg_ir *ir, uint32_t pos,
                lg_ir_axis **out);
const char *lg_digit_label(lw *w, const char *dim, int64_t div, int64_t mod);
int lg_lower_order(lw *w, const env *en, const lg_layout *L, lg_ir *ir,
                   const char *plane);
int lg_lower_chunked(lw *w, const srcref *sr, const lg_expr *c, lg_ir *ir);

/* ---- lower_tile.c: the order item tile(POSITIONS, SIZES [, PERM]) ------- */

int lg_is_tile(const lg_layout *L); /* L's order is a tile(...) item */
/* Without a shape: the fewest dimensions the lists of def's tile(...)
** name (binding the arguments as lower_layout does); -1 when the lists
** are not known (partial mode). */
int lg_tile_need(lw *w, const lg_def *def, const lg_list *args,
                 const env *caller, uint32_t call_pos, int *need);
/* L with its tile(...) item replaced by the items it stands for, the
** lists checked against en's dimensions; *out NULL when the lists are not
** known (partial mode: the order is checked when it is instantiated). */
int lg_expand_tile(lw *w, const env *en, const lg_layout *L,
                   const lg_layout **out);

/* ---- lower_check.c: bijectivity ------------------------------------------ */

int lg_check_bijection(lw *w, const srcref *sr, const lg_layout *L,
                       const lg_ir *ir, const int64_t *chunk);
/* A layout with swizzled axes (swz[i] for axis i) at the plan's shape:
** the IR becomes its gather table, every element checked to land on its
** own offset inside its axis. */
int lg_swizzle_table(lw *w, const srcref *sr, lg_ir *ir,
                     const int64_t *chunk, const lg_swz *swz);

/* ---- lower_index.c, lower_transform.c: transforms ------------------------ */

int lg_whole_dim(const tstate *t, int a);
int64_t lg_shape_count(const int64_t *s, int n);
int lg_index_op(lw *w, const env *en, const lg_expr *op, const char *nm,
                tstate *t, int64_t *shape, int *rank, tarr *tbl,
                const lg_ir *ir, tpads *pp);
int lg_lower_transform(lw *w, const lg_def *def, lg_ir *ir);

/* lower_padfix.c: the stored pad values of a transform whose IR is built
** (value.pad_value, and ir->padv/fix when they are several): from the
** tracked tensor t (affine), or from the gather table's marks (nmarks
** entries, -1 - id for a pad of op id). */
int lg_pad_store(lw *w, const srcref *sr, const tpads *pp, lg_ir *ir,
                 const tstate *t, const int64_t *marks, int64_t nmarks);

#endif /* LG_LOWER_INT_H */
