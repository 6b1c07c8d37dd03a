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
#include "lay.h"
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

static lay_status wrap(li_plan *p, lay_dir dir, const lg_ir *layout_ir,
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
  *out = lp;
  return LAY_OK;
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
  st = lg_instantiate(ctx->m, format, &ir, err);
  if (st) return st;
  li_plan *p = NULL;
  st = li_plan_build_log(&ctx->log, ir, shape, rank, dtype, dir, &p, err);
  if (!st) st = wrap(p, dir, ir, out, err);
  lg_ir_free(ir);
  return st;
}

lay_status lay_plan_convert(lay_ctx *ctx, const char *from, const char *to,
                            const int64_t *shape, int rank, lay_dtype dtype,
                            lay_plan **out, lay_error *err) {
  clearerr_(err);
  lay_status st = check_args(ctx, from, shape, rank, out, err);
  if (st) return st;
  if (!to) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no destination format");
    return LAY_E_ARG;
  }
  lg_ir *a = NULL, *b = NULL;
  st = lg_instantiate(ctx->m, from, &a, err);
  if (!st) st = lg_instantiate(ctx->m, to, &b, err);
  if (!st) {
    li_plan *p = NULL;
    st = li_plan_convert_log(&ctx->log, a, b, shape, rank, dtype, &p, err);
    if (!st) st = wrap(p, LAY_CONVERT, b, out, err);
  }
  lg_ir_free(a);
  lg_ir_free(b);
  return st;
}

void lay_plan_free(lay_plan *plan) {
  if (!plan) return;
  li_plan_free(plan->p);
  free(plan);
}

size_t lay_plan_src_bytes(const lay_plan *plan) {
  return plan ? li_plan_src_bytes(plan->p) : 0;
}

size_t lay_plan_dst_bytes(const lay_plan *plan) {
  return plan ? li_plan_dst_bytes(plan->p) : 0;
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
  return li_plan_run(plan->p, src, src_bytes, dst, dst_bytes, threads, err);
}

lay_status lay_plan_where(const lay_plan *plan, const int64_t *coord,
                          int rank, uint64_t *offset, lay_error *err) {
  clearerr_(err);
  if (!plan || !coord || !offset) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan, coordinate or output");
    return LAY_E_ARG;
  }
  return li_plan_where(plan->p, coord, rank, offset, err);
}

lay_status lay_plan_at(const lay_plan *plan, uint64_t offset, int64_t *coord,
                       int cap, int *is_pad, int *plane, lay_error *err) {
  clearerr_(err);
  if (!plan || !coord || !is_pad || !plane) {
    lg_error_plain(err, LAY_E_ARG, NULL, "no plan or output");
    return LAY_E_ARG;
  }
  return li_plan_at(plan->p, offset, coord, cap, is_pad, plane, err);
}

char *lay_plan_describe(const lay_plan *plan) {
  return plan ? li_plan_describe(plan->p) : NULL;
}

size_t lay_plan_memory(const lay_plan *plan) {
  return plan ? li_plan_memory(plan->p) : 0;
}

/* ---- The layout buffer of a plan -------------------------------------------- */

size_t lay_plan_layout_bytes(const lay_plan *p) {
  if (!p) return 0;
  return p->dir == LAY_UNPACK ? li_plan_src_bytes(p->p)
                              : li_plan_dst_bytes(p->p);
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
