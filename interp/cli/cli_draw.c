/*
** cli_draw.c: `lay draw` (an SVG picture of a layout buffer) and the
** terminal colouring of `lay show`.
**
** The picture shows the buffer in memory order, `row_bytes` per row (16 by
** default), one cell per hardware element (one per byte for byte-plane
** layouts, one per nibble for int4 and uint4: the elements of
** lay_plan_at_element, so a cell's index in the buffer is the element
** index of `lay where --elements`; the column header says which nibble of
** its byte, lo or hi, as the layout's nibble order puts it, and each
** cell's <title> its element index and byte). Each cell is labelled with
** its CPU-side coordinate and coloured by one dimension:
**   --color DIM  names it ("c") or gives its CPU-side index ("1");
**   default      the fastest-varying dimension among the data cells, when
**                it cycles at most half a row (so the interleave shows:
**                amd.hcwnc4 colours by c); otherwise the next fastest one,
**                so that rows fall into colour bands (qnn.crouton colours
**                by w, a row-major layout by its second-last dimension).
** Pad cells are light grey, labelled with their padded coordinate in grey;
** holes (explicit stride or alignment) are darker grey. Heavy lines mark
** chunk boundaries: a chunk is the innermost run of fixed-size digit axes
** (names with '%': crouton's h%8, w%8, d%32 make 2048-element chunks;
** hcwnc4's c%4 makes 4), or the innermost axis when there is none; thinner
** lines mark the runs of the innermost axis (crouton's d%32) when they are
** shorter than a chunk.
** Buffers of more than MAX_CELLS cells are summarised: the first 3/4 of
** that many cells' rows, a "... K more rows ..." band, and the last 1/8.
** A row holds whole elements, at most CLI_DRAW_MAX_CELLS of them: a row
** narrower than an element, one that would split an element, or a wider
** one is an error rather than a picture other than the one asked for.
**
** `lay show` (cli_show_plan) prints lay_tool_listing's text, coloured on a
** terminal (cli_color_enabled), and says how much a --limit left out.
*/
#define _POSIX_C_SOURCE 200809L

#include "cli_draw.h"
#include "cli_lay.h"
#include "lay_tools.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_CELLS 4096   /* more than this: summarise */
#define CELL_H 22
#define LEFT 78          /* room for the offset column */
#define PALETTE_N 12

/* ColorBrewer Set3: pastel, black text stays readable on every entry. */
static const char *const palette[PALETTE_N] = {
    "#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
    "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#9ecae1"};

/* ---- Small helpers ------------------------------------------------------ */

int cli_parse_list(const char *s, int64_t *out, int cap, int64_t min) {
  int n = 0;
  while (isspace((unsigned char)*s)) s++;
  int bracket = (*s == '[' || *s == '(');
  if (bracket) s++;
  for (;;) {
    while (isspace((unsigned char)*s)) s++;
    if (!isdigit((unsigned char)*s) && *s != '-') return -1;
    errno = 0;
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || errno == ERANGE || v < min || n >= cap) return -1;
    out[n++] = (int64_t)v;
    s = end;
    while (isspace((unsigned char)*s)) s++;
    if (*s == ',' || *s == 'x' || *s == 'X') {
      s++;
      continue;
    }
    break;
  }
  if (bracket) {
    if (*s != ']' && *s != ')') return -1;
    s++;
  }
  while (isspace((unsigned char)*s)) s++;
  return *s ? -1 : n;
}

int cli_color_enabled(FILE *f) {
  const char *nc = getenv("NO_COLOR");
  if (nc && *nc) return 0;
  /* A terminal that says nothing about itself, or that it is dumb, gets
  ** plain text (as ls and grep do). */
  const char *term = getenv("TERM");
  if (!term || !*term || !strcmp(term, "dumb")) return 0;
  return isatty(fileno(f));
}

