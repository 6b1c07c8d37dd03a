#!/bin/sh
# tests/fuzz/run.sh: builds the libFuzzer targets (clang, -fsanitize=
# fuzzer,address,undefined, in build-fuzz/ or $LAY_FUZZ_BUILD) and runs each
# for SECONDS, two at a time (the machine has 2 cores), then prints the
# executions per target and any crash found.
#   sh tests/fuzz/run.sh SECONDS [TARGET...]     (targets: spec hsi cli diff)
# Each target starts from its committed corpus (tests/fuzz/corpus/TARGET)
# and its seeds (stdlib, tests/lang, tests/conformance, examples, the hsi
# reports); what it learns stays in build-fuzz/corpus/TARGET between runs.
# A crash is written to build-fuzz/artifacts/TARGET/; minimize it
# (fuzz_TARGET -minimize_crash=1 FILE), put the reproducer into
# tests/fuzz/corpus/TARGET/ (the replay tests then run it in every build).
#   sh tests/fuzz/run.sh seeded [N [SEED]]
# runs the differential target on N fixed-seed inputs instead (default
# 200000, half transform chains against diff_chain.c's LANGUAGE.md
# reference), built with ASan and UBSan in build-seeded/ (no clang needed);
# CTest runs 4000 of them (fuzz.diff_seeded).
set -eu
if [ "${1:-}" = seeded ]; then
  root=$(cd "$(dirname "$0")/../.." && pwd)
  build=${LAY_SEEDED_BUILD:-$root/build-seeded}
  mkdir -p "$build"
  log=$build/seeded-build.log
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DLAY_SANITIZE=ON >"$log" 2>&1 || { cat "$log"; exit 1; }
  cmake --build "$build" -j2 --target diff_seeded >>"$log" 2>&1 ||
    { tail -40 "$log"; exit 1; }
  exec "$build/tests/fuzz/diff_seeded" "${2:-200000}" "${3:-$(date +%s)}"
fi
secs=${1:-60}
shift || true
targets=${*:-spec hsi cli diff}
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${LAY_FUZZ_BUILD:-$root/build-fuzz}
jobs=${LAY_FUZZ_JOBS:-2}

flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
-fno-omit-frame-pointer"
mkdir -p "$build"
CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLAY_FUZZ=ON -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >"$build/cmake.log" 2>&1 ||
  { cat "$build/cmake.log"; exit 1; }
tl=
for t in $targets; do tl="$tl fuzz_$t"; done
# shellcheck disable=SC2086
cmake --build "$build" -j2 --target $tl >"$build/build.log" 2>&1 ||
  { tail -40 "$build/build.log"; exit 1; }
for t in $targets; do
  [ -x "$build/tests/fuzz/fuzz_$t" ] || {
    echo "fuzz_$t was not built: is clang's libFuzzer installed (libclang-rt-14-dev)?"
    exit 1
  }
done

# Seeds, copied flat (libFuzzer writes new inputs into the first folder).
seed() { # seed TARGET FILE...
  d=$build/corpus/$1
  shift
  mkdir -p "$d"
  for f in "$@"; do
    [ -f "$f" ] || continue
    n=$(printf '%s' "${f#"$root"/}" | tr '/' '_')
    cp "$f" "$d/seed_$n"
  done
}
seed spec "$root"/stdlib/*.lay "$root"/examples/*.lay "$root"/tests/conformance/*.lay \
  "$root"/tests/conformance/bad/*.lay $(find "$root/tests/lang" -name '*.lay')
seed hsi $(find "$root/tests/hsi" -name '*.json')

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_one() { # run_one TARGET
  t=$1
  mkdir -p "$build/corpus/$t" "$build/artifacts/$t"
  dict=
  [ -f "$root/tests/fuzz/$t.dict" ] && dict="-dict=$root/tests/fuzz/$t.dict"
  maxlen=4096
  case $t in hsi) maxlen=16384 ;; diff) maxlen=256 ;; cli) maxlen=512 ;; esac
  # shellcheck disable=SC2086
  "$build/tests/fuzz/fuzz_$t" "$build/corpus/$t" "$root/tests/fuzz/corpus/$t" \
    $dict -max_total_time="$secs" -max_len=$maxlen -timeout=20 \
    -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t/" >"$build/fuzz_$t.log" 2>&1 || true
}
set --
for t in $targets; do
  run_one "$t" &
  set -- "$@" $!
  if [ $# -ge "$jobs" ]; then
    wait "$1"
    shift
  fi
done
wait

status=0
echo "target  executions  exec/s  corpus  crashes"
for t in $targets; do
  log=$build/fuzz_$t.log
  ex=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corp=$(find "$build/corpus/$t" -type f | wc -l)
  crashes=$(find "$build/artifacts/$t" -type f | wc -l)
  printf '%-7s %10s %7s %7s %8s\n' "$t" "${ex:-?}" "${rate:-?}" "$corp" "$crashes"
  if [ "$crashes" -gt 0 ] || ! grep -q '^Done\|^stat::number_of_executed_units' "$log"; then
    status=1
    echo "  see $log and $build/artifacts/$t/"
  fi
done
exit $status
