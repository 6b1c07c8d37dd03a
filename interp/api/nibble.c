/*
** nibble.c: int4 and uint4 buffers, two elements per byte, around a plan
** that moves one element per byte (the planner and executor know only
** whole bytes; dtypes.h gives the 4-bit types lay_dtype_size 1).
**
** On a run, a 4-bit source is expanded to one element per byte (an int4
** nibble sign-extended to an int8, a uint4 zero-extended), the plan runs
** on that, and a 4-bit destination is compressed pairwise in its memory
** order: element 2k and 2k+1 share byte k, element 2k in the low nibble
** (the CPU side always; a layout side unless it says `nibbles =
** high_first`). With an odd count the last byte's other nibble is the
** tail: the layout's pad value (its low 4 bits), 0 on a CPU side.
*/
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "dtypes.h"
#include "nibble.h"
#include "plan_int.h"

/* One side's facts from its type and its layout IR (NULL: CPU side). */
static void side_setup(li_nib *nb, int side, lay_dtype t, const lg_ir *ir) {
  nb->order[side] = 0;
  nb->tail[side] = 0;
  if (lg_dtype_bits(t) != 4) return;
  nb->order[side] = ir && ir->value.nibble_hi ? 2 : 1;
  if (ir && !ir->value.nplanes) {
    double pv = ir->value.pad_value;
    nb->tail[side] = (uint8_t)((int64_t)pv & 0xf);
  }
}

void li_nib_setup(li_nib *nb, const li_plan *p, const lg_ir *src_ir,
                  const lg_ir *dst_ir) {
  side_setup(nb, 0, li_plan_src_dtype(p), src_ir);
  side_setup(nb, 1, li_plan_dst_dtype(p), dst_ir);
}

size_t li_nib_bytes(const li_nib *nb, int side, size_t n) {
  return nb->order[side] ? n / 2 + n % 2 : n;
}

int li_nib_any(const li_nib *nb) { return nb->order[0] || nb->order[1]; }

/* n elements of 4 bits at src (order 1 or 2) into one byte each. */
static void expand(const uint8_t *src, size_t n, int order, int sgn,
                   uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    unsigned b = src[i / 2], first = order == 2 ? b >> 4 : b & 0xf,
             second = order == 2 ? b & 0xf : b >> 4;
    unsigned v = i % 2 ? second : first;
    out[i] = (uint8_t)(sgn && v >= 8 ? v | 0xf0 : v);
  }
}

/* n one-byte elements into 4 bits each (their low nibbles). */
static void compress(const uint8_t *src, size_t n, int order, uint8_t tail,
                     uint8_t *out) {
  for (size_t k = 0; 2 * k < n; k++) {
    unsigned a = src[2 * k] & 0xfu,
             b = 2 * k + 1 < n ? src[2 * k + 1] & 0xfu : tail & 0xfu;
    out[k] = (uint8_t)(order == 2 ? a << 4 | b : b << 4 | a);
  }
}

lay_status li_nib_run(const li_nib *nb, const li_plan *p, const void *src,
                      size_t src_bytes, void *dst, size_t dst_bytes,
                      int threads, lay_error *err) {
  size_t ns = li_plan_src_bytes(p), nd = li_plan_dst_bytes(p);
  size_t ps = li_nib_bytes(nb, 0, ns), pd = li_nib_bytes(nb, 1, nd);
  if (src_bytes < ps) {
    lg_error_plain(err, LAY_E_BUFFER, NULL,
                   "input is %zu bytes, the plan needs %zu", src_bytes, ps);
    return LAY_E_BUFFER;
  }
  if (dst_bytes < pd) {
    lg_error_plain(err, LAY_E_BUFFER, NULL,
                   "output buffer is %zu bytes, the plan needs %zu",
                   dst_bytes, pd);
    return LAY_E_BUFFER;
  }
  uint8_t *xs = nb->order[0] ? malloc(ns ? ns : 1) : NULL;
  uint8_t *xd = nb->order[1] ? malloc(nd ? nd : 1) : NULL;
  if ((nb->order[0] && !xs) || (nb->order[1] && !xd)) {
    free(xs);
    free(xd);
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    return LAY_E_NOMEM;
  }
  if (xs)
    expand(src, ns, nb->order[0], li_plan_src_dtype(p) == LAY_DT_INT4, xs);
  lay_status st = li_plan_run(p, xs ? xs : src, ns, xd ? xd : dst, nd,
                              threads, err);
  if (!st) li_fix_pads(p, xd ? xd : dst); /* pads of several values */
  if (!st && xd) compress(xd, nd, nb->order[1], nb->tail[1], dst);
  free(xs);
  free(xd);
  return st;
}
