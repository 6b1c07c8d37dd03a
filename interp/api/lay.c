/*
** lay.c: the public library glue of lay.h.
**
** A lay_ctx wraps the front end's module (lang/lang.h) loaded with the
** embedded stdlib (gen/stdlib_data.c), plus whatever the application loads
** from files, strings and LAY_PATH folders. A lay_plan wraps the planner's
** li_plan (interp/plan/plan.h): lay_plan_create instantiates the format
** reference into an IR, builds the plan and frees the IR again, keeping
** only what the plan itself and the memory-order listing need (the
** direction, the layout-side element size and the byte-plane names).
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctx.h"
#include "diag.h"
#include "lang.h"
#include "lower.h"
#include "lay.h"
#include "nibble.h"
#include "plan.h"
#include "plan_int.h"

struct lay_ctx {
  lg_module *m; /* everything compiled so far */
  li_log log;   /* the plan log (lay_ctx_set_log); fn NULL: none */
};

struct lay_plan {
  li_plan *p;                      /* the compiled plan */
  lay_dir dir;                     /* pack, unpack or convert */
  int nplanes;                     /* byte planes of the layout side */
  char plane[LG_MAX_PLANES][32];   /* their names ("lo", "hi") */
  li_nib nib;                      /* 4-bit buffers (nibble.c) */
};

/* ---- Errors ------------------------------------------------------------- */

/* A call that succeeds leaves err saying so: code LAY_OK, empty strings,
** no position (cheap: lay_plan_run on a tiny tensor takes ~100 ns). */
static void clearerr_(lay_error *err) {
  if (!err) return;
  err->code = LAY_OK;
  err->line = err->col = 0;
  err->file[0] = err->message[0] = err->source_line[0] = '\0';
}

/* ---- Version ------------------------------------------------------------- */

unsigned lay_version_number(void) { return LAY_VERSION_NUMBER; }

#define LAY_STR_(x) #x
#define LAY_STR(x) LAY_STR_(x)
const char *lay_version_string(void) {
  return LAY_STR(LAY_VERSION_MAJOR) "." LAY_STR(LAY_VERSION_MINOR) "." LAY_STR(
      LAY_VERSION_RELEASE);
}

void lay_free(void *p) { free(p); }

/* ---- Contexts -------------------------------------------------------------- */

lg_module *li_ctx_module(lay_ctx *ctx) { return ctx ? ctx->m : NULL; }

const char *lay_stdlib_file(size_t i) {
  size_t n = 0;
  while (li_stdlib_files[n].name) n++;
  return i < n ? li_stdlib_files[i].name : NULL;
}

int lay_ctx_check_file(lay_ctx *ctx, const char *path, lay_report_fn report,
                       void *ud) {
  if (!ctx || !path) return 1;
  size_t n = lg_check_file(ctx->m, path, report, ud);
  return n > INT_MAX ? INT_MAX : (int)n;
}

lay_status lay_ctx_new(lay_ctx **out, lay_error *err) {
  return lay_ctx_new_except(out, NULL, err);
}

lay_status lay_ctx_new_except(lay_ctx **out, const char *skip,
                             lay_error *err) {
  clearerr_(err);
  if (!out) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no output pointer");
    return LAY_E_ARG;
  }
  *out = NULL;
  lay_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx || !(ctx->m = lg_module_new())) {
    free(ctx);
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    return LAY_E_NOMEM;
  }
  /* Imports inside user specs are resolved along LAY_PATH. */
  lg_module_set_path(ctx->m, getenv("LAY_PATH"));
  for (const li_stdlib_file *f = li_stdlib_files; f->name; f++) {
    if (skip && !strcmp(skip, f->name)) continue;
    lay_status st = lg_load_string(ctx->m, f->name, f->text, f->len, err);
    if (st) {
      lay_ctx_free(ctx);
      return st;
    }
  }
  *out = ctx;
  return LAY_OK;
}

void lay_ctx_free(lay_ctx *ctx) {
  if (!ctx) return;
  lg_module_free(ctx->m);
  free(ctx);
}

lay_status lay_ctx_load_file(lay_ctx *ctx, const char *path, lay_error *err) {
  clearerr_(err);
  if (!ctx || !path) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context or path");
    return LAY_E_ARG;
  }
  return lg_load_file(ctx->m, path, err);
}

