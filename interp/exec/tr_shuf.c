/*
** tr_shuf.c: narrow transpositions of any width, the shapes tr.c's tiles
** leave to staging: m < T rows of A interleaved into groups (3 planes
** into RGB pixels, 5 channels into a 16-channel block with its pads),
** and groups of a few elements split back into rows (T = 16 / element
** size, the tile side).
**
** The narrow destination: m rows of A are P registers (P the power of two
** at or above m; rows m..P-1 are zero), T columns each; log2(P) rounds of
** the perfect shuffle (tr.c's network) leave register j holding columns
** jQ..jQ+Q-1 (Q = T / P) as groups of P elements. One byte shuffle per
** 16 output bytes (pshufb, a mask per output chunk, computed once per
** call from the index formula) drops the P - m dummies, inserts the pad
** elements around the m (OR with the pad pattern where the mask yields
** zero) and gives the Q groups of W elements; the chunks are stored in
** order, each 16 bytes, so that the bytes a chunk writes past its groups
** are rewritten by the next one. The last tile, whose chunks would run
** past the end of B, is built in a buffer and copied.
**
** The narrow source, its inverse: T rows of A of lda < T elements (cols
** <= lda of them read) are P overlapping 16-byte loads, each shuffled
** into Q rows of P elements (the cols read, zeros after), and log2(T)
** rounds leave register i holding column i of the T rows: B's row i.
**
** pshufb is SSSE3, which every AVX2 CPU has: these kernels run at
** LI_SIMD_AVX2 and above (VEX-encoded); below it tr.c's staging tile
** takes these shapes, as before. With AVX-512 VBMI, 64-byte registers
** and two-register byte permutes take the narrow source and the narrow
** destination of up to 4 rows instead (see "AVX-512 VBMI" below).
*/
#include <string.h>

#include "plan_int.h"
#include "tr_shuf.h"

#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
#include <immintrin.h>
#define SH_X86 1
#endif

#define SH_CH 16   /* output chunks of one register, at most (256 bytes) */
#define SH_GB 64   /* bytes of one destination group, at most */

/* The masks of one call: output chunk t of every register is
** shuffle(register, mask[t]) | pad[t]; a register gives v bytes. */
typedef struct sh_masks {
  int nch;                 /* chunks a register */
  size_t v;                /* output bytes a register */
  size_t rs;               /* bytes from one register's groups to the next */
  size_t off[SH_CH];       /* where chunk t goes, from its register's */
  uint8_t mask[SH_CH][16]; /* source byte of each output byte, 0x80: none */
  uint8_t pad[SH_CH][16];  /* the pad byte where the mask has none */
} sh_masks;

/* The smallest power of two at or above n (n >= 1). */
static int pow2_at(int64_t n) {
  int p = 1;
  while (p < n) p *= 2;
  return p;
}

static int log2_of(int p) {
  int k = 0;
  while ((1 << k) < p) k++;
  return k;
}

#if defined(SH_X86)
/* One round of the perfect shuffle at element width W (tr.c's TR_ROUND). */
#define SH_ROUND(W, r, n)                                              \
  do {                                                                 \
    __m128i o_[16];                                                    \
    LI_UNROLL for (int i_ = 0; i_ < (n) / 2; i_++) {                   \
      o_[2 * i_] = _mm_unpacklo_epi##W(r[i_], r[i_ + (n) / 2]);        \
      o_[2 * i_ + 1] = _mm_unpackhi_epi##W(r[i_], r[i_ + (n) / 2]);    \
    }                                                                  \
    LI_UNROLL for (int i_ = 0; i_ < (n); i_++) r[i_] = o_[i_];         \
  } while (0)

#define SH_LD(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define SH_ST(p, x) _mm_storeu_si128((__m128i *)(void *)(p), (x))

