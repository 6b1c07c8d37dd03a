/*
** lower_index.c: the index ops of a transform chain (pad, slice,
** transpose, reshape), applied to the tracked source-dimension digits
** and, when the chain is not affine, to the gather table's index array
** (see lower_int.h).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"
#include "padval.h"

/* Add a pad segment of len to side k (0 before, 1 after) of dimension d. */
static void seg_add(tstate *t, int d, int k, int id, int64_t len) {
  if (!len) return;
  if (t->nseg[d][k] >= LW_MAX_SEGS) {
    t->affine = 0; /* the gather table tracks any number */
    return;
  }
  t->seg[d][k][t->nseg[d][k]++] = (struct tseg){id, len};
}

/* Cut len of padding from the outside of side k of dimension d. */
static void seg_cut(tstate *t, int d, int k, int64_t len) {
  while (len > 0 && t->nseg[d][k] > 0) {
    struct tseg *g = &t->seg[d][k][t->nseg[d][k] - 1];
    int64_t c = len < g->len ? len : g->len;
    g->len -= c;
    len -= c;
    if (!g->len) t->nseg[d][k]--;
  }
}

/* Is axis a exactly one whole source dimension? Its index, else -1. */
int lg_whole_dim(const tstate *t, int a) {
  const tax *x = &t->ax[a];
  if (x->nd != 1 || x->d[0].div != 1 || x->d[0].ext != t->pext[x->d[0].dim])
    return -1;
  return x->d[0].dim;
}

/* Merge neighbouring digits of one dimension that chain (outer, inner). */
static void normalize(tax *x) {
  for (int i = 0; i + 1 < x->nd;) {
    tdig *o = &x->d[i], *in = &x->d[i + 1];
    if (o->dim == in->dim && o->div == in->div * in->ext) {
      o->div = in->div;
      o->ext *= in->ext;
      memmove(&x->d[i + 1], &x->d[i + 2],
              sizeof(tdig) * (size_t)(x->nd - i - 2));
      x->nd--;
    } else {
      i++;
    }
  }
}

/* The integer list argument of a transform op. */
static int int_list(lw *w, const env *en, const lg_expr *e, const char *op,
                    const char *what, int64_t **out, int *n) {
  val v;
  *out = NULL;
  *n = 0;
  if (lg_eval(w, en, e, &v)) return -1;
  if (v.k != V_LIST || !v.ilist)
    return lg_fail(w, &en->sr, e->pos, LAY_E_ARG,
                   "%s: %s must be a list of integers", op, what);
  *out = v.ilist;
  *n = v.n;
  return 0;
}

/* The ops' arguments: positional or by name (with the AMD aliases). */
typedef struct targs {
  const lg_expr *v[4];
} targs;

static int get_targs(lw *w, const env *en, const lg_expr *op, const char *nm,
                     const char *const *keys, int nkeys, targs *t) {
  memset(t, 0, sizeof *t);
  if (op->kind != LG_X_CALL) return 0;
  const lg_list *args = &op->u.call.args;
  for (int i = 0; i < args->n; i++) {
    const lg_expr *a = args->v[i];
    int k = -1;
    if (a->kind == LG_X_NAMED) {
      const char *s = a->u.named.name.s;
      for (int j = 0; j < nkeys && k < 0; j++) {
        const char *kj = keys[j];
        /* "start|pad_at_start": names separated by '|'. */
        for (const char *p = kj; *p && k < 0;) {
          size_t l = strcspn(p, "|");
          if (strlen(s) == l && !strncmp(p, s, l)) k = j;
          p += l;
          if (*p) p++;
        }
      }
      if (k < 0)
        return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                       "unknown argument '%s' of %s", s, nm);
      a = a->u.named.value;
    } else {
      k = i;
      if (k >= nkeys)
        return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                       "%s takes at most %d argument%s", nm, nkeys,
                       nkeys == 1 ? "" : "s");
    }
    if (t->v[k])
      return lg_fail(w, &en->sr, a->pos, LAY_E_ARG,
                     "argument %d of %s is given twice", k + 1, nm);
    t->v[k] = a;
  }
  return 0;
}

int64_t lg_shape_count(const int64_t *s, int n) {
  int64_t c = 1;
  for (int i = 0; i < n; i++) c *= s[i];
  return c;
}

/* Row-major strides of a shape. */
static void strides_of(const int64_t *s, int n, int64_t *st) {
  int64_t c = 1;
  for (int i = n - 1; i >= 0; i--) {
    st[i] = c;
    c *= s[i];
  }
}

