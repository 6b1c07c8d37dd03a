/*
** cli_io.c: input, output and argument parsing helpers of the `lay` CLI.
**
** cli_read_all reads an input whole (specs, vendor files; pack, unpack and
** convert stream theirs, cli_stream.c). Output files are written to
** a temporary file in the same folder (unnamed with O_TMPFILE, else
** mkstemp) and renamed over the target only when everything succeeded: a
** failed or killed run leaves no output file, no temporary file, and never
** clobbers an existing one.
*/
#define _GNU_SOURCE /* O_TMPFILE */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "cli_lay.h"

/* ---- Messages --------------------------------------------------------------- */

void cli_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("lay: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int cli_usage(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("lay: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputs("\nTry 'lay --help'\n", stderr);
  va_end(ap);
  return CLI_USAGE;
}

void cli_print_error(const lay_error *err) {
  if (err->line > 0 && err->file[0] && strcmp(err->file, "<format>")) {
    char buf[2048];
    lay_error_format(err, buf, sizeof buf);
    fprintf(stderr, "%s\n", buf);
    return;
  }
  if (err->file[0] && strcmp(err->file, "<format>"))
    fprintf(stderr, "lay: %s: %s\n", err->file, err->message);
  else
    fprintf(stderr, "lay: %s\n", err->message);
}

/* ---- Numbers and lists ----------------------------------------------------- */

