/*
** cli_cmds.c: the commands of the `lay` CLI (see main.c for the command
** line and BRIEF section 3 for the contract).
**
** pack / unpack / convert check the input's size against the plan before
** any output exists (when it is a file), then move it through cli_stream.c
** (in slabs when the layout admits them) into a temporary file. show, info, where and at explain a layout;
** check and test compile specs and run their test blocks.
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_draw.h"
#include "cli_lay.h"
#include "cli_npy.h"
#include "lay_tools.h"

#define SHOW_LIMIT 4096 /* elements `lay show` lists without --limit */

/* ---- Shared steps ------------------------------------------------------------ */

lay_ctx *cli_context(const cli_args *a) { return cli_context_except(a, NULL); }

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .lay files of LAY_PATH's folders, each folder's in name order, as
** lay_ctx_load_path does; but a file that fails to load is skipped with a
** warning (its position and message), so that one broken file does not
** stop commands that never use it; a command that names one of its
** layouts then fails as "unknown layout", after the warning. A missing
** folder, and a name defined twice, stay errors. 0, or -1 after the
** error. */
static int load_lay_path(lay_ctx *ctx, const char *path) {
  int rc = 0;
  for (const char *s = path; *s && !rc;) {
    size_t n = strcspn(s, ":");
    char dir[4096];
    if (!n || n >= sizeof dir) {
      s += n + (s[n] == ':');
      continue;
    }
    memcpy(dir, s, n);
    dir[n] = '\0';
    s += n + (s[n] == ':');
    DIR *dp = opendir(dir);
    if (!dp) {
      cli_fail("LAY_PATH folder '%s': %s", dir, strerror(errno));
      return -1;
    }
    char **names = NULL;
    size_t count = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
      size_t l = strlen(e->d_name);
      if (l < 5 || strcmp(e->d_name + l - 4, ".lay") || e->d_name[0] == '.')
        continue;
      if (count == cap) {
        char **nn = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof *nn);
        if (!nn) break;
        names = nn;
      }
      size_t pl = n + l + 2;
      if (!(names[count] = malloc(pl))) break;
      snprintf(names[count++], pl, "%s/%s", dir, e->d_name);
    }
    closedir(dp);
    if (count) qsort(names, count, sizeof *names, cmp_name);
    for (size_t i = 0; i < count; i++) {
      struct stat sb;
      lay_error err;
      if (!rc && !stat(names[i], &sb) && S_ISREG(sb.st_mode) &&
          lay_ctx_load_file(ctx, names[i], &err)) {
        if (strstr(err.message, "already defined")) {
          cli_print_error(&err);
          rc = -1;
        } else {
          fprintf(stderr, "lay: warning: LAY_PATH file %s skipped, its "
                          "names are not defined:\n", names[i]);
          cli_print_error(&err);
        }
      }
      free(names[i]);
    }
    free(names);
  }
  return rc;
}

static int g_debug_plan;
void cli_set_debug_plan(int on) { g_debug_plan = on; }
int cli_debug_plan_on(void) {
  const char *dbg = getenv("LAY_DEBUG_PLAN");
  return g_debug_plan || (dbg && *dbg && strcmp(dbg, "0"));
}

/* One step of the plan log, as Halide prints its IR after each pass. */
static void print_plan_step(void *user, const char *step, const char *text) {
  (void)user;
  fprintf(stderr, "-- plan after %s --\n%s", step, text);
}

lay_ctx *cli_context_except(const cli_args *a, const char *skip) {
  lay_ctx *ctx = NULL;
  lay_error err;
  if (lay_ctx_new_except(&ctx, skip, &err)) {
    cli_print_error(&err);
    return NULL;
  }
  if (cli_debug_plan_on()) lay_ctx_set_log(ctx, print_plan_step, NULL);
  const char *path = getenv("LAY_PATH");
  if (path && *path && load_lay_path(ctx, path)) {
    lay_ctx_free(ctx);
    return NULL;
  }
  for (int i = 0; i < a->nfiles; i++) {
    if (!strcmp(a->files[i], "-")) { /* -f -: the spec from stdin */
      unsigned char *text = NULL;
      size_t len = 0;
      if ((!a->in || !strcmp(a->in, "-")) && a->cmd &&
          (!strcmp(a->cmd, "pack") || !strcmp(a->cmd, "unpack") ||
           !strcmp(a->cmd, "convert"))) {
        cli_fail("-f - reads the spec from stdin: give the input with -i FILE");
        lay_ctx_free(ctx);
        return NULL;
      }
      if (cli_read_all("-", (size_t)16 << 20, &text, &len) ||
          len == SIZE_MAX || lay_ctx_load_string(ctx, "<stdin>",
                                                 text ? (char *)text : "",
                                                 len, &err)) {
        if (len == SIZE_MAX) cli_fail("-f -: the spec is over 16 MiB");
        else if (text || !len) cli_print_error(&err);
        free(text);
        lay_ctx_free(ctx);
        return NULL;
      }
      free(text);
      continue;
    }
    if (lay_ctx_load_file(ctx, a->files[i], &err)) {
      cli_print_error(&err);
      lay_ctx_free(ctx);
      return NULL;
    }
  }
  return ctx;
}

