/*
** repl.c: `lay repl`, an interactive explorer of layouts.
**
** A line is either a command (`help` lists them) or the start of a
** definition (`layout`, `transform`, `test "..."`, `import`), which is read
** on while brackets, a string or a comment are open, or while the line ends
** in an operator (`->`, `|`, `=`, `,`, ...); lines that follow it and start
** with `where`, `|`, `->`, `{` or a clause keyword are part of it too. The
** definition is compiled with lay_ctx_load_string("<repl>", ...); an error
** is printed with its caret and the REPL goes on. `namespace NAME` sets the
** namespace of the definitions that follow.
**
** On a terminal the lines come from libedit's readline (history in
** ~/.lay_history, tab completion of commands and layout names); otherwise
** stdin is read as a script with no prompt or banner, everything (errors
** included) goes to stdout in order, and the exit code says whether every
** line succeeded. Only the public API (lay.h), li_listing and the test
** runner are used.
*/
#define _POSIX_C_SOURCE 200809L

#include "repl.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli_draw.h"
#include "ltest.h"

/* li_listing (h3) may not exist in every tree yet: fall back to a plain
** walk of the buffer when its header is missing. */
#if defined(__has_include)
#if __has_include("listing.h")
#include "listing.h"
#define REPL_HAVE_LISTING 1
#endif
#endif

#define MAX_WORDS 16
#define MAX_DEF (1u << 20) /* bytes in one definition typed at the prompt */
#define HISTORY_MAX 1000
#define SHOW_LIMIT 4096 /* default `show` limit, in elements (0: all) */

typedef struct repl {
  lay_ctx *ctx;
  int tty;        /* interactive: prompt, editing, history */
  char ns[128];   /* current namespace, "" for none */
  char *pending;  /* a line read ahead and not used yet */
  int failed;     /* some line failed (script exit code) */
  int color;      /* ANSI colours in `show` */
  int cancel;     /* Ctrl-C was typed while reading the last line */
} repl;

/* ---- Output ---------------------------------------------------------------- */

static void out_line(void *ud, const char *line) {
  (void)ud;
  printf("%s\n", line);
}

static void print_error(repl *r, const lay_error *e) {
  char buf[4096];
  lay_error_format(e, buf, sizeof buf);
  printf("%s\n", buf);
  r->failed = 1;
}

