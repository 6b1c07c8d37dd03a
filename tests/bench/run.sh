#!/bin/sh
# tests/bench/run.sh: configures and builds a Release build in build-bench/
# (or $BUILD), then runs lay_bench and prints its table plus the markdown
# summary. Extra arguments go to lay_bench (--only T3, --target-ms 300,
# --batches 9, --no-lay). Installs nothing.
#   sh tests/bench/run.sh
# With --sweep first it runs the sweep benchmark instead (lay_sweep, see
# README.md): the reference outputs are dumped to $BUILD/sweep, numpy's
# equivalents timed by sweep_numpy.py (when a python3 with numpy is
# found), then every case timed with lay and oneDNN and the summary
# printed. Further arguments go to lay_sweep (--only SUBSTRING,
# --target-ms MS).
#   sh tests/bench/run.sh --sweep
# With --cli it times the whole `lay` process on 1080p frames against
# `dd bs=8M` of the same input file (cli_dd.py; further arguments: the
# number of runs).
#   sh tests/bench/run.sh --cli
set -eu
SWEEP=0
CLI=0
if [ "${1:-}" = "--sweep" ]; then SWEEP=1; shift; fi
if [ "${1:-}" = "--cli" ]; then CLI=1; shift; fi
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-bench}
if ! dpkg-query -W -f='${Status}' libdnnl-dev 2>/dev/null | grep -q 'ok installed'; then
  echo "lay_bench: oneDNN is not installed; the oneDNN column will be skipped."
  echo "lay_bench: to compare with it:  sudo apt-get update && sudo apt-get install -y libdnnl-dev"
  echo "lay_bench: (then remove $BUILD/CMakeCache.txt or configure again)"
fi
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >"$BUILD.configure.log" 2>&1 \
  || { cat "$BUILD.configure.log" >&2; echo "lay_bench: configure failed" >&2; exit 1; }
rm -f "$BUILD.configure.log"
if [ $CLI = 1 ]; then
  cmake --build "$BUILD" -j 2 --target lay >"$BUILD/bench-build.log" 2>&1 \
    || { cat "$BUILD/bench-build.log" >&2; echo "cli_dd: build failed in $BUILD" >&2; exit 1; }
  exec python3 tests/bench/cli_dd.py "$BUILD/lay" "$@"
fi
if [ $SWEEP = 1 ]; then
  cmake --build "$BUILD" -j 2 --target lay_sweep >"$BUILD/bench-build.log" 2>&1 \
    || { cat "$BUILD/bench-build.log" >&2; echo "lay_sweep: build failed in $BUILD" >&2; exit 1; }
  echo "lay_sweep: built $BUILD/tests/bench/lay_sweep (Release)"
  PY=
  for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
  done
  if [ -z "$PY" ]; then
    echo "lay_sweep: no python3 with numpy: the numpy column is skipped (apt-get install python3-numpy)"
    exec "$BUILD/tests/bench/lay_sweep" "$@"
  fi
  DIR=$BUILD/sweep
  rm -rf "$DIR"
  echo "lay_sweep: writing every case's input and reference to $DIR"
  "$BUILD/tests/bench/lay_sweep" --check --dump "$DIR" "$@" >"$DIR.check.log" \
    || { cat "$DIR.check.log"; echo "lay_sweep: a case failed its check"; exit 1; }
  NPST=0
  "$PY" tests/bench/sweep_numpy.py "$DIR" || NPST=1
  rm -f "$DIR"/*.src "$DIR"/*.ref
  ST=0
  "$BUILD/tests/bench/lay_sweep" --numpy "$DIR/numpy.tsv" "$@" || ST=1
  [ $NPST = 0 ] || echo "sweep_numpy: some numpy output differed from the reference (MISMATCH above)"
  exit $((ST | NPST))
fi
cmake --build "$BUILD" -j 2 --target lay_bench >"$BUILD/bench-build.log" 2>&1 \
  || { cat "$BUILD/bench-build.log" >&2; echo "lay_bench: build failed in $BUILD" >&2; exit 1; }
echo "lay_bench: built $BUILD/tests/bench/lay_bench (Release; bench.c at -O3 -march=native)"
exec "$BUILD/tests/bench/lay_bench" --markdown "$@"
