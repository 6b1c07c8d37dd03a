/*
** hsi.c: AMD's flexmlrt-hsi.json compilation report -> lay spec text
** (see hsi.h).
**
** The order of work: cJSON parses the text (a malformed report fails with
** the JSON line:col computed here from cJSON's end pointer); every field
** of every entry is fetched with its type checked, and a missing or
** mistyped one fails with its JSON path. Each entry is then turned into
** lay spec text:
**   - the annotation form (cpu_format -> hw_format) becomes a `layout`
**     whose dims are the CPU dims in cpu_format order, e.g.
**       layout input0 (n, c, h, w) : fp32 -> [h, c/4, w, n, c%4]
**           cast(to = bf16)
**     with a quantize/dequantize clause when a scale is set (scale_factor
**     -1.0 means unset: then a plain cast, only allowed between floats);
**   - rt_transformations becomes a `transform`. For inputs the chain is
**     listed CPU -> NPU and is copied as it is. For outputs the report
**     lists it NPU -> CPU; lay's transforms always map the CPU tensor to
**     the buffer, so the chain is inverted: the order is reversed, a
**     transpose becomes the inverse permutation, a reshape becomes a
**     reshape back to the shape before it, a slice becomes a pad of the
**     removed amounts (whatever pack writes there, unpack never reads it:
**     the values are don't-care), a pad becomes a slice, and dequantize
**     becomes quantize with the same scale and zero point (and back).
** Shapes are walked through the chain while it is read, so every op is
** checked against the shape it receives; the disagreements between the
** declared fields (cpu_shape, hw_shape, dtypes, scales) and what the
** formats or the chain compute are recorded as issues: they make an entry
** unrunnable and are what `lay hsi --check` reports.
**
** Annotation fields beside a chain. The doc: "When rt_transformations is
** present, the explicit transformation chain takes over entirely ... the
** cpu_format/hw_format annotation-based path is not used", and cpu_format
** and hw_format are then optional. So the chain decides the bytes; the
** annotation is compared with it only where it claims the same buffer:
** when cpu_format -> hw_format gives the declared hw_shape, both are run
** on the same data and must give the same bytes (a chain without its own
** quantize uses scale_factor; an annotation without a scale borrows the
** chain's). A blocked hw_format (HCWNCx) that gives another hw_shape is an
** inconsistency; a plain one (NCHW, NHWC, AB) only names positions and
** gives a note.
**
** The seed's second example (Runtime Transformations) under these rules:
** the input chain takes fp32 [1,3,32,32] to int8 [32,1,32,1,8] = hw_shape
** (HCWNC8 by the chain); the output chain, run from hw_shape, gives
** [1,8,32,32] sliced to [1,4,32,32] = cpu_shape (4 real channels in an
** 8-channel buffer is just the slice of a pad) and ends in fp32 = cpu_dtype;
** quantize is first, dequantize last; scale_factor -1.0 is fine because
** the chains convert the types. The only oddity is hw_format "NCHW" on a
** 5-D HCWNC8 buffer: NCHW -> NCHW would give [1,3,32,32]; since the chain
** takes over it is a note, not an inconsistency. `--check` therefore
** reports two notes and no inconsistency; with hw_format "HCWNC8" it runs
** both descriptions and finds the same 8192 bytes for each tensor.
*/
#define _POSIX_C_SOURCE 200809L

#include "diag.h"
#include "hsi.h"
#include "strbuf.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR LAY_MAX_AXES        /* rank of any intermediate shape */
#define MAX_INT 9007199254740992.0 /* 2^53: exact in a double */

/* ---- Formats ------------------------------------------------------------- */

typedef enum fmt {
  F_NONE = 0, /* absent */
  F_NCHW, F_NHWC, F_AB, F_HCWNC4, F_HCWNC8, F_HCWNC16
} fmt; /* ORDER: fmt_names */

static const char *const fmt_names[] = {"",   "NCHW",   "NHWC",  "AB",
                                        "HCWNC4", "HCWNC8", "HCWNC16"};

/* The CPU-side dimension names of a plain format; NULL for blocked ones. */
static const char *const fmt_dims[][4] = {
    {NULL}, {"n", "c", "h", "w"}, {"n", "h", "w", "c"}, {"a", "b"},
    {NULL}, {NULL},               {NULL}};
static const int fmt_rank[] = {0, 4, 4, 2, 5, 5, 5};

static int fmt_block(fmt f) {
  return f == F_HCWNC4 ? 4 : f == F_HCWNC8 ? 8 : f == F_HCWNC16 ? 16 : 0;
}

static fmt fmt_parse(const char *s) {
  for (int i = 1; i < (int)(sizeof fmt_names / sizeof *fmt_names); i++) {
    const char *a = fmt_names[i], *b = s;
    while (*a && toupper((unsigned char)*b) == *a) a++, b++;
    if (!*a && !*b) return (fmt)i;
  }
  return F_NONE;
}

static int is_float(lay_dtype t) {
  return t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16;
}

/* ---- Transformations ------------------------------------------------------- */

typedef enum opk {
  OP_QUANT, OP_DEQUANT, OP_PAD, OP_RESHAPE, OP_TRANSPOSE, OP_SLICE, OP_CAST
} opk; /* ORDER: op_names */

static const char *const op_names[] = {"quantize", "dequantize", "pad",
                                       "reshape",  "transpose",  "slice",
                                       "cast"};

typedef struct op {
  opk k;              /* what it does */
  int rin;            /* rank of its input */
  int64_t in[MAXR];   /* its input shape (computed) */
  int rout;           /* rank of its output */
  int64_t out[MAXR];  /* its output shape (computed) */
  lay_dtype din, dout;/* element types before and after */
  int64_t a[MAXR];    /* pad start, slice start, perm */
  int64_t b[MAXR];    /* pad end, slice size */
  double scale, zp;   /* quantize/dequantize */
} op;

/* ---- The report -------------------------------------------------------------- */

typedef struct tensor {
  int output, index;          /* outputs[index] or inputs[index] */
  char *name, *tensor_name;   /* optional fields, or NULL */
  char def[32];               /* "input0" */
  int rank;                   /* cpu_shape */
  int64_t cpu[LAY_MAX_RANK];
  int hw_rank;                /* hw_shape */
  int64_t hw[MAXR];
  fmt cpu_fmt, hw_fmt;        /* F_NONE when absent */
  lay_dtype cpu_dt, hw_dt;
  int has_scale;              /* scale_factor present and not -1.0 */
  double scale;
  int has_zp;                 /* zero_point present */
  double zp;
  int has_chain;              /* rt_transformations present */
  int nops;                   /* ops in CPU -> NPU order (inverted for
                                 outputs), an implied value step first */
  op *ops;                    /* malloc'd, nops entries */
  char *spec;                 /* the definition text */
  char *ann_spec;             /* annotation layout text when it also has
                                 a chain and the annotation derives */
  int ann_ok;                 /* ann_spec's hw shape == hw_shape */
  int fatal;                  /* an inconsistency was recorded */
} tensor;

struct li_hsi {
  const char *file;     /* for errors */
  int n[2];             /* inputs, outputs */
  tensor *t[2];
  int nissues, capissues;
  li_hsi_issue *issues;
};

/* ---- Text buffers -------------------------------------------------------------- */

static void sb_shape(lg_strbuf *b, const int64_t *v, int n) {
  lg_sb_printf(b, "[");
  for (int i = 0; i < n; i++) lg_sb_printf(b, "%s%lld", i ? "," : "", (long long)v[i]);
  lg_sb_printf(b, "]");
}

/* A number the lexer reads back exactly (%.17g gives "1", "0.25",
** "1e-05", "-3": all valid lay tokens, with unary minus). */
static void sb_num(lg_strbuf *b, double v) { lg_sb_printf(b, "%.17g", v); }

/* ---- Errors ---------------------------------------------------------------------- */

/* A parse in progress: where errors go. */
typedef struct pctx {
  const char *file;
  lay_error *err;
  li_hsi *h;
} pctx;