/* One integer s[0..n) (decimal, or 0x hex); 0 ok, -1 not a number, -2 too
** large for int64. */
static int parse_i64(const char *s, size_t n, int64_t *out) {
  size_t i = 0;
  int neg = 0, base = 10;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (i + 1 < n && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  if (i >= n) return -1;
  uint64_t v = 0;
  for (; i < n; i++) {
    int d;
    char c = s[i];
    if (c >= '0' && c <= '9') d = c - '0';
    else if (base == 16 && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (base == 16 && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return -1;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base) return -2;
    v = v * (uint64_t)base + (uint64_t)d;
  }
  if (v > (uint64_t)INT64_MAX) return -2;
  *out = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

static int is_ws(char c) { return c == ' ' || c == '\t'; }

/* Split "a,b,c" (or "axbxc" when `x_ok`, optionally in [] or (), as the
** REPL and lay at print them) into at
** most cap integers. Returns the count, or a negative code with the
** offending item in *bad (-1 not a number, -2 too large, -3 too many, -4
** empty). */
static int parse_list(const char *s, int x_ok, int64_t *out, int cap,
                      const char **bad, size_t *badlen) {
  size_t len = strlen(s), i = 0;
  while (len && is_ws(s[len - 1])) len--;
  while (i < len && is_ws(s[i])) i++;
  if (i < len && ((s[i] == '[' && s[len - 1] == ']') ||
                  (s[i] == '(' && s[len - 1] == ')'))) {
    i++;
    len--;
  }
  int n = 0;
  if (i >= len) return -4;
  const char *sep = x_ok && !memchr(s + i, ',', len - i) ? "x" : ",";
  while (i <= len) {
    size_t j = i;
    while (j < len && s[j] != sep[0]) j++;
    size_t a = i, b = j;
    while (a < b && is_ws(s[a])) a++;
    while (b > a && is_ws(s[b - 1])) b--;
    *bad = s + a;
    *badlen = b - a;
    if (n == cap) return -3;
    int rc = parse_i64(s + a, b - a, &out[n]);
    if (rc) return rc;
    n++;
    i = j + 1;
  }
  return n;
}

int cli_shape(const char *s, int64_t *shape, int cap) {
  const char *bad = s;
  size_t bl = 0;
  int n = parse_list(s, 1, shape, cap, &bad, &bl);
  switch (n) {
  case -1:
    cli_fail("bad --shape '%s': '%.*s' is not a number", s, (int)bl, bad);
    return -1;
  case -2:
    cli_fail("bad --shape '%s': '%.*s' is too large", s, (int)bl, bad);
    return -1;
  case -3:
    cli_fail("bad --shape '%s': more than %d dimensions", s, cap);
    return -1;
  case -4:
    cli_fail("bad --shape '%s': expected sizes like 1,3,224,224", s);
    return -1;
  default: break;
  }
  uint64_t elems = 1;
  for (int i = 0; i < n; i++) {
    if (shape[i] < 1) {
      cli_fail("bad --shape '%s': dimension %d is %" PRId64
               "; sizes must be at least 1", s, i, shape[i]);
      return -1;
    }
    /* The widest element is 4 bytes: reject a byte size beyond 64 bits. */
    if (elems > UINT64_MAX / 4 / (uint64_t)shape[i]) {
      cli_fail("bad --shape '%s': the tensor's byte size overflows 64 bits",
               s);
      return -1;
    }
    elems *= (uint64_t)shape[i];
  }
  return n;
}

void cli_shape_str(const int64_t *shape, int rank, char *buf, size_t cap) {
  size_t n = 0;
  if (cap) buf[0] = '\0';
  for (int i = 0; i < rank && n < cap; i++)
    n += (size_t)snprintf(buf + n, cap - n, "%s%" PRId64, i ? "x" : "",
                          shape[i]);
}

int cli_coord(const char *opt, const char *s, int64_t *c, int cap) {
  const char *bad = s;
  size_t bl = 0;
  int n = parse_list(s, 0, c, cap, &bad, &bl);
  if (n == -1 || n == -2) {
    cli_fail("bad %s '%s': '%.*s' is not a coordinate", opt, s, (int)bl, bad);
    return -1;
  }
  if (n < 0) {
    cli_fail("bad %s '%s': expected a coordinate like 0,1,1,0", opt, s);
    return -1;
  }
  return n;
}

int cli_u64(const char *opt, const char *s, uint64_t *v) {
  int64_t x;
  size_t n = strlen(s);
  int rc = parse_i64(s, n, &x);
  if (rc || x < 0) {
    cli_fail("bad %s '%s': expected a non-negative integer", opt, s);
    return -1;
  }
  *v = (uint64_t)x;
  return 0;
}

/* ---- Input ------------------------------------------------------------------ */

int cli_read_all(const char *path, size_t max, unsigned char **buf,
                 size_t *len) {
  int use_stdin = !path || !strcmp(path, "-");
  FILE *f = use_stdin ? stdin : fopen(path, "rb");
  *buf = NULL;
  *len = 0;
  if (!f) {
    cli_fail("cannot read '%s': %s", path, strerror(errno));
    return -1;
  }
  size_t cap = 0, n = 0;
  unsigned char *b = NULL;
  /* A regular file is read in one piece (one byte more to see its end). */
  struct stat sb;
  if (max > SIZE_MAX - 1) max = SIZE_MAX - 1;
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
      (uint64_t)sb.st_size > max) { /* too long: its size is enough */
    if (!use_stdin) fclose(f);
    *len = (uint64_t)sb.st_size < SIZE_MAX ? (size_t)sb.st_size : SIZE_MAX;
    return 0;
  }
  if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
    cap = (size_t)sb.st_size + 1;
    if (!(b = malloc(cap))) {
      cli_fail("out of memory reading %s", use_stdin ? "stdin" : path);
      if (!use_stdin) fclose(f);
      return -1;
    }
  }
  for (;;) {
    if (n == cap) {
      if (n > max) break; /* seen enough to know it is too long */
      size_t nc = cap ? cap * 2 : 1 << 16;
      if (nc < cap || nc > max + 1) nc = max + 1;
      unsigned char *nb = realloc(b, nc);
      if (!nb) {
        free(b);
        cli_fail("out of memory reading %s", use_stdin ? "stdin" : path);
        if (!use_stdin) fclose(f);
        return -1;
      }
      b = nb;
      cap = nc;
    }
    size_t got = fread(b + n, 1, cap - n, f);
    n += got;
    if (got == 0) break;
  }
  int bad = ferror(f);
  int e = errno;
  if (!use_stdin) fclose(f);
  if (bad) {
    free(b);
    cli_fail("cannot read '%s': %s", use_stdin ? "stdin" : path,
             strerror(e));
    return -1;
  }
  *buf = b;
  *len = n > max ? SIZE_MAX : n;
  if (n > max) {
    free(b);
    *buf = NULL;
  }
  return 0;
}

/* ---- Output ------------------------------------------------------------------ */

static int g_force; /* --force: replace read-only or hard-linked files */

void cli_set_force(int force) { g_force = force; }

int cli_binary_tty(const char *in, const char *out, int reads, int writes) {
  if (writes && (!out || !strcmp(out, "-")) && isatty(STDOUT_FILENO)) {
    cli_fail("refusing to write binary data to a terminal: give -o FILE "
             "or redirect the output");
    return -1;
  }
  if (reads && (!in || !strcmp(in, "-")) && isatty(STDIN_FILENO)) {
    cli_fail("refusing to read binary data from a terminal: give -i FILE "
             "or redirect the input");
    return -1;
  }
  return 0;
}

static int write_fd(int fd, const unsigned char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* The folder part of path ("" for a bare name, "/" kept). */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  size_t dl = slash ? (size_t)(slash - path) + 1 : 0;
  char *d = malloc(dl + 2);
  if (!d) return NULL;
  memcpy(d, path, dl);
  if (!dl) d[dl++] = '.';
  d[dl] = '\0';
  return d;
}

/* The named temporary file of the fallback path, removed by a signal that
** ends the process (SIGINT, SIGTERM, SIGHUP, SIGPIPE); kill -9 cannot be
** caught, which is why the unnamed file is tried first. */
static char *volatile g_tmp_name;

static void unlink_tmp(int sig) {
  if (g_tmp_name) unlink(g_tmp_name);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* A writable file in dir, not yet visible under any name: O_TMPFILE, or
** else (a file system without it, or LAY_NO_TMPFILE set, which the tests
** use to run this path) a mkstemp'ed ".lay-XXXXXX", its name in *name to
** rename or remove. Returns the descriptor, or -1 with errno set. */
static int open_tmp(const char *dir, char **name) {
  *name = NULL;
#if defined(O_TMPFILE)
  if (!getenv("LAY_NO_TMPFILE")) {
    mode_t um = umask(0);
    umask(um);
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666 & ~um);
    if (fd >= 0) return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) return -1;
  }
#endif
  size_t dl = strlen(dir);
  char *t = malloc(dl + sizeof "/.lay-XXXXXX");
  if (!t) {
    errno = ENOMEM;
    return -1;
  }
  memcpy(t, dir, dl);
  memcpy(t + dl, "/.lay-XXXXXX", sizeof "/.lay-XXXXXX");
  g_tmp_name = t;
  static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
  for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
    signal(sigs[i], unlink_tmp);
  int fd2 = mkstemp(t);
  if (fd2 < 0) {
    g_tmp_name = NULL;
    free(t);
    return -1;
  }
  *name = t;
  return fd2;
}

