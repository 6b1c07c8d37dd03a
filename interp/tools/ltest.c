/*
** ltest.c: the conformance-test runner behind `lay test FILE...`, and the
** static check of test blocks behind `lay check`.
**
** For each file named: load it into the context (a no-op when something
** loaded it already), then run every test block of that file, whoever
** loaded it, statement by statement:
**   use REF shape [..] [: T]   compile pack (and, when needed, unpack) plans
**   load "spec"                compile spec text into the context
**   error == "msg"             the use, load or order just before failed,
**                              and its whole message is msg
**   where [coord] == N         coordinate -> byte offset
**   where hw_shape == [..]     the layout's axes: extents [224, 1, ...] or
**                              names and extents "[h=224, c/4=1, ...]"
**   where bytes == N           the layout buffer's size in bytes
**   at N == [coord] | pad      byte offset -> coordinate, or padding;
**                              PLANE(coord) on a byte-plane layout
**   order == "listing"         memory order in the docs' notation
**   pack [IN] == EXPECTED      IN defaults to iota (element i holds i)
**   unpack IN == EXPECTED
**   roundtrip                  pack, check every pad, unpack, compare
** IN and EXPECTED are hex("00 01 ..."), file("path") (relative to the test
** file) or a list of numbers in the element type of that side. A test
** stops at its first failing statement, reported with the test's name and
** line, the statement's position and the first differing place.
**
** The static check (lay_tool_test_check) walks the same statements "dry": it
** compiles every use and load and checks every operand (types, literals,
** coordinate ranks and ranges, byte planes, listing syntax, data sizes)
** without running a plan or comparing a result, and reports each problem
** at the operand at fault.
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
#include "diag.h"
#include "lang.h"
#include "lay.h"
#include "lay_tools.h"
#include "lower.h"
#include "ltest_int.h"

/* ---- Statements ---------------------------------------------------------- */

static int need_plan(lt_run *r) {
  if (r->pack) return LT_OK;
  if (r->use_failed && r->dry) return LT_SKIP;
  if (r->use_failed)
    return lt_fail(r, "no layout in use (the last use failed: %s)", r->last_msg);
  return lt_fail(r, "no layout in use (write `use NAME shape [..]` first)");
}

static int need_unpack(lt_run *r) {
  lay_error err;
  int k = need_plan(r);
  if (k) return k;
  if (r->unpack) return LT_OK;
  if (lay_plan_create(r->ctx, r->ref, r->shape, r->rank, r->dtype,
                      LAY_UNPACK, &r->unpack, &err) != LAY_OK)
    return lt_fail(r, "cannot make the unpack plan: %s", err.message);
  return LT_OK;
}

static int st_use(lt_run *r, const lg_tstmt *s) {
  lay_error err;
  lt_plans_free(r);
  r->use_failed = 1;
  if (!s->a || s->a->end < s->a->pos || s->a->end > r->src_len)
    return lt_fail(r, "use: bad reference");
  size_t n = s->a->end - s->a->pos;
  r->ref = malloc(n + 1);
  if (!r->ref) return lt_fail(r, "out of memory");
  memcpy(r->ref, r->src + s->a->pos, n);
  r->ref[n] = '\0';
  if (lt_eval_ints(r, s->b, r->shape, LAY_MAX_RANK, &r->rank)) return LT_FAIL;
  r->dtype = LAY_DT_NONE;
  if (s->c) {
    char msg[300];
    if (s->c->kind != LG_X_NAME)
      return lt_fail_at(r, s->c->pos, "use: expected a type name");
    r->dtype = lay_dtype_parse(s->c->u.str.s);
    if (r->dtype == LAY_DT_NONE) {
      snprintf(msg, sizeof msg, "unknown type '%.200s'", s->c->u.str.s);
      return lt_erred(r, s->c->pos, msg);
    }
  }
  if (lay_plan_create(r->ctx, r->ref, r->shape, r->rank, r->dtype, LAY_PACK,
                      &r->pack, &err) != LAY_OK) {
    r->pack = NULL;
    uint32_t pos = err.code == LAY_E_SHAPE || err.code == LAY_E_OVERFLOW
                       ? s->b->pos
                   : err.code == LAY_E_TYPE && s->c ? s->c->pos
                                                    : s->a->pos;
    return lt_erred(r, pos, err.message);
  }
  r->use_failed = 0;
  return LT_OK;
}

