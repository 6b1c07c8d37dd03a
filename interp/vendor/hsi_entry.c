/*
** hsi_entry.c: one entry of an AMD flexmlrt-hsi.json report -> lay spec
** text: its fields, its rt_transformations one by one, the value step the
** annotation implies, and the `layout`/`transform` text (see hsi.c for
** the rules).
*/
#define _POSIX_C_SOURCE 200809L

#include "hsi_int.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
  case LAY_DT_INT8: *lo = -128; *hi = 127; return;
  case LAY_DT_UINT8: *lo = 0; *hi = 255; return;
  case LAY_DT_INT16: *lo = -32768; *hi = 32767; return;
  case LAY_DT_UINT16: *lo = 0; *hi = 65535; return;
  default: *lo = -2147483648.0; *hi = 2147483647.0; return;
  }
}

/* NULL when z is a zero point of integer type t, else why not (in buf). */
const char *hsi_zp_fault(double z, lay_dtype t, char *buf, size_t cap) {
  char nb[32];
  double lo, hi;
  int_range(t, &lo, &hi);
  if (z != floor(z))
    snprintf(buf, cap, "must be an integer, not %s", hsi_gnum(z, nb));
  else if (z < lo || z > hi)
    snprintf(buf, cap, "%s is outside the %s range [%.0f, %.0f]", hsi_gnum(z, nb),
             lay_dtype_name(t), lo, hi);
  else
    return NULL;
  return buf;
}

/* 1 when v[0..n) elements of type dt take more than INT64_MAX bytes (the
** planner's limit), or their count overflows. */
static int bytes_overflow(const int64_t *v, int n, lay_dtype dt) {
  int ovf = 0;
  int64_t e = hsi_prod(v, n, &ovf);
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
  hsi_add_issue(p->h, t, 1, "%s%s%s: %s", path, field ? "." : "",
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
  if (hsi_get_dtype(p, j, path, "to_dtype", &o->dout) ||
      hsi_get_number(p, j, path, "scale", 1, &o->scale) < 0 ||
      hsi_get_number(p, j, path, "zero_point", 1, &o->zp) < 0)
    return -1;
  if (!(o->scale > 0))
    return hsi_perrf(p, path, "scale", "must be positive, not %s",
                 hsi_gnum(o->scale, nb));
  const char *from = q ? "a float type" : "an integer type",
             *to = q ? "an integer type" : "a float type";
  if (q == hsi_is_float(o->dout))
    return hsi_perrf(p, path, "to_dtype", "%s casts %s to %s, not %s to %s",
                 hsi_op_names[o->k], from, to, lay_dtype_name(dt),
                 lay_dtype_name(o->dout));
  if (q != hsi_is_float(dt))
    chain_issue(p, t, path, NULL, "%s casts %s to %s, not %s to %s",
                hsi_op_names[o->k], from, to, lay_dtype_name(dt),
                lay_dtype_name(o->dout));
  /* The zero point is a value of the integer side. */
  char why[160];
  lay_dtype it = q ? o->dout : dt;
  if (o->zp != floor(o->zp))
    return hsi_perrf(p, path, "zero_point", "must be an integer, not %s",
                 hsi_gnum(o->zp, nb));
  if (!hsi_is_float(it) && hsi_zp_fault(o->zp, it, why, sizeof why)) {
    if (q) return hsi_perrf(p, path, "zero_point", "%s", why);
    chain_issue(p, t, path, "zero_point", "%s", why);
  }
  return 0;
}

static int read_pad(pctx *p, tensor *t, const cJSON *j, const char *path,
                    int r, const int64_t *s, op *o) {
  int n1 = 0, n2 = 0;
  char sh[200], sh2[200];
  if (hsi_get_ints(p, j, path, "pad_at_start", 0, o->a, &n1, MAXR) ||
      hsi_get_ints(p, j, path, "pad_at_end", 0, o->b, &n2, MAXR) ||
      hsi_get_ints(p, j, path, "output_shape", 1, o->out, &o->rout, MAXR))
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
      return hsi_perrf(p, path, "pad_at_end", "padding overflows");
    want[i] = s[i] + o->a[i] + o->b[i];
  }
  if (!hsi_same_shape(want, r, o->out, o->rout)) {
    hsi_shape_str(sh, sizeof sh, o->out, o->rout);
    hsi_shape_str(sh2, sizeof sh2, want, r);
    chain_issue(p, t, path, "output_shape",
                "%s does not match the padded shape %s", sh, sh2);
  }
  return 0;
}