/* Text safe inside an XML element or attribute. */
static void sb_xml(cli_text *b, const char *s) {
  for (; *s; s++) {
    switch (*s) {
    case '&': cli_text_printf(b, "&amp;"); break;
    case '<': cli_text_printf(b, "&lt;"); break;
    case '>': cli_text_printf(b, "&gt;"); break;
    case '"': cli_text_printf(b, "&quot;"); break;
    default:
      if ((unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f)
        cli_text_printf(b, "%c", *s);
      else
        cli_text_printf(b, "?");
    }
  }
}

/* ---- Facts about the plan ------------------------------------------------ */

/* One drawn cell. */
typedef struct cell {
  int64_t coord[LAY_MAX_RANK];
  int pad;   /* 0 data, 1 pad, 2 hole, -1 unknown (lay_plan_at failed) */
  int plane;
} cell;

/* The leading identifier of an axis name ("c" of "c/4%2"), or "". */
static void axis_dim(const char *name, char *out, size_t cap) {
  size_t n = 0;
  if (name)
    while (n + 1 < cap && (isalnum((unsigned char)name[n]) || name[n] == '_'))
      n++;
  memcpy(out, name ? name : "", n);
  out[n] = 0;
}

/* Name the CPU-side dimensions from the hardware axis names: dimension j's
** unit step moves by the stride of its innermost digit axis; the axis whose
** dense stride matches names j. Unmatched dimensions are "d<j>"; when
** exactly one dimension and one axis name are left, they are paired. */
static void dim_names(const lay_plan *p, int rank, const int64_t *shape,
                      size_t es, int half, char names[][32]) {
  int64_t ext[LAY_MAX_AXES];
  const char *an[LAY_MAX_AXES];
  int nax = lay_plan_hw_shape(p, ext, an, LAY_MAX_AXES);
  if (nax > LAY_MAX_AXES) nax = LAY_MAX_AXES;
  uint64_t stride[LAY_MAX_AXES];
  int ok = nax > 0;
  uint64_t s = es;
  for (int k = nax - 1; k >= 0 && ok; k--) {
    stride[k] = s;
    if (ext[k] <= 0 || __builtin_mul_overflow(s, (uint64_t)ext[k], &s)) ok = 0;
  }
  int named[LAY_MAX_RANK] = {0};
  for (int j = 0; j < rank; j++) snprintf(names[j], 32, "d%d", j);
  int64_t zero[LAY_MAX_RANK] = {0}, unit[LAY_MAX_RANK];
  uint64_t o0 = 0;
  if (ok && (half ? lay_plan_where_element(p, zero, rank, &o0, NULL)
                  : lay_plan_where(p, zero, rank, &o0, NULL)) != LAY_OK)
    ok = 0;
  for (int j = 0; j < rank && ok; j++) {
    if (shape[j] < 2) continue;
    memcpy(unit, zero, sizeof unit);
    unit[j] = 1;
    uint64_t o1;
    if ((half ? lay_plan_where_element(p, unit, rank, &o1, NULL)
              : lay_plan_where(p, unit, rank, &o1, NULL)) != LAY_OK ||
        o1 <= o0)
      continue;
    for (int k = nax - 1; k >= 0; k--) {
      if (stride[k] != o1 - o0 || ext[k] < 2) continue;
      axis_dim(an[k], names[j], 32);
      if (!names[j][0]) {
        snprintf(names[j], 32, "d%d", j);
        continue;
      }
      named[j] = 1;
      break;
    }
  }
  /* One dimension and one axis name left over: pair them. */
  int left = -1, nleft = 0;
  for (int j = 0; j < rank; j++)
    if (!named[j]) {
      left = j;
      nleft++;
    }
  if (nleft != 1) return;
  char seen[LAY_MAX_AXES][32];
  int nseen = 0;
  for (int k = 0; k < nax; k++) {
    char d[32];
    axis_dim(an[k], d, sizeof d);
    if (!d[0] || isdigit((unsigned char)d[0])) continue;
    int taken = 0;
    for (int m = 0; m < nseen; m++)
      if (!strcmp(seen[m], d)) taken = 1;
    for (int j = 0; j < rank; j++)
      if (named[j] && !strcmp(names[j], d)) taken = 1;
    if (!taken) memcpy(seen[nseen++], d, sizeof d);
  }
  if (nseen == 1) snprintf(names[left], 32, "%s", seen[0]);
}

/* The chunk size in cells (see the file comment). */
static uint64_t chunk_cells(const lay_plan *p) {
  int64_t ext[LAY_MAX_AXES];
  const char *an[LAY_MAX_AXES];
  int nax = lay_plan_hw_shape(p, ext, an, LAY_MAX_AXES);
  if (nax <= 0) return 0;
  if (nax > LAY_MAX_AXES) nax = LAY_MAX_AXES;
  uint64_t c = 1;
  int k = nax - 1;
  for (; k >= 0 && an[k] && strchr(an[k], '%'); k--)
    if (ext[k] > 0 && __builtin_mul_overflow(c, (uint64_t)ext[k], &c))
      return 0;
  if (k == nax - 1) c = ext[nax - 1] > 0 ? (uint64_t)ext[nax - 1] : 0;
  return c;
}

/* The innermost axis' extent in cells: thinner lines mark its runs. */
static uint64_t run_cells(const lay_plan *p) {
  int64_t ext[LAY_MAX_AXES];
  int nax = lay_plan_hw_shape(p, ext, NULL, LAY_MAX_AXES);
  if (nax <= 0) return 0;
  if (nax > LAY_MAX_AXES) nax = LAY_MAX_AXES;
  return ext[nax - 1] > 1 ? (uint64_t)ext[nax - 1] : 0;
}

/* The automatic colour dimension (see the file comment). */
static int auto_color(const cell *cells, size_t n, int rank, size_t rowcells) {
  uint64_t changes[LAY_MAX_RANK] = {0};
  int64_t maxv[LAY_MAX_RANK] = {0};
  const cell *prev = NULL;
  for (size_t i = 0; i < n; i++) {
    if (cells[i].pad) continue;
    for (int j = 0; j < rank; j++) {
      if (prev && prev->coord[j] != cells[i].coord[j]) changes[j]++;
      if (cells[i].coord[j] > maxv[j]) maxv[j] = cells[i].coord[j];
    }
    prev = &cells[i];
  }
  int first = -1, second = -1;
  for (int j = rank - 1; j >= 0; j--) { /* ties: the later dimension */
    if (!changes[j]) continue;
    if (first < 0 || changes[j] > changes[first]) {
      second = first;
      first = j;
    } else if (second < 0 || changes[j] > changes[second]) {
      second = j;
    }
  }
  if (first < 0) return rank - 1;
  if ((uint64_t)maxv[first] + 1 <= rowcells / 2 || second < 0) return first;
  return second;
}

/* ---- The SVG writer ------------------------------------------------------- */

static int fail_msg(char *msg, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (msg && cap) vsnprintf(msg, cap, fmt, ap);
  va_end(ap);
  return 1;
}

static void coord_label(const cell *c, int rank, int planes, char *out,
                        size_t cap) {
  size_t n = 0;
  out[0] = 0;
  if (c->pad == 2 || c->pad < 0) {
    snprintf(out, cap, c->pad == 2 ? "hole" : "?");
    return;
  }
  for (int j = 0; j < rank && n < cap; j++)
    n += (size_t)snprintf(out + n, cap - n, "%s%lld", j ? "," : "",
                          (long long)c->coord[j]);
  if (planes && n < cap) snprintf(out + n, cap - n, " p%d", c->plane);
}


/* A picture being made: the rows drawn, their cells and the geometry. */
typedef struct picture {
  const lay_plan *p;
  size_t es;          /* bytes per cell (1 for 4-bit cells too) */
  int half;           /* 4-bit cells, two per byte (int4, uint4) */
  int hifirst;        /* ... the first of a byte in its high nibble */
  size_t rc;          /* cells per row */
  size_t bytes;       /* the layout buffer's size */
  uint64_t ncell, nrows;
  int summary;        /* only head rows, a band, then tail rows */
  uint64_t r0;        /* the first drawn row (--from) */
  uint64_t head, tail;
  int64_t shape[LAY_MAX_RANK];
  int rank;
  char names[LAY_MAX_RANK][32];
  cell *cells;        /* the drawn cells, in memory order */
  uint64_t *idx;      /* their cell index in the buffer */
  size_t n;
  int planes;         /* a byte-plane layout: labels say the plane */
  int cdim;           /* the colour dimension */
  uint64_t chunk, run;
  int any_pad, any_hole;
  int cw, top, gap_h; /* cell width, top of the first row, band height */
} picture;

/* Check the row width and count the rows; 0, or 1 with the message. */
static int pic_rows(picture *g, size_t row_bytes, const cli_draw_opts *o,
                    char *msg, size_t cap) {
  const char *tn = lay_dtype_name(lay_plan_dst_dtype(g->p));
  size_t es = g->es;
  if (row_bytes < es)
    return fail_msg(msg, cap, "a row of %zu byte%s is narrower than one "
                    "element (%s: %zu bytes)", row_bytes,
                    row_bytes == 1 ? "" : "s", tn, es);
  if (row_bytes % es)
    return fail_msg(msg, cap, "a row of %zu bytes does not hold whole "
                    "elements (%s: %zu bytes each)", row_bytes, tn, es);
  g->rc = row_bytes / es * (g->half ? 2 : 1);
  if (g->rc > CLI_DRAW_MAX_CELLS)
    return fail_msg(msg, cap, "a row of %zu bytes holds %zu cells, too many "
                    "to read: at most %d (%zu bytes of %s)", row_bytes, g->rc,
                    CLI_DRAW_MAX_CELLS, (size_t)CLI_DRAW_MAX_CELLS * es, tn);
  g->bytes = lay_plan_dst_bytes(g->p);
  g->ncell = g->half ? lay_plan_layout_elements(g->p) : g->bytes / es;
  if (!g->ncell) return fail_msg(msg, cap, "the layout buffer is empty");
  g->nrows = (g->ncell + g->rc - 1) / g->rc;
  uint64_t max_rows = MAX_CELLS / g->rc < 4 ? 4 : MAX_CELLS / g->rc;
  g->summary = g->nrows > max_rows;
  g->head = g->summary ? max_rows * 3 / 4 : g->nrows;
  g->tail = g->summary ? (max_rows / 8 ? max_rows / 8 : 1) : 0;
  /* A summary's head ends at a chunk boundary: whole tiles, not a cut. */
  uint64_t chunk = chunk_cells(g->p);
  if (g->summary && chunk >= g->rc && chunk % g->rc == 0 &&
      chunk / g->rc <= g->head)
    g->head -= g->head % (chunk / g->rc);
  if (o->has_range) { /* --from/--to: the rows holding those bytes */
    uint64_t to = o->to > g->bytes ? g->bytes : o->to;
    if (o->from >= g->bytes || o->from >= to)
      return fail_msg(msg, cap, "--from %llu --to %llu: the buffer has "
                      "bytes 0 to %zu", (unsigned long long)o->from,
                      (unsigned long long)o->to, g->bytes - 1);
    uint64_t rb = row_bytes;
    g->r0 = o->from / rb;
    g->head = (to + rb - 1) / rb - g->r0;
    g->tail = 0;
    g->summary = 0;
    if (g->head > max_rows)
      return fail_msg(msg, cap, "--from %llu --to %llu spans %llu rows, at "
                      "most %llu are drawn: a narrower range",
                      (unsigned long long)o->from, (unsigned long long)o->to,
                      (unsigned long long)g->head,
                      (unsigned long long)max_rows);
  }
  g->rank = lay_plan_cpu_shape(g->p, g->shape, LAY_MAX_RANK);
  if (g->rank < 1 || g->rank > LAY_MAX_RANK)
    return fail_msg(msg, cap, "the plan has no CPU-side shape");
  return 0;
}

/* Find what each drawn cell holds; 0, or 1 when out of memory. */
static int pic_walk(picture *g, char *msg, size_t cap) {
  size_t ndrawn = (size_t)((g->head + g->tail) * g->rc);
  g->cells = calloc(ndrawn ? ndrawn : 1, sizeof *g->cells);
  g->idx = calloc(ndrawn ? ndrawn : 1, sizeof *g->idx);
  if (!g->cells || !g->idx) return fail_msg(msg, cap, "out of memory");
  /* Only the rows drawn: a huge buffer costs no more than a small one. */
  for (uint64_t k = 0; k < g->head + g->tail; k++) {
    uint64_t r = k < g->head ? g->r0 + k : g->nrows - g->tail + (k - g->head);
    for (uint64_t c = 0; c < g->rc; c++) {
      uint64_t i = r * g->rc + c;
      if (i >= g->ncell) break;
      cell *ce = &g->cells[g->n];
      g->idx[g->n++] = i;
      if ((g->half ? lay_plan_at_element(g->p, i, ce->coord, LAY_MAX_RANK,
                                         &ce->pad, &ce->plane, NULL)
                   : lay_plan_at(g->p, i * g->es, ce->coord, LAY_MAX_RANK,
                                 &ce->pad, &ce->plane, NULL)) != LAY_OK)
        ce->pad = -1;
      if (ce->plane > 0) g->planes = 1;
      if (ce->pad == 1) g->any_pad = 1;
      if (ce->pad == 2) g->any_hole = 1;
    }
  }
  return 0;
}

/* The colour dimension: --color's name or index, else automatic; 0, or 1
** with the message. */
static int pic_color(picture *g, const char *want, char *msg, size_t cap) {
  int rank = g->rank;
  dim_names(g->p, rank, g->shape, g->es, g->half, g->names);
  if (!want || !*want) {
    g->cdim = auto_color(g->cells, g->n, rank, g->rc);
    return 0;
  }
  int64_t v;
  if (cli_parse_list(want, &v, 1, 0) == 1) {
    if (v >= rank)
      return fail_msg(msg, cap, "--color %lld: the layout has %d dimensions",
                      (long long)v, rank);
    g->cdim = (int)v;
    return 0;
  }
  g->cdim = -1;
  for (int j = 0; j < rank; j++)
    if (!strcmp(g->names[j], want)) g->cdim = j;
  if (g->cdim >= 0) return 0;
  char list[256] = "";
  size_t ln = 0;
  for (int j = 0; j < rank && ln < sizeof list; j++)
    ln += (size_t)snprintf(list + ln, sizeof list - ln, "%s%s",
                           j ? ", " : "", g->names[j]);
  return fail_msg(msg, cap,
                  "--color %s: no such dimension (the layout's dimensions "
                  "are %s, or give an index 0..%d)", want, list, rank - 1);
}

/* The cell width fits the longest label. */
static void pic_geometry(picture *g) {
  size_t maxlab = 4;
  for (size_t i = 0; i < g->n; i++) {
    char lab[160];
    coord_label(&g->cells[i], g->rank, g->planes, lab, sizeof lab);
    if (strlen(lab) > maxlab) maxlab = strlen(lab);
  }
  g->cw = (int)((double)maxlab * 6.4 + 10);
  if (g->cw < 30) g->cw = 30;
  g->top = 88;
  g->gap_h = g->summary ? 30 : 0;
}

/* The picture's y for buffer row r (rows after the band move down). */
static int row_y(const picture *g, uint64_t r) {
  int band = r >= g->r0 + g->head;
  uint64_t dr = !band ? r - g->r0 : g->head + (r - (g->nrows - g->tail));
  return g->top + (int)dr * CELL_H + (band ? g->gap_h : 0);
}

/* The colour of value v of a dimension of extent ext: Set3 up to its 12
** entries; past that, ext hues spread around the wheel (pastel), so that
** no two values of the dimension share a colour. */
static const char *colour(int64_t v, int64_t ext, char *buf) {
  if (ext <= PALETTE_N) return palette[(size_t)v % PALETTE_N];
  snprintf(buf, 32, "hsl(%d,65%%,%d%%)", (int)(v * 360 / ext),
           v % 2 ? 80 : 70);
  return buf;
}

/* The SVG header, the caption and the legend. */
static void svg_head(cli_text *b, const picture *g, const char *title) {
  int width = LEFT + (int)g->rc * g->cw + 20;
  if (width < 560) width = 560;
  int height = g->top + (int)(g->head + g->tail) * CELL_H + g->gap_h + 20;
  int cdim = g->cdim;
  cli_text_printf(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
  cli_text_printf(b,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans "
            "Mono, monospace\">\n",
            width, height, width, height);
  cli_text_printf(b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" "
                "fill=\"#ffffff\"/>\n", width, height);
  cli_text_printf(b, "<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">");
  if (title) sb_xml(b, title);
  cli_text_printf(b, "</text>\n");
  if (g->half)
    cli_text_printf(b,
              "<text x=\"10\" y=\"38\" font-size=\"11\">%zu bytes, %llu "
              "cells of 4 bits (%s, %s nibble first), %zu per row; colour = "
              "%s (dimension %d)</text>\n",
              g->bytes, (unsigned long long)g->ncell,
              lay_dtype_name(lay_plan_dst_dtype(g->p)),
              g->hifirst ? "high" : "low", g->rc, g->names[cdim], cdim);
  else
    cli_text_printf(b,
              "<text x=\"10\" y=\"38\" font-size=\"11\">%zu bytes, %llu "
              "cells of %zu byte%s, %zu per row; colour = %s (dimension "
              "%d)</text>\n",
              g->bytes, (unsigned long long)g->ncell, g->es,
              g->es == 1 ? "" : "s", g->rc, g->names[cdim], cdim);
  int x = 10, y = 48;
  int64_t ext = g->shape[cdim] < PALETTE_N ? g->shape[cdim] : PALETTE_N;
  for (int64_t v = 0; v < ext; v++) {
    char lab[96];
    int last = v == PALETTE_N - 1 && g->shape[cdim] > PALETTE_N;
    int64_t lv = last ? g->shape[cdim] - 1 : v;
    snprintf(lab, sizeof lab, "%s%s=%lld", last ? "... " : "", g->names[cdim],
             (long long)lv);
    char hue[32];
    cli_text_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
                  "fill=\"%s\" stroke=\"#555\"/>", x, y,
                  colour(lv, g->shape[cdim], hue));
    cli_text_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\">", x + 18, y + 11);
    sb_xml(b, lab);
    cli_text_printf(b, "</text>\n");
    x += 24 + (int)strlen(lab) * 7;
  }
  if (g->any_pad) {
    cli_text_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
                  "fill=\"#e4e4e4\" stroke=\"#555\"/><text x=\"%d\" "
                  "y=\"%d\" font-size=\"11\">pad</text>\n",
              x, y, x + 18, y + 11);
    x += 52;
  }
  if (g->any_hole) {
    cli_text_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" "
                  "fill=\"#a8a8a8\" stroke=\"#555\"/><text x=\"%d\" "
                  "y=\"%d\" font-size=\"11\">hole</text>\n",
              x, y, x + 18, y + 11);
    x += 58;
  }
  if (g->run) {
    cli_text_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                  "stroke=\"#333\" stroke-width=\"1.5\"/><text x=\"%d\" "
                  "y=\"%d\" font-size=\"11\">run of %llu</text>\n",
              x, y + 7, x + 20, y + 7, x + 26, y + 11,
              (unsigned long long)g->run);
    x += 110;
  }
  if (g->chunk)
    cli_text_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                  "stroke=\"#000\" stroke-width=\"3\"/><text x=\"%d\" "
                  "y=\"%d\" font-size=\"11\">chunk of %llu cells</text>\n",
              x, y + 7, x + 20, y + 7, x + 26, y + 11,
              (unsigned long long)g->chunk);
}