lay_status lay_ctx_load_string(lay_ctx *ctx, const char *name,
                               const char *src, size_t len, lay_error *err) {
  clearerr_(err);
  if (!ctx || (!src && len)) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context or source");
    return LAY_E_ARG;
  }
  return lg_load_string(ctx->m, name ? name : "<string>", src ? src : "",
                        len, err);
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Load every *.lay file of folder dir[0..n), in name order. */
static lay_status load_dir(lay_ctx *ctx, const char *dir, size_t n,
                           lay_error *err) {
  char *d = malloc(n + 1);
  if (!d) {
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    return LAY_E_NOMEM;
  }
  memcpy(d, dir, n);
  d[n] = '\0';
  DIR *dp = opendir(d);
  if (!dp) {
    lg_error_plain(err, LAY_E_IO, NULL, "LAY_PATH folder '%s': %s", d, strerror(errno));
    free(d);
    return LAY_E_IO;
  }
  char **names = NULL;
  size_t count = 0, cap = 0;
  lay_status st = LAY_OK;
  struct dirent *e;
  while ((e = readdir(dp)) != NULL) {
    size_t l = strlen(e->d_name);
    if (l < 5 || strcmp(e->d_name + l - 4, ".lay") || e->d_name[0] == '.')
      continue;
    if (count == cap) {
      size_t nc = cap ? cap * 2 : 16;
      char **nn = realloc(names, nc * sizeof *nn);
      if (!nn) {
        st = LAY_E_NOMEM;
        break;
      }
      names = nn;
      cap = nc;
    }
    size_t pl = n + 1 + l + 1;
    if (!(names[count] = malloc(pl))) {
      st = LAY_E_NOMEM;
      break;
    }
    snprintf(names[count], pl, "%s/%s", d, e->d_name);
    count++;
  }
  closedir(dp);
  if (st) lg_error_plain(err, st, NULL, "out of memory");
  if (!st && count) qsort(names, count, sizeof *names, cmp_str);
  for (size_t i = 0; i < count; i++) {
    struct stat sb;
    if (!st && stat(names[i], &sb) == 0 && S_ISREG(sb.st_mode))
      st = lg_load_file(ctx->m, names[i], err);
    free(names[i]);
  }
  free(names);
  free(d);
  return st;
}

lay_status lay_ctx_load_path(lay_ctx *ctx, const char *lay_path,
                             lay_error *err) {
  clearerr_(err);
  if (!ctx) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context");
    return LAY_E_ARG;
  }
  if (!lay_path || !*lay_path) return LAY_OK;
  lg_module_set_path(ctx->m, lay_path);
  const char *s = lay_path;
  while (*s) {
    size_t n = strcspn(s, ":");
    if (n) {
      lay_status st = load_dir(ctx, s, n, err);
      if (st) return st;
    }
    s += n;
    if (*s == ':') s++;
  }
  return LAY_OK;
}

size_t lay_ctx_count(const lay_ctx *ctx) {
  return ctx ? lg_module_count(ctx->m) : 0;
}

const char *lay_ctx_name(const lay_ctx *ctx, size_t i) {
  return ctx ? lg_module_name(ctx->m, i) : NULL;
}

void lay_ctx_set_log(lay_ctx *ctx, lay_log_fn fn, void *user) {
  if (!ctx) return;
  ctx->log.fn = fn;
  ctx->log.user = user;
}

/* ---- Plans ----------------------------------------------------------------- */

static lay_status check_args(lay_ctx *ctx, const char *fmt,
                             const int64_t *shape, int rank, lay_plan **out,
                             lay_error *err) {
  if (out) *out = NULL;
  if (!ctx || !fmt || !shape || !out) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context, format, shape or output pointer");
    return LAY_E_ARG;
  }
  if (rank < 1 || rank > LAY_MAX_RANK) {
    lg_error_plain(err, LAY_E_SHAPE, NULL, "a shape has 1 to %d dimensions, not %d",
           LAY_MAX_RANK, rank);
    return LAY_E_SHAPE;
  }
  for (int i = 0; i < rank; i++) {
    if (shape[i] < 1) {
      lg_error_plain(err, LAY_E_SHAPE, NULL,
             "dimension %d of the shape is %lld; sizes must be at least 1",
             i, (long long)shape[i]);
      return LAY_E_SHAPE;
    }
  }
  return LAY_OK;
}

