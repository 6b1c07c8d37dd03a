/*
** cli_stream.c: how `lay pack|unpack|convert` move their bytes (cli_move_run,
** cli_lay.h): in slabs when the plan admits them (lay_plan_slabs), so that
** memory stays bounded whatever the input's size, else in whole buffers.
**
** Slabs: one plan for a full slab's rows (and one for the last slab's, when
** the extent is not a multiple), each checked with lay_plan_slab_check;
** then read a slab, run, write it, in order, into cli_out (a temporary file
** renamed over the target at the end, or stdout); with frames
** (cli_move_frames, AMD's, cli_hsi.c) every slab of frame 0, then of
** frame 1, ... Whole buffers: a regular
** input file is mapped (its pages stay the page cache's), a stream read
** into memory; the output is one buffer. An input that ends early or goes
** on too long, or a failed read or write, abandons the output: no file is
** left, an existing target keeps its bytes.
*/
#define _GNU_SOURCE /* MAP_POPULATE */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_lay.h"

#define SLAB_BYTES ((size_t)1 << 20) /* source + destination of a slab */
#define PROGRESS_MIN ((uint64_t)256 << 20) /* inputs that show progress */

/* Read up to n bytes (fewer only at the end of the input): at offset
** `off` with pread, or from the current position when off is NO_OFF. The
** count, or SIZE_MAX with errno set. */
#define NO_OFF UINT64_MAX
static size_t read_at(int fd, unsigned char *p, size_t n, uint64_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = off == NO_OFF ? read(fd, p + got, n - got)
                              : pread(fd, p + got, n - got, (off_t)(off + got));
    if (r < 0) {
      if (errno == EINTR) continue;
      return SIZE_MAX;
    }
    if (r == 0) break;
    got += (size_t)r;
  }
  return got;
}

static const char *in_name(const cli_move *m) {
  return !m->in || !strcmp(m->in, "-") ? "stdin" : m->in;
}

/* Slab i's source in sl->src_pieces pieces of a regular file (lay.h):
** ns bytes into src. 0, or -1 after printing. */
static int read_pieces(const cli_move *m, const lay_slabs *sl, int fd,
                       int64_t i, uint64_t fo, unsigned char *src, size_t ns) {
  size_t np = (size_t)sl->src_pieces, pl = ns / np,
         full = sl->src_bytes / np;
  for (size_t j = 0; j < np; j++) {
    uint64_t at = m->in_off + fo + j * sl->src_stride + (uint64_t)i * full;
    size_t r = read_at(fd, src + j * pl, pl, at);
    if (r != pl) {
      cli_fail("cannot read '%s': %s", in_name(m),
               r == SIZE_MAX ? strerror(errno) : "it ended early");
      return -1;
    }
  }
  return 0;
}

/* Slab i's destination (nd bytes in dst) into its sl->dst_pieces pieces
** of the temporary file, after the head. 0, or -1 after printing. */
static int write_pieces(const cli_move *m, const lay_slabs *sl, cli_out *o,
                        int64_t i, uint64_t fo, const unsigned char *dst,
                        size_t nd) {
  size_t np = (size_t)sl->dst_pieces, pl = nd / np,
         full = sl->dst_bytes / np;
  char msg[512];
  for (size_t j = 0; j < np; j++) {
    uint64_t at = m->head_len + fo + j * sl->dst_stride + (uint64_t)i * full;
    if (cli_out_pwrite(o, dst + j * pl, pl, at, msg, sizeof msg)) {
      cli_fail("%s", msg);
      return -1;
    }
  }
  return 0;
}

/* The progress line on a terminal: "lay: pack 37% (1234 of 3400 MB)". */
typedef struct progress {
  int on;
  const char *what;
  uint64_t total;
  int last; /* the percentage shown, -1 before the first */
} progress;

static void progress_show(progress *pr, uint64_t done) {
  if (!pr->on) return;
  int pc = (int)(done * 100 / pr->total);
  if (pc == pr->last) return;
  pr->last = pc;
  fprintf(stderr, "\rlay: %s %3d%% (%.0f of %.0f MB)", pr->what, pc,
          (double)done / 1e6, (double)pr->total / 1e6);
  fflush(stderr);
}

