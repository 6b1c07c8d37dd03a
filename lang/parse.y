%include {
/*
** 2026-11-22
**
** parse.y: the Lemon grammar of the lay language (lang/LANGUAGE.md).
** The build runs lemon on this file to make gen/parse.c and gen/parse.h;
** do not edit those generated files. A grammar conflict fails the build.
**
** Every action is a one-line call into an AST builder (lang/build.c,
** prefix lg_b_); the builders allocate in the compile's arena and record
** the first error in the parse context. The driver at the end of this file
** feeds the tokens of lang/lexer.re to the parser one by one, keeps the
** stack of open brackets (for "']' expected (to close '[' at 3:17)"), and
** stops at the first error. No nonterminal needs a %destructor: every node
** lives in the compile's arena, which is freed in one call.
*/
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "diag.h"
#include "lower.h"

static void lg_syntax_error(lg_parse *p, int major, lg_token tok);
}

%name lg_parser                  /* functions are lg_parserAlloc, lg_parser, ... */
%token_prefix TK_                /* token codes in gen/parse.h are TK_NAME, ... */
%token_type {lg_token}           /* a token is an {offset, length} slice */
%default_type {lg_expr *}        /* most nonterminals are expressions */
%extra_context {lg_parse *p}     /* the parse context every action sees */
%stack_size 4096                 /* deep nesting overflows into an error */
%start_symbol input              /* a file, or a reference after REFMODE */

/* A syntax error names the token it stopped at. */
%syntax_error { lg_syntax_error(p, yymajor, yyminor); }
/* Only absurdly deep nesting (a long run of prefix operators) gets here. */
%stack_overflow { lg_b_error(p, LAY_E_LIMIT, p->tok_pos, "nesting deeper than %d levels", LG_MAX_DEPTH); }

/* Operator precedence, lowest first (C's order for the binary operators).
** ATSIGN and ALIGN end an order item's expression; LB binds a slice. */
%left ATSIGN ALIGN.
%left PIPE.
%left CARET.
%left AMP.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right TILDE.
%left LB.

/* The tokens not named by a rule below, in the lexer's order. */
%token LP RP RB LC RC GT COMMA COLON EQEQ ARROW DOT.

/************************** The start symbol ********************************/
input ::= REFMODE expr(E).                  { lg_b_ref(p, E); }
input ::= stmts.

stmts ::= .
stmts ::= stmts stmt.

/*************************** Statements *************************************/
stmt ::= NAMESPACE(K) NAME(N).              { lg_b_namespace(p, K, N); }
stmt ::= IMPORT(K) STRING(S).               { lg_b_import(p, K, S); }
stmt ::= LAYOUT(K) layout(L).               { lg_b_stmt_layout(p, K, L); }
stmt ::= TRANSFORM(K) transform(T).         { lg_b_stmt_transform(p, K, T); }
stmt ::= test(T).                           { lg_b_stmt_test(p, T); }

/**************************** Layouts ***************************************/
/* layout NAME [(PARAMS)] (DIMS) [: TYPE] -> ORDER CLAUSES, or an alias. */
%type layout {lg_layout *}
layout(A) ::= lhead(H) ARROW LB(O) items(I) RB clauses(C).
                                            { A = lg_b_layout_order(p, H, O, I, C); }
layout(A) ::= lhead(H) ARROW chunked(X) clauses(C).
                                            { A = lg_b_layout_chunked(p, H, X, C); }
layout(A) ::= NAME(N) EQ expr(E).           { A = lg_b_layout_alias(p, N, E); }

/* The name, the parameter list if any, the dimensions and the type. */
%type lhead {lg_layout *}
lhead(A) ::= NAME(N) plist(D) opttype(T).   { A = lg_b_layout(p, N, NULL, D, T); }
lhead(A) ::= NAME(N) plist(P) plist(D) opttype(T).
                                            { A = lg_b_layout(p, N, P, D, T); }
/* The keyword `pack` names a layout too (MLIR's `mlir.pack`). */
lhead(A) ::= PACK(N) plist(P) plist(D) opttype(T).
                                            { A = lg_b_layout(p, N, P, D, T); }

