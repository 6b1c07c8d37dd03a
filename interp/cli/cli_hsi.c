/*
** cli_hsi.c: `lay hsi`, `lay export` and `lay pack/unpack --hsi` (see
** cli_hsi.h). The report is read with lay.h's lay_hsi_* (interp/vendor/),
** its entries are compiled as lay specs into namespace "hsi" of a
** context, and then run
** with the ordinary plans of lay.h. JSON errors are printed on one line:
**   lay: report.json:3:12: malformed JSON
**   lay: report.json: inputs[0].rt_transformations[2].perm: ...
*/
#define _POSIX_C_SOURCE 200809L

#include "cli_hsi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli_lay.h"

#define NS "hsi" /* the namespace the report's definitions go into */

/* Read and parse the report; NULL after printing. A file over the size
** limit is not read at all, and fails as lay_hsi_parse would fail it. */
static lay_hsi *read_report(const char *path) {
  unsigned char *buf;
  size_t len;
  lay_error err;
  if (cli_read_all(path, LAY_HSI_MAX_JSON, &buf, &len)) return NULL;
  lay_hsi *h = NULL;
  if (lay_hsi_parse((const char *)buf, len, path, &h, &err)) cli_error_line(&err);
  free(buf);
  return h;
}

/* A library error while planning or running entry idx of the report:
** "lay: FILE: inputs[0]: message". */
static void entry_err(const char *file, int output, int idx,
                      const lay_error *e) {
  cli_fail("%s: %s[%d]: %s", file, output ? "outputs" : "inputs", idx,
           e->message);
}

static void shape_str(char *b, size_t cap, const int64_t *v, int n) {
  size_t k = (size_t)snprintf(b, cap, "[");
  for (int i = 0; i < n && k < cap; i++)
    k += (size_t)snprintf(b + k, cap - k, "%s%lld", i ? "," : "",
                          (long long)v[i]);
  if (k < cap) snprintf(b + k, cap - k, "]");
}

/* ---- lay hsi FILE [--check] [--json] --------------------------------------- */

static void json_s(const char *s) {
  if (s) cli_json_str(stdout, s, strlen(s));
  else printf("null");
}

static void json_ints(const int64_t *v, int n) {
  printf("[");
  for (int i = 0; i < n; i++) printf("%s%lld", i ? ", " : "", (long long)v[i]);
  printf("]");
}

/* --json: one object, {"file": F, "check": B, "entries": [...],
** "inconsistent": N}; an entry (its "layout" the name it is loaded as, or
** null when an issue left it out) is {"side", "index", "name", "tensor_name",
** "layout", "spec", "annotation_spec", "cpu_shape", "cpu_dtype", "hw_shape", "hw_dtype",
** "frames", "ok", "cpu_bytes", "npu_bytes", "issues": [{"fatal", "text"}]}
** (the byte counts null when the entry cannot run). The issues are those
** of lay_hsi_check with --check, else those found while reading. Returns
** the count of unusable entries, or -1 after printing an error. */
static int hsi_json(const char *file, const lay_hsi *h, lay_ctx *ctx,
                    int check, const lay_hsi_issue *v, int n) {
  int bad = 0, first = 1;
  printf("{\"file\": ");
  json_s(file);
  printf(", \"check\": %s, \"entries\": [", check ? "true" : "false");
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < lay_hsi_count(h, o); i++) {
      lay_hsi_info inf;
      lay_hsi_info_get(h, o, i, &inf);
      int fatal = !check && lay_hsi_entry_issue(h, o, i) != NULL;
      for (int k = 0; check && k < n; k++)
        fatal |= v[k].output == o && v[k].index == i && v[k].fatal;
      lay_plan *p = NULL;
      char ref[64];
      snprintf(ref, sizeof ref, NS ".%s", inf.def);
      lay_error err;
      if (!fatal && lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank,
                                    inf.cpu_dtype, LAY_PACK, &p, &err)) {
        fflush(stdout);
        entry_err(file, o, i, &err);
        return -1;
      }
      bad += fatal;
      printf("%s\n  {\"side\": \"%s\", \"index\": %d, \"name\": ",
             first ? "" : ",", o ? "outputs" : "inputs", i);
      first = 0;
      json_s(inf.name);
      printf(", \"tensor_name\": ");
      json_s(inf.tensor_name);
      printf(", \"layout\": ");
      json_s(inf.spec && !lay_hsi_entry_issue(h, o, i) ? ref : NULL);
      printf(", \"spec\": ");
      json_s(inf.spec);
      printf(", \"annotation_spec\": ");
      json_s(inf.ann_spec);
      printf(", \"cpu_shape\": ");
      json_ints(inf.cpu_shape, inf.rank);
      printf(", \"cpu_dtype\": ");
      json_s(lay_dtype_name(inf.cpu_dtype));
      printf(", \"hw_shape\": ");
      json_ints(inf.hw_shape, inf.hw_rank);
      printf(", \"hw_dtype\": ");
      json_s(lay_dtype_name(inf.hw_dtype));
      printf(", \"frames\": %lld, \"ok\": %s", (long long)inf.frames,
             fatal ? "false" : "true");
      if (p)
        printf(", \"cpu_bytes\": %zu, \"npu_bytes\": %zu",
               lay_plan_src_bytes(p), lay_plan_dst_bytes(p));
      else printf(", \"cpu_bytes\": null, \"npu_bytes\": null");
      lay_plan_free(p);
      printf(", \"issues\": [");
      int m = check ? n : lay_hsi_issue_count(h), shown = 0;
      for (int k = 0; k < m; k++) {
        const lay_hsi_issue *is = check ? &v[k] : lay_hsi_issue_get(h, k);
        if (!is || is->output != o || is->index != i) continue;
        printf("%s{\"fatal\": %s, \"text\": ", shown++ ? ", " : "",
               is->fatal ? "true" : "false");
        json_s(is->text);
        printf("}");
      }
      printf("]}");
    }
  printf("%s], \"inconsistent\": %d}\n", first ? "" : "\n", bad);
  return bad;
}

