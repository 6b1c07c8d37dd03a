/*
** lower_check.c: the bijectivity check of a layout with explicit strides,
** over a ladder of shapes (see lower_int.h).
*/
#include <stdio.h>
#include <string.h>

#include "inject.h"
#include "lower_int.h"

/* ---- Bijectivity over a ladder of shapes ------------------------------------ */

/* With explicit strides a layout may map two elements to one offset, and
** whether it does depends on the shape: `[a @ 4, b]` is fine while b <= 4.
** The check enumerates the offsets of every element at a series of
** shapes: a base shape (two chunks per dimension), then each dimension in
** turn, and all of them together, on a ladder of sizes (multiples of the
** chunk and one more, 1c..4c, then doubling) that reaches past the largest
** constant stride, within an element budget. The first collision found
** names the shape and the two coordinates. */

/* The geometry of a layout at one shape. */
typedef struct bgeo {
  int64_t lo[LG_MAX_RANK], hi[LG_MAX_RANK], before[LG_MAX_RANK];
  int64_t str[LG_MAX_AXES], ext[LG_MAX_AXES];
  int64_t total; /* valid elements */
} bgeo;

/* A collision: two row-major indices of the hardware grid (every axis,
** pads included, as the planner checks it) and the offset they share. */
typedef struct bhit {
  int64_t a, b, off;
} bhit;

/* The geometry at `size`; 0 when the shape is valid and small enough,
** 1 to skip it (an expression does not evaluate, a slice does not fit, or
** the offsets could overflow). */
static int bij_geometry(const lg_ir *ir, const int64_t *chunk,
                        const int64_t *size, bgeo *g, int64_t limit) {
  int64_t P[LG_MAX_RANK];
  g->total = 1;
  for (int d = 0; d < ir->rank; d++) {
    const lg_ir_dim *m = &ir->dim[d];
    int64_t after = 0;
    g->lo[d] = 0;
    g->hi[d] = size[d];
    g->before[d] = 0;
    if ((m->lo && lg_iexpr_eval(m->lo, size, &g->lo[d])) ||
        (m->hi && lg_iexpr_eval(m->hi, size, &g->hi[d])) ||
        (m->before && lg_iexpr_eval(m->before, size, &g->before[d])) ||
        (m->after && lg_iexpr_eval(m->after, size, &after)))
      return 1;
    if (g->lo[d] < 0 || g->hi[d] <= g->lo[d] || g->hi[d] > size[d] ||
        g->before[d] < 0 || after < 0 || g->before[d] > (INT64_C(1) << 30) ||
        after > (INT64_C(1) << 30))
      return 1;
    P[d] = g->before[d] + (g->hi[d] - g->lo[d]) + after;
    if (P[d] % chunk[d]) P[d] += chunk[d] - P[d] % chunk[d];
    g->total *= g->hi[d] - g->lo[d];
    if (g->total > limit) return 1;
  }
  int64_t inner = 1;
  for (int i = ir->naxes - 1; i >= 0; i--) {
    const lg_ir_axis *a = &ir->axis[i];
    int64_t ext, s = inner, al;
    switch (a->kind) {
    case LG_AX_DIGIT:
      ext = a->mod ? a->mod : (P[a->dim] + a->div - 1) / a->div;
      break;
    case LG_AX_UNIT: ext = 1; break;
    default: ext = ir->value.nplanes; break;
    }
    if (a->stride && lg_iexpr_eval(a->stride, size, &s)) return 1;
    if (a->align && (lg_iexpr_eval(a->align, size, &al) || al <= 0)) return 1;
    if (a->align && s % al) s += al - s % al;
    if (s < 0 || s > (INT64_C(1) << 40) || ext > (INT64_C(1) << 20))
      return 1;
    g->str[i] = s;
    g->ext[i] = ext;
    if (__builtin_mul_overflow(ext, s, &inner) || inner > (INT64_C(1) << 56))
      return 1;
  }
  return 0;
}

