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

#define LI_MAX_TAKE 8  /* loops one gather tile may take */
#define LI_MAX_TRG 4096 /* gather tiles of one plan */

/* The general transposition (exec/tr.c), in units of u elements (u > 1:
** groups of u elements contiguous on both sides, moved as one element of
** u * esz bytes, the pitches between them any number of elements: NHWC
** with 37 channels -> AMD HCWNC4, 4-byte groups 37 bytes apart, tiles of
** 4 pixels x 4 groups rather than a 4-byte row a group, 2.4x faster;
** b->bk = u then): the box's destination runs along its
** innermost loop and its source along another one, j. Moves loop j just
** outside the innermost (the others keep their order) and returns 1; 0
** when there is no such loop or the element size has no kernel. */
static int take_transpose_u(li_box *b, li_loop *L, int n, size_t esz,
                            int64_t u) {
  const li_loop *in = &L[n - 1];
  size_t g = esz * (size_t)u;
  if (n < 2 || in->ds != u || in->ss == u || in->tab ||
      b->pre || b->post || (g != 1 && g != 2 && g != 4 && g != 8))
    return 0;
  int j = -1;
  for (int i = n - 2; i >= 0; i--)
    if (L[i].ss == u && !L[i].tab) {
      j = i;
      break;
    }
  if (j < 0) return 0;
  li_loop t = L[j];
  for (int i = j; i < n - 2; i++) L[i] = L[i + 1];
  L[n - 2] = t;
  b->kern = LI_K_TR;
  b->bk = u > 1 ? (int)u : 0;
  return 1;
}

static int take_transpose(li_box *b, li_loop *L, int n, size_t esz) {
  return take_transpose_u(b, L, n, esz, 1);
}

/* Whether the box is a transposition whose destination rows are the
** source's few rows interleaved: its innermost loop (ds 1) has 2, 4 or 8
** source rows of under 16 bytes, and a loop contiguous in the source
** writes them back to back (tr.c's narrow destination, one SIMD step for
** T columns of all the rows). */
static int narrow_dst(const li_box *b, const li_loop *L, int n, size_t esz) {
  const li_loop *in = &L[n - 1];
  if (n < 2 || b->pre || b->post || in->ds != 1 || in->tab ||
      (in->ext != 2 && in->ext != 4 && in->ext != 8) ||
      in->ext * (int64_t)esz >= 16 || (esz != 1 && esz != 2 && esz != 4))
    return 0;
  for (int i = n - 2; i >= 0; i--)
    if (L[i].ss == 1 && !L[i].tab)
      return L[i].ds == in->ext && L[i].ext >= 16 / (int64_t)esz;
  return 0;
}

/* Groups: the innermost loop is a run of u elements contiguous on both
** sides (u * esz = 2 or 4 bytes, an AMD HCWNC4 pixel), and the loops
** outside it, in groups, are a transposition. The run's loop leaves the
** box, whose kernel moves groups as elements (take_transpose_u). */
static int take_groups(li_box *b, li_loop *L, int *n, size_t esz) {
  int m = *n;
  const li_loop *in = &L[m - 1];
  int64_t g = in->ext * (int64_t)esz;
  if (m < 3 || in->ss != 1 || in->ds != 1 || in->tab || b->pre || b->post ||
      (g != 2 && g != 4))
    return 0; /* 8-byte groups: 2x2 tiles, slower than ROWS' 8-byte rows
              ** (kneron.1w16c8b -> amd.hcwnc8 measured 2x slower) */
  int64_t u = in->ext;
  /* the groups' runs on both sides at least 16 bytes: a transposition of
  ** 2 x 2 groups (crouton2x2 -> crouton4x1, a pixel pair's 2 bytes) ran
  ** at 8 ns an element (the walk's steps), the copies faster */
  for (int i = 0; i < m - 1; i++)
    if ((L[i].ss == u || L[i].ds == u) && !L[i].tab && L[i].ext * g < 16)
      return 0;
  li_loop save = L[m - 1];
  if (!take_transpose_u(b, L, m - 1, esz, u)) {
    L[m - 1] = save;
    return 0;
  }
  *n = m - 1;
  return 1;
}