/* Did an earlier run of this very `load` (same name, same text) define
** what it defines already? (The REPL may run a file's tests twice.) */
static int loaded_before(lt_run *r, const char *name, const lg_str *text) {
  lg_module *m = li_ctx_module(r->ctx);
  size_t n = lg_module_count(m);
  for (size_t i = 0; i < n; i++) {
    const lg_def *d = lg_module_find(m, lg_module_name(m, i), NULL);
    if (d && d->file && !strcmp(d->file, name) && d->src_len == text->n &&
        !memcmp(d->src, text->s, text->n))
      return 1;
  }
  return 0;
}

/* The source position of line:col of a loaded string literal e. */
static uint32_t load_pos(const lt_run *r, const lg_expr *e, int line,
                         int col) {
  const lg_str *s = &e->u.str;
  size_t k = 0;
  for (int l = 1; l < line && k < s->n; k++)
    if (s->s[k] == '\n') l++;
  if (col > 0) k += (size_t)col - 1;
  if (k > s->n) k = s->n;
  return lt_str_pos(r, e, k);
}

static int st_load(lt_run *r, const lg_tstmt *s) {
  lay_error err;
  char name[300];
  int line, col;
  if (!s->a || s->a->kind != LG_X_STR)
    return lt_fail(r, "load: expected a string");
  lg_linecol(r->src, r->src_len, s->pos, &line, &col);
  snprintf(name, sizeof name, "<load at %s:%d>", r->file, line);
  if (loaded_before(r, name, &s->a->u.str)) return LT_OK;
  if (lay_ctx_load_string(r->ctx, name, s->a->u.str.s, s->a->u.str.n, &err) !=
      LAY_OK)
    return lt_erred(r, err.line > 0 ? load_pos(r, s->a, err.line, err.col)
                                 : s->a->pos,
                 err.message);
  return LT_OK;
}

static int st_error(lt_run *r, const lg_tstmt *s) {
  static const char *const kw[] = {"use", "load", "order"};
  if (!s->b || s->b->kind != LG_X_STR)
    return lt_fail(r, "error: expected a string");
  const lg_tstmt *p = r->prev;
  if (!p || (p->kind != LG_T_USE && p->kind != LG_T_LOAD &&
             p->kind != LG_T_ORDER))
    return lt_fail_at(r, s->pos, "error == must follow a use, load or order "
                   "statement");
  if (r->dry) return LT_OK;
  if (!r->prev_erred)
    return lt_fail(r, "expected the error \"%s\", but the %s succeeded",
                s->b->u.str.s,
                kw[p->kind == LG_T_USE ? 0 : p->kind == LG_T_LOAD ? 1 : 2]);
  if (strcmp(r->last_msg, s->b->u.str.s) != 0)
    return lt_fail(r, "expected the error \"%s\", got \"%s\"", s->b->u.str.s,
                r->last_msg);
  return LT_OK;
}

/* A coordinate operand: [a, b, ..] or, where planes are allowed and the
** layout has them, PLANE(a, b, ..). Checks its rank and range; *plane is
** -1 when none is named. */
static int coord_operand(lt_run *r, const char *what, const lg_expr *e,
                         int planes_ok, int64_t *c, int *plane) {
  int n = 0;
  *plane = -1;
  if (e && e->kind == LG_X_CALL && planes_ok && e->u.call.fn &&
      e->u.call.fn->kind == LG_X_NAME) {
    const char *pn = e->u.call.fn->u.str.s;
    int np = lay_plan_plane_count(r->pack);
    for (int i = 0; i < np; i++)
      if (lay_plan_plane_name(r->pack, i) && !strcmp(lay_plan_plane_name(r->pack, i), pn))
        *plane = i;
    if (*plane < 0) {
      char names[128];
      size_t k = 0;
      names[0] = '\0';
      for (int i = 0; i < np && k < sizeof names; i++)
        k += (size_t)snprintf(names + k, sizeof names - k, "%s%s",
                              i ? ", " : "", lay_plan_plane_name(r->pack, i));
      if (!np)
        return lt_fail_at(r, e->pos, "%s: '%s(..)': the layout has no byte "
                       "planes", what, pn);
      return lt_fail_at(r, e->pos, "%s: '%s' is not a byte plane of the layout "
                     "(its planes: %s)", what, pn, names);
    }
    if (lt_eval_ints_of(r, &e->u.call.args, e->pos, c, LAY_MAX_RANK, &n))
      return LT_FAIL;
  } else if (!e || e->kind != LG_X_LIST) {
    return lt_fail_at(r, e ? e->pos : r->at, "%s: expected a coordinate [..]%s",
                   what, planes_ok ? ", PLANE(..) or pad" : "");
  } else if (lt_eval_ints(r, e, c, LAY_MAX_RANK, &n)) {
    return LT_FAIL;
  }
  if (n != r->rank)
    return lt_fail_at(r, e->pos, "%s: the coordinate has %d value%s, the layout "
                   "has %d dimension%s", what, n, n == 1 ? "" : "s", r->rank,
                   r->rank == 1 ? "" : "s");
  const lg_list *items = e->kind == LG_X_LIST ? &e->u.list : &e->u.call.args;
  for (int i = 0; i < n; i++)
    if (c[i] < 0 || c[i] >= r->shape[i])
      return lt_fail_at(r, items->v[i]->pos, "%s: value %lld is out of range "
                     "for dimension %d of extent %lld", what,
                     (long long)c[i], i, (long long)r->shape[i]);
  return LT_OK;
}