/* Keep the byte-plane names of the layout side `ir`. */
static void keep_planes(lay_plan *lp, const lg_ir *ir) {
  int n = ir->value.nplanes;
  if (n < 0) n = 0;
  if (n > LG_MAX_PLANES) n = LG_MAX_PLANES;
  lp->nplanes = n;
  for (int i = 0; i < n; i++) {
    const char *name = ir->value.plane[i].name;
    snprintf(lp->plane[i], sizeof lp->plane[i], "%s", name ? name : "");
  }
}

/* src_ir, dst_ir: the layout IRs of the plan's two sides (NULL for the
** CPU side), for their nibble order (nibble.c). */
static lay_status wrap(li_plan *p, lay_dir dir, const lg_ir *layout_ir,
                       const lg_ir *src_ir, const lg_ir *dst_ir,
                       lay_plan **out, lay_error *err) {
  lay_plan *lp = calloc(1, sizeof *lp);
  if (!lp) {
    li_plan_free(p);
    lg_error_plain(err, LAY_E_NOMEM, NULL, "out of memory");
    return LAY_E_NOMEM;
  }
  lp->p = p;
  lp->dir = dir;
  keep_planes(lp, layout_ir);
  li_nib_setup(&lp->nib, p, src_ir, dst_ir);
  *out = lp;
  return LAY_OK;
}

/* The pad value of a layout whose type is open, against the CPU type the
** plan gets (dtype, else the other side's, else int8 as the planner's
** default), reported at its pad_value item (lang/lower_pad.c). */
static lay_status pad_type(const lg_ir *ir, const lg_ir *other,
                           lay_dtype dtype, lay_error *err) {
  lay_dtype t = dtype;
  if (t == LAY_DT_NONE && other) t = other->value.cpu;
  if (t == LAY_DT_NONE) t = LAY_DT_INT8;
  return lg_pad_check_type(ir, t, dtype != LAY_DT_NONE, err);
}

lay_status lay_plan_create(lay_ctx *ctx, const char *format,
                           const int64_t *shape, int rank, lay_dtype dtype,
                           lay_dir dir, lay_plan **out, lay_error *err) {
  clearerr_(err);
  lay_status st = check_args(ctx, format, shape, rank, out, err);
  if (st) return st;
  if (dir != LAY_PACK && dir != LAY_UNPACK) {
    lg_error_plain(err, LAY_E_ARG, NULL,
           "lay_plan_create makes pack or unpack plans; use lay_plan_convert");
    return LAY_E_ARG;
  }
  lg_ir *ir = NULL;
  st = lg_instantiate_for(ctx->m, format, shape, rank, dtype, &ir, err);
  if (st) return st;
  st = pad_type(ir, NULL, dtype, err);
  if (st) {
    lg_ir_free(ir);
    return st;
  }
  li_plan *p = NULL;
  st = li_plan_build_log(&ctx->log, ir, shape, rank, dtype, dir, &p, err);
  if (!st)
    st = wrap(p, dir, ir, dir == LAY_UNPACK ? ir : NULL,
              dir == LAY_UNPACK ? NULL : ir, out, err);
  lg_ir_free(ir);
  return st;
}


void lay_plan_free(lay_plan *plan) {
  if (!plan) return;
  li_plan_free(plan->p);
  free(plan);
}

size_t lay_plan_src_bytes(const lay_plan *plan) {
  return plan ? li_nib_bytes(&plan->nib, 0, li_plan_src_bytes(plan->p)) : 0;
}

size_t lay_plan_dst_bytes(const lay_plan *plan) {
  return plan ? li_nib_bytes(&plan->nib, 1, li_plan_dst_bytes(plan->p)) : 0;
}

lay_dtype lay_plan_src_dtype(const lay_plan *plan) {
  return plan ? li_plan_src_dtype(plan->p) : LAY_DT_NONE;
}

lay_dtype lay_plan_dst_dtype(const lay_plan *plan) {
  return plan ? li_plan_dst_dtype(plan->p) : LAY_DT_NONE;
}

int lay_plan_cpu_shape(const lay_plan *plan, int64_t *shape, int cap) {
  return plan ? li_plan_cpu_shape(plan->p, shape, cap) : 0;
}

int lay_plan_hw_shape(const lay_plan *plan, int64_t *shape,
                      const char **names, int cap) {
  return plan ? li_plan_hw_shape(plan->p, shape, names, cap) : 0;
}

