/*
** cli_npy.c: numpy .npy files and named shapes for the `lay` CLI.
**
** An .npy file is the magic "\x93NUMPY", a version (1.0: a 16-bit header
** length; 2.0 and 3.0: 32-bit), then a Python dict literal padded with
** spaces and ended by '\n':
**   {'descr': '<f4', 'fortran_order': False, 'shape': (1, 3, 224, 224), }
** and the array's bytes. The reader takes exactly that grammar (three keys,
** each once, any order), C order only, the little-endian types lay has, a
** shape of 1 to LAY_MAX_RANK positive sizes, and data of exactly the
** header's length; anything else is a one-line error naming the file and
** the byte where the header went wrong. It never trusts a length before
** checking it against the buffer.
*/
#define _POSIX_C_SOURCE 200809L /* fileno */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_npy.h"

/* One table: lay's element types as numpy descr strings. */
static const struct {
  const char *descr; /* as numpy writes it */
  lay_dtype t;
} npy_types[] = {
    {"<f4", LAY_DT_FP32},  {"<f2", LAY_DT_FP16},  {"|i1", LAY_DT_INT8},
    {"|u1", LAY_DT_UINT8}, {"<i2", LAY_DT_INT16}, {"<u2", LAY_DT_UINT16},
    {"<i4", LAY_DT_INT32}, {"<u2", LAY_DT_BF16}, /* bf16: its bits */
    {"<u4", LAY_DT_UINT32}, {"<i8", LAY_DT_INT64}, {"<u8", LAY_DT_UINT64},
    {"|u1", LAY_DT_FP8E4M3}, {"|u1", LAY_DT_FP8E5M2}, /* fp8: its bits */
};
#define N_NPY_TYPES (sizeof npy_types / sizeof npy_types[0])

int cli_npy_name(const char *path) {
  size_t n = path ? strlen(path) : 0;
  return n > 4 && !strcmp(path + n - 4, ".npy");
}

/* ---- Reading the header ------------------------------------------------------ */

typedef struct hp {
  const char *s;     /* the header text */
  size_t n, i;       /* its length, the cursor */
  const char *name;  /* the file, for messages */
  size_t base;       /* file offset of s[0] */
} hp;

static int hp_fail(const hp *p, const char *what) {
  cli_fail("%s: malformed .npy header at byte %zu: %s", p->name, p->base + p->i,
           what);
  return -1;
}

static void hp_ws(hp *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                         p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

static int hp_char(hp *p, char c, const char *what) {
  hp_ws(p);
  if (p->i >= p->n || p->s[p->i] != c) return hp_fail(p, what);
  p->i++;
  return 0;
}

/* A quoted string ('...' or "..."; no escapes) into out[cap]. */
static int hp_str(hp *p, char *out, size_t cap) {
  hp_ws(p);
  if (p->i >= p->n || (p->s[p->i] != '\'' && p->s[p->i] != '"'))
    return hp_fail(p, "expected a quoted string");
  char q = p->s[p->i++];
  size_t k = 0;
  while (p->i < p->n && p->s[p->i] != q) {
    if (p->s[p->i] == '\\' || k + 1 >= cap) return hp_fail(p, "string too long or escaped");
    out[k++] = p->s[p->i++];
  }
  if (p->i >= p->n) return hp_fail(p, "unterminated string");
  p->i++;
  out[k] = '\0';
  return 0;
}

static int hp_word(hp *p, const char *w) {
  size_t l = strlen(w);
  if (p->n - p->i >= l && !memcmp(p->s + p->i, w, l)) {
    p->i += l;
    return 1;
  }
  return 0;
}

/* (a, b, c) or (a,) or (): sizes into out. */
static int hp_shape(hp *p, cli_npy *out) {
  if (hp_char(p, '(', "expected '(' starting the shape")) return -1;
  out->rank = 0;
  for (;;) {
    hp_ws(p);
    if (p->i < p->n && p->s[p->i] == ')') break;
    if (out->rank == LAY_MAX_RANK) {
      cli_fail("%s: the array has more than %d dimensions (lay takes 1 to %d)",
               p->name, LAY_MAX_RANK, LAY_MAX_RANK);
      return -1;
    }
    if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
      return hp_fail(p, "expected a size in the shape");
    int64_t v = 0;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
      if (v > (INT64_MAX - 9) / 10) return hp_fail(p, "a size in the shape is too large");
      v = v * 10 + (p->s[p->i++] - '0');
    }
    if (p->i < p->n && p->s[p->i] == 'L') p->i++; /* Python 2's 3L */
    out->shape[out->rank++] = v;
    hp_ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    hp_ws(p);
    if (p->i >= p->n || p->s[p->i] != ')') return hp_fail(p, "expected ',' or ')' in the shape");
  }
  p->i++;
  return 0;
}

