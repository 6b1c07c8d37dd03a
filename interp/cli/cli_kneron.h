/*
** cli_kneron.h: the `lay` commands around one Kneron PLUS tensor
** descriptor (kp.TensorDescriptor as JSON; lay.h's lay_kneron_* do the
** work; these parse arguments, print, and return an exit code: 0 ok,
** 1 error, 2 usage).
**
**   lay kneron FILE                                  (print its spec)
**   lay pack   --kneron FILE [--dtype T] [-i IN] [-o OUT]  (ONNX -> NPU)
**   lay unpack --kneron FILE [--dtype T] [-i IN] [-o OUT]  (NPU -> ONNX)
** The CPU side is the descriptor's ONNX shape (version 1: shape_npu),
** row-major fp32 through the fixed point; --dtype int8/int16 (the NPU's
** type) takes the integers themselves instead.
*/
#ifndef CLI_KNERON_H
#define CLI_KNERON_H

#include "cli_lay.h"
#include "lay.h"

/* argv[0] is the command word ("kneron"); argv[1..argc) its arguments. */
int cli_kneron(int argc, char **argv);

/* pack (1) or unpack (0) with the descriptor `file`; dtype NULL, "fp32"
** or the NPU type; in_path/out_path NULL or "-" for stdin/stdout. ctx:
** the context to compile into (its -f files and LAY_PATH loaded). The
** descriptor's definitions go into namespace "kp". */
int cli_kneron_run(int pack, const char *file, const char *dtype,
                   const char *in_path, const char *out_path, lay_ctx *ctx);

/* `lay pack|unpack --kneron FILE`: checks what else the command line
** gave (no FORMAT, no --shape, not with --hsi), then cli_kneron_run in a
** context of the -f files and LAY_PATH. */
int cli_kneron_cmd(const cli_args *a, const char *cmd, int has_hsi,
                   int has_shape);

#endif /* CLI_KNERON_H */
