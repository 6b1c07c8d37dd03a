/*
** types.c: element type names and sizes (the public lay_dtype_parse,
** lay_dtype_name and lay_dtype_size of lay.h), from the table in
** dtypes.h. Names are lay's own (fp32, fp16, bf16, int8, uint8, int16,
** uint16, int32, uint32, int64, uint64, int4, uint4, fp8e4m3, fp8e5m2) with numpy's spellings as aliases: its names
** (float32, single, half, byte, ushort, intc, ...), its type strings (f4,
** i1, u2, ...) and its one-letter codes (f, e, b, B, h, H, i, I).
** bfloat16, float8_e4m3fn and float8_e5m2 are the ml_dtypes names numpy
** users know.
*/
#include <string.h>

#include "dtypes.h"
#include "lay.h"

/* Is s one of the blank-separated words of list? */
static int in_list(const char *list, const char *s) {
  size_t n = strlen(s);
  for (const char *p = list; *p;) {
    size_t l = strcspn(p, " ");
    if (l == n && !strncmp(p, s, n)) return 1;
    p += l;
    while (*p == ' ') p++;
  }
  return 0;
}

/* A type code may also be written with the byte-order prefix numpy prints
** for little-endian data ('<', as in "<f4") or for single bytes ('|', as
** in "|i1"). Case matters, as in numpy ('b' is int8, 'B' uint8). numpy
** names of types lay does not have (float, float64, int, long,
** '>f4', ...) are not accepted. */
LAY_API lay_dtype lay_dtype_parse(const char *name) {
  if (!name) return LAY_DT_NONE;
  const char *code = name[0] == '<' || name[0] == '|' ? name + 1 : NULL;
#define X(id, nm, np, co, size, nb, fl, lo, hi, bits, emin, max)           \
  if (!strcmp(name, nm) || in_list(np, name) || in_list(co, name) ||      \
      (code && in_list(co, code)))                                        \
    return LAY_DT_##id;
  LG_DTYPES(X)
#undef X
  return LAY_DT_NONE;
}

LAY_API const char *lay_dtype_name(lay_dtype t) { return lg_dtype_name(t); }

LAY_API size_t lay_dtype_size(lay_dtype t) { return lg_dtype_size(t); }

LAY_API int lay_dtype_bits(lay_dtype t) { return lg_dtype_bits(t); }