/* Give the unnamed file fd a name in dir, for rename() to move over the
** target: linkat through /proc/self/fd (AT_EMPTY_PATH would need
** CAP_DAC_READ_SEARCH). */
static int name_tmp(int fd, const char *dir, char **name) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  size_t dl = strlen(dir);
  char *t = malloc(dl + sizeof "/.lay-XXXXXXXX");
  if (!t) {
    errno = ENOMEM;
    return -1;
  }
  for (unsigned k = 0; k < 100; k++) {
    snprintf(t, dl + sizeof "/.lay-XXXXXXXX", "%s/.lay-%08x", dir,
             (unsigned)getpid() * 2654435761u + k * 40503u);
    if (!linkat(AT_FDCWD, proc, AT_FDCWD, t, AT_SYMLINK_FOLLOW)) {
      *name = t;
      return 0;
    }
    if (errno != EEXIST) break;
  }
  free(t);
  return -1;
}

/* The file a path names once its symbolic links are followed (a link's
** target is read relative to the link's folder); malloc'd, NULL when out
** of memory or the links go round more than 40 times. */
static char *follow_links(const char *path) {
  char *cur = strdup(path);
  for (int hop = 0; cur && hop < 40; hop++) {
    struct stat sb;
    if (lstat(cur, &sb) || !S_ISLNK(sb.st_mode)) return cur;
    char link[4096];
    ssize_t n = readlink(cur, link, sizeof link - 1);
    if (n < 0) return cur;
    link[n] = '\0';
    char *next;
    if (link[0] == '/') {
      next = strdup(link);
    } else {
      char *dir = dir_of(cur);
      size_t l = dir ? strlen(dir) + (size_t)n + 2 : 0;
      next = dir ? malloc(l) : NULL;
      if (next) snprintf(next, l, "%s/%s", dir, link);
      free(dir);
    }
    free(cur);
    cur = next;
  }
  free(cur);
  return NULL;
}