/* dst[shape out] <- src through a per-output-axis map: out coord o maps to
** source coordinate (o[k] - off[k]) on source axis perm[k]; fill outside
** (a pad's mark, -1 - its id). */
static int remap(lw *w, tarr *t, int n, const int64_t *oshape,
                 const int *perm, const int64_t *off, int64_t fill) {
  int64_t total = lg_shape_count(oshape, n);
  int64_t *out = malloc(sizeof(int64_t) * (size_t)(total ? total : 1));
  if (!out) return lg_nomem(w);
  int64_t sst[LG_MAX_AXES], o[LG_MAX_AXES] = {0};
  strides_of(t->shape, t->n, sst);
  for (int64_t i = 0; i < total; i++) {
    int64_t src = 0, ok = 1;
    for (int k = 0; k < n; k++) {
      int64_t c = o[k] - off[k];
      if (c < 0 || c >= t->shape[perm[k]]) ok = 0;
      else src += c * sst[perm[k]];
    }
    out[i] = ok ? t->v[src] : fill;
    for (int k = n - 1; k >= 0; k--) {
      if (++o[k] < oshape[k]) break;
      o[k] = 0;
    }
  }
  free(t->v);
  t->v = out;
  t->n = n;
  memcpy(t->shape, oshape, sizeof(int64_t) * (size_t)n);
  return 0;
}


/* The tensor's element type after the first k value ops of the chain
** (rule v: one op, or a chain of them; LAY_DT_NONE: open). */
static lay_dtype type_after(const lg_ir_value *v, int k) {
  const lg_ir_value *s = v;
  if (k <= 0) return v->cpu;
  if (v->kind == LG_V_CHAIN) s = &v->step[(k < v->nstep ? k : v->nstep) - 1];
  return s->hw != LAY_DT_NONE ? s->hw : s->cpu;
}

/* pad(start, end, value, output_shape) (numpy.pad; TIDL, AMD: pad_at_start,
** pad_at_end). The pad's value is recorded in pp. */
static int pad_op(lw *w, const env *en, const lg_expr *op, tstate *t,
                  int64_t *shape, int r, tarr *tbl, const lg_ir *ir,
                  tpads *pp) {
  const char *nm = "pad";
  uint32_t pos = op->pos;
  char b1[256], b2[256];
  static const char *const keys[] = {"start|pad_at_start", "end|pad_at_end",
                                     "value", "output_shape"};
  targs a;
  if (get_targs(w, en, op, nm, keys, 4, &a)) return -1;
  int64_t s0[LG_MAX_AXES] = {0}, s1[LG_MAX_AXES] = {0}, *v = NULL;
  int n = 0;
  for (int k = 0; k < 2; k++) {
    if (!a.v[k]) continue;
    if (int_list(w, en, a.v[k], nm, k ? "end" : "start", &v, &n)) return -1;
    if (n != r)
      return lg_fail(w, &en->sr, a.v[k]->pos, LAY_E_SHAPE,
                     "pad: %d value%s for rank %d", n, n == 1 ? "" : "s", r);
    for (int i = 0; i < n; i++) {
      if (v[i] < 0)
        return lg_fail(w, &en->sr, a.v[k]->pos, LAY_E_SHAPE,
                       "pad: negative amount %lld", (long long)v[i]);
      (k ? s1 : s0)[i] = v[i];
    }
  }
  if (pp->n >= LW_MAX_PADS)
    return lg_fail(w, &en->sr, pos, LAY_E_LIMIT,
                   "more than %d pads in one transform", LW_MAX_PADS);
  int id = pp->n++;
  /* The pad is an element of the tensor here: its value (0 unless
  ** given) is one of the tensor's type at this point of the chain. */
  pp->v[id] = 0;
  pp->stage[id] = pp->nval;
  pp->pos[id] = pos;
  if (a.v[2]) {
    nums x;
    if (lg_get_nums(w, en, a.v[2], &x)) return -1;
    if (x.n)
      return lg_fail(w, &en->sr, a.v[2]->pos, LAY_E_ARG,
                     "pad: value must be one number");
    lay_dtype ty = type_after(&ir->value, pp->nval);
    if (lg_value_of(ty, x.s, &pp->v[id])) {
      char buf[64];
      snprintf(buf, sizeof buf, "%g", x.s);
      return lg_fail(w, &en->sr, a.v[2]->pos, LAY_E_ARG,
                     "pad: value %s does not fit %s", buf, lay_dtype_name(ty));
    }
    pp->pos[id] = a.v[2]->pos;
  }
  int64_t ns[LG_MAX_AXES];
  for (int i = 0; i < r; i++)
    if (__builtin_add_overflow(shape[i], s0[i] + s1[i], &ns[i]) ||
        ns[i] > (INT64_C(1) << 40))
      return lg_fail(w, &en->sr, pos, LAY_E_OVERFLOW, "pad: size overflows");
  if (a.v[3]) {
    if (int_list(w, en, a.v[3], nm, "output_shape", &v, &n)) return -1;
    if (n != r || memcmp(v, ns, sizeof(int64_t) * (size_t)r)) {
      lg_fmt_list(b1, sizeof b1, v, n);
      lg_fmt_list(b2, sizeof b2, ns, r);
      return lg_fail(w, &en->sr, a.v[3]->pos, LAY_E_SHAPE,
                     "pad: output_shape %s does not match %s", b1, b2);
    }
  }
  for (int i = 0; i < r && t->affine; i++) {
    if (!s0[i] && !s1[i]) continue;
    int d = lg_whole_dim(t, i);
    if (d < 0) {
      t->affine = 0;
      break;
    }
    t->before[d] += s0[i];
    t->after[d] += s1[i];
    seg_add(t, d, 0, id, s0[i]);
    seg_add(t, d, 1, id, s1[i]);
    t->pext[d] += s0[i] + s1[i];
    t->ax[i].d[0].ext = t->pext[d];
    t->ax[i].ext = t->pext[d];
  }
  if (tbl) {
    int perm[LG_MAX_AXES];
    for (int i = 0; i < r; i++) perm[i] = i;
    if (remap(w, tbl, r, ns, perm, s0, -1 - (int64_t)id)) return -1;
  }
  memcpy(shape, ns, sizeof(int64_t) * (size_t)r);
  return 0;
}

