/*
** gen_io.c: builds TIDL io_1.bin files for the tests, from the layout of
** sTIDL_IOBufDesc_t as TI's headers declare it (SDK 08.06 and 09:
** itidl_ti.h; SDK 10: itidl_io.h), declared here on its own (field
** order and array sizes; no comments or code of TI's). The struct sizes
** are checked against the sizes the vendors issue gives (37256; 93976,
** 187928, 375832; 378392), so these files do not depend on lay's tables.
**
**   gen_io DIR   writes into DIR:
**     v0806.bin v09_1.bin v09_2.bin v09_4.bin v10.bin   good files
**     v10_multi.bin        SDK 10 multi-subgraph container (2 subgraphs)
**     in0.f32, in0_<ver>.expect     fp32 input 0 and TIDL-RT's bytes
**     out0_<ver>.tidl, out0_<ver>.expect   output 0's buffer and its fp32
**     bad_*.bin            one broken field each (see tidl_cli.sh)
**
** The expected bytes are computed here with TIDL-RT's own loops
** (tidl_rt_ovx.c: planar offset padT * linePitch + padL, channel pitch,
** (T)clamp_f32(x * scale) truncating; q * (1.0f / scale) on output).
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR 512

/* SDK 08.06 */
typedef struct {
  int32_t numInputBuf, numOutputBuf;
  int32_t inDataFormat[32], inResizeType[32], resizeWidth[32],
      resizeHeight[32], inWidth[32], inHeight[32], inNumChannels[32],
      inChannelPitch[32], inNumBatches[32], inPadL[32], inPadT[32],
      inPadR[32], inPadB[32], inPadCh[32], rawDataInElementType[32],
      inElementType[32], inZeroPoint[32], inLayout[32], inDataId[32];
  float inTensorScale[32];
  int8_t inDataName[32][STR];
  int32_t outWidth[32], outHeight[32], outNumChannels[32],
      outChannelPitch[32], outNumBatches[32], outPadL[32], outPadT[32],
      outPadR[32], outPadB[32], outPadCh[32], outElementType[32],
      outDataId[32];
  int8_t outDataName[32][STR];
  float outTensorScale[32];
  int32_t outZeroPoint[32], outLayout[32];
} io0806;

/* SDK 09, arrays [NC * 32] in and [NC * 128] out; SDK 10 (BUF 1) adds
** inBufSize and outBufSize. */
#define IO09(NAME, NC, BUFIN, BUFOUT)                                        \
  typedef struct {                                                           \
    int32_t numInputBuf, numOutputBuf, numCores, numVirtualCores,            \
        numSuperBatches, inferenceMode;                                      \
    int32_t inDataFormat[NC * 32], inResizeType[NC * 32],                    \
        resizeWidth[NC * 32], resizeHeight[NC * 32], inWidth[NC * 32],       \
        inHeight[NC * 32], inNumChannels[NC * 32], inDIM2[NC * 32],          \
        inDIM1[NC * 32], inChannelPitch[NC * 32], inNumBatches[NC * 32],     \
        inPadL[NC * 32], inPadT[NC * 32], inPadR[NC * 32], inPadB[NC * 32],  \
        inPadCh[NC * 32], rawDataInElementType[NC * 32],                     \
        inElementType[NC * 32], inZeroPoint[NC * 32], inLayout[NC * 32],     \
        inDataId[NC * 32];                                                   \
    float inTensorScale[NC * 32];                                            \
    int8_t inDataName[NC * 32][STR];                                         \
    BUFIN                                                                    \
    int32_t outWidth[NC * 128], outHeight[NC * 128], outDIM2[NC * 128],      \
        outDIM1[NC * 128], outNumChannels[NC * 128],                         \
        outChannelPitch[NC * 128], outNumBatches[NC * 128],                  \
        outPadL[NC * 128], outPadT[NC * 128], outPadR[NC * 128],             \
        outPadB[NC * 128], outPadCh[NC * 128], outElementType[NC * 128],     \
        outDataId[NC * 128];                                                 \
    int8_t outDataName[NC * 128][STR];                                       \
    float outTensorScale[NC * 128];                                          \
    int32_t outZeroPoint[NC * 128], outLayout[NC * 128];                     \
    BUFOUT                                                                   \
    int32_t numValidTensorDims[NC * 128];                                    \
  } NAME;
IO09(io09_1, 1, , )
IO09(io09_2, 2, , )
IO09(io09_4, 4, , )
IO09(io10, 4, int32_t inBufSize[4 * 32];, int32_t outBufSize[4 * 128];)

