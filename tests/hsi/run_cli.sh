#!/bin/sh
# tests/hsi/run_cli.sh: the hsi command line, end to end.
#   run_cli.sh LAY REF SRCDIR WORKDIR
# LAY is the `lay` binary; REF is the independent reference hsi_ref.
# Checks: the exact one-line error of every report in bad/ (exit 1, no
# output file left), the seed's examples byte-exact against the reference
# in every direction (bf16 NaN payloads too), quantization with scales that
# are not powers of two, zero points and rounding ties, AMD's meaning of
# scale_factor and zero_point, --check on the seed reports and on bad ones,
# `lay hsi` printing, an oversized report, and export -> run == the layout
# run directly for every AMD stdlib layout and others.
# Under valgrind (tests/valgrind.sh sets LAY_UNDER_VALGRIND) the long
# loops (the malformed reports, the format strings, the exports) take
# every fourth row; the rest runs whole.
set -u
TOOL=$1 REF=$2 SRC=$3 W=$4
rm -rf "$W" && mkdir -p "$W" || exit 1
cd "$SRC" || exit 1
fail=0
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }
every=1
[ -n "${LAY_UNDER_VALGRIND:-}" ] && every=4
skip() { [ $(($1 % every)) -ne 0 ]; } # row N of a sampled loop left out

# ---- 1. malformed and inconsistent reports: exact messages ----------------
n=0
tab=$(printf '\t')
while IFS="$tab" read -r file cmd msg; do
  case $file in '#'*|'') continue ;; esac
  n=$((n + 1))
  skip $n && continue
  set -- $cmd
  rm -f "$W/out.bin"
  "$TOOL" "$1" --hsi "bad/$file" "$2" "$3" -i /dev/null -o "$W/out.bin" \
    >"$W/stdout" 2>"$W/stderr"
  rc=$?
  [ $rc -eq 1 ] || bad "$file: exit $rc, not 1"
  got=$(cat "$W/stderr")
  [ "$got" = "$msg" ] || bad "$file: got '$got', want '$msg'"
  [ ! -e "$W/out.bin" ] || bad "$file: left an output file"
  [ ! -s "$W/stdout" ] || bad "$file: wrote to stdout"
done < bad/expected.txt
[ $n -ge 15 ] || bad "only $n malformed reports"

# ---- 2. the seed's examples against the reference --------------------------
# case  report  command  which  key
while read -r c report cmd which key; do
  "$REF" "$c" "$W/$c.in" "$W/$c.want" || { bad "$c: reference"; continue; }
  rm -f "$W/$c.got"
  if "$TOOL" "$cmd" --hsi "$report" "--$which" "$key" -i "$W/$c.in" \
       -o "$W/$c.got" 2>"$W/$c.err"; then
    cmp -s "$W/$c.got" "$W/$c.want" || bad "$c: bytes differ from the reference"
  else
    bad "$c: $(cat "$W/$c.err")"
  fi
done <<'CASES'
ann_in_pack    seed_annotation.json pack   input  0
ann_out_unpack seed_annotation.json unpack output 0
ann_out_pack   seed_annotation.json pack   output 0
xf_in_pack     seed_transform.json  pack   input  0
xf_in_unpack   seed_transform.json  unpack input  0
xf_out_unpack  seed_transform.json  unpack output 0
xf_out_pack    seed_transform.json  pack   output 0
rep_in_pack    seed_report.json     pack   input  compute_graph.ifm_ddr
rep_out_unpack seed_report.json     unpack output compute_graph.ofm_ddr
CASES

# Quantization with scales that are not powers of two, zero points, int8
# and uint8, ties: the seed's chains (tmpl_transform_q.json) and the
# annotation form (tmpl_annotation_q.json), from templates.
# kind  scale  zero_point  type
while read -r kind s z t; do
  c="xq-$s-$z-$t"
  sed -e "s/@S@/$s/g" -e "s/@Z@/$z/g" -e "s/@T@/$t/g" tmpl_transform_q.json \
    >"$W/$c.json"
  for side in in out; do
    "$REF" "xq_$side" "$s" "$z" "$t" "$W/$c.$side" "$W/$c.$side.want" ||
      { bad "$c $side: reference"; continue; }
    if [ $side = in ]; then set -- pack --input; else set -- unpack --output; fi
    rm -f "$W/$c.got"
    "$TOOL" "$1" --hsi "$W/$c.json" "$2" 0 -i "$W/$c.$side" -o "$W/$c.got" \
      2>"$W/stderr" || { bad "$c $side: $(cat "$W/stderr")"; continue; }
    cmp -s "$W/$c.got" "$W/$c.$side.want" ||
      bad "$c $side: bytes differ from the reference"
  done
