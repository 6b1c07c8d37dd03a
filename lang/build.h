/*
** build.h: the parse context and the AST builder functions (prefix lg_b_)
** that the Lemon grammar's actions call (lang/parse.y), plus the lexer's
** interface (lang/lexer.re). Internal to lang/.
**
** The builders never abort: on the first error they record it in the
** context (lg_parse.status) and return NULL; every builder accepts NULL
** operands and then returns NULL, so the parser can finish its current
** reduction before the driver stops feeding tokens.
*/
#ifndef LG_BUILD_H
#define LG_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "ast.h"
#include "lang.h"
#include "lay.h"

/* A token: a slice of the source, by byte offset. */
typedef struct lg_token {
  uint32_t off; /* byte offset of the first character */
  uint32_t len; /* length in bytes */
} lg_token;

/* The lexer's state. The source must be NUL-terminated at src[len]. */
typedef struct lg_lexer {
  const char *src;  /* the text */
  size_t len;       /* its length (src[len] == '\0') */
  size_t pos;       /* where the next token starts */
  const char *msg;  /* the error message after an error token */
  char buf[64];     /* storage for a formatted error message */
  uint32_t err_pos; /* the error's byte offset */
  lay_status err_code; /* the error's code (LAY_E_SYNTAX) */
} lg_lexer;

#define LG_TK_EOF 0    /* end of input */
#define LG_TK_ERROR -1 /* a lexical error: see msg, err_pos */

/* The next token: a TK_* code of gen/parse.h, LG_TK_EOF or LG_TK_ERROR. */
int lg_lex(lg_lexer *lx, lg_token *t);
/* Keyword i of the lexer's table and its token; NULL past the end. */
const char *lg_keyword(size_t i, int *tok);
/* " (did you mean 'layout'?)" in buf for a name s[0..n) near a keyword,
** else "" (lang/lower_hint.c). */
void lg_hint_keyword(const char *s, size_t n, char *buf, size_t cap);

/* Decode an integer literal (decimal or 0x hex). Returns 0; 1 when it is
** larger than INT64_MAX but fits uint64 (*out holds its bits); -1 when it
** is larger than UINT64_MAX. */
int lg_lex_int(const char *s, size_t n, int64_t *out);

/* An open bracket, for "']' expected (to close '[' at 3:17)". */
typedef struct lg_open {
  int close;    /* the token code that closes it */
  char ch;      /* '(', '[', '{' or '<' */
  uint32_t pos; /* its byte offset */
} lg_open;

/* A growable array of order items or clauses while parsing. */
typedef struct lg_items {
  lg_item *v;
  int n, cap;
} lg_items;
typedef struct lg_clauses {
  lg_clause *v;
  int n, cap;
} lg_clauses;
typedef struct lg_tstmts {
  lg_tstmt *v;
  int n, cap;
} lg_tstmts;

/* The parse context (Lemon's %extra_context). */
typedef struct lg_parse {
  lg_arena *a;         /* every node goes here */
  const char *file;    /* file name for positions */
  const char *src;     /* the source text, NUL-terminated at src[len] */
  size_t len;          /* its length */
  lg_ast *ast;         /* the statements (file mode) */
  lg_expr *ref;        /* the parsed reference (ref mode) */
  lay_error *err;      /* where the first error goes (may be NULL) */
  lay_status status;   /* LAY_OK until the first error */
  lg_open open[LG_MAX_DEPTH]; /* the bracket stack */
  int depth;           /* brackets open */
  uint32_t tok_pos;    /* offset of the token being parsed */
  uint32_t last_end;   /* offset just past the last token parsed */
} lg_parse;

/* Parse a whole file into p->ast (p->a, file, src, len, ast, err set). */
lay_status lg_parse_file(lg_parse *p);