/* The narrow destination for P registers of W-bit elements: rows i < m of
** A (lda bytes apart) from a, the tile's P * v output bytes (and up to 15
** more) at o. */
#define SH_NDST(NAME, W, P, ROUNDS)                                          \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t lda, int m, uint8_t *o, const sh_masks *k) {  \
    __m128i r[P];                                                            \
    LI_UNROLL for (int i = 0; i < (P); i++)                                  \
      r[i] = i < m ? SH_LD(a + (size_t)i * lda) : _mm_setzero_si128();       \
    LI_UNROLL for (int s = 0; s < (ROUNDS); s++) SH_ROUND(W, r, P);          \
    if (k->nch == 1) {                                                       \
      const __m128i mk = SH_LD(k->mask[0]), pv = SH_LD(k->pad[0]);           \
      LI_UNROLL for (int j = 0; j < (P); j++)                                \
        SH_ST(o + (size_t)j * k->rs,                                         \
              _mm_or_si128(_mm_shuffle_epi8(r[j], mk), pv));                 \
      return;                                                                \
    }                                                                        \
    const size_t rs = k->rs;                                                 \
    const int nch = k->nch;                                                  \
    if (k->v % 16 == 0) { /* no chunk runs past its groups: any order */     \
      for (int t = 0; t < nch; t++) {                                        \
        const __m128i mk = SH_LD(k->mask[t]), pv = SH_LD(k->pad[t]);         \
        uint8_t *ot = o + k->off[t];                                         \
        LI_UNROLL for (int j = 0; j < (P); j++)                              \
          SH_ST(ot + (size_t)j * rs,                                         \
                _mm_or_si128(_mm_shuffle_epi8(r[j], mk), pv));               \
      }                                                                      \
      return;                                                                \
    }                                                                        \
    LI_UNROLL for (int j = 0; j < (P); j++)                                  \
      for (int t = 0; t < nch; t++)                                          \
        SH_ST(o + (size_t)j * rs + k->off[t],                                \
              _mm_or_si128(_mm_shuffle_epi8(r[j], SH_LD(k->mask[t])),        \
                           SH_LD(k->pad[t])));                               \
  }

SH_NDST(nd1_1, 8, 1, 0) SH_NDST(nd1_2, 8, 2, 1) SH_NDST(nd1_4, 8, 4, 2)
SH_NDST(nd1_8, 8, 8, 3) SH_NDST(nd1_16, 8, 16, 4)
SH_NDST(nd2_1, 16, 1, 0) SH_NDST(nd2_2, 16, 2, 1) SH_NDST(nd2_4, 16, 4, 2)
SH_NDST(nd2_8, 16, 8, 3)
SH_NDST(nd4_1, 32, 1, 0) SH_NDST(nd4_2, 32, 2, 1) SH_NDST(nd4_4, 32, 4, 2)
SH_NDST(nd8_1, 64, 1, 0) SH_NDST(nd8_2, 64, 2, 1)

typedef void (*ndst_fn)(const uint8_t *, size_t, int, uint8_t *,
                        const sh_masks *);

/* The same over two tiles side by side (AVX2): the low lanes take columns
** c..c+T-1, the high lanes the next T, whose groups start tb bytes on;
** the low lanes' chunks are all stored first (their last one may run
** into the second tile's groups). */
#define SH_ROUND2(W, r, n)                                             \
  do {                                                                 \
    __m256i o_[16];                                                    \
    LI_UNROLL for (int i_ = 0; i_ < (n) / 2; i_++) {                   \
      o_[2 * i_] = _mm256_unpacklo_epi##W(r[i_], r[i_ + (n) / 2]);     \
      o_[2 * i_ + 1] = _mm256_unpackhi_epi##W(r[i_], r[i_ + (n) / 2]); \
    }                                                                  \
    LI_UNROLL for (int i_ = 0; i_ < (n); i_++) r[i_] = o_[i_];         \
  } while (0)
#define SH_BC(p) _mm256_broadcastsi128_si256(SH_LD(p))

#define SH_NDST2(NAME, W, P, ROUNDS)                                         \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t lda, int m, uint8_t *o, size_t tb,            \
      const sh_masks *k) {                                                   \
    __m256i r[P];                                                            \
    LI_UNROLL for (int i = 0; i < (P); i++)                                  \
      r[i] = i < m ? _mm256_loadu_si256(                                     \
                         (const __m256i *)(const void *)(a + (size_t)i * lda)) \
                   : _mm256_setzero_si256();                                 \
    LI_UNROLL for (int s = 0; s < (ROUNDS); s++) SH_ROUND2(W, r, P);         \
    const size_t rs = k->rs;                                                 \
    const __m256i mk = SH_BC(k->mask[0]), pv = SH_BC(k->pad[0]);             \
    LI_UNROLL for (int j = 0; j < (P); j++)                                  \
      r[j] = _mm256_or_si256(_mm256_shuffle_epi8(r[j], mk), pv);             \
    LI_UNROLL for (int j = 0; j < (P); j++)                                  \
      SH_ST(o + (size_t)j * rs, _mm256_castsi256_si128(r[j]));               \
    LI_UNROLL for (int j = 0; j < (P); j++)                                  \
      SH_ST(o + tb + (size_t)j * rs, _mm256_extracti128_si256(r[j], 1));     \
  }