/* where hw_shape == [extents] | "[name=extent, ...]" */
static int st_hw_shape(lt_run *r, const lg_tstmt *s) {
  int64_t want[LAY_MAX_AXES], hw[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  char got[LAY_MAX_AXES * 40 + 4];
  int nw = 0;
  const lg_expr *e = s->b;
  if (e && e->kind == LG_X_LIST) {
    if (lt_eval_ints(r, e, want, LAY_MAX_AXES, &nw)) return LT_FAIL;
  } else if (!e || e->kind != LG_X_STR) {
    return lt_fail_at(r, e ? e->pos : s->pos, "where hw_shape: expected a list "
                   "of extents [..] or a string \"[name=extent, ...]\"");
  }
  if (r->dry) return LT_OK;
  int n = lay_plan_hw_shape(r->pack, hw, names, LAY_MAX_AXES);
  if (n > LAY_MAX_AXES) n = LAY_MAX_AXES;
  size_t k = 0;
  k += (size_t)snprintf(got + k, sizeof got - k, "[");
  for (int i = 0; i < n && k < sizeof got; i++)
    k += (size_t)snprintf(got + k, sizeof got - k, "%s%s=%lld", i ? ", " : "",
                          names[i] ? names[i] : "?", (long long)hw[i]);
  if (k < sizeof got) snprintf(got + k, sizeof got - k, "]");
  if (e->kind == LG_X_LIST) {
    int same = nw == n;
    for (int i = 0; same && i < n; i++) same = want[i] == hw[i];
    if (!same) {
      char ws[LAY_MAX_AXES * 24 + 4];
      size_t m = (size_t)snprintf(ws, sizeof ws, "[");
      for (int i = 0; i < nw && m < sizeof ws; i++)
        m += (size_t)snprintf(ws + m, sizeof ws - m, "%s%lld", i ? ", " : "",
                              (long long)want[i]);
      if (m < sizeof ws) snprintf(ws + m, sizeof ws - m, "]");
      return lt_fail(r, "where hw_shape: expected %s, got %s", ws, got);
    }
    return LT_OK;
  }
  /* The string form: blanks aside, the text of `lay info`, brackets
  ** optional. */
  char a[sizeof got], b[sizeof got];
  size_t na = 0, nb = 0;
  for (size_t i = 0; i < e->u.str.n && na + 1 < sizeof a; i++)
    if (e->u.str.s[i] != ' ' && e->u.str.s[i] != '\t') a[na++] = e->u.str.s[i];
  for (size_t i = 1; got[i + 1] && nb + 1 < sizeof b; i++)
    if (got[i] != ' ') b[nb++] = got[i];
  a[na] = b[nb] = '\0';
  const char *pa = a;
  if (na >= 2 && a[0] == '[' && a[na - 1] == ']') {
    a[na - 1] = '\0';
    pa = a + 1;
  }
  if (strcmp(pa, b) != 0)
    return lt_fail(r, "where hw_shape: expected \"%s\", got \"%s\"",
                e->u.str.s, got);
  return LT_OK;
}

static int st_where(lt_run *r, const lg_tstmt *s) {
  int64_t c[LAY_MAX_RANK] = {0}, want = 0;
  int plane = -1, k = need_plan(r);
  uint64_t off = 0;
  lay_error err;
  char cs[256];
  if (k) return k;
  if (s->a && s->a->kind == LG_X_NAME) {
    const char *what = s->a->u.str.s;
    if (!strcmp(what, "hw_shape")) return st_hw_shape(r, s);
    if (strcmp(what, "bytes") != 0)
      return lt_fail_at(r, s->a->pos, "where: expected a coordinate [..], "
                     "hw_shape or bytes, not '%s'", what);
    if (lt_eval_int(r, s->b, &want)) return LT_FAIL;
    if (r->dry) return LT_OK;
    size_t have = lay_plan_layout_bytes(r->pack);
    if (want < 0 || have != (uint64_t)want)
      return lt_fail(r, "where bytes: expected %lld, the layout buffer has %zu "
                  "bytes", (long long)want, have);
    return LT_OK;
  }
  if (coord_operand(r, "where", s->a, 0, c, &plane) || lt_eval_int(r, s->b, &want))
    return LT_FAIL;
  if (want < 0)
    return lt_fail_at(r, s->b->pos, "where: a byte offset is not negative");
  if (r->dry) return LT_OK;
  lt_fmt_coord(cs, sizeof cs, c, r->rank);
  if (lay_plan_where(r->pack, c, r->rank, &off, &err) != LAY_OK)
    return lt_fail(r, "where %s: %s", cs, err.message);
  if (off != (uint64_t)want)
    return lt_fail(r, "where %s: expected %lld, got %llu", cs, (long long)want,
                (unsigned long long)off);
  return LT_OK;
}

static int st_at(lt_run *r, const lg_tstmt *s) {
  int64_t off = 0, c[LAY_MAX_RANK], want[LAY_MAX_RANK] = {0};
  int is_pad = 0, plane = 0, want_plane = -1, want_pad = 0;
  int k = need_plan(r);
  lay_error err;
  char got[300], ws[300];
  if (k) return k;
  if (lt_eval_int(r, s->a, &off)) return LT_FAIL;
  size_t size = lay_plan_layout_bytes(r->pack);
  if (off < 0 || (uint64_t)off >= size)
    return lt_fail_at(r, s->a->pos, "at %lld: outside the layout buffer of %zu "
                   "bytes", (long long)off, size);
  if (s->b && s->b->kind == LG_X_NAME && strcmp(s->b->u.str.s, "pad") == 0)
    want_pad = 1;
  else if (coord_operand(r, "at", s->b, 1, want, &want_plane))
    return LT_FAIL;
  int planes = lay_plan_plane_count(r->pack);
  if (r->dry) {
    if (planes > 0 && !want_pad && want_plane < 0)
      return lt_fail_at(r, s->b->pos, "at %lld: the layout has byte planes: name "
                     "the plane, as in %s(..)", (long long)off,
                     lay_plan_plane_name(r->pack, 0));
    return LT_OK;
  }
  for (int i = 0; i < LAY_MAX_RANK; i++) c[i] = -1;
  if (lay_plan_at(r->pack, (uint64_t)off, c, LAY_MAX_RANK, &is_pad, &plane,
                  &err) != LAY_OK)
    return lt_fail(r, "at %lld: %s", (long long)off, err.message);
  if (is_pad == 2) snprintf(got, sizeof got, "a stride hole");
  else if (is_pad) {
    memcpy(got, "pad ", 4);
    lt_fmt_coord(got + 4, sizeof got - 4, c, r->rank);
  } else {
    lt_fmt_plane_coord(r->pack, plane, got, sizeof got, c, r->rank);
  }
  if (want_pad) {
    if (!is_pad) return lt_fail(r, "at %lld: expected pad, got %s", (long long)off,
                             got);
    return LT_OK;
  }
  if (planes > 0 && want_plane < 0)
    return lt_fail(r, "at %lld: the layout has byte planes: name the plane "
                "(it holds %s)", (long long)off, got);
  if (want_plane >= 0) lt_fmt_plane_coord(r->pack, want_plane, ws, sizeof ws,
                                       want, r->rank);
  else lt_fmt_coord(ws, sizeof ws, want, r->rank);
  if (is_pad || memcmp(c, want, (size_t)r->rank * sizeof *c) != 0 ||
      (want_plane >= 0 && plane != want_plane))
    return lt_fail(r, "at %lld: expected %s, got %s", (long long)off, ws, got);
  return LT_OK;
}

static int st_order(lt_run *r, const lg_tstmt *s) {
  char why[LT_WHY];
  size_t at = 0;
  int k = need_plan(r);
  if (k) return k;
  if (!s->b || s->b->kind != LG_X_STR)
    return lt_fail(r, "order: expected a string");
  why[0] = '\0';
  int rc = r->dry ? lay_tool_listing_check(r->pack, s->b->u.str.s, s->b->u.str.n,
                                     why, sizeof why, &at)
                  : lay_tool_listing_match(r->pack, s->b->u.str.s, s->b->u.str.n,
                                     why, sizeof why, &at);
  if (rc != 0)
    return lt_erred(r, lt_str_pos(r, s->b, at), why[0] ? why : "the listing differs");
  return LT_OK;
}

/* pack / unpack: run the plan on the input (default iota) and compare. */
static int st_run(lt_run *r, const lg_tstmt *s, int unpacking) {
  unsigned char *in = NULL, *exp = NULL, *got = NULL;
  size_t inlen = 0, elen = 0;
  const char *what = unpacking ? "unpack" : "pack";
  const char *in_side = unpacking ? "layout buffer" : "CPU-side tensor";
  const char *out_side = unpacking ? "CPU-side tensor" : "layout buffer";
  lay_plan *plan;
  lay_error err;
  char sa[128], sb_[128];
  int rc = unpacking ? need_unpack(r) : need_plan(r);
  if (rc) return rc;
  rc = LT_FAIL;
  plan = unpacking ? r->unpack : r->pack;
  size_t sb = lay_plan_src_bytes(plan), db = lay_plan_dst_bytes(plan);
  lay_dtype st = lay_plan_src_dtype(plan), dt = lay_plan_dst_dtype(plan);
  if (unpacking && !s->a) return lt_fail(r, "unpack: the input is missing");
  if (s->a) {
    if (lt_data_bytes(r, s->a, st, &in, &inlen)) goto done;
    if (inlen != sb) {
      lt_fmt_size(inlen, st, sa, sizeof sa);
      lt_fmt_size(sb, st, sb_, sizeof sb_);
      lt_fail_at(r, s->a->pos, "%s: the input (the %s) has %s, the plan reads %s",
              what, in_side, sa, sb_);
      goto done;
    }
  }
  if (lt_data_bytes(r, s->b, dt, &exp, &elen)) goto done;
  if (elen != db) {
    lt_fmt_size(elen, dt, sa, sizeof sa);
    lt_fmt_size(db, dt, sb_, sizeof sb_);
    lt_fail_at(r, s->b->pos, "%s: the expected %s has %s, the plan writes %s",
            what, out_side, sa, sb_);
    goto done;
  }
  if (r->dry) {
    rc = LT_OK;
    goto done;
  }
  if (!s->a) {
    size_t es = lay_dtype_size(st);
    if (es == 0) { lt_fail(r, "%s: no element type", what); goto done; }
    in = malloc(sb ? sb : 1);
    if (!in) { lt_fail(r, "out of memory"); goto done; }
    for (size_t i = 0; i + es <= sb; i += es) lt_iota_elem(st, i / es, in + i);
    if (lay_dtype_bits(st) == 4) /* element i holds i mod 16, two a byte */
      for (size_t i = 0; i < sb; i++)
        in[i] = (unsigned char)(((2 * i) & 0xf) | ((2 * i + 1) & 0xf) << 4);
    inlen = sb;
  }
  got = malloc(db ? db : 1);
  if (!got) { lt_fail(r, "out of memory"); goto done; }
  memset(got, 0xa5, db);
  if (lay_plan_run(plan, in, inlen, got, db, 1, &err) != LAY_OK) {
    lt_fail(r, "%s failed: %s", what, err.message);
    goto done;
  }
  rc = lt_compare(r, unpacking ? "unpack: " : "pack: ", !unpacking, dt, exp, got,
               db);
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
        uint16_t h = t == LAY_DT_FP16 ? lt_f32_to_f16(f) : lt_f32_to_bf16(f);
        p[i] = (unsigned char)(h & 0xff);
        p[i + 1] = (unsigned char)(h >> 8);
      }
    } else {
      for (size_t k = 0; k < es; k++) p[i + k] = (unsigned char)(v >> (8 * k));
    }
  }
}

