/*
** cli_find.c: finding layouts in the `lay` CLI: `lay list [NAMESPACE]`
** (one line per definition: dimensions, element type, parameters with
** their defaults), `lay describe NAME` (the comment block and definition
** from its .lay file, the CPU side, the memory order, the parameters and
** an example command), their --json forms, and "did you mean" for names
** (an edit distance, case-insensitive, and the name without its
** namespace), which every part of the CLI and the REPL uses.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_lay.h"

/* ---- Did you mean ---------------------------------------------------------- */

/* The edit distance (insert, delete, substitute, swap of two neighbours)
** between a[0..na) and b[0..nb), case-insensitive; values past `cap` are
** cut at cap + 1. */
static size_t distance(const char *a, size_t na, const char *b, size_t nb,
                       size_t cap) {
  if (na > 63 || nb > 63) return cap + 1;
  size_t d[64][64];
  for (size_t i = 0; i <= na; i++) d[i][0] = i;
  for (size_t j = 0; j <= nb; j++) d[0][j] = j;
  for (size_t i = 1; i <= na; i++)
    for (size_t j = 1; j <= nb; j++) {
      int same = tolower((unsigned char)a[i - 1]) ==
                 tolower((unsigned char)b[j - 1]);
      size_t v = d[i - 1][j - 1] + !same;
      if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
      if (i > 1 && j > 1 &&
          tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 2]) &&
          tolower((unsigned char)a[i - 2]) == tolower((unsigned char)b[j - 1]) &&
          d[i - 2][j - 2] + 1 < v)
        v = d[i - 2][j - 2] + 1;
      d[i][j] = v;
    }
  return d[na][nb] > cap ? cap + 1 : d[na][nb];
}

void cli_suggest_init(cli_suggest *s, const char *word) {
  memset(s, 0, sizeof *s);
  s->word = word;
  s->best = (size_t)-1;
}

void cli_suggest_add(cli_suggest *s, const char *cand) {
  if (!cand || !s->word) return;
  size_t nw = strlen(s->word), nc = strlen(cand);
  /* Two characters ("-x") are too few to guess from. */
  if (nw - (s->word[0] == '-') < 2) return;
  /* Typos allowed: 1 for short words, then one per 3 characters. */
  size_t cap = nw < 4 ? 1 : nw / 3;
  size_t d = distance(s->word, nw, cand, nc, cap);
  /* The name without its namespace ("hcwnc4" for amd.hcwnc4), and the
  ** word without one against it. */
  const char *dot = strrchr(cand, '.');
  const char *wdot = strrchr(s->word, '.');
  if (dot && !wdot) {
    size_t d2 = distance(s->word, nw, dot + 1, strlen(dot + 1), cap);
    if (d2 < d) d = d2;
  }
  if (dot && wdot) { /* the same name in another namespace */
    size_t d3 = distance(wdot + 1, strlen(wdot + 1), dot + 1,
                         strlen(dot + 1), cap);
    if (!d3 && d > 1) d = 1;
  }
  /* A word of 3 or more characters that starts a candidate ("float" of
  ** "float32"), or a candidate of 3 or more that starts the word ("pad_l"
  ** of "pad_left"), is near, but no nearer than any other within reach. */
  size_t nmin = nw < nc ? nw : nc;
  if (d > cap && nmin >= 3 && nw != nc && !strncasecmp(cand, s->word, nmin))
    d = cap;
  if (d > cap) return;
  if (d < s->best) {
    s->best = d;
    s->n = 0;
  }
  if (d == s->best && s->n < CLI_SUGGEST_MAX) s->cand[s->n++] = cand;
}

const char *cli_suggest_text(const cli_suggest *s, char *buf, size_t cap) {
  if (!s->n) return "";
  size_t n = (size_t)snprintf(buf, cap, " (did you mean ");
  for (int i = 0; i < s->n && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s'%s'",
                          !i ? "" : i == s->n - 1 ? " or " : ", ",
                          s->cand[i]);
  if (n < cap) snprintf(buf + n, cap - n, "?)");
  return buf;
}