int cli_hsi(int argc, char **argv) {
  const char *file;
  /* --json is taken out here; the rest as lay tidl's arguments. */
  char *args[64];
  int nargs = 0, json = 0;
  for (int i = 0; i < argc; i++) {
    if (i && !strcmp(argv[i], "--json")) json = 1;
    else if (nargs == 64) return cli_usage("hsi: too many arguments");
    else args[nargs++] = argv[i];
  }
  int check, urc = cli_file_check_args("hsi", "flexmlrt-hsi.json file", nargs,
                                       args, &file, &check);
  if (urc) return urc;
  lay_error err;
  char *path = lay_hsi_locate(file, &err); /* a compile cache folder too */
  if (!path) {
    cli_print_error(&err);
    return CLI_FAIL;
  }
  file = path;
  lay_hsi *h = read_report(file);
  lay_ctx *ctx = NULL;
  int rc = CLI_FAIL;
  if (!h) goto done;
  if (lay_ctx_new(&ctx, &err) || lay_hsi_load(h, ctx, NS, &err)) {
    cli_print_error(&err);
    goto done;
  }
  if (json) {
    lay_hsi_issue *v = NULL;
    int n = 0, nfatal = 0;
    if (check && (nfatal = lay_hsi_check(h, ctx, NS, &v, &n, &err)) < 0) {
      cli_print_error(&err);
      goto done;
    }
    int bad = hsi_json(file, h, ctx, check, v, n);
    free(v);
    if (fflush(stdout) || bad < 0) goto done;
    /* The same last line as without --json. */
    if (check && nfatal)
      fprintf(stderr, "lay: %s: %d inconsistenc%s\n", file, nfatal,
              nfatal == 1 ? "y" : "ies");
    else if (bad)
      fprintf(stderr,
              "lay: %s: %d entr%s inconsistent; see 'lay hsi %s --check'\n",
              file, bad, bad == 1 ? "y is" : "ies are", file);
    rc = bad || nfatal ? CLI_FAIL : CLI_OK;
    goto done;
  }
  if (check) {
    lay_hsi_issue *v = NULL;
    int n = 0;
    int bad = lay_hsi_check(h, ctx, NS, &v, &n, &err);
    if (bad < 0) {
      cli_print_error(&err);
      goto done;
    }
    for (int o = 0; o < 2; o++)
      for (int i = 0; i < lay_hsi_count(h, o); i++) {
        int fatal = 0;
        for (int k = 0; k < n; k++)
          if (v[k].output == o && v[k].index == i) {
            printf("%s: %s\n", v[k].fatal ? "inconsistent" : "note",
                   v[k].text);
            fatal |= v[k].fatal;
          }
        if (!fatal) {
          lay_hsi_info inf;
          char a[200], b[200];
          lay_hsi_info_get(h, o, i, &inf);
          shape_str(a, sizeof a, inf.cpu_shape, inf.rank);
          shape_str(b, sizeof b, inf.hw_shape, inf.hw_rank);
          printf("%s[%d]: ok: cpu %s %s -> hw %s %s\n",
                 o ? "outputs" : "inputs", i, lay_dtype_name(inf.cpu_dtype),
                 a, lay_dtype_name(inf.hw_dtype), b);
        }
      }
    free(v);
    fflush(stdout);
    if (bad) {
      fprintf(stderr, "lay: %s: %d inconsistenc%s\n", file, bad,
              bad == 1 ? "y" : "ies");
      goto done;
    }
    rc = CLI_OK;
    goto done;
  }
  /* Print every entry as a spec, with its buffer sizes. */
  char *head = lay_hsi_spec_header(h, NS);
  if (!head) goto oom;
  fputs(head, stdout);
  free(head);
  int bad = 0;
  for (int o = 0; o < 2; o++)
    for (int i = 0; i < lay_hsi_count(h, o); i++) {
      char *text = lay_hsi_spec_entry(h, o, i);
      if (!text) goto oom;
      fputs(text, stdout);
      free(text);
      const lay_hsi_issue *is = lay_hsi_entry_issue(h, o, i);
      if (is) {
        printf("# inconsistent: %s\n", is->text);
        bad++;
        continue;
      }
      lay_hsi_info inf;
      lay_hsi_info_get(h, o, i, &inf);
      char ref[64];
      snprintf(ref, sizeof ref, NS ".%s", inf.def);
      lay_plan *p = NULL;
      if (lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank, inf.cpu_dtype,
                          LAY_PACK, &p, &err)) {
        fflush(stdout);
        entry_err(file, o, i, &err);
        goto done;
      }
      printf("# buffers: cpu %zu bytes (%s), npu %zu bytes (%s)\n",
             lay_plan_src_bytes(p), lay_dtype_name(lay_plan_src_dtype(p)),
             lay_plan_dst_bytes(p), lay_dtype_name(lay_plan_dst_dtype(p)));
      if (inf.frames > 1)
        printf("# frames: %lld, one npu buffer each (pack --frame K)\n",
               (long long)inf.frames);
      lay_plan_free(p);
    }
  fflush(stdout);
  if (bad) {
    fprintf(stderr,
            "lay: %s: %d entr%s inconsistent; see 'lay hsi %s --check'\n",
            file, bad, bad == 1 ? "y is" : "ies are", file);
    goto done;
  }
  rc = CLI_OK;
  goto done;