/* Check that every element of the packed buffer `buf` is either reached by
** exactly its coordinate (at and where agree) or is padding holding the
** pad value `padv` (hs bytes; with byte planes, padv[k] is plane k's byte
** of the pad element). */
/* The stored value of pad element e of a transform whose pads hold
** several values (ir.h fix, runs in ascending offsets): 1 and *v when a
** run holds e, else 0 (the pad value). */
static int fix_value(const lg_ir *ir, int64_t e, double *v) {
  int64_t lo = 0, hi = ir->nfix;
  while (lo < hi) {
    int64_t m = lo + (hi - lo) / 2;
    if (ir->fix[3 * m] + ir->fix[3 * m + 1] <= e) lo = m + 1;
    else hi = m;
  }
  if (lo >= ir->nfix || ir->fix[3 * lo] > e) return 0;
  *v = ir->padv[ir->fix[3 * lo + 2]];
  return 1;
}

static int check_cover(lt_run *r, const unsigned char *buf, size_t db,
                       const unsigned char *padv, size_t hs, int planes,
                       const lg_ir *ir, lay_dtype ht) {
  lay_error err;
  if (db / hs > LT_MAX_CHECK) return 0;
  for (uint64_t off = 0; off + hs <= db; off += hs) {
    int64_t c[LAY_MAX_RANK];
    int is_pad = 0, plane = 0;
    uint64_t back_off;
    char cs[256];
    if (lay_plan_at(r->pack, off, c, LAY_MAX_RANK, &is_pad, &plane, &err) !=
        LAY_OK)
      return lt_fail(r, "roundtrip: at %llu: %s", (unsigned long long)off,
                  err.message);
    if (is_pad) {
      unsigned char fv[8];
      lt_num pv = {1, 0, 0};
      const unsigned char *want = padv;
      if (!planes && ir->nfix && hs <= sizeof fv &&
          fix_value(ir, (int64_t)(off / hs), &pv.f) &&
          !lt_put_elem(r, ht, pv, fv))
        want = fv; /* this pad's own value */
      if (planes ? buf[off] != padv[plane] : memcmp(buf + off, want, hs) != 0)
        return lt_fail(r, "roundtrip: byte %llu is padding but holds 0x%02x, "
                    "not the pad value", (unsigned long long)off, buf[off]);
      continue;
    }
    if (plane != 0) continue;
    lt_fmt_coord(cs, sizeof cs, c, r->rank);
    if (lay_plan_where(r->pack, c, r->rank, &back_off, &err) != LAY_OK)
      return lt_fail(r, "roundtrip: at %llu is %s, but where %s fails: %s",
                  (unsigned long long)off, cs, cs, err.message);
    if (back_off != off)
      return lt_fail(r, "roundtrip: at %llu is %s, but where %s is %llu",
                  (unsigned long long)off, cs, cs,
                  (unsigned long long)back_off);
  }
  return 0;
}

