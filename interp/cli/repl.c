/*
** repl.c: `lay repl`, an interactive explorer of layouts.
**
** A line is a command (`help` lists them), the start of a definition
** (`layout`, `transform`, `test "..."`, `import`) or the continuation of
** the last definition. A definition is read on while brackets, a string
** or a comment are open or its last line ends in an operator (`->`, `|`,
** `=`, `,`, ...), and, when more input is already waiting (a paste, a
** script), while the next line starts with a continuation token (`|`,
** `->`, `where NAME =`, `{`, `=`, `pad_value` or a value clause keyword).
** It is then compiled with lay_ctx_load_string("<repl>", ...). When that
** fails at the very end of the text (`layout ml (a, b)` and Enter: the
** rest is still to come), more lines are read at the `...> ` prompt; an
** empty line, or one that starts another definition, gives up and shows
** the error. Other errors are shown with their caret; the REPL goes on.
** `namespace NAME` sets the namespace of the definitions that follow.
**
** Redefinition, as in a Python REPL: a line that starts with a
** continuation token continues the last layout or transform that
** compiled (its text plus the line is compiled again and replaces it:
** "redefined tr"), and typing a layout or transform again under a name
** defined at the prompt replaces it too. Names from the stdlib, LAY_PATH,
** -f, `load`, `test` or an `import` typed here stay fixed (defining one
** again is the library's "already defined" error). A context cannot drop
** a name, so the REPL keeps the session's events (files loaded, tests
** run, definitions typed) and rebuilds its context: a fresh one (stdlib,
** LAY_PATH, -f files), then every event again, the new text in place of
** the replaced definition. When that fails the old context stays.
**
** On a terminal the lines come from libedit's readline: tab completion of
** commands, layout names and (after `list`) namespaces, and a history in
** ~/.lay_history that is appended after every entry, so that a killed
** REPL keeps it; a multi-line definition is one entry, recalled whole.
** Otherwise stdin is read as a script with no prompt or banner,
** everything (errors included) goes to stdout in order, and the exit code
** says whether every line succeeded.
*/
#define _POSIX_C_SOURCE 200809L

#include "cli_lay.h"
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
#include "lay_tools.h"

#define MAX_WORDS 16
#define MAX_DEF (1u << 20) /* bytes in one definition typed at the prompt */
#define HISTORY_MAX 1000   /* entries kept in the history */
#define SHOW_LIMIT 4096    /* default `show` limit, in elements (0: all) */
#define REPL_FILE "<repl>" /* the file name of definitions typed here */

/* What changed the REPL's context, in order; replayed to rebuild it. */
enum { EV_FILE, EV_TEST, EV_DEF };

typedef struct event {
  int kind;      /* EV_FILE (`load`, a file named on the command line),
                    EV_TEST (`test FILE`), EV_DEF (a definition typed) */
  char *text;    /* the path, or the definition as typed */
  char *ns;      /* EV_DEF: the namespace it was typed in, "" for none */
  char *defname; /* EV_DEF: the qualified name of the layout or transform
                    it defines (which may be redefined); NULL otherwise */
  char **names;  /* EV_DEF: every name it defined */
  size_t nnames;
} event;

typedef struct repl {
  lay_ctx *ctx;              /* the context in use */
  lay_ctx *ctx0;             /* the one the caller made (freed there) */
  const char *const *files;  /* the -f files in ctx0, after LAY_PATH */
  int nfiles;                /* how many */
  size_t count0;             /* names in ctx0 before the REPL added any */
  event *ev;                 /* the session's events */
  size_t nev, capev;
  long prev;                 /* the event of the last layout or transform
                                that compiled (continued by `| ...`), -1 */
  int tty;                   /* interactive: prompt, editing, history */
  char ns[128];              /* current namespace, "" for none */
  char *back;                /* a line read ahead and not used yet */
  char *rest;                /* further lines of a recalled history entry */
  int failed;                /* some line failed (script exit code) */
  int color;                 /* ANSI colours in `show` */
  int cancel;                /* Ctrl-C was typed while reading a line */
  char hist[4096];           /* the history file, "" for none */
} repl;

/* readline's callbacks take no user pointer: the context to complete
** names from. */
static lay_ctx *comp_ctx;