/* The CPU-side coordinate of grid point k (outside the window on pads). */
static void bij_coord(const lg_ir *ir, const bgeo *g, int64_t k,
                      int64_t *x) {
  for (int d = 0; d < ir->rank; d++) x[d] = g->lo[d] - g->before[d];
  for (int i = ir->naxes - 1; i >= 0; i--) {
    int64_t v = k % g->ext[i];
    k /= g->ext[i];
    if (ir->axis[i].kind == LG_AX_DIGIT)
      x[ir->axis[i].dim] += v * ir->axis[i].div;
  }
}

/* The exact test of the grid at geometry g (lang/inject.c, the planner's
** own): 1 and *hit at a collision, else 0 (also when it cannot decide:
** the shape is left to the planner). */
static int bij_scan(const lg_ir *ir, const bgeo *g, bhit *hit) {
  int64_t ka, kb;
  if (lg_injective(g->ext, g->str, ir->naxes, LW_MAX_CHECK, &ka, &kb) != 0)
    return 0;
  hit->a = ka;
  hit->b = kb;
  hit->off = 0;
  for (int i = ir->naxes - 1; i >= 0; i--) {
    hit->off += (ka % g->ext[i]) * g->str[i];
    ka /= g->ext[i];
  }
  return 1;
}

/* The ladder of sizes for a dimension with chunk c, up to `limit`:
** c, c+1, 2c, 2c+1, 3c, 3c+1, 4c, 4c+1, then 8c, 8c+1, 16c, ... Returns
** how many (at most cap). */
static int bij_ladder(int64_t c, int64_t limit, int64_t *v, int cap) {
  int n = 0;
  for (int64_t k = 1; n + 2 <= cap; k = k < 4 ? k + 1 : 2 * k) {
    int64_t s;
    if (__builtin_mul_overflow(c, k, &s) || s > limit) break;
    for (int64_t t = s; t <= s + 1; t++)
      if (!n || t > v[n - 1]) v[n++] = t;
  }
  return n;
}

/* Add the first multiple of c past kmax (and one more) to the sorted
** ladder v of n sizes: the size at which a constant stride kmax becomes
** too small is always tried (`[m @ 12, n]` fails at [2,13]). */
static int bij_past(int64_t c, int64_t kmax, int64_t *v, int n, int cap) {
  int64_t s;
  if (kmax <= 0 || c <= 0 || kmax / c >= (INT64_C(1) << 40) ||
      __builtin_mul_overflow(kmax / c + 1, c, &s) || s > (INT64_C(1) << 40))
    return n; /* no shape that large is enumerated */
  for (int64_t t = s; t <= s + 1 && n < cap; t++) {
    int i = n;
    while (i > 0 && v[i - 1] > t) i--;
    if (i > 0 && v[i - 1] == t) continue;
    memmove(v + i + 1, v + i, sizeof *v * (size_t)(n - i));
    v[i] = t;
    n++;
  }
  return n;
}

/* Report a collision: the shape, both coordinates, the offset; the caret
** goes to the largest explicit stride among the axes on which the two
** elements differ (the stride that is too small for what lies inside it). */
static int bij_report(lw *w, const srcref *sr, const lg_layout *L,
                      const lg_ir *ir, const int64_t *size, const bgeo *g,
                      const bhit *hit) {
  int64_t x[LG_MAX_RANK], y[LG_MAX_RANK];
  bij_coord(ir, g, hit->a, x);
  bij_coord(ir, g, hit->b, y);
  int best = -1, first = -1;
  for (int i = 0; i < ir->naxes; i++) {
    const lg_ir_axis *a = &ir->axis[i];
    if (!a->stride || i >= L->n_items || !L->items[i].stride) continue;
    if (first < 0) first = i;
    int differ = a->kind != LG_AX_DIGIT;
    if (a->kind == LG_AX_DIGIT) {
      int64_t p = (x[a->dim] - g->lo[a->dim] + g->before[a->dim]) / a->div;
      int64_t q = (y[a->dim] - g->lo[a->dim] + g->before[a->dim]) / a->div;
      if (a->mod) {
        p %= a->mod;
        q %= a->mod;
      }
      differ = p != q;
    }
    if (differ && (best < 0 || g->str[i] > g->str[best])) best = i;
  }
  if (best < 0) best = first;
  uint32_t pos = best >= 0 ? L->items[best].stride->pos : L->order_pos;
  char sh[256], a[256], b[256];
  lg_fmt_list(sh, sizeof sh, size, ir->rank);
  int la = 0, lb = 0;
  for (int d = 0; d < ir->rank; d++) {
    la += snprintf(a + la, sizeof a - (size_t)la, "%s%lld", d ? "," : "(",
                   (long long)x[d]);
    lb += snprintf(b + lb, sizeof b - (size_t)lb, "%s%lld", d ? "," : "(",
                   (long long)y[d]);
  }
  return lg_fail(w, sr, pos, LAY_E_LAYOUT,
                 "layout is not a bijection for shape %s: %s) and %s) both map "
                 "to offset %lld",
                 sh, a, b, (long long)hit->off);
}