oom:
  cli_fail("out of memory");
done:
  lay_ctx_free(ctx);
  lay_hsi_free(h);
  free(path);
  return rc;
}

/* ---- lay export FORMAT --shape S ... --------------------------------------- */

/* --quantize SCALE,ZP[,TYPE] into q (TYPE int8 by default); -1 after
** printing. */
static int parse_quantize(const char *s, lay_hsi_quant *q) {
  char *e = NULL;
  errno = 0;
  q->to = LAY_DT_INT8;
  q->scale = strtod(s, &e);
  int ok = !errno && e != s && *e == ',';
  if (ok) {
    const char *z = e + 1;
    q->zero_point = strtod(z, &e);
    ok = !errno && e != z && (!*e || *e == ',');
  }
  if (ok && *e == ',') ok = (q->to = lay_dtype_parse(e + 1)) != LAY_DT_NONE;
  if (!ok) {
    cli_fail("bad --quantize '%s': expected SCALE,ZERO_POINT[,TYPE]", s);
    return -1;
  }
  return 0;
}

int cli_export(lay_ctx *ctx, int argc, char **argv) {
  const char *format = NULL, *shape_s = NULL, *dtype_s = NULL, *quant = NULL,
             *as = NULL, *out = NULL, *file = NULL;
  const char *files[64];
  int nfiles = 0, opts = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (opts && !strcmp(a, "--")) {
      opts = 0;
      continue;
    }
    /* --opt VALUE or --opt=VALUE */
    const char *eq = opts && !strncmp(a, "--", 2) ? strchr(a, '=') : NULL;
    size_t an = eq ? (size_t)(eq - a) : strlen(a);
    static const char *const names[] = {"--shape", "--dtype", "--quantize",
                                        "--as",    "-o",      "--out",
                                        "-f"};
    const char **slots[] = {&shape_s, &dtype_s, &quant, &as,
                            &out,     &out,     &file};
    const char **slot = NULL;
    for (int k = 0; opts && k < 7; k++)
      if (strlen(names[k]) == an && !strncmp(a, names[k], an))
        slot = slots[k];
    if (slot) {
      if (eq) *slot = eq + 1;
      else if (i + 1 >= argc)
        return cli_usage("export: option '%s' needs a value", a);
      else *slot = argv[++i];
      if (slot == &file) {
        if (nfiles == 64) return cli_usage("export: more than 64 -f files");
        files[nfiles++] = file;
      }
    } else if (opts && a[0] == '-' && a[1]) {
      return cli_usage("export: unknown option '%s'", a);
    } else if (format) {
      return cli_usage("export: one format at a time ('%s' and '%s')",
                       format, a);
    } else {
      format = a;
    }
  }
  if (!format) return cli_usage("export: which format (amd.hcwnc8, ...)?");
  if (!shape_s) return cli_usage("export: --shape is required");
  int64_t shape[LAY_MAX_RANK];
  int rank = cli_shape(shape_s, shape, LAY_MAX_RANK);
  if (rank < 0) return CLI_FAIL;
  lay_dtype dt = LAY_DT_NONE;
  if (dtype_s && (dt = lay_dtype_parse(dtype_s)) == LAY_DT_NONE) {
    cli_fail("unknown --dtype '%s'", dtype_s);
    return CLI_FAIL;
  }
  int as_output = 0;
  if (as) {
    if (!strcmp(as, "output")) as_output = 1;
    else if (strcmp(as, "input"))
      return cli_usage("export: --as takes input or output, not '%s'", as);
  }
  lay_hsi_quant q;
  if (quant && parse_quantize(quant, &q)) return CLI_FAIL;
  /* The layouts: the caller's context (stdlib, LAY_PATH, -f before the
  ** command word) and the -f files given after it. */
  lay_error err;
  for (int i = 0; i < nfiles; i++)
    if (lay_ctx_load_file(ctx, files[i], &err)) {
      cli_print_error(&err);
      return CLI_FAIL;
    }
  char *text = lay_hsi_export(ctx, format, shape, rank, dt, quant ? &q : NULL,
                             as_output, &err);
  int rc = CLI_FAIL;
  if (!text) cli_print_error(&err);
  else if (!cli_write_all(out, text, strlen(text))) rc = CLI_OK;
  free(text);
  return rc;
}

