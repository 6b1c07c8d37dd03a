/*
** test_listing.c: unit tests of interp/tools/listing.c, the memory-order listing
** (`lay show`) and the check of a listing pasted from a vendor document.
**
** The Qualcomm listings below are copied verbatim from the HTP "Tensors and
** Memory Layout" document (shared seed 002), including its "Copy to
** clipboard" buttons and "> ..." remarks; only the doc's own typos are
** fixed, each marked with a comment.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctx.h"
#include "lay.h"
#include "lay_tools.h"

static int failures;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      failures++;                                                 \
      fprintf(stderr, "%s:%d: FAILED: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                               \
      fputc('\n', stderr);                                        \
    }                                                             \
  } while (0)

static lay_plan *plan(lay_ctx *ctx, const char *fmt, int64_t a, int64_t b,
                      int64_t c, int64_t d, lay_dtype t) {
  int64_t shape[4] = {a, b, c, d};
  lay_plan *p = NULL;
  lay_error err;
  if (lay_plan_create(ctx, fmt, shape, 4, t, LAY_PACK, &p, &err)) {
    char buf[2048];
    lay_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "cannot plan %s: %s\n", fmt, buf);
    failures++;
    return NULL;
  }
  return p;
}

static int starts_with(const char *s, const char *prefix) {
  return s && !strncmp(s, prefix, strlen(prefix));
}

/* The Qualcomm doc: crouton on 1x3x5x30, padded to 1x8x8x32. */
static const char crouton_doc[] =
    "(0,0,0,0), (0,0,0,1), ... (0,0,0,29),  (0,0,0,30), (0,0,0,31),\n"
    "    Copy to clipboard\n"
    "\n"
    "> \n"
    "> \n"
    "> `(0,0,0,0) to (0,0,0,29)` is valid data, `(0,0,0,30) (0,0,0,31)`\n"
    "> is pad introduced by the memory layout\n"
    "\n"
    /* DOC TYPO: the doc prints this row's pads as (0,0,0,30), (0,0,0,31);
    ** they follow (0,0,1,29), so they are (0,0,1,30), (0,0,1,31). */
    "(0,0,1,0), (0,0,1,1), ... (0,0,1,29), (0,0,1,30), (0,0,1,31),\n"
    "    ...\n"
    "    (0,0,4,0), (0,0,4,1), ... (0,0,4,29), (0,0,4,30 ),(0,0,4,31),\n"
    "    Copy to clipboard\n"
    "\n"
    "> \n"
    "> \n"
    "> `(0,0,4,0) to (0,0,4,29)` is valid data,\n"
    "> `(0,0,4,30 ), (0,0,4,31), (0,0,5,0 )...(0,0,7,31)` is pad\n"
    "> introduced by the memory layout\n"
    "\n"
    "(0,0,5,0), (0,0,5,1), ... (0,0,5,31),\n"
    "    ...\n"
    "    (0,0,7,0), (0,0,7,1), ... (0,0,7,31),\n"
    "    (0,1,0,0), (0,1,0,1), ... (0,1,0,31),\n"
    "    (0,1,1,0), (0,1,1,1), ... (0,1,1,31),\n"
    "    ...\n"
    "    (0,2,1,0), (0,2,1,1), ... (0,2,1,31),\n"
    "    ...\n"
    "    (0,2,4,0), (0,2,4,1), ... (0,2,4,29), (0,2,4,30), (0,2,4,31)\n"
    "    Copy to clipboard\n"
    "\n"
    "> \n"
    "> \n"
    "> `(0,2,4,0)` to `(0,2,4,29)` is valid data,\n"
    "> `(0,2,4,30) ...(0,2,7,31),(0,3,0,0 )...(0,7,7,31)` is pad\n"
    "> introduced by the memory layout\n";