/* The dict: 'descr', 'fortran_order' and 'shape', each exactly once. */
static int hp_dict(hp *p, cli_npy *out, char *descr, size_t dcap, int *fortran) {
  int seen = 0;
  if (hp_char(p, '{', "expected '{'")) return -1;
  for (;;) {
    hp_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') break;
    char key[32];
    size_t at = p->i;
    if (hp_str(p, key, sizeof key)) return -1;
    int bit = !strcmp(key, "descr") ? 1 : !strcmp(key, "fortran_order") ? 2
              : !strcmp(key, "shape") ? 4 : 0;
    if (!bit || (seen & bit)) {
      p->i = at;
      return hp_fail(p, bit ? "a key given twice" : "an unknown key (expected descr, "
                     "fortran_order, shape)");
    }
    seen |= bit;
    if (hp_char(p, ':', "expected ':' after the key")) return -1;
    hp_ws(p);
    if (bit == 1 && hp_str(p, descr, dcap)) return -1;
    if (bit == 2) {
      if (hp_word(p, "True")) *fortran = 1;
      else if (hp_word(p, "False")) *fortran = 0;
      else return hp_fail(p, "fortran_order must be True or False");
    }
    if (bit == 4 && hp_shape(p, out)) return -1;
    hp_ws(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i >= p->n || p->s[p->i] != '}') return hp_fail(p, "expected ',' or '}'");
  }
  p->i++;
  hp_ws(p);
  if (p->i != p->n) return hp_fail(p, "text after the dict");
  if (seen != 7)
    return hp_fail(p, !(seen & 1)   ? "no 'descr' key"
                      : !(seen & 2) ? "no 'fortran_order' key"
                                    : "no 'shape' key");
  return 0;
}

/* descr -> lay dtype; -1 after printing why not. */
static int npy_dtype(const char *name, const char *descr, lay_dtype *t) {
  char d[16];
  snprintf(d, sizeof d, "%s", descr);
  /* A one-byte type may carry any byte-order mark. */
  if ((d[0] == '<' || d[0] == '>' || d[0] == '=') && (d[1] == 'i' || d[1] == 'u') &&
      d[2] == '1' && !d[3])
    d[0] = '|';
  if (d[0] == '=') d[0] = '<'; /* lay runs on little-endian machines */
  for (size_t i = 0; i < N_NPY_TYPES; i++)
    if (!strcmp(npy_types[i].descr, d)) {
      *t = npy_types[i].t;
      return 0;
    }
  if (descr[0] == '>')
    cli_fail("%s: big-endian data ('%s') is not supported: save it little-endian "
             "(x.astype(x.dtype.newbyteorder('<')))", name, descr);
  else
    cli_fail("%s: dtype '%s' is not supported (lay takes <f4 <f2 |i1 |u1 <i2 <u2 "
             "<i4 <u4 <i8 <u8; bf16 as <u2, fp8 as |u1): convert it first, "
             "e.g. x.astype(np.float32)",
             name, descr);
  return -1;
}

