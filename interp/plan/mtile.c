/*
** mtile.c: the planner's side of the macro tile (kernel MTILE, exec/
** mtile.c): which binary digits of a box's loops make one register tile.
**
** Every loop of extent e gives digits: its bit b (0 <= b, 2^(b+1) <= e)
** moves by its strides times 2^b. With units of g bytes (the innermost
** loop when it is contiguous on both sides, else one element) and T = 16
** / g units a 16-byte chunk, a tile needs:
**   - the source's lowest digits S_0..S_(t-1), t = log2 T (source strides
**     g, 2g, 4g, ...): a chunk's units, contiguous in the source;
**   - the destination's lowest digits D_0..D_(t-1): contiguous there;
**   - k register digits R_0..R_(k-1) and rho such that the perfect
**     shuffle's rotation of (R, S) by rho bits puts D_y at position y;
**   - up to two lane digits (AVX2, AVX-512BW), the destination's next ones
**     where they are free (whole-register stores), else the source's.
** The digits a tile takes are the low bits of their loops. What the loops
** have left (e / 2^b iterations, the last one stepped back where 2^b does
** not divide e) are the kernel's own loops (the innermost three) and the
** box's.
*/
#include <stdlib.h>
#include <string.h>

#include "planner.h"

typedef struct mdig {
  int lp, bit;       /* loop and bit; lp < 0: none */
} mdig;

typedef struct mctx {
  int n;                        /* loops */
  int64_t E[LI_MAX_LOOPS];      /* extents */
  int64_t S[LI_MAX_LOOPS];      /* source strides, bytes */
  int64_t D[LI_MAX_LOOPS];      /* destination strides, bytes */
  uint32_t used[LI_MAX_LOOPS];  /* bits of each loop in the tile */
} mctx;

static int dig_eq(mdig a, mdig b) { return a.lp == b.lp && a.bit == b.bit; }
static int64_t dig_s(const mctx *c, mdig x) { return c->S[x.lp] << x.bit; }
static int64_t dig_d(const mctx *c, mdig x) { return c->D[x.lp] << x.bit; }

/* Whether loop i has a bit b (2^(b+1) <= its extent). */
static int has_bit(const mctx *c, int i, int b) {
  return b < 30 && ((int64_t)2 << b) <= c->E[i];
}

/* The lowest bits of the loops by stride St (c->S or c->D): nd digits of
** strides g, 2g, 4g, ... into out; 0 when there are fewer. A chain enters
** a loop at its bit 0 and goes on through its bits. */
static int chain(const mctx *c, const int64_t *St, int64_t g, int nd,
                 mdig *out) {
  int cnt[LI_MAX_LOOPS] = {0};
  for (int y = 0; y < nd; y++) {
    int64_t X = g << y;
    int f = -1;
    for (int i = 0; i < c->n && f < 0; i++)
      if (St[i] > 0 && (St[i] << cnt[i]) == X && has_bit(c, i, cnt[i])) f = i;
    if (f < 0) return 0;
    out[y] = (mdig){f, cnt[f]++};
  }
  return 1;
}

static int in_set(mdig x, const mdig *set, int n) {
  for (int i = 0; i < n; i++)
    if (dig_eq(x, set[i])) return 1;
  return 0;
}

/* The next free bit of a loop (its lowest unused), by smallest stride St
** (0: destination, 1: source) or of stride exactly `want` (> 0). */
static mdig free_digit(const mctx *c, int src, int64_t want) {
  mdig best = {-1, 0};
  int64_t bs = 0;
  for (int i = 0; i < c->n; i++) {
    int b = 0;
    while (b < 30 && (c->used[i] >> b & 1)) b++;
    if (!has_bit(c, i, b)) continue;
    int64_t st = (src ? c->S[i] : c->D[i]) << b;
    if (want ? st == want : (best.lp < 0 || st < bs)) {
      best = (mdig){i, b};
      bs = st;
    }
  }
  return best;
}

static void use(mctx *c, mdig x) { c->used[x.lp] |= 1u << x.bit; }