done <<'QUANT'
xq 0.1   -5  int8
xq 0.037 3   int8
xq 0.003 -5  int8
xq 0.1   128 uint8
xq 0.037 3   uint8
xq 0.003 128 uint8
QUANT
# cpu_dtype hw_dtype scale_factor zero_point: AMD's meaning of the fields
# (quantize to an integer hw_dtype, from fp32 or an integer type; dequantize
# from an integer cpu_dtype to fp32).
while read -r ct t s z; do
  c="ann-$ct-$t-$s-$z"
  sed -e "s/@C@/$ct/g" -e "s/@S@/$s/g" -e "s/@Z@/$z/g" -e "s/@T@/$t/g" \
    tmpl_annotation_q.json >"$W/$c.json"
  "$REF" ann_q "$ct" "$t" "$s" "$z" "$W/$c.in" "$W/$c.want" ||
    { bad "$c: reference"; continue; }
  rm -f "$W/$c.got"
  "$TOOL" pack --hsi "$W/$c.json" --input ann_q -i "$W/$c.in" \
    -o "$W/$c.got" 2>"$W/stderr" || { bad "$c: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/$c.got" "$W/$c.want" || bad "$c: bytes differ from the reference"
done <<'ANN'
fp32  uint8 0.037 128
fp32  int8  0.1   -5
fp32  uint8 0.003 3
int8  uint8 1     128
int8  int8  0.5   0
int8  int8  0.25  0
uint8 uint8 0.5   3
uint8 int8  1     -128
int8  fp32  0.1   -5
uint8 fp32  0.25  3
ANN

# Every format string of AMD's tools and VART (hsi_format.c), against
# hsi_ref's index formulas: pack CPU -> NPU, and unpack back to the input.
# cpu_format  hw_format  N C H W
nf=0
while read -r cf hf dn dc dh dw; do
  nf=$((nf + 1))
  skip $nf && continue
  c="fmt-$cf-$hf"
  hs=$("$REF" fmt "$cf" "$hf" "$dn" "$dc" "$dh" "$dw" "$W/$c.in" "$W/$c.want") ||
    { bad "$c: reference"; continue; }
  cs=
  for l in $(echo "$cf" | sed 's/./& /g'); do
    case $l in N) v=$dn ;; C) v=$dc ;; H) v=$dh ;; W) v=$dw ;; esac
    cs="$cs${cs:+,}$v"
  done
  printf '{"inputs": [{"cpu_shape": [%s], "cpu_format": "%s", "cpu_dtype": "uint8", "hw_shape": %s, "hw_format": "%s", "hw_dtype": "uint8"}], "outputs": []}\n' \
    "$cs" "$cf" "$hs" "$hf" >"$W/$c.json"
  rm -f "$W/$c.got" "$W/$c.back"
  "$TOOL" pack --hsi "$W/$c.json" --input 0 -i "$W/$c.in" -o "$W/$c.got" \
    2>"$W/stderr" || { bad "$c: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/$c.got" "$W/$c.want" || bad "$c: bytes differ from the reference"
  "$TOOL" unpack --hsi "$W/$c.json" --input 0 -i "$W/$c.want" \
    -o "$W/$c.back" 2>"$W/stderr" || { bad "$c unpack: $(cat "$W/stderr")"; continue; }
  cmp -s "$W/$c.back" "$W/$c.in" || bad "$c: unpack does not give the input"
done <<'FMT'
NCHW NCHW     2 3 4 5
NCHW NHWC     2 3 4 5
NHWC NCHW     2 3 4 5
NCHW HCWNC4   1 6 3 5
NHWC HCWNC8   1 5 3 4
NCHW HCWNC16  1 17 2 3
NHW  NHW      2 1 3 4
NHWC NHC      2 3 4 5
NCHW NHC      2 3 4 5
NHC  NHC      2 3 4 1
NHWC NCH      2 3 4 5
NCH  NCH      2 3 4 1
NCHW NC       3 7 1 1
NC   NC       3 7 1 1
NHWC NWC      2 3 1 5
NWC  NWC      2 3 1 5
CHW  CHW      1 3 4 5
CHW  HWC      1 3 4 5
HWC  CHW      1 3 4 5
NCHW NC4HW4   2 6 3 5
NHWC NC8HW8   1 9 2 3
NHWC NHWC4    2 3 4 5
NCHW NHWC8    1 9 2 3
NHWC NHW16C4WC 2 5 3 18
NCHW NHW16WC4C 1 5 2 17
NHWC NH2HWC4C 1 5 3 4
NHWC NH2C4HWC 2 6 4 3
FMT

# A chain whose slice keeps only padding (numpy allows it, LANGUAGE.md
# "Transforms"): input 0 pads [a, b] to [a, b, 0, 0, 0] and keeps the last
# three, all pad; input 1 beside it is a plain copy.
printf '\001\002' >"$W/m57.in"
printf '\000\000\000' >"$W/m57.want"
"$TOOL" pack --hsi slice_only_pad.json --input 0 -i "$W/m57.in" \
  -o "$W/m57.got0" 2>"$W/stderr" && cmp -s "$W/m57.want" "$W/m57.got0" ||
  bad "slice_only_pad inputs[0]: $(cat "$W/stderr")"
"$TOOL" pack --hsi slice_only_pad.json --input 1 -i "$W/m57.in" \
  -o "$W/m57.got" 2>"$W/stderr" && cmp -s "$W/m57.in" "$W/m57.got" ||
  bad "slice_only_pad inputs[1]: $(cat "$W/stderr")"

# Device batching (seed 000: one NPU buffer per frame, N = 1 in hw_shape):
# cpu [2,3,2,2] NCHW with hw_shape [2,1,2,1,4] HCWNC4 is two frames. The
# reference: each frame packed on its own (hsi_ref, other data per seed).
"$REF" fmt NCHW HCWNC4 1 3 2 2 "$W/f0.in" "$W/f0.want" 1 >/dev/null &&
"$REF" fmt NCHW HCWNC4 1 3 2 2 "$W/f1.in" "$W/f1.want" 2 >/dev/null ||
  bad "frames: reference"
cat "$W/f0.in" "$W/f1.in" >"$W/f.in"
cat "$W/f0.want" "$W/f1.want" >"$W/f.want"
cmp -s "$W/f0.in" "$W/f1.in" && bad "frames: the two frames are equal"
printf '{"inputs": [{"tensor_name": "img", "cpu_shape": [2, 3, 2, 2], "cpu_format": "NCHW", "cpu_dtype": "uint8", "hw_shape": [2, 1, 2, 1, 4], "hw_format": "HCWNC4", "hw_dtype": "uint8"}], "outputs": []}\n' >"$W/frames.json"
# No --input: the report's only input. All frames, one after another.
"$TOOL" pack --hsi "$W/frames.json" -i "$W/f.in" -o "$W/f.got" 2>"$W/stderr" &&
  cmp -s "$W/f.got" "$W/f.want" || bad "frames pack: $(cat "$W/stderr")"
"$TOOL" pack --hsi "$W/frames.json" --frame 1 -i "$W/f.in" -o "$W/f.got" \
  2>"$W/stderr" && cmp -s "$W/f.got" "$W/f1.want" ||
  bad "frames pack --frame 1: $(cat "$W/stderr")"
"$TOOL" unpack --hsi "$W/frames.json" --input img -i "$W/f.want" \
  -o "$W/f.got" 2>"$W/stderr" && cmp -s "$W/f.got" "$W/f.in" ||
  bad "frames unpack: $(cat "$W/stderr")"
"$TOOL" unpack --hsi "$W/frames.json" --input 0 --frame 1 -i "$W/f1.want" \
  -o "$W/f.got" 2>"$W/stderr" && cmp -s "$W/f.got" "$W/f1.in" ||
  bad "frames unpack --frame 1: $(cat "$W/stderr")"
"$TOOL" pack --hsi "$W/frames.json" --frame 2 -i "$W/f.in" 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: $W/frames.json: inputs[0] has 2 frames; --frame 2 is past them" ] ||
  bad "--frame 2: $(cat "$W/stderr")"
"$TOOL" unpack --hsi "$W/frames.json" -i "$W/f.in" 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: $W/frames.json: 0 outputs; give --output K" ] ||
  bad "unpack without --output: $(cat "$W/stderr")"
"$TOOL" hsi "$W/frames.json" --check >"$W/stdout" 2>&1
grep -q '^note: inputs\[0\].cpu_shape: N = 2 with a hw_shape of one frame: 2 frame buffers' "$W/stdout" ||
  bad "frames --check: $(cat "$W/stdout")"

# A compile cache folder: its vaiml_par_N/0/flexmlrt-hsi.json.
mkdir -p "$W/cache/vaiml_par_0/0" "$W/cache2/vaiml_par_0/0" "$W/cache2/vaiml_par_1/0"
cp "$W/frames.json" "$W/cache/vaiml_par_0/0/flexmlrt-hsi.json"
"$TOOL" pack --hsi "$W/cache" -i "$W/f.in" -o "$W/f.got" 2>"$W/stderr" &&
  cmp -s "$W/f.got" "$W/f.want" || bad "cache folder: $(cat "$W/stderr")"
cp "$W/frames.json" "$W/cache2/vaiml_par_0/0/flexmlrt-hsi.json"
cp "$W/frames.json" "$W/cache2/vaiml_par_1/0/flexmlrt-hsi.json"
"$TOOL" hsi "$W/cache" --check >"$W/stdout" 2>"$W/stderr" &&
  grep -q '^inputs\[0\]: ok' "$W/stdout" || bad "hsi on a cache folder: $(cat "$W/stderr")"
"$TOOL" pack --hsi "$W/cache2" -i "$W/f.in" 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: $W/cache2: 2 reports in the compile cache ($W/cache2/vaiml_par_0/0/flexmlrt-hsi.json, $W/cache2/vaiml_par_1/0/flexmlrt-hsi.json, ...); give one of them" ] ||
  bad "two partitions: $(cat "$W/stderr")"

# --all: every input from a folder, by tensor_name, .bin or .npy.
mkdir -p "$W/all" "$W/allout"
"$REF" fmt NCHW NHWC 1 3 2 2 "$W/all/a.bin" "$W/a.want" 3 >/dev/null &&
"$REF" fmt NCHW NHWC 1 2 2 3 "$W/b.raw" "$W/b.want" 4 >/dev/null ||
  bad "--all: reference"
# numpy.save's format 1.0: magic, version, header length 118, the dict
# padded with spaces to a 128-byte header, then the data.
{ printf '\223NUMPY\001\000\166\000'
  printf "%-117s\n" "{'descr': '|u1', 'fortran_order': False, 'shape': (1, 2, 2, 3), }"
  cat "$W/b.raw"; } >"$W/all/b.npy"
printf '{"inputs": [{"tensor_name": "a", "cpu_shape": [1, 3, 2, 2], "cpu_format": "NCHW", "cpu_dtype": "uint8", "hw_shape": [1, 2, 2, 3], "hw_format": "NHWC", "hw_dtype": "uint8"}, {"tensor_name": "b", "cpu_shape": [1, 2, 2, 3], "cpu_format": "NCHW", "cpu_dtype": "uint8", "hw_shape": [1, 2, 3, 2], "hw_format": "NHWC", "hw_dtype": "uint8"}], "outputs": []}\n' >"$W/all.json"
"$TOOL" pack --hsi "$W/all.json" --all "$W/all" -o "$W/allout" 2>"$W/stderr" ||
  bad "--all: $(cat "$W/stderr")"
cmp -s "$W/allout/a.bin" "$W/a.want" || bad "--all: a.bin differs"
cmp -s "$W/allout/b.bin" "$W/b.want" || bad "--all: b.bin (from b.npy) differs"

# The mixed-precision report of AMD's docs (yolov8m): an output with
# cpu_format NHW, hw_format NHW and a bf16 hw_dtype, beside an entry with a
# format no tool writes. The bad entry is listed by --check; the others run.
# bf16 -> fp32 widens exactly (the bf16 bits are the upper half of fp32).
cat >"$W/yolo.json" <<'JSON'
{"inputs": [
  {"name": "images", "cpu_shape": [1, 3, 2, 2], "cpu_format": "NCHW", "cpu_dtype": "uint8",
   "hw_shape": [2, 1, 2, 1, 4], "hw_format": "HCWNC4", "hw_dtype": "uint8"},
  {"name": "bad", "cpu_shape": [1, 3, 2, 2], "cpu_format": "NCHW", "cpu_dtype": "fp32",
   "hw_shape": [1, 3, 2, 2], "hw_format": "NCHW5", "hw_dtype": "bf16"}],
 "outputs": [
  {"name": "output0", "cpu_shape": [1, 2, 3], "cpu_format": "NHW", "cpu_dtype": "fp32",
   "hw_shape": [1, 2, 3], "hw_format": "NHW", "hw_dtype": "bf16", "scale_factor": -1.0}]}
JSON
printf '\200\077\000\300\111\100\000\000\200\277\177\177' >"$W/y.in"
printf '\000\000\200\077\000\000\000\300\000\000\111\100\000\000\000\000\000\000\200\277\000\000\177\177' >"$W/y.want"
"$TOOL" unpack --hsi "$W/yolo.json" -i "$W/y.in" -o "$W/y.got" 2>"$W/stderr" &&
  cmp -s "$W/y.got" "$W/y.want" || bad "yolo output0 (NHW bf16): $(cat "$W/stderr")"
"$TOOL" hsi "$W/yolo.json" --check >"$W/y.check" 2>"$W/stderr"
[ $? -eq 1 ] || bad "yolo --check: not exit 1"
grep -q "^inconsistent: inputs\[1\].hw_format: unknown format 'NCHW5'" "$W/y.check" &&
  grep -q '^inputs\[0\]: ok: cpu uint8 \[1,3,2,2\] -> hw uint8 \[2,1,2,1,4\]$' "$W/y.check" &&
  grep -q '^outputs\[0\]: ok: cpu fp32 \[1,2,3\] -> hw bf16 \[1,2,3\]$' "$W/y.check" ||
  bad "yolo --check: $(cat "$W/y.check")"

# A wrong input size: one line, exit 1, no output.
rm -f "$W/x.bin"
"$TOOL" pack --hsi seed_transform.json --input 0 -i /dev/null -o "$W/x.bin" \
  2>"$W/stderr"
[ $? -eq 1 ] || bad "empty input accepted"
[ "$(cat "$W/stderr")" = "lay: input is 0 bytes; inputs[0] needs 12288 (fp32 [1,3,32,32])" ] ||
  bad "size message: $(cat "$W/stderr")"
[ ! -e "$W/x.bin" ] || bad "wrong size left an output file"
"$TOOL" pack --hsi seed_transform.json --input nosuch -i /dev/null 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: seed_transform.json: no entry 'nosuch' in inputs (1 entry)" ] ||
  bad "unknown key message: $(cat "$W/stderr")"

# ---- 3. --check -----------------------------------------------------------
for r in seed_annotation seed_report seed_transform seed_transform_hcwnc8; do
  "$TOOL" hsi "$r.json" --check >"$W/$r.check" 2>"$W/stderr"
  rc=$?
  [ $rc -eq 0 ] || bad "$r --check: exit $rc: $(cat "$W/stderr")"
  cmp -s "$W/$r.check" "golden/$r.check" ||
    bad "$r --check output differs: $(diff "golden/$r.check" "$W/$r.check")"
done
"$TOOL" hsi bad/m18_hw_shape_chain.json --check >"$W/m18.check" 2>"$W/stderr"
[ $? -eq 1 ] || bad "m18 --check: not exit 1"
cmp -s "$W/m18.check" golden/m18.check ||
  bad "m18 --check output differs: $(diff golden/m18.check "$W/m18.check")"
[ "$(cat "$W/stderr")" = "lay: bad/m18_hw_shape_chain.json: 1 inconsistency" ] ||
  bad "m18 --check summary: $(cat "$W/stderr")"

"$TOOL" hsi bad/m16_reshape_count.json --check >"$W/m16.check" 2>"$W/stderr"
[ $? -eq 1 ] || bad "m16 --check: not exit 1"
cmp -s "$W/m16.check" golden/m16.check ||
  bad "m16 --check output differs: $(diff golden/m16.check "$W/m16.check")"
[ "$(cat "$W/stderr")" = "lay: bad/m16_reshape_count.json: 2 inconsistencies" ] ||
  bad "m16 --check summary: $(cat "$W/stderr")"
# Every disagreement of every entry (the chain steps that do not fit,
# byte sizes, scales lay cannot apply), the fine entries still ok.
for r in m51_float_scale:1 m54_bytes_overflow:2 m55_many:6; do
  f=${r%:*} k=${r#*:}
  "$TOOL" hsi "bad/$f.json" --check >"$W/$f.check" 2>"$W/stderr"
  [ $? -eq 1 ] || bad "$f --check: not exit 1"
  cmp -s "$W/$f.check" "golden/$f.check" ||
    bad "$f --check output differs: $(diff "golden/$f.check" "$W/$f.check")"
  want="lay: bad/$f.json: $k inconsistenc"
  case $(cat "$W/stderr") in "$want"*) ;; *) bad "$f --check summary: $(cat "$W/stderr")" ;; esac
