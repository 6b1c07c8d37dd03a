/*
** lower.c: name resolution, static checks and lowering of layouts and
** transforms to the IR (see ir.h for the IR's meaning, lower.h for the
** interface, LANGUAGE.md for the language).
**
** The order of work for one instance:
**   1. bind the arguments to the parameters (positional, then named;
**      defaults see the earlier parameters and the dimension names and may
**      become size expressions);
**   2. aliases recurse into their target (guarded against cycles);
**   3. the clauses give the value rule and the byte planes;
**   4. each memory-order item is classified (dimension, digit, padded or
**      sliced dimension, ceil, unit, plane) and becomes an axis; the
**      digits of each dimension must chain;
**   5. with explicit strides, a definition being checked is enumerated at
**      a ladder of shapes, and must map no two elements to one offset
**      (an instance for a concrete shape is left to the planner's check);
**   6. transforms track the tensor as axes of source-dimension digits
**      through the chain; when the chain loses the affine structure the
**      IR is a full gather table instead.
** In partial mode (lg_check_def, the load-time check) missing arguments
** are "unknown" and the checks that need them are skipped; so are sizes
** that depend on the dimensions where an integer is needed. For a plan
** (lg_lower_for) the shape and type are known: dimension names are their
** sizes, `esize` the stored element's bytes, `...` the leading dimensions,
** and the `require` clauses are checked (lower_plan.c). Errors inside
** a template instantiated with arguments (`h8 = h(8)`, or a format
** reference) are reported at the outermost use (see lg_fail()).
**
** This file holds the errors, the definitions (layouts and aliases) and
** the entry points; lower_int.h lists the other lower_*.c files. The
** dependency order in lang/: module.c calls the lowering (lower.h) and
** passes it a lookup function for the names of aliases; the lowering
** never calls into module.c, so that it depends only on the AST, the IR
** and their helpers (ir, irutil, inject, padval, diag, types).
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "lower_int.h"

/* ---- Errors -------------------------------------------------------------- */

int lg_fail(lw *w, const srcref *sr, uint32_t pos, lay_status code,
            const char *fmt, ...) {
  if (w->st) return -1;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (w->esize_trial && w->esize_used) { /* the static check's esize */
    size_t n = strlen(msg);
    snprintf(msg + n, sizeof msg - n, " (with esize = %d)", w->esize);
  }
  w->st = code;
  if (w->use_set && code != LAY_E_NOMEM) {
    /* Inside a template: at the use, "REF: message (file:line:col)", the
    ** template's position left out when the error is in the use itself. A
    ** format reference has no position: its text is the error's "file",
    ** so that the CLI prints "lay: REF: message". */
    const srcref *u = &w->use_sr;
    char where[300] = "";
    if (sr && sr->src &&
        !(sr->src == u->src && pos >= w->use_pos && pos < w->use_end)) {
      int line, col;
      lg_linecol(sr->src, sr->len, pos, &line, &col);
      snprintf(where, sizeof where, " (%s:%d:%d)", sr->file, line, col);
    }
    if (w->use_plain)
      lg_error_plain(w->err, code, w->use_text, "%s%s", msg, where);
    else if (*where || !sr || !sr->src)
      lg_error_at(w->err, code, u->file, u->src, u->len, w->use_pos,
                  "%s: %s%s", w->use_text, msg, where);
    else
      lg_error_at(w->err, code, sr->file, sr->src, sr->len, pos, "%s", msg);
    return -1;
  }
  if (sr && sr->src)
    lg_error_at(w->err, code, sr->file, sr->src, sr->len, pos, "%s", msg);
  else
    lg_error_plain(w->err, code, sr ? sr->file : "", "%s", msg);
  return -1;
}

/* Record the outermost use of a template (see lw.use_set). */
static void set_use(lw *w, const srcref *sr, uint32_t pos, uint32_t end,
                    const char *text, int plain) {
  if (w->use_set) return;
  w->use_set = 1;
  w->use_sr = *sr;
  w->use_pos = pos;
  w->use_end = end;
  w->use_text = text;
  w->use_plain = plain;
}

int lg_nomem(lw *w) {
  return lg_fail(w, NULL, 0, LAY_E_NOMEM, "out of memory");
}

void *lg_walloc(lw *w, size_t n) {
  void *p = lg_arena_alloc(w->a, n);
  if (!p) lg_nomem(w);
  return p;
}

srcref lg_def_src(const lg_def *d) {
  srcref s = {d->file, d->src, d->src_len};
  return s;
}