/* A parenthesized list of names or `name = default` (checked by lg_b_layout). */
%type plist {lg_list *}
plist(A) ::= LP RP.                         { A = lg_b_list_new(p, NULL); }
plist(A) ::= LP args(L) RP.                 { A = L; }

/* `: TYPE`, optional. */
%type opttype {lg_expr *}
opttype(A) ::= .                            { A = NULL; }
opttype(A) ::= COLON NAME(N).               { A = lg_b_type(p, N); }

/* The memory order: ITEM [@ STRIDE [bytes]] [align A [bytes]], outermost first. */
%type items {lg_items *}
items(A) ::= item(I).                       { A = lg_b_items_add(p, NULL, I); }
items(A) ::= items(L) COMMA item(I).        { A = lg_b_items_add(p, L, I); }

%type item {lg_item *}
item(A) ::= expr(E).                        { A = lg_b_item(p, E); }
item(A) ::= item(I) ATSIGN(T) expr(E).      { A = lg_b_item_stride(p, I, T, E); }
item(A) ::= item(I) ATSIGN(T) expr(E) NAME(U).
                                            { A = lg_b_item_stride_unit(p, I, T, E, U); }
item(A) ::= item(I) ALIGN(T) expr(E).       { A = lg_b_item_align(p, I, T, E); }
item(A) ::= item(I) ALIGN(T) expr(E) NAME(U).
                                            { A = lg_b_item_align_unit(p, I, T, E, U); }

/* chunked<R, d,s, ...>, ChunkedMemoryLayout<...>, FlatMemoryLayout<R>. */
%type chunked {lg_expr *}
chunked(A) ::= chunkkw(K) LT ints(L) GT(R). { A = lg_b_chunked(p, K, L, R); }

%type chunkkw {lg_token}
chunkkw(A) ::= CHUNKED(K).                  { A = K; }
chunkkw(A) ::= CHUNKEDML(K).                { A = K; }
chunkkw(A) ::= FLATML(K).                   { A = K; }

%type ints {lg_list *}
ints(A) ::= INT(T).                         { A = lg_b_list_new(p, lg_b_int(p, T)); }
ints(A) ::= ints(L) COMMA INT(T).           { A = lg_b_list_add(p, L, lg_b_int(p, T)); }

/* Clauses after the order: where NAME = e, NAME = e, NAME(args). */
%type clauses {lg_clauses *}
clauses(A) ::= .                            { A = NULL; }
clauses(A) ::= clauses(L) WHERE(K) NAME(N) EQ expr(E).
                                            { A = lg_b_clause(p, L, LG_C_WHERE, K, N, E); }
clauses(A) ::= clauses(L) NAME(N) EQ expr(E).
                                            { A = lg_b_clause(p, L, LG_C_SET, N, N, E); }
clauses(A) ::= clauses(L) REQUIRE(K) cond(E).
                                            { A = lg_b_clause(p, L, LG_C_REQUIRE, K, K, E); }
clauses(A) ::= clauses(L) NAME(N) LP RP(R). { A = lg_b_clause(p, L, LG_C_CALL, N, N, lg_b_call(p, N, NULL, R)); }
clauses(A) ::= clauses(L) NAME(N) LP args(X) RP(R).
                                            { A = lg_b_clause(p, L, LG_C_CALL, N, N, lg_b_call(p, N, X, R)); }

/* A `require` condition: a comparison, or `x in (a, b, ...)`. */
cond(A) ::= expr(X) EQEQ expr(Y).           { A = lg_b_binary(p, X, LG_OP_EQ, Y); }
cond(A) ::= expr(X) NE expr(Y).             { A = lg_b_binary(p, X, LG_OP_NE, Y); }
cond(A) ::= expr(X) LT expr(Y).             { A = lg_b_binary(p, X, LG_OP_LT, Y); }
cond(A) ::= expr(X) LE expr(Y).             { A = lg_b_binary(p, X, LG_OP_LE, Y); }
cond(A) ::= expr(X) GT expr(Y).             { A = lg_b_binary(p, X, LG_OP_GT, Y); }
cond(A) ::= expr(X) GE expr(Y).             { A = lg_b_binary(p, X, LG_OP_GE, Y); }
cond(A) ::= expr(X) NAME(K) LP(O) exprs(L) RP(C).
                                            { A = lg_b_in(p, X, K, O, L, C); }

