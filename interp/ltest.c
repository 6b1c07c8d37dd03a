/*
** ltest.c: the conformance-test runner behind `lay test FILE...`.
**
** For each file: load it into the context (its layouts become available),
** then run each of its test blocks statement by statement:
**   use REF shape [..] [: T]   compile pack (and, when needed, unpack) plans
**   load "spec"                compile spec text into the context
**   error == "msg"             the preceding use/load failed, saying msg
**   where [coord] == N         coordinate -> byte offset
**   at N == [coord] | pad      byte offset -> coordinate, or padding
**   order == "listing"         memory order in the docs' notation
**   pack [IN] == EXPECTED      IN defaults to iota (element i holds i)
**   unpack IN == EXPECTED
**   roundtrip                  pack, check every pad, unpack, compare
** IN and EXPECTED are hex("00 01 ..."), file("path") (relative to the test
** file) or a list of numbers in the element type of that side. A test
** stops at its first failing statement, which is reported with its
** position and the first differing place.
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

#include "ctx.h"
#include "lang.h"
#include "lay.h"
#include "listing.h"
#include "ltest.h"

#define LT_WHY 1024          /* room for one failure message */
#define LT_MAX_FILE (64u << 20)  /* largest file("...") read */
#define LT_MAX_CHECK ((uint64_t)1 << 24) /* elements a roundtrip inspects */

/* The state of one running test block. */
typedef struct lt_run {
  lay_ctx *ctx;          /* the context every test runs in */
  const char *file;      /* the test's file, as the module names it */
  const char *src;       /* that file's text */
  size_t src_len;        /* its length */
  char *ref;             /* the current `use` reference text, malloc'd */
  int64_t shape[LAY_MAX_RANK]; /* its CPU-side shape */
  int rank;              /* its rank */
  lay_dtype dtype;       /* the type asked for (NONE: the spec's own) */
  lay_plan *pack;        /* pack plan of the current use, or NULL */
  lay_plan *unpack;      /* unpack plan, made on first need */
  int last_failed;       /* 1 when the last use/load failed */
  int have_last;         /* 1 after any use/load */
  char last_msg[512];    /* its error message */
  char why[LT_WHY];      /* the failure message */
} lt_run;

/* ---- Small helpers ------------------------------------------------------ */

/* Set the failure message (always returns -1, for `return fail(...)`). */
static int fail(lt_run *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static int fail(lt_run *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->why, sizeof r->why, fmt, ap);
  va_end(ap);
  return -1;
}

