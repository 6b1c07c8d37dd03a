/*
** cli_lay.h: what the parts of the `lay` command line share.
**
** main.c parses the command line into a cli_args and dispatches;
** cli_cmds.c runs the commands; cli_io.c reads inputs, writes outputs
** through a temporary file and parses shapes and numbers; cli_stream.c
** moves the bytes of pack, unpack and convert, in slabs where it can. Exit codes:
** 0 success, 1 a failure (one line on stderr naming the problem, or a
** positioned spec error), 2 a usage error (unknown command or option, a
** missing argument), with the hint "Try 'lay --help'".
*/
#ifndef CLI_LAY_H
#define CLI_LAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lay.h"

#define CLI_OK 0
#define CLI_FAIL 1
#define CLI_USAGE 2

/* The parsed command line. Strings point into argv. */
typedef struct cli_args {
  const char *cmd;          /* "pack", "show", ... */
  const char **pos;         /* positional arguments after the command */
  int npos;
  const char **files;       /* -f FILE, in order */
  int nfiles;
  const char *shape;        /* --shape */
  const char *dtype;        /* --dtype */
  const char *in, *out;     /* -i, -o */
  const char *limit;        /* --limit */
  const char *at;           /* --at */
  const char *offset;       /* --offset */
  const char *threads;      /* --threads */
  const char *hsi;          /* --hsi (not supported yet) */
  const char *input, *output; /* --input, --output (with --hsi) */
  const char *npy;          /* --npy: write the output as .npy (cli_npy.c) */
  const char *frame, *all;  /* --frame K, --all DIR (with --hsi) */
  const char *kneron;       /* --kneron (cli_kneron.c) */
  const char *tidl;         /* --tidl (io_1.bin, cli_tidl.c) */
  const char *map;          /* --map T=S,... (convert, info FROM TO) */
  int json;                 /* --json: machine-readable output */
  int elements;             /* --elements: where/at in element indexes */
  int force;                /* --force: replace a read-only output */
} cli_args;

/* ---- cli_io.c ---------------------------------------------------------- */

