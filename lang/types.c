/*
** types.c: element type names and sizes (the public lay_dtype_parse,
** lay_dtype_name and lay_dtype_size of lay.h). Names are lay's own (fp32,
** fp16, bf16, int8, uint8, int16, uint16, int32) with numpy's spellings as
** aliases: its names (float32, single, half, byte, ushort, intc, ...), its
** type strings (f4, i1, u2, ...) and its one-letter codes (f, e, b, B, h,
** H, i). bfloat16 is the ml_dtypes name numpy users know.
*/
#include <string.h>

#include "lay.h"

/* Every accepted spelling; the first of each type is its canonical name.
** Entries marked `code` are numpy type codes, which may also be written
** with the byte-order prefix numpy prints for little-endian data ('<', as
** in "<f4") or for single bytes ('|', as in "|i1"). Case matters, as in
** numpy ('b' is int8, 'B' uint8). numpy names of types lay does not have
** (float, float64, int, int64, long, '>f4', ...) are not accepted. */
static const struct {
  const char *name;
  lay_dtype t;
  int code; /* 1: a type code that takes a '<' or '|' prefix */
} dtype_names[] = {
    {"fp32", LAY_DT_FP32, 0},     {"fp16", LAY_DT_FP16, 0},
    {"bf16", LAY_DT_BF16, 0},     {"int8", LAY_DT_INT8, 0},
    {"uint8", LAY_DT_UINT8, 0},   {"int16", LAY_DT_INT16, 0},
    {"uint16", LAY_DT_UINT16, 0}, {"int32", LAY_DT_INT32, 0},
    {"uint32", LAY_DT_UINT32, 0},
    /* numpy's names */
    {"float32", LAY_DT_FP32, 0},  {"single", LAY_DT_FP32, 0},
    {"float16", LAY_DT_FP16, 0},  {"half", LAY_DT_FP16, 0},
    {"bfloat16", LAY_DT_BF16, 0}, {"byte", LAY_DT_INT8, 0},
    {"ubyte", LAY_DT_UINT8, 0},   {"short", LAY_DT_INT16, 0},
    {"ushort", LAY_DT_UINT16, 0}, {"intc", LAY_DT_INT32, 0},
    {"uintc", LAY_DT_UINT32, 0},
    /* numpy's type strings and one-letter codes */
    {"f4", LAY_DT_FP32, 1},       {"f", LAY_DT_FP32, 1},
    {"f2", LAY_DT_FP16, 1},       {"e", LAY_DT_FP16, 1},
    {"i1", LAY_DT_INT8, 1},       {"b", LAY_DT_INT8, 1},
    {"u1", LAY_DT_UINT8, 1},      {"B", LAY_DT_UINT8, 1},
    {"i2", LAY_DT_INT16, 1},      {"h", LAY_DT_INT16, 1},
    {"u2", LAY_DT_UINT16, 1},     {"H", LAY_DT_UINT16, 1},
    {"i4", LAY_DT_INT32, 1},      {"i", LAY_DT_INT32, 1},
    {"u4", LAY_DT_UINT32, 1},     {"I", LAY_DT_UINT32, 1},
};

LAY_API lay_dtype lay_dtype_parse(const char *name) {
  if (!name) return LAY_DT_NONE;
  /* A byte-order prefix is allowed on the type codes only. */
  const char *code = name[0] == '<' || name[0] == '|' ? name + 1 : NULL;
  for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++) {
    if (!strcmp(name, dtype_names[i].name)) return dtype_names[i].t;
    if (code && dtype_names[i].code && !strcmp(code, dtype_names[i].name))
      return dtype_names[i].t;
  }
  return LAY_DT_NONE;
}

LAY_API const char *lay_dtype_name(lay_dtype t) {
  for (size_t i = 0; i < sizeof dtype_names / sizeof *dtype_names; i++)
    if (dtype_names[i].t == t) return dtype_names[i].name;
  return "none";
}

LAY_API size_t lay_dtype_size(lay_dtype t) {
  switch (t) {
  case LAY_DT_FP32: case LAY_DT_INT32: case LAY_DT_UINT32: return 4;
  case LAY_DT_FP16: case LAY_DT_BF16: case LAY_DT_INT16: case LAY_DT_UINT16:
    return 2;
  case LAY_DT_INT8: case LAY_DT_UINT8: return 1;
  case LAY_DT_NONE: return 0;
  }
  return 0;
}