/* The Qualcomm doc: crouton on 2x9x20x50, padded to 2x16x24x64. */
static const char crouton_doc2[] =
    "(0,0,0,0) ... (0,0,0,31)\n"
    "    (0,0,1,0) ... (0,0,1,31)\n"
    "    ...\n"
    "    (0,0,7,0) ... (0,0,7,31)\n"
    "    (0,1,0,0) ... (0,1,7,31)\n"
    "    ...\n"
    "    (0,7,7,0) ... (0,7,7,31) > end of chunk\n"
    "\n"
    "    (0,0,0,32) ... (0,0,0,63) > start of chunk\n"
    "    (0,0,1,32) ... (0,0,1,63)\n"
    "    ...\n"
    "    (0,0,7,32) ... (0,0,7,63)\n"
    "    (0,1,0,32) ... (0,1,7,63)\n"
    "    ...\n"
    "    (0,7,7,32) ... (0,7,7,63) > end of chunk, finished traversing all "
    "64 in dimension 3}\n"
    "    \n"
    "    (0,0,8,0) ...  (0,0,8,31)\n"
    "    (0,0,9,0) ...  (0,0,9,31)\n"
    "    ...\n"
    "    (0,0,15,0) ... (0,0,15,31)\n"
    "    (0,1,8,0) ...  (0,1,15,31)\n"
    "    ...\n"
    "    (0,7,8,0) ...  (0,7,15,31)\n"
    "    \n"
    "    (0,0,8,32) ... (0,0,15,63)\n"
    "    ...\n"
    "    (0,7,8,32) ... (0,7,15,63)\n"
    "    (0,0,16,0) ... (0,0,23,63)\n"
    "    ...\n"
    "    (0,7,16,32) ... (0,7,23,63) > finished traversing all 24 in "
    "dimension 2\n"
    "    \n"
    /* DOC SUMMARY: the doc's last two lines, "(0,8,0,0) ... (0,8,23,63)
    ** (0,15,0,0) ... (0,15,23,63)" and the same for batch 1, sum up rows
    ** 8..15 rather than list memory order ((0,15,0,0) lies in the first
    ** chunk of the row block, before (0,8,23,63)); they are kept in
    ** memory order: the first and last element of each block. */
    "    (0,8,0,0) ... (0,15,23,63) > finished traversing all 16 in "
    "dimension 1\n"
    "    (1,0,0,0) ... (1,15,23,63) > end of memory layout\n"
    "    Copy to clipboard\n";