/* Registers for rotation rho of k register bits over t position bits:
** R[m] is the digit at input position t + m. Returns 1 when D's digits
** land at positions 0..t-1 (R's unset slots: lp < 0). */
static int assign(const mdig *Sd, const mdig *Dd, int t, int k, int rho,
                  mdig *R) {
  for (int m = 0; m < k; m++) R[m] = (mdig){-1, 0};
  for (int y = 0; y < t; y++) {
    int x = ((y - rho) % (k + t) + (k + t)) % (k + t);
    if (x < t) {
      if (!dig_eq(Sd[x], Dd[y])) return 0;
    } else {
      if (in_set(Dd[y], Sd, t)) return 0;
      R[x - t] = Dd[y];
    }
  }
  return 1;
}

/* Whole registers on a side whose code bits (k register bits, then lam
** lane bits) have strides v: 1 when the lanes lie 16, 32 bytes apart as
** they are, or after the lane exchange (register bit b swapped with lane
** bit b, each b: sw and v get the swaps) where x allows it; 0
** otherwise. */
static int whole_lanes(int64_t *v, int k, int lam, int x, int8_t (*sw)[2],
                       int *n) {
  int as_is = 1, swapped = x && lam <= k;
  for (int b = 0; b < lam; b++) {
    as_is &= v[k + b] == (int64_t)16 << b;
    swapped &= b < k && v[b] == (int64_t)16 << b;
  }
  *n = 0;
  if (as_is || !swapped) return as_is;
  for (int b = 0; b < lam; b++) {
    int64_t y = v[b];
    v[b] = v[k + b];
    v[k + b] = y;
    sw[b][0] = (int8_t)b;
    sw[b][1] = (int8_t)b;
  }
  *n = lam;
  return 1;
}

/* The loops a tile leaves of loop i: as li_mloop (bytes); 0 when none. */
static int rest_loop(const mctx *c, int i, li_mloop *r, int *stepped) {
  int u = 0;
  while (u < 30 && (c->used[i] >> u & 1)) u++;
  if (c->used[i] != (1u << u) - 1) return -1; /* not the low bits */
  int64_t q = (int64_t)1 << u, n = (c->E[i] + q - 1) / q;
  if (n <= 1) return 0;
  r->n = n;
  r->ss = c->S[i] * q;
  r->ds = c->D[i] * q;
  r->sl = (c->E[i] - q) * c->S[i];
  r->dl = (c->E[i] - q) * c->D[i];
  *stepped = c->E[i] % q != 0;
  return 1;
}

static int stepped_back(const li_mloop *r) {
  return r->sl != (r->n - 1) * r->ss || r->dl != (r->n - 1) * r->ds;
}

/* Sort n loops by destination stride, the largest first (then by source
** stride). */
static void by_dst(li_mloop *r, int n) {
  for (int i = 1; i < n; i++)
    for (int a = i; a > 0 && (r[a - 1].ds < r[a].ds ||
                              (r[a - 1].ds == r[a].ds &&
                               r[a - 1].ss < r[a].ss));
         a--) {
      li_mloop x = r[a];
      r[a] = r[a - 1];
      r[a - 1] = x;
    }
}

/* The source's lines read whole before the tiles move on: where a tile
** reads runs of cs < 64 bytes, the loop that continues them (source stride
** cs) goes innermost, cut to the rest of a 64-byte line when it is longer
** (its outer part keeps its place by destination stride). Without it a
** tile walking down a transposition's rows reads 16 bytes of each line and
** comes back for the rest after the whole column (qnn.nchw pack fp32
** [1,56,56,128]: 1.6 MB of source, each line read 4 times from L3). r
** holds n loops, the last nst of them stepping back; returns the loops. */
static int line_first(li_mloop *r, int n, int nst, int64_t cs) {
  int f = -1;
  for (int i = 0; i < n && f < 0; i++)
    if (r[i].ss == cs) f = i;
  if (f < 0 || cs >= 64 || f == n - 1) return n;
  const int64_t q = 64 / cs;
  li_mloop x = r[f];
  if (f < n - nst && x.n > q) { /* cut: the outer part stays */
    if (x.n % q) return n;
    li_mloop o = {x.n / q, x.ss * q, x.ds * q, (x.n / q - 1) * x.ss * q,
                  (x.n / q - 1) * x.ds * q};
    x = (li_mloop){q, x.ss, x.ds, (q - 1) * x.ss, (q - 1) * x.ds};
    r[f] = o;
    if (n >= LI_MAX_LOOPS) return n;
    r[n++] = x;
    return n;
  }
  for (int i = f; i < n - 1; i++) r[i] = r[i + 1];
  r[n - 1] = x;
  return n;
}

