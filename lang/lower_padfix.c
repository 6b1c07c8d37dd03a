/*
** lower_padfix.c: the stored values of a transform's pads (ir.h: padv,
** fix). A pad is an element of the tensor where its op makes it, so its
** value goes through the value ops after it (numpy semantics): the pads
** of a chain may store different values, and one pad may store different
** values in the channels of a per-channel value op. When every stored pad
** holds one value it is value.pad_value. Otherwise each hardware element
** is given the pad op that made it (the latest pad op whose region holds
** it: a later pad's slab spans every coordinate of the other dimensions)
** and its channel; the most common stored value is value.pad_value and
** the pad elements of the others become runs of hardware elements.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lower_int.h"
#include "padval.h"

#define PF_MAX_RUNS (1 << 22) /* runs of pads not of the common value */

/* The stored value of each pad in each channel, as an index into the
** distinct values. */
typedef struct pfmap {
  int nch;      /* channels of the per-channel rule, else 1 */
  int *k;       /* k[id * nch + ch]: index into padv, -1: a pad not stored */
  double *padv; /* the distinct stored values */
  int npadv;
} pfmap;

/* Where a transform's hardware elements come from, to tell each one's
** pad: the tracked tensor and the IR's axes (affine), or the gather
** table's marks (-1 - id for a pad of op id). */
typedef struct pfsrc {
  const tstate *t;
  const lg_ir *ir;
  int *own[LG_MAX_RANK];  /* per padded coordinate: the pad op, -1 inside */
  int64_t ext[LG_MAX_AXES];
  const int64_t *marks;
  int64_t n;              /* hardware elements */
} pfsrc;

/* Two stored values are one: the same bits (every NaN is one value; -0
** and 0 differ where the type keeps a sign). */
static int same(double a, double b) {
  return (a == b && signbit(a) == signbit(b)) || (isnan(a) && isnan(b));
}

/* Each stored pad's value in each channel, through the value ops after
** it; a finite value must stay finite. */
static int pad_map(lw *w, const srcref *sr, const tpads *pp, const lg_ir *ir,
                   pfmap *m) {
  const lg_ir_value *v = &ir->value;
  m->nch = (v->kind == LG_V_AFFINE || v->kind == LG_V_CHAIN) &&
                   v->axis >= 0 && v->n > 1 ? v->n : 1;
  size_t cells = (size_t)(pp->n ? pp->n : 1) * (size_t)m->nch;
  m->k = lg_walloc(w, sizeof(int) * cells);
  m->padv = lg_walloc(w, sizeof(double) * cells);
  if (!m->k || !m->padv) return -1;
  m->npadv = 0;
  for (int id = 0; id < pp->n; id++)
    for (int ch = 0; ch < m->nch; ch++) {
      int *k = &m->k[id * m->nch + ch];
      *k = -1;
      if (!pp->live[id]) continue;
      double h = lg_value_apply_from(v, pp->stage[id], ch, pp->v[id]);
      if (isinf(h) && !isinf(pp->v[id])) {
        char b1[64];
        snprintf(b1, sizeof b1, "%g", pp->v[id]);
        return lg_fail(w, sr, pp->pos[id], LAY_E_ARG,
                       "pad: value %s overflows %s through the value ops "
                       "after it",
                       b1, lay_dtype_name(v->hw != LAY_DT_NONE ? v->hw
                                                              : v->cpu));
      }
      for (int j = 0; j < m->npadv && *k < 0; j++)
        if (same(m->padv[j], h)) *k = j;
      if (*k < 0) {
        *k = m->npadv;
        m->padv[m->npadv++] = h;
      }
    }
  return 0;
}