static void say_error(repl *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say_error(repl *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("error: ");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  r->failed = 1;
}

/* ---- Input ----------------------------------------------------------------- */

/* Ctrl-C at the prompt drops the line being typed instead of ending lay. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* The next line (malloc'd, no newline) or NULL at the end of input. */
static char *read_line(repl *r, const char *prompt) {
  if (r->pending) {
    char *l = r->pending;
    r->pending = NULL;
    return l;
  }
  if (r->tty) {
    interrupted = 0;
    char *l = readline(prompt);
    if (interrupted) { /* Ctrl-C: drop the line (and a definition) */
      free(l);
      printf("\n");
      fflush(stdout);
      r->cancel = 1;
      l = malloc(1);
      if (l) *l = 0;
      return l;
    }
    if (l && *l) add_history(l);
    return l;
  }
  char *l = NULL;
  size_t cap = 0;
  ssize_t n = getline(&l, &cap, stdin);
  if (n < 0) {
    free(l);
    return NULL;
  }
  while (n > 0 && (l[n - 1] == '\n' || l[n - 1] == '\r')) l[--n] = 0;
  return l;
}

/* Is more input already waiting (a paste, or a script)? */
static int input_waiting(repl *r) {
  if (r->pending || !r->tty) return 1;
  struct pollfd pf = {.fd = fileno(stdin), .events = POLLIN};
  return poll(&pf, 1, 0) > 0 && (pf.revents & POLLIN);
}

static const char *skip_ws(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return s;
}

static int word_is(const char *s, const char *w) {
  size_t n = strlen(w);
  return !strncmp(s, w, n) && !isalnum((unsigned char)s[n]) && s[n] != '_' &&
         s[n] != '.';
}

/* Lexical state of a definition typed so far. */
typedef struct scan {
  int depth;    /* open ( [ { and chunked< */
  int in_str;   /* inside "..." */
  int in_cmt;   /* inside a block comment */
  int angle;    /* open chunked< ... > */
} scan;

static void scan_text(scan *sc, const char *s) {
  char prev = 0; /* the previous character */
  const char *prev_word = "";
  size_t prev_len = 0;
  for (; *s; prev = *s, s++) {
    if (sc->in_cmt) {
      if (s[0] == '*' && s[1] == '/') sc->in_cmt = 0, s++;
      continue;
    }
    if (sc->in_str) {
      if (*s == '\\' && s[1]) s++;
      else if (*s == '"') sc->in_str = 0;
      continue;
    }
    if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
      while (s[1] && s[1] != '\n') s++;
      continue;
    }
    if (s[0] == '/' && s[1] == '*') {
      sc->in_cmt = 1;
      s++;
      continue;
    }
    if (isalpha((unsigned char)*s) || *s == '_') {
      prev_word = s;
      while (isalnum((unsigned char)s[1]) || s[1] == '_') s++;
      prev_len = (size_t)(s - prev_word) + 1;
      continue;
    }
    switch (*s) {
    case '"': sc->in_str = 1; break;
    case '(': case '[': case '{': sc->depth++; break;
    case ')': case ']': case '}': if (sc->depth > 0) sc->depth--; break;
    case '<':
      if ((prev_len == 7 && !strncmp(prev_word, "chunked", 7)) ||
          (prev_len == 19 && !strncmp(prev_word, "ChunkedMemoryLayout", 19)) ||
          (prev_len == 16 && !strncmp(prev_word, "FlatMemoryLayout", 16)))
        sc->angle++;
      break;
    case '>':
      if (sc->angle > 0 && prev != '-') sc->angle--;
      break;
    default: break;
    }
    if (!isspace((unsigned char)*s)) prev_len = 0;
  }
}

/* Does the line end in an operator, so that the expression goes on? */
static int ends_in_operator(const char *s) {
  /* Drop a trailing # or // comment (not inside a string: good enough for
  ** a line typed at a prompt). */
  size_t n = strlen(s);
  const char *h = strchr(s, '#');
  if (h && !memchr(s, '"', (size_t)(h - s))) n = (size_t)(h - s);
  const char *c = strstr(s, "//");
  if (c && (size_t)(c - s) < n && !memchr(s, '"', (size_t)(c - s)))
    n = (size_t)(c - s);
  while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
  if (!n) return 0;
  char last = s[n - 1];
  if (n >= 2 && s[n - 2] == '-' && last == '>') return 1;
  return strchr("|=,+-*/%&^~:@(<", last) != NULL ||
         (n >= 2 && (!strncmp(s + n - 2, "<<", 2) || !strncmp(s + n - 2, ">>", 2)));
}

/* Does this line continue the definition above it? */
static int continues(const char *line) {
  const char *s = skip_ws(line);
  static const char *const kw[] = {
      "pad_value", "quantize", "dequantize", "fixed", "affine", "cast", NULL};
  if (!*s) return 0;
  if (*s == '|' || *s == '{' || *s == '=' || !strncmp(s, "->", 2)) return 1;
  if (word_is(s, "where")) { /* `where NAME = ...`, not the command */
    s = skip_ws(s + 5);
    if (!isalpha((unsigned char)*s) && *s != '_') return 0;
    while (isalnum((unsigned char)*s) || *s == '_') s++;
    return *skip_ws(s) == '=';
  }
  for (int i = 0; kw[i]; i++)
    if (word_is(s, kw[i])) return 1;
  return 0;
}

static int is_definition(const char *s) {
  s = skip_ws(s);
  if (word_is(s, "layout") || word_is(s, "transform") || word_is(s, "import"))
    return 1;
  if (word_is(s, "test")) return *skip_ws(s + 4) == '"';
  return 0;
}

/* ---- Definitions -------------------------------------------------------------- */