/* --dtype, LAY_DT_NONE when absent; -1 after printing. */
static int get_dtype(const cli_args *a, lay_dtype *t) {
  *t = LAY_DT_NONE;
  if (!a->dtype) return 0;
  *t = lay_dtype_parse(a->dtype);
  if (*t == LAY_DT_NONE) {
    char hint[256];
    cli_suggest_dtype(a->dtype, hint, sizeof hint);
    cli_fail("unknown --dtype '%s'%s (fp32, fp16, bf16, int8, uint8, int16, "
             "uint16, int32, uint32, int64, uint64, int4, uint4, fp8e4m3, "
             "fp8e5m2 or numpy's names)", a->dtype, hint);
    return -1;
  }
  return 0;
}

static int get_threads(const cli_args *a, int *threads) {
  *threads = 1;
  if (!a->threads) return 0;
  uint64_t v;
  if (cli_u64("--threads", a->threads, &v)) return -1;
  if (v < 1 || v > 1024) {
    cli_fail("bad --threads '%s': expected 1 to 1024", a->threads);
    return -1;
  }
  *threads = (int)v;
  return 0;
}

/* The dimension names of a format reference ("ti.tidl(pad_l=1)": those
** of ti.tidl); the rank, 0 when unknown. */
static int format_dims(lay_ctx *ctx, const char *format,
                       char dims[][32]) {
  char name[128];
  size_t n = strcspn(format, "( ");
  if (n >= sizeof name) return 0;
  memcpy(name, format, n);
  name[n] = '\0';
  lay_def_info info;
  if (lay_ctx_def_info(ctx, name, &info, NULL)) return 0;
  for (int i = 0; i < info.rank; i++) memcpy(dims[i], info.dims[i], 32);
  return info.rank;
}

/* Flat dimension names: a, b, c, ... in order (core.flatN). */
static int is_flat(char dims[][32], int rank) {
  for (int i = 0; i < rank; i++)
    if (dims[i][0] != 'a' + i || dims[i][1]) return 0;
  return 1;
}

/* After a convert whose dimensions do not match by name: the --map that
** pairs them, on stderr. With a flat side (core.flatN) every dimension
** pairs with the one at its position; otherwise the unmatched ones pair
** in order. */
static void map_hint(lay_ctx *ctx, const char *from, const char *to) {
  char a[LAY_MAX_RANK][32], b[LAY_MAX_RANK][32];
  int ra = format_dims(ctx, from, a), rb = format_dims(ctx, to, b);
  if (!ra || ra != rb) return;
  int flat = is_flat(a, ra) || is_flat(b, rb);
  int used_a[LAY_MAX_RANK] = {0}, used_b[LAY_MAX_RANK] = {0};
  if (!flat)
    for (int i = 0; i < ra; i++)
      for (int j = 0; j < rb; j++)
        if (!used_b[j] && !strcmp(a[i], b[j])) used_a[i] = used_b[j] = 1;
  char map[512] = "";
  size_t n = 0;
  for (int j = 0, i = 0; j < rb; j++) {
    if (used_b[j]) continue;
    while (i < ra && used_a[i]) i++;
    if (i == ra) return;
    if (strcmp(a[i], b[j]) && n < sizeof map)
      n += (size_t)snprintf(map + n, sizeof map - n, "%s%s=%s", n ? "," : "",
                            b[j], a[i]);
    used_a[i++] = 1;
  }
  if (n)
    fprintf(stderr, "hint: if they are the same dimensions in another "
                    "naming, say which is which: --map %s\n", map);
}