/*************************** Transforms *************************************/
/* transform NAME (X : TYPE[SHAPE]) = OP | OP | ... */
%type transform {lg_transform *}
transform(A) ::= NAME(N) LP NAME(X) COLON NAME(T) LB shape(S) RB RP EQ ops(O).
                                            { A = lg_b_transform(p, N, X, T, S, O); }

%type shape {lg_list *}
shape(A) ::= size(E).                       { A = lg_b_list_new(p, E); }
shape(A) ::= shape(L) COMMA size(E).        { A = lg_b_list_add(p, L, E); }

size(A) ::= INT(T).                         { A = lg_b_int(p, T); }
size(A) ::= NAME(N) EQ INT(T).              { A = lg_b_shape_named(p, N, T); }

%type ops {lg_list *}
ops(A) ::= op(E).                           { A = lg_b_list_new(p, E); }
ops(A) ::= ops(L) PIPE op(E).               { A = lg_b_list_add(p, L, E); }

op(A) ::= NAME(N).                          { A = lg_b_name(p, N); }
op(A) ::= NAME(N) LP RP(R).                 { A = lg_b_call(p, N, NULL, R); }
op(A) ::= NAME(N) LP args(L) RP(R).         { A = lg_b_call(p, N, L, R); }

/***************************** Tests ****************************************/
/* test "name" { STATEMENT ... } */
%type test {lg_test *}
test(A) ::= TEST(K) STRING(S) LC tstmts(L) RC.
                                            { A = lg_b_test(p, K, S, L); }

%type tstmts {lg_tstmts *}
tstmts(A) ::= .                             { A = NULL; }
tstmts(A) ::= tstmts(L) USE(K) expr(R) NAME(S) expr(X) opttype(T).
                                            { A = lg_b_use(p, L, K, R, S, X, T); }
tstmts(A) ::= tstmts(L) LOAD(K) STRING(S).  { A = lg_b_tstmt(p, L, LG_T_LOAD, K, lg_b_string(p, S), NULL, NULL); }
tstmts(A) ::= tstmts(L) WHERE(K) expr(X) EQEQ expr(Y).
                                            { A = lg_b_tstmt(p, L, LG_T_WHERE, K, X, Y, NULL); }
tstmts(A) ::= tstmts(L) AT(K) expr(X) EQEQ expr(Y).
                                            { A = lg_b_tstmt(p, L, LG_T_AT, K, X, Y, NULL); }
tstmts(A) ::= tstmts(L) ORDER(K) EQEQ STRING(S).
                                            { A = lg_b_tstmt(p, L, LG_T_ORDER, K, NULL, lg_b_string(p, S), NULL); }
tstmts(A) ::= tstmts(L) PACK(K) EQEQ expr(Y).
                                            { A = lg_b_tstmt(p, L, LG_T_PACK, K, NULL, Y, NULL); }
tstmts(A) ::= tstmts(L) PACK(K) expr(X) EQEQ expr(Y).
                                            { A = lg_b_tstmt(p, L, LG_T_PACK, K, X, Y, NULL); }
tstmts(A) ::= tstmts(L) UNPACK(K) expr(X) EQEQ expr(Y).
                                            { A = lg_b_tstmt(p, L, LG_T_UNPACK, K, X, Y, NULL); }
tstmts(A) ::= tstmts(L) ROUNDTRIP(K).       { A = lg_b_tstmt(p, L, LG_T_ROUNDTRIP, K, NULL, NULL, NULL); }
tstmts(A) ::= tstmts(L) ERROR(K) EQEQ STRING(S).
                                            { A = lg_b_tstmt(p, L, LG_T_ERROR, K, NULL, lg_b_string(p, S), NULL); }

