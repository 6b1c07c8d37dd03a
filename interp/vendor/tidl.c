/*
** tidl.c: TI TIDL's io_1.bin (the raw sTIDL_IOBufDesc_t) read into lay:
** the lay_tidl_* functions of lay.h (see tidl.h for the file versions).
**
** Parsing: the file's size picks the version's field table; each field is
** an array of int32 (or float32, or 512-byte names) indexed by tensor, in
** declaration order, so a field of tensor i is at offset(field) + i * 4.
** Every field a tensor uses is checked (sizes >= 1, pads >= 0, a known
** element type and layout, the channel pitch against the rows it holds,
** a finite positive scale, NUL-terminated names, 64-bit sizes); a failure
** makes that tensor unusable, with a message naming the field and the
** tensor. Each usable tensor becomes a layout:
**
**   NCHW  (n, c, h, w) -> [n, c @ chPitch, padT + h + padB', padL + w + padR]
**   NHWC  (n, h, w, c) -> [n, h, w, c]                  (SDK 09 and 10)
**
** n folds numBatches * DIM1 * DIM2 (TIDL-RT copies c = C * DIM1 * DIM2
** channel pitches per batch: its batch pitch is C * chPitch, without
** padCh); padB' = min(padB, chPitch / linePitch - padT - H), since TI's
** importer writes a padB that can run past the channel pitch; the buffer
** is what TIOVX allocates, (W + padL + padR) * (H + padT + padB) * C per
** batch (no pad channels), or the pitched extent when that is larger.
** SDK 08.06's TIDL-RT writes every buffer planar, whatever the tensor's
** layout: an NHWC tensor there has the NHWC CPU side and the NCHW buffer.
** An NHWC buffer with pads is refused: TIDL-RT starts its data at
** linePitch * padT + padL with the planar line pitch, which is no layout.
**
** Values, as TIDL-RT computes them (tidl_rt_ovx.c): an input's CPU side is
** rawDataInElementType; an integer buffer with inTensorScale s != 1 takes
** (T)clamp_f32(f32(x * s)), truncating (`affine(num = s, ..., round =
** truncate, arith = f32)`); an output's CPU side is fp32, dequantized as
** q * f32(1 / outTensorScale). TIDL-RT applies no zero point to fp32
** data: a nonzero in/outZeroPoint is reported as a note.
*/
#include "tidl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "strbuf.h"

#define NAME_SIZE 512 /* TIDL_STRING_SIZE */

/* ---- The field tables ------------------------------------------------------ */

/* The fields of one tensor lay reads (ORDER does not matter). */
enum {
  F_FMT, F_RESIZE, F_RW, F_RH, F_W, F_H, F_C, F_DIM2, F_DIM1, F_CP, F_NB,
  F_PL, F_PT, F_PR, F_PB, F_PCH, F_RAW, F_TYPE, F_ZP, F_LAYOUT, F_ID,
  F_SCALE, F_NAME, F_BUFSIZE, F_NDIMS, F_N
};

typedef struct fdesc {
  int f;            /* F_* */
  const char *name; /* the struct's field name */
} fdesc;

/* SDK 08.06 (itidl_ti.h), in declaration order. */
static const fdesc in_0806[] = {
    {F_FMT, "inDataFormat"}, {F_RESIZE, "inResizeType"},
    {F_RW, "resizeWidth"}, {F_RH, "resizeHeight"}, {F_W, "inWidth"},
    {F_H, "inHeight"}, {F_C, "inNumChannels"}, {F_CP, "inChannelPitch"},
    {F_NB, "inNumBatches"}, {F_PL, "inPadL"}, {F_PT, "inPadT"},
    {F_PR, "inPadR"}, {F_PB, "inPadB"}, {F_PCH, "inPadCh"},
    {F_RAW, "rawDataInElementType"}, {F_TYPE, "inElementType"},
    {F_ZP, "inZeroPoint"}, {F_LAYOUT, "inLayout"}, {F_ID, "inDataId"},
    {F_SCALE, "inTensorScale"}, {F_NAME, "inDataName"}};
static const fdesc out_0806[] = {
    {F_W, "outWidth"}, {F_H, "outHeight"}, {F_C, "outNumChannels"},
    {F_CP, "outChannelPitch"}, {F_NB, "outNumBatches"}, {F_PL, "outPadL"},
    {F_PT, "outPadT"}, {F_PR, "outPadR"}, {F_PB, "outPadB"},
    {F_PCH, "outPadCh"}, {F_TYPE, "outElementType"}, {F_ID, "outDataId"},
    {F_NAME, "outDataName"}, {F_SCALE, "outTensorScale"},
    {F_ZP, "outZeroPoint"}, {F_LAYOUT, "outLayout"}};
