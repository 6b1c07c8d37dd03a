/*
** kneron.c: a Kneron PLUS tensor descriptor (kp.TensorDescriptor in JSON)
** -> lay spec text; see kneron.h.
**
** The order of work: the text is parsed by cJSON (its end pointer gives
** the line:col of text that is not JSON) and a key given twice in any
** object fails with its path; every field is fetched with its type and
** range checked, and a missing, mistyped or unknown one fails with its
** path. The descriptor is then checked as a whole (stride_onnx is the
** row-major strides of shape; an outer channel group format has one
** channel axis; a high/low format's strides keep the 16-element entries
** apart; the SDK's buffer size fits its int32) and turned into text. The
** strides themselves are checked by planning the text once (load): two
** elements at one place are the planner's "not a bijection".
*/
#define _POSIX_C_SOURCE 200809L

#include "diag.h"
#include "kneron.h"
#include "strbuf.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The SDK's tables ------------------------------------------------------ */

/* How a format stores one element. */
typedef enum kstore {
  K_8,   /* one int8 */
  K_HL,  /* int16 as a low-byte entry and a high-byte entry 16 bytes on */
  K_W16, /* int16, little-endian, bit 0 cleared (u & 0xfffe) */
  K_F32  /* float32, no fixed point */
} kstore;

/* kp_model_tensor_data_layout_t (include/kp_struct.h), by value. */
typedef struct kfmt {
  const char *name;   /* the enum's suffix */
  kstore store;
  int group;          /* outer channel groups (1W16C8B, 1W16C8BHL) */
  const char *stdlib; /* the stdlib layout (version 1 descriptors) */
  const char *kl520;  /* KL520's output variant, or NULL */
} kfmt;

static const kfmt KFMTS[] = {
    {"UNKNOWN", K_8, 0, NULL, NULL},
    {"4W4C8B", K_8, 0, "4w4c8b", NULL},
    {"1W16C8B", K_8, 1, "1w16c8b", NULL},
    {"16W1C8B", K_8, 0, "16w1c8b", "kl520_16w1c8b"},
    {"8W1C16B", K_W16, 0, "8w1c16b", "kl520_8w1c16b"},
    {"4W4C8BHL", K_HL, 0, "4w4c8bhl", NULL},
    {"1W16C8BHL", K_HL, 1, "1w16c8bhl", NULL},
    {"16W1C8BHL", K_HL, 0, "16w1c8bhl", NULL},
    {"RAW_8B", K_8, 0, "raw_8b", NULL},
    {"RAW_16B", K_W16, 0, "raw_16b", NULL},
    {"RAW_FLOAT", K_F32, 0, "raw_float", NULL},
    {"1W16C8B_CH_COMPACT", K_8, 0, "1w16c8b_ch_compact", NULL},
    {"1W16C8BHL_CH_COMPACT", K_HL, 0, "1w16c8bhl_ch_compact", NULL},
};
#define NKFMTS ((int)(sizeof KFMTS / sizeof KFMTS[0]))

/* kp_dtype_t: the scale types helper_get_quantization_parameters_v1_
** information reads (the others it rejects). */
static const struct {
  const char *name; /* the enum's suffix */
  int value;
  double lo, hi;    /* integer range; 0, 0 for float32 */
} KDTYPES[] = {
    {"INT8", 1, -128, 127},       {"INT16", 2, -32768, 32767},
    {"INT32", 3, -2147483648.0, 2147483647.0},
    {"UINT8", 5, 0, 255},         {"UINT16", 6, 0, 65535},
    {"UINT32", 7, 0, 4294967295.0}, {"FLOAT32", 9, 0, 0},
};
#define NKDTYPES ((int)(sizeof KDTYPES / sizeof KDTYPES[0]))

/* ---- The descriptor -------------------------------------------------------- */

struct lay_kneron {
  char *file;          /* for messages */
  char *name;          /* "name" */
  int64_t index;       /* "index" */
  int layout;          /* index into KFMTS */
  int version;         /* tensor_shape_info.version: 1 or 2 */
  int kl520;           /* target_chip is KL520 */
  int rank;
  int64_t shape[LAY_MAX_RANK];      /* v2 shape, v1 shape_npu */
  int64_t stride_npu[LAY_MAX_RANK]; /* v2 */
  int qaxis;           /* quantized_axis */
  int nq;              /* fixed-point descriptors */
  double *scale;       /* nq scales, as float32 values */
  int *radix;          /* nq radixes */
  char *spec;          /* the definitions, without the namespace line */
  char *ref, *fixed_ref;
  uint64_t npu_bytes;
};

/* A parse in progress: where errors go. */
typedef struct kctx {
  const char *file;
  lay_error *err;
} kctx;

static int kerr(kctx *p, const char *path, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* "PATH: message" as LAY_E_JSON; returns -1. */
static int kerr(kctx *p, const char *path, const char *fmt, ...) {
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

static void join(char *out, size_t cap, const char *path, const char *key) {
  snprintf(out, cap, "%s%s%s", path, *path ? "." : "", key);
}

/* Every key of object o must be one of keys[] (NULL-terminated). */
static int known_keys(kctx *p, const cJSON *o, const char *path,
                      const char *const *keys) {
  const cJSON *e;
  cJSON_ArrayForEach(e, o) {
    int ok = 0;
    for (int i = 0; keys[i] && !ok; i++) ok = !strcmp(e->string, keys[i]);
    if (!ok) {
      char list[300] = "";
      for (int i = 0; keys[i]; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i ? (keys[i + 1] ? ", " : " or ") : "", keys[i]);
      char k[80];
      snprintf(k, sizeof k, "%s", e->string);
      lg_one_line(k);
      return kerr(p, *path ? path : "descriptor",
                  "unknown field '%s' (expected %s)", k, list);
    }
  }
  return 0;
}

/* o[key] (object o at path); NULL and *fail when required and missing. */
static const cJSON *field(kctx *p, const cJSON *o, const char *path,
                          const char *key, int required, int *fail) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!j && required) {
    kerr(p, *path ? path : "descriptor", "missing required field '%s'", key);
    *fail = 1;
  }
  return j;
}

