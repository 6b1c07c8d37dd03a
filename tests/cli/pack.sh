#!/bin/sh
# tests/cli/pack.sh: lay pack / unpack / convert through files and pipes,
# and every bad input: exit status, the exact one-line message, no output
# file left behind, a pre-existing output file untouched.
#   sh pack.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# AMD's RGB example, N=1 C=3 H=2 W=2 int8, NCHW: R00 R01 R10 R11 G.. B..
printf '\001\002\003\004\021\022\023\024\041\042\043\044' >"$T/rgb.bin"
# HCWNC4 by hand (AMD's table): one entry R, G, B, 0 per pixel (h, w).
want="01 11 21 00 02 12 22 00 03 13 23 00 04 14 24 00"

run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/rgb.bin" -o "$T/hw.bin"
expect_rc 0 "pack to a file"
[ -s "$T/out" ] && fail "pack -o wrote to stdout"
[ "$(hex "$T/hw.bin")" = "$want" ] || fail "pack: $(hex "$T/hw.bin")"

# stdin -> stdout gives the same bytes.
"$LAY" pack amd.hcwnc4 --shape 1,3,2,2 <"$T/rgb.bin" >"$T/hw2.bin" || fail "pack via pipes"
cmp -s "$T/hw.bin" "$T/hw2.bin" || fail "pack via pipes differs"
"$LAY" pack amd.hcwnc4 --shape 1,3,2,2 -i - -o - <"$T/rgb.bin" >"$T/hw3.bin" || fail "pack -i - -o -"
cmp -s "$T/hw.bin" "$T/hw3.bin" || fail "pack -i - -o - differs"

# An existing output file is replaced on success, keeping normal permissions.
printf 'old' >"$T/hw4.bin"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/rgb.bin" -o "$T/hw4.bin"
expect_rc 0 "pack over an existing file"
cmp -s "$T/hw.bin" "$T/hw4.bin" || fail "pack over an existing file: wrong bytes"
[ -r "$T/hw4.bin" ] || fail "output not readable"

# Round trip through files.
run unpack amd.hcwnc4 --shape 1,3,2,2 -i "$T/hw.bin" -o "$T/back.bin"
expect_rc 0 "unpack"
cmp -s "$T/rgb.bin" "$T/back.bin" || fail "unpack(pack(x)) != x"

# --threads does not change the bytes.
run pack amd.hcwnc4 --shape 1,3,2,2 --threads 2 -i "$T/rgb.bin" -o "$T/hw5.bin"
expect_rc 0 "pack --threads 2"
cmp -s "$T/hw.bin" "$T/hw5.bin" || fail "--threads 2 changes the output"
# ... on a buffer large enough to be split (the planner runs anything under
# 64 KiB on one thread): 1x3x224x224 into HCWNC4, 196 KiB
head -c 150528 /dev/urandom >"$T/big.bin"
run pack amd.hcwnc4 --shape 1,3,224,224 -i "$T/big.bin" -o "$T/big1.bin"
expect_rc 0 "pack big, one thread"
run pack amd.hcwnc4 --shape 1,3,224,224 --threads 4 -i "$T/big.bin" -o "$T/big4.bin"
expect_rc 0 "pack big --threads 4"
cmp -s "$T/big1.bin" "$T/big4.bin" || fail "--threads 4 changes a split output"
[ "$(wc -c <"$T/big4.bin")" -eq 200704 ] || fail "pack big: $(wc -c <"$T/big4.bin") bytes"

# A larger tensor, several dtypes, round trip and byte counts.
head -c 2880 /dev/urandom >"$T/big.bin" # 1x10x6x6 fp32 = 1440 int16 = 2880 int8
for dt in int8:2880 int16:1440 fp32:720 bf16:1440 uint8:2880; do
  t=${dt%%:*}
  case $t in int8 | uint8) shape=1,10,12,24 ;; int16 | bf16) shape=1,10,12,12 ;; fp32) shape=1,10,6,12 ;; esac
  run pack amd.hcwnc8 --shape $shape --dtype $t -i "$T/big.bin" -o "$T/big.hw"
  expect_rc 0 "pack amd.hcwnc8 $t"
  run unpack amd.hcwnc8 --shape $shape --dtype $t -i "$T/big.hw" -o "$T/big.back"
  expect_rc 0 "unpack amd.hcwnc8 $t"
  cmp -s "$T/big.bin" "$T/big.back" || fail "amd.hcwnc8 $t round trip differs"
  # 10 channels pad to 16: the buffer is 16/10 of the input.
  n=$(wc -c <"$T/big.hw")
  [ "$n" -eq $((2880 * 16 / 10)) ] || fail "amd.hcwnc8 $t: buffer is $n bytes"
done