/* SDK 09 (itidl_ti.h) and SDK 10 (itidl_io.h, which adds the buffer
** sizes). */
#define IN_09                                                       \
  {F_FMT, "inDataFormat"}, {F_RESIZE, "inResizeType"},                       \
      {F_RW, "resizeWidth"}, {F_RH, "resizeHeight"}, {F_W, "inWidth"},       \
      {F_H, "inHeight"}, {F_C, "inNumChannels"}, {F_DIM2, "inDIM2"},         \
      {F_DIM1, "inDIM1"}, {F_CP, "inChannelPitch"}, {F_NB, "inNumBatches"},  \
      {F_PL, "inPadL"}, {F_PT, "inPadT"}, {F_PR, "inPadR"},                  \
      {F_PB, "inPadB"}, {F_PCH, "inPadCh"},                                  \
      {F_RAW, "rawDataInElementType"}, {F_TYPE, "inElementType"},            \
      {F_ZP, "inZeroPoint"}, {F_LAYOUT, "inLayout"}, {F_ID, "inDataId"},     \
      {F_SCALE, "inTensorScale"}, {F_NAME, "inDataName"}
static const fdesc in_09[] = {IN_09};
static const fdesc in_10[] = {IN_09, {F_BUFSIZE, "inBufSize"}};
static const fdesc out_09[] = {
    {F_W, "outWidth"}, {F_H, "outHeight"}, {F_DIM2, "outDIM2"},
    {F_DIM1, "outDIM1"}, {F_C, "outNumChannels"},
    {F_CP, "outChannelPitch"}, {F_NB, "outNumBatches"}, {F_PL, "outPadL"},
    {F_PT, "outPadT"}, {F_PR, "outPadR"}, {F_PB, "outPadB"},
    {F_PCH, "outPadCh"}, {F_TYPE, "outElementType"}, {F_ID, "outDataId"},
    {F_NAME, "outDataName"}, {F_SCALE, "outTensorScale"},
    {F_ZP, "outZeroPoint"}, {F_LAYOUT, "outLayout"},
    {F_NDIMS, "numValidTensorDims"}};
static const fdesc out_10[] = {
    {F_W, "outWidth"}, {F_H, "outHeight"}, {F_DIM2, "outDIM2"},
    {F_DIM1, "outDIM1"}, {F_C, "outNumChannels"},
    {F_CP, "outChannelPitch"}, {F_NB, "outNumBatches"}, {F_PL, "outPadL"},
    {F_PT, "outPadT"}, {F_PR, "outPadR"}, {F_PB, "outPadB"},
    {F_PCH, "outPadCh"}, {F_TYPE, "outElementType"}, {F_ID, "outDataId"},
    {F_NAME, "outDataName"}, {F_SCALE, "outTensorScale"},
    {F_ZP, "outZeroPoint"}, {F_LAYOUT, "outLayout"},
    {F_BUFSIZE, "outBufSize"}, {F_NDIMS, "numValidTensorDims"}};

#define NF(a) ((int)(sizeof a / sizeof a[0]))

/* One struct version. */
typedef struct version {
  const char *name;  /* "SDK 09 (2 cores)" */
  size_t size;       /* sizeof(sTIDL_IOBufDesc_t) */
  int sdk;           /* 8, 9 or 10 */
  int cores;         /* the arrays' core count (1 before SDK 09) */
  int nhdr;          /* int32 header fields (numInputBuf, ...) */
  const fdesc *in, *out;
  int nin_f, nout_f; /* fields of each */
  int maxin, maxout; /* array lengths */
} version;

static const version versions[] = {
    {"SDK 08.06", LI_TIDL_SIZE_0806, 8, 1, 2, in_0806, out_0806, NF(in_0806),
     NF(out_0806), 32, 32},
    {"SDK 09 (1 core)", LI_TIDL_SIZE_09_1, 9, 1, 6, in_09, out_09, NF(in_09),
     NF(out_09), 32, 128},
    {"SDK 09 (2 cores)", LI_TIDL_SIZE_09_2, 9, 2, 6, in_09, out_09,
     NF(in_09), NF(out_09), 64, 256},
    {"SDK 09 (4 cores)", LI_TIDL_SIZE_09_4, 9, 4, 6, in_09, out_09,
     NF(in_09), NF(out_09), 128, 512},
    {"SDK 10", LI_TIDL_SIZE_10, 10, 4, 6, in_10, out_10, NF(in_10),
     NF(out_10), 128, 512},
};
#define NVERSIONS ((int)(sizeof versions / sizeof versions[0]))

/* The header fields, in order (SDK 08.06 has the first two). */
static const char *const hdr_names[] = {"numInputBuf",     "numOutputBuf",
                                        "numCores",        "numVirtualCores",
                                        "numSuperBatches", "inferenceMode"};

