/*
** loops.c: a box's loops, once the box builder (box.c) has cut them:
** ordered (li_order_loops), coalesced (li_coalesce, CuTe's coalesce) and
** given a kernel of the registry (li_choose_kernel, exec/kernels.h).
*/
#include <stdlib.h>
#include <string.h>

#include "planner.h"

static int cmp_loop(const void *a, const void *b) {
  const li_loop *x = a, *y = b;
  if (!x->tab != !y->tab) return x->tab ? 1 : -1; /* table loops inside */
  if (x->ds != y->ds) return x->ds > y->ds ? -1 : 1;
  if (x->ss != y->ss) return x->ss > y->ss ? -1 : 1;
  return 0;
}

/* LI_K_DEILV2 needs every source stride but the plane loop's to be a
** multiple of the block width W, so that sb % W is the first plane. */
static int deilv_ok(const li_loop *L, int n, int64_t sb, int64_t W) {
  for (int i = 0; i < n; i++)
    if (i != n - 3 && L[i].ss % W) return 0;
  return sb % W + L[n - 3].ext <= W;
}

void li_order_loops(li_loop *L, int n) {
  qsort(L, (size_t)n, sizeof *L, cmp_loop);
}

/* Can the inner loop b fold into the outer loop a? */
static int chained(const li_loop *a, const li_loop *b) {
  return !a->tab && !b->tab && a->ss == b->ss * b->ext &&
         a->ds == b->ds * b->ext && a->cs == b->cs * b->ext;
}

int li_coalesce(li_loop *L, int n, int rows) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    const int row = rows && i == n - 1; /* the row loop stays */
    if (L[i].ext == 1 && !row) continue;
    if (m > 0 && !row && chained(&L[m - 1], &L[i])) {
      li_loop *o = &L[m - 1];
      o->ext *= L[i].ext;
      o->ss = L[i].ss;
      o->ds = L[i].ds;
      o->cs = L[i].cs;
      continue;
    }
    L[m++] = L[i];
  }
  if (m == 0) {
    L[0].ext = 1;
    L[0].ss = L[0].ds = L[0].cs = L[0].tab = 0;
    m = 1;
  }
  return m;
}

