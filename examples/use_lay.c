/*
** use_lay.c: lay.h end to end, the way an application uses it.
**
**   1. a context with the embedded stdlib, plus a vendor layout of our own
**      loaded from a string (and a spec file, when one is given);
**   2. a pack plan for TI's padded buffer with arguments: its shapes and
**      byte sizes, where one element goes, pack and unpack, round trip;
**   3. a convert plan from that buffer to our own layout, checked against
**      packing our layout directly;
**   4. the errors: a call with a short buffer, and a spec with a mistake.
**
** Build and run from the build folder (CMake builds it too, as use_lay):
**   cc -I../interp ../examples/use_lay.c liblay.a -lcjson -lm -lpthread \
**      -o use_lay
**   ./use_lay [SPEC.lay]          e.g. ./use_lay ../examples/xla_tiled.lay
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

/* A layout of our own: 8 channels per entry, entries of one row padded to
** a multiple of 4 pixels, channel blocks outermost. */
static const char acme_spec[] =
    "namespace acme\n"
    "layout c8w4 (n, c, h, w) -> [n, c/8, h, ceil(w, 4), c%8]\n";

/* Print a library error the way the lay CLI does (file:line:col, the
** source line and a caret when there is a position), and give up. */
static void die(const char *what, const lay_error *err) {
  char buf[2048];
  lay_error_format(err, buf, sizeof buf);
  fprintf(stderr, "use_lay: %s: %s\n", what, buf);
  exit(1);
}

/* Print "[1,3,4,5]", or with names "[n=1, c=3, h=6, w=7]". */
static void print_shape(const int64_t *s, const char **names, int rank) {
  printf("[");
  for (int i = 0; i < rank; i++) {
    if (names)
      printf("%s%s=%" PRId64, i ? ", " : "", names[i], s[i]);
    else
      printf("%s%" PRId64, i ? "," : "", s[i]);
  }
  printf("]");
}

int main(int argc, char **argv) {
  lay_error err;
  lay_ctx *ctx;
  printf("lay %s\n", lay_version_string());

  /* 1. The stdlib, our own layout, and a spec file if one is given. */
  if (lay_ctx_new(&ctx, &err)) die("loading the stdlib", &err);
  if (lay_ctx_load_string(ctx, "acme.lay", acme_spec, strlen(acme_spec), &err))
    die("loading acme.lay", &err);
  if (argc > 1 && lay_ctx_load_file(ctx, argv[1], &err)) die(argv[1], &err);
  printf("layouts known: %zu (the stdlib, acme.c8w4%s)\n", lay_ctx_count(ctx),
         argc > 1 ? " and the spec file" : "");

  /* 2. Pack a 3-channel 4x5 int8 image into TIDL's padded planes. */
  const char *tidl = "ti.tidl(pad_l=1,pad_r=1,pad_t=1,pad_b=1)";
  const int64_t shape[4] = {1, 3, 4, 5};
  int8_t image[60], back[60];
  for (int i = 0; i < 60; i++) image[i] = (int8_t)(i + 1);
  lay_plan *pack, *unpack;
  if (lay_plan_create(ctx, tidl, shape, 4, LAY_DT_INT8, LAY_PACK, &pack,
                      &err) ||
      lay_plan_create(ctx, tidl, shape, 4, LAY_DT_INT8, LAY_UNPACK, &unpack,
                      &err))
    die(tidl, &err);

  int64_t cpu[LAY_MAX_RANK], hw[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int cpu_rank = lay_plan_cpu_shape(pack, cpu, LAY_MAX_RANK);
  int hw_rank = lay_plan_hw_shape(pack, hw, names, LAY_MAX_AXES);
  size_t hw_bytes = lay_plan_dst_bytes(pack);
  printf("%s\n  CPU side ", tidl);
  print_shape(cpu, NULL, cpu_rank);
  printf(" %s, %zu bytes\n  hardware ",
         lay_dtype_name(lay_plan_src_dtype(pack)), lay_plan_src_bytes(pack));
  print_shape(hw, names, hw_rank);
  printf(", %zu bytes\n", hw_bytes);

  const int64_t at[4] = {0, 1, 2, 3};
  uint64_t offset;
  if (lay_plan_where(pack, at, 4, &offset, &err)) die("where", &err);
  printf("  element (0,1,2,3) is byte %" PRIu64 "\n", offset);

  uint8_t *buf = malloc(hw_bytes);
  if (!buf) return 1;
  if (lay_plan_run(pack, image, sizeof image, buf, hw_bytes, 1, &err))
    die("pack", &err);
  printf("  channel 0, row by row (zero border):\n");
  for (int r = 0; r < 6; r++) {
    printf("   ");
    for (int c = 0; c < 7; c++) printf(" %2d", buf[r * 7 + c]);
    printf("\n");
  }
  if (lay_plan_run(unpack, buf, hw_bytes, back, sizeof back, 1, &err))
    die("unpack", &err);
  int same = !memcmp(back, image, sizeof image);
  printf("  unpack gives the image back: %s\n", same ? "yes" : "NO");

  /* 3. Convert the TIDL buffer into acme.c8w4 in one plan, and compare
  **    with packing the image into acme.c8w4 directly. */
  lay_plan *convert, *acme;
  if (lay_plan_convert(ctx, tidl, "acme.c8w4", shape, 4, LAY_DT_INT8, &convert,
                       &err) ||
      lay_plan_create(ctx, "acme.c8w4", shape, 4, LAY_DT_INT8, LAY_PACK, &acme,
                      &err))
    die("acme.c8w4", &err);
  size_t acme_bytes = lay_plan_dst_bytes(acme);
  uint8_t *conv = malloc(acme_bytes), *direct = malloc(acme_bytes);
  if (!conv || !direct) return 1;
  if (lay_plan_run(convert, buf, hw_bytes, conv, acme_bytes, 1, &err) ||
      lay_plan_run(acme, image, sizeof image, direct, acme_bytes, 1, &err))
    die("convert", &err);
  int conv_same = !memcmp(conv, direct, acme_bytes);
  printf("convert %s -> acme.c8w4: %zu bytes, same as packing directly: %s\n",
         tidl, acme_bytes, conv_same ? "yes" : "NO");

  /* 4. Errors. A buffer one byte short fails and writes nothing. */
  lay_status st =
      lay_plan_run(pack, image, sizeof image, buf, hw_bytes - 1, 1, &err);
  printf("short output buffer: %s (%s)\n", lay_status_str(st), err.message);
  int short_ok = st == LAY_E_BUFFER;

  /* A spec with a mistake: the error names file:line:col, with a caret. */
  const char *bad = "namespace oops\nlayout t (n, c) -> [n, c, h]\n";
  st = lay_ctx_load_string(ctx, "oops.lay", bad, strlen(bad), &err);
  char msg[1024];
  lay_error_format(&err, msg, sizeof msg);
  printf("loading oops.lay: %s\n%s\n", lay_status_str(st), msg);
  int bad_ok = st != LAY_OK && err.line == 2;

  free(buf);
  free(conv);
  free(direct);
  lay_plan_free(pack);
  lay_plan_free(unpack);
  lay_plan_free(convert);
  lay_plan_free(acme);
  lay_ctx_free(ctx);
  int ok = same && conv_same && short_ok && bad_ok;
  printf("%s\n", ok ? "all done" : "SOMETHING WENT WRONG");
  return ok ? 0 : 1;
}