/* roundtrip: pack pseudo-random data, check the buffer's coverage and
** padding (check_cover), unpack, and compare with the input. When the
** value rule loses information (quantization, byte planes), the
** comparison is pack(unpack(pack(x))) == pack(x) instead. */
static int st_roundtrip(lt_run *r) {
  lg_ir *ir = NULL;
  lay_error err;
  unsigned char *x = NULL, *buf = NULL, *back = NULL, *buf2 = NULL;
  unsigned char padv[8];
  int rc = need_unpack(r), exact;
  if (rc || r->dry) return rc;
  rc = LT_FAIL;
  size_t sb = lay_plan_src_bytes(r->pack), db = lay_plan_dst_bytes(r->pack);
  lay_dtype st = lay_plan_src_dtype(r->pack), ht = lay_plan_dst_dtype(r->pack);
  size_t hs = lay_dtype_size(ht);
  if (lg_instantiate_for(li_ctx_module(r->ctx), r->ref, r->shape, r->rank,
                         r->dtype, &ir, &err) != LAY_OK)
    return lt_fail(r, "roundtrip: %s", err.message);
  exact = ir->value.nplanes == 0 &&
          (ir->value.kind == LG_V_NONE ||
           (ir->value.kind == LG_V_CAST && st == ht));
  {
    /* the pad element as stored: with byte planes, the pad value in the
    ** type whose bits the planes split, plane k its (u >> shift) & mask */
    const lg_ir_value *v = &ir->value;
    lay_dtype et = v->nplanes ? (v->hw != LAY_DT_NONE ? v->hw : st) : ht;
    size_t es = lay_dtype_size(et);
    lt_num pv = {1, 0, v->pad_value};
    if (v->pad_int && !v->nplanes) { /* written as an integer: exact */
      pv.isf = v->pad_int == 2 ? 2 : 0;
      pv.i = (int64_t)v->pad_bits;
    }
    if (es == 0 || es > sizeof padv || lt_put_elem(r, et, pv, padv)) {
      lt_fail(r, "roundtrip: cannot encode the pad value %g as %s", v->pad_value,
           lay_dtype_name(et));
      goto done;
    }
    if (v->nplanes) {
      uint32_t u = 0;
      for (size_t i = 0; i < es && i < 4; i++) u |= (uint32_t)padv[i] << (8 * i);
      for (int k = 0; k < v->nplanes && k < (int)sizeof padv; k++)
        padv[k] = (unsigned char)((u >> v->plane[k].shift) & v->plane[k].mask);
    }
  }
  x = malloc(sb ? sb : 1);
  buf = malloc(db ? db : 1);
  back = malloc(sb ? sb : 1);
  if (!x || !buf || !back) { lt_fail(r, "out of memory"); goto done; }
  rnd_fill(st, x, sb);
  memset(buf, 0xa5, db);
  if (lay_plan_run(r->pack, x, sb, buf, db, 1, &err) != LAY_OK) {
    lt_fail(r, "roundtrip: pack failed: %s", err.message);
    goto done;
  }
  if (check_cover(r, buf, db, padv, hs, ir->value.nplanes, ir, ht)) goto done;
  memset(back, 0x5a, sb);
  if (lay_plan_run(r->unpack, buf, db, back, sb, 1, &err) != LAY_OK) {
    lt_fail(r, "roundtrip: unpack failed: %s", err.message);
    goto done;
  }
  if (exact) {
    rc = lt_compare(r, "roundtrip: unpack(pack(x)) differs from x at ", 0, st, x,
                 back, sb);
    goto done;
  }
  buf2 = malloc(db ? db : 1);
  if (!buf2) { lt_fail(r, "out of memory"); goto done; }
  if (lay_plan_run(r->pack, back, sb, buf2, db, 1, &err) != LAY_OK) {
    lt_fail(r, "roundtrip: second pack failed: %s", err.message);
    goto done;
  }
  rc = lt_compare(r, "roundtrip: pack(unpack(pack(x))) differs from pack(x) at ",
               1, ht, buf, buf2, db);
done:
  lg_ir_free(ir);
  free(x);
  free(buf);
  free(back);
  free(buf2);
  return rc;
}