/* A shape that looks like an image with its channels last (1,224,224,3)
** given to a layout whose channels are not last (n, c, h, w): a note on
** stderr with the shape in the layout's order. The command goes on. */
static void order_note(lay_ctx *ctx, const char *format,
                       const int64_t *shape, int rank) {
  char dims[LAY_MAX_RANK][32];
  int r = format_dims(ctx, format, dims), ic = -1;
  if (r != rank || rank < 3) return;
  for (int i = 0; i < rank; i++)
    if (!strcmp(dims[i], "c")) ic = i;
  if (ic < 0 || ic == rank - 1 || shape[rank - 1] > 4 || shape[ic] < 16)
    return;
  for (int i = ic + 1; i < rank - 1; i++) /* h: an image's rows, too */
    if (shape[i] < 8) return;
  /* The user's order: the layout's with c moved last; shape[k] is the
  ** size of its k-th dimension. */
  int64_t want[LAY_MAX_RANK];
  for (int i = 0, k = 0; i < rank; i++)
    if (i != ic) want[i] = shape[k++];
  want[ic] = shape[rank - 1];
  char got[256] = "", fix[LAY_MAX_RANK * 24];
  size_t n = 0;
  for (int i = 0; i < rank && n < sizeof got; i++)
    n += (size_t)snprintf(got + n, sizeof got - n, "%s%s=%" PRId64,
                          i ? ", " : "", dims[i], shape[i]);
  cli_shape_str(want, rank, fix, sizeof fix);
  for (char *c = fix; *c; c++)
    if (*c == 'x') *c = ',';
  fprintf(stderr, "lay: note: this shape means %s for %s; if the tensor is "
                  "channels last, give --shape %s\n", got, format, fix);
}

/* How a plan of pack, unpack or convert was made, to make it again for a
** slab's shape (move_part). */
typedef struct move_fmt {
  lay_ctx *ctx;
  const cli_args *a;
  lay_dir dir;
  const char *f0, *f1; /* the formats (an inline one defined: in b0, b1) */
  char b0[64], b1[64];
  lay_dtype t;
  int rank;
} move_fmt;

/* The plan of mf for `shape`. */
static lay_plan *move_plan(const move_fmt *mf, const int64_t *shape,
                           lay_error *err) {
  lay_plan *p = NULL;
  if (mf->dir == LAY_CONVERT
          ? lay_plan_convert_map(mf->ctx, mf->f0, mf->f1, mf->a->map, shape,
                                 mf->rank, mf->t, &p, err)
          : lay_plan_create(mf->ctx, mf->f0, shape, mf->rank, mf->t, mf->dir,
                            &p, err))
    return NULL;
  return p;
}

static lay_plan *move_part(void *ud, const int64_t *shape) {
  lay_error err;
  return move_plan(ud, shape, &err);
}

/* A pack plan for FORMAT (pos[0]) on --shape/--dtype; with `dir`. Fills
** shape/rank too, and *mf when not NULL. NULL after printing. */
static lay_plan *make_plan_npy(lay_ctx *ctx, const cli_args *a, lay_dir dir,
                               int64_t *shape, int *rank, const cli_npy_in *npy,
                               move_fmt *mf) {
  lay_dtype t;
  move_fmt local;
  if (!mf) mf = &local;
  /* ---- .npy hook (cli_npy.c): a packed .npy input gives shape and dtype;
  ** a named --shape n=1,c=3,... is checked against the format's names. */
  if (npy && npy->active && dir == LAY_PACK) {
    *rank = cli_npy_plan_shape(ctx, a, npy, shape, &t);
  } else {
    if (get_dtype(a, &t)) return NULL;
    *rank = cli_npy_shape(ctx, a->pos[0], a->shape, shape, LAY_MAX_RANK);
  }
  /* ---- end of the .npy hook */
  if (*rank < 0) return NULL;
  lay_plan *p = NULL;
  lay_error err;
  mf->ctx = ctx;
  mf->a = a;
  mf->dir = dir;
  mf->t = t;
  mf->rank = *rank;
  mf->f0 = cli_inline(ctx, a->pos[0], mf->b0, sizeof mf->b0);
  mf->f1 = dir == LAY_CONVERT ? cli_inline(ctx, a->pos[1], mf->b1, sizeof mf->b1)
                              : NULL;
  if (!mf->f0 || (dir == LAY_CONVERT && !mf->f1)) return NULL;
  p = move_plan(mf, shape, &err);
  lay_status st = p ? LAY_OK : err.code;
  if (st) {
    cli_explain_error(ctx, &err);
    /* A planner error has no position: say which format it concerns. */
    if (!err.file[0] && err.line <= 0) {
      if (dir == LAY_CONVERT)
        cli_fail("%s -> %s: %s", a->pos[0], a->pos[1], err.message);
      else
        cli_fail("%s: %s", a->pos[0], err.message);
    } else {
      cli_print_error(&err);
    }
    if (dir == LAY_CONVERT && st == LAY_E_NAME && !a->map)
      map_hint(ctx, a->pos[0], a->pos[1]);
    return NULL;
  }
  order_note(ctx, a->pos[0], shape, *rank);
  return p;
}