/* The pad op that made each padded coordinate of dimension d (segments
** innermost first on each side of the window), -1 inside the window. */
static int dim_owners(lw *w, const tstate *t, int d, int **out) {
  int64_t P = t->pext[d], in = t->hi[d] - t->lo[d], b = t->before[d];
  int *o = malloc(sizeof(int) * (size_t)(P > 0 ? P : 1));
  if (!o) return lg_nomem(w);
  for (int64_t i = 0; i < P; i++) o[i] = -1;
  for (int side = 0; side < 2; side++) {
    int64_t at = 0; /* distance from the window */
    for (int j = 0; j < t->nseg[d][side]; j++) {
      const struct tseg *g = &t->seg[d][side][j];
      for (int64_t q = 0; q < g->len; q++, at++) {
        int64_t p = side == 0 ? b - 1 - at : b + in + at;
        if (p >= 0 && p < P) o[p] = g->id;
      }
    }
  }
  *out = o;
  return 0;
}

/* The stored value index of hardware element e (digits dig of the IR's
** axes for an affine chain), -1 for data. */
static int elem_k(const pfsrc *c, const pfmap *m, int64_t e,
                  const int64_t *dig) {
  if (c->marks) {
    int64_t x = c->marks[e];
    return x >= 0 ? -1 : m->k[(-1 - x) * m->nch];
  }
  const lg_ir *ir = c->ir;
  int64_t p[LG_MAX_RANK] = {0};
  for (int i = 0; i < ir->naxes; i++)
    if (ir->axis[i].kind == LG_AX_DIGIT)
      p[ir->axis[i].dim] += dig[i] * ir->axis[i].div;
  int owner = -1;
  for (int d = 0; d < ir->rank; d++)
    if (p[d] < c->t->pext[d] && c->own[d][p[d]] > owner)
      owner = c->own[d][p[d]];
  if (owner < 0) return -1;
  int ch = 0, cd = ir->value.axis;
  if (m->nch > 1 && cd >= 0) {
    /* a pad made before a per-channel op lies inside the window of its
    ** dimension (the op refuses a padded axis): its input coordinate */
    int64_t x = p[cd] - c->t->before[cd] + c->t->lo[cd];
    if (x >= 0 && x < m->nch) ch = (int)x;
  }
  return m->k[owner * m->nch + ch];
}

/* Walk every hardware element: count[k] (pass 0), or the runs of the
** values other than def (pass 1) into *runs (*nrun triples). */
static int walk(lw *w, const srcref *sr, uint32_t pos, const pfsrc *c,
                const pfmap *m, int64_t *count, int def, int64_t **runs,
                int64_t *nrun) {
  int64_t dig[LG_MAX_AXES] = {0}, cap = 0;
  int na = c->marks ? 0 : c->ir->naxes;
  for (int64_t e = 0; e < c->n; e++) {
    int k = elem_k(c, m, e, dig);
    for (int i = na - 1; i >= 0; i--) {
      if (++dig[i] < c->ext[i]) break;
      dig[i] = 0;
    }
    if (k < 0) continue;
    if (count) {
      count[k]++;
      continue;
    }
    if (k == def) continue;
    int64_t *r = *runs;
    if (*nrun && r[3 * (*nrun - 1) + 2] == k &&
        r[3 * (*nrun - 1)] + r[3 * (*nrun - 1) + 1] == e) {
      r[3 * (*nrun - 1) + 1]++;
      continue;
    }
    if (*nrun == PF_MAX_RUNS)
      return lg_fail(w, sr, pos, LAY_E_LIMIT,
                     "pad: the pads of this transform store several values "
                     "in more than %d runs",
                     PF_MAX_RUNS);
    if (*nrun == cap) {
      cap = cap ? 2 * cap : 256;
      r = realloc(*runs, sizeof(int64_t) * 3 * (size_t)cap);
      if (!r) return lg_nomem(w);
      *runs = r;
    }
    r[3 * *nrun] = e;
    r[3 * *nrun + 1] = 1;
    r[3 * *nrun + 2] = k;
    (*nrun)++;
  }
  return 0;
}

