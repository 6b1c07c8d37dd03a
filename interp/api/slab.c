/*
** slab.c: lay_plan_slabs and lay_plan_slab_check (lay.h), the streaming
** support of `lay pack|unpack|convert`.
**
** A plan can run in slabs when one CPU-side dimension is outermost on both
** sides: its highest digit (div D) is the axis of largest stride S, every
** other axis fits inside S, and the buffer ends right after the last step
** (nelem = ext * S). Then D rows of that dimension are S elements, one
** contiguous byte range per side, and a plan made for fewer rows of the
** same layout moves exactly those ranges, as long as its sides have the
** same geometry (lay_plan_slab_check compares them). A window or pad on
** the dimension, a gather table, or a per-channel rule along it rule a
** dimension out.
*/
#include <stdio.h>
#include <string.h>

#include "ctx.h"
#include "lay.h"
#include "plan_int.h"

/* The top digit of dimension k of side s when the side can be cut along
** k: its axis index, with *div its div; -1 (with why[]) otherwise. */
static int side_cut(const li_side *s, int k, int64_t *div, char *why,
                    size_t cap) {
  if (s->table || s->grid || s->naxes <= 0) {
    snprintf(why, cap, "a gather table");
    return -1;
  }
  if (s->v.nfix) { /* runs placed in the whole buffer (li_fix_pads) */
    snprintf(why, cap, "pads of several values");
    return -1;
  }
  const li_sdim *d = &s->dim[k];
  if (d->nd < 1) {
    snprintf(why, cap, "the dimension has no axis");
    return -1;
  }
  int j = d->dig[d->nd - 1];
  const li_sax *a = &s->ax[j];
  int64_t D = a->div > 0 ? a->div : 1;
  if (d->lo != 0 || d->hi != d->size || d->before != 0 ||
      d->ext != (d->size + D - 1) / D * D || a->mod > 0) {
    snprintf(why, cap, "a window or pad on it");
    return -1;
  }
  if (s->v.axis == k) {
    snprintf(why, cap, "a per-channel rule along it");
    return -1;
  }
  int64_t span = 1;
  for (int i = 0; i < s->naxes; i++)
    if (i != j) span += (s->ax[i].ext - 1) * s->ax[i].stride;
  if (a->stride < span || a->ext * a->stride != s->nelem) {
    snprintf(why, cap, "not outermost");
    return -1;
  }
  *div = D;
  return j;
}

#define SLAB_PIECE_MIN 4096 /* bytes of a source piece (lay_slabs) */

static int64_t gcd64(int64_t a, int64_t b) {
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* 1 when side s is plain row-major: one whole digit per dimension, in
** order, no window, pad, hole, plane or table (the CPU side, core.nchw). */
static int plain(const li_side *s) {
  if (s->table || s->grid || s->naxes != s->rank || s->plane_ax >= 0)
    return 0;
  int64_t st = 1;
  for (int i = s->rank - 1; i >= 0; i--) {
    const li_sdim *d = &s->dim[i];
    const li_sax *a = &s->ax[i];
    if (d->nd != 1 || d->dig[0] != i || d->lo || d->hi != d->size ||
        d->before || d->ext != d->size || a->kind != LG_AX_DIGIT ||
        a->dim != i || a->div != 1 || a->mod > 0 || a->ext != d->size ||
        (a->stride != st && d->size > 1))
      return 0;
    st *= d->size;
  }
  return s->nelem == st;
}

/* Bytes of one row of dimension k of side s (cut there) and, for a plain
** side cut in pieces, the pieces of a slab and their stride (bytes). */
static size_t row_bytes(const li_side *s, int k, int64_t D, int *pieces,
                        int64_t *npiece, size_t *pstride) {
  const li_sdim *d = &s->dim[k];
  *npiece = 1;
  *pstride = 0;
  if (!*pieces)
    return (size_t)(s->ax[d->dig[d->nd - 1]].stride / D) * s->esz;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < s->rank; i++)
    if (i < k) outer *= s->dim[i].size;
    else if (i > k) inner *= s->dim[i].size;
  *npiece = outer;
  *pstride = (size_t)(inner * d->size) * s->esz;
  return (size_t)(outer * inner) * s->esz;
}