static void test_crouton(lay_ctx *ctx) {
  lay_plan *p = plan(ctx, "qnn.crouton", 1, 3, 5, 30, LAY_DT_INT8);
  if (!p) return;
  char why[512];

  /* The listing in the doc's notation. */
  char *s = lay_tool_listing(p, 0);
  CHECK(s != NULL, "no listing");
  CHECK(starts_with(s, "(0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2\n"
                       "(0,0,1,0), (0,0,1,1) ... (0,0,1,29), pad x2\n"
                       "(0,0,2,0), (0,0,2,1) ... (0,0,2,29), pad x2\n"
                       "(0,0,3,0), (0,0,3,1) ... (0,0,3,29), pad x2\n"
                       "(0,0,4,0), (0,0,4,1) ... (0,0,4,29), pad x98\n"
                       "(0,1,0,0), (0,1,0,1) ... (0,1,0,29), pad x2\n"),
        "listing begins:\n%.400s", s ? s : "(null)");
  /* The last data row, then the pads up to the end of the 8x8x32 chunk:
  ** 2048 - (2*256 + 4*32 + 30) = 1378. */
  CHECK(s && strstr(s, "\n(0,2,4,0), (0,2,4,1) ... (0,2,4,29), pad x1378\n"),
        "listing ends:\n%s", s ? s + (strlen(s) > 200 ? strlen(s) - 200 : 0)
                               : "");
  /* The listing matches itself. */
  CHECK(s && lay_tool_listing_match(p, s, strlen(s), why, sizeof why, NULL) == 0,
        "own listing: %s", why);
  free(s);

  /* The doc's listing, pasted verbatim. */
  int rc = lay_tool_listing_match(p, crouton_doc, strlen(crouton_doc), why,
                            sizeof why, NULL);
  CHECK(rc == 0, "doc listing rejected at token %d: %s", rc, why);

  /* One coordinate changed: (0,0,1,1) -> (0,0,1,2), token 8 (the "> "
  ** remarks are skipped, the first line has 6 tokens). */
  char bad[sizeof crouton_doc];
  memcpy(bad, crouton_doc, sizeof crouton_doc);
  char *at = strstr(bad, "(0,0,1,1)");
  if (at) at[7] = '2';
  rc = lay_tool_listing_match(p, bad, strlen(bad), why, sizeof why, NULL);
  CHECK(rc == 8, "changed coordinate: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 9, column 12: "
                     "element 33 (byte 33): expected (0,0,1,2), found "
                     "(0,0,1,1)"), "why: %s", why);

  /* The doc's typo itself is caught: (0,0,0,30) after (0,0,1,29). */
  memcpy(bad, crouton_doc, sizeof crouton_doc);
  at = strstr(bad, "(0,0,1,30)");
  if (at) at[5] = '0';
  rc = lay_tool_listing_match(p, bad, strlen(bad), why, sizeof why, NULL);
  CHECK(rc == 11, "doc typo: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 9, column 39: "
                     "element 62 (byte 62): expected (0,0,0,30), found "
                     "pad (0,0,1,30)"), "why: %s", why);

  /* A pad missing from the listing (lay.h / listing.h example). */
  const char *miss = "(0,0,0,0), (0,0,0,1) ... (0,0,0,29), (0,0,0,30), "
                     "(0,0,1,0)";
  rc = lay_tool_listing_match(p, miss, strlen(miss), why, sizeof why, NULL);
  CHECK(rc == 6, "missing pad: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 1, column 50: "
                     "element 31 (byte 31): expected (0,0,1,0), found pad "
                     "(0,0,0,31)"), "why: %s", why);

  /* pad xN counts exactly: x3 runs into the next row's data. */
  const char *pads = "... (0,0,0,29), pad x3";
  rc = lay_tool_listing_match(p, pads, strlen(pads), why, sizeof why, NULL);
  CHECK(rc == 3, "pad x3: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 1, column 17: "
                     "element 32 (byte 32): expected pad x3, found "
                     "(0,0,1,0)"), "why: %s", why);
  pads = "... (0,0,0,29), pad x2, (0,0,1,0)";
  CHECK(lay_tool_listing_match(p, pads, strlen(pads), why, sizeof why, NULL) == 0,
        "pad x2: %s", why);

  /* A listing starts at the first element unless it opens with "...". */
  const char *late = "(0,0,0,1) ... (0,0,0,29)";
  rc = lay_tool_listing_match(p, late, strlen(late), why, sizeof why, NULL);
  CHECK(rc == 1, "late start: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 1, column 1: "
                     "element 0 (byte 0): expected (0,0,0,1), found "
                     "(0,0,0,0)"), "why: %s", why);

  /* After an ellipsis a coordinate that never comes is reported. */
  const char *never = "(0,0,0,0) ... (0,0,0,40)";
  rc = lay_tool_listing_match(p, never, strlen(never), why, sizeof why, NULL);
  CHECK(rc == 3, "never: rc %d, %s", rc, why);
  CHECK(strstr(why, "expected (0,0,0,40)") != NULL, "why: %s", why);

  /* A listing with no coordinates is not a match. */
  CHECK(lay_tool_listing_match(p, "Copy to clipboard", 17, why, sizeof why,
                         NULL) == -1 &&
            !strcmp(why, "the listing has no coordinates"),
        "empty listing: %s", why);

  /* The Unicode ellipsis works like "...". */
  const char *uni = "(0,0,0,0), (0,0,0,1) \xE2\x80\xA6 (0,0,0,29)";
  CHECK(lay_tool_listing_match(p, uni, strlen(uni), why, sizeof why, NULL) == 0,
        "unicode ellipsis: %s", why);

  /* limit: 40 elements, then "...". */
  s = lay_tool_listing(p, 40);
  CHECK(s && !strcmp(s, "(0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2\n"
                        "(0,0,1,0), (0,0,1,1) ... (0,0,1,7)\n...\n"),
        "limit 40:\n%s", s ? s : "(null)");
  free(s);
  lay_plan_free(p);

  p = plan(ctx, "qnn.crouton", 2, 9, 20, 50, LAY_DT_INT8);
  if (!p) return;
  rc = lay_tool_listing_match(p, crouton_doc2, strlen(crouton_doc2), why,
                        sizeof why, NULL);
  CHECK(rc == 0, "doc listing 2x9x20x50 rejected at token %d: %s", rc, why);
  lay_plan_free(p);
}