/* The pads of several values as runs into ir (see ir.h). */
static int pad_runs(lw *w, const srcref *sr, uint32_t pos, pfsrc *c,
                    const pfmap *m, lg_ir *ir) {
  int64_t *count = calloc((size_t)m->npadv, sizeof(int64_t)), *runs = NULL,
          nrun = 0;
  if (!count) return lg_nomem(w);
  int rc = walk(w, sr, pos, c, m, count, 0, NULL, NULL), def = 0;
  for (int k = 1; k < m->npadv; k++)
    if (count[k] > count[def]) def = k;
  free(count);
  if (!rc) rc = walk(w, sr, pos, c, m, NULL, def, &runs, &nrun);
  if (!rc && nrun) {
    ir->fix = lg_walloc(w, sizeof(int64_t) * 3 * (size_t)nrun);
    if (ir->fix) memcpy(ir->fix, runs, sizeof(int64_t) * 3 * (size_t)nrun);
    else rc = -1;
  }
  free(runs);
  if (rc) return -1;
  ir->nfix = nrun;
  ir->npadv = nrun ? m->npadv : 0;
  ir->padv = nrun ? m->padv : NULL;
  ir->value.pad_value = m->padv[def];
  return 0;
}

int lg_pad_store(lw *w, const srcref *sr, const tpads *pp, lg_ir *ir,
                 const tstate *t, const int64_t *marks, int64_t nmarks) {
  pfmap m;
  if (pad_map(w, sr, pp, ir, &m)) return -1;
  ir->value.pad_value = m.npadv ? m.padv[0] : 0;
  if (m.npadv <= 1) return 0;
  /* A gather table's pads have no channel: each pad stores one value. */
  for (int id = 0; id < pp->n && marks; id++)
    for (int ch = 1; ch < m.nch; ch++) {
      int k0 = m.k[id * m.nch], k = m.k[id * m.nch + ch];
      if (k == k0) continue;
      char b1[64], b2[64];
      snprintf(b1, sizeof b1, "%g", m.padv[k0]);
      snprintf(b2, sizeof b2, "%g", m.padv[k]);
      return lg_fail(w, sr, pp->pos[id], LAY_E_LAYOUT,
                     "pad: this pad stores %s in channel 0 of the "
                     "per-channel value op but %s in channel %d, and this "
                     "transform lowers to a gather table, whose pads have "
                     "no channel",
                     b1, b2, ch);
    }
  /* where the second value appears: for the messages */
  uint32_t pos = 0;
  int first = -1;
  for (int id = 0; id < pp->n && !pos; id++)
    for (int ch = 0; ch < m.nch && !pos; ch++) {
      int k = m.k[id * m.nch + ch];
      if (k < 0) continue;
      if (first < 0) first = k;
      else if (k != first) pos = pp->pos[id];
    }
  pfsrc c;
  memset(&c, 0, sizeof c);
  c.t = t;
  c.ir = ir;
  c.marks = marks;
  c.n = marks ? nmarks : 1;
  int rc = 0;
  if (!marks) {
    for (int i = 0; i < ir->naxes; i++) {
      const lg_ir_axis *a = &ir->axis[i];
      c.ext[i] = a->kind != LG_AX_DIGIT ? 1
                 : a->mod > 0          ? a->mod
                                       : t->pext[a->dim] / a->div;
      if (c.ext[i] < 1 || c.n > LW_MAX_TABLE / c.ext[i]) {
        c.n = LW_MAX_TABLE + (int64_t)1;
        break;
      }
      c.n *= c.ext[i];
    }
  }
  if (c.n > LW_MAX_TABLE)
    return lg_fail(w, sr, pos, LAY_E_LIMIT,
                   "pad: the pads of this transform store several values, "
                   "which needs a buffer of at most %d elements",
                   LW_MAX_TABLE);
  for (int d = 0; d < ir->rank && !marks && !rc; d++)
    rc = dim_owners(w, t, d, &c.own[d]);
  if (!rc) rc = pad_runs(w, sr, pos, &c, &m, ir);
  for (int d = 0; d < ir->rank; d++) free(c.own[d]);
  return rc;
}