/* Record an error at a byte offset (first error wins). */
void lg_b_error(lg_parse *p, lay_status code, uint32_t pos, const char *fmt,
                ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- Expressions ---- */
lg_expr *lg_b_int(lg_parse *p, lg_token t);
lg_expr *lg_b_float(lg_parse *p, lg_token t);
lg_expr *lg_b_string(lg_parse *p, lg_token t);
lg_expr *lg_b_name(lg_parse *p, lg_token t);
lg_expr *lg_b_list(lg_parse *p, lg_token open, lg_list *items, lg_token close);
lg_expr *lg_b_unary(lg_parse *p, lg_token op, lg_expr *a);
lg_expr *lg_b_binary(lg_parse *p, lg_expr *a, lg_op op, lg_expr *b);
lg_expr *lg_b_call(lg_parse *p, lg_token name, lg_list *args, lg_token close);
lg_expr *lg_b_slice(lg_parse *p, lg_expr *base, lg_expr *lo, lg_expr *hi,
                    lg_token close);
lg_expr *lg_b_named(lg_parse *p, lg_token name, lg_expr *value);
lg_expr *lg_b_paren(lg_parse *p, lg_token open, lg_expr *e, lg_token close);
lg_expr *lg_b_chunked(lg_parse *p, lg_token kw, lg_list *ints,
                      lg_token close);

/* Lists (NULL on error). */
lg_list *lg_b_list_new(lg_parse *p, lg_expr *first);
lg_list *lg_b_list_add(lg_parse *p, lg_list *l, lg_expr *e);

/* ---- Layouts ---- */
lg_items *lg_b_items_add(lg_parse *p, lg_items *l, lg_item *it);
lg_item *lg_b_item(lg_parse *p, lg_expr *e);
lg_item *lg_b_item_stride(lg_parse *p, lg_item *it, lg_token at, lg_expr *s);
lg_item *lg_b_item_align(lg_parse *p, lg_item *it, lg_token kw, lg_expr *a);
/* `align A bytes`: the unit must be the word bytes. */
lg_item *lg_b_item_align_unit(lg_parse *p, lg_item *it, lg_token kw,
                              lg_expr *a, lg_token unit);
/* `@ S bytes`: the unit must be the word bytes. */
lg_item *lg_b_item_stride_unit(lg_parse *p, lg_item *it, lg_token at,
                               lg_expr *s, lg_token unit);
/* `x in (a, b, ...)` of a require clause: the word must be `in`. */
lg_expr *lg_b_in(lg_parse *p, lg_expr *x, lg_token kw, lg_token open,
                 lg_list *items, lg_token close);
lg_clauses *lg_b_clause(lg_parse *p, lg_clauses *l, lg_clause_kind kind,
                        lg_token first, lg_token name, lg_expr *value);
lg_layout *lg_b_layout(lg_parse *p, lg_token name, lg_list *params,
                       lg_list *dims, lg_expr *dtype);
lg_layout *lg_b_layout_order(lg_parse *p, lg_layout *l, lg_token open,
                             lg_items *items, lg_clauses *clauses);
lg_layout *lg_b_layout_chunked(lg_parse *p, lg_layout *l, lg_expr *chunked,
                               lg_clauses *clauses);
lg_layout *lg_b_layout_alias(lg_parse *p, lg_token name, lg_expr *target);

/* ---- Transforms ---- */
lg_transform *lg_b_transform(lg_parse *p, lg_token name, lg_token input,
                             lg_token dtype, lg_list *shape, lg_list *ops);
lg_expr *lg_b_shape_named(lg_parse *p, lg_token name, lg_token value);

/* ---- Tests ---- */
lg_tstmts *lg_b_tstmt(lg_parse *p, lg_tstmts *l, lg_tstmt_kind kind,
                      lg_token kw, lg_expr *a, lg_expr *b, lg_expr *c);
lg_tstmts *lg_b_use(lg_parse *p, lg_tstmts *l, lg_token kw, lg_expr *ref,
                    lg_token shape_kw, lg_expr *shape, lg_expr *dtype);
lg_test *lg_b_test(lg_parse *p, lg_token kw, lg_token name, lg_tstmts *l);

/* ---- Statements ---- */
void lg_b_namespace(lg_parse *p, lg_token kw, lg_token name);
void lg_b_import(lg_parse *p, lg_token kw, lg_token path);
void lg_b_stmt_layout(lg_parse *p, lg_token kw, lg_layout *l);
void lg_b_stmt_transform(lg_parse *p, lg_token kw, lg_transform *t);
void lg_b_stmt_test(lg_parse *p, lg_test *t);
void lg_b_ref(lg_parse *p, lg_expr *e);

/* The type name after ':' as a NAME expr. */
lg_expr *lg_b_type(lg_parse *p, lg_token name);

#endif /* LG_BUILD_H */