_Static_assert(sizeof(io0806) == 37256, "SDK 08.06 size");
_Static_assert(sizeof(io09_1) == 93976, "SDK 09 1 core size");
_Static_assert(sizeof(io09_2) == 187928, "SDK 09 2 cores size");
_Static_assert(sizeof(io09_4) == 375832, "SDK 09 4 cores size");
_Static_assert(sizeof(io10) == 378392, "SDK 10 size");

/* One tensor as the tests describe it. */
typedef struct desc {
  const char *name;
  int w, h, c, nb, dim1, dim2, cp, pl, pt, pr, pb, pch, raw, type, zp,
      layout;
  float scale;
} desc;

/* The test model: two inputs, two outputs (see tidl_cli.sh). */
static const desc in0 = {"input.1", 5, 4, 3, 1, 1, 1, 49, 1, 1, 1, 2, 0, 6,
                         1, 0, 0, 10.0f};
static const desc in1 = {"img", 3, 2, 3, 1, 1, 1, 6, 0, 0, 0, 0, 0, 0, 0, 0,
                         1, 1.0f};
static const desc out0 = {"logits", 4, 3, 2, 1, 1, 1, 18, 0, 1, 0, 2, 0, 6,
                          3, 0, 0, 64.0f};
static const desc out1 = {"scores", 10, 1, 1, 2, 1, 1, 10, 0, 0, 0, 0, 0, 6,
                          6, 0, 0, 1.0f};

#define SET_COMMON(S, IO, i, d)                                         \
  do {                                                                  \
    strncpy((char *)(S)->IO##DataName[i], (d)->name, STR - 1);          \
    (S)->IO##Width[i] = (d)->w;                                         \
    (S)->IO##Height[i] = (d)->h;                                        \
    (S)->IO##NumChannels[i] = (d)->c;                                   \
    (S)->IO##NumBatches[i] = (d)->nb;                                   \
    (S)->IO##ChannelPitch[i] = (d)->cp;                                 \
    (S)->IO##PadL[i] = (d)->pl;                                         \
    (S)->IO##PadT[i] = (d)->pt;                                         \
    (S)->IO##PadR[i] = (d)->pr;                                         \
    (S)->IO##PadB[i] = (d)->pb;                                         \
    (S)->IO##PadCh[i] = (d)->pch;                                       \
    (S)->IO##ElementType[i] = (d)->type;                                \
    (S)->IO##ZeroPoint[i] = (d)->zp;                                    \
    (S)->IO##Layout[i] = (d)->layout;                                   \
    (S)->IO##TensorScale[i] = (d)->scale;                               \
    (S)->IO##DataId[i] = 100 + (i);                                     \
  } while (0)
#define SET_IN(S, i, d)                                                 \
  do {                                                                  \
    SET_COMMON(S, in, i, d);                                            \
    (S)->rawDataInElementType[i] = (d)->raw;                            \
  } while (0)
#define SET_DIMS(S, IO, i, d)                                           \
  do {                                                                  \
    (S)->IO##DIM1[i] = (d)->dim1;                                       \
    (S)->IO##DIM2[i] = (d)->dim2;                                       \
  } while (0)

/* Fill a struct of any version with the test model. */
#define FILL8(S)                                                        \
  do {                                                                  \
    (S)->numInputBuf = 2, (S)->numOutputBuf = 2;                        \
    SET_IN(S, 0, &in0); SET_IN(S, 1, &in1);                             \
    SET_COMMON(S, out, 0, &out0); SET_COMMON(S, out, 1, &out1);         \
  } while (0)
#define FILL9(S, NC)                                                    \
  do {                                                                  \
    FILL8(S);                                                           \
    (S)->numCores = NC, (S)->numVirtualCores = NC;                      \
    (S)->numSuperBatches = 1, (S)->inferenceMode = 0;                   \
    SET_DIMS(S, in, 0, &in0); SET_DIMS(S, in, 1, &in1);                 \
    SET_DIMS(S, out, 0, &out0); SET_DIMS(S, out, 1, &out1);             \
    (S)->numValidTensorDims[0] = 4, (S)->numValidTensorDims[1] = 2;     \
  } while (0)

static const char *g_dir;

static void put(const char *name, const void *p, size_t n) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
    fprintf(stderr, "gen_io: cannot write %s\n", path);
    exit(1);
  }
}

/* ---- TIDL-RT's loops (the references) ----------------------------------- */

/* The fp32 data of input 0: values whose product with the scale sits
** just below an integer in double but rounds up in float32 (0.7f * 10),
** negatives, and values that saturate. */
static void in0_data(float *x, int n) {
  static const float v[] = {0.7f, -0.7f, 1.3f, 12.9f, -12.9f, 100.0f, -100.0f,
                            0.05f, 2.5f, -2.5f, 0.29f, 3.3f};
  for (int i = 0; i < n; i++) x[i] = v[i % 12] + (float)(i / 12) * 0.1f;
}