static void test_hcwnc4(lay_ctx *ctx) {
  /* AMD's RGB example: each pixel is one entry R, G, B, 0. */
  lay_plan *p = plan(ctx, "amd.hcwnc4", 1, 3, 2, 2, LAY_DT_INT8);
  if (!p) return;
  char *s = lay_tool_listing(p, 0);
  CHECK(s && !strcmp(s, "(0,0,0,0), (0,1,0,0), (0,2,0,0), pad x1\n"
                        "(0,0,0,1), (0,1,0,1), (0,2,0,1), pad x1\n"
                        "(0,0,1,0), (0,1,1,0), (0,2,1,0), pad x1\n"
                        "(0,0,1,1), (0,1,1,1), (0,2,1,1), pad x1\n"),
        "hcwnc4 listing:\n%s", s ? s : "(null)");
  free(s);
  lay_plan_free(p);

  /* bf16: elements are 2 bytes; byte offsets in messages double. */
  p = plan(ctx, "amd.hcwnc4", 1, 3, 2, 2, LAY_DT_BF16);
  if (!p) return;
  char why[512];
  const char *l = "(0,0,0,0), (0,1,0,0), (0,2,0,0), (0,0,0,1)";
  int rc = lay_tool_listing_match(p, l, strlen(l), why, sizeof why, NULL);
  CHECK(rc == 4, "bf16: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 1, column 34: "
                     "element 3 (byte 6): expected (0,0,0,1), found pad "
                     "(0,3,0,0)"), "why: %s", why);
  lay_plan_free(p);
}

static void test_planes(lay_ctx *ctx) {
  /* Kneron 1W16C8B-HL: 16 low bytes, then 16 high bytes, per pixel. */
  lay_plan *p = plan(ctx, "kneron.1w16c8bhl", 1, 20, 1, 1, LAY_DT_NONE);
  if (!p) return;
  char *s = lay_tool_listing(p, 0);
  CHECK(s && !strcmp(s, "lo(0,0,0,0), lo(0,1,0,0) ... lo(0,15,0,0)\n"
                        "hi(0,0,0,0), hi(0,1,0,0) ... hi(0,15,0,0)\n"
                        "lo(0,16,0,0), lo(0,17,0,0) ... lo(0,19,0,0), "
                        "pad x12\n"
                        "hi(0,16,0,0), hi(0,17,0,0) ... hi(0,19,0,0), "
                        "pad x12\n"),
        "1w16c8bhl listing:\n%s", s ? s : "(null)");
  char why[512];
  CHECK(s && lay_tool_listing_match(p, s, strlen(s), why, sizeof why, NULL) == 0,
        "own listing: %s", why);
  free(s);
  const char *l = "lo(0,0,0,0) ... lo(0,15,0,0), lo(0,0,0,0)";
  int rc = lay_tool_listing_match(p, l, strlen(l), why, sizeof why, NULL);
  CHECK(rc == 4, "plane: rc %d, %s", rc, why);
  CHECK(!strcmp(why, "listing line 1, column 31: "
                     "element 16 (byte 16): expected lo(0,0,0,0), found "
                     "hi(0,0,0,0)"), "why: %s", why);
  /* Without a plane name a coordinate matches either plane. */
  l = "... lo(0,15,0,0), (0,0,0,0)";
  CHECK(lay_tool_listing_match(p, l, strlen(l), why, sizeof why, NULL) == 0,
        "any plane: %s", why);
  lay_plan_free(p);
}

/* One malformed listing: lay_tool_listing_match and lay_tool_listing_check both
** refuse it with `want`, the fault at byte `at` of the listing. */
static void malformed(const lay_plan *p, const char *l, const char *want,
                      size_t at) {
  char why[512];
  size_t got_at = 9999;
  int rc = lay_tool_listing_match(p, l, strlen(l), why, sizeof why, &got_at);
  CHECK(rc == -1 && !strcmp(why, want) && got_at == at,
        "match '%s': rc %d at %zu: %s", l, rc, got_at, why);
  got_at = 9999;
  rc = lay_tool_listing_check(p, l, strlen(l), why, sizeof why, &got_at);
  CHECK(rc == -1 && !strcmp(why, want) && got_at == at,
        "check '%s': rc %d at %zu: %s", l, rc, got_at, why);
}

