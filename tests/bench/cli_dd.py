#!/usr/bin/env python3
# tests/bench/cli_dd.py: the whole `lay` process against `dd bs=8M` of the
# same input file (issue "Engine", point 6: a 1080p frame's `lay pack`
# costs at most 1.3x dd). Each case writes a random input file, then times
# `lay pack/unpack/convert ... -i IN -o OUT` and `dd if=IN of=OUT bs=8M`
# (and `dd ... conv=fsync`, since lay fsyncs its output before the rename
# that makes it appear), alternating, RUNS times each, the output removed
# before every run. Prints the medians of the wall time and of the CPU
# time (user + system of the child) and their ratios to dd.
#   python3 tests/bench/cli_dd.py PATH/TO/lay [RUNS]
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

LAY = sys.argv[1]
RUNS = int(sys.argv[2]) if len(sys.argv) > 2 else 9

# (what, lay arguments before -i, input bytes)
W, H = 1920, 1080
CASES = [
    ("pack amd.hcwnc4 uint8 [1,4,1080,1920]",
     ["pack", "amd.hcwnc4", "--shape", "1,4,%d,%d" % (H, W), "--dtype", "uint8"],
     4 * H * W),
    ("pack amd.hcwnc4 uint8 [1,3,1080,1920] (C padded to 4)",
     ["pack", "amd.hcwnc4", "--shape", "1,3,%d,%d" % (H, W), "--dtype", "uint8"],
     3 * H * W),
    ("unpack amd.hcwnc4 uint8 [1,4,1080,1920]",
     ["unpack", "amd.hcwnc4", "--shape", "1,4,%d,%d" % (H, W), "--dtype", "uint8"],
     4 * H * W),
    ("pack amd.hcwnc4 fp32 [1,4,1080,1920]",
     ["pack", "amd.hcwnc4", "--shape", "1,4,%d,%d" % (H, W), "--dtype", "fp32"],
     16 * H * W),
    ("convert core.nchw -> core.nhwc uint8 [1,3,1080,1920]",
     ["convert", "core.nchw", "core.nhwc", "--shape", "1,3,%d,%d" % (H, W),
      "--dtype", "uint8"],
     3 * H * W),
]


def timed(cmd, out):
    if os.path.exists(out):
        os.remove(out)
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return t1 - t0, cpu


def main():
    print("cli_dd: %s, %d runs each, medians; wall and CPU (user + system)"
          % (LAY, RUNS))
    print("%-56s %9s %9s %9s %9s %7s %7s %7s" %
          ("case", "lay ms", "dd ms", "ddsync", "lay cpu", "dd cpu",
           "x dd", "x cpu"))
    worst = 0.0
    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as d:
        src, out = os.path.join(d, "in.bin"), os.path.join(d, "out.bin")
        for what, args, nbytes in CASES:
            with open(src, "wb") as f:
                f.write(os.urandom(nbytes))
            lay = [LAY] + args + ["-i", src, "-o", out]
            dd = ["dd", "if=" + src, "of=" + out, "bs=8M"]
            dds = dd + ["conv=fsync"]
            t = {"lay": [], "dd": [], "dds": []}
            for _ in range(RUNS):
                t["lay"].append(timed(lay, out))
                t["dd"].append(timed(dd, out))
                t["dds"].append(timed(dds, out))
            med = {k: (statistics.median(w for w, _ in v),
                       statistics.median(c for _, c in v))
                   for k, v in t.items()}
            xw = med["lay"][0] / med["dd"][0]
            xc = med["lay"][1] / max(med["dd"][1], 1e-6)
            worst = max(worst, xw)
            print("%-56s %9.2f %9.2f %9.2f %9.2f %7.2f %7.2f %7.2f" %
                  (what, med["lay"][0] * 1e3, med["dd"][0] * 1e3,
                   med["dds"][0] * 1e3, med["lay"][1] * 1e3,
                   med["dd"][1] * 1e3, xw, xc))
    print("cli_dd: worst wall-time ratio to dd %.2fx (target <= 1.3x)" % worst)


main()