/* After an input of the wrong size: what it may be instead. Another
** dtype (the size is the element count times another element size), the
** other side of the plan (packed bytes given to pack: unpack?), or a .npy
** file whose data after its header has the right size. */
static void size_hint(const cli_args *a, lay_dir dir, const lay_plan *p,
                      size_t inlen) {
  size_t need = lay_plan_src_bytes(p), es = lay_dtype_size(lay_plan_src_dtype(p));
  if (inlen == SIZE_MAX || !es) return;
  size_t elems = need / es;
  if (dir != LAY_CONVERT && inlen == lay_plan_dst_bytes(p) && inlen != need) {
    fprintf(stderr, "hint: that is the size of the %s buffer: did you mean "
                    "lay %s?\n", dir == LAY_PACK ? "packed" : "CPU-side",
            dir == LAY_PACK ? "unpack" : "pack");
    return;
  }
  if (elems && inlen % elems == 0 && !a->dtype) {
    size_t k = inlen / elems;
    char names[128] = "";
    size_t n = 0;
    for (int t = LAY_DT_FP32; t <= LAY_DT_INT32; t++)
      if (lay_dtype_size((lay_dtype)t) == k && n < sizeof names)
        n += (size_t)snprintf(names + n, sizeof names - n, "%s%s",
                              n ? ", " : "", lay_dtype_name((lay_dtype)t));
    if (n) {
      fprintf(stderr, "hint: that is %zu elements of %zu byte%s: give their "
                      "type, --dtype %s\n", elems, k, k == 1 ? "" : "s",
              names);
      return;
    }
  }
  /* A .npy file: "\x93NUMPY", version, then the header's length. */
  unsigned char h[12];
  FILE *f = a->in && strcmp(a->in, "-") ? fopen(a->in, "rb") : NULL;
  size_t got = f ? fread(h, 1, sizeof h, f) : 0;
  if (f) fclose(f);
  if (got == sizeof h && !memcmp(h, "\x93NUMPY", 6)) {
    size_t hl = h[6] == 1 ? 10 + (size_t)(h[8] | h[9] << 8)
                          : 12 + (size_t)((uint32_t)h[8] | (uint32_t)h[9] << 8 |
                                          (uint32_t)h[10] << 16 |
                                          (uint32_t)h[11] << 24);
    if (inlen > hl && inlen - hl == need)
      fprintf(stderr, "hint: %s is a .npy file: its data after the %zu-byte "
                      "header has the size needed (raw bytes: tail -c +%zu "
                      "%s)\n", a->in, hl, hl + 1, a->in);
    else
      fprintf(stderr, "hint: %s is a .npy file (a %zu-byte header, then %zu "
                      "bytes of data); lay reads raw bytes\n", a->in, hl,
              inlen > hl ? inlen - hl : 0);
  }
}

static lay_plan *make_plan(lay_ctx *ctx, const cli_args *a, lay_dir dir,
                           int64_t *shape, int *rank) {
  return make_plan_npy(ctx, a, dir, shape, rank, NULL, NULL);
}

/* ---- pack, unpack, convert ----------------------------------------------- */

static void size_error(const cli_args *a, lay_dir dir, const lay_plan *p,
                       const int64_t *shape, int rank, size_t inlen) {
  char s[LAY_MAX_RANK * 24];
  size_t need = lay_plan_src_bytes(p);
  cli_shape_str(shape, rank, s, sizeof s);
  cli_fail("input is %s%zu bytes, %s on %s %s needs %zu",
           inlen == SIZE_MAX ? "more than " : "", inlen == SIZE_MAX ? need : inlen,
           a->pos[0], s, lay_dtype_name(lay_plan_src_dtype(p)), need);
  size_hint(a, dir, p, inlen);
}

