/*
** hsi.c: AMD's flexmlrt-hsi.json compilation report -> lay spec text, and
** a layout -> a report entry (lay export); see hsi.h. This file holds the
** errors, field access and the report API; the format strings are
** hsi_format.c, one entry is read in hsi_entry.c, the JSON checked in
** hsi_json.c, --check is hsi_check.c and lay export hsi_export.c (what
** they share: hsi_int.h).
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
**           cast(to = bf16, round = truncate)
**     with the value clause that cpu_dtype, hw_dtype, scale_factor and
**     zero_point mean (implied_value: a quantize to an integer hw_dtype, a
**     dequantize from an integer cpu_dtype, a plain cast between floats
**     when scale_factor is -1.0, unset), in VART's arithmetic: fp32 ->
**     bf16 truncates, quantize/dequantize use `arith = f32_div`
**     (hsi_entry.c, sb_value; stdlib/amd.lay, ARITHMETIC);
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

#include "hsi_int.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <sys/stat.h>

/* ---- Formats: hsi_format.c ----------------------------------------------- */

int hsi_is_float(lay_dtype t) {
  return t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16;
}

const char *const hsi_op_names[] = {"quantize", "dequantize", "pad",
                                       "reshape",  "transpose",  "slice",
                                       "cast"};

/* ---- Text buffers -------------------------------------------------------------- */

void hsi_sb_shape(lg_strbuf *b, const int64_t *v, int n) {
  lg_sb_printf(b, "[");
  for (int i = 0; i < n; i++) lg_sb_printf(b, "%s%lld", i ? "," : "", (long long)v[i]);
  lg_sb_printf(b, "]");
}

/* v as the shortest of %.15g, %.16g, %.17g that reads back as v ("0.1",
** not "0.10000000000000001"); buf holds 32 bytes. */
const char *hsi_gnum(double v, char *buf) {
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, 32, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

/* A number the lexer reads back exactly ("1", "0.25", "1e-05", "-3": all
** valid lay tokens, with unary minus). */
void hsi_sb_num(lg_strbuf *b, double v) {
  char buf[32];
  lg_sb_printf(b, "%s", hsi_gnum(v, buf));
}

/* ---- Errors ---------------------------------------------------------------------- */


/* "PATH: message" as LAY_E_JSON; returns -1. */
int hsi_perr(pctx *p, const char *path, const char *fmt, ...) {
  if (!p->err) return -1;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_error_plain(p->err, LAY_E_JSON, p->file, "%s: %s", path, msg);
  return -1;
}

/* "PATH: out of memory"; the parse stops. */
int hsi_oom(pctx *p, const char *path) {
  p->oom = 1;
  return hsi_perr(p, path, "out of memory");
}

const char *hsi_jtype(const cJSON *j) {
  if (cJSON_IsNumber(j)) return "a number";
  if (cJSON_IsString(j)) return "a string";
  if (cJSON_IsArray(j)) return "an array";
  if (cJSON_IsObject(j)) return "an object";
  if (cJSON_IsBool(j)) return "a boolean";
  if (cJSON_IsNull(j)) return "null";
  return "an invalid value";
}

/* Record an issue of entry t. */
int hsi_add_issue(lay_hsi *h, tensor *t, int fatal, const char *fmt,
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
int hsi_perrf(pctx *p, const char *path, const char *field,
                 const char *fmt, ...) {
  char full[200], msg[400];
  snprintf(full, sizeof full, "%s.%s", path, field);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return hsi_perr(p, full, "%s", msg);
}

/* ---- Field access (every field's type is checked) ------------------------------- */

/* The field `key` of object o; NULL when absent (then, if required, an
** error "PATH: missing required field 'key'"). */
const cJSON *hsi_field(pctx *p, const cJSON *o, const char *path,
                          const char *key, int required, int *fail) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!j && required)
    *fail = hsi_perr(p, path, "missing required field '%s'", key);
  return j;
}