done
"$TOOL" pack --hsi bad/m55_many.json --input 2 -i "$W/xf_in_pack.in" \
  -o "$W/m55.bin" 2>"$W/stderr" || bad "m55 inputs[2]: $(cat "$W/stderr")"
cmp -s "$W/m55.bin" "$W/xf_in_pack.want" || bad "m55 inputs[2]: bytes differ"

"$TOOL" hsi bad/hw_order_differs.json --check >"$W/hw.check" 2>/dev/null
[ $? -eq 1 ] || bad "hw_order_differs --check: not exit 1"
cmp -s "$W/hw.check" golden/hw_order_differs.check ||
  bad "hw_order_differs --check differs: $(diff golden/hw_order_differs.check "$W/hw.check")"

# ---- 4. lay hsi FILE prints the specs with buffer sizes --------------------
"$TOOL" hsi seed_transform.json >"$W/print.lay" 2>"$W/stderr" ||
  bad "hsi print: $(cat "$W/stderr")"
cmp -s "$W/print.lay" golden/seed_transform.print ||
  bad "hsi print differs: $(diff golden/seed_transform.print "$W/print.lay")"

"$TOOL" hsi bad/m15_pad_output_shape.json >"$W/m15.lay" 2>"$W/stderr"
[ $? -eq 1 ] || bad "hsi print of an inconsistent report: not exit 1"
[ "$(cat "$W/stderr")" = "lay: bad/m15_pad_output_shape.json: 1 entry is inconsistent; see 'lay hsi bad/m15_pad_output_shape.json --check'" ] ||
  bad "hsi print summary: $(cat "$W/stderr")"
