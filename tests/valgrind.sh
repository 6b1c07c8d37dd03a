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
#
# What runs by default: the stage has to fit in CI's time with the two
# other suites (run on every test, it did not end within CI's 90 minutes:
# some 140 CPU minutes). memcheck adds one check to those two builds, reads of
# undefined memory; AddressSanitizer and UBSan already run every test. So
# it runs each piece of lay's code once, not every variant of every test:
# - every test program of ours (lang, interp, api, hsi, kneron, tidl,
#   the fuzz replays) at its default SIMD level, which under valgrind is
#   AVX2 (valgrind has no AVX-512). The variants at other levels and with
#   the special kernels off (names ending _simdN or _general) run under
#   ASan+UBSan only;
# - of the shell and cmake scripts, which start one `lay` a check (about
#   1.2 s each under valgrind; hsi.cli.lay alone starts 444), only those
#   in `scripts` below: the command line's own paths (usage errors, input
#   and output, atomic output, streaming in slabs, a conformance file, the
#   REPL, and `lay hsi` / `--hsi` / `export`, whose code, cli_hsi.c, no
#   test program reaches: hsi.cli.lay takes every fourth row of its long
#   loops there). The others drive the same library code the test
#   programs run;
# - LAY_UNDER_VALGRIND=1 is set for every test: the long ones then take
#   a sample of their cases (every fourth stdlib name in cli_names, every
#   eighth shape in test_vslab, ...; each says how in its comment).
# Left out as well: bench_check (valgrind cannot load lay_bench) and the
# tests that loop over millions of cases (the sweep's checks, the seeded
# differential test, the value paths' comparison, the fp8 conversions'
# 50 million checks, the big threads run), cli_stream and hsi.stream
# (they run under `ulimit -v`, in which valgrind cannot start).
# -R REGEX runs the tests it matches instead of that choice (variants and
# scripts too); the excludes still apply unless -E replaces them (-E ''
# for none). Tests others depend on (DEPENDS, FIXTURES_SETUP) run first.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
jobs=2
inc=
# The excludes (see above). lay_bench's large static buffers cannot be
# loaded by valgrind ("mmap failed in UME"). interp_vslab_split splits the
# slabs of test_vslab's cases over threads; it runs under ASan.
scripts='^(cli_usage|cli_ux_io|cli_stream_slabs|fuzz\.atomic_output|conformance_qnn|repl_script|repl_script_errors|hsi\.cli\.lay)$'
exc='^(bench_check|bench_sweep_check|bench_sweep_numpy_check|fuzz\.diff_seeded.*|interp_value|interp_cast8|api_threads_formats_big|cli_stream|hsi\.stream|interp_vslab_split)$'
while [ $# -gt 0 ]; do
  case $1 in
  -j) jobs=$2; shift 2 ;;
  -R) inc=$2; shift 2 ;;
  -E) exc=$2; shift 2 ;;
  -h|--help) sed -n '2,44p' "$0"; exit 0 ;;
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
LAY_VG_SCRIPTS=$scripts \
LAY_VG_COSTS=$root/build/Testing/Temporary/CTestCostData.txt \
python3 - <<'EOF'
import json, os, re, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor

logs = os.environ["LAY_VG_LOGS"]
inc = os.environ.get("LAY_VG_INC") or None
exc = os.environ.get("LAY_VG_EXC") or None
tests = json.load(open(os.path.join(logs, "tests.json")))["tests"]
scripts = os.environ["LAY_VG_SCRIPTS"]
variant = r"_(simd[0-9]|general)$"

def props_of(t):
    return {p["name"]: p["value"] for p in t.get("properties", [])}

# The tests others need first (DEPENDS, FIXTURES_SETUP: tidl.gen makes the
# directory tidl.files writes TIDL's files into) run before the rest, one
# at a time, in CTest's order.
setup = set()
for t in tests:
    p = props_of(t)
    setup.update(p.get("DEPENDS", []))
    if p.get("FIXTURES_SETUP"):
        setup.add(t["name"])

def default_set(t):
    """The stage's default choice (see the comment at the top)."""
    prog = os.path.basename(t["command"][0])
    if t["name"] in setup:
        return True
    if prog in ("sh", "bash", "cmake", "python3"):
        return re.search(scripts, t["name"]) is not None
    return re.search(variant, t["name"]) is None

sel = [t for t in tests
       if "command" in t
       and (re.search(inc, t["name"]) if inc else default_set(t))
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
    props = props_of(t)
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

def report(result):
    global failed
    name, rc, ok_rc, bad, dt = result
    status = "ok" if ok_rc and not bad else "FAIL"
    why = []
    if not ok_rc:
        why.append("exit status %s" % rc)
    if bad:
        why.append("valgrind: " + ", ".join(os.path.join(logs, b) for b in bad))
    print("%-4s %-45s %6.1fs %s" % (status, name, dt, "; ".join(why)), flush=True)
    failed += status != "ok"

for t in sel:
    if t["name"] in setup:
        report(run(t))
# The longest first, by the times CTest kept of the plain build's run
# (build/Testing/Temporary/CTestCostData.txt, when there is one), so that
# no long test starts last while the other job idles.
cost = {}
try:
    with open(os.environ["LAY_VG_COSTS"]) as f:
        for line in f:
            w = line.split()
            if len(w) != 3:
                break  # the list of failed tests follows "---"
            cost[w[0]] = float(w[2])
except (OSError, ValueError):
    pass
rest = sorted((t for t in sel if t["name"] not in setup),
              key=lambda t: -cost.get(t["name"], 0.0))
jobs = int(os.environ.get("LAY_VG_JOBS", "2"))
with ThreadPoolExecutor(max_workers=jobs) as ex:
    for result in ex.map(run, rest):
        report(result)
print("valgrind: %d test(s) run, %d failed (logs in %s)" % (len(sel), failed, logs))
sys.exit(1 if failed or not sel else 0)
EOF