static int perr(pctx *p, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "PATH: message" as LAY_E_JSON; returns -1. */
static int perr(pctx *p, const char *path, const char *fmt, ...) {
  if (!p->err) return -1;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_error_plain(p->err, LAY_E_JSON, p->file, "%s: %s", path, msg);
  return -1;
}

static const char *jtype(const cJSON *j) {
  if (cJSON_IsNumber(j)) return "a number";
  if (cJSON_IsString(j)) return "a string";
  if (cJSON_IsArray(j)) return "an array";
  if (cJSON_IsObject(j)) return "an object";
  if (cJSON_IsBool(j)) return "a boolean";
  if (cJSON_IsNull(j)) return "null";
  return "an invalid value";
}

/* Record an issue of entry t. */
static int add_issue(li_hsi *h, tensor *t, int fatal, const char *fmt,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int add_issue(li_hsi *h, tensor *t, int fatal, const char *fmt,
                     ...) {
  if (fatal) t->fatal = 1; /* even when the text cannot be kept */
  if (h->nissues == h->capissues) {
    int nc = h->capissues ? h->capissues * 2 : 8;
    li_hsi_issue *ni = realloc(h->issues, (size_t)nc * sizeof *ni);
    if (!ni) return -1;
    h->issues = ni;
    h->capissues = nc;
  }
  li_hsi_issue *is = &h->issues[h->nissues++];
  memset(is, 0, sizeof *is);
  is->output = t->output;
  is->index = t->index;
  is->fatal = fatal;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(is->text, sizeof is->text, fmt, ap);
  va_end(ap);
  lg_one_line(is->text);
  return 0;
}

/* "PATH.FIELD: message" (FIELD may carry an index, "perm[2]"). */
static int perrf(pctx *p, const char *path, const char *field,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int perrf(pctx *p, const char *path, const char *field,
                 const char *fmt, ...) {
  char full[200], msg[400];
  snprintf(full, sizeof full, "%s.%s", path, field);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return perr(p, full, "%s", msg);
}

/* ---- Field access (every field's type is checked) ------------------------------- */

/* The field `key` of object o; NULL when absent (then, if required, an
** error "PATH: missing required field 'key'"). */
static const cJSON *field(pctx *p, const cJSON *o, const char *path,
                          const char *key, int required, int *fail) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!j && required)
    *fail = perr(p, path, "missing required field '%s'", key);
  return j;
}

static int get_string(pctx *p, const cJSON *o, const char *path,
                      const char *key, int required, const char **out) {
  int fail = 0;
  *out = NULL;
  const cJSON *j = field(p, o, path, key, required, &fail);
  if (fail) return -1;
  if (!j) return 0;
  if (!cJSON_IsString(j) || !j->valuestring)
    return perrf(p, path, key, "must be a string, not %s", jtype(j));
  *out = j->valuestring;
  return 0;
}

/* 1 present, 0 absent, -1 error. */
static int get_number(pctx *p, const cJSON *o, const char *path,
                      const char *key, int required, double *out) {
  int fail = 0;
  const cJSON *j = field(p, o, path, key, required, &fail);
  if (fail) return -1;
  if (!j) return 0;
  if (!cJSON_IsNumber(j))
    return perrf(p, path, key, "must be a number, not %s", jtype(j));
  if (!isfinite(j->valuedouble))
    return perrf(p, path, key, "is not a finite number");
  *out = j->valuedouble;
  return 1;
}

/* An array of integers >= lo into v[0..*n); at most cap entries. */
static int get_ints(pctx *p, const cJSON *o, const char *path, const char *key,
                    int64_t lo, int64_t *v, int *n, int cap) {
  int fail = 0;
  const cJSON *j = field(p, o, path, key, 1, &fail);
  if (fail) return -1;
  if (!cJSON_IsArray(j))
    return perrf(p, path, key, "must be an array of integers, not %s",
                 jtype(j));
  int k = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, j) {
    if (k == cap)
      return perrf(p, path, key, "has more than %d entries", cap);
    char ek[80];
    snprintf(ek, sizeof ek, "%s[%d]", key, k);
    if (!cJSON_IsNumber(e))
      return perrf(p, path, ek, "must be an integer, not %s", jtype(e));
    double d = e->valuedouble;
    if (!isfinite(d) || d != floor(d) || fabs(d) > MAX_INT)
      return perrf(p, path, ek, "must be an integer, not %.17g", d);
    if (d < (double)lo)
      return perrf(p, path, ek, "must be at least %lld, not %lld",
                   (long long)lo, (long long)d);
    v[k++] = (int64_t)d;
  }
  if (k == 0) return perrf(p, path, key, "is empty");
  *n = k;
  return 0;
}

static int get_dtype(pctx *p, const cJSON *o, const char *path,
                     const char *key, lay_dtype *out) {
  const char *s;
  if (get_string(p, o, path, key, 1, &s)) return -1;
  *out = lay_dtype_parse(s);
  if (*out == LAY_DT_NONE)
    return perrf(p, path, key,
                 "unknown dtype '%s' (expected fp32, fp16, bf16, int8, "
                 "uint8, int16, uint16 or int32)",
                 s);
  return 0;
}

static int get_fmt(pctx *p, const cJSON *o, const char *path, const char *key,
                   int required, fmt *out) {
  const char *s;
  *out = F_NONE;
  if (get_string(p, o, path, key, required, &s)) return -1;
  if (!s) return 0;
  *out = fmt_parse(s);
  if (*out == F_NONE)
    return perrf(p, path, key,
                 "unknown format '%s' (expected NCHW, NHWC, HCWNC4, HCWNC8, "
                 "HCWNC16 or AB)",
                 s);
  return 0;
}

static int64_t prod(const int64_t *v, int n, int *ovf) {
  int64_t r = 1;
  for (int i = 0; i < n; i++) {
    if (v[i] > 0 && r > INT64_MAX / v[i]) {
      *ovf = 1;
      return 0;
    }
    r *= v[i];
  }
  return r;
}

