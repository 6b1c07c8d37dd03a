/*
** gather.c: gather tables, compressed. A transform chain with no affine
** structure (a reshape that crosses digit boundaries after a transpose)
** lowers to a table giving, for every hardware element, the CPU element it
** holds (lang/ir.h). The planner keeps it as one tile that repeats: the
** smallest period P such that element e + P holds the CPU element of e
** plus a constant shift (or pad where e is pad), and the tile stored as
** runs of hardware elements whose CPU elements are consecutive, or entry
** by entry when runs would not be smaller. A chain whose innermost
** dimension stays in place costs one entry per run, not per element.
*/
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

/* Does the table repeat with period P and CPU shift K? */
static int repeats(const int64_t *t, int64_t n, int64_t P, int64_t K) {
  for (int64_t e = P; e < n; e++) {
    int64_t want = t[e - P] < 0 ? -1 : t[e - P] + K;
    if (t[e] != want) return 0;
  }
  return 1;
}

/* Does a run of the tile start at r (the CPU element is not the one after
** r - 1's, or pad begins or ends)? */
static int run_starts(const int64_t *t, int64_t r) {
  if (r == 0) return 1;
  if (t[r] < 0) return t[r - 1] >= 0;
  return t[r - 1] < 0 || t[r] != t[r - 1] + 1;
}

/* The smallest period of t (a divisor of n) and its shift. */
static void find_period(const int64_t *t, int64_t n, int64_t *P, int64_t *K) {
  for (int64_t p = 1; p < n; p++) {
    if (n % p) continue;
    int64_t f = 0;
    while (f < p && t[f] < 0) f++;
    int64_t k = f < p ? t[f + p] - t[f] : 0;
    if (f < p && t[f + p] < 0) continue;
    if (repeats(t, n, p, k)) {
      *P = p;
      *K = k;
      return;
    }
  }
  *P = n;
  *K = 0;
}

lay_status li_gather_build(const int64_t *t, int64_t n, int64_t ncpu,
                           li_gather *g) {
  memset(g, 0, sizeof *g);
  find_period(t, n, &g->period, &g->shift);
  g->n = n;
  int64_t P = g->period, runs = 0;
  for (int64_t r = 0; r < P; r++) runs += run_starts(t, r);
  /* runs cost two entries each (start, CPU element) */
  g->nrun = 2 * runs < P ? runs : 0;
  size_t ne = g->nrun ? (size_t)(2 * g->nrun + 1) : (size_t)P;
  g->cpu = malloc(ne * sizeof *g->cpu);
  if (!g->cpu) return LAY_E_NOMEM;
  if (g->nrun) {
    g->start = g->cpu + g->nrun;
    int64_t j = 0;
    for (int64_t r = 0; r < P; r++)
      if (run_starts(t, r)) {
        g->start[j] = r;
        g->cpu[j] = t[r] < 0 ? -1 : t[r];
        j++;
      }
    g->start[g->nrun] = P;
  } else {
    memcpy(g->cpu, t, (size_t)P * sizeof *t);
  }
  /* every CPU element exactly once: an unpack needs no fill first */
  int64_t seen = 0;
  for (int64_t e = 0; e < n; e++) seen += t[e] >= 0;
  g->full = seen == ncpu;
  if (g->full) {
    unsigned char *mark = calloc((size_t)ncpu ? (size_t)ncpu : 1, 1);
    if (!mark) return LAY_E_NOMEM;
    for (int64_t e = 0; e < n && g->full; e++)
      if (t[e] >= 0 && mark[t[e]]++) g->full = 0;
    free(mark);
  }
  return LAY_OK;
}

void li_gather_free(li_gather *g) {
  free(g->cpu);
  memset(g, 0, sizeof *g);
}

size_t li_gather_bytes(const li_gather *g) {
  return (size_t)(g->nrun ? 2 * g->nrun + 1 : g->period) * sizeof(int64_t);
}

int64_t li_gather_run(const li_gather *g, int64_t e, int64_t *len) {
  int64_t t = e / g->period, r = e % g->period, c;
  if (!g->nrun) {
    *len = 1;
    c = g->cpu[r];
  } else {
    int64_t lo = 0, hi = g->nrun; /* the last run starting at or before r */
    while (hi - lo > 1) {
      int64_t mid = lo + (hi - lo) / 2;
      if (g->start[mid] <= r) lo = mid;
      else hi = mid;
    }
    *len = g->start[lo + 1] - r;
    c = g->cpu[lo] < 0 ? -1 : g->cpu[lo] + (r - g->start[lo]);
  }
  return c < 0 ? -1 : c + t * g->shift;
}

int64_t li_gather_find(const li_gather *g, int64_t c) {
  for (int64_t e = 0; e < g->n;) {
    int64_t len, c0 = li_gather_run(g, e, &len);
    if (c0 >= 0 && c >= c0 && c < c0 + len) return e + (c - c0);
    e += len;
  }
  return -1;
}
