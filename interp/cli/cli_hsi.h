/*
** cli_hsi.h: the `lay` commands around AMD's flexmlrt-hsi.json report
** (lay.h's lay_hsi_* do the work; these parse arguments, print, and return
** an exit code: 0 ok, 1 error, 2 usage).
**
**   lay hsi FILE [--check]
**   lay export FORMAT --shape S [--dtype T] [--quantize SCALE,ZP[,TYPE]]
**              [--as input|output] [-f FILE]... [-o OUT]
**   lay pack   --hsi FILE --input K  [-i IN] [-o OUT]   (CPU -> NPU)
**   lay unpack --hsi FILE --output K [-i IN] [-o OUT]   (NPU -> CPU)
**   and the inverse directions: pack --output K, unpack --input K.
** K is the entry's index in inputs/outputs, or its name or tensor_name.
*/
#ifndef CLI_HSI_H
#define CLI_HSI_H

#include "lay.h"

/* argv[0] is the command word ("hsi", "export"); argv[1..argc) its
** arguments. */
int cli_hsi(int argc, char **argv);
/* export, its layouts from ctx (the stdlib, LAY_PATH and the -f files
** before the command word) and its own -f FILE options, loaded into ctx. */
int cli_export(lay_ctx *ctx, int argc, char **argv);

/* pack (1) or unpack (0) the entry `key` of `which` ("input" or "output")
** of the report hsi_file; in_path/out_path NULL or "-" for stdin/stdout.
** ctx: the context to compile into (its -f files and LAY_PATH already
** loaded), or NULL for a fresh one with the stdlib. The report's
** definitions go into namespace "hsi" (a clash with a user "hsi" namespace
** is reported). */
int cli_hsi_run(int pack, const char *hsi_file, const char *which,
                const char *key, const char *in_path, const char *out_path,
                lay_ctx *ctx);

#endif /* CLI_HSI_H */
