/*
** box.c: the planner's boxes. Every dimension's digits on the two sides
** are refined into one common mixed radix (or, where they have none, a
** table of offset pairs); the valid interval of each dimension is cut
** into O(#digits) pieces whose digits are plain ranges, and the product
** of the pieces over the dimensions gives the data boxes, each an affine
** loop nest. The destination's pads (its padded box outside the window),
** the elements the source does not provide (its window is smaller) and
** the holes between strided axes become fill boxes, disjoint, so no byte
** is written twice. Each box's loops are then ordered, coalesced and
** given a kernel (loops.c). Sides with a gather table take one table box,
** or (converts) table loops over offset pairs.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* A piece of one dimension: the refined digits' ranges. */
typedef struct piece {
  int64_t start[LI_MAXR], cnt[LI_MAXR];
} piece;

/* Refinement of one dimension: common units and, per refined digit, the
** element strides on each side. */
typedef struct refdim {
  int k;                         /* refined digits */
  int64_t unit[LI_MAXR];         /* ascending */
  int64_t rad[LI_MAXR];          /* radix (0 for the top digit) */
  int64_t ss[LI_MAXR], ds[LI_MAXR];
  int64_t sconst, dconst;        /* element offsets from the pad shifts */
  int64_t off;                   /* q = x + off */
  int64_t tab;                   /* a table dimension (no common radix):
                                    li_loop.tab of its one digit, else 0 */
  int64_t qa, qb;                /* the valid range [qa, qb) of q (data) */
  int64_t wa, wb;                /* the range the data boxes cover: [qa, qb)
                                    or, wide, whole top-unit blocks */
  int wide;                      /* its pieces are whole top-unit blocks,
                                    wider than [qa, qb) (staged boxes) */
  int npieces;
  piece *pieces;
} refdim;

typedef struct builder {
  li_plan *p;
  lay_error *err;
  li_plog *lg; /* the plan log, NULL */
  int cap;
  int lcap;
  int raw;     /* emitting holes */
  int rowi;    /* data: index of the fused row loop in emit's input, -1 */
  int64_t pre, post; /* its pads */
  int xside;   /* the plain side staged boxes stage: 0 none, 1 the source,
                  2 the destination */
  const int *dmap; /* D's dim for each of S's dims */
} builder;

static int add_piece(refdim *r, const piece *pc) {
  piece *np = realloc(r->pieces, sizeof *np * (size_t)(r->npieces + 1));
  if (!np) return -1;
  r->pieces = np;
  np[r->npieces++] = *pc;
  return 0;
}

static void free_refs(refdim *r, int n) {
  for (int i = 0; i < n; i++) {
    free(r[i].pieces);
    r[i].pieces = NULL;
  }
}

/* Digit values of q in the refined radix. */
static void digits_of(const refdim *r, int64_t q, int64_t *dg) {
  for (int i = 0; i < r->k; i++) {
    int64_t v = q / r->unit[i];
    dg[i] = r->rad[i] ? v % r->rad[i] : v;
  }
}

/* Emit pieces for [A, B) where digits above level k agree. */
static int decomp(refdim *r, int64_t A, int64_t B, int k) {
  int64_t u = r->unit[k], a = A / u, b = (B - 1) / u;
  piece pc;
  int64_t dg[LI_MAXR];
  if ((A % u == 0 && B % u == 0) || k == 0) {
    digits_of(r, A, dg);
    for (int i = 0; i < r->k; i++) {
      if (i > k) { pc.start[i] = dg[i]; pc.cnt[i] = 1; }
      else if (i == k) { pc.start[i] = dg[i]; pc.cnt[i] = b - a + 1; }
      else { pc.start[i] = 0; pc.cnt[i] = r->rad[i]; }
    }
    return add_piece(r, &pc);
  }
  if (a == b) return decomp(r, A, B, k - 1);
  int64_t tail = -1;
  if (A % u) {
    if (decomp(r, A, (a + 1) * u, k - 1)) return -1;
    a++;
  }
  if (B % u) { tail = b * u; b--; }
  if (a <= b) {
    digits_of(r, a * u, dg);
    for (int i = 0; i < r->k; i++) {
      if (i > k) { pc.start[i] = dg[i]; pc.cnt[i] = 1; }
      else if (i == k) { pc.start[i] = dg[i]; pc.cnt[i] = b - a + 1; }
      else { pc.start[i] = 0; pc.cnt[i] = r->rad[i]; }
    }
    if (add_piece(r, &pc)) return -1;
  }
  if (tail >= 0) return decomp(r, tail, B, k - 1);
  return 0;
}

/* Decompose [A, B) (in q) into pieces. */
static int cut(refdim *r, int64_t A, int64_t B) {
  if (A >= B) return 0;
  return decomp(r, A, B, r->k - 1);
}

/* Strides of refined digits for one side's dim: element stride of each
** refined digit, and the constant from a shift `delta` (q_side = q + delta,
** delta a multiple of the side's top unit). Returns -1 when a unit is not
** in the chain. */
static int side_strides(const li_side *s, int dim, const refdim *r,
                        int64_t delta, int64_t *st, int64_t *cst) {
  const li_sdim *d = &s->dim[dim];
  *cst = 0;
  for (int i = 0; i < r->k; i++) st[i] = 0;
  if (d->nd == 0) return 0;
  for (int i = 0; i < r->k; i++) {
    int j = -1;
    for (int m = 0; m < d->nd; m++)
      if (s->ax[d->dig[m]].div <= r->unit[i]) j = m;
    if (j < 0) return -1;
    const li_sax *a = &s->ax[d->dig[j]];
    st[i] = (r->unit[i] / a->div) * a->stride;
  }
  const li_sax *top = &s->ax[d->dig[d->nd - 1]];
  *cst = delta / top->div * top->stride;
  return 0;
}

static int64_t top_unit(const li_side *s, int dim) {
  const li_sdim *d = &s->dim[dim];
  return d->nd ? s->ax[d->dig[d->nd - 1]].div : 1;
}

/* Build the refined radix of S's dim i and D's dim j; 0 ok, 1 unsupported. */
static int refine(const li_side *S, int i, const li_side *D, int j,
                  refdim *r) {
  int64_t u[LI_MAXR];
  int n = 0;
  memset(r, 0, sizeof *r);
  const li_side *sd[2] = {S, D};
  int di[2] = {i, j};
  u[n++] = 1;
  for (int s = 0; s < 2; s++) {
    const li_sdim *d = &sd[s]->dim[di[s]];
    for (int m = 0; m < d->nd; m++) {
      int64_t v = sd[s]->ax[d->dig[m]].div;
      int k;
      for (k = 0; k < n && u[k] != v; k++) {}
      if (k == n) u[n++] = v;
    }
  }
  for (int a = 1; a < n; a++)
    for (int b = a; b > 0 && u[b] < u[b - 1]; b--) {
      int64_t t = u[b]; u[b] = u[b - 1]; u[b - 1] = t;
    }
  for (int a = 0; a + 1 < n; a++)
    if (u[a + 1] % u[a]) return 1;
  r->k = n;
  for (int a = 0; a < n; a++) {
    r->unit[a] = u[a];
    r->rad[a] = a + 1 < n ? u[a + 1] / u[a] : 0;
  }
  /* reference side: the one the other's shift is aligned to */
  int64_t offS = S->dim[i].off, offD = D->dim[j].off, delta = offD - offS;
  if (delta % top_unit(D, j) == 0) {
    r->off = offS;
    if (side_strides(S, i, r, 0, r->ss, &r->sconst) ||
        side_strides(D, j, r, delta, r->ds, &r->dconst))
      return 1;
  } else if (delta % top_unit(S, i) == 0) {
    r->off = offD;
    if (side_strides(S, i, r, -delta, r->ss, &r->sconst) ||
        side_strides(D, j, r, 0, r->ds, &r->dconst))
      return 1;
  } else {
    return 1;
  }
  return 0;
}

