/*
** hsi_check.c: `lay hsi --check`: an entry's chain and annotation run on
** the same pseudo-random data must give the same bytes.
*/
#define _POSIX_C_SOURCE 200809L

#include "hsi_int.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- --check ----------------------------------------------------------------------- */

/* Pseudo-random CPU data of type dt (finite values, including exact
** halves so that rounding is exercised). */
static void fill_random(unsigned char *buf, size_t bytes, lay_dtype dt,
                        uint64_t seed) {
  uint64_t s = seed;
  size_t es = lay_dtype_size(dt);
  for (size_t i = 0; i + es <= bytes; i += es) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(s >> 33);
    if (dt == LAY_DT_FP32 || dt == LAY_DT_BF16) {
      float f = (float)((int)(r % 4001) - 2000) / 256.0f +
                (float)(r >> 20 & 0xff) * 1e-6f;
      uint32_t u;
      memcpy(&u, &f, 4);
      if (dt == LAY_DT_FP32) memcpy(buf + i, &u, 4);
      else {
        uint16_t v = (uint16_t)(u >> 16);
        memcpy(buf + i, &v, 2);
      }
    } else if (dt == LAY_DT_FP16) {
      uint16_t v = (uint16_t)((r & 0x3bff) | (r >> 16 & 0x8000));
      memcpy(buf + i, &v, 2);
    } else {
      memcpy(buf + i, &r, es);
    }
  }
}

static int push_issue(lay_hsi_issue **v, int *n, int *cap,
                      const lay_hsi_issue *is) {
  if (*n == *cap) {
    int nc = *cap ? *cap * 2 : 8;
    lay_hsi_issue *nv = realloc(*v, (size_t)nc * sizeof *nv);
    if (!nv) return -1;
    *v = nv;
    *cap = nc;
  }
  (*v)[(*n)++] = *is;
  return 0;
}

/* Run NS.def and NS.def_ann on the same data; 0 same bytes, 1 differ
** (text in is), -1 error. */
static int compare_bytes(const tensor *t, lay_ctx *ctx, const char *ns,
                         lay_hsi_issue *is, lay_error *err) {
  char a[128], b[128];
  snprintf(a, sizeof a, "%s.%s", ns, t->def);
  snprintf(b, sizeof b, "%s.%s_ann", ns, t->def);
  lay_plan *pa = NULL, *pb = NULL;
  unsigned char *src = NULL, *da = NULL, *db = NULL;
  int rc = -1;
  if (lay_plan_create(ctx, a, t->cpu, t->rank, t->cpu_dt, LAY_PACK, &pa,
                      err) ||
      lay_plan_create(ctx, b, t->cpu, t->rank, t->cpu_dt, LAY_PACK, &pb,
                      err))
    goto done;
  size_t ns_ = lay_plan_src_bytes(pa), na = lay_plan_dst_bytes(pa),
         nb = lay_plan_dst_bytes(pb);
  if (!(src = malloc(ns_ ? ns_ : 1)) || !(da = malloc(na ? na : 1)) ||
      !(db = malloc(nb ? nb : 1))) {
    if (err) {
      memset(err, 0, sizeof *err);
      err->code = LAY_E_NOMEM;
      snprintf(err->message, sizeof err->message, "out of memory");
    }
    goto done;
  }
  fill_random(src, ns_, t->cpu_dt, 0x1a5u + (uint64_t)t->index);
  if (lay_plan_run(pa, src, ns_, da, na, 1, err) ||
      lay_plan_run(pb, src, ns_, db, nb, 1, err))
    goto done;
  rc = 0;
  const char *side = t->output ? "outputs" : "inputs";
  snprintf(is->text, sizeof is->text,
           "%s[%d]: the annotation fields and rt_transformations give the "
           "same %zu bytes",
           side, t->index, na);
  if (na != nb) {
    snprintf(is->text, sizeof is->text,
             "%s[%d]: the annotation fields give a %zu-byte buffer, "
             "rt_transformations %zu bytes",
             side, t->index, nb, na);
    rc = 1;
  } else {
    for (size_t i = 0; i < na; i++)
      if (da[i] != db[i]) {
        snprintf(is->text, sizeof is->text,
                 "%s[%d]: the annotation fields and rt_transformations "
                 "describe different bytes (first difference at byte %zu)",
                 side, t->index, i);
        rc = 1;
        break;
      }
  }
done:
  lay_plan_free(pa);
  lay_plan_free(pb);
  free(src);
  free(da);
  free(db);
  return rc;
}

int lay_hsi_check(const lay_hsi *h, lay_ctx *ctx, const char *ns,
                 lay_hsi_issue **issues, int *nissues, lay_error *err) {
  if (err) memset(err, 0, sizeof *err);
  *issues = NULL;
  *nissues = 0;
  int n = 0, cap = 0, fatal = 0;
  lay_hsi_issue *v = NULL;
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < h->n[o]; i++) {
      const tensor *t = &h->t[o][i];
      int bad = 0;
      for (int k = 0; k < h->nissues; k++) {
        const lay_hsi_issue *is = &h->issues[k];
        if (is->output != o || is->index != i) continue;
        if (push_issue(&v, &n, &cap, is)) goto oom;
        if (is->fatal) bad = 1, fatal++;
      }
      if (bad || !t->ann_spec || !t->ann_ok) continue;
      lay_hsi_issue is;
      memset(&is, 0, sizeof is);
      is.output = o;
      is.index = i;
      is.fatal = 1;
      int rc = compare_bytes(t, ctx, ns, &is, err);
      if (rc < 0) {
        free(v);
        return -1;
      }
      is.fatal = rc == 1;
      fatal += rc == 1;
      if (push_issue(&v, &n, &cap, &is)) goto oom;
    }
  *issues = v;
  *nissues = n;
  return fatal;
oom:
  free(v);
  if (err) {
    err->code = LAY_E_NOMEM;
    snprintf(err->message, sizeof err->message, "out of memory");
  }
  return -1;
}