/* Slabs along dimension k, or -1 with why[] (pass 0: contiguous on both
** sides; pass 1: one side plain row-major, cut in pieces). */
static int try_dim(const li_plan *p, int k, int pass, size_t max_bytes,
                   lay_slabs *out, char *why, size_t cap) {
  int kd = p->dmap[k];
  int64_t Ds = 1, Dd = 1, ext = p->s.dim[k].size;
  char w[48];
  int sp = 0, dp = 0; /* the side in pieces */
  if (side_cut(&p->d, kd, &Dd, w, sizeof w) < 0) {
    if (pass == 0 || !plain(&p->d) || side_cut(&p->s, k, &Ds, w, sizeof w) < 0) {
      snprintf(why, cap, "%s in the %s", w,
               pass && plain(&p->d) ? "source" : "destination");
      return -1;
    }
    dp = 1;
  } else if (side_cut(&p->s, k, &Ds, w, sizeof w) < 0) {
    if (pass == 0 || !plain(&p->s)) {
      snprintf(why, cap, "%s in the source", w);
      return -1;
    }
    sp = 1;
  } else if (pass == 1) {
    return -1; /* found in pass 0 */
  }
  int64_t unit = Ds / gcd64(Ds, Dd) * Dd, nps, npd;
  size_t pss, psd;
  size_t us = row_bytes(&p->s, k, Ds, &sp, &nps, &pss) * (size_t)unit;
  size_t ud = row_bytes(&p->d, kd, Dd, &dp, &npd, &psd) * (size_t)unit;
  int64_t units = (int64_t)(max_bytes / (us + ud > 0 ? us + ud : 1));
  int64_t all = (ext + unit - 1) / unit;
  if (units < 1) units = 1;
  /* Pieces of at least SLAB_PIECE_MIN bytes (a read or write each),
  ** within four times the budget; else none. */
  size_t piece = sp ? us / (size_t)nps : dp ? ud / (size_t)npd : 0;
  if (piece && piece * (size_t)units < SLAB_PIECE_MIN) {
    units = (int64_t)((SLAB_PIECE_MIN + piece - 1) / piece);
    if (units > all) units = all;
    if ((size_t)units * (us + ud) > 4 * max_bytes) {
      snprintf(why, cap, "pieces under %d bytes", SLAB_PIECE_MIN);
      return -1;
    }
  }
  if (units > all) units = all;
  out->dim = k;
  out->extent = ext;
  out->unit = unit;
  out->rows = units * unit;
  out->count = (ext + out->rows - 1) / out->rows;
  out->src_bytes = (size_t)units * us;
  out->dst_bytes = (size_t)units * ud;
  out->src_pieces = nps;
  out->src_stride = nps > 1 ? pss : out->src_bytes;
  out->dst_pieces = npd;
  out->dst_stride = npd > 1 ? psd : out->dst_bytes;
  return 0;
}

lay_status lay_plan_slabs(const lay_plan *plan, size_t max_bytes,
                          lay_slabs *out, lay_error *err) {
  const li_plan *p = li_plan_of(plan);
  if (!p || !out) return li_fail(err, LAY_E_ARG, "no plan or no result");
  memset(out, 0, sizeof *out);
  out->dim = -1;
  /* 4-bit buffers (nibble.c) are two elements a byte: the slabs' byte
  ** ranges would be the planner's, one element a byte (types20) */
  if (lay_dtype_bits(lay_plan_src_dtype(plan)) == 4 ||
      lay_dtype_bits(lay_plan_dst_dtype(plan)) == 4)
    return li_fail(err, LAY_E_ARG,
                   "a plan of 4-bit elements (int4, uint4) runs whole");
  char why[LAY_MAX_RANK * 112] = "", w[80];
  size_t wn = 0;
  for (int pass = 0; pass < 2; pass++)
    for (int k = 0; k < p->s.rank; k++) {
      if (p->s.dim[k].size < 2) continue;
      if (!try_dim(p, k, pass, max_bytes, out, w, sizeof w)) return LAY_OK;
      if (pass == 1 && *w && wn < sizeof why)
        wn += (size_t)snprintf(why + wn, sizeof why - wn, "%s'%s': %s",
                               wn ? ", " : "", p->dname[k], w);
      *w = '\0';
    }
  memset(out, 0, sizeof *out);
  out->dim = -1;
  return li_fail(err, LAY_E_ARG,
                 "no dimension is outermost on both sides (%s)",
                 wn ? why : "every extent is 1");
}

