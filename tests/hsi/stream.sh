#!/bin/sh
# tests/hsi/stream.sh: pack/unpack --hsi stream their data in slabs (issue
# 16, point 6), frame after frame, like the plain pack and unpack
# (tests/cli/stream.sh). A report with two frames of uint8 NCHW
# [16,1024,1200] -> HCWNC8 (39 MB of data) is packed and unpacked under an
# address-space limit (ulimit -v) of 40 MB: all frames, --frame 1, from an
# .npy file and from stdin; the bytes are checked against hsi_ref's index
# formula (each frame packed on its own), against the whole-buffer run
# (LAY_NO_STREAM=1, unlimited) and by round trips. The whole-buffer run
# fails under the same limit, so the limit is real. A file one byte short
# gets the size message and leaves no output.
#   stream.sh LAY REF WORKDIR
set -u
LAY=$1 REF=$2 W=$3
rm -rf "$W" && mkdir -p "$W" || exit 1
fail=0
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }
LIM=40000 # KB
# AddressSanitizer reserves terabytes of address space: no limit there
# (the bytes are still checked; the plain build checks the bound).
if ldd "$LAY" 2>/dev/null | grep -q libasan; then
  echo "note: $LAY is built with AddressSanitizer: no ulimit -v"
  LIM=unlimited
fi
# limited ARGS...: lay under the limit; stderr in $W/err, the exit in rc.
limited() {
  (ulimit -v $LIM && exec "$LAY" "$@") 2>"$W/err"
  rc=$?
}

C=16 H=1024 WD=1200
hs=$("$REF" fmt NCHW HCWNC8 1 $C $H $WD "$W/f0.in" "$W/f0.want" 1) &&
"$REF" fmt NCHW HCWNC8 1 $C $H $WD "$W/f1.in" "$W/f1.want" 2 >/dev/null ||
  { echo "FAIL: reference" >&2; exit 1; }
cmp -s "$W/f0.in" "$W/f1.in" && bad "the two frames are equal"
cat "$W/f0.in" "$W/f1.in" >"$W/f.in"
cat "$W/f0.want" "$W/f1.want" >"$W/f.want"
FRAME=$((C * H * WD))
printf '{"inputs": [{"tensor_name": "img", "cpu_shape": [2, %d, %d, %d], "cpu_format": "NCHW", "cpu_dtype": "uint8", "hw_shape": %s, "hw_format": "HCWNC8", "hw_dtype": "uint8"}], "outputs": []}\n' \
  $C $H $WD "$hs" >"$W/r.json"

# ---- The limit is real: whole buffers do not fit in it. --------------------
if [ $LIM != unlimited ]; then
  LAY_NO_STREAM=1 limited pack --hsi "$W/r.json" -i "$W/f.in" -o "$W/whole"
  [ $rc -eq 1 ] && grep -q "out of memory" "$W/err" ||
    bad "whole buffers under the limit: exit $rc, $(cat "$W/err")"
  [ -e "$W/whole" ] && bad "a failed whole-buffer run left its output"
fi

# ---- All frames, in slabs, under the limit. --------------------------------
limited pack --hsi "$W/r.json" -i "$W/f.in" -o "$W/p" --debug-plan
[ $rc -eq 0 ] || bad "pack: $(grep -v '^ \|^--' "$W/err" | head -3)"
grep -q "^[0-9]* slabs of" "$W/err" || bad "pack did not stream"
cmp -s "$W/p" "$W/f.want" || bad "pack: bytes differ from the reference"
LAY_NO_STREAM=1 "$LAY" pack --hsi "$W/r.json" -i "$W/f.in" -o "$W/pw" ||
  bad "pack, whole buffers"
cmp -s "$W/p" "$W/pw" || bad "pack: slabs and whole buffers differ"
limited unpack --hsi "$W/r.json" --input img -i "$W/f.want" -o "$W/u"
[ $rc -eq 0 ] || bad "unpack: $(cat "$W/err")"
cmp -s "$W/u" "$W/f.in" || bad "unpack: not the input back"
LAY_NO_STREAM=1 "$LAY" unpack --hsi "$W/r.json" --input img -i "$W/f.want" \
  -o "$W/uw" || bad "unpack, whole buffers"
cmp -s "$W/u" "$W/uw" || bad "unpack: slabs and whole buffers differ"

# ---- One frame: pack --frame 1 reads frame 1 of the tensor alone. ----------
limited pack --hsi "$W/r.json" --frame 1 -i "$W/f.in" -o "$W/p1"
[ $rc -eq 0 ] || bad "pack --frame 1: $(cat "$W/err")"
cmp -s "$W/p1" "$W/f1.want" || bad "pack --frame 1: bytes differ"
limited unpack --hsi "$W/r.json" --input 0 --frame 1 -i "$W/f1.want" \
  -o "$W/u1"
[ $rc -eq 0 ] || bad "unpack --frame 1: $(cat "$W/err")"
cmp -s "$W/u1" "$W/f1.in" || bad "unpack --frame 1: bytes differ"

# ---- An .npy input (numpy.save's format 1.0), from a file and stdin. --------
{ printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '|u1', 'fortran_order': False, 'shape': (2, $C, $H, $WD), }"
  cat "$W/f.in"; } >"$W/f.npy"
limited pack --hsi "$W/r.json" -i "$W/f.npy" -o "$W/pn"
[ $rc -eq 0 ] || bad "pack .npy: $(cat "$W/err")"
cmp -s "$W/pn" "$W/f.want" || bad "pack .npy: bytes differ"
(ulimit -v $LIM && exec "$LAY" pack --hsi "$W/r.json" --frame 1 \
  -o "$W/pn1") <"$W/f.npy" 2>"$W/err" || bad "pack .npy on stdin: $(cat "$W/err")"
cmp -s "$W/pn1" "$W/f1.want" || bad "pack --frame 1 of .npy on stdin: bytes differ"
# A pipe is read whole (no limit): the same bytes.
cat "$W/f.npy" | "$LAY" pack --hsi "$W/r.json" >"$W/pp" ||
  bad "pack from a pipe"
cmp -s "$W/pp" "$W/f.want" || bad "pack from a pipe: bytes differ"

# ---- A file one byte short: the size message, no output. ------------------
head -c $((2 * FRAME - 1)) "$W/f.in" >"$W/short"
limited pack --hsi "$W/r.json" -i "$W/short" -o "$W/ps"
[ $rc -eq 1 ] || bad "short input: exit $rc"
[ "$(cat "$W/err")" = "lay: input is $((2 * FRAME - 1)) bytes; inputs[0] needs $((2 * FRAME)) (uint8 [1,$C,$H,$WD] per frame)" ] ||
  bad "short input: $(cat "$W/err")"
[ -e "$W/ps" ] && bad "short input left an output"

[ $fail -eq 0 ] || exit 1
rm -rf "$W"
echo "hsi stream: ok"