int hsi_get_string(pctx *p, const cJSON *o, const char *path,
                      const char *key, int required, const char **out) {
  int fail = 0;
  *out = NULL;
  const cJSON *j = hsi_field(p, o, path, key, required, &fail);
  if (fail) return -1;
  if (!j) return 0;
  if (!cJSON_IsString(j) || !j->valuestring)
    return hsi_perrf(p, path, key, "must be a string, not %s", hsi_jtype(j));
  *out = j->valuestring;
  return 0;
}

/* 1 present, 0 absent, -1 error. */
/* A note of the entry being read (none outside an entry). */
static void note(pctx *p, const char *path, const char *key,
                 const char *text) {
  if (p->t) hsi_add_issue(p->h, p->t, 0, "%s.%s: %s", path, key, text);
}

/* The number j holds: a JSON number or, with a note, a string holding one
** ("3", "0.25": some tools write them so). *d its value; when written as
** an integer literal, *iv its exact value (cJSON's double is not exact
** above 2^53) and *isint 1. 0; -1 when j holds no number; -2 for an
** integer literal outside the 64-bit range. */
static int read_num(pctx *p, const cJSON *j, const char *path,
                    const char *key, double *d, int64_t *iv, int *isint) {
  const char *txt = j->valuestring; /* a number's token: hsi_json_mark */
  *isint = 0;
  if (cJSON_IsNumber(j)) {
    *d = j->valuedouble;
  } else if (cJSON_IsString(j) && txt && (*txt == '-' || isdigit((unsigned char)*txt)) &&
             !txt[strspn(txt, "0123456789+-.eE")]) {
    char *e;
    *d = strtod(txt, &e);
    if (*e) return -1;
    char msg[120];
    snprintf(msg, sizeof msg, "the number \"%.40s\" is written as a string; "
             "read as a number", txt);
    note(p, path, key, msg);
  } else {
    return -1;
  }
  if (txt && txt[strspn(txt, "-0123456789")] == '\0') {
    errno = 0;
    long long v = strtoll(txt, NULL, 10);
    if (errno == ERANGE) return -2;
    *iv = v;
    *isint = 1;
  }
  return 0;
}

int hsi_get_number(pctx *p, const cJSON *o, const char *path,
                      const char *key, int required, double *out) {
  int fail = 0, isint;
  int64_t iv;
  const cJSON *j = hsi_field(p, o, path, key, required, &fail);
  if (fail) return -1;
  if (!j) return 0;
  double d = 0;
  int r = read_num(p, j, path, key, &d, &iv, &isint);
  if (r == -1)
    return hsi_perrf(p, path, key, "must be a number, not %s", hsi_jtype(j));
  if (r == -2 || !isfinite(d))
    return hsi_perrf(p, path, key, "is not a finite number");
  *out = d;
  return 1;
}

int hsi_get_ints(pctx *p, const cJSON *o, const char *path, const char *key,
                    int64_t lo, int64_t *v, int *n, int cap) {
  char nb[32];
  int fail = 0, isint;
  const cJSON *j = hsi_field(p, o, path, key, 1, &fail);
  if (fail) return -1;
  if (!cJSON_IsArray(j))
    return hsi_perrf(p, path, key, "must be an array of integers, not %s",
                 hsi_jtype(j));
  int k = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, j) {
    if (k == cap)
      return hsi_perrf(p, path, key, "has more than %d entries", cap);
    char ek[80];
    snprintf(ek, sizeof ek, "%s[%d]", key, k);
    double d = 0;
    int64_t iv = 0;
    int r = read_num(p, e, path, ek, &d, &iv, &isint);
    if (r == -1)
      return hsi_perrf(p, path, ek, "must be an integer, not %s", hsi_jtype(e));
    if (r == -2)
      return hsi_perrf(p, path, ek, "must be an integer in the 64-bit range, "
                       "not %.40s", e->valuestring);
    if (!isint) { /* 3.0, 1e3: exact only up to 2^53 */
      if (!isfinite(d) || d != floor(d) || fabs(d) > MAX_INT)
        return hsi_perrf(p, path, ek, "must be an integer, not %s",
                         hsi_gnum(d, nb));
      iv = (int64_t)d;
    }
    if (iv < lo)
      return hsi_perrf(p, path, ek, "must be at least %lld, not %lld",
                   (long long)lo, (long long)iv);
    v[k++] = iv;
  }
  if (k == 0) return hsi_perrf(p, path, key, "is empty");
  *n = k;
  return 0;
}

