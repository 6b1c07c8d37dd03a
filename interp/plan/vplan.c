/*
** vplan.c: value slabs (plan_int.h li_slab). After the boxes are built, each
** data box of a plan with a value rule on one side (the CPU side's
** elements encoded into the layout's or decoded from them; no byte planes,
** no tables) becomes a VSLAB box: its loops are split into the slab's
** loops S, whose elements fit an L1 buffer of hardware elements, and the
** outer loops O that remain the box's. S holds the loop contiguous on the
** CPU side (its runs), the loop innermost on the layout's side (the data
** kernel's), then, while the buffer has room, the loops nearest on either
** side (the last one split by a divisor of its extent). The buffer holds
** S's elements in the CPU side's order, so that the CPU side's runs are
** runs of the buffer: the slab's conversion is a few long runs (li_slab x,
** run), and S with the buffer's strides on the CPU side is a data box of
** hardware elements without a rule, whose kernel li_choose_kernel chooses
** as for any data box (in the slabs' own plan, li_slabs p). Rows that
** the CONV kernel dequantizes where they lie stay CONV boxes (rows_at).
*/
#include <stdlib.h>
#include <string.h>

#include "planner.h"

/* A slab of fewer elements pays more in calls than it saves (measured). */
#define LI_SLAB_MIN 64

/* The largest divisor of e at most m (1 when none is larger). */
static int64_t divisor_upto(int64_t e, int64_t m) {
  for (int64_t q = m < e ? m : e; q >= 2; q--)
    if (e % q == 0) return q;
  return 1;
}

/* The array a (elements of sz bytes, room for *cap) with room for need,
** its capacity doubled: fuzz.limits' plan of some 50000 boxes made its
** slabs in over 13 minutes under ASan, whose realloc always copies, when
** each took one more (28 s so). NULL when out of memory (a is then still
** valid). */
static void *grow(void *a, int need, int *cap, size_t sz) {
  if (need <= *cap) return a;
  const int nc = need > 2 * *cap ? need + 16 : 2 * *cap;
  void *n = realloc(a, sz * (size_t)nc);
  if (n) *cap = nc;
  return n;
}

/* The slabs' plan: the buffer on the CPU side, hardware elements on both
** sides, no rule; the plan's pad patterns (shared, not freed with it). */
static li_slabs *slabs_new(const li_plan *p, int pack, lay_dtype hw) {
  li_slabs *vs = calloc(1, sizeof *vs);
  if (!vs) return NULL;
  li_plan *q = &vs->p;
  q->dir = p->dir;
  q->cpu_t = hw;
  q->simd = p->simd;
  q->pats = p->pats;
  q->npat = p->npat;
  li_side *sd[2] = {&q->s, &q->d};
  for (int k = 0; k < 2; k++) {
    sd[k]->esz = li_dt_size(hw);
    sd[k]->plane_ax = -1;
    sd[k]->v.kind = LI_VR_ID;
    sd[k]->v.cpu = sd[k]->v.hw = hw;
    sd[k]->v.axis = -1;
    sd[k]->v.simd = p->simd;
  }
  q->sbytes = pack ? LI_SLAB_BYTES : p->sbytes;
  q->dbytes = pack ? p->dbytes : LI_SLAB_BYTES;
  return vs;
}

/* The stride of l on the CPU side (x) or the layout's (y). */
static int64_t xs(const li_loop *l, int pack) { return pack ? l->ss : l->ds; }
static int64_t ys(const li_loop *l, int pack) { return pack ? l->ds : l->ss; }

/* Rank of loop i among L[0..n) by the stride st (0: the smallest). */
static int rank_of(const li_loop *L, int n, int i, int pack, int x) {
  int r = 0;
  int64_t v = x ? xs(&L[i], pack) : ys(&L[i], pack);
  for (int j = 0; j < n; j++) {
    int64_t w = x ? xs(&L[j], pack) : ys(&L[j], pack);
    if (w < v || (w == v && j > i)) r++;
  }
  return r;
}