/* Run one statement (see the LT_ codes). */
static int run_stmt(lt_run *r, const lg_tstmt *s) {
  switch (s->kind) {
    case LG_T_USE: return st_use(r, s);
    case LG_T_LOAD: return st_load(r, s);
    case LG_T_ERROR: return st_error(r, s);
    case LG_T_WHERE: return st_where(r, s);
    case LG_T_AT: return st_at(r, s);
    case LG_T_ORDER: return st_order(r, s);
    case LG_T_PACK: return st_run(r, s, 0);
    case LG_T_UNPACK: return st_run(r, s, 1);
    case LG_T_ROUNDTRIP: return st_roundtrip(r);
  }
  return lt_fail(r, "unknown test statement");
}

/* Called with each failing statement (r->why says why, r->at where). */
typedef void (*lt_report)(lt_run *r, const lg_test *t, const lg_tstmt *s,
                          void *ud);

/* Run (or, dry, check) one test block; report each failure. A run stops
** at the first failure, a check goes on. Returns the number of failures. */
static int run_test(lt_run *r, const lg_test *t, lt_report report, void *ud) {
  int bad = 0;
  r->prev = NULL;
  r->prev_erred = r->use_failed = 0;
  for (int i = 0; i < t->n_stmts; i++) {
    const lg_tstmt *s = &t->stmts[i];
    r->at = s->pos;
    r->why[0] = '\0';
    int k = run_stmt(r, s);
    r->prev_erred = k == LT_ERRED;
    if (k == LT_ERRED &&
        !(i + 1 < t->n_stmts && t->stmts[i + 1].kind == LG_T_ERROR)) {
      lt_fail(r, "%s%s", s->kind == LG_T_USE    ? "use failed: "
                      : s->kind == LG_T_LOAD ? "load failed: "
                                             : "order: ",
           r->last_msg);
      k = LT_FAIL;
    }
    r->prev = s;
    if (k == LT_FAIL) {
      bad++;
      report(r, t, s, ud);
      if (!r->dry) break;
    }
  }
  lt_plans_free(r);
  return bad;
}

