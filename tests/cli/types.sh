#!/bin/sh
# tests/cli/types.sh: the element types int64, int4, uint4, fp8e4m3 and
# fp8e5m2 through the CLI (--dtype), and where/at in element indexes
# (--elements), with the JSON forms. Expected values are worked out by
# hand in the comments.
. "$(dirname "$0")/lib.sh"

# OpenXLA "Tiled layout": F32[3,5] with T(2,2) tiles: element (2,3) lies
# in tile (1,1) of a 2x3 tile grid (tile 1*3+1 = 4, 4 elements each), at
# (0,1) inside it: 4*4 + 1 = 17 ("element (2,3) is at 17"); in bytes 68.
X='xla.tiled(2,2)'
run where "$X" --shape 3,5 --dtype fp32 --at 2,3 --elements
expect_rc 0 "where --elements"; expect_out "17" "where --elements"
run where "$X" --shape 3,5 --dtype fp32 --at 2,3
expect_out "68" "where in bytes"
run where "$X" --shape 3,5 --dtype fp32 --at 2,3 --elements --json
expect_out '{"coord": [2, 3], "element": 17}' "where --elements --json"
run at "$X" --shape 3,5 --dtype fp32 --offset 17 --elements
expect_out "(2,3)" "at --elements"
run at "$X" --shape 3,5 --dtype fp32 --offset 17 --elements --json
expect_out '{"element": 17, "kind": "data", "coord": [2, 3], "byte": 0, "element_bytes": 1}' "at --elements --json"
# the grid is 4x6 = 24 elements: 23 is the pad (3,5), 24 is outside
run at "$X" --shape 3,5 --dtype fp32 --offset 23 --elements
expect_out "pad (3,5)" "at --elements on a pad"
run at "$X" --shape 3,5 --dtype fp32 --offset 24 --elements
expect_rc 1 "at --elements past the end"
expect_err "lay: element 24 is outside the layout buffer (24 elements)" "at --elements past the end"
run where "$X" --shape 3,5 --elements --at 2,3 --elements
expect_rc 2 "--elements twice"
run pack "$X" --shape 3,5 --elements
expect_rc 2 "--elements on pack"
expect_err "lay: pack: option '--elements' does not apply
Try 'lay --help'" "--elements on pack"

# int4 (CPU side low nibble first): hex 10 32 54 is the 2x3 tensor
# 0 1 2 / 3 4 5. xla.tiled(2,2) pads b to 4 and stores the tiles
# (0,0) (0,1) (1,0) (1,1) | (0,2) pad (1,2) pad = 0 1 3 4 2 0 5 0:
# 10 43 02 05.
printf '\020\062\124' >"$T/i4"
run pack "$X" --shape 2,3 --dtype int4 -i "$T/i4" -o "$T/o4"
expect_rc 0 "pack int4"
[ "$(hex "$T/o4")" = "10 43 02 05" ] || fail "pack int4: $(hex "$T/o4")"
run unpack "$X" --shape 2,3 --dtype int4 -i "$T/o4" -o "$T/b4"
[ "$(hex "$T/b4")" = "10 32 54" ] || fail "unpack int4: $(hex "$T/b4")"
# (1,2) is element 6 (byte 3); byte 3's first element is (1,2); 7 a pad
run where "$X" --shape 2,3 --dtype int4 --at 1,2 --elements
expect_out "6" "where int4 --elements"
run where "$X" --shape 2,3 --dtype int4 --at 1,2
expect_out "3" "where int4 in bytes"
run at "$X" --shape 2,3 --dtype int4 --offset 3
expect_out "(1,2)" "at int4 byte"
run at "$X" --shape 2,3 --dtype int4 --offset 7 --elements
expect_out "pad (1,3)" "at int4 --elements"
run show "$X" --shape 2,3 --dtype int4
expect_out "(0,0), (0,1)
(1,0), (1,1)
(0,2), pad x1
(1,2), pad x1" "show int4 lists every element"
# a short input names the packed size
printf '\020\062' >"$T/s4"
run pack "$X" --shape 2,3 --dtype int4 -i "$T/s4" -o "$T/o"
expect_rc 1 "short int4 input"
expect_err "lay: input is 2 bytes, xla.tiled(2,2) on 2x3 int4 needs 3" "short int4 input"