/* Run the check over the ladder of shapes. */
int lg_check_bijection(lw *w, const srcref *sr, const lg_layout *L,
                       const lg_ir *ir, const int64_t *chunk) {
  enum { LADDER = 48 };
  int rank = ir->rank;
  /* The largest constant stride: the ladder reaches past it. */
  int64_t kmax = 0;
  for (int i = 0; i < ir->naxes; i++) {
    int64_t c;
    if (ir->axis[i].stride && lg_ie_is_const(ir->axis[i].stride, &c) &&
        c > kmax)
      kmax = c;
  }
  int64_t ladder[LG_MAX_RANK][LADDER], base[LG_MAX_RANK];
  int nl[LG_MAX_RANK], steps = 0;
  int64_t basecount = 1;
  for (int d = 0; d < rank; d++) {
    int64_t k = kmax > 6 ? (kmax < INT64_MAX - 2 ? kmax + 2 : INT64_MAX) : 8,
            limit;
    if (__builtin_mul_overflow(chunk[d], k, &limit)) limit = INT64_MAX;
    nl[d] = bij_ladder(chunk[d], limit, ladder[d], LADDER - 2);
    nl[d] = bij_past(chunk[d], kmax, ladder[d], nl[d], LADDER);
    if (nl[d] > steps) steps = nl[d];
    base[d] = 2 * chunk[d];
    if (basecount < LW_MAX_CHECK) basecount *= base[d];
  }
  /* A base shape too large to enumerate keeps one chunk per dimension. */
  if (basecount > LW_MAX_CHECK / 16)
    for (int d = 0; d < rank; d++) base[d] = chunk[d];
  int64_t spent = 0;
  int nplanes = ir->value.nplanes ? ir->value.nplanes : 1, rc = 0;
  /* Shape 0 is the base; then, for each step of the ladder, each
  ** dimension alone and then all of them together. */
  for (int s = -1; s < steps && !rc && spent < LW_CHECK_BUDGET; s++) {
    for (int d = 0; d <= rank && !rc; d++) {
      int64_t size[LG_MAX_RANK];
      memcpy(size, base, sizeof(int64_t) * (size_t)rank);
      if (s >= 0 && d < rank) {
        if (s >= nl[d]) continue;
        size[d] = ladder[d][s];
      } else if (s >= 0) {
        if (rank == 1) continue;
        for (int e = 0; e < rank; e++)
          size[e] = ladder[e][s < nl[e] ? s : nl[e] - 1];
      } else if (d > 0) {
        continue;
      }
      bgeo g;
      if (bij_geometry(ir, chunk, size, &g, LW_MAX_CHECK)) continue;
      int64_t n = g.total * nplanes;
      if (spent + n > LW_CHECK_BUDGET) continue;
      spent += n;
      bhit hit;
      if (bij_scan(ir, &g, &hit))
        rc = bij_report(w, sr, L, ir, size, &g, &hit);
    }
  }
  return rc;
}

/* ---- Swizzles: the gather table at the plan's shape ------------------------ */