lay_status lay_plan_run(const lay_plan *plan, const void *src,
                        size_t src_bytes, void *dst, size_t dst_bytes,
                        int threads, lay_error *err) {
  clearerr_(err);
  if (!plan || (!src && src_bytes) || (!dst && dst_bytes)) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan or buffer");
    return LAY_E_ARG;
  }
  if (li_nib_any(&plan->nib)) /* li_fix_pads runs inside, before packing */
    return li_nib_run(&plan->nib, plan->p, src, src_bytes, dst, dst_bytes,
                      threads, err);
  lay_status st =
      li_plan_run(plan->p, src, src_bytes, dst, dst_bytes, threads, err);
  if (st == LAY_OK) li_fix_pads(plan->p, dst);
  return st;
}

/* The layout buffer's side of the plan (0 source, 1 destination) and
** whether it is 4-bit: then the planner's byte offsets are element
** indexes. */
static int layout_side(const lay_plan *plan) {
  return plan->dir == LAY_UNPACK ? 0 : 1;
}

static int layout_nibbles(const lay_plan *plan) {
  return plan->nib.order[layout_side(plan)] != 0;
}

lay_status lay_plan_where(const lay_plan *plan, const int64_t *coord,
                          int rank, uint64_t *offset, lay_error *err) {
  clearerr_(err);
  if (!plan || !coord || !offset) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan, coordinate or output");
    return LAY_E_ARG;
  }
  lay_status st = li_plan_where(plan->p, coord, rank, offset, err);
  if (!st && layout_nibbles(plan)) *offset /= 2;
  return st;
}

lay_status lay_plan_at(const lay_plan *plan, uint64_t offset, int64_t *coord,
                       int cap, int *is_pad, int *plane, lay_error *err) {
  clearerr_(err);
  if (!plan || !coord || !is_pad || !plane) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan or output");
    return LAY_E_ARG;
  }
  if (layout_nibbles(plan)) {
    if (offset >= lay_plan_layout_bytes(plan)) {
      lg_error_plain(err, LAY_E_ARG, NULL,
                     "offset %llu is outside the layout buffer (%zu bytes)",
                     (unsigned long long)offset, lay_plan_layout_bytes(plan));
      return LAY_E_ARG;
    }
    offset *= 2; /* the byte's first element in memory order */
  }
  return li_plan_at(plan->p, offset, coord, cap, is_pad, plane, err);
}

/* Elements of the layout buffer: its bytes over the element size, or the
** planner's bytes for a 4-bit buffer (one element per byte there). */
static uint64_t elem_div(const lay_plan *plan) {
  return layout_nibbles(plan) ? 1 : (uint64_t)lay_plan_layout_elem_bytes(plan);
}

lay_status lay_plan_where_element(const lay_plan *plan, const int64_t *coord,
                                  int rank, uint64_t *index, lay_error *err) {
  clearerr_(err);
  if (!plan || !coord || !index) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan, coordinate or output");
    return LAY_E_ARG;
  }
  lay_status st = li_plan_where(plan->p, coord, rank, index, err);
  if (!st) *index /= elem_div(plan);
  return st;
}

lay_status lay_plan_at_element(const lay_plan *plan, uint64_t index,
                               int64_t *coord, int cap, int *is_pad,
                               int *plane, lay_error *err) {
  clearerr_(err);
  if (!plan || !coord || !is_pad || !plane) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan or output");
    return LAY_E_ARG;
  }
  uint64_t d = elem_div(plan);
  uint64_t n = lay_plan_layout_elements(plan);
  if (index >= n) {
    lg_error_plain(err, LAY_E_ARG, NULL,
                   "element %llu is outside the layout buffer (%llu "
                   "elements)",
                   (unsigned long long)index, (unsigned long long)n);
    return LAY_E_ARG;
  }
  return li_plan_at(plan->p, index * d, coord, cap, is_pad, plane, err);
}

int lay_plan_layout_high_first(const lay_plan *plan) {
  return plan && plan->nib.order[layout_side(plan)] == 2;
}

uint64_t lay_plan_layout_elements(const lay_plan *plan) {
  if (!plan) return 0;
  size_t b = plan->dir == LAY_UNPACK ? li_plan_src_bytes(plan->p)
                                     : li_plan_dst_bytes(plan->p);
  return (uint64_t)b / elem_div(plan);
}

