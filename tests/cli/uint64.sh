#!/bin/sh
# tests/cli/uint64.sh: the element type uint64 through the CLI: --dtype
# uint64 and numpy's names, values past 2^63 and 2^53 moved exactly, .npy
# files of '<u8' written and read, a cast from int64 through a user layout.
# Expected values are worked out by hand in the comments (little-endian).
. "$(dirname "$0")/lib.sh"

# NCHW 1x2x1x2 of 2^64 - 1, 2^63 + 1, 2^53 + 1, 5 to NHWC: elements 0 2 1 3
printf '\377\377\377\377\377\377\377\377\001\0\0\0\0\0\0\200\001\0\0\0\0\0\040\0\005\0\0\0\0\0\0\0' >"$T/u64"
for t in uint64 ulonglong u8 '<u8' Q; do
  run convert core.nchw core.nhwc --shape 1,2,1,2 --dtype "$t" -i "$T/u64" -o "$T/c64"
  expect_rc 0 "convert --dtype $t"
  [ "$(hex "$T/c64")" = "ff ff ff ff ff ff ff ff 01 00 00 00 00 00 20 00 01 00 00 00 00 00 00 80 05 00 00 00 00 00 00 00" ] ||
    fail "convert --dtype $t: $(hex "$T/c64")"
done
run where core.nchw --shape 1,2,1,2 --dtype uint64 --at 0,1,0,1
expect_out "24" "uint64 is 8 bytes"
run info core.nchw --shape 1,2,1,2 --dtype uint64
grep -q "^cpu side:  1x2x1x2 uint64, 32 bytes$" "$T/out" || fail "info uint64: $(cat "$T/out")"

# unpack to .npy: the header says '<u8'; packing that file takes shape and
# type from it and gives the bytes back
run unpack core.nchw --shape 1,2,1,2 --dtype uint64 -i "$T/u64" -o "$T/u.npy"
expect_rc 0 "unpack to .npy"
grep -q "'descr': '<u8'" "$T/u.npy" || fail "npy header: $(head -c 80 "$T/u.npy")"
run pack core.nchw -i "$T/u.npy" -o "$T/p64"
expect_rc 0 "pack from a <u8 .npy"
cmp -s "$T/p64" "$T/u64" || fail "pack from .npy: $(hex "$T/p64")"

# int64 -> uint64 in a user layout: -1 saturates to 0, 2^53 + 1 stays
cat >"$T/c.lay" <<'LAY'
namespace cu
layout i2u (a) : int64 -> [a]
  cast(to = uint64)
LAY
printf '\377\377\377\377\377\377\377\377\001\0\0\0\0\0\040\0' >"$T/i64"
run -f "$T/c.lay" pack cu.i2u --shape 2 -i "$T/i64" -o "$T/o64"
expect_rc 0 "pack cu.i2u"
[ "$(hex "$T/o64")" = "00 00 00 00 00 00 00 00 01 00 00 00 00 00 20 00" ] ||
  fail "int64 -> uint64: $(hex "$T/o64")"

# a wrong size names uint64's 8 bytes
run convert core.nchw core.nhwc --shape 1,2,1,3 --dtype uint64 -i "$T/u64" -o "$T/c64"
expect_rc 1 "short input"
finish
