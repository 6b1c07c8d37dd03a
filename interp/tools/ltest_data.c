/*
** ltest_data.c: the helpers of the conformance-test runner (ltest.c):
** failure messages with their positions, integer operands, element
** encoding in every dtype, and the data operands hex("..."), file("...")
** and [list] turned into bytes and compared.
*/
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* realpath, PATH_MAX */
#endif

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "build.h"
#include "ctx.h"
#include "diag.h"
#include "dtypes.h"
#include "lang.h"
#include "lay.h"
#include "lay_tools.h"
#include "lower.h"
#include "ltest_int.h"

/* ---- Small helpers ------------------------------------------------------ */

/* Set the failure message (always returns LT_FAIL). */
int lt_fail(lt_run *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
  return LT_FAIL;
}

/* The same, with the source position of the operand at fault. */
int lt_fail_at(lt_run *r, uint32_t pos, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
  r->at = pos;
  return LT_FAIL;
}

/* Record the failure of a use, load or order (returns LT_ERRED). */
int lt_erred(lt_run *r, uint32_t pos, const char *msg) {
  snprintf(r->last_msg, sizeof r->last_msg, "%s", msg);
  r->at = pos;
  return LT_ERRED;
}

void lt_emitf(void (*out)(void *, const char *), void *ud,
                  const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (out) out(ud, line);
}

/* Emit a possibly multi-line text one line at a time. */
void lt_emit_lines(void (*out)(void *, const char *), void *ud,
                       const char *text) {
  char line[2048];
  while (*text) {
    const char *nl = strchr(text, '\n');
    size_t n = nl ? (size_t)(nl - text) : strlen(text);
    if (n >= sizeof line) n = sizeof line - 1;
    memcpy(line, text, n);
    line[n] = '\0';
    if (out) out(ud, line);
    if (!nl) break;
    text = nl + 1;
  }
}

void lt_plans_free(lt_run *r) {
  lay_plan_free(r->pack);
  lay_plan_free(r->unpack);
  r->pack = r->unpack = NULL;
  free(r->ref);
  r->ref = NULL;
}

/* The source position of byte k of the decoded string literal e (escapes
** take two source bytes). */
uint32_t lt_str_pos(const lt_run *r, const lg_expr *e, size_t k) {
  size_t i = (size_t)e->pos + 1, j = 0;
  while (j < k && i < e->end && i < r->src_len) {
    i += r->src[i] == '\\' ? 2 : 1;
    j++;
  }
  return (uint32_t)i;
}


static double num_d(lt_num v) {
  return v.isf == 2 ? (double)(uint64_t)v.i : v.isf ? v.f : (double)v.i;
}

/* Evaluate a constant numeric expression (literals, unary minus, + - * /). */
static int eval_num(lt_run *r, const lg_expr *e, lt_num *out) {
  lt_num a = {0, 0, 0}, b = {0, 0, 0};
  if (!e) return lt_fail(r, "missing number");
  switch (e->kind) {
    case LG_X_INT: out->isf = 0; out->i = e->u.i; out->f = 0; return 0;
    case LG_X_FLOAT: { /* an integer literal past INT64_MAX is exact */
      const char *t = r->src + e->pos;
      size_t n = e->end > e->pos && e->end <= r->src_len ? e->end - e->pos : 0;
      int64_t bits;
      if (n && strspn(t, "0123456789") == n && lg_lex_int(t, n, &bits) == 1) {
        out->isf = 2; out->i = bits; out->f = e->u.f;
        return 0;
      }
      out->isf = 1; out->f = e->u.f; out->i = 0; return 0;
    }
    case LG_X_UNARY:
      if (eval_num(r, e->u.op.a, &a)) return -1;
      if (e->u.op.op == LG_OP_NEG) {
        if (a.isf == 2) { a.isf = 1; a.f = -num_d(a); a.i = 0; }
        else if (a.isf) a.f = -a.f;
        else if (a.i == INT64_MIN)
          return lt_fail_at(r, e->pos, "number out of range");
        else a.i = -a.i;
        *out = a;
        return 0;
      }
      return lt_fail_at(r, e->pos, "not a number");
    case LG_X_BINARY:
      if (eval_num(r, e->u.op.a, &a) || eval_num(r, e->u.op.b, &b)) return -1;
      if (!a.isf && !b.isf && e->u.op.op != LG_OP_DIV) {
        int64_t v;
        int ovf;
        switch (e->u.op.op) {
          case LG_OP_ADD: ovf = __builtin_add_overflow(a.i, b.i, &v); break;
          case LG_OP_SUB: ovf = __builtin_sub_overflow(a.i, b.i, &v); break;
          case LG_OP_MUL: ovf = __builtin_mul_overflow(a.i, b.i, &v); break;
          default: return lt_fail_at(r, e->pos, "not a number");
        }
        if (ovf) return lt_fail_at(r, e->pos, "number out of range");
        out->isf = 0; out->i = v; out->f = 0;
        return 0;
      }
      out->isf = 1; out->i = 0;
      switch (e->u.op.op) {
        case LG_OP_ADD: out->f = num_d(a) + num_d(b); return 0;
        case LG_OP_SUB: out->f = num_d(a) - num_d(b); return 0;
        case LG_OP_MUL: out->f = num_d(a) * num_d(b); return 0;
        case LG_OP_DIV:
          if (num_d(b) == 0) return lt_fail_at(r, e->pos, "division by zero");
          out->f = num_d(a) / num_d(b);
          return 0;
        default: return lt_fail_at(r, e->pos, "not a number");
      }
    default: return lt_fail_at(r, e->pos, "not a number");
  }
}