/* An integer JSON number in [lo, hi]. */
static int get_int(kctx *p, const cJSON *j, const char *path, double lo,
                   double hi, int64_t *out) {
  if (!cJSON_IsNumber(j))
    return kerr(p, path, "must be an integer, not %s", jtype(j));
  double v = j->valuedouble;
  if (v != floor(v) || !isfinite(v))
    return kerr(p, path, "must be an integer, not %.17g", v);
  if (v < lo) return kerr(p, path, "must be at least %.0f, not %.17g", lo, v);
  if (v > hi) return kerr(p, path, "must be at most %.0f, not %.17g", hi, v);
  *out = (int64_t)v;
  return 0;
}

/* An array of 1..LAY_MAX_RANK integers in [lo, hi]. */
static int get_ints(kctx *p, const cJSON *j, const char *path, double lo,
                    double hi, int64_t *out, int *n) {
  if (!cJSON_IsArray(j))
    return kerr(p, path, "must be an array of integers, not %s", jtype(j));
  int cnt = cJSON_GetArraySize(j);
  if (cnt < 1 || cnt > LAY_MAX_RANK)
    return kerr(p, path, "must have 1 to %d entries, not %d", LAY_MAX_RANK,
                cnt);
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, j) {
    char ep[200];
    snprintf(ep, sizeof ep, "%s[%d]", path, i);
    if (get_int(p, e, ep, lo, hi, &out[i])) return -1;
    i++;
  }
  *n = cnt;
  return 0;
}

/* An enum value written as the Python print writes it
** ("ModelTensorDataLayout.KP_MODEL_TENSOR_DATA_LAYOUT_1W16C8B"), as its
** C name, as the suffix alone, or as its number; the suffix's index in
** names[0..n) (names[i] has value i unless values is given). */
static int get_enum(kctx *p, const cJSON *j, const char *path,
                    const char *cls, const char *prefix,
                    const char *const *names, const int *values, int n,
                    int *out) {
  if (cJSON_IsNumber(j)) {
    int64_t v;
    if (get_int(p, j, path, 0, 1e9, &v)) return -1;
    for (int i = 0; i < n; i++)
      if ((values ? values[i] : i) == v) {
        *out = i;
        return 0;
      }
    return kerr(p, path, "unknown %s %" PRId64, cls, v);
  }
  if (!cJSON_IsString(j))
    return kerr(p, path, "must be a string or a number, not %s", jtype(j));
  const char *s = j->valuestring;
  size_t cl = strlen(cls), pl = strlen(prefix);
  if (!strncmp(s, cls, cl) && s[cl] == '.') s += cl + 1;
  if (!strncmp(s, prefix, pl)) s += pl;
  for (int i = 0; i < n; i++)
    if (!strcmp(s, names[i])) {
      *out = i;
      return 0;
    }
  char q[120];
  snprintf(q, sizeof q, "%s", j->valuestring);
  lg_one_line(q);
  return kerr(p, path, "unknown %s '%s'", cls, q);
}

/* ---- Reading the fields ---------------------------------------------------- */

static int read_layout(kctx *p, const cJSON *root, lay_kneron *k) {
  int fail = 0;
  const cJSON *j = field(p, root, "", "data_layout", 1, &fail);
  if (fail) return -1;
  const char *names[NKFMTS];
  for (int i = 0; i < NKFMTS; i++) names[i] = KFMTS[i].name;
  if (get_enum(p, j, "data_layout", "ModelTensorDataLayout",
               "KP_MODEL_TENSOR_DATA_LAYOUT_", names, NULL, NKFMTS,
               &k->layout))
    return -1;
  if (k->layout == 0)
    return kerr(p, "data_layout",
                "is UNKNOWN: the SDK converts no data of an unknown layout");
  return 0;
}

static int read_target(kctx *p, const cJSON *root, lay_kneron *k) {
  static const char *const chips[] = {"UNKNOWN", "KL520", "KL720", "KL530",
                                      "KL730",   "KL630", "KL540"};
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(root, "target_chip");
  int chip = 0;
  if (j && get_enum(p, j, "target_chip", "ModelTargetChip",
                    "KP_MODEL_TARGET_CHIP_", chips, NULL, 7, &chip))
    return -1;
  k->kl520 = chip == 1;
  return 0;
}

/* tensor_shape_info.data, version 2: shape, stride_onnx, stride_npu. */
static int read_v2(kctx *p, const cJSON *d, const char *path, lay_kneron *k) {
  static const char *const keys[] = {"shape", "stride_onnx", "stride_npu",
                                     NULL};
  if (known_keys(p, d, path, keys)) return -1;
  int fail = 0;
  const cJSON *js = field(p, d, path, "shape", 1, &fail);
  const cJSON *jo = fail ? NULL : field(p, d, path, "stride_onnx", 1, &fail);
  const cJSON *jn = fail ? NULL : field(p, d, path, "stride_npu", 1, &fail);
  if (fail) return -1;
  char sp[120], op[120], np[120];
  join(sp, sizeof sp, path, "shape");
  join(op, sizeof op, path, "stride_onnx");
  join(np, sizeof np, path, "stride_npu");
  int64_t so[LAY_MAX_RANK];
  int no, nn;
  if (get_ints(p, js, sp, 1, 2147483647.0, k->shape, &k->rank) ||
      get_ints(p, jo, op, 0, 4294967295.0, so, &no) ||
      get_ints(p, jn, np, 0, 4294967295.0, k->stride_npu, &nn))
    return -1;
  if (no != k->rank)
    return kerr(p, op, "has %d entries, shape has %d", no, k->rank);
  if (nn != k->rank)
    return kerr(p, np, "has %d entries, shape has %d", nn, k->rank);
  /* the ONNX buffer is row-major: lay's CPU side */
  int64_t want = 1;
  for (int d2 = k->rank - 1; d2 >= 0; d2--) {
    if (so[d2] != want && k->shape[d2] > 1) {
      char ep[140];
      snprintf(ep, sizeof ep, "%s[%d]", op, d2);
      return kerr(p, ep,
                  "is %" PRId64 ", but the row-major stride of shape is %" PRId64
                  " (lay reads the ONNX data row-major)",
                  so[d2], want);
    }
    want *= k->shape[d2];
  }
  return 0;
}

