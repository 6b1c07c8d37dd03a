/*
** seeded.c: runs the differential fuzz target (fuzz_diff.c) on N inputs
** made by a fixed-seed generator, for CTest and for long runs without
** libFuzzer:  diff_seeded N [SEED]  (tests/fuzz/run.sh seeded N). Half the
** inputs are transform chains ("TC" + bytes, diff_chain.c), half layout
** specs. A disagreement aborts with the spec on stderr; the case number
** and seed printed first reproduce it (diff_seeded 1 SEED-OF-THE-CASE).
*/
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "diff_chain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long cur;
static unsigned long long cur_seed;

static void on_abort(int sig) {
  (void)sig;
  fprintf(stderr, "diff_seeded: case %ld failed: rerun with diff_seeded 1 "
                  "0x%llx\n", cur, cur_seed);
  signal(SIGABRT, SIG_DFL);
}

static uint64_t next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545f4914f6cdd1dull;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1000;
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
  uint8_t buf[512];
  signal(SIGABRT, on_abort);
  for (long i = 0; i < n; i++) {
    uint64_t cs = seed + (uint64_t)i * 0x9e3779b97f4a7c15ull, st = cs | 1;
    size_t len = 24 + (size_t)(next(&st) % 400), k = 0;
    if ((cs >> 7) & 1) {
      buf[k++] = 'T';
      buf[k++] = 'C';
    }
    for (; k < len; k++) buf[k] = (uint8_t)(next(&st) >> 24);
    cur = i;
    cur_seed = (unsigned long long)cs;
    LLVMFuzzerTestOneInput(buf, len);
  }
  printf("%ld layout specs checked; ", fz_layout_count);
  printf("%ld cases passed; transform chains: %ld packed and compared (%ld "
         "with pads, %ld with a value op, %ld per channel, %ld with several "
         "value ops, %ld with stored pads of different values), %ld "
         "refused as documented\n",
         n, fz_chain_count[0], fz_chain_count[2], fz_chain_count[3],
         fz_chain_count[4], fz_chain_count[5], fz_chain_count[6],
         fz_chain_count[1]);
  return 0;
}
