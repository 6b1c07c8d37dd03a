#!/bin/sh
# examples/quickstart.sh: installs what is missing, builds lay, and packs a
# tiny RGB image into AMD's HCWNC4 with the embedded stdlib, then back.
#   sh examples/quickstart.sh
set -eu
cd "$(dirname "$0")/.."
. tests/setup.sh
lay_setup

echo "== building lay in build/"
lay_build build lay
lay=build/lay
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== an RGB image, N=1 C=3 H=2 W=2, int8, NCHW: R00 R01 R10 R11 G.. B.."
printf '\001\002\003\004\021\022\023\024\041\042\043\044' > "$tmp/rgb.bin"
od -An -tx1 "$tmp/rgb.bin"

echo "== $lay show amd.hcwnc4 --shape 1,3,2,2   (memory order, AMD's [H, C/4, W, N, 4])"
$lay show amd.hcwnc4 --shape 1,3,2,2

echo "== $lay pack amd.hcwnc4 --shape 1,3,2,2 -i rgb.bin -o hw.bin"
$lay pack amd.hcwnc4 --shape 1,3,2,2 -i "$tmp/rgb.bin" -o "$tmp/hw.bin"
od -An -tx1 "$tmp/hw.bin"
echo "   each pixel is one 4-byte entry R, G, B, 0 (the doc's table)"

echo "== $lay unpack amd.hcwnc4 --shape 1,3,2,2 -i hw.bin -o back.bin"
$lay unpack amd.hcwnc4 --shape 1,3,2,2 -i "$tmp/hw.bin" -o "$tmp/back.bin"
cmp "$tmp/rgb.bin" "$tmp/back.bin" && echo "   round trip: identical"

echo "== $lay convert core.nhwc amd.hcwnc4 --shape 1,2,2,3 (an NHWC frame straight to HCWNC4)"
printf '\001\021\041\002\022\042\003\023\043\004\024\044' > "$tmp/nhwc.bin"
$lay convert core.nhwc amd.hcwnc4 --shape 1,2,2,3 -i "$tmp/nhwc.bin" -o "$tmp/hw2.bin"
cmp "$tmp/hw.bin" "$tmp/hw2.bin" && echo "   same bytes as packing the NCHW image"