# with a tiny slab budget the CLI would stream in slabs: a 4-bit plan
# runs whole (lay_plan_slabs refuses it), with the same bytes
LAY_SLAB_BYTES=8 "$LAY" pack "$X" --shape 2,3 --dtype int4 -i "$T/i4" -o "$T/o4s" 2>"$T/err" ||
  fail "pack int4 with LAY_SLAB_BYTES: $(cat "$T/err")"
[ "$(hex "$T/o4s")" = "10 43 02 05" ] || fail "pack int4 in slabs: $(hex "$T/o4s")"
LC_ALL=C awk 'BEGIN { for (i = 0; i < 4096; i++) printf "%c", (i * 7) % 256 }' >"$T/big4"
LAY_SLAB_BYTES=64 "$LAY" pack core.nhwc --shape 1,64,4,32 --dtype int4 -i "$T/big4" -o "$T/b1" &&
  LAY_NO_STREAM=1 "$LAY" pack core.nhwc --shape 1,64,4,32 --dtype int4 -i "$T/big4" -o "$T/b2" &&
  cmp -s "$T/b1" "$T/b2" && cmp -s "$T/b1" "$T/big4" || fail "int4 pack with and without slabs differ"

# convert with int4 on both sides: NCHW 1x2x1x3 (c0: 0 1 2, c1: 3 4 5)
# to NHWC: 0 3 1 4 2 5 = 30 41 52
run convert core.nchw core.nhwc --shape 1,2,1,3 --dtype int4 -i "$T/i4" -o "$T/c4"
[ "$(hex "$T/c4")" = "30 41 52" ] || fail "convert int4: $(hex "$T/c4")"

# uint4 2x2 a9 fe = 9 a / e f; NCHW -> NHWC of 1x2x1x2 gives 9 e a f
printf '\251\376' >"$T/u4"
run convert core.nchw core.nhwc --shape 1,2,1,2 --dtype uint4 -i "$T/u4" -o "$T/cu4"
[ "$(hex "$T/cu4")" = "e9 fa" ] || fail "convert uint4: $(hex "$T/cu4")"

# int64: NCHW 1x2x1x2 of 1, 2, -1, 2^40 to NHWC: 1, -1, 2, 2^40
printf '\001\0\0\0\0\0\0\0\002\0\0\0\0\0\0\0\377\377\377\377\377\377\377\377\0\0\0\0\0\001\0\0' >"$T/i64"
run convert core.nchw core.nhwc --shape 1,2,1,2 --dtype int64 -i "$T/i64" -o "$T/c64"
[ "$(hex "$T/c64")" = "01 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff 02 00 00 00 00 00 00 00 00 00 00 00 00 01 00 00" ] ||
  fail "convert int64: $(hex "$T/c64")"
run where core.nchw --shape 1,2,1,2 --dtype i8 --at 0,1,0,1
expect_out "24" "int64 (numpy i8) is 8 bytes"

# fp8: bytes moved as they are, numpy's ml_dtypes names accepted
printf '\070\176\302\001' >"$T/f8"
for t in fp8e4m3 float8_e4m3fn fp8e5m2 float8_e5m2; do
  run convert core.nchw core.nhwc --shape 1,2,1,2 --dtype $t -i "$T/f8" -o "$T/c8"
  [ "$(hex "$T/c8")" = "38 c2 7e 01" ] || fail "convert $t: $(hex "$T/c8")"
done
run info core.nchw --shape 1,2,1,2 --dtype float8_e5m2
grep -q "^cpu side:  1x2x1x2 fp8e5m2, 4 bytes$" "$T/out" || fail "info fp8e5m2: $(cat "$T/out")"

# a list of int4 numbers in a test block is refused at its position
printf 'layout n4 (a) : int4 -> [a]\ntest "l" {\n  use n4 shape [4]\n  pack [0, 1, 2, 3] == hex("10 32")\n}\n' >"$T/l.lay"
run test "$T/l.lay"
expect_rc 1 "int4 list in a test"
grep -q "l.lay:4:3: test 'l' (line 2) failed: a list of int4 elements: write hex(\"..\") (two elements a byte, see LANGUAGE.md)" "$T/out" ||
  fail "int4 list in a test: $(cat "$T/out" "$T/err")"

finish
