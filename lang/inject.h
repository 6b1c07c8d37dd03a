/*
** inject.h: the exact bijectivity test of a strided grid (lang/inject.c),
** shared by the load-time check (lang/lower_check.c) and the planner
** (interp/plan/plan.c) so that both decide the same way.
*/
#ifndef LG_INJECT_H
#define LG_INJECT_H

#include <stdint.h>

/* Grid points of the tangled axes enumerated at most (see lg_injective). */
#define LG_INJECT_BOUND (INT64_C(1) << 22)

/* Does x -> sum_j x_j * str[j], 0 <= x_j < ext[j] (n axes, row-major grid
** index k = x_0 * ext_1 * ... + x_{n-1}), map no two points to one offset?
** Exact: axes that nest (a stride at least the span of every smaller
** axis, or the smallest axis whose block every other stride is a multiple
** of) are set aside, which keeps the answer; the remaining tangled axes
** are enumerated. Returns 1 injective; 0 not, with two grid indices *ka <
** *kb that share an offset; -1 when the tangled axes hold more than
** `bound` points (at most LG_INJECT_BOUND) or malloc fails (*ka = their count, 0 on
** malloc); -2 when an offset overflows 64 bits. Extents are >= 1, strides
** >= 0. */
int lg_injective(const int64_t *ext, const int64_t *str, int n,
                 int64_t bound, int64_t *ka, int64_t *kb);

#endif /* LG_INJECT_H */
