/*
** inject.c: the exact bijectivity test of a strided grid (see inject.h).
**
** Axes of extent 1 never matter. Among the others, sorted by stride:
**   - the largest axis whose stride is at least the span of all the other
**     axes (sum (ext - 1) * stride + 1) nests over them: its digit is the
**     offset's quotient, so the map is injective iff it is on the rest;
**   - the smallest axis (stride s, extent e) when every other stride is a
**     multiple of s * e: its digit is (offset mod s * e) / s, so again the
**     map is injective iff it is on the rest;
**   - a stride 0 with extent > 1 maps two points to one offset.
** What is left is enumerated: its offsets sorted, a repeat is a collision
** (two points of the whole grid that differ only on the tangled axes).
*/
#include <stdlib.h>

#include "inject.h"

typedef struct ioff {
  int64_t off, k; /* offset; index in the tangled sub-grid */
} ioff;

static int cmp_ioff(const void *a, const void *b) {
  const ioff *x = a, *y = b;
  if (x->off != y->off) return x->off < y->off ? -1 : 1;
  return x->k < y->k ? -1 : x->k > y->k;
}

/* The grid index of the point that is `sub` on the tangled axes `t` (nt of
** them, in grid order) and 0 elsewhere. */
static int64_t grid_index(const int64_t *ext, int n, const int *t, int nt,
                          const int64_t *tx, int64_t sub) {
  int64_t x[64] = {0}, k = 0;
  for (int i = nt - 1; i >= 0; i--) {
    x[t[i]] = sub % tx[i];
    sub /= tx[i];
  }
  for (int j = 0; j < n; j++) k = k * ext[j] + x[j];
  return k;
}

int lg_injective(const int64_t *ext, const int64_t *str, int n,
                 int64_t bound, int64_t *ka, int64_t *kb) {
  int live[64], nl = 0;
  *ka = *kb = 0;
  if (n > 64) return -1;
  if (bound > LG_INJECT_BOUND) bound = LG_INJECT_BOUND;
  for (int j = 0; j < n; j++)
    if (ext[j] > 1) {
      if (str[j] == 0) { /* points 0 and 1 on this axis */
        int64_t x = 1;
        for (int i = j + 1; i < n; i++) x *= ext[i];
        *kb = x;
        return 0;
      }
      live[nl++] = j;
    }
  /* Sort by stride (insertion: n <= 64). */
  for (int a = 1; a < nl; a++)
    for (int b = a; b > 0 && str[live[b]] < str[live[b - 1]]; b--) {
      int t = live[b]; live[b] = live[b - 1]; live[b - 1] = t;
    }
  for (int changed = 1; changed && nl > 0;) {
    changed = 0;
    /* The top axis nests over the others? */
    int64_t span = 1, t;
    for (int i = 0; i + 1 < nl; i++) {
      if (__builtin_mul_overflow(ext[live[i]] - 1, str[live[i]], &t) ||
          __builtin_add_overflow(span, t, &span))
        return -2;
    }
    if (str[live[nl - 1]] >= span) {
      nl--;
      changed = 1;
      continue;
    }
    /* The bottom axis' block divides every other stride? */
    int64_t blk;
    if (!__builtin_mul_overflow(str[live[0]], ext[live[0]], &blk)) {
      int all = 1;
      for (int i = 1; i < nl && all; i++) all = str[live[i]] % blk == 0;
      if (all) {
        for (int i = 0; i + 1 < nl; i++) live[i] = live[i + 1];
        nl--;
        changed = 1;
      }
    }
  }
  if (nl == 0) return 1;
  /* Enumerate the tangled axes, in grid order. */
  int tg[64];
  int64_t tx[64], ts[64], total = 1;
  for (int i = 0; i < nl; i++) tg[i] = live[i];
  for (int a = 1; a < nl; a++)
    for (int b = a; b > 0 && tg[b] < tg[b - 1]; b--) {
      int t = tg[b]; tg[b] = tg[b - 1]; tg[b - 1] = t;
    }
  for (int i = 0; i < nl; i++) {
    tx[i] = ext[tg[i]];
    ts[i] = str[tg[i]];
    if (__builtin_mul_overflow(total, tx[i], &total) || total > bound) {
      *ka = total > bound ? total : INT64_MAX;
      return -1;
    }
  }
  ioff *o = malloc(sizeof *o * (size_t)total);
  if (!o) return -1;
  for (int64_t k = 0; k < total; k++) {
    int64_t kk = k, off = 0, t;
    for (int i = nl - 1; i >= 0; i--) {
      if (__builtin_mul_overflow(kk % tx[i], ts[i], &t) ||
          __builtin_add_overflow(off, t, &off)) {
        free(o);
        return -2;
      }
      kk /= tx[i];
    }
    o[k].off = off;
    o[k].k = k;
  }
  qsort(o, (size_t)total, sizeof *o, cmp_ioff);
  for (int64_t k = 1; k < total; k++)
    if (o[k].off == o[k - 1].off) {
      *ka = grid_index(ext, n, tg, nl, tx, o[k - 1].k);
      *kb = grid_index(ext, n, tg, nl, tx, o[k].k);
      free(o);
      return 0;
    }
  free(o);
  return 1;
}
