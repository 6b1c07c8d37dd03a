/*
** listing.c: the memory-order listing of a plan (`lay show`, the test
** blocks' `order ==`) and the check of a listing pasted from a vendor doc.
**
** Both walk the layout buffer one hardware element at a time through
** lay_plan_at, so they work for every layout the planner can build; they
** are meant for explanation and tests, not for speed. See listing.h for
** the notation.
*/
#include "listing.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "strbuf.h"

/* ---- Elements -------------------------------------------------------------- */

enum { EL_DATA = 0, EL_PAD = 1, EL_HOLE = 2 };

typedef struct elem {
  int kind;                 /* EL_DATA, EL_PAD or EL_HOLE */
  int plane;                /* byte plane (0 without planes) */
  int64_t c[LAY_MAX_RANK];  /* coordinate (padded coordinate for pads) */
} elem;

typedef struct walker {
  const lay_plan *p;
  int rank;        /* CPU-side dimensions */
  size_t esize;    /* bytes per hardware element */
  uint64_t total;  /* hardware elements in the buffer */
  int planes;      /* byte planes, 0 when none */
} walker;

static int walker_init(walker *w, const lay_plan *p) {
  int64_t shape[LAY_MAX_RANK];
  w->p = p;
  w->rank = lay_plan_cpu_shape(p, shape, LAY_MAX_RANK);
  w->esize = li_layout_elem(p);
  w->planes = li_plane_count(p);
  if (w->rank < 1 || w->rank > LAY_MAX_RANK || w->esize == 0) return -1;
  w->total = li_layout_bytes(p) / w->esize;
  return 0;
}

/* Element k of the buffer; -1 when lay_plan_at refuses it. */
static int get(const walker *w, uint64_t k, elem *e) {
  int is_pad = 0, plane = 0;
  for (int i = 0; i < LAY_MAX_RANK; i++) e->c[i] = -1;
  if (lay_plan_at(w->p, k * w->esize, e->c, w->rank, &is_pad, &plane, NULL))
    return -1;
  e->kind = is_pad == 1 ? EL_PAD : is_pad ? EL_HOLE : EL_DATA;
  e->plane = plane;
  return 0;
}

