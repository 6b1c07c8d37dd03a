/*
** hsi.c: AMD's flexmlrt-hsi.json compilation report -> lay spec text, and
** a layout -> a report entry (lay export); see hsi.h.
**
** The order of work: the text is checked as strict JSON (RFC 8259, at
** most cJSON's 1000 levels deep; the first offending character is
** reported at its line:col, the column counting characters), cJSON parses
** it, and a key given twice in any object fails with its JSON path. Every
** field of every entry is fetched with its type checked, and a missing or
** mistyped one fails with its JSON path. Each entry is then turned into
** lay spec text:
**   - the annotation form (cpu_format -> hw_format) becomes a `layout`
**     whose dims are the CPU dims in cpu_format order, e.g.
**       layout input0 (n, c, h, w) : fp32 -> [h, c/4, w, n, c%4]
**           cast(to = bf16)
**     with the value clause that cpu_dtype, hw_dtype, scale_factor and
**     zero_point mean (implied_value: a quantize to an integer hw_dtype, a
**     dequantize from an integer cpu_dtype, a plain cast between floats
**     when scale_factor is -1.0, unset);
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
** declared fields (cpu_shape, hw_shape, dtypes, scales, zero points, byte
** sizes) and what the formats or the chain compute are recorded as issues
** of their entry, every one of them (a step whose result cannot be
** computed ends the walk of that entry only): they make the entry
** unrunnable and are what `lay hsi --check` reports. A field outside
** AMD's table is a note (the doc says extensions of the format exist); a
** transformation parameter lay does not know is an inconsistency (it
** could change what the step computes).
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

#include "ctx.h"
#include "diag.h"
#include "hsi.h"
#include "lang.h"
#include "strbuf.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR LAY_MAX_AXES        /* rank of any intermediate shape */
#define MAX_INT 9007199254740992.0 /* 2^53: exact in a double */

/* ---- Formats ------------------------------------------------------------- */

typedef enum hsi_fmt {
  F_NONE = 0, /* absent */
  F_NCHW, F_NHWC, F_AB, F_HCWNC4, F_HCWNC8, F_HCWNC16
} hsi_fmt; /* ORDER: fmt_names */

static const char *const fmt_names[] = {"",   "NCHW",   "NHWC",  "AB",
                                        "HCWNC4", "HCWNC8", "HCWNC16"};

/* The CPU-side dimension names of a plain format; NULL for blocked ones. */
static const char *const fmt_dims[][4] = {
    {NULL}, {"n", "c", "h", "w"}, {"n", "h", "w", "c"}, {"a", "b"},
    {NULL}, {NULL},               {NULL}};
static const int fmt_rank[] = {0, 4, 4, 2, 5, 5, 5};

static int fmt_block(hsi_fmt f) {
  return f == F_HCWNC4 ? 4 : f == F_HCWNC8 ? 8 : f == F_HCWNC16 ? 16 : 0;
}