static int8_t sat8(float f) {
  if (f < -128.0f) f = -128.0f;
  if (f > 127.0f) f = 127.0f;
  return (int8_t)f;
}

/* TIDL-RT's planar input copy (cp_nchw_float_char). */
static void in0_expect(const float *x, int8_t *buf, size_t bufn, int pb_rows) {
  const desc *d = &in0;
  int lp = d->w + d->pl + d->pr, off = lp * d->pt + d->pl;
  memset(buf, 0, bufn);
  (void)pb_rows;
  for (int c = 0; c < d->c; c++)
    for (int h = 0; h < d->h; h++)
      for (int w = 0; w < d->w; w++)
        buf[off + c * d->cp + h * lp + w] =
            sat8(x[c * d->h * d->w + h * d->w + w] * d->scale);
}

/* Output 0's buffer (int16, pitch 18, padT 1) and TIDL-RT's fp32
** (cp_out_nchw_short_float: q * (1.0f / scale)). */
static void out0_make(int16_t *buf, size_t n, float *x) {
  const desc *d = &out0;
  int lp = d->w + d->pl + d->pr, off = lp * d->pt + d->pl;
  float inv = 1.0f / d->scale;
  for (size_t i = 0; i < n; i++) buf[i] = (int16_t)(0x5a5a - (int)i * 37);
  for (int c = 0; c < d->c; c++)
    for (int h = 0; h < d->h; h++)
      for (int w = 0; w < d->w; w++) {
        int q = (c * 7 + h * 3 + w) * 91 - 900;
        buf[off + c * d->cp + h * lp + w] = (int16_t)q;
        x[c * d->h * d->w + h * d->w + w] = (float)q * inv;
      }
}

static void refs(const char *ver) {
  char name[128];
  float x[60];
  in0_data(x, 60);
  put("in0.f32", x, sizeof x);
  /* TIOVX's buffer: (5+1+1) * (4+1+2) * 3 = 147 bytes. */
  int8_t b[147];
  in0_expect(x, b, sizeof b, 0);
  snprintf(name, sizeof name, "in0_%s.expect", ver);
  put(name, b, sizeof b);
  /* out0: TIOVX (4) * (3+1+2) * 2 = 48 elements; pitched 18 * 2 = 36. */
  int16_t q[48];
  float y[24];
  out0_make(q, 48, y);
  snprintf(name, sizeof name, "out0_%s.tidl", ver);
  put(name, q, sizeof q);
  snprintf(name, sizeof name, "out0_%s.expect", ver);
  put(name, y, sizeof y);
}

/* ---- Hostile files: each one broken field of the SDK 10 struct --------- */

static io10 g10;

static void bad(const char *name, void (*edit)(io10 *)) {
  io10 *s = malloc(sizeof *s);
  if (!s) exit(1);
  *s = g10;
  edit(s);
  put(name, s, sizeof *s);
  free(s);
}

#define EDIT(NAME, STMT) \
  static void NAME(io10 *s) { STMT; }
EDIT(e_nin, s->numInputBuf = 129)
EDIT(e_nin_neg, s->numInputBuf = -1)
EDIT(e_nout, s->numOutputBuf = 513)
EDIT(e_cores, s->numCores = 5)
EDIT(e_name, memset(s->inDataName[1], 'x', STR))
EDIT(e_oname, memset(s->outDataName[0], 'y', STR))
EDIT(e_width, s->inWidth[0] = 0)
EDIT(e_height, s->outHeight[1] = -3)
EDIT(e_chan, s->inNumChannels[1] = 0)
EDIT(e_batch, s->outNumBatches[0] = 0)
EDIT(e_dim1, s->inDIM1[0] = 0)
EDIT(e_dim2, s->outDIM2[1] = 0)
EDIT(e_padl, s->inPadL[0] = -1)
EDIT(e_padb, s->outPadB[0] = -2)
EDIT(e_padch, s->inPadCh[0] = -1)
EDIT(e_type, s->inElementType[0] = 9)
EDIT(e_type64, s->outElementType[1] = 7)
EDIT(e_raw, s->rawDataInElementType[0] = -1)
EDIT(e_layout, s->outLayout[0] = 2)
EDIT(e_pitch, s->inChannelPitch[0] = 34)
EDIT(e_scale0, s->inTensorScale[0] = 0.0f)
EDIT(e_scalenan, s->outTensorScale[0] = NAN)
EDIT(e_scaleinf, s->outTensorScale[1] = INFINITY)
EDIT(e_scaleneg, s->inTensorScale[1] = -1.0f)
EDIT(e_nhwcpad, s->inPadT[1] = 1)
/* (padT + H) * line pitch past 2^63 */
EDIT(e_overflow_p,
     (s->inHeight[0] = 2147483647, s->inPadT[0] = 2147483647,
      s->inWidth[0] = 2147483647, s->inPadL[0] = 2147483647,
      s->inPadR[0] = 2147483647))