int hsi_get_dtype(pctx *p, const cJSON *o, const char *path,
                     const char *key, lay_dtype *out) {
  const char *s;
  if (hsi_get_string(p, o, path, key, 1, &s)) return -1;
  *out = lay_dtype_parse(s);
  if (*out == LAY_DT_NONE && strlen(s) < 32) {
    /* VART writes its DataType names in upper case: FLOAT32, BF16, INT8. */
    char low[32], msg[120];
    size_t i = 0;
    for (; s[i]; i++) low[i] = (char)tolower((unsigned char)s[i]);
    low[i] = '\0';
    *out = lay_dtype_parse(low);
    if (*out != LAY_DT_NONE) {
      snprintf(msg, sizeof msg, "dtype '%s' read as %s (case ignored)", s,
               lay_dtype_name(*out));
      note(p, path, key, msg);
    }
  }
  if (*out == LAY_DT_NONE)
    return hsi_perrf(p, path, key,
                 "unknown dtype '%s' (expected fp32, fp16, bf16, int8, "
                 "uint8, int16, uint16 or int32)",
                 s);
  return 0;
}

int hsi_get_fmt(pctx *p, const cJSON *o, const char *path, const char *key,
                   int required, hsi_fmt *out) {
  const char *s;
  *out = F_NONE;
  if (hsi_get_string(p, o, path, key, required, &s)) return -1;
  if (!s) return 0;
  *out = hsi_fmt_parse(s);
  char list[400];
  if (*out == F_NONE)
    return hsi_perrf(p, path, key, "unknown format '%s' (expected %s)", s,
                     hsi_fmt_list(list, sizeof list));
  return 0;
}