void cli_suggest_layout(lay_ctx *ctx, const char *word, char *buf,
                        size_t cap) {
  cli_suggest s;
  cli_suggest_init(&s, word);
  size_t n = lay_ctx_count(ctx);
  for (size_t i = 0; i < n; i++) cli_suggest_add(&s, lay_ctx_name(ctx, i));
  cli_suggest_text(&s, buf, cap);
  if (!s.n && cap) buf[0] = '\0';
}

void cli_suggest_dtype(const char *word, char *buf, size_t cap) {
  /* lay's names and numpy's (lay_dtype_parse takes both). */
  static const char *const numpy[] = {"float32", "float16", "bfloat16",
                                      "int8",    "uint8",   "int16",
                                      "uint16",  "int32"};
  cli_suggest s;
  cli_suggest_init(&s, word);
  for (int t = LAY_DT_FP32; t <= LAY_DT_INT32; t++)
    cli_suggest_add(&s, lay_dtype_name((lay_dtype)t));
  for (size_t i = 0; i < sizeof numpy / sizeof *numpy; i++)
    if (lay_dtype_parse(numpy[i]) != LAY_DT_NONE &&
        strcmp(numpy[i], lay_dtype_name(lay_dtype_parse(numpy[i]))))
      cli_suggest_add(&s, numpy[i]);
  cli_suggest_text(&s, buf, cap);
  if (!s.n && cap) buf[0] = '\0';
}

/* Append to a library error's message what would fix it: the layout name
** nearest to an unknown one; for an unknown parameter, the nearest one
** and the list of the layout's parameters. */
void cli_explain_error(lay_ctx *ctx, lay_error *err) {
  const char *m = err->message;
  char word[128], owner[128], hint[512] = "";
  size_t len = strlen(m);
  if (sscanf(m, "unknown layout '%127[^']'", word) == 1) {
    cli_suggest_layout(ctx, word, hint, sizeof hint);
  } else if (sscanf(m, "unknown parameter '%127[^']' of '%127[^']'", word,
                    owner) == 2) {
    lay_def_info d;
    if (lay_ctx_def_info(ctx, owner, &d, NULL)) return;
    cli_suggest s;
    cli_suggest_init(&s, word);
    for (int i = 0; i < d.nparams; i++) cli_suggest_add(&s, d.params[i]);
    char one[256];
    size_t n = (size_t)snprintf(hint, sizeof hint, "%s; %s takes ",
                                cli_suggest_text(&s, one, sizeof one), owner);
    if (!d.nparams) snprintf(hint + n, sizeof hint - n, "no parameters");
    for (int i = 0; i < d.nparams && n < sizeof hint; i++)
      n += (size_t)snprintf(hint + n, sizeof hint - n, "%s%s",
                            !i ? "" : i == d.nparams - 1 ? " and " : ", ",
                            d.params[i]);
  }
  if (hint[0] && len < sizeof err->message)
    snprintf(err->message + len, sizeof err->message - len, "%s", hint);
}

/* ---- JSON ---------------------------------------------------------------- */

