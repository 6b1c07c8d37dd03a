/*
** planes.c: byte planes. Two kernels live here.
**
** PLANES (li_planes_run): a box between a side with byte planes (P: each
** element's split-type bits u stored as np bytes (u >> shift) & mask,
** plane q at q * pstride) and a side without (C), all its loops in one
** call. The loops are read as rows and columns:
**   - the rows: the loop along which P is contiguous (b, K rows, taken 16
**     at a time), or none (K = 1) when that loop is also C's run;
**   - the columns: the other loops in C's order. The innermost runs along
**     C (stride 1); the loops that continue it in C fold into a segment
**     (16 columns at least where they can, up to PL_GROW for the fewest
**     tiles a column; PL_SL with a value rule, for long conversion runs),
**     whose P offsets are tabulated once a call (where they repeat every
**     16 columns, one tile's offsets serve all: pl_x.per); the loops
**     outside walk the segments.
** A tile is K rows x 16 columns. Packing, its rows (read from C, or from
** an L1 buffer B into which the value rule converted them, many segments
** a call, quantized where they lie in C: value.c li_quant_rows) are
** split into np byte vectors each, and each plane's K x 16 bytes
** transposed in registers (log2 K rounds of byte unpacks) into 16
** rows of K bytes, stored at the columns' P offsets: 16-byte stores where
** P's rows are back to back (the offsets planned once a call: pl_tile),
** runs of rows else. Unpacking is the inverse. A segment's last tile
** overlaps the one before; segments shorter than a tile share tiles; in
** B (a value rule), segments of 17 columns or more that are not a
** multiple of 16 go in groups whose columns fill whole tiles where that
** pays (group_job). Any
** plane count, shifts and masks, split types of 1, 2, 4 or 8 bytes (the
** low 32 bits), any K (partial blocks padded in registers), per tensor or
** per channel rules. The pair (2 planes of 16-bit bits, Kneron's HL
** formats) has AVX2 tiles of its own: a row of 16 elements in one
** register, split into plane 0's bytes in the low lane and plane 1's in
** the high one, both planes' K x 16 tiles transposed at once. Packing, a
** fill box of the plane pad that is the rest of a box's rows (the
** channels past C of a partial entry) is written by the tiles as pad
** rows (li_planes_absorb): the partial entry and its pad in one store.
** With AVX-512 VBMI, the pair's whole tiles of 4 and 16 rows are made by
** byte permutes over two registers instead (tile_put_z, tile_get_z).
** The planner gives it every split but the pair without a rows' loop
** (li_planes_ok), which conv.c's row paths run faster.
**
** SPLIT2 (li_split2_3, li_split2_conv, exec.c step_SPLIT2): 2-byte
** elements split into 2 byte planes over three loops. The source's rows
** (one element of each of K <= 16 channels, K a power of two) run
** contiguous across the two outer loops when ss2 == n1 (Kneron's
** 4W4C8BHL: w%4 inside w/4), so 16 rows at a time are loaded as K
** vectors, shifted, masked and packed to bytes, and log2(K) rounds of byte
** unpacks turn the K x 16 tile of each plane into 16 rows of K bytes in
** registers. Destination rows of K bytes back to back (dso == K) are
** stored 16 bytes at a time. Everything else goes to kern_ilv.c
** li_split2, one step of the outer loop at a time. li_split2_conv is the
** same with a value rule: each chunk of CR rows is first converted
** (li_encode, per channel as each channel's own rule) into a stack buffer
** of 16-bit elements, then split from there: one extra pass over L1.
*/
#include "kern.h"
#include "pair16.h"

#define PL_SL 1024    /* columns of a segment's offset table */
#define PL_B 16384    /* bytes of the bits buffer B */
#define PL_NP 256     /* segments (pieces) of one chunk */
#define PL_MAXL 16    /* loops of a box */

/* A loop seen from the two sides: extent, C's and P's strides (elements),
** channel stride; a table loop (li_loop.tab, C's offsets i * cs): its P
** offsets t[2i] relative to t[0] (ps: its first step, for li_planes_ok). */
typedef struct pl_loop {
  int64_t n, cs, ps, ch;
  const int64_t *t;
} pl_loop;

/* One call's setup (pl_setup). */
typedef struct pl_x {
  const li_side *C, *P;
  int pack;                     /* C -> P */
  int np, hs;                   /* planes; bytes of the split type */
  int64_t pst;                  /* plane stride, bytes */
  int sh[LG_MAX_PLANES];
  uint32_t mk[LG_MAX_PLANES];   /* masks & 0xff */
  int conv;                     /* a value rule runs (else the bits move) */
  int perch;                    /* a per-channel rule */
  int simd;
  pl_loop b;                    /* the rows' loop (n 1: none) */
  int64_t bv;                   /* its rows C holds; b.n - bv rows of pad
                                   written with them (li_planes_absorb) */
  uint8_t pad[LG_MAX_PLANES];   /* the pad rows' byte in each plane */
  int nq, f;                    /* column loops (C order); f fold the segment */
  pl_loop q[PL_MAXL];
  int64_t sl;                   /* columns a segment */
  int lin;                      /* segment = q[0] alone: offsets i * q[0].ps
                                   (q[0] not a table loop) */
  const int32_t *off;           /* else the P offset of each column */
  int64_t per;                  /* and when off[i + 16] - off[i] is the
                                   same for every i: that (else 0) */
} pl_x;

/* ---- Split and combine ------------------------------------------------------ */
static uint32_t ld_u32(const uint8_t *p, int hs) {
  uint32_t u = 0;
  memcpy(&u, p, hs < 4 ? (size_t)hs : 4); /* little-endian host */
  return u;
}

static void st_u32(uint8_t *p, int hs, uint32_t u) {
  uint64_t w = u;
  memcpy(p, &w, (size_t)hs); /* little-endian host */
}

#if defined(__SSE2__)
typedef struct pl_vx {
  __m128i cnt[LG_MAX_PLANES];  /* shift counts */
  __m128i m16[LG_MAX_PLANES];  /* mask in 16-bit lanes */
  __m128i m32[LG_MAX_PLANES];  /* mask in 32-bit lanes */
  __m128i m8[LG_MAX_PLANES];   /* mask in bytes */
  __m128i r8[LG_MAX_PLANES];   /* 1-byte split: mask & (0xff >> shift) */
  __m128i c8[LG_MAX_PLANES];   /* 1-byte combine: (mask << shift) & 0xff */
  __m128i pad[LG_MAX_PLANES];  /* a pad row's bytes */
} pl_vx;

static inline __attribute__((always_inline)) void vx_init(const pl_x *x,
                                                        pl_vx *v) {
  for (int q = 0; q < x->np; q++) {
    const uint32_t m = x->mk[q];
    const int s = x->sh[q];
    v->cnt[q] = _mm_cvtsi32_si128(s);
    v->m16[q] = _mm_set1_epi16((short)m);
    v->m32[q] = _mm_set1_epi32((int)m);
    v->m8[q] = _mm_set1_epi8((char)m);
    v->r8[q] = _mm_set1_epi8((char)(s < 8 ? m & (0xffu >> s) : 0));
    v->c8[q] = _mm_set1_epi8((char)(s < 8 ? (m << s) & 0xffu : 0));
    v->pad[q] = _mm_set1_epi8((char)x->pad[q]);
  }
}

/* 4 vectors of the low 32 bits of 16 elements of 8 bytes. */
static inline __attribute__((always_inline)) void
lo32x16(const uint8_t *s, __m128i *w) {
  for (int j = 0; j < 4; j++) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + 32 * j));
    __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(s + 32 * j + 16));
    w[j] = _mm_unpacklo_epi64(_mm_shuffle_epi32(a, 0x08),
                              _mm_shuffle_epi32(c, 0x08));
  }
}

/* The np planes of 16 elements of hs bytes at s. */
static inline __attribute__((always_inline)) void
split16(const pl_vx *v, int np, int hs, const uint8_t *s, __m128i *p) {
  if (hs == 1) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
    for (int q = 0; q < np; q++)
      p[q] = _mm_and_si128(_mm_srl_epi16(x, v->cnt[q]), v->r8[q]);
    return;
  }
  if (hs == 2) {
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)s);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(s + 16));
    for (int q = 0; q < np; q++)
      p[q] = _mm_packus_epi16(
          _mm_and_si128(_mm_srl_epi16(x0, v->cnt[q]), v->m16[q]),
          _mm_and_si128(_mm_srl_epi16(x1, v->cnt[q]), v->m16[q]));
    return;
  }
  __m128i w[4];
  if (hs == 4)
    LI_UNROLL for (int j = 0; j < 4; j++)
      w[j] = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * j));
  else
    lo32x16(s, w);
  for (int q = 0; q < np; q++) {
    __m128i a[4];
    LI_UNROLL for (int j = 0; j < 4; j++)
      a[j] = _mm_and_si128(_mm_srl_epi32(w[j], v->cnt[q]), v->m32[q]);
    p[q] = _mm_packus_epi16(_mm_packs_epi32(a[0], a[1]),
                            _mm_packs_epi32(a[2], a[3]));
  }
}

/* The planes p[0..np) of 16 elements combined into their bits at d. */
static inline __attribute__((always_inline)) void
combine16(const pl_vx *v, int np, int hs, const __m128i *p, uint8_t *d) {
  const __m128i z = _mm_setzero_si128();
  if (hs == 1) {
    __m128i r = z;
    for (int q = 0; q < np; q++)
      r = _mm_or_si128(r, _mm_and_si128(
                              _mm_sll_epi16(_mm_and_si128(p[q], v->m8[q]),
                                            v->cnt[q]),
                              v->c8[q]));
    _mm_storeu_si128((__m128i *)(void *)d, r);
    return;
  }
  if (hs == 2) {
    __m128i lo = z, hi = z;
    for (int q = 0; q < np; q++) {
      __m128i a = _mm_and_si128(p[q], v->m8[q]);
      lo = _mm_or_si128(lo, _mm_sll_epi16(_mm_unpacklo_epi8(a, z), v->cnt[q]));
      hi = _mm_or_si128(hi, _mm_sll_epi16(_mm_unpackhi_epi8(a, z), v->cnt[q]));
    }
    _mm_storeu_si128((__m128i *)(void *)d, lo);
    _mm_storeu_si128((__m128i *)(void *)(d + 16), hi);
    return;
  }
  __m128i w[4] = {z, z, z, z};
  for (int q = 0; q < np; q++) {
    __m128i a = _mm_and_si128(p[q], v->m8[q]);
    __m128i l = _mm_unpacklo_epi8(a, z), h = _mm_unpackhi_epi8(a, z);
    w[0] = _mm_or_si128(w[0], _mm_sll_epi32(_mm_unpacklo_epi16(l, z), v->cnt[q]));
    w[1] = _mm_or_si128(w[1], _mm_sll_epi32(_mm_unpackhi_epi16(l, z), v->cnt[q]));
    w[2] = _mm_or_si128(w[2], _mm_sll_epi32(_mm_unpacklo_epi16(h, z), v->cnt[q]));
    w[3] = _mm_or_si128(w[3], _mm_sll_epi32(_mm_unpackhi_epi16(h, z), v->cnt[q]));
  }
  LI_UNROLL for (int j = 0; j < 4; j++) {
    if (hs == 4) {
      _mm_storeu_si128((__m128i *)(void *)(d + 16 * j), w[j]);
    } else { /* 8 bytes: zero above bit 31 */
      _mm_storeu_si128((__m128i *)(void *)(d + 32 * j), _mm_unpacklo_epi32(w[j], z));
      _mm_storeu_si128((__m128i *)(void *)(d + 32 * j + 16),
                       _mm_unpackhi_epi32(w[j], z));
    }
  }
}

/* K rows of 16 bytes into 16 rows of K bytes: v[t] then holds rows
** t * 16/K .. (t + 1) * 16/K - 1 (log2 K rounds of byte unpacks). */
static inline __attribute__((always_inline)) void tr_fwd(__m128i *v, int K) {
  LI_UNROLL for (int h = K / 2; h >= 1; h /= 2) {
    __m128i u[16];
    LI_UNROLL for (int j = 0; j < K / 2; j++) {
      u[2 * j] = _mm_unpacklo_epi8(v[j], v[j + K / 2]);
      u[2 * j + 1] = _mm_unpackhi_epi8(v[j], v[j + K / 2]);
    }
    LI_UNROLL for (int j = 0; j < K; j++) v[j] = u[j];
  }
}

/* The inverse of tr_fwd: each round's even and odd bytes apart. For K =
** 16 tr_fwd is the 16 x 16 transpose, its own inverse: its byte unpacks,
** a third of these rounds' operations. */
static inline __attribute__((always_inline)) void tr_inv(__m128i *v, int K) {
  if (K == 16) {
    tr_fwd(v, 16);
    return;
  }
  const __m128i lo = _mm_set1_epi16(0x00ff);
  LI_UNROLL for (int h = K / 2; h >= 1; h /= 2) {
    __m128i u[16];
    LI_UNROLL for (int j = 0; j < K / 2; j++) {
      __m128i a = v[2 * j], c = v[2 * j + 1];
      u[j] = _mm_packus_epi16(_mm_and_si128(a, lo), _mm_and_si128(c, lo));
      u[j + K / 2] = _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(c, 8));
    }
    LI_UNROLL for (int j = 0; j < K; j++) v[j] = u[j];
  }
}
#endif

