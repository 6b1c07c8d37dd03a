/*
** ast.h: the syntax tree the Lemon grammar builds (lang/parse.y).
**
** Every node lives in the arena of the compile that made it (lg_arena);
** nothing here is freed on its own. Positions are byte offsets into the
** source of the file the node came from (lg_src); they become line:col only
** when a diagnostic is reported (lg_diag.c).
*/
#ifndef LG_AST_H
#define LG_AST_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

/* A slice of source text (names, strings). Not NUL-terminated in the
** source; the parser copies names into the arena with a NUL, so `s` may be
** used as a C string. */
typedef struct lg_str {
  const char *s; /* the text, NUL-terminated copy in the arena */
  size_t n;      /* its length in bytes */
} lg_str;

typedef struct lg_expr lg_expr;

/* A growable array of expressions, allocated in the arena. */
typedef struct lg_list {
  lg_expr **v; /* the items */
  int n;       /* how many */
  int cap;     /* allocated slots */
} lg_list;

/* Expression kinds. ORDER DOES NOT MATTER. */
typedef enum lg_expr_kind {
  LG_X_INT,     /* integer literal: u.i */
  LG_X_FLOAT,   /* float literal: u.f */
  LG_X_STR,     /* string literal: u.str (escapes already decoded) */
  LG_X_NAME,    /* name or qualified name: u.str ("amd.hcwnc4") */
  LG_X_LIST,    /* [a, b, ...]: u.list */
  LG_X_UNARY,   /* op a: u.op (op is '-' or '~') */
  LG_X_BINARY,  /* a op b: u.op (op one of LG_OP_*) */
  LG_X_CALL,    /* fn(args): u.call; fn is a NAME expr */
  LG_X_SLICE,   /* base[lo:hi]: u.slice (lo or hi may be NULL) */
  LG_X_NAMED,   /* name = value, inside an argument list: u.named */
  LG_X_CHUNKED  /* chunked<...>: u.chunked */
} lg_expr_kind;

/* Binary operators, as stored in u.op.op. */
typedef enum lg_op {
  LG_OP_ADD, LG_OP_SUB, LG_OP_MUL, LG_OP_DIV, LG_OP_MOD,
  LG_OP_SHL, LG_OP_SHR, LG_OP_AND, LG_OP_OR, LG_OP_XOR,
  LG_OP_NEG, LG_OP_NOT, /* unary */
  /* comparisons, only in a `require` condition; IN's b is a LIST */
  LG_OP_EQ, LG_OP_NE, LG_OP_LT, LG_OP_LE, LG_OP_GT, LG_OP_GE, LG_OP_IN
} lg_op;

struct lg_expr {
  lg_expr_kind kind; /* which member of u is valid */
  uint32_t pos;      /* byte offset of the first character */
  uint32_t end;      /* byte offset one past the last character */
  int depth;         /* nesting: 0 for a leaf, else 1 + deepest operand */
  union {
    int64_t i;
    double f;
    lg_str str;
    lg_list list;
    struct { lg_op op; lg_expr *a, *b; } op;          /* b NULL if unary */
    struct { lg_expr *fn; lg_list args; } call;
    struct { lg_expr *base, *lo, *hi; } slice;
    struct { lg_str name; lg_expr *value; } named;
    struct {
      int flat;        /* 1 for FlatMemoryLayout<R> */
      int64_t *v;      /* the integers, rank first */
      uint32_t *vpos;  /* byte offset of each integer */
      int n;           /* how many integers */
    } chunked;
  } u;
};

/* One item of a memory order: expr [@ stride] [align a]. */
typedef struct lg_item {
  lg_expr *e;      /* the index expression */
  lg_expr *stride; /* explicit stride in elements (or bytes), or NULL */
  lg_expr *align;  /* stride alignment in elements, or NULL */
  int align_bytes; /* `align A bytes`: A counts bytes of the stored type */
  int stride_bytes; /* `@ S bytes`: S counts bytes of the stored type */
} lg_item;