/* The byte offset of cell i. */
static uint64_t cell_byte(const picture *g, uint64_t i) {
  return g->half ? i / 2 : i * g->es;
}

/* The column header (byte offset within the row; for 4-bit cells also
** the nibble, "+3 hi") and the cells. */
static void svg_cells(cli_text *b, const picture *g) {
  for (size_t c = 0; c < g->rc; c++)
    cli_text_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#666\" "
                  "text-anchor=\"middle\">+%llu%s</text>\n",
              LEFT + (int)c * g->cw + g->cw / 2, g->top - 6,
              (unsigned long long)cell_byte(g, c),
              !g->half                              ? ""
              : (c % 2 == 0) != (g->hifirst != 0) ? " lo"
                                                  : " hi");
  cli_text_printf(b, "<g font-size=\"10\" text-anchor=\"middle\">\n");
  for (size_t i = 0; i < g->n; i++) {
    uint64_t r = g->idx[i] / g->rc, c = g->idx[i] % g->rc;
    int x = LEFT + (int)c * g->cw, y = row_y(g, r);
    const cell *ce = &g->cells[i];
    int64_t v = ce->coord[g->cdim] < 0 ? 0 : ce->coord[g->cdim];
    char hue[32];
    const char *fill = ce->pad == 0   ? colour(v, g->shape[g->cdim], hue)
                       : ce->pad == 1 ? "#e4e4e4"
                                      : "#a8a8a8";
    char lab[160];
    coord_label(ce, g->rank, g->planes, lab, sizeof lab);
    cli_text_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                  "fill=\"%s\" stroke=\"#777\" stroke-width=\"0.5\"%s>",
              x, y, g->cw, CELL_H, fill, g->half ? "" : "/");
    if (g->half) /* its element index (lay where --elements) and nibble */
      cli_text_printf(b, "<title>element %llu: byte %llu %s</title></rect>",
                      (unsigned long long)g->idx[i],
                      (unsigned long long)cell_byte(g, g->idx[i]),
                      (g->idx[i] % 2 == 0) != (g->hifirst != 0) ? "lo" : "hi");
    cli_text_printf(b, "<text x=\"%d\" y=\"%d\"%s>", x + g->cw / 2, y + 15,
              ce->pad ? " fill=\"#6a6a6a\"" : "");
    sb_xml(b, lab);
    cli_text_printf(b, "</text>\n");
    if (c == 0)
      cli_text_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
                    "fill=\"#444\">0x%llx</text>\n", LEFT - 6, y + 15,
                (unsigned long long)cell_byte(g, g->idx[i]));
  }
  cli_text_printf(b, "</g>\n");
}

