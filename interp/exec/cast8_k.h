/*
** cast8_k.h: the vector kernels of cast8.c's bulk fp8 conversions, written
** once over a set of operation macros and included three times, for SSE2
** (4 lanes), AVX2 (8) and AVX-512 (16; cast8.c decodes with these two,
** and AVX-512's comparisons give masks, which only BLEND takes). The
** includer defines K(name), K_ATTR, VI, VF and the operations (AND OR ADD
** SUB SRL SLL CMPEQ CMPGT BLEND SET1, float MULF SUBF CMPGEF, conversions
** CVTN (nearest even: the MXCSR's default mode, as value.c's fast_quant)
** CVTT CVTF, casts CASTF CASTI); this file undefines them at its end.
** Each lane holds one element in 32 bits.
*/

/* The constants of one conversion. */
typedef struct {
  VI absm, sgnm, rb, one, maxc, ovf, infc, nanc, inf, minn, e0, infcode,
      nanlo, qnan, low7, nrb;
  VF scale, half, minf;
  int ninf; /* infinities do not give the finite values' overflow code */
} K(cst);

static inline K_INL K_ATTR void K(setup)(K(cst) *c, const fp8fmt *f,
                                         int round, int saturate) {
  int sh = 23 - f->mbits, ovc = f->inf ? 0x7c : f->nanc;
  int addc = round == LG_R_HALF_EVEN ? (1 << (sh - 1)) - 1
             : round == LG_R_HALF_AWAY ? 1 << (sh - 1) : 0;
  c->absm = SET1(0x7fffffff);
  c->sgnm = SET1(0x80);
  c->rb = SET1(addc - ((127 - f->bias) << 23));
  c->one = SET1(1);
  c->maxc = SET1(f->maxc);
  c->ovf = SET1(round == LG_R_TRUNC || saturate ? f->maxc : ovc);
  c->infc = SET1(saturate ? f->maxc : ovc);
  c->ninf = !saturate && round == LG_R_TRUNC;
  c->nanc = SET1(f->nanc);
  c->inf = SET1(0x7f800000);
  c->minn = SET1((128 - f->bias) << 23); /* 2^emin */
  c->scale = CASTF(SET1((127 + f->bias - 1 + f->mbits) << 23));
  c->half = CASTF(SET1(0x3f000000));
  /* decoding */
  c->e0 = SET1(1 << f->mbits);              /* codes below: exponent 0 */
  c->infcode = SET1(f->inf ? 0x7c : 0x100); /* E4M3 has none */
  c->nanlo = SET1(f->inf ? 0x7c : 0x7e);    /* codes above are NaN */
  c->qnan = SET1(0x7fc00000);
  c->low7 = SET1(0x7f);
  c->nrb = SET1((127 - f->bias) << 23);
  c->minf = CASTF(c->minn);
}

/* fp32 bits u to fp8 codes without their sign (in 32-bit lanes), as
** li_fp8_encode of the fp32 value: the normal range rounds the rebiased bits at bit sh; below
** 2^emin the value in quanta (a * 2^(bias - 1 + mbits), exact) is
** rounded to an integer. */
static inline K_INL K_ATTR VI K(enc)(VI u, const K(cst) *c, const int mode,
                                     const int sh) {
  VI a = AND(u, c->absm);
  VI r = ADD(a, c->rb);
  if (mode == LG_R_HALF_EVEN) r = ADD(r, AND(SRL(a, sh), c->one));
  VI qn = SRL(r, sh), qs;
  VF x = MULF(CASTF(a), c->scale);
  if (mode == LG_R_HALF_EVEN) {
    qs = CVTN(x);
  } else {
    qs = CVTT(x);
    if (mode == LG_R_HALF_AWAY)
      qs = SUB(qs, CASTI(CMPGEF(SUBF(x, CVTF(qs)), c->half)));
  }
  VI q = BLEND(CMPGT(c->minn, a), qs, qn);
  q = BLEND(CMPGT(q, c->maxc), c->ovf, q); /* infinities too */
  if (c->ninf) q = BLEND(CMPEQ(a, c->inf), c->infc, q); /* or their own */
  return BLEND(CMPGT(a, c->inf), c->nanc, q);
}

/* fp8 codes v (in 32-bit lanes) to fp32 bits, as (float)li_fp8_decode:
** normal codes rebiased; exponent 0 as 2^emin * (1 + m / 2^mbits) -
** 2^emin (exact, no subnormal operand); NaN the positive quiet NaN. */
static inline K_INL K_ATTR VI K(dec)(VI v, const K(cst) *c, const int sh,
                                     const int e5) {
  VI l = AND(v, c->low7), em = SLL(l, sh);
  VI sub = CASTI(SUBF(CASTF(ADD(em, c->minn)), c->minf));
  VI r = BLEND(CMPGT(c->e0, l), sub, ADD(em, c->nrb));
  if (e5) r = BLEND(CMPEQ(l, c->infcode), c->inf, r); /* E4M3 has none */
  r = OR(r, SLL(AND(v, c->sgnm), 24));
  return BLEND(CMPGT(l, c->nanlo), c->qnan, r);
}

/* The vocabulary is the includer's for one instruction set: gone here. */
#undef K
#undef K_ATTR
#undef VI
#undef VF
#undef AND
#undef OR
#undef ADD
#undef SUB
#undef SRL
#undef SLL
#undef CMPEQ
#undef CMPGT
#undef BLEND
#undef SET1
#undef MULF
#undef SUBF
#undef CMPGEF
#undef CVTN
#undef CVTT
#undef CVTF
#undef CASTF
#undef CASTI