static int append(char **buf, size_t *len, const char *s) {
  size_t n = strlen(s);
  if (*len + n + 2 > MAX_DEF) return 0;
  char *t = realloc(*buf, *len + n + 2);
  if (!t) return 0;
  *buf = t;
  if (*len) t[(*len)++] = '\n';
  memcpy(t + *len, s, n + 1);
  *len += n;
  return 1;
}

static void compile(repl *r, const char *text) {
  size_t before = lay_ctx_count(r->ctx);
  char *src = NULL;
  size_t len = 0, pre = 0;
  if (r->ns[0]) {
    char head[160];
    snprintf(head, sizeof head, "namespace %s", r->ns);
    if (!append(&src, &len, head)) goto oom;
    pre = 1;
  }
  if (!append(&src, &len, text)) goto oom;
  lay_error err;
  if (lay_ctx_load_string(r->ctx, "<repl>", src, len, &err) != LAY_OK) {
    if (pre && err.line > 1) err.line -= 1;
    print_error(r, &err);
  } else {
    size_t after = lay_ctx_count(r->ctx);
    for (size_t i = before; i < after; i++)
      printf("defined %s\n", lay_ctx_name(r->ctx, i));
  }
  free(src);
  return;
oom:
  free(src);
  say_error(r, "the definition is too long");
}

/* Read the rest of a definition that starts with `first`, then compile. */
static void definition(repl *r, const char *first) {
  r->cancel = 0;
  char *buf = NULL;
  size_t len = 0;
  if (!append(&buf, &len, first)) {
    say_error(r, "out of memory");
    return;
  }
  scan sc = {0};
  scan_text(&sc, first);
  const char *last = first;
  char *lastbuf = NULL;
  for (;;) {
    int open = sc.depth > 0 || sc.in_str || sc.in_cmt || sc.angle > 0 ||
               ends_in_operator(last);
    if (!open && !input_waiting(r)) break;
    char *l = read_line(r, "...> ");
    if (r->cancel) { /* Ctrl-C drops the definition */
      free(l);
      free(buf);
      free(lastbuf);
      return;
    }
    if (!l) {
      if (open) {
        free(buf);
        free(lastbuf);
        say_error(r, "the input ended inside a definition");
        return;
      }
      break;
    }
    if (!open && !continues(l)) {
      r->pending = l;
      break;
    }
    if (!append(&buf, &len, l)) {
      free(l);
      free(buf);
      free(lastbuf);
      say_error(r, "the definition is too long");
      return;
    }
    scan_text(&sc, "\n");
    scan_text(&sc, l);
    free(lastbuf);
    lastbuf = l;
    last = l;
  }
  free(lastbuf);
  compile(r, buf);
  free(buf);
}

/* ---- Commands --------------------------------------------------------------- */

/* Split a command line into words; brackets and quotes keep a word whole
** ("ti.tidl(pad_l=1, pad_r=1)", "[1, 3, 2, 2]"). Returns the count, -1 on
** an unclosed bracket or quote. */
static int split(char *s, char **w, int cap) {
  int n = 0;
  for (;;) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return n;
    if (n == cap) return -1;
    if (*s == '"') {
      w[n++] = ++s;
      while (*s && *s != '"') s++;
      if (!*s) return -1;
      *s++ = 0;
      continue;
    }
    w[n++] = s;
    int depth = 0;
    char *o = s;
    for (; *s && (depth > 0 || !isspace((unsigned char)*s)); s++) {
      if (*s == '(' || *s == '[') depth++;
      if ((*s == ')' || *s == ']') && depth > 0) depth--;
      if (depth > 0 && isspace((unsigned char)*s)) continue; /* drop */
      *o++ = *s;
    }
    if (depth) return -1;
    int end = !*s;
    *o = 0;
    if (end) return n;
    s++;
  }
}