/* "(0,0,1,2)", "lo(0,0,1,2)"; into buf of cap bytes. */
static void fmt_coord(const walker *w, int plane, const int64_t *c,
                      char *buf, size_t cap) {
  size_t n = 0;
  const char *pn = plane >= 0 ? li_plane_name(w->p, plane) : NULL;
  n += (size_t)snprintf(buf, cap, "%s(", pn ? pn : "");
  for (int i = 0; i < w->rank && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? "," : "", c[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* ---- The listing ---------------------------------------------------------- */

typedef struct lister {
  walker w;
  lg_strbuf out;
  int line_tokens;      /* tokens written on the current line */
  uint64_t run;         /* elements in the current run, 0 = none */
  int run_dim;          /* the dimension the run steps in, -1 = not yet */
  elem first, second, last;
  int pad_kind;         /* EL_PAD or EL_HOLE of the pending pad group */
  uint64_t pads;        /* elements in it, 0 = none */
} lister;

static void token(lister *l, const char *s) {
  if (l->line_tokens++) lg_sb_str(&l->out, ", ");
  lg_sb_str(&l->out, s);
}

static void put_coord(lister *l, const elem *e, const char *sep) {
  char buf[LAY_MAX_RANK * 24 + 40];
  fmt_coord(&l->w, l->w.planes ? e->plane : -1, e->c, buf, sizeof buf);
  if (sep) {
    lg_sb_str(&l->out, sep);
    lg_sb_str(&l->out, buf);
  } else {
    token(l, buf);
  }
}

static void flush_run(lister *l) {
  if (!l->run) return;
  put_coord(l, &l->first, NULL);
  if (l->run >= 2) put_coord(l, &l->second, NULL);
  if (l->run == 3) put_coord(l, &l->last, NULL);
  if (l->run >= 4) put_coord(l, &l->last, " ... ");
  l->run = 0;
}

static void flush_pads(lister *l) {
  if (!l->pads) return;
  char buf[64];
  snprintf(buf, sizeof buf, "%s x%" PRIu64,
           l->pad_kind == EL_PAD ? "pad" : "hole", l->pads);
  token(l, buf);
  l->pads = 0;
}

/* Does e continue the current run (one dimension steps by +1)? */
static int continues(const lister *l, const elem *e) {
  if (!l->run || l->pads || e->plane != l->last.plane) return 0;
  int dim = -1;
  for (int i = 0; i < l->w.rank; i++) {
    if (e->c[i] == l->last.c[i]) continue;
    if (dim >= 0 || e->c[i] != l->last.c[i] + 1) return 0;
    dim = i;
  }
  return dim >= 0 && (l->run_dim < 0 || dim == l->run_dim) ? dim + 1 : 0;
}

static void add(lister *l, const elem *e) {
  if (e->kind == EL_DATA) {
    int d = continues(l, e);
    if (d) {
      l->run_dim = d - 1;
      if (l->run == 1) l->second = *e;
      l->last = *e;
      l->run++;
      return;
    }
    flush_run(l);
    flush_pads(l);
    if (l->line_tokens) {
      lg_sb_str(&l->out, "\n");
      l->line_tokens = 0;
    }
    l->run = 1;
    l->run_dim = -1;
    l->first = l->last = *e;
    return;
  }
  flush_run(l);
  if (l->pads && l->pad_kind != e->kind) flush_pads(l);
  l->pad_kind = e->kind;
  l->pads++;
}

char *li_listing(const lay_plan *p, size_t limit_elems) {
  lister l;
  memset(&l, 0, sizeof l);
  if (!p || walker_init(&l.w, p)) return NULL;
  uint64_t n = l.w.total;
  if (limit_elems && n > (uint64_t)limit_elems) n = limit_elems;
  for (uint64_t k = 0; k < n; k++) {
    elem e;
    if (get(&l.w, k, &e)) {
      free(l.out.s);
      return NULL;
    }
    add(&l, &e);
  }
  flush_run(&l);
  flush_pads(&l);
  if (l.line_tokens) lg_sb_str(&l.out, "\n");
  if (n < l.w.total) lg_sb_str(&l.out, "...\n");
  return lg_sb_take(&l.out);
}

/* ---- Matching a pasted listing ---------------------------------------------- */

enum { T_COORD, T_SKIP, T_PAD, T_HOLE };

typedef struct tok {
  int kind;                /* T_COORD, T_SKIP, T_PAD or T_HOLE */
  int n;                   /* T_COORD: values; T_PAD/T_HOLE: unused */
  int plane;               /* T_COORD: required plane, -1 = any */
  uint64_t count;          /* T_PAD/T_HOLE: elements */
  int64_t c[LAY_MAX_RANK]; /* T_COORD: the coordinate */
} tok;

typedef struct toks {
  tok *v;
  size_t n, cap;
} toks;

static int push(toks *t, const tok *x) {
  if (t->n == t->cap) {
    size_t nc = t->cap ? t->cap * 2 : 64;
    tok *nv = realloc(t->v, nc * sizeof *nv);
    if (!nv) return -1;
    t->v = nv;
    t->cap = nc;
  }
  t->v[t->n++] = *x;
  return 0;
}

static int is_sp(char c) { return c == ' ' || c == '\t' || c == '\r'; }
static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Parse "(a, b, c)" at s[*i] (which is '('). Returns 0 and advances *i
** past ')' when it is a tuple of integers; -1 otherwise (nothing moved). */
static int parse_tuple(const char *s, size_t len, size_t *i, tok *t) {
  size_t j = *i + 1;
  t->n = 0;
  for (;;) {
    while (j < len && is_sp(s[j])) j++;
    int neg = 0;
    if (j < len && s[j] == '-') {
      neg = 1;
      j++;
    }
    if (j >= len || !is_digit(s[j])) return -1;
    int64_t v = 0;
    while (j < len && is_digit(s[j])) {
      if (v > (INT64_MAX - 9) / 10) return -1;
      v = v * 10 + (s[j++] - '0');
    }
    if (t->n == LAY_MAX_RANK) return -1;
    t->c[t->n++] = neg ? -v : v;
    while (j < len && is_sp(s[j])) j++;
    if (j < len && s[j] == ',') {
      j++;
      continue;
    }
    if (j < len && s[j] == ')') break;
    return -1;
  }
  *i = j + 1;
  return 0;
}

static int plane_index(const walker *w, const char *s, size_t n) {
  for (int p = 0; p < w->planes; p++) {
    const char *name = li_plane_name(w->p, p);
    if (name && strlen(name) == n && !memcmp(name, s, n)) return p;
  }
  return -1;
}

/* Tokenize `s`; -1 when out of memory. */
static int tokenize(const walker *w, const char *s, size_t len, toks *out) {
  size_t i = 0;
  while (i < len) {
    char c = s[i];
    tok t;
    memset(&t, 0, sizeof t);
    t.plane = -1;
    if (c == '>') {
      while (i < len && s[i] != '\n') i++;
    } else if (c == '.' && i + 2 < len && s[i + 1] == '.' && s[i + 2] == '.') {
      while (i < len && s[i] == '.') i++;
      t.kind = T_SKIP;
      if ((!out->n || out->v[out->n - 1].kind != T_SKIP) && push(out, &t))
        return -1;
    } else if ((unsigned char)c == 0xE2 && i + 2 < len &&
               (unsigned char)s[i + 1] == 0x80 &&
               (unsigned char)s[i + 2] == 0xA6) {
      i += 3;
      t.kind = T_SKIP;
      if ((!out->n || out->v[out->n - 1].kind != T_SKIP) && push(out, &t))
        return -1;
    } else if (c == '(') {
      if (parse_tuple(s, len, &i, &t) == 0) {
        t.kind = T_COORD;
        if (push(out, &t)) return -1;
      } else {
        i++;
      }
    } else if (is_alpha(c)) {
      size_t j = i;
      while (j < len && (is_alpha(s[j]) || is_digit(s[j]))) j++;
      size_t wl = j - i;
      int pl;
      if (j < len && s[j] == '(' && (pl = plane_index(w, s + i, wl)) >= 0 &&
          parse_tuple(s, len, &j, &t) == 0) {
        t.kind = T_COORD;
        t.plane = pl;
        if (push(out, &t)) return -1;
        i = j;
        continue;
      }
      if ((wl == 3 && !memcmp(s + i, "pad", 3)) ||
          (wl == 4 && !memcmp(s + i, "hole", 4))) {
        size_t k = j;
        while (k < len && is_sp(s[k])) k++;
        if (k + 1 < len && s[k] == 'x' && is_digit(s[k + 1])) {
          uint64_t v = 0;
          k++;
          while (k < len && is_digit(s[k]) && v < UINT64_MAX / 10 - 9)
            v = v * 10 + (uint64_t)(s[k++] - '0');
          if (v > 0 && !(k < len && (is_alpha(s[k]) || is_digit(s[k])))) {
            t.kind = wl == 3 ? T_PAD : T_HOLE;
            t.count = v;
            if (push(out, &t)) return -1;
            j = k;
          }
        }
      }
      i = j;
    } else {
      i++;
    }
  }
  return 0;
}

static void fmt_tok(const walker *w, const tok *t, char *buf, size_t cap) {
  if (t->kind == T_COORD) {
    walker tw = *w;
    tw.rank = t->n;
    fmt_coord(&tw, t->plane, t->c, buf, cap);
  } else if (t->kind == T_SKIP) {
    snprintf(buf, cap, "...");
  } else {
    snprintf(buf, cap, "%s x%" PRIu64, t->kind == T_PAD ? "pad" : "hole",
             t->count);
  }
}

static void fmt_elem(const walker *w, const elem *e, char *buf, size_t cap) {
  if (e->kind == EL_HOLE) {
    snprintf(buf, cap, "hole");
    return;
  }
  size_t n = 0;
  if (e->kind == EL_PAD) n = (size_t)snprintf(buf, cap, "pad ");
  if (n < cap)
    fmt_coord(w, w->planes && e->kind == EL_DATA ? e->plane : -1, e->c,
              buf + n, cap - n);
}

static int coord_ok(const walker *w, const tok *t, const elem *e) {
  if (e->kind == EL_HOLE || t->n != w->rank) return 0;
  if (t->plane >= 0 && (e->kind != EL_DATA || e->plane != t->plane)) return 0;
  for (int i = 0; i < w->rank; i++)
    if (t->c[i] != e->c[i]) return 0;
  return 1;
}

typedef struct matcher {
  walker w;
  char *why;
  size_t whycap;
} matcher;

static void whyf(matcher *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void whyf(matcher *m, const char *fmt, ...) {
  if (!m->why || !m->whycap) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->why, m->whycap, fmt, ap);
  va_end(ap);
}

/* "element 31 (byte 31): expected X, found Y" for element k. */
static void mismatch(matcher *m, const tok *t, uint64_t k, const elem *e) {
  char a[LAY_MAX_RANK * 24 + 40], b[LAY_MAX_RANK * 24 + 48];
  fmt_tok(&m->w, t, a, sizeof a);
  if (e) fmt_elem(&m->w, e, b, sizeof b);
  else snprintf(b, sizeof b, "the end of the buffer");
  whyf(m, "element %" PRIu64 " (byte %" PRIu64 "): expected %s, found %s", k,
       k * m->w.esize, a, b);
}

static void not_found(matcher *m, const tok *t, uint64_t k) {
  char a[LAY_MAX_RANK * 24 + 40];
  fmt_tok(&m->w, t, a, sizeof a);
  whyf(m, "expected %s at or after element %" PRIu64 " (byte %" PRIu64
       "), not found before the end of the buffer", a, k, k * m->w.esize);
}

/* Match token t at element *k (or, with `search`, at the first place at or
** after it); advances *k past it. 0 on success. */
static int match_tok(matcher *m, const tok *t, int search, uint64_t *k) {
  const walker *w = &m->w;
  elem e;
  if (t->kind == T_COORD) {
    for (uint64_t j = *k; j < w->total; j++) {
      if (get(w, j, &e)) break;
      if (coord_ok(w, t, &e)) {
        *k = j + 1;
        return 0;
      }
      if (!search) {
        mismatch(m, t, j, &e);
        return -1;
      }
    }
    if (search) not_found(m, t, *k);
    else mismatch(m, t, *k, NULL);
    return -1;
  }
  int want = t->kind == T_PAD ? EL_PAD : EL_HOLE;
  uint64_t start = *k, have = 0;
  for (uint64_t j = *k; j < w->total; j++) {
    if (get(w, j, &e)) break;
    if (e.kind == want) {
      if (!have) start = j;
      if (++have == t->count) {
        *k = j + 1;
        return 0;
      }
      continue;
    }
    if (!search) {
      mismatch(m, t, j, &e);
      return -1;
    }
    have = 0;
  }
  if (search) not_found(m, t, *k);
  else mismatch(m, t, start + have, NULL);
  return -1;
}

int li_listing_match(const lay_plan *p, const char *expected, size_t len,
                     char *why, size_t whycap) {
  matcher m;
  m.why = why;
  m.whycap = whycap;
  if (why && whycap) why[0] = '\0';
  if (!p || walker_init(&m.w, p)) {
    whyf(&m, "the plan cannot be walked");
    return 1;
  }
  toks t = {0};
  if (!expected) len = 0;
  if (tokenize(&m.w, expected ? expected : "", len, &t)) {
    free(t.v);
    whyf(&m, "out of memory");
    return 1;
  }
  int rc = 0, search = 0, seen = 0;
  uint64_t k = 0;
  for (size_t i = 0; i < t.n && !rc; i++) {
    if (t.v[i].kind == T_SKIP) {
      search = 1;
      continue;
    }
    seen = 1;
    if (match_tok(&m, &t.v[i], search, &k)) rc = (int)(i + 1);
    search = 0;
  }
  if (!rc && !seen) {
    whyf(&m, "the expected listing has no coordinates");
    rc = 1;
  }
  free(t.v);
  return rc;
}
