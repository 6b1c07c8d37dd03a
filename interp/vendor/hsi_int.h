/*
** hsi_int.h: what the files of the AMD report importer share (hsi.c:
** errors, field access and the report API; hsi_format.c: the format
** strings; hsi_entry.c: one entry -> spec text; hsi_json.c: strict JSON;
** hsi_check.c: --check; hsi_export.c: lay export). Internal to interp/vendor; every name here
** starts with hsi_ (or is a type of the report).
*/
#ifndef LI_HSI_INT_H
#define LI_HSI_INT_H

#include "ctx.h"
#include "diag.h"
#include "hsi.h"
#include "lang.h"
#include "strbuf.h"

#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#define MAXR LAY_MAX_AXES        /* rank of any intermediate shape */
#define MAX_INT 9007199254740992.0 /* 2^53: exact in a double */

#if defined(__GNUC__)
#define HSI_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define HSI_PRINTF(a, b)
#endif

/* ---- Formats ------------------------------------------------------------ */

typedef enum hsi_fmt {
  F_NONE = 0, /* absent */
  F_NCHW, F_NHWC, F_AB, F_HCWNC4, F_HCWNC8, F_HCWNC16, F_NHW, F_NHC, F_NCH,
  F_NC, F_NWC, F_CHW, F_HWC, F_NC4HW4, F_NC8HW8, F_NHWC4, F_NHWC8,
  F_NHW16C4WC, F_NHW16WC4C, F_NH2HWC4C, F_NH2C4HWC, F_COUNT
} hsi_fmt; /* ORDER: hsi_formats */

/* One format string (hsi_format.c says where each comes from). */
typedef struct hsi_format {
  const char *name;  /* as AMD writes it */
  const char *dims;  /* plain formats: one letter per CPU dim; else NULL */
  const char *order; /* memory order: "h c/4 w n c%4" */
  const char *shape; /* hw_shape: "h c/4 w n 4"; c^4: C rounded up to 4s */
  int exported;      /* lay export may name it */
} hsi_format;

/* ---- Transformations ---------------------------------------------------- */

typedef enum opk {
  OP_QUANT, OP_DEQUANT, OP_PAD, OP_RESHAPE, OP_TRANSPOSE, OP_SLICE, OP_CAST
} opk; /* ORDER: op_names */


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

/* ---- The report --------------------------------------------------------- */

typedef struct tensor {
  int output, index;          /* outputs[index] or inputs[index] */
  size_t at;                  /* its '{' in the JSON text */
  int line, col;              /* ... as line:col */
  int64_t frames;             /* 0; N: cpu holds one of N frames */
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
  char *file;           /* for errors (a copy) */
  int n[2];             /* inputs, outputs */
  tensor *t[2];
  int nissues, capissues;
  lay_hsi_issue *issues;
};


/* A parse in progress: where errors go. */
typedef struct pctx {
  const char *file;
  lay_error *err;
  lay_hsi *h;
  int oom;            /* the error is out of memory */
  struct tensor *t;   /* the entry being read (its notes), or NULL */
} pctx;

#define JSON_MAX_DEPTH CJSON_NESTING_LIMIT /* cJSON's limit, 1000 levels */

/* Where and why the text is not strict JSON. */
typedef struct jfail {
  size_t at;       /* byte offset of the offending character */
  const char *why; /* NULL for a plain syntax error, else the reason */
  int deep;        /* 1: valid JSON nested deeper than JSON_MAX_DEPTH */
} jfail;

/* ---- hsi.c ---------------------------------------------------------------- */

extern const char *const hsi_op_names[];    /* ORDER: opk */

int hsi_is_float(lay_dtype t);
void hsi_sb_shape(lg_strbuf *b, const int64_t *v, int n);
const char *hsi_gnum(double v, char *buf);
void hsi_sb_num(lg_strbuf *b, double v);
int hsi_perr(pctx *p, const char *path, const char *fmt, ...) HSI_PRINTF(3, 4);
int hsi_oom(pctx *p, const char *path);
const char *hsi_jtype(const cJSON *j);
int hsi_add_issue(lay_hsi *h, tensor *t, int fatal, const char *fmt, ...)
    HSI_PRINTF(4, 5);
int hsi_perrf(pctx *p, const char *path, const char *field, const char *fmt,
              ...) HSI_PRINTF(4, 5);
const cJSON *hsi_field(pctx *p, const cJSON *o, const char *path,
                       const char *key, int required, int *fail);
int hsi_get_string(pctx *p, const cJSON *o, const char *path, const char *key,
                   int required, const char **out);
int hsi_get_number(pctx *p, const cJSON *o, const char *path, const char *key,
                   int required, double *out);
int hsi_get_ints(pctx *p, const cJSON *o, const char *path, const char *key,
                 int64_t lo, int64_t *v, int *n, int cap);
int hsi_get_dtype(pctx *p, const cJSON *o, const char *path, const char *key,
                  lay_dtype *out);
int hsi_get_fmt(pctx *p, const cJSON *o, const char *path, const char *key,
                int required, hsi_fmt *out);
int64_t hsi_prod(const int64_t *v, int n, int *ovf);
int hsi_same_shape(const int64_t *a, int na, const int64_t *b, int nb);
void hsi_shape_str(char *buf, size_t cap, const int64_t *v, int n);

/* ---- hsi_format.c --------------------------------------------------------- */

extern const hsi_format hsi_formats[]; /* ORDER: hsi_fmt */
const char *hsi_fmt_name(hsi_fmt f);
hsi_fmt hsi_fmt_parse(const char *s);
const char *hsi_fmt_list(char *buf, size_t cap);
int hsi_fmt_rank(hsi_fmt f);    /* entries of its hw_shape */
int hsi_fmt_blocked(hsi_fmt f); /* it splits a dimension into blocks */
const char *hsi_fmt_dim(hsi_fmt f, int i, char *buf);
/* cpu_format cf with cpu_shape cpu[0..rank) -> hw_format hf: the memory
** order as lay text "[h, c/4, w, n, c%4]" into order, the hw_shape it
** declares into hw[0..*hwr). NULL, or why it cannot be derived. */
const char *hsi_fmt_derive(hsi_fmt cf, const int64_t *cpu, int rank,
                           hsi_fmt hf, char *order, size_t cap, int64_t *hw,
                           int *hwr);

/* ---- hsi_entry.c ---------------------------------------------------------- */

const char *hsi_zp_fault(double z, lay_dtype t, char *buf, size_t cap);
int hsi_implied_value(lay_hsi *h, tensor *t, const char *path, op *o,
                      int record);
void hsi_invert_op(const op *o, op *r);
int hsi_read_tensor(pctx *p, const cJSON *j, int output, int index,
                    tensor *t);

/* ---- hsi_json.c ----------------------------------------------------------- */

int hsi_json_scan(const char *s, size_t n, jfail *f);
void hsi_json_pos(const char *json, size_t len, size_t off, lay_error *e);
int hsi_dup_keys(pctx *p, const cJSON *j, char *path, size_t cap);
/* Give every number node its text (valuestring) and every object its
** offset (hsi_json_at); -1 when out of memory. */
int hsi_json_mark(cJSON *root, const char *json, size_t len);
size_t hsi_json_at(const cJSON *j);

#endif /* LI_HSI_INT_H */
