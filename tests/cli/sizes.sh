#!/bin/sh
# tests/cli/sizes.sh: the language's plan-time sizes through the CLI
# (LANGUAGE.md "Sizes known at plan time", "Leading dimensions `...`",
# "Swizzles"): the stdlib layouts that use them (trt.dla_*, trt.*_nd,
# rknn.*_nc1hwc2) pack as their vendor defines them, and their refusals
# are errors naming the requirement.
#   sh sizes.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# kDLA_HWC4, int8, C = 3: [N][H][roundUp(W, 16)][4]; input 0..5 of shape
# (1,3,1,2) (c = 0: 0 1, c = 1: 2 3, c = 2: 4 5).
printf '\000\001\002\003\004\005' >"$T/x.bin"
run pack trt.dla_hwc4 --shape 1,3,1,2 -i "$T/x.bin" -o "$T/y.bin"
expect_rc 0 "pack trt.dla_hwc4"
[ "$(wc -c <"$T/y.bin" | tr -d ' ')" = 64 ] || fail "trt.dla_hwc4: $(wc -c <"$T/y.bin") bytes, expected 64"
[ "$(head -c 8 "$T/y.bin" | od -An -tx1 | tr -s ' \n' '  ' | sed 's/^ //; s/ $//')" = "00 02 04 00 01 03 05 00" ] ||
  fail "trt.dla_hwc4: first bytes $(head -c 8 "$T/y.bin" | od -An -tx1)"

run pack trt.dla_hwc4 --shape 1,2,1,2 -i "$T/x.bin" -o "$T/y.bin"
expect_rc 1 "pack trt.dla_hwc4 with C = 2"
expect_err "lay: trt.dla_hwc4: requirement failed: c in (1, 3, 4) (c = 2) (stdlib/trt.lay:66:11)" "pack trt.dla_hwc4 with C = 2"

# kDLA_LINEAR fp16: lines of 64 bytes.
run where trt.dla_linear --shape 1,1,2,3 --dtype fp16 --at 0,0,1,0
expect_rc 0 "where trt.dla_linear"
expect_out "64" "where trt.dla_linear"
run where trt.dla_linear --shape 1,1,2,3 --dtype fp32 --at 0,0,1,0
expect_err "lay: trt.dla_linear: requirement failed: esize <= 2 (esize = 4) (stdlib/trt.lay:55:11)" "trt.dla_linear fp32"

# rank-polymorphic kCHW4 on 5 dimensions; too few dimensions refused.
run info trt.chw4_nd --shape 2,3,5,2,2
expect_rc 0 "info trt.chw4_nd"
grep -q '^layout:    \[d0=2, d1=3, c/4=2, h=2, w=2, c%4=4\] int8, 192 bytes$' "$T/out" ||
  fail "info trt.chw4_nd: $(cat "$T/out")"
run info trt.chw4_nd --shape 5,2
expect_err "lay: trt.chw4_nd: shape has 2 dimensions, the layout needs at least 3 (its dimensions start with '...') (stdlib/trt.lay:74:17)" "trt.chw4_nd on 2 dimensions"

# NC1HWC2 per family: C2 = 16 / esize on RK3588, 8 / esize on RK3566.
run info rknn.rk3566_nc1hwc2 --shape 1,20,2,2 --dtype fp16
grep -q '^layout:    \[n=1, c/4=5, h=2, w=2, c%4=4\] fp16, 160 bytes$' "$T/out" ||
  fail "info rknn.rk3566_nc1hwc2: $(cat "$T/out")"

# A user's swizzle (CuTe's Swizzle<3,3,3>) and its check.
printf 'layout sw (r, c) -> [r, (c/8) ^ (r%%8), c%%8]\n' >"$T/sw.lay"
run where -f "$T/sw.lay" sw --shape 8,64 --at 3,21
expect_out "205" "where sw"
run check "$T/sw.lay"
expect_rc 0 "check sw.lay"
finish