/* tensor_shape_info.data, version 1: shape_npu (B, C, H, W). */
static int read_v1(kctx *p, const cJSON *d, const char *path, lay_kneron *k) {
  static const char *const keys[] = {"shape_npu", "shape_onnx",
                                     "axis_permutation_onnx_to_npu", NULL};
  if (known_keys(p, d, path, keys)) return -1;
  int fail = 0;
  const cJSON *js = field(p, d, path, "shape_npu", 1, &fail);
  if (fail) return -1;
  char sp[120];
  join(sp, sizeof sp, path, "shape_npu");
  if (get_ints(p, js, sp, 1, 2147483647.0, k->shape, &k->rank)) return -1;
  if (k->rank != 4)
    return kerr(p, sp, "has %d entries; version 1 shapes are B, C, H, W",
                k->rank);
  return 0;
}

static int read_shape_info(kctx *p, const cJSON *root, lay_kneron *k) {
  static const char *const keys[] = {"version", "data", NULL};
  static const char *const vers[] = {"UNKNOWN", "1", "2"};
  int fail = 0;
  const char *path = "tensor_shape_info";
  const cJSON *t = field(p, root, "", path, 1, &fail);
  if (fail) return -1;
  if (!cJSON_IsObject(t))
    return kerr(p, path, "must be an object, not %s", jtype(t));
  if (known_keys(p, t, path, keys)) return -1;
  const cJSON *v = field(p, t, path, "version", 1, &fail);
  const cJSON *d = fail ? NULL : field(p, t, path, "data", 1, &fail);
  if (fail) return -1;
  if (get_enum(p, v, "tensor_shape_info.version",
               "ModelTensorShapeInformationVersion",
               "KP_MODEL_TENSOR_SHAPE_INFO_VERSION_", vers, NULL, 3,
               &k->version))
    return -1;
  if (k->version == 0)
    return kerr(p, "tensor_shape_info.version", "is UNKNOWN (expected 1 or 2)");
  if (!cJSON_IsObject(d))
    return kerr(p, "tensor_shape_info.data", "must be an object, not %s",
                jtype(d));
  return k->version == 2 ? read_v2(p, d, "tensor_shape_info.data", k)
                         : read_v1(p, d, "tensor_shape_info.data", k);
}

/* One {scale {dtype, value}, radix} of the list. */
static int read_fixed(kctx *p, const cJSON *e, const char *path,
                      lay_kneron *k, int i) {
  static const char *const keys[] = {"scale", "radix", NULL};
  static const char *const skeys[] = {"dtype", "value", NULL};
  if (!cJSON_IsObject(e))
    return kerr(p, path, "must be an object, not %s", jtype(e));
  if (known_keys(p, e, path, keys)) return -1;
  int fail = 0;
  const cJSON *s = field(p, e, path, "scale", 1, &fail);
  const cJSON *r = fail ? NULL : field(p, e, path, "radix", 1, &fail);
  if (fail) return -1;
  char rp[256], sp[256], dp[270], vp[270];
  snprintf(rp, sizeof rp, "%s.radix", path);
  snprintf(sp, sizeof sp, "%s.scale", path);
  int64_t radix;
  /* the SDK's pow2 shifts 1ULL by |radix| */
  if (get_int(p, r, rp, -63, 63, &radix)) return -1;
  k->radix[i] = (int)radix;
  if (!cJSON_IsObject(s))
    return kerr(p, sp, "must be an object {dtype, value}, not %s", jtype(s));
  if (known_keys(p, s, sp, skeys)) return -1;
  const cJSON *dt = field(p, s, sp, "dtype", 1, &fail);
  const cJSON *val = fail ? NULL : field(p, s, sp, "value", 1, &fail);
  if (fail) return -1;
  snprintf(dp, sizeof dp, "%s.dtype", sp);
  snprintf(vp, sizeof vp, "%s.value", sp);
  const char *names[NKDTYPES];
  int values[NKDTYPES], t;
  for (int d = 0; d < NKDTYPES; d++) {
    names[d] = KDTYPES[d].name;
    values[d] = KDTYPES[d].value;
  }
  if (get_enum(p, dt, dp, "DataType", "KP_DTYPE_", names, values, NKDTYPES,
               &t)) {
    if (p->err && strstr(p->err->message, "unknown DataType"))
      snprintf(p->err->message + strlen(p->err->message),
               sizeof p->err->message - strlen(p->err->message), "%s",
               " (the SDK reads INT8, INT16, INT32, UINT8, UINT16, UINT32 "
               "or FLOAT32 scales)");
    return -1;
  }
  if (!cJSON_IsNumber(val))
    return kerr(p, vp, "must be a number, not %s", jtype(val));
  double v = val->valuedouble;
  if (KDTYPES[t].hi > 0) { /* an integer type */
    int64_t iv;
    if (get_int(p, val, vp, KDTYPES[t].lo, KDTYPES[t].hi, &iv)) return -1;
    v = (double)(float)iv; /* the SDK: (float)scale_int... */
  } else {
    if (!isfinite(v) || fabs(v) > 3.4028234663852886e38)
      return kerr(p, vp, "%.17g is not a float32", v);
    v = (double)(float)v; /* the SDK holds scale_float32 */
  }
  if (!(v > 0))
    return kerr(p, vp, "must be greater than 0, not %.17g", v);
  k->scale[i] = v;
  return 0;
}

