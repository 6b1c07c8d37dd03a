/*
** lexer.re: the tokenizer of the lay language (re2c input; the build
** generates gen/lexer.c from it). The lexical structure is the one of
** lang/LANGUAGE.md. A token is an {offset, length} slice of the source;
** the source must be NUL-terminated at src[len]. A NUL byte before the end
** is an error, not the end of input. Errors come back as LG_TK_ERROR with
** the message and position in the lexer state.
*/
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "parse.h"

/* Finish a token [start, YYCURSOR) of kind k. */
#define TOK(k)                                 \
  do {                                         \
    t->off = (uint32_t)(start - base);         \
    t->len = (uint32_t)(YYCURSOR - start);     \
    lx->pos = (size_t)(YYCURSOR - base);       \
    return (k);                                \
  } while (0)

/* The offset and length of the token matched so far. */
#define AT ((size_t)(start - base))
#define LEN ((size_t)(YYCURSOR - start))

/* The keywords (LANGUAGE.md, Lexical structure): a name spelt exactly so
** is the keyword's token. The did-you-mean of syntax errors offers them
** too (lg_keyword). */
static const struct {
  const char *text;
  int tok;
} keywords[] = {
    {"namespace", TK_NAMESPACE},
    {"import", TK_IMPORT},
    {"layout", TK_LAYOUT},
    {"transform", TK_TRANSFORM},
    {"test", TK_TEST},
    {"where", TK_WHERE},
    {"chunked", TK_CHUNKED},
    {"ChunkedMemoryLayout", TK_CHUNKEDML},
    {"FlatMemoryLayout", TK_FLATML},
    {"use", TK_USE},
    {"load", TK_LOAD},
    {"at", TK_AT},
    {"order", TK_ORDER},
    {"pack", TK_PACK},
    {"unpack", TK_UNPACK},
    {"roundtrip", TK_ROUNDTRIP},
    {"error", TK_ERROR},
    {"align", TK_ALIGN},
    {"require", TK_REQUIRE},
};

/* The token of the name s[0..n): a keyword's, else TK_NAME. */
static int keyword(const unsigned char *s, size_t n) {
  for (size_t i = 0; i < sizeof keywords / sizeof *keywords; i++)
    if (strlen(keywords[i].text) == n && !memcmp(keywords[i].text, s, n))
      return keywords[i].tok;
  return TK_NAME;
}

const char *lg_keyword(size_t i, int *tok) {
  if (i >= sizeof keywords / sizeof *keywords) return NULL;
  *tok = keywords[i].tok;
  return keywords[i].text;
}

/* Fail with message m at byte offset at. */
static int lex_error(lg_lexer *lx, lg_token *t, size_t at, const char *m) {
  lx->msg = m;
  lx->err_pos = (uint32_t)at;
  lx->err_code = LAY_E_SYNTAX;
  t->off = (uint32_t)at;
  t->len = 0;
  return LG_TK_ERROR;
}

/* The first NUL byte in [from, len), or len when there is none. */
static size_t find_nul(const lg_lexer *lx, size_t from) {
  const char *z = memchr(lx->src + from, 0, lx->len - from);
  return z ? (size_t)(z - lx->src) : lx->len;
}

/* A NUL byte at `at`: the end of input when at == len, else an error. */
static int lex_nul(lg_lexer *lx, lg_token *t, size_t at) {
  if (at < lx->len) return lex_error(lx, t, at, "unexpected NUL byte");
  t->off = (uint32_t)at;
  t->len = 0;
  lx->pos = at;
  return LG_TK_EOF;
}

/* A comment or string starting at `at` that reached a NUL byte. */
static int lex_unterminated(lg_lexer *lx, lg_token *t, size_t at,
                            const char *msg) {
  size_t z = find_nul(lx, at);
  return lex_error(lx, t, z < lx->len ? z : at,
                   z < lx->len ? "unexpected NUL byte" : msg);
}

/* A number-like word that is not a number. */
static int lex_malformed(lg_lexer *lx, lg_token *t, size_t at, size_t n) {
  snprintf(lx->buf, sizeof lx->buf, "malformed number '%.*s'",
           (int)(n > 40 ? 40 : n), lx->src + at);
  return lex_error(lx, t, at, lx->buf);
}

/* A byte that starts no token. */
static int lex_bad_char(lg_lexer *lx, lg_token *t, size_t at) {
  unsigned c = (unsigned char)lx->src[at];
  if (c >= 0x20 && c < 0x7f)
    snprintf(lx->buf, sizeof lx->buf, "unexpected character '%c'", (int)c);
  else
    snprintf(lx->buf, sizeof lx->buf, "unexpected character '\\x%02x'", c);
  return lex_error(lx, t, at, lx->buf);
}