/* The span of e widened to the parentheses its operands were written in:
** `(c/16) ^ (r%8)` spans `c/16) ^ (r%8` in the tree. */
static void paren_span(const srcref *sr, const lg_expr *e, size_t *lo,
                       size_t *hi) {
  int open = 0, unopened = 0;
  *lo = e->pos;
  *hi = e->end;
  for (size_t i = *lo; i < *hi; i++) {
    char c = sr->src[i];
    if (c == '(') open++;
    else if (c == ')' && open) open--;
    else if (c == ')') unopened++;
  }
  for (; unopened > 0 && *lo > 0; (*lo)--)
    if (sr->src[*lo - 1] == '(') unopened--;
  for (; open > 0 && *hi < sr->len; (*hi)++)
    if (sr->src[*hi] == ')') open--;
}

/* The source text of e, blanks squeezed out (for messages), at most 60
** characters. */
const char *lg_etext(lw *w, const srcref *sr, const lg_expr *e) {
  static const char none[] = "?";
  if (!e || !sr->src || e->end <= e->pos || e->end > sr->len) return none;
  size_t lo, hi;
  paren_span(sr, e, &lo, &hi);
  size_t n = hi - lo;
  if (n > 60) n = 60;
  char *s = lg_arena_alloc(w->a, n + 1);
  if (!s) return none;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = sr->src[lo + i];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') s[k++] = c;
  }
  s[k] = '\0';
  return s;
}

void lg_fmt_list(char *buf, size_t cap, const int64_t *v, int n) {
  size_t k = 0;
  k += (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)v[i]);
  if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* ---- Definitions ----------------------------------------------------------- */

static int lower_def(lw *w, const lg_def *def, const lg_list *args,
                     const env *caller, uint32_t call_pos, lg_ir *ir);

static int lower_layout(lw *w, const lg_def *def, const lg_list *args,
                        const env *caller, uint32_t call_pos, lg_ir *ir) {
  const lg_layout *L = def->layout;
  srcref sr = lg_def_src(def);
  int tile = lg_is_tile(L);
  w->tile_rank = 0;
  if (tile && !w->shape_rank) { /* what `...` stands for without a shape */
    if (lg_tile_need(w, def, args, caller, call_pos, &w->tile_rank))
      return -1;
    if (w->tile_rank < 0) return 0; /* lists not known: checked later */
  }
  if (lg_expand_ellipsis(w, &sr, def->layout, &L)) return -1;
  if (lg_set_dims(w, &sr, ir, &L->dims)) return -1;
  param ps[LW_MAX_PARAMS];
  int np = 0;
  if (lg_bind(w, def, L, args, caller, call_pos, ps, &np)) return -1;
  const char *dims[LG_MAX_RANK];
  for (int i = 0; i < ir->rank; i++) dims[i] = ir->dim[i].name;
  env en = {sr, ps, np, np, -1, dims, ir->rank};
  if (lg_requires(w, &en, L)) return -1;
  if (w->req_false) return 0; /* a requirement excludes this esize */
  ir->value.axis = -1;
  ir->value.saturate = 1;
  if (L->dtype) {
    ir->value.cpu = lay_dtype_parse(L->dtype->u.str.s);
    if (ir->value.cpu == LAY_DT_NONE)
      return lg_fail(w, &sr, L->dtype->pos, LAY_E_TYPE, "unknown type '%s'%s",
                     L->dtype->u.str.s, lg_hint_type(w, L->dtype->u.str.s));
  }
  const char *plane = NULL;
  const lg_clause *padc = NULL;
  if (lg_value_clauses(w, &en, L, ir, &plane, &padc)) return -1;
  if (lg_finish_value(w, &sr, padc, ir)) return -1;
  if (L->chunked) {
    if (plane)
      return lg_fail(w, &sr, L->order_pos, LAY_E_LAYOUT,
                     "plane '%s' is missing from the memory order", plane);
    return lg_lower_chunked(w, &sr, L->chunked, ir);
  }
  if (tile) {
    if (lg_expand_tile(w, &en, L, &L)) return -1;
    if (!L) return 0; /* lists not known: checked when instantiated */
  }
  int rc = lg_lower_order(w, &en, L, ir, plane);
  if (rc < 0) return -1;
  /* The shape ladder runs when a definition is checked (it must hold for
  ** every shape); an instance is planned for one concrete shape, where
  ** the planner checks the offsets itself. */
  if (rc == 1 && w->partial) {
    int64_t chunk[LG_MAX_RANK];
    for (int d = 0; d < ir->rank; d++) {
      chunk[d] = 1;
      for (int i = 0; i < ir->naxes; i++) {
        const lg_ir_axis *a = &ir->axis[i];
        if (a->kind == LG_AX_DIGIT && a->dim == d && a->mod &&
            a->div * a->mod > chunk[d])
          chunk[d] = a->div * a->mod;
      }
    }
    if (lg_check_bijection(w, &sr, L, ir, chunk)) return -1;
  }
  return 0;
}

