#!/bin/sh
# run_script.sh LAY SCRIPT EXPECTED WORKDIR: pipe SCRIPT into `lay repl`,
# run inside WORKDIR (a fresh folder holding a copy of this folder's .lay
# files, so the script can load them and write pictures there), and compare
# stdout+stderr and the exit code ("exit: N", the last line) with EXPECTED.
set -u
lay=$1 script=$2 expected=$3 work=$4
here=$(cd "$(dirname "$0")" && pwd) || exit 1
rm -rf "$work" && mkdir -p "$work" || exit 1
cp "$here"/*.lay "$here"/*.bin "$work"/ || exit 1
cd "$work" || exit 1
"$lay" repl < "$script" > out 2>&1
echo "exit: $?" >> out
if diff -u "$expected" out; then
  echo "ok: $(basename "$script")"
else
  echo "FAIL: output of 'lay repl < $script' differs (above: - expected, + actual)"
  exit 1
fi
