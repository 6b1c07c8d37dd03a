#!/bin/sh
# tests/cli/stream.sh: pack, unpack and convert stream their data in slabs
# (issue 16, point 6): under an address-space limit (ulimit -v) of 64 MB,
# inputs of about 118 MB are packed, unpacked and converted, from files and
# through pipes, to files and to stdout, with .npy files and --threads 2,
# and the results are checked against references that do not come from the
# streaming path: bytes computed from the NCHW -> NHWC index formula (read
# with dd), the same data moved image by image (small shapes, one slab,
# whole buffers), and round trips compared with cmp. The whole-buffer path
# (LAY_NO_STREAM=1) fails under the same limit, so the limit is real. An
# input that ends early mid-stream leaves no file and the old target as
# it was.
#   sh stream.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

LIM=65536            # KB of address space the limited runs get
# AddressSanitizer reserves terabytes of address space for its shadow: a
# sanitized lay cannot run under ulimit -v at all. There the same runs go
# without the limit (the bytes are still checked); the plain build's run
# of this test is the one that checks the memory bound.
if ldd "$LAY" 2>/dev/null | grep -q libasan; then
  echo "note: $LAY is built with AddressSanitizer: no ulimit -v"
  LIM=unlimited
fi
N=600 IMG=196608     # 600 images of 3x256x256 int8: 117964800 bytes
BIG=$((N * IMG))

# limited ARGS...: lay under the limit; stdout in $T/out, stderr in $T/err.
limited() {
  (ulimit -v $LIM && exec "$LAY" "$@") >"$T/out" 2>"$T/err"
  rc=$?
}
# piece FILE K SIZE: bytes [K*SIZE, (K+1)*SIZE) of FILE on stdout.
piece() { dd if="$1" bs="$3" skip="$2" count=1 2>/dev/null; }
# byte FILE OFFSET: one byte as a decimal number.
byte() {
  dd if="$1" bs=1 skip="$2" count=1 2>/dev/null | od -An -tu1 | tr -d ' '
}

# The input: a random megabyte repeated (its length prime, so that no two
# images are alike).
head -c 999983 /dev/urandom >"$T/r"
i=0
while [ $i -lt 120 ]; do cat "$T/r"; i=$((i + 1)); done | head -c $BIG >"$T/in"
[ "$(wc -c <"$T/in")" -eq $BIG ] || fail "could not make the input"

# ---- The limit is real: whole buffers do not fit in it. --------------------
if [ $LIM != unlimited ]; then
  LAY_NO_STREAM=1 limited convert core.nchw core.nhwc --shape $N,3,256,256 \
    -i "$T/in" -o "$T/whole"
  expect_rc 1 "whole buffers under the limit"
  grep -q "out of memory" "$T/err" || fail "whole buffers: $(cat "$T/err")"
  [ -e "$T/whole" ] && fail "a failed whole-buffer run left its output"
fi

# ---- convert (NCHW -> NHWC) in slabs, file to file. -------------------------
limited convert core.nchw core.nhwc --shape $N,3,256,256 -i "$T/in" \
  -o "$T/nhwc" --debug-plan
expect_rc 0 "convert under the limit"
grep -q "^[0-9]* slabs of [0-9]* rows of dimension 0" "$T/err" ||
  fail "convert did not stream: $(grep -A1 streaming "$T/err")"
[ "$(wc -c <"$T/nhwc")" -eq $BIG ] || fail "convert: output size"
# Element (n, c, h, w) is at n*IMG + c*65536 + h*256 + w in NCHW and at
# n*IMG + (h*256 + w)*3 + c in NHWC. Images at the start, at the slabs'
# seams (a slab holds 8 MB: 21 images), and the last.
for nchw in "0 0 0 0" "0 2 255 255" "20 1 7 9" "21 0 0 1" "42 2 100 3" \
            "300 1 128 200" "599 2 255 255" "599 0 0 0"; do
  set -- $nchw
  a=$(byte "$T/in" $(($1 * IMG + $2 * 65536 + $3 * 256 + $4)))
  b=$(byte "$T/nhwc" $(($1 * IMG + ($3 * 256 + $4) * 3 + $2)))
  [ "$a" = "$b" ] || fail "convert: element ($nchw) is $b, expected $a"
done
# Image by image, as a one-image convert (whole buffers) moves it.
for k in 0 1 20 21 22 41 42 299 598 599; do
  piece "$T/in" $k $IMG >"$T/one"
  "$LAY" convert core.nchw core.nhwc --shape 1,3,256,256 -i "$T/one" \
    -o "$T/one.out" || fail "one-image convert $k"
  piece "$T/nhwc" $k $IMG | cmp -s - "$T/one.out" ||
    fail "convert: image $k differs from its one-image convert"