/* The planner's words, and for 4-bit buffers what the wrapper does with
** the planner's bytes (nibble.c). */
char *lay_plan_describe(const lay_plan *plan) {
  if (!plan) return NULL;
  char *d = li_plan_describe(plan->p);
  if (!d || !li_nib_any(&plan->nib)) return d;
  static const char *const side[2] = {"source", "destination"};
  static const char *const ord[3] = {"", "low", "high"};
  size_t n = strlen(d), cap = n + 256;
  char *out = malloc(cap);
  if (!out) return d;
  memcpy(out, d, n + 1);
  free(d);
  for (int s = 0; s < 2; s++) {
    if (!plan->nib.order[s]) continue;
    size_t b = s ? li_plan_dst_bytes(plan->p) : li_plan_src_bytes(plan->p);
    n += (size_t)snprintf(out + n, cap - n,
                          "nibbles: the %s holds those %zu elements in %zu "
                          "bytes, %s nibble first\n",
                          side[s], b, li_nib_bytes(&plan->nib, s, b),
                          ord[plan->nib.order[s]]);
  }
  return out;
}

size_t lay_plan_memory(const lay_plan *plan) {
  return plan ? li_plan_memory(plan->p) : 0;
}

/* ---- The layout buffer of a plan -------------------------------------------- */

size_t lay_plan_layout_bytes(const lay_plan *p) {
  if (!p) return 0;
  return p->dir == LAY_UNPACK ? lay_plan_src_bytes(p) : lay_plan_dst_bytes(p);
}

size_t lay_plan_layout_elem_bytes(const lay_plan *p) {
  if (!p) return 0;
  if (p->nplanes > 0) return 1;
  lay_dtype t = p->dir == LAY_UNPACK ? li_plan_src_dtype(p->p)
                                     : li_plan_dst_dtype(p->p);
  size_t s = lay_dtype_size(t);
  return s ? s : 1;
}

const char *lay_plan_plane_name(const lay_plan *p, int plane) {
  if (!p || plane < 0 || plane >= p->nplanes) return NULL;
  return p->plane[plane];
}

int lay_plan_plane_count(const lay_plan *p) { return p ? p->nplanes : 0; }

/* ---- Looking a definition up; converting with renamed dimensions ------------ */

#define LG_MAX_NAME_COPY 32 /* bytes of a renamed dimension, with its NUL */

/* One past the last byte of expression e (0 for NULL). */
static size_t expr_end(const lg_expr *e) { return e ? e->end : 0; }

/* Copy s[0..n) into a buffer of cap bytes, cut when longer. */
static void copy_cut(char *dst, size_t cap, const char *s, size_t n) {
  if (n >= cap) n = cap - 1;
  memcpy(dst, s, n);
  dst[n] = '\0';
}

/* The definition's extent: from the start of its keyword's line to the end
** of its last expression's line, with closing brackets on the lines right
** after it. */
static void def_extent(const lg_def *d, uint32_t pos, size_t last,
                       size_t *start, size_t *end) {
  const char *s = d->src;
  size_t a = pos;
  while (a > 0 && s[a - 1] != '\n') a--;
  size_t b = last > pos ? last : pos;
  for (;;) {
    while (b < d->src_len && s[b] != '\n') b++;
    size_t c = b + (b < d->src_len);
    while (c < d->src_len && (s[c] == ' ' || s[c] == '\t')) c++;
    if (c < d->src_len && (s[c] == '}' || s[c] == ']' || s[c] == '>' ||
                           s[c] == ')')) {
      b = c;
      continue;
    }
    break;
  }
  *start = a;
  *end = b;
}