/* Compile FORMAT for SHAPE ("1,3,2,2", optionally ":TYPE"). */
static lay_plan *make_plan(repl *r, const char *format, const char *shape_s) {
  char tmp[256];
  snprintf(tmp, sizeof tmp, "%s", shape_s);
  lay_dtype dt = LAY_DT_NONE;
  char *colon = strchr(tmp, ':');
  if (colon) {
    *colon = 0;
    dt = lay_dtype_parse(colon + 1);
    if (dt == LAY_DT_NONE) {
      say_error(r, "unknown type '%s'", colon + 1);
      return NULL;
    }
  }
  int64_t shape[LAY_MAX_RANK];
  int rank = cli_parse_list(tmp, shape, LAY_MAX_RANK, 1);
  if (rank < 1) {
    say_error(r, "bad shape '%s': expected positive sizes like 1,3,224,224",
              shape_s);
    return NULL;
  }
  lay_plan *p = NULL;
  lay_error err;
  if (lay_plan_create(r->ctx, format, shape, rank, dt, LAY_PACK, &p, &err)) {
    print_error(r, &err);
    return NULL;
  }
  return p;
}

static void print_tuple(const int64_t *c, int n) {
  printf("(");
  for (int i = 0; i < n; i++) printf("%s%lld", i ? "," : "", (long long)c[i]);
  printf(")");
}

static void print_shape(const int64_t *c, int n, const char **names) {
  printf("[");
  for (int i = 0; i < n; i++) {
    if (names && names[i]) printf("%s%s=%lld", i ? ", " : "", names[i],
                                  (long long)c[i]);
    else printf("%s%lld", i ? "," : "", (long long)c[i]);
  }
  printf("]");
}

/* "(0,1,0,1)", "pad (0,3,0,0)", "hole", with " plane K" for byte planes. */
static void print_at(const int64_t *c, int rank, int pad, int plane,
                     int has_planes) {
  if (pad == 2) printf("hole");
  else {
    if (pad) printf("pad ");
    print_tuple(c, rank);
  }
  if (has_planes) printf(" plane %d", plane);
}

static void cmd_help(void) {
  printf(
      "commands:\n"
      "  load FILE                 load a spec file\n"
      "  list [NAMESPACE]          the layouts and transforms defined\n"
      "  show FORMAT SHAPE [N]     memory order in the docs' notation (N elements\n"
      "                            at most, default 4096; 0: all)\n"
      "  info FORMAT SHAPE         shapes, dtypes, bytes and the plan in words\n"
      "  where FORMAT SHAPE COORD  byte offset of a CPU-side coordinate\n"
      "  at FORMAT SHAPE OFFSET    coordinate (or pad) at a byte offset\n"
      "  diff A B SHAPE            where two layouts differ, packing 0,1,2,...\n"
      "  test FILE...              run the test blocks of spec files\n"
      "  draw FORMAT SHAPE FILE.svg [ROW_BYTES [DIM]]  a picture of the buffer\n"
      "  namespace [NAME]          the namespace of the next definitions\n"
      "  help, quit\n"
      "SHAPE is 1,3,2,2 (or 1x3x2x2), optionally with a type: 1,3,2,2:int16.\n"
      "A line starting with layout, transform, test \"...\" or import is a\n"
      "definition; it goes on while brackets are open or a line ends in an\n"
      "operator (->, |, =, ,).\n");
}

static void cmd_list(repl *r, int n, char **w) {
  size_t cnt = lay_ctx_count(r->ctx), shown = 0;
  size_t nl = n > 1 ? strlen(w[1]) : 0;
  for (size_t i = 0; i < cnt; i++) {
    const char *name = lay_ctx_name(r->ctx, i);
    if (!name) continue;
    if (n > 1 && (strncmp(name, w[1], nl) || name[nl] != '.')) continue;
    printf("%s\n", name);
    shown++;
  }
  if (!shown && n > 1) say_error(r, "no layouts in namespace '%s'", w[1]);
}

static void cmd_load(repl *r, const char *path) {
  size_t before = lay_ctx_count(r->ctx);
  lay_error err;
  if (lay_ctx_load_file(r->ctx, path, &err) != LAY_OK) {
    print_error(r, &err);
    return;
  }
  size_t after = lay_ctx_count(r->ctx);
  printf("loaded %s: %zu new name%s\n", path, after - before,
         after - before == 1 ? "" : "s");
}

