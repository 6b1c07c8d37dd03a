#!/bin/sh
# tests/cli/explain.sh: lay show / info / where / at, checked against the
# vendor docs: AMD's HCWNC4 table for the RGB image (H=2, W=2, C=3: entry
# (h, w) holds R, G, B, 0, so byte = (h*2 + w)*4 + c), and Qualcomm's
# crouton listing on 1x3x5x30.
#   sh explain.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# ---- show
run show qnn.crouton --shape 1,3,5,30
expect_rc 0 "show qnn.crouton"
head -n 6 "$T/out" >"$T/head"
cat >"$T/want" <<'X'
(0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2
(0,0,1,0), (0,0,1,1) ... (0,0,1,29), pad x2
(0,0,2,0), (0,0,2,1) ... (0,0,2,29), pad x2
(0,0,3,0), (0,0,3,1) ... (0,0,3,29), pad x2
(0,0,4,0), (0,0,4,1) ... (0,0,4,29), pad x98
(0,1,0,0), (0,1,0,1) ... (0,1,0,29), pad x2
X
cmp -s "$T/head" "$T/want" || fail "show qnn.crouton begins:
$(cat "$T/head")"
# 3 x 5 data rows, nothing after the last one but its padding.
[ "$(wc -l <"$T/out")" -eq 15 ] || fail "show qnn.crouton: $(wc -l <"$T/out") lines"
[ "$(tail -n 1 "$T/out")" = "(0,2,4,0), (0,2,4,1) ... (0,2,4,29), pad x1378" ] ||
  fail "show qnn.crouton ends: $(tail -n 1 "$T/out")"
grep -q "$(printf '\033')" "$T/out" && fail "show: colour codes in a file"

run show amd.hcwnc4 --shape 1,3,2,2
expect_rc 0 "show amd.hcwnc4"
expect_out "(0,0,0,0), (0,1,0,0), (0,2,0,0), pad x1
(0,0,0,1), (0,1,0,1), (0,2,0,1), pad x1
(0,0,1,0), (0,1,1,0), (0,2,1,0), pad x1
(0,0,1,1), (0,1,1,1), (0,2,1,1), pad x1" "show amd.hcwnc4"

run show qnn.crouton --shape 1,3,5,30 --limit 40
expect_rc 0 "show --limit 40"
expect_out "(0,0,0,0), (0,0,0,1) ... (0,0,0,29), pad x2
(0,0,1,0), (0,0,1,1) ... (0,0,1,7)
... 2008 more elements" "show --limit 40"

# The default limit cuts a big buffer; --limit 0 lists it all.
run show amd.hcwnc4 --shape 1,3,64,64
expect_rc 0 "show (default limit)"
[ "$(tail -n 1 "$T/out")" = "... 12288 more elements" ] ||
  fail "show: the default limit ends with '$(tail -n 1 "$T/out")'"
run show amd.hcwnc4 --shape 1,3,64,64 --limit 0
expect_rc 0 "show --limit 0"
[ "$(wc -l <"$T/out")" -eq 4096 ] || fail "show --limit 0: $(wc -l <"$T/out") lines"

# Byte planes are marked.
run show kneron.1w16c8bhl --shape 1,20,1,1
expect_rc 0 "show kneron.1w16c8bhl"
expect_out "lo(0,0,0,0), lo(0,1,0,0) ... lo(0,15,0,0)
hi(0,0,0,0), hi(0,1,0,0) ... hi(0,15,0,0)
lo(0,16,0,0), lo(0,17,0,0) ... lo(0,19,0,0), pad x12
hi(0,16,0,0), hi(0,17,0,0) ... hi(0,19,0,0), pad x12" "show kneron.1w16c8bhl"

run show amd.hcwnc5 --shape 1,3,2,2
expect_rc 1 "show unknown"
expect_err "lay: unknown layout 'amd.hcwnc5' (did you mean 'amd.hcwnc', 'amd.hcwnc4' or 'amd.hcwnc8'?)" "show unknown"

# ---- info
run info amd.hcwnc4 --shape 1,3,2,2
expect_rc 0 "info amd.hcwnc4"
head -n 3 "$T/out" >"$T/head"
cat >"$T/want" <<'X'
format:    amd.hcwnc4
cpu side:  1x3x2x2 int8, 12 bytes
layout:    [h=2, c/4=1, w=2, n=1, c%4=4] int8, 16 bytes
X
cmp -s "$T/head" "$T/want" || fail "info amd.hcwnc4:
$(cat "$T/out")"
# Then the plan in words (lay_plan_describe): its sides, the boxes with
# their kernels and loops, the table bytes.
grep -q "^plan: pack, 12 bytes in, 16 bytes out\$" "$T/out" || fail "info: no plan line"
grep -q "^  box 0: data, block copy 3, row pads 0+1, base src 0 dst 0, loops 4(src 1, dst 4) 3(src 4, dst 1)$" "$T/out" ||
  fail "info: the loops and kernel: $(cat "$T/out")"
grep -q "^tables: 0 bytes; the plan holds [0-9]* bytes in all\$" "$T/out" ||
  fail "info: no table line: $(cat "$T/out")"

# info FROM TO: the convert plan, one plan with no intermediate buffer even
# when the channel blocks do not nest (c%3 against c%4: a table loop)
run info 'amd.hcwnc(3)' amd.hcwnc4 --shape 1,5,2,2
expect_rc 0 "info convert"
head -n 3 "$T/out" >"$T/head"
cat >"$T/want" <<'X'
convert:   amd.hcwnc(3) -> amd.hcwnc4
source:    amd.hcwnc(3) on 1x5x2x2, int8, 24 bytes
target:    [h=2, c/4=2, w=2, n=1, c%4=4] int8, 32 bytes
X
cmp -s "$T/head" "$T/want" || fail "info convert: $(cat "$T/out")"
grep -q "^plan: convert, 24 bytes in, 32 bytes out\$" "$T/out" || fail "info convert: no plan"
grep -q "element copy through offset pairs, .* 5(table of offset pairs)\$" "$T/out" ||
  fail "info convert: no table loop over c: $(cat "$T/out")"

run info amd.hcwnc8 --shape 1,2048,7,7 --dtype bf16
expect_rc 0 "info amd.hcwnc8"
grep -q "^cpu side:  1x2048x7x7 bf16, 200704 bytes\$" "$T/out" || fail "info hcwnc8: $(cat "$T/out")"
# AMD: hw_shape [7, 256, 7, 1, 8].
grep -q "^layout:    \[h=7, c/8=256, w=7, n=1, c%8=8\] bf16, 200704 bytes\$" "$T/out" ||
  fail "info hcwnc8: $(cat "$T/out")"

run info kneron.1w16c8bhl --shape 1,20,1,1
expect_rc 0 "info kneron.1w16c8bhl"
grep -q "^planes:    lo hi\$" "$T/out" || fail "info hl: no planes line: $(cat "$T/out")"

# ---- where: coordinate (n,c,h,w) -> byte, by hand from AMD's table.
where() { # N,C,H,W EXPECTED [--dtype T]
  at=$1
  want=$2
  shift 2
  run where amd.hcwnc4 --shape 1,3,2,2 --at "$at" "$@"
  expect_rc 0 "where $at $*"
  expect_out "$want" "where $at $*"
}
where 0,0,0,0 0  # R[0,0]
where 0,1,0,0 1  # G[0,0]
where 0,0,0,1 4  # R[0,1]
where 0,1,0,1 5  # G[0,1]
where 0,1,1,0 9  # G[1,0]
where 0,2,1,0 10 # B[1,0]
where 0,2,1,1 14 # B[1,1]
where 0,1,1,0 18 --dtype bf16 # AMD's BF16 figure: 8 bytes per pixel
where 0,2,1,1 28 --dtype bf16

run where amd.hcwnc4 --shape 1,3,2,2 --at 0,3,0,0
expect_rc 1 "where outside the tensor"
head -c 5 "$T/err" | grep -q "^lay: " || fail "where outside: $(cat "$T/err")"
[ "$(wc -l <"$T/err")" -eq 1 ] || fail "where outside: not one line"
run where amd.hcwnc4 --shape 1,3,2,2 --at 0,x
expect_rc 1 "where --at 0,x"
expect_err "lay: bad --at '0,x': 'x' is not a coordinate" "where --at 0,x"

# ---- at: byte -> coordinate.
at() { # OFFSET EXPECTED FORMAT SHAPE [--dtype T]
  off=$1
  want=$2
  fmt=$3
  shape=$4
  shift 4
  run at "$fmt" --shape "$shape" --offset "$off" "$@"
  expect_rc 0 "at $fmt $off $*"
  expect_out "$want" "at $fmt $off $*"
}
at 0 "(0,0,0,0)" amd.hcwnc4 1,3,2,2
at 9 "(0,1,1,0)" amd.hcwnc4 1,3,2,2
at 14 "(0,2,1,1)" amd.hcwnc4 1,3,2,2
at 3 "pad (0,3,0,0)" amd.hcwnc4 1,3,2,2
at 15 "pad (0,3,1,1)" amd.hcwnc4 1,3,2,2
at 0x9 "(0,1,1,0)" amd.hcwnc4 1,3,2,2
at 19 "(0,1,1,0) byte 1 of 2" amd.hcwnc4 1,3,2,2 --dtype bf16
at 30 "pad (0,0,0,30)" qnn.crouton 1,3,5,30
at 32 "(0,0,1,0)" qnn.crouton 1,3,5,30
at 1 "(0,1,0,0) plane lo" kneron.1w16c8bhl 1,20,1,1
at 17 "(0,1,0,0) plane hi" kneron.1w16c8bhl 1,20,1,1
at 36 "pad (0,20,0,0) plane lo" kneron.1w16c8bhl 1,20,1,1
at 52 "pad (0,20,0,0) plane hi" kneron.1w16c8bhl 1,20,1,1

run at amd.hcwnc4 --shape 1,3,2,2 --offset 16
expect_rc 1 "at past the end"
expect_err "lay: offset 16 is outside the 16-byte buffer" "at past the end"
run at amd.hcwnc4 --shape 1,3,2,2 --offset -1
expect_rc 1 "at -1"
expect_err "lay: bad --offset '-1': expected a non-negative integer" "at -1"

finish