/************************** Expressions *************************************/
expr(A) ::= INT(T).                         { A = lg_b_int(p, T); }
expr(A) ::= FLOAT(T).                       { A = lg_b_float(p, T); }
expr(A) ::= STRING(T).                      { A = lg_b_string(p, T); }
expr(A) ::= NAME(T).                        { A = lg_b_name(p, T); }
expr(A) ::= ELLIPSIS(T).                    { A = lg_b_name(p, T); }
expr(A) ::= chunked(C).                     { A = C; }
expr(A) ::= LB(O) RB(C).                    { A = lg_b_list(p, O, NULL, C); }
expr(A) ::= LB(O) exprs(L) RB(C).           { A = lg_b_list(p, O, L, C); }
expr(A) ::= NAME(N) LP RP(C).               { A = lg_b_call(p, N, NULL, C); }
expr(A) ::= NAME(N) LP args(L) RP(C).       { A = lg_b_call(p, N, L, C); }
expr(A) ::= LP(O) expr(E) RP(C).            { A = lg_b_paren(p, O, E, C); }
expr(A) ::= expr(B) LB slicelo(L) COLON slicehi(H) RB(C).
                                            { A = lg_b_slice(p, B, L, H, C); }
expr(A) ::= MINUS(O) expr(E). [TILDE]       { A = lg_b_unary(p, O, E); }
expr(A) ::= TILDE(O) expr(E).               { A = lg_b_unary(p, O, E); }
expr(A) ::= expr(X) PIPE expr(Y).           { A = lg_b_binary(p, X, LG_OP_OR, Y); }
expr(A) ::= expr(X) CARET expr(Y).          { A = lg_b_binary(p, X, LG_OP_XOR, Y); }
expr(A) ::= expr(X) AMP expr(Y).            { A = lg_b_binary(p, X, LG_OP_AND, Y); }
expr(A) ::= expr(X) SHL expr(Y).            { A = lg_b_binary(p, X, LG_OP_SHL, Y); }
expr(A) ::= expr(X) SHR expr(Y).            { A = lg_b_binary(p, X, LG_OP_SHR, Y); }
expr(A) ::= expr(X) PLUS expr(Y).           { A = lg_b_binary(p, X, LG_OP_ADD, Y); }
expr(A) ::= expr(X) MINUS expr(Y).          { A = lg_b_binary(p, X, LG_OP_SUB, Y); }
expr(A) ::= expr(X) STAR expr(Y).           { A = lg_b_binary(p, X, LG_OP_MUL, Y); }
expr(A) ::= expr(X) SLASH expr(Y).          { A = lg_b_binary(p, X, LG_OP_DIV, Y); }
expr(A) ::= expr(X) PERCENT expr(Y).        { A = lg_b_binary(p, X, LG_OP_MOD, Y); }

/* The bounds of a slice, each optional. */
slicelo(A) ::= .                            { A = NULL; }
slicelo(A) ::= expr(E).                     { A = E; }
slicehi(A) ::= .                            { A = NULL; }
slicehi(A) ::= expr(E).                     { A = E; }

/* The items of a list literal. */
%type exprs {lg_list *}
exprs(A) ::= expr(E).                       { A = lg_b_list_new(p, E); }
exprs(A) ::= exprs(L) COMMA expr(E).        { A = lg_b_list_add(p, L, E); }

/* Call arguments: positional or `name = value`. */
%type args {lg_list *}
args(A) ::= arg(E).                         { A = lg_b_list_new(p, E); }
args(A) ::= args(L) COMMA arg(E).           { A = lg_b_list_add(p, L, E); }

arg(A) ::= expr(E).                         { A = E; }
arg(A) ::= NAME(N) EQ expr(E).              { A = lg_b_named(p, N, E); }