/* One dim of a single side (fills): the side's own radix. */
static void refine_one(const li_side *D, int j, refdim *r) {
  const li_sdim *d = &D->dim[j];
  memset(r, 0, sizeof *r);
  if (d->nd == 0) {
    r->k = 1;
    r->unit[0] = 1;
    r->rad[0] = 0;
  } else {
    r->k = d->nd;
    for (int m = 0; m < d->nd; m++) {
      const li_sax *a = &D->ax[d->dig[m]];
      r->unit[m] = a->div;
      r->rad[m] = m + 1 < d->nd ? a->mod : 0;
      r->ds[m] = a->stride;
    }
  }
  r->off = d->off;
}

/* The element offset that coordinate x of dim i contributes on side s. */
static int64_t dim_offset(const li_side *s, int i, int64_t x) {
  const li_sdim *d = &s->dim[i];
  int64_t q = x + d->off, e = 0;
  for (int m = 0; m < d->nd; m++) {
    const li_sax *a = &s->ax[d->dig[m]];
    int64_t v = q / a->div;
    e += (a->mod > 0 ? v % a->mod : v) * a->stride;
  }
  return e;
}

/* A dimension whose digits on the two sides have no common radix (c%3
** against c%4, or pads that shift one side off the other's digits):
** one table digit over its valid coordinates [lo, hi), each coordinate's
** offsets on both sides appended to p->tabs, relative to coordinate lo
** (whose offsets go into the constants). */
static lay_status tab_dim(li_plan *p, const li_side *S, int i,
                          const li_side *D, int j, int64_t lo, int64_t hi,
                          refdim *r, lay_error *err) {
  memset(r, 0, sizeof *r);
  r->k = 1;
  r->unit[0] = 1;
  int64_t n = hi > lo ? hi - lo : 0, bytes;
  if (mul64(n, 2 * (int64_t)sizeof(int64_t), &bytes) ||
      add64(bytes, p->ntabs * (int64_t)sizeof(int64_t), &bytes) ||
      (size_t)bytes > LI_MAX_TABLE_BYTES)
    return fail(err, LAY_E_LIMIT, "the plan's index tables exceed %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  int64_t *t = realloc(p->tabs, (size_t)bytes ? (size_t)bytes : 1);
  if (!t) return nomem(err);
  p->tabs = t;
  t += p->ntabs;
  r->sconst = n ? dim_offset(S, i, lo) : 0;
  r->dconst = n ? dim_offset(D, j, lo) : 0;
  for (int64_t x = 0; x < n; x++) {
    t[2 * x] = dim_offset(S, i, lo + x) - r->sconst;
    t[2 * x + 1] = dim_offset(D, j, lo + x) - r->dconst;
  }
  r->tab = p->ntabs + 1;
  p->ntabs += 2 * n;
  return LAY_OK;
}

/* Add a box from loops L[0..n) (any order; n <= LI_MAX_LOOPS): order,
** coalesce, choose the kernel (loops.c). */
static lay_status emit(builder *bd, li_loop *L, int n, int64_t sb, int64_t db,
                       int64_t cb, int fill, int pat) {
  li_plan *p = bd->p;
  int m = 0;
  int64_t pre = fill ? 0 : bd->pre, post = fill ? 0 : bd->post;
  for (int i = 0; i < n; i++)
    if (L[i].ext > 1 || (i == bd->rowi && (pre || post))) L[m++] = L[i];
  n = m;
  if (bd->lg) li_plog_loops(&bd->lg->cut, p->nbox, fill, pat, bd->raw, sb, db, L, n);
  li_order_loops(L, n);
  n = li_coalesce(L, n, pre || post);
  if (p->nbox == bd->cap) {
    int nc = bd->cap ? bd->cap * 2 : 16;
    li_box *nb = realloc(p->box, sizeof *nb * (size_t)nc);
    if (!nb) return nomem(bd->err);
    p->box = nb;
    bd->cap = nc;
  }
  if (p->nloops + n > bd->lcap) {
    int nc = bd->lcap * 2 + n + 16;
    li_loop *nl = realloc(p->loops, sizeof *nl * (size_t)nc);
    if (!nl) return nomem(bd->err);
    p->loops = nl;
    bd->lcap = nc;
  }
  li_box *b = &p->box[p->nbox++];
  memset(b, 0, sizeof *b);
  b->fill = fill;
  b->pat = pat;
  b->raw = bd->raw; /* 1 only for the holes, emitted last */
  b->nl = n;
  b->l0 = p->nloops;
  b->sb = sb;
  b->db = db;
  b->cb = cb;
  b->pre = pre;
  b->post = post;
  li_choose_kernel(p, b, L); /* may reorder L's outer loops, or take some
                                into a gather tile (b->nl fewer) */
  n = b->nl;
  memcpy(p->loops + p->nloops, L, sizeof *L * (size_t)n);
  p->nloops += n;
  if (bd->lg) li_plog_loops(&bd->lg->coal, p->nbox - 1, fill, pat, bd->raw, sb, db, L, n);
  return LAY_OK;
}

/* The range [*a, *b) of q that piece pc covers (its lower digits whole). */
static void piece_range(const refdim *r, const piece *pc, int64_t *a,
                        int64_t *b) {
  int64_t q0 = 0, q1 = 1;
  for (int k = 0; k < r->k; k++) {
    q0 += pc->start[k] * r->unit[k];
    q1 += (pc->cnt[k] - 1) * r->unit[k];
  }
  *a = q0;
  *b = q0 + q1;
}

static lay_status fill_boxes(builder *bd, refdim *V, refdim *O, refdim *F,
                             int rank, int pat, int chdim);

/* The loops of the box that is the product of the pieces pcs[i] of R[i]
** into L (returns their count), its bases into sb, db, cb. With pst, the
** strides of the staged side (bd->xside) are those of the dense array P
** over the pieces (pst[i]: dim i's stride in P), its base 0. */
static int box_loops(builder *bd, const refdim *R, const piece *const *pcs,
                     int rank, int chdim, int rowdim, int64_t K, int64_t offD,
                     const int64_t *pst, li_loop *L, int64_t *sb, int64_t *db,
                     int64_t *cb) {
  int n = 0;
  *sb = *db = *cb = 0;
  for (int i = 0; i < rank; i++) {
    const refdim *r = &R[i];
    const piece *pc = pcs[i];
    const int xs = pst && bd->xside == 1, xd = pst && bd->xside == 2;
    int64_t q0 = 0;
    if (!xs) *sb += r->sconst;
    if (!xd) *db += r->dconst;
    for (int k = 0; k < r->k; k++) {
      if (!xs) *sb += pc->start[k] * r->ss[k];
      if (!xd) *db += pc->start[k] * r->ds[k];
      q0 += pc->start[k] * r->unit[k];
      if (i == rowdim && k == 0) bd->rowi = n;
      if (pc->cnt[k] > 1 || (i == rowdim && k == 0)) {
        L[n].ext = pc->cnt[k];
        L[n].ss = xs ? r->unit[k] * pst[i] : r->ss[k];
        L[n].ds = xd ? r->unit[k] * pst[i] : r->ds[k];
        L[n].cs = i == chdim ? r->unit[k] : 0;
        L[n].tab = r->tab;
        n++;
      }
    }
    if (i == chdim) *cb = q0 - r->off;
    if (i == rowdim) {
      int64_t pd = (q0 + offD - r->off) % K;
      bd->pre = pd;
      bd->post = K - pd - pc->cnt[0];
    }
  }
  return n;
}

/* What a step of the macro tile t reaches on one side (xdst: the
** destination) of elements of esz bytes: its chunks and its own loops.
** *reach: the farthest offset; returns the positions. */
static int64_t mtile_reach(const li_mtile *t, int xdst, int64_t esz,
                           int64_t *reach) {
  int64_t far = 0;
  for (int c = 0; c < 1 << (t->k + t->lanes); c++) {
    const int64_t o = xdst ? t->out[c] : t->in[c];
    if (o < 0) { /* no slab holds it (stage_level gives up) */
      *reach = INT64_MAX / 4;
      return 1;
    }
    if (o + 15 > far) far = o + 15;
  }
  for (int i = 0; i < t->nl; i++) {
    const int64_t x = xdst ? t->l[i].dl : t->l[i].sl;
    if (x < 0) {
      *reach = INT64_MAX / 4;
      return 1;
    }
    far += x;
  }
  *reach = far / esz;
  return li_mtile_bytes(t) / esz;
}

/* What a step of staged box b reaches beyond its loops, on the staged
** side (xdst: the destination): the groups of contiguous elements its
** kernel moves as one (TR, ILV, DEILV), the rows and groups its table took
** out of the loops (TRG, TRC), the macro tile's chunks and loops (MTILE).
** *reach: the farthest offset; returns the positions. */
static int64_t kern_reach(const li_plan *p, const li_box *b, int xdst,
                          int64_t *reach) {
  int64_t n = 1, m = 0;
  if (b->kern == LI_K_MTILE)
    return mtile_reach(&p->mt[b->bk], xdst,
                       (int64_t)(xdst ? p->d.esz : p->s.esz), reach);
  if (b->kern == LI_K_TR && b->bk) {
    n = b->bk;
  } else if ((b->kern == LI_K_ILV || b->kern == LI_K_DEILV) && b->bk >> 8) {
    n = b->bk >> 8;
  } else if (b->kern == LI_K_TRG || b->kern == LI_K_TRC) {
    const li_trg *t = &p->trg[b->bk];
    n = 0;
    if (xdst) {
      for (int g = 0; g < t->ng; g++)
        if (t->grp[g] + t->g - 1 > m) m = t->grp[g] + t->g - 1;
      n = (int64_t)t->ng * t->g;
    } else if (b->kern == LI_K_TRC) { /* the columns, contiguous */
      n = t->ng;
    } else {
      for (int r = 0; r < 16; r++)
        if (t->row[r] >= 0) {
          n++;
          if (t->row[r] > m) m = t->row[r];
        }
    }
    *reach = m;
    return n > 0 ? n : 1;
  }
  *reach = n - 1;
  return n;
}

/* The loops of staged box b that stay outside its slab, the fewest whose
** slab (the span of the others on the staged side, xdst: the
** destination) fits LI_STAGE_BYTES: a source slab holding at most twice
** the elements the step reads (plus a margin), a destination slab exactly
** those the step writes (it is copied out whole). The span into *span;
** -1 when no number of loops does. */
static int stage_level(const li_plan *p, const li_box *b, int xdst,
                       int64_t *span) {
  const li_loop *L = &p->loops[b->l0];
  const int64_t esz = (int64_t)(xdst ? p->d.esz : p->s.esz);
  const int64_t cap = LI_STAGE_BYTES / esz, slack = xdst ? 0 : 64 / esz;
  int kl = li_kern_loops(b->kern), best = -1;
  if (kl > b->nl) kl = b->nl;
  int64_t far, used = kern_reach(p, b, xdst, &far);
  for (int k = b->nl - 1; k >= 0; k--) {
    const li_loop *l = &L[k];
    int64_t x = xdst ? l->ds : l->ss;
    if (l->tab || x < 0) return -1;
    far += (l->ext - 1) * x;
    used *= l->ext;
    if (far + 1 > cap) break;
    if (k <= b->nl - kl &&
        (xdst ? far + 1 == used : far + 1 <= 2 * used + slack)) {
      best = k;
      *span = far + 1;
    }
  }
  return best;
}

/* The dense array P of a staged box over the pieces pcs[i] of R[i]: its
** dims in the memory order of the staged side X (one strided digit each),
** their strides pst[i] and the stage's extents, valid ranges, X strides
** and origin. */
static void stage_array(const builder *bd, const refdim *R,
                        const piece *const *pcs, int rank, int64_t *pst,
                        li_stage *sg) {
  const li_plan *p = bd->p;
  const li_side *X = bd->xside == 1 ? &p->s : &p->d;
  int ord[LG_MAX_RANK];
  int64_t xst[LG_MAX_RANK];
  for (int i = 0; i < rank; i++) {
    int j = bd->xside == 1 ? i : bd->dmap[i];
    const li_sdim *d = &X->dim[j];
    xst[i] = d->nd ? X->ax[d->dig[0]].stride : 0;
    int c = i;
    for (; c > 0 && xst[ord[c - 1]] < xst[i]; c--) ord[c] = ord[c - 1];
    ord[c] = i;
  }
  memset(sg, 0, sizeof *sg);
  sg->dst = bd->xside == 2;
  sg->nd = rank;
  int64_t st = 1;
  for (int c = rank - 1; c >= 0; c--) {
    int i = ord[c], j = bd->xside == 1 ? i : bd->dmap[i];
    int64_t pa, pb;
    piece_range(&R[i], pcs[i], &pa, &pb);
    pst[i] = st;
    sg->ext[c] = pb - pa;
    sg->v0[c] = R[i].qa > pa ? R[i].qa - pa : 0;
    sg->v1[c] = R[i].qb < pb ? R[i].qb - pa : pb - pa;
    sg->st[c] = xst[i];
    sg->org += (pa - R[i].off + X->dim[j].off) * xst[i];
    st *= pb - pa;
  }
}
static lay_status data_boxes(builder *bd, refdim *R, int rank, int chdim,
                             int rowdim, int64_t K, int64_t offD);

/* A staged box that cannot stage (its slab would not fit): the valid part
** of each of its widened dims cut exactly, as without widening, and (the
** source staged) the destination's pads it would have written as fills. */
static lay_status exact_box(builder *bd, const refdim *R,
                            const piece *const *pcs, int rank, int chdim,
                            int rowdim, int64_t K, int64_t offD) {
  const li_side *D = &bd->p->d;
  refdim *T = calloc((size_t)rank * 4, sizeof *T);
  if (!T) return nomem(bd->err);
  refdim *V = T + rank, *O = T + 2 * rank, *F = T + 3 * rank;
  lay_status st = LAY_OK;
  for (int i = 0; i < rank && !st; i++) {
    int64_t pa, pb;
    piece_range(&R[i], pcs[i], &pa, &pb);
    int64_t a = pa > R[i].qa ? pa : R[i].qa, b = pb < R[i].qb ? pb : R[i].qb;
    T[i] = R[i];
    T[i].pieces = NULL;
    T[i].npieces = 0;
    T[i].wide = 0;
    if (!R[i].wide || (pa >= R[i].qa && pb <= R[i].qb)) {
      if (add_piece(&T[i], pcs[i])) st = nomem(bd->err);
    } else if (cut(&T[i], a, b)) {
      st = nomem(bd->err);
    }
    if (bd->xside != 1) continue;
    /* the destination's q of the box and of its data (the fused row
    ** dimension: whole rows of K, as data_boxes writes them) */
    const int j = bd->dmap[i];
    const int64_t sh = D->dim[j].off - R[i].off;
    if (i == rowdim) { /* whole rows: pad_boxes leaves their pads to us */
      a -= (a + sh) % K;
      pa -= (pa + sh) % K;
      if ((b + sh) % K) b += K - (b + sh) % K;
      if ((pb + sh) % K) pb += K - (pb + sh) % K;
    }
    refine_one(D, j, &V[i]);
    refine_one(D, j, &O[i]);
    refine_one(D, j, &F[i]);
    if (cut(&V[i], a + sh, b + sh) || cut(&O[i], pa + sh, a + sh) ||
        cut(&O[i], b + sh, pb + sh) || cut(&F[i], pa + sh, pb + sh))
      st = nomem(bd->err);
  }
  if (!st) st = data_boxes(bd, T, rank, chdim, rowdim, K, offD);
  bd->rowi = -1;
  bd->pre = bd->post = 0;
  if (!st && bd->xside == 1) st = fill_boxes(bd, V, O, F, rank, 0, -1);
  free_refs(T, rank * 4);
  free(T);
  return st;
}

/* A mark of the plan's boxes, loops and tables: what is emitted after it
** can be taken back. */
typedef struct mark {
  int nbox, nloops, ntrg, nmt;
} mark;

static mark mark_of(const li_plan *p) {
  mark m = {p->nbox, p->nloops, p->ntrg, p->nmt};
  return m;
}

static void back_to(li_plan *p, mark m) {
  p->nbox = m.nbox;
  p->nloops = m.nloops;
  p->ntrg = m.ntrg;
  p->nmt = m.nmt;
}

/* An estimate of the time boxes [from, p->nbox) take, in ns, to choose
** between staging a box and cutting it exactly: a box costs a start, its
** kernel's steps (ILV and DEILV run the two odometer loops outside theirs
** in one call), its row operations (a row of a row or block copy, a
** 32-byte vector of a transposing kernel) and its bytes; a staged box
** also its fills: a row operation a row of P, a group of them a run of
** its next dimension, twice its bytes. Rough figures of this machine (an
** EPYC at 2 vCPUs, the sweep's odd shapes: qnn.d32's last pixels stay
** exact, crouton2's last channels stage); what decides is the count of
** steps and rows, which the exact cut multiplies at the edges. A box
** whose stage is -1 is staged by sg; a fill box another box writes
** (DONE) costs nothing. */
static double est_ns(const li_plan *p, int from, const li_stage *sg) {
  const double per_box = 30, per_step = 25, per_row = 2, per_byte = 0.02;
  const double per_fill_row = 3, per_group = 10;
  double t = 0;
  for (int i = from; i < p->nbox; i++) {
    const li_box *b = &p->box[i];
    if (b->kern == LI_K_DONE) continue;
    const li_loop *L = &p->loops[b->l0];
    int kl = li_kern_loops(b->kern);
    if (kl > b->nl) kl = b->nl;
    double steps = 1, el = 1, g = 1;
    int batch = b->kern == LI_K_ILV || b->kern == LI_K_DEILV ? 2 : 0;
    for (int k = b->nl - 1; k >= 0; k--) {
      if (k < b->nl - kl && batch-- <= 0) steps *= (double)L[k].ext;
      el *= (double)L[k].ext;
    }
    if (b->kern == LI_K_TR && b->bk) g = b->bk;
    if ((b->kern == LI_K_ILV || b->kern == LI_K_DEILV) && b->bk >> 8)
      g = b->bk >> 8;
    if (b->kern == LI_K_TRG || b->kern == LI_K_TRC)
      g = (double)(16 / p->d.esz);
    if (b->kern == LI_K_MTILE) /* the tile over its own loops */
      g = (double)(li_mtile_bytes(&p->mt[b->bk]) / (int64_t)p->d.esz);
    /* a fill of one or two loops runs as memsets, no walk (exec.c
    ** memset_runs): a row costs what a slab's fill row does */
    const double step = b->kern == LI_K_MEMSET && b->nl <= 2 ? per_fill_row
                                                              : per_step;
    const double rows = el / (double)L[b->nl - 1].ext;
    const double bytes = (el * g + rows * (double)(b->pre + b->post)) *
                         (double)p->d.esz;
    const int vec = b->kern != LI_K_ROWS && b->kern != LI_K_BLOCK &&
                    b->kern != LI_K_COPY && b->kern != LI_K_MEMCPY &&
                    b->kern != LI_K_MEMSET && b->kern != LI_K_FILL;
    t += per_box + steps * step + per_byte * bytes +
         per_row * (vec ? bytes / 32 : rows);
    if (b->stage) { /* its fills or drains */
      const li_stage *x = b->stage < 0 ? sg : &p->stage[b->stage - 1];
      const int l = x->nd - 1;
      double n = 1;
      for (int k = 0; k < x->nd; k++) n *= (double)x->ext[k];
      const double prow = n / (double)x->ext[l];
      t += per_fill_row * prow + 2 * per_byte * n * (double)p->d.esz +
           per_group * 2 * prow / (double)(l > 0 ? x->ext[l - 1] : 1);
    }
  }
  return t;
}

/* The staged box over the pieces pcs[i] of R[i]: on the staged side, the
** strides of the dense array P over them (stage_array); then, from its
** kernel's loops, the loops outside its slab (stage_level, sg->k: -1 when
** no slab fits). *notile: 1 when the box lost its macro tile to fit; on
** entry, 1 emits it without the tile at once (the trial found so: no
** box of the first try left in the plan's log). */
static lay_status staged_emit(builder *bd, const refdim *R,
                              const piece *const *pcs, int rank, int chdim,
                              int rowdim, int64_t K, int64_t offD,
                              li_stage *sg, int *notile) {
  li_loop L[LG_MAX_RANK * LI_MAXR];
  int64_t pst[LG_MAX_RANK], sb, db, cb, span = 0;
  li_plan *p = bd->p;
  const mark m = mark_of(p);
  stage_array(bd, R, pcs, rank, pst, sg);
  for (int t = *notile; t < 2; t++) {
    /* a macro tile whose digits span more than a slab: the box without */
    int n = box_loops(bd, R, pcs, rank, chdim, rowdim, K, offD, pst, L, &sb,
                      &db, &cb);
    p->no_mtile = t;
    lay_status st = emit(bd, L, n, sb, db, cb, 0, 0);
    p->no_mtile = 0;
    if (st) return st;
    sg->k = stage_level(p, &p->box[m.nbox], bd->xside == 2, &span);
    if (sg->k >= 0 || p->box[m.nbox].kern != LI_K_MTILE) break;
    back_to(p, m);
    *notile = 1;
  }
  sg->span = span;
  return LAY_OK;
}

/* LAY_STAGE=all (read once): every box at a widened edge is staged where
** its slab fits, whatever est_ns says; the tests run so, to stage many
** more plans than the estimate chooses (the bytes are the same). */
static int stage_all(void) {
  static int cached = -1; /* a benign race: every thread computes the same */
  if (cached < 0) {
    const char *e = getenv("LAY_STAGE");
    cached = e && !strcmp(e, "all");
  }
  return cached;
}

/* A box that reaches past the valid range of a widened dim: staged (its
** loops those of the interior boxes, the kernel theirs), or cut exactly,
** as without widening (exact_box), whichever est_ns finds faster (cut
** where the staged box would lose its macro tile: est_ns does not know
** how much slower the kernel without it is)
** (crouton2's last 5 channels: blocks of 5 x 2 bytes exactly, a step
** each, 32 x 2 staged; crouton's last rows of h: the same row copies,
** fewer of them, exact moves no byte twice); staged when the exact cut
** takes over LI_STAGE_CUTS boxes (eight dimensions cut at both ends: 3^8,
** over the plan's limit). */
#define LI_STAGE_CUTS 64
static lay_status ragged_box(builder *bd, const refdim *R,
                             const piece *const *pcs, int rank, int chdim,
                             int rowdim, int64_t K, int64_t offD) {
  li_plan *p = bd->p;
  li_plog *lg = bd->lg;
  const mark m = mark_of(p);
  li_stage sg;
  double ts = 0, tx = 0;
  int nx = 0; /* boxes of the exact cut */
  bd->lg = NULL; /* the trials */
  int notile = 0;
  lay_status st = staged_emit(bd, R, pcs, rank, chdim, rowdim, K, offD, &sg,
                              &notile);
  if (!st && sg.k >= 0) {
    li_box *b = &p->box[m.nbox];
    b->stage = -1; /* est_ns: its fills, from sg */
    ts = est_ns(p, m.nbox, &sg);
    back_to(p, m);
    st = exact_box(bd, R, pcs, rank, chdim, rowdim, K, offD);
    tx = est_ns(p, m.nbox, NULL);
    nx = p->nbox - m.nbox;
  }
  back_to(p, m);
  bd->lg = lg;
  if (st) return st;
  if (sg.k < 0 ||
      ((ts >= tx || notile) && nx <= LI_STAGE_CUTS && !stage_all()))
    return exact_box(bd, R, pcs, rank, chdim, rowdim, K, offD);
  if ((st = staged_emit(bd, R, pcs, rank, chdim, rowdim, K, offD, &sg,
                        &notile)))
    return st;
  li_stage *ns = realloc(p->stage, sizeof *ns * (size_t)(p->nstage + 1));
  if (!ns) return nomem(bd->err);
  p->stage = ns;
  ns[p->nstage++] = sg;
  p->box[m.nbox].stage = p->nstage;
  return LAY_OK;
}

/* Product of pieces over dims: data boxes; those that reach past the
** valid range of a widened dim are staged. */
static lay_status data_boxes(builder *bd, refdim *R, int rank, int chdim,
                             int rowdim, int64_t K, int64_t offD) {
  int idx[LG_MAX_RANK] = {0};
  int64_t total = 1;
  bd->rowi = -1; /* box_loops sets them on the fused row dimension */
  bd->pre = bd->post = 0;
  for (int i = 0; i < rank; i++) {
    if (R[i].npieces == 0) return LAY_OK;
    total *= R[i].npieces;
    if (total + bd->p->nbox > LI_MAX_BOXES)
      return fail(bd->err, LAY_E_LIMIT, "the plan needs more than %d boxes",
                  LI_MAX_BOXES);
  }
  for (;;) {
    const piece *pcs[LG_MAX_RANK];
    int ragged = 0;
    for (int i = 0; i < rank; i++) {
      int64_t pa, pb;
      pcs[i] = &R[i].pieces[idx[i]];
      piece_range(&R[i], pcs[i], &pa, &pb);
      if (R[i].wide && bd->xside && (pa < R[i].qa || pb > R[i].qb))
        ragged = 1;
    }
    lay_status st;
    if (ragged) {
      st = ragged_box(bd, R, pcs, rank, chdim, rowdim, K, offD);
    } else {
      li_loop L[LG_MAX_RANK * LI_MAXR];
      int64_t sb, db, cb;
      int n = box_loops(bd, R, pcs, rank, chdim, rowdim, K, offD, NULL, L,
                        &sb, &db, &cb);
      st = emit(bd, L, n, sb, db, cb, 0, 0);
    }
    if (st) return st;
    int i;
    for (i = rank - 1; i >= 0; i--) {
      if (++idx[i] < R[i].npieces) break;
      idx[i] = 0;
    }
    if (i < 0) return LAY_OK;
  }
}

/* Fill boxes on D: for every dim i, pieces "valid" (V), "outside" (O) and
** "all" (F) of D's own digits; emits V0 x .. x V(i-1) x Oi x F(i+1) x ..
** for every i. */
static lay_status fill_boxes(builder *bd, refdim *V, refdim *O, refdim *F,
                             int rank, int pat, int chdim) {
  for (int i = 0; i < rank; i++) {
    refdim *sel[LG_MAX_RANK];
    int skip = 0;
    for (int k = 0; k < rank; k++) {
      sel[k] = k < i ? &V[k] : k == i ? &O[k] : &F[k];
      if (sel[k]->npieces == 0) skip = 1;
    }
    if (skip) continue;
    int64_t total = 1;
    for (int k = 0; k < rank; k++) {
      total *= sel[k]->npieces;
      if (total + bd->p->nbox > LI_MAX_BOXES)
        return fail(bd->err, LAY_E_LIMIT, "the plan needs more than %d boxes",
                    LI_MAX_BOXES);
    }
    int idx[LG_MAX_RANK] = {0};
    for (;;) {
      li_loop L[LG_MAX_RANK * LI_MAXR];
      int n = 0;
      int64_t db = 0, cb = 0;
      for (int k = 0; k < rank; k++) {
        const refdim *r = sel[k];
        const piece *pc = &r->pieces[idx[k]];
        int64_t q0 = 0;
        for (int m = 0; m < r->k; m++) {
          db += pc->start[m] * r->ds[m];
          q0 += pc->start[m] * r->unit[m];
          if (pc->cnt[m] > 1) {
            L[n].ext = pc->cnt[m];
            L[n].ss = L[n].tab = 0;
            L[n].ds = r->ds[m];
            L[n].cs = k == chdim ? r->unit[m] : 0;
            n++;
          }
        }
        if (k == chdim) cb = q0 - r->off;
      }
      lay_status st = emit(bd, L, n, 0, db, cb, 1, pat);
      if (st) return st;
      int k;
      for (k = rank - 1; k >= 0; k--) {
        if (++idx[k] < sel[k]->npieces) break;
        idx[k] = 0;
      }
      if (k < 0) break;
    }
  }
  return LAY_OK;
}

/* Holes between strided axes and after the last offset. */
static lay_status hole_boxes(builder *bd, const li_side *D, int pat) {
  bd->raw = 1;
  int ord[LG_MAX_AXES], no = li_sorted_axes(D, ord);
  int64_t span = 1;
  for (int k = 0; k < no; k++) {
    const li_sax *a = &D->ax[ord[k]];
    int64_t gap = a->stride - span;
    if (gap > 0) {
      li_loop L[LG_MAX_AXES + 2];
      int n = 0;
      for (int m = k + 1; m < no; m++) {
        L[n].ext = D->ax[ord[m]].ext;
        L[n].ds = D->ax[ord[m]].stride;
        L[n].ss = L[n].cs = L[n].tab = 0;
        n++;
      }
      L[n].ext = a->ext - 1;
      L[n].ds = a->stride;
      L[n].ss = L[n].cs = L[n].tab = 0;
      n++;
      L[n].ext = gap;
      L[n].ds = 1;
      L[n].ss = L[n].cs = L[n].tab = 0;
      n++;
      lay_status st = emit(bd, L, n, 0, span, 0, 1, pat);
      if (st) return st;
    }
    span += a->stride * (a->ext - 1);
  }
  if (D->nelem > span) {
    li_loop L[1] = {{D->nelem - span, 0, 1, 0, 0}};
    return emit(bd, L, 1, 0, span, 0, 1, pat);
  }
  return LAY_OK;
}

/* ---- Plan assembly ------------------------------------------------------ */

/* A side's pad element as stored: the pad value in the side's hardware
** type, and with byte planes that value split into its planes like any
** element (lang/ir.h: plane k is (u >> shift) & mask of its bits u). */
static void pad_element(const li_side *x, uint8_t *out) {
  if (!x->v.nplanes) {
    li_st(x->v.hw, out, x->v.pad, LG_R_HALF_EVEN, 1);
    if (x->v.pad_int && li_dt_size(x->v.hw) == 8 && !li_dt_is_float(x->v.hw))
      memcpy(out, &x->v.pad_bits, 8); /* exact: an int64 or uint64 pad */
    return;
  }
  uint8_t el[8] = {0};
  li_st(x->v.hw, el, x->v.pad, LG_R_HALF_EVEN, 1);
  uint32_t u = 0;
  for (size_t i = 0; i < li_dt_size(x->v.hw) && i < 4; i++)
    u |= (uint32_t)el[i] << (8 * i);
  for (int k = 0; k < x->v.nplanes; k++)
    out[k] = (uint8_t)((u >> x->v.shift[k]) & x->v.mask[k]);
}

/* Pad patterns: 0 = D's pad, 1 = S's pad converted to D. */
static void make_pats(li_plan *p) {
  li_side *S = &p->s, *D = &p->d;
  memset(p->pats, 0, sizeof(*p->pats) * 3);
  /* D's own pad element */
  pad_element(D, p->pats[0]);
  /* S's pad element, as S stores it, converted */
  uint8_t sel[LI_PAT_MAX] = {0}, tmp[LI_PAT_MAX * 4] = {0};
  li_side s1 = *S, d1 = *D;
  s1.pstride = 1;
  d1.pstride = 1;
  pad_element(S, sel);
  li_conv_block(&s1, &d1, sel, 0, 1, tmp, 0, 1, 1, 1, 0, 0, 0, 0, 0, NULL);
  memcpy(p->pats[1], tmp, LI_PAT_MAX);
  memcpy(p->pats[2], sel, LI_PAT_MAX); /* S's pad element as stored */
}

/* D's pads (its padded box outside its window) as fill boxes: V = D's
** window, O = outside it, F = all, per dimension (dmap[i]: D's dim for
** index i); on the fused row dimension (rowdim, rows of K) at row
** granularity; on a dimension the staged boxes widen (R, the source
** staged), V is their range. V, O and F hold rank refdims each, freed by the caller. */
static lay_status pad_boxes(builder *bd, const li_side *D, const int *dmap,
                            const refdim *R, int rank, int rowdim, int64_t K,
                            refdim *V, refdim *O, refdim *F) {
  for (int i = 0; i < rank; i++) {
    int j = dmap[i];
    const li_sdim *b = &D->dim[j];
    int64_t A = b->before, B = b->before + b->hi - b->lo;
    if (R && R[i].wide && bd->xside == 1) { /* staged boxes write these */
      A = R[i].wa - R[i].off + b->off;
      B = R[i].wb - R[i].off + b->off;
    }
    if (i == rowdim) {
      A -= A % K;
      if (B % K) B += K - B % K;
      if (B > b->ext) B = b->ext;
    }
    refine_one(D, j, &V[i]);
    refine_one(D, j, &O[i]);
    refine_one(D, j, &F[i]);
    if (cut(&V[i], A, B) || cut(&O[i], 0, A) || cut(&O[i], B, b->ext) ||
        cut(&F[i], 0, b->ext))
      return nomem(bd->err);
  }
  return fill_boxes(bd, V, O, F, rank, 0, -1);
}

/* Whether side x is plain: every dimension one digit of its own stride
** (the CPU side, NHWC, TIDL's padded planes), no table, no planes. */
static int plain_side(const li_side *x) {
  if (x->table || x->v.nplanes) return 0;
  for (int i = 0; i < x->rank; i++) {
    const li_sdim *d = &x->dim[i];
    if (d->nd > 1) return 0;
    if (d->nd == 1) {
      const li_sax *a = &x->ax[d->dig[0]];
      if (a->div != 1 || (a->mod > 0 && a->mod < d->ext)) return 0;
    }
  }
  return 1;
}

/* The side whose elements staged boxes stage: 1 the source, 2 the
** destination, 0 none. The plan moves bytes as they are (no value rule,
** no planes, no table) and exactly one side is plain; the source staged,
** its window holds the destination's (so that the widened elements are
** the destination's pads, and its pads outside the data a box's
** complement: pad_boxes). */
static int stage_side(const li_plan *p, const int *dmap) {
  if (p->slow || p->s.table || p->d.table) return 0;
  const int ps = plain_side(&p->s), pd = plain_side(&p->d);
  if (pd && !ps) return 2;
  if (!ps || pd) return 0;
  for (int i = 0; i < p->s.rank; i++) {
    const li_sdim *a = &p->s.dim[i], *b = &p->d.dim[dmap[i]];
    if (a->lo > b->lo || a->hi < b->hi) return 0;
  }
  return 1;
}

/* Whether side dim Y's padded box holds [wa, wb) (in r's q). */
static int holds(const li_sdim *Y, const refdim *r, int64_t wa, int64_t wb) {
  const int64_t sh = Y->off - r->off; /* Y's q of a coordinate - r's */
  return wa + sh >= 0 && wb + sh <= Y->ext;
}

/* Widen dim i's data range [qa, qb) to whole blocks of its top unit
** (r->wa, r->wb, r->wide) where the side that is not staged, Y, holds the
** widened range in its padded box: the widened elements are then the
** destination's pads (the source staged), or elements of the source's
** padded box never copied out (the destination staged). With no staged
** side (spilled boxes: spill_boxes), where both sides hold it. */
static void widen(const builder *bd, int i, refdim *r) {
  const li_plan *p = bd->p;
  const li_sdim *S = &p->s.dim[i], *D = &p->d.dim[bd->dmap[i]];
  /* staged: the top unit's blocks; spilled: the largest unit's that both
  ** sides hold (hcwnc4's 40 channels against crouton's 64: blocks of 4) */
  for (int k = r->k - 1; k >= (bd->xside ? r->k - 1 : 1); k--) {
    const int64_t U = r->unit[k];
    const int64_t wa = r->qa - ((r->qa % U) + U) % U;
    const int64_t wb = r->qb + (U - ((r->qb % U) + U) % U) % U;
    if (wa == r->qa && wb == r->qb) return;
    if (bd->xside == 1 ? !holds(D, r, wa, wb)
        : bd->xside == 2 ? !holds(S, r, wa, wb)
        : !holds(S, r, wa, wb) || !holds(D, r, wa, wb))
      continue;
    r->wa = wa;
    r->wb = wb;
    r->wide = 1;
    return;
  }
}

/* Cut dim r's data range into pieces: [qa, qb), or, widened, the whole
** blocks inside it (unstaged boxes) and the blocks at either end. */
static int cut_wide(refdim *r) {
  if (!r->wide) return cut(r, r->qa, r->qb);
  const int64_t U = r->unit[r->k - 1];
  int64_t a = r->wa + (r->wa < r->qa ? U : 0), b = r->wb - (r->wb > r->qb ? U : 0);
  if (a > b) a = b; /* one block */
  return cut(r, r->wa, a) || cut(r, a, b) || cut(r, b, r->wb);
}

/* Spilled boxes: a plan that moves bytes as they are (no value rule,
** planes or table) between two sides that are not plain, the source's
** window holding the destination's. Where both sides' padded boxes hold
** a dimension's data range widened to whole blocks (widen: of the
** largest unit both hold), the data boxes may copy the whole blocks: the
** widened elements are the destination's pads, written first with
** whatever the source's pads hold and then by the pad boxes, which run
** after the data boxes (p->spill: exec.c runs them so). At the odd edges
** this trades the exact cut's many small boxes (each dimension cut at its
** last block: up to 3^rank boxes, short rows, per-element kernels) for a
** few whole ones: qnn.crouton -> qnn.crouton2x2 int8 [1,29,23,37] took
** 18 data boxes and 10 us, spilled 1 box and 3.3 us. spill_side: whether
** the plan may spill. */
static int spill_side(const li_plan *p, const int *dmap) {
  if (p->slow || p->s.table || p->d.table || plain_side(&p->s) ||
      plain_side(&p->d))
    return 0;
  for (int i = 0; i < p->s.rank; i++) {
    const li_sdim *a = &p->s.dim[i], *b = &p->d.dim[dmap[i]];
    if (a->lo > b->lo || a->hi < b->hi) return 0;
  }
  return 1;
}

/* The data boxes, spilled where est_ns finds them faster than the exact
** cut (R's pieces); *rowdim and *offD lose the fused row padding where
** its dimension widens. W holds rank refdims, freed by the caller. */
static lay_status spill_boxes(builder *bd, refdim *R, refdim *W, int rank,
                              int chdim, int *rowdim, int64_t K,
                              int64_t *offD) {
  li_plan *p = bd->p;
  li_plog *lg = bd->lg;
  int wide = 0, rd = *rowdim;
  for (int i = 0; i < rank; i++)
    if (R[i].tab) return data_boxes(bd, R, rank, chdim, *rowdim, K, *offD);
  for (int i = 0; i < rank; i++) {
    W[i] = R[i];
    W[i].pieces = NULL;
    W[i].npieces = 0;
    if (W[i].qa < W[i].qb) widen(bd, i, &W[i]);
    wide |= W[i].wide;
    if (cut(&W[i], W[i].wa, W[i].wb)) return nomem(bd->err);
  }
  if (rd >= 0 && W[rd].wide) rd = -1;
  const int64_t oW = rd >= 0 ? *offD : 0;
  const mark m = mark_of(p);
  bd->lg = NULL; /* the trials */
  lay_status st = data_boxes(bd, R, rank, chdim, *rowdim, K, *offD);
  const double tx = st ? 0 : est_ns(p, m.nbox, NULL);
  back_to(p, m);
  if (!st && wide) {
    st = data_boxes(bd, W, rank, chdim, rd, K, oW);
    const double tw = st ? 0 : est_ns(p, m.nbox, NULL);
    back_to(p, m);
    if (!st && tw < tx) {
      bd->lg = lg;
      st = data_boxes(bd, W, rank, chdim, rd, K, oW);
      p->spill = p->nbox;
      *rowdim = rd;
      *offD = oW;
      return st;
    }
  }
  bd->lg = lg;
  return st ? st : data_boxes(bd, R, rank, chdim, *rowdim, K, *offD);
}

/* The plan log's "refine" step: each dimension's common digits, or its
** table, and the fused row dimension. */
static void log_refine(li_plog *lg, const li_plan *p, const int *dmap,
                       const refdim *R, int rowdim, int64_t K) {
  lg_strbuf *b = &lg->step;
  for (int i = 0; i < p->s.rank; i++) {
    const refdim *r = &R[i];
    lg_sb_printf(b, "dim %s (destination dim %d): ", p->dname[i], dmap[i]);
    if (r->tab) {
      lg_sb_printf(b, "no common radix: a table of %lld offset pairs",
                   (long long)r->pieces[0].cnt[0]);
    } else {
      lg_sb_printf(b, "%d digit%s", r->k, r->k == 1 ? "" : "s");
      for (int k = 0; k < r->k; k++) {
        lg_sb_printf(b, "%s unit %lld", k ? "," : "", (long long)r->unit[k]);
        if (r->rad[k]) lg_sb_printf(b, " radix %lld", (long long)r->rad[k]);
        lg_sb_printf(b, " (src %lld, dst %lld)", (long long)r->ss[k],
                     (long long)r->ds[k]);
      }
    }
    lg_sb_printf(b, "; %d piece%s\n", r->npieces, r->npieces == 1 ? "" : "s");
  }
  if (rowdim >= 0)
    lg_sb_printf(b, "fused row padding: dim %s, rows of %lld\n",
                 p->dname[rowdim], (long long)K);
  else
    lg_sb_printf(b, "no fused row padding\n");
  li_plog_step(lg, "refine");
}

/* Build the boxes of p (sides filled in). dmap[i] = D's dim for S's dim i. */
static lay_status build_boxes(li_plan *p, const int *dmap, li_plog *lg,
                              lay_error *err) {
  builder bd = {p, err, lg, 0, 0, 0, -1, 0, 0, 0, NULL};
  li_side *S = &p->s, *D = &p->d;
  int rank = S->rank;
  lay_status st = LAY_OK;
  refdim *R = calloc((size_t)rank * 5, sizeof *R);
  if (!R) return nomem(err);
  refdim *V = R + rank, *O = R + 2 * rank, *F = R + 3 * rank, *W = R + 4 * rank;
  p->npat = 3;
  p->pats = calloc(3, sizeof *p->pats);
  if (!p->pats) { free(R); return nomem(err); }
  make_pats(p);
  int chdim = -1;
  if (S->v.axis >= 0) chdim = S->v.axis;
  if (D->v.axis >= 0) {
    int c = -1;
    for (int i = 0; i < rank; i++)
      if (dmap[i] == D->v.axis) c = i;
    if (chdim >= 0 && chdim != c) {
      free(R);
      return fail(err, LAY_E_LAYOUT,
                  "both layouts quantize per channel along different "
                  "dimensions");
    }
    chdim = c;
  }
  /* data: a common radix per dimension, or else a table dimension */
  for (int i = 0; i < rank && !st; i++) {
    const li_sdim *a = &S->dim[i], *b = &D->dim[dmap[i]];
    int64_t lo = a->lo > b->lo ? a->lo : b->lo, hi = a->hi < b->hi ? a->hi : b->hi;
    if (refine(S, i, D, dmap[i], &R[i]) &&
        (st = tab_dim(p, S, i, D, dmap[i], lo, hi, &R[i], err)))
      break;
    R[i].qa = R[i].wa = lo + R[i].off;
    R[i].qb = R[i].wb = hi + R[i].off;
  }
  /* Fused row padding: D's innermost axis (stride 1, the lowest digit of
  ** its dim, K values) is written whole by the data boxes, pads included,
  ** when every row meets at most one data piece, S covers D's window and
  ** no dimension needs a table loop. With byte planes, only for the pair
  ** (li_pair_planes), whose kernels write the pads with the rows. */
  int rowdim = -1;
  int64_t K = 0;
  if (!st && (!D->v.nplanes || li_pair_planes(&D->v))) {
    int ok = 1, jr = -1;
    for (int i = 0; i < rank; i++) {
      const li_sdim *a = &S->dim[i], *b = &D->dim[dmap[i]];
      if (a->lo > b->lo || a->hi < b->hi) ok = 0;
      if (R[i].tab) ok = 0; /* the table loop is the innermost */
    }
    for (int j = 0; j < D->naxes; j++)
      if (D->ax[j].ext > 1 && D->ax[j].stride == 1) jr = j;
    if (ok && jr >= 0 && D->ax[jr].kind == LG_AX_DIGIT && D->ax[jr].div == 1) {
      K = D->ax[jr].ext;
      for (int i = 0; i < rank; i++)
        if (dmap[i] == D->ax[jr].dim && !R[i].tab &&
            (R[i].k == 1 || (R[i].rad[0] == K && D->ax[jr].mod == K)))
          rowdim = i;
    }
  }
  /* Where one side is plain, a dimension's data range widened to whole
  ** blocks of the other: staged boxes */
  bd.xside = stage_side(p, dmap);
  bd.dmap = dmap;
  int wide = 0;
  for (int i = 0; i < rank && !st; i++) {
    if (bd.xside && !R[i].tab && R[i].qa < R[i].qb)
      widen(&bd, i, &R[i]);
    if (cut_wide(&R[i])) st = nomem(err);
    wide |= R[i].wide;
  }
  if (wide && bd.xside == 2) rowdim = -1; /* its pads would be staged */
  if (!st && lg) log_refine(lg, p, dmap, R, rowdim, K);
  int64_t offD = rowdim >= 0 ? D->dim[dmap[rowdim]].off : 0;
  if (!st && !bd.xside && spill_side(p, dmap))
    st = spill_boxes(&bd, R, W, rank, chdim, &rowdim, K, &offD);
  else if (!st)
    st = data_boxes(&bd, R, rank, chdim, rowdim, K, offD);
  if (!st && p->slow) li_merge_ragged(p, 0);
  bd.rowi = -1;
  bd.pre = bd.post = 0;
  if (!st) st = pad_boxes(&bd, D, dmap, R, rank, rowdim, K, V, O, F);
  /* elements inside D's window that S does not provide */
  if (!st) {
    free_refs(V, rank);
    free_refs(O, rank);
    free_refs(F, rank);
    int any = 0;
    for (int i = 0; i < rank && !st; i++) {
      int j = dmap[i];
      const li_sdim *a = &S->dim[i], *b = &D->dim[j];
      int64_t lo = a->lo > b->lo ? a->lo : b->lo,
              hi = a->hi < b->hi ? a->hi : b->hi;
      refine_one(D, j, &V[i]);
      refine_one(D, j, &O[i]);
      refine_one(D, j, &F[i]);
      int64_t off = b->off;
      if (lo < hi) {
        if (cut(&V[i], lo + off, hi + off)) st = nomem(err);
      }
      if (b->lo < lo) {
        any = 1;
        if (cut(&O[i], b->lo + off, (lo < b->hi ? lo : b->hi) + off)) st = nomem(err);
      }
      if (hi < b->hi) {
        any = 1;
        int64_t s0 = hi > b->lo ? hi : b->lo;
        if (cut(&O[i], s0 + off, b->hi + off)) st = nomem(err);
      }
      if (cut(&F[i], b->lo + off, b->hi + off)) st = nomem(err);
    }
    if (!st && any) st = fill_boxes(&bd, V, O, F, rank, 1, chdim);
  }
  if (!st) st = hole_boxes(&bd, D, 0);
  free_refs(R, rank * 5);
  free(R);
  return st;
}

/* The table fallback: one box, kernel TABLE. */
static lay_status table_box(li_plan *p, li_plog *lg, lay_error *err) {
  builder bd = {p, err, lg, 0, 0, 0, -1, 0, 0, 0, NULL};
  p->npat = 3;
  p->pats = calloc(3, sizeof *p->pats);
  if (!p->pats) return nomem(err);
  make_pats(p);
  const li_side *T = p->s.table ? &p->s : &p->d;
  li_loop L[1] = {{T->table->n, 1, 1, 0, 0}};
  lay_status st = emit(&bd, L, 1, 0, 0, 0, 0, 0);
  if (!st) p->box[0].kern = LI_K_TABLE;
  /* unpack: CPU elements no table entry names keep the pad (filled first,
  ** so the plan runs on one thread then) */
  if (!st && p->d.is_cpu && !T->table->full) {
    li_loop M[1] = {{p->d.nelem, 0, 1, 0, 0}};
    st = emit(&bd, M, 1, 0, 0, 0, 1, 1);
    if (!st) { /* run the fill first */
      li_box t = p->box[0];
      p->box[0] = p->box[1];
      p->box[1] = t;
    }
  }
  return st;
}

/* The place of every CPU element on side X, indexed by the element's
** row-major index on the source side S (rank dims, sizes sz): X's element
** offset, or -1 where X does not hold it (outside its window, or in no
** entry of its gather table). map[i]: X's dim for S's dim i. */
static void element_places(const li_side *X, const int *map, const int64_t *sz,
                           int rank, int64_t n, int64_t *out) {
  int64_t x[LG_MAX_RANK], y[LG_MAX_RANK];
  for (int64_t c = 0; c < n; c++) out[c] = -1;
  if (X->table) { /* each hardware element names its CPU element */
    for (int64_t e = 0, len; e < X->table->n; e += len) {
      int64_t cx = li_gather_run(X->table, e, &len);
      for (int64_t k = 0; cx >= 0 && k < len; k++) {
        int64_t r = cx + k, c = 0;
        for (int j = rank - 1; j >= 0; j--) {
          y[j] = r % X->dim[j].size;
          r /= X->dim[j].size;
        }
        for (int i = 0; i < rank; i++) c = c * sz[i] + y[map[i]];
        out[c] = e + k;
      }
    }
    return;
  }
  for (int64_t c = 0; c < n; c++) {
    int64_t r = c, off = 0;
    for (int i = rank - 1; i >= 0; i--) {
      x[i] = r % sz[i];
      r /= sz[i];
    }
    int in = 1;
    for (int i = 0; i < rank && in; i++) {
      const li_sdim *d = &X->dim[map[i]];
      if (x[i] < d->lo || x[i] >= d->hi) in = 0;
      else off += dim_offset(X, map[i], x[i]);
    }
    if (in) out[c] = off;
  }
}

/* One table-loop box over the offset pairs (so[c], dof[c]) of the CPU
** elements c with a destination place: those the source holds too, copied;
** or (fill) those it does not, given pattern pat. */
static lay_status pairs_box(builder *bd, const int64_t *so, const int64_t *dof,
                            int64_t n, int fill, int pat) {
  li_plan *p = bd->p;
  int64_t cnt = 0, first = -1, bytes;
  for (int64_t c = 0; c < n; c++)
    if (dof[c] >= 0 && (so[c] >= 0) == !fill) {
      if (first < 0) first = c;
      cnt++;
    }
  if (!cnt) return LAY_OK;
  if (mul64(cnt, 2 * (int64_t)sizeof(int64_t), &bytes) ||
      add64(bytes, p->ntabs * (int64_t)sizeof(int64_t), &bytes) ||
      (size_t)bytes > LI_MAX_TABLE_BYTES)
    return fail(bd->err, LAY_E_LIMIT, "the plan's index tables exceed %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  int64_t *t = realloc(p->tabs, (size_t)bytes);
  if (!t) return nomem(bd->err);
  p->tabs = t;
  t += p->ntabs;
  int64_t s0 = fill ? 0 : so[first], d0 = dof[first], k = 0;
  for (int64_t c = first; c < n; c++)
    if (dof[c] >= 0 && (so[c] >= 0) == !fill) {
      t[2 * k] = fill ? 0 : so[c] - s0;
      t[2 * k + 1] = dof[c] - d0;
      k++;
    }
  li_loop L[1] = {{cnt, 0, 0, 0, p->ntabs + 1}};
  p->ntabs += 2 * cnt;
  return emit(bd, L, 1, s0, d0, 0, fill, pat);
}

/* A convert with a gather-table side (a transform chain with no affine
** structure): one table loop over the offset pairs of the CPU elements
** both sides hold; the destination's window elements the source lacks get
** the source's pad (a table loop writing pattern 1); the destination's
** pads and holes the usual fill boxes. Still one plan, no buffer between. */
static lay_status table_convert(li_plan *p, const int *dmap, li_plog *lg,
                                lay_error *err) {
  li_side *S = &p->s, *D = &p->d;
  int rank = S->rank;
  if (S->v.axis >= 0 || D->v.axis >= 0)
    return fail(err, LAY_E_LAYOUT,
                "a convert through a gather table cannot quantize per channel");
  int64_t sz[LG_MAX_RANK], n = 1, bytes;
  for (int i = 0; i < rank; i++) {
    sz[i] = S->dim[i].size;
    if (mul64(n, sz[i], &n)) return OVF(err);
  }
  if (mul64(n, 2 * (int64_t)sizeof(int64_t), &bytes) ||
      (size_t)bytes > LI_MAX_TABLE_BYTES)
    return fail(err, LAY_E_LIMIT, "the plan's index tables exceed %zu bytes",
                (size_t)LI_MAX_TABLE_BYTES);
  int64_t *so = malloc((size_t)bytes), *dof = so ? so + n : NULL;
  refdim *R = calloc((size_t)rank * 3, sizeof *R);
  p->npat = 3;
  p->pats = calloc(3, sizeof *p->pats);
  if (!so || !R || !p->pats) {
    free(so);
    free(R);
    return nomem(err);
  }
  make_pats(p);
  int ident[LG_MAX_RANK];
  for (int i = 0; i < LG_MAX_RANK; i++) ident[i] = i;
  element_places(S, ident, sz, rank, n, so);
  element_places(D, dmap, sz, rank, n, dof);
  builder bd = {p, err, lg, 0, 0, 0, -1, 0, 0, 0, NULL};
  lay_status st = pairs_box(&bd, so, dof, n, 0, 0);
  if (!st) st = pairs_box(&bd, so, dof, n, 1, 1);
  free(so);
  if (!st && !D->table) {
    st = pad_boxes(&bd, D, ident, NULL, rank, -1, 0, R, R + rank, R + 2 * rank);
    if (!st) st = hole_boxes(&bd, D, 0);
  } else if (!st) { /* the table's pad entries */
    int64_t npad = 0;
    for (int64_t e = 0, len; e < D->table->n; e += len)
      if (li_gather_run(D->table, e, &len) < 0) npad += len;
    int64_t *no = npad ? malloc(2 * (size_t)npad * sizeof *no) : NULL;
    if (npad && !no) st = nomem(err);
    for (int64_t e = 0, len, k = 0; no && e < D->table->n; e += len)
      if (li_gather_run(D->table, e, &len) < 0)
        for (int64_t i = 0; i < len; i++, k++) {
          no[k] = -1;        /* no source */
          no[npad + k] = e + i;
        }
    if (no) st = pairs_box(&bd, no, no + npad, npad, 1, 0);
    free(no);
  }
  free_refs(R, rank * 3);
  free(R);
  return st;
}

/* ---- The entry ------------------------------------------------------------- */
lay_status li_plan_boxes(li_plan *p, const int *dmap, li_plog *lg,
                         lay_error *err) {
  lay_status st;
  if (p->s.table || p->d.table) {
    if (lg) {
      lg_sb_printf(&lg->step, "no digits to refine: the %s side is a gather "
                   "table\n", p->s.table ? "source" : "destination");
      li_plog_step(lg, "refine");
    }
    if (p->dir == LAY_CONVERT) st = table_convert(p, dmap, lg, err);
    else st = table_box(p, lg, err);
  } else {
    st = build_boxes(p, dmap, lg, err);
  }
  if (!st && lg) {
    li_plog_take(lg, &lg->cut, "boxes");
    li_plog_take(lg, &lg->coal, "coalesce");
  }
  return st;
}