/* ---- Tiles ------------------------------------------------------------------ */
/* n <= 16 bytes (overlapping word moves). */
static inline void cp16(uint8_t *d, const uint8_t *s, size_t n) {
  if (n > 16) n = 16;
  if (n >= 8) {
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + n - 8, 8);
    memcpy(d, &a, 8);
    memcpy(d + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    memcpy(d, &a, 4);
    memcpy(d + n - 4, &b, 4);
  } else {
    for (size_t i = 0; i < n; i++) d[i] = s[i];
  }
}

/* Where a tile's rows lie in P: runs of rows back to back, each at P
** offset off from the base of its piece pi (a tile over short segments
** spans several), from byte b of the tile's vectors stored one after the
** other (row r of vector j at (j * 16/K + r) * K), len bytes; whole: run
** j is vector j, 16 bytes. */
typedef struct pl_tile {
  int whole, n;
  struct {
    int32_t off;
    uint8_t pi, b, len;
  } r[16];
} pl_tile;

/* Column i of a segment: its P offset from the segment's. */
static inline int64_t seg_off(const pl_x *x, int64_t i) {
  return x->lin ? i * x->q[0].ps : x->off[i];
}

/* The runs of the tile over nv columns from column c0 of a segment, kc
** rows (kp: the power of two >= kc); sl > 0: the columns are those of
** segments of sl columns back to back, column c0 + r in piece (c0 + r) /
** sl. */
static void tile_plan(const pl_x *x, int64_t c0, int nv, int kc, int kp,
                      int64_t sl, pl_tile *T) {
  const int nr = 16 / kp;
  const int merge = kc == kp && x->b.n == kp; /* P's rows are the tile's */
  T->n = 0;
  for (int j = 0; j < kp && j * nr < nv; j++) {
    const int re = nv < (j + 1) * nr ? nv : (j + 1) * nr;
    for (int r = j * nr; r < re;) {
      const int64_t c = sl ? (c0 + r) % sl : c0 + r,
                    pi = sl ? (c0 + r) / sl : 0;
      const int64_t o = seg_off(x, c);
      int e = r + 1;
      while (merge && e < re && (sl ? (c0 + e) / sl == pi : 1) &&
             seg_off(x, sl ? (c0 + e) % sl : c0 + e) == o + (e - r) * kp)
        e++;
      T->r[T->n].off = (int32_t)o;
      T->r[T->n].pi = (uint8_t)pi;
      T->r[T->n].b = (uint8_t)(r * kp);
      T->r[T->n++].len = (uint8_t)((e - r - 1) * kp + kc);
      r = e;
    }
  }
  T->whole = T->n == kp;
  for (int i = 0; i < T->n; i++)
    if (T->r[i].len != 16) T->whole = 0;
}

#if defined(__SSE2__)
/* One tile: kv rows (of K, a power of two <= 16) of 16 columns of bits,
** row k at rows + k * rs; d: P at the tile's rows, pb[i] the offset of
** piece i. np and hs are constants where the caller's are. */
static inline __attribute__((always_inline)) void
tile_put(int64_t pst, const pl_vx *v, int np, int hs, const uint8_t *rows,
         int64_t rs, int kv, int K, uint8_t *d, const pl_tile *T,
         const int64_t *pb, const int64_t *vo) {
  if (K == 1 && vo) { /* rows of one: the planes as they are */
    __m128i p[LG_MAX_PLANES];
    split16(v, np, hs, rows, p);
    for (int q = 0; q < np; q++)
      _mm_storeu_si128((__m128i *)(void *)(d + vo[0] + q * pst), p[q]);
    return;
  }
  __m128i t[LG_MAX_PLANES][16];
  LI_UNROLL for (int k = 0; k < K; k++) {
    __m128i p[LG_MAX_PLANES];
    if (k < kv) split16(v, np, hs, rows + k * rs, p);
    for (int q = 0; q < np; q++) t[q][k] = k < kv ? p[q] : v->pad[q];
  }
  for (int q = 0; q < np; q++) {
    uint8_t *dq = d + q * pst;
    tr_fwd(t[q], K);
    if (vo) {
      LI_UNROLL for (int j = 0; j < K; j++)
        _mm_storeu_si128((__m128i *)(void *)(dq + vo[j]), t[q][j]);
      continue;
    }
    uint8_t tb[256];
    LI_UNROLL for (int j = 0; j < K; j++)
      _mm_storeu_si128((__m128i *)(void *)(tb + 16 * j), t[q][j]);
    for (int i = 0; i < T->n; i++)
      cp16(dq + pb[T->r[i].pi] + T->r[i].off, tb + T->r[i].b, T->r[i].len);
  }
}

static inline __attribute__((always_inline)) void
tile_get(int64_t pst, const pl_vx *v, int np, int hs, uint8_t *rows,
         int64_t rs, int kv, int K, const uint8_t *s, const pl_tile *T,
         const int64_t *pb, const int64_t *vo) {
  __m128i t[LG_MAX_PLANES][16];
  for (int q = 0; q < np; q++) {
    const uint8_t *sq = s + q * pst;
    if (vo) {
      LI_UNROLL for (int j = 0; j < K; j++)
        t[q][j] = _mm_loadu_si128((const __m128i *)(const void *)(sq + vo[j]));
    } else {
      uint8_t tb[256];
      memset(tb, 0, (size_t)(16 * K));
      for (int i = 0; i < T->n; i++)
        cp16(tb + T->r[i].b, sq + pb[T->r[i].pi] + T->r[i].off, T->r[i].len);
      LI_UNROLL for (int j = 0; j < K; j++)
        t[q][j] = _mm_loadu_si128((const __m128i *)(const void *)(tb + 16 * j));
    }
    tr_inv(t[q], K);
  }
  for (int k = 0; k < kv; k++) {
    __m128i p[LG_MAX_PLANES];
    for (int q = 0; q < np; q++) p[q] = t[q][k];
    combine16(v, np, hs, p, rows + k * rs);
  }
}

#endif

#if defined(LI_HAVE_X86_TARGET)
/* The pair (2 planes of 16-bit bits: Kneron's HL formats) on AVX2: a row
** of 16 elements is one register, split into its planes' 16 bytes each,
** plane 0 in the low lane and plane 1 in the high one; the lanes' K x 16
** tiles are transposed together (in-lane byte unpacks), and each vector
** is stored as its two lanes, pst bytes apart (one 32-byte store when the
** planes are 16 bytes apart: an HL entry). */
typedef struct pl_vy {
  __m128i c0, c1;  /* shift counts */
  __m256i m0, m1;  /* masks in 16-bit lanes */
  __m256i pad;     /* a pad row: plane 0's byte low, 1's high */
  int z;           /* AVX-512: the last tiles that are not whole by
                      masked moves (job_tl_z) */
} pl_vy;

__attribute__((target("avx2"), always_inline)) static inline void
vy_init(const pl_x *x, pl_vy *v) {
  v->c0 = _mm_cvtsi32_si128(x->sh[0]);
  v->c1 = _mm_cvtsi32_si128(x->sh[1]);
  v->m0 = _mm256_set1_epi16((short)x->mk[0]);
  v->m1 = _mm256_set1_epi16((short)x->mk[1]);
  v->pad = _mm256_set_m128i(_mm_set1_epi8((char)x->pad[1]),
                            _mm_set1_epi8((char)x->pad[0]));
  v->z = x->simd >= LI_SIMD_AVX512;
}

/* The runs of a tile that is not whole between its vectors t (plane 0
** low, 1 high) and P at d, each run a masked 16-byte move of its vector's
** lanes at the run's place less its offset in the vector (a run never
** crosses a vector: tile_plan): no bounce through the stack, whose
** variable-length copies took 20-25 ns a tile (the last, overlapping
** tile of a ragged dim's table loop: li_merge_ragged). Packing, the
** runs' bytes stored; unpacking (put 0), loaded into t, zeros elsewhere. */
__attribute__((target("avx2,avx512f,avx512bw,avx512vl"), always_inline))
static inline void runs512(int put, uint8_t *d, int64_t pst, __m256i *t, int K,
        const pl_tile *T, const int64_t *pb) {
  if (!put)
    for (int j = 0; j < K; j++) t[j] = _mm256_setzero_si256();
  for (int i = 0; i < T->n; i++) {
    const int b = T->r[i].b, o = b & 15;
    const __mmask16 m = (__mmask16)(((1u << T->r[i].len) - 1) << o);
    uint8_t *e = d + pb[T->r[i].pi] + T->r[i].off - o;
    if (put) {
      _mm_mask_storeu_epi8(e, m, _mm256_castsi256_si128(t[b / 16]));
      _mm_mask_storeu_epi8(e + pst, m, _mm256_extracti128_si256(t[b / 16], 1));
    } else {
      t[b / 16] = _mm256_or_si256(
          t[b / 16], _mm256_set_m128i(_mm_maskz_loadu_epi8(m, e + pst),
                                      _mm_maskz_loadu_epi8(m, e)));
    }
  }
}

/* 16 elements' bits at s: plane 0's bytes in the low lane, 1's high. */
__attribute__((target("avx2"), always_inline)) static inline __m256i
split_y(const pl_vy *v, const uint8_t *s) {
  return li_pair_split(_mm256_loadu_si256((const __m256i *)(const void *)s),
                       v->c0, v->c1, v->m0, v->m1);
}

/* The inverse: the two lanes' bytes combined into 16 elements at d. */
__attribute__((target("avx2"), always_inline)) static inline void
combine_y(const pl_vy *v, __m256i p, uint8_t *d) {
  _mm256_storeu_si256((__m256i *)(void *)d,
                      li_pair_comb(_mm256_castsi256_si128(p),
                                   _mm256_extracti128_si256(p, 1), v->c0,
                                   v->c1, v->m0, v->m1));
}

/* tr_fwd and tr_inv, both lanes at once. */
__attribute__((target("avx2"), always_inline)) static inline void
tr_fwd_y(__m256i *v, int K) {
  LI_UNROLL for (int h = K / 2; h >= 1; h /= 2) {
    __m256i u[16];
    LI_UNROLL for (int j = 0; j < K / 2; j++) {
      u[2 * j] = _mm256_unpacklo_epi8(v[j], v[j + K / 2]);
      u[2 * j + 1] = _mm256_unpackhi_epi8(v[j], v[j + K / 2]);
    }
    LI_UNROLL for (int j = 0; j < K; j++) v[j] = u[j];
  }
}

__attribute__((target("avx2"), always_inline)) static inline void
tr_inv_y(__m256i *v, int K) {
  if (K == 16) { /* the transpose, its own inverse (tr_inv) */
    tr_fwd_y(v, 16);
    return;
  }
  const __m256i lo = _mm256_set1_epi16(0x00ff);
  LI_UNROLL for (int h = K / 2; h >= 1; h /= 2) {
    __m256i u[16];
    LI_UNROLL for (int j = 0; j < K / 2; j++) {
      __m256i a = v[2 * j], c = v[2 * j + 1];
      u[j] = _mm256_packus_epi16(_mm256_and_si256(a, lo), _mm256_and_si256(c, lo));
      u[j + K / 2] = _mm256_packus_epi16(_mm256_srli_epi16(a, 8),
                                         _mm256_srli_epi16(c, 8));
    }
    LI_UNROLL for (int j = 0; j < K; j++) v[j] = u[j];
  }
}

/* Vector j's lanes at d + o (plane 0) and d + o + pst (plane 1). */
__attribute__((target("avx2"), always_inline)) static inline void
st_pair(uint8_t *d, int64_t o, int64_t pst, __m256i t) {
  if (pst == 16) {
    _mm256_storeu_si256((__m256i *)(void *)(d + o), t);
    return;
  }
  _mm_storeu_si128((__m128i *)(void *)(d + o), _mm256_castsi256_si128(t));
  _mm_storeu_si128((__m128i *)(void *)(d + o + pst),
                   _mm256_extracti128_si256(t, 1));
}

__attribute__((target("avx2"), always_inline)) static inline __m256i
ld_pair(const uint8_t *s, int64_t o, int64_t pst) {
  if (pst == 16) return _mm256_loadu_si256((const __m256i *)(const void *)(s + o));
  return _mm256_set_m128i(
      _mm_loadu_si128((const __m128i *)(const void *)(s + o + pst)),
      _mm_loadu_si128((const __m128i *)(const void *)(s + o)));
}

/* tile_put and tile_get for the pair (np, hs: 2, 2). */
__attribute__((target("avx2"), always_inline)) static inline void
tile_put_y(int64_t pst, const pl_vy *v, int np, int hs, const uint8_t *rows,
           int64_t rs, int kv, int K, uint8_t *d, const pl_tile *T,
           const int64_t *pb, const int64_t *vo) {
  (void)np; (void)hs;
  __m256i t[16];
  LI_UNROLL for (int k = 0; k < K; k++)
    t[k] = k < kv ? split_y(v, rows + k * rs) : v->pad;
  tr_fwd_y(t, K);
  if (vo) {
    LI_UNROLL for (int j = 0; j < K; j++) st_pair(d, vo[j], pst, t[j]);
    return;
  }
  uint8_t tb[2][256];
  LI_UNROLL for (int j = 0; j < K; j++) {
    _mm_storeu_si128((__m128i *)(void *)(tb[0] + 16 * j), _mm256_castsi256_si128(t[j]));
    _mm_storeu_si128((__m128i *)(void *)(tb[1] + 16 * j), _mm256_extracti128_si256(t[j], 1));
  }
  for (int q = 0; q < 2; q++)
    for (int i = 0; i < T->n; i++)
      cp16(d + q * pst + pb[T->r[i].pi] + T->r[i].off, tb[q] + T->r[i].b,
           T->r[i].len);
}