/* Run (thin) and chunk (heavy) boundaries, the summary band, the outline. */
static void svg_lines(cli_text *b, const picture *g) {
  for (int level = 0; level < 2; level++) {
    uint64_t unit = level ? g->chunk : g->run;
    if (!unit) continue;
    cli_text_printf(b, "<g stroke=\"%s\" stroke-width=\"%s\" "
                  "stroke-linecap=\"square\">\n",
              level ? "#000" : "#333", level ? "2.5" : "1.5");
    for (size_t i = 0; i < g->n; i++) {
      uint64_t k = g->idx[i], r = k / g->rc, c = k % g->rc;
      int x = LEFT + (int)c * g->cw, y = row_y(g, r);
      if (c > 0 && k % unit == 0)
        cli_text_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                  x, y, x, y + CELL_H);
      int above = r > g->r0 && !(g->summary && r == g->nrows - g->tail);
      if (above && k / unit != (k - g->rc) / unit)
        cli_text_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
                  x, y, x + g->cw, y);
    }
    cli_text_printf(b, "</g>\n");
  }
  int w = (int)g->rc * g->cw;
  if (g->summary) {
    int y = g->top + (int)g->head * CELL_H;
    cli_text_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                  "fill=\"#f4f4f4\"/>", LEFT, y + 4, w, g->gap_h - 8);
    cli_text_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"12\" "
                  "text-anchor=\"middle\">... %llu more rows (0x%llx to "
                  "0x%llx) ...</text>\n",
              LEFT + w / 2, y + 19,
              (unsigned long long)(g->nrows - g->head - g->tail),
              (unsigned long long)cell_byte(g, g->head * g->rc),
              (unsigned long long)(cell_byte(g, (g->nrows - g->tail) * g->rc) -
                                   1));
  }
  cli_text_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                "fill=\"none\" stroke=\"#000\" stroke-width=\"1.5\"/>\n",
            LEFT, g->top, w,
            (int)(g->head + g->tail) * CELL_H + g->gap_h);
  cli_text_printf(b, "</svg>\n");
}