/* [log2 esz][log2 P] */
static const ndst_fn ndst_tab[4][5] = {
    {nd1_1, nd1_2, nd1_4, nd1_8, nd1_16},
    {nd2_1, nd2_2, nd2_4, nd2_8, NULL},
    {nd4_1, nd4_2, nd4_4, NULL, NULL},
    {nd8_1, nd8_2, NULL, NULL, NULL}};

SH_NDST2(nw1_1, 8, 1, 0) SH_NDST2(nw1_2, 8, 2, 1) SH_NDST2(nw1_4, 8, 4, 2)
SH_NDST2(nw1_8, 8, 8, 3) SH_NDST2(nw1_16, 8, 16, 4)
SH_NDST2(nw2_1, 16, 1, 0) SH_NDST2(nw2_2, 16, 2, 1) SH_NDST2(nw2_4, 16, 4, 2)
SH_NDST2(nw2_8, 16, 8, 3)
SH_NDST2(nw4_1, 32, 1, 0) SH_NDST2(nw4_2, 32, 2, 1) SH_NDST2(nw4_4, 32, 4, 2)
SH_NDST2(nw8_1, 64, 1, 0) SH_NDST2(nw8_2, 64, 2, 1)

typedef void (*ndst2_fn)(const uint8_t *, size_t, int, uint8_t *, size_t,
                         const sh_masks *);
static const ndst2_fn ndst2_tab[4][5] = {
    {nw1_1, nw1_2, nw1_4, nw1_8, nw1_16},
    {nw2_1, nw2_2, nw2_4, nw2_8, NULL},
    {nw4_1, nw4_2, nw4_4, NULL, NULL},
    {nw8_1, nw8_2, NULL, NULL, NULL}};

/* The narrow source for P registers of W-bit elements: register j is the
** 16 bytes at a + j * step shuffled by mask; B's rows i < nb stored at b
** (ldb bytes apart). */
#define SH_NSRC(NAME, W, P, ROUNDS)                                          \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t step, const uint8_t *mask, uint8_t *b,        \
      size_t ldb, int nb) {                                                  \
    __m128i r[P];                                                            \
    const __m128i mk = SH_LD(mask);                                          \
    LI_UNROLL for (int j = 0; j < (P); j++)                                  \
      r[j] = _mm_shuffle_epi8(SH_LD(a + (size_t)j * step), mk);              \
    LI_UNROLL for (int s = 0; s < (ROUNDS); s++) SH_ROUND(W, r, P);          \
    for (int i = 0; i < nb; i++) SH_ST(b + (size_t)i * ldb, r[i]);           \
  }

SH_NSRC(ns1_1, 8, 1, 0) SH_NSRC(ns1_2, 8, 2, 4) SH_NSRC(ns1_4, 8, 4, 4)
SH_NSRC(ns1_8, 8, 8, 4) SH_NSRC(ns1_16, 8, 16, 4)
SH_NSRC(ns2_1, 16, 1, 0) SH_NSRC(ns2_2, 16, 2, 3) SH_NSRC(ns2_4, 16, 4, 3)
SH_NSRC(ns2_8, 16, 8, 3)
SH_NSRC(ns4_1, 32, 1, 0) SH_NSRC(ns4_2, 32, 2, 2) SH_NSRC(ns4_4, 32, 4, 2)
SH_NSRC(ns8_1, 64, 1, 0) SH_NSRC(ns8_2, 64, 2, 1)

typedef void (*nsrc_fn)(const uint8_t *, size_t, const uint8_t *, uint8_t *,
                        size_t, int);
static const nsrc_fn nsrc_tab[4][5] = {
    {ns1_1, ns1_2, ns1_4, ns1_8, ns1_16},
    {ns2_1, ns2_2, ns2_4, ns2_8, NULL},
    {ns4_1, ns4_2, ns4_4, NULL, NULL},
    {ns8_1, ns8_2, NULL, NULL, NULL}};

