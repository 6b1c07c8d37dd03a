#!/bin/sh
# tests/bench/run.sh: configures and builds a Release build in build-bench/
# (or $BUILD), then runs lay_bench and prints its table plus the markdown
# summary. Extra arguments go to lay_bench (--only T3, --target-ms 300,
# --batches 9, --no-lay). Installs nothing.
#   sh tests/bench/run.sh
set -eu
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
cmake --build "$BUILD" -j 2 --target lay_bench >"$BUILD/bench-build.log" 2>&1 \
  || { cat "$BUILD/bench-build.log" >&2; echo "lay_bench: build failed in $BUILD" >&2; exit 1; }
echo "lay_bench: built $BUILD/tests/bench/lay_bench (Release; bench.c at -O3 -march=native)"
exec "$BUILD/tests/bench/lay_bench" --markdown "$@"
