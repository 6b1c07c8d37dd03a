/*
** describe.c: a plan in words (li_plan_describe, lay_plan_describe: the
** sides, then every box with its kernel and loops) and the plan log's
** plumbing (planner.h li_plog: the text of each planning step, handed to
** the caller's callback).
*/
#include <stdlib.h>

#include "planner.h"

void li_describe_side(lg_strbuf *b, const char *what, const li_side *s) {
  if (s->is_cpu) {
    lg_sb_printf(b, "%s: CPU side %s[", what, li_dt_name(s->v.cpu));
    for (int i = 0; i < s->rank; i++)
      lg_sb_printf(b, "%s%lld", i ? "," : "", (long long)s->dim[i].size);
    lg_sb_printf(b, "], %llu bytes\n",
              (unsigned long long)((uint64_t)s->nelem * s->esz));
    return;
  }
  if (s->table) {
    const li_gather *g = s->table;
    lg_sb_printf(b, "%s: gather table of %lld %s elements: %lld tile%s of %lld",
                 what, (long long)g->n, li_dt_name(s->v.hw),
                 (long long)(g->n / g->period), g->n / g->period == 1 ? "" : "s",
                 (long long)g->period);
    if (g->nrun)
      lg_sb_printf(b, " in %lld run%s", (long long)g->nrun, g->nrun == 1 ? "" : "s");
    else
      lg_sb_printf(b, " entries");
    lg_sb_printf(b, " (%zu table bytes)\n", li_gather_bytes(g));
    return;
  }
  lg_sb_printf(b, "%s: layout %s [", what,
            s->v.nplanes ? "uint8" : li_dt_name(s->v.hw));
  for (int j = 0; j < s->naxes; j++)
    lg_sb_printf(b, "%s%s:%lld", j ? ", " : "", s->ax[j].label,
              (long long)s->ax[j].ext);
  lg_sb_printf(b, "], strides [");
  for (int j = 0; j < s->naxes; j++)
    lg_sb_printf(b, "%s%lld", j ? ", " : "", (long long)s->ax[j].stride);
  lg_sb_printf(b, "], %llu bytes\n",
            (unsigned long long)((uint64_t)s->nelem * s->esz));
  static const char *const vk[] = {"copy", "cast", "quantize", "dequantize",
                                     "chain"};
  lg_sb_printf(b, "  value: %s %s -> %s", vk[s->v.kind], li_dt_name(s->v.cpu),
            s->v.nplanes ? "uint8" : li_dt_name(s->v.hw));
  if (s->v.nplanes) lg_sb_printf(b, ", %d byte planes", s->v.nplanes);
  if (s->v.axis >= 0) lg_sb_printf(b, ", per channel along dim %d", s->v.axis);
  lg_sb_printf(b, ", pad %g", s->v.pad);
  if (s->v.nfix)
    lg_sb_printf(b, " (other pads: %lld runs of their own values)",
                 (long long)s->v.nfix);
  lg_sb_printf(b, "\n");
}

/* A VSLAB box's slab: its size, runs and the buffer's data box. */
static void describe_slab(lg_strbuf *b, const li_plan *p, const li_slab *s) {
  const li_plan *q = &p->vs->p;
  const li_box *x = &q->box[s->box];
  lg_sb_printf(b, "    a step: %lld elements in runs of %lld %s, %s%s by %s",
               (long long)s->elems, (long long)s->run,
               s->pack ? "converted into L1" : "moved into L1",
               s->pack ? "moved" : "converted",
               x->pre || x->post ? " with their row pads" : "",
               li_kern_name(x->kern));
  if (x->kern == LI_K_BLOCK || x->kern == LI_K_ILV || x->kern == LI_K_DEILV)
    lg_sb_printf(b, " %d", x->bk);
  lg_sb_printf(b, ", loops");
  for (int k = 0; k < x->nl; k++) {
    const li_loop *l = &q->loops[x->l0 + k];
    lg_sb_printf(b, " %lld(src %lld, dst %lld)", (long long)l->ext,
                 (long long)l->ss, (long long)l->ds);
  }
  lg_sb_printf(b, "\n");
}

