/*
** repl_cmds.c: the commands of `lay repl` (load, list, show, info, where,
** at, diff, test, draw, namespace, help, quit), run on the words of one
** line; repl.c reads the lines and the definitions.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_draw.h"
#include "cli_lay.h"
#include "lay_tools.h"
#include "repl_int.h"

/* ---- Commands --------------------------------------------------------------- */

/* Split a command line into words; brackets and quotes keep a word whole
** ("ti.tidl(pad_l=1, pad_r=1)", "[1, 3, 2, 2]"). Returns the count, -1 on
** an unclosed bracket or quote. */
int repl_split(char *s, char **w, int cap) {
  int n = 0;
  for (;;) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return n;
    if (n == cap) return -1;
    if (*s == '"') {
      w[n++] = ++s;
      while (*s && *s != '"') s++;
      if (!*s) return -1;
      *s++ = 0;
      continue;
    }
    w[n++] = s;
    int depth = 0;
    char *o = s;
    for (; *s && (depth > 0 || !isspace((unsigned char)*s)); s++) {
      if (*s == '(' || *s == '[') depth++;
      if ((*s == ')' || *s == ']') && depth > 0) depth--;
      if (depth > 0 && isspace((unsigned char)*s)) continue; /* drop */
      *o++ = *s;
    }
    if (depth) return -1;
    int end = !*s;
    *o = 0;
    if (end) return n;
    s++;
  }
}

/* FORMAT as the context knows it: with a current namespace, "ns.name"
** first when it is defined (LANGUAGE.md: names are looked up in the
** current namespace first, then as written). Into buf; returns it. */
static const char *resolve(const repl *r, const char *format, char *buf,
                           size_t cap) {
  snprintf(buf, cap, "%s", format);
  if (!r->ns[0]) return buf;
  char name[256];
  size_t n = strcspn(format, "( ");
  if (n >= sizeof name) return buf;
  snprintf(name, sizeof name, "%s.%.*s", r->ns, (int)n, format);
  lay_def_info d;
  if (!lay_ctx_def_info(r->ctx, name, &d, NULL) && !strcmp(d.name, name))
    snprintf(buf, cap, "%s.%s", r->ns, format);
  return buf;
}

/* SHAPE ("1,3,2,2", optionally ":TYPE") into shape and *dt; the rank, or
** -1 after the error. */
static int parse_shape(repl *r, const char *shape_s, int64_t *shape,
                       lay_dtype *dt) {
  char tmp[256];
  snprintf(tmp, sizeof tmp, "%s", shape_s);
  *dt = LAY_DT_NONE;
  char *colon = strchr(tmp, ':');
  if (colon) {
    *colon = 0;
    *dt = lay_dtype_parse(colon + 1);
    if (*dt == LAY_DT_NONE) {
      char hint[256];
      cli_suggest_dtype(colon + 1, hint, sizeof hint);
      repl_say_error(r, "unknown type '%s'%s", colon + 1, hint);
      return -1;
    }
  }
  int rank = cli_parse_list(tmp, shape, LAY_MAX_RANK, 1);
  if (rank < 1) {
    repl_say_error(r, "bad shape '%s': expected positive sizes like 1,3,224,224",
                   shape_s);
    return -1;
  }
  return rank;
}

/* Compile FORMAT for SHAPE ("1,3,2,2", optionally ":TYPE"); `dir` pack or
** unpack, or convert into `to`. */
static lay_plan *plan_dir(repl *r, const char *format, const char *to,
                          const char *shape_s, lay_dir dir) {
  int64_t shape[LAY_MAX_RANK];
  lay_dtype dt;
  int rank = parse_shape(r, shape_s, shape, &dt);
  if (rank < 0) return NULL;
  char f1[512], f2[512];
  resolve(r, format, f1, sizeof f1);
  lay_plan *p = NULL;
  lay_error err;
  lay_status st =
      dir == LAY_CONVERT
          ? lay_plan_convert_map(r->ctx, f1, resolve(r, to, f2, sizeof f2),
                                 NULL, shape, rank, dt, &p, &err)
          : lay_plan_create(r->ctx, f1, shape, rank, dt, dir, &p, &err);
  if (st) {
    cli_explain_error(r->ctx, &err);
    repl_print_error(r, &err);
    return NULL;
  }
  return p;
}

