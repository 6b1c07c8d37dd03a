/*
** repl.h: `lay repl`, the interactive explorer of layouts.
*/
#ifndef REPL_H
#define REPL_H

#include "lay.h"

/* Run the REPL on stdin/stdout. argv[0] is "repl"; further arguments are
** spec files loaded before the first prompt. On a terminal: line editing,
** history in ~/.lay_history, tab completion. Otherwise stdin is a script:
** the same output without prompt or banner, and the exit code is 1 when a
** command or definition failed (0 otherwise). `ctx` stays the caller's
** (who frees it after the call); `files` are the nfiles -f files that went
** into it after the stdlib and LAY_PATH: redefining a name typed at the
** prompt rebuilds the REPL's context from a fresh one and loads them
** again. */
int cli_repl(lay_ctx *ctx, const char *const *files, int nfiles, int argc,
             char **argv);

#endif /* REPL_H */