int cli_draw_svg(const lay_plan *p, const char *path, const cli_draw_opts *o,
                 char *msg, size_t cap) {
  cli_draw_opts def = {0};
  if (!o) o = &def;
  picture g;
  memset(&g, 0, sizeof g);
  g.p = p;
  g.es = lay_dtype_size(lay_plan_dst_dtype(p));
  if (!g.es) g.es = 1;
  g.half = lay_dtype_bits(lay_plan_dst_dtype(p)) == 4;
  g.hifirst = lay_plan_layout_high_first(p);
  int rcode = pic_rows(&g, o->row_bytes ? o->row_bytes : 16, o, msg, cap);
  if (!rcode) rcode = pic_walk(&g, msg, cap);
  if (!rcode) rcode = pic_color(&g, o->color_dim, msg, cap);
  if (rcode) {
    free(g.cells);
    free(g.idx);
    return rcode;
  }
  g.chunk = chunk_cells(p);
  g.run = run_cells(p);
  if (g.run == g.chunk || g.run >= g.ncell) g.run = 0;
  pic_geometry(&g);
  cli_text b = {0};
  svg_head(&b, &g, o->title);
  svg_cells(&b, &g);
  svg_lines(&b, &g);
  free(g.cells);
  free(g.idx);
  if (b.oom) {
    free(b.s);
    return fail_msg(msg, cap, "out of memory");
  }
  char wmsg[512];
  rcode = cli_write_file(path, b.s, b.n, wmsg, sizeof wmsg);
  if (rcode && msg && cap) snprintf(msg, cap, "%s", wmsg);
  free(b.s);
  if (rcode) return rcode;
  if (msg && cap)
    snprintf(msg, cap, "wrote %s: %llu cell%s in %llu row%s%s",
             path && strcmp(path, "-") ? path : "<stdout>",
             (unsigned long long)g.ncell, g.ncell == 1 ? "" : "s",
             (unsigned long long)g.nrows, g.nrows == 1 ? "" : "s",
             g.summary ? " (summarised)" : "");
  if (msg && cap && o->has_range) {
    size_t n = strlen(msg);
    snprintf(msg + n, cap - n, "; drew rows %llu to %llu (bytes 0x%llx to "
             "0x%llx)", (unsigned long long)g.r0,
             (unsigned long long)(g.r0 + g.head - 1),
             (unsigned long long)cell_byte(&g, g.r0 * g.rc),
             (unsigned long long)(cell_byte(&g, (g.r0 + g.head) * g.rc) - 1));
  }
  return 0;
}