/* The gather tile (kernel TRG, exec/tr.c li_trg_run): the box's source
** runs along a loop j of at least T elements (T = 16 / element size), and
** its destination's innermost loops, with their row pads, make up exactly
** T positions (a loop may be split to reach T). Those loops leave the box
** for a table of T source rows (pad positions read the pad element) and
** the destination offsets of T elements, in groups of g contiguous ones;
** j becomes the box's only inner loop. With P < T the table has P rows
** whose destinations are one run of P elements (tr.c's narrow form).
** Returns 1 when taken (the box's loops rewritten in L, *n updated), 0
** otherwise. block: the box is a block copy otherwise. */
static int take_gather_p(li_plan *p, li_box *b, li_loop *L, int *n,
                         size_t esz, int P, int block) {
  int m = *n, T = (int)(16 / esz);
  if (m < 2 || (esz != 1 && esz != 2 && esz != 4 && esz != 8) ||
      p->d.v.nplanes || p->s.v.nplanes || L[m - 1].ds != 1 || L[m - 1].ss == 1)
    return 0;
  int j = -1;
  for (int i = m - 2; i >= 0; i--)
    if (L[i].ss == 1 && !L[i].tab) {
      j = i;
      break;
    }
  if (j < 0 || L[j].ext < T) return 0;
  /* The loops by destination stride, smallest first (the innermost, with
  ** its pads, first of all; j left out), until their positions make T. */
  int ord[LI_MAX_LOOPS], no = 0;
  for (int i = m - 1; i >= 0; i--)
    if (i != j) {
      int c = no++;
      for (; c > 0 && L[ord[c - 1]].ds > L[i].ds && ord[c - 1] != m - 1; c--)
        ord[c] = ord[c - 1];
      ord[c] = i;
    }
  int take[LI_MAX_TAKE], nt = 0;
  int64_t prod = 1, q = 0; /* q: the split factor of the last one (0: whole) */
  for (int oi = 0; oi < no && prod < P; oi++) {
    int i = ord[oi];
    if (L[i].tab || nt == LI_MAX_TAKE) return 0;
    int64_t e = L[i].ext + (i == m - 1 ? b->pre + b->post : 0);
    if (prod * e <= P) {
      take[nt++] = i;
      prod *= e;
    } else if (i != m - 1 && L[i].ext % (P / prod) == 0) {
      take[nt++] = i;
      q = P / prod;
      prod = P;
    } else {
      return 0;
    }
  }
  if (prod != P || p->ntrg >= LI_MAX_TRG) return 0;
  li_trg t;
  memset(&t, 0, sizeof t);
  for (int k = P; k < 16; k++) t.row[k] = -1;
  for (int k = 0; k < P; k++) { /* mixed radix over take[], innermost first */
    int64_t r = k, so = 0, dof = 0;
    int pad = 0;
    for (int a = 0; a < nt; a++) {
      const li_loop *l = &L[take[a]];
      int64_t e = a == nt - 1 && q ? q
                  : l->ext + (take[a] == m - 1 ? b->pre + b->post : 0);
      int64_t x = r % e;
      r /= e;
      if (take[a] == m - 1) {
        if (x < b->pre || x >= b->pre + l->ext) pad = 1;
        x -= b->pre;
      }
      so += x * l->ss;
      dof += x * l->ds;
    }
    t.row[k] = pad ? -1 : so;
    t.grp[k] = dof; /* per element for now */
  }
  int g = P;
  for (; g > 1; g /= 2) { /* runs of g contiguous destination elements */
    int ok = 1;
    for (int k = 0; k < P && ok; k++)
      if (t.grp[k] != t.grp[k - k % g] + k % g) ok = 0;
    if (ok) break;
  }
  if (P < T && g < P) return 0; /* the narrow tile: one run of P */
  /* a tile whose rows scatter single elements loses to the block copy
  ** (block: the caller's alternative): amd.hcwnc(x=5) pack int8
  ** [1,64,56,56] 250 against 53 us, (x=7) 87 against 40 us; groups of 2
  ** or more elements win ((x=12): groups of 4, 140 against 200 us) */
  if (block && g == 1) return 0;
  t.g = g;
  t.ng = P / g;
  for (int k = 0; k < t.ng; k++) t.grp[k] = t.grp[k * g];
  for (int k = t.ng; k < 16; k++) t.grp[k] = 0;
  for (int k = 0; k < 16; k++) t.pad[k] = p->pats[0][(size_t)k % esz];
  li_trg *nt2 = realloc(p->trg, sizeof *nt2 * (size_t)(p->ntrg + 1));
  if (!nt2) return 0;
  p->trg = nt2;
  p->trg[p->ntrg] = t;
  b->bk = p->ntrg++;
  /* The box keeps its other loops (a split one keeps its outer part) and
  ** j, innermost. */
  li_loop keep[LI_MAX_TAKE * 2 + LG_MAX_AXES * 2];
  int nk = 0;
  for (int i = 0; i < m; i++) {
    if (i == j) continue;
    int a = 0;
    while (a < nt && take[a] != i) a++;
    if (a < nt && !(a == nt - 1 && q)) continue; /* taken whole */
    keep[nk] = L[i];
    if (a < nt) { /* split: its outer part stays */
      keep[nk].ext /= q;
      keep[nk].ss *= q;
      keep[nk].ds *= q;
      keep[nk].cs *= q;
    }
    nk++;
  }
  keep[nk++] = L[j];
  memcpy(L, keep, sizeof *L * (size_t)nk);
  *n = nk;
  b->kern = LI_K_TRG;
  b->pre = b->post = 0; /* pad rows of the tile */
  return 1;
}

/* The column table (kernel TRC, exec/tr.c li_trc_run): the box's
** destination runs along its innermost loop (A's rows, at least T of
** them) and its source along a loop j of fewer than T elements, which
** runs on in the source along another loop k (k's source stride j's
** extent) but not in the destination (HCWNC4 with a batch: 4 channels of
** each of 4 images). T = 16 / element size columns of j and k make one
** tile's columns; their destination offsets go to a table; j leaves the
** box and k keeps its outer part. Returns 1 when taken. */
static int take_cols(li_plan *p, li_box *b, li_loop *L, int *n, size_t esz) {
  int m = *n;
  const li_loop *in = &L[m - 1];
  const int64_t T = (int64_t)(16 / esz);
  if (m < 3 || (esz != 1 && esz != 2 && esz != 4 && esz != 8) || b->pre ||
      b->post || in->tab || in->ds != 1 || in->ss == 1 || in->ext < T ||
      p->d.v.nplanes || p->s.v.nplanes || p->ntrg >= LI_MAX_TRG)
    return 0;
  int j = -1, k = -1;
  for (int i = m - 2; i >= 0; i--)
    if (L[i].ss == 1 && !L[i].tab) {
      j = i;
      break;
    }
  if (j < 0 || L[j].ext >= T || T % L[j].ext) return 0;
  /* the narrow form: j and k make whole rows of A, M = 2, 4 or 8 < T
  ** elements back to back (crouton2x2's 2x2 pixel groups, rows of 4
  ** channels apart) */
  const int64_t M = in->ss;
  int64_t q = T / L[j].ext; /* k's elements a tile takes */
  if (M < T && M * (int64_t)esz < 16 && (M == 2 || M == 4 || M == 8) &&
      M % L[j].ext == 0)
    q = M / L[j].ext;
  for (int i = m - 2; i >= 0; i--)
    if (i != j && !L[i].tab && L[i].ss == L[j].ext && L[i].ext % q == 0 &&
        (q * L[j].ext == T || L[i].ext == q)) {
      k = i;
      break;
    }
  if (k < 0) return 0;
  const int64_t nc = q * L[j].ext; /* the table's columns */
  li_trg t;
  memset(&t, 0, sizeof t);
  for (int64_t c = 0; c < nc; c++)
    t.grp[c] = (c % L[j].ext) * L[j].ds + (c / L[j].ext) * L[k].ds;
  t.g = 1;
  t.ng = (int)nc;
  li_trg *nt2 = realloc(p->trg, sizeof *nt2 * (size_t)(p->ntrg + 1));
  if (!nt2) return 0;
  p->trg = nt2;
  p->trg[p->ntrg] = t;
  b->bk = p->ntrg++;
  li_loop keep[LI_MAX_LOOPS];
  int nk = 0;
  for (int i = 0; i < m; i++) {
    if (i == j || (i == k && L[k].ext == q)) continue;
    keep[nk] = L[i];
    if (i == k) { /* its outer part stays */
      keep[nk].ext /= q;
      keep[nk].ss *= q;
      keep[nk].ds *= q;
      keep[nk].cs *= q;
    }
    nk++;
  }
  memcpy(L, keep, sizeof *L * (size_t)nk);
  *n = nk;
  b->kern = LI_K_TRC;
  return 1;
}

