#!/bin/sh
# tests/run.sh: installs what is missing, builds lay, runs every test through
# CTest, then the same suite again in an ASan+UBSan build.
#   sh tests/run.sh
set -eu
cd "$(dirname "$0")/.."
. tests/setup.sh
lay_setup tmux libxml2-utils

echo "== build (RelWithDebInfo) in build/"
lay_build build
echo "== tests"
(cd build && ctest --output-on-failure -j 2)

echo "== build (ASan+UBSan) in build-asan/"
lay_build build-asan -DLAY_SANITIZE=ON
echo "== tests under ASan+UBSan"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
   UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure -j 2)