int cli_npy_parse(const unsigned char *buf, size_t len, const char *name,
                  cli_npy *out) {
  memset(out, 0, sizeof *out);
  if (len < 10 || memcmp(buf, "\x93NUMPY", 6)) {
    cli_fail("%s: not an .npy file (no \\x93NUMPY magic at its start)", name);
    return -1;
  }
  int major = buf[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) {
      cli_fail("%s: truncated .npy file (%zu bytes)", name, len);
      return -1;
    }
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 |
           (size_t)buf[11] << 24;
    hstart = 12;
  } else {
    cli_fail("%s: .npy version %d.%d is not supported (1.0, 2.0, 3.0)", name, major,
             buf[7]);
    return -1;
  }
  if (hlen > len - hstart) {
    cli_fail("%s: truncated .npy file: the header says %zu bytes, %zu follow", name,
             hlen, len - hstart);
    return -1;
  }
  hp p = {(const char *)buf + hstart, hlen, 0, name, hstart};
  char descr[16];
  int fortran = 0;
  if (hp_dict(&p, out, descr, sizeof descr, &fortran)) return -1;
  if (fortran) {
    cli_fail("%s: the array is in Fortran order: save it in C order "
             "(np.save(f, np.ascontiguousarray(x)))", name);
    return -1;
  }
  if (npy_dtype(name, descr, &out->dtype)) return -1;
  if (out->rank == 0) {
    cli_fail("%s: the array is a scalar (shape ()); lay takes 1 to %d dimensions",
             name, LAY_MAX_RANK);
    return -1;
  }
  uint64_t bytes = lay_dtype_size(out->dtype);
  for (int i = 0; i < out->rank; i++) {
    if (out->shape[i] < 1) {
      cli_fail("%s: dimension %d of the shape is 0; sizes must be at least 1", name, i);
      return -1;
    }
    if (bytes > UINT64_MAX / (uint64_t)out->shape[i]) {
      cli_fail("%s: the array's byte size overflows 64 bits", name);
      return -1;
    }
    bytes *= (uint64_t)out->shape[i];
  }
  out->data_off = hstart + hlen;
  out->data_len = len - out->data_off;
  if (bytes != out->data_len) {
    char s[LAY_MAX_RANK * 24];
    cli_shape_str(out->shape, out->rank, s, sizeof s);
    cli_fail("%s: the header says %s %s (%" PRIu64 " bytes), the file holds %zu "
             "bytes of data", name, s, descr, bytes, out->data_len);
    return -1;
  }
  return 0;
}

/* ---- Writing ------------------------------------------------------------------ */

size_t cli_npy_header(const int64_t *shape, int rank, lay_dtype t, char *buf,
                      size_t cap) {
  int64_t packed[1];
  if (lay_dtype_bits(t) == 4) { /* int4/uint4: the packed bytes, 1-D u1 */
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= shape[i];
    packed[0] = n / 2 + n % 2;
    shape = packed;
    rank = 1;
    t = LAY_DT_UINT8;
  }
  const char *descr = "|u1";
  for (size_t i = 0; i < N_NPY_TYPES; i++)
    if (npy_types[i].t == t) descr = npy_types[i].descr;
  char dict[LAY_MAX_RANK * 24 + 96];
  int n = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   descr);
  for (int i = 0; i < rank; i++)
    n += snprintf(dict + n, sizeof dict - (size_t)n, "%s%" PRId64, i ? ", " : "", shape[i]);
  n += snprintf(dict + n, sizeof dict - (size_t)n, "%s), }", rank == 1 ? "," : "");
  size_t total = 10 + (size_t)n + 1; /* magic, version, length, dict, '\n' */
  total = (total + 63) / 64 * 64;
  if (total > cap || total - 10 > 65535) return 0;
  memcpy(buf, "\x93NUMPY\x01\x00", 8);
  size_t hlen = total - 10;
  buf[8] = (char)(hlen & 0xff);
  buf[9] = (char)(hlen >> 8);
  memcpy(buf + 10, dict, (size_t)n);
  memset(buf + 10 + n, ' ', total - 10 - (size_t)n - 1);
  buf[total - 1] = '\n';
  return total;
}