/* The gather tile; first its narrow form where the source's run j writes
** P = 2, 4 or 8 (< T) elements a column back to back (j's destination
** stride P): P table rows interleaved by tr.c's narrow destination
** (crouton2x2's 2x2 pixel groups), then T rows. Where the T rows are
** taken and T / 2 < P < T (P not a power of two), the narrow tile of P
** rows (tr.c: T x T tiles, rows stored over each other) replaces them:
** amd.hcwnc(x=12) pack int8 [1,64,56,56] 84 -> 46 us, (x=6) int16 130 ->
** 47 us; where no T rows are taken the block copy stays (NCHW -> NHWC of
** 12 int8 or 6 int16 channels: 1.5-2.2x slower as narrow tiles). */
static int take_gather(li_plan *p, li_box *b, li_loop *L, int *n,
                       size_t esz, int block) {
  const int m = *n;
  int64_t P = 0;
  for (int i = m - 2; i >= 0; i--)
    if (L[i].ss == 1 && !L[i].tab) {
      P = L[i].ds;
      break;
    }
  if ((P == 2 || P == 4 || P == 8) && P * (int64_t)esz < 16 &&
      take_gather_p(p, b, L, n, esz, (int)P, block))
    return 1;
  li_loop c[LI_MAX_LOOPS];
  li_box bc = *b;
  int nc = m;
  memcpy(c, L, sizeof *L * (size_t)m);
  if (!take_gather_p(p, b, L, n, esz, (int)(16 / esz), block)) return 0;
  if (2 * P * (int64_t)esz <= 16 || P * (int64_t)esz >= 16 ||
      !take_gather_p(p, &bc, c, &nc, esz, (int)P, block))
    return 1;
  /* the narrow tile in the T rows' place */
  p->trg[p->ntrg - 2] = p->trg[p->ntrg - 1];
  p->ntrg--;
  bc.bk = p->ntrg - 1;
  *b = bc;
  memcpy(L, c, sizeof *L * (size_t)nc);
  *n = nc;
  return 1;
}

/* A block's rows: of the loops between the outermost and the block's
** own, the longest becomes the block's row loop (L[n - 2]), so that one
** step moves as many elements as it can (crouton2x2's leftover channels:
** 5 rows of a 2x2 pixel group a step, not 2). The others keep their
** order. */
static void block_rows(li_loop *L, int n) {
  int k = n - 2;
  for (int i = 1; i < n - 2; i++)
    if (!L[i].tab && L[i].ext > L[k].ext) k = i;
  /* at least twice the rows, else the rows there are stay (nearer in the
  ** destination: qnn.flat -> qnn.crouton keeps 7 rows 32 bytes apart
  ** rather than 8 rows 256 apart) */
  if (k == n - 2 || L[n - 2].tab || L[k].ext < 2 * L[n - 2].ext) return;
  li_loop t = L[k];
  for (int i = k; i < n - 2; i++) L[i] = L[i + 1];
  L[n - 2] = t;
}

