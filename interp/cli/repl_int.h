/*
** repl_int.h: what the two halves of `lay repl` share: repl.c (reading
** lines and definitions, the session's events, completion, the main loop)
** and repl_cmds.c (the commands typed at the prompt).
*/
#ifndef REPL_INT_H
#define REPL_INT_H

#include <stddef.h>

#include "lay.h"

#define REPL_SHOW_LIMIT 4096 /* default `show` limit, in elements (0: all) */

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
  long line0;    /* EV_DEF in script mode: the line its text was typed on,
                    when typed in one go (0: not known, or continued) */
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
  long lineno;               /* script mode: lines read so far */
  long entry_line;           /* script mode: the line the entry began on */
  long def_line0;            /* script mode: the line of the typed text of
                                the definition being compiled */
  int def_prefix;            /* lines of an earlier definition it continues */
  int compiling;             /* a definition is being compiled (its errors
                                are at def_line0); else an error inside a
                                definition comes from a later command */
} repl;

/* ---- repl.c ----------------------------------------------------------------- */

/* A library error, positioned when it has a position; marks the line failed. */
void repl_print_error(repl *r, const lay_error *e);
/* "error: MESSAGE"; marks the line failed. */
void repl_say_error(repl *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Record a file the context loaded (EV_FILE or EV_TEST). */
void repl_file_event(repl *r, int kind, const char *path);
/* A test runner line callback that prints the line. */
void repl_out_line(void *ud, const char *line);

/* ---- repl_cmds.c ------------------------------------------------------------ */

/* Split a command line into at most cap words in place; brackets and
** quotes keep a word whole. The count, -1 on an unclosed bracket or quote. */
int repl_split(char *s, char **w, int cap);
/* Run the command w[0] with its n - 1 arguments. Returns 0 to quit. */
int repl_command(repl *r, int n, char **w);

#endif /* REPL_INT_H */