/* Which part of each loop of L the slab takes (part[i]: 0 none, else the
** inner part's extent; *split: the one loop taken in part, -1 none); its
** elements, or 0 when the box has no loop contiguous on the CPU side or
** the loops it needs do not fit. A loop is split by a divisor of its
** extent where one fills three quarters of the room, else by what fills
** the room (the rest: a box of its own, slab_box). */
static int64_t choose(const li_box *b, const li_loop *L, int n, int pack,
                      int perch, int64_t cap, int64_t *part, int *split) {
  int xi = -1, yi = n - 1;
  *split = -1;
  for (int i = 0; i < n; i++) {
    part[i] = 0;
    if (L[i].tab) return 0;
    if (xs(&L[i], pack) == 1 && xi < 0) xi = i;
    if (ys(&L[i], pack) < ys(&L[yi], pack)) yi = i;
  }
  if (xi < 0 || (perch && L[xi].cs != 0)) return 0;
  part[yi] = L[yi].ext;
  if (b->pre || b->post) { /* the row pads' loop (packing) */
    if (!pack) return 0;
    part[n - 1] = L[n - 1].ext;
  }
  int64_t f = 1;
  for (int i = 0; i < n; i++)
    if (part[i]) f *= part[i];
  if (f > cap) return 0;
  if (!part[xi] && f * L[xi].ext > cap) { /* the CPU side's runs cut */
    int64_t q = cap / f;
    if (q < 16) return 0;
    int64_t d = divisor_upto(L[xi].ext, q);
    part[xi] = 4 * d >= 3 * q ? d : q;
    *split = xi;
    return f * part[xi];
  }
  if (!part[xi]) { /* xi is not also yi or the row loop */
    part[xi] = L[xi].ext;
    f *= L[xi].ext;
  }
  /* the others, nearest first on either side (ties: the CPU side's) */
  int ord[LI_MAX_LOOPS], key[LI_MAX_LOOPS], m = 0;
  for (int i = 0; i < n; i++) {
    if (part[i]) continue;
    int a = rank_of(L, n, i, pack, 1), c = rank_of(L, n, i, pack, 0);
    int k = (a < c ? a : c) * 2 * LI_MAX_LOOPS + a, j = m++;
    for (; j > 0 && key[j - 1] > k; j--) {
      ord[j] = ord[j - 1];
      key[j] = key[j - 1];
    }
    ord[j] = i;
    key[j] = k;
  }
  for (int j = 0; j < m; j++) {
    const int i = ord[j];
    if (f * L[i].ext <= cap) {
      part[i] = L[i].ext;
      f *= L[i].ext;
      continue;
    }
    const int64_t q = cap / f, d = divisor_upto(L[i].ext, q);
    if (q >= 2) {
      part[i] = 4 * d >= 3 * q ? d : q;
      f *= part[i];
      *split = i;
    }
    break;
  }
  return f;
}

/* Whether the source offset of every step of the outer loops O keeps the
** phase the buffer's box kernel b was chosen for (DEILV, DEILV2: the
** offset modulo their blocks' elements). */
static int phase_kept(const li_box *b, const li_loop *O, int no) {
  int64_t blk = 0;
  if (b->kern == LI_K_DEILV)
    blk = (b->bk & 255) * (b->bk >> 8 ? b->bk >> 8 : 1);
  else if (b->kern == LI_K_DEILV2)
    blk = b->bk;
  for (int i = 0; blk > 1 && i < no; i++)
    if (O[i].ss % blk) return 0;
  return 1;
}