__attribute__((target("avx2"), always_inline)) static inline void
tile_get_y(int64_t pst, const pl_vy *v, int np, int hs, uint8_t *rows,
           int64_t rs, int kv, int K, const uint8_t *s, const pl_tile *T,
           const int64_t *pb, const int64_t *vo) {
  (void)np; (void)hs;
  __m256i t[16];
  if (vo) {
    LI_UNROLL for (int j = 0; j < K; j++) t[j] = ld_pair(s, vo[j], pst);
  } else {
    uint8_t tb[2][256];
    memset(tb[0], 0, (size_t)(16 * K)); /* rows the runs leave */
    memset(tb[1], 0, (size_t)(16 * K));
    for (int q = 0; q < 2; q++)
      for (int i = 0; i < T->n; i++)
        cp16(tb[q] + T->r[i].b, s + q * pst + pb[T->r[i].pi] + T->r[i].off,
             T->r[i].len);
    LI_UNROLL for (int j = 0; j < K; j++) t[j] = ld_pair(tb[0], 16 * j, 256);
  }
  tr_inv_y(t, K);
  for (int k = 0; k < kv && k < K; k++) combine_y(v, t[k], rows + k * rs);
}
#endif

/* A run of tiles: ns segments (or groups of short ones), each nt tiles
** and its last 16 columns (overlapping, TL) where it has more. */
typedef struct pl_job {
  uint8_t *rows;         /* the first tile's column 0: row k at + k * rs */
  int64_t rs;
  uint8_t *pl;           /* P at the first tile's rows */
  int ns, nt;
  int64_t ss, ps;        /* rows and P from a segment to the next (bytes) */
  int64_t tr, tp;        /* and from a tile to the next in a segment */
  const pl_tile *T;      /* tile i's runs T[i * tt] */
  int tt;
  const pl_tile *TL;     /* the last 16 columns' runs, or NULL */
  int64_t lr, lp;        /* their rows and P from the segment's */
  const int64_t *pb;     /* the pieces' P bases (tiles of short segments), */
  int pbs;               /* from pb + s * pbs for segment s */
  const int64_t *sb;     /* segment s's P at pl + sb[s] (NULL: s * ps) */
} pl_job;

#if defined(__SSE2__)
/* Kneron's 2 planes of 16-bit bits compiled apart (constants in the
** loop). */
#define PL_TILES(X) X(1) X(2) X(4) X(8) X(16)
/* vo: a whole tile's vector offsets (loads of them in the address of
** every store would keep the stores waiting). */
#define PL_VO(T, vo, pb)                                                     \
  for (int j_ = 0; j_ < KK; j_++)                                            \
    vo[j_] = (T)->whole ? (pb)[(T)->r[j_].pi] + (T)->r[j_].off : 0;
#define PL_JOB_K(F, NP, HS, KV)                                              \
  {                                                                          \
    int64_t vo[KK], vl[KK];                                                    \
    PL_VO(jj.T, vo, jj.pb)                                                   \
    if (jj.TL) PL_VO(jj.TL, vl, jj.pb)                                       \
    const int hv = jj.tt == 0 && jj.T->whole && !jj.pbs;                                \
    const int64_t *wl = jj.TL && jj.TL->whole && !jj.pbs ? vl : NULL;                   \
    for (int s = 0; s < jj.ns; s++) {                                        \
      uint8_t *r = jj.rows + s * jj.ss;                                      \
      uint8_t *p = jj.pl + (jj.sb ? jj.sb[s] : s * jj.ps);                   \
      const int64_t *pb = jj.pb + s * jj.pbs;                                \
      if (hv)                                                                \
        for (int i = 0; i < jj.nt; i++)                                      \
          F(pst, &vv, NP, HS, r + i * jj.tr, jj.rs, KV, KK, p + i * jj.tp,   \
            jj.T, pb, vo);                                                \
      else                                                                   \
        for (int i = 0; i < jj.nt; i++) {                                    \
          const pl_tile *T = jj.T + i * jj.tt;                               \
          int64_t vt[KK];                                                     \
          PL_VO(T, vt, pb)                                                   \
          F(pst, &vv, NP, HS, r + i * jj.tr, jj.rs, KV, KK, p + i * jj.tp,   \
            T, pb, T->whole ? vt : NULL);                                 \
        }                                                                    \
      /* AVX-512: the last tiles that are not whole by job_tl_z after    \
      ** the job (a call in here would spill the loop's constants) */    \
      if (jj.TL && (wl || !tlz))                                             \
        F(pst, &vv, NP, HS, r + jj.lr, jj.rs, KV, KK, p + jj.lp, jj.TL, pb,    \
          wl);                                                               \
    }                                                                        \
  }
/* The pair's packing tiles, whole (every row C's, the usual case), with
** their row count a constant: no test a row, and the rows stay in
** registers (4W4C8BHL pack int16 [1,36,29,24] 3.7 -> 3.45 us). Not for
** unpacking (1W16C8BHL unpack int16 [4,32,28,28] 12.6 -> 14.4 us), nor
** the other splits (their code twice made planes.o 1.75 times as
** large). */
#define PL_JOB(F, NP, HS)                                                     \
  {                                                                          \
    if (kv >= KK) PL_JOB_K(F, NP, HS, KK)                                   \
    else PL_JOB_K(F, NP, HS, kv)                                             \
  }
/* The job's fields and the constants in locals: the stores through
** uint8_t pointers would make the compiler load them again. */
#define X(K)                                                                  \
  static void job_put##K(const pl_x *x, int kv, const pl_job *j) {            \
    enum { KK = K };                                                          \
    pl_vx vv;                                                                 \
    vx_init(x, &vv);                                                          \
    const pl_job jj = *j;                                                     \
    const int64_t pst = x->pst;                                               \
    const int tlz = 0;                                                        \
    if (x->np == 2 && x->hs == 2) PL_JOB_K(tile_put, 2, 2, kv)             \
    else PL_JOB_K(tile_put, x->np, x->hs, kv)                              \
  }                                                                           \
  static void job_get##K(const pl_x *x, int kv, const pl_job *j) {            \
    enum { KK = K };                                                          \
    pl_vx vv;                                                                 \
    vx_init(x, &vv);                                                          \
    const pl_job jj = *j;                                                     \
    const int64_t pst = x->pst;                                               \
    const int tlz = 0;                                                        \
    if (x->np == 2 && x->hs == 2) PL_JOB_K(tile_get, 2, 2, kv)             \
    else PL_JOB_K(tile_get, x->np, x->hs, kv)                              \
  }
PL_TILES(X)
#undef X
#endif

#if defined(LI_HAVE_X86_TARGET)
#define X(K)                                                                  \
  __attribute__((target("avx2"))) static void                                 \
  job_put_y##K(const pl_x *x, int kv, const pl_job *j) {                      \
    enum { KK = K };                                                          \
    pl_vy vv;                                                                 \
    vy_init(x, &vv);                                                          \
    const pl_job jj = *j;                                                     \
    const int64_t pst = x->pst;                                               \
    const int tlz = vv.z;                                                     \
    PL_JOB(tile_put_y, 2, 2)                                                  \
  }                                                                           \
  __attribute__((target("avx2"))) static void                                 \
  job_get_y##K(const pl_x *x, int kv, const pl_job *j) {                      \
    enum { KK = K };                                                          \
    pl_vy vv;                                                                 \
    vy_init(x, &vv);                                                          \
    const pl_job jj = *j;                                                     \
    const int64_t pst = x->pst;                                               \
    const int tlz = vv.z;                                                     \
    PL_JOB_K(tile_get_y, 2, 2, kv)                                            \
  }                                                                           \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl"))) static void       \
  job_tl_z##K(const pl_x *x, int kv, const pl_job *j, const pl_tile *T,       \
              int nv) {                                                       \
    pl_vy vv;                                                                 \
    vy_init(x, &vv);                                                          \
    const __mmask16 m = (__mmask16)((1u << nv) - 1);                          \
    const int64_t lr = j->lr + (16 - nv) * 2;                                 \
    for (int s = 0; s < j->ns; s++) {                                         \
      uint8_t *r = j->rows + s * j->ss + lr;                                  \
      uint8_t *p = j->pl + (j->sb ? j->sb[s] : s * j->ps) + j->lp;            \
      __m256i t[16];                                                          \
      if (x->pack) {                                                          \
        LI_UNROLL for (int k = 0; k < K; k++)                                 \
          t[k] = k < kv ? li_pair_split(                                      \
                              _mm256_maskz_loadu_epi16(m, r + k * j->rs),     \
                              vv.c0, vv.c1, vv.m0, vv.m1)                     \
                        : vv.pad;                                             \
        tr_fwd_y(t, K);                                                       \
        runs512(1, p, x->pst, t, K, T, j->pb + s * j->pbs);                   \
      } else {                                                                \
        runs512(0, p, x->pst, t, K, T, j->pb + s * j->pbs);                   \
        tr_inv_y(t, K);                                                       \
        for (int k = 0; k < kv && k < K; k++)                                 \
          _mm256_mask_storeu_epi16(                                           \
              r + k * j->rs, m,                                               \
              li_pair_comb(_mm256_castsi256_si128(t[k]),                      \
                           _mm256_extracti128_si256(t[k], 1), vv.c0, vv.c1,   \
                           vv.m0, vv.m1));                                    \
      }                                                                       \
    }                                                                         \
  }
PL_TILES(X)
#undef X
#endif

#if defined(LI_HAVE_X86_TARGET)
/* The pair's whole tiles of K = 4 and 16 rows under AVX-512 VBMI: the
** same vectors t[j] as tile_put_y's (plane 0's bytes of vector j low,
** plane 1's high), two to a 512-bit register (t[2p] low, t[2p + 1]
** high), made by byte permutes over two registers (vpermt2b) where the
** AVX2 tiles take log2 K rounds of in-lane byte unpacks plus a pack and
** a lane move a row: all on one port (1W16C8BHL pack int16 [1,64,56,56]:
** 96 shuffles a 16 x 16 tile, now 8 + 24).
**
** Packing, a register holds two rows (K = 16: rows i and i + 8; K = 4:
** rows i and i + 2), and one multishift (vpmultishiftqb) takes each
** element's two plane bytes, (u >> sh) & mk, from its qword: in each
** qword, byte pl + 2 * w is plane pl's byte of element w. A byte of the
** tile is named by its row k, plane pl and column c; after the
** multishift its register's bits are k's low bits (k0 k1 k2 for K = 16,
** k0 for K = 4) and its byte's bits, low first, pl c0 c1 c2 c3 and k's
** high bit. The output registers' bits are the column's (c >> 1 for K =
** 16, c >> 3 for K = 4) and its bytes' k0 k1 k2 k3 pl c0 (K = 16: t[j]
** is column j) or k0 k1 c0 c1 pl c2 (K = 4: t[j] is columns 4j..4j+3).
** Each permute round trades one register bit for one byte bit: a pair
** of registers that differ in that register bit gives two registers
** that differ in the byte bit's old value (PL_SWAP: the same round
** undoes itself). K = 16 trades k0 for c1, k1 for c2, then k2 for c3
** with the bytes put in the output's order (PL_I16C); K = 4 is one
** round, its two sources the whole tile. Unpacking runs the rounds
** backwards (PL_I16U, then the two swaps; PL_I4U), and each word, plane
** 0's byte low and 1's high, is combined as li_pair_comb. The multishift
** reads an element's neighbour where a plane's bits would pass bit 15:
** such pairs (mk << sh > 0xffff) keep the AVX2 tiles (pl_vbmi_ok). */
/* unaligned 16- and 32-byte loads and stores */
#define PL_L16(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define PL_L32(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define PL_S16(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)
#define PL_S32(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)
#define PL_VBMI                                                              \
  __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512vbmi")))
#define PB(q, i) (((q) >> (i)) & 1)
/* the 64 bytes of a permute's indices, F(q) for q = 0..63 */
#define PL_Q8(F, a) \
  F(a) F(a + 1) F(a + 2) F(a + 3) F(a + 4) F(a + 5) F(a + 6) F(a + 7)
#define PL_Q64(F) PL_Q8(F, 0) PL_Q8(F, 8) PL_Q8(F, 16) PL_Q8(F, 24) \
  PL_Q8(F, 32) PL_Q8(F, 40) PL_Q8(F, 48) PL_Q8(F, 56)
/* register bit <-> byte bit b, the output's register bit v */
#define PL_SWAP(q, b, v) (((q) & ~(1 << (b))) | ((v) << (b)) | (PB(q, b) << 6))
#define PL_I16C(q, v) (PB(q, 4) | PB(q, 5) << 1 | PB(q, 0) << 2 | \
                       PB(q, 1) << 3 | (v) << 4 | PB(q, 3) << 5 | PB(q, 2) << 6)
#define PL_I16U(q, w) (PB(q, 2) | PB(q, 3) << 1 | (w) << 2 | PB(q, 5) << 3 | \
                       PB(q, 0) << 4 | PB(q, 1) << 5 | PB(q, 4) << 6)
