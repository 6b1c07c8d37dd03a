/*
** replay.c: runs a fuzz target's LLVMFuzzerTestOneInput once on every file
** given on the command line (folders are walked recursively), for builds
** without libFuzzer. CTest runs each target this way over its corpus, its
** seeds and every crash regression, so they run in every test build (and
** under ASan/UBSan with LAY_SANITIZE, and under valgrind).
*/
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long nfiles;

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "replay: cannot read %s\n", path);
    return -1;
  }
  size_t cap = 1 << 16, n = 0;
  unsigned char *b = malloc(cap);
  for (;;) {
    if (!b) break;
    if (n == cap) {
      unsigned char *nb = realloc(b, cap *= 2);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
    }
    size_t got = fread(b + n, 1, cap - n, f);
    if (!got) break;
    n += got;
  }
  fclose(f);
  if (!b) {
    fprintf(stderr, "replay: out of memory on %s\n", path);
    return -1;
  }
  /* An exact-size copy, so that ASan sees any read past the input's end. */
  unsigned char *exact = malloc(n ? n : 1);
  if (exact) memcpy(exact, b, n);
  free(b);
  if (!exact) return -1;
  if (getenv("LAY_REPLAY_VERBOSE")) fprintf(stderr, "replay: %s\n", path);
  LLVMFuzzerTestOneInput(exact, n);
  free(exact);
  nfiles++;
  return 0;
}

static int walk(const char *path) {
  struct stat sb;
  if (stat(path, &sb)) {
    fprintf(stderr, "replay: no such file or folder: %s\n", path);
    return -1;
  }
  if (!S_ISDIR(sb.st_mode)) return S_ISREG(sb.st_mode) ? run_file(path) : 0;
  DIR *d = opendir(path);
  if (!d) {
    fprintf(stderr, "replay: cannot open %s\n", path);
    return -1;
  }
  /* Sorted, so that a run is reproducible. */
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      char **nn = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof *nn);
      if (!nn) break;
      names = nn;
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  int rc = 0;
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(path) + strlen(names[i]) + 2;
    char *p = malloc(l);
    if (p && names[i]) {
      snprintf(p, l, "%s/%s", path, names[i]);
      if (walk(p)) rc = -1;
    } else {
      rc = -1;
    }
    free(p);
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv) {
  int rc = 0;
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE_OR_FOLDER...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++)
    if (walk(argv[i])) rc = 1;
  printf("replayed %ld inputs\n", nfiles);
  if (nfiles == 0) rc = 1; /* an empty corpus is a broken test */
  return rc;
}