grep -q '^# inconsistent: inputs\[0\].rt_transformations\[1\].output_shape' "$W/m15.lay" ||
  bad "hsi print: the inconsistency is not named"

# ---- 4b. a report over 64 MB is not read: the same message path -----------
truncate -s 70M "$W/big.json" 2>/dev/null ||
  dd if=/dev/null of="$W/big.json" bs=1 seek=73400320 2>/dev/null
want="lay: $W/big.json: report: 73400320 bytes, larger than 67108864 bytes"
for cmd in "hsi" "hsi --check" "pack --hsi --input 0" "unpack --hsi --output 0"; do
  set -- $cmd
  rm -f "$W/big.out"
  if [ $# -eq 1 ] || [ "$2" = --check ]; then
    "$TOOL" "$@" "$W/big.json" >"$W/stdout" 2>"$W/stderr"
  else
    "$TOOL" "$1" "$2" "$W/big.json" "$3" "$4" -i /dev/null -o "$W/big.out" \
      >"$W/stdout" 2>"$W/stderr"
  fi
  rc=$?
  [ $rc -eq 1 ] || bad "big report, $cmd: exit $rc"
  [ "$(cat "$W/stderr")" = "$want" ] || bad "big report, $cmd: $(cat "$W/stderr")"
  [ ! -e "$W/big.out" ] || bad "big report, $cmd: left an output file"
done
head -c 67108865 /dev/zero | "$TOOL" hsi - 2>"$W/stderr"
[ "$(cat "$W/stderr")" = "lay: -: report: larger than 67108864 bytes" ] ||
  bad "big report on stdin: $(cat "$W/stderr")"
rm -f "$W/big.json"

# ---- 5. export, then run the export == run the layout ----------------------
# Every layout of stdlib/amd.lay must have a row below (checked by name).
# format  shape  dtype  quantize(scale,zp[,type])  direct layout
U="-f user_layouts.lay"
cat >"$W/exports" <<'EXPORTS'
amd.hcwnc4              2,5,3,7   int8  -                amd.hcwnc4
amd.hcwnc8              2,5,3,7   int8  -                amd.hcwnc8
amd.hcwnc16             1,17,2,3  fp32  -                amd.hcwnc16
amd.hcwnc(3)            2,7,3,2   int16 -                amd.hcwnc(3)
amd.ab                  3,5       int8  -                amd.ab
amd.ab                  4,9       fp32  -                amd.ab
amd.hcwnc_q(4,0.1,-5)   1,3,5,6   fp32  -                amd.hcwnc_q(4,0.1,-5)
amd.hcwnc_bf16(8)       2,9,2,3   fp32  -                amd.hcwnc_bf16(8)
amd.hcwnc4              1,3,5,6   fp32  0.0078125,0      amd.hcwnc_q(4,0.0078125)
amd.hcwnc8              2,3,5,6   fp32  0.037,3          amd.hcwnc_q(8,0.037,3)
amd.hcwnc16             1,20,2,3  fp32  0.003,-5,int8    amd.hcwnc_q(16,0.003,-5)
amd.hcwnc4              2,5,3,3   fp32  0.1,128,uint8    t.qu8(4,0.1,128)
core.nhwc               2,3,4,5   int8  -                core.nhwc
qnn.crouton             1,9,10,33 uint8 -                qnn.crouton
kneron.4w4c8b           1,6,3,5   int8  -                kneron.4w4c8b
ti.tidl(pad_l=1,pad_t=2,pad_ch=1) 2,3,4,5 int8 -         ti.tidl(pad_l=1,pad_t=2,pad_ch=1)
t.user                  5,9,2     int8  -                t.user
t.i2u                   7,9       int8  -                t.i2u
EXPORTS
for name in $(sed -n 's/^layout \([a-z0-9_]*\).*/\1/p' ../../stdlib/amd.lay); do
  awk -v n="amd.$name" '{ sub(/\(.*/, "", $1); if ($1 == n) f = 1 } END { exit !f }' \
    "$W/exports" || bad "export: no row for the stdlib layout amd.$name"
done
nx=0
while read -r f shape dt q direct; do
  nx=$((nx + 1))
  skip $nx && continue
  qa=""
  [ "$q" = "-" ] || qa="--quantize $q"
  case $dt in fp32|int32) size=4 ;; fp16|bf16|int16|uint16) size=2 ;; *) size=1 ;; esac
  elems=$(echo "$shape" | awk -F, '{p=1; for(i=1;i<=NF;i++) p*=$i; print p}')
  if [ "$dt" = fp32 ]; then "$REF" floats "$W/d.in" "$elems"
  else "$REF" bytes "$W/d.in" $((elems * size)); fi
  for as in input output; do
    e="$W/exp-$nx-$as.json"
    # shellcheck disable=SC2086
    "$TOOL" export "$f" $U --shape "$shape" --dtype "$dt" $qa --as "$as" \
      -o "$e" 2>"$W/stderr" || { bad "export $f: $(cat "$W/stderr")"; continue; }
    "$TOOL" hsi "$e" --check >/dev/null 2>"$W/stderr" ||
      bad "export $f --as $as: --check: $(cat "$W/stderr")"
    for cmd in pack unpack; do
      if [ $cmd = unpack ]; then
        # shellcheck disable=SC2086
        "$TOOL" $U pack "$direct" --shape "$shape" --dtype "$dt" -i "$W/d.in" \
          -o "$W/d.src" || { bad "$direct pack"; continue; }
      else cp "$W/d.in" "$W/d.src"; fi
      # shellcheck disable=SC2086
      "$TOOL" $U $cmd "$direct" --shape "$shape" --dtype "$dt" -i "$W/d.src" \
        -o "$W/d.direct" 2>"$W/stderr" || { bad "$direct $cmd: $(cat "$W/stderr")"; continue; }
      "$TOOL" $cmd --hsi "$e" "--$as" 0 -i "$W/d.src" -o "$W/d.hsi" \
        2>"$W/stderr" || { bad "$f $as $cmd: $(cat "$W/stderr")"; continue; }
      cmp -s "$W/d.direct" "$W/d.hsi" || bad "export $f --as $as: $cmd differs from $direct"
    done
  done