#define PL_I4C(q, p) (PB(q, 4) | PB(q, 2) << 1 | PB(q, 3) << 2 | \
                      PB(q, 5) << 3 | (p) << 4 | PB(q, 1) << 5 | PB(q, 0) << 6)
#define PL_I4U(q, w) ((w) | PB(q, 5) << 1 | PB(q, 1) << 2 | PB(q, 2) << 3 | \
                      PB(q, 0) << 4 | PB(q, 3) << 5 | PB(q, 4) << 6)
#define F_A0(q) PL_SWAP(q, 2, 0),
#define F_A1(q) PL_SWAP(q, 2, 1),
#define F_B0(q) PL_SWAP(q, 3, 0),
#define F_B1(q) PL_SWAP(q, 3, 1),
#define F_C0(q) PL_I16C(q, 0),
#define F_C1(q) PL_I16C(q, 1),
#define F_U0(q) PL_I16U(q, 0),
#define F_U1(q) PL_I16U(q, 1),
#define F_P0(q) PL_I4C(q, 0),
#define F_P1(q) PL_I4C(q, 1),
#define F_W0(q) PL_I4U(q, 0),
#define F_W1(q) PL_I4U(q, 1),
/* [K = 16: A, B, C (pack), U (unpack's first); K = 4: P (pack), W] x 2 */
static const uint8_t pl_perm[6][2][64] = {
    {{PL_Q64(F_A0)}, {PL_Q64(F_A1)}}, {{PL_Q64(F_B0)}, {PL_Q64(F_B1)}},
    {{PL_Q64(F_C0)}, {PL_Q64(F_C1)}}, {{PL_Q64(F_U0)}, {PL_Q64(F_U1)}},
    {{PL_Q64(F_P0)}, {PL_Q64(F_P1)}}, {{PL_Q64(F_W0)}, {PL_Q64(F_W1)}}};
#undef F_A0
#undef F_A1
#undef F_B0
#undef F_B1
#undef F_C0
#undef F_C1
#undef F_U0
#undef F_U1
#undef F_P0
#undef F_P1
#undef F_W0
#undef F_W1
#undef PL_I4U
#undef PL_I4C
#undef PL_I16U
#undef PL_I16C
#undef PL_SWAP
#undef PL_Q64
#undef PL_Q8
#undef PB

/* Whether the pair's tiles of kp rows take the VBMI steps. */
static int pl_vbmi_ok(const pl_x *x, int kp) {
  return x->simd >= LI_SIMD_AVX512 && (kp == 4 || kp == 16) &&
         ((x->mk[0] << x->sh[0]) | (x->mk[1] << x->sh[1])) <= 0xffffu &&
         li_have_vbmi();
}

typedef struct pl_vz {
  pl_vy y;          /* the AVX2 tiles' (tiles that are not whole) */
  __m512i ms, mb;   /* the multishift's control and the planes' masks */
  __m512i pv;       /* a pad row's split: plane 0's byte, 1's, ... */
  __m512i m0, m1;   /* combining: the masks in 16-bit lanes (m1 << 8
                       where plane 1 is the high byte: hi8) */
  int hi8;
  __m512i ix[3][2]; /* the rounds' indices (K = 4: ix[0] alone) */
} pl_vz;

PL_VBMI static inline __attribute__((always_inline)) void
vz_init(const pl_x *x, pl_vz *v, int K) {
  vy_init(x, &v->y);
  v->ms = _mm512_set1_epi64((long long)li_pair_ctl(x->sh[0], x->sh[1]));
  v->mb = _mm512_set1_epi16((short)(x->mk[0] | x->mk[1] << 8));
  v->pv = _mm512_set1_epi16((short)(x->pad[0] | x->pad[1] << 8));
  v->m0 = _mm512_set1_epi16((short)x->mk[0]);
  v->hi8 = x->sh[1] == 8;
  v->m1 = _mm512_set1_epi16((short)(v->hi8 ? x->mk[1] << 8 : x->mk[1]));
  static const int sel[2][2][3] = {{{4, 0, 0}, {5, 0, 0}},   /* K 4 */
                                   {{0, 1, 2}, {3, 1, 0}}};  /* K 16 */
  const int *s = sel[K == 16][!x->pack];
  for (int r = 0; r < (K == 16 ? 3 : 1); r++)
    for (int h = 0; h < 2; h++)
      v->ix[r][h] = _mm512_loadu_si512(pl_perm[s[r]][h]);
}

/* Registers a and b (the pair differing in the round's register bit)
** into the round's two outputs. */
#define PL_ROUND(v, r, a, b, o0, o1)                                   \
  do {                                                                  \
    const __m512i a_ = (a), b_ = (b);                                   \
    o0 = _mm512_permutex2var_epi8(a_, (v)->ix[r][0], b_);              \
    o1 = _mm512_permutex2var_epi8(a_, (v)->ix[r][1], b_);              \
  } while (0)

/* t[2p] and t[2p + 1] (o's halves) at their places in P (tile_put_y's
** st_pair): one 64-byte store where they lie back to back, else their
** 32-byte halves or 16-byte lanes (masked 64-byte stores of o at a
** piece's place less its offset in o, which cross cache lines, made a 1
** byte transpose's stores ~1.8 times as slow). */
PL_VBMI static inline __attribute__((always_inline)) void
st_pair2(uint8_t *d, const int64_t *vo, int64_t pst, __m512i o,
         const __mmask16 *mr) {
  if (mr) { /* a tile's last columns: each run's bytes alone (the runs
                past the last: none) */
    if (!mr[0]) return;
    _mm_mask_storeu_epi8(d + vo[0], mr[0], _mm512_castsi512_si128(o));
    _mm_mask_storeu_epi8(d + vo[0] + pst, mr[0],
                         _mm512_extracti32x4_epi32(o, 1));
    if (!mr[1]) return;
    _mm_mask_storeu_epi8(d + vo[1], mr[1], _mm512_extracti32x4_epi32(o, 2));
    _mm_mask_storeu_epi8(d + vo[1] + pst, mr[1],
                         _mm512_extracti32x4_epi32(o, 3));
  } else if (pst == 16 && vo[1] == vo[0] + 32) {
    _mm512_storeu_si512(d + vo[0], o);
  } else if (pst == 16) {
    PL_S32((d + vo[0]), _mm512_castsi512_si256(o));
    LI_ST_HALF512(d + vo[1], o);
  } else {
    PL_S16((d + vo[0]), _mm512_castsi512_si128(o));
    LI_ST_LANE512(d + vo[0] + pst, o, 1);
    LI_ST_LANE512(d + vo[1], o, 2);
    LI_ST_LANE512(d + vo[1] + pst, o, 3);
  }
}

PL_VBMI static inline __attribute__((always_inline)) __m512i
ld_pair2(const uint8_t *s, const int64_t *vo, int64_t pst,
         const __mmask16 *mr) {
  if (mr) { /* a tile's last columns: each run's bytes, zeros past them */
    if (!mr[0]) return _mm512_setzero_si512();
    __m512i o = _mm512_castsi128_si512(_mm_maskz_loadu_epi8(mr[0], s + vo[0]));
    o = _mm512_inserti32x4(o, _mm_maskz_loadu_epi8(mr[0], s + vo[0] + pst), 1);
    o = _mm512_inserti32x4(o, _mm_maskz_loadu_epi8(mr[1], s + vo[1]), 2);
    return _mm512_inserti32x4(o, _mm_maskz_loadu_epi8(mr[1], s + vo[1] + pst),
                              3);
  }
  if (pst == 16 && vo[1] == vo[0] + 32) return _mm512_loadu_si512(s + vo[0]);
  if (pst == 16)
    return _mm512_inserti64x4(
        _mm512_castsi256_si512(PL_L32((s + vo[0]))),
        PL_L32((s + vo[1])), 1);
  __m512i o = _mm512_castsi128_si512(PL_L16((s + vo[0])));
  o = _mm512_inserti32x4(o, PL_L16((s + vo[0] + pst)), 1);
  o = _mm512_inserti32x4(o, PL_L16((s + vo[1])), 2);
  return _mm512_inserti32x4(o, PL_L16((s + vo[1] + pst)), 3);
}

/* Rows k and k + h (h = K / 2) in one register, split by the multishift
** (packing) or stored from it; rows from kv on are pad rows (the pad's
** bytes packing, not stored unpacking). mc: the columns of a tile's last
** ones (0: all 16, unmasked). */
PL_VBMI static inline __attribute__((always_inline)) __m256i
row_z(const uint8_t *p, __mmask16 mc) {
  return mc ? _mm256_maskz_loadu_epi16(mc, p) : PL_L32(p);
}

PL_VBMI static inline __attribute__((always_inline)) __m512i
split_z(const pl_vz *v, const uint8_t *rows, int64_t rs, int k, int h, int kv,
        __mmask16 mc) {
  if (k >= kv) return v->pv;
  __m512i x = _mm512_castsi256_si512(row_z(rows + k * rs, mc));
  if (k + h < kv)
    x = _mm512_inserti64x4(x, row_z(rows + (k + h) * rs, mc), 1);
  x = li_pair_split512(x, v->ms, v->mb);
  return k + h < kv ? x : _mm512_mask_mov_epi64(x, 0xf0, v->pv);
}

PL_VBMI static inline __attribute__((always_inline)) void
comb_z(const pl_vz *v, __m512i w, uint8_t *rows, int64_t rs, int k, int h,
       int kv, __mmask16 mc) {
  const __m512i u = li_pair_comb512(w, v->y.c0, v->y.c1, v->m0, v->m1, v->hi8);
  if (mc) {
    if (k < kv)
      _mm256_mask_storeu_epi16(rows + k * rs, mc, _mm512_castsi512_si256(u));
    if (k + h < kv)
      _mm256_mask_storeu_epi16(rows + (k + h) * rs, mc,
                               _mm512_extracti64x4_epi64(u, 1));
    return;
  }
  if (k < kv)
    PL_S32((rows + k * rs), _mm512_castsi512_si256(u));
  if (k + h < kv)
    LI_ST_HALF512(rows + (k + h) * rs, u);
}

/* The tile by these steps: its vector offsets vo; mr (with mc, the
** columns' mask): the masks of a tile's last columns' runs (run i the
** tile's bytes 16 i ..), else NULL. */
PL_VBMI static inline __attribute__((always_inline)) void
tile_put_zm(int64_t pst, const pl_vz *v, const uint8_t *rows, int64_t rs,
            int kv, int K, uint8_t *d, const int64_t *vo, const __mmask16 *mr,
            __mmask16 mc) {
  if (K == 4) {
    const __m512i a = split_z(v, rows, rs, 0, 2, kv, mc),
                  b = split_z(v, rows, rs, 1, 2, kv, mc);
    __m512i o0, o1;
    PL_ROUND(v, 0, a, b, o0, o1);
    st_pair2(d, vo, pst, o0, mr);
    st_pair2(d, vo + 2, pst, o1, mr ? mr + 2 : NULL);
    return;
  }
  __m512i x[8], y[8];
  LI_UNROLL for (int i = 0; i < 8; i++)
    x[i] = split_z(v, rows, rs, i, 8, kv, mc);
  LI_UNROLL for (int i = 0; i < 8; i += 2)
    PL_ROUND(v, 0, x[i], x[i + 1], y[i], y[i + 1]);
  LI_UNROLL for (int i = 0; i < 8; i += 4) {
    PL_ROUND(v, 1, y[i], y[i + 2], x[i], x[i + 2]);
    PL_ROUND(v, 1, y[i + 1], y[i + 3], x[i + 1], x[i + 3]);
  }
  LI_UNROLL for (int i = 0; i < 4; i++)
    PL_ROUND(v, 2, x[i], x[i + 4], y[i], y[i + 4]);
  LI_UNROLL for (int p = 0; p < 8; p++)
    st_pair2(d, vo + 2 * p, pst, y[p], mr ? mr + 2 * p : NULL);
}

PL_VBMI static inline __attribute__((always_inline)) void
tile_get_zm(int64_t pst, const pl_vz *v, uint8_t *rows, int64_t rs, int kv,
            int K, const uint8_t *s, const int64_t *vo, const __mmask16 *mr,
            __mmask16 mc) {
  if (K == 4) {
    __m512i a, b;
    PL_ROUND(v, 0, ld_pair2(s, vo, pst, mr),
             ld_pair2(s, vo + 2, pst, mr ? mr + 2 : NULL), a, b);
    comb_z(v, a, rows, rs, 0, 2, kv, mc);
    comb_z(v, b, rows, rs, 1, 2, kv, mc);
    return;
  }
  __m512i x[8], y[8];
  LI_UNROLL for (int p = 0; p < 8; p++)
    x[p] = ld_pair2(s, vo + 2 * p, pst, mr ? mr + 2 * p : NULL);
  LI_UNROLL for (int i = 0; i < 4; i++)
    PL_ROUND(v, 0, x[i], x[i + 4], y[i], y[i + 4]);
  LI_UNROLL for (int i = 0; i < 8; i += 4) {
    PL_ROUND(v, 1, y[i], y[i + 2], x[i], x[i + 2]);
    PL_ROUND(v, 1, y[i + 1], y[i + 3], x[i + 1], x[i + 3]);
  }
  LI_UNROLL for (int i = 0; i < 8; i += 2)
    PL_ROUND(v, 2, x[i], x[i + 1], y[i], y[i + 1]);
  LI_UNROLL for (int i = 0; i < 8; i++)
    comb_z(v, y[i], rows, rs, i, 8, kv, mc);
}

