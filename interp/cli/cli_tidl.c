/*
** cli_tidl.c: `lay tidl` and `lay pack/unpack --tidl` (see cli_tidl.h).
** The io_1.bin is read with lay.h's lay_tidl_read, its tensors are
** compiled as layouts into namespace "tidl" of a context, and run with the
** ordinary plans. Errors are one line:
**   lay: model_io_1.bin: 1000 bytes is not the size of an ...
**   lay: model_io_1.bin: inputs[0] 'x': inPadL: -1 (a pad must not be ...)
*/
#define _POSIX_C_SOURCE 200809L

#include "cli_tidl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS "tidl" /* the namespace the file's layouts go into */

static const char *side(int output) { return output ? "outputs" : "inputs"; }

static void shape_str(char *b, size_t cap, const int64_t *v, int n) {
  size_t k = (size_t)snprintf(b, cap, "[");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(b + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)v[i]);
  if (k < cap) snprintf(b + k, cap - k, "]");
}

/* Plan tensor (o, i) of t in ctx; NULL after printing. */
static lay_plan *plan_of(const lay_tidl_io *t, const char *file, lay_ctx *ctx,
                         int o, int i, lay_dir dir) {
  lay_tidl_info inf;
  lay_tidl_info_get(t, o, i, &inf);
  char ref[64];
  snprintf(ref, sizeof ref, NS ".%s", inf.def);
  lay_plan *p = NULL;
  lay_error err;
  if (lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank, inf.cpu_dtype, dir,
                      &p, &err)) {
    cli_fail("%s: %s[%d]: %s", file, side(o), i, err.message);
    return NULL;
  }
  return p;
}

/* ---- lay tidl FILE [--check] ------------------------------------------------ */

static int check(const lay_tidl_io *t, const char *file, lay_ctx *ctx) {
  int bad = 0;
  printf("%s: %s\n", file, lay_tidl_version(t));
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < lay_tidl_count(t, o); i++) {
      int fatal = 0;
      for (int k = 0; k < lay_tidl_issue_count(t); k++) {
        const lay_tidl_issue *is = lay_tidl_issue_get(t, k);
        if (is->output != o || is->index != i) continue;
        printf("%s: %s\n", is->fatal ? "inconsistent" : "note", is->text);
        fatal |= is->fatal;
      }
      if (fatal) {
        bad++;
        continue;
      }
      lay_tidl_info inf;
      lay_tidl_info_get(t, o, i, &inf);
      lay_plan *p = plan_of(t, file, ctx, o, i, LAY_PACK);
      if (!p) return -1;
      char a[200];
      shape_str(a, sizeof a, inf.cpu_shape, inf.rank);
      printf("%s[%d]: ok: cpu %s %s -> %s %s, %zu bytes\n", side(o), i,
             lay_dtype_name(inf.cpu_dtype), a, inf.nhwc ? "NHWC" : "NCHW",
             lay_dtype_name(inf.hw_dtype), lay_plan_dst_bytes(p));
      lay_plan_free(p);
    }
  return bad;
}

int cli_tidl(int argc, char **argv) {
  const char *file;
  int want_check, urc = cli_file_check_args("tidl", "io_1.bin file", argc,
                                            argv, &file, &want_check);
  if (urc) return urc;
  lay_error err;
  lay_tidl_io *t = NULL;
  lay_ctx *ctx = NULL;
  int rc = CLI_FAIL, bad = 0;
  if (lay_tidl_read(file, &t, &err) || lay_ctx_new(&ctx, &err) ||
      lay_tidl_load(t, ctx, NS, &err)) {
    cli_print_error(&err);
    goto done;
  }
  if (want_check) {
    bad = check(t, file, ctx);
    fflush(stdout);
    if (bad < 0) goto done;
    if (bad) {
      fprintf(stderr, "lay: %s: %d inconsistent tensor%s\n", file, bad,
              bad == 1 ? "" : "s");
      goto done;
    }
    rc = CLI_OK;
    goto done;
  }
  char *text = lay_tidl_spec(t, NS);
  if (!text) {
    cli_fail("out of memory");
    goto done;
  }
  /* The spec, each usable tensor followed by its buffer sizes. */
  fputs(text, stdout);
  lay_free(text);
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < lay_tidl_count(t, o); i++) {
      if (lay_tidl_tensor_issue(t, o, i)) {
        bad++;
        continue;
      }
      lay_plan *p = plan_of(t, file, ctx, o, i, LAY_PACK);
      if (!p) goto done;
      printf("# %s[%d] buffers: cpu %zu bytes (%s), tidl %zu bytes (%s)\n",
             side(o), i, lay_plan_src_bytes(p),
             lay_dtype_name(lay_plan_src_dtype(p)), lay_plan_dst_bytes(p),
             lay_dtype_name(lay_plan_dst_dtype(p)));
      lay_plan_free(p);
    }
  fflush(stdout);
  if (bad) {
    fprintf(stderr,
            "lay: %s: %d tensor%s inconsistent; see 'lay tidl %s --check'\n",
            file, bad, bad == 1 ? " is" : "s are", file);
    goto done;
  }
  rc = CLI_OK;