int lt_eval_int(lt_run *r, const lg_expr *e, int64_t *out) {
  lt_num v = {0, 0, 0};
  if (eval_num(r, e, &v)) return -1;
  if (v.isf) return lt_fail_at(r, e->pos, "expected an integer");
  *out = v.i;
  return 0;
}

/* The integers of a list [..] or of a call's arguments PLANE(..). */
int lt_eval_ints_of(lt_run *r, const lg_list *l, uint32_t pos,
                        int64_t *v, int cap, int *n) {
  if (l->n > cap)
    return lt_fail_at(r, pos, "list of %d values, at most %d allowed", l->n, cap);
  for (int i = 0; i < l->n; i++)
    if (lt_eval_int(r, l->v[i], &v[i])) return -1;
  *n = l->n;
  return 0;
}

/* A list of integers (a coordinate or a shape). */
int lt_eval_ints(lt_run *r, const lg_expr *e, int64_t *v, int cap,
                     int *n) {
  if (!e || e->kind != LG_X_LIST)
    return lt_fail_at(r, e ? e->pos : r->at, "expected a list [..]");
  return lt_eval_ints_of(r, &e->u.list, e->pos, v, cap, n);
}

void lt_fmt_coord(char *buf, size_t cap, const int64_t *c, int n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, cap - k, "(");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)c[i]);
  if (k < cap) snprintf(buf + k, cap - k, ")");
}

/* "lo(0,1,0,1)" when the plan has byte planes, else "(0,1,0,1)". */
void lt_fmt_plane_coord(const lay_plan *p, int plane, char *buf,
                            size_t cap, const int64_t *c, int n) {
  const char *pn = lay_plan_plane_count(p) > 0 ? lay_plan_plane_name(p, plane) : NULL;
  size_t k = (size_t)snprintf(buf, cap, "%s", pn ? pn : "");
  if (k < cap) lt_fmt_coord(buf + k, cap - k, c, n);
}

/* ---- Element encoding ---------------------------------------------------- */

uint16_t lt_f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

uint16_t lt_f32_to_f16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  uint32_t sign = (u >> 16) & 0x8000u;
  uint32_t ex = (u >> 23) & 0xffu, man = u & 0x7fffffu;
  if (ex == 0xff) return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
  int e = (int)ex - 127 + 15;
  if (e >= 31) return (uint16_t)(sign | 0x7c00u);
  if (e <= 0) {
    if (e < -10) return (uint16_t)sign;
    man |= 0x800000u;
    int shift = 14 - e;
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1u);
    uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = ((uint32_t)e << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) h++;
  return (uint16_t)(sign | h);
}

