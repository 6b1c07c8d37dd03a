/*
** lower_hint.c: the "did you mean" of spec errors (lay.h's lay_suggest,
** lang/suggest.c): an unknown name against the names in scope (the
** dimensions, and the parameters where an expression may use them), an
** unknown type against the element types (lang/dtypes.h), an unknown
** clause against pad_value and the value operations, a name where the
** grammar stopped against the lexer's keywords. Each returns the text to
** append to the message, " (did you mean 'c'?)", or "".
*/
#include <string.h>

#include "build.h"
#include "lower_int.h"

/* s's text kept in the IR's arena ("" when empty or out of memory). */
static const char *keep(lw *w, const lay_suggest *s) {
  char buf[256];
  lay_suggest_text(s, buf, sizeof buf);
  size_t n = strlen(buf);
  if (!n) return "";
  char *k = lg_arena_alloc(w->a, n + 1);
  if (!k) return "";
  memcpy(k, buf, n + 1);
  return k;
}

const char *lg_hint_name(lw *w, const env *en, const char *word, int params,
                         const char *extra) {
  lay_suggest s;
  lay_suggest_init(&s, word);
  for (int i = 0; i < en->rank; i++) lay_suggest_add(&s, en->dims[i]);
  for (int i = 0; params && i < en->visible && i < en->np; i++)
    if (i != en->self) lay_suggest_add(&s, en->p[i].name);
  if (extra) lay_suggest_add(&s, extra);
  return keep(w, &s);
}

const char *lg_hint_type(lw *w, const char *word) {
  lay_suggest s;
  lay_suggest_init(&s, word);
  lay_suggest_dtypes(&s);
  return keep(w, &s);
}

const char *lg_hint_clause(lw *w, const lg_clause *c) {
  lay_suggest s;
  lay_suggest_init(&s, c->name.s);
  if (c->kind == LG_C_SET) lay_suggest_add(&s, "pad_value");
  else
    for (size_t i = 0; lg_value_op_name(i); i++)
      lay_suggest_add(&s, lg_value_op_name(i));
  return keep(w, &s);
}

void lg_hint_keyword(const char *word, size_t n, char *buf, size_t cap) {
  char one[64];
  if (!cap) return;
  buf[0] = '\0';
  if (n >= sizeof one) return;
  memcpy(one, word, n);
  one[n] = '\0';
  lay_suggest s;
  lay_suggest_init(&s, one);
  int tok;
  const char *k;
  for (size_t i = 0; (k = lg_keyword(i, &tok)); i++) lay_suggest_add(&s, k);
  lay_suggest_text(&s, buf, cap);
}
