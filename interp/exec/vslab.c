/*
** vslab.c: the value slabs' steps (kernel VSLAB; plan_int.h li_slab, built
** by plan/vplan.c). A step converts the CPU side's runs of one slab into
** an L1 buffer of hardware elements (value.c's vector paths, a run a call,
** each run of one channel) and moves the buffer into the destination with
** the data box of the slabs' own plan, or moves the source into the
** buffer and converts its runs into the CPU side: the value rule costs
** one pass over L1 on top of the data movement.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan_int.h"

/* The runs of slab s from f (elements of fz bytes) into t (tz bytes): the
** CPU side's runs encoded into the buffer (pack) or the buffer's decoded
** into the CPU side, each run by its channel's rule (channel ch at the
** slab's origin). */
static void slab_convert(const li_slab *s, const li_vrule *r,
                         const uint8_t *f, size_t fz, uint8_t *t, size_t tz,
                         int64_t ch) {
  const int perch = r->axis >= 0 && r->nch > 1;
  int64_t idx[LI_SLAB_X] = {0}, xo = 0, bo = 0, co = ch, cur = -1;
  li_vrule v;
  const li_vrule *rc = r;
  for (;;) {
    if (perch && co != cur) { /* the channel's per-tensor rule */
      li_vrule_channel(r, (int32_t)co, &v);
      rc = &v;
      cur = co;
    }
    const int64_t fo = s->pack ? xo : bo, to = s->pack ? bo : xo;
    if (s->pack)
      li_encode(rc, f + fo * (int64_t)fz, t + to * (int64_t)tz, s->run, NULL);
    else
      li_decode(rc, f + fo * (int64_t)fz, t + to * (int64_t)tz, s->run, NULL);
    int j = s->nx - 1;
    for (; j >= 0; j--) { /* the odometer over the runs */
      const li_loop *l = &s->x[j];
      xo += l->ss;
      bo += l->ds;
      co += l->cs;
      if (++idx[j] < l->ext) break;
      xo -= l->ss * l->ext;
      bo -= l->ds * l->ext;
      co -= l->cs * l->ext;
      idx[j] = 0;
    }
    if (j < 0) return;
  }
}

void li_slab_run(const li_plan *p, int k, const uint8_t *src, uint8_t *dst,
                 int64_t sb, int64_t db, int64_t cb, const li_loop *in) {
  const li_slabs *vs = p->vs;
  const li_slab *s = &vs->slab[k];
  li_box sub = vs->p.box[s->box];
  const int64_t ext0 = vs->p.loops[sub.l0].ext;
  _Alignas(64) uint8_t buf[LI_SLAB_BYTES + 64];
  const size_t se = p->s.esz, de = p->d.esz;
  for (int64_t i = 0; i < in->ext; i++) {
    const int64_t so = sb + i * in->ss, dof = db + i * in->ds;
    const int64_t c = cb + i * in->cs;
    if (s->pack) { /* the source's runs into buf, buf to the destination */
      slab_convert(s, &p->d.v, src + so * (int64_t)se, se, buf, de, c);
      sub.db = dof;
      li_exec_box(&vs->p, &sub, buf, dst, 0, ext0);
    } else { /* the source into buf, buf's runs to the destination */
      sub.sb = so;
      li_exec_box(&vs->p, &sub, src, buf, 0, ext0);
      slab_convert(s, &p->s.v, buf, se, dst + dof * (int64_t)de, de, c);
    }
  }
}

void li_slabs_free(li_slabs *v) {
  if (!v) return;
  free(v->p.box);
  free(v->p.loops);
  free(v->p.trg);
  free(v->p.mt);
  free(v->slab);
  free(v);
}
