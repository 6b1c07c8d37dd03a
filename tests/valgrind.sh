#!/bin/sh
# tests/valgrind.sh: runs the CTest tests under valgrind memcheck, from a
# non-sanitized build, and fails on any memory error or leak.
#   sh tests/valgrind.sh [-j N] [-R REGEX] [-E REGEX] [BUILD_DIR]
# BUILD_DIR defaults to build-valgrind/ (configured as Debug without
# sanitizers and built when needed). Each test's command runs as CTest would
# run it (its working directory and environment), under
#   valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect
#            --error-exitcode=1 --trace-children=yes
# so that the `lay` processes a shell test starts are checked too (system
# programs and tests/hsi's independent reference hsi_ref are not traced). Every process writes its own log; a test fails
# when it fails, or when any of its logs reports an error or a definite or
# indirect leak. Prints a summary; exits 1 when anything failed.
# Needs valgrind and python3 (to read `ctest --show-only=json-v1`).
# Left out by default: bench_check (valgrind cannot load lay_bench) and the
# tests that loop over millions of cases (the sweep's checks, the seeded
# differential test, the value paths' comparison, the fp8 conversions'
# 50 million checks, the big threads run):
# under valgrind they would take most of CI's time; they run under
# ASan+UBSan, and their code runs under valgrind in the smaller tests
# (fuzz.replay_diff, api_threads_formats, interp_plan_values,
# interp_cast8_plan, ...).
# The macro tile's, the pair's, the staged boxes', the value slabs' and
# the stdlib round trips' (api_stdlib_*) variants at other SIMD levels or
# with the special kernels off run their code again at ASan speed; here
# their default runs do (test_vslab on every fourth shape, test_vrun on
# every fourth quantize rule). The stdlib variants alone took 25 of the
# stage's 95 CPU minutes.
# fuzz.limits too: its plan just under the box limit (some 50000 boxes)
# took 5 minutes in this Debug build; it runs in the two other builds.
# cli_stream too: it moves ~100 MB under `ulimit -v 64 MB`, in which
# valgrind cannot start; cli_stream_slabs runs the same code on small data.
# hsi.stream likewise (40 MB limit); hsi.cli.lay runs the --hsi moves.
# Every test runs with LAY_UNDER_VALGRIND=1: cli_names then takes every
# fourth stdlib name (all of them took 17 of the stage's 36 minutes).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=2
inc=
# lay_bench's large static buffers cannot be loaded by valgrind ("mmap
# failed in UME"); -E '' runs it anyway.
exc='^(bench_check|bench_sweep_check|bench_sweep_numpy_check|fuzz\.diff_seeded.*|interp_value|interp_cast8|api_threads_formats_big|cli_stream|hsi\.stream|interp_vslab_.*|interp_mtile_plan_(simd2|general)|interp_planes2_general|interp_plan_staged_(simd.|all_simd.|general)|api_stdlib_.*_(simd.|general)|fuzz\.limits)$'
while [ $# -gt 0 ]; do
  case $1 in
  -j) jobs=$2; shift 2 ;;
  -R) inc=$2; shift 2 ;;
  -E) exc=$2; shift 2 ;;
  -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
  *) break ;;
  esac
done
build=${1:-$root/build-valgrind}
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed"; exit 1; }
command -v python3 >/dev/null || { echo "valgrind.sh: python3 is not installed"; exit 1; }

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DLAY_SANITIZE=OFF >/dev/null
fi
if grep -q '^LAY_SANITIZE:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "valgrind.sh: $build is a sanitizer build; valgrind needs a plain one"
  exit 1
fi
cmake --build "$build" -j2 >"$build/valgrind-build.log" 2>&1 ||
  { tail -30 "$build/valgrind-build.log"; exit 1; }

logs=$build/valgrind-logs
rm -rf "$logs"
mkdir -p "$logs"
cd "$build"
ctest --show-only=json-v1 >"$logs/tests.json"

LAY_VG_LOGS=$logs LAY_VG_JOBS=$jobs LAY_VG_INC=$inc LAY_VG_EXC=$exc \
python3 - <<'EOF'
import json, os, re, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