# convert == unpack then pack, through files.
convert_check() { # FROM TO SHAPE DTYPE CPU-BYTES
  head -c "$5" /dev/urandom >"$T/x.bin"
  "$LAY" pack "$1" --shape "$3" --dtype "$4" -i "$T/x.bin" -o "$T/a.bin" || fail "convert_check: pack $1"
  run convert "$1" "$2" --shape "$3" --dtype "$4" -i "$T/a.bin" -o "$T/c.bin"
  expect_rc 0 "convert $1 $2 --shape $3"
  "$LAY" unpack "$1" --shape "$3" --dtype "$4" -i "$T/a.bin" -o "$T/u.bin" || fail "convert_check: unpack $1"
  "$LAY" pack "$2" --shape "$3" --dtype "$4" -i "$T/u.bin" -o "$T/p.bin" || fail "convert_check: pack $2"
  cmp -s "$T/c.bin" "$T/p.bin" || fail "convert $1 $2 --shape $3 --dtype $4 differs from unpack+pack"
}
convert_check kneron.4w4c8b amd.hcwnc4 1,5,3,6 int8 90
convert_check amd.hcwnc8 kneron.1w16c8b 2,19,3,5 int8 570
convert_check 'ti.tidl(pad_l=1,pad_r=1,pad_t=1,pad_b=1)' amd.hcwnc4 1,3,4,5 int16 120
convert_check qnn.crouton qnn.d32 1,9,10,40 uint8 3600

# The quickstart's NHWC frame straight to HCWNC4 gives the packed NCHW image.
printf '\001\021\041\002\022\042\003\023\043\004\024\044' >"$T/nhwc.bin"
run convert core.nhwc amd.hcwnc4 --shape 1,2,2,3 -i "$T/nhwc.bin" -o "$T/hw6.bin"
expect_rc 0 "convert core.nhwc amd.hcwnc4"
cmp -s "$T/hw.bin" "$T/hw6.bin" || fail "convert core.nhwc amd.hcwnc4: $(hex "$T/hw6.bin")"

# ---- Failures: exit 1, one exact line, no output file, nothing clobbered.
mkdir "$T/od"
bad() { # EXPECTED-MESSAGE ARGS... (run twice: no output file; an existing one)
  msg=$1
  shift
  rm -f "$T/od/o.bin"
  run "$@" -o "$T/od/o.bin"
  expect_rc 1 "lay $*"
  expect_err "lay: $msg" "lay $*"
  [ -e "$T/od/o.bin" ] && fail "lay $*: left an output file"
  printf 'keep me' >"$T/od/o.bin"
  run "$@" -o "$T/od/o.bin"
  expect_rc 1 "lay $* (existing output)"
  [ "$(cat "$T/od/o.bin")" = "keep me" ] || fail "lay $*: clobbered the existing output"
  [ "$(ls -A "$T/od")" = "o.bin" ] || fail "lay $*: left files behind: $(ls -A "$T/od")"
  rm -f "$T/od/o.bin"
}
head -c 11 "$T/rgb.bin" >"$T/short.bin"
bad "input is 11 bytes, amd.hcwnc4 on 1x3x2x2 int8 needs 12" \
  pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/short.bin"
cat "$T/rgb.bin" "$T/rgb.bin" >"$T/long.bin"
bad "input is 24 bytes, amd.hcwnc4 on 1x3x2x2 int8 needs 12
hint: that is 12 elements of 2 bytes: give their type, --dtype fp16, bf16, int16, uint16" \
  pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/long.bin"
# an endless input is read only as far as it must be
bad "input is more than 12 bytes, amd.hcwnc4 on 1x3x2x2 int8 needs 12" \
  pack amd.hcwnc4 --shape 1,3,2,2 -i /dev/zero
bad "input is 12 bytes, amd.hcwnc4 on 1x3x2x2 int8 needs 16
hint: that is the size of the CPU-side buffer: did you mean lay pack?" \
  unpack amd.hcwnc4 --shape 1,3,2,2 -i "$T/rgb.bin"
bad "input is 12 bytes, amd.hcwnc4 on 1x3x2x2 fp32 needs 48" \
  pack amd.hcwnc4 --shape 1,3,2,2 --dtype float32 -i "$T/rgb.bin"
bad "unknown layout 'amd.hcwnc5' (did you mean 'amd.hcwnc', 'amd.hcwnc4' or 'amd.hcwnc8'?)" \
  pack amd.hcwnc5 --shape 1,3,2,2 -i "$T/rgb.bin"
bad "unknown layout 'amd.hcwnc5' (did you mean 'amd.hcwnc', 'amd.hcwnc4' or 'amd.hcwnc8'?)" \
  convert amd.hcwnc4 amd.hcwnc5 --shape 1,3,2,2 -i "$T/hw.bin"
bad "amd.hcwnc4: shape has 3 dimensions, the layout has 4" \
  pack amd.hcwnc4 --shape 1,3,4 -i "$T/rgb.bin"
bad "bad --shape '1,0,2,2': dimension 1 is 0; sizes must be at least 1" \
  pack amd.hcwnc4 --shape 1,0,2,2 -i "$T/rgb.bin"
bad "bad --shape '1,-3,2,2': dimension 1 is -3; sizes must be at least 1" \
  pack amd.hcwnc4 --shape 1,-3,2,2 -i "$T/rgb.bin"
bad "bad --shape '1,3,4294967296,4294967296': the tensor's byte size overflows 64 bits" \
  pack amd.hcwnc4 --shape 1,3,4294967296,4294967296 -i "$T/rgb.bin"