/* The value of an fp16 bit pattern (exact in a double). */
static double f16_value(uint16_t h) {
  int ex = (h >> 10) & 0x1f, man = h & 0x3ff;
  double sign = (h & 0x8000u) ? -1.0 : 1.0;
  if (ex == 0x1f) return man ? NAN : sign * INFINITY;
  if (ex == 0) return sign * ldexp(man, -24);
  return sign * ldexp(man | 0x400, ex - 25);
}

/* Store `v` as one element of type t at p (little-endian). Integers must
** fit; floats are rounded to nearest even. */
int lt_put_elem(lt_run *r, lay_dtype t, lt_num v, unsigned char *p) {
  int64_t lo = 0;
  uint64_t hi = 0;
  switch (t) {
    case LAY_DT_FP32: {
      float f = (float)num_d(v);
      memcpy(p, &f, 4);
      return 0;
    }
    case LAY_DT_FP16: case LAY_DT_BF16: {
      float f = (float)num_d(v);
      uint16_t h = t == LAY_DT_FP16 ? lt_f32_to_f16(f) : lt_f32_to_bf16(f);
      p[0] = (unsigned char)(h & 0xff);
      p[1] = (unsigned char)(h >> 8);
      return 0;
    }
    default: /* an integer type: its range is dtypes.h's */
      if (!lay_dtype_size(t)) return lt_fail(r, "no element type");
      lg_dtype_range(t, &lo, &hi);
      break;
  }
  if (v.isf == 2) { /* past INT64_MAX: uint64 only */
    if (hi <= (uint64_t)INT64_MAX)
      return lt_fail(r, "value %llu does not fit %s",
                     (unsigned long long)(uint64_t)v.i, lay_dtype_name(t));
  } else if (v.isf) { /* a double past 2^63 only for uint64 */
    if (!lg_dtype_holds(t, v.f))
      return lt_fail(r, "value %g does not fit %s", v.f, lay_dtype_name(t));
    v.i = v.f >= 0x1p63 ? (int64_t)(uint64_t)v.f : (int64_t)v.f;
  } else if (v.i < lo || (v.i > 0 && (uint64_t)v.i > hi)) {
    return lt_fail(r, "value %lld does not fit %s", (long long)v.i,
                lay_dtype_name(t));
  }
  uint64_t u = (uint64_t)v.i;
  for (size_t k = 0; k < lay_dtype_size(t); k++)
    p[k] = (unsigned char)(u >> (8 * k));
  return 0;
}

/* One element of type t at p as text: its value and its bits,
** "-2 (0xfffe)", "1.5 (0x3fc00000)". */
static void fmt_value(lay_dtype t, const unsigned char *p, char *buf,
                      size_t cap) {
  size_t sz = lay_dtype_size(t);
  uint64_t u = 0;
  for (size_t k = 0; k < sz && k < 8; k++) u |= (uint64_t)p[k] << (8 * k);
  int digits = (int)sz * 2;
  switch (t) {
    case LAY_DT_INT8: case LAY_DT_INT16: case LAY_DT_INT32: {
      int bits = (int)sz * 8;
      int64_t v = (u & ((uint64_t)1 << (bits - 1)))
                      ? (int64_t)(u | ~(((uint64_t)1 << bits) - 1))
                      : (int64_t)u;
      snprintf(buf, cap, "%lld (0x%0*llx)", (long long)v, digits,
               (unsigned long long)u);
      return;
    }
    case LAY_DT_FP32: {
      float f;
      uint32_t b = (uint32_t)u;
      memcpy(&f, &b, 4);
      snprintf(buf, cap, "%.9g (0x%08x)", (double)f, (unsigned)b);
      return;
    }
    case LAY_DT_BF16: {
      float f;
      uint32_t b = (uint32_t)u << 16;
      memcpy(&f, &b, 4);
      snprintf(buf, cap, "%.9g (0x%04x)", (double)f, (unsigned)u);
      return;
    }
    case LAY_DT_FP16:
      snprintf(buf, cap, "%.9g (0x%04x)", f16_value((uint16_t)u), (unsigned)u);
      return;
    default:
      snprintf(buf, cap, "%llu (0x%0*llx)", (unsigned long long)u, digits,
               (unsigned long long)u);
      return;
  }
}