int cli_cmd_move(const cli_args *a) {
  lay_dir dir = !strcmp(a->cmd, "pack")     ? LAY_PACK
                : !strcmp(a->cmd, "unpack") ? LAY_UNPACK
                                            : LAY_CONVERT;
  int threads;
  if (get_threads(a, &threads)) return CLI_FAIL;
  if (cli_binary_tty(a->in, a->out, 1, 1)) return CLI_FAIL;
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int64_t shape[LAY_MAX_RANK];
  int rank = 0, rc = CLI_FAIL;
  cli_npy_in npy; /* .npy hook: -i NAME.npy's header is read before the plan */
  move_fmt mf;
  lay_plan *p = NULL;
  if (cli_npy_input(a, dir, &npy)) goto done;
  p = make_plan_npy(ctx, a, dir, shape, &rank, &npy, &mf);
  if (!p) goto done;
  size_t need = lay_plan_src_bytes(p), outlen = lay_plan_dst_bytes(p);
  if (npy.active && dir != LAY_PACK &&
      cli_npy_check_src(a, &npy, lay_plan_src_dtype(p)))
    goto done;
  /* The size is checked before any output exists when it is known. */
  size_t inlen = npy.active ? npy.h.data_len : cli_input_size(a->in);
  if (inlen != SIZE_MAX - 1 && inlen != need) {
    size_error(a, dir, p, shape, rank, inlen);
    goto done;
  }
  char head[512]; /* .npy hook: unpack writes the CPU tensor, the others bytes */
  size_t hn = 0;
  if (cli_npy_output(a)) {
    int64_t flat[1] = {(int64_t)outlen};
    hn = dir == LAY_UNPACK
             ? cli_npy_header(shape, rank, lay_plan_dst_dtype(p), head, sizeof head)
             : cli_npy_header(flat, 1, LAY_DT_UINT8, head, sizeof head);
    if (!hn) {
      cli_fail("cannot write the .npy header of the output");
      goto done;
    }
  }
  cli_move m = {p, shape, rank, move_part, &mf, threads, a->in,
                npy.active ? npy.h.data_off : 0, a->out, head, hn, a->cmd};
  size_t got = 0;
  int r = cli_move_run(&m, &got);
  if (r == -2) size_error(a, dir, p, shape, rank, got);
  if (!r) rc = CLI_OK;
done:
  free(npy.file);
  lay_plan_free(p);
  lay_ctx_free(ctx);
  return rc;
}

/* ---- show, info -------------------------------------------------------------- */

int cli_cmd_show(const cli_args *a) {
  uint64_t limit = SHOW_LIMIT;
  if (a->limit && cli_u64("--limit", a->limit, &limit)) return CLI_FAIL;
  if (limit > SIZE_MAX) limit = SIZE_MAX;
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int64_t shape[LAY_MAX_RANK];
  int rank, rc = CLI_FAIL;
  lay_plan *p = make_plan(ctx, a, LAY_PACK, shape, &rank);
  if (p) {
    if (cli_show_plan(stdout, p, (size_t)limit, cli_color_enabled(stdout)) < 0)
      cli_fail("cannot list the memory order of %s (out of memory)",
               a->pos[0]);
    else
      rc = fflush(stdout) ? CLI_FAIL : CLI_OK;
  }
  lay_plan_free(p);
  lay_ctx_free(ctx);
  return rc;
}

static void json_text(const char *s) { cli_json_str(stdout, s, strlen(s)); }

