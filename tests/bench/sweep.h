/* tests/bench/sweep.h: one case of lay_sweep (the sweep benchmark), and
 * the case list (sweep_cases.c) that sweep.c builds, checks and times. */
#ifndef LAY_SWEEP_H
#define LAY_SWEEP_H

#include <stdint.h>

#include "lay.h"

typedef struct sw_case {
  char name[160];    /* unique, printed and matched with numpy's results */
  const char *group; /* "stdlib", "convert", "user", "large" */
  const char *shape_kind; /* "real", "odd" (no extent a multiple of a block),
                             "batch" (first dim > 1), "large", "narrow"
                             (channel counts no block is made for) */
  char fmt[1024];    /* the format (pack, unpack) or convert's target */
  const char *from;  /* convert's source layout; NULL otherwise */
  lay_dir dir;       /* LAY_PACK, LAY_UNPACK or LAY_CONVERT */
  int rank;
  int64_t shape[8];  /* CPU-side shape, in the (source) layout's order */
  lay_dtype dt;      /* the CPU element type given to lay */
} sw_case;

/* The layouts the sweep defines the way a user would (namespace sweep). */
extern const char sw_user_spec[];

/* Fill cs (capacity cap) with every case; returns how many. */
int sw_cases(sw_case *cs, int cap);

#endif
