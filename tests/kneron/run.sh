#!/bin/sh
# tests/kneron/run.sh: `lay pack/unpack --kneron` and `lay kneron` on
# Kneron PLUS tensor descriptors (kp.TensorDescriptor as the Python API
# prints it). Checks: every descriptor of good/ packs and unpacks exactly
# as the independent reference kneron_ref (the SDK's index and value
# formulas), fp32 through the fixed point and the NPU's integers with
# --dtype; every descriptor of bad/ fails with its exact one-line error
# (bad/expected.txt), exit 1, no output; usage errors exit 2.
#   sh run.sh LAY REF SRCDIR WORKDIR
LAY=$1 REF=$2 SRC=$3 W=$4
mkdir -p "$W"
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# ---- hostile descriptors: the exact message ---------------------------------
n=0
while IFS='	' read -r file msg; do
  case $file in '#'*) continue ;; esac
  n=$((n + 1))
  rm -f "$W/out.bin"
  "$LAY" pack --kneron "bad/$file" -i /dev/null -o "$W/out.bin" \
    >"$W/stdout" 2>"$W/stderr"
  rc=$?
  [ $rc -eq 1 ] || bad "$file: exit $rc, not 1"
  got=$(cat "$W/stderr")
  [ "$got" = "$msg" ] || bad "$file: got '$got', want '$msg'"
  [ ! -e "$W/out.bin" ] || bad "$file: left an output file"
  [ ! -s "$W/stdout" ] || bad "$file: wrote to stdout"
done <bad/expected.txt
[ $n -ge 30 ] || bad "only $n hostile descriptors"