lay_status lay_ctx_def_info(lay_ctx *ctx, const char *name,
                            lay_def_info *out, lay_error *err) {
  clearerr_(err);
  if (!ctx || !name || !out) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context, name or output");
    return LAY_E_ARG;
  }
  memset(out, 0, sizeof *out);
  const lg_def *d = lg_module_find(ctx->m, name, NULL);
  if (!d) {
    lg_error_plain(err, LAY_E_NAME, NULL, "unknown layout '%s'", name);
    return LAY_E_NAME;
  }
  snprintf(out->name, sizeof out->name, "%s", d->qname);
  snprintf(out->file, sizeof out->file, "%s", d->file ? d->file : "");
  out->src = d->src;
  out->src_len = d->src_len;
  uint32_t pos;
  size_t last = 0;
  if (d->transform) {
    const lg_transform *t = d->transform;
    out->is_transform = 1;
    pos = t->pos;
    for (int i = 0; i < t->shape.n; i++)
      if (expr_end(t->shape.v[i]) > last) last = expr_end(t->shape.v[i]);
    for (int i = 0; i < t->ops.n; i++)
      if (expr_end(t->ops.v[i]) > last) last = expr_end(t->ops.v[i]);
    if (t->dtype) out->dtype = lay_dtype_parse(t->dtype->u.str.s);
  } else {
    const lg_layout *l = d->layout;
    pos = l->pos;
    for (int i = 0; i < l->params.n && out->nparams < LAY_INFO_MAX_PARAMS;
         i++) {
      const lg_expr *p = l->params.v[i];
      int k = out->nparams++;
      if (p->kind == LG_X_NAMED) {
        copy_cut(out->params[k], sizeof out->params[k], p->u.named.name.s,
                 p->u.named.name.n);
        /* The default as written: from after the '=' to the ',' or ')'
        ** that ends it (its expression's span leaves out brackets). */
        const lg_expr *v = p->u.named.value;
        if (v && v->pos <= d->src_len) {
          size_t a = p->pos, b;
          while (a < d->src_len && d->src[a] != '=') a++;
          a++;
          while (a < d->src_len && (d->src[a] == ' ' || d->src[a] == '\n'))
            a++;
          int depth = 0;
          for (b = a; b < d->src_len; b++) {
            char c = d->src[b];
            if (c == '(' || c == '[') depth++;
            else if ((c == ')' || c == ']') && depth-- == 0) break;
            else if (c == ',' && !depth) break;
          }
          while (b > a && (d->src[b - 1] == ' ' || d->src[b - 1] == '\n'))
            b--;
          copy_cut(out->defaults[k], sizeof out->defaults[k], d->src + a,
                   b - a);
        }
      } else if (p->kind == LG_X_NAME) {
        copy_cut(out->params[k], sizeof out->params[k], p->u.str.s,
                 p->u.str.n);
      }
    }
    for (int i = 0; i < l->dims.n && i < LAY_MAX_RANK; i++)
      if (l->dims.v[i]->kind == LG_X_NAME)
        copy_cut(out->dims[i], sizeof out->dims[i], l->dims.v[i]->u.str.s,
                 l->dims.v[i]->u.str.n);
    out->rank = l->dims.n <= LAY_MAX_RANK ? l->dims.n : 0;
    if (l->dtype) out->dtype = lay_dtype_parse(l->dtype->u.str.s);
    last = expr_end(l->alias);
    if (expr_end(l->chunked) > last) last = expr_end(l->chunked);
    for (int i = 0; i < l->n_items; i++) {
      const lg_item *it = &l->items[i];
      size_t e = expr_end(it->e);
      if (expr_end(it->stride) > e) e = expr_end(it->stride);
      if (expr_end(it->align) > e) e = expr_end(it->align);
      if (e > last) last = e;
    }
    for (int i = 0; i < l->n_clauses; i++)
      if (expr_end(l->clauses[i].value) > last)
        last = expr_end(l->clauses[i].value);
  }
  /* Facts the definition leaves to its template (an alias) or its
  ** arguments: from an instance with the defaults, when there is one. */
  lg_ir *ir = NULL;
  lay_error e2;
  if (!lg_instantiate(ctx->m, d->qname, &ir, &e2) && ir) {
    if (!out->rank && ir->rank <= LAY_MAX_RANK) {
      out->rank = ir->rank;
      for (int i = 0; i < ir->rank; i++)
        snprintf(out->dims[i], sizeof out->dims[i], "%s",
                 ir->dim[i].name ? ir->dim[i].name : "?");
    }
    if (out->dtype == LAY_DT_NONE) out->dtype = ir->value.cpu;
    out->hw_dtype = ir->value.hw != LAY_DT_NONE ? ir->value.hw : ir->value.cpu;
    if (ir->value.nplanes) out->hw_dtype = LAY_DT_UINT8;
  }
  lg_ir_free(ir);
  if (pos > d->src_len) pos = (uint32_t)d->src_len;
  def_extent(d, pos, last, &out->start, &out->end);
  int col;
  lg_linecol(d->src, d->src_len, pos, &out->line, &col);
  return LAY_OK;
}