static int lower_alias(lw *w, const lg_def *def, const lg_list *args,
                       const env *caller, uint32_t call_pos, lg_ir *ir) {
  const lg_layout *L = def->layout;
  const lg_expr *t = L->alias;
  srcref sr = lg_def_src(def);
  int nargs = args ? args->n : 0;
  if (t->kind == LG_X_CHUNKED) {
    if (nargs)
      return lg_fail(w, &caller->sr, args->v[0]->pos, LAY_E_ARG,
                     "'%s' takes no arguments", def->qname);
    ir->value.axis = -1;
    ir->value.saturate = 1;
    return lg_lower_chunked(w, &sr, t, ir);
  }
  const lg_expr *name = t->kind == LG_X_CALL ? t->u.call.fn : t;
  const lg_def *target = w->defs->find(w->defs->ud, name->u.str.s, def->ns);
  if (!target)
    return lg_fail(w, &sr, name->pos, LAY_E_NAME, "unknown layout '%s'",
                   name->u.str.s);
  if (t->kind == LG_X_CALL && nargs)
    return lg_fail(w, &caller->sr, args->v[0]->pos, LAY_E_ARG,
                   "'%s' takes no arguments", def->qname);
  /* A bare alias passes its caller's arguments on. */
  const char *dims[LG_MAX_RANK];
  int rank = 0;
  if (target->layout && !target->layout->alias) {
    srcref tsr = lg_def_src(target);
    if (lg_layout_dims(w, &tsr, target->layout, dims, &rank)) return -1;
  }
  if (t->kind == LG_X_NAME)
    return lower_def(w, target, args, caller, call_pos, ir);
  env en = {sr, NULL, 0, 0, -1, dims, rank};
  set_use(w, &sr, t->pos, t->end, lg_etext(w, &sr, t), 0);
  return lower_def(w, target, &t->u.call.args, &en, t->pos, ir);
}

static int lower_def(lw *w, const lg_def *def, const lg_list *args,
                     const env *caller, uint32_t call_pos, lg_ir *ir) {
  for (int i = 0; i < w->depth; i++) {
    if (w->stack[i] != def) continue;
    char chain[400];
    size_t n = 0;
    for (int j = i; j < w->depth && n < sizeof chain; j++)
      n += (size_t)snprintf(chain + n, sizeof chain - n, "%s -> ",
                            w->stack[j]->qname);
    if (n < sizeof chain)
      snprintf(chain + n, sizeof chain - n, "%s", def->qname);
    const lg_def *last = w->stack[w->depth - 1];
    srcref sr = lg_def_src(last);
    return lg_fail(w, &sr, last->layout ? last->layout->order_pos : 0,
                   LAY_E_NAME, "alias cycle: %s", chain);
  }
  if (w->depth >= LW_MAX_ALIAS) {
    srcref sr = lg_def_src(def);
    return lg_fail(w, &sr, 0, LAY_E_LIMIT, "aliases nested deeper than %d",
                   LW_MAX_ALIAS);
  }
  w->stack[w->depth++] = def;
  int rc;
  if (def->transform) {
    if (args && args->n)
      rc = lg_fail(w, &caller->sr, args->v[0]->pos, LAY_E_ARG,
                   "transform '%s' takes no arguments", def->qname);
    else
      rc = lg_lower_transform(w, def, ir);
  } else if (def->layout->alias) {
    rc = lower_alias(w, def, args, caller, call_pos, ir);
  } else {
    rc = lower_layout(w, def, args, caller, call_pos, ir);
  }
  w->depth--;
  return rc;
}

/* ---- Entry points ----------------------------------------------------------- */

/* What one lowering is for: a plan's shape and type (lg_lower_for), and
** the esize and `...` a static check tries; what it used (out). */
typedef struct run_for {
  const int64_t *shape; /* NULL: no shape */
  int rank;
  lay_dtype dtype;
  int esize;            /* 0: from the layout or dtype */
  int extra;            /* `...` without a shape */
  int esize_used, ell_used, req_false; /* out */
} run_for;