/* Without li_listing: one line per innermost run, every coordinate. */
#ifndef REPL_HAVE_LISTING
static char *li_listing(const lay_plan *p, size_t limit) {
  size_t es = lay_dtype_size(lay_plan_dst_dtype(p));
  if (!es) es = 1;
  size_t bytes = lay_plan_dst_bytes(p);
  size_t cap = 1 << 16, n = 0;
  char *s = malloc(cap);
  if (!s) return NULL;
  s[0] = 0;
  for (size_t o = 0, k = 0; o < bytes; o += es, k++) {
    if (limit && k >= limit) {
      n += (size_t)snprintf(s + n, cap - n, " ...");
      break;
    }
    int64_t c[LAY_MAX_RANK];
    int pad, plane, rank = lay_plan_cpu_shape(p, c, LAY_MAX_RANK);
    if (lay_plan_at(p, o, c, LAY_MAX_RANK, &pad, &plane, NULL)) break;
    if (n + 200 > cap) {
      char *t = realloc(s, cap *= 2);
      if (!t) break;
      s = t;
    }
    n += (size_t)snprintf(s + n, cap - n, "%s(", k ? ", " : "");
    for (int i = 0; i < rank; i++)
      n += (size_t)snprintf(s + n, cap - n, "%s%lld", i ? "," : "",
                            (long long)c[i]);
    n += (size_t)snprintf(s + n, cap - n, ")");
  }
  snprintf(s + n, cap - n, "\n");
  return s;
}
#endif