static lay_plan *make_plan(repl *r, const char *format, const char *shape_s) {
  return plan_dir(r, format, NULL, shape_s, LAY_PACK);
}

static void print_tuple(const int64_t *c, int n) {
  printf("(");
  for (int i = 0; i < n; i++) printf("%s%lld", i ? "," : "", (long long)c[i]);
  printf(")");
}

static void print_shape(const int64_t *c, int n, const char **names) {
  printf("[");
  for (int i = 0; i < n; i++) {
    if (names && names[i]) printf("%s%s=%lld", i ? ", " : "", names[i],
                                  (long long)c[i]);
    else printf("%s%lld", i ? "," : "", (long long)c[i]);
  }
  printf("]");
}

/* "(0,1,0,1)", "pad (0,3,0,0)", "hole", with " plane K" for byte planes. */
static void print_at(const int64_t *c, int rank, int pad, int plane,
                     int has_planes) {
  if (pad == 2) printf("hole");
  else {
    if (pad) printf("pad ");
    print_tuple(c, rank);
  }
  if (has_planes) printf(" plane %d", plane);
}

static void cmd_help(void) {
  printf(
      "commands:\n"
      "  load FILE                 load a spec file\n"
      "  list [NAMESPACE]          the layouts and transforms defined\n"
      "  show FORMAT SHAPE [N]     memory order in the docs' notation (N elements\n"
      "                            at most, default 4096; 0: all)\n"
      "  info FORMAT SHAPE         shapes, dtypes, bytes and the plan in words\n"
      "  where FORMAT SHAPE COORD  byte offset of a CPU-side coordinate\n"
      "                            (--elements: its element index)\n"
      "  at FORMAT SHAPE OFFSET    coordinate (or pad) at a byte offset\n"
      "                            (--elements: at an element index)\n"
      "  diff A B SHAPE            the first byte where A and B hold different\n"
      "                            elements (or pad), and how many bytes differ\n"
      "                            (int4, uint4: elements, one per nibble)\n"
      "  test FILE...              run the test blocks of spec files\n"
      "  draw FORMAT SHAPE FILE.svg [ROW_BYTES [DIM]]  a picture of the buffer\n"
      "  pack FORMAT SHAPE IN OUT  pack the raw bytes of file IN into OUT\n"
      "  unpack FORMAT SHAPE IN OUT  unpack file IN into OUT\n"
      "  convert FROM TO SHAPE IN OUT  convert file IN into OUT\n"
      "  namespace [NAME]          the namespace of the next definitions\n"
      "  help, quit\n"
      "SHAPE is 1,3,2,2 (or 1x3x2x2), optionally with a type: 1,3,2,2:int16.\n"
      "A line starting with layout, transform, test \"...\" or import is a\n"
      "definition; it goes on while brackets are open, a line ends in an\n"
      "operator (->, |, =, ,) or the text is not complete yet (at the ...>\n"
      "prompt; an empty line gives up). A line starting with |, ->, {,\n"
      "where NAME =, pad_value or a clause keyword continues the last layout\n"
      "or transform, which is compiled again and replaced; defining a name\n"
      "typed here again replaces it too (not names from files or the stdlib).\n");
}

static void cmd_list(repl *r, int n, char **w) {
  size_t cnt = lay_ctx_count(r->ctx), shown = 0;
  size_t nl = n > 1 ? strlen(w[1]) : 0;
  for (size_t i = 0; i < cnt; i++) {
    const char *name = lay_ctx_name(r->ctx, i);
    if (!name) continue;
    if (n > 1 && (strncmp(name, w[1], nl) || name[nl] != '.')) continue;
    printf("%s\n", name);
    shown++;
  }
  if (!shown && n > 1) repl_say_error(r, "no layouts in namespace '%s'", w[1]);
}

static void cmd_load(repl *r, const char *path) {
  size_t before = lay_ctx_count(r->ctx);
  lay_error err;
  if (lay_ctx_load_file(r->ctx, path, &err) != LAY_OK) {
    repl_print_error(r, &err);
    return;
  }
  repl_file_event(r, EV_FILE, path);
  size_t after = lay_ctx_count(r->ctx);
  printf("loaded %s: %zu new name%s\n", path, after - before,
         after - before == 1 ? "" : "s");
}