/* ---- lay pack/unpack --hsi FILE --input/--output K ------------------------- */

/* One entry to run: which, the frame (-1: all, one after another). */
typedef struct job {
  int pack, output, idx;
  int64_t frame;
  const char *file; /* the report, for messages */
} job;

/* A .npy file's data (version 1-3, C order, the dtype of the entry) in
** place: *data and *n point into buf. 0, or -1 after printing. Only what
** numpy.save writes: '{'descr': '<f4', 'fortran_order': False, ...}'. */
static int npy_data(const char *path, unsigned char *buf, size_t len,
                    lay_dtype dt, unsigned char **data, size_t *n) {
  if (len < 10 || memcmp(buf, "\x93NUMPY", 6)) return 1; /* not .npy */
  size_t hl = buf[6] == 1 ? (size_t)buf[8] | (size_t)buf[9] << 8
              : len >= 12 ? (size_t)buf[8] | (size_t)buf[9] << 8 |
                                (size_t)buf[10] << 16 | (size_t)buf[11] << 24
                          : SIZE_MAX;
  size_t off = buf[6] == 1 ? 10 : 12;
  if (hl > len - off) {
    cli_fail("%s: a truncated .npy header", path);
    return -1;
  }
  char head[512];
  size_t k = hl < sizeof head - 1 ? hl : sizeof head - 1;
  memcpy(head, buf + off, k);
  head[k] = '\0';
  const char *d = strstr(head, "'descr':");
  char descr[16] = "";
  if (d) sscanf(d + 8, " '%15[^']'", descr);
  if (strstr(head, "'fortran_order': True")) {
    cli_fail("%s: a Fortran-order .npy; save it in C order", path);
    return -1;
  }
  lay_dtype got = lay_dtype_parse(descr);
  if (got != dt && !(dt == LAY_DT_BF16 && !strcmp(descr, "<u2"))) {
    cli_fail("%s: dtype '%s', the entry needs %s", path, descr,
             lay_dtype_name(dt));
    return -1;
  }
  *data = buf + off + hl;
  *n = len - off - hl;
  return 0;
}

