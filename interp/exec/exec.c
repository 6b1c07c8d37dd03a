/*
** exec.c: the executor. Runs a plan's boxes: an odometer over the outer
** loops of each box (a walk) and, at each of its steps, the box's kernel
** for the innermost one to three loops. The kernels are the registry's
** (kernels.h); li_exec_box's dispatch is generated from it and each
** kernel's step is a function below that inlines into it. The kernels'
** inner code lives in kern_rows.c (rows, blocks), kern_ilv.c
** (interleaves, splits) and conv.c (the value path); the short copies
** and fills in kern.h. Row pads (the fused padding of the innermost
** hardware axis) are written by the kernels with their rows, or after the
** step; on one thread, a fill box that shares a data box's outer loop
** runs beside it, a few KB of destination at a time (run_riding). On
** several threads the boxes' outer loops are cut into chunks of
** about the same bytes that the calling thread and the pool's workers
** (pool.c) claim one by one; boxes are disjoint, so the bytes do not
** depend on the cuts.
*/
#include <stdlib.h>
#include <string.h>

#include "kern.h"

int li_simd_level(void) {
  int lv = LI_SIMD_NONE;
#if defined(__SSE2__)
  lv = LI_SIMD_SSE;
#endif
#if defined(LI_HAVE_X86_TARGET)
  /* AVX2 with FMA (every x86 CPU with AVX2 but a few VIA ones has it:
  ** value.c's division by FMA corrections) */
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    lv = LI_SIMD_AVX2;
  if (lv == LI_SIMD_AVX2 && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
    lv = LI_SIMD_AVX512;
#endif
  const char *e = getenv("LAY_SIMD");
  if (e && e[0] >= '0' && e[0] <= '9' && !e[1] && e[0] - '0' < lv)
    lv = e[0] - '0';
  return lv;
}

/* ---- The registry --------------------------------------------------------- */
const char *li_kern_name(li_kern k) {
  static const char *const names[] = {
#define X(id, name, loops, what) name,
      LI_KERNELS(X)
#undef X
  };
  return (unsigned)k < LI_K_COUNT ? names[k] : "?";
}

int li_kern_loops(li_kern k) {
  static const unsigned char loops[] = {
#define X(id, name, loops, what) loops,
      LI_KERNELS(X)
#undef X
  };
  return (unsigned)k < LI_K_COUNT ? loops[k] : 1;
}

/* ---- Kernels without a file of their own ------------------------------------ */
/* The channel of CPU element c along the per-channel axis of the plan's
** value rules (0 without one). */
static int64_t cpu_channel(const li_plan *p, int64_t c) {
  const li_side *C = p->s.is_cpu ? &p->s : &p->d;
  int axis = p->s.v.axis >= 0 ? p->s.v.axis : p->d.v.axis;
  if (axis < 0) return 0;
  for (int i = C->rank - 1; i > axis; i--) c /= C->dim[i].size;
  return c % C->dim[axis].size;
}

/* Hardware elements [from, to) of the gather table's side, run by run: a
** pack reads each run's consecutive CPU elements (or writes the pad), an
** unpack writes them. */
static void table_run(const li_plan *p, const uint8_t *src, uint8_t *dst,
                      int64_t from, int64_t to) {
  const li_side *S = &p->s, *D = &p->d;
  const int pack = D->table != NULL;
  const li_gather *g = pack ? D->table : S->table;
  const int64_t se = (int64_t)S->esz, de = (int64_t)D->esz;
  const int perch = S->v.axis >= 0 || D->v.axis >= 0;
  for (int64_t e = from, len; e < to; e += len) {
    int64_t c = li_gather_run(g, e, &len);
    if (len > to - e) len = to - e;
    if (c < 0) {
      if (pack) fill_n(dst + e * de, 1, len, p->pats[0], (size_t)de);
      continue;
    }
    const uint8_t *s = src + (pack ? c : e) * se;
    uint8_t *d = dst + (pack ? e : c) * de;
    if (!p->slow) {
      memcpy(d, s, (size_t)(len * de));
    } else if (!perch) {
      li_conv_block(S, D, s, 0, 1, d, 0, 1, 1, len, 0, 0, 0, 0, 0, NULL);
    } else {
      for (int64_t i = 0; i < len; i++)
        li_conv_block(S, D, s + i * se, 0, 1, d + i * de, 0, 1, 1, 1,
                      cpu_channel(p, c + i), 0, 0, 0, 0, NULL);
    }
  }
}

/* A table loop as the kernel: element i from s + t[2i] to d + t[2i+1]
** (offsets in elements, relative to the loop's first pair: s and d are
** its places), converted when the plan converts values; a fill box writes
** its pattern at each d + t[2i+1] instead. */
static void dimtab(const li_plan *p, const li_box *b, const li_loop *in,
                   const uint8_t *s, uint8_t *d, int64_t cb) {
  const int64_t *t = p->tabs + in->tab - 1;
  int64_t se = (int64_t)p->s.esz, de = (int64_t)p->d.esz, n = in->ext;
  s -= t[0] * se; /* a part of the loop that starts at a later pair */
  d -= t[1] * de;
  if (b->fill) {
    const uint8_t *pat = p->pats[b->pat];
    int planes = p->d.v.nplanes && !b->raw ? p->d.v.nplanes : 0;
    for (int64_t i = 0; i < n; i++) {
      uint8_t *q = d + t[2 * i + 1] * de;
      if (planes)
        for (int k = 0; k < planes; k++) q[k * p->d.pstride] = pat[k];
      else
        memcpy(q, pat, (size_t)de);
    }
    return;
  }
  if (p->slow) {
    for (int64_t i = 0; i < n; i++)
      li_conv_block(&p->s, &p->d, s + t[2 * i] * se, 0, 1, d + t[2 * i + 1] * de,
                    0, 1, 1, 1, cb + i * in->cs, 0, 0, 0, 0, NULL);
    return;
  }
  switch (de) {
  case 1:
    for (int64_t i = 0; i < n; i++) d[t[2 * i + 1]] = s[t[2 * i]];
    break;
  case 2:
    for (int64_t i = 0; i < n; i++) memcpy(d + 2 * t[2 * i + 1], s + 2 * t[2 * i], 2);
    break;
  case 4:
    for (int64_t i = 0; i < n; i++) memcpy(d + 4 * t[2 * i + 1], s + 4 * t[2 * i], 4);
    break;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy(d + de * t[2 * i + 1], s + se * t[2 * i], (size_t)de);
    break;
  }
}

#if defined(LI_HAVE_X86_TARGET)
/* n runs of `run` elements of esz bytes, ds elements apart, set to the
** pattern pat: a 64-byte store a window under a byte mask (AVX-512BW; the
** bytes between the runs are not written), where the stride in bytes is a
** power of two, 32 at most, longer than the run: amd.hcwnc8's pad
** channels, single bytes 8 apart (8 a store instead of one: 1.3 -> 0.7
** us for 2001 pad bytes), kneron.1w16c8b's 11 pad bytes of every 16 (4
** rows a store instead of a memset call each: 667 rows, 2.5 -> 0.12 us).
** 0 when the shape is not one of those (the caller fills). */
__attribute__((target("avx512f,avx512bw"))) static int
fill_masked(uint8_t *d, int64_t ds, int64_t n, int64_t run, const uint8_t *pat,
            size_t esz) {
  int64_t sb = ds * (int64_t)esz, rb = run * (int64_t)esz; /* bytes */
  if (run < 1 || rb >= sb || sb > 32 || (sb & (sb - 1)) || n * sb < 128)
    return 0;
  if (esz != 1 && esz != 2 && esz != 4 && esz != 8) return 0;
  const __m512i x = li_pad512(pat, esz); /* elements lie at multiples of esz */
  /* rb bits at every multiple of sb: ~0 / (2^sb - 1) has bit k * sb set */
  uint64_t m = (~0ull / ((1ull << sb) - 1)) * ((1ull << rb) - 1);
  int64_t per = 64 >> __builtin_ctzll((unsigned long long)sb), i = 0;
  for (; i + per <= n; i += per, d += 64)
    _mm512_mask_storeu_epi8((void *)d, (__mmask64)m, x);
  if (i < n) /* the last runs: the mask cut after them */
    _mm512_mask_storeu_epi8((void *)d,
                            (__mmask64)(m & ((1ull << ((n - i) * sb)) - 1)), x);
  return 1;
}
#endif

/* ---- Walks and steps -------------------------------------------------------- */
#define LI_MAX_LOOPS (LG_MAX_RANK * (2 * LG_MAX_AXES + 1)) /* of one box */

/* One box's walk: the part of its outer loop this call runs, an odometer
** over the loops outside the kernel's, and what a step may change. Local
** to li_exec_box; the steps inline into it, so its fields stay in
** registers as plain locals would. */
typedef struct walk {
  const li_plan *p;
  const li_box *b;
  const uint8_t *src;
  const uint8_t *send;   /* the end of the source (a slab's, staged) */
  uint8_t *dst;
  li_loop *L;            /* the box's loops, L[0] cut to the part */
  const li_loop *in;     /* the innermost loop, L[nl - 1] */
  int nl;                /* loops */
  int no;                /* the odometer's loops: L[0 .. no) */
  int64_t *idx;          /* the odometer's digits */
  int64_t sb, db, cb;    /* this step's source and destination offsets
                            (elements) and channel */
  int64_t pre, post;     /* the row pads this step still has to write */
  size_t se, de;         /* element bytes of the source, the destination */
  const uint8_t *pat;    /* the fill pattern */
  const uint8_t *dpat;   /* the destination's pad element */
  int planes;            /* byte planes a fill writes (0: plain elements) */
  int64_t *off, noff;    /* ILV2/DEILV2 row offsets (noff of them, -1) */
} walk;

#define LI_STEP static inline __attribute__((always_inline)) void

/* A kernel that ran the rest of the innermost odometer loop (lj =
** L[no - 1], n more steps): the odometer then stands on its last step. */
LI_STEP odo_skip(walk *w, const li_loop *lj, int64_t n) {
  w->sb += n * lj->ss;
  w->db += n * lj->ds;
  w->cb += n * lj->cs;
  w->idx[w->no - 1] += n;
}

/* The innermost odometer loop when a kernel may run the rest of it in the
** same call (NULL when there is none, or it is a table loop), and in *cnt
** the steps left on it, this one included. */
static inline __attribute__((always_inline)) const li_loop *
odo_rest(const walk *w, int64_t *cnt) {
  const li_loop *lj = w->no >= 1 && !w->L[w->no - 1].tab ? &w->L[w->no - 1] : NULL;
  *cnt = lj ? lj->ext - w->idx[w->no - 1] : 1;
  return lj;
}

LI_STEP step_MEMCPY(walk *w, uint8_t *d) {
  cpy(d, w->src + w->sb * (int64_t)w->se, (size_t)w->in->ext * w->de);
}

LI_STEP step_COPY(walk *w, uint8_t *d) {
  const li_loop *in = w->in;
  copy_any(w->src + w->sb * (int64_t)w->se, in->ss, d, in->ds, in->ext, w->de);
}

/* The two innermost loops as one transposition: L[nl - 2] runs along the
** source (ss 1), the innermost along the destination (ds 1). */
LI_STEP step_TR(walk *w, uint8_t *d) {
  const li_loop *o = &w->L[w->nl - 2], *in = w->in;
  const int64_t u = w->b->bk ? w->b->bk : 1; /* elements a group */
  li_tr2d_b(w->de * (size_t)u, w->p->simd, w->src, w->send,
            w->src + w->sb * (int64_t)w->se, in->ss * (int64_t)w->se, d,
            o->ds * (int64_t)w->de, in->ext, o->ext);
}

/* The gather tile over the innermost loop (the source's run). */
LI_STEP step_TRG(walk *w, uint8_t *d) {
  const li_loop *in = w->in;
  li_trg_run(&w->p->trg[w->b->bk], w->de, w->p->simd,
             w->src + w->sb * (int64_t)w->se, in->ext, d, in->ds);
}

/* A macro tile over its own loops and the innermost loop. */
LI_STEP step_MTILE(walk *w, uint8_t *d) {
  const li_loop *in = w->in;
  li_mtile_run(&w->p->mt[w->b->bk], w->p->simd,
               w->src + w->sb * (int64_t)w->se, d, in->ext,
               in->ss * (int64_t)w->se, in->ds * (int64_t)w->de);
}

/* A column table's tiles down the innermost loop (A's rows). */
LI_STEP step_TRC(walk *w, uint8_t *d) {
  const li_loop *in = w->in;
  li_trc_run(&w->p->trg[w->b->bk], w->de, w->p->simd,
             w->src + w->sb * (int64_t)w->se, in->ss, in->ext, d);
}

/* n2 x n rows with their pads, one row at a time. */
LI_STEP rows_padded(const walk *w, const uint8_t *s, int64_t sso2,
                    int64_t sso, uint8_t *d, int64_t dso2, int64_t dso,
                    int64_t n2, int64_t n, int64_t pre, int64_t post) {
  const li_plan *p = w->p;
  const int bk = w->b->bk;
  const size_t de = w->de;
  const uint8_t *dpat = w->dpat;
  int64_t pb = pre * (int64_t)de, qb = post * (int64_t)de;
#if defined(LI_HAVE_X86_TARGET)
  if (pb + bk + qb <= LI_ROWSPAD_MAX && bk > 0 &&
      (de == 1 || de == 2 || de == 4 || de == 8) && p->simd >= LI_SIMD_AVX512) {
    li_rowspad_avx512(s, sso2, sso, d, dso2, dso, n2, n, bk, (int)pb,
                      (int)qb, dpat, de);
    return;
  }
#else
  (void)p;
#endif
  for (int64_t a = 0; a < n2; a++, s += sso2, d += dso2) {
#if defined(LI_HAVE_X86_TARGET)
    if (de == 1 && bk >= 32 && p->simd >= LI_SIMD_AVX2) {
      li_rowspad_avx2(s, sso, d, dso, n, bk, pb, qb, dpat[0], w->src,
                      w->send);
      continue;
    }
#endif
    for (int64_t r = 0; r < n; r++) {
      uint8_t *dr = d + r * dso;
      const uint8_t *sr = s + r * sso;
      if (de == 1 && bk >= 16 && bk <= 256) {
        /* one pass per row: pads and inline 16-byte moves */
        padb(dr - pb, pb, dpat[0]);
        cpys(dr, sr, (size_t)bk);
        padb(dr + bk, qb, dpat[0]);
        continue;
      }
      if (de == 1) padb(dr - pb, pb, dpat[0]);
      else fill_n(dr - pb, 1, pre, dpat, de);
      cpy(dr, sr, (size_t)bk);
      if (de == 1) padb(dr + bk, qb, dpat[0]);
      else fill_n(dr + bk, 1, post, dpat, de);
    }
  }
}

/* The two (or three) innermost loops: rows of bk bytes, their pads
** written with them. */
LI_STEP step_ROWS(walk *w, uint8_t *d) {
  const li_plan *p = w->p;
  const int bk = w->b->bk;
  const li_loop *o = &w->L[w->nl - 2];
  const li_loop *o2 = w->nl >= 3 ? &w->L[w->nl - 3] : NULL;
  const int64_t se = (int64_t)w->se, de = (int64_t)w->de;
  const int64_t pre = w->pre, post = w->post;
  int64_t n2 = o2 ? o2->ext : 1;
  int64_t sso = o->ss * se, dso = o->ds * de;
  w->pre = w->post = 0; /* written with the rows */
#if defined(LI_HAVE_X86_TARGET)
  if (de == 1 && !pre && post && bk + post == 32 && p->simd >= LI_SIMD_AVX2) {
    li_rowsblend_avx2(w->src + w->sb, o2 ? o2->ss : 0, sso, d, o2 ? o2->ds : 0,
                      dso, n2, o->ext, bk, (int)post, w->dpat[0],
                      w->send);
    return;
  }
#endif
#if defined(LI_HAVE_X86_TARGET)
  if (!pre && !post && bk < 128 && bk % 32 && dso == bk &&
      p->simd >= LI_SIMD_AVX2) { /* rows back to back: overlapping moves */
    li_rows_dense_avx2(w->src + w->sb * se, o2 ? o2->ss * se : 0, sso, d,
                       o2 ? o2->ds * de : 0, n2, o->ext, bk, bk / 32 + 1,
                       w->send);
    return;
  }
#endif
#if defined(LI_HAVE_X86_TARGET)
  if (!pre && !post && bk < 16 && p->simd >= LI_SIMD_AVX512) {
    li_rows_short_avx512(w->src + w->sb * se, o2 ? o2->ss * se : 0, sso, d,
                         o2 ? o2->ds * de : 0, dso, n2, o->ext, bk);
    return;
  }
#endif
  if (pre || post) {
    rows_padded(w, w->src + w->sb * se, o2 ? o2->ss * se : 0, sso, d,
                o2 ? o2->ds * de : 0, dso, n2, o->ext, pre, post);
    return;
  }
  for (int64_t a = 0; a < n2; a++) {
    const uint8_t *s = w->src + (w->sb + (o2 ? a * o2->ss : 0)) * se;
    uint8_t *dd = d + (o2 ? a * o2->ds : 0) * de;
#if defined(LI_HAVE_X86_TARGET)
    if (p->simd >= LI_SIMD_AVX2 && bk % 32 == 0 && bk <= 128) {
      /* both loops, and the rest of the next odometer loop, in one call */
      int64_t cnt;
      const li_loop *lj = o2 ? odo_rest(w, &cnt) : NULL;
      if (!lj) cnt = 1;
      li_rows32_avx2(s, o2 ? o2->ss * se : 0, sso, dd, o2 ? o2->ds * de : 0,
                     dso, n2, o->ext, bk / 32, cnt, lj ? lj->ss * se : 0,
                     lj ? lj->ds * de : 0);
      if (lj) odo_skip(w, lj, cnt - 1);
      return;
    }
#endif
    switch (bk) {
    case 4: rows_4(s, sso, dd, dso, o->ext); break;
    case 8: rows_8(s, sso, dd, dso, o->ext); break;
    case 16: rows_16(s, sso, dd, dso, o->ext); break;
    case 32: rows_32(s, sso, dd, dso, o->ext); break;
    case 64: rows_64(s, sso, dd, dso, o->ext); break;
    case 128: rows_128(s, sso, dd, dso, o->ext); break;
    default:
      for (int64_t r = 0; r < o->ext; r++)
        cpy(dd + r * dso, s + r * sso, (size_t)bk);
      break;
    }
  }
}

/* The steps ILV and DEILV run in one call: the rest of the innermost
** odometer loop (a->cnt, sstep, dstep) and, when that loop stands at its
** start, the rest of the loop outside it too (a->cnt2, sstep2, dstep2);
** the odometer is left on the last of them. Steps in bytes. */
LI_STEP ilv_batch(walk *w, li_ilv_args *a, int64_t e) {
  int64_t cnt;
  const li_loop *lj = odo_rest(w, &cnt);
  a->cnt = cnt;
  a->sstep = lj ? lj->ss * e : 0;
  a->dstep = lj ? lj->ds * e : 0;
  a->cnt2 = 1;
  a->sstep2 = a->dstep2 = 0;
  if (!lj) return;
  const int j = w->no - 2;
  if (j >= 0 && !w->L[j].tab && w->idx[j + 1] == 0) {
    const li_loop *l2 = &w->L[j];
    a->cnt2 = l2->ext - w->idx[j];
    a->sstep2 = l2->ss * e;
    a->dstep2 = l2->ds * e;
    w->sb += (a->cnt2 - 1) * l2->ss;
    w->db += (a->cnt2 - 1) * l2->ds;
    w->cb += (a->cnt2 - 1) * l2->cs;
    w->idx[j] += a->cnt2 - 1;
  }
  odo_skip(w, lj, cnt - 1);
}

/* Planes (the innermost loop) into blocks along the rows (L[nl - 2]),
** blocks of bk & 255 units o->ds apart; a unit is bk >> 8 elements (0:
** one). */
LI_STEP step_ILV(walk *w, uint8_t *d) {
  const li_loop *o = &w->L[w->nl - 2], *in = w->in;
  const int64_t e = (int64_t)w->de, u = w->b->bk >> 8 ? w->b->bk >> 8 : 1;
  li_ilv_args a = {w->de * (size_t)u, w->b->bk & 255, (int)in->ext,
                   (int)w->pre, o->ext, in->ss * e, 1, 0, 0, w->dpat, 1, 0, 0,
                   o->ds * e, w->b->prow};
  const uint8_t *s = w->src + w->sb * e;
  ilv_batch(w, &a, e);
  li_ilv(&a, s, d - w->pre * e, w->p->simd);
  w->pre = w->post = 0;
}

/* The inverse: rows of blocks of bk (the innermost loop, ss bk or more) split
** into the planes of L[nl - 2] (ss 1); the blocks start sb % bk before
** the first plane (the planner checked every outer stride is a multiple
** of bk, and that the blocks lie in the source). */
LI_STEP step_DEILV(walk *w, uint8_t *d) {
  const li_loop *pl = &w->L[w->nl - 2], *in = w->in;
  const int64_t e = (int64_t)w->de, W = w->b->bk & 255;
  const int64_t u = w->b->bk >> 8 ? w->b->bk >> 8 : 1, p0 = w->sb / u % W;
  li_ilv_args a = {w->de * (size_t)u, (int)W, (int)pl->ext, (int)p0, in->ext,
                   pl->ds * e, 1, 0, 0, w->dpat, 1, 0, 0, in->ss * e, 0};
  const uint8_t *s = w->src + (w->sb - p0 * u) * e;
  ilv_batch(w, &a, e);
  li_deilv(&a, s, d, w->p->simd);
}

LI_STEP step_ILV2(walk *w, uint8_t *d) {
  const li_plan *p = w->p;
  const int bk = w->b->bk;
  const li_loop *o = &w->L[w->nl - 2], *o2 = &w->L[w->nl - 3], *in = w->in;
  const uint8_t *s = w->src + w->sb;
  const int64_t pre = w->pre;
  const uint8_t pad = w->dpat[0];
  int64_t rows = o2->ext * o->ext, rb = o->ext * bk;
  w->pre = w->post = 0; /* written with the rows */
#if defined(__SSE2__)
  if (bk == 8 && o->ext <= 8 && o->ds == 8 && p->simd >= LI_SIMD_SSE) {
    int64_t cnt; /* the rest of the next odometer loop in the same call */
    const li_loop *lj = odo_rest(w, &cnt);
#if defined(LI_HAVE_X86_TARGET)
    if (p->simd >= LI_SIMD_AVX2 && pre == 0 && in->ext == 8 &&
        li_tiles8x8(0, s, in->ss, o2->ext, (int)o->ext, d, o2->ds, cnt,
                    lj ? lj->ss : 0, lj ? lj->ds : 0)) {
      if (lj) odo_skip(w, lj, cnt - 1);
      return;
    }
#endif
    li_ilv8x8(s, in->ss, (int)in->ext, (int)pre, pad, d - pre, o2->ds,
              o2->ext, (int)o->ext, w->send, cnt, lj ? lj->ss : 0,
              lj ? lj->ds : 0);
    if (lj) odo_skip(w, lj, cnt - 1);
    return;
  }
#endif
  if (bk == 8) {
    if (w->noff != rows) /* the rows' places, the same for every box step */
      for (w->noff = 0; w->noff < rows; w->noff++)
        w->off[w->noff] = w->noff / o->ext * o2->ds + w->noff % o->ext * 8;
    li_ilv8_off(s, in->ss, (int)in->ext, (int)pre, pad, d - pre, w->off, rows,
                p->simd);
    return;
  }
  uint8_t tile[4096];
  li_ilv_u8(s, in->ss, (int)in->ext, (int)pre, bk, pad, tile, rows, p->simd);
  for (int64_t a = 0; a < o2->ext; a++)
    cpy(d - pre + a * o2->ds, tile + a * rb, (size_t)rb);
}

LI_STEP step_DEILV2(walk *w, uint8_t *d) {
  const li_plan *p = w->p;
  const li_loop *o = &w->L[w->nl - 2], *pl = &w->L[w->nl - 3], *in = w->in;
  const int W = w->b->bk;
  int64_t p0 = w->sb % W, rb = in->ext * W;
  const uint8_t *s0 = w->src + (w->sb - p0);
  int64_t rows = o->ext * in->ext;
#if defined(__SSE2__)
  if (W == 8 && in->ext <= 8 && o->ds == in->ext && p->simd >= LI_SIMD_SSE) {
    int64_t cnt;
    const li_loop *lj = odo_rest(w, &cnt);
    li_deilv8x8(s0, o->ss, o->ext, (int)in->ext, (int)p0, (int)pl->ext, d,
                pl->ds, cnt, lj ? lj->ss : 0, lj ? lj->ds : 0,
                w->send, p->simd);
    if (lj) odo_skip(w, lj, cnt - 1);
    return;
  }
#endif
  if (W == 8) {
    if (w->noff != rows)
      for (w->noff = 0; w->noff < rows; w->noff++)
        w->off[w->noff] = w->noff / in->ext * o->ss + w->noff % in->ext * 8;
    li_deilv8_off(s0, w->off, (int)p0, (int)pl->ext, d, pl->ds, rows, p->simd);
    return;
  }
  uint8_t tile[4096];
  for (int64_t a = 0; a < o->ext; a++)
    cpy(tile + a * rb, s0 + a * o->ss, (size_t)rb);
  li_deilv_u8(tile, W, (int)p0, (int)pl->ext, d, pl->ds, o->ext * in->ext,
              p->simd);
}

LI_STEP step_EXPAND(walk *w, uint8_t *d) {
  const li_loop *o = &w->L[w->nl - 2];
  li_expand_u8(w->src + w->sb, (int)w->in->ext, (int)w->pre, w->b->bk,
               w->dpat[0], d - w->pre, o->ext, w->p->simd);
  w->pre = w->post = 0;
}

LI_STEP step_CONV_ILV(walk *w, uint8_t *d) {
  const li_plan *p = w->p;
  const int bk = w->b->bk;
  const li_loop *o = &w->L[w->nl - 2], *in = w->in;
  const int64_t pre = w->pre, se = (int64_t)w->se;
  const int K = (int)in->ext;
  const int direct = p->s.v.kind == LI_VR_ID && p->s.v.axis < 0 &&
                     p->d.v.axis < 0;
  /* per channel, one channel a plane: each plane's rule per tensor */
  li_vrule pv[16];
  int perk = !direct && p->s.v.kind == LI_VR_ID && p->s.v.axis < 0 &&
             o->cs == 0 && K <= 16;
  for (int k = 0; perk && k < K; k++)
    perk = li_vrule_channel(&p->d.v, (int32_t)(w->cb + k * in->cs), &pv[k]);
  w->pre = w->post = 0; /* written with the rows */
  if ((bk == 8 || bk == 4) && (direct || perk) &&
      li_qilv8(&p->s, &p->d, perk ? pv : NULL, w->src + w->sb * se, in->ss,
               K, (int)pre, bk, w->dpat[0], d - pre, o->ext, p->simd))
    return;
  uint8_t tmp[8 * TILE];
  for (int64_t r0 = 0; r0 < o->ext; r0 += TILE) {
    int64_t m = o->ext - r0 < TILE ? o->ext - r0 : TILE;
    for (int k = 0; k < K; k++) {
      const uint8_t *sr = w->src + (w->sb + r0 + k * in->ss) * se;
      if (direct)
        li_encode(&p->d.v, sr, tmp + k * TILE, m, NULL);
      else if (perk)
        li_encode(&pv[k], sr, tmp + k * TILE, m, NULL);
      else
        li_conv_block(&p->s, &p->d, sr, 0, 1, tmp + k * TILE, 0, 1, 1, m,
                      w->cb + k * in->cs, 0, 0, 0, 0, w->dpat);
    }
    li_ilv_u8(tmp, TILE, K, (int)pre, bk, w->dpat[0], d + r0 * bk - pre, m,
              p->simd);
  }
}

/* A slab a step along the innermost loop (vslab.c). */
LI_STEP step_VSLAB(walk *w, uint8_t *d) {
  (void)d;
  li_slab_run(w->p, w->b->bk, w->src, w->dst, w->sb, w->db, w->cb, w->in);
}

LI_STEP step_DIMTAB(walk *w, uint8_t *d) {
  dimtab(w->p, w->b, w->in, w->src + w->sb * (int64_t)w->se, d, w->cb);
}

LI_STEP step_BLOCK(walk *w, uint8_t *d) {
  const li_loop *o = &w->L[w->nl - 2], *in = w->in;
  li_block_any(w->de, w->b->bk, w->src + w->sb * (int64_t)w->se, o->ss, in->ss,
               d, o->ds, o->ext, (int)in->ext, (int)w->pre,
               (int)(w->pre + in->ext + w->post), w->dpat, w->p->simd,
               w->src, w->send);
  w->pre = w->post = 0; /* written with the block */
}

LI_STEP step_CONV(walk *w, uint8_t *d) {
  const li_plan *p = w->p;
  const li_loop *in = w->in;
  const uint8_t *s = w->src + w->sb * (int64_t)w->se;
  if (w->nl >= 3 && !w->pre && !w->post) {
    /* the source's contiguous loop outside the rows: the step's loops
    ** (and the rest of the next odometer loop) through a buffer */
    int64_t cnt;
    const li_loop *lj = odo_rest(w, &cnt);
    li_loop l4[4];
    int n = 0;
    if (lj && lj->ss == 1) {
      l4[n] = *lj;
      l4[n++].ext = cnt;
    }
    for (int i = w->nl - 3; i < w->nl; i++) l4[n++] = w->L[i];
    if (l4[0].ss == 1 && li_conv_loops(&p->s, &p->d, s, d, l4, n, w->cb)) {
      if (n == 4) odo_skip(w, lj, cnt - 1);
      return;
    }
  }
  if (w->nl >= 2) { /* rows over the two loops outside the innermost */
    const li_loop *o = &w->L[w->nl - 2];
    const li_loop *o2 = w->nl >= 3 ? &w->L[w->nl - 3] : NULL;
    li_rows2 g = {o2 ? o2->ext : 1, o2 ? o2->ss : 0, o2 ? o2->ds : 0,
                  o2 ? o2->cs : 0, o->ext, o->ss, o->ds, o->cs};
    li_conv_rows(&p->s, &p->d, s, &g, in->ss, d, in->ds, in->ext, w->cb,
                 in->cs, w->pre, w->post, w->dpat);
  } else {
    li_conv_block(&p->s, &p->d, s, 0, in->ss, d, 0, in->ds, 1, in->ext, w->cb,
                  0, in->cs, w->pre, w->post, w->dpat);
  }
  w->pre = w->post = 0;
}

/* 2-byte elements (after D's value rule, if any) split into 2 planes;
** what li_split2_conv does not take goes through CONV's tiles. */
LI_STEP step_SPLIT2(walk *w, uint8_t *d) {
  const li_plan *p = w->p;
  const li_loop *o = &w->L[w->nl - 2], *in = w->in;
  const li_loop *o2 = w->nl >= 3 ? &w->L[w->nl - 3] : NULL;
  li_split_args a = {o->ss, in->ss, o->ds, p->d.pstride, p->d.v.shift[0],
                     p->d.v.shift[1], p->d.v.mask[0] & 0xff,
                     p->d.v.mask[1] & 0xff};
  const uint8_t *s = w->src + w->sb * (int64_t)w->se;
  /* the step's loops and the rest of the next odometer loop through a
  ** buffer (the source's runs converted, split, transposed) unless the
  ** bits split as they are over many rows a step (li_split2_3's K x 16
  ** tiles: 1W16C8BHL, 2x faster there) */
  if (p->d.v.kind != LI_VR_ID || (o2 ? o2->ext : 1) * o->ext < 256) {
    int64_t cnt;
    const li_loop *lj = o2 ? odo_rest(w, &cnt) : NULL;
    li_loop l4[4];
    int n = 0;
    if (lj) {
      l4[n] = *lj;
      l4[n++].ext = cnt;
    }
    for (int i = w->nl - 3; o2 && i < w->nl; i++) l4[n++] = w->L[i];
    if (o2 && li_conv_loops(&p->s, &p->d, s, d, l4, n, w->cb)) {
      if (lj) odo_skip(w, lj, cnt - 1);
      return;
    }
  }
  if (p->d.v.kind == LI_VR_ID) {
    li_split2_3(s, d, &a, o2 ? o2->ext : 1, o2 ? o2->ss : 0, o2 ? o2->ds : 0,
                o->ext, (int)in->ext, p->simd);
    return;
  }
  const int64_t o3[4] = {o2 ? o2->ext : 1, o2 ? o2->ss : 0, o2 ? o2->ds : 0,
                         o2 ? o2->cs : 0};
  if (!li_split2_conv(&p->s, &p->d, s, d, &a, o3, o->ext, o->cs,
                      (int)in->ext, w->cb, in->cs, p->simd))
    step_CONV(w, d);
}

/* The whole box (the kernel takes every loop): planes.c. */
LI_STEP step_PLANES(walk *w, uint8_t *d) {
  li_planes_run(w->p, w->b, w->L, w->nl, w->src + w->sb * (int64_t)w->se,
                w->send, d, w->cb);
  w->pre = w->post = 0; /* the row pads: pad rows of its tiles */
}

/* Never reached: li_exec_box runs nothing for a DONE box. */
LI_STEP step_DONE(walk *w, uint8_t *d) {
  (void)w;
  (void)d;
}

/* The box's one loop walks the table side's elements: sb == db is the
** part's first. */
LI_STEP step_TABLE(walk *w, uint8_t *d) {
  (void)d;
  table_run(w->p, w->src, w->dst, w->sb, w->sb + w->in->ext);
}

LI_STEP step_MEMSET(walk *w, uint8_t *d) {
  memset(d, w->pat[0], (size_t)w->in->ext * w->de);
}

LI_STEP step_PADCONV(walk *w, uint8_t *d) { /* rare: a window, per channel */
  const li_plan *p = w->p;
  li_side s1 = p->s;
  s1.pstride = 1; /* the stored pad element has its planes adjacent */
  li_conv_block(&s1, &p->d, p->pats[2], 0, 0, d, 0, w->in->ds, 1, w->in->ext,
                w->cb, 0, w->in->cs, 0, 0, NULL);
}

LI_STEP step_FILL(walk *w, uint8_t *d) {
  const li_loop *in = w->in;
#if defined(LI_HAVE_X86_TARGET)
  if (!w->planes && w->p->simd >= LI_SIMD_AVX512 &&
      fill_masked(d, in->ds, in->ext, 1, w->pat, w->de))
    return;
#endif
  if (w->planes) { /* a byte an element in each plane, a plane at a time */
    for (int k = 0; k < w->planes; k++) {
      uint8_t *dk = d + k * w->p->d.pstride;
#if defined(LI_HAVE_X86_TARGET)
      if (w->p->simd >= LI_SIMD_AVX512 &&
          fill_masked(dk, in->ds, in->ext, 1, w->pat + k, 1))
        continue;
#endif
      fill_n(dk, in->ds, in->ext, w->pat + k, 1);
    }
  } else {
    fill_n(d, in->ds, in->ext, w->pat, w->de);
  }
}

/* The walk of loops Lb[0 .. nl) of box b (its own, or the inner part of
** a staged box), the part [from, to) of the outer one, from bases sb, db,
** cb; the source ends at send. */
LI_STEP walk_start(walk *w, const li_plan *p, const li_box *b,
                   const li_loop *Lb, int nl, int64_t sb, int64_t db,
                   int64_t cb, const uint8_t *src, const uint8_t *send,
                   uint8_t *dst, int64_t from, int64_t to, li_loop *L,
                   int64_t *idx, int64_t *off) {
  for (int i = 0; i < nl; i++) L[i] = Lb[i];
  w->p = p;
  w->b = b;
  w->src = src;
  w->send = send;
  w->dst = dst;
  w->L = L;
  w->nl = nl;
  w->sb = sb + from * L[0].ss;
  w->db = db + from * L[0].ds;
  w->cb = cb + from * L[0].cs;
  if (L[0].tab) { /* the part starts at pair `from` */
    const int64_t *t = p->tabs + L[0].tab - 1;
    w->sb += t[2 * from];
    w->db += t[2 * from + 1];
    L[0].tab += 2 * from;
  }
  L[0].ext = to - from;
  int kl = li_kern_loops(b->kern);
  w->no = nl - (kl < nl ? kl : nl);
  w->idx = idx;
  for (int i = 0; i < nl; i++) idx[i] = 0;
  w->in = &L[nl - 1];
  w->se = p->s.esz;
  w->de = p->d.esz;
  w->pat = p->pats[b->pat];
  w->dpat = p->pats[0];
  w->planes = p->d.v.nplanes && !b->raw ? p->d.v.nplanes : 0;
  w->pre = b->pre;
  w->post = b->post;
  w->off = off;
  w->noff = -1;
}

/* The row pads the step left, then the odometer's next step (table loops
** move to their next offset pair); 0 after the last step. */
static inline __attribute__((always_inline)) int
walk_next(walk *w, uint8_t *d) {
  const li_loop *L = w->L;
  if (w->pre) fill_n(d - w->pre * (int64_t)w->de, 1, w->pre, w->dpat, w->de);
  if (w->post)
    fill_n(d + w->in->ext * (int64_t)w->de, 1, w->post, w->dpat, w->de);
  w->pre = w->b->pre;
  w->post = w->b->post;
  for (int j = w->no - 1; j >= 0; j--) {
    if (L[j].tab) { /* to the next pair, or back to the first */
      const int64_t *t = w->p->tabs + L[j].tab - 1;
      int64_t i0 = w->idx[j], i1 = i0 + 1 < L[j].ext ? i0 + 1 : 0;
      w->sb += t[2 * i1] - t[2 * i0];
      w->db += t[2 * i1 + 1] - t[2 * i0 + 1];
    }
    w->sb += L[j].ss;
    w->db += L[j].ds;
    w->cb += L[j].cs;
    if (++w->idx[j] < L[j].ext) return 1;
    w->sb -= L[j].ss * L[j].ext;
    w->db -= L[j].ds * L[j].ext;
    w->cb -= L[j].cs * L[j].ext;
    w->idx[j] = 0;
  }
  return 0;
}

/* A fill box of memsets (or, FILL, of byte planes: the destination's
** elements single bytes) runs as rows: its last two loops a row's runs
** (one loop: one run), a memset a run (short runs: inline stores, or
** masked 64-byte stores over several), and an odometer of its own over
** the loops outside, with none of the walk's per-step work. A fill of
** byte planes does the same in each plane with that plane's byte
** (kneron.16w1c8bhl's 8 pad pixels of a row's last block: 3584 rows, 74
** -> 44 us for the pack of [1,64,56,56] int16, when the walk took a step
** a row; crouton2x2's 108 pad channels of each 128-byte block, 96 runs
** in 3 x 2 x 16 loops). Planes side by side (pstride 1, an element's
** planes its bytes, back to back) whose pad bytes are all one byte are
** one plane of runs np times as long (kneron.8w1c16b's pad pixels). */
static int adjacent_fill(const li_plan *p, const li_box *b) {
  const li_loop *in = &p->loops[b->l0 + b->nl - 1];
  const int np = p->d.v.nplanes;
  const uint8_t *pat = p->pats[b->pat];
  if (b->kern != LI_K_FILL || np < 2 || p->d.pstride != 1 || in->ds != np)
    return 0;
  for (int k = 1; k < np; k++)
    if (pat[k] != pat[0]) return 0;
  return 1;
}

static int runs_fill(const li_plan *p, const li_box *b) {
  const li_loop *in = &p->loops[b->l0 + b->nl - 1];
  for (int i = 0; i < b->nl; i++)
    if (p->loops[b->l0 + i].tab) return 0;
  return b->kern == LI_K_MEMSET ||
         (b->kern == LI_K_FILL && p->d.v.nplanes && !b->raw &&
          p->d.esz == 1 && (in->ds == 1 || adjacent_fill(p, b)));
}

/* n runs of `run` elements of esz bytes, ds elements apart, from d, set
** to the byte pattern pat (its first byte: memsets). */
static void fill_runs(const li_plan *p, uint8_t *d, int64_t ds, int64_t n,
                      int64_t run, const uint8_t *pat) {
  const size_t esz = p->d.esz;
  const int64_t rb = run * (int64_t)esz, step = ds * (int64_t)esz;
#if defined(LI_HAVE_X86_TARGET)
  if (n > 1 && p->simd >= LI_SIMD_AVX512 &&
      fill_masked(d, ds, n, run, pat, esz))
    return;
#endif
  if (n == 1 || rb == step) {
    memset(d, pat[0], (size_t)(n * rb));
    return;
  }
  if (rb <= 64) { /* short runs: inline stores, not a call a run */
    for (int64_t i = 0; i < n; i++, d += step) padb(d, rb, pat[0]);
    return;
  }
  for (int64_t i = 0; i < n; i++, d += step) memset(d, pat[0], (size_t)rb);
}

static void memset_runs(const li_plan *p, const li_box *b, uint8_t *dst,
                        int64_t from, int64_t to) {
  const li_loop *L = &p->loops[b->l0];
  const int64_t de = (int64_t)p->d.esz;
  const int nl = b->nl, no = nl > 2 ? nl - 2 : 0; /* loops outside a row */
  /* planes side by side: one of them, w bytes an element */
  const int adj = adjacent_fill(p, b), w = adj ? p->d.v.nplanes : 1;
  const int np = b->kern == LI_K_FILL && !adj ? p->d.v.nplanes : 1;
  /* a row: n runs of `run` elements, ds elements apart */
  const int64_t run = (nl == 1 ? 1 : L[nl - 1].ext) * w;
  const int64_t ds = nl == 1 ? L[0].ds : L[nl - 2].ds;
  const int64_t n = no ? L[nl - 2].ext : to - from;
  int64_t idx[LI_MAX_LOOPS]; /* [0, no) set below: no zeroing of it all */
  for (int k = 0; k < np; k++) {
    const uint8_t *pat = p->pats[b->pat] + k;
    uint8_t *d = dst + k * p->d.pstride + (b->db + from * L[0].ds) * de;
    if (nl == 1) { /* one run */
      memset(d, pat[0], (size_t)((to - from) * de * w));
      continue;
    }
    for (int j = 0; j < no; j++) idx[j] = j ? 0 : from;
    for (;;) {
      fill_runs(p, d, ds, n, run, pat);
      int j = no - 1; /* the odometer over the loops outside */
      for (; j >= 0; j--) {
        d += L[j].ds * de;
        if (++idx[j] < (j ? L[j].ext : to)) break;
        d -= L[j].ds * de * (j ? L[j].ext : to - from);
        idx[j] = j ? 0 : from;
      }
      if (j < 0) break;
    }
  }
}

/* The walk of loops Lb[0 .. nl) of box b (walk_start), a kernel step at
** each odometer step. */
static void run_walk(const li_plan *p, const li_box *b, const li_loop *Lb,
                     int nl, int64_t sb, int64_t db, int64_t cb,
                     const uint8_t *src, const uint8_t *send, uint8_t *dst,
                     int64_t from, int64_t to) {
  li_loop L[LI_MAX_LOOPS];
  int64_t idx[LI_MAX_LOOPS];
  int64_t off[512]; /* ILV2/DEILV2 row offsets (rows * 8 <= 4096) */
  walk w;
  if (from >= to || b->kern == LI_K_DONE) return;
  if (Lb == &p->loops[b->l0]) { /* the box's own loops, not a slab's */
    if (runs_fill(p, b)) {
      memset_runs(p, b, dst, from, to);
      return;
    }
    if (b->nl == 1 && b->kern == LI_K_MEMCPY && !b->pre && !b->post) {
      const li_loop *l = Lb; /* one run: no walk */
      memcpy(dst + (db + from * l->ds) * (int64_t)p->d.esz,
             src + (sb + from * l->ss) * (int64_t)p->s.esz,
             (size_t)((to - from) * (int64_t)p->d.esz));
      return;
    }
  }
  walk_start(&w, p, b, Lb, nl, sb, db, cb, src, send, dst, from, to, L, idx,
             off);
  do {
    uint8_t *d = dst + w.db * (int64_t)w.de;
    switch (b->kern) { /* one case a kernel of the registry */
#define X(id, name, loops, what) \
  case LI_K_##id: step_##id(&w, d); break;
      LI_KERNELS(X)
#undef X
    default: break;
    }
    if (!walk_next(&w, d)) return;
  } while (1);
}

/* A staged box (plan_int.h li_stage), the part [from, to) of its outer
** loop: an odometer over its loops outside the slab; at each step the
** slab filled from the source and the kernel's walk from it, or the walk
** into the slab and the slab copied out. */
static void run_staged(const li_plan *p, const li_box *b, const uint8_t *src,
                       uint8_t *dst, int64_t from, int64_t to) {
  const li_stage *g = &p->stage[b->stage - 1];
  const li_loop *L = &p->loops[b->l0];
  const int k = g->k, xd = g->dst;
  const size_t xe = xd ? p->d.esz : p->s.esz;
  _Alignas(64) uint8_t slab[LI_STAGE_BYTES + 2 * LI_STAGE_MARGIN];
  li_stage_log log;
  int64_t idx[LI_MAX_LOOPS]; /* the odometer's [0, k): no zeroing of all */
  int64_t sb = b->sb, db = b->db, cb = b->cb, fill = g->span;
  if (k == 0 && (from != 0 || to != L[0].ext)) return; /* runs whole */
  for (int j = 0; j < k; j++) idx[j] = 0;
  if (k > 0) {
    sb += from * L[0].ss;
    db += from * L[0].ds;
    cb += from * L[0].cs;
    idx[0] = from;
  }
  if (!xd) /* the kernels' reads past the span: whole blocks, vectors */
    fill += LI_STAGE_MARGIN / (int64_t)xe;
  log.base = slab;
  log.n = 0;
  for (;;) {
    if (!xd) {
      li_stage_fill(g, src, xe, p->pats[0], slab, sb, fill, &log);
      run_walk(p, b, L + k, b->nl - k, 0, db, cb, slab, slab + fill * (int64_t)xe,
               dst, 0, L[k].ext);
    } else {
      run_walk(p, b, L + k, b->nl - k, sb, 0, cb, src, src + p->sbytes, slab,
               0, L[k].ext);
      li_stage_drain(g, slab, xe, dst, db, g->span);
    }
    int j = k - 1; /* the odometer over the loops outside the slab */
    for (; j >= 0; j--) {
      sb += L[j].ss;
      db += L[j].ds;
      cb += L[j].cs;
      if (++idx[j] < (j ? L[j].ext : to)) break;
      if (j == 0) return;
      sb -= L[j].ss * L[j].ext;
      db -= L[j].ds * L[j].ext;
      cb -= L[j].cs * L[j].ext;
      idx[j] = 0;
    }
    if (j < 0) return;
  }
}

void li_exec_box(const li_plan *p, const li_box *b, const uint8_t *src,
                 uint8_t *dst, int64_t from, int64_t to) {
  if (from >= to) return;
  if (b->stage) {
    run_staged(p, b, src, dst, from, to);
    return;
  }
  if (b->kern == LI_K_MEMSET && b->nl == 1) { /* one run: no walk, no rows */
    const li_loop *l = &p->loops[b->l0];
    memset(dst + (b->db + from * l->ds) * (int64_t)p->d.esz,
           p->pats[b->pat][0], (size_t)((to - from) * (int64_t)p->d.esz));
    return;
  }
  if (b->kern == LI_K_MEMSET && runs_fill(p, b)) {
    memset_runs(p, b, dst, from, to);
    return;
  }
  if (b->nl == 1 && b->kern == LI_K_MEMCPY && !b->pre && !b->post) {
    const li_loop *l = &p->loops[b->l0]; /* one run: no walk */
    memcpy(dst + (b->db + from * l->ds) * (int64_t)p->d.esz,
           src + (b->sb + from * l->ss) * (int64_t)p->s.esz,
           (size_t)((to - from) * (int64_t)p->d.esz));
    return;
  }
  run_walk(p, b, &p->loops[b->l0], b->nl, b->sb, b->db, b->cb, src,
           src + p->sbytes, dst, from, to);
}

/* ---- Run ------------------------------------------------------------------- */
/* A run on several threads cuts the plan into chunks: the boxes one after
** the other, each box's outer loop in order, cut where the bytes moved so
** far (read + written) reach k / n of the whole. A chunk is a contiguous
** stretch of that sequence (the end of one box, whole boxes, the start of
** another); each writes its own destination bytes, since boxes are
** disjoint and iterations of a box's outer loop are too. A lone row with
** its pads (a box of one loop with pre or post) is never cut: a cut would
** write pads at the cut; nor is a staged box with no loop outside its
** slab. */
#define LI_MAX_CHUNKS (4 * (LI_POOL_MAX + 1))

typedef struct cut {
  int box;       /* the box the chunk starts in (nbox: the end) */
  int64_t it;    /* and its first iteration of that box's outer loop */
} cut;

typedef struct chunks {
  const li_plan *p;
  const uint8_t *src;
  uint8_t *dst;
  int b0, b1;                 /* the boxes cut: [b0, b1) */
  int n;                      /* chunks */
  cut at[LI_MAX_CHUNKS + 1];  /* chunk k runs from at[k] to at[k + 1] */
} chunks;

/* Whether box b can only run whole (see above). */
static int whole(const li_box *b, const li_plan *p) {
  return (b->nl == 1 && (b->pre || b->post)) ||
         (b->stage && p->stage[b->stage - 1].k == 0);
}

/* How much slower per byte than a copy box b's kernel runs, in the one
** estimate the split decision and the cuts use. Measured (the sweep, one
** thread, quiet machine, 1-2 MB buffers in L3): row and block copies move
** 2 MB (read + written) in 22-32 us, transposes, gather tiles and value
** rules 3.2 MB in 60-300 us: at least 3x slower. But with a weight of 3
** the 1.6 MB fp32 transposes of qnn's layouts (3.2 MB moved, 66-195 us
** on one thread) split, and ran at 0.59-0.96x on two threads (sweep of
** 2026-11-25, load 3): their weight is 2, which splits a transpose from
** 2 MB buffers on. */
static int64_t box_weight(const li_plan *p, const li_box *b) {
  switch (b->kern) {
  case LI_K_MEMCPY: case LI_K_ROWS: case LI_K_BLOCK: case LI_K_MEMSET:
  case LI_K_FILL:
    return p->slow ? 2 : 1;
  default:
    return 2;
  }
}

/* The bytes box b moves per iteration of its outer loop (a whole box: in
** all), weighted by box_weight, and in *units the iterations a cut may
** fall between (1: whole). */
static int64_t box_bytes(const li_plan *p, const li_box *b, int64_t *units) {
  const li_loop *L = &p->loops[b->l0];
  int64_t n = 1;
  for (int i = 1; i < b->nl; i++) n *= L[i].ext;
  if (b->kern == LI_K_TRG || b->kern == LI_K_TRC) /* a step: 16 bytes' rows */
    n *= 16 / (int64_t)p->d.esz;
  if (b->kern == LI_K_MTILE) /* a step: the tile over its loops */
    n *= li_mtile_bytes(&p->mt[b->bk]) / (int64_t)p->d.esz;
  if (b->kern == LI_K_VSLAB) n *= p->vs->slab[b->bk].elems; /* a slab */
  int64_t rows = b->nl > 1 ? n / L[b->nl - 1].ext : 1;
  int64_t w = n * ((b->fill ? 0 : (int64_t)p->s.esz) + (int64_t)p->d.esz) +
              rows * (b->pre + b->post) * (int64_t)p->d.esz;
  *units = L[0].ext;
  if (whole(b, p)) { /* a lone row with its pads, or a staged box */
    w = b->nl > 1 ? L[0].ext * w
                  : L[0].ext * (int64_t)(p->s.esz + p->d.esz) +
                        (b->pre + b->post) * (int64_t)p->d.esz;
    *units = 1;
  }
  w *= box_weight(p, b);
  return w > 0 ? w : 1;
}

static int64_t plan_bytes(const li_plan *p, int b0, int b1) {
  int64_t all = 0, u;
  for (int i = b0; i < b1; i++) all += box_bytes(p, &p->box[i], &u) * u;
  return all;
}

/* Cut the `all` bytes of boxes [c->b0, c->b1) into c->n chunks of about
** the same bytes. */
static void cut_plan(chunks *c, int64_t all) {
  const li_plan *p = c->p;
  int bi = c->b0;
  int64_t before = 0, u = 0; /* bytes of the boxes before bi */
  int64_t w = bi < c->b1 ? box_bytes(p, &p->box[bi], &u) : 0;
  c->at[0] = (cut){bi, 0};
  for (int k = 1; k < c->n; k++) {
    double goal = (double)all * k / c->n;
    while (bi < c->b1 && (double)(before + w * u) <= goal) {
      before += w * u;
      if (++bi < c->b1) w = box_bytes(p, &p->box[bi], &u);
    }
    int64_t it = 0;
    if (bi < c->b1) {
      it = (int64_t)((goal - (double)before) / (double)w + 0.5);
      if (it > u) it = u;
      if (whole(&p->box[bi], p)) it = 0;
    }
    c->at[k] = (cut){bi, it};
  }
  c->at[c->n] = (cut){c->b1, 0};
}

static void run_chunk(void *arg, int k) {
  const chunks *c = arg;
  const li_plan *p = c->p;
  cut a = c->at[k], z = c->at[k + 1];
  for (int i = a.box; i <= z.box && i < c->b1; i++) {
    const li_box *b = &p->box[i];
    int64_t e = p->loops[b->l0].ext;
    int64_t from = i == a.box ? a.it : 0, to = i == z.box ? z.it : e;
    if (whole(b, p)) {
      if (from == 0 && to > 0) li_exec_box(p, b, c->src, c->dst, 0, e);
      continue;
    }
    li_exec_box(p, b, c->src, c->dst, from, to);
  }
}

/* ---- Pads that ride with their data ---------------------------------------- */
/* A fill box whose outer loop is a data box's (the same extent and
** destination stride, its base within one step of the data box's) writes
** the holes between that box's rows: channel pads inside a c%8 block, the
** tail of a 64-byte row. Run after the data box, it walks the whole
** destination again; run beside it, LI_RIDE_BYTES of destination at a
** time (the fills' same steps that start before the data box's, its
** steps, then the fills' that start after: one sweep in address order),
** its lines are still in L1 (ti.tidl pack int8 [1,128,254,254]: 343 ->
** 326 us, one thread's CPU time, median of 5; small plans unchanged).
** The boxes are disjoint, so the order changes no byte; a plan whose
** boxes overlap (an unpack through a partial gather table)
** runs its boxes in order. On several threads the chunks run the boxes
** in order (the tests compare the two). */
#define LI_RIDE_BYTES (16 << 10)
#define LI_RIDE_MAX 8 /* fill boxes riding one data box */

static int rides_on(const li_plan *p, const li_box *f, const li_box *b) {
  const li_loop *lf = &p->loops[f->l0], *lb = &p->loops[b->l0];
  int64_t gap = f->db - b->db;
  return f->fill && !b->fill && f->kern != LI_K_DONE && !whole(f, p) &&
         !whole(b, p) && !lf->tab &&
         !lb->tab && lf->ext == lb->ext && lf->ds == lb->ds && lb->ds > 0 &&
         gap > -lb->ds && gap < lb->ds;
}

static void run_riding(const li_plan *p, const uint8_t *src, uint8_t *dst) {
  unsigned char done[256] = {0};
  if (p->nbox > 256 || (p->s.table && p->d.is_cpu)) {
    for (int i = 0; i < p->nbox; i++)
      li_exec_box(p, &p->box[i], src, dst, 0, p->loops[p->box[i].l0].ext);
    return;
  }
  const int64_t de = (int64_t)p->d.esz;
  for (int i = 0; i < p->nbox; i++) {
    if (done[i]) continue;
    const li_box *b = &p->box[i];
    const li_loop *l = &p->loops[b->l0];
    int rider[LI_RIDE_MAX], nr = 0;
    int64_t step = LI_RIDE_BYTES / (l->ds * de > 0 ? l->ds * de : 1);
    if (!b->fill && step < l->ext)
      for (int j = i + 1; j < p->nbox && nr < LI_RIDE_MAX; j++)
        if (!done[j] && rides_on(p, &p->box[j], b)) rider[nr++] = j;
    if (!nr) {
      li_exec_box(p, b, src, dst, 0, l->ext);
      continue;
    }
    if (step < 1) step = 1;
    for (int64_t a = 0; a < l->ext; a += step) {
      int64_t z = a + step < l->ext ? a + step : l->ext;
      for (int r = 0; r < nr; r++) /* in address order: pads before */
        if (p->box[rider[r]].db < b->db)
          li_exec_box(p, &p->box[rider[r]], src, dst, a, z);
      li_exec_box(p, b, src, dst, a, z);
      for (int r = 0; r < nr; r++) /* and after the data */
        if (p->box[rider[r]].db >= b->db)
          li_exec_box(p, &p->box[rider[r]], src, dst, a, z);
    }
    for (int r = 0; r < nr; r++) done[rider[r]] = 1;
  }
}

/* Boxes [b0, b1) on nt threads: up to 4 chunks a thread, each of at
** least a quarter of the minimum (a thread that wakes late, or loses its
** core, leaves less behind). */
static void run_split(const li_plan *p, const uint8_t *src, uint8_t *dst,
                      int nt, int64_t min, int b0, int b1) {
  int64_t all = plan_bytes(p, b0, b1);
  chunks c = {p, src, dst, b0, b1, 4 * nt, {{0, 0}}};
  int64_t most = all / (min / 4 > 0 ? min / 4 : 1);
  if (most < c.n) c.n = (int)most;
  if (c.n < nt) c.n = nt;
  cut_plan(&c, all);
  li_pool_run(nt - 1, c.n, run_chunk, &c);
}

/* The split decision, measured (the sweep, quiet machine, 2 vCPUs, wall
** time of lay_plan_run(..., 2) against (..., 1)): what decides whether a
** second thread pays is the run's time, not its bytes. Runs of 22-40 us
** (1-1.6 MB buffers of row copies) ran at 0.69-1.02x on two threads, runs
** of 60-90 us at 0.94-1.32x, runs of 120 us and more at 1.5-1.8x, and the
** 8 MB cases (720 us and more) at 1.7-3.0x: a hand-off to the pool costs
** about 20 us of a run's wall time on this machine. The estimate is the
** bytes moved weighted by the kernel's cost (box_weight); a run takes a
** thread per LI_SPLIT_MIN (4 MB) of it: a copy from a 4 MB buffer on,
** a transpose or a value rule from 2 MB on. */
lay_status li_plan_run(const li_plan *p, const void *src, size_t src_bytes,
                       void *dst, size_t dst_bytes, int threads,
                       lay_error *err) {
  if (!p) return li_fail(err, LAY_E_ARG, "no plan");
  if (src_bytes < p->sbytes)
    return li_fail(err, LAY_E_BUFFER, "input is %zu bytes, the plan needs %zu",
                 src_bytes, p->sbytes);
  if (dst_bytes < p->dbytes)
    return li_fail(err, LAY_E_BUFFER,
                 "output buffer is %zu bytes, the plan needs %zu", dst_bytes,
                 p->dbytes);
  if ((!src && p->sbytes) || (!dst && p->dbytes))
    return li_fail(err, LAY_E_ARG, "missing buffer");
  /* an unpack through a gather table that does not hold every element
  ** fills the CPU side first (the boxes overlap): one thread */
  int nt = p->s.table && p->d.is_cpu && p->nbox > 1 ? 1 : threads;
  int64_t all = 0, min = 0;
  if (nt > 1) {
    min = li_pool_split_min();
    if (min < 1) min = 1;
    all = plan_bytes(p, 0, p->nbox);
    if (nt > LI_POOL_MAX + 1) nt = LI_POOL_MAX + 1;
    if (nt > li_pool_cpus()) nt = li_pool_cpus();
    if (all / min < nt) nt = (int)(all / min);
  }
  if (nt <= 1) { /* the calling thread, the pool untouched */
    if (p->nbox > 1 && p->dbytes > LI_RIDE_BYTES && !p->spill) {
      run_riding(p, src, dst); /* else one step, or in order */
      return LAY_OK;
    }
    for (int i = 0; i < p->nbox; i++)
      li_exec_box(p, &p->box[i], src, dst, 0, p->loops[p->box[i].l0].ext);
    return LAY_OK;
  }
  /* spilled data boxes run before the boxes that fill over them: the
  ** two groups one after the other, each cut into chunks of its own */
  if (p->spill) {
    run_split(p, src, dst, nt, min, 0, p->spill);
    if (p->spill < p->nbox) run_split(p, src, dst, nt, min, p->spill, p->nbox);
  } else {
    run_split(p, src, dst, nt, min, 0, p->nbox);
  }
  return LAY_OK;
}