/* The same over 2T rows (AVX2): the low lanes take the first T, the high
** lanes the T from tb bytes on; B's rows are stored 2T elements a row. */
#define SH_NSRC2(NAME, W, P, ROUNDS)                                         \
  __attribute__((target("avx2"))) static void NAME(                          \
      const uint8_t *a, size_t step, size_t tb, const uint8_t *mask,         \
      uint8_t *b, size_t ldb, int nb) {                                      \
    __m256i r[P];                                                            \
    const __m256i mk = SH_BC(mask);                                          \
    LI_UNROLL for (int j = 0; j < (P); j++)                                  \
      r[j] = _mm256_shuffle_epi8(                                            \
          _mm256_inserti128_si256(                                           \
              _mm256_castsi128_si256(SH_LD(a + (size_t)j * step)),           \
              SH_LD(a + tb + (size_t)j * step), 1),                          \
          mk);                                                               \
    LI_UNROLL for (int s = 0; s < (ROUNDS); s++) SH_ROUND2(W, r, P);         \
    for (int i = 0; i < nb; i++)                                             \
      _mm256_storeu_si256((__m256i *)(void *)(b + (size_t)i * ldb), r[i]);   \
  }

SH_NSRC2(nv1_1, 8, 1, 0) SH_NSRC2(nv1_2, 8, 2, 4) SH_NSRC2(nv1_4, 8, 4, 4)
SH_NSRC2(nv1_8, 8, 8, 4) SH_NSRC2(nv1_16, 8, 16, 4)
SH_NSRC2(nv2_1, 16, 1, 0) SH_NSRC2(nv2_2, 16, 2, 3) SH_NSRC2(nv2_4, 16, 4, 3)
SH_NSRC2(nv2_8, 16, 8, 3)
SH_NSRC2(nv4_1, 32, 1, 0) SH_NSRC2(nv4_2, 32, 2, 2) SH_NSRC2(nv4_4, 32, 4, 2)
SH_NSRC2(nv8_1, 64, 1, 0) SH_NSRC2(nv8_2, 64, 2, 1)

typedef void (*nsrc2_fn)(const uint8_t *, size_t, size_t, const uint8_t *,
                         uint8_t *, size_t, int);
static const nsrc2_fn nsrc2_tab[4][5] = {
    {nv1_1, nv1_2, nv1_4, nv1_8, nv1_16},
    {nv2_1, nv2_2, nv2_4, nv2_8, NULL},
    {nv4_1, nv4_2, nv4_4, NULL, NULL},
    {nv8_1, nv8_2, NULL, NULL, NULL}};
#endif /* SH_X86 */

/* The masks of the narrow destination: register j holds Q = T / P groups
** of P elements (group q: A's column jQ + q, element i from row i); its
** v = Q * W * esz output bytes are Q groups of W: output byte x is
** element e = x / esz % W of group x / (W * esz), A's row e - pre where
** that is below m, else the pad. */
static void ndst_masks(sh_masks *k, size_t esz, int P, int64_t m, int64_t W,
                       int64_t gp, int64_t pre, const uint8_t *pat) {
  size_t T = 16 / esz, Q = T / (size_t)P, gb = (size_t)W * esz;
  k->v = Q * gb;
  k->nch = (int)((k->v + 15) / 16);
  /* chunks back to back, or (gaps between the groups, gb a multiple of
  ** 16) each group's chunks at its own place */
  k->rs = gp == W ? k->v : Q * (size_t)gp * esz;
  for (int t = 0; t < k->nch; t++)
    k->off[t] = gp == W ? 16 * (size_t)t
                        : 16 * (size_t)t / gb * (size_t)gp * esz +
                              16 * (size_t)t % gb;
  /* the byte's group q, element e and byte bb counted along (no division:
  ** a BLOCK step of a few tiles builds its masks every call) */
  size_t q = 0, bb = 0;
  int64_t e = 0;
  for (size_t p = 0; p < 16 * (size_t)k->nch; p++) {
    uint8_t *mk = &k->mask[p / 16][p % 16], *pd = &k->pad[p / 16][p % 16];
    int64_t i = e - pre;
    int data = p < k->v && i >= 0 && i < m;
    *mk = data ? (uint8_t)((q * (size_t)P + (size_t)i) * esz + bb) : 0x80;
    *pd = data || p >= k->v || !pat ? 0 : pat[bb];
    if (++bb == esz) {
      bb = 0;
      if (++e == W) {
        e = 0;
        q++;
      }
    }
  }
}

