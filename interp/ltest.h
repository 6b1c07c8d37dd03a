/*
** ltest.h: the conformance-test runner behind `lay test FILE...` (internal).
**
** Test blocks are written in the language itself (lang/LANGUAGE.md,
** "Tests"; the AST is lg_test / lg_tstmt in lang/ast.h). The runner loads
** each file into a context, runs that file's test blocks, and reports
** every failing test as one line
**     FILE:LINE:COL: test 'NAME' failed: WHAT
** (the position is the failing statement's), then a closing line
**     N passed, M failed
** A file that does not load counts as one failure, reported with its
** error's position. The library never prints: every line goes through
** the `out` callback.
*/
#ifndef LI_LTEST_H
#define LI_LTEST_H

#include "lay.h"

/* Load `files` (nfiles paths) into ctx and run their test blocks (only
** those of the files given, not of files they import). Lines go to
** out(ud, line), without a trailing newline. *passed and *failed (either
** may be NULL) receive the counts. Returns 0 when every test passed and
** every file loaded, 1 otherwise. */
int li_test_files(lay_ctx *ctx, char **files, int nfiles,
                  void (*out)(void *ud, const char *line), void *ud,
                  int *passed, int *failed);

#endif /* LI_LTEST_H */