/***************************** The driver ***********************************/
%code {
/* "unexpected 'x'" for the token the parser stopped at. */
static void lg_syntax_error(lg_parse *p, int major, lg_token tok) {
  if (p->status) return;
  if (major == 0) {
    lg_b_error(p, LAY_E_SYNTAX, tok.off, "unexpected end of input");
  } else if (major == TK_STRING) {
    lg_b_error(p, LAY_E_SYNTAX, tok.off, "unexpected string");
  } else {
    int n = tok.len > 40 ? 40 : (int)tok.len;
    char hint[256] = "";
    if (major == TK_NAME) lg_hint_keyword(p->src + tok.off, tok.len, hint,
                                          sizeof hint);
    lg_b_error(p, LAY_E_SYNTAX, tok.off, "unexpected '%.*s'%s%s", n,
               p->src + tok.off, tok.len > 40 ? "..." : "", hint);
  }
}

/* "']' expected (to close '[' at 3:17)" at byte offset pos. */
static void lg_expect_close(lg_parse *p, uint32_t pos) {
  static const char closers[] = "([{<)]}>";
  const lg_open *o = &p->open[p->depth - 1];
  char close = closers[strchr(closers, o->ch) - closers + 4];
  int line, col;
  lg_linecol(p->src, p->len, o->pos, &line, &col);
  lg_b_error(p, LAY_E_SYNTAX, pos, "'%c' expected (to close '%c' at %d:%d)",
             close, o->ch, line, col);
}

/* Run the parser over p->src; refmode parses one reference expression. */
static lay_status lg_drive(lg_parse *p, int refmode) {
  lg_lexer lx;
  memset(&lx, 0, sizeof lx);
  lx.src = p->src;
  lx.len = p->len;
  void *parser = lg_parserAlloc(malloc, p);
  if (!parser) {
    lg_b_error(p, LAY_E_NOMEM, 0, "out of memory");
    return p->status;
  }
  lg_token t = {0, 0};
  if (refmode) lg_parser(parser, TK_REFMODE, t);
  int prev = 0;
  while (!p->status) {
    int k = lg_lex(&lx, &t);
    if (k == LG_TK_ERROR) {
      lg_b_error(p, lx.err_code, lx.err_pos, "%s", lx.msg);
      break;
    }
    if (k == LG_TK_EOF) {
      t.off = p->last_end;
      t.len = 0;
      if (p->depth > 0) {
        lg_expect_close(p, t.off);
        break;
      }
      p->tok_pos = t.off;
      lg_parser(parser, 0, t);
      break;
    }
    p->tok_pos = t.off;
    int opens = k == TK_LP || k == TK_LB || k == TK_LC ||
                (k == TK_LT && (prev == TK_CHUNKED || prev == TK_CHUNKEDML ||
                                prev == TK_FLATML));
    int closes = k == TK_RP || k == TK_RB || k == TK_RC || k == TK_GT;
    if (opens) {
      if (p->depth == LG_MAX_DEPTH) {
        lg_b_error(p, LAY_E_LIMIT, t.off, "nesting deeper than %d levels",
                   LG_MAX_DEPTH);
        break;
      }
      lg_open *o = &p->open[p->depth++];
      o->ch = p->src[t.off];
      o->pos = t.off;
      o->close = k == TK_LP ? TK_RP : k == TK_LB ? TK_RB
               : k == TK_LC ? TK_RC : TK_GT;
    } else if (closes && p->depth > 0) {
      if (p->open[p->depth - 1].close != k) {
        lg_expect_close(p, t.off);
        break;
      }
      p->depth--;
    }
    lg_parser(parser, k, t);
    p->last_end = t.off + t.len;
    prev = k;
  }
  lg_parserFree(parser, free);
  return p->status;
}

lay_status lg_parse_file(lg_parse *p) {
  return lg_drive(p, 0);
}

lay_status lg_parse_ref(struct lg_arena *a, const char *text, lg_expr **out,
                        lay_error *err) {
  lg_parse p;
  memset(&p, 0, sizeof p);
  p.a = a;
  p.file = "<format>";
  p.src = text;
  p.len = strlen(text);
  p.err = err;
  *out = NULL;
  if (p.len > LG_MAX_SOURCE) {
    lg_b_error(&p, LAY_E_LIMIT, 0, "format is longer than %u bytes",
               LG_MAX_SOURCE);
    return p.status;
  }
  if (lg_drive(&p, 1)) return p.status;
  if (!p.ref) {
    lg_b_error(&p, LAY_E_SYNTAX, 0, "empty format");
    return p.status;
  }
  *out = p.ref;
  return LAY_OK;
}
}