static int read_quant(kctx *p, const cJSON *root, lay_kneron *k) {
  static const char *const keys[] = {"version", "data", NULL};
  static const char *const dkeys[] = {"quantized_axis",
                                      "quantized_fixed_point_descriptor_list",
                                      NULL};
  static const char *const vers[] = {"UNKNOWN", "1"};
  int fail = 0, ver = 0;
  const char *path = "quantization_parameters";
  const cJSON *q = field(p, root, "", path, 1, &fail);
  if (fail) return -1;
  if (!cJSON_IsObject(q))
    return kerr(p, path, "must be an object, not %s", jtype(q));
  if (known_keys(p, q, path, keys)) return -1;
  const cJSON *v = field(p, q, path, "version", 1, &fail);
  const cJSON *d = fail ? NULL : field(p, q, path, "data", 1, &fail);
  if (fail) return -1;
  if (get_enum(p, v, "quantization_parameters.version",
               "QuantizationParametersVersion",
               "KP_MODEL_QUANTIZATION_PARAMS_VERSION_", vers, NULL, 2, &ver))
    return -1;
  if (ver == 0)
    return kerr(p, "quantization_parameters.version",
                "is UNKNOWN (expected 1)");
  const char *dp = "quantization_parameters.data";
  if (!cJSON_IsObject(d))
    return kerr(p, dp, "must be an object, not %s", jtype(d));
  if (known_keys(p, d, dp, dkeys)) return -1;
  const cJSON *ax = field(p, d, dp, "quantized_axis", 1, &fail);
  const cJSON *l = fail ? NULL
                        : field(p, d, dp,
                                "quantized_fixed_point_descriptor_list", 1,
                                &fail);
  if (fail) return -1;
  int64_t axis;
  if (get_int(p, ax, "quantization_parameters.data.quantized_axis", 0,
              4294967295.0, &axis))
    return -1;
  const char *lp = "quantization_parameters.data."
                   "quantized_fixed_point_descriptor_list";
  /* a JSON array, or the print's {"0": ..., "1": ...} */
  if (!cJSON_IsArray(l) && !cJSON_IsObject(l))
    return kerr(p, lp, "must be an array or an object {\"0\": ...}, not %s",
                jtype(l));
  int n = cJSON_GetArraySize(l);
  if (n < 1)
    return kerr(p, lp,
                "is empty (the SDK needs 1 descriptor per tensor or 1 per "
                "channel)");
  if (n > 65536) return kerr(p, lp, "has %d entries, more than 65536", n);
  k->nq = n;
  k->qaxis = (int)(axis > 1000 ? 1000 : axis);
  k->scale = calloc((size_t)n, sizeof *k->scale);
  k->radix = calloc((size_t)n, sizeof *k->radix);
  if (!k->scale || !k->radix) {
    if (p->err) lg_error_plain(p->err, LAY_E_NOMEM, p->file, "out of memory");
    return -1;
  }
  int i = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, l) {
    char ep[200];
    if (cJSON_IsObject(l)) {
      char want[16];
      snprintf(want, sizeof want, "%d", i);
      char key[40];
      snprintf(key, sizeof key, "%s", e->string);
      lg_one_line(key);
      if (strcmp(e->string, want))
        return kerr(p, lp, "key '%s' where '%s' belongs (the keys are 0, 1, "
                           "... in order)", key, want);
    }
    snprintf(ep, sizeof ep, "%s[%d]", lp, i);
    if (read_fixed(p, e, ep, k, i)) return -1;
    i++;
  }
  if (n > 1) {
    if (axis >= k->rank)
      return kerr(p, "quantization_parameters.data.quantized_axis",
                  "%" PRId64 " is not an axis of the %d-dimensional shape",
                  axis, k->rank);
    if (n != k->shape[axis])
      return kerr(p, lp,
                  "has %d descriptors; quantized_axis %" PRId64
                  " has %" PRId64 " entries (1 descriptor, or 1 per entry)",
                  n, axis, k->shape[axis]);
    if (k->version == 1 && axis != 1)
      return kerr(p, "quantization_parameters.data.quantized_axis",
                  "is %" PRId64 "; a version 1 tensor (B, C, H, W) is "
                  "quantized per channel along C, axis 1", axis);
  }
  return 0;
}

/* ---- Version 2: the order items from the strides --------------------------- */

/* One item of the generated order: dimension d whole, or its digit
** d / div (whole: 0), or d % div (mod); stride in storage units. */
typedef struct kitem {
  int d, div, mod;
  int64_t stride, extent;
} kitem;

static int item_cmp(const void *a, const void *b) {
  const kitem *x = a, *y = b;
  int64_t ex = x->stride * x->extent, ey = y->stride * y->extent;
  if (ex != ey) return ex > ey ? -1 : 1;
  if (x->stride != y->stride) return x->stride > y->stride ? -1 : 1;
  return x->d - y->d;
}

static const char *dim_name(const lay_kneron *k, int d, char *buf) {
  static const char *const nchw[] = {"n", "c", "h", "w"};
  if (k->rank == 4) return nchw[d];
  snprintf(buf, 16, "d%d", d);
  return buf;
}

/* The channel axis of an outer channel group format (the last axis of
** stride 1, as the SDK's loop leaves it) and G, the largest shape * stride
** of the other axes; -1 with an error when there is none. */
static int group_axis(kctx *p, const lay_kneron *k, int64_t *g) {
  int ch = -1;
  *g = 0;
  for (int d = 0; d < k->rank; d++) {
    if (k->stride_npu[d] == 1) {
      ch = d;
      continue;
    }
    int64_t t = k->stride_npu[d] * k->shape[d];
    if (t > *g) *g = t;
  }
  if (ch < 0)
    return kerr(p, "tensor_shape_info.data.stride_npu",
                "no axis has stride 1: %s keeps its channels (the axis of "
                "stride 1) in groups of 16",
                KFMTS[k->layout].name);
  if (*g < 16 || *g % 16)
    return kerr(p, "tensor_shape_info.data.stride_npu",
                "the channel group stride (the largest shape * stride_npu "
                "of the other axes) is %" PRId64
                ", not a positive multiple of 16",
                *g);
  return ch;
}