static lay_status run(const lg_defs *defs, const lg_def *def,
                      const lg_list *args, const char *ref_text, int partial,
                      run_for *rf, lg_ir **out, lay_error *err) {
  if (out) *out = NULL;
  lw w;
  memset(&w, 0, sizeof w);
  w.defs = defs;
  w.err = err;
  w.partial = partial;
  w.shape = rf->shape;
  w.shape_rank = rf->rank;
  w.dtype = rf->dtype;
  w.ell_extra = rf->extra;
  w.esize = rf->esize ? rf->esize : lg_def_esize(&w, def);
  w.esize_trial = rf->esize != 0;
  if (!w.esize) w.esize = 1; /* an open type plans as int8 */
  w.a = lg_arena_new();
  if (!w.a) {
    lg_error_plain(err, LAY_E_NOMEM, "", "out of memory");
    return LAY_E_NOMEM;
  }
  lg_ir *ir = lg_arena_alloc(w.a, sizeof *ir);
  if (!ir) {
    lg_arena_free(w.a);
    lg_error_plain(err, LAY_E_NOMEM, "", "out of memory");
    return LAY_E_NOMEM;
  }
  ir->arena = w.a;
  ir->name = lg_arena_printf(w.a, "%s", ref_text ? ref_text : def->qname);
  ir->value.axis = -1;
  ir->value.saturate = 1;
  /* Arguments of a reference are evaluated in its own text, where the
  ** target's dimension names mean their sizes. */
  env caller = {{"<format>", ref_text, ref_text ? strlen(ref_text) : 0},
                NULL, 0, 0, -1, NULL, 0};
  const char *dims[LG_MAX_RANK];
  if (ref_text)
    set_use(&w, &caller.sr, 0, (uint32_t)caller.sr.len, ref_text, 1);
  if (def->layout && !def->layout->alias) {
    int r = 0;
    srcref dsr = lg_def_src(def);
    lg_layout_dims(&w, &dsr, def->layout, dims, &r);
    caller.dims = dims;
    caller.rank = r;
  }
  if (!w.st && !ir->name) lg_nomem(&w);
  else if (!w.st) lower_def(&w, def, args, &caller, 0, ir);
  rf->esize_used = w.esize_used;
  rf->ell_used = w.ell_used;
  rf->req_false = w.req_false;
  if (w.st) {
    lg_arena_free(w.a);
    return w.st;
  }
  if (out) *out = ir;
  else lg_arena_free(w.a);
  return LAY_OK;
}

lay_status lg_lower(const lg_defs *defs, const lg_def *def,
                    const lg_list *args, const char *ref_text, lg_ir **out,
                    lay_error *err) {
  if (!defs || !defs->find || !def || !out) {
    lg_error_plain(err, LAY_E_ARG, "", "no module, definition or output");
    return LAY_E_ARG;
  }
  run_for rf;
  memset(&rf, 0, sizeof rf);
  return run(defs, def, args, ref_text, 0, &rf, out, err);
}

lay_status lg_lower_for(const lg_defs *defs, const lg_def *def,
                        const lg_list *args, const char *ref_text,
                        const int64_t *shape, int rank, lay_dtype dtype,
                        lg_ir **out, lay_error *err) {
  if (!defs || !defs->find || !def || !out) {
    lg_error_plain(err, LAY_E_ARG, "", "no module, definition or output");
    return LAY_E_ARG;
  }
  run_for rf;
  memset(&rf, 0, sizeof rf);
  if (rank >= 1 && rank <= LG_MAX_RANK) { /* without a shape: for `...` */
    rf.shape = shape;
    rf.rank = rank;
  }
  rf.dtype = dtype;
  return run(defs, def, args, ref_text, 0, &rf, out, err);
}

lay_status lg_check_def(const lg_defs *defs, const lg_def *def,
                        lay_error *err) {
  if (!defs || !defs->find || !def) {
    lg_error_plain(err, LAY_E_ARG, "", "no module or definition");
    return LAY_E_ARG;
  }
  /* A layout whose sizes use esize is checked for each element size its
  ** type allows (every size lay has when the type is open); one with
  ** `...` with no and with one leading dimension. */
  static const int sizes[] = {1, 2, 4, 8};
  run_for rf;
  memset(&rf, 0, sizeof rf);
  lay_status st = run(defs, def, NULL, NULL, 1, &rf, NULL, err);
  int esized = rf.esize_used, ell = rf.ell_used;
  lw probe;
  memset(&probe, 0, sizeof probe);
  probe.defs = defs;
  int fixed = lg_def_esize(&probe, def);
  for (int e = 0; !st && esized && !fixed && e < 4; e++) {
    for (int x = 0; !st && x <= ell; x++) {
      memset(&rf, 0, sizeof rf);
      rf.esize = sizes[e];
      rf.extra = x;
      st = run(defs, def, NULL, NULL, 1, &rf, NULL, err);
    }
  }
  for (int x = 1; !st && ell && (!esized || fixed) && x <= 1; x++) {
    memset(&rf, 0, sizeof rf);
    rf.extra = x;
    st = run(defs, def, NULL, NULL, 1, &rf, NULL, err);
  }
  return st;
}