int cli_npy_write(const char *path, const int64_t *shape, int rank, lay_dtype t,
                  const void *data, size_t len) {
  char head[512];
  size_t hn = cli_npy_header(shape, rank, t, head, sizeof head);
  unsigned char *all = hn && len <= SIZE_MAX - hn ? malloc(hn + len) : NULL;
  if (!all) {
    cli_fail("out of memory: the .npy output needs %zu bytes", len);
    return -1;
  }
  memcpy(all, head, hn);
  if (len) memcpy(all + hn, data, len);
  int rc = cli_write_all(path, all, hn + len);
  free(all);
  return rc;
}

/* ---- Named shapes ----------------------------------------------------------------- */

int cli_npy_shape(lay_ctx *ctx, const char *format, const char *s, int64_t *shape,
                  int cap) {
  if (!strchr(s, '=')) return cli_shape(s, shape, cap);
  char dims[LAY_MAX_RANK * 80];
  int rank;
  lay_error err;
  if (lay_format_dims(ctx, format, &rank, dims, sizeof dims, &err)) {
    cli_fail("%s: %s", format, err.message);
    return -1;
  }
  /* Split "n=1,c=3" into names and a plain list "1,3". */
  char names[LAY_MAX_RANK * 80] = "", sizes[LAY_MAX_RANK * 24 + 8] = "";
  size_t nn = 0, sn = 0;
  int given = 0;
  for (const char *q = s; *q;) {
    const char *e = strchr(q, ','), *end = e ? e : q + strlen(q);
    const char *eq = memchr(q, '=', (size_t)(end - q));
    if (!eq || eq == q || given == cap) {
      cli_fail("bad --shape '%s': expected name=size items like n=1,c=3,h=224,w=224", s);
      return -1;
    }
    size_t kl = (size_t)(eq - q), vl = (size_t)(end - eq - 1);
    if (nn + kl + 2 > sizeof names || sn + vl + 2 > sizeof sizes) {
      cli_fail("bad --shape '%s': too long", s);
      return -1;
    }
    nn += (size_t)snprintf(names + nn, sizeof names - nn, "%s%.*s", given ? "," : "",
                           (int)kl, q);
    sn += (size_t)snprintf(sizes + sn, sizeof sizes - sn, "%s%.*s", given ? "," : "",
                           (int)vl, eq + 1);
    given++;
    q = e ? e + 1 : end;
  }
  if (strcmp(names, dims)) {
    cli_fail("--shape %s: %s's CPU-side dimensions are %s, in that order; the "
             "names given are %s (data in another order: lay convert from core.nhwc "
             "or the matching layout)", s, format, dims, names);
    return -1;
  }
  int n = cli_shape(sizes, shape, cap);
  if (n >= 0 && n != rank) {
    cli_fail("bad --shape '%s'", s);
    return -1;
  }
  return n;
}

/* ---- Hooks of pack, unpack, convert ------------------------------------------------ */

/* The first bytes of a regular file `path` holding its whole .npy header
** (at most 1 MB of header), so that the data can be streamed from the
** file; *size the file's size. NULL when the file is not regular, the
** header is longer, or the read fails (the caller reads the whole file). */
static unsigned char *npy_head(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  struct stat sb;
  if (!f) return NULL;
  unsigned char *b = NULL;
  size_t cap = (size_t)1 << 20, got;
  if (fstat(fileno(f), &sb) || !S_ISREG(sb.st_mode) ||
      (uint64_t)sb.st_size >= SIZE_MAX || !(b = malloc(cap))) {
    fclose(f);
    return NULL;
  }
  got = fread(b, 1, cap, f);
  fclose(f);
  *size = (size_t)sb.st_size;
  if (got < cap && got != *size) {
    free(b);
    return NULL;
  }
  size_t hend = got; /* where the header ends, when it can be told */
  if (got >= 12 && b[6] == 1)
    hend = 10 + ((size_t)b[8] | (size_t)b[9] << 8);
  else if (got >= 12 && (b[6] == 2 || b[6] == 3))
    hend = 12 + ((size_t)b[8] | (size_t)b[9] << 8 | (size_t)b[10] << 16 |
                 (size_t)b[11] << 24);
  if (hend > got && got < *size) {
    free(b);
    return NULL;
  }
  return b;
}