/* TIDL's element types 0..8 (eTIDL_ElementType) and lay's type for each
** (LAY_DT_NONE: not imported; lay has uint64 and int64, but how TIDL-RT
** converts 64-bit buffers to and from the CPU side is not known). */
static const struct {
  const char *name;
  lay_dtype t;
} etypes[] = {{"uint8", LAY_DT_UINT8},   {"int8", LAY_DT_INT8},
              {"uint16", LAY_DT_UINT16}, {"int16", LAY_DT_INT16},
              {"uint32", LAY_DT_UINT32}, {"int32", LAY_DT_INT32},
              {"float32", LAY_DT_FP32},  {"uint64", LAY_DT_NONE},
              {"int64", LAY_DT_NONE}};
#define NETYPES 9

/* ---- The parsed file ---------------------------------------------------------- */

typedef struct tensor {
  int has[F_N];             /* the version has the field */
  int32_t v[F_N];           /* int fields */
  float scale;              /* in/outTensorScale */
  char name[NAME_SIZE + 1]; /* NUL-terminated copy */
  char def[32];             /* "input0" */
  char *spec;               /* the definitions, or NULL when unusable */
  int64_t shape[4];         /* CPU side */
  lay_dtype cpu, hw;
  int nhwc;
  uint64_t bytes;           /* TIOVX buffer */
} tensor;

struct lay_tidl_io {
  const version *ver;
  char file[256];
  char vname[64];  /* version text with the subgraph count */
  int32_t hdr[6];
  int n[2];        /* inputs, outputs */
  tensor *t[2];
  lay_tidl_issue *issues;
  int nissues, capissues;
};

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}

/* Field offsets of a version: off[0][f] for inputs, off[1][f] outputs (-1
** when absent). Returns the struct size the table adds up to. */
static size_t offsets(const version *v, long off[2][F_N]) {
  size_t o = (size_t)v->nhdr * 4;
  for (int s = 0; s < 2; s++) {
    const fdesc *fd = s ? v->out : v->in;
    int nf = s ? v->nout_f : v->nin_f, max = s ? v->maxout : v->maxin;
    for (int f = 0; f < F_N; f++) off[s][f] = -1;
    for (int i = 0; i < nf; i++) {
      off[s][fd[i].f] = (long)o;
      o += (size_t)max * (fd[i].f == F_NAME ? NAME_SIZE : 4);
    }
  }
  return o;
}

static const char *fname(const version *v, int output, int f) {
  const fdesc *fd = output ? v->out : v->in;
  int nf = output ? v->nout_f : v->nin_f;
  for (int i = 0; i < nf; i++)
    if (fd[i].f == f) return fd[i].name;
  return "?";
}