/* The items of a version 2 descriptor; the count, or -1. */
static int v2_items(kctx *p, const lay_kneron *k, kitem *it) {
  kstore st = KFMTS[k->layout].store;
  int n = 0, ch = -1;
  int64_t g = 0, inner = 0;
  if (KFMTS[k->layout].group && (ch = group_axis(p, k, &g)) < 0) return -1;
  int64_t unit = st == K_HL ? 2 : st == K_W16 ? 2 : 1; /* bytes per slot */
  for (int d = 0; d < k->rank; d++) {
    int64_t s = k->stride_npu[d], e = k->shape[d];
    if (d == ch) { /* c/16 @ G, c%16 @ 1 (in bytes: HL doubles G) */
      it[n++] = (kitem){d, 16, 0, g * unit, (e + 15) / 16};
      it[n++] = (kitem){d, 16, 1, 1, 16};
      inner += 15;
      continue;
    }
    if (st != K_HL || e == 1 || s % 16 == 0) {
      it[n++] = (kitem){d, 0, 0, s * unit, e};
      continue;
    }
    if (s != 1 && s != 2 && s != 4 && s != 8) {
      char ep[80];
      snprintf(ep, sizeof ep, "tensor_shape_info.data.stride_npu[%d]", d);
      return kerr(p, ep,
                  "is %" PRId64 "; in a high/low format a stride is a "
                  "multiple of the 16-element entry, or 1, 2, 4 or 8 "
                  "inside it",
                  s);
    }
    int64_t span = 16 / s;
    if (e <= span) { /* inside one entry */
      it[n++] = (kitem){d, 0, 0, s, e};
      inner += s * (e - 1);
    } else { /* d / span entries of 32 bytes, d % span inside */
      it[n++] = (kitem){d, (int)span, 0, 32, (e + span - 1) / span};
      it[n++] = (kitem){d, (int)span, 1, s, span};
      inner += s * (span - 1);
    }
  }
  if (inner > 15)
    return kerr(p, "tensor_shape_info.data.stride_npu",
                "the axes inside a 16-element entry reach element %" PRId64
                ": a high/low format keeps entries of 16 apart",
                inner);
  qsort(it, (size_t)n, sizeof *it, item_cmp);
  return n;
}

/* The SDK's buffer size in bytes (helper_convert_onnx_data_to_npu_data). */
static int sdk_bytes(kctx *p, lay_kneron *k) {
  kstore st = KFMTS[k->layout].store;
  int64_t elems;
  if (KFMTS[k->layout].group) {
    int64_t g;
    int ch = group_axis(p, k, &g);
    if (ch < 0) return -1;
    elems = (k->shape[ch] + 15) / 16 * g;
  } else {
    int64_t max = 0;
    int at = 0;
    for (int d = 0; d < k->rank; d++)
      if (k->stride_npu[d] > max) {
        max = k->stride_npu[d];
        at = d;
      }
    elems = k->shape[at] * max;
  }
  int64_t bytes = elems * (st == K_8 ? 1 : st == K_F32 ? 4 : 2);
  if (bytes > 2147483647)
    return kerr(p, "tensor_shape_info.data.stride_npu",
                "the NPU buffer is %" PRId64
                " bytes, more than the SDK's int32 size holds",
                bytes);
  k->npu_bytes = (uint64_t)bytes;
  return 0;
}

/* ---- The spec text ----------------------------------------------------------- */

static const char *const HL_PLANES =
    "    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)\n";
static const char *const W16_PLANES =
    "    where byte = bytes(lo = u & 0xfe, hi = (u >> 8) & 0xff)\n";

static void sb_list(lg_strbuf *b, const lay_kneron *k, int radix) {
  if (k->nq > 1) lg_sb_str(b, "[");
  for (int i = 0; i < k->nq; i++) {
    if (radix) lg_sb_printf(b, "%s%d", i ? ", " : "", k->radix[i]);
    else lg_sb_printf(b, "%s%.17g", i ? ", " : "", k->scale[i]);
  }
  if (k->nq > 1) lg_sb_str(b, "]");
}

/* fixed(scale = ..., radix = ..., to = T[, axis = K], arith = f32_div):
** the SDK's float32 arithmetic, as the stdlib's _q/_qc layouts (see
** stdlib/kneron.lay, ARITHMETIC). */
static void sb_fixed(lg_strbuf *b, const lay_kneron *k) {
  lg_sb_str(b, "    fixed(scale = ");
  sb_list(b, k, 0);
  lg_sb_str(b, ", radix = ");
  sb_list(b, k, 1);
  lg_sb_printf(b, ", to = %s",
               KFMTS[k->layout].store == K_8 ? "int8" : "int16");
  if (k->nq > 1) lg_sb_printf(b, ", axis = %d", k->qaxis);
  lg_sb_str(b, ", arith = f32_div)\n");
}

/* One version 2 definition: `layout NAME(p0, ...) (dims) : T -> [items]`. */
static void sb_v2_def(lg_strbuf *b, const lay_kneron *k, const kitem *it,
                      int n, int fixed) {
  kstore st = KFMTS[k->layout].store;
  char nb[16];
  lg_sb_printf(b, "layout tensor%s(", fixed ? "_fixed" : "");
  for (int i = 0; i < n; i++) lg_sb_printf(b, "%sp%d", i ? ", " : "", i);
  lg_sb_str(b, ") (");
  for (int d = 0; d < k->rank; d++)
    lg_sb_printf(b, "%s%s", d ? ", " : "", dim_name(k, d, nb));
  const char *t = st == K_F32 || !fixed ? "fp32" : st == K_8 ? "int8" : "int16";
  lg_sb_printf(b, ") : %s -> [", t);
  for (int i = 0; i < n; i++) {
    const char *dn = dim_name(k, it[i].d, nb);
    if (i) lg_sb_str(b, ", ");
    if (!it[i].div) lg_sb_printf(b, "%s @ p%d", dn, i);
    else lg_sb_printf(b, "%s%c%d @ p%d", dn, it[i].mod ? '%' : '/',
                      it[i].div, i);
    /* the byte planes: HL below the 16-element entry, words innermost */
    if (st == K_HL && i + 1 < n && it[i].stride >= 16 &&
        it[i + 1].stride < 16)
      lg_sb_str(b, ", byte @ 16");
  }
  if (st == K_HL && it[n - 1].stride >= 16) lg_sb_str(b, ", byte @ 16");
  if (st == K_W16) lg_sb_str(b, ", byte @ 1");
  lg_sb_str(b, "]\n");
  if (st == K_HL) lg_sb_str(b, HL_PLANES);
  if (st == K_W16) lg_sb_str(b, W16_PLANES);
  if (st != K_F32 && !fixed) sb_fixed(b, k);
}