/* ---- `lay draw` ------------------------------------------------------------ */

/* The CLI's conventions (main.c): "lay: ..." on stderr; exit 2 for a
** usage error (with a hint), 1 for a failure. */
#define DRAW_USAGE \
  "usage: lay draw FORMAT --shape S [-o FILE.svg] [--row BYTES] " \
  "[--color DIM] [--dtype T] [--from A] [--to B]\n"

static int usage(const char *fmt, const char *arg) {
  fprintf(stderr, "lay: draw: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'lay draw --help'\n");
  return 2;
}

static void print_lay_error(const lay_error *e) {
  char buf[2048];
  if (e->line > 0) {
    lay_error_format(e, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
  } else {
    fprintf(stderr, "lay: %s\n", e->message);
  }
}

/* --from / --to: a byte offset, or a CPU-side coordinate (1,2,0,0: its
** element's first byte; for --to, one past its last). Absent: the
** buffer's start or end. 0, or 1 after the message. */
static int draw_bound(const lay_plan *p, const char *opt, const char *s,
                      int end, uint64_t *v) {
  size_t es = lay_dtype_size(lay_plan_dst_dtype(p));
  if (!s) {
    *v = end ? lay_plan_dst_bytes(p) : 0;
    return 0;
  }
  int64_t c[LAY_MAX_RANK];
  if (!strchr(s, ',')) {
    if (cli_parse_list(s, c, 1, 0) != 1) {
      fprintf(stderr, "lay: bad %s '%s': a byte offset or a coordinate "
                      "like 0,1,0,0\n", opt, s);
      return 1;
    }
    *v = (uint64_t)c[0];
    return 0;
  }
  int n = cli_parse_list(s, c, LAY_MAX_RANK, 0);
  lay_error err;
  if (n < 1 || lay_plan_where(p, c, n, v, &err)) {
    fprintf(stderr, "lay: bad %s '%s': %s\n", opt, s,
            n < 1 ? "a byte offset or a coordinate like 0,1,0,0"
                  : err.message);
    return 1;
  }
  if (end) *v += es ? es : 1;
  return 0;
}

int cli_draw(lay_ctx *ctx, int argc, char **argv) {
  const char *format = NULL, *shape_s = NULL, *out = NULL, *dtype_s = NULL,
             *from_s = NULL, *to_s = NULL;
  cli_draw_opts o = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf(DRAW_USAGE
             "A picture (SVG) of the layout buffer in memory order: BYTES per\n"
             "row (default 16), each cell labelled with its CPU-side\n"
             "coordinate and coloured by dimension DIM (a name or an index;\n"
             "by default the fastest-varying one, or the next one when it\n"
             "fills more than half a row); pad cells grey; heavy lines between\n"
             "chunks. Without -o the SVG goes to stdout. Buffers of more than\n"
             "%d cells are summarised. BYTES must hold whole elements, and at\n"
             "most %d of them (a wider row is refused, not cut).\n",
             MAX_CELLS, CLI_DRAW_MAX_CELLS);
      return 0;
    }
    if (!strcmp(a, "--shape") && has) shape_s = argv[++i];
    else if (!strcmp(a, "-o") && has) out = argv[++i];
    else if (!strcmp(a, "--color") && has) o.color_dim = argv[++i];
    else if (!strcmp(a, "--dtype") && has) dtype_s = argv[++i];
    else if (!strcmp(a, "--from") && has) from_s = argv[++i];
    else if (!strcmp(a, "--force")) cli_set_force(1);
    else if (!strcmp(a, "--to") && has) to_s = argv[++i];
    else if (!strcmp(a, "--row") && has) {
      /* A positive count here; cli_draw_svg checks it against the element
      ** size and CLI_DRAW_MAX_CELLS. */
      int64_t v;
      if (cli_parse_list(argv[++i], &v, 1, 1) != 1 || v > (int64_t)1 << 30) {
        fprintf(stderr, "lay: bad --row '%s': a byte count, a multiple of "
                        "the element size\n", argv[i]);
        return 1;
      }
      o.row_bytes = (size_t)v;
    } else if (a[0] == '-' && a[1]) {
      return usage(has || a[1] != '-' ? "unknown option '%s'"
                                      : "option '%s' needs a value", a);
    } else if (!format) {
      format = a;
    } else {
      return usage("unexpected argument '%s'", a);
    }
  }
  if (!format) return usage("%sno FORMAT given", "");
  if (!shape_s) return usage("%s--shape is missing", "");
  int64_t shape[LAY_MAX_RANK];
  int rank = cli_parse_list(shape_s, shape, LAY_MAX_RANK, 1);
  if (rank < 1) {
    fprintf(stderr, "lay: bad --shape '%s': expected positive sizes like "
                    "1,3,224,224 (at most %d)\n", shape_s, LAY_MAX_RANK);
    return 1;
  }
  lay_dtype dt = LAY_DT_NONE;
  if (dtype_s && (dt = lay_dtype_parse(dtype_s)) == LAY_DT_NONE) {
    fprintf(stderr, "lay: bad --dtype '%s': unknown type\n", dtype_s);
    return 1;
  }
  lay_plan *p = NULL;
  lay_error err;
  char ibuf[64];
  const char *f = cli_inline(ctx, format, ibuf, sizeof ibuf);
  if (!f) return 1;
  if (lay_plan_create(ctx, f, shape, rank, dt, LAY_PACK, &p, &err)) {
    cli_explain_error(ctx, &err);
    print_lay_error(&err);
    return 1;
  }
  if ((from_s || to_s) &&
      (draw_bound(p, "--from", from_s, 0, &o.from) ||
       draw_bound(p, "--to", to_s, 1, &o.to))) {
    lay_plan_free(p);
    return 1;
  }
  o.has_range = from_s || to_s;
  char title[512];
  snprintf(title, sizeof title, "%s on %s", format, shape_s);
  o.title = title;
  char msg[1024];
  int rc = cli_draw_svg(p, out, &o, msg, sizeof msg);
  lay_plan_free(p);
  if (rc) {
    fprintf(stderr, "lay: %s\n", msg);
    return 1;
  }
  if (out && strcmp(out, "-")) fprintf(stderr, "%s\n", msg);
  return 0;
}

