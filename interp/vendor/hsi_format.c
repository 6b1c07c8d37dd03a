/*
** hsi_format.c: the format strings of AMD's reports and runtimes (one
** table) and the derivation cpu_format -> hw_format: a lay memory order
** over the CPU dims and the hw_shape the format declares.
**
** Where each format comes from:
**   NCHW, NHWC, HCWNC4, HCWNC8, AB: the Vitis AI doc "Tensor Format
**     Conversions" (seed 000: HCWNC4 is [H, C/4, W, N, 4], the channels
**     padded to a block of 4; AB a row-major 2-D tensor);
**   HCWNC16: the same doc's table and VART's MemoryLayout enum ("Height,
**     Channels / 16, Width, N = 1, Channel groups of 16");
**   NHW, NHC, NCH, NC, NWC: VART ML's MemoryLayout enum (vart_npu_tensor.hpp,
**     AMD 2025: "Model batch, Height, Channels (packed format)", ...) and
**     its test script's reorder_tensor(): NHC and NHW are NHWC reshaped to
**     [N, H*W, C], NCH its transpose [N, C, H*W], NWC is [N, 1, W, C] --
**     so a W (or H) the format does not name is folded into H (or W);
**   NC4HW4, NC8HW8: the enum ("Model batch, Channels / 4, Height, Width,
**     Channel groups of 4") and reorder_tensor(): [N, ceil(C/4), H, W, 4],
**     element (n, c, h, w) at [n, c/4, h, w, c%4], padding channels zero;
**   NHWC4, NHWC8: the enum ("Height, Width, Channel groups of 4 (e.g.
**     RGBA)"): NHWC with C rounded up to a multiple of 4 (reorder_tensor
**     treats it as NHWC);
**   NHW16C4WC, NHW16WC4C: the enum and reorder_tensor(): [N, H, ceil(W/16),
**     ceil(C/4), 16, 4] with (n, h, w, c) at [n, h, w/16, c/4, w%16, c%4];
**     NHW16WC4C swaps the two middle blocks: [n, h, w/16, w%16, c/4, c%4];
**   NH2HWC4C, NH2C4HWC: the enum and reorder_tensor(): [n, h/2, h%2, w,
**     c/4, c%4] and [n, h/2, c/4, h%2, w, c%4];
**   CHW, HWC: AMD's app configs (batch-less images).
** Formats are matched without regard to case.
*/
#define _POSIX_C_SOURCE 200809L

#include "hsi_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ORDER: hsi_fmt. dims: the CPU dims a plain format names, one letter per
** cpu_shape entry (NULL: a hw-side format only). order: the memory order
** over those letters, lay's x/B and x%B for blocks. shape: the hw_shape
** it declares: a letter (its extent), x/B (rounded up), a number, or x^B
** (the extent rounded up to a multiple of B). */
const hsi_format hsi_formats[] = {
    {"", NULL, "", "", 0},
    {"NCHW", "nchw", "n c h w", "n c h w", 1},
    {"NHWC", "nhwc", "n h w c", "n h w c", 1},
    {"AB", "ab", "a b", "a b", 1},
    {"HCWNC4", NULL, "h c/4 w n c%4", "h c/4 w n 4", 1},
    {"HCWNC8", NULL, "h c/8 w n c%8", "h c/8 w n 8", 1},
    {"HCWNC16", NULL, "h c/16 w n c%16", "h c/16 w n 16", 1},
    {"NHW", "nhw", "n h w", "n h w", 0},
    {"NHC", "nhc", "n h c", "n h c", 0},
    {"NCH", "nch", "n c h", "n c h", 0},
    {"NC", "nc", "n c", "n c", 0},
    {"NWC", "nwc", "n w c", "n w c", 0},
    {"CHW", "chw", "c h w", "c h w", 0},
    {"HWC", "hwc", "h w c", "h w c", 0},
    {"NC4HW4", NULL, "n c/4 h w c%4", "n c/4 h w 4", 0},
    {"NC8HW8", NULL, "n c/8 h w c%8", "n c/8 h w 8", 0},
    {"NHWC4", NULL, "n h w c/4 c%4", "n h w c^4", 0},
    {"NHWC8", NULL, "n h w c/8 c%8", "n h w c^8", 0},
    {"NHW16C4WC", NULL, "n h w/16 c/4 w%16 c%4", "n h w/16 c/4 16 4", 0},
    {"NHW16WC4C", NULL, "n h w/16 w%16 c/4 c%4", "n h w/16 16 c/4 4", 0},
    {"NH2HWC4C", NULL, "n h/2 h%2 w c/4 c%4", "n h/2 2 w c/4 4", 0},
    {"NH2C4HWC", NULL, "n h/2 c/4 h%2 w c%4", "n h/2 c/4 2 w 4", 0},
};

const char *hsi_fmt_name(hsi_fmt f) { return hsi_formats[f].name; }

hsi_fmt hsi_fmt_parse(const char *s) {
  for (int i = 1; i < F_COUNT; i++) {
    const char *a = hsi_formats[i].name, *b = s;
    while (*a && toupper((unsigned char)*b) == *a) a++, b++;
    if (!*a && !*b) return (hsi_fmt)i;
  }
  return F_NONE;
}

/* "NCHW, NHWC, ... or NH2C4HWC" into buf. */
const char *hsi_fmt_list(char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = '\0';
  for (int i = 1; i < F_COUNT && k < cap; i++)
    k += (size_t)snprintf(buf + k, cap - k, "%s%s",
                          i == 1 ? "" : i == F_COUNT - 1 ? " or " : ", ",
                          hsi_formats[i].name);
  return buf;
}