/* "lay: <message>" on stderr (a newline is added). */
void cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* "lay: <message>" and "Try 'lay --help'" on stderr; returns CLI_USAGE. */
int cli_usage(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Print a library error: the positioned form of lay_error_format for an
** error inside a spec file, otherwise one line "lay: message". */
void cli_print_error(const lay_error *err);
/* A library error on one line, for vendor files (no source line to show):
** "lay: FILE:L:C: msg", "lay: FILE: msg" or "lay: msg". */
void cli_error_line(const lay_error *e);
/* The arguments of `lay NAME FILE [--check]` (hsi, tidl): 0 with *file and
** *check set, or the usage error's exit code. `what` names the file in the
** error when it is missing ("flexmlrt-hsi.json file"). */
int cli_file_check_args(const char *name, const char *what, int argc,
                        char **argv, const char **file, int *check);

/* Parse --shape: "1,3,224,224" (or 1x3x224x224). Returns the rank, or -1
** after printing "lay: bad --shape '...': why". */
int cli_shape(const char *s, int64_t *shape, int cap);
/* "1x3x224x224" into buf. */
void cli_shape_str(const int64_t *shape, int rank, char *buf, size_t cap);
/* Parse a coordinate list "0,1,1,0" for `opt`; -1 after printing. */
int cli_coord(const char *opt, const char *s, int64_t *c, int cap);
/* Parse a non-negative integer (decimal or 0x hex); -1 after printing
** "lay: bad OPT 'S': ...". */
int cli_u64(const char *opt, const char *s, uint64_t *v);

/* A growing, malloc'd text (the CLI's own: it sees only lay.h). An
** allocation failure latches `oom`; s is NUL-terminated once anything was
** added. Free s when done. */
typedef struct cli_text {
  char *s;    /* the text, or NULL while empty */
  size_t n;   /* bytes, without the NUL */
  size_t cap; /* bytes allocated */
  int oom;    /* an allocation failed: the text is incomplete */
} cli_text;
void cli_text_printf(cli_text *t, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Read `path` (NULL or "-": stdin) into *buf, when it is at most max
** bytes long. A longer file is not read: *len is its size, *buf NULL; a
** longer stream (a pipe, /dev/zero) is read only to max + 1 bytes: *len is
** SIZE_MAX ("more than max"). 0, or -1 after printing. */
int cli_read_all(const char *path, size_t max, unsigned char **buf,
                 size_t *len);
/* Write buf to `path` (NULL or "-": stdout). A file (or the file a
** symbolic link names) is replaced through a temporary file in its folder,
** renamed over it on success, keeping its permission bits; a device or
** FIFO is written in place. 0, or -1 with the message in msg; a failure
** leaves no file behind and an existing one untouched. */
int cli_write_file(const char *path, const void *buf, size_t len, char *msg,
                   size_t cap);
/* The same piece by piece: cli_out_open (NULL with the message in msg),
** cli_out_write as often as needed, then cli_out_close, which makes the
** output visible (fsync and rename for a file), or cli_out_abort, which
** removes the temporary file and leaves an existing target untouched.
** Every call but abort frees o when it fails too (close) or not (abort):
** after close or abort o is gone; after a failed write, abort it. */
typedef struct cli_out cli_out;
cli_out *cli_out_open(const char *path, char *msg, size_t cap);
int cli_out_write(cli_out *o, const void *buf, size_t len, char *msg,
                  size_t cap);
int cli_out_close(cli_out *o, char *msg, size_t cap);
void cli_out_abort(cli_out *o);
/* Instead of cli_out_write: the whole output (len bytes) as writable
** memory mapped onto the temporary file (its blocks allocated first), so
** that a plan runs straight into the page cache; the mapping lives until
** close or abort. NULL when the output is no temporary file (stdout, a
** device), or the file system cannot (then write as usual). */
void *cli_out_map(cli_out *o, size_t len);
/* 1 when o is a file that cli_out_pwrite may write anywhere in (the
** temporary file), 0 for stdout or a device. */
int cli_out_seekable(const cli_out *o);
/* Write len bytes at byte off of the temporary file. 0, or -1 (msg). */
int cli_out_pwrite(cli_out *o, const void *buf, size_t len, uint64_t off,
                   char *msg, size_t cap);
/* The same, printing the message; 0 or -1. */
int cli_write_all(const char *path, const void *buf, size_t len);
/* --force: cli_write_file replaces a file the user cannot write (its mode
** kept) or one with other hard links (this name gets the new file, the
** other names keep the old one); without it both are refused. The file's
** bytes are fsync'ed before the rename and its folder after it. */
void cli_set_force(int force);
/* --debug-plan: the contexts the CLI makes log every plan's steps to
** stderr (lay_ctx_set_log); LAY_DEBUG_PLAN set and not "0" does too. */
void cli_set_debug_plan(int on);
/* Binary data and a terminal: -1 after "refusing to write binary data to
** a terminal" when `writes` and out (NULL or "-": stdout) is one, or the
** same for reading `in` when `reads`; else 0. */
int cli_binary_tty(const char *in, const char *out, int reads, int writes);

/* ---- cli_cmds.c ---------------------------------------------------------- */

/* Create the context: the stdlib, LAY_PATH folders, then every -f file.
** NULL after printing the error. */
lay_ctx *cli_context(const cli_args *a);
/* The same without the embedded stdlib file `skip` ("stdlib/amd.lay"). */
lay_ctx *cli_context_except(const cli_args *a, const char *skip);

/* A format given inline, '(n, c, h, w) -> [n, c/16, h, w, c%16]' (a
** layout's text from its dimensions on): defined in ctx under a new name,
** written into buf, which is returned; any other format is returned as
** it is; NULL after printing the error (positioned in the text given). */
const char *cli_inline(lay_ctx *ctx, const char *format, char *buf,
                       size_t cap);

int cli_cmd_move(const cli_args *a);  /* pack, unpack, convert */
/* --debug-plan (or LAY_DEBUG_PLAN) is on: the streaming notes too. */
int cli_debug_plan_on(void);

/* ---- cli_stream.c -------------------------------------------------------- */

/* One pack, unpack or convert: plan's src bytes from `in` (after in_off
** bytes, an .npy header) into `out` (after head_len bytes of head). With
** `part`, the plan runs in slabs when it admits them (lay_plan_slabs):
** part(ud, shape) makes the same plan for `shape` (the plan's shape with
** one dimension cut), NULL when it cannot. */
typedef lay_plan *(*cli_part_fn)(void *ud, const int64_t *shape);
typedef struct cli_move {
  const lay_plan *plan;  /* the whole plan */
  const int64_t *shape;  /* its CPU-side shape (source order) */
  int rank;
  cli_part_fn part;      /* NULL: whole buffers */
  void *ud;
  int threads;
  const char *in;        /* NULL or "-": stdin */
  uint64_t in_off;
  const char *out;       /* NULL or "-": stdout */
  const void *head;
  size_t head_len;
  const char *what;      /* "pack", for the progress line */
} cli_move;
/* 0; -1 after printing; -2 when the input is not the plan's src bytes
** long (*got: the bytes it had, SIZE_MAX for more), nothing printed. On
** failure no output file is left and an existing one is untouched (a
** stream on stdout may have received part of it). Shows a progress line
** on stderr when stderr is a terminal and the input is over 256 MB. */
int cli_move_run(const cli_move *m, size_t *got);
/* The same, the plan run `frames` times (>= 1) over consecutive source
** and destination buffers (AMD frames, cli_hsi.c), and the input a
** regular file with `rest` bytes after the data, left unread. */
int cli_move_frames(const cli_move *m, int64_t frames, uint64_t rest,
                    size_t *got);
/* The bytes of input `in` (NULL or "-": stdin) when they can be known
** before reading it: a regular file's size (stdin: what is left of it);
** SIZE_MAX - 1 for a stream, SIZE_MAX for more than size_t holds. */
size_t cli_input_size(const char *in);
/* A cli_part_fn for plans made by lay_plan_create with these arguments. */
typedef struct cli_part_args {
  lay_ctx *ctx;
  const char *ref;
  int rank;
  lay_dtype dtype;
  lay_dir dir;
} cli_part_args;
lay_plan *cli_part_create(void *ud, const int64_t *shape);
int cli_cmd_show(const cli_args *a);
int cli_cmd_info(const cli_args *a);
int cli_cmd_where(const cli_args *a);
int cli_cmd_at(const cli_args *a);
int cli_cmd_check(const cli_args *a);
int cli_cmd_test(const cli_args *a);

/* ---- cli_find.c ---------------------------------------------------------- */

int cli_cmd_list(const cli_args *a);     /* list [NAMESPACE] [--json] */
int cli_cmd_describe(const cli_args *a); /* describe NAME [--json] */

/* "Did you mean": lay.h's lay_suggest (lang/suggest.c), the same for the
** CLI's words as for spec errors. */
typedef lay_suggest cli_suggest;
#define cli_suggest_init lay_suggest_init
#define cli_suggest_add lay_suggest_add
#define cli_suggest_text lay_suggest_text
/* The same over every layout and transform name of ctx. */
void cli_suggest_layout(lay_ctx *ctx, const char *word, char *buf,
                        size_t cap);

/* The same over the element type names (lay's and numpy's). */
void cli_suggest_dtype(const char *word, char *buf, size_t cap);
/* Append a did-you-mean to a library error's message: for an unknown
** layout, the nearest names; for an unknown parameter, the nearest one
** and the layout's parameters. */
void cli_explain_error(lay_ctx *ctx, lay_error *err);

/* s[0..n) as a JSON string, quoted, to f. */
void cli_json_str(FILE *f, const char *s, size_t n);

#endif /* CLI_LAY_H */