done
# Back, in slabs: the input again.
limited convert core.nhwc core.nchw --shape $N,256,256,3 -i "$T/nhwc" \
  -o "$T/back"
expect_rc 0 "convert back under the limit"
cmp -s "$T/back" "$T/in" || fail "convert and back: other bytes"
[ -s "$T/err" ] && fail "stderr is not a terminal, yet: $(cat "$T/err")"

# ---- stdin to stdout; --threads 2. ------------------------------------------
(ulimit -v $LIM && exec "$LAY" convert core.nchw core.nhwc \
  --shape $N,3,256,256) <"$T/in" | cat >"$T/pipe"
cmp -s "$T/pipe" "$T/nhwc" || fail "convert from a pipe to a pipe: other bytes"
cat "$T/in" | (ulimit -v $LIM && exec "$LAY" convert core.nchw core.nhwc \
  --shape $N,3,256,256 -o "$T/fromfifo" --threads 2)
cmp -s "$T/fromfifo" "$T/nhwc" ||
  fail "convert from a pipe, --threads 2: other bytes"

# ---- pack and unpack: kneron.1w16c8b_batch_outside, [n, c/16, h, w, c%16]
# on 1800x16x64x64 (the same bytes: 117964800) is an NCHW -> NHWC move. -----
limited pack kneron.1w16c8b_batch_outside --shape 1800,16,64,64 -i "$T/in" \
  -o "$T/k"
expect_rc 0 "pack under the limit"
for nchw in "0 0 0 0" "0 15 63 63" "77 3 5 6" "1799 9 63 1"; do
  set -- $nchw
  a=$(byte "$T/in" $(($1 * 65536 + $2 * 4096 + $3 * 64 + $4)))
  b=$(byte "$T/k" $(($1 * 65536 + ($3 * 64 + $4) * 16 + $2)))
  [ "$a" = "$b" ] || fail "pack: element ($nchw) is $b, expected $a"
done
for k in 0 127 128 1799; do
  piece "$T/in" $k 65536 >"$T/one"
  "$LAY" pack kneron.1w16c8b_batch_outside --shape 1,16,64,64 -i "$T/one" \
    -o "$T/one.out" || fail "one-image pack $k"
  piece "$T/k" $k 65536 | cmp -s - "$T/one.out" ||
    fail "pack: image $k differs from its one-image pack"
done
# unpack to an .npy file, then pack that .npy file (its header gives the
# shape): both stream.
limited unpack kneron.1w16c8b_batch_outside --shape 1800,16,64,64 -i "$T/k" \
  -o "$T/u.npy"
expect_rc 0 "unpack to .npy under the limit"
tail -c $BIG "$T/u.npy" | cmp -s - "$T/in" || fail "unpack: other bytes"
head -c 6 "$T/u.npy" | od -An -c | grep -q "N   U   M   P   Y" ||
  fail "unpack -o x.npy: no .npy header"
limited pack kneron.1w16c8b_batch_outside -i "$T/u.npy" -o "$T/k2"
expect_rc 0 "pack of an .npy file under the limit"
cmp -s "$T/k2" "$T/k" || fail "pack of the .npy file: other bytes"

# ---- A pack cut along the destination's outermost dimension, its source
# read in pieces: amd.hcwnc4, [h, c/4, w, n, c%4], of one 3x2800x9600 image
# (80640000 bytes in, 107520000 out): element (0, c, h, w) at
# (h*9600 + w)*4 + c, the fourth channel a zero pad.
H=2800 W=9600
head -c $((3 * H * W)) "$T/in" >"$T/img"
limited pack amd.hcwnc4 --shape 1,3,$H,$W -i "$T/img" -o "$T/h4" --debug-plan
expect_rc 0 "hcwnc4 pack under the limit"
grep -q "slabs of [0-9]* rows of dimension 2 .*source in 3 pieces" "$T/err" ||
  fail "hcwnc4: not in pieces: $(grep -A1 streaming "$T/err")"
[ "$(wc -c <"$T/h4")" -eq $((4 * H * W)) ] || fail "hcwnc4: output size"
for chw in "0 0 0" "2 0 9599" "1 1399 4242" "0 2799 9599" "2 2799 0"            "1 57 1"; do
  set -- $chw
  a=$(byte "$T/img" $(($1 * H * W + $2 * W + $3)))
  b=$(byte "$T/h4" $((($2 * W + $3) * 4 + $1)))
  [ "$a" = "$b" ] || fail "hcwnc4: element (0, $chw) is $b, expected $a"
  [ "$(byte "$T/h4" $((($2 * W + $3) * 4 + 3)))" = 0 ] ||
    fail "hcwnc4: the pad after (0, $chw) is not 0"
