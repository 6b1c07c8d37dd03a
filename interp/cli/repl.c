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
#include "repl_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <editline/readline.h>

#include "cli_draw.h"
#include "lay_tools.h"

#define MAX_WORDS 16
#define MAX_DEF (1u << 20) /* bytes in one definition typed at the prompt */
#define HISTORY_MAX 1000   /* entries kept in the history */
#define REPL_FILE "<repl>" /* the file name of definitions typed here */


/* readline's callbacks take no user pointer: the context to complete
** names from. */
static lay_ctx *comp_ctx;

/* ---- Output ---------------------------------------------------------------- */

void repl_out_line(void *ud, const char *line) {
  (void)ud;
  printf("%s\n", line);
}

static void no_line(void *ud, const char *line) {
  (void)ud;
  (void)line;
}

/* The script line of an error inside an earlier definition (a template
** planned by a later command): the definition typed in one go whose text,
** as loaded (after "namespace NS" when typed in one), has the error's
** source line at the error's line; 0 when none is. */
static long def_line_of(const repl *r, const lay_error *e) {
  for (size_t i = r->nev; i-- > 0;) {
    const event *ev = &r->ev[i];
    if (ev->kind != EV_DEF || ev->line0 <= 0) continue;
    int k = e->line - (*ev->ns ? 1 : 0); /* the line in the typed text */
    const char *s = ev->text;
    for (int j = 1; s && j < k; j++)
      if ((s = strchr(s, '\n'))) s++;
    if (!s || k < 1) continue;
    size_t n = strcspn(s, "\n");
    if (n == strlen(e->source_line) && !strncmp(s, e->source_line, n))
      return ev->line0 + k - 1;
  }
  return 0;
}

/* In script mode an error says the script's line: a definition's error
** moves to its line of the script ("<stdin>:12:5"); others are prefixed
** with the line of the command ("<stdin>:7: "). */
void repl_print_error(repl *r, const lay_error *e) {
  char buf[4096];
  lay_error c = *e;
  int prefix = 0;
  long at = 0;
  if (!r->tty) {
    if (!strcmp(c.file, REPL_FILE) && r->compiling && c.line > r->def_prefix) {
      snprintf(c.file, sizeof c.file, "<stdin>");
      c.line = (int)(r->def_line0 + (c.line - r->def_prefix - 1));
    } else if (!strcmp(c.file, REPL_FILE) && (at = def_line_of(r, &c)) > 0) {
      snprintf(c.file, sizeof c.file, "<stdin>");
      c.line = (int)at;
    } else if (!c.file[0] || c.line <= 0 || !strcmp(c.file, "<format>") ||
               !strcmp(c.file, REPL_FILE)) {
      prefix = 1;
    }
  }
  lay_error_format(&c, buf, sizeof buf);
  if (prefix) printf("<stdin>:%ld: ", r->entry_line);
  printf("%s\n", buf);
  r->failed = 1;
}

void repl_say_error(repl *r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (!r->tty) printf("<stdin>:%ld: ", r->entry_line);
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
  r->lineno++;
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
      if (s[0] == '*' && s[1] == '/') {
        sc->in_cmt = 0;
        s++;
      }
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
void repl_file_event(repl *r, int kind, const char *path) {
  if (!add_event(r, kind, path, NULL))
    repl_say_error(r, "out of memory: names defined from now on cannot be "
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
    repl_print_error(r, err);
    return DEF_FAILED;
  }
  if (rep < 0) {
    event *e = add_event(r, EV_DEF, text, ns);
    for (size_t i = 0; i < nn; i++) printf("defined %s\n", names[i]);
    if (!e || (*qn && !(e->defname = strdup(qn)))) {
      free_names(names, nn);
      repl_say_error(r, "out of memory: the names just defined cannot be "
                   "redefined");
      return DEF_FAILED;
    }
    e->names = names;
    e->nnames = nn;
    e->line0 = r->def_prefix ? 0 : r->def_line0;
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
    repl_say_error(r, "out of memory");
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
  e->line0 = r->def_prefix ? 0 : r->def_line0;
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
      repl_say_error(r, "the definition is too long");
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
      repl_say_error(r, "the input ended inside a definition");
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
  r->def_line0 = r->entry_line;
  r->def_prefix = 0;
  for (const char *c = t.s; c && *c; c++) r->def_prefix += *c == '\n';
  cli_text_printf(&t, "%s", first);
  scan sc = {0};
  scan_text(&sc, first);
  r->cancel = 0;
  r->compiling = 1; /* its errors are at def_line0 (repl_print_error) */
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
      repl_print_error(r, &err);
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
  r->compiling = 0;
  free(t.s);
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
      repl_say_error(r, "nothing to continue: no layout or transform was defined "
                   "at the prompt before this line");
    }
    return 1;
  }
  remember(r, line);
  char *w[MAX_WORDS];
  int n = repl_split(line, w, MAX_WORDS);
  if (n < 0) {
    repl_say_error(r, "unclosed bracket or quote, or too many words");
    return 1;
  }
  return repl_command(r, n, w);
}