#if defined(SH_X86)
/* ---- AVX-512 VBMI: whole registers through byte permutes ------------------
** A step takes 64 bytes of each of its n input registers and makes each
** output register from them by byte permutes over pairs of registers
** (vpermt2b: any byte of 128), an OR a pair, where the permutes of the
** 16-byte kernels above took log2(P) rounds and a 16-byte store a chunk:
** interleaving, the m planes' 64 bytes each make W registers of whole
** groups (RGB planes -> pixels: 3 registers in, 3 out, 2 permutes an
** output); deinterleaving, 64 pixels' bytes (lda registers) make one
** register a channel. Tails go under masks: no load past A's bytes, no
** store past B's. The table (which pair gives each byte, and where from)
** is made once for a shape and kept per thread. Min of 40, before ->
** after: NHWC -> NCHW uint8 [1,224,224,3] 5.2 -> 3.6 us, fp32 20 -> 16,
** int8 [1,56,56,5] 0.60 -> 0.43, int16 [1,64,64,6] 1.43 -> 1.26; NCHW ->
** NHWC uint8 [1,3,224,224] 4.8 -> 4.5. */
#define SH_VBMI __attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define SH_NO 64 /* output registers of a step, at most */

typedef struct sh_vperm {
  int64_t key[8];          /* the shape the table is for */
  int nout, npair;         /* output registers; pairs of input ones */
  uint8_t idx[SH_NO][64];  /* byte q of output r: byte idx & 127 of its pair */
  uint64_t k[SH_NO][8];    /* the bytes pair j gives output r */
  uint64_t padk[SH_NO];    /* the bytes no pair gives: the pad's */
} sh_vperm;

/* Byte q of output r comes from input byte `src` (-1: a pad). */
static void vperm_set(sh_vperm *t, int r, int q, int64_t src) {
  if (src < 0) {
    t->padk[r] |= 1ull << q;
    return;
  }
  t->idx[r][q] = (uint8_t)(src & 127);
  t->k[r][src >> 7] |= 1ull << q;
}

/* Output register r of a step from NP pairs of inputs (an odd count's
** last one paired with zeros): each pair's bytes permuted, kept under
** its mask, ORed over the pad's (padv: 0 where there is none). */
SH_VBMI static inline __attribute__((always_inline)) __m512i
vperm_one(const sh_vperm *t, int r, const __m512i *in, __m512i padv,
          const int NP) {
  const __m512i ix = _mm512_loadu_si512((const void *)t->idx[r]);
  __m512i o = _mm512_maskz_mov_epi8((__mmask64)t->padk[r], padv);
  for (int j = 0; j < NP; j++)
    o = _mm512_or_si512(o, _mm512_maskz_permutex2var_epi8(
                               (__mmask64)t->k[r][j], in[2 * j], ix,
                               in[2 * j + 1]));
  return o;
}

static __mmask64 sh_bmask(int64_t n) { /* the first n bytes, n <= 64 */
  return n >= 64 ? ~(__mmask64)0 : (((__mmask64)1 << n) - 1);
}

/* The narrow destination (li_shuf_ndst's arguments, gp == W): 64 / esz
** columns a step, W registers of groups. */
SH_VBMI static inline __attribute__((always_inline)) void
ndst_vbmi_k(const sh_vperm *t, size_t esz, const uint8_t *a, size_t la,
            int m, int64_t cols, uint8_t *g, int64_t W, __m512i padv,
            const int NP) {
  const int64_t E = (int64_t)(64 / esz);
  __m512i in[16];
  for (int i = m; i < 2 * NP; i++) in[i] = _mm512_setzero_si512();
  for (int64_t c = 0; c < cols; c += E) {
    const int64_t n = cols - c < E ? cols - c : E;
    const __mmask64 lm = sh_bmask(n * (int64_t)esz);
    for (int i = 0; i < m; i++) {
      const uint8_t *x = a + (size_t)i * la + (size_t)c * esz;
      in[i] = n == E ? _mm512_loadu_si512((const void *)x)
                     : _mm512_maskz_loadu_epi8(lm, x);
    }
    uint8_t *o = g + (size_t)(c * W) * esz;
    const int64_t nb = n * W * (int64_t)esz;
    for (int r = 0; r < t->nout && 64 * r < nb; r++) {
      const __m512i v = vperm_one(t, r, in, padv, NP);
      if (64 * r + 64 <= nb)
        _mm512_storeu_si512((void *)(o + 64 * r), v);
      else
        _mm512_mask_storeu_epi8(o + 64 * r, sh_bmask(nb - 64 * r), v);
    }
  }
}