void li_choose_kernel(const li_plan *p, li_box *b, li_loop *L) {
  const int n = b->nl, fill = b->fill, pat = b->pat;
  const int64_t pre = b->pre, post = b->post, sb = b->sb;
  const li_loop *in = &L[n - 1];
  const size_t esz = p->d.esz;
  if (in->tab) { /* offset pairs: copies, or (fill) the pattern at each */
    b->kern = LI_K_DIMTAB;
  } else if (fill) {
    int same = 1;
    for (size_t k = 1; k < esz; k++)
      if (p->pats[pat][k] != p->pats[pat][0]) same = 0;
    b->kern = (in->ds == 1 && same && (!p->d.v.nplanes || b->raw))
                  ? LI_K_MEMSET : LI_K_FILL;
    if (pat == 1 && (p->s.v.axis >= 0 || p->d.v.axis >= 0))
      b->kern = LI_K_PADCONV; /* the source's pad, converted per channel */
  } else if (p->slow) {
    b->kern = LI_K_CONV;
    /* planes of one source run each, converted then interleaved */
    if (n >= 2 && in->ds == 1 && esz == 1 && L[n - 2].ss == 1 &&
        !p->s.v.nplanes && !p->d.v.nplanes && L[n - 2].cs == 0 &&
        (L[n - 2].ds == 2 || L[n - 2].ds == 4 || L[n - 2].ds == 8) &&
        L[n - 2].ds == pre + in->ext + post && L[n - 2].ext >= 16) {
      b->kern = LI_K_CONV_ILV;
      b->bk = (int)L[n - 2].ds;
    }
    /* 2-byte elements split bit-wise into two byte planes, rows of up to
    ** 16 contiguous destination bytes (Kneron's 1W16C8BHL) */
    if (n >= 2 && in->ds == 1 && in->ext <= 16 && !pre && !post &&
        p->s.v.kind == LI_VR_ID && !p->s.v.nplanes && p->s.esz == 2 &&
        p->d.v.kind == LI_VR_ID && p->d.v.nplanes == 2 && esz == 1 &&
        li_dt_size(p->d.v.cpu) == 2 && p->d.v.shift[0] < 16 &&
        p->d.v.shift[1] < 16 && p->d.v.shift[0] >= 0 && p->d.v.shift[1] >= 0) {
      b->kern = LI_K_SPLIT2;
      b->bk = (int)in->ext;
    }
  } else if (n >= 2 && in->ds == 1 && esz == 1 && L[n - 2].ss == 1 &&
             (L[n - 2].ds == 2 || L[n - 2].ds == 4 || L[n - 2].ds == 8) &&
             L[n - 2].ds == pre + in->ext + post && L[n - 2].ext >= 16) {
    b->kern = LI_K_ILV;
    b->bk = (int)L[n - 2].ds;
  } else if (n >= 2 && esz == 1 && in->ss == 1 && in->ds == 1 &&
             (pre || post) && L[n - 2].ss == in->ext &&
             L[n - 2].ds == pre + in->ext + post &&
             (L[n - 2].ds == 4 || L[n - 2].ds == 8 || L[n - 2].ds == 16)) {
    b->kern = LI_K_EXPAND;
    b->bk = (int)L[n - 2].ds;
  } else if (in->ss == 1 && in->ds == 1 && n >= 2 &&
             in->ext * (int64_t)esz <= 4096 &&
             (in->ext * (int64_t)esz >= 16 || (!pre && !post))) {
    b->kern = LI_K_ROWS; /* rows of contiguous bytes, pads around each */
    b->bk = (int)(in->ext * (int64_t)esz);
  } else if (in->ss == 1 && in->ds == 1 && !pre && !post) {
    b->kern = LI_K_MEMCPY;
  } else if (n >= 3 && esz == 1 && !pre && !post && in->ds == 1 &&
             (in->ss == 2 || in->ss == 4 || in->ss == 8) &&
             L[n - 2].ds == in->ext && L[n - 3].ss == 1 &&
             L[n - 3].ext <= in->ss && L[n - 3].ext * 2 > in->ss &&
             L[n - 2].ext * in->ext * in->ss <= 4096 &&
             L[n - 2].ext * in->ext >= 16 && deilv_ok(L, n, sb, in->ss)) {
    /* the inverse of LI_K_ILV2: blocks of ss elements (the plane loop
    ** L[n-3] picks k of them) copied into a tile, split into planes */
    b->kern = LI_K_DEILV2;
    b->bk = (int)in->ss;
  } else if (n >= 2 && in->ds == 1 && (esz == 1 || esz == 2 || esz == 4) &&
             pre + in->ext + post <= 64) {
    b->kern = LI_K_BLOCK;
    b->bk = (in->ext == 2 || in->ext == 3 || in->ext == 4 || in->ext == 8 ||
             in->ext == 16 || in->ext == 32) ? (int)in->ext : 0;
    /* the block reads scattered sources: walk the outer loops in source
    ** order (the block's own rows stay innermost) */
    for (int a = 1; a < n - 2; a++)
      for (int c = a; c > 0 && L[c].ss > L[c - 1].ss; c--) {
        li_loop t = L[c]; L[c] = L[c - 1]; L[c - 1] = t;
      }
    int64_t W = pre + in->ext + post;
    if (n >= 3 && esz == 1 && L[n - 2].ss == 1 && L[n - 2].ds == W &&
        L[n - 3].ss == L[n - 2].ext && (W == 2 || W == 4 || W == 8) &&
        L[n - 3].ext * L[n - 2].ext * W <= 4096 &&
        L[n - 3].ext * L[n - 2].ext >= 16) {
      /* source rows run on across the two loops: interleave them all into
      ** a tile, then copy the tile's rows out (HCWNC8 on 7x7 planes) */
      b->kern = LI_K_ILV2;
      b->bk = (int)W;
    }
  } else if (in->ss == 1 && in->ds == 1) {
    b->kern = LI_K_MEMCPY;
  } else {
    b->kern = LI_K_COPY;
  }
}