/* The slab of box b's loops L[0..n) (part as choose gives it) appended to
** vs, its outer loops into O (*no of them: the loops not taken, and the
** outer part, extent / part, of the one taken in part); b's kernel and
** loop count set. 0 when the buffer's kernel would not hold at every step
** (*st: an allocation failed). */
static int make_slab(li_slabs *vs, li_box *b, const li_loop *L, int n,
                     const int64_t *part, int pack, const li_vrule *r,
                     li_loop *O, int *no, lay_status *st) {
  const int perch = r->axis >= 0 && r->nch > 1;
  li_loop S[LI_MAX_LOOPS], X[LI_MAX_LOOPS];
  int ns = 0;
  int64_t f = 1;
  *no = 0;
  for (int i = 0; i < n; i++) {
    li_loop l = L[i];
    if (part[i] && part[i] < l.ext) {
      O[*no] = l;
      O[*no].ext = l.ext / part[i];
      O[*no].ss *= part[i];
      O[*no].ds *= part[i];
      O[(*no)++].cs *= part[i];
    } else if (!part[i]) {
      O[(*no)++] = l;
    }
    if (part[i]) {
      l.ext = part[i];
      S[ns++] = l;
      f *= part[i];
    }
  }
  /* the buffer's strides: S in the CPU side's order (X: outer first) */
  int bo[LI_MAX_LOOPS];
  for (int i = 0; i < ns; i++) bo[i] = i;
  for (int i = 1; i < ns; i++)
    for (int j = i; j > 0 && xs(&S[bo[j - 1]], pack) < xs(&S[bo[j]], pack); j--) {
      int t = bo[j]; bo[j] = bo[j - 1]; bo[j - 1] = t;
    }
  int64_t bs[LI_MAX_LOOPS], run = 1;
  for (int j = ns - 1; j >= 0; j--) {
    const li_loop *l = &S[bo[j]];
    bs[bo[j]] = run;
    X[j] = (li_loop){l->ext, xs(l, pack), run, perch ? l->cs : 0, 0};
    run *= l->ext;
  }
  int nx = li_coalesce(X, ns, 0);
  run = 1; /* the innermost loop is the runs' unless it is not contiguous */
  if (X[nx - 1].ss == 1 && X[nx - 1].ds == 1 && X[nx - 1].cs == 0)
    run = X[--nx].ext;
  if (nx > LI_SLAB_X) return 0;
  /* the buffer's data box: S with the buffer's strides on the CPU side */
  for (int i = 0; i < ns; i++) {
    if (pack) S[i].ss = bs[i];
    else S[i].ds = bs[i];
  }
  li_box sub;
  memset(&sub, 0, sizeof sub);
  sub.pre = b->pre;
  sub.post = b->post;
  li_order_loops(S, ns);
  sub.nl = li_coalesce(S, ns, b->pre || b->post);
  /* the kernel as for the slab at the box's origin (DEILV's planes start
  ** where sb puts them: every step's must be the origin's) */
  sub.sb = pack ? 0 : b->sb;
  sub.db = pack ? b->db : 0;
  li_choose_kernel(&vs->p, &sub, S);
  if (!pack && !phase_kept(&sub, O, *no)) return 0;
  li_slab *ns2 = grow(vs->slab, vs->n + 1, &vs->cap, sizeof *ns2);
  if (ns2) vs->slab = ns2;
  li_box *nb = grow(vs->p.box, vs->p.nbox + 1, &vs->bcap, sizeof *nb);
  if (nb) vs->p.box = nb;
  li_loop *nl = grow(vs->p.loops, vs->p.nloops + sub.nl, &vs->lcap, sizeof *nl);
  if (nl) vs->p.loops = nl;
  if (!ns2 || !nb || !nl) {
    *st = LAY_E_NOMEM;
    return 0;
  }
  sub.l0 = vs->p.nloops;
  memcpy(vs->p.loops + sub.l0, S, sizeof *S * (size_t)sub.nl);
  vs->p.nloops += sub.nl;
  vs->p.box[vs->p.nbox] = sub;
  li_slab *s = &vs->slab[vs->n];
  memset(s, 0, sizeof *s);
  s->pack = pack;
  s->box = vs->p.nbox++;
  s->nx = nx;
  memcpy(s->x, X, sizeof *X * (size_t)nx);
  s->run = run;
  s->elems = f;
  if (*no == 0) O[(*no)++] = (li_loop){1, 0, 0, 0, 0};
  b->nl = *no;
  b->kern = LI_K_VSLAB;
  b->bk = vs->n++;
  b->pre = b->post = 0;
  return 1;
}

/* Whether the box's rows (its innermost loop in) are contiguous on both
** sides, of 16 elements or more, for the CONV kernel to dequantize where
** they lie (exec/conv.c conv_rows_at: one pass, no buffer), unpacking
** 16-bit elements: TIDL's padded q16 and qu16 unpack fp32 [1,64,56,56] ran
** 20% faster so, [1,37,29,23] and [4,32,28,28] 1-8%. Not 8-bit ones,
** whose copy into L1 costs less than the rows' masked tails (q8, qu8:
** 6-25% slower), nor packing (the pads' stores between the rows' cost
** more than the pass they save: q16 pack [1,64,56,56] 27 -> 34 us). */
static int rows_at(const li_vrule *r, const li_loop *in) {
  li_vrule v;
  if (in->ss != 1 || in->ds != 1 || in->cs != 0 || in->ext < 16 ||
      li_dt_size(r->hw) < 2 || !li_vrule_channel(r, 0, &v))
    return 0;
  return r->kind == LI_VR_QUANT &&
         li_dequant_rows(&v, NULL, NULL, NULL, NULL, 0, 0);
}