/* tile_put_y and tile_get_y by these steps where the tile is whole (else
** by theirs). */
PL_VBMI static inline __attribute__((always_inline)) void
tile_put_z(int64_t pst, const pl_vz *v, int np, int hs, const uint8_t *rows,
           int64_t rs, int kv, int K, uint8_t *d, const pl_tile *T,
           const int64_t *pb, const int64_t *vo) {
  if (!vo) tile_put_y(pst, &v->y, np, hs, rows, rs, kv, K, d, T, pb, vo);
  else tile_put_zm(pst, v, rows, rs, kv, K, d, vo, NULL, 0);
}

PL_VBMI static inline __attribute__((always_inline)) void
tile_get_z(int64_t pst, const pl_vz *v, int np, int hs, uint8_t *rows,
           int64_t rs, int kv, int K, const uint8_t *s, const pl_tile *T,
           const int64_t *pb, const int64_t *vo) {
  if (!vo) tile_get_y(pst, &v->y, np, hs, rows, rs, kv, K, s, T, pb, vo);
  else tile_get_zm(pst, v, rows, rs, kv, K, s, vo, NULL, 0);
}

/* A segment's last nv < 16 columns (r->TZ) by the same steps, where the
** tile's runs start on its 16-byte units (tz_units): the columns' rows
** and the runs' bytes loaded and stored masked. Before, job_tl_z's
** runs went one by one through a tile kept in memory (min of 3 runs,
** kneron.4w4c8bhl unpack int16 [1,37,29,23] 8.7 -> 7.4 us, pack 6.4 ->
** 5.8; 1w16c8bhl unpack 6.0 -> 5.2; 16w1c8bhl unpack 6.2 -> 5.6). */
#define X(K)                                                                  \
  PL_VBMI static void job_tz_z##K(const pl_x *x, int kv, const pl_job *j,    \
                                  const pl_tile *T, int nv) {                 \
    pl_vz vv;                                                                 \
    vz_init(x, &vv, K);                                                       \
    __mmask16 mr[K];                                                          \
    int64_t vo[K];                                                            \
    const __mmask16 mc = (__mmask16)((1u << nv) - 1);                         \
    const int64_t lr = j->lr + (16 - nv) * 2;                                 \
    for (int i = 0; i < K; i++)                                               \
      mr[i] = (__mmask16)(i < T->n ? (1u << T->r[i].len) - 1 : 0u);           \
    for (int s = 0; s < j->ns; s++) {                                         \
      uint8_t *r = j->rows + s * j->ss + lr;                                  \
      uint8_t *p = j->pl + (j->sb ? j->sb[s] : s * j->ps) + j->lp;            \
      const int64_t *pb = j->pb + s * j->pbs;                                 \
      for (int i = 0; i < K; i++)                                             \
        vo[i] = i < T->n ? pb[T->r[i].pi] + T->r[i].off : 0;                  \
      if (x->pack)                                                            \
        tile_put_zm(x->pst, &vv, r, j->rs, kv, K, p, vo, mr, mc);             \
      else                                                                    \
        tile_get_zm(x->pst, &vv, r, j->rs, kv, K, p, vo, mr, mc);             \
    }                                                                         \
  }
X(4)
X(16)
#undef X
#undef PL_ROUND

/* The job (PL_JOB_K's loops) of the tiles of K rows, BODY. */
#define PL_JOB_Z(NAME, K, BODY)                                               \
  PL_VBMI static void NAME(const pl_x *x, int kv, const pl_job *j) {          \
    enum { KK = K };                                                          \
    pl_vz vv;                                                                 \
    vz_init(x, &vv, K);                                                       \
    const pl_job jj = *j;                                                     \
    const int64_t pst = x->pst;                                               \
    const int tlz = vv.y.z;                                                   \
    BODY                                                                      \
  }
#define X(K)                                                                  \
  PL_JOB_Z(job_put_z##K, K, PL_JOB(tile_put_z, 2, 2))                         \
  PL_JOB_Z(job_get_z##K, K, PL_JOB_K(tile_get_z, 2, 2, kv))
X(4)
X(16)
#undef X
#undef PL_JOB_Z
#undef PL_S32
#undef PL_S16
#undef PL_L32
#undef PL_L16
#undef PL_VBMI
#endif

/* The same element by element (LAY_SIMD=0, or no SSE2): a tile's runs
** row by row. */
static void tile_c(const pl_x *x, uint8_t *rows, int64_t rs, int kc, int kv,
                   int kp, uint8_t *pl, const pl_tile *T, const int64_t *pb) {
  const int hs = x->hs;
  for (int u = 0; u < T->n; u++) {
    const int b = T->r[u].b, nrow = (T->r[u].len - kc) / kp + 1;
    uint8_t *e0 = pl + pb[T->r[u].pi] + T->r[u].off;
    for (int w = 0; w < nrow; w++)
      for (int k = 0; k < kc && (x->pack || k < kv); k++) {
        uint8_t *e = e0 + w * kp + k, *bits = rows + k * rs + (b / kp + w) * hs;
        if (x->pack && k >= kv) { /* a pad row */
          for (int q = 0; q < x->np; q++) e[q * x->pst] = x->pad[q];
        } else if (x->pack) {
          uint32_t m = ld_u32(bits, hs);
          for (int q = 0; q < x->np; q++)
            e[q * x->pst] = (uint8_t)((m >> x->sh[q]) & x->mk[q]);
        } else {
          uint32_t m = 0;
          for (int q = 0; q < x->np; q++)
            m |= ((uint32_t)e[q * x->pst] & x->mk[q]) << x->sh[q];
          st_u32(bits, hs, hs == 1 ? m & 0xffu : hs == 2 ? m & 0xffffu : m);
        }
      }
  }
}

static void job_c(const pl_x *x, int kc, int kv, int kp, const pl_job *j) {
  for (int s = 0; s < j->ns; s++) {
    uint8_t *r = j->rows + s * j->ss;
    uint8_t *p = j->pl + (j->sb ? j->sb[s] : s * j->ps);
    const int64_t *pb = j->pb + s * j->pbs;
    for (int i = 0; i < j->nt; i++)
      tile_c(x, r + i * j->tr, j->rs, kc, kv, kp, p + i * j->tp,
             j->T + i * j->tt, pb);
    if (j->TL) tile_c(x, r + j->lr, j->rs, kc, kv, kp, p + j->lp, j->TL, pb);
  }
}

/* ---- Values ---------------------------------------------------------------- */
/* A side's rule for channel c. */
static const li_vrule *rule_ch(const li_vrule *r, int64_t c, li_vrule *v) {
  if (r->axis < 0 || r->nch <= 1) return r;
  li_vrule_channel(r, (int32_t)c, v);
  return v;
}

/* n elements of channel ch: packing, C's elements into the split type's
** bits (C's decode, then P's encode); unpacking, the bits into C's
** elements (P's decode, then C's encode). */
static void conv_n(const pl_x *x, const uint8_t *s, uint8_t *d, int64_t n,
                   int64_t ch) {
  li_vrule va, vb;
  const li_vrule *a = rule_ch(x->pack ? &x->C->v : &x->P->v, ch, &va);
  const li_vrule *b = rule_ch(x->pack ? &x->P->v : &x->C->v, ch, &vb);
  if (a->kind == LI_VR_ID) {
    li_encode(b, s, d, n, NULL);
    return;
  }
  if (b->kind == LI_VR_ID) {
    li_decode(a, s, d, n, NULL);
    return;
  }
  uint64_t t[TILE];
  const size_t fs = x->pack ? x->C->esz : (size_t)x->hs;
  const size_t ts = x->pack ? (size_t)x->hs : x->C->esz;
  for (int64_t i = 0; i < n; i += TILE) {
    int64_t m = n - i < TILE ? n - i : TILE;
    li_decode(a, s + (size_t)i * fs, t, m, NULL);
    li_encode(b, t, d + (size_t)i * ts, m, NULL);
  }
}

/* Moving tiles of 16 columns, a segment of sl * dv columns costs
** ceil(sl * dv / 16) of them (the last overlapping the one before). From
** dv (o.n's divisor that reaches 16 columns), the divisor of o.n up to
** PL_GROW columns with the fewest tiles a column. 4W4C8BHL int16 at w =
** 24 (sl = 4: w%4; o: 29 x 6 steps of w/4 over h and w/4) took 6 steps,
** 24 columns in 2 tiles; now 87 steps, 348 columns in 22 tiles, whose
** offsets repeat every 16 columns (pl_x.per: the grid is one tile):
** pack [1,36,29,24] 5.7 -> 3.4 us. */
#define PL_GROW 512
static int64_t fold_fewer_tiles(int64_t sl, int64_t n, int64_t dv) {
  if (sl * dv % 16 == 0) return dv;
  int64_t best = dv, bt = (sl * dv + 15) / 16, bc = sl * dv;
  for (int64_t d = dv + 1; d <= n && sl * d <= PL_GROW; d++) {
    if (n % d) continue;
    const int64_t t = (sl * d + 15) / 16;
    if (t * bc < bt * sl * d) { /* t / (sl d) < bt / bc */
      best = d;
      bt = t;
      bc = sl * d;
    }
  }
  return best;
}

/* ---- Setup ------------------------------------------------------------------ */
static int rule_ok(const li_vrule *r) {
  return r->axis < 0 || r->nch <= 1 || r->kind == LI_VR_QUANT ||
         r->kind == LI_VR_DEQUANT; /* rule_ch has a per-tensor view */
}

/* Table loop l as a column loop o: its C offsets i * cs, its P offsets
** from the first none negative and within the offset table's (a ragged
** dim's whole blocks and its last, partial one: li_merge_ragged). */
static int tab_loop(const li_plan *p, const li_loop *l, int pack,
                    pl_loop *o) {
  const int64_t *t = p->tabs + l->tab - 1;
  const int c = pack ? 0 : 1, q = 1 - c; /* C's and P's index in a pair */
  if (l->ext < 2 || l->ext > PL_SL) return 0;
  const int64_t cs = t[2 + c] - t[c];
  for (int64_t i = 0; i < l->ext; i++) {
    const int64_t po = t[2 * i + q] - t[q];
    if (t[2 * i + c] - t[c] != i * cs || po < 0 || po > INT32_MAX) return 0;
  }
  *o = (pl_loop){l->ext, cs, t[2 + q] - t[q], l->cs, t + q};
  return 1;
}

static int pl_setup(const li_plan *p, const li_box *bx, const li_loop *l,
                    int n, pl_x *x) {
  const int pack = p->d.v.nplanes > 0;
  if ((p->d.v.nplanes > 0) == (p->s.v.nplanes > 0) || n > PL_MAXL - 2)
    return 0; /* room for a loop of one and a loop cut in two */
  memset(x, 0, sizeof *x);
  x->pack = pack;
  x->C = pack ? &p->s : &p->d;
  x->P = pack ? &p->d : &p->s;
  const li_vrule *pv = &x->P->v;
  x->np = pv->nplanes;
  x->hs = (int)li_dt_size(pv->kind == LI_VR_ID ? pv->cpu : pv->hw);
  x->pst = x->P->pstride;
  if (x->P->esz != 1 || x->np > LG_MAX_PLANES ||
      !(x->hs == 1 || x->hs == 2 || x->hs == 4 || x->hs == 8) ||
      !rule_ok(pv) || !rule_ok(&x->C->v) || x->C->table || x->P->table)
    return 0;
  for (int q = 0; q < x->np; q++) {
    if (pv->shift[q] < 0 || pv->shift[q] > 31) return 0;
    x->sh[q] = pv->shift[q];
    x->mk[q] = pv->mask[q] & 0xffu;
  }
  x->conv = x->C->v.kind != LI_VR_ID || pv->kind != LI_VR_ID;
  if (!x->conv && x->C->esz != (size_t)x->hs) return 0;
  x->perch = (pv->axis >= 0 && pv->nch > 1) ||
             (x->C->v.axis >= 0 && x->C->v.nch > 1);
  x->simd = p->simd;
  x->b = (pl_loop){1, 0, 0, 0, NULL};
  int hb = 0, bi = -1;
  for (int i = 0; i < n; i++) {
    /* a row of one with pads after it is still the rows' loop */
    if (l[i].ext == 1 && !(pack && bx->post && l[i].ds == 1)) continue;
    pl_loop o = {l[i].ext, pack ? l[i].ss : l[i].ds, pack ? l[i].ds : l[i].ss,
                 l[i].cs, NULL};
    if (l[i].tab && !tab_loop(p, &l[i], pack, &o)) return 0;
    if (o.cs < 0 || o.ps < 0) return 0;
    if (o.ps == 1 && o.cs != 1 && !hb && !o.t) {
      x->b = o;
      hb = 1;
      bi = i;
    } else {
      x->q[x->nq++] = o;
    }
  }
  for (int i = 1; i < x->nq; i++) /* C's order: strides ascending */
    for (int j = i; j > 0 && x->q[j].cs < x->q[j - 1].cs; j--) {
      pl_loop t = x->q[j]; x->q[j] = x->q[j - 1]; x->q[j - 1] = t;
    }
  x->bv = x->b.n;
  if (hb && pack && bx->bk > x->b.n) { /* pad rows with the data */
    x->b.n = bx->bk;
    for (int q = 0; q < x->np; q++) x->pad[q] = p->pats[bx->pat][q];
  } else if (bx->pre || bx->post) {
    /* the box's row pads after the rows' loop (P's stride-1 loop, whose
    ** rows are the pads' rows) are pad rows of its tiles */
    if (!pack || bi != n - 1 || bx->pre || x->b.n + bx->post > 16) return 0;
    x->b.n += bx->post;
    for (int q = 0; q < x->np; q++) x->pad[q] = p->pats[bx->pat][q];
  }
  if (!x->nq || x->q[0].cs != 1) { /* no run along C: segments of one */
    memmove(x->q + 1, x->q, sizeof *x->q * (size_t)x->nq++);
    x->q[0] = (pl_loop){1, 1, 0, 0, NULL};
  }
  for (int i = 1; i < x->nq; i++) /* a table loop only as C's run */
    if (x->q[i].t) return 0;
  x->sl = x->q[0].n;
  x->f = 1;
  /* a segment of 16 columns or more (a value rule: PL_SL) where the
  ** loops that continue q[0] give them: the fewest of their steps (a loop
  ** cut in two where a part of it is enough), so that the offset table
  ** and the grid stay short */
  const int64_t want = x->conv ? PL_SL : 16; /* conversions: long runs */
  while (x->f < x->nq && x->q[x->f].cs == x->sl && x->sl < want &&
         !x->q[0].t) { /* a table's columns: its partial block's tiles */
    const pl_loop o = x->q[x->f];
    int64_t dv = (want + x->sl - 1) / x->sl;
    while (dv < o.n && o.n % dv) dv++;
    if (dv > o.n) dv = o.n;
    if (x->sl * dv > PL_SL) { /* the most the table holds */
      for (dv = PL_SL / x->sl; dv > 1 && o.n % dv;) dv--;
      if (dv <= 1) break;
    }
    if (!x->conv) dv = fold_fewer_tiles(x->sl, o.n, dv);
    if (dv < o.n) { /* o as dv steps inside o.n / dv */
      memmove(x->q + x->f + 1, x->q + x->f,
              sizeof *x->q * (size_t)(x->nq++ - x->f));
      x->q[x->f] = (pl_loop){dv, o.cs, o.ps, o.ch, NULL};
      x->q[x->f + 1] =
          (pl_loop){o.n / dv, o.cs * dv, o.ps * dv, o.ch * dv, NULL};
    }
    x->sl *= dv;
    x->f++;
  }
  x->lin = x->f == 1 && !x->q[0].t;
  int64_t span = 0; /* the offset table's largest entry */
  for (int i = 0; i < x->f; i++)
    if (x->q[i].t) {
      for (int64_t j = 0; j < x->q[i].n; j++)
        if (x->q[i].t[2 * j] - x->q[i].t[0] > span)
          span = x->q[i].t[2 * j] - x->q[i].t[0];
    } else {
      span += (x->q[i].n - 1) * x->q[i].ps;
    }
  if (!x->lin && span > INT32_MAX) return 0;
  for (int i = 0; i < x->f; i++) /* one channel a segment row */
    if (x->perch && x->q[i].ch) return 0;
  return 1;
}

/* Unpacking, rows of P that are not a power of two (kneron.4w4c8bhl's 3
** channels of 4) whose entries hold the pad rows up to one, P's columns
** that far apart (q[0].ps): the tiles read the pad rows too, never
** stored (kv: the bv rows), and are whole, where the box's farthest
** entry's pad ends inside P (s, P's end at send). Unpack int16
** [1,3,224,224] 427 -> 32 us, kneron.4w4c8bhl_q(0.75, 12) unpack fp32
** [1,3,224,224] 420 -> 45 us (min of 7; conv.c's rows before). */
static int64_t pow2_up(int64_t n) {
  int64_t k = 1;
  while (k < n) k *= 2;
  return k;
}

static int pad_rows_read(const pl_x *x, const uint8_t *s,
                         const uint8_t *send) {
  const int64_t k = pow2_up(x->b.n);
  if (x->pack || x->b.n < 2 || x->b.n >= 16 || k == x->b.n || !x->nq ||
      x->q[0].ps != k || x->q[0].t)
    return 0;
  if (!s || !send) return 1; /* li_planes_ok: whether it may */
  int64_t far = x->b.n - 1 + (x->np - 1) * x->pst; /* the farthest byte
                                                   ** of P a tile reads */
  for (int i = 0; i < x->nq; i++) far += (x->q[i].n - 1) * x->q[i].ps;
  return far + (k - x->b.n) < send - s;
}

/* Every split but one shape of the pair (2 planes of 16-bit bits):
** without a rows' loop (K = 1, the planes contiguous along C's run:
** 16W1C8BHL) a tile is a plain split of a row, and conv.c's row paths ran
** it faster (16W1C8BHL unpack int16 [4,32,28,28] 6.4x memcpy there, 14x
** here: entries cut at the row's end are tiles of their own). With a
** rows' loop the pair's AVX2 tiles win (lay/memcpy, one thread's CPU
** time, median of 21 interleaved runs, conv.c/SPLIT2 -> tiles): 4W4C8BHL
** pack int16 [1,64,56,56] 4.7 -> 1.0, [4,32,28,28] 9.0 -> 2.2, unpack
** 6.1 -> 2.1; 1W16C8BHL pack [1,37,29,23] 10.0 -> 2.8 (its pad rows
** written by the tiles), unpack [1,64,56,56] 2.4 -> 1.9; but 1W16C8BHL
** pack [1,64,56,56] 2.3 -> 2.6. Other splits: 4 planes of an int32 in
** 16-channel entries 28.6 -> 5.0x, nibble planes of int8 81 -> 3.9x
** (pack [1,64,56,56]). */
int li_planes_ok(const li_plan *p, const li_box *b, const li_loop *l,
                 int n) {
  pl_x x;
  if (!pl_setup(p, b, l, n, &x)) return 0;
  /* unpacking, tiles whose rows are not whole 16-byte runs of P (K not
  ** a power of two, or P's rows not back to back) go through a stack
  ** copy a tile: there conv.c's paths won (x.c8, 8-channel entries of
  ** 8 + 8 bytes, unpack int16 [2,40,28,28]: 6.6x memcpy, 13x here;
  ** 1W16C8BHL's last 5 channels) */
  const int whole = x.b.n == 16 || pad_rows_read(&x, NULL, NULL) ||
                    ((x.b.n & (x.b.n - 1)) == 0 && x.nq && x.q[0].ps == x.b.n);
  return !(x.np == 2 && x.hs == 2 && x.sh[0] < 16 && x.sh[1] < 16) ||
         (x.b.n > 1 && (x.pack || whole));
}

void li_loops_canon(const li_loop *l, int n, int64_t *e, int64_t *d, int *m) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    if (l[i].ext == 1) continue;
    int j = k++;
    for (; j > 0 && d[j - 1] < l[i].ds; j--) {
      e[j] = e[j - 1];
      d[j] = d[j - 1];
    }
    e[j] = l[i].ext;
    d[j] = l[i].ds;
  }
  int o = 0;
  for (int i = 0; i < k; i++) {
    if (o && d[o - 1] == d[i] * e[i]) { /* the outer one continues it */
      e[o - 1] *= e[i];
      d[o - 1] = d[i];
      continue;
    }
    e[o] = e[i];
    d[o++] = d[i];
  }
  *m = o;
}