static int same_shape(const int64_t *a, int na, const int64_t *b, int nb) {
  if (na != nb) return 0;
  for (int i = 0; i < na; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

static void shape_str(char *buf, size_t cap, const int64_t *v, int n) {
  size_t k = 0;
  buf[0] = '\0';
  k += (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)v[i]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* ---- One transformation -------------------------------------------------------- */

/* Read rt_transformations[i] (object j) at path, applied to the shape
** (rank r, dims s) and dtype dt; fills o with the computed result. */
static int read_op(pctx *p, tensor *t, const cJSON *j, const char *path,
                   int r, const int64_t *s, lay_dtype dt, op *o) {
  memset(o, 0, sizeof *o);
  if (!cJSON_IsObject(j))
    return perr(p, path, "a transformation must be an object, not %s",
                jtype(j));
  const char *kind;
  if (get_string(p, j, path, "transformation", 1, &kind)) return -1;
  int k = -1;
  for (int i = 0; i < OP_CAST; i++)
    if (!strcmp(kind, op_names[i])) k = i;
  if (k < 0)
    return perrf(p, path, "transformation",
                 "unknown transformation '%s' (expected quantize, "
                 "dequantize, pad, reshape, transpose or slice)",
                 kind);
  o->k = (opk)k;
  o->rin = r;
  memcpy(o->in, s, (size_t)r * sizeof *s);
  o->din = o->dout = dt;
  o->rout = r;
  memcpy(o->out, s, (size_t)r * sizeof *s);
  char sh[200], sh2[200];
  int n1 = 0, n2 = 0, ovf = 0;
  switch (o->k) {
  case OP_QUANT:
  case OP_DEQUANT: {
    int q = o->k == OP_QUANT;
    if (get_dtype(p, j, path, "to_dtype", &o->dout)) return -1;
    if (get_number(p, j, path, "scale", 1, &o->scale) < 0) return -1;
    if (get_number(p, j, path, "zero_point", 1, &o->zp) < 0) return -1;
    if (!(o->scale > 0))
      return perrf(p, path, "scale", "must be positive, not %.17g", o->scale);
    if (o->zp != floor(o->zp) || fabs(o->zp) > 2147483647.0)
      return perrf(p, path, "zero_point",
                   "must be an integer in the int32 range, not %.17g", o->zp);
    if (q && (!is_float(dt) || is_float(o->dout)))
      return perrf(p, path, "to_dtype",
                   "quantize casts a float type to an integer type, not %s "
                   "to %s",
                  lay_dtype_name(dt), lay_dtype_name(o->dout));
    if (!q && (is_float(dt) || !is_float(o->dout)))
      return perrf(p, path, "to_dtype",
                   "dequantize casts an integer type to a float type, not %s "
                   "to %s",
                  lay_dtype_name(dt), lay_dtype_name(o->dout));
    return 0;
  }
  case OP_PAD:
    if (get_ints(p, j, path, "pad_at_start", 0, o->a, &n1, MAXR) ||
        get_ints(p, j, path, "pad_at_end", 0, o->b, &n2, MAXR) ||
        get_ints(p, j, path, "output_shape", 1, o->out, &o->rout, MAXR))
      return -1;
    if (n1 != r || n2 != r)
      return perrf(p, path, n1 != r ? "pad_at_start" : "pad_at_end",
                   "needs %d entries (the rank of its input), not %d", r,
                   n1 != r ? n1 : n2);
    {
      int64_t want[MAXR];
      for (int i = 0; i < r; i++) {
        if (o->a[i] > INT64_MAX / 4 || o->b[i] > INT64_MAX / 4 ||
            s[i] > INT64_MAX / 4)
          return perrf(p, path, "pad_at_end", "padding overflows");
        want[i] = s[i] + o->a[i] + o->b[i];
      }
      /* A disagreement, not a malformed op: record it and go on with
      ** the declared shape, so that --check can list what follows. */
      if (!same_shape(want, r, o->out, o->rout)) {
        shape_str(sh, sizeof sh, o->out, o->rout);
        shape_str(sh2, sizeof sh2, want, r);
        add_issue(p->h, t, 1,
                  "%s.output_shape: %s does not match the padded shape %s",
                  path, sh, sh2);
      }
    }
    return 0;
  case OP_RESHAPE: {
    if (get_ints(p, j, path, "output_shape", -1, o->out, &o->rout, MAXR))
      return -1;
    int64_t total = prod(s, r, &ovf), known = 1;
    int minus = -1;
    for (int i = 0; i < o->rout; i++) {
      if (o->out[i] == -1) {
        if (minus >= 0)
          return perrf(p, path, "output_shape", "has more than one -1");
        minus = i;
      } else if (o->out[i] == 0) {
        return perrf(p, path, "output_shape", "entry %d must not be 0", i);
      } else {
        if (known > INT64_MAX / o->out[i]) ovf = 1;
        else known *= o->out[i];
      }
    }
    if (ovf) return perrf(p, path, "output_shape", "overflows 64 bits");
    if (minus >= 0 && total % known == 0) o->out[minus] = total / known;
    if (minus >= 0 && total % known) {
      shape_str(sh, sizeof sh, o->out, o->rout);
      shape_str(sh2, sizeof sh2, s, r);
      return perrf(p, path, "output_shape",
                   "%s does not hold the %lld elements of %s", sh,
                   (long long)total, sh2);
    }
    if (prod(o->out, o->rout, &ovf) != total) { /* recorded, as for pad */
      shape_str(sh, sizeof sh, o->out, o->rout);
      shape_str(sh2, sizeof sh2, s, r);
      add_issue(p->h, t, 1,
                "%s.output_shape: %s does not hold the %lld elements of %s",
                path, sh, (long long)total, sh2);
    }
    return 0;
  }
  case OP_TRANSPOSE: {
    if (get_ints(p, j, path, "perm", 0, o->a, &n1, MAXR)) return -1;
    int seen[MAXR] = {0};
    int okp = n1 == r;
    for (int i = 0; okp && i < n1; i++) {
      if (o->a[i] >= r || seen[o->a[i]]) okp = 0;
      else seen[o->a[i]] = 1;
    }
    if (!okp) {
      shape_str(sh, sizeof sh, o->a, n1);
      return perrf(p, path, "perm", "%s is not a permutation of 0..%d", sh,
                   r - 1);
    }
    for (int i = 0; i < r; i++) o->out[i] = s[o->a[i]];
    return 0;
  }
  case OP_SLICE:
    if (get_ints(p, j, path, "start", 0, o->a, &n1, MAXR) ||
        get_ints(p, j, path, "size", -1, o->b, &n2, MAXR))
      return -1;
    if (n1 != r || n2 != r)
      return perrf(p, path, n1 != r ? "start" : "size",
                   "needs %d entries (the rank of its input), not %d", r,
                   n1 != r ? n1 : n2);
    for (int i = 0; i < r; i++) {
      if (o->b[i] == -1 && o->a[i] < s[i]) o->b[i] = s[i] - o->a[i];
      if (o->b[i] < 1 || o->a[i] >= s[i] || o->b[i] > s[i] - o->a[i]) {
        shape_str(sh, sizeof sh, s, r);
        return perrf(p, path, o->a[i] >= s[i] ? "start" : "size",
                     "dimension %d: start %lld size %lld is outside the "
                     "input %s",
                     i, (long long)o->a[i], (long long)o->b[i], sh);
      }
      o->out[i] = o->b[i];
    }
    return 0;
  case OP_CAST:
    break;
  }
  return 0;
}

/* ---- Spec text ----------------------------------------------------------------------- */

/* The value step CPU -> NPU the annotation fields imply (op kind or -1
** for none); records a missing scale as an issue. */
static int implied_value(li_hsi *h, tensor *t, const char *path, op *o,
                         int record) {
  memset(o, 0, sizeof *o);
  if (t->cpu_dt == t->hw_dt) return -1;
  o->din = t->cpu_dt;
  o->dout = t->hw_dt;
  o->scale = t->scale;
  o->zp = t->zp;
  if (t->has_scale) {
    if (!t->has_zp && record)
      add_issue(h, t, 1,
                "%s.zero_point: missing; scale_factor is set and cpu_dtype "
                "%s differs from hw_dtype %s",
                path, lay_dtype_name(t->cpu_dt), lay_dtype_name(t->hw_dt));
    if (is_float(t->cpu_dt) && !is_float(t->hw_dt)) o->k = OP_QUANT;
    else if (!is_float(t->cpu_dt) && is_float(t->hw_dt)) o->k = OP_DEQUANT;
    else o->k = OP_CAST;
    return (int)o->k;
  }
  o->k = OP_CAST;
  if ((!is_float(t->cpu_dt) || !is_float(t->hw_dt)) && record)
    add_issue(h, t, 1,
              "%s.scale_factor: missing scale: cpu_dtype %s and hw_dtype %s "
              "differ and no quantize or dequantize step converts them",
              path, lay_dtype_name(t->cpu_dt), lay_dtype_name(t->hw_dt));
  return (int)o->k;
}

static void sb_value(lg_strbuf *b, const op *o) {
  if (o->k == OP_CAST) {
    lg_sb_printf(b, "cast(to = %s)", lay_dtype_name(o->dout));
    return;
  }
  lg_sb_printf(b, "%s(scale = ", o->k == OP_QUANT ? "quantize" : "dequantize");
  sb_num(b, o->scale);
  lg_sb_printf(b, ", zero_point = ");
  sb_num(b, o->zp);
  lg_sb_printf(b, ", to = %s)", lay_dtype_name(o->dout));
}

/* The annotation as a layout. Returns the text (NULL when it does not
** derive, with *why set) and the hw shape it computes. */
static char *annotation_text(tensor *t, const char *def, int64_t *hw,
                             int *hwr, const char **why, const op *value) {
  fmt cf = t->cpu_fmt, hf = t->hw_fmt;
  if (cf == F_NONE || hf == F_NONE) {
    *why = "cpu_format or hw_format is absent";
    return NULL;
  }
  if (!fmt_dims[cf][0]) {
    *why = "cpu_format must be NCHW, NHWC or AB";
    return NULL;
  }
  if (fmt_rank[cf] != t->rank) {
    *why = "cpu_format does not match the rank of cpu_shape";
    return NULL;
  }
  const char *const *dn = fmt_dims[cf];
  int64_t d[4] = {0};
  for (int i = 0; i < t->rank; i++) {
    /* the value of the dimension named dn[i] */
    d[i] = t->cpu[i];
  }
  /* By name: N, C, H, W or A, B. */
  int64_t N = 0, C = 0, H = 0, W = 0;
  for (int i = 0; i < t->rank; i++) {
    if (!strcmp(dn[i], "n")) N = d[i];
    if (!strcmp(dn[i], "c")) C = d[i];
    if (!strcmp(dn[i], "h")) H = d[i];
    if (!strcmp(dn[i], "w")) W = d[i];
  }
  const char *order;
  char obuf[64];
  int x = fmt_block(hf);
  if (x) {
    if (cf == F_AB) {
      *why = "an HCWNC format needs cpu_format NCHW or NHWC";
      return NULL;
    }
    snprintf(obuf, sizeof obuf, "[h, c/%d, w, n, c%%%d]", x, x);
    order = obuf;
    hw[0] = H;
    hw[1] = (C + x - 1) / x;
    hw[2] = W;
    hw[3] = N;
    hw[4] = x;
    *hwr = 5;
  } else if (hf == F_AB || cf == F_AB) {
    if (hf != cf) {
      *why = "AB is only derived from AB";
      return NULL;
    }
    order = "[a, b]";
    hw[0] = t->cpu[0];
    hw[1] = t->cpu[1];
    *hwr = 2;
  } else if (hf == F_NCHW) {
    order = "[n, c, h, w]";
    hw[0] = N, hw[1] = C, hw[2] = H, hw[3] = W;
    *hwr = 4;
  } else {
    order = "[n, h, w, c]";
    hw[0] = N, hw[1] = H, hw[2] = W, hw[3] = C;
    *hwr = 4;
  }
  lg_strbuf b = {0};
  lg_sb_printf(&b, "layout %s (", def);
  for (int i = 0; i < t->rank; i++) lg_sb_printf(&b, "%s%s", i ? ", " : "", dn[i]);
  lg_sb_printf(&b, ") : %s -> %s", lay_dtype_name(t->cpu_dt), order);
  if (value) {
    lg_sb_printf(&b, "\n    ");
    sb_value(&b, value);
  }
  lg_sb_printf(&b, "\n");
  return lg_sb_take(&b);
}

static void sb_op(lg_strbuf *b, const op *o) {
  switch (o->k) {
  case OP_QUANT:
  case OP_DEQUANT:
  case OP_CAST:
    sb_value(b, o);
    return;
  case OP_PAD:
    lg_sb_printf(b, "pad(start = ");
    sb_shape(b, o->a, o->rin);
    lg_sb_printf(b, ", end = ");
    sb_shape(b, o->b, o->rin);
    lg_sb_printf(b, ")");
    return;
  case OP_RESHAPE:
    lg_sb_printf(b, "reshape(");
    sb_shape(b, o->out, o->rout);
    lg_sb_printf(b, ")");
    return;
  case OP_TRANSPOSE:
    lg_sb_printf(b, "transpose(");
    sb_shape(b, o->a, o->rin);
    lg_sb_printf(b, ")");
    return;
  case OP_SLICE:
    lg_sb_printf(b, "slice(start = ");
    sb_shape(b, o->a, o->rin);
    lg_sb_printf(b, ", size = ");
    sb_shape(b, o->b, o->rin);
    lg_sb_printf(b, ")");
    return;
  }
}

/* The inverse of o (which maps o->in to o->out): maps o->out to o->in. */
static void invert_op(const op *o, op *r) {
  memset(r, 0, sizeof *r);
  r->rin = o->rout;
  memcpy(r->in, o->out, sizeof r->in);
  r->rout = o->rin;
  memcpy(r->out, o->in, sizeof r->out);
  r->din = o->dout;
  r->dout = o->din;
  r->scale = o->scale;
  r->zp = o->zp;
  switch (o->k) {
  case OP_QUANT: r->k = OP_DEQUANT; break;
  case OP_DEQUANT: r->k = OP_QUANT; break;
  case OP_CAST: r->k = OP_CAST; break;
  case OP_RESHAPE: r->k = OP_RESHAPE; break; /* back to o->in */
  case OP_TRANSPOSE:
    r->k = OP_TRANSPOSE;
    for (int i = 0; i < o->rin; i++) r->a[o->a[i]] = i;
    break;
  case OP_SLICE: /* pad the removed amounts back (don't-care values) */
    r->k = OP_PAD;
    for (int i = 0; i < o->rin; i++) {
      r->a[i] = o->a[i];
      r->b[i] = o->in[i] - o->a[i] - o->b[i];
    }
    break;
  case OP_PAD: /* keep the window the pad surrounded */
    r->k = OP_SLICE;
    for (int i = 0; i < o->rin; i++) {
      r->a[i] = o->a[i];
      r->b[i] = o->in[i];
    }
    break;
  }
}

/* ---- One entry --------------------------------------------------------------------- */

static int read_tensor(pctx *p, const cJSON *j, int output, int index,
                       tensor *t) {
  li_hsi *h = p->h;
  char path[64];
  snprintf(path, sizeof path, "%s[%d]", output ? "outputs" : "inputs", index);
  memset(t, 0, sizeof *t);
  t->output = output;
  t->index = index;
  snprintf(t->def, sizeof t->def, "%s%d", output ? "output" : "input", index);
  if (!cJSON_IsObject(j))
    return perr(p, path, "a tensor entry must be an object, not %s",
                jtype(j));
  const char *s;
  if (get_string(p, j, path, "name", 0, &s)) return -1;
  if (s && !(t->name = strdup(s))) return perr(p, path, "out of memory");
  if (get_string(p, j, path, "tensor_name", 0, &s)) return -1;
  if (s && !(t->tensor_name = strdup(s))) return perr(p, path, "out of memory");
  const cJSON *chain = cJSON_GetObjectItemCaseSensitive(j, "rt_transformations");
  if (chain && !cJSON_IsArray(chain))
    return perrf(p, path, "rt_transformations", "must be an array, not %s",
                 jtype(chain));
  t->has_chain = chain != NULL;
  if (get_ints(p, j, path, "cpu_shape", 1, t->cpu, &t->rank, LAY_MAX_RANK) ||
      get_fmt(p, j, path, "cpu_format", !chain, &t->cpu_fmt) ||
      get_dtype(p, j, path, "cpu_dtype", &t->cpu_dt) ||
      get_ints(p, j, path, "hw_shape", 1, t->hw, &t->hw_rank, MAXR) ||
      get_fmt(p, j, path, "hw_format", !chain, &t->hw_fmt) ||
      get_dtype(p, j, path, "hw_dtype", &t->hw_dt))
    return -1;
  double v;
  int got = get_number(p, j, path, "scale_factor", 0, &v);
  if (got < 0) return -1;
  if (got && v != -1.0) {
    if (!(v > 0))
      return perrf(p, path, "scale_factor",
                   "must be positive or -1.0 (unset), not %.17g", v);
    t->has_scale = 1;
    t->scale = v;
  }
  got = get_number(p, j, path, "zero_point", 0, &t->zp);
  if (got < 0) return -1;
  if (got && (t->zp != floor(t->zp) || fabs(t->zp) > 2147483647.0))
    return perrf(p, path, "zero_point",
                 "must be an integer in the int32 range, not %.17g", t->zp);
  t->has_zp = got;
  int ovf = 0;
  prod(t->cpu, t->rank, &ovf);
  prod(t->hw, t->hw_rank, &ovf);
  if (ovf) return perr(p, path, "a shape's element count overflows 64 bits");

  char sh[200], sh2[200];
  op value;
  int has_value = 0;
  /* ---- The annotation ---- */
  int64_t ahw[MAXR];
  int ahr = 0;
  const char *why = NULL;
  char *ann = NULL;
  if (!chain) {
    has_value = implied_value(h, t, path, &value, 1) >= 0;
    ann = annotation_text(t, t->def, ahw, &ahr, &why,
                          has_value ? &value : NULL);
    if (!ann && !why) return perr(p, path, "out of memory");
    if (!ann) {
      char f[160];
      snprintf(f, sizeof f, "%s", why);
      shape_str(sh, sizeof sh, t->cpu, t->rank);
      return perrf(p, path, "hw_format", "cannot derive %s from %s %s: %s",
                  fmt_names[t->hw_fmt], fmt_names[t->cpu_fmt], sh, f);
    }
    t->spec = ann;
    if (!same_shape(ahw, ahr, t->hw, t->hw_rank)) {
      shape_str(sh, sizeof sh, t->hw, t->hw_rank);
      shape_str(sh2, sizeof sh2, ahw, ahr);
      add_issue(h, t, 1,
                "%s.hw_shape: %s, but cpu_format %s -> hw_format %s gives %s",
                path, sh,
                fmt_names[t->cpu_fmt], fmt_names[t->hw_fmt], sh2);
    }
    return 0;
  }

  /* ---- The chain: walk it from its own start ---- */
  int n = cJSON_GetArraySize(chain);
  if (n > LI_HSI_MAX_OPS)
    return perrf(p, path, "rt_transformations", "has more than %d entries",
                 LI_HSI_MAX_OPS);
  op *ops = calloc((size_t)n + 1, sizeof *ops);
  t->ops = calloc((size_t)n + 1, sizeof *t->ops);
  if (!ops || !t->ops) {
    free(ops);
    return perr(p, path, "out of memory");
  }
  int r = output ? t->hw_rank : t->rank;
  int64_t cur[MAXR];
  memcpy(cur, output ? t->hw : t->cpu, (size_t)r * sizeof *cur);
  lay_dtype dt = output ? t->hw_dt : t->cpu_dt;
  int nq = 0;
  for (int i = 0; i < n; i++) {
    char opath[96];
    snprintf(opath, sizeof opath, "%s.rt_transformations[%d]", path, i);
    if (read_op(p, t, cJSON_GetArrayItem(chain, i), opath, r, cur, dt,
                &ops[i]))
      goto fail;
    r = ops[i].rout;
    memcpy(cur, ops[i].out, sizeof cur);
    dt = ops[i].dout;
    if (ops[i].k == OP_QUANT || ops[i].k == OP_DEQUANT) {
      nq++;
      if (nq > 1) {
        perr(p, opath,
             "a chain converts the element type once; this is the second "
             "quantize/dequantize");
        goto fail;
      }
      if (!output && i != 0)
        add_issue(h, t, 1, "%s: %s must be the first entry for inputs",
                  opath, op_names[ops[i].k]);
      if (output && i != n - 1)
        add_issue(h, t, 1, "%s: %s must be the last entry for outputs",
                  opath, op_names[ops[i].k]);
    }
  }
  /* Where the chain ends must be the other side's declared shape/dtype. */
  const int64_t *end = output ? t->cpu : t->hw;
  int endr = output ? t->rank : t->hw_rank;
  lay_dtype enddt = output ? t->cpu_dt : t->hw_dt;
  if (!same_shape(cur, r, end, endr)) {
    shape_str(sh, sizeof sh, end, endr);
    shape_str(sh2, sizeof sh2, cur, r);
    add_issue(h, t, 1, "%s.%s: %s, but rt_transformations gives %s", path,
              output ? "cpu_shape" : "hw_shape", sh, sh2);
  }
  if (nq && dt != enddt)
    add_issue(h, t, 1, "%s.%s: %s, but rt_transformations gives %s", path,
              output ? "cpu_dtype" : "hw_dtype", lay_dtype_name(enddt),
              lay_dtype_name(dt));
  /* No step converts the type: the annotation's value rule applies. */
  if (!nq) has_value = implied_value(h, t, path, &value, 1) >= 0;

  /* CPU -> NPU order: inputs as listed; outputs inverted. */
  t->nops = 0;
  if (has_value) {
    value.rin = value.rout = output ? r : t->rank;
    memcpy(value.in, output ? cur : t->cpu, sizeof value.in);
    memcpy(value.out, value.in, sizeof value.out);
    t->ops[t->nops++] = value;
  }
  for (int i = 0; i < n; i++) {
    if (output) invert_op(&ops[n - 1 - i], &t->ops[t->nops++]);
    else t->ops[t->nops++] = ops[i];
  }
  /* The transform's input: the CPU tensor where the chain meets it. */
  const int64_t *xin = output ? cur : t->cpu;
  int xr = output ? r : t->rank;
  lay_dtype xdt = t->cpu_dt;
  if (xr > LAY_MAX_RANK) {
    shape_str(sh, sizeof sh, xin, xr);
    perr(p, path, "the CPU side %s has more than %d dimensions", sh,
         LAY_MAX_RANK);
    goto fail;
  }
  lg_strbuf b = {0};
  lg_sb_printf(&b, "transform %s (x : %s[", t->def, lay_dtype_name(xdt));
  const char *const *dn = t->cpu_fmt && fmt_dims[t->cpu_fmt][0] &&
                                  fmt_rank[t->cpu_fmt] == xr
                              ? fmt_dims[t->cpu_fmt]
                              : NULL;
  for (int i = 0; i < xr; i++) {
    lg_sb_printf(&b, "%s", i ? ", " : "");
    if (dn) lg_sb_printf(&b, "%s=", dn[i]);
    lg_sb_printf(&b, "%lld", (long long)xin[i]);
  }
  lg_sb_printf(&b, "]) =");
  if (t->nops == 0) { /* an empty chain: the identity */
    lg_sb_printf(&b, "\n    reshape(");
    sb_shape(&b, xin, xr);
    lg_sb_printf(&b, ")");
  }
  for (int i = 0; i < t->nops; i++) {
    lg_sb_printf(&b, "\n    %s", i ? "| " : "");
    sb_op(&b, &t->ops[i]);
  }
  lg_sb_printf(&b, "\n");
  if (!(t->spec = lg_sb_take(&b))) {
    perr(p, path, "out of memory");
    goto fail;
  }

  /* The annotation fields beside the chain (--check compares both). */
  char adef[40];
  snprintf(adef, sizeof adef, "%s_ann", t->def);
  op aval;
  int hv = implied_value(h, t, path, &aval, 0) >= 0;
  /* A chain that quantizes has the scale: use it for the annotation when
  ** the annotation has none. */
  for (int i = 0; i < n && hv && !t->has_scale; i++)
    if (ops[i].k == OP_QUANT || ops[i].k == OP_DEQUANT) {
      aval.scale = ops[i].scale;
      aval.zp = ops[i].zp;
      aval.k = is_float(t->cpu_dt) ? OP_QUANT : OP_DEQUANT;
    }
  ann = annotation_text(t, adef, ahw, &ahr, &why, hv ? &aval : NULL);
  if (!ann && !why) {
    perr(p, path, "out of memory");
    goto fail;
  }
  if (ann) {
    t->ann_ok = same_shape(ahw, ahr, t->hw, t->hw_rank);
    if (t->ann_ok) t->ann_spec = ann;
    else free(ann);
    if (!t->ann_ok) {
      shape_str(sh, sizeof sh, t->hw, t->hw_rank);
      shape_str(sh2, sizeof sh2, ahw, ahr);
      /* A plain hw_format only names the positions of hw_shape; a blocked
      ** one fixes the layout and then must agree with the chain. */
      add_issue(h, t, fmt_block(t->hw_fmt) != 0,
                "%s.hw_format: cpu_format %s -> hw_format %s gives %s, not "
                "the hw_shape %s%s",
                path,
                fmt_names[t->cpu_fmt], fmt_names[t->hw_fmt], sh2, sh,
                fmt_block(t->hw_fmt)
                    ? ""
                    : " (not used: rt_transformations takes over)");
    }
  } else if (t->hw_fmt && fmt_rank[t->hw_fmt] != t->hw_rank) {
    shape_str(sh, sizeof sh, t->hw, t->hw_rank);
    add_issue(h, t, 0,
              "%s.hw_format: %s names %d dimensions, hw_shape %s has %d; "
              "not used: rt_transformations takes over (the buffer is the "
              "chain's result, row-major)",
              path, fmt_names[t->hw_fmt], fmt_rank[t->hw_fmt], sh,
              t->hw_rank);
  }
  free(ops);
  return 0;
fail:
  free(ops);
  return -1;
}

/* ---- The report ---------------------------------------------------------------------- */

/* line:col (1-based) of byte offset `off` in json; fills the source line. */
static void json_pos(const char *json, size_t len, size_t off, lay_error *e) {
  int line = 1;
  size_t ls = 0;
  if (off > len) off = len;
  for (size_t i = 0; i < off; i++)
    if (json[i] == '\n') line++, ls = i + 1;
  e->line = line;
  e->col = (int)(off - ls) + 1;
  size_t k = 0;
  for (size_t i = ls; i < len && json[i] != '\n' && json[i] != '\r'; i++) {
    if (k + 1 >= sizeof e->source_line) break;
    unsigned char c = (unsigned char)json[i];
    e->source_line[k++] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  e->source_line[k] = '\0';
}

void li_hsi_free(li_hsi *h) {
  if (!h) return;
  for (int o = 0; o < 2; o++) {
    for (int i = 0; i < h->n[o]; i++) {
      free(h->t[o][i].name);
      free(h->t[o][i].tensor_name);
      free(h->t[o][i].spec);
      free(h->t[o][i].ann_spec);
      free(h->t[o][i].ops);
    }
    free(h->t[o]);
  }
  free(h->issues);
  free(h);
}

lay_status li_hsi_parse(const char *json, size_t len, const char *file,
                        li_hsi **out, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  pctx p = {file ? file : "<json>", err, NULL};
  if (!json || !out) {
    perr(&p, "report", "no JSON text");
    return LAY_E_ARG;
  }
  if (len > LI_HSI_MAX_JSON) {
    perr(&p, "report", "larger than %zu bytes", LI_HSI_MAX_JSON);
    if (err) err->code = LAY_E_LIMIT;
    return LAY_E_LIMIT;
  }
  if (memchr(json, '\0', len)) {
    perr(&p, "report", "contains a NUL byte");
    if (err) json_pos(json, len, (size_t)((const char *)memchr(json, 0, len) - json), err);
    return LAY_E_JSON;
  }
  lay_status st = LAY_E_JSON;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
  li_hsi *h = NULL;
  if (!root) {
    size_t off = end && end >= json ? (size_t)(end - json) : 0;
    /* cJSON points at the last byte when the text stops short: parse a
    ** copy with blanks appended to tell "ran out" from "bad last byte". */
    int at_end = len == 0;
    if (!at_end && off + 1 >= len) {
      char *cp = malloc(len + 8);
      if (cp) {
        memcpy(cp, json, len);
        memset(cp + len, ' ', 8);
        const char *e2 = NULL;
        cJSON *r2 = cJSON_ParseWithLengthOpts(cp, len + 8, &e2, 0);
        at_end = !r2 && e2 && (size_t)(e2 - cp) >= len;
        cJSON_Delete(r2);
        free(cp);
      }
    }
    if (at_end) off = len;
    if (err) {
      perr(&p, "report", "x");
      snprintf(err->message, sizeof err->message,
               at_end ? "malformed JSON: unexpected end of input"
                      : "malformed JSON");
      json_pos(json, len, off, err);
    }
    goto done;
  }
  /* Anything but blanks after the value. */
  if (end) {
    size_t off = (size_t)(end - json);
    while (off < len && strchr(" \t\r\n", json[off])) off++;
    if (off < len) {
      if (err) {
        perr(&p, "report", "x");
        snprintf(err->message, sizeof err->message,
                 "malformed JSON: text after the end of the report");
        json_pos(json, len, off, err);
      }
      goto done;
    }
  }
  if (!cJSON_IsObject(root)) {
    perr(&p, "report", "must be a JSON object, not %s", jtype(root));
    goto done;
  }
  if (!(h = calloc(1, sizeof *h))) {
    st = LAY_E_NOMEM;
    perr(&p, "report", "out of memory");
    goto done;
  }
  h->file = p.file;
  p.h = h;
  static const char *const keys[2] = {"inputs", "outputs"};
  for (int o = 0; o < 2; o++) {
    int fail = 0;
    const cJSON *arr = field(&p, root, "report", keys[o], 1, &fail);
    if (fail) goto done;
    if (!cJSON_IsArray(arr)) {
      perr(&p, keys[o], "must be an array, not %s", jtype(arr));
      goto done;
    }
    int n = cJSON_GetArraySize(arr);
    if (n > LI_HSI_MAX_TENSORS) {
      perr(&p, keys[o], "more than %d entries", LI_HSI_MAX_TENSORS);
      goto done;
    }
    if (n && !(h->t[o] = calloc((size_t)n, sizeof *h->t[o]))) {
      st = LAY_E_NOMEM;
      perr(&p, keys[o], "out of memory");
      goto done;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
      h->n[o] = i + 1; /* so that li_hsi_free frees what was read */
      if (read_tensor(&p, e, o, i, &h->t[o][i])) goto done;
      i++;
    }
  }
  st = LAY_OK;
done:
  cJSON_Delete(root);
  if (st) {
    li_hsi_free(h);
    return st;
  }
  if (err) memset(err, 0, sizeof *err);
  *out = h;
  return LAY_OK;
}

int li_hsi_count(const li_hsi *h, int output) {
  return h ? h->n[output ? 1 : 0] : 0;
}

int li_hsi_find(const li_hsi *h, int output, const char *key) {
  if (!h || !key || !*key) return -1;
  int o = output ? 1 : 0;
  size_t k = strspn(key, "0123456789");
  if (key[k] == '\0' && k < 9) {
    int i = atoi(key);
    return i < h->n[o] ? i : -1;
  }
  for (int i = 0; i < h->n[o]; i++) {
    const tensor *t = &h->t[o][i];
    if ((t->name && !strcmp(t->name, key)) ||
        (t->tensor_name && !strcmp(t->tensor_name, key)))
      return i;
  }
  return -1;
}

int li_hsi_info_get(const li_hsi *h, int output, int index, li_hsi_info *out) {
  int o = output ? 1 : 0;
  if (!h || !out || index < 0 || index >= h->n[o]) return -1;
  const tensor *t = &h->t[o][index];
  memset(out, 0, sizeof *out);
  out->name = t->name;
  out->tensor_name = t->tensor_name;
  out->def = t->def;
  out->spec = t->spec;
  out->ann_spec = t->ann_spec;
  out->has_chain = t->has_chain;
  out->rank = t->rank;
  memcpy(out->cpu_shape, t->cpu, sizeof out->cpu_shape);
  out->hw_rank = t->hw_rank;
  memcpy(out->hw_shape, t->hw, sizeof out->hw_shape);
  out->cpu_dtype = t->cpu_dt;
  out->hw_dtype = t->hw_dt;
  return 0;
}

/* A name fit for a comment line (no newline). */
static void sb_clean(lg_strbuf *b, const char *s) {
  lg_sb_printf(b, "\"");
  for (; *s; s++)
    lg_sb_printf(b, "%c", (unsigned char)*s < 0x20 ? '?' : *s);
  lg_sb_printf(b, "\"");
}

/* The comment lines and definitions of one entry. */
static void sb_entry(lg_strbuf *b, const tensor *t) {
  int o = t->output;
  lg_sb_printf(b, "\n# %s[%d]", o ? "outputs" : "inputs", t->index);
  if (t->name) lg_sb_printf(b, " name "), sb_clean(b, t->name);
  if (t->tensor_name)
    lg_sb_printf(b, " tensor_name "), sb_clean(b, t->tensor_name);
  lg_sb_printf(b, "\n# cpu %s %s ",
            fmt_names[t->cpu_fmt][0] ? fmt_names[t->cpu_fmt] : "-",
            lay_dtype_name(t->cpu_dt));
  sb_shape(b, t->cpu, t->rank);
  lg_sb_printf(b, " -> hw %s %s ",
            fmt_names[t->hw_fmt][0] ? fmt_names[t->hw_fmt] : "-",
            lay_dtype_name(t->hw_dt));
  sb_shape(b, t->hw, t->hw_rank);
  if (t->has_chain)
    lg_sb_printf(b, "\n# rt_transformations%s",
              o ? " (listed NPU -> CPU, inverted here to CPU -> NPU)" : "");
  if (t->fatal) {
    /* Not defined: an inconsistent entry's text need not even compile. */
    lg_sb_printf(b, "\n# not defined, the entry is inconsistent:\n");
    for (const char *q = t->spec; *q;) {
      size_t l = strcspn(q, "\n");
      lg_sb_printf(b, "# %.*s\n", (int)l, q);
      q += l + (q[l] == '\n');
    }
    return;
  }
  lg_sb_printf(b, "\n%s", t->spec);
  if (t->ann_spec)
    lg_sb_printf(b, "# the annotation fields of the same entry\n%s",
              t->ann_spec);
}

char *li_hsi_spec_entry(const li_hsi *h, int output, int index) {
  int o = output ? 1 : 0;
  if (!h || index < 0 || index >= h->n[o]) return NULL;
  lg_strbuf b = {0};
  sb_entry(&b, &h->t[o][index]);
  return lg_sb_take(&b);
}

char *li_hsi_spec_header(const li_hsi *h, const char *ns) {
  if (!h) return NULL;
  lg_strbuf b = {0};
  lg_sb_printf(&b, "# Generated by lay from %s (flexmlrt-hsi.json).\n",
            h->file);
  lg_sb_printf(&b, "namespace %s\n", ns && *ns ? ns : "hsi");
  return lg_sb_take(&b);
}

char *li_hsi_spec(const li_hsi *h, const char *ns) {
  if (!h) return NULL;
  char *head = li_hsi_spec_header(h, ns);
  if (!head) return NULL;
  lg_strbuf b = {0};
  lg_sb_printf(&b, "%s", head);
  free(head);
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < h->n[o]; i++) sb_entry(&b, &h->t[o][i]);
  return lg_sb_take(&b);
}

lay_status li_hsi_load(const li_hsi *h, lay_ctx *ctx, const char *ns,
                       lay_error *err) {
  char *text = li_hsi_spec(h, ns);
  if (!text) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->code = LAY_E_NOMEM;
      snprintf(err->message, sizeof err->message, "out of memory");
    }
    return LAY_E_NOMEM;
  }
  char name[300];
  snprintf(name, sizeof name, "%s.lay", h->file);
  lay_status st = lay_ctx_load_string(ctx, name, text, strlen(text), err);
  free(text);
  return st;
}

int li_hsi_issue_count(const li_hsi *h) { return h ? h->nissues : 0; }

const li_hsi_issue *li_hsi_issue_get(const li_hsi *h, int i) {
  return h && i >= 0 && i < h->nissues ? &h->issues[i] : NULL;
}

const li_hsi_issue *li_hsi_entry_issue(const li_hsi *h, int output,
                                       int index) {
  for (int i = 0; h && i < h->nissues; i++)
    if (h->issues[i].fatal && h->issues[i].output == (output ? 1 : 0) &&
        h->issues[i].index == index)
      return &h->issues[i];
  return NULL;
}

/* ---- --check ----------------------------------------------------------------------- */

/* Pseudo-random CPU data of type dt (finite values, including exact
** halves so that rounding is exercised). */
static void fill_random(unsigned char *buf, size_t bytes, lay_dtype dt,
                        uint64_t seed) {
  uint64_t s = seed;
  size_t es = lay_dtype_size(dt);
  for (size_t i = 0; i + es <= bytes; i += es) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(s >> 33);
    if (dt == LAY_DT_FP32 || dt == LAY_DT_BF16) {
      float f = (float)((int)(r % 4001) - 2000) / 256.0f +
                (float)(r >> 20 & 0xff) * 1e-6f;
      uint32_t u;
      memcpy(&u, &f, 4);
      if (dt == LAY_DT_FP32) memcpy(buf + i, &u, 4);
      else {
        uint16_t v = (uint16_t)(u >> 16);
        memcpy(buf + i, &v, 2);
      }
    } else if (dt == LAY_DT_FP16) {
      uint16_t v = (uint16_t)((r & 0x3bff) | (r >> 16 & 0x8000));
      memcpy(buf + i, &v, 2);
    } else {
      memcpy(buf + i, &r, es);
    }
  }
}

