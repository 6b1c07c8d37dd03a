/*
** cli_hsi.h: the `lay` commands around AMD's flexmlrt-hsi.json report
** (lay.h's lay_hsi_* do the work; these parse arguments, print, and return
** an exit code: 0 ok, 1 error, 2 usage).
**
**   lay hsi FILE [--check]
**   lay export FORMAT --shape S [--dtype T] [--quantize SCALE,ZP[,TYPE]]
**              [--as input|output] [-f FILE]... [-o OUT]
**   lay pack   --hsi FILE|DIR [--input K] [--frame K] [-i IN] [-o OUT]
**   lay unpack --hsi FILE|DIR [--output K] [--frame K] [-i IN] [-o OUT]
**   lay pack|unpack --hsi FILE|DIR --all DIR -o OUTDIR
**   and the inverse directions: pack --output K, unpack --input K.
** K is the entry's index in inputs/outputs, or its name or tensor_name.
*/
#ifndef CLI_HSI_H
#define CLI_HSI_H

#include "cli_lay.h"
#include "lay.h"

/* argv[0] is the command word ("hsi", "export"); argv[1..argc) its
** arguments. */
int cli_hsi(int argc, char **argv);
/* export, its layouts from ctx (the stdlib, LAY_PATH and the -f files
** before the command word) and its own -f FILE options, loaded into ctx. */
int cli_export(lay_ctx *ctx, int argc, char **argv);

/* pack (1) or unpack (0) through the report a->hsi (a file, or a compile
** cache folder: its vaiml_par_N/0/flexmlrt-hsi.json): the entry
** a->input or a->output (an index or a name; when neither is given, pack
** takes the report's only input and unpack its only output), or with
** a->all every input (pack) or output (unpack) from the folder a->all
** (KEY.npy or KEY.bin, KEY the tensor_name) into the folder a->out.
** a->frame K (an entry of N frames): pack writes frame K's NPU buffer
** alone, unpack reads frame K's buffer and writes that frame; without it
** every frame, their buffers one after another. ctx: the context to
** compile into (its -f files and LAY_PATH already loaded); the report's
** definitions go into namespace "hsi". */
int cli_hsi_run(int pack, const cli_args *a, lay_ctx *ctx);

#endif /* CLI_HSI_H */