char *li_plan_describe(const li_plan *p) {
  lg_strbuf b = {0};
  static const char *const dn[] = {"pack", "unpack", "convert"};
  lg_sb_printf(&b, "plan: %s, %zu bytes in, %zu bytes out\n", dn[p->dir],
            p->sbytes, p->dbytes);
  li_describe_side(&b, "source", &p->s);
  li_describe_side(&b, "destination", &p->d);
  int ndata = 0;
  int64_t padel = 0, datael = 0;
  for (int i = 0; i < p->nbox; i++) {
    int64_t n = 1;
    for (int k = 0; k < p->box[i].nl; k++) n *= p->loops[p->box[i].l0 + k].ext;
    if (p->box[i].kern == LI_K_VSLAB) n *= p->vs->slab[p->box[i].bk].elems;
    if (p->box[i].fill) padel += n; else { ndata++; datael += n; }
  }
  lg_sb_printf(&b, "boxes: %d (%d data: %lld elements; %d fill: %lld elements)\n",
            p->nbox, ndata, (long long)datael, p->nbox - ndata,
            (long long)padel);
  if (p->spill)
    lg_sb_printf(&b, "spilled: the data boxes copy whole blocks, the "
                 "source's pads with them; the fill boxes after them write "
                 "the destination's pads\n");
  for (int i = 0; i < p->nbox; i++) {
    const li_box *x = &p->box[i];
    lg_sb_printf(&b, "  box %d: %s, %s", i,
              x->fill ? (x->raw ? "hole" : x->pat ? "source pad" : "pad") : "data",
              li_kern_name(x->kern));
    if (x->kern == LI_K_BLOCK) lg_sb_printf(&b, " %d", x->bk);
    if (x->kern == LI_K_TR && x->bk)
      lg_sb_printf(&b, " of %d-element groups", x->bk);
    if (x->kern == LI_K_TRG && p->trg[x->bk].ng == 1 &&
        (size_t)p->trg[x->bk].g * p->d.esz < 16)
      lg_sb_printf(&b, " of %d rows interleaved", p->trg[x->bk].g);
    if (x->kern == LI_K_MTILE) {
      const li_mtile *t = &p->mt[x->bk];
      lg_sb_printf(&b, " of %d x %d-byte registers, %d-byte units, %d rounds,"
                   " loads %s, stores %s, its loops (bytes)", 1 << t->k,
                   16 << t->lanes, 1 << t->lg, t->rho,
                   t->ldw ? (t->nls ? "whole, swapped" : "whole") : "by lane",
                   t->stw ? (t->nss ? "whole, swapped" : "whole") : "by lane");
      for (int k = t->nl - 1; k >= 0; k--)
        lg_sb_printf(&b, " %lld(src %lld, dst %lld)", (long long)t->l[k].n,
                     (long long)t->l[k].ss, (long long)t->l[k].ds);
    }
    if (x->pre || x->post)
      lg_sb_printf(&b, ", row pads %lld+%lld", (long long)x->pre,
                (long long)x->post);
    if (x->prow) lg_sb_printf(&b, ", %d pad blocks after each row", x->prow);
    if (x->stage) {
      const li_stage *g = &p->stage[x->stage - 1];
      lg_sb_printf(&b, ", staged %s, %d loop%s outside slabs of %lld",
                   g->dst ? "destination" : "source", g->k,
                   g->k == 1 ? "" : "s", (long long)g->span);
    }
    lg_sb_printf(&b, ", base src %lld dst %lld, loops", (long long)x->sb,
              (long long)x->db);
    for (int k = 0; k < x->nl; k++) {
      const li_loop *l = &p->loops[x->l0 + k];
      if (l->tab)
        lg_sb_printf(&b, " %lld(table of offset pairs)", (long long)l->ext);
      else if (x->fill)
        lg_sb_printf(&b, " %lld(dst %lld)", (long long)l->ext, (long long)l->ds);
      else
        lg_sb_printf(&b, " %lld(src %lld, dst %lld)", (long long)l->ext,
                  (long long)l->ss, (long long)l->ds);
    }
    lg_sb_printf(&b, "\n");
    if (x->kern == LI_K_VSLAB) describe_slab(&b, p, &p->vs->slab[x->bk]);
  }
  lg_sb_printf(&b, "tables: %zu bytes; the plan holds %zu bytes in all\n",
               (p->s.table ? li_gather_bytes(p->s.table) : 0) +
                   (p->d.table ? li_gather_bytes(p->d.table) : 0) +
                   (size_t)p->ntabs * sizeof *p->tabs,
               li_plan_memory(p));
  return lg_sb_take(&b);
}

/* ---- The plan log ------------------------------------------------------------ */
void li_plog_take(li_plog *lg, lg_strbuf *b, const char *name) {
  char *t = lg_sb_take(b);
  if (lg->to && lg->to->fn)
    lg->to->fn(lg->to->user, name, t ? t : "(out of memory)\n");
  free(t);
}

void li_plog_step(li_plog *lg, const char *name) {
  li_plog_take(lg, &lg->step, name);
}

void li_plog_free(li_plog *lg) {
  free(lg_sb_take(&lg->step));
  free(lg_sb_take(&lg->cut));
  free(lg_sb_take(&lg->coal));
}

void li_plog_loops(lg_strbuf *b, int box, int fill, int pat, int raw,
                   int64_t sb, int64_t db, const li_loop *L, int n) {
  lg_sb_printf(b, "box %d: %s, base src %lld dst %lld, loops", box,
               fill ? (raw ? "hole" : pat ? "source pad" : "pad") : "data",
               (long long)sb, (long long)db);
  if (n == 0) lg_sb_printf(b, " none");
  for (int k = 0; k < n; k++) {
    if (L[k].tab)
      lg_sb_printf(b, " %lld(table of offset pairs)", (long long)L[k].ext);
    else if (fill)
      lg_sb_printf(b, " %lld(dst %lld)", (long long)L[k].ext, (long long)L[k].ds);
    else
      lg_sb_printf(b, " %lld(src %lld, dst %lld)", (long long)L[k].ext,
                   (long long)L[k].ss, (long long)L[k].ds);
  }
  lg_sb_printf(b, "\n");
}