/* "12 bytes (6 int16 elements)". */
void lt_fmt_size(size_t bytes, lay_dtype t, char *buf, size_t cap) {
  size_t es = lay_dtype_size(t);
  if (es && bytes % es == 0)
    snprintf(buf, cap, "%zu bytes (%zu %s element%s)", bytes, bytes / es,
             lay_dtype_name(t), bytes / es == 1 ? "" : "s");
  else
    snprintf(buf, cap, "%zu bytes (not a whole number of %s elements)",
             bytes, lay_dtype_name(t));
}

/* Element i of the default input: i, as the element type holds it
** (integers wrap: int8 holds (int8_t)(i & 0xff)). */
void lt_iota_elem(lay_dtype t, uint64_t i, unsigned char *p) {
  size_t sz = lay_dtype_size(t);
  if (t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16) {
    float f = (float)i;
    if (t == LAY_DT_FP32) {
      memcpy(p, &f, 4);
    } else {
      uint16_t h = t == LAY_DT_FP16 ? lt_f32_to_f16(f) : lt_f32_to_bf16(f);
      p[0] = (unsigned char)(h & 0xff);
      p[1] = (unsigned char)(h >> 8);
    }
    return;
  }
  for (size_t k = 0; k < sz; k++) p[k] = (unsigned char)(i >> (8 * k));
}

/* ---- Data operands: hex("..."), file("..."), [list] ---------------------- */