static hsi_fmt fmt_parse(const char *s) {
  for (int i = 1; i < (int)(sizeof fmt_names / sizeof *fmt_names); i++) {
    const char *a = fmt_names[i], *b = s;
    while (*a && toupper((unsigned char)*b) == *a) a++, b++;
    if (!*a && !*b) return (hsi_fmt)i;
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
  hsi_fmt cpu_fmt, hw_fmt;        /* F_NONE when absent */
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

struct lay_hsi {
  const char *file;     /* for errors */
  int n[2];             /* inputs, outputs */
  tensor *t[2];
  int nissues, capissues;
  lay_hsi_issue *issues;
};

/* ---- Text buffers -------------------------------------------------------------- */

static void sb_shape(lg_strbuf *b, const int64_t *v, int n) {
  lg_sb_printf(b, "[");
  for (int i = 0; i < n; i++) lg_sb_printf(b, "%s%lld", i ? "," : "", (long long)v[i]);
  lg_sb_printf(b, "]");
}

/* v as the shortest of %.15g, %.16g, %.17g that reads back as v ("0.1",
** not "0.10000000000000001"); buf holds 32 bytes. */
static const char *gnum(double v, char *buf) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, 32, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

/* A number the lexer reads back exactly ("1", "0.25", "1e-05", "-3": all
** valid lay tokens, with unary minus). */
static void sb_num(lg_strbuf *b, double v) {
  char buf[32];
  lg_sb_printf(b, "%s", gnum(v, buf));
}

/* ---- Errors ---------------------------------------------------------------------- */

/* A parse in progress: where errors go. */
typedef struct pctx {
  const char *file;
  lay_error *err;
  lay_hsi *h;
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
static int add_issue(lay_hsi *h, tensor *t, int fatal, const char *fmt,
                     ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int add_issue(lay_hsi *h, tensor *t, int fatal, const char *fmt,
                     ...) {
  if (fatal) t->fatal = 1; /* even when the text cannot be kept */
  if (h->nissues == h->capissues) {
    int nc = h->capissues ? h->capissues * 2 : 8;
    lay_hsi_issue *ni = realloc(h->issues, (size_t)nc * sizeof *ni);
    if (!ni) return -1;
    h->issues = ni;
    h->capissues = nc;
  }
  lay_hsi_issue *is = &h->issues[h->nissues++];
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
  char nb[32];
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
      return perrf(p, path, ek, "must be an integer, not %s", gnum(d, nb));
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
                   int required, hsi_fmt *out) {
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

/* The fields of a tensor entry (AMD's table) and the parameters of each
** transformation (ORDER: opk), besides "transformation" itself. */
static const char *const entry_keys[] = {
    "name",     "tensor_name", "cpu_shape",    "cpu_format",
    "cpu_dtype", "hw_shape",   "hw_format",    "hw_dtype",
    "scale_factor", "zero_point", "rt_transformations", NULL};
static const char *const op_keys[][4] = {
    {"to_dtype", "scale", "zero_point", NULL},
    {"to_dtype", "scale", "zero_point", NULL},
    {"pad_at_start", "pad_at_end", "output_shape", NULL},
    {"output_shape", NULL},
    {"perm", NULL},
    {"start", "size", NULL},
    {NULL}};

/* The first member of object o whose key is not `extra` nor in `known`
** (NULL-terminated); NULL when there is none. */
static const char *unknown_key(const cJSON *o, const char *extra,
                               const char *const *known) {
  for (const cJSON *c = o->child; c; c = c->next) {
    const char *k = c->string ? c->string : "";
    int found = extra && !strcmp(k, extra);
    for (int i = 0; !found && known[i]; i++) found = !strcmp(k, known[i]);
    if (!found) return k;
  }
  return NULL;
}

/* "a, b or c" of a NULL-terminated list, into buf. */
static const char *key_list(const char *const *v, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 0; v[i] && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%s",
                          !i ? "" : v[i + 1] ? ", " : " or ", v[i]);
  return buf;
}

/* The range of integer type t. */
static void int_range(lay_dtype t, double *lo, double *hi) {
  switch (t) {
  case LAY_DT_INT8: *lo = -128, *hi = 127; return;
  case LAY_DT_UINT8: *lo = 0, *hi = 255; return;
  case LAY_DT_INT16: *lo = -32768, *hi = 32767; return;
  case LAY_DT_UINT16: *lo = 0, *hi = 65535; return;
  default: *lo = -2147483648.0, *hi = 2147483647.0; return;
  }
}

/* NULL when z is a zero point of integer type t, else why not (in buf). */
static const char *zp_fault(double z, lay_dtype t, char *buf, size_t cap) {
  char nb[32];
  double lo, hi;
  int_range(t, &lo, &hi);
  if (z != floor(z))
    snprintf(buf, cap, "must be an integer, not %s", gnum(z, nb));
  else if (z < lo || z > hi)
    snprintf(buf, cap, "%s is outside the %s range [%.0f, %.0f]", gnum(z, nb),
             lay_dtype_name(t), lo, hi);
  else
    return NULL;
  return buf;
}

/* 1 when v[0..n) elements of type dt take more than INT64_MAX bytes (the
** planner's limit), or their count overflows. */
static int bytes_overflow(const int64_t *v, int n, lay_dtype dt) {
  int ovf = 0;
  int64_t e = prod(v, n, &ovf);
  return ovf || e > INT64_MAX / (int64_t)lay_dtype_size(dt);
}

/* Record an inconsistency of entry t at "PATH.FIELD" (FIELD may be NULL). */
static void chain_issue(pctx *p, tensor *t, const char *path,
                        const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

static void chain_issue(pctx *p, tensor *t, const char *path,
                        const char *field, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  add_issue(p->h, t, 1, "%s%s%s: %s", path, field ? "." : "",
            field ? field : "", msg);
}

/* The op readers below fill o (its input shape s of rank r and type dt
** already set) and return 0, -1 after a parse error (a malformed op), or
** 1 when its result cannot be computed from what it receives (an issue of
** t is recorded and the chain is not followed further). A disagreement
** that leaves the result known is recorded and the walk goes on with it,
** so that --check lists every one. */

static int read_quant(pctx *p, tensor *t, const cJSON *j, const char *path,
                      lay_dtype dt, op *o) {
  char nb[32];
  int q = o->k == OP_QUANT;
  if (get_dtype(p, j, path, "to_dtype", &o->dout) ||
      get_number(p, j, path, "scale", 1, &o->scale) < 0 ||
      get_number(p, j, path, "zero_point", 1, &o->zp) < 0)
    return -1;
  if (!(o->scale > 0))
    return perrf(p, path, "scale", "must be positive, not %s",
                 gnum(o->scale, nb));
  const char *from = q ? "a float type" : "an integer type",
             *to = q ? "an integer type" : "a float type";
  if (q == is_float(o->dout))
    return perrf(p, path, "to_dtype", "%s casts %s to %s, not %s to %s",
                 op_names[o->k], from, to, lay_dtype_name(dt),
                 lay_dtype_name(o->dout));
  if (q != is_float(dt))
    chain_issue(p, t, path, NULL, "%s casts %s to %s, not %s to %s",
                op_names[o->k], from, to, lay_dtype_name(dt),
                lay_dtype_name(o->dout));
  /* The zero point is a value of the integer side. */
  char why[160];
  lay_dtype it = q ? o->dout : dt;
  if (o->zp != floor(o->zp))
    return perrf(p, path, "zero_point", "must be an integer, not %s",
                 gnum(o->zp, nb));
  if (!is_float(it) && zp_fault(o->zp, it, why, sizeof why)) {
    if (q) return perrf(p, path, "zero_point", "%s", why);
    chain_issue(p, t, path, "zero_point", "%s", why);
  }
  return 0;
}

static int read_pad(pctx *p, tensor *t, const cJSON *j, const char *path,
                    int r, const int64_t *s, op *o) {
  int n1 = 0, n2 = 0;
  char sh[200], sh2[200];
  if (get_ints(p, j, path, "pad_at_start", 0, o->a, &n1, MAXR) ||
      get_ints(p, j, path, "pad_at_end", 0, o->b, &n2, MAXR) ||
      get_ints(p, j, path, "output_shape", 1, o->out, &o->rout, MAXR))
    return -1;
  if (n1 != r)
    chain_issue(p, t, path, "pad_at_start",
                "needs %d entries (the rank of its input), not %d", r, n1);
  if (n2 != r)
    chain_issue(p, t, path, "pad_at_end",
                "needs %d entries (the rank of its input), not %d", r, n2);
  if (n1 != r || n2 != r) return 0; /* go on with output_shape */
  int64_t want[MAXR];
  for (int i = 0; i < r; i++) {
    if (o->a[i] > INT64_MAX / 4 || o->b[i] > INT64_MAX / 4 ||
        s[i] > INT64_MAX / 4)
      return perrf(p, path, "pad_at_end", "padding overflows");
    want[i] = s[i] + o->a[i] + o->b[i];
  }
  if (!same_shape(want, r, o->out, o->rout)) {
    shape_str(sh, sizeof sh, o->out, o->rout);
    shape_str(sh2, sizeof sh2, want, r);
    chain_issue(p, t, path, "output_shape",
                "%s does not match the padded shape %s", sh, sh2);
  }
  return 0;
}

static int read_reshape(pctx *p, tensor *t, const cJSON *j,
                        const char *path, int r, const int64_t *s, op *o) {
  char sh[200], sh2[200];
  if (get_ints(p, j, path, "output_shape", -1, o->out, &o->rout, MAXR))
    return -1;
  int ovf = 0, minus = -1;
  int64_t total = prod(s, r, &ovf), known = 1;
  for (int i = 0; i < o->rout; i++) {
    if (o->out[i] == -1) {
      if (minus >= 0)
        return perrf(p, path, "output_shape", "has more than one -1");
      minus = i;
    } else if (o->out[i] == 0) {
      return perrf(p, path, "output_shape", "entry %d must not be 0", i);
    } else if (known > INT64_MAX / o->out[i]) {
      return perrf(p, path, "output_shape", "overflows 64 bits");
    } else {
      known *= o->out[i];
    }
  }
  shape_str(sh2, sizeof sh2, s, r);
  if (minus >= 0 && total % known) {
    shape_str(sh, sizeof sh, o->out, o->rout);
    chain_issue(p, t, path, "output_shape",
                "%s does not hold the %lld elements of %s", sh,
                (long long)total, sh2);
    return 1;
  }
  if (minus >= 0) o->out[minus] = total / known;
  if (prod(o->out, o->rout, &ovf) != total) {
    shape_str(sh, sizeof sh, o->out, o->rout);
    chain_issue(p, t, path, "output_shape",
                "%s does not hold the %lld elements of %s", sh,
                (long long)total, sh2);
  }
  return 0;
}

static int read_transpose(pctx *p, tensor *t, const cJSON *j,
                          const char *path, int r, const int64_t *s, op *o) {
  int n = 0, seen[MAXR] = {0};
  if (get_ints(p, j, path, "perm", 0, o->a, &n, MAXR)) return -1;
  int ok = n == r;
  for (int i = 0; ok && i < n; i++) {
    if (o->a[i] >= r || seen[o->a[i]]) ok = 0;
    else seen[o->a[i]] = 1;
  }
  if (!ok) {
    char sh[200];
    shape_str(sh, sizeof sh, o->a, n);
    chain_issue(p, t, path, "perm", "%s is not a permutation of 0..%d", sh,
                r - 1);
    return 1;
  }
  for (int i = 0; i < r; i++) o->out[i] = s[o->a[i]];
  return 0;
}

static int read_slice(pctx *p, tensor *t, const cJSON *j, const char *path,
                      int r, const int64_t *s, op *o) {
  int n1 = 0, n2 = 0, known = 1;
  if (get_ints(p, j, path, "start", 0, o->a, &n1, MAXR) ||
      get_ints(p, j, path, "size", -1, o->b, &n2, MAXR))
    return -1;
  if (n1 != r || n2 != r) {
    chain_issue(p, t, path, n1 != r ? "start" : "size",
                "needs %d entries (the rank of its input), not %d", r,
                n1 != r ? n1 : n2);
    return 1;
  }
  for (int i = 0; i < r; i++) {
    if (o->b[i] == -1 && o->a[i] < s[i]) o->b[i] = s[i] - o->a[i];
    if (o->b[i] < 1 || o->a[i] >= s[i] || o->b[i] > s[i] - o->a[i]) {
      char sh[200];
      shape_str(sh, sizeof sh, s, r);
      chain_issue(p, t, path, o->a[i] >= s[i] ? "start" : "size",
                  "dimension %d: start %lld size %lld is outside the input "
                  "%s",
                  i, (long long)o->a[i], (long long)o->b[i], sh);
    }
    known &= o->b[i] >= 1;
    o->out[i] = o->b[i];
  }
  return known ? 0 : 1;
}

/* Read rt_transformations[i] (object j at path), applied to the shape
** (rank r, dims s) of type dt; fills o with what it computes. Returns as
** the op readers do. */
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
  o->rin = o->rout = r;
  memcpy(o->in, s, (size_t)r * sizeof *s);
  memcpy(o->out, s, (size_t)r * sizeof *s);
  o->din = o->dout = dt;
  /* A parameter lay does not know could change what the step computes. */
  const char *extra = unknown_key(j, "transformation", op_keys[k]);
  char list[120];
  if (extra)
    chain_issue(p, t, path, extra, "unknown parameter of %s (expected %s)",
                kind, key_list(op_keys[k], list, sizeof list));
  int rc = 0;
  switch (o->k) {
  case OP_QUANT:
  case OP_DEQUANT: rc = read_quant(p, t, j, path, dt, o); break;
  case OP_PAD: rc = read_pad(p, t, j, path, r, s, o); break;
  case OP_RESHAPE: rc = read_reshape(p, t, j, path, r, s, o); break;
  case OP_TRANSPOSE: rc = read_transpose(p, t, j, path, r, s, o); break;
  case OP_SLICE: rc = read_slice(p, t, j, path, r, s, o); break;
  case OP_CAST: break;
  }
  if (rc) return rc;
  if (bytes_overflow(o->out, o->rout, o->dout)) {
    char sh[200];
    shape_str(sh, sizeof sh, o->out, o->rout);
    chain_issue(p, t, path, NULL,
                "its result %s %s: the byte size overflows 64 bits", sh,
                lay_dtype_name(o->dout));
    return 1;
  }
  return 0;
}

/* ---- Spec text ----------------------------------------------------------------------- */

/* The value step CPU -> NPU that the annotation fields imply, into *o.
** AMD: scale_factor is the "quantization scale used when converting
** between cpu_dtype and hw_dtype", -1.0 = unset, and zero_point is "paired
** with scale_factor". So:
**   no scale:  equal types: no step; float -> float: a plain cast (bf16
**              rounds to nearest even); anything else needs a scale; a
**              non-zero zero_point would be dropped: an inconsistency;
**   scale S, zero point Z: to an integer hw_dtype a quantize (from any
**              cpu_dtype: int8 -> uint8, S 1, Z 128 is q = x + 128), from
**              an integer cpu_dtype to a float one a dequantize; between
**              float types only S 1, Z 0 (a plain cast) means something
**              lay can do; S 1, Z 0 between equal types is no step.
** Z must be an integer in the range of the quantized (integer) side.
** Returns 1 with o set, 0 for no step, -1 when the fields ask for what
** lay cannot do (recorded as an issue of t at path when `record`). */
static int implied_value(lay_hsi *h, tensor *t, const char *path, op *o,
                         int record) {
  memset(o, 0, sizeof *o);
  lay_dtype c = t->cpu_dt, w = t->hw_dt;
  const char *cn = lay_dtype_name(c), *wn = lay_dtype_name(w);
  char ss[32], zs[32];
  o->din = c;
  o->dout = w;
  o->scale = t->scale;
  o->zp = t->has_zp ? t->zp : 0;
  if (!t->has_scale) {
    if (o->zp != 0) {
      if (record)
        add_issue(h, t, 1,
                  "%s.zero_point: %s, but scale_factor is unset (-1.0); a "
                  "zero point applies only with a scale",
                  path, gnum(o->zp, zs));
      return -1;
    }
    if (c == w) return 0;
    o->k = OP_CAST;
    if (is_float(c) && is_float(w)) return 1;
    if (record)
      add_issue(h, t, 1,
                "%s.scale_factor: missing scale: cpu_dtype %s and hw_dtype "
                "%s differ and no quantize or dequantize step converts them",
                path, cn, wn);
    return -1;
  }
  int unit = t->scale == 1 && o->zp == 0; /* x / 1 + 0: no scaling */
  if (unit && c == w) return 0;
  if (is_float(c) && is_float(w)) {
    o->k = OP_CAST;
    if (unit) return 1;
    if (record)
      add_issue(h, t, 1,
                "%s.scale_factor: %s with zero_point %s between the float "
                "types %s and %s: a scale applies when quantizing to an "
                "integer type; lay has no scaled float cast (-1.0 is a "
                "plain cast)",
                path, gnum(t->scale, ss), gnum(o->zp, zs), cn, wn);
    return -1;
  }
  o->k = is_float(w) ? OP_DEQUANT : OP_QUANT;
  lay_dtype it = o->k == OP_QUANT ? w : c; /* the quantized side */
  char why[160];
  if (!t->has_zp) {
    if (record)
      add_issue(h, t, 1,
                "%s.zero_point: missing, but scale_factor %s converts "
                "cpu_dtype %s to hw_dtype %s",
                path, gnum(t->scale, ss), cn, wn);
    return -1;
  }
  if (zp_fault(o->zp, it, why, sizeof why)) {
    if (record)
      add_issue(h, t, 1, "%s.zero_point: %s (%s)", path, why,
                it == w ? "hw_dtype" : "cpu_dtype");
    return -1;
  }
  return 1;
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

/* The memory order that cpu_format cf -> hw_format hf derives, in lay's
** notation over the dimensions cf names ("[h, c/4, w, n, c%4]"), into
** buf; NULL with *why set when it does not derive. */
static const char *fmt_order(hsi_fmt cf, hsi_fmt hf, char *buf, size_t cap,
                             const char **why) {
  int x = fmt_block(hf);
  if (cf == F_NONE || hf == F_NONE) {
    *why = "cpu_format or hw_format is absent";
  } else if (!fmt_dims[cf][0]) {
    *why = "cpu_format must be NCHW, NHWC or AB";
  } else if (x && cf == F_AB) {
    *why = "an HCWNC format needs cpu_format NCHW or NHWC";
  } else if (!x && (hf == F_AB || cf == F_AB) && hf != cf) {
    *why = "AB is only derived from AB";
  } else {
    if (x) snprintf(buf, cap, "[h, c/%d, w, n, c%%%d]", x, x);
    else if (hf == F_AB) snprintf(buf, cap, "[a, b]");
    else snprintf(buf, cap, hf == F_NCHW ? "[n, c, h, w]" : "[n, h, w, c]");
    return buf;
  }
  return NULL;
}

/* The annotation as a layout. Returns the text (NULL when it does not
** derive, with *why set) and the hw shape it computes. */
static char *annotation_text(tensor *t, const char *def, int64_t *hw,
                             int *hwr, const char **why, const op *value) {
  hsi_fmt cf = t->cpu_fmt, hf = t->hw_fmt;
  char order[64];
  if (cf && fmt_dims[cf][0] && hf && fmt_rank[cf] != t->rank) {
    *why = "cpu_format does not match the rank of cpu_shape";
    return NULL;
  }
  if (!fmt_order(cf, hf, order, sizeof order, why)) return NULL;
  /* The sizes by name: N, C, H, W (or A, B). */
  const char *const *dn = fmt_dims[cf];
  int64_t N = 0, C = 0, H = 0, W = 0;
  for (int i = 0; i < t->rank; i++) {
    if (!strcmp(dn[i], "n")) N = t->cpu[i];
    if (!strcmp(dn[i], "c")) C = t->cpu[i];
    if (!strcmp(dn[i], "h")) H = t->cpu[i];
    if (!strcmp(dn[i], "w")) W = t->cpu[i];
  }
  int x = fmt_block(hf);
  if (x) {
    int64_t v[5] = {H, (C + x - 1) / x, W, N, x};
    memcpy(hw, v, sizeof v);
    *hwr = 5;
  } else if (hf == F_AB) {
    hw[0] = t->cpu[0];
    hw[1] = t->cpu[1];
    *hwr = 2;
  } else {
    int64_t nchw[4] = {N, C, H, W}, nhwc[4] = {N, H, W, C};
    memcpy(hw, hf == F_NCHW ? nchw : nhwc, sizeof nchw);
    *hwr = 4;
  }
  lg_strbuf b = {0};
  lg_sb_printf(&b, "layout %s (", def);
  for (int i = 0; i < t->rank; i++)
    lg_sb_printf(&b, "%s%s", i ? ", " : "", dn[i]);
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

/* The fields of entry j (at path) into t; *chain is rt_transformations or
** NULL. 0, or -1 after a parse error. Fields outside AMD's table are a
** note: the doc says extensions of the format exist, so a real report may
** carry them, and none of them changes what lay computes. */
static int read_fields(pctx *p, const cJSON *j, const char *path, tensor *t,
                       const cJSON **chain) {
  char nb[32];
  if (!cJSON_IsObject(j))
    return perr(p, path, "a tensor entry must be an object, not %s",
                jtype(j));
  for (const cJSON *c = j->child; c; c = c->next) {
    const char *k = c->string ? c->string : "";
    int known = 0;
    for (int i = 0; !known && entry_keys[i]; i++)
      known = !strcmp(k, entry_keys[i]);
    if (!known)
      add_issue(p->h, t, 0, "%s.%s: unknown field, ignored", path, k);
  }
  const char *s;
  if (get_string(p, j, path, "name", 0, &s)) return -1;
  if (s && !(t->name = strdup(s))) return perr(p, path, "out of memory");
  if (get_string(p, j, path, "tensor_name", 0, &s)) return -1;
  if (s && !(t->tensor_name = strdup(s)))
    return perr(p, path, "out of memory");
  *chain = cJSON_GetObjectItemCaseSensitive(j, "rt_transformations");
  if (*chain && !cJSON_IsArray(*chain))
    return perrf(p, path, "rt_transformations", "must be an array, not %s",
                 jtype(*chain));
  t->has_chain = *chain != NULL;
  if (get_ints(p, j, path, "cpu_shape", 1, t->cpu, &t->rank, LAY_MAX_RANK) ||
      get_fmt(p, j, path, "cpu_format", !*chain, &t->cpu_fmt) ||
      get_dtype(p, j, path, "cpu_dtype", &t->cpu_dt) ||
      get_ints(p, j, path, "hw_shape", 1, t->hw, &t->hw_rank, MAXR) ||
      get_fmt(p, j, path, "hw_format", !*chain, &t->hw_fmt) ||
      get_dtype(p, j, path, "hw_dtype", &t->hw_dt))
    return -1;
  double v;
  int got = get_number(p, j, path, "scale_factor", 0, &v);
  if (got < 0) return -1;
  if (got && v != -1.0) {
    if (!(v > 0))
      return perrf(p, path, "scale_factor",
                   "must be positive or -1.0 (unset), not %s", gnum(v, nb));
    t->has_scale = 1;
    t->scale = v;
  }
  got = get_number(p, j, path, "zero_point", 0, &t->zp);
  if (got < 0) return -1;
  if (got && (t->zp != floor(t->zp) || fabs(t->zp) > 2147483647.0))
    return perrf(p, path, "zero_point",
                 "must be an integer in the int32 range, not %s",
                 gnum(t->zp, nb));
  t->has_zp = got;
  return 0;
}

/* 1 (an issue recorded) when a declared shape's bytes overflow. */
static int shape_overflows(pctx *p, tensor *t, const char *path) {
  char sh[200];
  int bad = 0;
  for (int side = 0; side < 2; side++) {
    const int64_t *v = side ? t->hw : t->cpu;
    int n = side ? t->hw_rank : t->rank;
    lay_dtype dt = side ? t->hw_dt : t->cpu_dt;
    if (!bytes_overflow(v, n, dt)) continue;
    shape_str(sh, sizeof sh, v, n);
    chain_issue(p, t, path, side ? "hw_shape" : "cpu_shape",
                "%s of %s: the byte size overflows 64 bits", sh,
                lay_dtype_name(dt));
    bad = 1;
  }
  return bad;
}

/* An entry without rt_transformations: the annotation is its definition. */
static int annotation_entry(pctx *p, tensor *t, const char *path) {
  char sh[200], sh2[200];
  int64_t ahw[MAXR];
  int ahr = 0;
  const char *why = NULL;
  op value;
  int has_value = implied_value(p->h, t, path, &value, 1) > 0;
  t->spec = annotation_text(t, t->def, ahw, &ahr, &why,
                            has_value ? &value : NULL);
  if (!t->spec && !why) return perr(p, path, "out of memory");
  if (!t->spec) {
    shape_str(sh, sizeof sh, t->cpu, t->rank);
    return perrf(p, path, "hw_format", "cannot derive %s from %s %s: %s",
                 fmt_names[t->hw_fmt], fmt_names[t->cpu_fmt], sh, why);
  }
  if (!same_shape(ahw, ahr, t->hw, t->hw_rank)) {
    shape_str(sh, sizeof sh, t->hw, t->hw_rank);
    shape_str(sh2, sizeof sh2, ahw, ahr);
    add_issue(p->h, t, 1,
              "%s.hw_shape: %s, but cpu_format %s -> hw_format %s gives %s",
              path, sh, fmt_names[t->cpu_fmt], fmt_names[t->hw_fmt], sh2);
  }
  return 0;
}

/* Walk the chain (n ops) from its own start into ops[]; *r, cur and *dt
** end as its result. 0, 1 when it cannot be followed to its end (issues
** recorded), -1 after a parse error. */
static int walk_chain(pctx *p, tensor *t, const char *path,
                      const cJSON *chain, int n, op *ops, int *r,
                      int64_t *cur, lay_dtype *dt, int *nq) {
  int output = t->output;
  *r = output ? t->hw_rank : t->rank;
  memcpy(cur, output ? t->hw : t->cpu, (size_t)*r * sizeof *cur);
  *dt = output ? t->hw_dt : t->cpu_dt;
  *nq = 0;
  for (int i = 0; i < n; i++) {
    char opath[96];
    snprintf(opath, sizeof opath, "%s.rt_transformations[%d]", path, i);
    int rc = read_op(p, t, cJSON_GetArrayItem(chain, i), opath, *r, cur,
                     *dt, &ops[i]);
    if (rc) return rc;
    *r = ops[i].rout;
    memcpy(cur, ops[i].out, MAXR * sizeof *cur);
    *dt = ops[i].dout;
    if (ops[i].k != OP_QUANT && ops[i].k != OP_DEQUANT) continue;
    if (++*nq > 1)
      return perr(p, opath,
                  "a chain converts the element type once; this is the "
                  "second quantize/dequantize");
    if (!output && i != 0)
      add_issue(p->h, t, 1, "%s: %s must be the first entry for inputs",
                opath, op_names[ops[i].k]);
    if (output && i != n - 1)
      add_issue(p->h, t, 1, "%s: %s must be the last entry for outputs",
                opath, op_names[ops[i].k]);
  }
  return 0;
}

/* The definition of a chain entry: a transform over the CPU tensor x
** (rank xr, dims xin) through t->ops. NULL on OOM. */
static char *chain_text(const tensor *t, const int64_t *xin, int xr) {
  lg_strbuf b = {0};
  lg_sb_printf(&b, "transform %s (x : %s[", t->def,
               lay_dtype_name(t->cpu_dt));
  const char *const *dn =
      t->cpu_fmt && fmt_dims[t->cpu_fmt][0] && fmt_rank[t->cpu_fmt] == xr
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
  return lg_sb_take(&b);
}

/* The annotation fields beside a chain (ops[0..n), nq of them converting
** the type), as NS.def_ann when they give the declared hw_shape: --check
** runs both. A chain that quantizes lends its scale to an annotation that
** has none. 0, or -1 on OOM. */
static int companion(pctx *p, tensor *t, const char *path, const op *ops,
                     int n, int nq) {
  char sh[200], sh2[200], adef[40];
  int64_t ahw[MAXR];
  int ahr = 0;
  const char *why = NULL;
  op aval;
  int hv;
  if (nq && !t->has_scale) {
    hv = 1;
    for (int i = 0; i < n; i++)
      if (ops[i].k == OP_QUANT || ops[i].k == OP_DEQUANT) aval = ops[i];
    aval.k = is_float(t->cpu_dt) ? OP_QUANT : OP_DEQUANT;
    aval.din = t->cpu_dt;
    aval.dout = t->hw_dt;
  } else {
    hv = implied_value(p->h, t, path, &aval, 0);
    if (hv < 0) return 0; /* the fields ask for what lay cannot do */
  }
  snprintf(adef, sizeof adef, "%s_ann", t->def);
  char *ann = annotation_text(t, adef, ahw, &ahr, &why, hv ? &aval : NULL);
  if (!ann && !why) return perr(p, path, "out of memory");
  if (!ann) {
    if (t->hw_fmt && fmt_rank[t->hw_fmt] != t->hw_rank) {
      shape_str(sh, sizeof sh, t->hw, t->hw_rank);
      add_issue(p->h, t, 0,
                "%s.hw_format: %s names %d dimensions, hw_shape %s has %d; "
                "not used: rt_transformations takes over (the buffer is "
                "the chain's result, row-major)",
                path, fmt_names[t->hw_fmt], fmt_rank[t->hw_fmt], sh,
                t->hw_rank);
    }
    return 0;
  }
  t->ann_ok = same_shape(ahw, ahr, t->hw, t->hw_rank);
  if (t->ann_ok) {
    t->ann_spec = ann;
    return 0;
  }
  free(ann);
  shape_str(sh, sizeof sh, t->hw, t->hw_rank);
  shape_str(sh2, sizeof sh2, ahw, ahr);
  /* A plain hw_format only names the positions of hw_shape; a blocked one
  ** fixes the layout and then must agree with the chain. */
  add_issue(p->h, t, fmt_block(t->hw_fmt) != 0,
            "%s.hw_format: cpu_format %s -> hw_format %s gives %s, not the "
            "hw_shape %s%s",
            path, fmt_names[t->cpu_fmt], fmt_names[t->hw_fmt], sh2, sh,
            fmt_block(t->hw_fmt) ? ""
                                 : " (not used: rt_transformations takes "
                                   "over)");
  return 0;
}

/* An entry with rt_transformations. */
static int chain_entry(pctx *p, tensor *t, const char *path,
                       const cJSON *chain) {
  char sh[200], sh2[200];
  int n = cJSON_GetArraySize(chain), output = t->output;
  if (n > LAY_HSI_MAX_OPS)
    return perrf(p, path, "rt_transformations", "has more than %d entries",
                 LAY_HSI_MAX_OPS);
  op *ops = calloc((size_t)n + 1, sizeof *ops);
  t->ops = calloc((size_t)n + 1, sizeof *t->ops);
  if (!ops || !t->ops) {
    free(ops);
    return perr(p, path, "out of memory");
  }
  int r, nq, rc;
  int64_t cur[MAXR];
  lay_dtype dt;
  rc = walk_chain(p, t, path, chain, n, ops, &r, cur, &dt, &nq);
  if (rc) { /* -1: an error; 1: no definition, the issues say why */
    free(ops);
    return rc < 0 ? -1 : 0;
  }
  /* Where the chain ends must be the other side's declared shape/dtype. */
  const int64_t *end = output ? t->cpu : t->hw;
  int endr = output ? t->rank : t->hw_rank;
  lay_dtype enddt = output ? t->cpu_dt : t->hw_dt;
  if (!same_shape(cur, r, end, endr)) {
    shape_str(sh, sizeof sh, end, endr);
    shape_str(sh2, sizeof sh2, cur, r);
    add_issue(p->h, t, 1, "%s.%s: %s, but rt_transformations gives %s", path,
              output ? "cpu_shape" : "hw_shape", sh, sh2);
  }
  if (nq && dt != enddt)
    add_issue(p->h, t, 1, "%s.%s: %s, but rt_transformations gives %s",
              path, output ? "cpu_dtype" : "hw_dtype",
              lay_dtype_name(enddt), lay_dtype_name(dt));
  /* No step converts the type: the annotation's value rule applies. */
  op value;
  int has_value = !nq && implied_value(p->h, t, path, &value, 1) > 0;
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
  if (xr > LAY_MAX_RANK) {
    shape_str(sh, sizeof sh, xin, xr);
    add_issue(p->h, t, 1, "%s: the CPU side %s has more than %d dimensions",
              path, sh, LAY_MAX_RANK);
    free(ops);
    return 0;
  }
  if (!(t->spec = chain_text(t, xin, xr))) rc = perr(p, path, "out of memory");
  else rc = companion(p, t, path, ops, n, nq);
  free(ops);
  return rc;
}

static int read_tensor(pctx *p, const cJSON *j, int output, int index,
                       tensor *t) {
  char path[64];
  snprintf(path, sizeof path, "%s[%d]", output ? "outputs" : "inputs", index);
  memset(t, 0, sizeof *t);
  t->output = output;
  t->index = index;
  snprintf(t->def, sizeof t->def, "%s%d", output ? "output" : "input", index);
  const cJSON *chain = NULL;
  if (read_fields(p, j, path, t, &chain)) return -1;
  if (shape_overflows(p, t, path)) return 0; /* no definition */
  return chain ? chain_entry(p, t, path, chain)
               : annotation_entry(p, t, path);
}

/* ---- Strict JSON --------------------------------------------------------------------- */

/* cJSON accepts more than JSON (a leading zero "01", "1.", raw control
** characters in strings, the last of two equal keys silently dropped) and
** places some errors badly (a trailing comma "at the end of input", a
** nesting deeper than its limit as "malformed"). json_scan therefore
** checks the text against RFC 8259 first and stops at the first offending
** character with a reason; cJSON then builds the tree of text known to be
** good, and dup_keys walks it for keys given twice. */

#define JSON_MAX_DEPTH CJSON_NESTING_LIMIT /* cJSON's limit, 1000 levels */

/* Where and why the text is not strict JSON. */
typedef struct jfail {
  size_t at;       /* byte offset of the offending character */
  const char *why; /* NULL for a plain syntax error, else the reason */
  int deep;        /* 1: valid JSON nested deeper than JSON_MAX_DEPTH */
} jfail;

static int jbad(jfail *f, size_t at, const char *why) {
  f->at = at;
  f->why = why;
  return -1;
}

static size_t skip_ws(const char *s, size_t n, size_t i) {
  while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
    i++;
  return i;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* The length of the UTF-8 sequence at s[i] (i < n), or 0 when it is not
** one (overlong forms, surrogates and code points past U+10FFFF too). */
static size_t utf8_len(const unsigned char *s, size_t n, size_t i) {
  unsigned c = s[i], cp, min;
  size_t k;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) k = 2, min = 0x80, cp = c & 0x1f;
  else if (c >= 0xe0 && c <= 0xef) k = 3, min = 0x800, cp = c & 0x0f;
  else if (c >= 0xf0 && c <= 0xf4) k = 4, min = 0x10000, cp = c & 0x07;
  else return 0;
  if (n - i < k) return 0;
  for (size_t j = 1; j < k; j++) {
    if ((s[i + j] & 0xc0) != 0x80) return 0;
    cp = cp << 6 | (s[i + j] & 0x3f);
  }
  return cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ? 0 : k;
}

/* The code unit of a \uXXXX escape at s[i] (the backslash); -1 when the
** text ends first, -2 when it is not four hex digits. */
static long hex4(const char *s, size_t n, size_t i) {
  if (n - i < 6) return -1;
  long v = 0;
  for (size_t j = i + 2; j < i + 6; j++) {
    int c = (unsigned char)s[j];
    int d = is_digit((char)c) ? c - '0'
            : c >= 'a' && c <= 'f' ? c - 'a' + 10
            : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -2;
    v = v * 16 + d;
  }
  return v;
}

/* The string that starts at s[*i] == '"'; *i moves past its end. */
static int scan_string(const char *s, size_t n, size_t *i, jfail *f) {
  const unsigned char *u = (const unsigned char *)s;
  size_t k = *i + 1;
  while (k < n && s[k] != '"') {
    if (u[k] < 0x20)
      return jbad(f, k, "a control character in a string must be escaped");
    if (s[k] != '\\') {
      size_t l = utf8_len(u, n, k);
      if (!l) return jbad(f, k, "invalid UTF-8");
      k += l;
      continue;
    }
    if (k + 1 >= n) break;
    if (s[k + 1] != 'u') {
      if (!s[k + 1] || !strchr("\"\\/bfnrt", s[k + 1]))
        return jbad(f, k, "unknown escape in a string");
      k += 2;
      continue;
    }
    /* \uXXXX; a surrogate must be a high one followed by a low one. */
    long a = hex4(s, n, k), b = 0;
    if (a == -1) break;
    if (a == -2) return jbad(f, k, "a \\u escape needs four hex digits");
    if (a >= 0xd800 && a <= 0xdbff) {
      size_t r = n - k; /* bytes left from the backslash */
      b = (r > 6 && s[k + 6] != '\\') || (r > 7 && s[k + 7] != 'u')
              ? -2
              : hex4(s, n, k + 6);
      if (b == -1) break;
      if (b < 0xdc00 || b > 0xdfff)
        return jbad(f, k, "a \\u escape is half of a surrogate pair");
      k += 6;
    } else if (a >= 0xdc00 && a <= 0xdfff) {
      return jbad(f, k, "a \\u escape is half of a surrogate pair");
    }
    k += 6;
  }
  if (k >= n) return jbad(f, n, "unexpected end of input");
  *i = k + 1;
  return 0;
}

/* The number that starts at s[*i] ('-' or a digit). */
static int scan_number(const char *s, size_t n, size_t *i, jfail *f) {
  size_t k = *i + (s[*i] == '-');
  if (k < n && s[k] == '0' && k + 1 < n && is_digit(s[k + 1]))
    return jbad(f, k, "a number must not start with a leading zero");
  const char *need = "a digit must follow '-'";
  for (int part = 0; part < 3; part++) {
    if (part == 1) { /* the fraction */
      if (k >= n || s[k] != '.') continue;
      k++;
      need = "a digit must follow '.' in a number";
    } else if (part == 2) { /* the exponent */
      if (k >= n || (s[k] != 'e' && s[k] != 'E')) continue;
      k++;
      if (k < n && (s[k] == '+' || s[k] == '-')) k++;
      need = "a digit must follow the exponent of a number";
    }
    if (k >= n) return jbad(f, n, "unexpected end of input");
    if (!is_digit(s[k])) return jbad(f, k, need);
    if (part == 0 && s[k] == '0') k++;
    else
      while (k < n && is_digit(s[k])) k++;
  }
  *i = k;
  return 0;
}

/* A member's key and its colon at s[*i]; *i moves to the value. */
static int scan_key(const char *s, size_t n, size_t *i, jfail *f) {
  if (*i >= n) return jbad(f, n, "unexpected end of input");
  if (s[*i] != '"') return jbad(f, *i, NULL);
  if (scan_string(s, n, i, f)) return -1;
  *i = skip_ws(s, n, *i);
  if (*i >= n) return jbad(f, n, "unexpected end of input");
  if (s[*i] != ':') return jbad(f, *i, NULL);
  *i = skip_ws(s, n, *i + 1);
  return 0;
}

/* 0 when s[0..n) is one JSON value (RFC 8259) nested at most
** JSON_MAX_DEPTH levels, else -1 with *f set. */
static int json_scan(const char *s, size_t n, jfail *f) {
  static const char *const lit[] = {"true", "false", "null"};
  char open[JSON_MAX_DEPTH]; /* '{' or '[' of each open container */
  int depth = 0;
  size_t i = skip_ws(s, n, 0);
  memset(f, 0, sizeof *f);
  for (;;) {
    /* A value starts at i. */
    if (i >= n) return jbad(f, n, "unexpected end of input");
    char c = s[i];
    if (c == '{' || c == '[') {
      if (depth == JSON_MAX_DEPTH) {
        f->deep = 1;
        return jbad(f, i, NULL);
      }
      open[depth++] = c;
      i = skip_ws(s, n, i + 1);
      if (i < n && s[i] == (c == '{' ? '}' : ']')) {
        depth--;
        i++;
      } else if (c == '[') {
        continue;
      } else {
        if (scan_key(s, n, &i, f)) return -1;
        continue;
      }
    } else if (c == '"') {
      if (scan_string(s, n, &i, f)) return -1;
    } else if (c == '-' || is_digit(c)) {
      if (scan_number(s, n, &i, f)) return -1;
    } else {
      size_t l = 0;
      for (int k = 0; k < 3 && !l; k++)
        if (n - i >= strlen(lit[k]) && !memcmp(s + i, lit[k], strlen(lit[k])))
          l = strlen(lit[k]);
      if (!l) return jbad(f, i, NULL);
      i += l;
    }
    /* After a value: a comma, the closing bracket, or the end. */
    for (;;) {
      i = skip_ws(s, n, i);
      if (!depth)
        return i < n ? jbad(f, i, "text after the end of the report") : 0;
      if (i >= n) return jbad(f, n, "unexpected end of input");
      char close = open[depth - 1] == '{' ? '}' : ']';
      if (s[i] == close) {
        depth--;
        i++;
        continue;
      }
      if (s[i] != ',') return jbad(f, i, NULL);
      size_t comma = i;
      i = skip_ws(s, n, i + 1);
      if (i < n && (s[i] == '}' || s[i] == ']'))
        return jbad(f, comma, "trailing comma");
      if (open[depth - 1] == '{' && scan_key(s, n, &i, f)) return -1;
      break;
    }
  }
}

/* line:col (1-based; the column counts characters, a UTF-8 sequence
** being one) of byte offset `off` in json; fills the source line. */
static void json_pos(const char *json, size_t len, size_t off, lay_error *e) {
  int line = 1;
  size_t ls = 0;
  if (off > len) off = len;
  for (size_t i = 0; i < off; i++)
    if (json[i] == '\n') line++, ls = i + 1;
  int col = 1;
  for (size_t i = ls; i < off; i++)
    col += ((unsigned char)json[i] & 0xc0) != 0x80;
  e->line = line;
  e->col = col;
  size_t k = 0;
  for (size_t i = ls; i < len && json[i] != '\n' && json[i] != '\r'; i++) {
    if (k + 1 >= sizeof e->source_line) break;
    unsigned char c = (unsigned char)json[i];
    e->source_line[k++] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
  }
  e->source_line[k] = '\0';
}

/* One member of an object: its key and its position. */
typedef struct member {
  const char *key;
  int at;
} member;

static int member_cmp(const void *a, const void *b) {
  const member *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* The key that object j gives twice, the one whose second occurrence
** comes first; NULL when there is none (or *oom set). */
static const char *dup_key(const cJSON *j, int *oom) {
  int n = cJSON_GetArraySize(j), k = 0;
  if (n < 2) return NULL;
  member *v = malloc((size_t)n * sizeof *v);
  if (!v) {
    *oom = 1;
    return NULL;
  }
  for (const cJSON *c = j->child; c && k < n; c = c->next, k++) {
    v[k].key = c->string ? c->string : "";
    v[k].at = k;
  }
  qsort(v, (size_t)k, sizeof *v, member_cmp);
  const char *key = NULL;
  int first = k;
  for (int i = 1; i < k; i++)
    if (!strcmp(v[i].key, v[i - 1].key) && v[i].at < first) {
      first = v[i].at;
      key = v[i].key;
    }
  free(v);
  return key;
}

/* Fail on an object under j (j itself first, then its members in order)
** that gives a key twice. path holds j's JSON path ("" for the report);
** members extend it in place, within cap bytes. 0, or -1 reported. */
static int dup_keys(pctx *p, const cJSON *j, char *path, size_t cap) {
  int oom = 0, obj = cJSON_IsObject(j);
  const char *key = obj ? dup_key(j, &oom) : NULL;
  if (oom) return perr(p, *path ? path : "report", "out of memory");
  if (key)
    return perr(p, *path ? path : "report", "duplicate key '%s'", key);
  size_t len = strlen(path);
  int i = 0;
  for (const cJSON *c = j->child; c; c = c->next, i++) {
    if (obj)
      snprintf(path + len, cap - len, "%s%s", len ? "." : "",
               c->string ? c->string : "");
    else
      snprintf(path + len, cap - len, "[%d]", i);
    if (dup_keys(p, c, path, cap)) return -1;
    path[len] = '\0';
  }
  return 0;
}

/* ---- The report ---------------------------------------------------------------------- */

void lay_hsi_free(lay_hsi *h) {
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

static void size_error(const char *file, size_t len, lay_error *err) {
  if (len == SIZE_MAX)
    lg_error_plain(err, LAY_E_LIMIT, file, "report: larger than %zu bytes",
                   LAY_HSI_MAX_JSON);
  else
    lg_error_plain(err, LAY_E_LIMIT, file,
                   "report: %zu bytes, larger than %zu bytes", len,
                   LAY_HSI_MAX_JSON);
}

/* The error for text that is not strict JSON; returns its status. */
static lay_status json_fail(pctx *p, const char *json, size_t len,
                            const jfail *f) {
  lay_status st = f->deep ? LAY_E_LIMIT : LAY_E_JSON;
  if (!p->err) return st;
  if (f->deep)
    lg_error_plain(p->err, st, p->file, "nested deeper than %d levels",
                   JSON_MAX_DEPTH);
  else
    lg_error_plain(p->err, st, p->file, "malformed JSON%s%s",
                   f->why ? ": " : "", f->why ? f->why : "");
  json_pos(json, len, f->at, p->err);
  return st;
}

lay_status lay_hsi_parse(const char *json, size_t len, const char *file,
                        lay_hsi **out, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  pctx p = {file ? file : "<json>", err, NULL};
  if (len > LAY_HSI_MAX_JSON) {
    size_error(p.file, len, err);
    return LAY_E_LIMIT;
  }
  if (!json || !out) {
    perr(&p, "report", "no JSON text");
    return LAY_E_ARG;
  }
  const char *nul = memchr(json, '\0', len);
  if (nul) {
    perr(&p, "report", "contains a NUL byte");
    if (err) json_pos(json, len, (size_t)(nul - json), err);
    return LAY_E_JSON;
  }
  jfail jf;
  if (json_scan(json, len, &jf)) return json_fail(&p, json, len, &jf);
  lay_status st = LAY_E_JSON;
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
  lay_hsi *h = NULL;
  char path[256] = "";
  if (!root) { /* text the scan accepted; cJSON ran out of memory */
    jf.at = end && end >= json ? (size_t)(end - json) : 0;
    jf.why = NULL;
    st = json_fail(&p, json, len, &jf);
    goto done;
  }
  if (dup_keys(&p, root, path, sizeof path)) goto done;
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
    if (n > LAY_HSI_MAX_TENSORS) {
      perr(&p, keys[o], "more than %d entries", LAY_HSI_MAX_TENSORS);
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
      h->n[o] = i + 1; /* so that lay_hsi_free frees what was read */
      if (read_tensor(&p, e, o, i, &h->t[o][i])) goto done;
      i++;
    }
  }
  st = LAY_OK;
done:
  cJSON_Delete(root);
  if (st) {
    lay_hsi_free(h);
    return st;
  }
  if (err) memset(err, 0, sizeof *err);
  *out = h;
  return LAY_OK;
}

int lay_hsi_count(const lay_hsi *h, int output) {
  return h ? h->n[output ? 1 : 0] : 0;
}

int lay_hsi_find(const lay_hsi *h, int output, const char *key) {
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

int lay_hsi_info_get(const lay_hsi *h, int output, int index, lay_hsi_info *out) {
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
    lg_sb_printf(b, "\n# not defined, the entry is inconsistent%s\n",
                 t->spec ? ":" : "");
    for (const char *q = t->spec; q && *q;) {
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

char *lay_hsi_spec_entry(const lay_hsi *h, int output, int index) {
  int o = output ? 1 : 0;
  if (!h || index < 0 || index >= h->n[o]) return NULL;
  lg_strbuf b = {0};
  sb_entry(&b, &h->t[o][index]);
  return lg_sb_take(&b);
}

char *lay_hsi_spec_header(const lay_hsi *h, const char *ns) {
  if (!h) return NULL;
  lg_strbuf b = {0};
  lg_sb_printf(&b, "# Generated by lay from %s (flexmlrt-hsi.json).\n",
            h->file);
  lg_sb_printf(&b, "namespace %s\n", ns && *ns ? ns : "hsi");
  return lg_sb_take(&b);
}

char *lay_hsi_spec(const lay_hsi *h, const char *ns) {
  if (!h) return NULL;
  char *head = lay_hsi_spec_header(h, ns);
  if (!head) return NULL;
  lg_strbuf b = {0};
  lg_sb_printf(&b, "%s", head);
  free(head);
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < h->n[o]; i++) sb_entry(&b, &h->t[o][i]);
  return lg_sb_take(&b);
}

lay_status lay_hsi_load(const lay_hsi *h, lay_ctx *ctx, const char *ns,
                       lay_error *err) {
  char *text = lay_hsi_spec(h, ns);
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

lay_status lay_hsi_read(const char *path, lay_hsi **out, lay_error *err) {
  if (out) *out = NULL;
  if (!path || !out) {
    lg_error_plain(err, LAY_E_ARG, path ? path : "", "no report file");
    return LAY_E_ARG;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    lg_error_plain(err, LAY_E_IO, path, "cannot open: %s", strerror(errno));
    return LAY_E_IO;
  }
  /* Read at most one byte past the limit: a larger file is not read whole. */
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  while (buf) {
    if (len == cap) {
      size_t ncap = cap * 2 > LAY_HSI_MAX_JSON + 1 ? LAY_HSI_MAX_JSON + 1 : cap * 2;
      char *nb = ncap > cap ? realloc(buf, ncap) : NULL;
      if (!nb) break;
      buf = nb, cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0 || len > LAY_HSI_MAX_JSON) break;
  }
  int bad = ferror(f);
  fclose(f);
  lay_status st;
  if (!buf) {
    lg_error_plain(err, LAY_E_NOMEM, path, "out of memory");
    st = LAY_E_NOMEM;
  } else if (bad) {
    lg_error_plain(err, LAY_E_IO, path, "cannot read");
    st = LAY_E_IO;
  } else {
    st = lay_hsi_parse(buf, len > LAY_HSI_MAX_JSON ? SIZE_MAX : len, path,
                       out, err);
  }
  free(buf);
  return st;
}

lay_status lay_ctx_load_hsi(lay_ctx *ctx, const char *path, const char *ns,
                            lay_error *err) {
  lay_hsi *h = NULL;
  lay_status st = lay_hsi_read(path, &h, err);
  if (st == LAY_OK) st = lay_hsi_load(h, ctx, ns, err);
  lay_hsi_free(h);
  return st;
}

int lay_hsi_issue_count(const lay_hsi *h) { return h ? h->nissues : 0; }

const lay_hsi_issue *lay_hsi_issue_get(const lay_hsi *h, int i) {
  return h && i >= 0 && i < h->nissues ? &h->issues[i] : NULL;
}

const lay_hsi_issue *lay_hsi_entry_issue(const lay_hsi *h, int output,
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

static int push_issue(lay_hsi_issue **v, int *n, int *cap,
                      const lay_hsi_issue *is) {
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 8;
    lay_hsi_issue *nv = realloc(*v, (size_t)nc * sizeof *nv);
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
                         lay_hsi_issue *is, lay_error *err) {
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

int lay_hsi_check(const lay_hsi *h, lay_ctx *ctx, const char *ns,
                 lay_hsi_issue **issues, int *nissues, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  *issues = NULL;
  *nissues = 0;
  int n = 0, cap = 0, fatal = 0;
  lay_hsi_issue *v = NULL;
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < h->n[o]; i++) {
      const tensor *t = &h->t[o][i];
      int bad = 0;
      for (int k = 0; k < h->nissues; k++) {
        const lay_hsi_issue *is = &h->issues[k];
        if (is->output != o || is->index != i) continue;
        if (push_issue(&v, &n, &cap, is)) goto oom;
        if (is->fatal) bad = 1, fatal++;
      }
      if (bad || !t->ann_spec || !t->ann_ok) continue;
      lay_hsi_issue is;
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

/* A layout's chain for one CPU shape, built from its IR (CPU -> NPU). */
typedef struct xchain {
  op ops[6];          /* quantize, slice, pad, reshape, transpose */
  int n;
  int64_t cur[MAXR];  /* the shape after the ops so far */
  int rank;
  int64_t hw[MAXR];   /* hw_shape: the axes' extents in memory order */
  int hw_rank;
  lay_dtype cpu_dt, hw_dt; /* element types */
  double scale, zp;   /* scale_factor and zero_point (-1.0, 0: unset) */
  int window;         /* a slice or an explicit pad: no hw_format */
  char order[256];    /* the axes' labels, "[h, c/4, w, n, c%4]" */
} xchain;

/* Fill err with "cannot export 'FORMAT': why"; returns -1. */
static int xfail(lay_error *err, lay_status code, const char *format,
                 const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int xfail(lay_error *err, lay_status code, const char *format,
                 const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_error_plain(err, code, NULL, "cannot export '%s': %s", format, msg);
  return -1;
}

/* Append an op of kind k whose output is out[0..rout) to x. */
static op *xpush(xchain *x, opk k, const int64_t *out, int rout) {
  op *o = &x->ops[x->n++];
  memset(o, 0, sizeof *o);
  o->k = k;
  o->rin = x->rank;
  memcpy(o->in, x->cur, sizeof o->in);
  o->rout = rout;
  memcpy(o->out, out, (size_t)rout * sizeof *out);
  o->din = o->dout = x->hw_dt;
  x->rank = rout;
  memcpy(x->cur, o->out, sizeof x->cur);
  return o;
}

static int is_pow2(double v) {
  int e;
  return v > 0 && frexp(v, &e) == 0.5;
}

/* The value part: a quantize step (float -> integer), or the fields
** cpu_dtype, hw_dtype, scale_factor and zero_point, which give the value
** rule of a chain without such a step (implied_value reads them back). */
static int export_value(const lg_ir *ir, const char *format,
                        const lay_hsi_quant *quant, xchain *x,
                        lay_error *err) {
  char nb[32];
  const lg_ir_value *v = &ir->value;
  char why[160];
  x->scale = -1.0;
  x->zp = 0;
  if (quant) {
    lay_dtype to = quant->to ? quant->to : LAY_DT_INT8;
    if (v->kind != LG_V_NONE)
      return xfail(err, LAY_E_ARG, format,
                   "it has its own value rule; --quantize is for a layout "
                   "without one");
    if (!is_float(x->cpu_dt))
      return xfail(err, LAY_E_TYPE, format,
                   "--quantize needs a float CPU type, not %s",
                   lay_dtype_name(x->cpu_dt));
    if (is_float(to))
      return xfail(err, LAY_E_TYPE, format,
                   "--quantize quantizes to an integer type, not %s",
                   lay_dtype_name(to));
    if (!(quant->scale > 0) || !isfinite(quant->scale))
      return xfail(err, LAY_E_ARG, format,
                   "--quantize: the scale must be positive, not %s",
                   gnum(quant->scale, nb));
    if (zp_fault(quant->zero_point, to, why, sizeof why))
      return xfail(err, LAY_E_ARG, format, "--quantize: zero point %s",
                   why);
    x->hw_dt = to;
    x->scale = quant->scale;
    x->zp = quant->zero_point;
  } else if (v->kind == LG_V_CAST) {
    if (is_float(x->cpu_dt) && is_float(x->hw_dt)) return 0; /* a plain cast */
    if (!v->saturate || (is_float(x->cpu_dt) && v->round != LG_R_HALF_EVEN))
      return xfail(err, LAY_E_LAYOUT, format,
                   "its cast %s -> %s %s; a chain rounds half to even and "
                   "saturates",
                   lay_dtype_name(x->cpu_dt), lay_dtype_name(x->hw_dt),
                   v->saturate ? "does not round half to even"
                               : "wraps around");
    x->scale = 1; /* q = sat(round(x / 1) + 0): the cast */
  } else if (v->kind == LG_V_AFFINE) {
    if (v->n != 1 || v->axis >= 0)
      return xfail(err, LAY_E_LAYOUT, format,
                   "it quantizes per channel (along '%s'); a chain has one "
                   "scale and zero point",
                   v->axis >= 0 && v->axis < ir->rank && ir->dim[v->axis].name
                       ? ir->dim[v->axis].name : "?");
    if (v->xoff[0] != 0 || v->round != LG_R_HALF_EVEN || !v->saturate)
      return xfail(err, LAY_E_LAYOUT, format,
                   "its quantization %s; a chain computes q = sat("
                   "round_half_even(x / scale) + zero_point)",
                   v->xoff[0] != 0 ? "subtracts an offset first"
                   : v->round != LG_R_HALF_EVEN ? "does not round half to even"
                                                 : "wraps around");
    /* lay computes x * num / den; a chain x / scale: the same only when
    ** scale = den / num is exact and dividing by it is multiplying. */
    double num = v->num[0], den = v->den[0];
    if (num != 1 && !(is_pow2(num) && is_pow2(den)))
      return xfail(err, LAY_E_LAYOUT, format,
                   "it multiplies by %.9g / %.9g; a chain divides by one "
                   "scale, which gives other roundings unless both are "
                   "powers of two",
                   num, den);
    x->scale = den / num;
    x->zp = v->zp[0];
    lay_dtype it = v->dequant ? x->cpu_dt : x->hw_dt;
    if (is_float(it) || (v->dequant && !is_float(x->hw_dt)))
      return xfail(err, LAY_E_LAYOUT, format,
                   "it converts %s to %s; a chain quantizes to an integer "
                   "type or dequantizes from one",
                   lay_dtype_name(x->cpu_dt), lay_dtype_name(x->hw_dt));
    if (zp_fault(x->zp, it, why, sizeof why))
      return xfail(err, LAY_E_LAYOUT, format, "its zero point %s", why);
  } else {
    return 0;
  }
  if (is_float(x->cpu_dt) && !is_float(x->hw_dt)) { /* a quantize step */
    op *o = xpush(x, OP_QUANT, x->cur, x->rank);
    o->din = x->cpu_dt;
    o->scale = x->scale;
    o->zp = x->zp;
  }
  return 0;
}

/* The digit axes of dimension d, outermost first, into ax (*n of them):
** 0, or -1 when they do not cut the padded extent P into a mixed radix
** (each digit's divisor the product of the moduli inside it). ext gets
** each axis' extent. */
static int dim_digits(const lg_ir *ir, int d, int64_t P, int *ax, int *n,
                      int64_t *ext) {
  *n = 0;
  for (int i = 0; i < ir->naxes; i++) {
    if (ir->axis[i].kind != LG_AX_DIGIT || ir->axis[i].dim != d) continue;
    int k = (*n)++;
    while (k > 0 && ir->axis[ax[k - 1]].div < ir->axis[i].div) {
      ax[k] = ax[k - 1];
      k--;
    }
    ax[k] = i;
  }
  int64_t inner = 1;
  for (int k = *n - 1; k >= 0; k--) {
    const lg_ir_axis *a = &ir->axis[ax[k]];
    if (a->div != inner || (k > 0 && a->mod <= 0)) return -1;
    ext[ax[k]] = a->mod > 0 ? a->mod : P / inner;
    if (inner > INT64_MAX / ext[ax[k]]) return -1;
    inner *= ext[ax[k]];
  }
  return *n && inner == P ? 0 : -1;
}

/* A size expression of the IR for the CPU shape; `dflt` when e is NULL. */
static int xeval(const lg_iexpr *e, const int64_t *shape, int64_t dflt,
                 int64_t *out) {
  if (!e) {
    *out = dflt;
    return 0;
  }
  return lg_iexpr_eval(e, shape, out);
}

/* The index part: slice, pad, reshape into digits, transpose. */
static int export_index(const lg_ir *ir, const char *format,
                        const int64_t *shape, xchain *x, lay_error *err) {
  char nb[32];
  int r = ir->rank, na = ir->naxes;
  if (ir->table || na == 0)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it needs a gather table (a reshape that crosses digits "
                 "after a transpose), which no chain of whole-axis steps "
                 "expresses");
  if (ir->value.nplanes)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it splits elements into byte planes, which no "
                 "rt_transformations step expresses");
  int64_t lo[LG_MAX_RANK], len[LG_MAX_RANK], pre[LG_MAX_RANK],
      post[LG_MAX_RANK], P[LG_MAX_RANK], ext[LG_MAX_AXES];
  int sliced = 0, padded = 0;
  for (int d = 0; d < r; d++) {
    const lg_ir_dim *D = &ir->dim[d];
    int64_t hi, chunk = 1;
    if (xeval(D->lo, shape, 0, &lo[d]) || xeval(D->hi, shape, shape[d], &hi) ||
        xeval(D->before, shape, 0, &pre[d]) ||
        xeval(D->after, shape, 0, &post[d]))
      return xfail(err, LAY_E_OVERFLOW, format, "a size overflows");
    len[d] = hi - lo[d];
    sliced |= lo[d] != 0 || len[d] != shape[d];
    x->window |= sliced || pre[d] || post[d];
    for (int i = 0; i < na; i++)
      if (ir->axis[i].kind == LG_AX_DIGIT && ir->axis[i].dim == d &&
          ir->axis[i].mod > 0)
        chunk *= ir->axis[i].mod;
    P[d] = pre[d] + len[d] + post[d];
    post[d] += (chunk - P[d] % chunk) % chunk; /* the implicit padding */
    P[d] = pre[d] + len[d] + post[d];
    padded |= pre[d] || post[d];
  }
  if (padded && ir->value.pad_value != 0)
    return xfail(err, LAY_E_LAYOUT, format,
                 "it pads with %s; rt_transformations pad with zeros",
                 gnum(ir->value.pad_value, nb));
  if (sliced) {
    op *o = xpush(x, OP_SLICE, len, r);
    memcpy(o->a, lo, (size_t)r * sizeof *lo);
    memcpy(o->b, len, (size_t)r * sizeof *len);
  }
  if (padded) {
    op *o = xpush(x, OP_PAD, P, r);
    memcpy(o->a, pre, (size_t)r * sizeof *pre);
    memcpy(o->b, post, (size_t)r * sizeof *post);
  }
  /* The reshape: every dimension cut into its digits, outermost first,
  ** then a 1 for each unit axis; pos[i] is axis i's place in it. */
  int64_t rs[LG_MAX_AXES];
  int pos[LG_MAX_AXES], nr = 0;
  for (int d = 0; d < r; d++) {
    int ax[LG_MAX_AXES], n;
    if (dim_digits(ir, d, P[d], ax, &n, ext))
      return xfail(err, LAY_E_LAYOUT, format,
                   "the digits of '%s' do not cut it into a mixed radix",
                   ir->dim[d].name ? ir->dim[d].name : "?");
    for (int k = 0; k < n; k++) pos[ax[k]] = nr, rs[nr++] = ext[ax[k]];
  }
  for (int i = 0; i < na; i++)
    if (ir->axis[i].kind == LG_AX_UNIT) pos[i] = nr, ext[i] = 1, rs[nr++] = 1;
  if (!same_shape(rs, nr, x->cur, x->rank)) xpush(x, OP_RESHAPE, rs, nr);
  /* Explicit strides and alignment must be the row-major ones. */
  int64_t natural = 1;
  for (int i = na - 1; i >= 0; i--) {
    const lg_ir_axis *a = &ir->axis[i];
    int64_t st = natural, al = 1;
    if (xeval(a->stride, shape, natural, &st) ||
        xeval(a->align, shape, 1, &al))
      return xfail(err, LAY_E_OVERFLOW, format, "a stride overflows");
    if (st != natural || (al > 0 && natural % al))
      return xfail(err, LAY_E_LAYOUT, format,
                   "axis '%s' has %s, which leaves gaps no chain expresses",
                   a->label ? a->label : "?",
                   st != natural ? "an explicit stride" : "an alignment");
    natural *= ext[i];
  }
  int64_t perm[LG_MAX_AXES];
  int identity = 1;
  size_t k = (size_t)snprintf(x->order, sizeof x->order, "[");
  for (int i = 0; i < na; i++) {
    perm[i] = pos[i];
    identity &= pos[i] == i;
    x->hw[i] = ext[i];
    if (k < sizeof x->order)
      k += (size_t)snprintf(x->order + k, sizeof x->order - k, "%s%s",
                            i ? ", " : "", ir->axis[i].label);
  }
  if (k < sizeof x->order) snprintf(x->order + k, sizeof x->order - k, "]");
  x->hw_rank = na;
  if (!identity) {
    op *o = xpush(x, OP_TRANSPOSE, x->hw, na);
    memcpy(o->a, perm, (size_t)na * sizeof *perm);
  }
  if (!x->n) xpush(x, OP_RESHAPE, x->cur, x->rank); /* never an empty chain */
  return 0;
}

/* cpu_format for a layout's dimension names, and the hw_format whose
** derivation is its memory order (F_NONE when none is). */
static void export_formats(const lg_ir *ir, const xchain *x, hsi_fmt *cf,
                           hsi_fmt *hf) {
  *cf = *hf = F_NONE;
  for (int f = F_NCHW; f <= F_AB && !*cf; f++) {
    int same = ir->rank == fmt_rank[f];
    for (int i = 0; same && i < ir->rank; i++)
      same = ir->dim[i].name && !strcmp(ir->dim[i].name, fmt_dims[f][i]);
    if (same) *cf = (hsi_fmt)f;
  }
  if (!*cf || x->window) return;
  for (int f = F_NCHW; f <= F_HCWNC16 && !*hf; f++) {
    char order[64];
    const char *why;
    if (fmt_order(*cf, (hsi_fmt)f, order, sizeof order, &why) &&
        !strcmp(order, x->order))
      *hf = (hsi_fmt)f;
  }
}

/* The report holding the entry, as cJSON text; NULL on OOM. */
static char *export_json(const xchain *x, const int64_t *shape, int rank,
                         hsi_fmt cf, hsi_fmt hf, int as_output) {
  cJSON *root = cJSON_CreateObject();
  cJSON *ins = cJSON_AddArrayToObject(root, "inputs");
  cJSON *outs = cJSON_AddArrayToObject(root, "outputs");
  cJSON *e = cJSON_CreateObject(), *chain = NULL;
  char *text = NULL;
  if (!root || !ins || !outs || !e ||
      !cJSON_AddItemToArray(as_output ? outs : ins, e)) {
    cJSON_Delete(e);
    goto done;
  }
  /* No "name": that is the compiler's own identifier for the buffer. */
  if (!cJSON_AddItemToObject(e, "cpu_shape", int_array(shape, rank)) ||
      (cf && !cJSON_AddStringToObject(e, "cpu_format", fmt_names[cf])) ||
      !cJSON_AddStringToObject(e, "cpu_dtype", lay_dtype_name(x->cpu_dt)) ||
      !cJSON_AddItemToObject(e, "hw_shape", int_array(x->hw, x->hw_rank)) ||
      (hf && !cJSON_AddStringToObject(e, "hw_format", fmt_names[hf])) ||
      !cJSON_AddStringToObject(e, "hw_dtype", lay_dtype_name(x->hw_dt)) ||
      !cJSON_AddNumberToObject(e, "scale_factor", x->scale) ||
      !cJSON_AddNumberToObject(e, "zero_point", x->zp) ||
      !(chain = cJSON_AddArrayToObject(e, "rt_transformations")))
    goto done;
  for (int i = 0; i < x->n; i++) {
    /* outputs list the chain NPU -> CPU: the inverses, last first */
    op inv;
    if (as_output) invert_op(&x->ops[x->n - 1 - i], &inv);
    if (add_op(chain, as_output ? &inv : &x->ops[i])) goto done;
  }
  text = cJSON_Print(root);
done:
  cJSON_Delete(root);
  return text;
}

char *lay_hsi_export(lay_ctx *ctx, const char *format, const int64_t *shape,
                    int rank, lay_dtype dtype, const lay_hsi_quant *quant,
                    int as_output, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!ctx || !format || !shape) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context, format or shape");
    return NULL;
  }
  lg_ir *ir = NULL;
  lay_plan *plan = NULL;
  char *text = NULL, *out = NULL;
  xchain x;
  memset(&x, 0, sizeof x);
  if (lg_instantiate(li_ctx_module(ctx), format, &ir, err)) return NULL;
  /* The plan checks the shape and the dtype, and gives both types. */
  if (quant && !dtype) dtype = ir->value.cpu ? ir->value.cpu : LAY_DT_FP32;
  if (lay_plan_create(ctx, format, shape, rank, dtype, LAY_PACK, &plan, err))
    goto done;
  x.cpu_dt = lay_plan_src_dtype(plan);
  x.hw_dt = lay_plan_dst_dtype(plan);
  x.rank = rank;
  memcpy(x.cur, shape, (size_t)rank * sizeof *shape);
  if (export_value(ir, format, quant, &x, err) ||
      export_index(ir, format, shape, &x, err))
    goto done;
  /* What the chain gives is what lay runs: the same buffer shape. */
  int64_t ph[LAY_MAX_AXES];
  int pr = lay_plan_hw_shape(plan, ph, NULL, LAY_MAX_AXES);
  if (!same_shape(ph, pr, x.hw, x.hw_rank)) {
    xfail(err, LAY_E_INTERNAL, format,
          "the chain's hw_shape differs from the plan's (a bug in lay)");
    goto done;
  }
  hsi_fmt cf, hf;
  export_formats(ir, &x, &cf, &hf);
  if (!(text = export_json(&x, shape, rank, cf, hf, as_output)) ||
      !(out = malloc(strlen(text) + 2))) {
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    goto done;
  }
  snprintf(out, strlen(text) + 2, "%s\n", text);
done:
  cJSON_free(text);
  lay_plan_free(plan);
  lg_ir_free(ir);
  return out;
}
