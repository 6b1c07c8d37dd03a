/*
** hsi_tool.c: a test driver with the `lay` command line of the hsi
** commands, so that tests/hsi runs before (and independently of) the
** wiring in interp/main.c:
**   hsi_tool hsi FILE [--check]
**   hsi_tool export FORMAT --shape S [--dtype T] [--quantize S,Z] [--as W] [-o OUT]
**   hsi_tool pack|unpack --hsi FILE --input K|--output K [-i IN] [-o OUT]
**   hsi_tool pack|unpack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]
** The last form runs a layout directly (to compare an export with it).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_hsi.h"
#include "cli_lay.h"
#include "lay.h"

static int direct(int pack, const char *fmt, const char *shape_s,
                  const char *dtype_s, const char *in, const char *out) {
  int64_t shape[LAY_MAX_RANK];
  int rank = cli_shape(shape_s, shape, LAY_MAX_RANK);
  if (rank < 0) return 1;
  lay_dtype dt = dtype_s ? lay_dtype_parse(dtype_s) : LAY_DT_NONE;
  lay_ctx *ctx = NULL;
  lay_plan *p = NULL;
  lay_error err;
  unsigned char *src = NULL, *dst = NULL;
  size_t len;
  int rc = 1;
  if (lay_ctx_new(&ctx, &err) ||
      lay_plan_create(ctx, fmt, shape, rank, dt, pack ? LAY_PACK : LAY_UNPACK,
                      &p, &err)) {
    cli_print_error(&err);
    goto done;
  }
  if (cli_read_all(in, lay_plan_src_bytes(p), &src, &len) || !src) goto done;
  size_t n = lay_plan_dst_bytes(p);
  dst = malloc(n ? n : 1);
  if (!dst || lay_plan_run(p, src, len, dst, n, 1, &err)) {
    if (dst) cli_print_error(&err);
    goto done;
  }
  rc = cli_write_all(out, dst, n) ? 1 : 0;
done:
  free(src);
  free(dst);
  lay_plan_free(p);
  lay_ctx_free(ctx);
  return rc;
}

int main(int argc, char **argv) {
  if (argc < 2) return cli_usage("hsi_tool: which command?");
  const char *cmd = argv[1];
  if (!strcmp(cmd, "hsi")) return cli_hsi(argc - 1, argv + 1);
  if (!strcmp(cmd, "export")) return cli_export(argc - 1, argv + 1);
  int pack = !strcmp(cmd, "pack");
  if (!pack && strcmp(cmd, "unpack"))
    return cli_usage("hsi_tool: unknown command '%s'", cmd);
  const char *hsi = NULL, *input = NULL, *output = NULL, *in = NULL,
             *out = NULL, *shape = NULL, *dtype = NULL, *fmt = NULL;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = !strcmp(a, "--hsi")      ? &hsi
                        : !strcmp(a, "--input")  ? &input
                        : !strcmp(a, "--output") ? &output
                        : !strcmp(a, "-i")       ? &in
                        : !strcmp(a, "-o")       ? &out
                        : !strcmp(a, "--shape")  ? &shape
                        : !strcmp(a, "--dtype")  ? &dtype
                                                 : NULL;
    if (slot) {
      if (i + 1 >= argc) return cli_usage("%s needs a value", a);
      *slot = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      return cli_usage("unknown option '%s'", a);
    } else {
      fmt = a;
    }
  }
  if (hsi) {
    if (!!input == !!output)
      return cli_usage("--hsi needs one of --input K and --output K");
    return cli_hsi_run(pack, hsi, input ? "input" : "output",
                       input ? input : output, in, out, NULL);
  }
  if (!fmt || !shape) return cli_usage("FORMAT and --shape are required");
  return direct(pack, fmt, shape, dtype, in, out);
}
