#!/bin/sh
# tests/run.sh: installs what is missing, builds lay, runs every test through
# CTest, then the same suite again in an ASan+UBSan build, each fuzz target
# for a few seconds (when clang's libFuzzer is installed) and, under
# valgrind memcheck (when valgrind is installed), each test program at its
# default level and the command line's own scripts (tests/valgrind.sh
# says which and why). As root it installs those too; as another user it
# skips them with a message.
#   sh tests/run.sh
set -eu
cd "$(dirname "$0")/.."
. tests/setup.sh
lay_setup tmux libxml2-utils
lay_setup $LAY_PYTHON_PKGS # import lay and its tests (tests/python)
lay_setup_optional valgrind python3 clang
if command -v clang >/dev/null 2>&1; then
  lay_setup_optional "libclang-rt-$(clang -dumpversion | cut -d. -f1)-dev"
fi

echo "== build (RelWithDebInfo) in build/"
lay_build build
echo "== tests"
(cd build && ctest --output-on-failure -j 2)

echo "== build (ASan+UBSan) in build-asan/"
lay_build build-asan -DLAY_SANITIZE=ON
echo "== tests under ASan+UBSan"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j 2)

echo "== fuzz targets, 8 s each (tests/fuzz/run.sh 8)"
if lay_have_libfuzzer; then
  sh tests/fuzz/run.sh 8
else
  echo "skipped: clang with libFuzzer is not installed (Debian: clang libclang-rt-N-dev)"
fi

echo "== tests under valgrind memcheck (tests/valgrind.sh)"
if command -v valgrind >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
  sh tests/valgrind.sh
else
  echo "skipped: valgrind or python3 is not installed"
fi
