/*
** cli_draw.h: pictures of a layout for the `lay` CLI and REPL.
**
** `lay draw FORMAT --shape S [-o FILE.svg] [--row BYTES] [--color DIM]`
** writes an SVG of the layout buffer in memory order (cli_draw); the same
** writer (cli_draw_svg) serves the REPL's `draw` command. The file also
** holds the terminal colouring of `lay show` (cli_show_print) and small
** argument helpers the REPL shares.
*/
#ifndef CLI_DRAW_H
#define CLI_DRAW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lay.h"

/* Cells in one picture row, at most: wider rows are refused (an error,
** not a silent cut), since past this a row no longer reads on a screen. */
#define CLI_DRAW_MAX_CELLS 64

/* What to draw. Zeroed fields take the defaults. */
typedef struct cli_draw_opts {
  size_t row_bytes;      /* bytes per picture row; 0 = 16. A multiple of
                            the element size, at most CLI_DRAW_MAX_CELLS
                            elements: otherwise cli_draw_svg fails */
  const char *color_dim; /* dimension name ("c") or CPU-side index ("1");
                            NULL = automatic (see cli_draw.c) */
  const char *title;     /* caption above the picture; NULL = none */
  int has_range;         /* draw only the rows holding bytes [from, to) */
  uint64_t from, to;
} cli_draw_opts;

/* The CLI command. argv[0] is "draw"; exit code 0 on success, 1 on an
** error (one line on stderr, no output file left behind). */
int cli_draw(lay_ctx *ctx, int argc, char **argv);

/* Write the picture of plan `p` (a pack or unpack plan) to `path` ("-" or
** NULL: stdout) through a temporary file and a rename. Returns 0 and, in
** `msg`, a one-line summary ("wrote x.svg: 48 cells in 3 rows"); on
** failure returns 1 and the error in `msg`. */
int cli_draw_svg(const lay_plan *p, const char *path, const cli_draw_opts *o,
                 char *msg, size_t cap);

/* 1 when `f` is a terminal, NO_COLOR is unset or empty, and TERM is set
** and not "dumb". */
int cli_color_enabled(FILE *f);

/* Print a memory-order listing (lay_tool_listing's text) to `f`; with `color`,
** coordinate tuples, ellipses and pad words get ANSI colours. */
void cli_show_print(FILE *f, const char *listing, int color);

/* `show`: the memory order of plan `p` (lay_tool_listing, at most `limit`
** elements; 0 = all) printed with cli_show_print. When the limit cuts the
** buffer, the closing "..." says how much is left: "... 1234 more
** elements". Returns 0, or -1 when the listing cannot be made (out of
** memory); nothing is printed then. */
int cli_show_plan(FILE *f, const lay_plan *p, size_t limit, int color);

/* Parse "1,3,224,224", "1x3x224x224" or "[1,3,224,224]" into at most
** `cap` values (each >= `min`); returns the count, -1 on a syntax error or
** an out-of-range value. */
int cli_parse_list(const char *s, int64_t *out, int cap, int64_t min);

#endif /* CLI_DRAW_H */
