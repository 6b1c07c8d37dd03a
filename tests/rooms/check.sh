#!/bin/sh
# tests/rooms/check.sh SRC LAY LIBLAY: the rules of interp/ARCHITECTURE.md
# that the include directories alone do not enforce.
#  1. No quoted include names a path ("../x.h", "plan/plan.h"): a room
#     reaches another room's headers only through its declared include
#     directories.
#  2. The lay binary needs liblay.so (it is a client of the shared library).
#  3. Every name the lay binary takes from liblay.so is lay_* (lay.h and
#     lay_tools.h), and liblay.so exports nothing else.
set -u
src=$1 lay=$2 lib=$3
fail=0
bad=$(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*[/\\][^"]*"' \
        "$src/lang" "$src/interp" --include='*.c' --include='*.h' \
        --include='*.re' --include='*.y' || true)
if [ -n "$bad" ]; then
  echo "include by path (rule 1):"; echo "$bad"; fail=1
fi
if ! readelf -d "$lay" | grep -q 'NEEDED.*\[liblay\.so'; then
  echo "rule 2: $lay does not need liblay.so:"; readelf -d "$lay" | grep NEEDED
  fail=1
fi
exports=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBR]$/ {print $3}')
other=$(printf '%s\n' "$exports" | grep -v '^lay_' || true)
if [ -n "$other" ]; then
  echo "rule 3: liblay.so exports names outside lay_*:"; echo "$other"; fail=1
fi
used=$(nm -D --undefined-only "$lay" | awk '{print $2}' | sed 's/@.*//' | sort -u)
n=0
for s in $used; do
  if printf '%s\n' "$exports" | grep -qx "$s"; then n=$((n + 1)); fi
done
if [ "$n" -lt 20 ]; then
  echo "rule 3: lay takes only $n names from liblay.so (expected its whole API)"
  fail=1
fi
[ $fail -eq 0 ] && echo "rooms: ok ($n names taken from liblay.so, all lay_*)"
exit $fail