/* N * DIM1 * DIM2 past 2^63 */
EDIT(e_overflow_n,
     (s->inNumBatches[0] = 2000000000, s->inDIM1[0] = 2000000000,
      s->inDIM2[0] = 2000000000))
/* W * H * C * N bytes past 2^63, every count within int32 */
EDIT(e_overflow_b,
     (s->outWidth[1] = 2000000000, s->outChannelPitch[1] = 2000000000,
      s->outNumChannels[1] = 2000000000, s->outNumBatches[1] = 2000000000,
      s->outDIM1[1] = 4))

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: gen_io DIR\n");
    return 2;
  }
  g_dir = argv[1];
  {
    io0806 *s = calloc(1, sizeof *s);
    FILL8(s);
    put("v0806.bin", s, sizeof *s);
    free(s);
    refs("v0806");
  }
#define V9(T, NC, FILE, VER)                                              \
  {                                                                       \
    T *s = calloc(1, sizeof *s);                                          \
    FILL9(s, NC);                                                         \
    put(FILE, s, sizeof *s);                                              \
    free(s);                                                              \
    refs(VER);                                                            \
  }
  V9(io09_1, 1, "v09_1.bin", "v09_1")
  V9(io09_2, 2, "v09_2.bin", "v09_2")
  V9(io09_4, 4, "v09_4.bin", "v09_4")
  FILL9(&g10, 4);
  /* TIOVX's element counts. */
  g10.inBufSize[0] = 147, g10.inBufSize[1] = 18;
  g10.outBufSize[0] = 48, g10.outBufSize[1] = 20;
  put("v10.bin", &g10, sizeof g10);
  refs("v10");
  /* SDK 10 with DIM1 = 2, DIM2 = 3 on input 0 (folded into N = 6). */
  {
    io10 *s = malloc(sizeof *s);
    *s = g10;
    s->inDIM1[0] = 2, s->inDIM2[0] = 3;
    put("v10_dims.bin", s, sizeof *s);
    free(s);
  }
  /* The multi-subgraph container: the combined struct, magic, count,
  ** {offset, size, 0, 0} per subgraph (offsets as TIDL-RT adds them),
  ** then each subgraph's struct. */
  {
    size_t n = sizeof g10, total = n + 8 + 32 + 2 * n;
    unsigned char *c = calloc(1, total);
    uint32_t hdr[10] = {0x5ca1ab1e, 2, 8 + 32, (uint32_t)n, 0, 0,
                        (uint32_t)n, (uint32_t)n, 0, 0};
    memcpy(c, &g10, n);
    memcpy(c + n, hdr, sizeof hdr);
    memcpy(c + n + 40, &g10, n);
    memcpy(c + 2 * n + 40, &g10, n);
    put("v10_multi.bin", c, total);
    hdr[6] = 4; /* the second offset is wrong */
    memcpy(c + n, hdr, sizeof hdr);
    put("bad_multi.bin", c, total);
    put("bad_size.bin", c, n - 1);
    free(c);
  }
  bad("bad_nin.bin", e_nin);
  bad("bad_nin_neg.bin", e_nin_neg);
  bad("bad_nout.bin", e_nout);
  bad("bad_cores.bin", e_cores);
  bad("bad_name.bin", e_name);
  bad("bad_oname.bin", e_oname);
  bad("bad_width.bin", e_width);
  bad("bad_height.bin", e_height);
  bad("bad_chan.bin", e_chan);
  bad("bad_batch.bin", e_batch);
  bad("bad_dim1.bin", e_dim1);
  bad("bad_dim2.bin", e_dim2);
  bad("bad_padl.bin", e_padl);
  bad("bad_padb.bin", e_padb);
  bad("bad_padch.bin", e_padch);
  bad("bad_type.bin", e_type);
  bad("bad_type64.bin", e_type64);
  bad("bad_raw.bin", e_raw);
  bad("bad_layout.bin", e_layout);
  bad("bad_pitch.bin", e_pitch);
  bad("bad_scale0.bin", e_scale0);
  bad("bad_scalenan.bin", e_scalenan);
  bad("bad_scaleinf.bin", e_scaleinf);
  bad("bad_scaleneg.bin", e_scaleneg);
  bad("bad_nhwcpad.bin", e_nhwcpad);
  bad("bad_overflow_p.bin", e_overflow_p);
  bad("bad_overflow_n.bin", e_overflow_n);
  bad("bad_overflow_b.bin", e_overflow_b);
  return 0;
}
