/*
** fuzz_spec.c: the spec front end against arbitrary bytes. Each input is
** compiled into a fresh module (lg_load_string); when it loads, every
** name it defines is instantiated (lg_instantiate), dumped, and, when its
** shape is small, planned both ways and run on pseudo-random data.
** Failures must be clean lay_errors; a crash, hang, leak or an internal
** error is a finding.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "lang.h"
#include "plan.h"
#include "plan_int.h"

#define MAX_NAMES 32        /* definitions instantiated per input */
#define MAX_ELEMS 4096      /* CPU elements of a planned shape */
#define MAX_BYTES (1 << 20) /* buffer bytes of a run */

static void plan_and_run(const lg_ir *ir) {
  int64_t shape[LG_MAX_RANK];
  uint64_t n = 1;
  if (ir->rank < 1 || ir->rank > LG_MAX_RANK) return;
  for (int d = 0; d < ir->rank; d++) {
    shape[d] = ir->dim[d].fixed > 0 ? ir->dim[d].fixed : 3 + d;
    if ((uint64_t)shape[d] > MAX_ELEMS || (n *= (uint64_t)shape[d]) > MAX_ELEMS)
      return;
  }
  for (int dir = LAY_PACK; dir <= LAY_UNPACK; dir++) {
    li_plan *p = NULL;
    lay_error e;
    lay_status st = li_plan_build(ir, shape, ir->rank, LAY_DT_NONE,
                                  (lay_dir)dir, &p, &e);
    fz_clean_error(st, &e);
    if (st) return;
    size_t sb = li_plan_src_bytes(p), db = li_plan_dst_bytes(p);
    if (sb <= MAX_BYTES && db <= MAX_BYTES) {
      unsigned char *src = malloc(sb ? sb : 1), *dst = malloc(db ? db : 1);
      if (src && dst) {
        for (size_t i = 0; i < sb; i++) src[i] = (unsigned char)(i * 37 + 11);
        st = li_plan_run(p, src, sb, dst, db, 1, &e);
        fz_clean_error(st, &e);
      }
      free(src);
      free(dst);
    }
    char *s = li_plan_describe(p);
    free(s);
    li_plan_free(p);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  lg_module *m = lg_module_new();
  if (!m) return 0;
  lay_error e;
  lay_status st = lg_load_string(m, "<fuzz>", (const char *)data, size, &e);
  fz_clean_error(st, &e);
  if (st == LAY_OK) {
    size_t n = lg_module_count(m);
    for (size_t i = 0; i < n && i < MAX_NAMES; i++) {
      const char *name = lg_module_name(m, i);
      FZ_CHECK(name != NULL, "name %zu of %zu", i, n);
      lg_ir *ir = NULL;
      st = lg_instantiate(m, name, &ir, &e);
      fz_clean_error(st, &e);
      if (st) {
        FZ_CHECK(ir == NULL, "IR left on error");
        continue;
      }
      char *dump = lg_ir_dump(ir);
      free(dump);
      plan_and_run(ir);
      lg_ir_free(ir);
    }
    /* The module's test blocks are reachable. */
    for (size_t i = 0; i < lg_module_test_count(m); i++) {
      const char *file, *src;
      size_t len;
      FZ_CHECK(lg_module_test(m, i, &file, &src, &len) != NULL, "test %zu", i);
    }
  }
  lg_module_free(m);
  return 0;
}