/* A clause after a memory order. */
typedef enum lg_clause_kind {
  LG_C_WHERE, /* where name = value */
  LG_C_SET,   /* name = value (pad_value = 31) */
  LG_C_CALL,  /* name(args): quantize(...), cast(...), fixed(...) */
  LG_C_REQUIRE /* require COND: value is the condition (kept in reqs) */
} lg_clause_kind;

typedef struct lg_clause {
  lg_clause_kind kind;
  uint32_t pos;  /* position of the clause's first token */
  lg_str name;   /* the bound or set name (WHERE, SET); call name (CALL) */
  lg_expr *value;/* the value (WHERE, SET); the whole CALL expr (CALL) */
} lg_clause;

typedef struct lg_layout {
  lg_str name;        /* unqualified name as written */
  uint32_t pos;       /* position of the name */
  lg_list params;     /* NAME or NAMED (default) exprs; n = 0 if none */
  int has_params;     /* 1 when a parameter list was written */
  lg_list dims;       /* NAME exprs; n = 0 for an alias */
  lg_expr *dtype;     /* NAME expr of the CPU type, or NULL */
  lg_item *items;     /* memory order items (n_items), or NULL */
  int n_items;
  lg_expr *chunked;   /* CHUNKED expr when the order is chunked<...> */
  lg_expr *alias;     /* NAME, CALL or CHUNKED expr for `layout x = ...` */
  lg_clause *clauses; /* n_clauses clauses */
  int n_clauses;
  lg_clause *reqs;    /* the `require` clauses, n_reqs of them */
  int n_reqs;
  uint32_t order_pos; /* position of the '[' or chunked keyword */
} lg_layout;

typedef struct lg_transform {
  lg_str name;       /* transform name */
  uint32_t pos;      /* position of the name */
  lg_str input;      /* the input tensor's name (x) */
  lg_expr *dtype;    /* NAME expr of the input type */
  lg_list shape;     /* INT or NAMED(INT) exprs */
  lg_list ops;       /* CALL exprs (or NAME exprs for ops without args) */
} lg_transform;

/* Test statements. */
typedef enum lg_tstmt_kind {
  LG_T_USE,       /* use REF shape LIST [: TYPE]: a = ref, b = shape, c = type */
  LG_T_LOAD,      /* load STRING: a = string */
  LG_T_WHERE,     /* where LIST == INT: a = coord, b = offset */
  LG_T_AT,        /* at INT == LIST|pad: a = offset, b = expected */
  LG_T_ORDER,     /* order == STRING: b = listing */
  LG_T_PACK,      /* pack [INPUT] == EXPECTED: a = input or NULL, b */
  LG_T_UNPACK,    /* unpack INPUT == EXPECTED: a, b */
  LG_T_ROUNDTRIP, /* roundtrip */
  LG_T_ERROR      /* error == STRING: b = message */
} lg_tstmt_kind;

typedef struct lg_tstmt {
  lg_tstmt_kind kind;
  uint32_t pos;        /* position of the statement keyword */
  lg_expr *a, *b, *c;  /* operands, see lg_tstmt_kind */
} lg_tstmt;

typedef struct lg_test {
  lg_str name;      /* the test's name string */
  uint32_t pos;     /* position of the `test` keyword */
  lg_tstmt *stmts;  /* n_stmts statements in order */
  int n_stmts;
} lg_test;

typedef enum lg_stmt_kind {
  LG_S_NAMESPACE, /* u.name */
  LG_S_IMPORT,    /* u.name (the path string) */
  LG_S_LAYOUT,    /* u.layout */
  LG_S_TRANSFORM, /* u.transform */
  LG_S_TEST       /* u.test */
} lg_stmt_kind;

typedef struct lg_stmt {
  lg_stmt_kind kind;
  uint32_t pos; /* position of the statement's first token */
  union {
    lg_str name;
    lg_layout *layout;
    lg_transform *transform;
    lg_test *test;
  } u;
} lg_stmt;

/* One parsed file: its statements in source order. */
typedef struct lg_ast {
  lg_stmt *stmts; /* n statements */
  int n;
  int cap;
} lg_ast;

#endif /* LG_AST_H */