/* slice(start, size | stop). */
static int slice_op(lw *w, const env *en, const lg_expr *op, tstate *t,
                    int64_t *shape, int r, tarr *tbl) {
  const char *nm = "slice";
  uint32_t pos = op->pos;
  static const char *const keys[] = {"start|begin", "size", "stop|end"};
  targs a;
  if (get_targs(w, en, op, nm, keys, 3, &a)) return -1;
  int64_t st[LG_MAX_AXES] = {0}, sz[LG_MAX_AXES], *v = NULL;
  int n = 0;
  memcpy(sz, shape, sizeof(int64_t) * (size_t)r);
  if (a.v[1] && a.v[2])
    return lg_fail(w, &en->sr, pos, LAY_E_ARG, "slice: give size or stop");
  if (a.v[0]) {
    if (int_list(w, en, a.v[0], nm, "start", &v, &n)) return -1;
    if (n != r)
      return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                     "slice: %d value%s for rank %d", n, n == 1 ? "" : "s", r);
    memcpy(st, v, sizeof(int64_t) * (size_t)r);
    for (int i = 0; i < r; i++) sz[i] = shape[i] - st[i];
  }
  for (int k = 1; k < 3; k++) {
    if (!a.v[k]) continue;
    if (int_list(w, en, a.v[k], nm, k == 1 ? "size" : "stop", &v, &n))
      return -1;
    if (n != r)
      return lg_fail(w, &en->sr, a.v[k]->pos, LAY_E_SHAPE,
                     "slice: %d value%s for rank %d", n, n == 1 ? "" : "s", r);
    for (int i = 0; i < r; i++) sz[i] = k == 1 ? v[i] : v[i] - st[i];
  }
  for (int i = 0; i < r; i++)
    if (st[i] < 0 || sz[i] <= 0 || st[i] > shape[i] - sz[i])
      return lg_fail(w, &en->sr, pos, LAY_E_SHAPE,
                     "slice: [%lld:%lld] is out of range for axis %d of size "
                     "%lld",
                     (long long)st[i], (long long)(st[i] + sz[i]), i,
                     (long long)shape[i]);
  for (int i = 0; i < r && t->affine; i++) {
    if (st[i] == 0 && sz[i] == shape[i]) continue;
    int d = lg_whole_dim(t, i);
    if (d < 0) {
      t->affine = 0;
      break;
    }
    int64_t b = t->before[d], e = t->hi[d] - t->lo[d];
    int64_t s0 = st[i], s1 = st[i] + sz[i];
    int64_t nlo = t->lo[d] + (s0 > b ? s0 - b : 0);
    int64_t nhi = t->lo[d] + (s1 - b < e ? s1 - b : e);
    if (nhi <= nlo) { /* only padding: the gather table holds it */
      t->affine = 0;
      t->pad_only = 1;
      break;
    }
    seg_cut(t, d, 0, t->before[d] - (b > s0 ? b - s0 : 0));
    seg_cut(t, d, 1, t->after[d] - (s1 > b + e ? s1 - (b + e) : 0));
    t->before[d] = b > s0 ? b - s0 : 0;
    t->after[d] = s1 > b + e ? s1 - (b + e) : 0;
    t->lo[d] = nlo;
    t->hi[d] = nhi;
    t->pext[d] = sz[i];
    t->ax[i].d[0].ext = sz[i];
    t->ax[i].ext = sz[i];
  }
  if (tbl) {
    int perm[LG_MAX_AXES];
    int64_t off[LG_MAX_AXES];
    for (int i = 0; i < r; i++) {
      perm[i] = i;
      off[i] = -st[i];
    }
    if (remap(w, tbl, r, sz, perm, off, -1)) return -1;
  }
  memcpy(shape, sz, sizeof(int64_t) * (size_t)r);
  return 0;
}