/* Printable text for comments and messages: control bytes become '?'. */
static void clean(char *dst, size_t cap, const char *s) {
  size_t k = 0;
  for (; *s && k + 1 < cap; s++)
    dst[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
  dst[k] = 0;
}

static void add_issue(lay_tidl_io *t, int output, int index, int fatal,
                      const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static void add_issue(lay_tidl_io *t, int output, int index, int fatal,
                      const char *fmt, ...) {
  if (t->nissues == t->capissues) {
    int cap = t->capissues ? 2 * t->capissues : 16;
    lay_tidl_issue *n = realloc(t->issues, sizeof *n * (size_t)cap);
    if (!n) return;
    t->issues = n;
    t->capissues = cap;
  }
  lay_tidl_issue *is = &t->issues[t->nissues++];
  is->output = output;
  is->index = index;
  is->fatal = fatal;
  const tensor *te = &t->t[output][index];
  char nm[80];
  clean(nm, sizeof nm, te->name);
  int k = snprintf(is->text, sizeof is->text, "%s[%d] '%s': ",
                   output ? "outputs" : "inputs", index, nm);
  if (k < 0 || (size_t)k >= sizeof is->text) k = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(is->text + k, sizeof is->text - (size_t)k, fmt, ap);
  va_end(ap);
}

/* ---- Checks ------------------------------------------------------------------- */

/* a * b into *r; 0, or -1 on overflow of int64. */
static int mul64(int64_t a, int64_t b, int64_t *r) {
  if (a < 0 || b < 0 || (b && a > INT64_MAX / b)) return -1;
  *r = a * b;
  return 0;
}

/* Check one tensor's fields; 0 when usable, else -1 with a fatal issue. */
static int check_tensor(lay_tidl_io *t, int o, int i) {
  tensor *te = &t->t[o][i];
  const version *v = t->ver;
#define FN(f) fname(v, o, f)
#define BAD(...) (add_issue(t, o, i, 1, __VA_ARGS__), -1)
  static const int sizes[] = {F_W, F_H, F_C, F_NB, F_DIM1, F_DIM2};
  for (int k = 0; k < 6; k++)
    if (te->has[sizes[k]] && te->v[sizes[k]] < 1)
      return BAD("%s: %d (must be at least 1)", FN(sizes[k]),
                 te->v[sizes[k]]);
  static const int pads[] = {F_PL, F_PT, F_PR, F_PB, F_PCH};
  for (int k = 0; k < 5; k++)
    if (te->v[pads[k]] < 0)
      return BAD("%s: %d (a pad must not be negative)", FN(pads[k]),
                 te->v[pads[k]]);
  static const int types[] = {F_TYPE, F_RAW};
  for (int k = 0; k < 2; k++) {
    int f = types[k];
    if (!te->has[f]) continue;
    int32_t e = te->v[f];
    if (e < 0 || e >= NETYPES)
      return BAD("%s: %d (not a TIDL element type: 0..8 are uint8, int8, "
                 "uint16, int16, uint32, int32, float32, uint64, int64)",
                 FN(f), e);
    if (etypes[e].t == LAY_DT_NONE)
      return BAD("%s: %d (%s): TIDL's 64-bit element types are not "
                 "imported (how TIDL-RT converts them is not known to lay)",
                 FN(f), e, etypes[e].name);
  }
  if (te->v[F_LAYOUT] != 0 && te->v[F_LAYOUT] != 1)
    return BAD("%s: %d (0 is NCHW, 1 is NHWC)", FN(F_LAYOUT),
               te->v[F_LAYOUT]);
  if (!isfinite(te->scale) || !(te->scale > 0))
    return BAD("%s: %g (must be a finite positive number)", FN(F_SCALE),
               (double)te->scale);
  int64_t W = te->v[F_W], H = te->v[F_H], C = te->v[F_C];
  int64_t pl = te->v[F_PL], pr = te->v[F_PR], pt = te->v[F_PT],
          pb = te->v[F_PB], cp = te->v[F_CP];
  int64_t lp = W + pl + pr, rows = H + pt + pb; /* < 2^33: no overflow */
  te->nhwc = te->v[F_LAYOUT] == 1;
  int planar = !te->nhwc || v->sdk == 8;
  if (te->nhwc && !planar && (pl || pr || pt || pb))
    return BAD("%s %d, %s %d, %s %d, %s %d: pads on an NHWC buffer are not "
               "supported (TIDL-RT starts its data at linePitch * padT + "
               "padL with the planar line pitch)",
               FN(F_PL), (int)pl, FN(F_PR), (int)pr, FN(F_PT), (int)pt,
               FN(F_PB), (int)pb);
  int64_t need = 0;
  int past = mul64(pt + H, lp, &need); /* past 2^63: larger than any pitch */
  if (planar && (past || cp < need)) {
    char nb[48] = "more than 2^63";
    if (!past) snprintf(nb, sizeof nb, "%lld", (long long)need);
    return BAD("%s: %d is less than (%s + %s) * line pitch = (%d + %d) * "
               "%lld = %s",
               FN(F_CP), (int)cp, FN(F_PT), FN(F_H), (int)pt, (int)H,
               (long long)lp, nb);
  }
  int64_t n = te->v[F_NB], plane, per, total;
  if (te->has[F_DIM1] && (mul64(n, te->v[F_DIM1], &n) ||
                          mul64(n, te->v[F_DIM2], &n)))
    return BAD("%s * %s * %s overflows 64 bits", FN(F_NB), FN(F_DIM1),
               FN(F_DIM2));
  size_t esz = lay_dtype_size(etypes[te->v[F_TYPE]].t);
  if (mul64(lp, rows, &plane) || mul64(plane, C, &per) ||
      mul64(per, n, &total) || mul64(total, (int64_t)esz, &total) ||
      (planar && (mul64(cp, C, &per) || mul64(per, n, &per) ||
                  mul64(per, (int64_t)esz, &per))))
    return BAD("the buffer size overflows 64 bits");
#undef BAD
#undef FN
  return 0;
}

/* Notes (nothing wrong, but worth knowing) for a usable tensor. */
static void notes(lay_tidl_io *t, int o, int i, int64_t pbc) {
  tensor *te = &t->t[o][i];
  const version *v = t->ver;
  if (pbc != te->v[F_PB])
    add_issue(t, o, i, 0,
              "%s %d runs past the channel pitch %d: read as %lld (TIOVX "
              "still allocates %d rows)",
              fname(v, o, F_PB), te->v[F_PB], te->v[F_CP], (long long)pbc,
              te->v[F_PT] + te->v[F_H] + te->v[F_PB]);
  if (te->v[F_PCH])
    add_issue(t, o, i, 0,
              "%s %d: no pad channels are stored (TIOVX allocates %d "
              "channels, TIDL-RT's batch pitch is %d channel pitches)",
              fname(v, o, F_PCH), te->v[F_PCH], te->v[F_C], te->v[F_C]);
  if (te->v[F_ZP] && te->cpu == LAY_DT_FP32)
    add_issue(t, o, i, 0,
              "%s %d: not applied (TIDL-RT applies no zero point to fp32 "
              "data)",
              fname(v, o, F_ZP), te->v[F_ZP]);
  if (te->has[F_BUFSIZE]) {
    uint64_t el = te->bytes / lay_dtype_size(te->hw);
    if ((uint64_t)(uint32_t)te->v[F_BUFSIZE] != el)
      add_issue(t, o, i, 0, "%s: %d elements, TIOVX allocates %llu",
                fname(v, o, F_BUFSIZE), te->v[F_BUFSIZE],
                (unsigned long long)el);
  }
}

/* ---- Spec text -------------------------------------------------------------- */

/* "pt + h + pb" with the zero parts left out. */
static void padded(char *b, size_t cap, int64_t before, const char *d,
                   int64_t after) {
  char x[32] = "", y[32] = "";
  if (before) snprintf(x, sizeof x, "%lld + ", (long long)before);
  if (after) snprintf(y, sizeof y, " + %lld", (long long)after);
  snprintf(b, cap, "%s%s%s", x, d, y);
}

static void value_clause(lg_strbuf *b, const tensor *te, int output) {
  char s[32];
  snprintf(s, sizeof s, "%.9g", (double)te->scale);
  if (te->hw == LAY_DT_FP32) {
    if (te->cpu != LAY_DT_FP32) lg_sb_printf(b, "\n    cast(to = fp32)");
    return;
  }
  if (!output && te->scale == 1.0f) {
    if (te->cpu != te->hw)
      lg_sb_printf(b, "\n    cast(to = %s, round = truncate)",
                   lay_dtype_name(te->hw));
    return;
  }
  lg_sb_printf(b,
               "\n    affine(num = %s, den = 1, to = %s, round = truncate, "
               "arith = f32)",
               s, lay_dtype_name(te->hw));
}

/* The definitions of one usable tensor (te->spec). */
static int make_spec(lay_tidl_io *t, int o, int i) {
  tensor *te = &t->t[o][i];
  const version *v = t->ver;
  int64_t W = te->v[F_W], H = te->v[F_H], C = te->v[F_C];
  int64_t pl = te->v[F_PL], pr = te->v[F_PR], pt = te->v[F_PT],
          pb = te->v[F_PB], cp = te->v[F_CP];
  int64_t n = te->v[F_NB];
  if (te->has[F_DIM1]) n *= (int64_t)te->v[F_DIM1] * te->v[F_DIM2];
  int64_t lp = W + pl + pr;
  int planar = !te->nhwc || v->sdk == 8;
  int64_t pbc = pb;
  if (planar && cp / lp - pt - H < pbc) pbc = cp / lp - pt - H;
  int64_t r = planar ? cp - (pt + H + pbc) * lp : 0;
  te->cpu = o ? LAY_DT_FP32 : etypes[te->v[F_RAW]].t;
  te->hw = etypes[te->v[F_TYPE]].t;
  int64_t el = lp * (pt + H + pb) * C * n, pitched = planar ? cp * C * n : el;
  te->bytes = (uint64_t)(el > pitched ? el : pitched) * lay_dtype_size(te->hw);
  if (te->nhwc) {
    te->shape[0] = n;
    te->shape[1] = H;
    te->shape[2] = W;
    te->shape[3] = C;
  } else {
    te->shape[0] = n;
    te->shape[1] = C;
    te->shape[2] = H;
    te->shape[3] = W;
  }
  notes(t, o, i, pbc);
  char hi[96], wi[96], order[1024], nm[120];
  padded(hi, sizeof hi, pt, "h", pbc);
  padded(wi, sizeof wi, pl, "w", pr);
  if (!planar) {
    snprintf(order, sizeof order, "[n, h, w, c]");
  } else {
    char plane[256] = "", unit[320] = "";
    if (r)
      snprintf(plane, sizeof plane, " @ ((%s) * (%s) + %lld)", hi, wi,
               (long long)r);
    if (el > pitched) {
      char hb[96];
      padded(hb, sizeof hb, pt, "h", pb);
      snprintf(unit, sizeof unit, "1 @ (n * c * (%s) * (%s)), ", hb, wi);
    }
    snprintf(order, sizeof order, "[%sn, c%s, %s, %s]", unit, plane, hi, wi);
  }
  clean(nm, sizeof nm, te->name);
  lg_strbuf b = {0};
  const char *side = o ? "outputs" : "inputs", *pre = o ? "out" : "in";
  lg_sb_printf(&b, "# %s[%d] '%s': %s %s, N %lld (%sNumBatches %d",
               side, i, nm, te->nhwc ? "NHWC" : "NCHW",
               etypes[te->v[F_TYPE]].name, (long long)n, pre, te->v[F_NB]);
  if (te->has[F_DIM1])
    lg_sb_printf(&b, ", %sDIM1 %d, %sDIM2 %d", pre, te->v[F_DIM1], pre,
                 te->v[F_DIM2]);
  lg_sb_printf(&b,
               "), C %lld, H %lld, W %lld\n#   pads L %lld R %lld T %lld B "
               "%lld, padCh %d, line pitch %lld, channel pitch %lld, "
               "tensor scale %.9g\n",
               (long long)C, (long long)H, (long long)W, (long long)pl,
               (long long)pr, (long long)pt, (long long)pb, te->v[F_PCH],
               (long long)lp, (long long)cp, (double)te->scale);
  const char *dims = te->nhwc ? "(n, h, w, c)" : "(n, c, h, w)";
  lg_sb_printf(&b, "layout %s %s : %s -> %s", te->def, dims,
               lay_dtype_name(te->cpu), order);
  value_clause(&b, te, o);
  lg_sb_printf(&b, "\nlayout %s_raw %s : %s -> %s\n", te->def, dims,
               lay_dtype_name(te->hw), order);
  te->spec = lg_sb_take(&b);
  return te->spec ? 0 : -1;
}

/* ---- Parsing ------------------------------------------------------------------- */

/* The version for a file of len bytes, and the subgraph count (0: a
** plain struct); NULL when no version fits. */
static const version *pick(const unsigned char *p, size_t len, int *nsub,
                           char *why, size_t cap) {
  for (int k = 0; k < NVERSIONS; k++) {
    const version *v = &versions[k];
    *nsub = 0;
    if (len == v->size) return v;
    if (len < v->size + 8) continue;
    uint32_t n = rd32(p + v->size + 4);
    if (n < 1 || n > LI_TIDL_MAX_SUBGRAPHS) continue;
    if (len != v->size + 8 + 16 * (size_t)n + (size_t)n * v->size) continue;
    /* TIDL-RT adds each offset to the previous subgraph's start, from
    ** the magic number on: the first is the header's size, then each
    ** is the size of the one before. */
    const unsigned char *e = p + v->size + 8;
    for (uint32_t s = 0; s < n; s++, e += 16) {
      uint32_t off = rd32(e), sz = rd32(e + 4);
      uint32_t want = s ? (uint32_t)v->size : 8 + 16 * n;
      if (sz != v->size || off != want) {
        snprintf(why, cap,
                 "an %s multi-subgraph container whose subgraph %u has "
                 "offset %u and size %u (expected %u and %zu)",
                 v->name, s, off, sz, want, v->size);
        return NULL;
      }
    }
    *nsub = (int)n;
    return v;
  }
  return NULL;
}

static lay_status bad_size(size_t len, const char *file, lay_error *err) {
  lg_error_plain(err, LAY_E_ARG, file,
                 "%zu bytes is not the size of an sTIDL_IOBufDesc_t "
                 "(%u: SDK 08.06; %u, %u, %u: SDK 09 for 1, 2, 4 cores; "
                 "%u: SDK 10) or of a multi-subgraph container of one",
                 len, LI_TIDL_SIZE_0806, LI_TIDL_SIZE_09_1, LI_TIDL_SIZE_09_2,
                 LI_TIDL_SIZE_09_4, LI_TIDL_SIZE_10);
  return LAY_E_ARG;
}

/* Read the fields of every tensor of one side. */
static int read_side(lay_tidl_io *t, const unsigned char *p, int o,
                     long off[2][F_N]) {
  t->t[o] = calloc((size_t)(t->n[o] ? t->n[o] : 1), sizeof(tensor));
  if (!t->t[o]) return -1;
  for (int i = 0; i < t->n[o]; i++) {
    tensor *te = &t->t[o][i];
    snprintf(te->def, sizeof te->def, "%s%d", o ? "output" : "input", i);
    for (int f = 0; f < F_N; f++) {
      long at = off[o][f];
      te->has[f] = at >= 0;
      if (at < 0) continue;
      if (f == F_NAME) {
        const unsigned char *s = p + at + (long)i * NAME_SIZE;
        te->has[f] = memchr(s, 0, NAME_SIZE) != NULL;
        memcpy(te->name, s, NAME_SIZE);
        te->name[NAME_SIZE] = 0;
      } else if (f == F_SCALE) {
        uint32_t u = rd32(p + at + (long)i * 4);
        memcpy(&te->scale, &u, 4);
      } else {
        te->v[f] = (int32_t)rd32(p + at + (long)i * 4);
      }
    }
  }
  return 0;
}

lay_status lay_tidl_parse(const void *data, size_t len, const char *file,
                          lay_tidl_io **out, lay_error *err) {
  if (out) *out = NULL;
  if (!file) file = "io_1.bin";
  if (!out || (!data && len)) {
    lg_error_plain(err, LAY_E_ARG, file, "no data");
    return LAY_E_ARG;
  }
  const unsigned char *p = data;
  int nsub = 0;
  char why[256] = "";
  const version *v = len > LI_TIDL_MAX_FILE ? NULL
                                            : pick(p, len, &nsub, why,
                                                   sizeof why);
  if (!v && why[0]) {
    lg_error_plain(err, LAY_E_ARG, file, "%s", why);
    return LAY_E_ARG;
  }
  if (!v) return bad_size(len, file, err);
  long off[2][F_N];
  if (offsets(v, off) != v->size) {
    lg_error_plain(err, LAY_E_INTERNAL, file, "field table of %s", v->name);
    return LAY_E_INTERNAL;
  }
  lay_tidl_io *t = calloc(1, sizeof *t);
  if (!t) {
    lg_error_plain(err, LAY_E_NOMEM, file, "out of memory");
    return LAY_E_NOMEM;
  }
  t->ver = v;
  snprintf(t->file, sizeof t->file, "%s", file);
  if (nsub)
    snprintf(t->vname, sizeof t->vname, "%s, %d subgraphs", v->name, nsub);
  else
    snprintf(t->vname, sizeof t->vname, "%s", v->name);
  for (int k = 0; k < v->nhdr; k++) t->hdr[k] = (int32_t)rd32(p + 4 * k);
  /* The counts bound every array index: a bad one fails the file. */
  for (int o = 0; o < 2; o++) {
    int max = o ? v->maxout : v->maxin;
    if (t->hdr[o] < 0 || t->hdr[o] > max) {
      lg_error_plain(err, LAY_E_ARG, file,
                     "%s: %d (the %s struct holds 0 to %d)", hdr_names[o],
                     t->hdr[o], v->name, max);
      lay_tidl_free(t);
      return LAY_E_ARG;
    }
    t->n[o] = t->hdr[o];
  }
  if (v->sdk >= 9 && (t->hdr[2] < 1 || t->hdr[2] > v->cores)) {
    lg_error_plain(err, LAY_E_ARG, file, "numCores: %d (the %s struct holds "
                   "1 to %d)", t->hdr[2], v->name, v->cores);
    lay_tidl_free(t);
    return LAY_E_ARG;
  }
  for (int o = 0; o < 2; o++)
    if (read_side(t, p, o, off)) {
      lg_error_plain(err, LAY_E_NOMEM, file, "out of memory");
      lay_tidl_free(t);
      return LAY_E_NOMEM;
    }
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < t->n[o]; i++) {
      tensor *te = &t->t[o][i];
      if (!te->has[F_NAME]) {
        te->name[0] = 0;
        add_issue(t, o, i, 1, "%s: not NUL-terminated within its %d bytes",
                  fname(v, o, F_NAME), NAME_SIZE);
        continue;
      }
      if (check_tensor(t, o, i)) continue;
      if (make_spec(t, o, i)) {
        lg_error_plain(err, LAY_E_NOMEM, file, "out of memory");
        lay_tidl_free(t);
        return LAY_E_NOMEM;
      }
    }
  *out = t;
  return LAY_OK;
}

lay_status lay_tidl_read(const char *path, lay_tidl_io **out, lay_error *err) {
  if (out) *out = NULL;
  if (!path || !out) {
    lg_error_plain(err, LAY_E_ARG, path ? path : "", "no io_1.bin file");
    return LAY_E_ARG;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    lg_error_plain(err, LAY_E_IO, path, "cannot open: %s", strerror(errno));
    return LAY_E_IO;
  }
  /* Read at most one byte past the largest file: a larger one (or a
  ** stream) is rejected by its size without being read whole. */
  size_t cap = LI_TIDL_MAX_FILE + 1, len = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) {
    fclose(f);
    lg_error_plain(err, LAY_E_NOMEM, path, "out of memory");
    return LAY_E_NOMEM;
  }
  size_t got;
  while (len < cap && (got = fread(buf + len, 1, cap - len, f)) > 0)
    len += got;
  int bad = ferror(f);
  int e = errno;
  fclose(f);
  lay_status st;
  if (bad) {
    lg_error_plain(err, LAY_E_IO, path, "cannot read: %s", strerror(e));
    st = LAY_E_IO;
  } else if (len > LI_TIDL_MAX_FILE) {
    lg_error_plain(err, LAY_E_ARG, path,
                   "more than %zu bytes: not an sTIDL_IOBufDesc_t",
                   LI_TIDL_MAX_FILE);
    st = LAY_E_ARG;
  } else {
    st = lay_tidl_parse(buf, len, path, out, err);
  }
  free(buf);
  return st;
}

