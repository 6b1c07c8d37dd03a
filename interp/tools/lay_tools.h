/*
** lay_tools.h: the tools built on liblay, exported by it beside lay.h
** (prefix lay_tool_): the conformance-test runner and the memory-order
** listings. The `lay` CLI and REPL use them; so may any application. They
** only read what lay.h exposes plus the front end's test blocks, and, like
** the rest of the library, never print.
*/
#ifndef LAY_TOOLS_H
#define LAY_TOOLS_H

#include <stddef.h>

#include "lay.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- The conformance-test runner ------------------------------------------
** Behind `lay test FILE...` and the static check of test blocks behind
** `lay check`.
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
/* Load `files` (nfiles paths) into ctx and run their test blocks (only
** those of the files given, not of files they import; a file named twice
** runs once). Lines go to out(ud, line), without a trailing newline.
** *passed and *failed (either may be NULL) receive the counts. Returns 0
** when every test passed and every file loaded and had tests, 1
** otherwise. */
LAY_API int lay_tool_test_files(lay_ctx *ctx, char **files, int nfiles,
                  void (*out)(void *ud, const char *line), void *ud,
                  int *passed, int *failed);

/* Check the test blocks of `file` (loaded into ctx already) without
** running them: every use and load is compiled, every operand checked
** (literals, types, coordinate ranks and ranges, byte planes, the syntax
** of listings, data sizes against the plan). Each problem goes to
** report(ud, err) as a positioned error ("test 'NAME': what"), with the
** source line, the caret at the operand at fault. Returns the number of
** problems. */
LAY_API int lay_tool_test_check(lay_ctx *ctx, const char *file,
                  void (*report)(void *ud, const lay_error *err), void *ud);

/* ---- Memory-order listings -------------------------------------------------
** A plan's memory order in the vendor docs' notation, and the check of
** such a listing pasted from a doc.
**
** The notation is Qualcomm's: hardware elements in memory order, each as
** its CPU-side coordinate, runs compressed with an ellipsis:
**   (0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2
**   (0,0,1,0), (0,0,1,1) ... (0,0,1,29), pad x2
** The functions only read the plan (lay_plan_at and lay.h's layout
** facts); they never print.
*/
/* The memory order of the layout buffer of `p` as text (malloc'd, free
** with free or lay_free; NULL when out of memory or the plan cannot be
** walked). One line per run: a run is a maximal sequence of data elements,
** consecutive in memory, whose coordinates step by +1 in one dimension
** (for most layouts the innermost CPU dimension); it is written as
** `A, B ... Z` (or in full when 3 elements or fewer), followed on the same
** line by the padding that comes after it: `pad xN` (padding inside the
** padded box), `hole xN` (bytes left by an explicit stride or alignment).
** Byte-plane layouts prefix each coordinate with its plane: `lo(0,0,0,0)`.
** With limit_elems > 0, at most that many hardware elements are listed,
** and a last line `...` says that the buffer goes on. */
LAY_API char *lay_tool_listing(const lay_plan *p, size_t limit_elems);

/* Check `expected` (len bytes, pasted verbatim from a vendor doc) against
** the memory order of `p`. A listing holds only:
**   (a, b, c, d)        a coordinate, as many integers as p has dimensions
**                       (blanks allowed inside); `lo(...)` names the byte
**                       plane `lo` of a byte-plane layout
**   ... or …            an ellipsis: any number of elements
**   pad xN, hole xN     N pad elements / stride holes (`pad` alone: one)
**   commas, blanks, newlines
**   > text              a remark, up to the end of the line
**   Copy to clipboard   a line holding only that (the doc pages' button)
** Anything else, or a malformed coordinate such as (9,9,l,29) or
** (0,0,4,29 ,), makes the listing malformed.
** A coordinate matches a data element with that coordinate, or a pad
** element whose padded coordinate it is; without a plane it matches
** either plane. The first token is the buffer's first element unless the
** listing opens with an ellipsis; tokens not separated by an ellipsis must
** be adjacent in memory; after an ellipsis the next token is searched
** forward. The listing may stop before the end of the buffer.
** Returns 0 on a match; -1 when the listing is malformed (or the plan
** cannot be walked); otherwise the 1-based index of the first token that
** does not match. `why` (at most whycap bytes, NUL-terminated) then says
** what went wrong, opening with the place in the listing:
**   listing line 2, column 1: element 31 (byte 31): expected (0,0,1,0),
**   found pad (0,0,0,31)
**   listing line 1, column 64: malformed coordinate '(9,9,l,29)': 'l'
**   where a number should be
** and *at (when `at` is not NULL) receives the byte offset in `expected`
** of the token or character at fault. */
LAY_API int lay_tool_listing_match(const lay_plan *p, const char *expected, size_t len,
                     char *why, size_t whycap, size_t *at);

/* Only read `expected` as above (its syntax, coordinate ranks and plane
** names against p), without matching it: 0 when well formed, -1 with
** why and *at otherwise. For `lay check`. */
LAY_API int lay_tool_listing_check(const lay_plan *p, const char *expected, size_t len,
                     char *why, size_t whycap, size_t *at);

#ifdef __cplusplus
}
#endif
#endif /* LAY_TOOLS_H */
