/*
** cli_tidl.h: the `lay` commands around TI TIDL's io_1.bin (lay.h's
** lay_tidl_* functions do the work; these parse arguments, print, and
** return an exit code: 0 ok, 1 error, 2 usage).
**
**   lay tidl FILE [--check]
**   lay pack   --tidl FILE --input K  [-i IN] [-o OUT]   (CPU -> TIDL)
**   lay unpack --tidl FILE --output K [-i IN] [-o OUT]   (TIDL -> CPU)
**   and the inverse directions: pack --output K, unpack --input K.
** K is the tensor's index in the inputs/outputs, or its name.
*/
#ifndef CLI_TIDL_H
#define CLI_TIDL_H

#include "cli_lay.h"

/* argv[0] is "tidl"; argv[1..argc) its arguments. */
int cli_tidl(int argc, char **argv);
/* pack/unpack with a->tidl set (a->cmd, a->input or a->output, a->in,
** a->out, the -f files); shape_or_dtype: --shape or --dtype was given
** (a usage error: they come from the file). */
int cli_tidl_move(const cli_args *a, int shape_or_dtype);

#endif /* CLI_TIDL_H */