/* A fill box f of the plane pad (packing) is the rest of the rows of an
** earlier PLANES box D: D's loops with its rows' loop (P stride 1, not its
** outermost, e rows) replaced by f's stride-1 loop, from e on. Then D
** writes those pad rows with its tiles (bk: e plus f's rows, at most 16;
** pat: f's pattern) and f is done (kernel DONE): the partial entries and
** their pads in one sweep. 1 when it is so. */
int li_planes_absorb(li_plan *p, li_box *f, const li_loop *L, int n) {
  int fy = -1;
  for (int i = 0; i < n; i++) {
    if (L[i].tab) return 0;
    if (L[i].ds == 1) fy = i;
  }
  if (f->raw || !f->fill || !p->d.v.nplanes || fy < 0 || n > PL_MAXL)
    return 0;
  for (int bi = p->nbox - 2; bi >= 0; bi--) {
    li_box *D = &p->box[bi];
    if (D->fill || D->kern != LI_K_PLANES || D->bk || D->pre || D->post)
      continue;
    const li_loop *l = p->loops + D->l0;
    li_loop M[PL_MAXL];
    int y = -1, tab = 0;
    for (int i = 0; i < D->nl; i++) {
      if (l[i].ds == 1 && l[i].ss != 1 && l[i].ext > 1) y = i;
      tab |= l[i].tab != 0; /* li_loops_canon reads strides alone */
    }
    if (y <= 0 || tab || l[y].ext + L[fy].ext > 16 ||
        f->db != D->db + l[y].ext || D->nl > PL_MAXL)
      continue;
    memcpy(M, l, sizeof *M * (size_t)D->nl);
    M[y].ext = L[fy].ext;
    int64_t e1[PL_MAXL], d1[PL_MAXL], e2[PL_MAXL], d2[PL_MAXL];
    int m1, m2;
    li_loops_canon(M, D->nl, e1, d1, &m1);
    li_loops_canon(L, n, e2, d2, &m2);
    int same = m1 == m2;
    for (int i = 0; same && i < m1; i++)
      same = e1[i] == e2[i] && d1[i] == d2[i];
    if (!same) continue;
    D->bk = (int)(l[y].ext + L[fy].ext);
    D->pat = f->pat;
    return 1;
  }
  return 0;
}

/* ---- The run ---------------------------------------------------------------- */
#define PL_NT (PL_SL / 16 + 1) /* tiles of a segment's grid */

typedef struct pl_run {
  const pl_x *x;
  uint8_t *C, *P;       /* the two buffers */
  uint8_t *B, *G;       /* bits (rows rsb bytes apart), C's staged elements */
  int64_t rsb, cw;      /* cw columns a chunk of B */
  int kc, kp;           /* rows of the grid's tiles */
  int kv;               /* of the rows at hand, those C holds (pack) */
  const pl_tile *T;     /* the grid: lin, T[0] (moved by 16 * ps0); else */
  int nt;               /* T[i] at column 16 i (per: T[0] alone, moved
                           by per), T[nt - 1] the last 16; */
  int mp;               /* short segments: T[0] over mp of them */
  pl_tile TZ;           /* AVX-512, the pair: the segment's columns past
                           its last 16-column tile, tz of them (rows
                           loaded and stored masked: job_tl_z), where the
                           overlapping last tile, T[nt - 1], is not whole */
  int tz;
  int tzu;              /* TZ's runs on its 16-byte units (tz_units) */
  int gs, gt;           /* or groups of gs segments, a multiple of 16
                           columns: the grid T[0 .. gt) over a group */
  int64_t pbs[16];      /* (their P bases, q[f]'s steps apart) */
  int two;              /* segments of one tile: q[f] and q[f + 1] a job */
  int qr;               /* the rule's runs quantized where they lie (stage;
                           0 once li_quant_rows declined it) */
  int ns;               /* a chunk's segments: C offset, P offset, channel */
  int64_t sc[PL_NP], sp[PL_NP], sh[PL_NP];
} pl_run;

/* Whether tile T's runs are its 16-byte units' first bytes, run i in
** unit i, at most kp of them: job_tz_z's masked tile. */
static int tz_units(const pl_tile *T, int kp) {
  if (T->n > kp) return 0;
  for (int i = 0; i < T->n; i++)
    if (T->r[i].b != 16 * i || T->r[i].len > 16) return 0;
  return 1;
}

/* Of the kc rows from j0 of b, those C holds (the rest are pad rows). */
static int valid_rows(const pl_x *x, int64_t j0, int kc) {
  const int64_t v = x->bv - j0;
  return v < 0 ? 0 : v < kc ? (int)v : kc;
}

static void run_job(const pl_run *r, int kc, int kp, const pl_job *j) {
  const pl_x *x = r->x;
  const int kv = r->kv < kc ? r->kv : kc;
#if defined(LI_HAVE_X86_TARGET)
  if (x->simd >= LI_SIMD_AVX2 && x->np == 2 && x->hs == 2) {
    /* the last tiles that are not whole: job_tl_z (PL_JOB_K) after the
    ** job (after every 8 segments' other tiles, for their lines in L1,
    ** ran 4-8% slower) */
    const int z = x->simd >= LI_SIMD_AVX512 && j->TL &&
                  !(j->TL->whole && !j->pbs);
    if (pl_vbmi_ok(x, kp)) { /* the VBMI steps (tile_put_z) */
      if (kp == 4 && x->pack) job_put_z4(x, kv, j);
      else if (kp == 4) job_get_z4(x, kv, j);
      else if (x->pack) job_put_z16(x, kv, j);
      else job_get_z16(x, kv, j);
      void (*tl)(const pl_x *, int, const pl_job *, const pl_tile *, int) =
          kp == 4 ? job_tl_z4 : job_tl_z16;
      if (z && r->tz && r->tzu)
        (kp == 4 ? job_tz_z4 : job_tz_z16)(x, kv, j, &r->TZ, r->tz);
      else if (z && r->tz) tl(x, kv, j, &r->TZ, r->tz);
      else if (z) tl(x, kv, j, j->TL, 16);
      return;
    }
    switch (kp) {
#define X(K)                                     \
  case K:                                        \
    if (x->pack) job_put_y##K(x, kv, j);         \
    else job_get_y##K(x, kv, j);                 \
    if (z && r->tz) job_tl_z##K(x, kv, j, &r->TZ, r->tz); \
    else if (z) job_tl_z##K(x, kv, j, j->TL, 16); \
    return;
      PL_TILES(X)
#undef X
    default: break;
    }
  }
#endif
#if defined(__SSE2__)
  if (x->simd >= LI_SIMD_SSE) {
    switch (kp) {
#define X(K)                                     \
  case K:                                        \
    if (x->pack) job_put##K(x, kv, j);           \
    else job_get##K(x, kv, j);                   \
    return;
      PL_TILES(X)
#undef X
    default: break;
    }
  }
#endif
  job_c(x, kc, kv, kp, j);
}