static void cmd_show(repl *r, int n, char **w) {
  if (n < 3) {
    repl_say_error(r, "usage: show FORMAT SHAPE [LIMIT]");
    return;
  }
  int64_t limit = REPL_SHOW_LIMIT;
  if (n > 3 && cli_parse_list(w[3], &limit, 1, 0) != 1) {
    repl_say_error(r, "bad limit '%s'", w[3]);
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  if (cli_show_plan(stdout, p, (size_t)limit, r->color))
    repl_say_error(r, "out of memory");
  lay_plan_free(p);
}


static void cmd_info(repl *r, int n, char **w) {
  if (n != 3) {
    repl_say_error(r, "usage: info FORMAT SHAPE");
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  int64_t shape[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int rank = lay_plan_cpu_shape(p, shape, LAY_MAX_RANK);
  printf("cpu side: ");
  print_shape(shape, rank < LAY_MAX_RANK ? rank : LAY_MAX_RANK, NULL);
  printf(" %s, %zu bytes\n", lay_dtype_name(lay_plan_src_dtype(p)),
         lay_plan_src_bytes(p));
  int nax = lay_plan_hw_shape(p, shape, names, LAY_MAX_AXES);
  printf("layout:   ");
  print_shape(shape, nax < LAY_MAX_AXES ? nax : LAY_MAX_AXES, names);
  printf(" %s, %zu bytes\n", lay_dtype_name(lay_plan_dst_dtype(p)),
         lay_plan_dst_bytes(p));
  char *d = lay_plan_describe(p);
  if (d) {
    printf("%s", d);
    if (*d && d[strlen(d) - 1] != '\n') printf("\n");
  }
  lay_free(d);
  lay_plan_free(p);
}

/* A trailing --elements word: where/at in element indexes. */
static int elements_word(int *n, char **w) {
  if (*n != 5 || strcmp(w[4], "--elements")) return 0;
  *n = 4;
  return 1;
}

static void cmd_where(repl *r, int n, char **w) {
  int el = elements_word(&n, w);
  if (n != 4) {
    repl_say_error(r, "usage: where FORMAT SHAPE COORD [--elements]");
    return;
  }
  int64_t c[LAY_MAX_RANK];
  int rank = cli_parse_list(w[3], c, LAY_MAX_RANK, 0);
  if (rank < 1) {
    repl_say_error(r, "bad coordinate '%s': expected indices like 0,1,0,1", w[3]);
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  uint64_t off;
  lay_error err;
  if (el ? lay_plan_where_element(p, c, rank, &off, &err)
         : lay_plan_where(p, c, rank, &off, &err))
    repl_print_error(r, &err);
  else {
    print_tuple(c, rank);
    printf(" -> %llu\n", (unsigned long long)off);
  }
  lay_plan_free(p);
}

static void cmd_at(repl *r, int n, char **w) {
  int el = elements_word(&n, w);
  if (n != 4) {
    repl_say_error(r, "usage: at FORMAT SHAPE OFFSET [--elements]");
    return;
  }
  int64_t off;
  if (cli_parse_list(w[3], &off, 1, 0) != 1) {
    repl_say_error(r, "bad offset '%s'", w[3]);
    return;
  }
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  int64_t c[LAY_MAX_RANK];
  int pad = 0, plane = 0;
  lay_error err;
  if (el ? lay_plan_at_element(p, (uint64_t)off, c, LAY_MAX_RANK, &pad,
                               &plane, &err)
         : lay_plan_at(p, (uint64_t)off, c, LAY_MAX_RANK, &pad, &plane,
                       &err)) {
    repl_print_error(r, &err);
  } else {
    printf("%lld -> ", (long long)off);
    int rank = lay_plan_cpu_shape(p, NULL, 0);
    print_at(c, rank, pad, plane, lay_plan_plane_count(p) > 0);
    printf("\n");
  }
  lay_plan_free(p);
}

/* Element i of the iota input: the value i in the element type (integers
** wrap; floats hold i exactly up to 2048). */
static void iota(unsigned char *buf, size_t bytes, lay_dtype t) {
  size_t es = lay_dtype_size(t);
  if (!es) es = 1;
  if (lay_dtype_bits(t) == 4) { /* two a byte: element i holds i mod 16 */
    for (size_t k = 0; k < bytes; k++)
      buf[k] = (unsigned char)((2 * k % 16) | (2 * k + 1) % 16 << 4);
    return;
  }
  for (size_t i = 0; i * es < bytes; i++) {
    unsigned char *e = buf + i * es;
    uint32_t u;
    float f = (float)(i % 2048);
    switch (t) {
    case LAY_DT_FP32:
      memcpy(&u, &f, 4);
      break;
    case LAY_DT_BF16:
      memcpy(&u, &f, 4);
      u >>= 16;
      break;
    case LAY_DT_FP16: {
      unsigned v = (unsigned)(i % 2048), ex = 0;
      if (!v) {
        u = 0;
        break;
      }
      while ((v >> ex) > 1) ex++;
      /* v = 1.m * 2^ex: 10 mantissa bits hold every integer below 2048 */
      u = ((ex + 15u) << 10) | (((unsigned)v << (10 - ex)) & 0x3ffu);
      break;
    }
    default:
      u = (uint32_t)i;
    }
    for (size_t b = 0; b < es && b < 4; b++) e[b] = (unsigned char)(u >> (8 * b));
  }
}

/* The layout buffer of plan `p` packed from iota (calloc'd, so that bytes
** a plan leaves alone compare equal); NULL after an error. */
static unsigned char *pack_iota(repl *r, const lay_plan *p) {
  size_t sb = lay_plan_src_bytes(p), db = lay_plan_dst_bytes(p);
  unsigned char *src = malloc(sb ? sb : 1), *dst = calloc(db ? db : 1, 1);
  if (!src || !dst) {
    free(src);
    free(dst);
    repl_say_error(r, "out of memory");
    return NULL;
  }
  iota(src, sb, lay_plan_src_dtype(p));
  lay_error err;
  if (lay_plan_run(p, src, sb, dst, db, 1, &err)) {
    repl_print_error(r, &err);
    free(dst);
    dst = NULL;
  }
  free(src);
  return dst;
}

/* ---- diff ------------------------------------------------------------------- */

/* What holds a byte of a layout buffer: kinds returned by holder_at. */
enum { H_DATA = 0, H_PAD = 1, H_HOLE = 2, H_END = 3 };

/* One layout's buffer, walked byte by byte in `diff` with one lay_plan_at
** per element (the element last asked about is kept); when both buffers
** are 4-bit (int4, uint4), element by element (nibble by nibble, with
** lay_plan_at_element: the indexes of `where --elements`). */
typedef struct holder {
  const lay_plan *p;
  size_t bytes;               /* the buffer's size */
  int half, hifirst;          /* walked by nibbles; first in the high one */
  uint64_t units;             /* bytes, or elements when half */
  size_t es;                  /* bytes per element (1 with byte planes) */
  int rank, planes;           /* CPU-side rank; byte planes (0: none) */
  lay_dtype type;             /* the stored element type */
  uint64_t elem;              /* the element described below */
  int kind;                   /* H_DATA, H_PAD or H_HOLE */
  int plane;                  /* its byte plane */
  int64_t c[LAY_MAX_RANK];    /* its coordinate (padded one for a pad) */
} holder;

static void holder_init(holder *h, const lay_plan *p) {
  memset(h, 0, sizeof *h);
  h->p = p;
  h->bytes = lay_plan_layout_bytes(p);
  h->es = lay_plan_layout_elem_bytes(p);
  h->rank = lay_plan_cpu_shape(p, NULL, 0);
  h->planes = lay_plan_plane_count(p);
  h->type = lay_plan_dst_dtype(p);
  h->elem = UINT64_MAX;
  h->units = h->bytes;
}

/* Walk h by nibbles (both buffers are 4-bit). */
static void holder_nibbles(holder *h) {
  h->half = 1;
  h->hifirst = lay_plan_layout_high_first(h->p);
  h->units = lay_plan_layout_elements(h->p);
}

/* The value at unit o: a byte, or when half the element's nibble. */
static unsigned holder_val(const holder *h, const unsigned char *v,
                           uint64_t o) {
  if (!h->half) return v[o];
  int high = (o % 2 == 0) == (h->hifirst != 0);
  return high ? v[o / 2] >> 4 : v[o / 2] & 15u;
}

/* Describe the element that holds byte `o`; returns its kind, H_END past
** the end of the buffer. */
static int holder_at(holder *h, uint64_t o) {
  if (o >= h->units) return H_END;
  uint64_t e = o / h->es;
  if (e != h->elem) {
    h->elem = e;
    if (h->half ? lay_plan_at_element(h->p, e, h->c, LAY_MAX_RANK, &h->kind,
                                      &h->plane, NULL)
                : lay_plan_at(h->p, e * h->es, h->c, LAY_MAX_RANK, &h->kind,
                              &h->plane, NULL))
      h->kind = H_HOLE; /* cannot happen inside the buffer */
  }
  return h->kind;
}

/* Do both layouts put the same thing at this byte: the same byte (plane)
** of the same element stored as the same type, or no element (pad or
** hole, whose values are compared apart)? */
static int same_holder(const holder *a, int ka, const holder *b, int kb) {
  if (ka == H_END || kb == H_END) return 0;
  if (ka != H_DATA || kb != H_DATA) return ka != H_DATA && kb != H_DATA;
  if (a->type != b->type || a->es != b->es || a->plane != b->plane ||
      a->rank != b->rank)
    return 0;
  return !memcmp(a->c, b->c, (size_t)a->rank * sizeof a->c[0]);
}

/* "(0,1,0)", "(0,1,0) byte 2", "(0,1,0) plane 1", "pad (0,3,0,0)", "hole",
** with the type in brackets when the two layouts store different types. */
static void print_holder(const holder *h, int kind, uint64_t o, int types) {
  if (kind == H_END) {
    if (h->half)
      printf("nothing (its buffer ends at %llu elements)",
             (unsigned long long)h->units);
    else
      printf("nothing (its buffer ends at %zu bytes)", h->bytes);
    return;
  }
  if (kind == H_HOLE) {
    printf("hole");
    return;
  }
  if (kind == H_PAD) printf("pad ");
  print_tuple(h->c, h->rank);
  if (kind == H_PAD) return;
  if (h->planes) printf(" plane %d", h->plane);
  if (h->es > 1) printf(" byte %llu", (unsigned long long)(o % h->es));
  if (types) printf(" (%s)", lay_dtype_name(h->type));
}

/* Compare two layout buffers byte by byte (va, vb: both packed from the
** same iota input) and report the first difference and the count. */
static void diff_report(const char *an, const char *bn, const lay_plan *pa,
                        const lay_plan *pb, const unsigned char *va,
                        const unsigned char *vb) {
  holder a, b;
  holder_init(&a, pa);
  holder_init(&b, pb);
  if (lay_dtype_bits(a.type) == 4 && lay_dtype_bits(b.type) == 4) {
    holder_nibbles(&a);
    holder_nibbles(&b);
  }
  holder fa = a, fb = b; /* at the first difference */
  size_t n = a.units > b.units ? a.units : b.units, ndiff = 0;
  const char *unit = a.half ? "elements" : "bytes";
  uint64_t first = 0;
  int fka = 0, fkb = 0, by_value = 0;
  for (uint64_t o = 0; o < n; o++) {
    int ka = holder_at(&a, o), kb = holder_at(&b, o);
    int same = same_holder(&a, ka, &b, kb);
    if (same && holder_val(&a, va, o) == holder_val(&b, vb, o)) continue;
    if (!ndiff++) {
      first = o;
      fa = a;
      fb = b;
      fka = ka;
      fkb = kb;
      by_value = same;
    }
  }
  if (!ndiff) {
    printf("same: all %zu %s hold the same elements and pads", n, unit);
    if (a.half && a.hifirst != b.hifirst) /* the same elements, not bytes */
      printf(" (in different nibbles: %s is %s nibble first, %s %s)", an,
             a.hifirst ? "high" : "low", bn, b.hifirst ? "high" : "low");
    printf("\n");
    return;
  }
  int types = a.type != b.type;
  if (a.half) { /* its byte and nibble (in each buffer when they differ) */
    const char *na = (first % 2 == 0) != (a.hifirst != 0) ? "lo" : "hi";
    const char *nb = (first % 2 == 0) != (b.hifirst != 0) ? "lo" : "hi";
    printf("first difference at element %llu (byte %llu ",
           (unsigned long long)first, (unsigned long long)(first / 2));
    if (a.hifirst == b.hifirst) printf("%s): ", na);
    else printf("%s in %s, %s in %s): ", na, an, nb, bn);
  } else {
    printf("first difference at byte %llu: ", (unsigned long long)first);
  }
  int alike = by_value && fka == fkb &&
              (fka == H_HOLE || !memcmp(fa.c, fb.c, sizeof fa.c));
  if (alike) {
    printf("both have ");
    print_holder(&fa, fka, first, types);
  } else {
    printf("%s has ", an);
    print_holder(&fa, fka, first, types);
    printf(", %s has ", bn);
    print_holder(&fb, fkb, first, types);
  }
  if (by_value)
    printf(a.half ? "%s %s writes 0x%x and %s 0x%x (packing 0,1,2,...)"
                  : "%s %s writes 0x%02x and %s 0x%02x (packing 0,1,2,...)",
           alike ? ", but" : ";", an, holder_val(&a, va, first), bn,
           holder_val(&b, vb, first));
  printf("\n%zu of %zu %s differ", ndiff, n, unit);
  if (a.units != b.units)
    printf(" (sizes %llu and %llu)", (unsigned long long)a.units,
           (unsigned long long)b.units);
  printf("\n");
}

static void cmd_diff(repl *r, int n, char **w) {
  if (n != 4) {
    repl_say_error(r, "usage: diff A B SHAPE");
    return;
  }
  lay_plan *a = make_plan(r, w[1], w[3]);
  if (!a) return;
  lay_plan *b = make_plan(r, w[2], w[3]);
  if (!b) {
    lay_plan_free(a);
    return;
  }
  unsigned char *va = pack_iota(r, a), *vb = va ? pack_iota(r, b) : NULL;
  if (va && vb) diff_report(w[1], w[2], a, b, va, vb);
  free(va);
  free(vb);
  lay_plan_free(a);
  lay_plan_free(b);
}

static void cmd_test(repl *r, int n, char **w) {
  if (n < 2) {
    repl_say_error(r, "usage: test FILE...");
    return;
  }
  int passed = 0, failed = 0;
  if (lay_tool_test_files(r->ctx, w + 1, n - 1, repl_out_line, NULL, &passed, &failed))
    r->failed = 1;
  for (int i = 1; i < n; i++) repl_file_event(r, EV_TEST, w[i]);
}

static void cmd_draw(repl *r, int n, char **w) {
  if (n < 4 || n > 6) {
    repl_say_error(r, "usage: draw FORMAT SHAPE FILE.svg [ROW_BYTES [DIM]]");
    return;
  }
  cli_draw_opts o = {0};
  if (n > 4) {
    /* A positive count; cli_draw_svg checks it against the elements. */
    int64_t v;
    if (cli_parse_list(w[4], &v, 1, 1) != 1 || v > (int64_t)1 << 30) {
      repl_say_error(r, "bad row width '%s': a positive number of bytes", w[4]);
      return;
    }
    o.row_bytes = (size_t)v;
  }
  if (n > 5) o.color_dim = w[5];
  lay_plan *p = make_plan(r, w[1], w[2]);
  if (!p) return;
  char title[512];
  snprintf(title, sizeof title, "%s on %s", w[1], w[2]);
  o.title = title;
  char msg[1024];
  if (cli_draw_svg(p, w[3], &o, msg, sizeof msg)) repl_say_error(r, "%s", msg);
  else printf("%s\n", msg);
  lay_plan_free(p);
}

/* pack FORMAT SHAPE IN OUT, unpack FORMAT SHAPE IN OUT, convert FROM TO
** SHAPE IN OUT: the CLI's commands on files (raw bytes). */
static void cmd_move(repl *r, int n, char **w, lay_dir dir) {
  int conv = dir == LAY_CONVERT;
  if (n != 5 + conv) {
    repl_say_error(r, conv ? "usage: convert FROM TO SHAPE IN OUT"
                           : "usage: %s FORMAT SHAPE IN OUT", w[0]);
    return;
  }
  lay_plan *p = plan_dir(r, w[1], conv ? w[2] : NULL, w[2 + conv], dir);
  if (!p) return;
  const char *in = w[3 + conv], *out = w[4 + conv];
  size_t need = lay_plan_src_bytes(p), outlen = lay_plan_dst_bytes(p), len;
  unsigned char *src = NULL, *dst = NULL;
  char msg[512];
  lay_error err;
  FILE *f = fopen(in, "rb"); /* its error goes to stdout, with the line */
  int opened = f != NULL, oerr = errno;
  if (f) fclose(f);
  if (!opened) {
    repl_say_error(r, "cannot read '%s': %s", in, strerror(oerr));
  } else if (cli_read_all(in, need, &src, &len)) {
    r->failed = 1;
  } else if (len != need) {
    repl_say_error(r, "%s is %s%zu bytes, %s needs %zu", in,
                   len == SIZE_MAX ? "more than " : "",
                   len == SIZE_MAX ? need : len, w[1], need);
  } else if (!(dst = malloc(outlen ? outlen : 1))) {
    repl_say_error(r, "out of memory");
  } else if (lay_plan_run(p, src, len, dst, outlen, 1, &err)) {
    repl_print_error(r, &err);
  } else if (cli_write_file(out, dst, outlen, msg, sizeof msg)) {
    repl_say_error(r, "%s", msg);
  } else {
    printf("wrote %s: %zu bytes\n", out, outlen);
  }
  free(src);
  free(dst);
  lay_plan_free(p);
}

int repl_command(repl *r, int n, char **w) {
  const char *c = w[0];
  if (!strcmp(c, "quit") || !strcmp(c, "exit")) return 0;
  if (!strcmp(c, "help") || !strcmp(c, "?")) cmd_help();
  else if (!strcmp(c, "list")) cmd_list(r, n, w);
  else if (!strcmp(c, "load")) {
    if (n != 2) repl_say_error(r, "usage: load FILE");
    else cmd_load(r, w[1]);
  } else if (!strcmp(c, "show")) cmd_show(r, n, w);
  else if (!strcmp(c, "info")) cmd_info(r, n, w);
  else if (!strcmp(c, "where")) cmd_where(r, n, w);
  else if (!strcmp(c, "at")) cmd_at(r, n, w);
  else if (!strcmp(c, "diff")) cmd_diff(r, n, w);
  else if (!strcmp(c, "test")) cmd_test(r, n, w);
  else if (!strcmp(c, "draw")) cmd_draw(r, n, w);
  else if (!strcmp(c, "pack")) cmd_move(r, n, w, LAY_PACK);
  else if (!strcmp(c, "unpack")) cmd_move(r, n, w, LAY_UNPACK);
  else if (!strcmp(c, "convert")) cmd_move(r, n, w, LAY_CONVERT);
  else if (!strcmp(c, "namespace")) {
    if (n > 2 || (n == 2 && strlen(w[1]) >= sizeof r->ns))
      repl_say_error(r, "usage: namespace [NAME]");
    else snprintf(r->ns, sizeof r->ns, "%s", n == 2 ? w[1] : "");
  } else {
    static const char *const words[] = {
        "load", "list", "show", "info", "where", "at", "diff", "test",
        "draw", "namespace", "help", "quit", "layout", "transform", "import",
        "pack", "unpack", "convert"};
    cli_suggest sg;
    cli_suggest_init(&sg, c);
    for (size_t k = 0; k < sizeof words / sizeof *words; k++)
      cli_suggest_add(&sg, words[k]);
    char hint[256];
    if (sg.n) repl_say_error(r, "unknown command '%s'%s", c,
                             cli_suggest_text(&sg, hint, sizeof hint));
    else repl_say_error(r, "unknown command '%s' (try help)", c);
  }
  return 1;
}
