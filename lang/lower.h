/*
** lower.h: between the module (names, files) and the lowering to IR
** (internal). module.c keeps the definitions; the lowering (lower*.c)
** turns one of them, with arguments, into an lg_ir and runs the static
** checks. The dependency goes one way: module.c calls lg_lower and
** lg_check_def and hands them an lg_defs to look names up with; the
** lowering never calls module.c (lg_module_find is declared in lang.h).
*/
#ifndef LG_LOWER_H
#define LG_LOWER_H

#include "ast.h"
#include "ir.h"
#include "lay.h"

/* A definition as the module keeps it. */
typedef struct lg_def {
  const char *qname;              /* "amd.hcwnc4" (no namespace: "hcwnc4") */
  const char *ns;                 /* its namespace, "" when none */
  const lg_layout *layout;        /* one of layout/transform is set */
  const lg_transform *transform;
  const char *file;               /* the file it came from, for messages */
  const char *src;                /* that file's text */
  size_t src_len;
} lg_def;

/* The definitions the lowering may name (the target of an alias):
** find(ud, name, ns) looks `name` up as lg_module_find does, first as
** `ns.name`, then as written; NULL when there is no such definition. */
typedef struct lg_defs {
  const lg_def *(*find)(const void *ud, const char *name, const char *ns);
  const void *ud; /* the module */
} lg_defs;

/* Parse a reference such as `ti.tidl(pad_l=1)` or `amd.hcwnc(8)` into an
** expression (NAME or CALL) allocated in `a`. Errors name column numbers
** within `text` (file "<format>"). Implemented by the parser (parse.y). */
lay_status lg_parse_ref(struct lg_arena *a, const char *text, lg_expr **out,
                        lay_error *err);

/* Lower a definition with its arguments (`args` may be NULL: the
** defaults) into a fresh IR; every static check runs here. `ref_text` is
** the name with arguments as the user wrote it (for lg_ir.name). */
lay_status lg_lower(const lg_defs *defs, const lg_def *def,
                    const lg_list *args, const char *ref_text, lg_ir **out,
                    lay_error *err);

/* lg_lower for a plan: `shape` (rank dimensions, NULL when none) and the
** plan's element type (LAY_DT_NONE: the layout's) give the dimension
** sizes, esize and what `...` stands for; `require` is checked. With
** shape NULL, rank alone says what `...` stands for. */
lay_status lg_lower_for(const lg_defs *defs, const lg_def *def,
                        const lg_list *args, const char *ref_text,
                        const int64_t *shape, int rank, lay_dtype dtype,
                        lg_ir **out, lay_error *err);

/* The checks lg_module runs when a definition is loaded: lower it with its
** parameter defaults when every parameter has one (checking the index part
** symbolically); otherwise check only what does not need the arguments. */
lay_status lg_check_def(const lg_defs *defs, const lg_def *def,
                        lay_error *err);

#endif /* LG_LOWER_H */
