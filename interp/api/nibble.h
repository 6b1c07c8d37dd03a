/*
** nibble.h: 4-bit element buffers (int4, uint4) around a byte plan
** (nibble.c). The planner and executor move one element per byte; a plan
** whose source or destination type has lay_dtype_bits 4 reads or writes
** two elements per byte through this wrapper.
*/
#ifndef LI_NIBBLE_H
#define LI_NIBBLE_H

#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "lay.h"
#include "plan.h"

/* The nibble facts of a plan's two buffers, [0] the source, [1] the
** destination. */
typedef struct li_nib {
  int order[2]; /* 0: bytes as the plan moves them; 1: 4-bit, the first
                   element of a byte (memory order) in its low nibble;
                   2: in its high nibble */
  uint8_t tail[2]; /* the nibble that fills a last half byte */
} li_nib;

/* Fill nb for plan p; src_ir and dst_ir are the layout sides' IRs (NULL
** for a CPU side: low nibble first, tail 0). A layout side's order is its
** `nibbles` clause, its tail the pad value's low 4 bits. */
void li_nib_setup(li_nib *nb, const li_plan *p, const lg_ir *src_ir,
                  const lg_ir *dst_ir);

/* Bytes of buffer `side` (0 source, 1 destination) holding `n` elements
** of the plan's one-byte form: n, or (n + 1) / 2 for a 4-bit buffer. */
size_t li_nib_bytes(const li_nib *nb, int side, size_t n);

/* Is either buffer 4-bit? */
int li_nib_any(const li_nib *nb);

/* Run p as lay_plan_run does, expanding a 4-bit source to one element per
** byte (int4 sign-extended) and compressing the destination after. */
lay_status li_nib_run(const li_nib *nb, const li_plan *p, const void *src,
                      size_t src_bytes, void *dst, size_t dst_bytes,
                      int threads, lay_error *err);

#endif /* LI_NIBBLE_H */