done <"$W/exports"
[ $nx -ge 18 ] || bad "only $nx exports ran"
# -f before the command word serves export as it serves every command
"$TOOL" -f user_layouts.lay export t.user --shape 5,9,2 -o "$W/before.json" \
  2>"$W/stderr" || bad "lay -f FILE export: $(cat "$W/stderr")"
"$TOOL" export t.user -f user_layouts.lay --shape 5,9,2 -o "$W/after.json" \
  2>"$W/stderr" || bad "lay export -f FILE: $(cat "$W/stderr")"
cmp -s "$W/before.json" "$W/after.json" || bad "-f before and after export differ"

# Export errors: one line, exit 1, no file.
while IFS='|' read -r args msg; do
  rm -f "$W/e.json"
  # shellcheck disable=SC2086
  "$TOOL" export $args -o "$W/e.json" 2>"$W/stderr"
  rc=$?
  [ $rc -eq 1 ] || bad "export $args: exit $rc"
  [ "$(cat "$W/stderr")" = "$msg" ] || bad "export $args: $(cat "$W/stderr")"
  [ ! -e "$W/e.json" ] || bad "export $args: left a file"
done <<'XERR'
amd.hcwnc5 --shape 1,3,4,4|lay: unknown layout 'amd.hcwnc5'
kneron.1w16c8bhl --shape 1,16,2,2|lay: cannot export 'kneron.1w16c8bhl': it splits elements into byte planes, which no rt_transformations step expresses
ti.tidl(ch_pitch=100) --shape 1,2,3,4|lay: cannot export 'ti.tidl(ch_pitch=100)': axis 'c' has an explicit stride, which leaves gaps no chain expresses
amd.hcwnc8 --shape 1,3,4,4 --quantize 0.5,200|lay: cannot export 'amd.hcwnc8': --quantize: zero point 200 is outside the int8 range [-128, 127]
amd.hcwnc8 --shape 1,3,4,4 --quantize 0.5,-3,uint8|lay: cannot export 'amd.hcwnc8': --quantize: zero point -3 is outside the uint8 range [0, 255]
amd.hcwnc8 --shape 1,3,4,4 --quantize 0.5,1.5|lay: cannot export 'amd.hcwnc8': --quantize: zero point must be an integer, not 1.5
amd.hcwnc8 --shape 1,3,4,4 --quantize x|lay: bad --quantize 'x': expected SCALE,ZERO_POINT[,TYPE]
amd.hcwnc8 --shape 1,3,4,4 --quantize 0.5,0,int3|lay: bad --quantize '0.5,0,int3': expected SCALE,ZERO_POINT[,TYPE]
amd.hcwnc8 --shape 1,3,4,4 --quantize 0.5,0,int4|lay: cannot export 'amd.hcwnc8': --quantize: rt_transformations have no 4-bit type such as int4
t.padv -f user_layouts.lay --shape 6|lay: cannot export 't.padv': it pads with 7; rt_transformations pad with zeros
t.padz -f user_layouts.lay --shape 6|lay: cannot export 't.padz': it pads with -0; rt_transformations pad with zeros
t.slv -f user_layouts.lay --shape 2,4 --as output|lay: cannot export 't.slv': as an output it fills the elements the buffer does not hold with 5; rt_transformations pad with zeros
XERR
"$TOOL" export amd.hcwnc8 2>/dev/null
[ $? -eq 2 ] || bad "export without --shape: not a usage error"

[ $fail -eq 0 ] && echo "hsi cli: all passed ($n malformed reports)"
exit $fail