/* A fill whose innermost run is a few bytes (the holes of crouton2x2's
** odd widths: 2 bytes every 4) writes along a long loop instead, one
** strided fill a step: 12 steps of 128 bytes, not 768 memsets of 2. Of
** the loops at least half as long as the longest, the nearest in the
** destination: a step's stores then fall in a few lines (amd.hcwnc8's
** 3 pad channels of 23 pixels of 29 rows: 23 pixels 8 bytes apart a step,
** not 29 rows 920 bytes apart; 1.3 -> 0.5 us). Only when that loop's
** elements are at most 32 bytes apart, two or more a cache line: farther,
** a strided fill stores a byte a line where the run's store wrote 8
** (kneron.16w1c8bhl's 8 pad bytes of each plane, 128 bytes apart: the
** fill was a third of the pack). Returns 1 when the loops were reordered
** (that loop moved innermost, the others keep their order). */
static int fill_long_inner(li_loop *L, int n, size_t esz) {
  const li_loop *in = &L[n - 1];
  if (n < 2 || in->tab || in->ds != 1 || in->ext * (int64_t)esz > 8) return 0;
  int64_t most = 0;
  for (int i = 0; i < n - 1; i++)
    if (!L[i].tab && L[i].ext > most) most = L[i].ext;
  int k = -1;
  for (int i = 0; i < n - 1; i++)
    if (!L[i].tab && L[i].ext > in->ext && 2 * L[i].ext >= most &&
        (k < 0 || llabs(L[i].ds) < llabs(L[k].ds)))
      k = i;
  if (k < 0 || llabs(L[k].ds) * (int64_t)esz > 32) return 0;
  li_loop t = L[k];
  for (int i = k; i < n - 1; i++) L[i] = L[i + 1];
  L[n - 1] = t;
  return 1;
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

/* Blocks of W elements (W a power of two, W * esz = 2 to 16 bytes) that
** kern_ilve.c's unpack networks interleave and deinterleave. */
static int ilv_width(size_t esz, int64_t W) {
  return (esz == 1 || esz == 2 || esz == 4 || esz == 8) && W >= 2 &&
         (W & (W - 1)) == 0 && W * (int64_t)esz <= 16;
}

/* Rows of n units of g bytes, under 16 bytes, that ILV and DEILV take:
** blocks back to back (btb), in masked AVX-512 steps; units of 2 bytes
** and more (amd.hcwnc4 pack int16 [1,16,7,7], rows of 14 bytes: 0.66 us
** by BLOCK, 0.20 so), or blocks of 16 or 32 bytes (VBMI: amd.hcwnc16
** unpack int8 [1,512,7,7] 19.5 -> 3.4 us, int16 17.2 -> 6.9); smaller
** blocks of single bytes have kernels of their own (ILV2: amd.hcwnc8 pack
** int8 [1,16,7,7] 0.06 us, 0.18 so). Blocks of 32 bytes only so. */
static int short_rows(int64_t g, int64_t W, int64_t n, int btb, int simd) {
  if (!btb) return 0;
  if (li_ilv_vbmi((size_t)g, (int)W, n, simd)) return 1;
  return g >= 2 && li_ilv_masked((size_t)g, (int)W, n, simd);
}

/* LI_K_ILV: the innermost loop picks K planes (ds u) for blocks of W =
** pre + K + post units, a loop j along the source (ss u, at least 16
** bytes) the rows, their blocks back to back (ds W * u) or further apart
** (AMD's HCWNC with a batch: the images' blocks of a pixel between them).
** A unit is u elements contiguous on both sides (u > 1: the box's
** innermost loop, taken out of it by take_ilv_groups; sweep px4's 4-pixel
** rows). Moves j next to the innermost loop. */
static int take_ilv(li_box *b, li_loop *L, int n, size_t esz, int64_t u,
                    int simd) {
  const li_loop *in = &L[n - 1];
  const int64_t W = b->pre + in->ext + b->post, g = u * (int64_t)esz;
  const int wide = W * g == 32; /* short rows alone (short_rows) */
  if (n < 2 || in->ds != u || in->tab || (!ilv_width((size_t)g, W) && !wide))
    return 0;
  int j = -1;
  for (int i = n - 2; i >= 0; i--)
    if (L[i].ss == u && !L[i].tab) {
      j = i;
      break;
    }
  if (j < 0 || L[j].ds < W * u) return 0;
  if ((L[j].ext * g < 16 || wide) &&
      !short_rows(g, W, L[j].ext, L[j].ds == W * u, simd))
    return 0;
  /* blocks of 2 or 4 bytes apart go out one store each: where the rows
  ** are a power of two up to 16 bytes (HCWNC4 with 2 or 4 images) the
  ** gather tile, whole 16-byte rows, is faster (measured 1.5-2.8x) */
  const int64_t rowb = L[j].ds * (int64_t)esz;
  if (L[j].ds > W * u && W * g < 8 && rowb <= 16 && !(rowb & (rowb - 1)))
    return 0;
  li_loop t = L[j];
  for (int i = j; i < n - 2; i++) L[i] = L[i + 1];
  L[n - 2] = t;
  b->kern = LI_K_ILV;
  b->bk = (int)(W | (u > 1 ? u << 8 : 0));
  return 1;
}

/* LI_K_DEILV (the inverse of LI_K_ILV): the innermost loop runs along the
** destination (ds u, rows of at least 16 bytes) over blocks of W units of
** u elements, W the largest power of two dividing ss / u up to 16 bytes
** (blocks apart when ss is longer: a batch between them); a loop j along
** the source (ss u, at most W) picks the planes; every other source
** stride is a multiple of W * u and the source's size too, so that the
** blocks lie whole in the source and sb / u % W is the first plane. Moves
** j next to the innermost loop. */
static int take_deilv(const li_plan *p, li_box *b, li_loop *L, int n,
                      size_t esz, int64_t u) {
  const li_loop *in = &L[n - 1];
  const int64_t g = u * (int64_t)esz;
  int64_t W = 16 / g; /* the largest power of two dividing ss / u */
  while (W > 1 && in->ss % (W * u)) W /= 2;
  /* blocks of 32 bytes back to back over short rows (short_rows) */
  const int wide = g <= 8 && in->ss == 32 / g * u && in->ext * g < 16 &&
                   li_ilv_vbmi((size_t)g, (int)(32 / g), in->ext, p->simd);
  if (wide) W = 32 / g;
  if (n < 2 || b->pre || b->post || in->ds != u || in->tab ||
      (!ilv_width((size_t)g, W) && !wide) || p->sbytes % (size_t)(W * g) ||
      b->sb % u)
    return 0;
  if (in->ext * g < 16 && !short_rows(g, W, in->ext, in->ss == W * u, p->simd))
    return 0;
  int j = -1;
  for (int i = n - 2; i >= 0; i--)
    if (L[i].ss == u && !L[i].tab) {
      j = i;
      break;
    }
  if (j < 0 || b->sb / u % W + L[j].ext > W) return 0;
  /* 16 byte planes back to back over long rows: the transposition's
  ** 16 x 16 tiles are faster (onednn.nChw16c unpack int8 [1,64,56,56]
  ** 5.4 against 7.6 us); short rows (HCWNC16's 56) are not */
  if (g == 1 && W == 16 && in->ss == 16 && in->ext >= 256) return 0;
  for (int i = 0; i < n; i++)
    if (i != j && (L[i].tab || L[i].ss % (W * u))) return 0;
  li_loop t = L[j];
  for (int i = j; i < n - 2; i++) L[i] = L[i + 1];
  L[n - 2] = t;
  b->kern = LI_K_DEILV;
  b->bk = (int)(W | (u > 1 ? u << 8 : 0));
  return 1;
}

/* ILV or DEILV on units: the innermost loop a run of u elements
** contiguous on both sides (2, 4 or 8 bytes), no row pads; the run leaves
** the box and the kernel moves units (b->bk's second byte: u). */
static int take_ilv_groups(const li_plan *p, li_box *b, li_loop *L, int *n,
                           size_t esz) {
  const int m = *n;
  const li_loop *in = &L[m - 1];
  const int64_t u = in->ext, g = u * (int64_t)esz;
  if (m < 3 || in->ss != 1 || in->ds != 1 || in->tab || b->pre || b->post ||
      (g != 2 && g != 4 && g != 8) || u > 255)
    return 0;
  if (!take_ilv(b, L, m - 1, esz, u, p->simd) &&
      !take_deilv(p, b, L, m - 1, esz, u))
    return 0;
  *n = m - 1;
  return 1;
}

/* A plain transposition along long rows: the destination's run along the
** innermost loop, the source's along another, one of them 256 bytes or
** more, the other 16 or more. tr.c's walk (macro blocks of rows that fit
** L1, peeled columns, tall tiles for far rows) beats the macro tile's
** plain loops there; with both runs short the tile is faster. One thread's
** CPU time, x memcpy, TR against the tile: sweep.c32 pack int8
** [1,64,56,56] (runs of 3136 and 32 bytes) 1.75 against 2.52,
** kneron.1w16c8b unpack int8 [1,64,56,56] (3136 and 16) 1.50 against
** 1.75, core.nhwc -> core.nchw int8 [1,56,56,64] 1.65 against 2.12;
** amd.hcwnc(32) unpack int8 [1,64,56,56] (56 and 32) 2.61 against 2.21. */
static int long_transpose(const li_box *b, const li_loop *L, int n,
                          size_t esz) {
  const li_loop *in = &L[n - 1];
  if (n < 2 || b->fill || b->pre || b->post || in->ds != 1 || in->tab ||
      in->ss == 1)
    return 0;
  for (int i = n - 2; i >= 0; i--)
    if (L[i].ss == 1 && !L[i].tab) {
      const int64_t d = in->ext * (int64_t)esz, s = L[i].ext * (int64_t)esz;
      return (d >= 256 && s >= 16) || (s >= 256 && d >= 16);
    }
  return 0;
}

/* ILV where it beats the macro tile (plan/mtile.c): planes interleaved
** into blocks back to back over long rows (the rows' loop j, next to the
** innermost, has destination stride W units and more than 32 bytes).
** Measured against the macro tile, one thread's CPU time, min of 3x5
** runs, loaded machine: amd.hcwnc4 pack int8 [1,64,56,56] 1.41 against
** 1.92x memcpy, amd.hcwnc4 -> amd.hcwnc8 int8 [1,64,56,56] (4-byte units)
** 1.21 against 1.77x, trt.chw4_nd pack fp32 [1,64,56,56] 1.16 against
** 1.57x. Where the blocks lie apart (qnn.crouton2x2 pack fp32: 5.1 against
** 2.3x) or the rows are short (qnn.crouton4x1 pack int8 [1,56,56,128],
** 32-byte rows: 2.56 against 1.56x), the tile; but short rows that ILV
** takes in one masked AVX-512 step (li_ilv_masked) are ILV's:
** qnn.conv_weight pack int8 [3,3,37,29], rows of 29 blocks, 0.95-0.99 ->
** 0.91-0.92 us. Takes ILV as take_ilv and
** take_ilv_groups do, or leaves L as it was. */
static int ilv_back_to_back(const li_plan *p, li_box *b, li_loop *L, int *n,
                            size_t esz) {
  li_loop c[LI_MAX_LOOPS];
  li_box bb = *b;
  int m = *n;
  memcpy(c, L, sizeof *L * (size_t)m);
  if (!take_ilv(&bb, c, m, esz, 1, p->simd) &&
      !take_ilv_groups(p, &bb, c, &m, esz))
    return 0;
  if (bb.kern != LI_K_ILV) return 0;
  const int64_t W = bb.bk & 255, u = bb.bk >> 8 ? bb.bk >> 8 : 1;
  const li_loop *j = &c[m - 2];
  if (j->ds != W * u) return 0;
  if (j->ext * u * (int64_t)esz <= 32 &&
      !li_ilv_masked(esz * (size_t)u, (int)W, j->ext, p->simd))
    return 0;
  *b = bb;
  memcpy(L, c, sizeof *L * (size_t)m);
  *n = m;
  return 1;
}

/* A fill box f of the destination's pad that is the blocks right after
** every row of earlier ILV boxes' blocks (a blocked width padded to whole
** blocks: trt.dla_hwc4 pack's pixels 29-31 of each row of 32,
** qnn.conv_weight's output channels 29-31) is written by those boxes, in
** their last step of each row (li_ilv_args.np); f is then DONE. The
** boxes, in plan order, cover f's outermost loop one after the other
** (kneron.4w4c8b: the whole channel blocks, then the last one). Only
** boxes that take masked AVX-512 steps (li_ilv_masked), which blend the
** pad into their last step; the others would write them after all their
** rows, when the fill riding along the data boxes (exec.c) wrote them
** while the lines were at hand (trt.dla_hwc4 pack int8 [4,4,56,56], rows
** of 56: 2.35 -> 2.41-2.45 us so).
** trt.dla_hwc4 pack int8 [1,3,37,29] 0.25-0.27 -> 0.22 us, qnn.conv_weight
** pack int8 [3,3,37,29] 0.92-0.96 -> 0.84-0.89 us (min of 7, alternated). */
static int ilv_absorb(li_plan *p, const li_box *f, const li_loop *L, int n) {
  int64_t e2[LI_MAX_LOOPS], d2[LI_MAX_LOOPS], e1[LI_MAX_LOOPS],
      d1[LI_MAX_LOOPS];
  int m2, m1, got[16], ng = 0;
  if (f->raw || f->pat != 0 || p->d.v.nplanes || n > LI_MAX_LOOPS) return 0;
  li_loops_canon(L, n, e2, d2, &m2);
  if (m2 < 1 || d2[m2 - 1] != 1) return 0;
  int64_t covered = 0; /* of f's outermost loop (e2[0], d2[0]) */
  for (int bi = 0; bi < p->nbox - 1 && ng < 16; bi++) {
    li_box *D = &p->box[bi];
    if (D->fill || D->kern != LI_K_ILV || D->bk >> 8 || D->stage ||
        D->nl < 2 || D->nl > LI_MAX_LOOPS)
      continue;
    const li_loop *l = p->loops + D->l0;
    const int64_t W = D->bk & 255, rows = l[D->nl - 2].ext;
    if (!li_ilv_masked(p->d.esz, (int)W, rows, p->simd) ||
        l[D->nl - 2].ds != W || e2[m2 - 1] % W ||
        D->db - D->pre + rows * W != f->db + covered * d2[0])
      continue;
    li_loop M[LI_MAX_LOOPS]; /* D's loops over its pad blocks */
    memcpy(M, l, sizeof *M * (size_t)D->nl);
    M[D->nl - 2].ext = e2[m2 - 1] / W;
    M[D->nl - 1].ext = W;
    M[D->nl - 1].ds = 1;
    li_loops_canon(M, D->nl, e1, d1, &m1);
    int same = m1 == m2 && d1[0] == d2[0] && covered + e1[0] <= e2[0];
    for (int i = 1; same && i < m1; i++)
      same = e1[i] == e2[i] && d1[i] == d2[i];
    if (!same || (D->prow && D->prow != e2[m2 - 1] / W)) continue;
    got[ng++] = bi;
    covered += e1[0];
    if (covered == e2[0]) {
      for (int i = 0; i < ng; i++) p->box[got[i]].prow = (int)(e2[m2 - 1] / W);
      return 1;
    }
  }
  return 0;
}

/* LAY_KERNELS=general (read once): the special kernels (ILV, ILV2,
** DEILV, DEILV2, EXPAND, CONV_ILV, SPLIT2, ROWS, BLOCK) are not chosen,
** the general engine (MTILE, PLANES, TR, TRG, MEMCPY, COPY, CONV) runs
** their boxes: the bytes are the same (the tests run so), the margins
** are measured so. Returns 0 then; 2 for LAY_KERNELS=special (the
** special kernels before the macro tile and PLANES, which are not
** chosen: the choice as before them, for the tests of those kernels'
** SIMD paths on their own shapes); else 1. */
static int special_kernels(void) {
  static int cached = -1; /* a benign race: every thread computes the same */
  if (cached < 0) {
    const char *e = getenv("LAY_KERNELS");
    cached = e && !strcmp(e, "general") ? 0
             : e && !strcmp(e, "special") ? 2 : 1;
  }
  return cached;
}

void li_choose_kernel(li_plan *p, li_box *b, li_loop *L) {
  const int sp = special_kernels();
  int n = b->nl;
  const int fill = b->fill, pat = b->pat;
  const int64_t pre = b->pre, post = b->post, sb = b->sb;
  const li_loop *in = &L[n - 1];
  const size_t esz = p->d.esz;
  if (in->tab) { /* offset pairs: copies, or (fill) the pattern at each */
    b->kern = LI_K_DIMTAB;
  } else if (fill) {
    if (pat != 1 && fill_long_inner(L, n, esz)) in = &L[n - 1];
    int same = 1;
    for (size_t k = 1; k < esz; k++)
      if (p->pats[pat][k] != p->pats[pat][0]) same = 0;
    b->kern = (in->ds == 1 && same && (!p->d.v.nplanes || b->raw))
                  ? LI_K_MEMSET : LI_K_FILL;
    if (pat == 1 && (p->s.v.axis >= 0 || p->d.v.axis >= 0))
      b->kern = LI_K_PADCONV; /* the source's pad, converted per channel */
    else if (sp && li_planes_absorb(p, b, L, n))
      b->kern = LI_K_DONE; /* a PLANES box's pad rows */
    else if (sp && ilv_absorb(p, b, L, n))
      b->kern = LI_K_DONE; /* an ILV box's pad blocks */
  } else if (p->slow) {
    b->kern = LI_K_CONV;
    /* planes of one source run each, converted then interleaved */
    if (sp && n >= 2 && in->ds == 1 && esz == 1 && L[n - 2].ss == 1 &&
        !p->s.v.nplanes && !p->d.v.nplanes && L[n - 2].cs == 0 &&
        (L[n - 2].ds == 2 || L[n - 2].ds == 4 || L[n - 2].ds == 8) &&
        L[n - 2].ds == pre + in->ext + post && L[n - 2].ext >= 16) {
      b->kern = LI_K_CONV_ILV;
      b->bk = (int)L[n - 2].ds;
    }
    /* 2-byte elements (as they are, or after the destination's value
    ** rule) split bit-wise into two byte planes, rows of up to 16
    ** contiguous destination bytes (Kneron's 1W16C8BHL, its _q and _qc) */
    const int vid = p->d.v.kind == LI_VR_ID;
    if (sp && n >= 2 && in->ds == 1 && in->ss != 1 && in->ext <= 16 &&
        !pre && !post &&
        p->s.v.kind == LI_VR_ID && !p->s.v.nplanes &&
        (vid ? p->s.esz == 2 : 1) && p->d.v.nplanes == 2 && esz == 1 &&
        li_dt_size(vid ? p->d.v.cpu : p->d.v.hw) == 2 &&
        p->d.v.shift[0] < 16 &&
        p->d.v.shift[1] < 16 && p->d.v.shift[0] >= 0 && p->d.v.shift[1] >= 0) {
      b->kern = LI_K_SPLIT2;
      b->bk = (int)in->ext;
    }
    /* byte planes on one side, a split li_planes_ok takes: the whole
    ** box through planes.c's tiles (not with LAY_KERNELS=special, whose
    ** tests check SPLIT2's own paths) */
    if (sp != 2 && li_planes_ok(p, b, L, n)) { /* its row pads: pad rows */
      b->kern = LI_K_PLANES;
      b->bk = 0; /* or the pad rows li_planes_absorb gives it */
    }
  } else if (sp == 1 && ilv_back_to_back(p, b, L, &n, esz)) {
    b->nl = n; /* the interleave's long rows, blocks back to back */
  } else if (sp != 2 && long_transpose(b, L, n, esz) &&
             take_transpose(b, L, n, esz)) {
    /* tr.c's blocked walk over long rows and columns */
  } else if (sp != 2 && !p->no_mtile && li_take_mtile(p, b, L, &n)) {
    /* the tile's digits taken out of the loops (plan/mtile.c) */
  } else if (sp && take_ilv(b, L, n, esz, 1, p->simd)) {
    /* the rows' loop moved next to the planes */
  } else if (sp && n >= 2 && esz == 1 && in->ss == 1 && in->ds == 1 &&
             (pre || post) && L[n - 2].ss == in->ext &&
             L[n - 2].ds == pre + in->ext + post &&
             (L[n - 2].ds == 4 || L[n - 2].ds == 8 || L[n - 2].ds == 16)) {
    b->kern = LI_K_EXPAND;
    b->bk = (int)L[n - 2].ds;
  } else if (sp && take_ilv_groups(p, b, L, &n, esz)) {
    b->nl = n;
  } else if (take_groups(b, L, &n, esz)) {
    b->nl = n;
  } else if (sp && in->ss == 1 && in->ds == 1 && n >= 2 &&
             in->ext * (int64_t)esz <= 4096 &&
             (in->ext * (int64_t)esz >= 16 || (!pre && !post))) {
    b->kern = LI_K_ROWS; /* rows of contiguous bytes, pads around each */
    b->bk = (int)(in->ext * (int64_t)esz);
  } else if (in->ss == 1 && in->ds == 1 && !pre && !post) {
    b->kern = LI_K_MEMCPY;
  } else if (sp && take_deilv(p, b, L, n, esz, 1)) {
    /* the plane loop moved next to the rows */
  } else if (sp && n >= 3 && esz == 1 && !pre && !post && in->ds == 1 &&
             (in->ss == 2 || in->ss == 4 || in->ss == 8) &&
             L[n - 2].ds == in->ext && L[n - 3].ss == 1 &&
             L[n - 3].ext <= in->ss && L[n - 3].ext * 2 > in->ss &&
             L[n - 2].ext * in->ext * in->ss <= 4096 &&
             L[n - 2].ext * in->ext >= 16 && deilv_ok(L, n, sb, in->ss)) {
    /* the inverse of LI_K_ILV2: blocks of ss elements (the plane loop
    ** L[n-3] picks k of them) copied into a tile, split into planes */
    b->kern = LI_K_DEILV2;
    b->bk = (int)in->ss;
  } else if (sp && n >= 2 && in->ds == 1 &&
             (esz == 1 || esz == 2 || esz == 4) && pre + in->ext + post <= 64) {
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
    } else if (narrow_dst(b, L, n, esz) && take_transpose(b, L, n, esz)) {
      /* the loops reordered in place */
    } else if (pre + in->ext + post < 16 / (int64_t)esz &&
               take_gather(p, b, L, &n, esz, 1)) {
      b->nl = n;
    } else if (take_cols(p, b, L, &n, esz)) {
      b->nl = n;
    } else if (in->ext >= 16 / (int64_t)esz && take_transpose(b, L, n, esz)) {
      /* the loops reordered in place; a block of fewer rows than a tile
      ** stays a block: the transposition would stage each of its tiles
      ** (crouton2's 5 leftover channels of 2 pixels, ~10x slower) */
    } else {
      block_rows(L, n);
    }
    /* a loop along which the block's rows are contiguous in the source
    ** takes the rows' place (tr_shuf.c's narrow destination: a gap
    ** between its groups when W is whole 16-byte chunks) */
    for (int a = n - 3; b->kern == LI_K_BLOCK && p->simd >= LI_SIMD_AVX2 &&
                        L[n - 2].ss != 1 && !L[n - 2].tab && a >= 0; a--)
      if (L[a].ss == 1 && !L[a].tab &&
          (L[a].ds == W || (L[a].ds > W && W * (int64_t)esz % 16 == 0))) {
        li_loop t = L[a]; L[a] = L[n - 2]; L[n - 2] = t;
        break;
      }
  } else if (in->ss == 1 && in->ds == 1) {
    b->kern = LI_K_MEMCPY;
  } else if (narrow_dst(b, L, n, esz) && take_transpose(b, L, n, esz)) {
    /* the loops reordered in place */
  } else if (!pre && !post && in->ext < 16 / (int64_t)esz &&
             take_gather(p, b, L, &n, esz, 0)) {
    b->nl = n;
  } else if (take_cols(p, b, L, &n, esz)) {
    b->nl = n;
  } else if (take_transpose(b, L, n, esz)) {
    /* the loops reordered in place */
  } else {
    b->kern = LI_K_COPY;
  }
}