# ---- good descriptors against the reference -----------------------------------
# file  layout  shape  stride_npu (the reference's, version 1: what the
# format gives)  scales  radixes  quantized_axis  fixed type
while read -r file lay shape strides scales radixes qaxis ft; do
  case $file in '#'* | '') continue ;; esac
  d=good/$file.json
  "$LAY" kneron "$d" >"$W/spec" 2>"$W/stderr" || bad "$file: lay kneron: $(cat "$W/stderr")"
  numel=$(echo "$shape" | tr ',' '\n' | awk 'BEGIN{p=1}{p*=$1}END{print p}')
  "$REF" gen "$numel" 7 "$W/x.bin" || { bad "$file: gen"; continue; }
  # fp32 -> NPU
  "$REF" pack "$lay" "$shape" "$strides" "$scales" "$radixes" "$qaxis" \
    "$W/x.bin" "$W/want.npu" || { bad "$file: reference pack"; continue; }
  "$LAY" pack --kneron "$d" -i "$W/x.bin" -o "$W/got.npu" 2>"$W/stderr" ||
    { bad "$file: pack: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/got.npu" "$W/want.npu" || bad "$file: pack differs from the reference"
  # NPU -> fp32, from the reference's buffer with noise in every byte the
  # reference did not write (pads must not matter)
  "$REF" unpack "$lay" "$shape" "$strides" "$scales" "$radixes" "$qaxis" \
    "$W/want.npu" "$W/want.x" || { bad "$file: reference unpack"; continue; }
  "$LAY" unpack --kneron "$d" -i "$W/want.npu" -o "$W/got.x" 2>"$W/stderr" ||
    { bad "$file: unpack: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/got.x" "$W/want.x" || bad "$file: unpack differs from the reference"
  [ "$ft" = - ] && continue
  # the NPU's integers themselves (--dtype int8/int16)
  es=1; [ "$ft" = int16 ] && es=2
  head -c $((numel * es)) /dev/urandom >"$W/q.bin"
  "$REF" packfix "$lay" "$shape" "$strides" "$scales" "$radixes" "$qaxis" \
    "$W/q.bin" "$W/wantq.npu" || { bad "$file: reference packfix"; continue; }
  "$LAY" pack --kneron "$d" --dtype "$ft" -i "$W/q.bin" -o "$W/gotq.npu" 2>"$W/stderr" ||
    { bad "$file: pack --dtype $ft: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/gotq.npu" "$W/wantq.npu" || bad "$file: pack --dtype $ft differs"
  "$REF" unpackfix "$lay" "$shape" "$strides" "$scales" "$radixes" "$qaxis" \
    "$W/wantq.npu" "$W/wantq.x" || { bad "$file: reference unpackfix"; continue; }
  "$LAY" unpack --kneron "$d" --dtype "$ft" -i "$W/wantq.npu" -o "$W/gotq.x" 2>"$W/stderr" ||
    { bad "$file: unpack --dtype $ft: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/gotq.x" "$W/wantq.x" || bad "$file: unpack --dtype $ft differs"
done <<'TABLE'
v2_1w16c8b_n2           1W16C8B   2,17,2,3  96,1,48,16   0.5      3      1 int8
v2_1w16c8bhl            1W16C8BHL 1,20,3,5  240,1,80,16  0.25     6      1 int16
v2_16w1c8b_qc           16W1C8B   1,3,2,20  192,64,32,1  1,0.5,2  2,3,1  1 int8
v2_4w4c8b               4W4C8B    1,3,5,6   160,1,32,4   1        4      1 int8
v2_4w4c8bhl             4W4C8BHL  1,3,2,6   64,1,32,4    0.5      7      1 int16
v2_16w1c8bhl            16W1C8BHL 1,2,2,20  128,64,32,1  2        5      1 int16
v2_8w1c16b              8W1C16B   1,3,2,10  96,32,16,1   1        8      1 int16
v2_raw_8b               RAW_8B    2,3,5     15,5,1       0.25     5      1 int8
v2_raw_16b_qc           RAW_16B   3,7       7,1          1,2,4    6,6,6  0 int16
v2_raw_float            RAW_FLOAT 1,2,3,4   24,12,4,1    1        0      1 -
v2_1w16c8b_ch_compact   1W16C8B_CH_COMPACT   1,20,2,3 192,1,96,32 0.5 4 1 int8
v2_1w16c8bhl_ch_compact 1W16C8BHL_CH_COMPACT 1,20,2,3 192,1,96,32 1   9 1 int16
# version 1: KL720 16W1C8B is C, H, W rows of ceil(W, 16); KL520's H, C, W
v1_kl720_16w1c8b        16W1C8B   1,255,7,7   28560,112,16,1 1.4717674255371094 2 1 int8
v1_kl520_16w1c8b        16W1C8B   1,3,2,20    192,32,96,1    0.5      2      1 int8
v1_kl520_4w4c8b         4W4C8B    1,3,224,224 200704,1,896,4 1        8      1 int8
TABLE

# ---- what lay kneron prints ----------------------------------------------------
"$LAY" kneron good/v2_1w16c8b_n2.json >"$W/spec" 2>&1
grep -q '^layout tensor(p0, p1, p2, p3, p4) (n, c, h, w) : fp32 -> \[c/16 @ p0, n @ p1, h @ p2, w @ p3, c%16 @ p4\]$' "$W/spec" ||
  bad "lay kneron: the 1W16C8B order: $(cat "$W/spec")"
grep -q '^# use: NS.tensor(192,96,48,16,1) (fp32), NS.tensor_fixed(192,96,48,16,1)' "$W/spec" ||
  bad "lay kneron: the reference line: $(cat "$W/spec")"
grep -q "^# the SDK's NPU buffer: 384 bytes$" "$W/spec" || bad "lay kneron: the buffer size"

# ---- usage and size errors -----------------------------------------------------
expect() { # RC MESSAGE ARGS...
  want_rc=$1 want=$2
  shift 2
  "$LAY" "$@" >"$W/stdout" 2>"$W/stderr" </dev/null
  rc=$?
  [ $rc -eq "$want_rc" ] || bad "$*: exit $rc, not $want_rc"
  head -1 "$W/stderr" | grep -qF -- "$want" || bad "$*: got '$(head -1 "$W/stderr")', want '$want'"
}
D=good/v2_1w16c8b_n2.json
expect 2 "lay: pack --kneron: the shape comes from the descriptor" pack --kneron $D --shape 1,2
expect 2 "lay: pack --kneron: unexpected argument 'kneron.1w16c8b'" pack kneron.1w16c8b --kneron $D
expect 2 "lay: unpack: give --kneron or --hsi, not both" unpack --kneron $D --hsi x.json --input 0
expect 1 "lay: $D: --dtype int16: the descriptor's tensor is fp32 (through the fixed point) or int8 (the NPU's values)" pack --kneron $D --dtype int16
printf 'abc' >"$W/short.bin"
expect 1 "lay: input is 3 bytes; $D needs 816 (fp32 2x17x2x3)" pack --kneron $D -i "$W/short.bin"
expect 1 "lay: input is 3 bytes; $D needs 384 (the NPU buffer of 2x17x2x3)" unpack --kneron $D -i "$W/short.bin"
expect 1 "lay: cannot read 'nothing.json': No such file or directory" pack --kneron nothing.json
expect 2 "lay: kneron: which tensor descriptor (JSON) file?" kneron

[ $fail -eq 0 ] || { echo "$fail check(s) failed" >&2; exit 1; }
echo "kneron: all checks passed"