void lay_tidl_free(lay_tidl_io *t) {
  if (!t) return;
  for (int o = 0; o < 2; o++) {
    for (int i = 0; t->t[o] && i < t->n[o]; i++) free(t->t[o][i].spec);
    free(t->t[o]);
  }
  free(t->issues);
  free(t);
}

const char *lay_tidl_version(const lay_tidl_io *t) { return t ? t->vname : ""; }

int lay_tidl_count(const lay_tidl_io *t, int output) {
  return t ? t->n[output ? 1 : 0] : 0;
}

int lay_tidl_find(const lay_tidl_io *t, int output, const char *key) {
  if (!t || !key || !*key) return -1;
  int o = output ? 1 : 0;
  char *e;
  errno = 0;
  long k = strtol(key, &e, 10);
  if (!*e && !errno && k >= 0 && k < t->n[o] && key[0] >= '0' &&
      key[0] <= '9')
    return (int)k;
  for (int i = 0; i < t->n[o]; i++)
    if (!strcmp(t->t[o][i].name, key)) return i;
  return -1;
}

int lay_tidl_info_get(const lay_tidl_io *t, int output, int index,
                      lay_tidl_info *out) {
  int o = output ? 1 : 0;
  if (!t || !out || index < 0 || index >= t->n[o]) return -1;
  const tensor *te = &t->t[o][index];
  memset(out, 0, sizeof *out);
  out->name = te->name;
  out->def = te->def;
  out->spec = te->spec;
  out->rank = 4;
  for (int k = 0; k < 4; k++) out->cpu_shape[k] = te->shape[k];
  out->cpu_dtype = te->cpu;
  out->hw_dtype = te->hw;
  out->nhwc = te->nhwc;
  out->buffer_bytes = te->bytes;
  return 0;
}