void cli_json_str(FILE *f, const char *s, size_t n) {
  fputc('"', f);
  for (size_t i = 0; i < n && s[i]; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

static void json_s(FILE *f, const char *s) { cli_json_str(f, s, strlen(s)); }

/* ---- list ----------------------------------------------------------------- */

/* The base name of a reference ("ti.tidl" of "ti.tidl(pad_l=1)"). */
static void base_name(const char *ref, char *out, size_t cap) {
  size_t n = strcspn(ref, "( ");
  if (n >= cap) n = cap - 1;
  memcpy(out, ref, n);
  out[n] = '\0';
}

/* "(n, c, h, w)" */
static void dims_str(const lay_def_info *d, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int i = 0; i < d->rank && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", d->dims[i]);
  if (n < cap) snprintf(buf + n, cap - n, d->rank ? ")" : "?)");
}

/* "int16", "fp32 -> int8", "any" (open: --dtype) */
static void type_str(const lay_def_info *d, char *buf, size_t cap) {
  if (d->dtype == LAY_DT_NONE) snprintf(buf, cap, "any");
  else if (d->hw_dtype != LAY_DT_NONE && d->hw_dtype != d->dtype)
    snprintf(buf, cap, "%s -> %s", lay_dtype_name(d->dtype),
             lay_dtype_name(d->hw_dtype));
  else snprintf(buf, cap, "%s", lay_dtype_name(d->dtype));
}

/* "pad_l=0, pad_r=0" or "x, scale, zero_point=0" */
static void params_str(const lay_def_info *d, char *buf, size_t cap) {
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < d->nparams && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s%s%s", i ? ", " : "",
                          d->params[i], d->defaults[i][0] ? "=" : "",
                          d->defaults[i]);
}

/* 1 when `name` is in namespace ns ("" or NULL: every name). */
static int in_ns(const char *name, const char *ns) {
  if (!ns || !*ns) return 1;
  size_t n = strlen(ns);
  return !strncmp(name, ns, n) && name[n] == '.' && !strchr(name + n + 1, '.');
}

static void list_json(lay_ctx *ctx, const char *ns) {
  size_t cnt = lay_ctx_count(ctx);
  int first = 1;
  printf("[");
  for (size_t i = 0; i < cnt; i++) {
    const char *name = lay_ctx_name(ctx, i);
    lay_def_info d;
    if (!name || !in_ns(name, ns) || lay_ctx_def_info(ctx, name, &d, NULL))
      continue;
    printf("%s\n  {\"name\": ", first ? "" : ",");
    first = 0;
    json_s(stdout, d.name);
    printf(", \"kind\": \"%s\", \"dims\": [", d.is_transform ? "transform"
                                                           : "layout");
    for (int k = 0; k < d.rank; k++) {
      printf("%s", k ? ", " : "");
      json_s(stdout, d.dims[k]);
    }
    printf("], \"dtype\": ");
    if (d.dtype == LAY_DT_NONE) printf("null");
    else json_s(stdout, lay_dtype_name(d.dtype));
    printf(", \"stored_dtype\": ");
    if (d.hw_dtype == LAY_DT_NONE) printf("null");
    else json_s(stdout, lay_dtype_name(d.hw_dtype));
    printf(", \"params\": [");
    for (int k = 0; k < d.nparams; k++) {
      printf("%s{\"name\": ", k ? ", " : "");
      json_s(stdout, d.params[k]);
      printf(", \"default\": ");
      if (d.defaults[k][0]) json_s(stdout, d.defaults[k]);
      else printf("null");
      printf("}");
    }
    printf("], \"file\": ");
    json_s(stdout, d.file);
    printf(", \"line\": %d}", d.line);
  }
  printf("%s]\n", first ? "" : "\n");
}

int cli_cmd_list(const cli_args *a) {
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  const char *ns = a->npos ? a->pos[0] : NULL;
  size_t cnt = lay_ctx_count(ctx), shown = 0, wname = 0, wdims = 0, wtype = 0;
  for (int pass = 0; pass < 2; pass++) {
    for (size_t i = 0; i < cnt; i++) {
      const char *name = lay_ctx_name(ctx, i);
      lay_def_info d;
      if (!name || !in_ns(name, ns) || lay_ctx_def_info(ctx, name, &d, NULL))
        continue;
      char dims[256], type[64], params[512];
      dims_str(&d, dims, sizeof dims);
      type_str(&d, type, sizeof type);
      params_str(&d, params, sizeof params);
      if (d.is_transform) snprintf(dims, sizeof dims, "transform");
      if (!pass) {
        if (strlen(d.name) > wname) wname = strlen(d.name);
        if (strlen(dims) > wdims) wdims = strlen(dims);
        if (strlen(type) > wtype) wtype = strlen(type);
        shown++;
      } else if (!a->json) {
        printf("%-*s  %-*s  %-*s%s%s\n", (int)wname, d.name, (int)wdims, dims,
               params[0] ? (int)wtype : 0, type, params[0] ? "  " : "",
               params);
      }
    }
  }
  int rc = CLI_OK;
  if (ns && !shown) {
    /* A namespace no name is in: the namespaces there are. */
    cli_suggest s;
    cli_suggest_init(&s, ns);
    char seen[2048] = "";
    size_t n = 0;
    for (size_t i = 0; i < cnt; i++) {
      const char *name = lay_ctx_name(ctx, i), *dot;
      if (!name || !(dot = strchr(name, '.'))) continue;
      char one[128];
      snprintf(one, sizeof one, "%.*s", (int)(dot - name), name);
      char key[132];
      snprintf(key, sizeof key, " %s,", one);
      if (strstr(seen, key) || n + strlen(key) >= sizeof seen) continue;
      n += (size_t)snprintf(seen + n, sizeof seen - n, "%s", key);
    }
    char hint[512], *save = NULL;
    char copy[2048];
    memcpy(copy, seen, sizeof copy);
    for (char *t = strtok_r(copy, " ,", &save); t;
         t = strtok_r(NULL, " ,", &save))
      cli_suggest_add(&s, t);
    cli_suggest_text(&s, hint, sizeof hint);
    if (!s.n) hint[0] = '\0';
    for (char *p = seen; *p; p++)
      if (*p == ',' && p[1] == '\0') *p = '\0';
    cli_fail("no layouts in namespace '%s'%s; the namespaces are:%s", ns,
             hint, seen);
    rc = CLI_FAIL;
  } else if (a->json) {
    list_json(ctx, ns);
  }
  lay_ctx_free(ctx);
  if (fflush(stdout)) rc = CLI_FAIL;
  return rc;
}

/* ---- describe --------------------------------------------------------------- */

/* The comment block right above byte `start` of src (its '#' lines, with
** the marker and one space dropped), printed with `indent`; to f. */
static void comment_block(FILE *f, const lay_def_info *d, const char *indent,
                          int json) {
  const char *s = d->src;
  size_t b = d->start, first = b;
  /* Walk up over the '#' lines just above. */
  while (first > 0) {
    size_t e = first - 1, a = e; /* e: the '\n' ending the line above */
    while (a > 0 && s[a - 1] != '\n') a--;
    size_t k = a;
    while (k < e && (s[k] == ' ' || s[k] == '\t')) k++;
    if (k >= e || s[k] != '#') break;
    first = a;
  }
  int any = 0;
  for (size_t a = first; a < b;) {
    size_t e = a;
    while (e < b && s[e] != '\n') e++;
    size_t k = a;
    while (k < e && s[k] != '#') k++;
    k++;
    if (k < e && s[k] == ' ') k++;
    if (json) {
      fprintf(f, "%s", any ? "\\n" : "");
      for (size_t i = k; i < e; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
        else if (c >= 0x20) fputc(c, f);
      }
    } else {
      fprintf(f, "%s%.*s\n", indent, (int)(e > k ? e - k : 0), s + k);
    }
    any = 1;
    a = e + 1;
  }
}

/* An example shape of `rank` dimensions. */
static const char *example_shape(int rank) {
  static const char *const shapes[] = {"1",       "7",       "3,5",
                                       "2,3,5",   "1,3,4,4", "2,3,1,4,5",
                                       "1,2,3,4,4,2", "1,2,3,4,2,2,2",
                                       "1,2,2,2,2,2,2,2"};
  return rank >= 0 && rank <= 8 ? shapes[rank] : "1";
}

/* The reference used in the example: the name, with 1 for each parameter
** that has no default. */
static void example_ref(const lay_def_info *d, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "%s", d->name);
  int need = 0;
  for (int i = 0; i < d->nparams; i++) need += !d->defaults[i][0];
  if (!need) return;
  n += (size_t)snprintf(buf + n, cap - n, "(");
  int k = 0;
  for (int i = 0; i < d->nparams && n < cap; i++)
    if (!d->defaults[i][0])
      n += (size_t)snprintf(buf + n, cap - n, "%s%s=1", k++ ? ", " : "",
                            d->params[i]);
  if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* The memory order of a layout ("[h, c/4, w, n, c%4]") from a plan of the
** example; 0, or -1 when it cannot be planned. */
static int memory_order(lay_ctx *ctx, const char *ref, int rank,
                        char *buf, size_t cap) {
  int64_t shape[LAY_MAX_RANK];
  int r = cli_shape(example_shape(rank), shape, LAY_MAX_RANK);
  lay_plan *p = NULL;
  if (r != rank ||
      lay_plan_create(ctx, ref, shape, rank, LAY_DT_NONE, LAY_PACK, &p, NULL))
    return -1;
  int64_t ext[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int nax = lay_plan_hw_shape(p, ext, names, LAY_MAX_AXES);
  if (nax > LAY_MAX_AXES) nax = LAY_MAX_AXES;
  size_t n = (size_t)snprintf(buf, cap, "[");
  for (int i = 0; i < nax && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "",
                          names[i] ? names[i] : "?");
  if (n < cap) snprintf(buf + n, cap - n, "]");
  lay_plan_free(p);
  return 0;
}

static void describe_json(lay_ctx *ctx, const lay_def_info *d) {
  char ref[512], order[1024];
  example_ref(d, ref, sizeof ref);
  printf("{\"name\": ");
  json_s(stdout, d->name);
  printf(", \"kind\": \"%s\", \"file\": ",
         d->is_transform ? "transform" : "layout");
  json_s(stdout, d->file);
  printf(", \"line\": %d, \"comment\": \"", d->line);
  comment_block(stdout, d, "", 1);
  printf("\", \"definition\": ");
  cli_json_str(stdout, d->src + d->start, d->end - d->start);
  printf(", \"dims\": [");
  for (int k = 0; k < d->rank; k++) {
    printf("%s", k ? ", " : "");
    json_s(stdout, d->dims[k]);
  }
  printf("], \"dtype\": ");
  if (d->dtype == LAY_DT_NONE) printf("null");
  else json_s(stdout, lay_dtype_name(d->dtype));
  printf(", \"stored_dtype\": ");
  if (d->hw_dtype == LAY_DT_NONE) printf("null");
  else json_s(stdout, lay_dtype_name(d->hw_dtype));
  printf(", \"memory_order\": ");
  if (!d->is_transform && !memory_order(ctx, ref, d->rank, order, sizeof order))
    json_s(stdout, order);
  else printf("null");
  printf(", \"params\": [");
  for (int k = 0; k < d->nparams; k++) {
    printf("%s{\"name\": ", k ? ", " : "");
    json_s(stdout, d->params[k]);
    printf(", \"default\": ");
    if (d->defaults[k][0]) json_s(stdout, d->defaults[k]);
    else printf("null");
    printf("}");
  }
  printf("]}\n");
}

int cli_cmd_describe(const cli_args *a) {
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  char name[256];
  base_name(a->pos[0], name, sizeof name);
  lay_def_info d;
  if (lay_ctx_def_info(ctx, name, &d, NULL)) {
    char hint[512];
    cli_suggest_layout(ctx, name, hint, sizeof hint);
    cli_fail("unknown layout '%s'%s", name, hint);
    lay_ctx_free(ctx);
    return CLI_FAIL;
  }
  if (a->json) {
    describe_json(ctx, &d);
    lay_ctx_free(ctx);
    return fflush(stdout) ? CLI_FAIL : CLI_OK;
  }
  char dims[256], type[64], ref[512], order[1024];
  dims_str(&d, dims, sizeof dims);
  type_str(&d, type, sizeof type);
  example_ref(&d, ref, sizeof ref);
  printf("%s: a %s of %s:%d\n", d.name, d.is_transform ? "transform" : "layout",
         d.file, d.line);
  comment_block(stdout, &d, "  ", 0);
  printf("definition:\n");
  for (size_t i = d.start; i < d.end;) {
    size_t e = i;
    while (e < d.end && d.src[e] != '\n') e++;
    printf("  %.*s\n", (int)(e - i), d.src + i);
    i = e + 1;
  }
  printf("cpu side:   %s %s%s\n", dims, type,
         d.dtype == LAY_DT_NONE ? " (--dtype; int8 when not given)" : "");
  if (!d.is_transform) {
    if (!memory_order(ctx, ref, d.rank, order, sizeof order))
      printf("memory:     %s, outermost first\n", order);
  }
  if (!d.nparams) printf("parameters: none\n");
  for (int k = 0; k < d.nparams; k++)
    printf("%s%s%s%s\n", k ? "            " : "parameters: ", d.params[k],
           d.defaults[k][0] ? " = " : " (required)",
           d.defaults[k]);
  int q = strchr(ref, '(') != NULL;
  printf("example:    lay show %s%s%s --shape %s\n", q ? "'" : "", ref,
         q ? "'" : "", example_shape(d.rank));
  lay_ctx_free(ctx);
  return fflush(stdout) ? CLI_FAIL : CLI_OK;
}
