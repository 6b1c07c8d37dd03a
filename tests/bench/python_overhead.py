#!/usr/bin/env python3
"""python_overhead.py: what Plan.run(x, out=y) costs from Python against
lay_plan_run from C, on the same plans: a tiny tensor (the call overhead)
and a large one (the speed of the run itself). The C side is a small
program compiled here against the build's lay.h and liblay.so.

    PYTHONPATH=build/python python3 tests/bench/python_overhead.py build

Prints the best and the median of several rounds, in ns per call, and
the difference of the best (the machine is shared: the best is the least
disturbed).
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import lay

CASES = [  # (name, format, shape, dtype, calls per round)
    ("tiny", "amd.hcwnc4", (1, 3, 2, 2), "int8", 200000),
    ("large", "amd.hcwnc8", (1, 64, 224, 224), "int8", 200),
]
ROUNDS = 7

C_SRC = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "lay.h"
static double now(void) {
  struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}
int main(int argc, char **argv) {
  int64_t shape[8]; int rank = 0; lay_ctx *ctx; lay_plan *p; lay_error e;
  for (int i = 4; i < argc; i++) shape[rank++] = atoll(argv[i]);
  long calls = atol(argv[3]); int rounds = atoi(argv[2]);
  if (lay_ctx_new(&ctx, &e) || lay_plan_create(ctx, argv[1], shape, rank,
      LAY_DT_INT8, LAY_PACK, &p, &e)) { fprintf(stderr, "%s\n", e.message); return 1; }
  size_t sn = lay_plan_src_bytes(p), dn = lay_plan_dst_bytes(p);
  char *s = malloc(sn), *d = malloc(dn);
  for (size_t i = 0; i < sn; i++) s[i] = (char)i;
  for (size_t i = 0; i < dn; i++) d[i] = 0;
  for (int r = 0; r < rounds; r++) {
    double t0 = now();
    for (long i = 0; i < calls; i++) lay_plan_run(p, s, sn, d, dn, 1, &e);
    printf("%.1f\n", (now() - t0) / (double)calls);
  }
  lay_plan_free(p); lay_ctx_free(ctx); free(s); free(d);
  return 0;
}
"""


def c_times(build, fmt, shape, calls):
    src = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "run_c")
        with open(exe + ".c", "w") as f:
            f.write(C_SRC)
        subprocess.run(["cc", "-O2", "-I", os.path.join(src, "interp"), exe + ".c",
                        "-L", build, "-llay", "-Wl,-rpath," + os.path.abspath(build),
                        "-o", exe], check=True)
        out = subprocess.run([exe, fmt, str(ROUNDS), str(calls)] + [str(v) for v in shape],
                             check=True, capture_output=True, text=True).stdout
    return [float(v) for v in out.split()]


def py_times(fmt, shape, dtype, calls):
    plan = lay.Context(lay_path=False).plan(fmt, shape, dtype)
    x = (np.arange(int(np.prod(shape))) % 256).astype(np.uint8).view(
        lay.numpy_dtype(dtype)).reshape(shape)
    y = np.zeros(plan.dst_bytes, np.uint8)
    run = plan.run
    res = []
    for _ in range(ROUNDS):
        t0 = time.perf_counter_ns()
        for _ in range(calls):
            run(x, out=y)
        res.append((time.perf_counter_ns() - t0) / calls)
    return res


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    print("%-6s %-12s %-15s %22s %22s %s" % ("case", "format", "shape",
          "C ns/call best/median", "Python best/median", "difference (best)"))
    for name, fmt, shape, dtype, calls in CASES:
        c = c_times(build, fmt, shape, calls)
        p = py_times(fmt, shape, dtype, calls)
        print("%-6s %-12s %-15s %11.1f/%10.1f %11.1f/%10.1f %+10.1f (%.2fx)" % (
            name, fmt, "x".join(map(str, shape)), min(c), statistics.median(c),
            min(p), statistics.median(p), min(p) - min(c), min(p) / min(c)))


if __name__ == "__main__":
    main()