/* An output being written (cli_lay.h): stdout, a device or FIFO written in
** place, or a temporary file renamed over the target by cli_out_close. */
struct cli_out {
  int fd;
  int kind;     /* OUT_STDOUT, OUT_SPECIAL, OUT_TMP */
  char *path;   /* as given, for messages */
  char *target; /* OUT_TMP: the file replaced (links followed) */
  char *dir;    /* OUT_TMP: its folder */
  char *tmp;    /* OUT_TMP: the temporary file's name, NULL while unnamed */
  void *map;    /* cli_out_map's mapping, NULL when none */
  size_t maplen;
};
enum { OUT_STDOUT, OUT_SPECIAL, OUT_TMP };

static void out_free(cli_out *o) {
  if (!o) return;
  if (o->map) munmap(o->map, o->maplen);
  if (o->kind == OUT_TMP && o->tmp) unlink(o->tmp);
  if (o->kind != OUT_STDOUT && o->fd >= 0) close(o->fd);
  if (o->kind == OUT_TMP) g_tmp_name = NULL;
  free(o->tmp);
  free(o->dir);
  free(o->target);
  free(o->path);
  free(o);
}

/* Writes to a file go to a temporary file in the target's folder, renamed
** over the target only when every byte is written: a failed, interrupted
** or killed run leaves the old file as it was. With O_TMPFILE the file has
** no name until the moment before the rename, so even kill -9 leaves
** nothing. A symbolic link is followed (the file it names is replaced, the
** link stays); an existing file keeps its permission bits. A device, FIFO
** or socket (/dev/null, /dev/stdout into a pipe, a process substitution)
** is written in place, as any Unix tool does: it cannot be replaced, and
** nothing would be left half-written on disk. */
cli_out *cli_out_open(const char *path, char *msg, size_t cap) {
  cli_out *o = calloc(1, sizeof *o);
  if (!o || !(o->path = strdup(path ? path : "-"))) {
    free(o);
    snprintf(msg, cap, "out of memory");
    return NULL;
  }
  o->fd = -1;
  if (!path || !strcmp(path, "-")) {
    o->kind = OUT_STDOUT;
    o->fd = STDOUT_FILENO;
    if (fflush(stdout)) {
      snprintf(msg, cap, "cannot write to stdout: %s", strerror(errno));
      out_free(o);
      return NULL;
    }
    return o;
  }
  struct stat old;
  int exists = !stat(path, &old);
  if (exists && !S_ISREG(old.st_mode)) {
    if (S_ISDIR(old.st_mode)) {
      snprintf(msg, cap, "cannot write '%s': it is a folder", path);
      out_free(o);
      return NULL;
    }
    o->kind = OUT_SPECIAL;
    if ((o->fd = open(path, O_WRONLY | O_CLOEXEC)) < 0) {
      snprintf(msg, cap, "cannot write '%s': %s", path, strerror(errno));
      out_free(o);
      return NULL;
    }
    return o;
  }
  /* Replacing a file the user may not write, or one with other hard links
  ** (the new file would not be theirs), is the user's choice: --force. */
  if (exists && !g_force &&
      (access(path, W_OK) || !(old.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))) {
    snprintf(msg, cap, "cannot write '%s': it is read-only (mode %04o); "
             "--force replaces it", path, (unsigned)(old.st_mode & 07777));
    out_free(o);
    return NULL;
  }
  if (exists && !g_force && old.st_nlink > 1) {
    snprintf(msg, cap, "cannot write '%s': it has %lu hard links, which "
             "would keep the old bytes; --force replaces this name only",
             path, (unsigned long)old.st_nlink);
    out_free(o);
    return NULL;
  }
  /* A file over the size limit fails the write (EFBIG) instead of killing
  ** the process half-way. */
  signal(SIGXFSZ, SIG_IGN);
  o->kind = OUT_TMP;
  o->target = follow_links(path);
  o->dir = o->target ? dir_of(o->target) : NULL;
  o->fd = o->dir ? open_tmp(o->dir, &o->tmp) : -1;
  if (o->fd < 0) {
    snprintf(msg, cap, "cannot write '%s': %s", path,
             strerror(o->dir ? errno : ENOMEM));
    out_free(o);
    return NULL;
  }
  int rc = 0;
  if (exists) {
    rc = fchmod(o->fd, old.st_mode & 07777);
    if (!rc && geteuid() == 0 && fchown(o->fd, old.st_uid, old.st_gid)) rc = -1;
  } else if (o->tmp) { /* mkstemp made it 0600: the usual mode, as open() would */
    mode_t um = umask(0);
    umask(um);
    rc = fchmod(o->fd, 0666 & ~um);
  }
  if (rc) {
    snprintf(msg, cap, "cannot write '%s': %s", path, strerror(errno));
    out_free(o);
    return NULL;
  }
  return o;
}