static void emitf(void (*out)(void *, const char *), void *ud,
                  const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void emitf(void (*out)(void *, const char *), void *ud,
                  const char *fmt, ...) {
  char line[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (out) out(ud, line);
}

/* Emit a possibly multi-line text one line at a time. */
static void emit_lines(void (*out)(void *, const char *), void *ud,
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

static void plans_free(lt_run *r) {
  lay_plan_free(r->pack);
  lay_plan_free(r->unpack);
  r->pack = r->unpack = NULL;
  free(r->ref);
  r->ref = NULL;
}

/* A constant number: integer or floating. */
typedef struct lt_num {
  int isf;   /* 1: f holds it; 0: i holds it */
  int64_t i;
  double f;
} lt_num;

static double num_d(lt_num v) { return v.isf ? v.f : (double)v.i; }

/* Evaluate a constant numeric expression (literals, unary minus, + - * /). */
static int eval_num(lt_run *r, const lg_expr *e, lt_num *out) {
  lt_num a = {0, 0, 0}, b = {0, 0, 0};
  if (!e) return fail(r, "missing number");
  switch (e->kind) {
    case LG_X_INT: out->isf = 0; out->i = e->u.i; out->f = 0; return 0;
    case LG_X_FLOAT: out->isf = 1; out->f = e->u.f; out->i = 0; return 0;
    case LG_X_UNARY:
      if (eval_num(r, e->u.op.a, &a)) return -1;
      if (e->u.op.op == LG_OP_NEG || (int)e->u.op.op == '-') {
        if (a.isf) a.f = -a.f;
        else if (a.i == INT64_MIN) return fail(r, "number out of range");
        else a.i = -a.i;
        *out = a;
        return 0;
      }
      return fail(r, "not a number");
    case LG_X_BINARY:
      if (eval_num(r, e->u.op.a, &a) || eval_num(r, e->u.op.b, &b)) return -1;
      if (!a.isf && !b.isf && e->u.op.op != LG_OP_DIV) {
        int64_t v;
        int ovf;
        switch (e->u.op.op) {
          case LG_OP_ADD: ovf = __builtin_add_overflow(a.i, b.i, &v); break;
          case LG_OP_SUB: ovf = __builtin_sub_overflow(a.i, b.i, &v); break;
          case LG_OP_MUL: ovf = __builtin_mul_overflow(a.i, b.i, &v); break;
          default: return fail(r, "not a number");
        }
        if (ovf) return fail(r, "number out of range");
        out->isf = 0; out->i = v; out->f = 0;
        return 0;
      }
      out->isf = 1; out->i = 0;
      switch (e->u.op.op) {
        case LG_OP_ADD: out->f = num_d(a) + num_d(b); return 0;
        case LG_OP_SUB: out->f = num_d(a) - num_d(b); return 0;
        case LG_OP_MUL: out->f = num_d(a) * num_d(b); return 0;
        case LG_OP_DIV:
          if (num_d(b) == 0) return fail(r, "division by zero");
          out->f = num_d(a) / num_d(b);
          return 0;
        default: return fail(r, "not a number");
      }
    default: return fail(r, "not a number");
  }
}

static int eval_int(lt_run *r, const lg_expr *e, int64_t *out) {
  lt_num v = {0, 0, 0};
  if (eval_num(r, e, &v)) return -1;
  if (v.isf) return fail(r, "expected an integer");
  *out = v.i;
  return 0;
}

/* A list of integers (a coordinate or a shape). */
static int eval_ints(lt_run *r, const lg_expr *e, int64_t *v, int cap,
                     int *n) {
  if (!e || e->kind != LG_X_LIST) return fail(r, "expected a list [..]");
  if (e->u.list.n > cap)
    return fail(r, "list of %d values, at most %d allowed", e->u.list.n, cap);
  for (int i = 0; i < e->u.list.n; i++)
    if (eval_int(r, e->u.list.v[i], &v[i])) return -1;
  *n = e->u.list.n;
  return 0;
}

static void fmt_coord(char *buf, size_t cap, const int64_t *c, int n) {
  size_t k = 0;
  k += (size_t)snprintf(buf + k, cap - k, "(");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)c[i]);
  if (k < cap) snprintf(buf + k, cap - k, ")");
}

/* ---- Element encoding ------------------------------------------------------ */

static uint16_t f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

static uint16_t f32_to_f16(float f) {
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

/* Store `v` as one element of type t at p (little-endian). Integers must
** fit; floats are rounded to nearest even. */
static int put_elem(lt_run *r, lay_dtype t, lt_num v, unsigned char *p) {
  int64_t lo = 0, hi = 0;
  switch (t) {
    case LAY_DT_INT8: lo = INT8_MIN; hi = INT8_MAX; break;
    case LAY_DT_UINT8: lo = 0; hi = UINT8_MAX; break;
    case LAY_DT_INT16: lo = INT16_MIN; hi = INT16_MAX; break;
    case LAY_DT_UINT16: lo = 0; hi = UINT16_MAX; break;
    case LAY_DT_INT32: lo = INT32_MIN; hi = INT32_MAX; break;
    case LAY_DT_FP32: {
      float f = (float)num_d(v);
      memcpy(p, &f, 4);
      return 0;
    }
    case LAY_DT_FP16: case LAY_DT_BF16: {
      float f = (float)num_d(v);
      uint16_t h = t == LAY_DT_FP16 ? f32_to_f16(f) : f32_to_bf16(f);
      p[0] = (unsigned char)(h & 0xff);
      p[1] = (unsigned char)(h >> 8);
      return 0;
    }
    default: return fail(r, "no element type");
  }
  if (v.isf) {
    if (v.f != floor(v.f) || v.f < (double)lo || v.f > (double)hi)
      return fail(r, "value %g does not fit %s", v.f, lay_dtype_name(t));
    v.i = (int64_t)v.f;
  } else if (v.i < lo || v.i > hi) {
    return fail(r, "value %lld does not fit %s", (long long)v.i,
                lay_dtype_name(t));
  }
  uint64_t u = (uint64_t)v.i;
  for (size_t k = 0; k < lay_dtype_size(t); k++)
    p[k] = (unsigned char)(u >> (8 * k));
  return 0;
}

/* Element i of the default input: i, as the element type holds it
** (integers wrap: int8 holds (int8_t)(i & 0xff)). */
static void iota_elem(lay_dtype t, uint64_t i, unsigned char *p) {
  size_t sz = lay_dtype_size(t);
  if (t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16) {
    float f = (float)i;
    if (t == LAY_DT_FP32) {
      memcpy(p, &f, 4);
    } else {
      uint16_t h = t == LAY_DT_FP16 ? f32_to_f16(f) : f32_to_bf16(f);
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
static int read_file(lt_run *r, const char *path, unsigned char **out,
                     size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return fail(r, "cannot open '%s': %s", path, strerror(errno));
  size_t cap = 4096, n = 0;
  unsigned char *b = malloc(cap);
  if (!b) { fclose(f); return fail(r, "out of memory"); }
  for (;;) {
    if (n == cap) {
      if (cap >= LT_MAX_FILE) {
        free(b); fclose(f);
        return fail(r, "'%s' is larger than %u bytes", path, LT_MAX_FILE);
      }
      unsigned char *nb = realloc(b, cap * 2);
      if (!nb) { free(b); fclose(f); return fail(r, "out of memory"); }
      b = nb;
      cap *= 2;
    }
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) { free(b); return fail(r, "cannot read '%s'", path); }
  *out = b;
  *len = n;
  return 0;
}

/* Decode a data operand into bytes of element type t (for lists). */
static int data_bytes(lt_run *r, const lg_expr *e, lay_dtype t,
                      unsigned char **out, size_t *len) {
  *out = NULL;
  *len = 0;
  if (e && e->kind == LG_X_LIST) {
    size_t sz = lay_dtype_size(t);
    size_t n = (size_t)e->u.list.n;
    unsigned char *b = malloc(n * sz + 1);
    if (!b) return fail(r, "out of memory");
    for (size_t i = 0; i < n; i++) {
      lt_num v;
      if (eval_num(r, e->u.list.v[i], &v) || put_elem(r, t, v, b + i * sz)) {
        char tmp[LT_WHY];
        snprintf(tmp, sizeof tmp, "%s", r->why);
        free(b);
        return fail(r, "list item %zu: %s", i, tmp);
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
    const lg_str *s = &e->u.call.args.v[0]->u.str;
    if (strcmp(fn, "hex") == 0) {
      unsigned char *b = malloc(s->n / 2 + 1);
      size_t n = 0;
      int hi = -1;
      if (!b) return fail(r, "out of memory");
      for (size_t i = 0; i < s->n; i++) {
        unsigned char ch = (unsigned char)s->s[i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') continue;
        int v = hexval(ch);
        if (v < 0) {
          free(b);
          return fail(r, "hex(): '%c' is not a hex digit", ch);
        }
        if (hi < 0) {
          hi = v;
        } else {
          b[n++] = (unsigned char)(hi << 4 | v);
          hi = -1;
        }
      }
      if (hi >= 0) { free(b); return fail(r, "hex(): odd number of digits"); }
      *out = b;
      *len = n;
      return 0;
    }
    if (strcmp(fn, "file") == 0) {
      char path[4096];
      const char *slash = strrchr(r->file, '/');
      if (s->s[0] == '/' || !slash)
        snprintf(path, sizeof path, "%s", s->s);
      else
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - r->file),
                 r->file, s->s);
      return read_file(r, path, out, len);
    }
  }
  return fail(r, "expected hex(\"..\"), file(\"..\") or a list [..]");
}

/* Compare a produced buffer with the expected bytes. */
static int compare(lt_run *r, const char *what, const unsigned char *exp,
                   size_t elen, const unsigned char *got, size_t glen) {
  size_t n = elen < glen ? elen : glen;
  for (size_t i = 0; i < n; i++)
    if (exp[i] != got[i])
      return fail(r, "%sbyte %zu: expected 0x%02x, got 0x%02x", what, i,
                  exp[i], got[i]);
  if (elen != glen)
    return fail(r, "%sexpected %zu bytes, got %zu", what, elen, glen);
  return 0;
}

/* ---- Statements ------------------------------------------------------------ */

static int need_plan(lt_run *r) {
  if (r->pack) return 0;
  if (r->have_last && r->last_failed)
    return fail(r, "no layout in use (the last use failed: %s)", r->last_msg);
  return fail(r, "no layout in use (write `use NAME shape [..]` first)");
}

static int need_unpack(lt_run *r) {
  lay_error err;
  if (need_plan(r)) return -1;
  if (r->unpack) return 0;
  if (lay_plan_create(r->ctx, r->ref, r->shape, r->rank, r->dtype,
                      LAY_UNPACK, &r->unpack, &err) != LAY_OK)
    return fail(r, "cannot make the unpack plan: %s", err.message);
  return 0;
}

static int st_use(lt_run *r, const lg_tstmt *s) {
  lay_error err;
  plans_free(r);
  r->have_last = 1;
  r->last_failed = 0;
  r->last_msg[0] = '\0';
  if (!s->a || s->a->end < s->a->pos || s->a->end > r->src_len)
    return fail(r, "use: bad reference");
  size_t n = s->a->end - s->a->pos;
  r->ref = malloc(n + 1);
  if (!r->ref) return fail(r, "out of memory");
  memcpy(r->ref, r->src + s->a->pos, n);
  r->ref[n] = '\0';
  if (eval_ints(r, s->b, r->shape, LAY_MAX_RANK, &r->rank)) return -1;
  r->dtype = LAY_DT_NONE;
  if (s->c) {
    if (s->c->kind != LG_X_NAME) return fail(r, "use: expected a type name");
    r->dtype = lay_dtype_parse(s->c->u.str.s);
    if (r->dtype == LAY_DT_NONE) {
      r->last_failed = 1;
      snprintf(r->last_msg, sizeof r->last_msg, "unknown type '%s'",
               s->c->u.str.s);
      return 1;
    }
  }
  if (lay_plan_create(r->ctx, r->ref, r->shape, r->rank, r->dtype, LAY_PACK,
                      &r->pack, &err) != LAY_OK) {
    r->pack = NULL;
    r->last_failed = 1;
    snprintf(r->last_msg, sizeof r->last_msg, "%s", err.message);
    return 1;
  }
  return 0;
}

static int st_load(lt_run *r, const lg_tstmt *s) {
  lay_error err;
  char name[300];
  r->have_last = 1;
  r->last_failed = 0;
  r->last_msg[0] = '\0';
  if (!s->a || s->a->kind != LG_X_STR) return fail(r, "load: expected a string");
  lg_error_at(&err, LAY_OK, r->file, r->src, r->src_len, s->pos, "load");
  snprintf(name, sizeof name, "<load at %s:%d>", r->file, err.line);
  if (lay_ctx_load_string(r->ctx, name, s->a->u.str.s, s->a->u.str.n, &err) !=
      LAY_OK) {
    r->last_failed = 1;
    snprintf(r->last_msg, sizeof r->last_msg, "%s", err.message);
    return 1;
  }
  return 0;
}

static int st_error(lt_run *r, const lg_tstmt *s) {
  if (!s->b || s->b->kind != LG_X_STR)
    return fail(r, "error: expected a string");
  if (!r->have_last)
    return fail(r, "error == \"%s\": no use or load before it", s->b->u.str.s);
  if (!r->last_failed)
    return fail(r, "expected an error containing \"%s\", but it succeeded",
                s->b->u.str.s);
  if (!strstr(r->last_msg, s->b->u.str.s))
    return fail(r, "expected an error containing \"%s\", got \"%s\"",
                s->b->u.str.s, r->last_msg);
  return 0;
}

static int st_where(lt_run *r, const lg_tstmt *s) {
  int64_t c[LAY_MAX_RANK] = {0}, want = 0;
  int n = 0;
  uint64_t off = 0;
  lay_error err;
  char cs[256];
  if (need_plan(r) || eval_ints(r, s->a, c, LAY_MAX_RANK, &n) ||
      eval_int(r, s->b, &want))
    return -1;
  fmt_coord(cs, sizeof cs, c, n);
  if (lay_plan_where(r->pack, c, n, &off, &err) != LAY_OK)
    return fail(r, "where %s: %s", cs, err.message);
  if (want < 0 || off != (uint64_t)want)
    return fail(r, "where %s: expected %lld, got %llu", cs, (long long)want,
                (unsigned long long)off);
  return 0;
}

static int st_at(lt_run *r, const lg_tstmt *s) {
  int64_t off = 0, c[LAY_MAX_RANK], want[LAY_MAX_RANK] = {0};
  int n = 0, is_pad = 0, plane = 0, want_pad = 0;
  lay_error err;
  char got[300], ws[256];
  if (need_plan(r) || eval_int(r, s->a, &off)) return -1;
  if (s->b && s->b->kind == LG_X_NAME && strcmp(s->b->u.str.s, "pad") == 0)
    want_pad = 1;
  else if (eval_ints(r, s->b, want, LAY_MAX_RANK, &n))
    return -1;
  if (off < 0) return fail(r, "at %lld: negative offset", (long long)off);
  for (int i = 0; i < LAY_MAX_RANK; i++) c[i] = -1;
  if (lay_plan_at(r->pack, (uint64_t)off, c, LAY_MAX_RANK, &is_pad, &plane,
                  &err) != LAY_OK)
    return fail(r, "at %lld: %s", (long long)off, err.message);
  fmt_coord(got, sizeof got, c, r->rank);
  if (want_pad) {
    if (!is_pad)
      return fail(r, "at %lld: expected pad, got %s", (long long)off, got);
    return 0;
  }
  fmt_coord(ws, sizeof ws, want, n);
  if (is_pad)
    return fail(r, "at %lld: expected %s, got pad %s", (long long)off, ws,
                is_pad == 2 ? "(a stride hole)" : got);
  if (n != r->rank || memcmp(c, want, (size_t)n * sizeof *c) != 0)
    return fail(r, "at %lld: expected %s, got %s", (long long)off, ws, got);
  return 0;
}

static int st_order(lt_run *r, const lg_tstmt *s) {
  char why[512];
  if (need_plan(r)) return -1;
  if (!s->b || s->b->kind != LG_X_STR) return fail(r, "order: expected a string");
  why[0] = '\0';
  if (li_listing_match(r->pack, s->b->u.str.s, s->b->u.str.n, why,
                       sizeof why) != 0)
    return fail(r, "order: %s", why[0] ? why : "the listing differs");
  return 0;
}

/* pack / unpack: run `plan` on the input (default iota) and compare. */
static int st_run(lt_run *r, const lg_tstmt *s, lay_plan *plan,
                  const char *what) {
  unsigned char *in = NULL, *exp = NULL, *got = NULL;
  size_t inlen = 0, elen = 0;
  size_t sb = lay_plan_src_bytes(plan), db = lay_plan_dst_bytes(plan);
  lay_dtype st = lay_plan_src_dtype(plan), dt = lay_plan_dst_dtype(plan);
  lay_error err;
  int rc = -1;
  if (s->a) {
    if (data_bytes(r, s->a, st, &in, &inlen)) goto done;
    if (inlen != sb) {
      fail(r, "%s: the input has %zu bytes, the plan reads %zu", what, inlen,
           sb);
      goto done;
    }
  } else {
    size_t es = lay_dtype_size(st);
    if (es == 0) { fail(r, "%s: no element type", what); goto done; }
    in = malloc(sb ? sb : 1);
    if (!in) { fail(r, "out of memory"); goto done; }
    for (size_t i = 0; i + es <= sb; i += es) iota_elem(st, i / es, in + i);
    inlen = sb;
  }
  if (data_bytes(r, s->b, dt, &exp, &elen)) goto done;
  got = malloc(db ? db : 1);
  if (!got) { fail(r, "out of memory"); goto done; }
  memset(got, 0xa5, db);
  if (lay_plan_run(plan, in, inlen, got, db, 1, &err) != LAY_OK) {
    fail(r, "%s failed: %s", what, err.message);
    goto done;
  }
  rc = compare(r, "", exp, elen, got, db);
done:
  free(in);
  free(exp);
  free(got);
  return rc;
}

/* A deterministic pseudo-random generator (xorshift64*). */
static uint64_t rnd_next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545f4914f6cdd1dull;
}

/* Fill n elements of type t with pseudo-random values: any bit pattern for
** integers, multiples of 1/16 in [-62.5, 62.5] for floats. */
static void rnd_fill(lay_dtype t, unsigned char *p, size_t bytes) {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  size_t es = lay_dtype_size(t);
  for (size_t i = 0; i + es <= bytes; i += es) {
    uint64_t v = rnd_next(&s);
    if (t == LAY_DT_FP32 || t == LAY_DT_FP16 || t == LAY_DT_BF16) {
      float f = (float)((int64_t)(v % 2001) - 1000) / 16.0f;
      if (t == LAY_DT_FP32) {
        memcpy(p + i, &f, 4);
      } else {
        uint16_t h = t == LAY_DT_FP16 ? f32_to_f16(f) : f32_to_bf16(f);
        p[i] = (unsigned char)(h & 0xff);
        p[i + 1] = (unsigned char)(h >> 8);
      }
    } else {
      for (size_t k = 0; k < es; k++) p[i + k] = (unsigned char)(v >> (8 * k));
    }
  }
}

/* roundtrip: pack pseudo-random data, check that every element of the
** buffer is either reached by exactly its coordinate (at/where agree) or
** is padding holding the pad value, unpack, and compare with the input.
** When the value rule loses information (quantization, byte planes), the
** comparison is pack(unpack(pack(x))) == pack(x) instead. */
static int st_roundtrip(lt_run *r) {
  lg_ir *ir = NULL;
  lay_error err;
  unsigned char *x = NULL, *buf = NULL, *back = NULL, *buf2 = NULL;
  unsigned char padv[8];
  int rc = -1, exact;
  if (need_unpack(r)) return -1;
  size_t sb = lay_plan_src_bytes(r->pack), db = lay_plan_dst_bytes(r->pack);
  lay_dtype st = lay_plan_src_dtype(r->pack), ht = lay_plan_dst_dtype(r->pack);
  size_t hs = lay_dtype_size(ht);
  if (lg_instantiate(li_ctx_module(r->ctx), r->ref, &ir, &err) != LAY_OK)
    return fail(r, "roundtrip: %s", err.message);
  exact = ir->value.nplanes == 0 &&
          (ir->value.kind == LG_V_NONE ||
           (ir->value.kind == LG_V_CAST && st == ht));
  {
    lt_num pv = {1, 0, ir->value.pad_value};
    if (hs == 0 || hs > sizeof padv || put_elem(r, ht, pv, padv)) {
      fail(r, "roundtrip: cannot encode the pad value %g as %s",
           ir->value.pad_value, lay_dtype_name(ht));
      goto done;
    }
  }
  x = malloc(sb ? sb : 1);
  buf = malloc(db ? db : 1);
  back = malloc(sb ? sb : 1);
  if (!x || !buf || !back) { fail(r, "out of memory"); goto done; }
  rnd_fill(st, x, sb);
  memset(buf, 0xa5, db);
  if (lay_plan_run(r->pack, x, sb, buf, db, 1, &err) != LAY_OK) {
    fail(r, "roundtrip: pack failed: %s", err.message);
    goto done;
  }
  if (db / hs <= LT_MAX_CHECK) {
    for (uint64_t off = 0; off + hs <= db; off += hs) {
      int64_t c[LAY_MAX_RANK];
      int is_pad = 0, plane = 0;
      uint64_t back_off;
      char cs[256];
      if (lay_plan_at(r->pack, off, c, LAY_MAX_RANK, &is_pad, &plane,
                      &err) != LAY_OK) {
        fail(r, "roundtrip: at %llu: %s", (unsigned long long)off,
             err.message);
        goto done;
      }
      if (is_pad) {
        if (memcmp(buf + off, padv, hs) != 0) {
          fail(r, "roundtrip: byte %llu is padding but holds 0x%02x, not the "
               "pad value", (unsigned long long)off, buf[off]);
          goto done;
        }
        continue;
      }
      if (plane != 0) continue;
      fmt_coord(cs, sizeof cs, c, r->rank);
      if (lay_plan_where(r->pack, c, r->rank, &back_off, &err) != LAY_OK) {
        fail(r, "roundtrip: at %llu is %s, but where %s fails: %s",
             (unsigned long long)off, cs, cs, err.message);
        goto done;
      }
      if (back_off != off) {
        fail(r, "roundtrip: at %llu is %s, but where %s is %llu",
             (unsigned long long)off, cs, cs, (unsigned long long)back_off);
        goto done;
      }
    }
  }
  memset(back, 0x5a, sb);
  if (lay_plan_run(r->unpack, buf, db, back, sb, 1, &err) != LAY_OK) {
    fail(r, "roundtrip: unpack failed: %s", err.message);
    goto done;
  }
  if (exact) {
    rc = compare(r, "roundtrip: unpack(pack(x)) differs from x at ", x, sb,
                 back, sb);
    goto done;
  }
  buf2 = malloc(db ? db : 1);
  if (!buf2) { fail(r, "out of memory"); goto done; }
  if (lay_plan_run(r->pack, back, sb, buf2, db, 1, &err) != LAY_OK) {
    fail(r, "roundtrip: second pack failed: %s", err.message);
    goto done;
  }
  rc = compare(r, "roundtrip: pack(unpack(pack(x))) differs from pack(x) at ",
               buf, db, buf2, db);
done:
  lg_ir_free(ir);
  free(x);
  free(buf);
  free(back);
  free(buf2);
  return rc;
}

/* Run one statement: 0 ok, -1 failed (r->why says why), 1 a use/load
** failed (only an `error ==` may follow). */
static int run_stmt(lt_run *r, const lg_tstmt *s) {
  switch (s->kind) {
    case LG_T_USE: return st_use(r, s);
    case LG_T_LOAD: return st_load(r, s);
    case LG_T_ERROR: return st_error(r, s);
    case LG_T_WHERE: return st_where(r, s);
    case LG_T_AT: return st_at(r, s);
    case LG_T_ORDER: return st_order(r, s);
    case LG_T_PACK:
      if (need_plan(r)) return -1;
      return st_run(r, s, r->pack, "pack");
    case LG_T_UNPACK:
      if (need_unpack(r)) return -1;
      if (!s->a) return fail(r, "unpack: the input is missing");
      return st_run(r, s, r->unpack, "unpack");
    case LG_T_ROUNDTRIP: return st_roundtrip(r);
  }
  return fail(r, "unknown test statement");
}

/* Run one test block; 0 when it passed. On failure *pos is the failing
** statement's position. */
static int run_test(lt_run *r, const lg_test *t, uint32_t *pos) {
  int rc = 0;
  r->have_last = r->last_failed = 0;
  r->why[0] = '\0';
  for (int i = 0; i < t->n_stmts && rc == 0; i++) {
    const lg_tstmt *s = &t->stmts[i];
    *pos = s->pos;
    int k = run_stmt(r, s);
    if (k == 1) {
      if (i + 1 < t->n_stmts && t->stmts[i + 1].kind == LG_T_ERROR) continue;
      fail(r, "%s failed: %s", s->kind == LG_T_USE ? "use" : "load",
           r->last_msg);
      rc = -1;
    } else if (k < 0) {
      rc = -1;
    }
  }
  plans_free(r);
  return rc;
}

/* ---- Files ------------------------------------------------------------------ */

/* 1 when two paths name the same file. */
static int same_file(const char *a, const char *b) {
  char ra[PATH_MAX], rb[PATH_MAX];
  if (strcmp(a, b) == 0) return 1;
  if (!realpath(a, ra) || !realpath(b, rb)) return 0;
  return strcmp(ra, rb) == 0;
}

int li_test_files(lay_ctx *ctx, char **files, int nfiles,
                  void (*out)(void *ud, const char *line), void *ud,
                  int *passed, int *failed) {
  int np = 0, nf = 0;
  lg_module *m = li_ctx_module(ctx);
  for (int fi = 0; fi < nfiles; fi++) {
    lay_error err;
    size_t before = m ? lg_module_test_count(m) : 0;
    if (lay_ctx_load_file(ctx, files[fi], &err) != LAY_OK) {
      char buf[2048];
      lay_error_format(&err, buf, sizeof buf);
      emit_lines(out, ud, buf);
      nf++;
      continue;
    }
    if (!m) m = li_ctx_module(ctx);
    size_t after = m ? lg_module_test_count(m) : 0;
    for (size_t ti = before; ti < after; ti++) {
      lt_run r;
      const char *tfile = NULL;
      const lg_test *t;
      uint32_t pos = 0;
      memset(&r, 0, sizeof r);
      t = lg_module_test(m, ti, &tfile, &r.src, &r.src_len);
      if (!t || !tfile || !same_file(tfile, files[fi])) continue;
      r.ctx = ctx;
      r.file = tfile;
      pos = t->pos;
      if (run_test(&r, t, &pos) == 0) {
        np++;
        continue;
      }
      nf++;
      lg_error_at(&err, LAY_OK, r.file, r.src, r.src_len, pos, "%s", r.why);
      emitf(out, ud, "%s:%d:%d: test '%s' failed: %s", r.file, err.line,
            err.col, t->name.s ? t->name.s : "", r.why);
    }
  }
  emitf(out, ud, "%d passed, %d failed", np, nf);
  if (passed) *passed = np;
  if (failed) *failed = nf;
  return nf == 0 ? 0 : 1;
}