/* n bytes at offset off of fd (fewer only at its end); SIZE_MAX on error. */
static size_t pread_all(int fd, unsigned char *p, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, p + got, n - got, (off_t)(off + got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return SIZE_MAX;
    if (r == 0) break;
    got += (size_t)r;
  }
  return got;
}

/* The .npy header of a regular file (tot bytes from offset base of fd),
** read alone: *off its length (0 when the file is no .npy). 0, or -1
** after printing (npy_data's messages). */
static int npy_skip(const char *name, int fd, uint64_t base, size_t tot,
                    lay_dtype dt, size_t *off) {
  unsigned char h[12], *buf = NULL, *data;
  size_t k = tot < 12 ? tot : 12, n, want = k;
  *off = 0;
  errno = 0;
  if (pread_all(fd, h, k, base) != k) goto fail;
  if (k >= 10 && !memcmp(h, "\x93NUMPY", 6)) {
    size_t o = h[6] == 1 ? 10 : 12,
           hl = h[6] == 1 ? (size_t)h[8] | (size_t)h[9] << 8
                : k >= 12 ? (size_t)h[8] | (size_t)h[9] << 8 |
                                (size_t)h[10] << 16 | (size_t)h[11] << 24
                          : SIZE_MAX;
    /* a truncated one fails in npy_data */
    want = o <= tot && hl <= tot - o ? o + hl : tot;
  }
  if (!(buf = malloc(want ? want : 1))) {
    cli_fail("out of memory");
    return -1;
  }
  if (pread_all(fd, buf, want, base) != want) goto fail;
  int r = npy_data(name, buf, want, dt, &data, &n);
  if (!r) *off = (size_t)(data - buf);
  free(buf);
  return r < 0 ? -1 : 0;
fail:
  cli_fail("cannot read '%s': %s", name,
           errno ? strerror(errno) : "it ended early");
  free(buf);
  return -1;
}

/* The input when it is a regular file (stdin too, from where it is):
** *fd (to close unless stdin), *base the offset of its data's first
** byte, *tot its bytes from there; 1 when it is no regular file (a
** stream), 0, or -1 after printing. */
static int open_regular(const char *in_path, int *fd, uint64_t *base,
                        size_t *tot) {
  *tot = cli_input_size(in_path);
  if (*tot == SIZE_MAX - 1) return 1;
  int use_stdin = !in_path || !strcmp(in_path, "-");
  *fd = use_stdin ? STDIN_FILENO : open(in_path, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) {
    cli_fail("cannot read '%s': %s", in_path, strerror(errno));
    return -1;
  }
  off_t at = use_stdin ? lseek(STDIN_FILENO, 0, SEEK_CUR) : 0;
  *base = at > 0 ? (uint64_t)at : 0;
  return 0;
}

/* The size message: "input is N bytes; inputs[0] needs M (fp32 [1,3,8,8])". */
static void size_err(const job *j, const lay_hsi_info *inf, size_t n,
                     size_t need, size_t s1) {
  char sh[200];
  if (j->pack) shape_str(sh, sizeof sh, inf->cpu_shape, inf->rank);
  else shape_str(sh, sizeof sh, inf->hw_shape, inf->hw_rank);
  cli_fail("input is %s%zu bytes; %s[%d] needs %zu (%s %s%s)",
           n == SIZE_MAX ? "more than " : "", n == SIZE_MAX ? need : n,
           j->output ? "outputs" : "inputs", j->idx, need,
           lay_dtype_name(j->pack ? inf->cpu_dtype : inf->hw_dtype), sh,
           need != s1 ? " per frame" : "");
}

