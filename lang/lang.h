/*
** lang.h: the front end's interface to the rest of lay (internal).
**
** A module is the set of everything compiled so far: files and strings are
** lexed (lexer.re), parsed (parse.y) into an AST (ast.h), their names
** resolved and checked, and kept; a layout reference such as
** "ti.tidl(pad_l=1)" is then instantiated into an IR (ir.h) on demand.
** Errors fill a lay_error with file:line:col and the source line.
*/
#ifndef LG_LANG_H
#define LG_LANG_H

#include <stddef.h>

#include "ast.h"
#include "ir.h"
#include "lay.h"

/* Documented limits (each exceeded one is LAY_E_LIMIT). */
#define LG_MAX_SOURCE (16u << 20) /* bytes in one spec file or string */
#define LG_MAX_DEPTH 256          /* bracket / expression nesting */
#define LG_MAX_IMPORTS 64         /* nested imports */

typedef struct lg_module lg_module;
typedef struct lg_def lg_def; /* a definition (lower.h) */

lg_module *lg_module_new(void);            /* NULL on OOM */
void lg_module_free(lg_module *m);         /* accepts NULL */

/* Compile spec text into the module: parse, resolve names, run every
** static check of every layout and transform (each layout is checked with
** its parameter defaults, where it has them). On error nothing of this
** text stays in the module. `name` is the file name used in positions. */
lay_status lg_load_string(lg_module *m, const char *name, const char *src,
                          size_t len, lay_error *err);
/* The same for a file; `import` is resolved relative to it, then along the
** LAY_PATH folders given to lg_module_set_path. A file already loaded (by
** its real path) is not loaded twice; an import cycle is an error. */
lay_status lg_load_file(lg_module *m, const char *path, lay_error *err);
void lg_module_set_path(lg_module *m, const char *lay_path);

/* Where lg_check_file reports each error. */
typedef void (*lg_report_fn)(void *ud, const lay_error *err);

/* Load a file as lg_load_file does, but when a definition fails its static
** checks go on with the others and report every failing one through
** `report`, in source order (an error equal to one already reported is
** not repeated). An error that stops the load (syntax, a failing import,
** a name defined twice) is reported alone. Returns the number of errors
** reported: 0 when the file loaded (it stays in the module), else nothing
** of it stays. */
size_t lg_check_file(lg_module *m, const char *path, lg_report_fn report,
                     void *ud);

/* Look `name` up: first as `ns.name` (ns may be "" or NULL), then as
** written. NULL when there is no such definition. */
const lg_def *lg_module_find(const lg_module *m, const char *name,
                             const char *ns);

/* Names defined so far (layouts and transforms), qualified. */
size_t lg_module_count(const lg_module *m);
const char *lg_module_name(const lg_module *m, size_t i);

/* Instantiate a reference: "amd.hcwnc4", "amd.hcwnc(8)",
** "ti.tidl(pad_l=1, pad_r=1)", or a transform name. The IR is allocated
** in its own arena; free it with lg_ir_free. */
lay_status lg_instantiate(lg_module *m, const char *ref, lg_ir **out,
                          lay_error *err);
/* The same for a plan: the shape (rank dimensions) and element type
** (LAY_DT_NONE: the layout's own) give the sizes `require`, esize and
** `...` need (LANGUAGE.md "Sizes known at plan time"). */
lay_status lg_instantiate_for(lg_module *m, const char *ref,
                              const int64_t *shape, int rank, lay_dtype dtype,
                              lg_ir **out, lay_error *err);
void lg_ir_free(lg_ir *ir); /* accepts NULL */

/* The IR as text, one fact per line (the golden-test format). The string
** is malloc'd; the caller frees it. */
char *lg_ir_dump(const lg_ir *ir);

/* Test blocks compiled so far, in load order, with the file each came from
** (for `lay test`). The AST stays valid while the module lives. */
size_t lg_module_test_count(const lg_module *m);
const lg_test *lg_module_test(const lg_module *m, size_t i,
                              const char **file, const char **src,
                              size_t *src_len);

/* Fill err for a position inside a loaded source (used by the test runner
** to report a failing test at its file:line:col). */
void lg_error_at(lay_error *err, lay_status code, const char *file,
                 const char *src, size_t len, uint32_t pos, const char *fmt,
                 ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 7, 8)))
#endif
    ;

/* The pad value of ir against the CPU type a plan uses (asked: given by
** the caller, else the default) when the layout leaves its type open: an
** error at the layout's `pad_value = V` item (lang/lower_pad.c). */
lay_status lg_pad_check_type(const lg_ir *ir, lay_dtype cpu, int asked,
                             lay_error *err);

/* Evaluate a size expression for concrete dimension sizes. Returns 0 and
** sets *out, or -1 on overflow / division by zero. */
int lg_iexpr_eval(const lg_iexpr *e, const int64_t *dims, int64_t *out);

#endif /* LG_LANG_H */