/* Rename b's dimensions by map "T=S,..." (all at once). The names live in
** b's arena-free buffer `names`. LAY_OK, or LAY_E_ARG with the message. */
static lay_status apply_map(lg_ir *b, const char *map,
                            char names[][LG_MAX_NAME_COPY], lay_error *err) {
  const char *newname[LG_MAX_RANK] = {0};
  const char *s = map;
  while (*s) {
    while (*s == ' ' || *s == ',') s++;
    if (!*s) break;
    const char *t = s;
    while (*s && *s != '=' && *s != ',' && *s != ' ') s++;
    size_t tn = (size_t)(s - t);
    while (*s == ' ') s++;
    if (*s != '=' || !tn) {
      lg_error_plain(err, LAY_E_ARG, NULL,
                     "bad map '%s': expected TARGET=SOURCE pairs like b=n,d=c",
                     map);
      return LAY_E_ARG;
    }
    s++;
    while (*s == ' ') s++;
    const char *v = s;
    while (*s && *s != ',' && *s != ' ') s++;
    size_t vn = (size_t)(s - v);
    int j = -1;
    for (int k = 0; k < b->rank; k++)
      if (b->dim[k].name && strlen(b->dim[k].name) == tn &&
          !strncmp(b->dim[k].name, t, tn))
        j = k;
    if (j < 0 || !vn || vn >= LG_MAX_NAME_COPY) {
      char tgt[256] = "";
      size_t n = 0;
      for (int k = 0; k < b->rank && n < sizeof tgt; k++)
        n += (size_t)snprintf(tgt + n, sizeof tgt - n, "%s%s", k ? ", " : "",
                              b->dim[k].name ? b->dim[k].name : "?");
      lg_error_plain(err, LAY_E_ARG, NULL,
                     !vn ? "bad map '%s': '%.*s' has no source dimension"
                         : "bad map '%s': the target has no dimension "
                           "'%.*s' (it has %s)",
                     map, (int)tn, t, tgt);
      return LAY_E_ARG;
    }
    if (newname[j]) {
      lg_error_plain(err, LAY_E_ARG, NULL,
                     "bad map '%s': '%.*s' is mapped twice", map, (int)tn, t);
      return LAY_E_ARG;
    }
    copy_cut(names[j], LG_MAX_NAME_COPY, v, vn);
    newname[j] = names[j];
  }
  for (int k = 0; k < b->rank; k++)
    if (newname[k]) b->dim[k].name = newname[k];
  return LAY_OK;
}

/* "(n, c, h, w)" of an IR into buf. */
static void dims_text(const lg_ir *ir, char *buf, size_t cap) {
  size_t n = (size_t)snprintf(buf, cap, "(");
  for (int k = 0; k < ir->rank && n < cap; k++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", k ? ", " : "",
                          ir->dim[k].name ? ir->dim[k].name : "?");
  if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* Every dimension of a has one partner of b by name, else the message
** naming both sides' dimensions. */
static lay_status match_dims(const lg_ir *a, const lg_ir *b, lay_error *err) {
  if (a->rank != b->rank) return LAY_OK; /* the planner says it */
  for (int side = 0; side < 2; side++) {
    const lg_ir *x = side ? b : a, *y = side ? a : b;
    for (int i = 0; i < x->rank; i++) {
      int found = 0;
      for (int j = 0; j < y->rank; j++)
        found += x->dim[i].name && y->dim[j].name &&
                 !strcmp(x->dim[i].name, y->dim[j].name);
      if (found == 1) continue;
      char da[256], db[256];
      dims_text(a, da, sizeof da);
      dims_text(b, db, sizeof db);
      lg_error_plain(err, LAY_E_NAME, NULL,
                     "dimension '%s' of the %s is %s the %s: the source has "
                     "%s, the target %s",
                     x->dim[i].name ? x->dim[i].name : "?",
                     side ? "target" : "source",
                     found ? "more than once in" : "not in",
                     side ? "source" : "target", da, db);
      return LAY_E_NAME;
    }
  }
  return LAY_OK;
}

/* The target instantiated again for the shape in its own dimension order
** (the sizes its `require`, esize and computed sizes see); b unchanged
** when a dimension of it is not in the source (the planner says so). */
static lay_status target_for_shape(lay_ctx *ctx, const char *to,
                                   const char *map,
                                   char names[][LG_MAX_NAME_COPY],
                                   const lg_ir *a, lg_ir **b,
                                   const int64_t *shape, int rank,
                                   lay_dtype dtype, lay_error *err) {
  int64_t bshape[LG_MAX_RANK];
  if ((*b)->rank != rank || a->rank != rank) return LAY_OK;
  for (int j = 0; j < rank; j++) {
    int found = -1;
    for (int i = 0; i < rank; i++)
      if (a->dim[i].name && (*b)->dim[j].name &&
          !strcmp(a->dim[i].name, (*b)->dim[j].name))
        found = i;
    if (found < 0) return LAY_OK;
    bshape[j] = shape[found];
  }
  lg_ir *nb = NULL;
  lay_status st = lg_instantiate_for(ctx->m, to, bshape, rank, dtype, &nb, err);
  if (!st && map && *map) st = apply_map(nb, map, names, err);
  if (st) {
    lg_ir_free(nb);
    return st;
  }
  lg_ir_free(*b);
  *b = nb;
  return LAY_OK;
}

/* lay_plan_convert and lay_plan_convert_map: with `match`, the dimension
** names are matched here first (map applied), for the error that names
** both sides' dimensions. */
static lay_status convert_plan(lay_ctx *ctx, const char *from, const char *to,
                               const char *map, int match,
                               const int64_t *shape, int rank,
                               lay_dtype dtype, lay_plan **out,
                               lay_error *err) {
  clearerr_(err);
  lay_status st = check_args(ctx, from, shape, rank, out, err);
  if (st) return st;
  if (!to) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no destination format");
    return LAY_E_ARG;
  }
  lg_ir *a = NULL, *b = NULL;
  char names[LG_MAX_RANK][LG_MAX_NAME_COPY];
  st = lg_instantiate_for(ctx->m, from, shape, rank, dtype, &a, err);
  if (!st) st = lg_instantiate_for(ctx->m, to, NULL, rank, dtype, &b, err);
  if (!st && map && *map) st = apply_map(b, map, names, err);
  if (!st && match && rank == a->rank) st = match_dims(a, b, err);
  if (!st) st = target_for_shape(ctx, to, map, names, a, &b, shape, rank,
                                 dtype, err);
  if (!st) st = pad_type(a, b, dtype, err);
  if (!st) st = pad_type(b, a, dtype, err);
  if (!st) {
    li_plan *p = NULL;
    st = li_plan_convert_log(&ctx->log, a, b, shape, rank, dtype, &p, err);
    if (!st) st = wrap(p, LAY_CONVERT, b, a, b, out, err);
  }
  lg_ir_free(a);
  lg_ir_free(b);
  return st;
}