static int build_v2(kctx *p, lay_kneron *k, lg_strbuf *b) {
  kitem it[2 * LAY_MAX_RANK];
  int n = v2_items(p, k, it);
  if (n < 0) return -1;
  lg_strbuf args = {0};
  lg_sb_str(&args, "(");
  for (int i = 0; i < n; i++)
    lg_sb_printf(&args, "%s%" PRId64, i ? "," : "", it[i].stride);
  lg_sb_str(&args, ")");
  char *a = lg_sb_take(&args);
  if (!a) return -1;
  lg_strbuf r = {0}, f = {0};
  lg_sb_printf(&r, "tensor%s", a);
  lg_sb_printf(&f, "tensor%s%s", KFMTS[k->layout].store == K_F32 ? "" : "_fixed",
               a);
  free(a);
  k->ref = lg_sb_take(&r);
  k->fixed_ref = lg_sb_take(&f);
  sb_v2_def(b, k, it, n, 0);
  if (KFMTS[k->layout].store != K_F32) sb_v2_def(b, k, it, n, 1);
  return 0;
}

/* Version 1: the stdlib layout of the format on (B, C, H, W). */
static int build_v1(lay_kneron *k, lg_strbuf *b) {
  const kfmt *f = &KFMTS[k->layout];
  const char *nm = k->kl520 && f->kl520 ? f->kl520 : f->stdlib;
  if (f->store == K_F32) {
    lg_sb_printf(b, "layout tensor = kneron.%s\n", nm);
    k->ref = strdup("tensor");
    k->fixed_ref = strdup("tensor");
    return 0;
  }
  lg_sb_printf(b, "layout tensor = kneron.%s_%s(scale = ", nm,
               k->nq > 1 ? "qc" : "q");
  sb_list(b, k, 0);
  lg_sb_str(b, ", radix = ");
  sb_list(b, k, 1);
  lg_sb_printf(b, ")\nlayout tensor_fixed = kneron.%s\n", nm);
  k->ref = strdup("tensor");
  k->fixed_ref = strdup("tensor_fixed");
  return 0;
}

/* The header comment and the definitions of k, into k->spec. */
static int build(kctx *p, lay_kneron *k) {
  lg_strbuf b = {0};
  char nm[80];
  snprintf(nm, sizeof nm, "%s", k->name);
  lg_one_line(nm);
  lg_sb_printf(&b,
               "# kp.TensorDescriptor '%s' (index %" PRId64
               "): KP_MODEL_TENSOR_DATA_LAYOUT_%s, shape info version %d,\n"
               "# shape [",
               nm, k->index, KFMTS[k->layout].name, k->version);
  for (int d = 0; d < k->rank; d++)
    lg_sb_printf(&b, "%s%" PRId64, d ? ", " : "", k->shape[d]);
  lg_sb_str(&b, "]");
  if (k->version == 2) {
    lg_sb_str(&b, ", stride_npu [");
    for (int d = 0; d < k->rank; d++)
      lg_sb_printf(&b, "%s%" PRId64, d ? ", " : "", k->stride_npu[d]);
    lg_sb_str(&b, "]");
  }
  lg_sb_printf(&b, ", %d fixed-point descriptor%s\n", k->nq,
               k->nq == 1 ? "" : "s");
  int rc = k->version == 2 ? build_v2(p, k, &b) : build_v1(k, &b);
  if (!rc && k->ref && k->fixed_ref)
    lg_sb_printf(&b, "# use: NS.%s (fp32), NS.%s (the NPU's integers)\n",
                 k->ref, k->fixed_ref);
  k->spec = lg_sb_take(&b);
  if (rc) return -1;
  if (!k->spec || !k->ref || !k->fixed_ref) {
    if (p->err) lg_error_plain(p->err, LAY_E_NOMEM, p->file, "out of memory");
    return -1;
  }
  return 0;
}

/* ---- Strict JSON (RFC 8259), for exact error positions ---------------------
** cJSON's end pointer does not always point at the offending character,
** so the text is scanned first; the scan stops at the first character
** that cannot continue a JSON text and says why. */

#define JSON_MAX_DEPTH 1000 /* cJSON's CJSON_NESTING_LIMIT */

typedef struct jscan {
  const char *s;
  size_t n, i;
  const char *why; /* NULL: "malformed JSON" alone */
  int deep;        /* nested past JSON_MAX_DEPTH */
} jscan;