static void cmd_show(repl *r, int n, char **w) {
  if (n < 3) {
    say_error(r, "usage: show FORMAT SHAPE [LIMIT]");
    return;
  }
  int64_t limit = SHOW_LIMIT;
  if (n > 3 && cli_parse_list(w[3], &limit, 1, 0) != 1) {
    say_error(r, "bad limit '%s'", w[3]);
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  char *s = li_listing(p, (size_t)limit);
  if (!s) {
    say_error(r, "out of memory");
  } else {
    cli_show_print(stdout, s, r->color);
    if (*s && s[strlen(s) - 1] != '\n') printf("\n");
  }
  free(s);
  lay_plan_free(p);
}

static void cmd_info(repl *r, int n, char **w) {
  if (n != 3) {
    say_error(r, "usage: info FORMAT SHAPE");
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  int64_t shape[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int rank = lay_plan_cpu_shape(p, shape, LAY_MAX_RANK);
  printf("cpu side: ");
  print_shape(shape, rank < LAY_MAX_RANK ? rank : LAY_MAX_RANK, NULL);
  printf(" %s, %zu bytes\n", lay_dtype_name(lay_plan_src_dtype(p)),
         lay_plan_src_bytes(p));
  int nax = lay_plan_hw_shape(p, shape, names, LAY_MAX_AXES);
  printf("layout:   ");
  print_shape(shape, nax < LAY_MAX_AXES ? nax : LAY_MAX_AXES, names);
  printf(" %s, %zu bytes\n", lay_dtype_name(lay_plan_dst_dtype(p)),
         lay_plan_dst_bytes(p));
  char *d = lay_plan_describe(p);
  if (d) {
    printf("%s", d);
    if (*d && d[strlen(d) - 1] != '\n') printf("\n");
  }
  lay_free(d);
  lay_plan_free(p);
}

static void cmd_where(repl *r, int n, char **w) {
  if (n != 4) {
    say_error(r, "usage: where FORMAT SHAPE COORD");
    return;
  }
  int64_t c[LAY_MAX_RANK];
  int rank = cli_parse_list(w[3], c, LAY_MAX_RANK, 0);
  if (rank < 1) {
    say_error(r, "bad coordinate '%s': expected indices like 0,1,0,1", w[3]);
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  uint64_t off;
  lay_error err;
  if (lay_plan_where(p, c, rank, &off, &err)) print_error(r, &err);
  else {
    print_tuple(c, rank);
    printf(" -> %llu\n", (unsigned long long)off);
  }
  lay_plan_free(p);
}

/* Does the layout have byte planes? (A plane index > 0 within the first
** 4096 bytes: planes sit next to each other, at the latest one entry on.) */
static int has_planes(const lay_plan *p) {
  size_t bytes = lay_plan_dst_bytes(p);
  for (size_t o = 0; o < bytes && o < 4096; o++) {
    int64_t c[LAY_MAX_RANK];
    int pad, plane = 0;
    if (lay_plan_at(p, o, c, LAY_MAX_RANK, &pad, &plane, NULL) == LAY_OK &&
        plane > 0)
      return 1;
  }
  return 0;
}

static void cmd_at(repl *r, int n, char **w) {
  if (n != 4) {
    say_error(r, "usage: at FORMAT SHAPE OFFSET");
    return;
  }
  int64_t off;
  if (cli_parse_list(w[3], &off, 1, 0) != 1) {
    say_error(r, "bad offset '%s'", w[3]);
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  int64_t c[LAY_MAX_RANK];
  int pad = 0, plane = 0;
  lay_error err;
  if (lay_plan_at(p, (uint64_t)off, c, LAY_MAX_RANK, &pad, &plane, &err)) {
    print_error(r, &err);
  } else {
    printf("%lld -> ", (long long)off);
    int rank = lay_plan_cpu_shape(p, NULL, 0);
    print_at(c, rank, pad, plane, has_planes(p));
    printf("\n");
  }
  lay_plan_free(p);
}

/* Element i of the iota input: the value i in the element type (integers
** wrap; floats hold i exactly up to 2048). */
static void iota(unsigned char *buf, size_t bytes, lay_dtype t) {
  size_t es = lay_dtype_size(t);
  if (!es) es = 1;
  for (size_t i = 0; i * es < bytes; i++) {
    unsigned char *e = buf + i * es;
    uint32_t u;
    float f = (float)(i % 2048);
    switch (t) {
    case LAY_DT_FP32:
      memcpy(&u, &f, 4);
      break;
    case LAY_DT_BF16:
      memcpy(&u, &f, 4);
      u >>= 16;
      break;
    case LAY_DT_FP16: {
      unsigned v = (unsigned)(i % 2048), ex = 0;
      if (!v) {
        u = 0;
        break;
      }
      while ((v >> ex) > 1) ex++;
      /* v = 1.m * 2^ex: 10 mantissa bits hold every integer below 2048 */
      u = ((ex + 15u) << 10) | (((unsigned)v << (10 - ex)) & 0x3ffu);
      break;
    }
    default:
      u = (uint32_t)i;
    }
    for (size_t b = 0; b < es && b < 4; b++) e[b] = (unsigned char)(u >> (8 * b));
  }
}

static unsigned char *pack_iota(repl *r, const lay_plan *p) {
  size_t sb = lay_plan_src_bytes(p), db = lay_plan_dst_bytes(p);
  unsigned char *src = malloc(sb ? sb : 1), *dst = malloc(db ? db : 1);
  if (!src || !dst) {
    free(src);
    free(dst);
    say_error(r, "out of memory");
    return NULL;
  }
  iota(src, sb, lay_plan_src_dtype(p));
  lay_error err;
  if (lay_plan_run(p, src, sb, dst, db, 1, &err)) {
    print_error(r, &err);
    free(dst);
    dst = NULL;
  }
  free(src);
  return dst;
}

static void cmd_diff(repl *r, int n, char **w) {
  if (n != 4) {
    say_error(r, "usage: diff A B SHAPE");
    return;
  }
  lay_plan *a = make_plan(r, w[1], w[3]);
  if (!a) return;
  lay_plan *b = make_plan(r, w[2], w[3]);
  if (!b) {
    lay_plan_free(a);
    return;
  }
  unsigned char *da = pack_iota(r, a), *db = da ? pack_iota(r, b) : NULL;
  if (da && db) {
    size_t na = lay_plan_dst_bytes(a), nb = lay_plan_dst_bytes(b);
    size_t common = na < nb ? na : nb, ndiff = 0, first = (size_t)-1;
    for (size_t i = 0; i < common; i++)
      if (da[i] != db[i]) {
        if (first == (size_t)-1) first = i;
        ndiff++;
      }
    if (na != nb && first == (size_t)-1) first = common;
    ndiff += (na > nb ? na : nb) - common;
    if (first == (size_t)-1) {
      printf("same: %zu bytes are equal\n", na);
    } else {
      printf("differ at byte %zu: ", first);
      int pa = has_planes(a), pb = has_planes(b);
      int64_t c[LAY_MAX_RANK];
      int pad, plane;
      int rank = lay_plan_cpu_shape(a, NULL, 0);
      if (first < na && !lay_plan_at(a, first, c, LAY_MAX_RANK, &pad, &plane,
                                     NULL))
        print_at(c, rank, pad, plane, pa);
      else
        printf("end of buffer");
      printf(" in %s, ", w[1]);
      rank = lay_plan_cpu_shape(b, NULL, 0);
      if (first < nb && !lay_plan_at(b, first, c, LAY_MAX_RANK, &pad, &plane,
                                     NULL))
        print_at(c, rank, pad, plane, pb);
      else
        printf("end of buffer");
      printf(" in %s\n", w[2]);
      printf("%zu of %zu bytes differ", ndiff, na > nb ? na : nb);
      if (na != nb) printf(" (sizes %zu and %zu)", na, nb);
      printf("\n");
    }
  }
  free(da);
  free(db);
  lay_plan_free(a);
  lay_plan_free(b);
}

static void cmd_test(repl *r, int n, char **w) {
  if (n < 2) {
    say_error(r, "usage: test FILE...");
    return;
  }
  int passed = 0, failed = 0;
  if (li_test_files(r->ctx, w + 1, n - 1, out_line, NULL, &passed, &failed))
    r->failed = 1;
}

static void cmd_draw(repl *r, int n, char **w) {
  if (n < 4 || n > 6) {
    say_error(r, "usage: draw FORMAT SHAPE FILE.svg [ROW_BYTES [DIM]]");
    return;
  }
  cli_draw_opts o = {0};
  if (n > 4) {
    int64_t v;
    if (cli_parse_list(w[4], &v, 1, 1) != 1 || v > CLI_DRAW_MAX_ROW) {
      say_error(r, "bad row width '%s' (1 to 1024 bytes)", w[4]);
      return;
    }
    o.row_bytes = (size_t)v;
  }
  if (n > 5) o.color_dim = w[5];
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  char title[512];
  snprintf(title, sizeof title, "%s on %s", w[1], w[2]);
  o.title = title;
  char msg[1024];
  if (cli_draw_svg(p, w[3], &o, msg, sizeof msg)) say_error(r, "%s", msg);
  else printf("%s\n", msg);
  lay_plan_free(p);
}

/* Run one line. Returns 0 to quit. */
static int run_line(repl *r, char *line) {
  const char *s = skip_ws(line);
  if (!*s || *s == '#') return 1;
  if (is_definition(s)) {
    definition(r, line);
    return 1;
  }
  char *w[MAX_WORDS];
  int n = split(line, w, MAX_WORDS);
  if (n < 0) {
    say_error(r, "unclosed bracket or quote, or too many words");
    return 1;
  }
  const char *c = w[0];
  if (!strcmp(c, "quit") || !strcmp(c, "exit")) return 0;
  if (!strcmp(c, "help") || !strcmp(c, "?")) cmd_help();
  else if (!strcmp(c, "list")) cmd_list(r, n, w);
  else if (!strcmp(c, "load")) {
    if (n != 2) say_error(r, "usage: load FILE");
    else cmd_load(r, w[1]);
  } else if (!strcmp(c, "show")) cmd_show(r, n, w);
  else if (!strcmp(c, "info")) cmd_info(r, n, w);
  else if (!strcmp(c, "where")) cmd_where(r, n, w);
  else if (!strcmp(c, "at")) cmd_at(r, n, w);
  else if (!strcmp(c, "diff")) cmd_diff(r, n, w);
  else if (!strcmp(c, "test")) cmd_test(r, n, w);
  else if (!strcmp(c, "draw")) cmd_draw(r, n, w);
  else if (!strcmp(c, "namespace")) {
    if (n > 2 || (n == 2 && strlen(w[1]) >= sizeof r->ns))
      say_error(r, "usage: namespace [NAME]");
    else snprintf(r->ns, sizeof r->ns, "%s", n == 2 ? w[1] : "");
  } else {
    say_error(r, "unknown command '%s' (try help)", c);
  }
  return 1;
}

/* ---- Completion ------------------------------------------------------------- */

static lay_ctx *comp_ctx; /* readline's callbacks take no user pointer */

static const char *const commands[] = {
    "load", "list", "show", "info", "where", "at", "diff", "test", "draw",
    "namespace", "help", "quit", "layout", "transform", "import", NULL};

static char *complete_command(const char *text, int state) {
  static int i;
  static size_t len;
  if (!state) i = 0, len = strlen(text);
  while (commands[i]) {
    const char *c = commands[i++];
    if (!strncmp(c, text, len)) return strdup(c);
  }
  return NULL;
}

static char *complete_name(const char *text, int state) {
  static size_t i, len;
  if (!state) i = 0, len = strlen(text);
  size_t n = lay_ctx_count(comp_ctx);
  while (i < n) {
    const char *c = lay_ctx_name(comp_ctx, i++);
    if (c && !strncmp(c, text, len)) return strdup(c);
  }
  return NULL;
}

static char **complete(const char *text, int start, int end) {
  (void)end;
  /* Which word is this? Count the words before `start`. */
  int word = 0, inword = 0;
  char first[16] = "";
  size_t fl = 0;
  for (int i = 0; i < start && rl_line_buffer[i]; i++) {
    int sp = isspace((unsigned char)rl_line_buffer[i]);
    if (!sp && !inword) word++;
    if (!sp && word == 1 && fl + 1 < sizeof first) first[fl++] = rl_line_buffer[i];
    inword = !sp;
  }
  first[fl] = 0;
  rl_attempted_completion_over = 1;
  if (word == 0) return rl_completion_matches(text, complete_command);
  if (!strcmp(first, "load") || !strcmp(first, "test") ||
      (!strcmp(first, "draw") && word == 3)) {
    rl_attempted_completion_over = 0; /* file names */
    return NULL;
  }
  if (!strcmp(first, "list")) return NULL;
  return rl_completion_matches(text, complete_name);
}

/* ---- Main loop ---------------------------------------------------------------- */

int cli_repl(lay_ctx *ctx, int argc, char **argv) {
  repl r = {0};
  r.ctx = ctx;
  r.tty = isatty(fileno(stdin)) && isatty(fileno(stdout));
  r.color = cli_color_enabled(stdout);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: lay repl [SPEC.lay...]\n"
             "Explore layouts interactively; `help` at the prompt lists the\n"
             "commands. With stdin not a terminal, runs it as a script.\n");
      return 0;
    }
    if (argv[i][0] == '-') {
      fprintf(stderr, "lay: repl: unknown option '%s'\n", argv[i]);
      fprintf(stderr, "Try 'lay repl --help'\n");
      return 2;
    }
    lay_error err;
    if (lay_ctx_load_file(ctx, argv[i], &err) != LAY_OK) {
      char buf[4096];
      lay_error_format(&err, buf, sizeof buf);
      fprintf(stderr, "%s%s\n", err.line > 0 ? "" : "lay: ", buf);
      return 1;
    }
  }
  char hist[4096] = "";
  if (r.tty) {
    const char *home = getenv("HOME");
    if (home && *home)
      snprintf(hist, sizeof hist, "%s/.lay_history", home);
    rl_readline_name = "lay";
    comp_ctx = ctx;
    rl_attempted_completion_function = complete;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    using_history();
    stifle_history(HISTORY_MAX);
    if (hist[0]) read_history(hist);
    printf("lay %s: explore layouts. Type help for the commands, quit or "
           "Ctrl-D to leave.\n", lay_version_string());
    fflush(stdout);
  }
  for (;;) {
    fflush(stdout);
    r.cancel = 0;
    char *line = read_line(&r, "lay> ");
    if (!line) break;
    int go = run_line(&r, line);
    free(line);
    if (!go) break;
  }
  free(r.pending);
  fflush(stdout);
  if (r.tty) {
    if (hist[0]) write_history(hist);
    printf("\n");
    return 0;
  }
  return r.failed;
}
