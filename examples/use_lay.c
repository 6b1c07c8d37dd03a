/*
** use_lay.c: lay.h end to end, the way an application uses it.
**
** Packs AMD's RGB example (N=1, C=3, H=2, W=2, int8, NCHW) into HCWNC4
** with the embedded stdlib, prints the packed bytes (one 4-byte entry R, G,
** B, 0 per pixel, as in AMD's table), asks where G[1,0] went, unpacks the
** buffer again and checks that the round trip gives the image back.
**
** Build (from the build tree, or see tests/cli/CMakeLists.txt):
**   cc -I../interp use_lay.c -L. -llay -lcjson -lm -lpthread -o use_lay
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lay.h"

/* Print a library error the way the lay CLI does, and give up. */
static int fail(const char *what, const lay_error *err) {
  char buf[2048];
  lay_error_format(err, buf, sizeof buf);
  fprintf(stderr, "use_lay: %s: %s\n", what, buf);
  return 1;
}

int main(void) {
  /* R, G and B planes of a 2x2 image, row-major (NCHW). */
  const int8_t image[12] = {0x01, 0x02, 0x03, 0x04,  /* R[0,0] .. R[1,1] */
                            0x11, 0x12, 0x13, 0x14,  /* G */
                            0x21, 0x22, 0x23, 0x24}; /* B */
  const int64_t shape[4] = {1, 3, 2, 2};
  lay_error err;
  lay_ctx *ctx = NULL;
  lay_plan *pack = NULL, *unpack = NULL;
  int rc = 1;

  printf("lay %s\n", lay_version_string());
  if (lay_ctx_new(&ctx, &err)) return fail("loading the stdlib", &err);
  if (lay_plan_create(ctx, "amd.hcwnc4", shape, 4, LAY_DT_INT8, LAY_PACK,
                      &pack, &err)) {
    rc = fail("planning the pack", &err);
    goto done;
  }
  if (lay_plan_create(ctx, "amd.hcwnc4", shape, 4, LAY_DT_INT8, LAY_UNPACK,
                      &unpack, &err)) {
    rc = fail("planning the unpack", &err);
    goto done;
  }

  /* The buffer sizes come from the plan: 12 bytes in, 16 bytes out. */
  size_t hw_bytes = lay_plan_dst_bytes(pack);
  unsigned char *hw = malloc(hw_bytes);
  int8_t back[12];
  if (!hw) goto done;
  if (lay_plan_run(pack, image, sizeof image, hw, hw_bytes, 1, &err)) {
    free(hw);
    rc = fail("packing", &err);
    goto done;
  }
  printf("amd.hcwnc4 on 1x3x2x2 int8: %zu bytes\n", hw_bytes);
  for (size_t i = 0; i < hw_bytes; i++)
    printf("%02x%s", hw[i], i % 4 == 3 ? "\n" : " ");

  /* AMD's table: entry (h, w) holds R[h,w], G[h,w], B[h,w], 0. */
  int ok = hw_bytes == 16;
  for (int h = 0; ok && h < 2; h++)
    for (int w = 0; w < 2; w++)
      for (int c = 0; c < 4; c++) {
        unsigned char want =
            c < 3 ? (unsigned char)image[c * 4 + h * 2 + w] : 0;
        if (hw[(h * 2 + w) * 4 + c] != want) ok = 0;
      }
  printf("matches AMD's table: %s\n", ok ? "yes" : "NO");

  /* Where did G[1,0] go, and what is stored at byte 3? */
  const int64_t g10[4] = {0, 1, 1, 0};
  uint64_t off = 0;
  int64_t coord[4];
  int is_pad = 0, plane = 0;
  if (lay_plan_where(pack, g10, 4, &off, &err) ||
      lay_plan_at(pack, 3, coord, 4, &is_pad, &plane, &err)) {
    free(hw);
    rc = fail("asking the plan", &err);
    goto done;
  }
  printf("G[1,0] is byte %" PRIu64 "; byte 3 is %s(%" PRId64 ",%" PRId64
         ",%" PRId64 ",%" PRId64 ")\n",
         off, is_pad ? "pad " : "", coord[0], coord[1], coord[2], coord[3]);
  if (off != 9 || is_pad != 1) ok = 0;

  /* Unpack and compare. */
  if (lay_plan_run(unpack, hw, hw_bytes, back, sizeof back, 1, &err)) {
    free(hw);
    rc = fail("unpacking", &err);
    goto done;
  }
  free(hw);
  int same = !memcmp(back, image, sizeof image);
  printf("round trip: %s\n", same ? "identical" : "DIFFERENT");
  rc = ok && same ? 0 : 1;

done:
  lay_plan_free(pack);
  lay_plan_free(unpack);
  lay_ctx_free(ctx);
  return rc;
}
