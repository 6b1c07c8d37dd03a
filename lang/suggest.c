/*
** suggest.c: "did you mean" for every mistyped word lay meets (lay.h's
** lay_suggest_*): an edit distance (insert, delete, substitute, swap of
** two neighbours), case-insensitive; a candidate's name without its
** namespace counts too ("hcwnc4" for amd.hcwnc4), and a prefix of 3 or
** more characters ("float" or "flaot" of "float32"). The front end uses it for
** unknown names, keywords, types and clauses (lower_hint.c, parse.y);
** the CLI and the REPL for layouts, commands, options and parameters.
*/
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "dtypes.h"
#include "lay.h"

/* The edit distance between a[0..na) and b[0..nb), case-insensitive;
** values past `cap` are cut at cap + 1. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb,
                       size_t cap) {
  if (na > 63 || nb > 63) return cap + 1;
  size_t d[64][64];
  for (size_t i = 0; i <= na; i++) d[i][0] = i;
  for (size_t j = 0; j <= nb; j++) d[0][j] = j;
  for (size_t i = 1; i <= na; i++)
    for (size_t j = 1; j <= nb; j++) {
      int ai = tolower((unsigned char)a[i - 1]);
      int bj = tolower((unsigned char)b[j - 1]);
      size_t v = d[i - 1][j - 1] + (ai != bj);
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == bj && d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[na][nb] > cap ? cap + 1 : d[na][nb];
}

void lay_suggest_init(lay_suggest *s, const char *word) {
  memset(s, 0, sizeof *s);
  s->word = word;
  s->best = SIZE_MAX;
}

void lay_suggest_add(lay_suggest *s, const char *cand) {
  if (!s || !cand || !s->word) return;
  size_t nw = strlen(s->word), nc = strlen(cand);
  /* Typos allowed: 1 for short words, then one per 3 characters; none in
  ** two characters ("-x") or fewer, too few to guess from: only the case
  ** may differ ('N' for 'n'). */
  int few = nw - (s->word[0] == '-') < 2;
  size_t cap = few ? 0 : nw < 4 ? 1 : nw / 3;
  size_t d = distance(s->word, nw, cand, nc, cap);
  /* The name without its namespace ("hcwnc4" for amd.hcwnc4), and the
  ** word without one against it. */
  const char *dot = strrchr(cand, '.');
  const char *wdot = strrchr(s->word, '.');
  if (dot && !wdot) {
    size_t d2 = distance(s->word, nw, dot + 1, strlen(dot + 1), cap);
    if (d2 < d) d = d2;
  }
  if (dot && wdot) { /* the same name in another namespace */
    size_t d3 = distance(wdot + 1, strlen(wdot + 1), dot + 1,
                         strlen(dot + 1), cap);
    if (!d3 && d > 1) d = 1;
  }
  /* A word of 3 or more characters that starts a candidate ("float" of
  ** "float32"), or a candidate of 3 or more that starts the word ("pad_l"
  ** of "pad_left"), is near, but farther than any other within reach;
  ** and a typo in such a prefix ("flaot" of "float32") as well. */
  size_t nmin = nw < nc ? nw : nc, score = 2 * d;
  if (d > cap && nmin >= 3 && nw != nc &&
      (!strncasecmp(cand, s->word, nmin) ||
       (!few && nw < nc && distance(s->word, nw, cand, nw, cap) <= cap)))
    score = 2 * cap + 1;
  if (score > 2 * cap + 1 || nc >= sizeof s->cand[0]) return;
  d = score;
  for (int i = 0; i < s->n; i++) /* seen already (a name and its alias) */
    if (d == s->best && !strcmp(s->cand[i], cand)) return;
  if (d < s->best) {
    s->best = d;
    s->n = 0;
  }
  if (d == s->best && s->n < LAY_SUGGEST_MAX)
    memcpy(s->cand[s->n++], cand, nc + 1);
}

void lay_suggest_dtypes(lay_suggest *s) {
  /* lay's names and numpy's (lay_dtype_parse takes both), from the one
  ** table of lang/dtypes.h; numpy's names are blank-separated words. */
  static const char *const names[] = {
#define X(id, nm, np, co, size, nb, fl, lo, hi, bits, emin, max) nm, np,
      LG_DTYPES(X)
#undef X
  };
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    const char *w = names[i];
    while (*w) {
      size_t n = strcspn(w, " ");
      char one[32];
      if (n && n < sizeof one) {
        memcpy(one, w, n);
        one[n] = '\0';
        lay_suggest_add(s, one);
      }
      w += n;
      w += strspn(w, " ");
    }
  }
}

const char *lay_suggest_text(const lay_suggest *s, char *buf, size_t cap) {
  if (!cap) return "";
  buf[0] = '\0';
  if (!s || !s->n) return buf;
  size_t n = (size_t)snprintf(buf, cap, " (did you mean ");
  for (int i = 0; i < s->n && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s'%s'",
                          !i ? "" : i == s->n - 1 ? " or " : ", ",
                          s->cand[i]);
  if (n < cap) snprintf(buf + n, cap - n, "?)");
  return buf;
}