/* A stream (a pipe on stdin): read whole, as it cannot be mapped, nor
** its first bytes looked at for an .npy header and then read again by
** cli_move_frames; the frames run one after another into one buffer. */
static int run_stream(const job *j, const lay_hsi_info *inf, lay_plan *p,
                      const char *in_path, const char *out_path) {
  size_t s1 = lay_plan_src_bytes(p), d1 = lay_plan_dst_bytes(p);
  int64_t nf = j->frame >= 0 ? 1 : inf->frames;
  size_t need = j->pack ? s1 * (size_t)inf->frames : s1 * (size_t)nf;
  size_t outn = d1 * (size_t)nf, len, n;
  unsigned char *src = NULL, *dst = NULL, *data;
  lay_error err;
  int rc = CLI_FAIL;
  if (cli_read_all(in_path, need + 4096, &src, &len)) goto done;
  data = src;
  n = len;
  if (src && npy_data(in_path ? in_path : "-", src, len,
                      j->pack ? inf->cpu_dtype : inf->hw_dtype, &data, &n) < 0)
    goto done;
  if (n != need) {
    size_err(j, inf, n, need, s1);
    goto done;
  }
  if (!(dst = malloc(outn ? outn : 1))) {
    cli_fail("out of memory");
    goto done;
  }
  for (int64_t f = 0; f < nf; f++) {
    int64_t from = j->pack && j->frame >= 0 ? j->frame : f;
    if (lay_plan_run(p, data + (size_t)from * s1, s1, dst + (size_t)f * d1,
                     d1, 1, &err)) {
      entry_err(j->file, j->output, j->idx, &err);
      goto done;
    }
  }
  if (cli_write_all(out_path, dst, outn)) goto done;
  rc = CLI_OK;
done:
  free(src);
  free(dst);
  return rc;
}

/* Run entry j of h (loaded into ctx) from in_path to out_path. A regular
** input file goes through cli_move_frames (cli_stream.c): its .npy header
** skipped, its size checked first, then each frame in slabs when the
** layout admits them, else the file mapped whole; a stream, run_stream. */
static int run_entry(const lay_hsi *h, lay_ctx *ctx, const job *j,
                     const char *in_path, const char *out_path) {
  const char *side = j->output ? "outputs" : "inputs";
  const lay_hsi_issue *is = lay_hsi_entry_issue(h, j->output, j->idx);
  if (is) {
    cli_fail("%s: %s", j->file, is->text);
    return CLI_FAIL;
  }
  lay_hsi_info inf;
  lay_hsi_info_get(h, j->output, j->idx, &inf);
  if (j->frame >= inf.frames) {
    cli_fail("%s: %s[%d] has %lld frame%s; --frame %lld is past them",
             j->file, side, j->idx, (long long)inf.frames,
             inf.frames == 1 ? "" : "s", (long long)j->frame);
    return CLI_FAIL;
  }
  char ref[64];
  snprintf(ref, sizeof ref, NS ".%s", inf.def);
  lay_plan *p = NULL;
  lay_error err;
  lay_dir dir = j->pack ? LAY_PACK : LAY_UNPACK;
  if (lay_plan_create(ctx, ref, inf.cpu_shape, inf.rank, inf.cpu_dtype, dir,
                      &p, &err)) {
    entry_err(j->file, j->output, j->idx, &err);
    return CLI_FAIL;
  }
  /* Frames: the CPU side is the whole tensor (pack with --frame K takes
  ** frame K of it); the NPU side one buffer per frame, one after another
  ** (unpack with --frame K takes frame K's buffer alone). */
  size_t s1 = lay_plan_src_bytes(p);
  int64_t nf = j->frame >= 0 ? 1 : inf.frames;
  size_t need = j->pack ? s1 * (size_t)inf.frames : s1 * (size_t)nf;
  int fd = -1, rc = CLI_FAIL;
  uint64_t base = 0;
  size_t tot, off = 0;
  int r = open_regular(in_path, &fd, &base, &tot);
  if (r) {
    rc = r < 0 ? CLI_FAIL : run_stream(j, &inf, p, in_path, out_path);
    goto done;
  }
  /* A file far too long is not looked into (as cli_read_all would not). */
  const char *name = in_path && strcmp(in_path, "-") ? in_path : "-";
  if (tot != SIZE_MAX && tot <= need + 4096 &&
      npy_skip(name, fd, base, tot, j->pack ? inf.cpu_dtype : inf.hw_dtype,
               &off))
    goto done;
  size_t n = tot == SIZE_MAX ? SIZE_MAX : tot - off;
  if (n != need) {
    size_err(j, &inf, n, need, s1);
    goto done;
  }
  uint64_t skip = j->pack && j->frame >= 0 ? (uint64_t)j->frame * s1 : 0;
  cli_part_args pa = {ctx, ref, inf.rank, inf.cpu_dtype, dir};
  cli_move m = {p, inf.cpu_shape, inf.rank, cli_part_create, &pa, 1, in_path,
                base + off + skip, out_path, NULL, 0,
                j->pack ? "pack" : "unpack"};
  size_t got = 0;
  r = cli_move_frames(&m, nf, need - s1 * (size_t)nf - skip, &got);
  if (r == -2) size_err(j, &inf, got, need, s1); /* it changed meanwhile */
  else if (!r) rc = CLI_OK;
done:
  if (fd >= 0 && fd != STDIN_FILENO) close(fd);
  lay_plan_free(p);
  return rc;
}

