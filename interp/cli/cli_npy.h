/*
** cli_npy.h: numpy's .npy files and named shapes on the `lay` command line
** (cli_npy.c). An .npy input of `pack` gives the shape and dtype; an output
** whose name ends in .npy (or any output with --npy) is written as .npy;
** --shape n=1,c=3,h=224,w=224 names the dimensions and is checked against
** the layout's CPU-side order.
*/
#ifndef CLI_NPY_H
#define CLI_NPY_H

#include <stddef.h>
#include <stdint.h>

#include "cli_lay.h"

/* What an .npy header says, and where its data is. */
typedef struct cli_npy {
  int rank;                     /* dimensions of the array (>= 1) */
  int64_t shape[LAY_MAX_RANK];  /* its shape, C order */
  lay_dtype dtype;              /* <f4 fp32, <f2 fp16, |i1 int8, ... */
  size_t data_off;              /* the data's first byte in the file */
  size_t data_len;              /* the data's bytes (numel * itemsize) */
} cli_npy;

/* 1 when `path` names an .npy file (ends in ".npy"). */
int cli_npy_name(const char *path);

/* Parse the .npy file in buf[0..len) named `name` (in messages). 0, or -1
** after printing "lay: NAME: why" (bad magic, unsupported version, a
** malformed header, Fortran order, an unsupported dtype, a shape lay
** cannot take, data of the wrong length). */
int cli_npy_parse(const unsigned char *buf, size_t len, const char *name,
                  cli_npy *out);

/* The .npy header (version 1.0, padded to 64 bytes) of an array of
** `shape` and dtype t (bf16 as <u2) into buf; its length, 0 when cap is
** too small. */
size_t cli_npy_header(const int64_t *shape, int rank, lay_dtype t, char *buf,
                      size_t cap);

/* Write data as an .npy file of `shape` and t to path (as cli_write_all);
** 0, or -1 after printing. */
int cli_npy_write(const char *path, const int64_t *shape, int rank,
                  lay_dtype t, const void *data, size_t len);

/* --shape for `format`: a plain list (cli_shape), or names "n=1,c=3,..."
** that must be the format's CPU-side dimensions in its order. The rank, or
** -1 after printing. */
int cli_npy_shape(lay_ctx *ctx, const char *format, const char *s,
                  int64_t *shape, int cap);

/* The .npy side of pack/unpack/convert (hooks of cli_cmd_move):
** cli_npy_input reads -i's header when it names an .npy file (active
** then), checking --shape and --dtype against the header
** for pack (the header gives them). 0, or -1 after printing. */
typedef struct cli_npy_in {
  int active;            /* -i is an .npy file */
  cli_npy h;             /* its header */
  unsigned char *file;   /* the file's first bytes, its header at least
                            (free it); the data is read from the file */
} cli_npy_in;
int cli_npy_input(const cli_args *a, lay_dir dir, cli_npy_in *in);
/* For pack with an .npy input: the shape and dtype for the plan (the
** header's, checked against --shape and --dtype). rank, or -1 after
** printing. */
int cli_npy_plan_shape(lay_ctx *ctx, const cli_args *a, const cli_npy_in *in,
                       int64_t *shape, lay_dtype *t);
/* An unpack/convert .npy input must hold the plan's source type or raw
** bytes. 0, or -1 after printing. */
int cli_npy_check_src(const cli_args *a, const cli_npy_in *in, lay_dtype src);
/* Whether the output is an .npy file (-o NAME.npy or --npy). */
int cli_npy_output(const cli_args *a);

#endif /* CLI_NPY_H */