/* The tokens of a space-separated list: the count. */
static int ntokens(const char *s) {
  int n = 0;
  for (const char *c = s; *c; c++)
    if (*c != ' ' && (c == s || c[-1] == ' ')) n++;
  return n;
}

int hsi_fmt_rank(hsi_fmt f) { return ntokens(hsi_formats[f].shape); }

int hsi_fmt_blocked(hsi_fmt f) {
  return strchr(hsi_formats[f].order, '/') != NULL;
}

/* The letter of CPU dim i of plain format f ("n"), into buf (2 bytes). */
const char *hsi_fmt_dim(hsi_fmt f, int i, char *buf) {
  buf[0] = hsi_formats[f].dims[i];
  buf[1] = '\0';
  return buf;
}

/* One token: its letter (0 for a number), its operator (0, '/', '%',
** '^') and number. Returns the text after it. */
static const char *token(const char *s, char *l, char *opc, int64_t *b) {
  while (*s == ' ') s++;
  *l = 0, *opc = 0, *b = 0;
  if (isalpha((unsigned char)*s)) *l = *s++;
  if (*s == '/' || *s == '%' || *s == '^') *opc = *s++;
  if (isdigit((unsigned char)*s)) *b = strtoll(s, NULL, 10);
  while (*s && *s != ' ') s++;
  return s;
}

/* The extent of letter l of the CPU side (1 when absent), with the dim
** folded into it. */
static int64_t extent(const char *dims, const int64_t *cpu, char l,
                      char fold_into, char folded) {
  int64_t e = 1;
  for (int i = 0; dims[i]; i++)
    if (dims[i] == l || (l == fold_into && dims[i] == folded)) e *= cpu[i];
  return e;
}

/* Where the CPU dim l goes when hw format f does not name it: 0 nowhere
** (extent 1: at the front), else the letter it is folded beside (w into
** h, h into w: VART's NHW/NHC/NCH/NWC), or -1 when it cannot go. */
static int fold_place(const hsi_format *h, char l, int64_t ext) {
  if (ext == 1) return 0;
  char other = l == 'w' ? 'h' : l == 'h' ? 'w' : 0;
  if (!other) return -1;
  for (const char *s = h->order; *s;) {
    char tl, k;
    int64_t b;
    s = token(s, &tl, &k, &b);
    if (tl == other) return k ? -1 : other;
  }
  return -1;
}

const char *hsi_fmt_derive(hsi_fmt cf, const int64_t *cpu, int rank,
                           hsi_fmt hf, char *order, size_t cap, int64_t *hw,
                           int *hwr) {
  if (cf == F_NONE || hf == F_NONE) return "cpu_format or hw_format is absent";
  const hsi_format *c = &hsi_formats[cf], *h = &hsi_formats[hf];
  if (!c->dims)
    return "cpu_format must be a plain format (NCHW, NHWC, NHW, NHC, NCH, "
           "NC, NWC, CHW, HWC or AB)";
  if ((int)strlen(c->dims) != rank)
    return "cpu_format does not match the rank of cpu_shape";
  if (cf == F_AB && hsi_fmt_blocked(hf))
    return "a blocked format needs cpu_format NCHW or NHWC";
  if ((cf == F_AB) != (hf == F_AB)) return "AB is only derived from AB";
  /* The CPU dims the hw format does not name: at the front (extent 1) or
  ** folded beside their partner. */
  char front[8] = "", folded = 0, into = 0;
  for (int i = 0; c->dims[i]; i++) {
    if (strchr(h->order, c->dims[i])) continue;
    int at = fold_place(h, c->dims[i], cpu[i]);
    if (at < 0)
      return "cpu_format has a dimension of extent > 1 that hw_format "
             "does not name";
    if (at == 0) strncat(front, &c->dims[i], 1);
    else folded = c->dims[i], into = (char)at;
  }
  size_t k = (size_t)snprintf(order, cap, "[");
  for (int i = 0; front[i]; i++)
    k += (size_t)snprintf(order + k, cap - k, "%s%c", k > 1 ? ", " : "",
                          front[i]);
  for (const char *s = h->order; *s && k < cap;) {
    char l, opc;
    int64_t b;
    s = token(s, &l, &opc, &b);
    if (!strchr(c->dims, l)) {
      if (opc) return "hw_format blocks a dimension cpu_format does not have";
      continue; /* extent 1 */
    }
    const char *sep = k > 1 ? ", " : "";
    if (l == into) /* the folded pair: h outside w */
      k += (size_t)snprintf(order + k, cap - k, "%sh, w", sep);
    else if (opc)
      k += (size_t)snprintf(order + k, cap - k, "%s%c%c%lld", sep, l, opc,
                            (long long)b);
    else k += (size_t)snprintf(order + k, cap - k, "%s%c", sep, l);
  }
  if (k < cap) snprintf(order + k, cap - k, "]");
  int n = 0;
  for (const char *s = h->shape; *s;) {
    char l, opc;
    int64_t b;
    s = token(s, &l, &opc, &b);
    int64_t e = l ? extent(c->dims, cpu, l, into, folded) : b;
    if (opc == '/') e = (e + b - 1) / b;
    if (opc == '^') e = (e + b - 1) / b * b;
    hw[n++] = e;
  }
  *hwr = n;
  return NULL;
}