/* ---- Completion ------------------------------------------------------------- */

static const char *const commands[] = {
    "load", "list", "show", "info", "where", "at", "diff", "test", "draw",
    "namespace", "help", "quit", "layout", "transform", "import", "pack",
    "unpack", "convert", NULL};

static char *complete_command(const char *text, int state) {
  static int i;
  static size_t len;
  if (!state) {
    i = 0;
    len = strlen(text);
  }
  while (commands[i]) {
    const char *c = commands[i++];
    if (!strncmp(c, text, len)) return strdup(c);
  }
  return NULL;
}

/* File names starting with `text` ("dir/pre"), folders ending in '/'. */
static char *complete_file(const char *text, int state) {
  static DIR *d;
  static char dir[4096];
  static const char *base;
  static size_t dl, bl;
  if (!state) {
    if (d) closedir(d);
    d = NULL;
    const char *slash = strrchr(text, '/');
    dl = slash ? (size_t)(slash - text) + 1 : 0;
    if (dl >= sizeof dir) return NULL;
    memcpy(dir, text, dl);
    dir[dl] = 0;
    base = text + dl;
    bl = strlen(base);
    d = opendir(dl ? dir : ".");
  }
  if (!d) return NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strncmp(e->d_name, base, bl) || !strcmp(e->d_name, ".") ||
        !strcmp(e->d_name, "..") || (e->d_name[0] == '.' && base[0] != '.'))
      continue;
    size_t n = dl + strlen(e->d_name) + 2;
    char *m = malloc(n);
    if (!m) break;
    snprintf(m, n, "%s%s", dir, e->d_name);
    struct stat sb;
    if (!stat(m, &sb) && S_ISDIR(sb.st_mode)) strcat(m, "/");
    return m;
  }
  closedir(d);
  d = NULL;
  return NULL;
}

static char *complete_name(const char *text, int state) {
  static size_t i, len;
  if (!state) {
    i = 0;
    len = strlen(text);
  }
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
  if (!state) {
    i = 0;
    len = strlen(text);
  }
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
  int is_move = !strcmp(first, "pack") || !strcmp(first, "unpack");
  if (!strcmp(first, "load") || !strcmp(first, "test") ||
      (!strcmp(first, "draw") && word == 3) || (is_move && word >= 3) ||
      (!strcmp(first, "convert") && word >= 4)) {
    /* File names; a folder gets its '/' and no space, so that the next
    ** Tab goes on inside it. (libedit's list: the common prefix first,
    ** then the matches.) */
    char **m = rl_completion_matches(text, complete_file);
    const char *one = !m || !m[0] ? NULL
                      : !m[1] ? m[0]
                      : !m[2] ? m[1]
                              : NULL;
    size_t k = one ? strlen(one) : 0;
    rl_completion_append_character = k && one[k - 1] == '/' ? '\0' : ' ';
    return m;
  }
  rl_completion_append_character = ' ';
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
    repl_file_event(&r, EV_FILE, argv[i]);
  }
  if (r.tty) {
    const char *home = getenv("HOME");
    if (home && *home)
      snprintf(r.hist, sizeof r.hist, "%s/.lay_history", home);
    rl_readline_name = "lay";
    rl_attempted_completion_function = complete;
    /* A path is one word: '/' does not break it. */
    static char breaks[] = " \t\n\"\\'`@$><=;|&{(";
    rl_basic_word_break_characters = breaks;
    rl_completer_word_break_characters = breaks;
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
    r.entry_line = r.lineno;
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
