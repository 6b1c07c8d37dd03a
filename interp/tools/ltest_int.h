/*
** ltest_int.h: what the conformance-test runner's two files share
** (internal to the tools room, prefix lt_): the state of a running test
** block, the statements' results, and the helpers of ltest_data.c (failure
** messages, numbers, element encoding, data operands) that the statements
** of ltest.c use.
*/
#ifndef LT_LTEST_INT_H
#define LT_LTEST_INT_H

#include <stddef.h>
#include <stdint.h>

#include "lang.h"
#include "lay.h"

#define LT_WHY 1024          /* room for one failure message */
#define LT_MAX_FILE (64u << 20)  /* largest file("...") read */
#define LT_MAX_CHECK ((uint64_t)1 << 24) /* elements a roundtrip inspects */

/* What a statement returns. */
enum {
  LT_OK = 0,     /* passed (or, dry, well formed) */
  LT_FAIL = -1,  /* failed: r->why says why, r->at where */
  LT_ERRED = 1,  /* a use, load or order failed with r->last_msg; only an
                 ** `error ==` right after it may expect that */
  LT_SKIP = 2    /* dry: nothing to check (the last use failed) */
};

/* The state of one running test block. */
typedef struct lt_run {
  lay_ctx *ctx;          /* the context every test runs in */
  const char *file;      /* the test's file, as the module names it */
  const char *src;       /* that file's text */
  size_t src_len;        /* its length */
  int dry;               /* 1: check operands, compile, never run */
  char *ref;             /* the current `use` reference text, malloc'd */
  int64_t shape[LAY_MAX_RANK]; /* its CPU-side shape */
  int rank;              /* its rank */
  lay_dtype dtype;       /* the type asked for (NONE: the spec's own) */
  lay_plan *pack;        /* pack plan of the current use, or NULL */
  lay_plan *unpack;      /* unpack plan, made on first need */
  int use_failed;        /* 1 when the last use failed */
  const lg_tstmt *prev;  /* the statement before the current one */
  int prev_erred;        /* 1 when that one returned LT_ERRED */
  char last_msg[LT_WHY]; /* the message of the last LT_ERRED */
  uint32_t at;           /* source position of the fault */
  char why[LT_WHY];      /* the failure message */
} lt_run;

/* A constant number: integer or floating. */
typedef struct lt_num {
  int isf;   /* 1: f holds it; 0: i holds it; 2: i holds the bits of a
                uint64 past INT64_MAX (an integer literal, a pad value) */
  int64_t i;
  double f;
} lt_num;

/* Set the failure message (always returns LT_FAIL); lt_fail_at also
** records the source position of the operand at fault. */
int lt_fail(lt_run *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
int lt_fail_at(lt_run *r, uint32_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Record the failure of a use, load or order (returns LT_ERRED). */
int lt_erred(lt_run *r, uint32_t pos, const char *msg);

/* Format one line and hand it to out(ud, line). */
void lt_emitf(void (*out)(void *, const char *), void *ud,
              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Emit a possibly multi-line text one line at a time. */
void lt_emit_lines(void (*out)(void *, const char *), void *ud,
                   const char *text);

/* Free the current use's plans. */
void lt_plans_free(lt_run *r);

/* The source position of byte k of the decoded string literal e (escapes
** take two source bytes). */
uint32_t lt_str_pos(const lt_run *r, const lg_expr *e, size_t k);

/* A constant integer operand (LT_FAIL at e when it is not one). */
int lt_eval_int(lt_run *r, const lg_expr *e, int64_t *out);

/* The integers of a list [..] or of a call's arguments PLANE(..). */
int lt_eval_ints_of(lt_run *r, const lg_list *l, uint32_t pos,
                    int64_t *v, int cap, int *n);

/* A list of integers (a coordinate or a shape). */
int lt_eval_ints(lt_run *r, const lg_expr *e, int64_t *v, int cap,
                 int *n);

/* "(0,1,0,1)". */
void lt_fmt_coord(char *buf, size_t cap, const int64_t *c, int n);

/* "lo(0,1,0,1)" when the plan has byte planes, else "(0,1,0,1)". */
void lt_fmt_plane_coord(const lay_plan *p, int plane, char *buf,
                        size_t cap, const int64_t *c, int n);

/* fp32 -> bf16 / fp16 bits, rounded to nearest even. */
uint16_t lt_f32_to_bf16(float f);
uint16_t lt_f32_to_f16(float f);

/* Store `v` as one element of type t at p (little-endian). Integers must
** fit; floats are rounded to nearest even. */
int lt_put_elem(lt_run *r, lay_dtype t, lt_num v, unsigned char *p);

/* "12 bytes (6 int16 elements)". */
void lt_fmt_size(size_t bytes, lay_dtype t, char *buf, size_t cap);

/* Element i of the default input: i, as the element type holds it
** (integers wrap: int8 holds (int8_t)(i & 0xff)). */
void lt_iota_elem(lay_dtype t, uint64_t i, unsigned char *p);

/* Decode a data operand into bytes of element type t (for lists). */
int lt_data_bytes(lt_run *r, const lg_expr *e, lay_dtype t,
                  unsigned char **out, size_t *len);

/* Compare a produced buffer of n bytes of type t with the expected one,
** element by element; the first difference names the element (see
** fmt_place) and both values. */
int lt_compare(lt_run *r, const char *what, int layout_side, lay_dtype t,
               const unsigned char *exp, const unsigned char *got,
                   size_t n);

#endif /* LT_LTEST_INT_H */