/* What a pasted listing may hold, and the errors for everything else. */
static void test_malformed(lay_ctx *ctx) {
  lay_plan *p = plan(ctx, "qnn.flat", 2, 3, 5, 30, LAY_DT_INT8);
  if (!p) return;
  char why[512];
  /* The audit's example: two broken coordinates in an otherwise right
  ** listing used to be skipped, and the listing passed. */
  const char *typo = "(0,0,0,0), (0,0,0,1) ... (0,0,0,29), ... (9,9,l,29), "
                     "(0,0,4,29 ,), ... (1,2,4,29)";
  malformed(p, typo, "listing line 1, column 47: malformed coordinate "
            "'(9,9,l,29)': 'l' where a number should be", 46);
  malformed(p, "(0,0,0,0), (0,0,4,29 ,)", "listing line 1, column 23: "
            "malformed coordinate '(0,0,4,29 ,)': ')' where a number should "
            "be", 22);
  malformed(p, "(0,0,0,0)\n  (0,0,0,1 2)", "listing line 2, column 12: "
            "malformed coordinate '(0,0,0,1 2)': '2' where ',' or ')' should "
            "be", 21);
  malformed(p, "(0,0,0,0), (0,0,0,1", "listing line 1, column 20: "
            "malformed coordinate '(0,0,0,1': ')' is missing", 19);
  malformed(p, "(0,0,0,0), (0,0,1)", "listing line 1, column 12: "
            "coordinate '(0,0,1)' has 3 values, the layout has 4 dimensions",
            11);
  malformed(p, "(0,0,0,0) Ellipses (0,0,0,1)", "listing line 1, column 11: "
            "unexpected 'Ellipses' (a listing holds coordinates, '...', "
            "'pad xN', commas and '>' remarks)", 10);
  malformed(p, "(0,0,0,0) } (0,0,0,1)", "listing line 1, column 11: "
            "unexpected '}' (a listing holds coordinates, '...', 'pad xN', "
            "commas and '>' remarks)", 10);
  malformed(p, "(0,0,0,0) .... (0,0,0,1)", "listing line 1, column 11: "
            "unexpected '.' (an ellipsis is three dots)", 10);
  malformed(p, "(0,0,0,0), lo(0,0,0,1)", "listing line 1, column 12: "
            "'lo(' is not a coordinate: this layout has no byte planes", 11);
  malformed(p, "(0,0,0,0), pad x", "listing line 1, column 17: 'pad x' "
            "needs a count of 1 or more", 16);
  malformed(p, "(0,0,0,0), Copy to clipboard", "listing line 1, column 12: "
            "unexpected 'Copy' (a listing holds coordinates, '...', 'pad xN', "
            "commas and '>' remarks)", 11);

  /* Accepted: remarks (whatever they hold), the button line, blank lines,
  ** the Unicode ellipsis, blanks inside coordinates. */
  const char *ok = "(0,0,0,0), ( 0, 0,0 ,1 ) ... (0,0,0,29), > a } remark "
                   "(9,9,l,29)\n"
                   "    Copy to clipboard  \n\n"
                   "(0,0,1,0) \xE2\x80\xA6 (1,2,4,29),";
  int rc = lay_tool_listing_match(p, ok, strlen(ok), why, sizeof why, NULL);
  CHECK(rc == 0, "accepted text: rc %d: %s", rc, why);

  /* lay_tool_listing_check reads without matching: a wrong but well-formed
  ** listing passes it. */
  const char *wrong = "(0,0,0,5)";
  CHECK(lay_tool_listing_check(p, wrong, strlen(wrong), why, sizeof why, NULL) == 0,
        "check of a well-formed listing: %s", why);
  CHECK(lay_tool_listing_match(p, wrong, strlen(wrong), why, sizeof why, NULL) == 1,
        "match of a wrong listing: %s", why);
  lay_plan_free(p);

  /* On a byte-plane layout, a plane that is not the layout's. */
  p = plan(ctx, "kneron.1w16c8bhl", 1, 16, 1, 1, LAY_DT_NONE);
  if (!p) return;
  malformed(p, "lo(0,0,0,0), mid(0,1,0,0)", "listing line 1, column 14: "
            "'mid' is not a byte plane of this layout (its planes: lo, hi)",
            13);
  /* `pad` alone is one pad element. */
  lay_plan_free(p);
  p = plan(ctx, "amd.hcwnc4", 1, 3, 1, 1, LAY_DT_INT8);
  if (!p) return;
  const char *one = "(0,0,0,0), (0,1,0,0), (0,2,0,0), pad";
  CHECK(lay_tool_listing_match(p, one, strlen(one), why, sizeof why, NULL) == 0,
        "pad alone: %s", why);
  lay_plan_free(p);
}

int main(void) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new(&ctx, &err)) {
    char buf[2048];
    lay_error_format(&err, buf, sizeof buf);
    fprintf(stderr, "cannot load the stdlib: %s\n", buf);
    return 1;
  }
  test_crouton(ctx);
  test_hcwnc4(ctx);
  test_planes(ctx);
  test_malformed(ctx);
  lay_ctx_free(ctx);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("listing: all checks passed\n");
  return 0;
}