static const int64_t pl_zero[16];

/* Segments shorter than a tile on C itself (no value rule): AVX-512 and
** the pair, whose masked tiles (job_tl_z) read and write only their
** columns; else through B (run_chunk), whose copies a segment and row
** cost more than the tile (kneron.4w4c8bhl int16, min of 7: pack
** [1,512,14,14] 59.5 -> 35.2 us, unpack 65.7 -> 37.0; pack [1,512,7,7],
** its w one block and a partial one, li_merge_ragged, 25.6 -> 15.0). */
static int zshort(const pl_x *x) {
  return x->simd >= LI_SIMD_AVX512 && x->np == 2 && x->hs == 2 &&
         x->sl > 1 && x->sl < 16;
}

/* The masked tile T of nv columns over job j's segments (zshort). */
static void run_tl_z(const pl_run *r, int kc, int kp, const pl_job *j,
                     const pl_tile *T, int nv) {
  const pl_x *x = r->x;
  const int kv = r->kv < kc ? r->kv : kc;
#if defined(LI_HAVE_X86_TARGET)
  switch (kp) {
#define X(K)                                     \
  case K:                                        \
    job_tl_z##K(x, kv, j, T, nv);                \
    return;
    PL_TILES(X)
#undef X
  default: break;
  }
#endif
  (void)x; (void)kv; (void)j; (void)T; (void)nv;
}

/* Columns [c, c + len) of ns segments (c a multiple of 16; len too, or c
** + len the segment's end), their rows at column c of the first (ss bytes
** apart), P at pl + sb[s] (sb NULL: s * ps) for segment s. */
static void seg_job(const pl_run *r, int kc, int kp, uint8_t *rows,
                    int64_t rs, int64_t ss, uint8_t *pl, int64_t ps,
                    const int64_t *sb, int ns, int64_t c, int64_t len) {
  const pl_x *x = r->x;
  const int64_t hs = x->hs;
  pl_job j = {rows, rs, pl, ns, 0, ss, ps, 16 * hs, 0, NULL, 1, NULL, 0, 0,
              pl_zero, 0, sb};
  if (len < 16 && rows != r->B) { /* zshort: a masked tile on C */
    pl_tile T1;
    tile_plan(x, c, (int)len, kc, kp, 0, &T1);
    j.lr = -(16 - len) * hs; /* job_tl_z's rows: from column 0 */
    run_tl_z(r, kc, kp, &j, &T1, (int)len);
    return;
  }
  if (len < 16 || kc != r->kc) { /* tiles planned here */
    pl_tile T1;
    for (int64_t t = 0; t < len; t += 16) {
      if (len - t < 16 && len >= 16) t = len - 16;
      tile_plan(x, c + t, len - t < 16 ? (int)(len - t) : 16, kc, kp, 0, &T1);
      j.rows = rows + t * hs;
      j.nt = 1;
      j.T = &T1;
      run_job(r, kc, kp, &j);
    }
    return;
  }
  j.nt = (int)(len / 16);
  if (x->lin) {
    const int64_t p0 = x->q[0].ps;
    j.pl = pl + c * p0;
    j.tp = 16 * p0;
    j.T = r->T;
    j.tt = 0;
    j.lp = (len - 16) * p0;
  } else if (x->per) { /* every tile the first moved: one set of offsets */
    j.pl = pl + c / 16 * x->per;
    j.T = r->T;
    j.tt = 0;
    j.tp = x->per;
    j.lp = -(c / 16) * x->per; /* TL's offsets are the segment's */
  } else {
    j.T = r->T + c / 16;
  }
  if (len % 16) {
    j.TL = x->lin ? r->T : r->T + r->nt - 1;
    j.lr = (len - 16) * hs;
  }
  run_job(r, kc, kp, &j);
}

/* The chunk's short segments (sl < 16) back to back in B, mp a tile. */
static void short_job(const pl_run *r, int kc, int kp, uint8_t *pl) {
  const pl_x *x = r->x;
  const int64_t w = r->mp * x->sl;
  pl_job j = {r->B, r->rsb, pl, r->ns / r->mp, 1, w * x->hs, 0, 0, 0, r->T,
              0, NULL, 0, 0, r->sp, r->mp, NULL};
  pl_tile T1;
  if (kc != r->kc) {
    tile_plan(x, 0, (int)w, kc, kp, x->sl, &T1);
    j.T = &T1;
  }
  if (j.ns) run_job(r, kc, kp, &j);
  if (r->ns % r->mp) { /* the last few */
    tile_plan(x, 0, (int)(r->ns % r->mp * x->sl), kc, kp, x->sl, &T1);
    j.rows = r->B + j.ns * j.ss;
    j.pb = r->sp + j.ns * r->mp;
    j.ns = 1;
    j.T = &T1;
    run_job(r, kc, kp, &j);
  }
}

/* The chunk's segments back to back in B in groups of gs, a group
** gt whole tiles (segments of 20 columns: 4 a group in 5 tiles, not 2
** tiles a segment, the second over 12 columns of the first), then the
** segments past the last group. */
static void group_job(const pl_run *r, int kc, int kp, uint8_t *pl) {
  const pl_x *x = r->x;
  const int64_t hs = x->hs, L = r->gs * x->sl;
  pl_tile Tk[PL_NT]; /* the grid for rows of another count */
  const pl_tile *T = r->T;
  if (kc != r->kc) {
    for (int t = 0; t < r->gt; t++)
      tile_plan(x, 16 * t, 16, kc, kp, x->sl, &Tk[t]);
    T = Tk;
  }
  const int ng = r->ns / r->gs;
  pl_job j = {r->B, r->rsb, pl, ng, r->gt, L * hs, 0, 16 * hs, 0, T,
              1, NULL, 0, 0, r->sp, r->gs, NULL};
  if (ng) run_job(r, kc, kp, &j);
  const int64_t w = r->ns % r->gs * x->sl; /* the last segments' columns */
  if (!w) return;
  j.rows = r->B + ng * L * hs;
  j.pb = r->sp + ng * r->gs;
  j.ns = 1;
  j.nt = (int)(w / 16); /* the grid's first tiles */
  if (j.nt) run_job(r, kc, kp, &j);
  if (w % 16) { /* and a tile over what is left */
    pl_tile T1;
    tile_plan(x, w & ~(int64_t)15, (int)(w % 16), kc, kp, x->sl, &T1);
    j.rows += (w & ~(int64_t)15) * hs;
    j.nt = 1;
    j.T = &T1;
    run_job(r, kc, kp, &j);
  }
}

/* Rows [j0, j0 + kc) of the chunk's segments, columns [c, c + len) of
** each, between C and B (packing: into B; unpacking: out of it): copied,
** or converted by a call a segment, or (short ones of one channel) staged
** in G and converted by one call. */
static void stage(pl_run *r, int into, int64_t j0, int kc, int64_t c,
                  int64_t len) {
  const pl_x *x = r->x;
  const int64_t ce = (int64_t)x->C->esz, hs = x->hs;
  const int m = r->ns;
  int same = 1; /* the segments all of one channel */
  for (int i = 1; i < m && same && x->perch; i++) same = r->sh[i] == r->sh[0];
  const int one = m > 1 && len < 64 && same;
  /* such segments quantized from C or dequantized into it where they lie
  ** (li_quant_rows), no copy or call a segment between */
  for (int k = 0; k < kc; k++) {
    uint8_t *bk = r->B + k * r->rsb;
    const int64_t o = (j0 + k) * x->b.cs + c, h = (j0 + k) * x->b.ch;
    if (r->qr && same) {
      int64_t off[PL_NP];
      li_vrule v;
      const li_vrule *q = rule_ch(&x->P->v, r->sh[0] + h, &v);
      for (int i = 0; i < m; i++) off[i] = (r->sc[i] + o) * ce;
      if (into ? li_quant_rows(q, r->C, off, m, len, bk, NULL)
               : li_dequant_rows(q, bk, NULL, r->C, off, m, len))
        continue;
      r->qr = 0; /* a rule it does not take: not asked again this run */
    }
    if (x->conv && !one) {
      for (int i = 0; i < m; i++) {
        uint8_t *cs = r->C + (r->sc[i] + o) * ce;
        if (into) conv_n(x, cs, bk + i * len * hs, len, r->sh[i] + h);
        else conv_n(x, bk + i * len * hs, cs, len, r->sh[i] + h);
      }
      continue;
    }
    uint8_t *t = x->conv ? r->G : bk; /* C's elements back to back */
    if (!into && x->conv) conv_n(x, bk, t, m * len, r->sh[0] + h);
    for (int i = 0; i < m; i++) {
      uint8_t *cs = r->C + (r->sc[i] + o) * ce;
      if (into) cpy(t + i * len * ce, cs, (size_t)(len * ce));
      else cpy(cs, t + i * len * ce, (size_t)(len * ce));
    }
    if (into && x->conv) conv_n(x, t, bk, m * len, r->sh[0] + h);
  }
}

/* The chunk's segments through B, all rows of b 16 at a time; a segment
** longer than B's chunk (one a chunk then) in pieces. */
static void run_chunk(pl_run *r) {
  const pl_x *x = r->x;
  const int64_t hs = x->hs, sl = x->sl;
  for (int64_t j0 = 0; j0 < x->b.n; j0 += 16) {
    const int kc = (int)(x->b.n - j0 < 16 ? x->b.n - j0 : 16);
    int kp = 1;
    while (kp < kc) kp *= 2;
    r->kv = valid_rows(x, j0, kc);
    uint8_t *pl = r->P + j0;
    for (int64_t c = 0; c < sl; c += r->cw) {
      const int64_t len = sl - c < r->cw ? sl - c : r->cw;
      if (x->pack) stage(r, 1, j0, r->kv, c, len);
      if (r->gs) group_job(r, kc, kp, pl);
      else if (sl < 16) short_job(r, kc, kp, pl);
      else seg_job(r, kc, kp, r->B, r->rsb, len * hs, pl, 0, r->sp, r->ns, c,
                   len);
      if (!x->pack) stage(r, 0, j0, r->kv, c, len); /* not pad rows read */
    }
  }
  r->ns = 0;
}

/* The tiles on C itself (no value rule, segments of a tile or more): the
** segments of one step of the loops outside q[f] (and q[f + 1]: two) a
** job. */
static void run_direct(pl_run *r, int64_t co, int64_t po) {
  const pl_x *x = r->x;
  const int64_t ce = (int64_t)x->C->esz;
  const pl_loop *f = x->f < x->nq ? &x->q[x->f] : NULL;
  const int nf = f ? (int)f->n : 1;
  for (int64_t j0 = 0; j0 < x->b.n; j0 += 16) {
    const int kc = (int)(x->b.n - j0 < 16 ? x->b.n - j0 : 16);
    int kp = 1;
    while (kp < kc) kp *= 2;
    r->kv = valid_rows(x, j0, kc);
    uint8_t *rows = r->C + (co + j0 * x->b.cs) * ce, *pl = r->P + po + j0;
    if (r->two && kc == r->kc) { /* q[f + 1]'s steps of q[f]'s tiles */
      const pl_loop *o = f + 1;
      const pl_job j = {rows, x->b.cs * ce, pl, (int)o->n, nf, o->cs * ce,
                        o->ps, f->cs * ce, f->ps, r->T, 0, NULL, 0, 0,
                        pl_zero, 0, NULL};
      run_job(r, kc, kp, &j);
    } else { /* and with two, each of q[f + 1]'s steps (the caller's
                ** walk leaves them to this call) */
      const pl_loop *o = r->two ? f + 1 : NULL;
      for (int64_t t = 0; t < (o ? o->n : 1); t++)
        seg_job(r, kc, kp, rows + (o ? t * o->cs * ce : 0), x->b.cs * ce,
                f ? f->cs * ce : 0, pl + (o ? t * o->ps : 0), f ? f->ps : 0,
                NULL, nf, 0, x->sl);
    }
  }
}

/* The next step of the loops q[from ..) (offsets and channel moved);
** 0 after the last. */
static int next_step(const pl_x *x, int from, int64_t *d, int64_t *co,
                     int64_t *po, int64_t *ch) {
  for (int j = from; j < x->nq; j++) {
    *co += x->q[j].cs;
    *po += x->q[j].ps;
    *ch += x->q[j].ch;
    if (++d[j] < x->q[j].n) return 1;
    *co -= x->q[j].cs * x->q[j].n;
    *po -= x->q[j].ps * x->q[j].n;
    *ch -= x->q[j].ch * x->q[j].n;
    d[j] = 0;
  }
  return 0;
}