#define MT_MAX_TILES 4096 /* macro tiles of one plan */

/* The tile's unit: the innermost of L[0 .. n0) when contiguous on both
** sides (its bytes), else one element; *m: the loops left for digits,
** *lg: log2 of the unit's bytes. 0 when the unit is not 1-16 bytes of a
** power of two. */
static int tile_unit(const li_loop *L, int n0, size_t esz, int *m, int *lg) {
  int64_t g = (int64_t)esz;
  *m = n0;
  if (L[n0 - 1].ss == 1 && L[n0 - 1].ds == 1) g = L[--*m].ext * (int64_t)esz;
  *lg = 0;
  while (*lg < 5 && ((int64_t)1 << *lg) < g) ++*lg;
  return ((int64_t)1 << *lg) == g && *lg <= 4 && *m >= 1;
}

/* The registers: the source's and destination's t lowest digits (Sd,
** Dd, positions of a 16-byte chunk), the fewest registers k and then the
** fewest rounds rho of the perfect shuffle that takes one order to the
** other, the input registers' digits R and the output registers' O (bit
** x is output position t + x, the input position rho bits lower). The
** digits taken are marked used in c. 0 when no tile does. */
static int tile_registers(mctx *c, int t, mdig *Sd, mdig *Dd, mdig *R,
                          mdig *O, int *pk, int *prho) {
  const int64_t g = (int64_t)1 << (4 - t);
  if (!chain(c, c->S, g, t, Sd) || !chain(c, c->D, g, t, Dd)) return 0;
  int k = -1, rho = 0;
  for (int kk = t ? 1 : 0; kk <= t && k < 0; kk++)
    for (int v = 0; v < 2 && k < 0; v++) {
      int rr = v ? t : kk;
      if (assign(Sd, Dd, t, kk, rr, R)) {
        k = kk;
        rho = rr;
      }
    }
  if (k < 0) return 0;
  for (int y = 0; y < t; y++) {
    use(c, Sd[y]);
    use(c, Dd[y]);
  }
  for (int x = 0; x < k; x++)
    if (R[x].lp >= 0) use(c, R[x]);
  for (int x = 0; x < k; x++)
    if (R[x].lp < 0) { /* a free digit, the nearest in the destination */
      R[x] = free_digit(c, 0, 0);
      if (R[x].lp < 0) return 0;
      use(c, R[x]);
    }
  for (int x = 0; x < k; x++) {
    int ip = ((t + x - rho) % (k + t) + (k + t)) % (k + t);
    O[x] = ip < t ? Sd[ip] : R[ip - t];
  }
  *pk = k;
  *prho = rho;
  return 1;
}