/* Value rules equal (the same format gives the same rule). */
static int same_rule(const li_vrule *a, const li_vrule *b) {
  if (a->kind != b->kind || a->cpu != b->cpu || a->hw != b->hw ||
      a->round != b->round || a->arith != b->arith ||
      a->saturate != b->saturate || a->axis != b->axis || a->nch != b->nch ||
      a->nplanes != b->nplanes || memcmp(&a->pad, &b->pad, sizeof a->pad))
    return 0;
  for (int i = 0; i < a->nplanes && i < LG_MAX_PLANES; i++)
    if (a->shift[i] != b->shift[i] || a->mask[i] != b->mask[i]) return 0;
  size_t n = (size_t)(a->nch > 0 ? a->nch : 0) * sizeof(double);
  const double *const x[4] = {a->num, a->den, a->zp, a->xoff};
  const double *const y[4] = {b->num, b->den, b->zp, b->xoff};
  for (int i = 0; i < 4; i++)
    if (!x[i] != !y[i] || (n && x[i] && memcmp(x[i], y[i], n))) return 0;
  return 1;
}

/* Side P (of a plan for `rows` rows of dimension k) is side F (of the
** whole plan) cut to its first rows: 1, else 0. */
static int same_cut(const li_side *F, const li_side *P, int k, int64_t rows) {
  int64_t D;
  char why[96];
  int j = side_cut(F, k, &D, why, sizeof why);
  if (j < 0 || P->table || P->grid || P->rank != F->rank ||
      P->naxes != F->naxes || P->esz != F->esz || P->plane_ax != F->plane_ax ||
      P->is_cpu != F->is_cpu || !same_rule(&F->v, &P->v))
    return 0;
  int64_t pext = (rows + D - 1) / D * D;
  for (int i = 0; i < F->rank; i++) {
    const li_sdim *f = &F->dim[i], *q = &P->dim[i];
    if (q->nd != f->nd || memcmp(q->dig, f->dig, sizeof f->dig[0] * (size_t)f->nd))
      return 0;
    if (i == k ? q->size != rows || q->lo || q->hi != rows || q->before ||
                     q->ext != pext || q->off
               : q->size != f->size || q->lo != f->lo || q->hi != f->hi ||
                     q->before != f->before || q->ext != f->ext ||
                     q->off != f->off)
      return 0;
  }
  for (int i = 0; i < F->naxes; i++) {
    const li_sax *f = &F->ax[i], *q = &P->ax[i];
    if (q->kind != f->kind || q->dim != f->dim || q->div != f->div ||
        q->mod != f->mod || q->ext != (i == j ? pext / D : f->ext) ||
        (q->stride != f->stride && f->ext > 1)) /* one step: never taken */
      return 0;
  }
  return P->nelem == P->ax[j].ext * P->ax[j].stride;
}

/* F and P are plain, with the same rule, and their dimensions agree but
** for k, which P has `rows` of. */
static int same_plain(const li_side *F, const li_side *P, int k, int64_t rows) {
  if (!plain(F) || !plain(P) || F->rank != P->rank || F->esz != P->esz ||
      !same_rule(&F->v, &P->v))
    return 0;
  for (int i = 0; i < F->rank; i++)
    if (P->dim[i].size != (i == k ? rows : F->dim[i].size)) return 0;
  return 1;
}

lay_status lay_plan_slab_check(const lay_plan *plan, const lay_slabs *sl,
                               const lay_plan *part, lay_error *err) {
  const li_plan *p = li_plan_of(plan), *q = li_plan_of(part);
  if (!p || !q || !sl || sl->dim < 0 || sl->dim >= p->s.rank)
    return li_fail(err, LAY_E_ARG, "no plan, part or slabs");
  int k = sl->dim;
  int64_t rows = q->s.dim[k].size;
  if (q->dir != p->dir || q->cpu_t != p->cpu_t ||
      memcmp(q->dmap, p->dmap, sizeof p->dmap[0] * (size_t)p->s.rank) ||
      rows < 1 || rows > sl->extent ||
      (rows != sl->rows && rows != sl->extent - (sl->count - 1) * sl->rows) ||
      !(sl->src_pieces > 1 ? same_plain(&p->s, &q->s, k, rows)
                           : same_cut(&p->s, &q->s, k, rows)) ||
      !(sl->dst_pieces > 1 ? same_plain(&p->d, &q->d, p->dmap[k], rows)
                           : same_cut(&p->d, &q->d, p->dmap[k], rows)))
    return li_fail(err, LAY_E_ARG,
                   "the part plan is not the plan cut to %lld rows of '%s'",
                   (long long)rows, p->dname[k]);
  return LAY_OK;
}
