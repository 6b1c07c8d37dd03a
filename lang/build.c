/*
** build.c: the AST builders the grammar's actions call (see build.h).
** Every node is allocated in the parse's arena and carries byte offsets
** into the source. The first error is recorded in the parse context; after
** it every builder returns NULL without doing anything.
*/
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "diag.h"

void lg_b_error(lg_parse *p, lay_status code, uint32_t pos, const char *fmt,
                ...) {
  if (p->status) return;
  p->status = code;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lg_error_at(p->err, code, p->file, p->src, p->len, pos, "%s", msg);
}

/* Arena allocation that records out-of-memory. */
static void *alloc(lg_parse *p, size_t n) {
  void *v = lg_arena_alloc(p->a, n);
  if (!v) lg_b_error(p, LAY_E_NOMEM, 0, "out of memory");
  return v;
}

/* Grow an arena array of `size`-byte slots holding *n of *cap to fit one
** more. Returns the (possibly moved) array, or NULL on error. */
static void *grow(lg_parse *p, void *v, int n, int *cap, size_t size) {
  if (n < *cap) return v;
  if (*cap > (1 << 28)) {
    lg_b_error(p, LAY_E_LIMIT, p->tok_pos, "too many items");
    return NULL;
  }
  int ncap = *cap ? *cap * 2 : 4;
  void *nv = alloc(p, (size_t)ncap * size);
  if (!nv) return NULL;
  if (n) memcpy(nv, v, (size_t)n * size);
  *cap = ncap;
  return nv;
}

/* A copy of a token's text as an lg_str. */
static lg_str tok_str(lg_parse *p, lg_token t) {
  lg_str s = {NULL, t.len};
  s.s = lg_arena_strndup(p->a, p->src + t.off, t.len);
  if (!s.s) lg_b_error(p, LAY_E_NOMEM, t.off, "out of memory");
  return s;
}

/* A new node spanning [pos, end) with the given nesting. */
static lg_expr *node(lg_parse *p, lg_expr_kind kind, uint32_t pos,
                     uint32_t end, int depth) {
  if (p->status) return NULL;
  if (depth > LG_MAX_DEPTH) {
    /* An operator's depth counts the operators on its deepest path: a flat
    ** chain a + b + c + ... nests one level per operator. */
    if (kind == LG_X_BINARY || kind == LG_X_UNARY)
      lg_b_error(p, LAY_E_LIMIT, pos,
                 "more than %d operators nested in one expression (each "
                 "operator of a chain a + b + ... is one level)",
                 LG_MAX_DEPTH);
    else
      lg_b_error(p, LAY_E_LIMIT, pos, "nesting deeper than %d levels",
                 LG_MAX_DEPTH);
    return NULL;
  }
  lg_expr *e = alloc(p, sizeof *e);
  if (!e) return NULL;
  e->kind = kind;
  e->pos = pos;
  e->end = end;
  e->depth = depth;
  return e;
}

static int max_depth(const lg_list *l) {
  int d = 0;
  for (int i = 0; l && i < l->n; i++)
    if (l->v[i]->depth > d) d = l->v[i]->depth;
  return d;
}

/* ---- Expressions --------------------------------------------------------- */

lg_expr *lg_b_int(lg_parse *p, lg_token t) {
  lg_expr *e = node(p, LG_X_INT, t.off, t.off + t.len, 0);
  int64_t v = 0;
  int rc = e ? lg_lex_int(p->src + t.off, t.len, &v) : 0;
  if (rc < 0) {
    lg_b_error(p, LAY_E_SYNTAX, t.off, "integer too large");
    return NULL;
  }
  if (e && rc == 1) { /* past INT64_MAX (a uint64 value): a number, whose
                      ** exact value a pad_value reads from its text */
    e->kind = LG_X_FLOAT;
    e->u.f = (double)(uint64_t)v;
  } else if (e) {
    e->u.i = v;
  }
  return e;
}