/* The lanes of 32- and 64-byte registers (mt->lanes, up to `most`) and
** the strides vs, vd of the code bits (registers, then lanes). Candidates
** are the destination's next digits (16, 32 bytes on), the source's, and
** the nearest in the destination; swaps with register bits make whole
** registers on a side where its lanes are register digits' strides. The
** most lanes whole on both sides, else on one (below); scattered lanes
** (an insert or extract each) only for a full transposition, whose
** network they halve: elsewhere they cost more than they save
** (amd.hcwnc4 pack int8 [1,64,56,56], 4 rows interleaved, 2.4x memcpy
** with 4 scattered lanes, 1.4x without). Rows interleaved or split (0 <
** k < t) take whole registers where a side has them (their few rounds
** cost less than inserts and extracts) and the exchange their kernels
** have (exec/mtile.c); where neither side has, scattered lanes still beat
** one lane, whose 16-byte registers take four times the shuffles (amd.hcwnc4
** unpack int8 [1,37,29,23] 1.75 -> 1.36 us, qnn.crouton2x2 unpack int8
** [4,32,28,28] 5.2 -> 3.5 us; all 21 plans of 100 formats at 5 shapes
** that changed were faster). The lanes' digits are marked used in c. */
static void tile_lanes(mctx *c, int most, int k, int t, const mdig *R,
                       const mdig *O, li_mtile *mt, int64_t *vs,
                       int64_t *vd) {
  const mctx keep = *c;
  const int xch = k > 0 && k < t;
  for (int need = 2; need >= 0; need--)
    for (int o = 0; o < 3 * most; o++) {
      /* one side whole: the destination's at any lane count before the
      ** source's (16-byte stores cost more than 16-byte loads: 4 lanes
      ** loaded whole and stored by lane took amd.hcwnc8 pack fp32
      ** [1,64,56,56] 39 us, 2 lanes the other way 23 us; hcwnc16 pack
      ** int16 16 -> 11 us; of the sweep's 618 plans 6 changed, one
      ** slower: sweep.px4 unpack int8 [1,64,56,56] 5.4 -> 6.6 us) */
      const int df = need == 1;
      const int lam = df ? most - o % most : most - o / 3;
      const int side = df ? o / most : o % 3;
      if (need == 0 && (lam < most || side < 2)) continue;
      *c = keep;
      mdig Ld[2];
      int got = 0;
      for (; got < lam; got++) {
        mdig x = side == 2 ? free_digit(c, 0, 0)
                           : free_digit(c, side, (int64_t)16 << got);
        if (x.lp < 0) break;
        use(c, x);
        Ld[got] = x;
      }
      if (got < lam) continue;
      for (int x = 0; x < k; x++) {
        vs[x] = dig_s(c, R[x]);
        vd[x] = dig_d(c, O[x]);
      }
      for (int x = 0; x < lam; x++) {
        vs[k + x] = dig_s(c, Ld[x]);
        vd[k + x] = dig_d(c, Ld[x]);
      }
      mt->ldw = whole_lanes(vs, k, lam, xch, mt->lsw, &mt->nls);
      mt->stw = whole_lanes(vd, k, lam, xch, mt->ssw, &mt->nss);
      if (mt->ldw + mt->stw >= need &&
          (mt->ldw + mt->stw == 2 || k == t || !k || need == 0)) {
        mt->lanes = lam;
        return;
      }
    }
  *c = keep; /* one lane: the registers' strides as they are */
  for (int x = 0; x < k; x++) {
    vs[x] = dig_s(c, R[x]);
    vd[x] = dig_d(c, O[x]);
  }
  mt->lanes = 0;
  mt->ldw = mt->stw = 0;
  mt->nls = mt->nss = 0;
}

/* The chunks' offsets: code bit x set adds vs[x] on the source, vd[x] on
** the destination. */
static void tile_codes(li_mtile *mt, const int64_t *vs, const int64_t *vd) {
  for (int code = 0; code < 1 << (mt->k + mt->lanes); code++) {
    int64_t so = 0, dof = 0;
    for (int x = 0; x < mt->k + mt->lanes; x++)
      if (code >> x & 1) {
        so += vs[x];
        dof += vd[x];
      }
    mt->in[code] = so;
    mt->out[code] = dof;
  }
}