/* ---- Files --------------------------------------------------------------- */

/* Does the test file `tfile` (as the module names it) name the file whose
** real path is `real` (NULL: unknown, then `path` as given is compared)? */
static int same_file(const char *tfile, const char *real, const char *path) {
  if (!strcmp(tfile, path)) return 1;
  if (!real) return 0;
  char rt[PATH_MAX];
  return realpath(tfile, rt) && !strcmp(rt, real);
}

/* Was files[fi] named before, under this or another path? */
static int named_before(char **files, int fi, const char *real) {
  for (int j = 0; j < fi; j++)
    if (same_file(files[j], real, files[fi])) return 1;
  return 0;
}

/* Call fn for every test block of the file `path` in the module, whoever
** loaded it. Returns how many there were. */
static int each_test(lay_ctx *ctx, const char *path,
                     void (*fn)(lt_run *r, const lg_test *t, void *ud),
                     void *ud) {
  lg_module *m = li_ctx_module(ctx);
  char *real = realpath(path, NULL);
  size_t n = lg_module_test_count(m);
  const char *last = NULL;
  int is_same = 0, count = 0;
  for (size_t ti = 0; ti < n; ti++) {
    lt_run r;
    const char *tfile = NULL;
    memset(&r, 0, sizeof r);
    const lg_test *t = lg_module_test(m, ti, &tfile, &r.src, &r.src_len);
    if (!t || !tfile) continue;
    if (tfile != last) {
      last = tfile;
      is_same = same_file(tfile, real, path);
    }
    if (!is_same) continue;
    r.ctx = ctx;
    r.file = tfile;
    count++;
    fn(&r, t, ud);
  }
  free(real);
  return count;
}

