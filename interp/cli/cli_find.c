/*
** cli_find.c: finding layouts in the `lay` CLI: `lay list [NAMESPACE]`
** (one line per definition: dimensions, element type, parameters with
** their defaults), `lay describe NAME` (the comment block and definition
** from its .lay file, the CPU side, the memory order, the parameters and
** an example command) and their --json forms.
*/
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_lay.h"

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
  int planned = d.is_transform; /* a layout's example is planned first */
  if (!d.is_transform && !memory_order(ctx, ref, d.rank, order, sizeof order)) {
    printf("memory:     %s, outermost first\n", order);
    planned = 1;
  }
  if (!d.nparams) printf("parameters: none\n");
  for (int k = 0; k < d.nparams; k++)
    printf("%s%s%s%s\n", k ? "            " : "parameters: ", d.params[k],
           d.defaults[k][0] ? " = " : " (required)",
           d.defaults[k]);
  int q = strchr(ref, '(') != NULL;
  if (planned)
    printf("example:    lay show %s%s%s --shape %s\n", q ? "'" : "", ref,
           q ? "'" : "", example_shape(d.rank));
  else /* 1 for each parameter does not make a plan (lists, constraints) */
    printf("example:    none with 1 for each parameter: see the comment above\n");
  lay_ctx_free(ctx);
  return fflush(stdout) ? CLI_FAIL : CLI_OK;
}