/* info --json: the same facts as an object. */
static int info_json(const cli_args *a, const lay_plan *p,
                     const int64_t *shape, int rank, int conv) {
  printf("{\"format\": ");
  json_text(a->pos[0]);
  if (conv) {
    printf(", \"to\": ");
    json_text(a->pos[1]);
  }
  printf(", \"cpu_shape\": [");
  for (int i = 0; i < rank; i++) printf("%s%" PRId64, i ? ", " : "", shape[i]);
  printf("], \"dtype\": \"%s\", \"cpu_bytes\": %zu, \"layout\": [",
         lay_dtype_name(lay_plan_src_dtype(p)), lay_plan_src_bytes(p));
  int64_t hw[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int naxes = lay_plan_hw_shape(p, hw, names, LAY_MAX_AXES);
  if (naxes > LAY_MAX_AXES) naxes = LAY_MAX_AXES;
  for (int i = 0; i < naxes; i++) {
    printf("%s{\"axis\": ", i ? ", " : "");
    json_text(names[i] ? names[i] : "?");
    printf(", \"extent\": %" PRId64 "}", hw[i]);
  }
  printf("], \"stored_dtype\": \"%s\", \"bytes\": %zu, \"planes\": [",
         lay_dtype_name(lay_plan_dst_dtype(p)), lay_plan_dst_bytes(p));
  for (int i = 0; i < lay_plan_plane_count(p); i++) {
    const char *pn = lay_plan_plane_name(p, i);
    printf("%s", i ? ", " : "");
    json_text(pn ? pn : "?");
  }
  printf("], \"plan\": ");
  char *d = lay_plan_describe(p);
  json_text(d ? d : "");
  lay_free(d);
  printf("}\n");
  return fflush(stdout) ? CLI_FAIL : CLI_OK;
}

int cli_cmd_info(const cli_args *a) {
  /* Without a shape there is no plan: what lay knows of the name. */
  if (!a->shape && a->npos == 1) return cli_cmd_describe(a);
  if (!a->shape) return cli_usage("info: missing --shape");
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int64_t shape[LAY_MAX_RANK];
  int rank, conv = a->npos == 2; /* info FROM TO: the convert plan */
  lay_plan *p = make_plan(ctx, a, conv ? LAY_CONVERT : LAY_PACK, shape, &rank);
  if (!p) {
    lay_ctx_free(ctx);
    return CLI_FAIL;
  }
  if (a->json) {
    int rc = info_json(a, p, shape, rank, conv);
    lay_plan_free(p);
    lay_ctx_free(ctx);
    return rc;
  }
  char s[LAY_MAX_RANK * 24];
  cli_shape_str(shape, rank, s, sizeof s);
  if (conv) {
    printf("convert:   %s -> %s\n", a->pos[0], a->pos[1]);
    printf("source:    %s on %s, %s, %zu bytes\n", a->pos[0], s,
           lay_dtype_name(lay_plan_src_dtype(p)), lay_plan_src_bytes(p));
  } else {
    printf("format:    %s\n", a->pos[0]);
    printf("cpu side:  %s %s, %zu bytes\n", s,
           lay_dtype_name(lay_plan_src_dtype(p)), lay_plan_src_bytes(p));
  }
  int64_t hw[LAY_MAX_AXES];
  const char *names[LAY_MAX_AXES];
  int naxes = lay_plan_hw_shape(p, hw, names, LAY_MAX_AXES);
  if (naxes > LAY_MAX_AXES) naxes = LAY_MAX_AXES;
  printf(conv ? "target:    [" : "layout:    [");
  for (int i = 0; i < naxes; i++)
    printf("%s%s=%" PRId64, i ? ", " : "", names[i] ? names[i] : "?", hw[i]);
  printf("] %s, %zu bytes\n", lay_dtype_name(lay_plan_dst_dtype(p)),
         lay_plan_dst_bytes(p));
  int np = lay_plan_plane_count(p);
  if (np > 0) {
    printf("planes:   ");
    for (int i = 0; i < np; i++)
      printf(" %s", lay_plan_plane_name(p, i) ? lay_plan_plane_name(p, i) : "?");
    printf("\n");
  }
  /* The plan in the planner's words, several lines. */
  char *d = lay_plan_describe(p);
  if (d) {
    size_t n = strlen(d);
    printf("%s%s", d, n && d[n - 1] == '\n' ? "" : "\n");
    lay_free(d);
  }
  int rc = fflush(stdout) ? CLI_FAIL : CLI_OK;
  lay_plan_free(p);
  lay_ctx_free(ctx);
  return rc;
}

/* ---- where, at ------------------------------------------------------------------ */

/* The offsets of every byte plane of the element at `c`, planes[0] being
** lay_plan_where's: the planes are an axis of the layout (`byte`) whose
** stride is found among the hardware axes of extent nplanes and checked
** with lay_plan_at. The count found (1 when the layout has no planes). */
static int plane_offsets(const lay_plan *p, const int64_t *c, int rank,
                         uint64_t first, uint64_t *off) {
  int np = lay_plan_plane_count(p);
  off[0] = first;
  if (np < 2) return 1;
  int64_t ext[LAY_MAX_AXES];
  int nax = lay_plan_hw_shape(p, ext, NULL, LAY_MAX_AXES);
  if (nax > LAY_MAX_AXES) nax = LAY_MAX_AXES;
  for (int k = nax - 1; k >= 0; k--) {
    if (ext[k] != np) continue;
    uint64_t stride = 1;
    for (int j = k + 1; j < nax; j++) stride *= (uint64_t)ext[j];
    int ok = 1;
    for (int q = 1; q < np && ok; q++) {
      int64_t got[LAY_MAX_RANK];
      int pad = 0, plane = -1;
      off[q] = first + (uint64_t)q * stride;
      ok = !lay_plan_at(p, off[q], got, LAY_MAX_RANK, &pad, &plane, NULL) &&
           !pad && plane == q && !memcmp(got, c, (size_t)rank * sizeof *c);
    }
    if (ok) return np;
  }
  return 1;
}

static void json_coord(const int64_t *c, int n) {
  printf("[");
  for (int i = 0; i < n; i++) printf("%s%" PRId64, i ? ", " : "", c[i]);
  printf("]");
}

int cli_cmd_where(const cli_args *a) {
  int64_t c[LAY_MAX_RANK];
  int n = cli_coord("--at", a->at, c, LAY_MAX_RANK);
  if (n < 0) return CLI_FAIL;
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int64_t shape[LAY_MAX_RANK];
  int rank, rc = CLI_FAIL;
  lay_plan *p = make_plan(ctx, a, LAY_PACK, shape, &rank);
  if (p) {
    uint64_t off[LAY_MAX_AXES];
    lay_error err;
    if (a->elements) { /* --elements: the element index (types20) */
      if (lay_plan_where_element(p, c, n, &off[0], &err)) {
        cli_print_error(&err);
      } else if (a->json) {
        printf("{\"coord\": ");
        json_coord(c, n);
        printf(", \"element\": %" PRIu64 "}\n", off[0]);
        rc = CLI_OK;
      } else {
        printf("%" PRIu64 "\n", off[0]);
        rc = CLI_OK;
      }
    } else if (lay_plan_where(p, c, n, &off[0], &err)) {
      cli_print_error(&err);
    } else {
      /* Byte planes: each plane's offset, "1 (plane lo), 17 (plane hi)". */
      int np = plane_offsets(p, c, n, off[0], off);
      if (a->json) {
        printf("{\"coord\": ");
        json_coord(c, n);
        printf(", \"offset\": %" PRIu64 ", \"planes\": [", off[0]);
        for (int i = 0; i < np && np > 1; i++) {
          const char *pn = lay_plan_plane_name(p, i);
          printf("%s{\"name\": ", i ? ", " : "");
          cli_json_str(stdout, pn ? pn : "?", strlen(pn ? pn : "?"));
          printf(", \"offset\": %" PRIu64 "}", off[i]);
        }
        printf("]}\n");
      } else if (np > 1) {
        for (int i = 0; i < np; i++) {
          const char *pn = lay_plan_plane_name(p, i);
          printf("%s%" PRIu64 " (plane %s)", i ? ", " : "", off[i],
                 pn ? pn : "?");
        }
        printf("\n");
      } else {
        printf("%" PRIu64 "\n", off[0]);
      }
      rc = CLI_OK;
    }
  }
  lay_plan_free(p);
  lay_ctx_free(ctx);
  return rc;
}

int cli_cmd_at(const cli_args *a) {
  uint64_t off;
  if (cli_u64("--offset", a->offset, &off)) return CLI_FAIL;
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int64_t shape[LAY_MAX_RANK];
  int rank, rc = CLI_FAIL;
  lay_plan *p = make_plan(ctx, a, LAY_PACK, shape, &rank);
  if (p) {
    int64_t c[LAY_MAX_RANK];
    int is_pad = 0, plane = 0;
    lay_error err;
    /* The byte of a multi-byte element: "byte 1 of 2" (little-endian). */
    size_t es = lay_dtype_size(lay_plan_dst_dtype(p));
    const char *pn;
    /* --elements: off is an element index, which names no byte of it */
    if (a->elements) es = 1;
    if (a->elements
            ? lay_plan_at_element(p, off, c, LAY_MAX_RANK, &is_pad, &plane,
                                  &err)
            : lay_plan_at(p, off, c, LAY_MAX_RANK, &is_pad, &plane, &err)) {
      cli_print_error(&err);
    } else if (a->json) {
      pn = lay_plan_plane_count(p) > 0 ? lay_plan_plane_name(p, plane) : NULL;
      printf("{\"%s\": %" PRIu64 ", \"kind\": \"%s\"",
             a->elements ? "element" : "offset", off,
             is_pad == 2 ? "hole" : is_pad ? "pad" : "data");
      if (is_pad != 2) {
        printf(", \"coord\": ");
        json_coord(c, rank);
      }
      if (pn && is_pad != 2) {
        printf(", \"plane\": ");
        cli_json_str(stdout, pn, strlen(pn));
      }
      printf(", \"byte\": %zu, \"element_bytes\": %zu}\n",
             es > 1 ? (size_t)(off % es) : 0, es ? es : 1);
      rc = CLI_OK;
    } else {
      if (is_pad == 2) {
        printf("hole");
      } else {
        printf("%s(", is_pad ? "pad " : "");
        for (int i = 0; i < rank; i++)
          printf("%s%" PRId64, i ? "," : "", c[i]);
        printf(")");
      }
      pn = lay_plan_plane_name(p, plane);
      if (lay_plan_plane_count(p) > 0 && is_pad != 2)
        printf(" plane %s", pn ? pn : "?");
      if (es > 1) printf(" byte %zu of %zu", (size_t)(off % es), es);
      printf("\n");
      rc = CLI_OK;
    }
  }
  lay_plan_free(p);
  lay_ctx_free(ctx);
  return rc;
}

/* ---- check, test ---------------------------------------------------------- */

/* "stdlib/NAME.lay" when `path` is a file NAME.lay in a folder named
** stdlib whose name an embedded stdlib file has; NULL otherwise. */
static const char *stdlib_twin(const char *path) {
  const char *base = strrchr(path, '/');
  if (!base || base - path < 6 || strncmp(base - 6, "stdlib", 6) ||
      (base - path > 6 && base[-7] != '/'))
    return NULL;
  const char *f;
  for (size_t i = 0; (f = lay_stdlib_file(i)) != NULL; i++)
    if (!strncmp(f, "stdlib/", 7) && !strcmp(f + 7, base + 1)) return f;
  return NULL;
}

/* Print one problem of `lay check`: positioned with its source line and
** caret when it has a position, else "FILE: error: message". */
static void check_problem(void *ud, const lay_error *err) {
  char buf[2048];
  if (err->line > 0) {
    lay_error_format(err, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
  } else {
    fprintf(stderr, "%s: error: %s\n", (const char *)ud, err->message);
  }
}

int cli_cmd_check(const cli_args *a) {
  int rc = CLI_OK;
  for (int i = 0; i < a->npos; i++) {
    /* Each file is checked on its own, against the stdlib and -f files:
    ** its definitions (every failing one is reported), then, when it
    ** loaded, its test blocks, without running them. */
    lay_ctx *ctx = cli_context_except(a, stdlib_twin(a->pos[i]));
    if (!ctx) return CLI_FAIL;
    if (lay_ctx_check_file(ctx, a->pos[i], check_problem,
                           (void *)a->pos[i]) > 0) {
      rc = CLI_FAIL;
    } else if (lay_tool_test_check(ctx, a->pos[i], check_problem,
                             (void *)a->pos[i]) > 0) {
      rc = CLI_FAIL;
    } else {
      printf("%s: ok\n", a->pos[i]);
    }
    lay_ctx_free(ctx);
  }
  if (fflush(stdout)) rc = CLI_FAIL;
  return rc;
}

static void test_line(void *ud, const char *line) {
  (void)ud;
  printf("%s\n", line);
}

int cli_cmd_test(const cli_args *a) {
  lay_ctx *ctx = cli_context(a);
  if (!ctx) return CLI_FAIL;
  int passed = 0, failed = 0;
  /* The runner's last line is the count: "N passed, M failed". */
  int rc = lay_tool_test_files(ctx, (char **)a->pos, a->npos, test_line, NULL,
                         &passed, &failed);
  lay_ctx_free(ctx);
  if (fflush(stdout)) return CLI_FAIL;
  return rc ? CLI_FAIL : CLI_OK;
}