/* The state of `lay test`: counts and the output. */
typedef struct lt_files {
  void (*out)(void *ud, const char *line);
  void *ud;
  int passed, failed;
} lt_files;

/* "FILE:L:C: test 'NAME' (line T) failed: WHY", at the failing statement. */
static void report_run(lt_run *r, const lg_test *t, const lg_tstmt *s,
                       void *ud) {
  lt_files *f = ud;
  int line, col, head, head_col;
  lg_linecol(r->src, r->src_len, s->pos, &line, &col);
  lg_linecol(r->src, r->src_len, t->pos, &head, &head_col);
  lt_emitf(f->out, f->ud, "%s:%d:%d: test '%s' (line %d) failed: %s", r->file,
        line, col, t->name.s ? t->name.s : "", head, r->why);
}

static void run_one(lt_run *r, const lg_test *t, void *ud) {
  lt_files *f = ud;
  if (run_test(r, t, report_run, ud) == 0) f->passed++;
  else f->failed++;
}

int lay_tool_test_files(lay_ctx *ctx, char **files, int nfiles,
                  void (*out)(void *ud, const char *line), void *ud,
                  int *passed, int *failed) {
  lt_files f = {out, ud, 0, 0};
  for (int fi = 0; fi < nfiles; fi++) {
    lay_error err;
    char *real = realpath(files[fi], NULL);
    int dup = named_before(files, fi, real);
    free(real);
    if (dup) continue;
    if (lay_ctx_load_file(ctx, files[fi], &err) != LAY_OK) {
      char buf[2048];
      lay_error_format(&err, buf, sizeof buf);
      lt_emit_lines(out, ud, buf);
      f.failed++;
      continue;
    }
    if (each_test(ctx, files[fi], run_one, &f) == 0) {
      lt_emitf(out, ud, "%s: error: no tests to run (the file has no test "
            "blocks)", files[fi]);
      f.failed++;
    }
  }
  lt_emitf(out, ud, "%d passed, %d failed", f.passed, f.failed);
  if (passed) *passed = f.passed;
  if (failed) *failed = f.failed;
  return f.failed == 0 ? 0 : 1;
}

/* ---- The static check ---------------------------------------------------- */

/* The state of `lay check` on one file. */
typedef struct lt_check {
  void (*report)(void *ud, const lay_error *err);
  void *ud;
  int problems;
} lt_check;

/* "FILE:L:C: error: test 'NAME': WHY" with the source line and a caret at
** the operand at fault. */
static void report_check(lt_run *r, const lg_test *t, const lg_tstmt *s,
                         void *ud) {
  lt_check *c = ud;
  lay_error err;
  (void)s;
  lg_error_at(&err, LAY_E_ARG, r->file, r->src, r->src_len, r->at,
              "test '%s': %s", t->name.s ? t->name.s : "", r->why);
  c->problems++;
  if (c->report) c->report(c->ud, &err);
}

static void check_one(lt_run *r, const lg_test *t, void *ud) {
  r->dry = 1;
  run_test(r, t, report_check, ud);
}

int lay_tool_test_check(lay_ctx *ctx, const char *file,
                  void (*report)(void *ud, const lay_error *err), void *ud) {
  lt_check c = {report, ud, 0};
  each_test(ctx, file, check_one, &c);
  return c.problems;
}