/* An integer literal [at, at+n): past 2^64 - 1 is an error. */
static int lex_int(lg_lexer *lx, lg_token *t, size_t at, size_t n) {
  int64_t v;
  if (lg_lex_int(lx->src + at, n, &v) < 0)
    return lex_error(lx, t, at, "integer too large");
  t->off = (uint32_t)at;
  t->len = (uint32_t)n;
  lx->pos = at + n;
  return TK_INT;
}

int lg_lex_int(const char *s, size_t n, int64_t *out) {
  uint64_t v = 0;
  if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (size_t i = 2; i < n; i++) {
      char c = s[i];
      int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
      if (v > UINT64_MAX >> 4) return -1;
      v = v << 4 | (uint64_t)d;
    }
  } else {
    for (size_t i = 0; i < n; i++) {
      uint64_t d = (uint64_t)(s[i] - '0');
      if (v > (UINT64_MAX - d) / 10) return -1;
      v = v * 10 + d;
    }
  }
  *out = (int64_t)v; /* past INT64_MAX: its bits (a uint64 pad value) */
  return v > (uint64_t)INT64_MAX;
}

int lg_lex(lg_lexer *lx, lg_token *t) {
  const unsigned char *base = (const unsigned char *)lx->src;
  const unsigned char *YYCURSOR = base + lx->pos;
  const unsigned char *YYMARKER = YYCURSOR;
  const unsigned char *start;
  for (;;) {
    start = YYCURSOR;
    /*!re2c
      re2c:define:YYCTYPE = "unsigned char";
      re2c:define:YYCURSOR = YYCURSOR;
      re2c:define:YYMARKER = YYMARKER;
      re2c:yyfill:enable = 0;

      nul      = "\x00";
      ws       = [ \t\r\n\f\v]+;
      lcomment = ("#" | "//") [^\n\x00]*;
      bcomment = "/*" ([^*\x00] | "*"+ [^*/\x00])* "*"+ "/";
      letter   = [A-Za-z_];
      alnum    = [A-Za-z0-9_];
      word     = letter alnum* | [0-9]+ letter alnum*;
      name     = word ("." word)*;
      dec      = [0-9]+;
      hex      = "0" [xX] [0-9a-fA-F]+;
      badhex   = "0" [xX] alnum*;
      exp      = [eE] [+-]? [0-9]+;
      float    = [0-9]+ "." [0-9]+ exp? | [0-9]+ exp;
      badfloat = [0-9]+ "." [0-9A-Za-z_.]*;
      strchar  = [^"\\\x00] | "\\" [^\x00];
      string   = "\"" strchar* "\"";
      ustring  = "\"" strchar*;

      nul                   { return lex_nul(lx, t, AT); }
      ws                    { continue; }
      lcomment              { continue; }
      bcomment              { continue; }
      "/*"                  { return lex_unterminated(lx, t, AT, "unterminated comment"); }

      float                 { TOK(TK_FLOAT); }
      hex | dec             { return lex_int(lx, t, AT, LEN); }
      badhex | badfloat     { return lex_malformed(lx, t, AT, LEN); }
      name                  { TOK(keyword(start, LEN)); }
      string                { TOK(TK_STRING); }
      ustring               { return lex_unterminated(lx, t, AT, "unterminated string"); }

      "->"                  { TOK(TK_ARROW); }
      "=="                  { TOK(TK_EQEQ); }
      "!="                  { TOK(TK_NE); }
      "<="                  { TOK(TK_LE); }
      ">="                  { TOK(TK_GE); }
      "..."                 { TOK(TK_ELLIPSIS); }
      "<<"                  { TOK(TK_SHL); }
      ">>"                  { TOK(TK_SHR); }
      "("                   { TOK(TK_LP); }
      ")"                   { TOK(TK_RP); }
      "["                   { TOK(TK_LB); }
      "]"                   { TOK(TK_RB); }
      "{"                   { TOK(TK_LC); }
      "}"                   { TOK(TK_RC); }
      "<"                   { TOK(TK_LT); }
      ">"                   { TOK(TK_GT); }
      ","                   { TOK(TK_COMMA); }
      ":"                   { TOK(TK_COLON); }
      "="                   { TOK(TK_EQ); }
      "|"                   { TOK(TK_PIPE); }
      "@"                   { TOK(TK_ATSIGN); }
      "+"                   { TOK(TK_PLUS); }
      "-"                   { TOK(TK_MINUS); }
      "*"                   { TOK(TK_STAR); }
      "/"                   { TOK(TK_SLASH); }
      "%"                   { TOK(TK_PERCENT); }
      "&"                   { TOK(TK_AMP); }
      "^"                   { TOK(TK_CARET); }
      "~"                   { TOK(TK_TILDE); }
      "."                   { TOK(TK_DOT); }

      *                     { return lex_bad_char(lx, t, AT); }
    */
  }
}