static void ws(jscan *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
                         j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

static int jfail(jscan *j, const char *why) {
  if (j->i >= j->n) why = "unexpected end of input";
  j->why = why;
  return -1;
}

static int is_dig(char c) { return c >= '0' && c <= '9'; }

static int scan_str(jscan *j) {
  j->i++; /* the opening quote */
  while (j->i < j->n) {
    unsigned char c = (unsigned char)j->s[j->i];
    if (c == '"') {
      j->i++;
      return 0;
    }
    if (c < 0x20) return jfail(j, "control character in a string");
    if (c == '\\') {
      j->i++;
      if (j->i >= j->n) break;
      char e = j->s[j->i];
      if (e == 'u') {
        for (int k = 1; k <= 4; k++) {
          char h = j->i + (size_t)k < j->n ? j->s[j->i + (size_t)k] : 0;
          if (!is_dig(h) && !(h >= 'a' && h <= 'f') && !(h >= 'A' && h <= 'F')) {
            j->i += (size_t)k;
            return jfail(j, "bad \\u escape");
          }
        }
        j->i += 4;
      } else if (!strchr("\"\\/bfnrt", e) || !e) {
        return jfail(j, "bad escape");
      }
    }
    j->i++;
  }
  return jfail(j, NULL);
}

static int scan_num(jscan *j) {
  if (j->s[j->i] == '-') j->i++;
  if (j->i < j->n && j->s[j->i] == '0') j->i++;
  else if (j->i < j->n && is_dig(j->s[j->i]))
    while (j->i < j->n && is_dig(j->s[j->i])) j->i++;
  else return jfail(j, "bad number");
  if (j->i < j->n && j->s[j->i] == '.') {
    j->i++;
    if (j->i >= j->n || !is_dig(j->s[j->i])) return jfail(j, "bad number");
    while (j->i < j->n && is_dig(j->s[j->i])) j->i++;
  }
  if (j->i < j->n && (j->s[j->i] == 'e' || j->s[j->i] == 'E')) {
    j->i++;
    if (j->i < j->n && (j->s[j->i] == '+' || j->s[j->i] == '-')) j->i++;
    if (j->i >= j->n || !is_dig(j->s[j->i])) return jfail(j, "bad number");
    while (j->i < j->n && is_dig(j->s[j->i])) j->i++;
  }
  return 0;
}

static int scan_value(jscan *j, int depth) {
  ws(j);
  if (j->i >= j->n) return jfail(j, NULL);
  char c = j->s[j->i];
  if (c == '{' || c == '[') {
    if (depth >= JSON_MAX_DEPTH) {
      j->deep = 1;
      return -1;
    }
    char close = c == '{' ? '}' : ']';
    j->i++;
    ws(j);
    if (j->i < j->n && j->s[j->i] == close) {
      j->i++;
      return 0;
    }
    for (;;) {
      if (c == '{') {
        ws(j);
        if (j->i >= j->n || j->s[j->i] != '"')
          return jfail(j, "expected a string key");
        if (scan_str(j)) return -1;
        ws(j);
        if (j->i >= j->n || j->s[j->i] != ':') return jfail(j, "expected ':'");
        j->i++;
      }
      if (scan_value(j, depth + 1)) return -1;
      ws(j);
      if (j->i < j->n && j->s[j->i] == ',') {
        j->i++;
        continue;
      }
      if (j->i < j->n && j->s[j->i] == close) {
        j->i++;
        return 0;
      }
      return jfail(j, c == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
  }
  if (c == '"') return scan_str(j);
  if (c == '-' || is_dig(c)) return scan_num(j);
  static const char *const words[] = {"true", "false", "null"};
  for (int w = 0; w < 3; w++) {
    size_t l = strlen(words[w]);
    if (c == words[w][0]) {
      for (size_t k = 0; k < l; k++, j->i++)
        if (j->i >= j->n || j->s[j->i] != words[w][k])
          return jfail(j, NULL);
      return 0;
    }
  }
  return jfail(j, NULL);
}

/* 0 when json[0..len) is one JSON value; else -1 with j set. */
static int json_scan(jscan *j) {
  if (scan_value(j, 0)) return -1;
  ws(j);
  if (j->i < j->n) return jfail(j, "text after the JSON value");
  return 0;
}

/* ---- Parse, read, load ------------------------------------------------------- */

/* A key given twice in any object of j fails with its path. */
static int dup_keys(kctx *p, const cJSON *j, const char *path) {
  const cJSON *a;
  int i = 0;
  cJSON_ArrayForEach(a, j) {
    char ap[200];
    if (cJSON_IsObject(j)) {
      for (const cJSON *b = a->next; b; b = b->next)
        if (!strcmp(a->string, b->string)) {
          char key[80];
          snprintf(key, sizeof key, "%s", a->string);
          lg_one_line(key);
          return kerr(p, *path ? path : "descriptor",
                      "field '%s' is given twice", key);
        }
      join(ap, sizeof ap, path, a->string);
    } else {
      snprintf(ap, sizeof ap, "%s[%d]", path, i);
    }
    i++;
    if ((cJSON_IsObject(a) || cJSON_IsArray(a)) && dup_keys(p, a, ap))
      return -1;
  }
  return 0;
}

void lay_kneron_free(lay_kneron *k) {
  if (!k) return;
  free(k->file);
  free(k->name);
  free(k->scale);
  free(k->radix);
  free(k->spec);
  free(k->ref);
  free(k->fixed_ref);
  free(k);
}

/* The line:col of byte `at` of the JSON text (characters, not bytes). */
static void json_pos(const char *json, size_t len, size_t at, lay_error *e) {
  int line = 1, col = 1;
  for (size_t i = 0; i < at && i < len; i++) {
    unsigned char c = (unsigned char)json[i];
    if (c == '\n') {
      line++;
      col = 1;
    }
    else if ((c & 0xc0) != 0x80) col++;
  }
  e->line = line;
  e->col = col;
}

static int read_all(kctx *p, const cJSON *root, lay_kneron *k) {
  static const char *const keys[] = {"index",       "name",
                                     "data_layout", "tensor_shape_info",
                                     "quantization_parameters",
                                     "target_chip", NULL};
  if (!cJSON_IsObject(root))
    return kerr(p, "descriptor", "must be a JSON object, not %s",
                jtype(root));
  if (known_keys(p, root, "", keys)) return -1;
  const cJSON *ji = cJSON_GetObjectItemCaseSensitive(root, "index");
  if (ji && get_int(p, ji, "index", 0, 4294967295.0, &k->index)) return -1;
  const cJSON *jn = cJSON_GetObjectItemCaseSensitive(root, "name");
  if (jn && !cJSON_IsString(jn))
    return kerr(p, "name", "must be a string, not %s", jtype(jn));
  k->name = strdup(jn ? jn->valuestring : "");
  if (!k->name) {
    if (p->err) lg_error_plain(p->err, LAY_E_NOMEM, p->file, "out of memory");
    return -1;
  }
  if (read_layout(p, root, k) || read_target(p, root, k) ||
      read_shape_info(p, root, k) || read_quant(p, root, k))
    return -1;
  if (k->version == 2 && sdk_bytes(p, k)) return -1;
  return build(p, k);
}

lay_status lay_kneron_parse(const char *json, size_t len, const char *file,
                            lay_kneron **out, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  kctx p = {file ? file : "<json>", err};
  if (len > LAY_KNERON_MAX_JSON) {
    if (len == SIZE_MAX)
      lg_error_plain(err, LAY_E_LIMIT, p.file,
                     "descriptor: larger than %zu bytes", LAY_KNERON_MAX_JSON);
    else
      lg_error_plain(err, LAY_E_LIMIT, p.file,
                     "descriptor: %zu bytes, larger than %zu bytes", len,
                     LAY_KNERON_MAX_JSON);
    return LAY_E_LIMIT;
  }
  if (!json || !out) {
    kerr(&p, "descriptor", "no JSON text");
    return LAY_E_ARG;
  }
  const char *nul = memchr(json, '\0', len);
  if (nul) {
    kerr(&p, "descriptor", "contains a NUL byte");
    if (err) json_pos(json, len, (size_t)(nul - json), err);
    return LAY_E_JSON;
  }
  jscan js = {json, len, 0, NULL, 0};
  if (json_scan(&js)) {
    if (js.deep)
      lg_error_plain(err, LAY_E_LIMIT, p.file, "nested deeper than %d levels",
                     JSON_MAX_DEPTH);
    else
      lg_error_plain(err, LAY_E_JSON, p.file, "malformed JSON%s%s",
                     js.why ? ": " : "", js.why ? js.why : "");
    if (err) json_pos(json, len, js.i, err);
    return js.deep ? LAY_E_LIMIT : LAY_E_JSON;
  }
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(json, len, &end, 0);
  if (!root) { /* text the scan accepted: cJSON ran out of memory */
    lg_error_plain(err, LAY_E_NOMEM, p.file, "out of memory");
    return LAY_E_NOMEM;
  }
  lay_status st = LAY_E_JSON;
  lay_kneron *k = calloc(1, sizeof *k);
  if (!k || !(k->file = strdup(p.file))) {
    lg_error_plain(err, LAY_E_NOMEM, p.file, "out of memory");
    st = LAY_E_NOMEM;
    goto done;
  }
  if (dup_keys(&p, root, "") || read_all(&p, root, k)) {
    if (err && err->code) st = err->code;
    goto done;
  }
  st = LAY_OK;
done:
  cJSON_Delete(root);
  if (st) {
    lay_kneron_free(k);
    return st;
  }
  *out = k;
  return LAY_OK;
}

lay_status lay_kneron_read(const char *path, lay_kneron **out,
                           lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  if (!path || !out) {
    lg_error_plain(err, LAY_E_ARG, path ? path : "", "no descriptor file");
    return LAY_E_ARG;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    lg_error_plain(err, LAY_E_IO, path, "cannot open: %s", strerror(errno));
    return LAY_E_IO;
  }
  /* at most one byte past the limit: a larger file is not read whole */
  char *buf = malloc(LAY_KNERON_MAX_JSON + 1);
  size_t len = buf ? fread(buf, 1, LAY_KNERON_MAX_JSON + 1, f) : 0;
  int bad = ferror(f);
  fclose(f);
  lay_status st;
  if (!buf) {
    lg_error_plain(err, LAY_E_NOMEM, path, "out of memory");
    st = LAY_E_NOMEM;
  } else if (bad) {
    lg_error_plain(err, LAY_E_IO, path, "cannot read: %s", strerror(errno));
    st = LAY_E_IO;
  } else {
    st = lay_kneron_parse(buf, len > LAY_KNERON_MAX_JSON ? SIZE_MAX : len,
                          path, out, err);
  }
  free(buf);
  return st;
}

void lay_kneron_info_get(const lay_kneron *k, lay_kneron_info *out) {
  memset(out, 0, sizeof *out);
  if (!k) return;
  out->name = k->name;
  out->index = k->index;
  out->data_layout = KFMTS[k->layout].name;
  out->shape_version = k->version;
  out->ref = k->ref;
  out->fixed_ref = k->fixed_ref;
  out->rank = k->rank;
  memcpy(out->shape, k->shape, sizeof out->shape);
  kstore st = KFMTS[k->layout].store;
  out->dtype = LAY_DT_FP32;
  out->fixed_dtype = st == K_F32 ? LAY_DT_FP32
                     : st == K_8 ? LAY_DT_INT8
                                 : LAY_DT_INT16;
  out->npu_bytes = k->npu_bytes;
  out->nscales = k->nq;
  out->quantized_axis = k->qaxis;
}

char *lay_kneron_spec(const lay_kneron *k, const char *ns) {
  if (!k || !ns) return NULL;
  lg_strbuf b = {0};
  lg_sb_printf(&b, "# from %s\nnamespace %s\n", k->file, ns);
  lg_sb_str(&b, k->spec);
  return lg_sb_take(&b);
}

lay_status lay_kneron_load(const lay_kneron *k, lay_ctx *ctx, const char *ns,
                           lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (!k || !ctx || !ns) {
    lg_error_plain(err, LAY_E_ARG, "", "lay_kneron_load: no descriptor");
    return LAY_E_ARG;
  }
  char *text = lay_kneron_spec(k, ns);
  if (!text) {
    lg_error_plain(err, LAY_E_NOMEM, k->file, "out of memory");
    return LAY_E_NOMEM;
  }
  char name[300];
  snprintf(name, sizeof name, "%s.lay", k->file);
  lay_status st = lay_ctx_load_string(ctx, name, text, strlen(text), err);
  free(text);
  for (int f = 0; !st && f < 2; f++) { /* plan both once: the strides */
    char ref[400];
    snprintf(ref, sizeof ref, "%s.%s", ns, f ? k->fixed_ref : k->ref);
    lay_plan *pl = NULL;
    lay_dtype t = LAY_DT_NONE;
    st = lay_plan_create(ctx, ref, k->shape, k->rank, t, LAY_PACK, &pl, err);
    if (!st && k->version == 2 && lay_plan_layout_bytes(pl) != k->npu_bytes) {
      lg_error_plain(err, LAY_E_INTERNAL, k->file,
                     "%s: %zu bytes, but the SDK's buffer is %" PRIu64, ref,
                     lay_plan_layout_bytes(pl), k->npu_bytes);
      st = LAY_E_INTERNAL;
    } else if (st && err) {
      char msg[sizeof err->message];
      snprintf(msg, sizeof msg, "%s", err->message);
      lg_error_plain(err, st, k->file, "tensor_shape_info.data.%s: %s",
                     k->version == 2 ? "stride_npu" : "shape_npu", msg);
    }
    lay_plan_free(pl);
  }
  return st;
}

lay_status lay_ctx_load_kneron(lay_ctx *ctx, const char *path, const char *ns,
                               lay_error *err) {
  lay_kneron *k = NULL;
  lay_status st = lay_kneron_read(path, &k, err);
  if (st == LAY_OK) st = lay_kneron_load(k, ctx, ns, err);
  lay_kneron_free(k);
  return st;
}
