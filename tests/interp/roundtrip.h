/*
** roundtrip.h: one layout's pack and unpack plans (li_plan_build) run on 1
** and 2 threads against the reference of ref.h, byte for byte. Included
** after ref.h and plan_int.h by the planner tests that build layouts by
** hand (test_mtile.c, test_ilv2.c).
*/
#ifndef TESTS_INTERP_ROUNDTRIP_H
#define TESTS_INTERP_ROUNDTRIP_H

/* Packs the CPU-side bytes x (the reference's size for shape and cpu) and
** unpacks the reference's packed buffer, with each plan. Each plan's
** description goes to seen (when not NULL) before it runs. Returns the
** number of failures, the first one described in why. */
static int roundtrip(const lg_ir *ir, const int64_t *shape, lay_dtype cpu,
                     const uint8_t *x, void (*seen)(const char *desc),
                     char *why, size_t cap) {
  rlay r;
  rlay_init(&r, ir, shape, cpu);
  const int64_t n = r_count(shape, ir->rank);
  const size_t cb = (size_t)n * r.csz, hb = (size_t)r.nelem * r.hsz;
  uint8_t *want = malloc(hb), *got = malloc(hb), *back = malloc(cb),
          *wback = malloc(cb);
  int bad = 0;
  r_pack(&r, x, want);
  r_unpack(&r, want, wback);
  for (int dir = 0; dir < 2; dir++) {
    li_plan *p = NULL;
    lay_error err;
    lay_status st = li_plan_build(ir, shape, ir->rank, cpu,
                                  dir ? LAY_UNPACK : LAY_PACK, &p, &err);
    if (st) {
      if (!bad++) snprintf(why, cap, "plan: %s", err.message);
      continue;
    }
    char *desc = li_plan_describe(p);
    if (seen && desc) seen(desc);
    for (int th = 1; th <= 2; th++) {
      int same;
      if (!dir) {
        memset(got, 0x5A, hb);
        st = li_plan_run(p, x, cb, got, hb, th, &err);
        same = st == LAY_OK && !memcmp(got, want, hb);
      } else {
        memset(back, 0x5A, cb);
        st = li_plan_run(p, want, hb, back, cb, th, &err);
        same = st == LAY_OK && !memcmp(back, wback, cb);
      }
      if (!same && !bad++)
        snprintf(why, cap, "%s differs (threads %d)\n%s",
                 dir ? "unpack" : "pack", th, desc ? desc : "");
    }
    free(desc);
    li_plan_free(p);
  }
  free(want); free(got); free(back); free(wback);
  return bad;
}

#endif