static int hexval(int ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

/* Read a whole file into a malloc'd buffer. */
static int read_file(lt_run *r, uint32_t pos, const char *path,
                     unsigned char **out, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return lt_fail_at(r, pos, "cannot open '%s': %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  unsigned char *b = malloc(cap);
  if (!b) { fclose(f); return lt_fail(r, "out of memory"); }
  for (;;) {
    if (n == cap) {
      if (cap >= LT_MAX_FILE) {
        free(b); fclose(f);
        return lt_fail_at(r, pos, "'%s' is larger than %u bytes", path,
                       LT_MAX_FILE);
      }
      unsigned char *nb = realloc(b, cap * 2);
      if (!nb) { free(b); fclose(f); return lt_fail(r, "out of memory"); }
      b = nb;
      cap *= 2;
    }
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) { free(b); return lt_fail_at(r, pos, "cannot read '%s'", path); }
  *out = b;
  *len = n;
  return 0;
}

/* hex("..."): the bytes of the hex digits (blanks between them ignored). */
static int hex_bytes(lt_run *r, const lg_expr *arg, unsigned char **out,
                     size_t *len) {
  const lg_str *s = &arg->u.str;
  unsigned char *b = malloc(s->n / 2 + 1);
  size_t n = 0, first = 0;
  int hi = -1;
  if (!b) return lt_fail(r, "out of memory");
  for (size_t i = 0; i < s->n; i++) {
    unsigned char ch = (unsigned char)s->s[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') continue;
    int v = hexval(ch);
    if (v < 0) {
      free(b);
      if (ch < 0x20 || ch >= 0x7f)
        return lt_fail_at(r, lt_str_pos(r, arg, i),
                       "hex(): byte 0x%02x is not a hex digit", ch);
      return lt_fail_at(r, lt_str_pos(r, arg, i), "hex(): '%c' is not a hex digit",
                     ch);
    }
    if (hi < 0) {
      hi = v;
      first = i;
    } else {
      b[n++] = (unsigned char)(hi << 4 | v);
      hi = -1;
    }
  }
  if (hi >= 0) {
    free(b);
    return lt_fail_at(r, lt_str_pos(r, arg, first),
                   "hex(): odd number of digits (this one has no pair)");
  }
  *out = b;
  *len = n;
  return 0;
}

/* Decode a data operand into bytes of element type t (for lists). */
int lt_data_bytes(lt_run *r, const lg_expr *e, lay_dtype t,
                      unsigned char **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (e && e->kind == LG_X_LIST && lay_dtype_bits(t) == 4)
    return lt_fail_at(r, e->pos,
                      "a list of %s elements: write hex(\"..\") (two "
                      "elements a byte, see LANGUAGE.md)",
                      lay_dtype_name(t));
  if (e && e->kind == LG_X_LIST) {
    size_t sz = lay_dtype_size(t);
    size_t n = (size_t)e->u.list.n;
    unsigned char *b = malloc(n * sz + 1);
    if (!b) return lt_fail(r, "out of memory");
    for (size_t i = 0; i < n; i++) {
      lt_num v;
      const lg_expr *item = e->u.list.v[i];
      r->at = item->pos;
      if (eval_num(r, item, &v) || lt_put_elem(r, t, v, b + i * sz)) {
        char tmp[LT_WHY];
        snprintf(tmp, sizeof tmp, "%s", r->why);
        free(b);
        return lt_fail_at(r, r->at, "list item %zu: %s", i, tmp);
      }
    }
    *out = b;
    *len = n * sz;
    return 0;
  }
  if (e && e->kind == LG_X_CALL && e->u.call.fn &&
      e->u.call.fn->kind == LG_X_NAME && e->u.call.args.n == 1 &&
      e->u.call.args.v[0]->kind == LG_X_STR) {
    const char *fn = e->u.call.fn->u.str.s;
    const lg_expr *arg = e->u.call.args.v[0];
    const lg_str *s = &arg->u.str;
    if (strcmp(fn, "hex") == 0) return hex_bytes(r, arg, out, len);
    if (strcmp(fn, "file") == 0) {
      char path[4096];
      const char *slash = strrchr(r->file, '/');
      if (s->s[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", s->s);
      else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - r->file),
                 r->file, s->s);
      return read_file(r, arg->pos, path, out, len);
    }
  }
  return lt_fail_at(r, e ? e->pos : r->at,
                 "expected hex(\"..\"), file(\"..\") or a list [..]");
}

/* The place of element k of a buffer, for a message: on the CPU side its
** coordinate, on the layout side its byte offset and what lay_plan_at
** finds there. */
static void fmt_place(const lt_run *r, int layout_side, size_t k,
                      size_t esize, char *buf, size_t cap) {
  int64_t c[LAY_MAX_RANK];
  char cs[LAY_MAX_RANK * 24 + 40];
  if (!layout_side) {
    size_t rest = k;
    for (int i = r->rank - 1; i >= 0; i--) {
      uint64_t ext = r->shape[i] > 0 ? (uint64_t)r->shape[i] : 1;
      c[i] = (int64_t)(rest % ext);
      rest /= ext;
    }
    lt_fmt_coord(cs, sizeof cs, c, r->rank);
    snprintf(buf, cap, "element %zu %s", k, cs);
    return;
  }
  int is_pad = 0, plane = 0;
  for (int i = 0; i < LAY_MAX_RANK; i++) c[i] = -1;
  if (!r->pack || lay_plan_at(r->pack, (uint64_t)(k * esize), c, LAY_MAX_RANK,
                              &is_pad, &plane, NULL) != LAY_OK)
    snprintf(cs, sizeof cs, "?");
  else if (is_pad == 2)
    snprintf(cs, sizeof cs, "hole");
  else if (is_pad) {
    memcpy(cs, "pad ", 4);
    lt_fmt_coord(cs + 4, sizeof cs - 4, c, r->rank);
  } else {
    lt_fmt_plane_coord(r->pack, plane, cs, sizeof cs, c, r->rank);
  }
  snprintf(buf, cap, "element %zu (byte %zu) = %s", k, k * esize, cs);
}

/* Compare a produced buffer of n bytes of type t with the expected one,
** element by element; the first difference names the element (see
** fmt_place) and both values. */
int lt_compare(lt_run *r, const char *what, int layout_side, lay_dtype t,
                   const unsigned char *exp, const unsigned char *got,
                   size_t n) {
  size_t es = lay_dtype_size(t);
  if (es == 0) es = 1;
  for (size_t k = 0; k * es < n; k++) {
    size_t m = n - k * es < es ? n - k * es : es;
    if (memcmp(exp + k * es, got + k * es, m) == 0) continue;
    char place[LAY_MAX_RANK * 24 + 96], a[64], b[64];
    fmt_place(r, layout_side, k, es, place, sizeof place);
    fmt_value(t, exp + k * es, a, sizeof a);
    fmt_value(t, got + k * es, b, sizeof b);
    return lt_fail(r, "%s%s: expected %s, got %s", what, place, a, b);
  }
  return 0;
}