lg_expr *lg_b_float(lg_parse *p, lg_token t) {
  lg_expr *e = node(p, LG_X_FLOAT, t.off, t.off + t.len, 0);
  if (!e) return NULL;
  char *s = lg_arena_strndup(p->a, p->src + t.off, t.len);
  if (!s) {
    lg_b_error(p, LAY_E_NOMEM, t.off, "out of memory");
    return NULL;
  }
  errno = 0;
  e->u.f = strtod(s, NULL);
  if (!isfinite(e->u.f)) {
    lg_b_error(p, LAY_E_SYNTAX, t.off, "number out of range");
    return NULL;
  }
  return e;
}

/* Decode a string token (quotes included) into an lg_str. */
static int decode_string(lg_parse *p, lg_token t, lg_str *out) {
  const char *z = p->src + t.off + 1;
  size_t n = t.len - 2, k = 0;
  char *s = lg_arena_alloc(p->a, n + 1);
  if (!s) {
    lg_b_error(p, LAY_E_NOMEM, t.off, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < n; i++) {
    char c = z[i];
    if (c == '\\') {
      c = z[++i];
      switch (c) {
      case '"': case '\\': break;
      case 'n': c = '\n'; break;
      case 't': c = '\t'; break;
      default: {
        unsigned char u = (unsigned char)c;
        uint32_t at = t.off + 1 + (uint32_t)i - 1;
        if (u >= 0x20 && u < 0x7f)
          lg_b_error(p, LAY_E_SYNTAX, at, "unknown escape '\\%c'", c);
        else
          lg_b_error(p, LAY_E_SYNTAX, at, "unknown escape '\\x%02x'", u);
        return -1;
      }
      }
    }
    s[k++] = c;
  }
  s[k] = '\0';
  out->s = s;
  out->n = k;
  return 0;
}

lg_expr *lg_b_string(lg_parse *p, lg_token t) {
  lg_expr *e = node(p, LG_X_STR, t.off, t.off + t.len, 0);
  if (e && decode_string(p, t, &e->u.str)) return NULL;
  return e;
}

lg_expr *lg_b_name(lg_parse *p, lg_token t) {
  lg_expr *e = node(p, LG_X_NAME, t.off, t.off + t.len, 0);
  if (e) e->u.str = tok_str(p, t);
  return p->status ? NULL : e;
}

lg_expr *lg_b_type(lg_parse *p, lg_token name) { return lg_b_name(p, name); }

lg_expr *lg_b_list(lg_parse *p, lg_token open, lg_list *items,
                   lg_token close) {
  lg_expr *e = node(p, LG_X_LIST, open.off, close.off + close.len,
                    1 + max_depth(items));
  if (e && items) e->u.list = *items;
  return e;
}

lg_expr *lg_b_unary(lg_parse *p, lg_token op, lg_expr *a) {
  if (p->status || !a) return NULL;
  /* A negative literal folds into the literal. */
  if (op.len == 1 && p->src[op.off] == '-' &&
      (a->kind == LG_X_INT || a->kind == LG_X_FLOAT)) {
    if (a->kind == LG_X_INT) a->u.i = -a->u.i;
    else a->u.f = -a->u.f;
    a->pos = op.off;
    return a;
  }
  lg_expr *e = node(p, LG_X_UNARY, op.off, a->end, a->depth + 1);
  if (!e) return NULL;
  e->u.op.op = p->src[op.off] == '-' ? LG_OP_NEG : LG_OP_NOT;
  e->u.op.a = a;
  return e;
}

lg_expr *lg_b_binary(lg_parse *p, lg_expr *a, lg_op op, lg_expr *b) {
  if (p->status || !a || !b) return NULL;
  int d = a->depth > b->depth ? a->depth : b->depth;
  lg_expr *e = node(p, LG_X_BINARY, a->pos, b->end, d + 1);
  if (!e) return NULL;
  e->u.op.op = op;
  e->u.op.a = a;
  e->u.op.b = b;
  return e;
}

lg_expr *lg_b_call(lg_parse *p, lg_token name, lg_list *args,
                   lg_token close) {
  lg_expr *fn = lg_b_name(p, name);
  if (!fn) return NULL;
  lg_expr *e = node(p, LG_X_CALL, name.off, close.off + close.len,
                    1 + max_depth(args));
  if (!e) return NULL;
  e->u.call.fn = fn;
  if (args) e->u.call.args = *args;
  return e;
}

lg_expr *lg_b_slice(lg_parse *p, lg_expr *base, lg_expr *lo, lg_expr *hi,
                    lg_token close) {
  if (p->status || !base) return NULL;
  int d = base->depth;
  if (lo && lo->depth > d) d = lo->depth;
  if (hi && hi->depth > d) d = hi->depth;
  lg_expr *e = node(p, LG_X_SLICE, base->pos, close.off + close.len, d + 1);
  if (!e) return NULL;
  e->u.slice.base = base;
  e->u.slice.lo = lo;
  e->u.slice.hi = hi;
  return e;
}

lg_expr *lg_b_named(lg_parse *p, lg_token name, lg_expr *value) {
  if (p->status || !value) return NULL;
  lg_expr *e = node(p, LG_X_NAMED, name.off, value->end, value->depth + 1);
  if (!e) return NULL;
  e->u.named.name = tok_str(p, name);
  e->u.named.value = value;
  return p->status ? NULL : e;
}

lg_expr *lg_b_paren(lg_parse *p, lg_token open, lg_expr *e, lg_token close) {
  (void)open;
  (void)close;
  return p->status ? NULL : e;
}

lg_expr *lg_b_chunked(lg_parse *p, lg_token kw, lg_list *ints,
                      lg_token close) {
  if (p->status || !ints) return NULL;
  int flat = p->src[kw.off] == 'F';
  if (flat && ints->n != 1) {
    lg_b_error(p, LAY_E_SYNTAX, ints->v[1]->pos,
               "FlatMemoryLayout takes only the rank");
    return NULL;
  }
  if (!flat && ints->n % 2 == 0) {
    lg_b_error(p, LAY_E_SYNTAX, close.off,
               "'%.*s' needs the rank, then pairs of dimension and size",
               (int)kw.len, p->src + kw.off);
    return NULL;
  }
  lg_expr *e = node(p, LG_X_CHUNKED, kw.off, close.off + close.len, 1);
  if (!e) return NULL;
  e->u.chunked.flat = flat;
  e->u.chunked.n = ints->n;
  e->u.chunked.v = alloc(p, sizeof(int64_t) * (size_t)ints->n);
  e->u.chunked.vpos = alloc(p, sizeof(uint32_t) * (size_t)ints->n);
  if (p->status) return NULL;
  for (int i = 0; i < ints->n; i++) {
    e->u.chunked.v[i] = ints->v[i]->u.i;
    e->u.chunked.vpos[i] = ints->v[i]->pos;
  }
  return e;
}

lg_list *lg_b_list_new(lg_parse *p, lg_expr *first) {
  if (p->status) return NULL;
  lg_list *l = alloc(p, sizeof *l);
  if (l && first) return lg_b_list_add(p, l, first);
  return l;
}

lg_list *lg_b_list_add(lg_parse *p, lg_list *l, lg_expr *e) {
  if (p->status || !l || !e) return NULL;
  l->v = grow(p, l->v, l->n, &l->cap, sizeof *l->v);
  if (!l->v) return NULL;
  l->v[l->n++] = e;
  return l;
}

/* ---- Layouts --------------------------------------------------------------- */

lg_item *lg_b_item(lg_parse *p, lg_expr *e) {
  if (p->status || !e) return NULL;
  lg_item *it = alloc(p, sizeof *it);
  if (it) it->e = e;
  return it;
}

lg_item *lg_b_item_stride(lg_parse *p, lg_item *it, lg_token at,
                          lg_expr *s) {
  if (p->status || !it || !s) return NULL;
  if (it->stride) {
    lg_b_error(p, LAY_E_SYNTAX, at.off, "duplicate '@' stride");
    return NULL;
  }
  it->stride = s;
  return it;
}

lg_item *lg_b_item_align(lg_parse *p, lg_item *it, lg_token kw, lg_expr *a) {
  if (p->status || !it || !a) return NULL;
  if (it->align) {
    lg_b_error(p, LAY_E_SYNTAX, kw.off, "duplicate 'align'");
    return NULL;
  }
  it->align = a;
  return it;
}

lg_item *lg_b_item_align_unit(lg_parse *p, lg_item *it, lg_token kw,
                              lg_expr *a, lg_token unit) {
  if (p->status) return NULL;
  if (unit.len != 5 || memcmp(p->src + unit.off, "bytes", 5)) {
    int n = unit.len > 40 ? 40 : (int)unit.len;
    lg_b_error(p, LAY_E_SYNTAX, unit.off,
               "unexpected '%.*s' (the unit of align is 'bytes')", n,
               p->src + unit.off);
    return NULL;
  }
  it = lg_b_item_align(p, it, kw, a);
  if (it) it->align_bytes = 1;
  return it;
}

lg_item *lg_b_item_stride_unit(lg_parse *p, lg_item *it, lg_token at,
                               lg_expr *s, lg_token unit) {
  if (p->status) return NULL;
  if (unit.len != 5 || memcmp(p->src + unit.off, "bytes", 5)) {
    int n = unit.len > 40 ? 40 : (int)unit.len;
    lg_b_error(p, LAY_E_SYNTAX, unit.off,
               "unexpected '%.*s' (the unit of a stride is 'bytes')", n,
               p->src + unit.off);
    return NULL;
  }
  it = lg_b_item_stride(p, it, at, s);
  if (it) it->stride_bytes = 1;
  return it;
}

lg_expr *lg_b_in(lg_parse *p, lg_expr *x, lg_token kw, lg_token open,
                 lg_list *items, lg_token close) {
  if (p->status || !x || !items) return NULL;
  if (kw.len != 2 || memcmp(p->src + kw.off, "in", 2)) {
    int n = kw.len > 40 ? 40 : (int)kw.len;
    lg_b_error(p, LAY_E_SYNTAX, kw.off,
               "unexpected '%.*s' (a requirement is a comparison or 'x in "
               "(a, b, ...)')", n, p->src + kw.off);
    return NULL;
  }
  lg_expr *l = lg_b_list(p, open, items, close);
  if (!l) return NULL;
  lg_expr *e = lg_b_binary(p, x, LG_OP_IN, l);
  return e;
}

lg_items *lg_b_items_add(lg_parse *p, lg_items *l, lg_item *it) {
  if (p->status || !it) return NULL;
  if (!l && !(l = alloc(p, sizeof *l))) return NULL;
  l->v = grow(p, l->v, l->n, &l->cap, sizeof *l->v);
  if (!l->v) return NULL;
  l->v[l->n++] = *it;
  return l;
}

lg_clauses *lg_b_clause(lg_parse *p, lg_clauses *l, lg_clause_kind kind,
                        lg_token first, lg_token name, lg_expr *value) {
  if (p->status || !value) return NULL;
  if (!l && !(l = alloc(p, sizeof *l))) return NULL;
  l->v = grow(p, l->v, l->n, &l->cap, sizeof *l->v);
  if (!l->v) return NULL;
  lg_clause *c = &l->v[l->n++];
  c->kind = kind;
  c->pos = first.off;
  c->name = tok_str(p, name);
  c->value = value;
  return p->status ? NULL : l;
}

/* A definition's own name must not be qualified. */
static int plain_name(lg_parse *p, lg_token name) {
  if (memchr(p->src + name.off, '.', name.len)) {
    lg_b_error(p, LAY_E_SYNTAX, name.off,
               "a definition's name cannot be qualified (use 'namespace')");
    return 0;
  }
  return 1;
}

lg_layout *lg_b_layout(lg_parse *p, lg_token name, lg_list *params,
                       lg_list *dims, lg_expr *dtype) {
  if (p->status || !dims || !plain_name(p, name)) return NULL;
  for (int i = 0; params && i < params->n; i++) {
    const lg_expr *e = params->v[i];
    const lg_expr *n = e->kind == LG_X_NAMED ? NULL : e;
    if (e->kind != LG_X_NAMED && (n->kind != LG_X_NAME ||
                                   strchr(n->u.str.s, '.'))) {
      lg_b_error(p, LAY_E_SYNTAX, e->pos, "expected a parameter name");
      return NULL;
    }
  }
  for (int i = 0; i < dims->n; i++) {
    const lg_expr *e = dims->v[i];
    if (e->kind != LG_X_NAME ||
        (strchr(e->u.str.s, '.') && strcmp(e->u.str.s, "..."))) {
      lg_b_error(p, LAY_E_SYNTAX, e->pos, "expected a dimension name");
      return NULL;
    }
  }
  lg_layout *l = alloc(p, sizeof *l);
  if (!l) return NULL;
  l->name = tok_str(p, name);
  l->pos = name.off;
  if (params) {
    l->params = *params;
    l->has_params = 1;
  }
  l->dims = *dims;
  l->dtype = dtype;
  return p->status ? NULL : l;
}

/* The clauses of a layout: `require` ones into reqs, the rest into
** clauses, each in source order. */
static lg_layout *split_clauses(lg_parse *p, lg_layout *l, lg_clauses *c) {
  if (!c) return l;
  int nr = 0;
  for (int i = 0; i < c->n; i++) nr += c->v[i].kind == LG_C_REQUIRE;
  if (nr) {
    l->reqs = alloc(p, sizeof *l->reqs * (size_t)nr);
    if (!l->reqs) return NULL;
  }
  int k = 0;
  for (int i = 0; i < c->n; i++) {
    if (c->v[i].kind == LG_C_REQUIRE) l->reqs[l->n_reqs++] = c->v[i];
    else c->v[k++] = c->v[i];
  }
  l->clauses = c->v;
  l->n_clauses = k;
  return l;
}

lg_layout *lg_b_layout_order(lg_parse *p, lg_layout *l, lg_token open,
                             lg_items *items, lg_clauses *clauses) {
  if (p->status || !l || !items) return NULL;
  l->items = items->v;
  l->n_items = items->n;
  l->order_pos = open.off;
  return split_clauses(p, l, clauses);
}

lg_layout *lg_b_layout_chunked(lg_parse *p, lg_layout *l, lg_expr *chunked,
                               lg_clauses *clauses) {
  if (p->status || !l || !chunked) return NULL;
  l->chunked = chunked;
  l->order_pos = chunked->pos;
  return split_clauses(p, l, clauses);
}

lg_layout *lg_b_layout_alias(lg_parse *p, lg_token name, lg_expr *target) {
  if (p->status || !target || !plain_name(p, name)) return NULL;
  if (target->kind != LG_X_NAME && target->kind != LG_X_CALL &&
      target->kind != LG_X_CHUNKED) {
    lg_b_error(p, LAY_E_SYNTAX, target->pos,
               "expected a layout name or chunked<...>");
    return NULL;
  }
  lg_layout *l = alloc(p, sizeof *l);
  if (!l) return NULL;
  l->name = tok_str(p, name);
  l->pos = name.off;
  l->alias = target;
  l->order_pos = target->pos;
  return p->status ? NULL : l;
}

/* ---- Transforms ------------------------------------------------------------ */

lg_transform *lg_b_transform(lg_parse *p, lg_token name, lg_token input,
                             lg_token dtype, lg_list *shape, lg_list *ops) {
  if (p->status || !shape || !ops || !plain_name(p, name)) return NULL;
  lg_transform *t = alloc(p, sizeof *t);
  if (!t) return NULL;
  t->name = tok_str(p, name);
  t->pos = name.off;
  t->input = tok_str(p, input);
  t->dtype = lg_b_name(p, dtype);
  t->shape = *shape;
  t->ops = *ops;
  return p->status ? NULL : t;
}

lg_expr *lg_b_shape_named(lg_parse *p, lg_token name, lg_token value) {
  return lg_b_named(p, name, lg_b_int(p, value));
}

/* ---- Tests ------------------------------------------------------------------ */

lg_tstmts *lg_b_tstmt(lg_parse *p, lg_tstmts *l, lg_tstmt_kind kind,
                      lg_token kw, lg_expr *a, lg_expr *b, lg_expr *c) {
  if (p->status) return NULL;
  if (!l && !(l = alloc(p, sizeof *l))) return NULL;
  l->v = grow(p, l->v, l->n, &l->cap, sizeof *l->v);
  if (!l->v) return NULL;
  lg_tstmt *s = &l->v[l->n++];
  s->kind = kind;
  s->pos = kw.off;
  s->a = a;
  s->b = b;
  s->c = c;
  return l;
}

/* Is e a reference: NAME or NAME(args)? */
static int is_ref(const lg_expr *e) {
  return e->kind == LG_X_NAME || e->kind == LG_X_CALL;
}

lg_tstmts *lg_b_use(lg_parse *p, lg_tstmts *l, lg_token kw, lg_expr *ref,
                    lg_token shape_kw, lg_expr *shape, lg_expr *dtype) {
  if (p->status || !ref || !shape) return NULL;
  if (!is_ref(ref)) {
    lg_b_error(p, LAY_E_SYNTAX, ref->pos, "expected a layout name");
    return NULL;
  }
  if (shape_kw.len != 5 || memcmp(p->src + shape_kw.off, "shape", 5)) {
    lg_b_error(p, LAY_E_SYNTAX, shape_kw.off, "'shape' expected");
    return NULL;
  }
  return lg_b_tstmt(p, l, LG_T_USE, kw, ref, shape, dtype);
}

lg_test *lg_b_test(lg_parse *p, lg_token kw, lg_token name, lg_tstmts *l) {
  if (p->status) return NULL;
  lg_test *t = alloc(p, sizeof *t);
  if (!t || decode_string(p, name, &t->name)) return NULL;
  t->pos = kw.off;
  if (l) {
    t->stmts = l->v;
    t->n_stmts = l->n;
  }
  return t;
}

/* ---- Statements ------------------------------------------------------------ */

static lg_stmt *add_stmt(lg_parse *p, lg_stmt_kind kind, uint32_t pos) {
  if (p->status || !p->ast) return NULL;
  lg_ast *a = p->ast;
  a->stmts = grow(p, a->stmts, a->n, &a->cap, sizeof *a->stmts);
  if (!a->stmts) return NULL;
  lg_stmt *s = &a->stmts[a->n++];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->pos = pos;
  return s;
}

void lg_b_namespace(lg_parse *p, lg_token kw, lg_token name) {
  lg_stmt *s = add_stmt(p, LG_S_NAMESPACE, kw.off);
  if (s) s->u.name = tok_str(p, name);
}

void lg_b_import(lg_parse *p, lg_token kw, lg_token path) {
  lg_str str;
  if (p->status || decode_string(p, path, &str)) return;
  lg_stmt *s = add_stmt(p, LG_S_IMPORT, kw.off);
  if (s) s->u.name = str;
}

void lg_b_stmt_layout(lg_parse *p, lg_token kw, lg_layout *l) {
  if (!l) return;
  lg_stmt *s = add_stmt(p, LG_S_LAYOUT, kw.off);
  if (s) s->u.layout = l;
}

void lg_b_stmt_transform(lg_parse *p, lg_token kw, lg_transform *t) {
  if (!t) return;
  lg_stmt *s = add_stmt(p, LG_S_TRANSFORM, kw.off);
  if (s) s->u.transform = t;
}

void lg_b_stmt_test(lg_parse *p, lg_test *t) {
  if (!t) return;
  lg_stmt *s = add_stmt(p, LG_S_TEST, t->pos);
  if (s) s->u.test = t;
}

void lg_b_ref(lg_parse *p, lg_expr *e) {
  if (p->status || !e) return;
  if (!is_ref(e)) {
    lg_b_error(p, LAY_E_SYNTAX, e->pos, "expected a layout name");
    return;
  }
  p->ref = e;
}