int64_t hsi_prod(const int64_t *v, int n, int *ovf) {
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

int hsi_same_shape(const int64_t *a, int na, const int64_t *b, int nb) {
  if (na != nb) return 0;
  for (int i = 0; i < na; i++)
    if (a[i] != b[i]) return 0;
  return 1;
}

void hsi_shape_str(char *buf, size_t cap, const int64_t *v, int n) {
  size_t k = 0;
  buf[0] = '\0';
  k += (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)v[i]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
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
  free(h->file);
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
  hsi_json_pos(json, len, f->at, p->err);
  return st;
}

/* Entry i of inputs (o 0) or outputs (o 1). A field that cannot be read
** makes that entry unusable, not the report: its error becomes a fatal
** issue of the entry (`--check` lists it; the entry is not defined) and
** the other entries are read. -1 only when out of memory. */
static int read_entry(pctx *p, const cJSON *e, int o, int i, tensor *t,
                      const char *json, size_t len) {
  lay_error ee;
  memset(&ee, 0, sizeof ee);
  pctx q = *p;
  q.err = &ee;
  q.oom = 0;
  int bad = hsi_read_tensor(&q, e, o, i, t);
  hsi_json_pos(json, len, t->at, &ee); /* where the entry starts */
  t->line = ee.line;
  t->col = ee.col;
  if (!bad) return 0;
  if (q.oom || hsi_add_issue(p->h, t, 1, "%s", ee.message)) {
    if (p->err) lg_error_plain(p->err, LAY_E_NOMEM, p->file, "out of memory");
    return -1;
  }
  free(t->spec);
  free(t->ann_spec);
  t->spec = t->ann_spec = NULL;
  return 0;
}

lay_status lay_hsi_parse(const char *json, size_t len, const char *file,
                        lay_hsi **out, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  if (out) *out = NULL;
  pctx p = {file ? file : "<json>", err, NULL, 0, NULL};
  if (len > LAY_HSI_MAX_JSON) {
    size_error(p.file, len, err);
    return LAY_E_LIMIT;
  }
  if (!json || !out) {
    hsi_perr(&p, "report", "no JSON text");
    return LAY_E_ARG;
  }
  const char *nul = memchr(json, '\0', len);
  if (nul) {
    hsi_perr(&p, "report", "contains a NUL byte");
    if (err) hsi_json_pos(json, len, (size_t)(nul - json), err);
    return LAY_E_JSON;
  }
  jfail jf;
  if (hsi_json_scan(json, len, &jf)) return json_fail(&p, json, len, &jf);
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
  if (hsi_dup_keys(&p, root, path, sizeof path)) goto done;
  if (hsi_json_mark(root, json, len)) {
    st = LAY_E_NOMEM;
    hsi_perr(&p, "report", "out of memory");
    goto done;
  }
  if (!cJSON_IsObject(root)) {
    hsi_perr(&p, "report", "must be a JSON object, not %s", hsi_jtype(root));
    goto done;
  }
  if (!(h = calloc(1, sizeof *h))) {
    st = LAY_E_NOMEM;
    hsi_perr(&p, "report", "out of memory");
    goto done;
  }
  if (!(h->file = strdup(p.file))) {
    st = LAY_E_NOMEM;
    hsi_perr(&p, "report", "out of memory");
    goto done;
  }
  p.h = h;
  static const char *const keys[2] = {"inputs", "outputs"};
  for (int o = 0; o < 2; o++) {
    int fail = 0;
    const cJSON *arr = hsi_field(&p, root, "report", keys[o], 1, &fail);
    if (fail) goto done;
    if (!cJSON_IsArray(arr)) {
      hsi_perr(&p, keys[o], "must be an array, not %s", hsi_jtype(arr));
      goto done;
    }
    int n = cJSON_GetArraySize(arr);
    if (n > LAY_HSI_MAX_TENSORS - h->n[0]) { /* both arrays together */
      if (o) hsi_perr(&p, keys[o], "%d entries, with the %d inputs more than "
                      "%d tensors", n, h->n[0], LAY_HSI_MAX_TENSORS);
      else hsi_perr(&p, keys[o], "more than %d entries", LAY_HSI_MAX_TENSORS);
      goto done;
    }
    if (n && !(h->t[o] = calloc((size_t)n, sizeof *h->t[o]))) {
      st = LAY_E_NOMEM;
      hsi_perr(&p, keys[o], "out of memory");
      goto done;
    }
    int i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, arr) {
      h->n[o] = i + 1; /* so that lay_hsi_free frees what was read */
      if (read_entry(&p, e, o, i, &h->t[o][i], json, len)) {
        st = LAY_E_NOMEM;
        goto done;
      }
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
  out->frames = t->frames ? t->frames : 1;
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
  if (t->name) {
    lg_sb_printf(b, " name ");
    sb_clean(b, t->name);
  }
  if (t->tensor_name) {
    lg_sb_printf(b, " tensor_name ");
    sb_clean(b, t->tensor_name);
  }
  lg_sb_printf(b, "\n# cpu %s %s ",
            t->cpu_fmt ? hsi_fmt_name(t->cpu_fmt) : "-",
            lay_dtype_name(t->cpu_dt));
  hsi_sb_shape(b, t->cpu, t->rank);
  lg_sb_printf(b, " -> hw %s %s ",
            t->hw_fmt ? hsi_fmt_name(t->hw_fmt) : "-",
            lay_dtype_name(t->hw_dt));
  hsi_sb_shape(b, t->hw, t->hw_rank);
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

/* The entry whose text holds line `line` of lay_hsi_spec(h, ns); NULL for
** the header or when out of memory. */
static tensor *entry_at_line(const lay_hsi *h, const char *ns, int line) {
  char *head = lay_hsi_spec_header(h, ns);
  if (!head) return NULL;
  int at = 1;
  for (const char *c = head; *c; c++) at += *c == '\n';
  free(head);
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < h->n[o]; i++) {
      lg_strbuf b = {0};
      sb_entry(&b, &h->t[o][i]);
      char *text = lg_sb_take(&b);
      if (!text) return NULL;
      int n = 0;
      for (const char *c = text; *c; c++) n += *c == '\n';
      free(text);
      if (line < at + n) return &h->t[o][i];
      at += n;
    }
  return NULL;
}

/* The generated text of an entry may still fail to compile (lay refuses
** what the report's fields allow: a slice that keeps only padding). Such
** an error is not the user's text: it becomes a fatal issue of its entry,
** with the entry's JSON path and line:col, and the load is retried
** without it, so that the other entries work. The report records the
** issue (h is const for its readers; this is its own bookkeeping). */
lay_status lay_hsi_load(const lay_hsi *h, lay_ctx *ctx, const char *ns,
                       lay_error *err) {
  lay_error e;
  lay_status st;
  char name[300];
  snprintf(name, sizeof name, "%s.lay", h ? h->file : "<json>");
  for (;;) {
    char *text = lay_hsi_spec(h, ns);
    if (!text) {
      lg_error_plain(&e, LAY_E_NOMEM, NULL, "out of memory");
      st = LAY_E_NOMEM;
      break;
    }
    st = lay_ctx_load_string(ctx, name, text, strlen(text), &e);
    free(text);
    /* A name clash is the context's, not the entry's: it stays an error. */
    if (!st || st == LAY_E_NAME || st == LAY_E_NOMEM || e.line <= 0 ||
        strcmp(e.file, name))
      break;
    tensor *t = entry_at_line(h, ns, e.line);
    if (!t || t->fatal) break;
    if (hsi_add_issue((lay_hsi *)h, t, 1,
                      "%s[%d]: %s (the entry at line %d, column %d)",
                      t->output ? "outputs" : "inputs", t->index, e.message,
                      t->line, t->col))
      break;
  }
  if (err) *err = e;
  return st;
}

/* A compile cache folder holds its report(s) at
** vaiml_par_N/0/flexmlrt-hsi.json (one per partition). */
char *lay_hsi_locate(const char *path, lay_error *err) {
  struct stat sb;
  if (!path || stat(path, &sb) || !S_ISDIR(sb.st_mode)) {
    char *r = path ? strdup(path) : NULL;
    if (!r) lg_error_plain(err, path ? LAY_E_NOMEM : LAY_E_ARG, path,
                           path ? "out of memory" : "no report file");
    return r;
  }
  size_t n = strlen(path);
  char *pat = malloc(n + 48);
  if (!pat) {
    lg_error_plain(err, LAY_E_NOMEM, path, "out of memory");
    return NULL;
  }
  snprintf(pat, n + 48, "%s/flexmlrt-hsi.json", path);
  if (!stat(pat, &sb) && S_ISREG(sb.st_mode)) return pat;
  snprintf(pat, n + 48, "%s/vaiml_par_*/0/flexmlrt-hsi.json", path);
  glob_t g;
  int rc = glob(pat, 0, NULL, &g);
  char *r = NULL;
  if (rc == 0 && g.gl_pathc == 1) {
    if (!(r = strdup(g.gl_pathv[0])))
      lg_error_plain(err, LAY_E_NOMEM, path, "out of memory");
  } else if (rc == 0) {
    lg_error_plain(err, LAY_E_ARG, path,
                   "%zu reports in the compile cache (%s, %s, ...); give "
                   "one of them", (size_t)g.gl_pathc, g.gl_pathv[0],
                   g.gl_pathv[1]);
  } else {
    lg_error_plain(err, LAY_E_IO, path,
                   "a folder without flexmlrt-hsi.json or "
                   "vaiml_par_*/0/flexmlrt-hsi.json");
  }
  if (rc == 0) globfree(&g);
  free(pat);
  return r;
}

lay_status lay_hsi_read(const char *path, lay_hsi **out, lay_error *err) {
  if (out) *out = NULL;
  if (!path || !out) {
    lg_error_plain(err, LAY_E_ARG, path ? path : "", "no report file");
    return LAY_E_ARG;
  }
  char *own = lay_hsi_locate(path, err);
  if (!own) return err ? err->code : LAY_E_IO;
  path = own;
  FILE *f = fopen(path, "rb");
  if (!f) {
    lg_error_plain(err, LAY_E_IO, path, "cannot open: %s", strerror(errno));
    free(own);
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
      buf = nb;
      cap = ncap;
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
  free(own);
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