static int push_issue(li_hsi_issue **v, int *n, int *cap,
                      const li_hsi_issue *is) {
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 8;
    li_hsi_issue *nv = realloc(*v, (size_t)nc * sizeof *nv);
    if (!nv) return -1;
    *v = nv;
    *cap = nc;
  }
  (*v)[(*n)++] = *is;
  return 0;
}

/* Run NS.def and NS.def_ann on the same data; 0 same bytes, 1 differ
** (text in is), -1 error. */
static int compare_bytes(const tensor *t, lay_ctx *ctx, const char *ns,
                         li_hsi_issue *is, lay_error *err) {
  char a[128], b[128];
  snprintf(a, sizeof a, "%s.%s", ns, t->def);
  snprintf(b, sizeof b, "%s.%s_ann", ns, t->def);
  lay_plan *pa = NULL, *pb = NULL;
  unsigned char *src = NULL, *da = NULL, *db = NULL;
  int rc = -1;
  if (lay_plan_create(ctx, a, t->cpu, t->rank, t->cpu_dt, LAY_PACK, &pa,
                      err) ||
      lay_plan_create(ctx, b, t->cpu, t->rank, t->cpu_dt, LAY_PACK, &pb,
                      err))
    goto done;
  size_t ns_ = lay_plan_src_bytes(pa), na = lay_plan_dst_bytes(pa),
         nb = lay_plan_dst_bytes(pb);
  if (!(src = malloc(ns_ ? ns_ : 1)) || !(da = malloc(na ? na : 1)) ||
      !(db = malloc(nb ? nb : 1))) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->code = LAY_E_NOMEM;
      snprintf(err->message, sizeof err->message, "out of memory");
    }
    goto done;
  }
  fill_random(src, ns_, t->cpu_dt, 0x1a5u + (uint64_t)t->index);
  if (lay_plan_run(pa, src, ns_, da, na, 1, err) ||
      lay_plan_run(pb, src, ns_, db, nb, 1, err))
    goto done;
  rc = 0;
  const char *side = t->output ? "outputs" : "inputs";
  snprintf(is->text, sizeof is->text,
           "%s[%d]: the annotation fields and rt_transformations give the "
           "same %zu bytes",
           side, t->index, na);
  if (na != nb) {
    snprintf(is->text, sizeof is->text,
             "%s[%d]: the annotation fields give a %zu-byte buffer, "
             "rt_transformations %zu bytes",
             side, t->index, nb, na);
    rc = 1;
  } else {
    for (size_t i = 0; i < na; i++)
      if (da[i] != db[i]) {
        snprintf(is->text, sizeof is->text,
                 "%s[%d]: the annotation fields and rt_transformations "
                 "describe different bytes (first difference at byte %zu)",
                 side, t->index, i);
        rc = 1;
        break;
      }
  }
