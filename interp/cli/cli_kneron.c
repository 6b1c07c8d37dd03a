/*
** cli_kneron.c: `lay kneron` and `lay pack/unpack --kneron` (see
** cli_kneron.h). The descriptor is read with lay.h's lay_kneron_*
** (interp/vendor/kneron.c), compiled into namespace "kp" of a context and
** run with the ordinary plans of lay.h. Errors are one line:
**   lay: tensor.json:3:12: malformed JSON
**   lay: tensor.json: tensor_shape_info.data.stride_npu[2]: ...
*/
#define _POSIX_C_SOURCE 200809L

#include "cli_kneron.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_lay.h"

#define NS "kp" /* the namespace the descriptor's definitions go into */

/* Read and parse the descriptor; NULL after printing. */
static lay_kneron *read_desc(const char *path) {
  unsigned char *buf;
  size_t len;
  lay_error err;
  if (cli_read_all(path, LAY_KNERON_MAX_JSON, &buf, &len)) return NULL;
  lay_kneron *k = NULL;
  if (lay_kneron_parse((const char *)buf, len, path, &k, &err))
    cli_error_line(&err);
  free(buf);
  return k;
}

/* ---- lay kneron FILE ------------------------------------------------------- */

int cli_kneron(int argc, char **argv) {
  const char *file = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1])
      return cli_usage("kneron: unknown option '%s'", argv[i]);
    if (file)
      return cli_usage("kneron: one descriptor at a time ('%s' and '%s')",
                       file, argv[i]);
    file = argv[i];
  }
  if (!file) return cli_usage("kneron: which tensor descriptor (JSON) file?");
  lay_kneron *k = read_desc(file);
  if (!k) return CLI_FAIL;
  int rc = CLI_FAIL;
  lay_ctx *ctx = NULL;
  lay_error err;
  char *text = NULL;
  if (lay_ctx_new(&ctx, &err) || lay_kneron_load(k, ctx, NS, &err)) {
    cli_error_line(&err);
    goto done;
  }
  if (!(text = lay_kneron_spec(k, NS))) {
    cli_fail("out of memory");
    goto done;
  }
  lay_kneron_info inf;
  lay_kneron_info_get(k, &inf);
  printf("%s", text);
  if (inf.shape_version == 2)
    printf("# the SDK's NPU buffer: %llu bytes\n",
           (unsigned long long)inf.npu_bytes);
  rc = CLI_OK;
done:
  free(text);
  lay_ctx_free(ctx);
  lay_kneron_free(k);
  return rc;
}

/* ---- lay pack/unpack --kneron FILE ----------------------------------------- */

int cli_kneron_run(int pack, const char *file, const char *dtype,
                   const char *in_path, const char *out_path, lay_ctx *ctx) {
  if (!file || !*file)
    return cli_usage("--kneron needs a tensor descriptor (JSON) file");
  lay_kneron *k = read_desc(file);
  if (!k) return CLI_FAIL;
  lay_kneron_info inf;
  lay_kneron_info_get(k, &inf);
  int rc = CLI_FAIL, fixed = 0;
  lay_plan *p = NULL;
  lay_error err;
  if (dtype) {
    lay_dtype t = lay_dtype_parse(dtype);
    if (t == inf.fixed_dtype) fixed = 1;
    else if (t != inf.dtype) {
      cli_fail("%s: --dtype %s: the descriptor's tensor is fp32 (through "
               "the fixed point) or %s (the NPU's values)",
               file, dtype, lay_dtype_name(inf.fixed_dtype));
      goto done;
    }
  }
  if (lay_kneron_load(k, ctx, NS, &err)) {
    cli_error_line(&err);
    goto done;
  }
  char ref[512];
  snprintf(ref, sizeof ref, NS ".%s", fixed ? inf.fixed_ref : inf.ref);
  if (lay_plan_create(ctx, ref, inf.shape, inf.rank, LAY_DT_NONE,
                      pack ? LAY_PACK : LAY_UNPACK, &p, &err)) {
    cli_fail("%s: %s", file, err.message);
    goto done;
  }
  /* The size first when it is known, then the move (streamed in slabs
  ** when the layout admits them, cli_stream.c). */
  size_t need = lay_plan_src_bytes(p), len = cli_input_size(in_path);
  cli_part_args pa = {ctx, ref, inf.rank, LAY_DT_NONE,
                      pack ? LAY_PACK : LAY_UNPACK};
  cli_move m = {p, inf.shape, inf.rank, cli_part_create, &pa, 1, in_path, 0,
                out_path, NULL, 0, pack ? "pack" : "unpack"};
  int r = len != SIZE_MAX - 1 && len != need ? -2 : cli_move_run(&m, &len);
  if (r == -2) {
    char sh[200];
    cli_shape_str(inf.shape, inf.rank, sh, sizeof sh);
    if (pack)
      cli_fail("input is %s%zu bytes; %s needs %zu (%s %s)",
               len == SIZE_MAX ? "more than " : "",
               len == SIZE_MAX ? need : len, file, need,
               lay_dtype_name(fixed ? inf.fixed_dtype : inf.dtype), sh);
    else
      cli_fail("input is %s%zu bytes; %s needs %zu (the NPU buffer of %s)",
               len == SIZE_MAX ? "more than " : "",
               len == SIZE_MAX ? need : len, file, need, sh);
  }
  if (r) goto done;
  rc = CLI_OK;
done:
  lay_plan_free(p);
  lay_kneron_free(k);
  return rc;
}

int cli_kneron_cmd(const cli_args *a, const char *cmd, int has_hsi,
                   int has_shape) {
  if (has_hsi) return cli_usage("%s: give --kneron or --hsi, not both", cmd);
  if (a->npos)
    return cli_usage("%s --kneron: unexpected argument '%s'", cmd, a->pos[0]);
  if (has_shape)
    return cli_usage("%s --kneron: the shape comes from the descriptor", cmd);
  lay_ctx *ctx = cli_context(a);
  int rc = ctx ? cli_kneron_run(!strcmp(cmd, "pack"), a->kneron, a->dtype,
                                a->in, a->out, ctx)
               : CLI_FAIL;
  lay_ctx_free(ctx);
  return rc;
}