done
# Rows 1000..1009 packed alone (their three pieces cut out with dd).
for c in 0 1 2; do
  dd if="$T/img" bs=$W skip=$((c * H + 1000)) count=10 2>/dev/null
done >"$T/rows"
"$LAY" pack amd.hcwnc4 --shape 1,3,10,$W -i "$T/rows" -o "$T/rows.out" ||
  fail "ten rows alone"
dd if="$T/h4" bs=$((4 * W)) skip=1000 count=10 2>/dev/null |
  cmp -s - "$T/rows.out" || fail "hcwnc4: rows 1000..1009 differ"
# And back: an unpack whose output is written in pieces.
limited unpack amd.hcwnc4 --shape 1,3,$H,$W -i "$T/h4" -o "$T/img2" --debug-plan
expect_rc 0 "hcwnc4 unpack under the limit"
grep -q "slabs of [0-9]* rows of dimension 2 .*destination in 3)" "$T/err" ||
  fail "hcwnc4 unpack: not in pieces: $(grep -A1 streaming "$T/err")"
cmp -s "$T/img2" "$T/img" || fail "hcwnc4: pack and unpack: other bytes"
rm -f "$T/img" "$T/img2" "$T/h4"

# ---- The progress line: on a terminal (script(1)) for an input over
# 256 MB (a sparse file, written to /dev/null), ending cleared; never
# when stderr is not a terminal (every run above left $T/err empty or
# holding --debug-plan's notes only).
truncate -s 300000000 "$T/sparse"
if command -v script >/dev/null 2>&1; then
  script -qc "'$LAY' convert core.nchw core.nhwc --shape 1000,3,100,1000 -i '$T/sparse' -o /dev/null" \
    /dev/null >"$T/tty" 2>&1
  tr '\r' '\n' <"$T/tty" | grep -q "^lay: convert  50% (150 of 300 MB)$" ||
    fail "no progress line on a terminal: $(tr '\r' '\n' <"$T/tty" | tail -3)"
  tr '\r' '\n' <"$T/tty" | tail -1 | grep -q "^ *$" ||
    fail "the progress line is not cleared"
else
  echo "note: script(1) is missing, the progress line is not checked"
fi
"$LAY" convert core.nchw core.nhwc --shape 1000,3,100,1000 -i "$T/sparse" \
  -o /dev/null 2>"$T/err"
[ -s "$T/err" ] && fail "progress without a terminal: $(cat "$T/err")"
rm -f "$T/sparse"

# ---- An input that ends early mid-stream: no output, the target as it was.
mkdir "$T/d"
echo "the old target" >"$T/d/target"
for tmpfile in "" 1; do
  head -c $((BIG - 1)) "$T/in" | (ulimit -v $LIM && LAY_NO_TMPFILE=$tmpfile \
    exec "$LAY" convert core.nchw core.nhwc --shape $N,3,256,256 \
    -o "$T/d/target") 2>"$T/err"
  rc=$?
  expect_rc 1 "a short stream (LAY_NO_TMPFILE=$tmpfile)"
  expect_err "lay: input is $((BIG - 1)) bytes, core.nchw on ${N}x3x256x256 int8 needs $BIG" \
    "a short stream"
  [ "$(cat "$T/d/target")" = "the old target" ] ||
    fail "a short stream changed the target"
  [ "$(ls -A "$T/d")" = "target" ] ||
    fail "a short stream left files: $(ls -A "$T/d")"
done
# One byte too many, and a full disk.
(cat "$T/in"; echo) | "$LAY" convert core.nchw core.nhwc \
  --shape $N,3,256,256 -o "$T/d/target" 2>"$T/err"
rc=$?
expect_rc 1 "a long stream"
expect_err "lay: input is more than $BIG bytes, core.nchw on ${N}x3x256x256 int8 needs $BIG" \
  "a long stream"
[ "$(ls -A "$T/d")" = "target" ] || fail "a long stream left files"
if [ -w /dev/full ]; then
  run convert core.nchw core.nhwc --shape $N,3,256,256 -i "$T/in" -o /dev/full
  expect_rc 1 "/dev/full"
  expect_err "lay: cannot write '/dev/full': No space left on device" "/dev/full"
fi
finish