done:
  lay_plan_free(pa);
  lay_plan_free(pb);
  free(src);
  free(da);
  free(db);
  return rc;
}

int li_hsi_check(const li_hsi *h, lay_ctx *ctx, const char *ns,
                 li_hsi_issue **issues, int *nissues, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  *issues = NULL;
  *nissues = 0;
  int n = 0, cap = 0, fatal = 0;
  li_hsi_issue *v = NULL;
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < h->n[o]; i++) {
      const tensor *t = &h->t[o][i];
      int bad = 0;
      for (int k = 0; k < h->nissues; k++) {
        const li_hsi_issue *is = &h->issues[k];
        if (is->output != o || is->index != i) continue;
        if (push_issue(&v, &n, &cap, is)) goto oom;
        if (is->fatal) bad = 1, fatal++;
      }
      if (bad || !t->ann_spec || !t->ann_ok) continue;
      li_hsi_issue is;
      memset(&is, 0, sizeof is);
      is.output = o;
      is.index = i;
      is.fatal = 1;
      int rc = compare_bytes(t, ctx, ns, &is, err);
      if (rc < 0) {
        free(v);
        return -1;
      }
      is.fatal = rc == 1;
      fatal += rc == 1;
      if (push_issue(&v, &n, &cap, &is)) goto oom;
    }
  *issues = v;
  *nissues = n;
  return fatal;