/* --all DIR: every entry of the side, its file DIR/KEY.npy or DIR/KEY.bin
** (KEY: tensor_name, else name, else input0/output0), into OUTDIR/KEY.bin. */
static int run_all(const lay_hsi *h, lay_ctx *ctx, job *j, const char *dir,
                   const char *outdir) {
  if (!outdir || !strcmp(outdir, "-"))
    return cli_usage("--all needs -o OUTDIR (one file per tensor)");
  int rc = CLI_OK;
  for (int i = 0; i < lay_hsi_count(h, j->output) && rc == CLI_OK; i++) {
    lay_hsi_info inf;
    lay_hsi_info_get(h, j->output, i, &inf);
    const char *key = inf.tensor_name ? inf.tensor_name
                      : inf.name      ? inf.name
                                      : inf.def;
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s/%s.npy", dir, key);
    FILE *f = fopen(in, "rb");
    if (f) fclose(f);
    else snprintf(in, sizeof in, "%s/%s.bin", dir, key);
    snprintf(out, sizeof out, "%s/%s.bin", outdir, key);
    j->idx = i;
    rc = run_entry(h, ctx, j, in, out);
  }
  return rc;
}

int cli_hsi_run(int pack, const cli_args *a, lay_ctx *ctx) {
  if (!a->hsi) return cli_usage("--hsi needs a flexmlrt-hsi.json file");
  job j = {pack, a->output != NULL || (!a->input && !pack), 0, -1, a->hsi};
  const char *key = a->input ? a->input : a->output;
  if (key && !*key)
    return cli_usage("--hsi: --input K or --output K (an index or a name)");
  if (a->all && key)
    return cli_usage("--hsi: --all runs every entry; no --input/--output");
  if (a->frame) {
    char *e = NULL;
    long long k = strtoll(a->frame, &e, 10);
    if (!*a->frame || *e || k < 0)
      return cli_usage("--frame takes a frame index, not '%s'", a->frame);
    j.frame = k;
  }
  lay_error err;
  char *path = lay_hsi_locate(a->hsi, &err);
  if (!path) {
    cli_print_error(&err);
    return CLI_FAIL;
  }
  j.file = path;
  lay_hsi *h = read_report(path);
  int rc = CLI_FAIL;
  const char *side = j.output ? "outputs" : "inputs";
  if (!h) goto done;
  if (lay_hsi_load(h, ctx, NS, &err)) {
    cli_print_error(&err);
    goto done;
  }
  if (a->all) {
    rc = run_all(h, ctx, &j, a->all, a->out);
    goto done;
  }
  int count = lay_hsi_count(h, j.output);
  if (!key && count != 1) {
    cli_fail("%s: %d %s; give --%s K", path, count, side,
             j.output ? "output" : "input");
    goto done;
  }
  j.idx = key ? lay_hsi_find(h, j.output, key) : 0;
  if (j.idx < 0) {
    cli_fail("%s: no entry '%s' in %s (%d entr%s)", path, key, side, count,
             count == 1 ? "y" : "ies");
    goto done;
  }
  rc = run_entry(h, ctx, &j, a->in, a->out);
done:
  lay_hsi_free(h);
  free(path);
  return rc;
}