static int read_reshape(pctx *p, tensor *t, const cJSON *j,
                        const char *path, int r, const int64_t *s, op *o) {
  char sh[200], sh2[200];
  if (hsi_get_ints(p, j, path, "output_shape", -1, o->out, &o->rout, MAXR))
    return -1;
  int ovf = 0, minus = -1;
  int64_t total = hsi_prod(s, r, &ovf), known = 1;
  for (int i = 0; i < o->rout; i++) {
    if (o->out[i] == -1) {
      if (minus >= 0)
        return hsi_perrf(p, path, "output_shape", "has more than one -1");
      minus = i;
    } else if (o->out[i] == 0) {
      return hsi_perrf(p, path, "output_shape", "entry %d must not be 0", i);
    } else if (known > INT64_MAX / o->out[i]) {
      return hsi_perrf(p, path, "output_shape", "overflows 64 bits");
    } else {
      known *= o->out[i];
    }
  }
  hsi_shape_str(sh2, sizeof sh2, s, r);
  if (minus >= 0 && total % known) {
    hsi_shape_str(sh, sizeof sh, o->out, o->rout);
    chain_issue(p, t, path, "output_shape",
                "%s does not hold the %lld elements of %s", sh,
                (long long)total, sh2);
    return 1;
  }
  if (minus >= 0) o->out[minus] = total / known;
  if (hsi_prod(o->out, o->rout, &ovf) != total) {
    hsi_shape_str(sh, sizeof sh, o->out, o->rout);
    chain_issue(p, t, path, "output_shape",
                "%s does not hold the %lld elements of %s", sh,
                (long long)total, sh2);
  }
  return 0;
}