/* The loops the tile's digits leave of c's m loops, outermost first (by
** destination stride; those whose last step steps back after the others,
** the kernel's own loops); the innermost up to three go to mt->l, the
** rest to rl[0 .. return). -1 when they do not make such loops. */
static int tile_loops(const mctx *c, int m, li_mtile *mt, li_mloop *rl) {
  li_mloop tmp[LI_MAX_LOOPS];
  int nr = 0, nst = 0, stp[LI_MAX_LOOPS];
  for (int i = 0; i < m; i++) {
    int stepped = 0, r = rest_loop(c, i, &tmp[nr], &stepped);
    if (r < 0) return -1;
    if (!r) continue;
    stp[nr++] = stepped;
    nst += stepped;
  }
  if (nst > 3) return -1;
  int order = 0;
  for (int pass = 0; pass < 2; pass++) /* unstepped, then stepped */
    for (int i = 0; i < nr; i++)
      if (stp[i] == pass) rl[order++] = tmp[i];
  by_dst(rl, nr - nst);
  by_dst(rl + nr - nst, nst);
  nr = line_first(rl, nr, nst, mt->ldw ? (int64_t)16 << mt->lanes : 16);
  /* the kernel's own loops: the innermost three; the box keeps its
  ** outermost unless it steps back (the cuts of a run on threads) */
  int own = nr < 3 ? nr : 3;
  if (own == nr && nr > 0 && !stepped_back(&rl[0])) own--;
  for (int a = 0; a < nr - own; a++)
    if (stepped_back(&rl[a])) return -1;
  for (int a = 0; a < 3; a++) mt->l[a] = (li_mloop){1, 0, 0, 0, 0};
  for (int a = 0; a < own; a++) mt->l[a] = rl[nr - 1 - a];
  mt->nl = own;
  return nr - own;
}

int li_take_mtile(li_plan *p, li_box *b, li_loop *L, int *pn) {
  const int n0 = *pn;
  const size_t esz = p->d.esz;
  if (b->fill || p->slow || b->pre || b->post || p->simd < LI_SIMD_SSE ||
      p->s.esz != esz || p->s.v.nplanes || p->d.v.nplanes || n0 < 2 ||
      p->nmt >= MT_MAX_TILES)
    return 0;
  for (int i = 0; i < n0; i++)
    if (L[i].tab || L[i].ss < 0 || L[i].ds < 0) return 0;
  int m, lg;
  if (!tile_unit(L, n0, esz, &m, &lg)) return 0;
  mctx c;
  memset(&c, 0, sizeof c);
  c.n = m;
  for (int i = 0; i < m; i++) {
    c.E[i] = L[i].ext;
    c.S[i] = L[i].ss * (int64_t)esz;
    c.D[i] = L[i].ds * (int64_t)esz;
  }
  li_mtile mt;
  memset(&mt, 0, sizeof mt);
  const int t = 4 - lg;
  mdig Sd[4], Dd[4], R[4], O[4];
  if (!tile_registers(&c, t, Sd, Dd, R, O, &mt.k, &mt.rho)) return 0;
  const int most = p->simd >= LI_SIMD_AVX512 ? 2
                   : p->simd >= LI_SIMD_AVX2 ? 1 : 0;
  int64_t vs[6], vd[6]; /* strides of the code bits: registers, lanes */
  tile_lanes(&c, most, mt.k, t, R, O, &mt, vs, vd);
  mt.lg = lg;
  tile_codes(&mt, vs, vd);
  li_mloop rl[LI_MAX_LOOPS];
  const int nb = tile_loops(&c, m, &mt, rl);
  if (nb < 0) return 0;
  li_mtile *nt = realloc(p->mt, sizeof *nt * (size_t)(p->nmt + 1));
  if (!nt) return 0;
  p->mt = nt;
  p->mt[p->nmt] = mt;
  b->bk = p->nmt++;
  b->kern = LI_K_MTILE;
  for (int a = 0; a < nb; a++) /* bytes back to elements */
    L[a] = (li_loop){rl[a].n, rl[a].ss / (int64_t)esz,
                     rl[a].ds / (int64_t)esz, 0, 0};
  if (nb == 0) L[0] = (li_loop){1, 0, 0, 0, 0};
  *pn = b->nl = nb ? nb : 1;
  return 1;
}