static void progress_end(progress *pr) {
  if (pr->on && pr->last >= 0) fprintf(stderr, "\r%60s\r", "");
}

/* The input: fd (stdin or the file), positioned at the data. */
static int open_input(const cli_move *m, int *fd) {
  int use_stdin = !m->in || !strcmp(m->in, "-");
  *fd = use_stdin ? STDIN_FILENO : open(m->in, O_RDONLY | O_CLOEXEC);
  if (*fd < 0) {
    cli_fail("cannot read '%s': %s", m->in, strerror(errno));
    return -1;
  }
  if (m->in_off && lseek(*fd, (off_t)m->in_off, SEEK_SET) < 0) {
    cli_fail("cannot read '%s': %s", use_stdin ? "stdin" : m->in,
             strerror(errno));
    if (!use_stdin) close(*fd);
    return -1;
  }
#ifdef POSIX_FADV_SEQUENTIAL
  (void)posix_fadvise(*fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return 0;
}

/* After the data: the input must end. 0, -2 (more), -1 (error, printed). */
static int expect_end(const cli_move *m, int fd) {
  unsigned char extra;
  size_t got = read_at(fd, &extra, 1, NO_OFF);
  if (got == SIZE_MAX) {
    cli_fail("cannot read '%s': %s", in_name(m), strerror(errno));
    return -1;
  }
  return got ? -2 : 0;
}

/* The part plans for `rows` rows of dimension sl->dim, checked; NULL
** (after a note under --debug-plan) when the check fails. */
static lay_plan *part_plan(const cli_move *m, const lay_slabs *sl,
                           int64_t rows) {
  int64_t shape[LAY_MAX_RANK];
  memcpy(shape, m->shape, sizeof shape[0] * (size_t)m->rank);
  shape[sl->dim] = rows;
  lay_plan *q = m->part(m->ud, shape);
  lay_error err;
  if (q && lay_plan_slab_check(m->plan, sl, q, &err)) {
    if (cli_debug_plan_on())
      fprintf(stderr, "-- streaming --\nwhole buffers: %s\n",
              err.message);
    lay_plan_free(q);
    return NULL;
  }
  return q;
}

/* The slab loop, over every slab of every frame. 0, -1 (printed) or -2
** (the input's size is wrong; *got its bytes read, SIZE_MAX: more than
** the plan needs). */
static int run_slabs(const cli_move *m, const lay_slabs *sl, lay_plan *full,
                     lay_plan *last, int fd, cli_out *o, int64_t nf,
                     uint64_t rest, size_t *got) {
  size_t s1 = lay_plan_src_bytes(m->plan), d1 = lay_plan_dst_bytes(m->plan);
  size_t need = s1 * (size_t)nf;
  unsigned char *src = malloc(sl->src_bytes), *dst = malloc(sl->dst_bytes);
  char msg[512];
  int rc = -1;
  progress pr = {isatty(STDERR_FILENO) && need > PROGRESS_MIN, m->what, need,
                 -1};
  if (!src || !dst) {
    cli_fail("out of memory: a slab needs %zu bytes", sl->src_bytes + sl->dst_bytes);
    goto done;
  }
  if (m->head_len && cli_out_write(o, m->head, m->head_len, msg, sizeof msg)) {
    cli_fail("%s", msg);
    goto done;
  }
  size_t done = 0;
  for (int64_t k = 0; k < nf * sl->count; k++) {
    int64_t f = k / sl->count, i = k % sl->count;
    const lay_plan *q = i == sl->count - 1 && last ? last : full;
    size_t ns = lay_plan_src_bytes(q), nd = lay_plan_dst_bytes(q);
    if (sl->src_pieces > 1) {
      if (read_pieces(m, sl, fd, i, (uint64_t)f * s1, src, ns)) goto done;
    }
    size_t r = sl->src_pieces > 1 ? ns : read_at(fd, src, ns, NO_OFF);
    if (r == SIZE_MAX) {
      cli_fail("cannot read '%s': %s", in_name(m), strerror(errno));
      goto done;
    }
    if (r < ns) {
      *got = done + r;
      rc = -2;
      goto done;
    }
    done += r;
    lay_error err;
    if (lay_plan_run(q, src, ns, dst, nd, m->threads, &err)) {
      cli_print_error(&err);
      goto done;
    }
    if (sl->dst_pieces > 1 ? write_pieces(m, sl, o, i, (uint64_t)f * d1, dst,
                                          nd)
                           : cli_out_write(o, dst, nd, msg, sizeof msg)) {
      if (sl->dst_pieces <= 1) cli_fail("%s", msg);
      goto done;
    }
    progress_show(&pr, done);
  }
  /* The end of a stream (pieces come from a file whose size was seen, and
  ** so does an input with `rest` bytes left unread). */
  rc = sl->src_pieces > 1 || rest ? 0 : expect_end(m, fd);
  if (rc == -2) *got = SIZE_MAX;
done:
  progress_end(&pr);
  free(src);
  free(dst);
  return rc;
}

/* Whole buffers: the input mapped or read, one run a frame, one write. */
static int run_whole(const cli_move *m, int fd, cli_out *o, int64_t nf,
                     uint64_t rest, size_t *got) {
  size_t s1 = lay_plan_src_bytes(m->plan), d1 = lay_plan_dst_bytes(m->plan);
  size_t need = s1 * (size_t)nf, outlen = d1 * (size_t)nf;
  unsigned char *in = NULL, *map = NULL, *out = NULL;
  size_t maplen = 0;
  char msg[512];
  int rc = -1;
  struct stat sb;
  if (need && !fstat(fd, &sb) && S_ISREG(sb.st_mode) &&
      (uint64_t)sb.st_size == m->in_off + need + rest &&
      m->in_off <= SIZE_MAX - need) {
    maplen = (size_t)m->in_off + need;
    map = mmap(NULL, maplen, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (map == MAP_FAILED) map = NULL;
    else in = map + m->in_off;
  }
  if (!in) {
    if (!(in = malloc(need ? need : 1))) {
      cli_fail("out of memory: the input needs %zu bytes", need);
      goto done;
    }
    size_t r = read_at(fd, in, need, NO_OFF);
    if (r == SIZE_MAX) {
      cli_fail("cannot read '%s': %s", in_name(m), strerror(errno));
      goto done;
    }
    if (r < need) {
      *got = r;
      rc = -2;
      goto done;
    }
    if (!rest && (rc = expect_end(m, fd)) != 0) {
      if (rc == -2) *got = SIZE_MAX;
      goto done;
    }
    rc = -1;
  }
  /* The output: mapped onto its file, else a buffer written after. */
  unsigned char *mapped = m->head_len <= SIZE_MAX - outlen
                              ? cli_out_map(o, m->head_len + outlen)
                              : NULL;
  if (mapped) {
    if (m->head_len) memcpy(mapped, m->head, m->head_len);
  } else if (!(out = malloc(outlen ? outlen : 1))) {
    cli_fail("out of memory: the output needs %zu bytes", outlen);
    goto done;
  }
  lay_error err;
  unsigned char *to = mapped ? mapped + m->head_len : out;
  for (int64_t f = 0; f < nf; f++)
    if (lay_plan_run(m->plan, in + (size_t)f * s1, s1, to + (size_t)f * d1, d1,
                     m->threads, &err)) {
      cli_print_error(&err);
      goto done;
    }
  if (!mapped && ((m->head_len && cli_out_write(o, m->head, m->head_len, msg,
                                                sizeof msg)) ||
                  cli_out_write(o, out, outlen, msg, sizeof msg))) {
    cli_fail("%s", msg);
    goto done;
  }
  rc = 0;
done:
  if (map) munmap(map, maplen);
  else free(in);
  free(out);
  return rc;
}

int cli_move_run(const cli_move *m, size_t *got) {
  return cli_move_frames(m, 1, 0, got);
}

int cli_move_frames(const cli_move *m, int64_t frames, uint64_t rest,
                    size_t *got) {
  lay_slabs sl;
  memset(&sl, 0, sizeof sl);
  sl.dim = -1;
  lay_error err;
  lay_plan *full = NULL, *last = NULL;
  /* LAY_NO_STREAM set: whole buffers always (the tests compare). */
  const char *no = getenv("LAY_NO_STREAM");
  int off = no && *no && strcmp(no, "0");
  const char *sb = getenv("LAY_SLAB_BYTES");
  /* on several threads, slabs the run splits (lay.h lay_plan_run: a
  ** thread per 4 MB a copy moves) */
  size_t budget = m->threads > 1 ? 4 * SLAB_BYTES * (size_t)m->threads
                                 : SLAB_BYTES;
  if (sb && *sb) budget = (size_t)strtoull(sb, NULL, 10);
  int slabs = m->part && !off &&
              !lay_plan_slabs(m->plan, budget, &sl, &err) && sl.count > 1;
  if (m->part && !slabs && cli_debug_plan_on())
    fprintf(stderr, "-- streaming --\nwhole buffers: %s\n",
            off ? "LAY_NO_STREAM is set"
                : sl.dim < 0 ? err.message : "they fit one slab");
  /* Pieces are read at their offsets: from a regular file only (stdin
  ** when nothing of it was read). */
  struct stat ist;
  int in_file = m->in && strcmp(m->in, "-")
                    ? !stat(m->in, &ist)
                    : !fstat(STDIN_FILENO, &ist) &&
                          lseek(STDIN_FILENO, 0, SEEK_CUR) == 0;
  if (slabs && sl.src_pieces > 1 && !(in_file && S_ISREG(ist.st_mode))) {
    slabs = 0;
    if (cli_debug_plan_on())
      fprintf(stderr, "-- streaming --\nwhole buffers: the slabs' source "
                      "is in pieces, and the input is no file\n");
  }
  if (slabs) {
    full = part_plan(m, &sl, sl.rows);
    if (full && sl.extent % sl.rows &&
        !(last = part_plan(m, &sl, sl.extent % sl.rows))) {
      lay_plan_free(full);
      full = NULL;
    }
    slabs = full != NULL;
    if (slabs && cli_debug_plan_on())
      fprintf(stderr, "-- streaming --\n%" PRId64 " slabs of %" PRId64
              " rows of dimension %d (%zu + %zu bytes; source in %" PRId64
              " piece%s, destination in %" PRId64 ")\n", sl.count, sl.rows,
              sl.dim, sl.src_bytes, sl.dst_bytes, sl.src_pieces,
              sl.src_pieces > 1 ? "s" : "", sl.dst_pieces);
  }
  int fd, rc = -1;
  char msg[512];
  cli_out *o = NULL;
  if (open_input(m, &fd)) goto done;
  if (!(o = cli_out_open(m->out, msg, sizeof msg))) {
    cli_fail("%s", msg);
    goto close_in;
  }
  if (slabs && sl.dst_pieces > 1 && !cli_out_seekable(o)) {
    slabs = 0;
    if (cli_debug_plan_on())
      fprintf(stderr, "-- streaming --\nwhole buffers: the slabs' output "
                      "is in pieces, and the output is no file\n");
  }
  rc = slabs ? run_slabs(m, &sl, full, last, fd, o, frames, rest, got)
             : run_whole(m, fd, o, frames, rest, got);
  if (!rc) {
    rc = cli_out_close(o, msg, sizeof msg);
    o = NULL;
    if (rc) cli_fail("%s", msg);
  }
close_in:
  cli_out_abort(o);
  if (fd != STDIN_FILENO) close(fd);
done:
  lay_plan_free(full);
  lay_plan_free(last);
  return rc;
}

size_t cli_input_size(const char *in) {
  struct stat sb;
  int use_stdin = !in || !strcmp(in, "-");
  if ((use_stdin ? fstat(STDIN_FILENO, &sb) : stat(in, &sb)) ||
      !S_ISREG(sb.st_mode))
    return SIZE_MAX - 1;
  /* stdin may be a file read part-way already: what is left of it */
  off_t at = use_stdin ? lseek(STDIN_FILENO, 0, SEEK_CUR) : 0;
  if (at < 0 || at > sb.st_size) return SIZE_MAX - 1;
  if ((uint64_t)(sb.st_size - at) >= SIZE_MAX - 1) return SIZE_MAX;
  return (size_t)(sb.st_size - at);
}

lay_plan *cli_part_create(void *ud, const int64_t *shape) {
  const cli_part_args *pa = ud;
  lay_plan *p = NULL;
  lay_error err;
  if (lay_plan_create(pa->ctx, pa->ref, shape, pa->rank, pa->dtype, pa->dir,
                      &p, &err))
    return NULL;
  return p;
}