int li_planes_run(const li_plan *p, const li_box *b, const li_loop *l, int n,
                  const uint8_t *src, const uint8_t *send, uint8_t *dst,
                  int64_t cb) {
  pl_x x;
  if (!pl_setup(p, b, l, n, &x)) return 0;
  if (pad_rows_read(&x, src, send)) x.b.n = pow2_up(x.b.n);
  int32_t off[PL_SL]; /* the segment's P offsets */
  int64_t d[PL_MAXL] = {0}, co = 0, po = 0, ch = cb;
  if (!x.lin) { /* q[0] innermost; each folded loop repeats the others */
    const pl_loop *t = x.q[0].t ? &x.q[0] : NULL; /* a table loop's own */
    int64_t len = t ? t->n : 1;
    off[0] = 0;
    for (int64_t i = 0; t && i < t->n; i++)
      off[i] = (int32_t)(t->t[2 * i] - t->t[0]);
    for (int k = t ? 1 : 0; k < x.f; len *= x.q[k++].n)
      for (int64_t j = 1; j < x.q[k].n; j++)
        for (int64_t i = 0; i < len; i++)
          off[j * len + i] = (int32_t)(off[i] + j * x.q[k].ps);
    x.off = off;
    x.per = x.sl >= 32 ? off[16] - off[0] : 0;
    for (int64_t i = 16; i < x.sl && x.per; i++)
      if (off[i] - off[i - 16] != x.per) x.per = 0;
  }
  _Alignas(64) uint8_t B[PL_B], G[PL_B];
  pl_tile T[PL_NT];
  pl_run r;
  r.x = &x;
  r.C = (uint8_t *)(uintptr_t)(x.pack ? src : dst);
  r.P = (uint8_t *)(uintptr_t)(x.pack ? dst : src);
  r.B = B;
  r.G = G;
  r.T = T;
  r.nt = r.ns = r.gs = r.gt = r.tz = r.tzu = 0;
  r.qr = x.conv && x.C->v.kind == LI_VR_ID && x.P->v.kind == LI_VR_QUANT &&
         x.simd >= LI_SIMD_AVX512;
  /* the grid's tiles, for the first 16 rows of b */
  r.kc = (int)(x.b.n < 16 ? x.b.n : 16);
  for (r.kp = 1; r.kp < r.kc;) r.kp *= 2;
  /* columns a chunk (a multiple of 16): B holds 16 rows of them and a
  ** tile past the last, G a row of C's elements */
  r.cw = (PL_B / (r.kc * x.hs) - 16) & ~(int64_t)15;
  if (r.cw > PL_B / (int64_t)x.C->esz) r.cw = PL_B / (int64_t)x.C->esz & ~15;
  r.rsb = (r.cw + 16) * x.hs;
  /* segments a chunk: as many as B holds */
  const int64_t per = x.sl >= r.cw ? 1 : r.cw / x.sl < PL_NP ? r.cw / x.sl
                                                              : PL_NP;
  int64_t g = 16; /* a group: the fewest segments of whole tiles */
  while (x.sl % g) g /= 2;
  g = 16 / g;
  /* with a period (32 columns and more) the segment path's fast loop
  ** packs faster than groups at every width measured, 36 to 56; it
  ** unpacks slower where groups save a sixth of its tiles or more (36, 40
  ** columns: 4-5%; even at 52), faster where they save less (44: 4%) */
  const int64_t st = (x.sl + 15) / 16 * 16; /* the segment path's tile columns */
  const int gain = (!x.per || (!x.pack && 6 * (st - x.sl) >= st)) &&
                   !x.q[0].t; /* a table's tiles stay on its blocks */
  if (x.sl > 16 && x.conv && g > 1 && x.sl * g / 16 < PL_NT && per >= g && gain) {
    r.gs = (int)g;
    r.gt = (int)(x.sl * g / 16);
    for (int t = 0; t < r.gt; t++)
      tile_plan(&x, 16 * t, 16, r.kc, r.kp, x.sl, &T[t]);
  } else if (x.sl < 16) {
    r.mp = (int)(16 / x.sl);
    tile_plan(&x, 0, (int)(r.mp * x.sl), r.kc, r.kp, x.sl, T);
  } else if (x.lin) {
    tile_plan(&x, 0, 16, r.kc, r.kp, 0, T);
  } else {
    for (int64_t c = 0; c + 16 <= x.sl && (c == 0 || !x.per); c += 16)
      tile_plan(&x, c, 16, r.kc, r.kp, 0, &T[r.nt++]); /* per: T[0] alone */
    tile_plan(&x, x.sl - 16, 16, r.kc, r.kp, 0, &T[r.nt++]);
    if (x.simd >= LI_SIMD_AVX512 && x.np == 2 && x.hs == 2 && x.sl % 16 &&
        !T[r.nt - 1].whole) {
      r.tz = (int)(x.sl % 16);
      tile_plan(&x, x.sl - r.tz, r.tz, r.kc, r.kp, 0, &r.TZ);
      r.tzu = tz_units(&r.TZ, r.kp);
    }
  }
  for (int i = 0; i < PL_MAXL; i++) d[i] = 0;
  if (!x.conv && (x.sl >= 16 || zshort(&x))) { /* the steps outside q[f]
                                                 (and q[f + 1]) */
    r.two = x.sl == 16 && x.f + 1 < x.nq;
    do run_direct(&r, co, po);
    while (next_step(&x, x.f + 1 + r.two, d, &co, &po, &ch));
    return 1;
  }
  /* the segments in chunks of per, of one channel where a per-channel
  ** rule converts them (one call a chunk) */
  do {
    if (r.ns == per || (x.perch && r.ns && ch != r.sh[0])) run_chunk(&r);
    r.sc[r.ns] = co;
    r.sp[r.ns] = po;
    r.sh[r.ns++] = ch;
  } while (next_step(&x, x.f, d, &co, &po, &ch));
  run_chunk(&r);
  return 1;
}

/* ---- SPLIT2 ------------------------------------------------------------------- */
#if defined(__SSE2__)
/* 16 rows x K elements from s (row r, channel k at s + (r + k*ssi)*2):
** lo[i], hi[i] hold rows i*16/K .. (i+1)*16/K - 1, K bytes each. */
static void split_tile_sse(const uint8_t *s, int64_t ssi, int K,
                           const li_split_args *a, __m128i *lo, __m128i *hi) {
  const __m128i c0 = _mm_cvtsi32_si128(a->h0), c1 = _mm_cvtsi32_si128(a->h1);
  const __m128i m0 = _mm_set1_epi16((short)a->m0),
                m1 = _mm_set1_epi16((short)a->m1);
  for (int k = 0; k < K; k++) {
    const uint8_t *e = s + k * ssi * 2;
    __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)e);
    __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(e + 16));
    lo[k] = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, c0), m0),
                             _mm_and_si128(_mm_srl_epi16(x1, c0), m0));
    hi[k] = _mm_packus_epi16(_mm_and_si128(_mm_srl_epi16(x0, c1), m1),
                             _mm_and_si128(_mm_srl_epi16(x1, c1), m1));
  }
  __m128i u[16], v[16];
  for (int h = K / 2; h >= 1; h /= 2) { /* log2(K) rounds */
    for (int j = 0; j < K / 2; j++) {
      u[2 * j] = _mm_unpacklo_epi8(lo[j], lo[j + K / 2]);
      u[2 * j + 1] = _mm_unpackhi_epi8(lo[j], lo[j + K / 2]);
      v[2 * j] = _mm_unpacklo_epi8(hi[j], hi[j + K / 2]);
      v[2 * j + 1] = _mm_unpackhi_epi8(hi[j], hi[j + K / 2]);
    }
    for (int j = 0; j < K; j++) {
      lo[j] = u[j];
      hi[j] = v[j];
    }
  }
}

/* Rows [r0, r0 + 16) of the flat row index r = j*n1 + i, stored at
** d + j*ds2 + i*dso. */
static void split_rows16(const uint8_t *s, int64_t ssi, uint8_t *d,
                         const li_split_args *a, int64_t n1, int64_t ds2,
                         int64_t r0, int K) {
  __m128i lo[16], hi[16];
  split_tile_sse(s, ssi, K, a, lo, hi);
  const int per = 16 / K; /* rows a vector */
  /* whole vectors inside one group: r0 is a multiple of per (16 * i, or
  ** N - 16 with N = n2 * n1 a multiple of per) */
  if (a->dso == K && n1 % per == 0) {
    int64_t j = r0 / n1, i1 = r0 % n1;
    for (int i = 0; i < K; i++) {
      uint8_t *o = d + j * ds2 + i1 * K;
      _mm_storeu_si128((__m128i *)(void *)o, lo[i]);
      _mm_storeu_si128((__m128i *)(void *)(o + a->ps), hi[i]);
      if ((i1 += per) == n1) {
        i1 = 0;
        j++;
      }
    }
    return;
  }
  uint8_t tl[256], th[256];
  for (int i = 0; i < K; i++) {
    _mm_storeu_si128((__m128i *)(void *)(tl + 16 * i), lo[i]);
    _mm_storeu_si128((__m128i *)(void *)(th + 16 * i), hi[i]);
  }
  for (int q = 0; q < 16; q++) {
    int64_t r = r0 + q;
    uint8_t *o = d + (r / n1) * ds2 + (r % n1) * a->dso;
    memcpy(o, tl + q * K, (size_t)K);
    memcpy(o + a->ps, th + q * K, (size_t)K);
  }
}
#endif

/* One row of K elements (scalar). */
static void split_row(const uint8_t *s, int64_t ssi, uint8_t *o,
                      const li_split_args *a, int K) {
  for (int k = 0; k < K; k++) {
    uint16_t u;
    memcpy(&u, s + k * ssi * 2, 2);
    o[k] = (uint8_t)(((uint32_t)u >> a->h0) & a->m0);
    o[k + a->ps] = (uint8_t)(((uint32_t)u >> a->h1) & a->m1);
  }
}

void li_split2_3(const uint8_t *s, uint8_t *d, const li_split_args *a,
                 int64_t n2, int64_t ss2, int64_t ds2, int64_t n1, int K,
                 int simd) {
#if defined(__SSE2__)
  const int64_t N = n2 * n1;
  if (simd >= LI_SIMD_SSE && a->sso == 1 && ss2 == n1 && N >= 16 &&
      (K == 2 || K == 4 || K == 8 || K == 16) &&
      (K != 16 || n1 < 16)) { /* K == 16, n1 >= 16: li_split2's AVX2 */
    int64_t r = 0;
    for (; r + 16 <= N; r += 16)
      split_rows16(s + r * 2, a->ssi, d, a, n1, ds2, r, K);
    if (r < N) /* the last 16 rows, overlapping: the same bytes again */
      split_rows16(s + (N - 16) * 2, a->ssi, d, a, n1, ds2, N - 16, K);
    return;
  }
#endif
  for (int64_t j = 0; j < n2; j++)
    li_split2(s + j * ss2 * 2, d + j * ds2, a, n1, K, simd);
}

#define CR 256 /* rows a chunk of li_split2_conv */

int li_split2_conv(const li_side *S, const li_side *D, const uint8_t *s,
                   uint8_t *d, const li_split_args *a, const int64_t *o3,
                   int64_t n1, int64_t cso, int K, int64_t cb, int64_t csi,
                   int simd) {
#if defined(__SSE2__)
  const int64_t n2 = o3[0], ss2 = o3[1], ds2 = o3[2], N = n2 * n1;
  if (n2 > 1 && (ss2 != n1 || o3[3] != 0)) { /* one step at a time */
    const int64_t one[4] = {1, 0, 0, 0}, se = (int64_t)S->esz;
    for (int64_t j = 0; j < n2; j++)
      if (!li_split2_conv(S, D, s + j * ss2 * se, d + j * ds2, a, one, n1, cso,
                          K, cb + j * o3[3], csi, simd))
        return 0; /* at j == 0: the same conditions hold for every step */
    return 1;
  }
  if (simd < LI_SIMD_SSE || a->sso != 1 || N < 16 ||
      cso != 0 || S->v.kind != LI_VR_ID || S->v.nplanes ||
      !(K == 2 || K == 4 || K == 8 || K == 16) ||
      li_dt_size(D->v.hw) != 2)
    return 0;
  li_vrule v[16];
  for (int k = 0; k < K; k++)
    if (!li_vrule_channel(&D->v, (int32_t)(cb + k * csi), &v[k])) return 0;
  uint16_t buf[16 * CR];
  const int64_t se = (int64_t)S->esz;
  for (int64_t r0 = 0; r0 < N; r0 += CR) {
    int64_t m = N - r0 < CR ? N - r0 : CR, r = 0;
    for (int k = 0; k < K; k++)
      li_encode(&v[k], s + (r0 + k * a->ssi) * se, buf + k * CR, m, NULL);
    const uint8_t *b = (const uint8_t *)buf;
    for (; r + 16 <= m; r += 16)
      split_rows16(b + r * 2, CR, d, a, n1, ds2, r0 + r, K);
    if (r < m && m >= 16) { /* the last 16 rows, overlapping */
      split_rows16(b + (m - 16) * 2, CR, d, a, n1, ds2, r0 + m - 16, K);
      r = m;
    }
    for (; r < m; r++) {
      int64_t g = r0 + r;
      split_row(b + r * 2, CR, d + (g / n1) * ds2 + (g % n1) * a->dso, a, K);
    }
  }
  return 1;
#else
  (void)S; (void)D; (void)s; (void)d; (void)a; (void)o3; (void)n1;
  (void)cso; (void)K; (void)cb; (void)csi; (void)simd;
  return 0;
#endif
}