oom:
  free(v);
  if (err) {
    err->code = LAY_E_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
  }
  return -1;
}

/* ---- lay export ------------------------------------------------------------------------ */

static cJSON *int_array(const int64_t *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; a && i < n; i++) {
    cJSON *x = cJSON_CreateNumber((double)v[i]);
    if (!x || !cJSON_AddItemToArray(a, x)) {
      cJSON_Delete(x);
      cJSON_Delete(a);
      return NULL;
    }
  }
  return a;
}

/* Append one transformation (kind and fields) to arr; 0 or -1 on OOM. */
static int add_op(cJSON *arr, const op *o) {
  cJSON *j = cJSON_CreateObject();
  if (!j || !cJSON_AddItemToArray(arr, j)) {
    cJSON_Delete(j);
    return -1;
  }
  if (!cJSON_AddStringToObject(j, "transformation", op_names[o->k]))
    return -1;
  switch (o->k) {
  case OP_QUANT:
  case OP_DEQUANT:
  case OP_CAST:
    if (!cJSON_AddNumberToObject(j, "scale", o->scale) ||
        !cJSON_AddStringToObject(j, "to_dtype", lay_dtype_name(o->dout)) ||
        !cJSON_AddNumberToObject(j, "zero_point", o->zp))
      return -1;
    return 0;
  case OP_PAD:
    return cJSON_AddItemToObject(j, "pad_at_start", int_array(o->a, o->rin)) &&
                   cJSON_AddItemToObject(j, "pad_at_end",
                                         int_array(o->b, o->rin)) &&
                   cJSON_AddItemToObject(j, "output_shape",
                                         int_array(o->out, o->rout))
               ? 0
               : -1;
  case OP_RESHAPE:
    return cJSON_AddItemToObject(j, "output_shape", int_array(o->out, o->rout))
               ? 0
               : -1;
  case OP_TRANSPOSE:
    return cJSON_AddItemToObject(j, "perm", int_array(o->a, o->rin)) ? 0 : -1;
  case OP_SLICE:
    return cJSON_AddItemToObject(j, "start", int_array(o->a, o->rin)) &&
                   cJSON_AddItemToObject(j, "size", int_array(o->b, o->rin))
               ? 0
               : -1;
  }
  return -1;
}