/* "(1,2)" for coordinate x. */
static void fmt_coord(char *buf, size_t cap, const int64_t *x, int rank) {
  size_t n = 0;
  for (int d = 0; d < rank && n < cap; d++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? "," : "(",
                          (long long)x[d]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* The offset of valid coordinate x (-1 and an error when a swizzle leaves
** its axis). */
static int64_t swz_offset(lw *w, const srcref *sr, const lg_ir *ir,
                          const bgeo *g, const lg_swz *swz,
                          const int64_t *x) {
  int64_t p[LG_MAX_RANK], off = 0;
  for (int d = 0; d < ir->rank; d++) p[d] = x[d] - g->lo[d] + g->before[d];
  for (int i = 0; i < ir->naxes; i++) {
    const lg_ir_axis *a = &ir->axis[i];
    int64_t v = 0;
    if (a->kind == LG_AX_DIGIT) {
      v = p[a->dim] / a->div;
      if (a->mod) v %= a->mod;
    }
    if (swz[i].on) {
      int64_t s = swz[i].dim < 0 ? swz[i].k
                                 : p[swz[i].dim] / swz[i].div % swz[i].mod;
      if ((v ^ s) >= g->ext[i]) {
        char sh[256];
        lg_fmt_list(sh, sizeof sh, w->shape, ir->rank);
        lg_fail(w, sr, swz[i].pos, LAY_E_LAYOUT,
                "swizzle '%s' leaves its axis for shape %s: %lld ^ %lld is "
                "%lld, the axis has %lld",
                swz[i].text, sh, (long long)v, (long long)s,
                (long long)(v ^ s), (long long)g->ext[i]);
        return -1;
      }
      v ^= s;
    }
    off += v * g->str[i];
  }
  return off;
}

int lg_swizzle_table(lw *w, const srcref *sr, lg_ir *ir,
                     const int64_t *chunk, const lg_swz *swz) {
  char sh[256];
  bgeo g;
  if (w->shape_rank != ir->rank)
    return lg_fail(w, sr, 0, LAY_E_SHAPE,
                   "shape has %d dimensions, the layout has %d",
                   w->shape_rank, ir->rank);
  lg_fmt_list(sh, sizeof sh, w->shape, ir->rank);
  int64_t span = 1;
  if (bij_geometry(ir, chunk, w->shape, &g, LW_MAX_TABLE) == 0)
    for (int i = 0; i < ir->naxes && span <= LW_MAX_TABLE; i++)
      span += (g.ext[i] - 1) * g.str[i];
  else
    span = LW_MAX_TABLE + 1;
  if (ir->naxes > 0 && g.ext[0] * g.str[0] > span) span = g.ext[0] * g.str[0];
  if (span > LW_MAX_TABLE)
    return lg_fail(w, sr, 0, LAY_E_LIMIT,
                   "a swizzled layout is planned as a table of at most %d "
                   "entries; shape %s needs more",
                   LW_MAX_TABLE, sh);
  int64_t *t = lg_walloc(w, sizeof *t * (size_t)span);
  if (!t) return -1;
  for (int64_t e = 0; e < span; e++) t[e] = -1;
  int64_t x[LG_MAX_RANK], n = 1;
  for (int d = 0; d < ir->rank; d++) n *= w->shape[d];
  for (int64_t k = 0; k < n; k++) {
    int64_t r = k, valid = 1;
    for (int d = ir->rank - 1; d >= 0; d--) {
      x[d] = r % w->shape[d];
      r /= w->shape[d];
      valid &= x[d] >= g.lo[d] && x[d] < g.hi[d];
    }
    if (!valid) continue;
    int64_t off = swz_offset(w, sr, ir, &g, swz, x);
    if (off < 0) return -1;
    if (t[off] >= 0) {
      int64_t y[LG_MAX_RANK], q = t[off];
      char a[200], b[200];
      for (int d = ir->rank - 1; d >= 0; d--) {
        y[d] = q % w->shape[d];
        q /= w->shape[d];
      }
      fmt_coord(a, sizeof a, y, ir->rank);
      fmt_coord(b, sizeof b, x, ir->rank);
      return lg_fail(w, sr, ir->axis[0].pos, LAY_E_LAYOUT,
                     "layout is not a bijection for shape %s: %s and %s both "
                     "map to offset %lld",
                     sh, a, b, (long long)off);
    }
    t[off] = k;
  }
  ir->naxes = 0;
  ir->table = t;
  ir->ntable = span;
  return 0;
}