/* transpose(perm); without perm the axes are reversed (numpy). */
static int transpose_op(lw *w, const env *en, const lg_expr *op, tstate *t,
                        int64_t *shape, int r, tarr *tbl) {
  const char *nm = "transpose";
  char b1[256];
  static const char *const keys[] = {"perm|axes"};
  targs a;
  if (get_targs(w, en, op, nm, keys, 1, &a)) return -1;
  int64_t p[LG_MAX_AXES], *v = NULL;
  int n = r;
  if (a.v[0]) {
    if (int_list(w, en, a.v[0], nm, "perm", &v, &n)) return -1;
    int seen[LG_MAX_AXES] = {0}, ok = n == r;
    for (int i = 0; i < n && ok; i++) {
      if (v[i] < 0 || v[i] >= r || seen[v[i]]) ok = 0;
      else seen[v[i]] = 1;
    }
    if (!ok) {
      lg_fmt_list(b1, sizeof b1, v, n);
      return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                     "transpose: %s is not a permutation of %d axes", b1, r);
    }
    memcpy(p, v, sizeof(int64_t) * (size_t)r);
  } else {
    for (int i = 0; i < r; i++) p[i] = r - 1 - i; /* numpy: reversed */
  }
  tax old[LG_MAX_AXES];
  int64_t os[LG_MAX_AXES], ns[LG_MAX_AXES];
  int perm[LG_MAX_AXES];
  int64_t off[LG_MAX_AXES] = {0};
  memcpy(old, t->ax, sizeof(tax) * (size_t)r);
  memcpy(os, shape, sizeof(int64_t) * (size_t)r);
  for (int i = 0; i < r; i++) {
    t->ax[i] = old[p[i]];
    ns[i] = os[p[i]];
    perm[i] = (int)p[i];
  }
  if (tbl && remap(w, tbl, r, ns, perm, off, -1)) return -1;
  memcpy(shape, ns, sizeof(int64_t) * (size_t)r);
  return 0;
}

/* The digits of the tensor after a reshape to ns (n axes): each new axis
** takes the next digits, splitting one where it must; the chain stops
** being affine when the sizes do not line up. */
static void reshape_digits(tstate *t, int r, const int64_t *ns, int n) {
  tdig flat[LG_MAX_AXES];
  int nf = 0, at = 0;
  for (int i = 0; i < r; i++)
    for (int j = 0; j < t->ax[i].nd; j++) flat[nf++] = t->ax[i].d[j];
  tax nax[LG_MAX_AXES];
  for (int i = 0; i < n && t->affine; i++) {
    tax *x = &nax[i];
    memset(x, 0, sizeof *x);
    x->ext = ns[i];
    int64_t prod = 1, E = ns[i];
    while (prod < E && t->affine) {
      if (at >= nf) {
        t->affine = 0;
        break;
      }
      tdig *g = &flat[at];
      if (E % prod == 0 && (E / prod) % g->ext == 0) {
        if (x->nd >= LG_MAX_AXES) { t->affine = 0; break; }
        x->d[x->nd++] = *g;
        prod *= g->ext;
        at++;
      } else if (E % prod == 0 && g->ext % (E / prod) == 0) {
        int64_t q = E / prod, rest = g->ext / q;
        if (x->nd >= LG_MAX_AXES) { t->affine = 0; break; }
        tdig hi = {g->dim, g->div * rest, q};
        x->d[x->nd++] = hi;
        g->ext = rest;
        prod = E;
      } else {
        t->affine = 0;
      }
    }
    while (t->affine && at < nf && flat[at].ext == 1 &&
           x->nd < LG_MAX_AXES)
      x->d[x->nd++] = flat[at++];
    normalize(x);
  }
  if (t->affine) {
    while (at < nf && flat[at].ext == 1 && n > 0 &&
           nax[n - 1].nd < LG_MAX_AXES)
      nax[n - 1].d[nax[n - 1].nd++] = flat[at++];
    if (at != nf) t->affine = 0;
  }
  if (t->affine) memcpy(t->ax, nax, sizeof(tax) * (size_t)n);
}