/* ---- Output ---------------------------------------------------------------- */

static void out_line(void *ud, const char *line) {
  (void)ud;
  printf("%s\n", line);
}

static void no_line(void *ud, const char *line) {
  (void)ud;
  (void)line;
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

static lay_status set_error(lay_error *err, lay_status code, const char *msg) {
  memset(err, 0, sizeof *err);
  err->code = code;
  snprintf(err->message, sizeof err->message, "%s", msg);
  return code;
}

/* ---- Input ----------------------------------------------------------------- */

/* Ctrl-C at the prompt drops the line being typed instead of ending lay. */
static volatile sig_atomic_t interrupted;

static void on_sigint(int sig) {
  (void)sig;
  interrupted = 1;
}

/* The next line of r->rest (the lines of a recalled multi-line entry
** after the first); NULL when out of memory. */
static char *next_rest(repl *r) {
  char *s = r->rest, *nl = strchr(s, '\n');
  if (!nl) {
    r->rest = NULL;
    return s;
  }
  char *l = strndup(s, (size_t)(nl - s));
  memmove(s, nl + 1, strlen(nl + 1) + 1);
  if (!l) {
    free(s);
    r->rest = NULL;
  }
  return l;
}

/* The next line (malloc'd, no newline) or NULL at the end of input. */
static char *read_line(repl *r, const char *prompt) {
  if (r->back) {
    char *l = r->back;
    r->back = NULL;
    return l;
  }
  if (r->rest) return next_rest(r);
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
    if (l && strchr(l, '\n')) { /* a multi-line entry from the history */
      r->rest = l;
      return next_rest(r);
    }
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

/* Is more input already waiting (a paste, a recalled entry, a script)? */
static int input_waiting(repl *r) {
  if (r->back || r->rest || !r->tty) return 1;
  struct pollfd pf = {.fd = fileno(stdin), .events = POLLIN};
  return poll(&pf, 1, 0) > 0 && (pf.revents & POLLIN);
}

/* ---- History ------------------------------------------------------------- */

/* libedit's history file: a cookie line, then one entry per line with
** blanks, backslashes and bytes outside graphic ASCII escaped (strvis). */
#define HISTORY_COOKIE "_HiStOrY_V2_\n"

/* Read the history file; when it has grown well past HISTORY_MAX entries
** (remember only appends), write back the last HISTORY_MAX. */
static void load_history(repl *r) {
  using_history();
  stifle_history(HISTORY_MAX);
  if (!r->hist[0]) return;
  read_history(r->hist);
  FILE *f = fopen(r->hist, "r");
  if (!f) return;
  size_t lines = 0;
  int c;
  while ((c = getc(f)) != EOF) lines += c == '\n';
  fclose(f);
  if (lines > 2 * HISTORY_MAX) write_history(r->hist);
}

/* Add an entry (a command line, or a whole definition with its newlines)
** to the history and append it to the file at once, so that a REPL that
** is killed keeps it. (libedit's append_history(1, ...) writes the last
** two entries in the version Debian ships, hence our own writer.) */
static void remember(repl *r, const char *entry) {
  const char *s = entry;
  while (isspace((unsigned char)*s)) s++;
  if (!r->tty || !*s) return;
  add_history(entry);
  if (!r->hist[0]) return;
  FILE *f = fopen(r->hist, "a");
  if (!f) return;
  if (fseek(f, 0, SEEK_END) == 0 && ftell(f) == 0) fputs(HISTORY_COOKIE, f);
  for (const unsigned char *u = (const unsigned char *)entry; *u; u++) {
    if (*u == '\\') fputs("\\\\", f);
    else if (*u > ' ' && *u < 0x7f) fputc(*u, f);
    else fprintf(f, "\\%03o", *u);
  }
  fputc('\n', f);
  fclose(f);
}

/* ---- Reading definitions ---------------------------------------------------- */

static const char *skip_ws(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  return s;
}

/* Skip blanks and comments. */
static const char *skip_blank(const char *s) {
  for (;;) {
    s = skip_ws(s);
    if (*s == '#' || (s[0] == '/' && s[1] == '/')) {
      while (*s && *s != '\n') s++;
    } else if (s[0] == '/' && s[1] == '*') {
      const char *e = strstr(s + 2, "*/");
      s = e ? e + 2 : s + strlen(s);
    } else {
      return s;
    }
  }
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

/* Does this line continue the definition above it? (`|`, `->`, `{`, `=`,
** `where NAME = ...` but not the `where` command, `pad_value`, or a value
** clause keyword.) */
static int continues(const char *line) {
  const char *s = skip_ws(line);
  static const char *const kw[] = {
      "pad_value", "quantize", "dequantize", "fixed", "affine", "cast", NULL};
  if (!*s) return 0;
  if (*s == '|' || *s == '{' || *s == '=' || !strncmp(s, "->", 2)) return 1;
  if (word_is(s, "where")) {
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

/* The qualified name a layout or transform definition gives ("mine.t1"),
** into out; "" for anything else (import, test). */
static void defined_name(const char *text, const char *ns, char *out,
                         size_t cap) {
  const char *s = skip_blank(text);
  size_t kw = word_is(s, "layout") ? 6 : word_is(s, "transform") ? 9 : 0;
  out[0] = 0;
  if (!kw) return;
  s = skip_blank(s + kw);
  size_t n = 0;
  while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
  if (n && *ns) snprintf(out, cap, "%s.%.*s", ns, (int)n, s);
  else if (n) snprintf(out, cap, "%.*s", (int)n, s);
}

/* Is line:col of `text` its end, only blanks and comments after it? (An
** error there means the text stopped short: more lines may complete it.) */
static int at_text_end(const char *text, int line, int col) {
  const char *s = text;
  for (int l = 1; l < line; l++) {
    s = strchr(s, '\n');
    if (!s) return 1;
    s++;
  }
  for (int c = 1; c < col && *s && *s != '\n'; c++) s++;
  return !*skip_blank(s);
}

/* ---- The session's events ------------------------------------------------- */

static void free_names(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static event *add_event(repl *r, int kind, const char *text, const char *ns) {
  if (r->nev == r->capev) {
    size_t cap = r->capev ? 2 * r->capev : 16;
    event *v = realloc(r->ev, cap * sizeof *v);
    if (!v) return NULL;
    r->ev = v;
    r->capev = cap;
  }
  event *e = &r->ev[r->nev];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->text = strdup(text);
  e->ns = strdup(ns ? ns : "");
  if (!e->text || !e->ns) {
    free(e->text);
    free(e->ns);
    return NULL;
  }
  r->nev++;
  return e;
}

/* Record a file the context loaded (a failure only loses redefinition
** of later names, so it is reported but not fatal). */
static void file_event(repl *r, int kind, const char *path) {
  if (!add_event(r, kind, path, NULL))
    say_error(r, "out of memory: names defined from now on cannot be "
                 "redefined");
}

/* Load a definition typed in namespace `ns` into ctx; with `names`, its
** new names (malloc'd) into *names and *nn. Error positions are in the
** typed text. */
static lay_status load_def(lay_ctx *ctx, const char *ns, const char *text,
                           char ***names, size_t *nn, lay_error *err) {
  cli_text b = {0};
  if (*ns) cli_text_printf(&b, "namespace %s\n", ns);
  cli_text_printf(&b, "%s", text);
  if (b.oom) {
    free(b.s);
    return set_error(err, LAY_E_NOMEM, "out of memory");
  }
  size_t before = lay_ctx_count(ctx);
  lay_status st = lay_ctx_load_string(ctx, REPL_FILE, b.s ? b.s : "", b.n, err);
  free(b.s);
  if (st) {
    if (*ns && err->line > 1 && !strcmp(err->file, REPL_FILE)) err->line--;
    return st;
  }
  if (!names) return LAY_OK;
  size_t n = lay_ctx_count(ctx) - before;
  char **v = calloc(n ? n : 1, sizeof *v);
  for (size_t i = 0; v && i < n; i++) {
    if (!(v[i] = strdup(lay_ctx_name(ctx, before + i)))) {
      free_names(v, i);
      v = NULL;
    }
  }
  if (!v) return set_error(err, LAY_E_NOMEM, "out of memory");
  *names = v;
  *nn = n;
  return LAY_OK;
}

/* Replay an event into a context being rebuilt. A test file that does not
** load did not load the first time either: its failure is not one. */
static lay_status replay(lay_ctx *c, const event *e, lay_error *err) {
  char *files[1] = {e->text};
  switch (e->kind) {
  case EV_FILE: return lay_ctx_load_file(c, e->text, err);
  case EV_TEST:
    lay_tool_test_files(c, files, 1, no_line, NULL, NULL, NULL);
    return LAY_OK;
  default: return load_def(c, e->ns, e->text, NULL, NULL, err);
  }
}

/* A fresh context like the caller's before the REPL added to it: the
** stdlib, LAY_PATH, the -f files. */
static lay_ctx *new_base(repl *r, lay_error *err) {
  lay_ctx *c = NULL;
  if (lay_ctx_new(&c, err)) return NULL;
  const char *path = getenv("LAY_PATH");
  lay_status st = path && *path ? lay_ctx_load_path(c, path, err) : LAY_OK;
  for (int i = 0; !st && i < r->nfiles; i++)
    st = lay_ctx_load_file(c, r->files[i], err);
  if (!st && lay_ctx_count(c) != r->count0)
    st = set_error(err, LAY_E_NAME,
                   "this session's names from -f files cannot be loaded "
                   "again; give the files to `lay repl FILE...` instead");
  if (st) {
    lay_ctx_free(c);
    return NULL;
  }
  return c;
}

/* The context rebuilt with event `idx` replaced by the definition `text`
** typed in namespace `ns` (its names into *names, *nn). NULL on failure,
** with the error and, in *bad, the event that failed (-1: the base). */
static lay_ctx *rebuild(repl *r, size_t idx, const char *ns, const char *text,
                        char ***names, size_t *nn, lay_error *err,
                        long *bad) {
  *bad = -1;
  lay_ctx *c = new_base(r, err);
  for (size_t i = 0; c && i < r->nev; i++) {
    lay_status st = i == idx ? load_def(c, ns, text, names, nn, err)
                             : replay(c, &r->ev[i], err);
    if (!st) continue;
    *bad = (long)i;
    if (i > idx) free_names(*names, *nn);
    lay_ctx_free(c);
    c = NULL;
  }
  return c;
}

/* The event that defined `qname` at the prompt, -1 when none. */
static long find_def(const repl *r, const char *qname) {
  for (size_t i = 0; *qname && i < r->nev; i++)
    if (r->ev[i].defname && !strcmp(r->ev[i].defname, qname)) return (long)i;
  return -1;
}

static int has_name(char *const *v, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(v[i], name)) return 1;
  return 0;
}

/* Why rebuilding the context for a redefinition of `what` failed at event
** `bad` (not the new text itself). */
static void rebuild_failed(repl *r, const char *what, long bad,
                           const lay_error *err) {
  char buf[4096];
  lay_error_format(err, buf, sizeof buf);
  if (bad < 0) {
    printf("error: cannot redefine %s: %s\n", what, err->message);
  } else {
    const event *e = &r->ev[bad];
    printf("error: cannot redefine %s: %s %s fails with the new text:\n%s\n",
           what, e->kind == EV_DEF ? "the later definition" : "the file",
           e->kind == EV_DEF && e->defname ? e->defname : e->text, buf);
  }
  r->failed = 1;
}

/* ---- Compiling definitions ------------------------------------------------ */

enum { DEF_OK, DEF_FAILED, DEF_AT_END };

/* Compile a definition typed in namespace `ns`: into the context, or, in
** place of event `rep` (>= 0), by a rebuild. Prints what it defined or
** the error, except an error at the very end of the text: that one is
** returned (DEF_AT_END, in err) for the caller to read more lines. */
static int compile_def(repl *r, const char *text, const char *ns, long rep,
                       lay_error *err) {
  char **names = NULL;
  size_t nn = 0;
  long bad = -1;
  lay_ctx *c = NULL;
  lay_status st;
  char qn[256];
  defined_name(text, ns, qn, sizeof qn);
  if (rep < 0) {
    st = load_def(r->ctx, ns, text, &names, &nn, err);
  } else {
    c = rebuild(r, (size_t)rep, ns, text, &names, &nn, err, &bad);
    st = c ? LAY_OK : err->code ? err->code : LAY_E_INTERNAL;
    if (st && bad != rep) {
      rebuild_failed(r, r->ev[rep].defname, bad, err);
      return DEF_FAILED;
    }
  }
  if (st) {
    if (st == LAY_E_SYNTAX && !strcmp(err->file, REPL_FILE) &&
        at_text_end(text, err->line, err->col))
      return DEF_AT_END;
    print_error(r, err);
    return DEF_FAILED;
  }
  if (rep < 0) {
    event *e = add_event(r, EV_DEF, text, ns);
    for (size_t i = 0; i < nn; i++) printf("defined %s\n", names[i]);
    if (!e || (*qn && !(e->defname = strdup(qn)))) {
      free_names(names, nn);
      say_error(r, "out of memory: the names just defined cannot be "
                   "redefined");
      return DEF_FAILED;
    }
    e->names = names;
    e->nnames = nn;
    if (e->defname) r->prev = (long)(r->nev - 1);
    return DEF_OK;
  }
  event *e = &r->ev[rep];
  char *t = strdup(text), *n = strdup(ns);
  if (!t || !n) {
    free(t);
    free(n);
    free_names(names, nn);
    lay_ctx_free(c);
    say_error(r, "out of memory");
    return DEF_FAILED;
  }
  for (size_t i = 0; i < nn; i++)
    printf("%s %s\n", has_name(e->names, e->nnames, names[i]) ? "redefined"
                                                             : "defined",
           names[i]);
  free(e->text);
  free(e->ns);
  free_names(e->names, e->nnames);
  e->text = t;
  e->ns = n;
  e->names = names;
  e->nnames = nn;
  if (r->ctx != r->ctx0) lay_ctx_free(r->ctx);
  r->ctx = comp_ctx = c;
  r->prev = rep;
  return DEF_OK;
}

/* Read the lines that belong to the definition in `t`: while it is open
** (a bracket, string or comment, or a last line ending in an operator),
** and while input is waiting whose next line continues it. Returns 0, 1
** when Ctrl-C dropped it, -1 after an error. */
static int read_rest(repl *r, cli_text *t, scan *sc) {
  for (;;) {
    if (t->oom || t->n > MAX_DEF) {
      say_error(r, "the definition is too long");
      return -1;
    }
    const char *last = strrchr(t->s, '\n');
    last = last ? last + 1 : t->s;
    int open = sc->depth > 0 || sc->in_str || sc->in_cmt || sc->angle > 0 ||
               ends_in_operator(last);
    if (!open && !input_waiting(r)) return 0;
    char *l = read_line(r, "...> ");
    if (r->cancel) {
      free(l);
      return 1;
    }
    if (!l) {
      if (!open) return 0;
      say_error(r, "the input ended inside a definition");
      return -1;
    }
    if (!open && !continues(l)) {
      r->back = l;
      return 0;
    }
    cli_text_printf(t, "%s", "\n");
    cli_text_printf(t, "%s", l);
    scan_text(sc, "\n");
    scan_text(sc, l);
    free(l);
  }
}

/* Read and compile a definition whose first line is `first`; with
** cont >= 0, `first` continues the definition of event `cont`, which the
** result replaces. The lines typed go to the history as one entry. */
static void definition(repl *r, const char *first, long cont) {
  const event *pe = cont >= 0 ? &r->ev[cont] : NULL;
  char ns[sizeof r->ns];
  snprintf(ns, sizeof ns, "%s", pe ? pe->ns : r->ns);
  cli_text t = {0};
  if (pe) {
    cli_text_printf(&t, "%s", pe->text);
    cli_text_printf(&t, "%s", "\n");
  }
  size_t typed = t.n; /* where the lines typed now begin */
  cli_text_printf(&t, "%s", first);
  scan sc = {0};
  scan_text(&sc, first);
  r->cancel = 0;
  for (;;) {
    int st = read_rest(r, &t, &sc);
    if (st > 0) goto cancelled;
    if (st < 0) break;
    char qn[256];
    defined_name(t.s, ns, qn, sizeof qn);
    lay_error err;
    if (compile_def(r, t.s, ns, cont >= 0 ? cont : find_def(r, qn), &err) !=
        DEF_AT_END)
      break;
    /* The text stopped short: the next line goes on with it, unless it is
    ** empty (give up) or starts another definition. */
    char *l = read_line(r, "...> ");
    if (r->cancel) {
      free(l);
      goto cancelled;
    }
    if (!l || !*skip_ws(l) || is_definition(l)) {
      if (l && *skip_ws(l)) r->back = l;
      else free(l);
      print_error(r, &err);
      break;
    }
    cli_text_printf(&t, "%s", "\n");
    cli_text_printf(&t, "%s", l);
    scan_text(&sc, "\n");
    scan_text(&sc, l);
    free(l);
  }
  if (!t.oom) remember(r, t.s + typed);
cancelled:
  free(t.s);
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
      "  diff A B SHAPE            the first byte where A and B hold different\n"
      "                            elements (or pad), and how many bytes differ\n"
      "  test FILE...              run the test blocks of spec files\n"
      "  draw FORMAT SHAPE FILE.svg [ROW_BYTES [DIM]]  a picture of the buffer\n"
      "  namespace [NAME]          the namespace of the next definitions\n"
      "  help, quit\n"
      "SHAPE is 1,3,2,2 (or 1x3x2x2), optionally with a type: 1,3,2,2:int16.\n"
      "A line starting with layout, transform, test \"...\" or import is a\n"
      "definition; it goes on while brackets are open, a line ends in an\n"
      "operator (->, |, =, ,) or the text is not complete yet (at the ...>\n"
      "prompt; an empty line gives up). A line starting with |, ->, {,\n"
      "where NAME =, pad_value or a clause keyword continues the last layout\n"
      "or transform, which is compiled again and replaced; defining a name\n"
      "typed here again replaces it too (not names from files or the stdlib).\n");
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
  file_event(r, EV_FILE, path);
  size_t after = lay_ctx_count(r->ctx);
  printf("loaded %s: %zu new name%s\n", path, after - before,
         after - before == 1 ? "" : "s");
}

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
  if (cli_show_plan(stdout, p, (size_t)limit, r->color))
    say_error(r, "out of memory");
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
    print_at(c, rank, pad, plane, lay_plan_plane_count(p) > 0);
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

/* The layout buffer of plan `p` packed from iota (calloc'd, so that bytes
** a plan leaves alone compare equal); NULL after an error. */
static unsigned char *pack_iota(repl *r, const lay_plan *p) {
  size_t sb = lay_plan_src_bytes(p), db = lay_plan_dst_bytes(p);
  unsigned char *src = malloc(sb ? sb : 1), *dst = calloc(db ? db : 1, 1);
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

/* ---- diff ------------------------------------------------------------------- */

/* What holds a byte of a layout buffer: kinds returned by holder_at. */
enum { H_DATA = 0, H_PAD = 1, H_HOLE = 2, H_END = 3 };

/* One layout's buffer, walked byte by byte in `diff` with one lay_plan_at
** per element (the element last asked about is kept). */
typedef struct holder {
  const lay_plan *p;
  size_t bytes;               /* the buffer's size */
  size_t es;                  /* bytes per element (1 with byte planes) */
  int rank, planes;           /* CPU-side rank; byte planes (0: none) */
  lay_dtype type;             /* the stored element type */
  uint64_t elem;              /* the element described below */
  int kind;                   /* H_DATA, H_PAD or H_HOLE */
  int plane;                  /* its byte plane */
  int64_t c[LAY_MAX_RANK];    /* its coordinate (padded one for a pad) */
} holder;

static void holder_init(holder *h, const lay_plan *p) {
  memset(h, 0, sizeof *h);
  h->p = p;
  h->bytes = lay_plan_layout_bytes(p);
  h->es = lay_plan_layout_elem_bytes(p);
  h->rank = lay_plan_cpu_shape(p, NULL, 0);
  h->planes = lay_plan_plane_count(p);
  h->type = lay_plan_dst_dtype(p);
  h->elem = UINT64_MAX;
}

/* Describe the element that holds byte `o`; returns its kind, H_END past
** the end of the buffer. */
static int holder_at(holder *h, uint64_t o) {
  if (o >= h->bytes) return H_END;
  uint64_t e = o / h->es;
  if (e != h->elem) {
    h->elem = e;
    if (lay_plan_at(h->p, e * h->es, h->c, LAY_MAX_RANK, &h->kind, &h->plane,
                    NULL))
      h->kind = H_HOLE; /* cannot happen inside the buffer */
  }
  return h->kind;
}

/* Do both layouts put the same thing at this byte: the same byte (plane)
** of the same element stored as the same type, or no element (pad or
** hole, whose values are compared apart)? */
static int same_holder(const holder *a, int ka, const holder *b, int kb) {
  if (ka == H_END || kb == H_END) return 0;
  if (ka != H_DATA || kb != H_DATA) return ka != H_DATA && kb != H_DATA;
  if (a->type != b->type || a->es != b->es || a->plane != b->plane ||
      a->rank != b->rank)
    return 0;
  return !memcmp(a->c, b->c, (size_t)a->rank * sizeof a->c[0]);
}

/* "(0,1,0)", "(0,1,0) byte 2", "(0,1,0) plane 1", "pad (0,3,0,0)", "hole",
** with the type in brackets when the two layouts store different types. */
static void print_holder(const holder *h, int kind, uint64_t o, int types) {
  if (kind == H_END) {
    printf("nothing (its buffer ends at %zu bytes)", h->bytes);
    return;
  }
  if (kind == H_HOLE) {
    printf("hole");
    return;
  }
  if (kind == H_PAD) printf("pad ");
  print_tuple(h->c, h->rank);
  if (kind == H_PAD) return;
  if (h->planes) printf(" plane %d", h->plane);
  if (h->es > 1) printf(" byte %llu", (unsigned long long)(o % h->es));
  if (types) printf(" (%s)", lay_dtype_name(h->type));
}

/* Compare two layout buffers byte by byte (va, vb: both packed from the
** same iota input) and report the first difference and the count. */
static void diff_report(const char *an, const char *bn, const lay_plan *pa,
                        const lay_plan *pb, const unsigned char *va,
                        const unsigned char *vb) {
  holder a, b;
  holder_init(&a, pa);
  holder_init(&b, pb);
  holder fa = a, fb = b; /* at the first difference */
  size_t n = a.bytes > b.bytes ? a.bytes : b.bytes, ndiff = 0;
  uint64_t first = 0;
  int fka = 0, fkb = 0, by_value = 0;
  for (uint64_t o = 0; o < n; o++) {
    int ka = holder_at(&a, o), kb = holder_at(&b, o);
    int same = same_holder(&a, ka, &b, kb);
    if (same && va[o] == vb[o]) continue;
    if (!ndiff++) {
      first = o;
      fa = a;
      fb = b;
      fka = ka;
      fkb = kb;
      by_value = same;
    }
  }
  if (!ndiff) {
    printf("same: all %zu bytes hold the same elements and pads\n", n);
    return;
  }
  int types = a.type != b.type;
  printf("first difference at byte %llu: ", (unsigned long long)first);
  int alike = by_value && fka == fkb &&
              (fka == H_HOLE || !memcmp(fa.c, fb.c, sizeof fa.c));
  if (alike) {
    printf("both have ");
    print_holder(&fa, fka, first, types);
  } else {
    printf("%s has ", an);
    print_holder(&fa, fka, first, types);
    printf(", %s has ", bn);
    print_holder(&fb, fkb, first, types);
  }
  if (by_value)
    printf("%s %s writes 0x%02x and %s 0x%02x (packing 0,1,2,...)",
           alike ? ", but" : ";", an, va[first], bn, vb[first]);
  printf("\n%zu of %zu bytes differ", ndiff, n);
  if (a.bytes != b.bytes) printf(" (sizes %zu and %zu)", a.bytes, b.bytes);
  printf("\n");
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
  unsigned char *va = pack_iota(r, a), *vb = va ? pack_iota(r, b) : NULL;
  if (va && vb) diff_report(w[1], w[2], a, b, va, vb);
  free(va);
  free(vb);
  lay_plan_free(a);
  lay_plan_free(b);
}

static void cmd_test(repl *r, int n, char **w) {
  if (n < 2) {
    say_error(r, "usage: test FILE...");
    return;
  }
  int passed = 0, failed = 0;
  if (lay_tool_test_files(r->ctx, w + 1, n - 1, out_line, NULL, &passed, &failed))
    r->failed = 1;
  for (int i = 1; i < n; i++) file_event(r, EV_TEST, w[i]);
}

static void cmd_draw(repl *r, int n, char **w) {
  if (n < 4 || n > 6) {
    say_error(r, "usage: draw FORMAT SHAPE FILE.svg [ROW_BYTES [DIM]]");
    return;
  }
  cli_draw_opts o = {0};
  if (n > 4) {
    /* A positive count; cli_draw_svg checks it against the elements. */
    int64_t v;
    if (cli_parse_list(w[4], &v, 1, 1) != 1 || v > (int64_t)1 << 30) {
      say_error(r, "bad row width '%s': a positive number of bytes", w[4]);
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
    definition(r, line, -1);
    return 1;
  }
  if (continues(s)) {
    if (r->prev >= 0) {
      definition(r, line, r->prev);
    } else {
      remember(r, line);
      say_error(r, "nothing to continue: no layout or transform was defined "
                   "at the prompt before this line");
    }
    return 1;
  }
  remember(r, line);
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

/* The length of a qualified name's namespace ("amd" of "amd.hcwnc4"), 0
** when it has none. */
static size_t ns_len(const char *name) {
  const char *d = name ? strrchr(name, '.') : NULL;
  return d ? (size_t)(d - name) : 0;
}

/* Namespaces, each once (for `list`). */
static char *complete_namespace(const char *text, int state) {
  static size_t i, len;
  if (!state) i = 0, len = strlen(text);
  size_t n = lay_ctx_count(comp_ctx);
  while (i < n) {
    size_t k = i++;
    const char *c = lay_ctx_name(comp_ctx, k);
    size_t nl = ns_len(c);
    if (!nl || nl < len || strncmp(c, text, len)) continue;
    int seen = 0;
    for (size_t j = 0; j < k && !seen; j++) {
      const char *d = lay_ctx_name(comp_ctx, j);
      seen = ns_len(d) == nl && !strncmp(c, d, nl);
    }
    if (!seen) return strndup(c, nl);
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
  if (!strcmp(first, "list"))
    return word == 1 ? rl_completion_matches(text, complete_namespace) : NULL;
  return rl_completion_matches(text, complete_name);
}

/* ---- Main loop ---------------------------------------------------------------- */

int cli_repl(lay_ctx *ctx, const char *const *files, int nfiles, int argc,
             char **argv) {
  repl r = {0};
  r.ctx = r.ctx0 = comp_ctx = ctx;
  r.files = files;
  r.nfiles = files ? nfiles : 0;
  r.count0 = lay_ctx_count(ctx);
  r.prev = -1;
  r.tty = isatty(fileno(stdin)) && isatty(fileno(stdout));
  r.color = cli_color_enabled(stdout);
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf("usage: lay repl [SPEC.lay...]\n"
             "Explore layouts interactively; `help` at the prompt lists the\n"
             "commands. With stdin not a terminal, runs it as a script.\n");
      goto out;
    }
    if (argv[i][0] == '-') {
      fprintf(stderr, "lay: repl: unknown option '%s'\n", argv[i]);
      fprintf(stderr, "Try 'lay repl --help'\n");
      rc = 2;
      goto out;
    }
    lay_error err;
    if (lay_ctx_load_file(ctx, argv[i], &err) != LAY_OK) {
      char buf[4096];
      lay_error_format(&err, buf, sizeof buf);
      fprintf(stderr, "%s%s\n", err.line > 0 ? "" : "lay: ", buf);
      rc = 1;
      goto out;
    }
    file_event(&r, EV_FILE, argv[i]);
  }
  if (r.tty) {
    const char *home = getenv("HOME");
    if (home && *home)
      snprintf(r.hist, sizeof r.hist, "%s/.lay_history", home);
    rl_readline_name = "lay";
    rl_attempted_completion_function = complete;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    load_history(&r);
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
  fflush(stdout);
  if (r.tty) printf("\n");
  else rc = r.failed;
out:
  free(r.back);
  free(r.rest);
  for (size_t i = 0; i < r.nev; i++) {
    free(r.ev[i].text);
    free(r.ev[i].ns);
    free(r.ev[i].defname);
    free_names(r.ev[i].names, r.ev[i].nnames);
  }
  free(r.ev);
  if (r.ctx != r.ctx0) lay_ctx_free(r.ctx);
  comp_ctx = NULL;
  return rc;
}
