/*
** stage.c: the slabs of staged boxes (plan_int.h li_stage). A slab is a
** stretch of the dense array P over a box's coordinates, whose elements
** outside the tensor are pads: li_stage_fill copies its elements inside
** the tensor from the plain side X and writes the pad element around
** them; li_stage_drain copies the elements inside the tensor from the
** slab to X. P's rows (its innermost dimension) are runs of X (or
** strided); the rows go in groups along the next dimension, alike rows
** whose X offsets and slab offsets step evenly: a tight loop a group.
*/
#include "kern.h"

/* A group of P's rows: m rows of len elements, E apart in the slab and
** xs apart in X, each with its elements inside the tensor at [c0, c1)
** from the row's start (c0 == c1: none), the first at X offset xo. */
typedef struct rgroup {
  int64_t m, len, E, xs, c0, c1, xo;
} rgroup;

/* P's rows from one element on, in order, in groups. */
typedef struct rowit {
  const li_stage *g;
  int64_t y[LG_MAX_RANK]; /* the coordinates of the next row's start */
  int64_t xo;             /* X's offset of (y[0 .. nd - 1), 0) */
  int bad;                /* outer coordinates outside [v0, v1), plus 1
                             past P's end */
  int64_t left;           /* elements still to go */
} rowit;

static inline int out(const li_stage *g, int i, int64_t y) {
  return y < g->v0[i] || y >= g->v1[i];
}

/* The rows of elements [a, a + n) of P. */
static void rowit_start(rowit *it, const li_stage *g, int64_t a, int64_t n) {
  const int l = g->nd - 1;
  it->g = g;
  it->left = n;
  for (int i = l; i >= 0; i--) {
    it->y[i] = a % g->ext[i];
    a /= g->ext[i];
  }
  it->bad = a > 0;
  it->xo = g->org;
  for (int i = 0; i < l; i++) {
    it->xo += it->y[i] * g->st[i];
    it->bad += out(g, i, it->y[i]);
  }
}

/* Move the outer coordinates on by one row (a carry into y[l - 1] and
** outward). */
static void carry(rowit *it) {
  const li_stage *g = it->g;
  for (int i = g->nd - 2; i >= 0; i--) {
    it->bad -= out(g, i, it->y[i]);
    it->xo += g->st[i];
    if (++it->y[i] < g->ext[i]) {
      it->bad += out(g, i, it->y[i]);
      return;
    }
    it->xo -= g->ext[i] * g->st[i];
    it->y[i] = 0;
    it->bad += out(g, i, 0);
  }
  it->bad++; /* past P's end */
}

/* The next group into *q: 0 after the last. A group is one row when the
** row starts or ends inside P's row, else the whole rows from here to
** the next change of y[l - 1]'s validity or its wrap. */
static inline int rowit_next(rowit *it, rgroup *q) {
  const li_stage *g = it->g;
  const int l = g->nd - 1;
  if (it->left <= 0) return 0;
  const int64_t c = it->y[l], E = g->ext[l];
  int64_t len = E - c < it->left ? E - c : it->left, m = 1;
  if (c == 0 && len == E && l > 0) {
    /* whole rows: as many as y[l - 1] keeps its validity and the span */
    const int64_t y1 = it->y[l - 1];
    int64_t stop = g->ext[l - 1];
    if (y1 < g->v0[l - 1]) stop = g->v0[l - 1];
    else if (y1 < g->v1[l - 1]) stop = g->v1[l - 1];
    m = stop - y1;
    if (m * E > it->left) m = it->left / E; /* the slab's last rows */
    if (m < 1) m = 1;
  }
  int64_t lo = c > g->v0[l] ? c : g->v0[l];
  int64_t hi = c + len < g->v1[l] ? c + len : g->v1[l];
  if (it->bad || lo >= hi) lo = hi = c;
  q->m = m;
  q->len = len;
  q->E = E;
  q->xs = l > 0 ? g->st[l - 1] : 0;
  q->c0 = lo - c;
  q->c1 = hi - c;
  q->xo = it->xo + lo * g->st[l];
  it->left -= m * len;
  it->y[l] += len;
  if (it->y[l] < E) return 1;
  it->y[l] = 0;
  if (m > 1) { /* m - 1 rows on inside y[l - 1], its validity the same */
    it->y[l - 1] += m - 1;
    it->xo += (m - 1) * g->st[l - 1];
  }
  carry(it);
  return 1;
}

/* n bytes of the pattern pv (32 bytes, whole elements) from d, in 32-byte
** stores: up to 31 bytes past d + n are written too. */
static inline void pad_run(uint8_t *d, int64_t n, const uint8_t *pv) {
  for (int64_t i = 0; i < n; i += 32) memcpy(d + i, pv, 32);
}

static inline void run_copy(uint8_t *d, int64_t dst, const uint8_t *s,
                            int64_t sst, int64_t n, size_t esz) {
  if (sst == 1 && dst == 1) cpy(d, s, (size_t)n * esz);
  else copy_any(s, sst, d, dst, n, esz);
}