char *li_hsi_export(const char *format, const int64_t *shape, int rank,
                    lay_dtype dtype, int quantize, double scale,
                    double zero_point, int as_output, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!format || !shape) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no format or shape");
    return NULL;
  }
  const char *f = format;
  if (!strncmp(f, "amd.", 4)) f += 4;
  int x = 0;
  if (!strcmp(f, "hcwnc4")) x = 4;
  else if (!strcmp(f, "hcwnc8")) x = 8;
  else if (!strcmp(f, "hcwnc16")) x = 16;
  else if (strcmp(f, "ab")) {
    lg_error_plain(err, LAY_E_NAME, NULL,
         "cannot export '%s': the flexmlrt-hsi.json formats are "
         "amd.hcwnc4, amd.hcwnc8, amd.hcwnc16 and amd.ab",
         format);
    return NULL;
  }
  int want = x ? 4 : 2;
  if (rank != want) {
    lg_error_plain(err, LAY_E_SHAPE, NULL, "%s needs a %d-D shape (%s), not %d-D", format,
         want, x ? "n,c,h,w" : "a,b", rank);
    return NULL;
  }
  for (int i = 0; i < rank; i++)
    if (shape[i] < 1 || shape[i] > (int64_t)1 << 40) {
      lg_error_plain(err, LAY_E_SHAPE, NULL, "dimension %d of the shape is %lld", i,
           (long long)shape[i]);
      return NULL;
    }
  int ovf = 0;
  prod(shape, rank, &ovf);
  if (ovf) {
    lg_error_plain(err, LAY_E_OVERFLOW, NULL, "the shape's element count overflows 64 bits");
    return NULL;
  }
  lay_dtype cdt = dtype ? dtype : quantize ? LAY_DT_FP32 : LAY_DT_INT8;
  lay_dtype hdt = quantize ? LAY_DT_INT8 : cdt;
  if (quantize && !is_float(cdt)) {
    lg_error_plain(err, LAY_E_TYPE, NULL, "--quantize needs a float CPU type, not %s",
         lay_dtype_name(cdt));
    return NULL;
  }
  if (quantize && (!(scale > 0) || !isfinite(scale) ||
                   zero_point != floor(zero_point) || fabs(zero_point) > 255)) {
    lg_error_plain(err, LAY_E_ARG, NULL,
         "--quantize needs a positive scale and an integer zero point");
    return NULL;
  }
  /* The chain CPU -> NPU. */
  op ops[4];
  int n = 0;
  int64_t cur[MAXR];
  int r = rank;
  memcpy(cur, shape, (size_t)rank * sizeof *cur);
  if (quantize) {
    op *o = &ops[n++];
    memset(o, 0, sizeof *o);
    o->k = OP_QUANT;
    o->rin = o->rout = r;
    memcpy(o->in, cur, sizeof o->in);
    memcpy(o->out, cur, sizeof o->out);
    o->din = cdt;
    o->dout = hdt;
    o->scale = scale;
    o->zp = zero_point;
  }
  int64_t hw[5];
  int hwr;
  if (x) {
    int64_t N = shape[0], C = shape[1], H = shape[2], W = shape[3];
    int64_t cb = (C + x - 1) / x;
    if (cb * x != C) {
      op *o = &ops[n++];
      memset(o, 0, sizeof *o);
      o->k = OP_PAD;
      o->rin = o->rout = 4;
      memcpy(o->in, cur, sizeof o->in);
      o->b[1] = cb * x - C;
      memcpy(o->out, cur, sizeof o->out);
      o->out[1] = cb * x;
      o->din = o->dout = hdt;
      memcpy(cur, o->out, sizeof cur);
    }
    op *o = &ops[n++];
    memset(o, 0, sizeof *o);
    o->k = OP_RESHAPE;
    o->rin = 4;
    memcpy(o->in, cur, sizeof o->in);
    o->rout = 5;
    int64_t rs[5] = {N, cb, x, H, W};
    memcpy(o->out, rs, sizeof rs);
    o->din = o->dout = hdt;
    memcpy(cur, rs, sizeof rs);
    o = &ops[n++];
    memset(o, 0, sizeof *o);
    o->k = OP_TRANSPOSE;
    o->rin = o->rout = 5;
    memcpy(o->in, cur, sizeof o->in);
    static const int64_t perm[5] = {3, 1, 4, 0, 2}; /* -> [H, C/x, W, N, x] */
    memcpy(o->a, perm, sizeof perm);
    for (int i = 0; i < 5; i++) o->out[i] = cur[perm[i]];
    o->din = o->dout = hdt;
    memcpy(hw, o->out, sizeof hw);
    hwr = 5;
  } else {
    if (!n) { /* an explicit identity, so that the chain is never empty */
      op *o = &ops[n++];
      memset(o, 0, sizeof *o);
      o->k = OP_RESHAPE;
      o->rin = o->rout = 2;
      memcpy(o->in, cur, sizeof o->in);
      memcpy(o->out, cur, sizeof o->out);
      o->din = o->dout = hdt;
    }
    hw[0] = shape[0];
    hw[1] = shape[1];
    hwr = 2;
  }
  (void)r;
  cJSON *root = cJSON_CreateObject();
  cJSON *ins = cJSON_AddArrayToObject(root, "inputs");
  cJSON *outs = cJSON_AddArrayToObject(root, "outputs");
  cJSON *e = cJSON_CreateObject();
  char *text = NULL;
  if (!root || !ins || !outs || !e ||
      !cJSON_AddItemToArray(as_output ? outs : ins, e)) {
    cJSON_Delete(e);
    goto oom;
  }
  /* No "name": that is the compiler's own identifier for the buffer. */
  cJSON *chain;
  if (!cJSON_AddItemToObject(e, "cpu_shape", int_array(shape, rank)) ||
      !cJSON_AddStringToObject(e, "cpu_format", x ? "NCHW" : "AB") ||
      !cJSON_AddStringToObject(e, "cpu_dtype", lay_dtype_name(cdt)) ||
      !cJSON_AddItemToObject(e, "hw_shape", int_array(hw, hwr)) ||
      !cJSON_AddStringToObject(e, "hw_format",
                               x ? fmt_names[x == 4   ? F_HCWNC4
                                             : x == 8 ? F_HCWNC8
                                                      : F_HCWNC16]
                                 : "AB") ||
      !cJSON_AddStringToObject(e, "hw_dtype", lay_dtype_name(hdt)) ||
      !cJSON_AddNumberToObject(e, "scale_factor", quantize ? scale : -1.0) ||
      !cJSON_AddNumberToObject(e, "zero_point", quantize ? zero_point : 0) ||
      !(chain = cJSON_AddArrayToObject(e, "rt_transformations")))
    goto oom;
  for (int i = 0; i < n; i++) {
    /* outputs list the chain NPU -> CPU: the inverses, last first */
    op inv;
    if (as_output) invert_op(&ops[n - 1 - i], &inv);
    if (add_op(chain, as_output ? &inv : &ops[i])) goto oom;
  }
  text = cJSON_Print(root);
  if (!text) goto oom;
  cJSON_Delete(root);
  size_t l = strlen(text);
  char *t2 = malloc(l + 2);
  if (!t2) {
    cJSON_free(text);
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    return NULL;
  }
  memcpy(t2, text, l);
  t2[l] = '\n';
  t2[l + 1] = '\0';
  cJSON_free(text);
  return t2;
oom:
  cJSON_Delete(root);
  lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
  return NULL;
}