logs = os.environ["LAY_VG_LOGS"]
inc = os.environ.get("LAY_VG_INC") or None
exc = os.environ.get("LAY_VG_EXC") or None
tests = json.load(open(os.path.join(logs, "tests.json")))["tests"]
sel = [t for t in tests
       if "command" in t
       and (inc is None or re.search(inc, t["name"]))
       and (exc is None or not re.search(exc, t["name"]))]

# The shells and cmake that run script tests are themselves under valgrind
# (the programs they start are traced from there); their own leaks and
# errors are not lay's and are suppressed.
supp = os.path.join(logs, "system.supp")
with open(supp, "w") as f:
    for i, kind in enumerate(["Leak", "Cond", "Value8", "Addr1", "Addr2",
                              "Addr4", "Addr8", "Free"]):
        for j, obj in enumerate(["/usr/bin/*", "/bin/*"]):
            f.write("{\n  system%d_%d\n  Memcheck:%s\n  ...\n  obj:%s\n}\n"
                    % (i, j, kind, obj))

VG = ["valgrind", "--leak-check=full", "--suppressions=" + supp,
      "--errors-for-leak-kinds=definite,indirect",
      "--show-leak-kinds=definite,indirect", "--error-exitcode=1",
      "--trace-children=yes",
      "--trace-children-skip=/bin/*,/usr/bin/*,/usr/sbin/*,/sbin/*,*/hsi_ref",
      "--child-silent-after-fork=yes", "--num-callers=30"]

def run(t):
    name = t["name"]
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    env = dict(os.environ)
    env["LAY_UNDER_VALGRIND"] = "1"  # tests/cli/names.sh: a sample of the names
    for kv in props.get("ENVIRONMENT", []):
        k, _, v = kv.partition("=")
        env[k] = v
    cwd = props.get("WORKING_DIRECTORY") or os.getcwd()
    log = os.path.join(logs, safe + ".%p.log")
    cmd = VG + ["--log-file=" + log] + t["command"]
    t0 = time.time()
    with open(os.path.join(logs, safe + ".out"), "wb") as out:
        try:
            rc = subprocess.run(cmd, cwd=cwd, env=env, stdout=out,
                                stderr=subprocess.STDOUT,
                                timeout=float(props.get("TIMEOUT", 0) or 0) * 20
                                or 3600).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
    bad = []
    for f in sorted(os.listdir(logs)):
        if f.startswith(safe + ".") and f.endswith(".log"):
            text = open(os.path.join(logs, f), errors="replace").read()
            # leaks count as errors (--errors-for-leak-kinds); suppressed
            # ones (system programs) do not
            if re.search(r"ERROR SUMMARY: [1-9]", text):
                bad.append(f)
    ok_rc = (rc == 0) != bool(props.get("WILL_FAIL", False))
    # A test CTest judges by its output (PASS_REGULAR_EXPRESSION: the rooms
    # probes, whose build must fail naming the header) passes on a match.
    pres = props.get("PASS_REGULAR_EXPRESSION") or []
    if not ok_rc and pres and rc != "timeout":
        text = open(os.path.join(logs, safe + ".out"), errors="replace").read()
        ok_rc = any(re.search(p, text) for p in pres)
    return name, rc, ok_rc, bad, time.time() - t0

failed = 0
jobs = int(os.environ.get("LAY_VG_JOBS", "2"))
with ThreadPoolExecutor(max_workers=jobs) as ex:
    for name, rc, ok_rc, bad, dt in ex.map(run, sel):
        status = "ok" if ok_rc and not bad else "FAIL"
        why = []
        if not ok_rc:
            why.append("exit status %s" % rc)
        if bad:
            why.append("valgrind: " + ", ".join(os.path.join(logs, b) for b in bad))
        print("%-4s %-45s %6.1fs %s" % (status, name, dt, "; ".join(why)), flush=True)
        failed += status != "ok"
print("valgrind: %d test(s) run, %d failed (logs in %s)" % (len(sel), failed, logs))
sys.exit(1 if failed or not sel else 0)
EOF