int cli_out_write(cli_out *o, const void *buf, size_t len, char *msg,
                  size_t cap) {
  if (!write_fd(o->fd, buf, len)) return 0;
  if (o->kind == OUT_STDOUT)
    snprintf(msg, cap, "cannot write to stdout: %s", strerror(errno));
  else
    snprintf(msg, cap, "cannot write '%s': %s", o->path, strerror(errno));
  return -1;
}

void cli_out_abort(cli_out *o) { out_free(o); }

int cli_out_seekable(const cli_out *o) { return o->kind == OUT_TMP; }

int cli_out_pwrite(cli_out *o, const void *buf, size_t len, uint64_t off,
                   char *msg, size_t cap) {
  const unsigned char *p = buf;
  while (len) {
    ssize_t w = pwrite(o->fd, p, len, (off_t)off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      snprintf(msg, cap, "cannot write '%s': %s", o->path,
               w < 0 ? strerror(errno) : "nothing written");
      return -1;
    }
    p += w;
    off += (uint64_t)w;
    len -= (size_t)w;
  }
  return 0;
}

int cli_out_close(cli_out *o, char *msg, size_t cap) {
  int rc = 0, e = 0;
  if (o->kind == OUT_SPECIAL) {
    if (close(o->fd)) {
      rc = -1;
      e = errno;
    }
    o->fd = -1;
  } else if (o->kind == OUT_TMP) {
    if (o->map) { /* its dirty pages are the file's: fsync writes them */
      munmap(o->map, o->maplen);
      o->map = NULL;
    }
    rc = fsync(o->fd); /* the bytes are on disk before the rename */
    if (!rc && !o->tmp) rc = name_tmp(o->fd, o->dir, &o->tmp);
    e = errno;
    if (close(o->fd) && !rc) {
      rc = -1;
      e = errno;
    }
    o->fd = -1;
    if (!rc && rename(o->tmp, o->target)) {
      rc = -1;
      e = errno;
    }
    if (!rc) { /* and the rename is, once its folder is synced */
      free(o->tmp);
      o->tmp = NULL; /* renamed: nothing to remove */
      int dfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
      }
    }
  }
  if (rc) {
    if (o->kind == OUT_STDOUT)
      snprintf(msg, cap, "cannot write to stdout: %s", strerror(e));
    else
      snprintf(msg, cap, "cannot write '%s': %s", o->path, strerror(e));
  }
  out_free(o);
  return rc;
}