/* reshape(shape), one size may be -1; sets t->n to the new rank. */
static int reshape_op(lw *w, const env *en, const lg_expr *op, tstate *t,
                      int64_t *shape, int r, tarr *tbl) {
  const char *nm = "reshape";
  uint32_t pos = op->pos;
  char b1[256];
  static const char *const keys[] = {"shape|output_shape|newshape"};
  targs a;
  if (get_targs(w, en, op, nm, keys, 1, &a)) return -1;
  if (!a.v[0])
    return lg_fail(w, &en->sr, pos, LAY_E_ARG, "reshape needs a shape");
  int64_t *v = NULL, ns[LG_MAX_AXES], total = lg_shape_count(shape, r),
          known = 1;
  int n = 0, infer = -1;
  if (int_list(w, en, a.v[0], nm, "the shape", &v, &n)) return -1;
  if (n < 1 || n > LG_MAX_AXES)
    return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_LIMIT,
                   "reshape: 1 to %d sizes", LG_MAX_AXES);
  for (int i = 0; i < n; i++) {
    if (v[i] == -1) {
      if (infer >= 0)
        return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                       "reshape: more than one -1");
      infer = i;
      continue;
    }
    if (v[i] <= 0)
      return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                     "reshape: size %lld is not positive", (long long)v[i]);
    if (__builtin_mul_overflow(known, v[i], &known) ||
        known > (INT64_C(1) << 50))
      return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_OVERFLOW,
                     "reshape: the shape overflows");
  }
  memcpy(ns, v, sizeof(int64_t) * (size_t)n);
  if (infer >= 0) {
    if (total % known) {
      lg_fmt_list(b1, sizeof b1, v, n);
      return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                     "reshape: %lld elements do not fit %s",
                     (long long)total, b1);
    }
    ns[infer] = total / known;
    known = total;
  }
  if (known != total) {
    lg_fmt_list(b1, sizeof b1, v, n);
    return lg_fail(w, &en->sr, a.v[0]->pos, LAY_E_SHAPE,
                   "reshape: %lld elements into %s (%lld)", (long long)total,
                   b1, (long long)known);
  }
  if (t->affine) reshape_digits(t, r, ns, n);
  if (tbl) {
    tbl->n = n;
    memcpy(tbl->shape, ns, sizeof(int64_t) * (size_t)n);
  }
  memcpy(shape, ns, sizeof(int64_t) * (size_t)n);
  t->n = n;
  return 0;
}

/* The index part of one op, both on the tracked digits and (when tbl) on
** the index array. */
int lg_index_op(lw *w, const env *en, const lg_expr *op, const char *nm,
                tstate *t, int64_t *shape, int *rank, tarr *tbl,
                const lg_ir *ir, tpads *pp) {
  if (!strcmp(nm, "pad"))
    return pad_op(w, en, op, t, shape, *rank, tbl, ir, pp);
  if (!strcmp(nm, "slice")) return slice_op(w, en, op, t, shape, *rank, tbl);
  if (!strcmp(nm, "transpose"))
    return transpose_op(w, en, op, t, shape, *rank, tbl);
  if (!strcmp(nm, "reshape")) {
    if (reshape_op(w, en, op, t, shape, *rank, tbl)) return -1;
    *rank = t->n;
    return 0;
  }
  return lg_fail(w, &en->sr, op->pos, LAY_E_NAME,
                 "unknown operation '%s' (quantize, dequantize, cast, pad, "
                 "reshape, transpose, slice)",
                 nm);
}