char *lay_tidl_spec(const lay_tidl_io *t, const char *ns) {
  if (!t) return NULL;
  lg_strbuf b = {0};
  char f[256];
  clean(f, sizeof f, t->file);
  lg_sb_printf(&b,
               "# TIDL io_1.bin %s: sTIDL_IOBufDesc_t of %s, %d input%s, "
               "%d output%s\nnamespace %s\n",
               f, t->vname, t->n[0], t->n[0] == 1 ? "" : "s", t->n[1],
               t->n[1] == 1 ? "" : "s", ns ? ns : "tidl");
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < t->n[o]; i++) {
      const tensor *te = &t->t[o][i];
      if (te->spec) {
        lg_sb_str(&b, te->spec);
        continue;
      }
      const lay_tidl_issue *is = lay_tidl_tensor_issue(t, o, i);
      lg_sb_printf(&b, "# %s[%d]: not defined: %s\n", o ? "outputs" : "inputs",
                   i, is ? is->text : "?");
    }
  return lg_sb_take(&b);
}

lay_status lay_tidl_load(const lay_tidl_io *t, lay_ctx *ctx, const char *ns,
                         lay_error *err) {
  if (!t || !ctx) {
    lg_error_plain(err, LAY_E_ARG, "", "no io_1.bin or no context");
    return LAY_E_ARG;
  }
  char *text = lay_tidl_spec(t, ns);
  if (!text) {
    lg_error_plain(err, LAY_E_NOMEM, t->file, "out of memory");
    return LAY_E_NOMEM;
  }
  char name[300];
  snprintf(name, sizeof name, "%s.lay", t->file);
  lay_status st = lay_ctx_load_string(ctx, name, text, strlen(text), err);
  free(text);
  return st;
}

lay_status lay_ctx_load_tidl(lay_ctx *ctx, const char *path, const char *ns,
                             lay_error *err) {
  lay_tidl_io *t = NULL;
  lay_status st = lay_tidl_read(path, &t, err);
  if (st == LAY_OK) st = lay_tidl_load(t, ctx, ns, err);
  lay_tidl_free(t);
  return st;
}

int lay_tidl_issue_count(const lay_tidl_io *t) { return t ? t->nissues : 0; }

const lay_tidl_issue *lay_tidl_issue_get(const lay_tidl_io *t, int i) {
  return t && i >= 0 && i < t->nissues ? &t->issues[i] : NULL;
}

const lay_tidl_issue *lay_tidl_tensor_issue(const lay_tidl_io *t, int output,
                                            int index) {
  for (int i = 0; t && i < t->nissues; i++)
    if (t->issues[i].fatal && t->issues[i].output == (output ? 1 : 0) &&
        t->issues[i].index == index)
      return &t->issues[i];
  return NULL;
}