/* ---- Ragged dims through the byte-plane tiles -------------------------------
** A dim whose blocks end in a partial one (w = 23 in blocks of 4) is cut
** into the whole blocks (box A: loops u, the blocks, and v, inside one)
** and the last block (box B, right after A: v's first V' < V steps, or
** none of v when V' is 1, its bases A's moved by U steps of u; with one
** block, U = 1, A has no u: B's bases less A's are its strides). Where
** both run the PLANES tiles, one table loop over the dim's U * V + V'
** coordinates takes u and v in A (li_loop.tab; planes.c reads it as a
** segment of columns with P offsets of its own) and B goes: B's V'
** columns were segments of their own, through B in the chunked path,
** and A's a segment each. Only where the table's columns take no more
** tiles than A's (19 columns in 2 tiles against 16 in 1: kneron.4w4c8bhl
** pack int16 [1,16,17,17] 1.7 -> 2.9 us). kneron.4w4c8bhl int16, min of
** 7: pack [1,64,56,59] 75 -> 38 us, unpack 75 -> 50 us; pack
** [1,37,29,23] 11.5 -> 10.6 us. */
static int merge_pair(li_plan *p, li_box *A, const li_box *B) {
  if (A->kern != LI_K_PLANES || B->kern != LI_K_PLANES || A->fill ||
      B->fill || A->bk || B->bk || A->stage || B->stage || A->pre != B->pre ||
      A->post != B->post || A->nl > LI_MAX_LOOPS || A->nl < B->nl ||
      A->nl > B->nl + 2)
    return 0;
  const li_loop *a = p->loops + A->l0, *b = p->loops + B->l0;
  for (int i = 0; i < A->nl; i++)
    if (a[i].tab) return 0;
  /* u absent (one block: A's loop of one step dropped): its strides
  ** B's bases less A's, iu = -1 */
  const li_loop one = {1, B->sb - A->sb, B->db - A->db, B->cb - A->cb, 0};
  for (int iu = -1; iu < A->nl; iu++)
    for (int iv = 0; iv < A->nl; iv++) {
      const li_loop *u = iu < 0 ? &one : &a[iu], *v = &a[iv];
      if (iu == iv || u->cs != v->ext * v->cs ||
          B->sb != A->sb + u->ext * u->ss || B->db != A->db + u->ext * u->ds ||
          B->cb != A->cb + u->ext * u->cs)
        continue;
      int j = 0, ok = 1; /* B's loops: A's but u, v's V' steps */
      int64_t vb = 1;
      for (int i = 0; i < A->nl && ok; i++) {
        if (i == iu) continue;
        const li_loop *x = j < B->nl ? &b[j] : NULL;
        const int same = x && !x->tab && x->ss == a[i].ss &&
                         x->ds == a[i].ds && x->cs == a[i].cs;
        if (i == iv) {
          if (same && x->ext < v->ext) vb = b[j++].ext;
        } else {
          ok = same && x->ext == a[i].ext;
          j++;
        }
      }
      if (!ok || j != B->nl || B->nl != A->nl - (iu >= 0) - (vb == 1))
        continue;
      const int64_t E = u->ext * v->ext + vb, need = p->ntabs + 2 * E;
      if ((E + 15) / 16 > (E - vb + 15) / 16) return 0; /* a tile more */
      if ((size_t)need * sizeof *p->tabs > LI_MAX_TABLE_BYTES) return 0;
      int64_t *t = realloc(p->tabs, (size_t)need * sizeof *t);
      if (!t) return 0; /* the two boxes stay */
      p->tabs = t;
      for (int64_t i = 0; i < E; i++) {
        const int64_t k = i / v->ext, r = i % v->ext;
        t[p->ntabs + 2 * i] = k * u->ss + r * v->ss;
        t[p->ntabs + 2 * i + 1] = k * u->ds + r * v->ds;
      }
      li_loop M[LI_MAX_LOOPS]; /* A's loops, u gone, v the table */
      int m = 0;
      for (int i = 0; i < A->nl; i++)
        if (i == iv)
          M[m++] = (li_loop){E, 0, 0, v->cs, p->ntabs + 1};
        else if (i != iu)
          M[m++] = a[i];
      li_box C = *A;
      C.nl = m;
      if (!li_planes_ok(p, &C, M, m)) return 0; /* the entries unused */
      p->ntabs += 2 * E;
      memcpy(p->loops + A->l0, M, sizeof *M * (size_t)m);
      A->nl = m;
      return 1;
    }
  return 0;
}

void li_merge_ragged(li_plan *p, int from) {
  int m = from, merged = 0;
  for (int i = from; i < p->nbox; i++) {
    if (m > from && merge_pair(p, &p->box[m - 1], &p->box[i])) {
      merged = 1;
      continue;
    }
    p->box[m++] = p->box[i];
  }
  p->nbox = m;
  if (!merged || m == from) return;
  int l = p->box[from].l0; /* the loops back to back again */
  for (int i = from; i < m; i++) {
    li_box *b = &p->box[i];
    memmove(p->loops + l, p->loops + b->l0, sizeof *p->loops * (size_t)b->nl);
    b->l0 = l;
    l += b->nl;
  }
  p->nloops = l;
}