void *cli_out_map(cli_out *o, size_t len) {
#if defined(__linux__)
  if (o->kind != OUT_TMP || o->map || !len || len > (size_t)INT64_MAX) return NULL;
  /* The blocks first: a store into a mapped page the file system cannot
  ** back would be a SIGBUS; fallocate fails instead (ENOSPC), and the
  ** caller writes, which fails with a message. */
  if (fallocate(o->fd, 0, 0, (off_t)len)) {
    if (ftruncate(o->fd, 0)) return NULL;
    return NULL;
  }
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
                 o->fd, 0);
  if (p == MAP_FAILED) {
    if (ftruncate(o->fd, 0)) return NULL;
    return NULL;
  }
  o->map = p;
  o->maplen = len;
  return p;
#else
  (void)o;
  (void)len;
  return NULL;
#endif
}

int cli_write_file(const char *path, const void *buf, size_t len, char *msg,
                   size_t cap) {
  cli_out *o = cli_out_open(path, msg, cap);
  if (!o) return -1;
  if (cli_out_write(o, buf, len, msg, cap)) {
    cli_out_abort(o);
    return -1;
  }
  return cli_out_close(o, msg, cap);
}

int cli_write_all(const char *path, const void *buf, size_t len) {
  char msg[512];
  if (!cli_write_file(path, buf, len, msg, sizeof msg)) return 0;
  cli_fail("%s", msg);
  return -1;
}

/* ---- Text built piece by piece ------------------------------------------- */

void cli_text_printf(cli_text *t, const char *fmt, ...) {
  if (t->oom) return;
  va_list ap;
  va_start(ap, fmt);
  int need = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (need < 0) {
    t->oom = 1;
    return;
  }
  size_t want = t->n + (size_t)need + 1;
  if (want > t->cap) {
    size_t cap = t->cap ? t->cap : 256;
    while (cap < want) cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->oom = 1;
      return;
    }
    t->s = s;
    t->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
  va_end(ap);
  t->n += (size_t)need;
}

/* ---- Vendor-file commands ------------------------------------------------- */

void cli_error_line(const lay_error *e) {
  if (e->file[0] && e->line > 0)
    fprintf(stderr, "lay: %s:%d:%d: %s\n", e->file, e->line, e->col,
            e->message);
  else if (e->file[0])
    fprintf(stderr, "lay: %s: %s\n", e->file, e->message);
  else
    fprintf(stderr, "lay: %s\n", e->message);
}

int cli_file_check_args(const char *name, const char *what, int argc,
                        char **argv, const char **file, int *check) {
  *file = NULL;
  *check = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--check")) *check = 1;
    else if (argv[i][0] == '-' && argv[i][1])
      return cli_usage("%s: unknown option '%s'", name, argv[i]);
    else if (*file)
      return cli_usage("%s: one %s at a time ('%s' and '%s')", name,
                       !strcmp(name, "hsi") ? "report" : "file", *file,
                       argv[i]);
    else *file = argv[i];
  }
  if (!*file) return cli_usage("%s: which %s?", name, what);
  return 0;
}