done:
  lay_ctx_free(ctx);
  lay_tidl_free(t);
  return rc;
}

/* ---- lay pack/unpack --tidl FILE --input/--output K ----------------------- */

int cli_tidl_move(const cli_args *a, int shape_or_dtype) {
  const char *cmd = a->cmd ? a->cmd : "pack";
  if (strcmp(cmd, "pack") && strcmp(cmd, "unpack"))
    return cli_usage("%s: --tidl is used with pack and unpack", cmd);
  if (a->hsi) return cli_usage("%s: give one of --hsi and --tidl", cmd);
  if (!!a->input == !!a->output)
    return cli_usage("%s --tidl: give one of --input K and --output K", cmd);
  if (a->npos)
    return cli_usage("%s --tidl: unexpected argument '%s'", cmd, a->pos[0]);
  if (shape_or_dtype)
    return cli_usage("%s --tidl: the shape and dtype come from the file",
                     cmd);
  int pack = !strcmp(cmd, "pack"), o = a->output != NULL;
  const char *key = o ? a->output : a->input;
  if (!*key)
    return cli_usage("--tidl needs --input K or --output K (an index or a "
                     "name)");
  lay_error err;
  lay_tidl_io *t = NULL;
  lay_ctx *ctx = NULL;
  lay_plan *p = NULL;
  int rc = CLI_FAIL;
  if (lay_tidl_read(a->tidl, &t, &err)) {
    cli_print_error(&err);
    goto done;
  }
  int idx = lay_tidl_find(t, o, key);
  if (idx < 0) {
    int n = lay_tidl_count(t, o);
    cli_fail("%s: no tensor '%s' in %s (%d tensor%s)", a->tidl, key, side(o),
             n, n == 1 ? "" : "s");
    goto done;
  }
  const lay_tidl_issue *is = lay_tidl_tensor_issue(t, o, idx);
  if (is) {
    cli_fail("%s: %s", a->tidl, is->text);
    goto done;
  }
  if (!(ctx = cli_context(a))) goto done;
  if (lay_tidl_load(t, ctx, NS, &err)) {
    cli_print_error(&err);
    goto done;
  }
  if (!(p = plan_of(t, a->tidl, ctx, o, idx, pack ? LAY_PACK : LAY_UNPACK)))
    goto done;
  /* The size first when it is known, then the move (streamed in slabs
  ** when the layout admits them, cli_stream.c). */
  size_t need = lay_plan_src_bytes(p), len = cli_input_size(a->in);
  lay_tidl_info inf;
  lay_tidl_info_get(t, o, idx, &inf);
  char ref[64];
  snprintf(ref, sizeof ref, NS ".%s", inf.def);
  cli_part_args pa = {ctx, ref, inf.rank, inf.cpu_dtype,
                      pack ? LAY_PACK : LAY_UNPACK};
  cli_move m = {p, inf.cpu_shape, inf.rank, cli_part_create, &pa, 1, a->in,
                0, a->out, NULL, 0, cmd};
  int r = len != SIZE_MAX - 1 && len != need ? -2 : cli_move_run(&m, &len);
  if (r == -2) {
    char sh[200];
    shape_str(sh, sizeof sh, inf.cpu_shape, inf.rank);
    cli_fail("input is %s%zu bytes; %s[%d] needs %zu (%s)",
             len == SIZE_MAX ? "more than " : "",
             len == SIZE_MAX ? need : len, side(o), idx, need,
             pack ? sh : "the TIDL buffer");
  }
  if (r) goto done;
  rc = CLI_OK;
done:
  lay_plan_free(p);
  lay_ctx_free(ctx);
  lay_tidl_free(t);
  return rc;
}