/* ---- `lay show` colours ------------------------------------------------------ */

#define C_TUPLE "\033[36m" /* cyan: a coordinate */
#define C_DIM "\033[2m"    /* faint: ellipses, comments */
#define C_PAD "\033[33m"   /* yellow: pad / hole words */
#define C_OFF "\033[0m"

void cli_show_print(FILE *f, const char *s, int color) {
  if (!s) return;
  if (!color) {
    fputs(s, f);
    return;
  }
  while (*s) {
    if (*s == '(') {
      size_t n = strcspn(s, ")\n");
      if (s[n] == ')') n++;
      fprintf(f, C_TUPLE "%.*s" C_OFF, (int)n, s);
      s += n;
    } else if (!strncmp(s, "...", 3)) {
      size_t n = strspn(s, ".");
      fprintf(f, C_DIM "%.*s" C_OFF, (int)n, s);
      s += n;
    } else if (*s == '#') {
      size_t n = strcspn(s, "\n");
      fprintf(f, C_DIM "%.*s" C_OFF, (int)n, s);
      s += n;
    } else if ((!strncmp(s, "pad", 3) || !strncmp(s, "hole", 4)) &&
               !isalnum((unsigned char)s[*s == 'p' ? 3 : 4])) {
      size_t n = *s == 'p' ? 3 : 4;
      fprintf(f, C_PAD "%.*s" C_OFF, (int)n, s);
      s += n;
    } else if (isalpha((unsigned char)*s) || *s == '_') {
      size_t n = 0; /* a word: keep it whole so "padding" is not split */
      while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
      fprintf(f, "%.*s", (int)n, s);
      s += n;
    } else {
      fputc(*s++, f);
    }
  }
}

int cli_show_plan(FILE *f, const lay_plan *p, size_t limit, int color) {
  char *s = lay_tool_listing(p, limit);
  if (!s) return -1;
  /* lay_tool_listing closes a cut listing with a line "...": say what is left. */
  size_t n = strlen(s), es = lay_plan_layout_elem_bytes(p);
  uint64_t total = es ? lay_plan_layout_bytes(p) / es : 0;
  int cut = limit && total > limit && n >= 4 && !strcmp(s + n - 4, "...\n") &&
            (n == 4 || s[n - 5] == '\n');
  if (cut) s[n - 4] = 0;
  cli_show_print(f, s, color);
  if (cut)
    fprintf(f, "%s... %llu more element%s%s\n", color ? C_DIM : "",
            (unsigned long long)(total - limit), total - limit == 1 ? "" : "s",
            color ? C_OFF : "");
  free(s);
  return 0;
}
