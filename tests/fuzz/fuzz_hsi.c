/*
** fuzz_hsi.c: AMD's flexmlrt-hsi.json import (interp/vendor/hsi*.c, lay.h) against
** arbitrary bytes. A report that parses is queried entry by entry, turned
** into spec text, compiled into a context (the generated text must never
** be a syntax error: it is lay's own output), and each small entry is
** planned and run both ways; lay_hsi_check runs when the tensors are small.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hsi.h"

#define MAX_ELEMS 4096
#define MAX_BYTES (1 << 20)

static lay_ctx *base_ctx(void) {
  lay_ctx *c = NULL;
  lay_error e;
  lay_status st = lay_ctx_new(&c, &e);
  FZ_CHECK(st == LAY_OK, "lay_ctx_new: %s", e.message);
  return c;
}

static void run_entry(lay_ctx *ctx, const lay_hsi_info *inf) {
  uint64_t n = 1;
  for (int d = 0; d < inf->rank; d++) {
    if (inf->cpu_shape[d] < 1 || (uint64_t)inf->cpu_shape[d] > MAX_ELEMS)
      return;
    if ((n *= (uint64_t)inf->cpu_shape[d]) > MAX_ELEMS) return;
  }
  char ref[128];
  snprintf(ref, sizeof ref, "hsi.%s", inf->def);
  for (int dir = LAY_PACK; dir <= LAY_UNPACK; dir++) {
    lay_plan *p = NULL;
    lay_error e;
    lay_status st = lay_plan_create(ctx, ref, inf->cpu_shape, inf->rank,
                                    LAY_DT_NONE, (lay_dir)dir, &p, &e);
    fz_clean_error(st, &e);
    if (st) return;
    size_t sb = lay_plan_src_bytes(p), db = lay_plan_dst_bytes(p);
    if (sb <= MAX_BYTES && db <= MAX_BYTES) {
      unsigned char *src = calloc(sb ? sb : 1, 1), *dst = malloc(db ? db : 1);
      if (src && dst) {
        for (size_t i = 0; i < sb; i++) src[i] = (unsigned char)(i * 13 + 5);
        st = lay_plan_run(p, src, sb, dst, db, 1, &e);
        fz_clean_error(st, &e);
      }
      free(src);
      free(dst);
    }
    lay_plan_free(p);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lay_hsi *h = NULL;
  lay_error e;
  lay_status st = lay_hsi_parse((const char *)data, size, "<fuzz>", &h, &e);
  fz_clean_error(st, &e);
  if (st) {
    FZ_CHECK(h == NULL, "report left on error");
    return 0;
  }
  FZ_CHECK(h != NULL, "no report");
  int small = 1;
  for (int out = 0; out <= 1; out++) {
    int n = lay_hsi_count(h, out);
    FZ_CHECK(n >= 0 && n <= LAY_HSI_MAX_TENSORS, "count %d", n);
    for (int i = 0; i < n; i++) {
      lay_hsi_info inf;
      if (lay_hsi_info_get(h, out, i, &inf)) continue;
      FZ_CHECK(inf.rank >= 0 && inf.rank <= LAY_MAX_RANK, "rank %d", inf.rank);
      FZ_CHECK(inf.hw_rank >= 0 && inf.hw_rank <= LAY_MAX_AXES, "hw rank %d",
               inf.hw_rank);
      char key[16];
      snprintf(key, sizeof key, "%d", i);
      FZ_CHECK(lay_hsi_find(h, out, key) == i, "find %d", i);
      if (inf.name) (void)lay_hsi_find(h, out, inf.name);
      if (inf.tensor_name) (void)lay_hsi_find(h, out, inf.tensor_name);
      free(lay_hsi_spec_entry(h, out, i));
      (void)lay_hsi_entry_issue(h, out, i);
      uint64_t el = 1;
      for (int d = 0; d < inf.rank; d++)
        el = inf.cpu_shape[d] > 0 && el <= MAX_ELEMS
                 ? el * (uint64_t)inf.cpu_shape[d] : MAX_ELEMS + 1;
      if (el > MAX_ELEMS) small = 0;
    }
  }
  for (int i = 0; i < lay_hsi_issue_count(h); i++)
    FZ_CHECK(lay_hsi_issue_get(h, i) != NULL, "issue %d", i);
  free(lay_hsi_spec(h, "hsi"));
  free(lay_hsi_spec_header(h, "hsi"));

  lay_ctx *ctx = base_ctx();
  st = lay_hsi_load(h, ctx, "hsi", &e);
  fz_clean_error(st, &e);
  FZ_CHECK(st != LAY_E_SYNTAX, "generated spec does not parse: %s:%d:%d: %s",
           e.file, e.line, e.col, e.message);
  if (st == LAY_OK) {
    for (int out = 0; out <= 1; out++)
      for (int i = 0; i < lay_hsi_count(h, out) && i < 8; i++) {
        lay_hsi_info inf;
        if (!lay_hsi_info_get(h, out, i, &inf) && !lay_hsi_entry_issue(h, out, i))
          run_entry(ctx, &inf);
      }
    if (small) {
      lay_hsi_issue *is = NULL;
      int nis = 0;
      int nf = lay_hsi_check(h, ctx, "hsi", &is, &nis, &e);
      if (nf < 0) fz_clean_error(e.code, &e);
      free(is);
    }
  }
  lay_ctx_free(ctx);
  lay_hsi_free(h);
  return 0;
}