/* m runs of b <= 16 bytes, ds and ss bytes apart: overlapping word moves,
** inline (a call a run would cost more than the run). */
static inline void short_runs(uint8_t *d, int64_t ds, const uint8_t *s,
                              int64_t ss, int64_t m, int64_t b) {
  uint64_t u, v;
  if (b >= 8) {
    for (int64_t r = 0; r < m; r++, d += ds, s += ss) {
      memcpy(&u, s, 8);
      memcpy(&v, s + b - 8, 8);
      memcpy(d, &u, 8);
      memcpy(d + b - 8, &v, 8);
    }
  } else if (b >= 4) {
    uint32_t x, y;
    for (int64_t r = 0; r < m; r++, d += ds, s += ss) {
      memcpy(&x, s, 4);
      memcpy(&y, s + b - 4, 4);
      memcpy(d, &x, 4);
      memcpy(d + b - 4, &y, 4);
    }
  } else if (b >= 2) {
    uint16_t x, y;
    for (int64_t r = 0; r < m; r++, d += ds, s += ss) {
      memcpy(&x, s, 2);
      memcpy(&y, s + b - 2, 2);
      memcpy(d, &x, 2);
      memcpy(d + b - 2, &y, 2);
    }
  } else {
    for (int64_t r = 0; r < m; r++, d += ds, s += ss) d[0] = s[0];
  }
}

void li_stage_fill(const li_stage *g, const uint8_t *x, size_t esz,
                   const uint8_t *pat, uint8_t *slab, int64_t a, int64_t n,
                   li_stage_log *log) {
  const int64_t z = (int64_t)esz, st = g->st[g->nd - 1];
  uint8_t pv[32];
  rowit it;
  rgroup q;
  int gi = 0;
  for (size_t i = 0, j = 0; i < 32; i++, j = j + 1 < esz ? j + 1 : 0)
    pv[i] = pat[j]; /* no division a byte: one call a slab, many slabs */
  rowit_start(&it, g, a, n);
  for (; rowit_next(&it, &q); gi++, slab += q.m * q.len * z) {
    /* the pads as the last fill of this slab wrote them: only the data */
    /* field by field: a struct built on the stack and copied whole was
    ** read back as 16-byte words before its 8-byte stores could forward
    ** to them, a stall a group (a third of this function's time,
    ** qnn.crouton2 pack int8 [1,29,23,37]) */
    li_stage_grp *lg = &log->grp[gi < LI_STAGE_LOG ? gi : 0];
    const int64_t off = slab - log->base;
    int same = gi < LI_STAGE_LOG && gi < log->n && lg->off == off &&
               lg->m == q.m && lg->len == q.len && lg->c0 == q.c0 &&
               lg->c1 == q.c1;
    if (gi < LI_STAGE_LOG && !same) {
      lg->off = off;
      lg->m = q.m;
      lg->len = q.len;
      lg->c0 = q.c0;
      lg->c1 = q.c1;
      log->n = gi + 1;
    } else if (gi >= LI_STAGE_LOG) {
      log->n = LI_STAGE_LOG; /* what follows is not kept */
    }
    if (q.c0 == q.c1) {
      if (!same) pad_run(slab, q.m * q.len * z, pv);
      continue;
    }
    const int64_t b = (q.c1 - q.c0) * z;
    if (st == 1 && b <= 16) { /* short rows: the pads over all, the data */
      if (!same) pad_run(slab, q.m * q.len * z, pv);
      short_runs(slab + q.c0 * z, q.E * z, x + q.xo * z, q.xs * z, q.m, b);
      continue;
    }
    for (int64_t r = 0; r < q.m; r++) {
      uint8_t *d = slab + r * q.E * z;
      if (!same) pad_run(d, q.c0 * z, pv);
      run_copy(d + q.c0 * z, 1, x + (q.xo + r * q.xs) * z, st, q.c1 - q.c0,
               esz);
      if (!same) pad_run(d + q.c1 * z, (q.len - q.c1) * z, pv);
    }
  }
  if (gi < log->n) log->n = gi;
}

void li_stage_drain(const li_stage *g, const uint8_t *slab, size_t esz,
                    uint8_t *x, int64_t a, int64_t n) {
  const int64_t z = (int64_t)esz, st = g->st[g->nd - 1];
  rowit it;
  rgroup q;
  rowit_start(&it, g, a, n);
  for (; rowit_next(&it, &q); slab += q.m * q.len * z) {
    const int64_t b = (q.c1 - q.c0) * z;
    if (st == 1 && b <= 16 && b > 0) {
      short_runs(x + q.xo * z, q.xs * z, slab + q.c0 * z, q.E * z, q.m, b);
      continue;
    }
    for (int64_t r = 0; q.c1 > q.c0 && r < q.m; r++)
      run_copy(x + (q.xo + r * q.xs) * z, st, slab + (r * q.E + q.c0) * z, 1,
               q.c1 - q.c0, esz);
  }
}