/* Box bi as slab boxes: its loops rewritten in place, and where a loop
** is split by what is not a divisor of its extent, the rest as a box of
** its own (appended to the plan). 0 when it stays as it is. */
static int slab_box(li_plan *p, li_slabs *vs, int bi, int pack,
                    const li_vrule *r, lay_status *st) {
  li_box *b = &p->box[bi];
  const int n = b->nl;
  const int perch = r->axis >= 0 && r->nch > 1;
  const int64_t cap = LI_SLAB_BYTES / (int64_t)li_dt_size(r->hw);
  li_loop L[LI_MAX_LOOPS], O[LI_MAX_LOOPS];
  int64_t part[LI_MAX_LOOPS];
  int split, no;
  memcpy(L, p->loops + b->l0, sizeof *L * (size_t)n);
  if (!pack && rows_at(r, &L[n - 1])) return 0;
  const int64_t f = choose(b, L, n, pack, perch, cap, part, &split);
  if (f < LI_SLAB_MIN) return 0;
  li_box tail = *b;
  if (!make_slab(vs, b, L, n, part, pack, r, O, &no, st)) return 0;
  memcpy(p->loops + b->l0, O, sizeof *O * (size_t)no); /* no <= n */
  if (split < 0 || L[split].ext % part[split] == 0) return 1;
  /* the rest of the split loop: its last ext % part iterations */
  const int64_t k = L[split].ext / part[split] * part[split];
  tail.sb += k * L[split].ss;
  tail.db += k * L[split].ds;
  tail.cb += k * L[split].cs;
  L[split].ext -= k;
  part[split] = L[split].ext;
  li_box *nb = grow(p->box, p->nbox + 1, &vs->pbcap, sizeof *nb);
  if (nb) p->box = nb;
  li_loop *nl = grow(p->loops, p->nloops + n + 1, &vs->plcap, sizeof *nl);
  if (nl) p->loops = nl;
  if (!nb || !nl) {
    *st = LAY_E_NOMEM;
    return 0;
  }
  if (!make_slab(vs, &tail, L, n, part, pack, r, O, &no, st)) {
    if (!*st) *st = LAY_E_INTERNAL; /* the rest holds wherever the box does */
    return 0;
  }
  tail.l0 = p->nloops;
  memcpy(p->loops + p->nloops, O, sizeof *O * (size_t)no);
  p->nloops += no;
  p->box[p->nbox++] = tail;
  return 1;
}

lay_status li_plan_slabs(li_plan *p, lay_error *err) {
  const int pack = p->s.v.kind == LI_VR_ID && p->d.v.kind != LI_VR_ID;
  const int unpack = p->d.v.kind == LI_VR_ID && p->s.v.kind != LI_VR_ID;
  if (!p->slow || (!pack && !unpack) || p->s.v.nplanes || p->d.v.nplanes ||
      p->s.table || p->d.table)
    return LAY_OK;
  const li_vrule *r = pack ? &p->d.v : &p->s.v;
  const li_side *C = pack ? &p->s : &p->d, *H = pack ? &p->d : &p->s;
  li_vrule v;
  if (C->esz != li_dt_size(r->cpu) || H->esz != li_dt_size(r->hw) ||
      !li_vrule_channel(r, 0, &v))
    return LAY_OK; /* a chain of per-channel steps converts element-wise */
  li_slabs *vs = slabs_new(p, pack, r->hw);
  if (!vs) return nomem(err);
  vs->pbcap = p->nbox; /* at least */
  vs->plcap = p->nloops;
  lay_status st = LAY_OK;
  for (int i = 0, nb = p->nbox; i < nb && !st; i++)
    if (!p->box[i].fill) slab_box(p, vs, i, pack, r, &st);
  if (!vs->n) {
    li_slabs_free(vs);
    vs = NULL;
  }
  p->vs = vs;
  if (st == LAY_E_NOMEM) return nomem(err);
  if (st) return fail(err, st, "value slabs: a split box's rest has no slab");
  return LAY_OK;
}
