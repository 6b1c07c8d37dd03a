/*
** irutil.h: helpers to build and print IR size expressions (lg_iexpr),
** implemented in lang/ir.c and used by the lowering (lang/lower_*.c).
** Internal to lang/.
*/
#ifndef LG_IRUTIL_H
#define LG_IRUTIL_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "ir.h"

/* New nodes in arena a (NULL on OOM). lg_ie_bin folds two constants when
** the result does not overflow, and drops neutral operands (x + 0, x * 1). */
lg_iexpr *lg_ie_const(lg_arena *a, int64_t v);
lg_iexpr *lg_ie_dim(lg_arena *a, int dim);
lg_iexpr *lg_ie_bin(lg_arena *a, lg_iexpr_kind k, lg_iexpr *x, lg_iexpr *y);

/* Structural equality (NULL equals NULL only). */
int lg_ie_equal(const lg_iexpr *x, const lg_iexpr *y);

/* Is e the constant v? (*v receives it.) */
int lg_ie_is_const(const lg_iexpr *e, int64_t *v);

/* Append e as infix text to buf (always NUL-terminated, truncated at cap);
** dimension names come from names[] (rank entries), "#k" when missing. */
void lg_ie_print(const lg_iexpr *e, const char *const *names, int rank,
                 char *buf, size_t cap);

#endif /* LG_IRUTIL_H */
