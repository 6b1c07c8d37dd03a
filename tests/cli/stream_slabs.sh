#!/bin/sh
# tests/cli/stream_slabs.sh: slabs change no byte (issue 16, point 6). With
# slabs of a few KB (LAY_SLAB_BYTES), so that small tensors cross many
# seams and end in a short slab, pack, unpack and convert of stdlib formats
# (blocked, padded, byte planes, quantizing, batch inside or outside) give
# the bytes of the whole-buffer run (LAY_NO_STREAM=1), from a file and from
# a pipe; the formats that admit slabs do stream (--debug-plan says so),
# those that do not say why.
#   sh stream_slabs.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

head -c 400000 /dev/urandom >"$T/rand"
S=3,5,37,29
# field NAME: a number from lay info --json in $T/out.
field() { sed -n "s/.*\"$1\": \([0-9]*\).*/\1/p" "$T/out"; }
# same WHAT ARGS...: lay ARGS in slabs of 2 KB and in whole buffers, from
# -i $T/in; the outputs must be equal. Also from a pipe.
same() {
  what=$1
  shift
  LAY_SLAB_BYTES=2048 "$LAY" "$@" -i "$T/in" -o "$T/a" --debug-plan 2>"$T/err" ||
    fail "$what: slabs: $(grep -v '^ \|^--\|^[a-z]*:' "$T/err" | head -3)"
  LAY_NO_STREAM=1 "$LAY" "$@" -i "$T/in" -o "$T/b" || fail "$what: whole"
  cmp -s "$T/a" "$T/b" || fail "$what: slabs give other bytes"
  LAY_SLAB_BYTES=2048 "$LAY" "$@" <"$T/in" | cat >"$T/c"
  cmp -s "$T/c" "$T/b" || fail "$what: slabs from a pipe give other bytes"
  if grep -q "^[0-9]* slabs of" "$T/err"; then
    streamed=$((streamed + 1))
  else
    grep -A1 '^-- streaming --' "$T/err" | grep -q "whole buffers: " ||
      fail "$what: neither slabs nor a reason: $(grep -A1 streaming "$T/err")"
  fi
}

streamed=0 cases=0 nth=0 every=1
# Under valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) every fourth
# format: each takes eight `lay` runs of about a second there.
[ -n "${LAY_UNDER_VALGRIND:-}" ] && every=4
for f in amd.hcwnc4 amd.hcwnc8 'amd.hcwnc(4)' 'amd.hcwnc_q(8, 0.05, 3)' \
         'amd.hcwnc_bf16(4)' core.nchw core.nhwc kneron.1w16c8b \
         kneron.1w16c8b_batch_outside kneron.4w4c8b kneron.16w1c8b \
         kneron.1w16c8bhl kneron.1w16c8bhl_batch_outside onednn.nChw16c \
         onednn.nChw8c ethosu.nhcwb16 qnn.nchw ti.tidl \
         'ti.tidl(pad_l=1,pad_r=1)'; do
  nth=$((nth + 1))
  [ $((nth % every)) -eq 0 ] || continue
  "$LAY" info "$f" --shape $S --json >"$T/out" || fail "info $f"
  cpu=$(field cpu_bytes) hw=$(field bytes)
  head -c "$cpu" "$T/rand" >"$T/in"
  same "pack $f" pack "$f" --shape $S
  head -c "$hw" "$T/rand" >"$T/in"
  same "unpack $f" unpack "$f" --shape $S
  cases=$((cases + 2))
done
head -c $((3 * 5 * 37 * 29)) "$T/rand" >"$T/in"
same "convert nchw nhwc" convert core.nchw core.nhwc --shape $S
same "convert nchw 1w16c8b" convert core.nchw kneron.1w16c8b_batch_outside \
  --shape $S
"$LAY" info amd.hcwnc4 --shape $S --json >"$T/out"
head -c "$(field bytes)" "$T/rand" >"$T/in"
same "convert hcwnc4 hcwnc8" convert amd.hcwnc4 amd.hcwnc8 --shape $S
same "convert hcwnc4 nchw" convert amd.hcwnc4 core.nchw --shape $S
cases=$((cases + 4))
# Most of these stream (the others are listed by --debug-plan).
[ $streamed -ge $((cases / 2)) ] ||
  fail "only $streamed of $cases cases streamed"
# A slab cut in pieces (a pack whose destination is cut along h) and the
# reason a layout does not stream.
head -c $((1 * 3 * 200 * 64)) "$T/rand" >"$T/in"
LAY_SLAB_BYTES=16384 "$LAY" pack amd.hcwnc4 --shape 1,3,200,64 -i "$T/in" \
  -o "$T/a" --debug-plan 2>"$T/err"
grep -q "slabs of [0-9]* rows of dimension 2 .*source in 3 pieces" "$T/err" ||
  fail "hcwnc4: no slabs in pieces: $(grep -A1 streaming "$T/err")"
# The unpack writes its output in pieces: to a file, to an .npy file
# (after its header), and to stdout (whole buffers then).
cp "$T/a" "$T/in"
LAY_SLAB_BYTES=16384 "$LAY" unpack amd.hcwnc4 --shape 1,3,200,64 -i "$T/in" \
  -o "$T/u.npy" --debug-plan 2>"$T/err"
grep -q "slabs of [0-9]* rows of dimension 2 .*destination in 3)" "$T/err" ||
  fail "hcwnc4 unpack: no slabs in pieces: $(grep -A1 streaming "$T/err")"
LAY_NO_STREAM=1 "$LAY" unpack amd.hcwnc4 --shape 1,3,200,64 -i "$T/in" \
  -o "$T/w.npy"
cmp -s "$T/u.npy" "$T/w.npy" || fail "hcwnc4 unpack to .npy: other bytes"
LAY_SLAB_BYTES=16384 "$LAY" unpack amd.hcwnc4 --shape 1,3,200,64 -i "$T/in" \
  --debug-plan 2>"$T/err" | cat >"$T/u"
tail -c 38400 "$T/w.npy" | cmp -s - "$T/u" || fail "hcwnc4 unpack to a pipe"
grep -q "the output is no file" "$T/err" ||
  fail "unpack to a pipe: $(grep -A1 streaming "$T/err")"
# An .npy input read in pieces after its header.
head -c 38400 "$T/rand" >"$T/img"
"$LAY" unpack core.nchw --shape 1,3,200,64 -i "$T/img" -o "$T/img.npy"
LAY_NO_STREAM=1 "$LAY" pack amd.hcwnc4 --shape 1,3,200,64 -i "$T/img" -o "$T/b"
LAY_SLAB_BYTES=16384 "$LAY" pack amd.hcwnc4 -i "$T/img.npy" -o "$T/a" \
  --debug-plan 2>"$T/err"
grep -q "source in 3 pieces" "$T/err" || fail ".npy input: not in pieces"
cmp -s "$T/a" "$T/b" || fail ".npy input in pieces: other bytes"
head -c 96 "$T/rand" >"$T/in"
"$LAY" pack amd.hcwnc4 --shape 2,3,4,4 -i "$T/in" -o "$T/a" --debug-plan \
  2>"$T/err"
grep -A1 '^-- streaming --' "$T/err" | grep -q "whole buffers: they fit one slab" ||
  fail "a small tensor: $(grep -A1 streaming "$T/err")"
echo "$streamed of $cases cases streamed"
finish
