/*
** types.c: element type names and sizes (the public lay_dtype_parse,
** lay_dtype_name and lay_dtype_size of lay.h). Names are lay's own (fp32,
** fp16, bf16, int8, uint8, int16, uint16, int32) with numpy's spellings as
** aliases (float32, float16, bfloat16; the integer names are the same).
*/
#include <string.h>

#include "lay.h"

/* Every accepted spelling; the first of each type is its canonical name. */
static const struct {
  const char *name;
  lay_dtype t;
} dtype_names[] = {
    {"fp32", LAY_DT_FP32},   {"fp16", LAY_DT_FP16},
    {"bf16", LAY_DT_BF16},   {"int8", LAY_DT_INT8},
    {"uint8", LAY_DT_UINT8}, {"int16", LAY_DT_INT16},
    {"uint16", LAY_DT_UINT16}, {"int32", LAY_DT_INT32},
    {"float32", LAY_DT_FP32}, {"float16", LAY_DT_FP16},
    {"bfloat16", LAY_DT_BF16},
};

LAY_API lay_dtype lay_dtype_parse(const char *name) {
  if (!name) return LAY_DT_NONE;
  for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
    if (!strcmp(name, dtype_names[i].name)) return dtype_names[i].t;
  return LAY_DT_NONE;
}

LAY_API const char *lay_dtype_name(lay_dtype t) {
  for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
    if (dtype_names[i].t == t) return dtype_names[i].name;
  return "none";
}

LAY_API size_t lay_dtype_size(lay_dtype t) {
  switch (t) {
  case LAY_DT_FP32: case LAY_DT_INT32: return 4;
  case LAY_DT_FP16: case LAY_DT_BF16: case LAY_DT_INT16: case LAY_DT_UINT16:
    return 2;
  case LAY_DT_INT8: case LAY_DT_UINT8: return 1;
  case LAY_DT_NONE: return 0;
  }
  return 0;
}