SH_VBMI static void ndst_vbmi(const sh_vperm *t, size_t esz,
                              const uint8_t *a, size_t la, int m,
                              int64_t cols, uint8_t *g, int64_t W,
                              const uint8_t *pat) {
  uint8_t pb[64] = {0};
  for (int i = 0; pat && i < 64; i++) pb[i] = pat[(size_t)i % esz];
  const __m512i padv = _mm512_loadu_si512((const void *)pb);
  switch (t->npair) { /* constant pair counts: the pairs unrolled */
#define NK(NP) \
  case NP: ndst_vbmi_k(t, esz, a, la, m, cols, g, W, padv, NP); return;
    NK(1) NK(2) NK(3) NK(4) NK(5) NK(6) NK(7) default: NK(8)
#undef NK
  }
}

/* The narrow source (shuf_nsrc's arguments): 64 / esz rows of A a step,
** one register a column read. */
SH_VBMI static inline __attribute__((always_inline)) void
nsrc_vbmi_k(const sh_vperm *t, size_t esz, const uint8_t *a, int64_t lda,
            uint8_t *b, size_t lb, int64_t rows, int64_t cols, const int NP) {
  const int64_t E = (int64_t)(64 / esz);
  const __m512i z = _mm512_setzero_si512();
  __m512i in[16];
  for (int i = 0; i < 2 * NP; i++) in[i] = z;
  for (int64_t r = 0; r < rows; r += E) {
    const int64_t n = rows - r < E ? rows - r : E;
    /* the bytes read: the last row's up to its last column read */
    const int64_t nb = ((n - 1) * lda + cols) * (int64_t)esz;
    const uint8_t *ar = a + (size_t)(r * lda) * esz;
    for (int i = 0; i < lda; i++)
      in[i] = 64 * i + 64 <= nb
                  ? _mm512_loadu_si512((const void *)(ar + 64 * i))
              : 64 * i >= nb
                  ? z
                  : _mm512_maskz_loadu_epi8(sh_bmask(nb - 64 * i), ar + 64 * i);
    const __mmask64 sm = sh_bmask(n * (int64_t)esz);
    for (int c = 0; c < cols; c++) {
      uint8_t *o = b + (size_t)c * lb + (size_t)r * esz;
      const __m512i v = vperm_one(t, c, in, z, NP);
      if (n == E) _mm512_storeu_si512((void *)o, v);
      else _mm512_mask_storeu_epi8(o, sm, v);
    }
  }
}

SH_VBMI static void nsrc_vbmi(const sh_vperm *t, size_t esz,
                              const uint8_t *a, int64_t lda, uint8_t *b,
                              size_t lb, int64_t rows, int64_t cols) {
  switch (t->npair) {
#define NK(NP) \
  case NP: nsrc_vbmi_k(t, esz, a, lda, b, lb, rows, cols, NP); return;
    NK(1) NK(2) NK(3) NK(4) NK(5) NK(6) NK(7) default: NK(8)
#undef NK
  }
}

/* The table of a shape, the thread's last one kept. ndst: m planes into
** groups of W (pre pads first); nsrc: cols of rows of lda elements. */
static const sh_vperm *vperm_of(int dst, size_t esz, int64_t m, int64_t W,
                                int64_t pre) {
  static _Thread_local sh_vperm t;
  const int64_t now[8] = {1, dst, (int64_t)esz, m, W, pre, 0, 0};
  if (!memcmp(t.key, now, sizeof now)) return &t;
  const int64_t e = (int64_t)esz;
  t.nout = (int)W; /* ndst: groups of W; nsrc: the cols read */
  t.npair = (int)(m + 1) / 2; /* ndst: m planes; nsrc: lda registers */
  /* the rows this shape uses only: a new shape costs ~nout * 64 steps */
  memset(t.k, 0, (size_t)t.nout * sizeof t.k[0]);
  memset(t.padk, 0, (size_t)t.nout * sizeof t.padk[0]);
  if (dst) { /* output r byte q: group element gi, column gi / W */
    for (int r = 0; r < t.nout; r++)
      for (int q = 0; q < 64; q++) {
        const int64_t s = 64 * r + q, gi = s / e, pos = gi % W - pre;
        vperm_set(&t, r, q, pos >= 0 && pos < m
                                ? 64 * pos + gi / W * e + s % e : -1);
      }
  } else { /* output c (a column read) byte q: row q / e of the step */
    for (int c = 0; c < t.nout; c++)
      for (int q = 0; q < 64; q++)
        vperm_set(&t, c, q, (q / e * m + c) * e + q % e);
  }
  memcpy(t.key, now, sizeof now);
  return &t;
}