int cli_npy_input(const cli_args *a, lay_dir dir, cli_npy_in *in) {
  (void)dir;
  memset(in, 0, sizeof *in);
  if (!cli_npy_name(a->in)) return 0;
  size_t len;
  /* A regular file: its header only (cli_npy_parse reads no further than
  ** the header its first bytes announce, and sizes the data from len). */
  if (!(in->file = npy_head(a->in, &len))) {
    if (cli_read_all(a->in, SIZE_MAX - 1, &in->file, &len)) return -1;
    if (!in->file && len) {
      cli_fail("%s: too large to read", a->in);
      return -1;
    }
  }
  if (cli_npy_parse(in->file ? in->file : (const unsigned char *)"", len, a->in, &in->h)) {
    free(in->file);
    in->file = NULL;
    return -1;
  }
  in->active = 1;
  return 0;
}

int cli_npy_plan_shape(lay_ctx *ctx, const cli_args *a, const cli_npy_in *in,
                       int64_t *shape, lay_dtype *t) {
  char hs[LAY_MAX_RANK * 24], gs[LAY_MAX_RANK * 24];
  cli_shape_str(in->h.shape, in->h.rank, hs, sizeof hs);
  if (a->shape) {
    int64_t g[LAY_MAX_RANK];
    int n = cli_npy_shape(ctx, a->pos[0], a->shape, g, LAY_MAX_RANK);
    if (n < 0) return -1;
    int same = n == in->h.rank;
    for (int i = 0; same && i < n; i++) same = g[i] == in->h.shape[i];
    if (!same) {
      cli_shape_str(g, n, gs, sizeof gs);
      cli_fail("--shape %s contradicts %s, whose header says %s", gs, a->in, hs);
      return -1;
    }
  }
  *t = in->h.dtype;
  if (a->dtype) {
    lay_dtype g = lay_dtype_parse(a->dtype);
    if (g == LAY_DT_NONE) {
      cli_fail("unknown --dtype '%s'", a->dtype);
      return -1;
    }
    if (g != in->h.dtype && !(g == LAY_DT_BF16 && in->h.dtype == LAY_DT_UINT16) &&
        !((g == LAY_DT_FP8E4M3 || g == LAY_DT_FP8E5M2) &&
          in->h.dtype == LAY_DT_UINT8)) {
      cli_fail("--dtype %s contradicts %s, whose header says %s", lay_dtype_name(g),
               a->in, lay_dtype_name(in->h.dtype));
      return -1;
    }
    *t = g;
  }
  memcpy(shape, in->h.shape, (size_t)in->h.rank * sizeof *shape);
  return in->h.rank;
}

int cli_npy_check_src(const cli_args *a, const cli_npy_in *in, lay_dtype src) {
  if (in->h.dtype == LAY_DT_UINT8 || in->h.dtype == src ||
      (src == LAY_DT_BF16 && in->h.dtype == LAY_DT_UINT16))
    return 0;
  cli_fail("%s holds %s, the plan reads %s (or raw bytes, uint8)", a->in,
           lay_dtype_name(in->h.dtype), lay_dtype_name(src));
  return -1;
}

int cli_npy_output(const cli_args *a) { return a->npy || cli_npy_name(a->out); }
