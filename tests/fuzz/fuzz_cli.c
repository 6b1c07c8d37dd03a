/*
** fuzz_cli.c: the `lay` command line's argument parsing against arbitrary
** bytes. The input is split at newlines into a format, a --shape, a
** --dtype, a coordinate / offset and a second format; each goes through
** the CLI's own parsers (cli_shape, cli_coord, cli_u64 in cli_io.c and
** cli_parse_list in cli_draw.c), lay_dtype_parse, and the format
** reference parser behind lay_plan_create / lay_plan_convert (the
** argument list of "ti.tidl(pad_l=1, ...)"). When a plan is made it is
** queried with the coordinate and the offset.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_draw.h"
#include "cli_lay.h"
#include "fuzz.h"

#define NFIELD 5
#define MAX_BYTES (1 << 20)

static lay_ctx *ctx;

static void query(lay_plan *p, const int64_t *c, int nc, uint64_t off) {
  lay_error e;
  uint64_t o;
  lay_status st = lay_plan_where(p, c, nc, &o, &e);
  fz_clean_error(st, &e);
  if (!st) {
    size_t lb = lay_plan_dst_bytes(p) > lay_plan_src_bytes(p)
                    ? lay_plan_dst_bytes(p) : lay_plan_src_bytes(p);
    FZ_CHECK(o < lb, "where %llu beyond %zu", (unsigned long long)o, lb);
  }
  int64_t back[LAY_MAX_RANK];
  int is_pad, plane;
  st = lay_plan_at(p, off, back, LAY_MAX_RANK, &is_pad, &plane, &e);
  fz_clean_error(st, &e);
  int64_t hw[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int na = lay_plan_hw_shape(p, hw, names, LAY_MAX_AXES);
  FZ_CHECK(na >= 0 && na <= LAY_MAX_AXES, "hw rank %d", na);
  char *d = lay_plan_describe(p);
  lay_free(d);
  size_t sb = lay_plan_src_bytes(p), db = lay_plan_dst_bytes(p);
  if (sb <= MAX_BYTES && db <= MAX_BYTES) {
    unsigned char *src = calloc(sb ? sb : 1, 1), *dst = malloc(db ? db : 1);
    if (src && dst) {
      st = lay_plan_run(p, src, sb, dst, db, 2, &e);
      fz_clean_error(st, &e);
    }
    free(src);
    free(dst);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!ctx) {
    lay_error e;
    FZ_CHECK(lay_ctx_new(&ctx, &e) == LAY_OK, "ctx: %s", e.message);
  }
  char *buf = malloc(size + 1);
  if (!buf) return 0;
  memcpy(buf, data, size);
  buf[size] = '\0';
  const char *f[NFIELD];
  char *s = buf;
  for (int i = 0; i < NFIELD; i++) {
    f[i] = s;
    char *nl = strchr(s, '\n');
    if (nl) {
      *nl = '\0';
      s = nl + 1;
    } else {
      s += strlen(s);
    }
  }
  int64_t shape[LAY_MAX_RANK], c[LAY_MAX_RANK], l[LAY_MAX_RANK];
  int rank = cli_shape(f[1], shape, LAY_MAX_RANK);
  FZ_CHECK(rank >= -1 && rank <= LAY_MAX_RANK, "cli_shape %d", rank);
  int nc = cli_coord("--at", f[3], c, LAY_MAX_RANK);
  FZ_CHECK(nc >= -1 && nc <= LAY_MAX_RANK, "cli_coord %d", nc);
  uint64_t off = 0;
  FZ_CHECK(cli_u64("--offset", f[3], &off) >= -1, "cli_u64");
  int nl = cli_parse_list(f[1], l, LAY_MAX_RANK, 1);
  FZ_CHECK(nl >= -1 && nl <= LAY_MAX_RANK, "cli_parse_list %d", nl);
  lay_dtype t = lay_dtype_parse(f[2]);
  FZ_CHECK((int)t >= LAY_DT_NONE && (int)t <= LAY_DT_UINT64, "dtype %d", t);
  if (rank > 0) {
    /* The CLI checked the byte size; keep runs small all the same. */
    lay_plan *p = NULL;
    lay_error e;
    lay_status st = lay_plan_create(ctx, f[0], shape, rank, t, LAY_PACK, &p, &e);
    fz_clean_error(st, &e);
    if (!st) {
      query(p, c, nc > 0 ? nc : 0, off);
      lay_plan_free(p);
    }
    if (*f[4]) {
      st = lay_plan_convert(ctx, f[0], f[4], shape, rank, t, &p, &e);
      fz_clean_error(st, &e);
      if (!st) {
        query(p, c, nc > 0 ? nc : 0, off);
        lay_plan_free(p);
      }
    }
  } else if (*f[0]) {
    /* The format parser alone, with a fixed shape. */
    int64_t s4[4] = {1, 3, 5, 7};
    lay_plan *p = NULL;
    lay_error e;
    lay_status st = lay_plan_create(ctx, f[0], s4, 4, t, LAY_UNPACK, &p, &e);
    fz_clean_error(st, &e);
    lay_plan_free(p);
  }
  free(buf);
  return 0;
}