static int read_transpose(pctx *p, tensor *t, const cJSON *j,
                          const char *path, int r, const int64_t *s, op *o) {
  int n = 0, seen[MAXR] = {0};
  if (hsi_get_ints(p, j, path, "perm", 0, o->a, &n, MAXR)) return -1;
  int ok = n == r;
  for (int i = 0; ok && i < n; i++) {
    if (o->a[i] >= r || seen[o->a[i]]) ok = 0;
    else seen[o->a[i]] = 1;
  }
  if (!ok) {
    char sh[200];
    hsi_shape_str(sh, sizeof sh, o->a, n);
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
  if (hsi_get_ints(p, j, path, "start", 0, o->a, &n1, MAXR) ||
      hsi_get_ints(p, j, path, "size", -1, o->b, &n2, MAXR))
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
      hsi_shape_str(sh, sizeof sh, s, r);
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
    return hsi_perr(p, path, "a transformation must be an object, not %s",
                hsi_jtype(j));
  const char *kind;
  if (hsi_get_string(p, j, path, "transformation", 1, &kind)) return -1;
  int k = -1;
  for (int i = 0; i < OP_CAST; i++)
    if (!strcmp(kind, hsi_op_names[i])) k = i;
  if (k < 0)
    return hsi_perrf(p, path, "transformation",
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
    hsi_shape_str(sh, sizeof sh, o->out, o->rout);
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
**   no scale:  equal types: no step; float -> float: a plain cast (fp32
**              -> bf16 truncates, as VART; see sb_value); anything else
**              needs a scale; a
**              non-zero zero_point would be dropped: an inconsistency;
**   scale S, zero point Z: to an integer hw_dtype a quantize (from any
**              cpu_dtype: int8 -> uint8, S 1, Z 128 is q = x + 128), from
**              an integer cpu_dtype to a float one a dequantize; between
**              float types only S 1, Z 0 (a plain cast) means something
**              lay can do; S 1, Z 0 between equal types is no step.
** Z must be an integer in the range of the quantized (integer) side.
** Returns 1 with o set, 0 for no step, -1 when the fields ask for what
** lay cannot do (recorded as an issue of t at path when `record`). */
int hsi_implied_value(lay_hsi *h, tensor *t, const char *path, op *o,
                         int record) {
  memset(o, 0, sizeof *o);
  lay_dtype c = t->cpu_dt, w = t->hw_dt;
  const char *cn = lay_dtype_name(c), *wn = lay_dtype_name(w);
  char ss[32], zs[32];
  o->din = c;
  o->dout = w;
  o->scale = t->scale;
  o->zp = t->has_zp ? t->zp : 0;
  if (c == w) {
    /* AMD: scale_factor is used "when converting between cpu_dtype and
    ** hw_dtype"; VART's demo hands int8 CPU data to an int8 NPU buffer
    ** unchanged. Equal types never rescale: the fields are a note. */
    if (record && ((t->has_scale && t->scale != 1) || o->zp != 0))
      hsi_add_issue(h, t, 0,
                    "%s.scale_factor: %s with zero_point %s not applied: "
                    "cpu_dtype and hw_dtype are both %s (a scale converts "
                    "between different types)",
                    path, t->has_scale ? hsi_gnum(t->scale, ss) : "-1",
                    hsi_gnum(o->zp, zs), cn);
    return 0;
  }
  if (!t->has_scale) {
    if (o->zp != 0) {
      if (record)
        hsi_add_issue(h, t, 1,
                  "%s.zero_point: %s, but scale_factor is unset (-1.0); a "
                  "zero point applies only with a scale",
                  path, hsi_gnum(o->zp, zs));
      return -1;
    }
    o->k = OP_CAST;
    if (hsi_is_float(c) && hsi_is_float(w)) return 1;
    if (record)
      hsi_add_issue(h, t, 1,
                "%s.scale_factor: missing scale: cpu_dtype %s and hw_dtype "
                "%s differ and no quantize or dequantize step converts them",
                path, cn, wn);
    return -1;
  }
  int unit = t->scale == 1 && o->zp == 0; /* x / 1 + 0: no scaling */
  if (hsi_is_float(c) && hsi_is_float(w)) {
    o->k = OP_CAST;
    if (unit) return 1;
    if (record)
      hsi_add_issue(h, t, 1,
                "%s.scale_factor: %s with zero_point %s between the float "
                "types %s and %s: a scale applies when quantizing to an "
                "integer type; lay has no scaled float cast (-1.0 is a "
                "plain cast)",
                path, hsi_gnum(t->scale, ss), hsi_gnum(o->zp, zs), cn, wn);
    return -1;
  }
  o->k = hsi_is_float(w) ? OP_DEQUANT : OP_QUANT;
  lay_dtype it = o->k == OP_QUANT ? w : c; /* the quantized side */
  char why[160];
  if (!t->has_zp) {
    if (record)
      hsi_add_issue(h, t, 1,
                "%s.zero_point: missing, but scale_factor %s converts "
                "cpu_dtype %s to hw_dtype %s",
                path, hsi_gnum(t->scale, ss), cn, wn);
    return -1;
  }
  if (hsi_zp_fault(o->zp, it, why, sizeof why)) {
    if (record)
      hsi_add_issue(h, t, 1, "%s.zero_point: %s (%s)", path, why,
                it == w ? "hw_dtype" : "cpu_dtype");
    return -1;
  }
  return 1;
}

/* The value step as spec text, in VART's arithmetic (stdlib/amd.lay,
** ARITHMETIC; VART-ML's npu_runner/quantization.cpp): fp32 -> bf16
** truncates (float_to_bf16, `if32 >> 16`), a quantize multiplies by the
** float32 coefficient 1 / scale and a dequantize divides by it
** (`arith = f32_div`). */
static void sb_value(lg_strbuf *b, const op *o) {
  if (o->k == OP_CAST) {
    lg_sb_printf(b, "cast(to = %s%s)", lay_dtype_name(o->dout),
                 o->din == LAY_DT_FP32 && o->dout == LAY_DT_BF16
                     ? ", round = truncate" : "");
    return;
  }
  lg_sb_printf(b, "%s(scale = ", o->k == OP_QUANT ? "quantize" : "dequantize");
  hsi_sb_num(b, o->scale);
  lg_sb_printf(b, ", zero_point = ");
  hsi_sb_num(b, o->zp);
  lg_sb_printf(b, ", to = %s, arith = f32_div)", lay_dtype_name(o->dout));
}

static char *annotation_text(tensor *t, const char *def, int64_t *hw,
                             int *hwr, const char **why, const op *value) {
  hsi_fmt cf = t->cpu_fmt;
  char order[128], nb[2];
  *why = hsi_fmt_derive(cf, t->cpu, t->rank, t->hw_fmt, order, sizeof order,
                        hw, hwr);
  if (*why) return NULL;
  lg_strbuf b = {0};
  lg_sb_printf(&b, "layout %s (", def);
  for (int i = 0; i < t->rank; i++)
    lg_sb_printf(&b, "%s%s", i ? ", " : "", hsi_fmt_dim(cf, i, nb));
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
    hsi_sb_shape(b, o->a, o->rin);
    lg_sb_printf(b, ", end = ");
    hsi_sb_shape(b, o->b, o->rin);
    lg_sb_printf(b, ")");
    return;
  case OP_RESHAPE:
    lg_sb_printf(b, "reshape(");
    hsi_sb_shape(b, o->out, o->rout);
    lg_sb_printf(b, ")");
    return;
  case OP_TRANSPOSE:
    lg_sb_printf(b, "transpose(");
    hsi_sb_shape(b, o->a, o->rin);
    lg_sb_printf(b, ")");
    return;
  case OP_SLICE:
    lg_sb_printf(b, "slice(start = ");
    hsi_sb_shape(b, o->a, o->rin);
    lg_sb_printf(b, ", size = ");
    hsi_sb_shape(b, o->b, o->rin);
    lg_sb_printf(b, ")");
    return;
  }
}

/* The inverse of o (which maps o->in to o->out): maps o->out to o->in. */
void hsi_invert_op(const op *o, op *r) {
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
    return hsi_perr(p, path, "a tensor entry must be an object, not %s",
                hsi_jtype(j));
  for (const cJSON *c = j->child; c; c = c->next) {
    const char *k = c->string ? c->string : "";
    int known = 0;
    for (int i = 0; !known && entry_keys[i]; i++)
      known = !strcmp(k, entry_keys[i]);
    if (!known)
      hsi_add_issue(p->h, t, 0, "%s.%s: unknown field, ignored", path, k);
  }
  const char *s;
  if (hsi_get_string(p, j, path, "name", 0, &s)) return -1;
  if (s && !(t->name = strdup(s))) return hsi_oom(p, path);
  if (hsi_get_string(p, j, path, "tensor_name", 0, &s)) return -1;
  if (s && !(t->tensor_name = strdup(s)))
    return hsi_oom(p, path);
  *chain = cJSON_GetObjectItemCaseSensitive(j, "rt_transformations");
  if (*chain && !cJSON_IsArray(*chain))
    return hsi_perrf(p, path, "rt_transformations", "must be an array, not %s",
                 hsi_jtype(*chain));
  t->has_chain = *chain != NULL;
  if (hsi_get_ints(p, j, path, "cpu_shape", 1, t->cpu, &t->rank, LAY_MAX_RANK) ||
      hsi_get_fmt(p, j, path, "cpu_format", !*chain, &t->cpu_fmt) ||
      hsi_get_dtype(p, j, path, "cpu_dtype", &t->cpu_dt) ||
      hsi_get_ints(p, j, path, "hw_shape", 1, t->hw, &t->hw_rank, MAXR) ||
      hsi_get_fmt(p, j, path, "hw_format", !*chain, &t->hw_fmt) ||
      hsi_get_dtype(p, j, path, "hw_dtype", &t->hw_dt))
    return -1;
  double v;
  int got = hsi_get_number(p, j, path, "scale_factor", 0, &v);
  if (got < 0) return -1;
  if (got && v != -1.0) {
    if (!(v > 0))
      return hsi_perrf(p, path, "scale_factor",
                   "must be positive or -1.0 (unset), not %s", hsi_gnum(v, nb));
    t->has_scale = 1;
    t->scale = v;
  }
  got = hsi_get_number(p, j, path, "zero_point", 0, &t->zp);
  if (got < 0) return -1;
  if (got && (t->zp != floor(t->zp) || fabs(t->zp) > 2147483647.0))
    return hsi_perrf(p, path, "zero_point",
                 "must be an integer in the int32 range, not %s",
                 hsi_gnum(t->zp, nb));
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
    hsi_shape_str(sh, sizeof sh, v, n);
    chain_issue(p, t, path, side ? "hw_shape" : "cpu_shape",
                "%s of %s: the byte size overflows 64 bits", sh,
                lay_dtype_name(dt));
    bad = 1;
  }
  return bad;
}

/* An entry without rt_transformations: the annotation is its definition. */
/* Device batching (seed 000: "the N slot in HCWNC4 HW metadata stays 1
** for each buffer; device batching is expressed as multiple NpuTensor
** objects (one per frame), not as N > 1 inside a single HW shape"): when
** cpu_shape's N > 1 does not give hw_shape but N = 1 does, the entry is N
** frame buffers of one frame each; t->cpu holds one frame and t->frames
** N. 1 when that is so, 0 when not (ok: the whole tensor already gives
** hw_shape), -1 out of memory. */
static int frames(pctx *p, tensor *t, const char *path, const op *value,
                  int ok) {
  const char *dims = t->cpu_fmt ? hsi_formats[t->cpu_fmt].dims : NULL;
  const char *n = dims ? strchr(dims, 'n') : NULL;
  if (ok || !n || (int)strlen(dims) != t->rank) return 0;
  int ni = (int)(n - dims);
  int64_t N = t->cpu[ni], ahw[MAXR];
  int ahr = 0;
  const char *why = NULL;
  if (N <= 1) return 0;
  t->cpu[ni] = 1;
  char *one = annotation_text(t, t->def, ahw, &ahr, &why, value);
  if (!one && !why) return hsi_oom(p, path);
  if (!one || !hsi_same_shape(ahw, ahr, t->hw, t->hw_rank)) {
    free(one);
    t->cpu[ni] = N;
    return 0;
  }
  free(t->spec);
  t->spec = one;
  t->frames = N;
  hsi_add_issue(p->h, t, 0,
                "%s.cpu_shape: N = %lld with a hw_shape of one frame: %lld "
                "frame buffers (one NPU buffer per frame, as VART's "
                "NpuTensor per frame)",
                path, (long long)N, (long long)N);
  return 1;
}

static int annotation_entry(pctx *p, tensor *t, const char *path) {
  char sh[200], sh2[200];
  int64_t ahw[MAXR];
  int ahr = 0;
  const char *why = NULL;
  op value;
  int has_value = hsi_implied_value(p->h, t, path, &value, 1) > 0;
  t->spec = annotation_text(t, t->def, ahw, &ahr, &why,
                            has_value ? &value : NULL);
  if (!t->spec && !why) return hsi_oom(p, path);
  int fr = frames(p, t, path, has_value ? &value : NULL,
                  t->spec && hsi_same_shape(ahw, ahr, t->hw, t->hw_rank));
  if (fr) return fr < 0 ? -1 : 0;
  if (!t->spec) {
    hsi_shape_str(sh, sizeof sh, t->cpu, t->rank);
    return hsi_perrf(p, path, "hw_format", "cannot derive %s from %s %s: %s",
                 hsi_fmt_name(t->hw_fmt), hsi_fmt_name(t->cpu_fmt), sh, why);
  }
  if (!hsi_same_shape(ahw, ahr, t->hw, t->hw_rank)) {
    hsi_shape_str(sh, sizeof sh, t->hw, t->hw_rank);
    hsi_shape_str(sh2, sizeof sh2, ahw, ahr);
    hsi_add_issue(p->h, t, 1,
              "%s.hw_shape: %s, but cpu_format %s -> hw_format %s gives %s",
              path, sh, hsi_fmt_name(t->cpu_fmt), hsi_fmt_name(t->hw_fmt), sh2);
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
      return hsi_perr(p, opath,
                  "a chain converts the element type once; this is the "
                  "second quantize/dequantize");
    if (!output && i != 0)
      hsi_add_issue(p->h, t, 1, "%s: %s must be the first entry for inputs",
                opath, hsi_op_names[ops[i].k]);
    if (output && i != n - 1)
      hsi_add_issue(p->h, t, 1, "%s: %s must be the last entry for outputs",
                opath, hsi_op_names[ops[i].k]);
  }
  return 0;
}

/* The definition of a chain entry: a transform over the CPU tensor x
** (rank xr, dims xin) through t->ops. NULL on OOM. */
static char *chain_text(const tensor *t, const int64_t *xin, int xr) {
  lg_strbuf b = {0};
  lg_sb_printf(&b, "transform %s (x : %s[", t->def,
               lay_dtype_name(t->cpu_dt));
  char nb[2];
  int named = t->cpu_fmt && hsi_formats[t->cpu_fmt].dims &&
              (int)strlen(hsi_formats[t->cpu_fmt].dims) == xr;
  for (int i = 0; i < xr; i++) {
    lg_sb_printf(&b, "%s", i ? ", " : "");
    if (named) lg_sb_printf(&b, "%s=", hsi_fmt_dim(t->cpu_fmt, i, nb));
    lg_sb_printf(&b, "%lld", (long long)xin[i]);
  }
  lg_sb_printf(&b, "]) =");
  if (t->nops == 0) { /* an empty chain: the identity */
    lg_sb_printf(&b, "\n    reshape(");
    hsi_sb_shape(&b, xin, xr);
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
    aval.k = hsi_is_float(t->cpu_dt) ? OP_QUANT : OP_DEQUANT;
    aval.din = t->cpu_dt;
    aval.dout = t->hw_dt;
  } else {
    hv = hsi_implied_value(p->h, t, path, &aval, 0);
    if (hv < 0) return 0; /* the fields ask for what lay cannot do */
  }
  snprintf(adef, sizeof adef, "%s_ann", t->def);
  char *ann = annotation_text(t, adef, ahw, &ahr, &why, hv ? &aval : NULL);
  if (!ann && !why) return hsi_oom(p, path);
  if (!ann) {
    if (t->hw_fmt && hsi_fmt_rank(t->hw_fmt) != t->hw_rank) {
      hsi_shape_str(sh, sizeof sh, t->hw, t->hw_rank);
      hsi_add_issue(p->h, t, 0,
                "%s.hw_format: %s names %d dimensions, hw_shape %s has %d; "
                "not used: rt_transformations takes over (the buffer is "
                "the chain's result, row-major)",
                path, hsi_fmt_name(t->hw_fmt), hsi_fmt_rank(t->hw_fmt), sh,
                t->hw_rank);
    }
    return 0;
  }
  t->ann_ok = hsi_same_shape(ahw, ahr, t->hw, t->hw_rank);
  if (t->ann_ok) {
    t->ann_spec = ann;
    return 0;
  }
  free(ann);
  hsi_shape_str(sh, sizeof sh, t->hw, t->hw_rank);
  hsi_shape_str(sh2, sizeof sh2, ahw, ahr);
  /* A plain hw_format only names the positions of hw_shape; a blocked one
  ** fixes the layout and then must agree with the chain. */
  hsi_add_issue(p->h, t, hsi_fmt_blocked(t->hw_fmt) != 0,
            "%s.hw_format: cpu_format %s -> hw_format %s gives %s, not the "
            "hw_shape %s%s",
            path, hsi_fmt_name(t->cpu_fmt), hsi_fmt_name(t->hw_fmt), sh2, sh,
            hsi_fmt_blocked(t->hw_fmt) ? ""
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
    return hsi_perrf(p, path, "rt_transformations", "has more than %d entries",
                 LAY_HSI_MAX_OPS);
  op *ops = calloc((size_t)n + 1, sizeof *ops);
  t->ops = calloc((size_t)n + 1, sizeof *t->ops);
  if (!ops || !t->ops) {
    free(ops);
    return hsi_oom(p, path);
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
  if (!hsi_same_shape(cur, r, end, endr)) {
    hsi_shape_str(sh, sizeof sh, end, endr);
    hsi_shape_str(sh2, sizeof sh2, cur, r);
    hsi_add_issue(p->h, t, 1, "%s.%s: %s, but rt_transformations gives %s", path,
              output ? "cpu_shape" : "hw_shape", sh, sh2);
  }
  if (nq && dt != enddt)
    hsi_add_issue(p->h, t, 1, "%s.%s: %s, but rt_transformations gives %s",
              path, output ? "cpu_dtype" : "hw_dtype",
              lay_dtype_name(enddt), lay_dtype_name(dt));
  /* No step converts the type: the annotation's value rule applies. */
  op value;
  int has_value = !nq && hsi_implied_value(p->h, t, path, &value, 1) > 0;
  /* CPU -> NPU order: inputs as listed; outputs inverted. */
  t->nops = 0;
  if (has_value) {
    value.rin = value.rout = output ? r : t->rank;
    memcpy(value.in, output ? cur : t->cpu, sizeof value.in);
    memcpy(value.out, value.in, sizeof value.out);
    t->ops[t->nops++] = value;
  }
  for (int i = 0; i < n; i++) {
    if (output) hsi_invert_op(&ops[n - 1 - i], &t->ops[t->nops++]);
    else t->ops[t->nops++] = ops[i];
  }
  /* The transform's input: the CPU tensor where the chain meets it. */
  const int64_t *xin = output ? cur : t->cpu;
  int xr = output ? r : t->rank;
  if (xr > LAY_MAX_RANK) {
    hsi_shape_str(sh, sizeof sh, xin, xr);
    hsi_add_issue(p->h, t, 1, "%s: the CPU side %s has more than %d dimensions",
              path, sh, LAY_MAX_RANK);
    free(ops);
    return 0;
  }
  if (!(t->spec = chain_text(t, xin, xr))) rc = hsi_oom(p, path);
  else rc = companion(p, t, path, ops, n, nq);
  free(ops);
  return rc;
}

int hsi_read_tensor(pctx *p, const cJSON *j, int output, int index,
                       tensor *t) {
  char path[64];
  snprintf(path, sizeof path, "%s[%d]", output ? "outputs" : "inputs", index);
  memset(t, 0, sizeof *t);
  t->output = output;
  t->index = index;
  snprintf(t->def, sizeof t->def, "%s%d", output ? "output" : "input", index);
  const cJSON *chain = NULL;
  p->t = t;
  t->at = hsi_json_at(j);
  if (read_fields(p, j, path, t, &chain)) return -1;
  if (shape_overflows(p, t, path)) return 0; /* no definition */
  return chain ? chain_entry(p, t, path, chain)
               : annotation_entry(p, t, path);
}