/* Whether the permutes take a shape: AVX-512 VBMI, a step's outputs in
** the table, n elements for a step at least. */
static int vbmi_may(size_t esz, int simd, int64_t nout, int64_t n) {
  return simd >= LI_SIMD_AVX512 && nout >= 1 && nout <= SH_NO &&
         n >= (int64_t)(64 / esz) && li_have_vbmi();
}
#endif

int li_shuf_ndst(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
                 const uint8_t *a, int64_t lda, int64_t m, int64_t cols,
                 uint8_t *g, int64_t gp, int64_t W, int64_t pre,
                 const uint8_t *pat) {
#if defined(SH_X86)
  int64_t T = (int64_t)(16 / esz);
  if (simd < LI_SIMD_AVX2 || (esz != 1 && esz != 2 && esz != 4 && esz != 8) ||
      m < 1 || m >= T || pre < 0 || pre + m > W ||
      W * (int64_t)esz > SH_GB || cols < T || gp < W ||
      (gp > W && W * (int64_t)esz % 16))
    return 0;
  /* the permutes where a register takes at most two pairs: with three
  ** (5 channels into groups of 32, sweep.c32 pack int8 [1,37,29,23])
  ** they ran 1.1 -> 1.4 us, mostly pad bytes */
  if (gp == W && m <= 4 && vbmi_may(esz, simd, W, cols)) {
    ndst_vbmi(vperm_of(1, esz, m, W, pre), esz, a, (size_t)lda * esz,
              (int)m, cols, g, W, pat);
    return 1;
  }
  /* P: m rows, and few enough chunks a register (W / P of them) */
  int P = pow2_at(m);
  while ((W + P - 1) / P > SH_CH) P *= 2;
  if (P > T) return 0;
  ndst_fn f = ndst_tab[log2_of((int)esz)][log2_of(P)];
  /* the masks of the thread's last call, kept: a block step of one or two
  ** tiles is called many times with the same shape */
  static _Thread_local sh_masks k;
  static _Thread_local int64_t key[7];
  uint64_t pv = 0;
  if (pat) memcpy(&pv, pat, esz);
  const int64_t now[7] = {(int64_t)esz, P, m, W, gp, pre, (int64_t)pv};
  if (memcmp(key, now, sizeof now)) {
    ndst_masks(&k, esz, P, m, W, gp, pre, pat);
    memcpy(key, now, sizeof now);
  }
  size_t la = (size_t)lda * esz, gb = (size_t)gp * esz;
  /* A's columns c..c+T-1 are inside its rows, hence inside [lo, hi) */
  (void)lo;
  (void)hi;
  int64_t c = 0;
  /* two tiles a step (AVX2) where a register gives one chunk */
  ndst2_fn f2 = k.nch == 1 ? ndst2_tab[log2_of((int)esz)][log2_of(P)] : NULL;
  size_t tb = (size_t)T * gb; /* bytes of one tile's groups */
  if (gp > W) { /* whole chunks at their groups: nothing past a tile */
    if (f2)
      for (; c + 2 * T <= cols; c += 2 * T)
        f2(a + (size_t)c * esz, la, (int)m, g + (size_t)c * gb, tb, &k);
    for (; c < cols; c += T) {
      int64_t c0 = c + T > cols ? cols - T : c; /* shifted back */
      f(a + (size_t)c0 * esz, la, (int)m, g + (size_t)c0 * gb, &k);
    }
    return 1;
  }
  /* whole tiles while their chunks' overrun (< 16 bytes) stays in B */
  if (f2)
    for (; (size_t)(c + 2 * T) * gb + 16 <= (size_t)cols * gb; c += 2 * T)
      f2(a + (size_t)c * esz, la, (int)m, g + (size_t)c * gb, tb, &k);
  for (; (size_t)(c + T) * gb + 16 <= (size_t)cols * gb; c += T)
    f(a + (size_t)c * esz, la, (int)m, g + (size_t)c * gb, &k);
  for (; c < cols; c += T) { /* the rest through a buffer, shifted back */
    int64_t c0 = c + T > cols ? cols - T : c;
    uint8_t buf[16 * SH_GB + 16];
    f(a + (size_t)c0 * esz, la, (int)m, buf, &k);
    memcpy(g + (size_t)c0 * gb, buf, (size_t)T * gb);
  }
  return 1;
#else
  (void)esz, (void)simd, (void)lo, (void)hi, (void)a, (void)lda, (void)m;
  (void)cols, (void)g, (void)W, (void)pre, (void)pat;
  return 0;
#endif
}