lay_status lay_plan_convert(lay_ctx *ctx, const char *from, const char *to,
                            const int64_t *shape, int rank, lay_dtype dtype,
                            lay_plan **out, lay_error *err) {
  return convert_plan(ctx, from, to, NULL, 0, shape, rank, dtype, out, err);
}

lay_status lay_plan_convert_map(lay_ctx *ctx, const char *from,
                                const char *to, const char *map,
                                const int64_t *shape, int rank,
                                lay_dtype dtype, lay_plan **out,
                                lay_error *err) {
  return convert_plan(ctx, from, to, map, 1, shape, rank, dtype, out, err);
}

/* ---- Dimension names (added by the Python/.npy work, issue 18) ---------- */

lay_status lay_format_dims(lay_ctx *ctx, const char *format, int *rank,
                           char *names, size_t cap, lay_error *err) {
  clearerr_(err);
  if (rank) *rank = 0;
  if (names && cap) names[0] = '\0';
  if (!ctx || !format || !rank || !names || !cap) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no context, format, rank or names buffer");
    return LAY_E_ARG;
  }
  lg_ir *ir = NULL;
  lay_status st = lg_instantiate(ctx->m, format, &ir, err);
  if (st) return st;
  size_t n = 0;
  for (int i = 0; i < ir->rank; i++) {
    char d[16];
    const char *nm = ir->dim[i].name;
    if (!nm || !*nm) {
      snprintf(d, sizeof d, "d%d", i);
      nm = d;
    }
    size_t l = strlen(nm);
    if (n + l + 2 > cap) {
      names[0] = '\0';
      lg_error_plain(err, LAY_E_LIMIT, NULL,
                     "the dimension names of %s need more than %zu bytes", format, cap);
      lg_ir_free(ir);
      return LAY_E_LIMIT;
    }
    if (i) names[n++] = ',';
    memcpy(names + n, nm, l);
    n += l;
    names[n] = '\0';
  }
  *rank = ir->rank;
  lg_ir_free(ir);
  return LAY_OK;
}

/* ---- For slab.c: the compiled plan behind a handle ------------------------ */
const li_plan *li_plan_of(const lay_plan *plan) { return plan ? plan->p : NULL; }