bad "bad --shape '1,3,2,99999999999999999999': '99999999999999999999' is too large" \
  pack amd.hcwnc4 --shape 1,3,2,99999999999999999999 -i "$T/rgb.bin"
# The CPU side fits, the padded buffer (4 channels of int32) does not.
bad "amd.hcwnc4: buffer size overflows 64 bits" \
  pack amd.hcwnc4 --shape 1,1,1,4611686018427387903 --dtype int32 -i "$T/rgb.bin"
bad "bad --shape '1,x': 'x' is not a number" \
  pack amd.hcwnc4 --shape 1,x -i "$T/rgb.bin"
bad "bad --shape '': expected sizes like 1,3,224,224" \
  pack amd.hcwnc4 --shape '' -i "$T/rgb.bin"
bad "bad --shape '1,2,3,4,5,6,7,8,9': more than 8 dimensions" \
  pack amd.hcwnc4 --shape 1,2,3,4,5,6,7,8,9 -i "$T/rgb.bin"
bad "cannot read '$T/nope.bin': No such file or directory" \
  pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/nope.bin"
bad "unknown --dtype 'float3' (did you mean 'float32'?) (fp32, fp16, bf16, int8, uint8, int16, uint16, int32, uint32, int64, uint64, int4, uint4, fp8e4m3, fp8e5m2 or numpy's names)" \
  pack amd.hcwnc4 --shape 1,3,2,2 --dtype float3 -i "$T/rgb.bin"
bad "kneron.1w16c8bhl: --dtype int8 contradicts the layout's int16" \
  pack kneron.1w16c8bhl --shape 1,3,2,2 --dtype int8 -i "$T/rgb.bin"
bad "bad --threads 'two': expected a non-negative integer" \
  pack amd.hcwnc4 --shape 1,3,2,2 --threads two -i "$T/rgb.bin"

# A format reference whose instantiation fails: one line quoting the
# argument as given, the template's own position in parentheses.
bad "ti.tidl(pad_l=-1): a pad must not be negative, 'pad_l' is -1 (stdlib/ti.lay:26:54)" \
  pack 'ti.tidl(pad_l=-1)' --shape 1,3,2,2 -i "$T/rgb.bin"
bad "amd.hcwnc(0): digit c/x: 0 is not a positive integer (stdlib/amd.lay:13:39)" \
  pack 'amd.hcwnc(0)' --shape 1,3,2,2 -i "$T/rgb.bin"
bad "ti.tidl(pad_l=abc): argument 'pad_l': unknown name 'abc'" \
  pack 'ti.tidl(pad_l=abc)' --shape 1,3,2,2 -i "$T/rgb.bin"
bad "ti.tidl(pad_q=1): unknown parameter 'pad_q' of 'ti.tidl' (did you mean 'pad_l', 'pad_r' or 'pad_t'?); ti.tidl takes pad_l, pad_r, pad_t, pad_b, pad_ch and ch_pitch" \
  pack 'ti.tidl(pad_q=1)' --shape 1,3,2,2 -i "$T/rgb.bin"
bad "amd.hcwnc(0): digit c/x: 0 is not a positive integer (stdlib/amd.lay:13:39)" \
  convert 'amd.hcwnc(0)' amd.hcwnc4 --shape 1,3,2,2 -i "$T/rgb.bin"

# Per-channel quantize along an integer axis, numpy style: the axis of the
# tensor at that point of the chain, here after a transpose (axis 0 of the
# 3x2 transposed tensor is the input's columns, scales 1, 2, 4).
# x = [[1,2,3],[4,5,6]] -> transposed [[1,4],[2,5],[3,6]] / [1,2,4] per row.
cat >"$T/q.lay" <<'X'
transform t0 (x: fp32[2,3]) =
    transpose([1,0]) | quantize(scale = [1,2,4], zero_point = 0, to = int8, axis = 0)
transform t1 (x: fp32[2,3]) =
    transpose([1,0]) | quantize(scale = [1,2,4], zero_point = 0, to = int8, axis = -2)
X
printf '\000\000\200\077\000\000\000\100\000\000\100\100\000\000\200\100\000\000\240\100\000\000\300\100' >"$T/x6.bin"
for t in t0 t1; do
  run -f "$T/q.lay" pack $t --shape 2,3 -i "$T/x6.bin" -o "$T/q.bin"
  expect_rc 0 "pack $t"
  # 1/1 4/1; 2/2 5/2 (2.5 rounds half to even); 3/4 6/4 (0.75, 1.5)
  [ "$(hex "$T/q.bin")" = "01 04 01 02 01 02" ] || fail "pack $t: $(hex "$T/q.bin")"
done

# An output path in a missing folder fails cleanly.
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/rgb.bin" -o "$T/no/such/dir/o.bin"
expect_rc 1 "-o in a missing folder"
head -n 1 "$T/err" | grep -q "^lay: cannot write '$T/no/such/dir/o.bin': " ||
  fail "-o in a missing folder: $(cat "$T/err")"

finish