#if defined(SH_X86)
/* The narrow source: A's rows r..r+T-1 (lda < T elements apart, cols
** read) into B's cols rows (ldb apart), column r. */
static int shuf_nsrc(size_t esz, const uint8_t *hi, const uint8_t *a,
                     int64_t lda, uint8_t *b, int64_t ldb, int64_t rows,
                     int64_t cols) {
  int64_t T = (int64_t)(16 / esz);
  /* P: cols, and Q rows of lda elements inside one 16-byte load */
  int P = pow2_at(cols);
  while (P < T && (T / P - 1) * lda + cols > T) P *= 2;
  if ((T / P - 1) * lda + cols > T) return 0;
  nsrc_fn f = nsrc_tab[log2_of((int)esz)][log2_of(P)];
  size_t Q = (size_t)(T / P), la = (size_t)lda * esz, lb = (size_t)ldb * esz;
  size_t step = Q * la;
  uint8_t mask[16];
  for (size_t x = 0; x < 16; x++) {
    size_t q = x / ((size_t)P * esz), i = x / esz % (size_t)P, bb = x % esz;
    mask[x] = (int64_t)i < cols ? (uint8_t)((q * (size_t)lda + i) * esz + bb)
                                : 0x80;
  }
  int64_t r = 0;
  nsrc2_fn f2 = nsrc2_tab[log2_of((int)esz)][log2_of(P)];
  for (; r + 2 * T <= rows; r += 2 * T) { /* 2T rows a step while inside A */
    const uint8_t *ar = a + (size_t)r * la;
    if (ar + (size_t)T * la + (size_t)(P - 1) * step + 16 > hi) break;
    f2(ar, step, (size_t)T * la, mask, b + (size_t)r * esz, lb, (int)cols);
  }
  for (; r < rows; r += T) {
    int64_t rr = r + T > rows ? rows - T : r; /* shifted back */
    const uint8_t *ar = a + (size_t)rr * la;
    if (ar + (size_t)(P - 1) * step + 16 <= hi) {
      f(ar, step, mask, b + (size_t)rr * esz, lb, (int)cols);
    } else { /* the last loads would leave A: the tile's bytes copied */
      uint8_t buf[16 * 16 + 16] = {0}; /* the loads past it: defined */
      memcpy(buf, ar, (size_t)((T - 1) * lda + cols) * esz);
      f(buf, step, mask, b + (size_t)rr * esz, lb, (int)cols);
    }
  }
  return 1;
}
#endif

/* tr.c's kernels for rows of m = 2, 4, 8 elements (m * esz < 16): its
** narrow tile and narrow destination. */
static int tr_has(size_t esz, int64_t m) {
  return (m == 2 || m == 4 || m == 8) && m * (int64_t)esz < 16 && esz <= 4;
}

int li_shuf_tr2d(size_t esz, int simd, const uint8_t *lo, const uint8_t *hi,
                 const uint8_t *a, int64_t lda, uint8_t *b, int64_t ldb,
                 int64_t rows, int64_t cols) {
#if defined(SH_X86)
  int64_t T = (int64_t)(16 / esz);
  if (simd < LI_SIMD_AVX2 || (esz != 1 && esz != 2 && esz != 4 && esz != 8))
    return 0;
  if (rows < T && ldb == rows && cols >= T && !tr_has(esz, rows))
    return li_shuf_ndst(esz, simd, lo, hi, a, lda, rows, cols, b, rows, rows,
                        0, NULL);
  if (rows >= T && cols <= lda && lda < T && !tr_has(esz, lda)) {
    if (vbmi_may(esz, simd, cols, rows)) {
      nsrc_vbmi(vperm_of(0, esz, lda, cols, 0), esz, a, lda, b,
                (size_t)ldb * esz, rows, cols);
      return 1;
    }
    return shuf_nsrc(esz, hi, a, lda, b, ldb, rows, cols);
  }
  return 0;
#else
  (void)esz, (void)simd, (void)lo, (void)hi, (void)a, (void)lda, (void)b;
  (void)ldb, (void)rows, (void)cols;
  return 0;
#endif
}
