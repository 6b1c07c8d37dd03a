#!/bin/sh
# tests/cli/names.sh: every command of BRIEF section 3 on every stdlib name:
# info, show, where, at, pack, unpack (and back), on a shape that is a
# multiple of no block, batch 2. Every name the stdlib defines must have a
# way to instantiate it below (its arguments, its shape), or the test fails.
#   sh names.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# A name with parameters gets arguments; a name of another rank, its shape.
ref_of() {
  case $1 in
  amd.hcwnc) echo "amd.hcwnc(3)" ;;
  amd.hcwnc_q) echo "amd.hcwnc_q(4,0.25,-3)" ;;
  amd.hcwnc_bf16) echo "amd.hcwnc_bf16(8)" ;;
  kneron.*_q | kneron.*_qc) echo "$1(0.5,2)" ;;
  ti.tidl_q*) echo "$1(tensor_scale=4,pad_l=1,pad_t=2,pad_ch=1)" ;;
  ti.tidl_nhwc_q*) echo "$1(tensor_scale=4,pad_l=1,pad_t=2,pad_ch=1)" ;;
  ti.tidl) echo "ti.tidl(1,2,1,0,1)" ;;
  rknn.nc1hwc2) echo "rknn.nc1hwc2(16)" ;;
  rknn.mm_a) echo "rknn.mm_a(16)" ;;
  rknn.mm_b) echo "rknn.mm_b(32,32)" ;;
  xla.tiled) echo "xla.tiled(8,128)" ;;
  xla.tiled_nd) echo "xla.tiled_nd(2,4)" ;;
  xla.tiled_minor) echo "xla.tiled_minor(4)" ;;
  xla.tiled3) echo "xla.tiled3(2,4)" ;;
  mlir.pack_nc | mlir.pack_kc) echo "$1(8,32)" ;;
  mlir.pack_kcrs_sr) echo "mlir.pack_kcrs_sr(8,32)" ;;
  mlir.pack_cba_b) echo "mlir.pack_cba_b(2,pad=3)" ;;
  mlir.pack_ba) echo "mlir.pack_ba(32,8)" ;;
  mlir.pack) echo "mlir.pack([1,3],[4,8],[3,1,0,2],3)" ;;
  *) echo "$1" ;;
  esac
}
shape_of() {
  case $1 in
  amd.ab | core.ab | core.flat2) echo 3,17 ;;
  core.flat1) echo 37 ;;
  core.flat3) echo 2,3,5 ;;
  core.flat5) echo 2,3,1,4,5 ;;
  rknn.*mm_*) echo 37,70 ;;
  xla.tiled | xla.tiled_minor | xla.tiled_8x128_2x1 | xla.tiled_32x128_4x1 | mlir.pack_nc | mlir.pack_kc) echo 13,130 ;;
  xla.tiled3 | mlir.pack_cba_b) echo 2,5,7 ;;
  onednn.nCdhw16c | onednn.gOIhw16i16o | trt.dhwc8 | trt.cdhw32 | trt.dhwc) echo 2,19,3,5,7 ;;
  trt.dla_hwc4) echo 2,3,5,7 ;;   # C can only be 1, 3 or 4
  trt.*_nd) echo 2,3,19,5,7 ;;    # leading dimensions kept outermost
  *) echo 2,19,5,7 ;;
  esac
}

# Under valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) a name's eight
# commands take about 8 s: there every fourth name runs, which still covers
# each command and kind of layout; the plain and ASan+UBSan suites run all.
every=1
[ -n "${LAY_UNDER_VALGRIND:-}" ] && every=4
n=0
for name in $(echo list | "$LAY" repl); do
  n=$((n + 1))
  [ $((n % every)) -eq 0 ] || continue
  ref=$(ref_of "$name")
  shape=$(shape_of "$name")
  run info "$ref" --shape "$shape"
  expect_rc 0 "info $ref"
  bytes=$(sed -n 's/^cpu side:  [0-9x]* [a-z0-9]*, \([0-9]*\) bytes$/\1/p' "$T/out")
  [ -n "$bytes" ] || { fail "info $ref: no cpu side line: $(cat "$T/out")"; continue; }
  run show "$ref" --shape "$shape" --limit 10
  expect_rc 0 "show $ref"
  origin=$(echo "$shape" | sed 's/[0-9][0-9]*/0/g')
  run where "$ref" --shape "$shape" --at "$origin"
  expect_rc 0 "where $ref"
  run at "$ref" --shape "$shape" --offset 0
  expect_rc 0 "at $ref"
  head -c "$bytes" /dev/urandom >"$T/x.bin"
  run pack "$ref" --shape "$shape" -i "$T/x.bin" -o "$T/y.bin"
  expect_rc 0 "pack $ref"
  run unpack "$ref" --shape "$shape" -i "$T/y.bin" -o "$T/z.bin"
  expect_rc 0 "unpack $ref"
  run pack "$ref" --shape "$shape" -i "$T/z.bin" -o "$T/y2.bin"
  expect_rc 0 "pack $ref again"
  # pack(unpack(pack(x))) == pack(x): exact for the lossless layouts, and
  # the fixed point of the lossy ones (quantized, byte planes, Kneron's
  # 16-bit words, which keep bit 0 clear)
  cmp -s "$T/y.bin" "$T/y2.bin" || fail "$ref: pack(unpack(pack(x))) != pack(x)"
  case $name in
  *_q | *_qc | *_q8 | *_qu8 | *_q16 | *_qu16 | *hl | *hl_* | *_bf16) ;;
  *8w1c16b | *raw_16b) ;;
  *) cmp -s "$T/x.bin" "$T/z.bin" || fail "$ref: unpack(pack(x)) != x" ;;
  esac
done
[ "$n" -ge 45 ] || fail "only $n stdlib names listed"
finish
