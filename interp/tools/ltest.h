/*
** ltest.h: the conformance-test runner behind `lay test FILE...` and the
** static check of test blocks behind `lay check` (internal).
**
** Test blocks are written in the language itself (lang/LANGUAGE.md,
** "Tests"; the AST is lg_test / lg_tstmt in lang/ast.h). The runner loads
** each file into a context and runs that file's test blocks (whatever
** loaded the file first: -f, LAY_PATH, an import), each file once. It
** reports every failing test as one line
**     FILE:LINE:COL: test 'NAME' (line T) failed: WHAT
** (LINE:COL is the failing statement's, T the line of the test's header),
** then a closing line
**     N passed, M failed
** A file that does not load, and a file without test blocks, each count
** as one failure. The library never prints: every line goes through the
** `out` callback.
*/
#ifndef LI_LTEST_H
#define LI_LTEST_H

#include "lay.h"

/* Load `files` (nfiles paths) into ctx and run their test blocks (only
** those of the files given, not of files they import; a file named twice
** runs once). Lines go to out(ud, line), without a trailing newline.
** *passed and *failed (either may be NULL) receive the counts. Returns 0
** when every test passed and every file loaded and had tests, 1
** otherwise. */
int li_test_files(lay_ctx *ctx, char **files, int nfiles,
                  void (*out)(void *ud, const char *line), void *ud,
                  int *passed, int *failed);

/* Check the test blocks of `file` (loaded into ctx already) without
** running them: every use and load is compiled, every operand checked
** (literals, types, coordinate ranks and ranges, byte planes, the syntax
** of listings, data sizes against the plan). Each problem goes to
** report(ud, err) as a positioned error ("test 'NAME': what"), with the
** source line, the caret at the operand at fault. Returns the number of
** problems. */
int li_test_check(lay_ctx *ctx, const char *file,
                  void (*report)(void *ud, const lay_error *err), void *ud);

#endif /* LI_LTEST_H */
