#!/bin/sh
# tests/tidl/tidl_cli.sh: TIDL io_1.bin through the command line.
#   tidl_cli.sh LAY WORKDIR      (WORKDIR holds gen_io's files)
# Checks: every struct version (SDK 08.06; SDK 09 for 1, 2, 4 cores;
# SDK 10; the multi-subgraph container) packs input 0 and unpacks output 0
# to the bytes TIDL-RT's own loops give (gen_io computes them); NHWC
# tensors (planar buffer in SDK 08.06, NHWC in SDK 09/10); DIM1 and DIM2
# folded into N; `lay tidl` and `--check` output; the exact message of
# every hostile file (whole-file errors, and per-tensor errors that leave
# the other tensors usable); usage errors; no output file on failure.
set -u
TOOL=$1 W=$2
cd "$W" || exit 1
fail=0
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }

# ---- 1. every version: pack input 0, unpack output 0 --------------------
for v in v0806 v09_1 v09_2 v09_4 v10; do
  "$TOOL" pack --tidl $v.bin --input 0 -i in0.f32 -o got.bin ||
    bad "$v: pack failed"
  cmp -s got.bin in0_$v.expect || bad "$v: input 0 differs from TIDL-RT"
  "$TOOL" pack --tidl $v.bin --input input.1 -i in0.f32 -o got.bin &&
    cmp -s got.bin in0_$v.expect || bad "$v: input by name"
  "$TOOL" unpack --tidl $v.bin --output logits -i out0_$v.tidl -o got.bin ||
    bad "$v: unpack failed"
  cmp -s got.bin out0_$v.expect || bad "$v: output 0 differs from TIDL-RT"
done
"$TOOL" pack --tidl v10_multi.bin --input 0 -i in0.f32 -o got.bin &&
  cmp -s got.bin in0_v10.expect || bad "container: input 0"

# TIDL-RT's float32 arithmetic: 0.7f * 10 is 7 in float32 (exact
# arithmetic gives 6.99999988, truncated to 6), -0.7f gives -7. Input 0
# starts at row 1, column 1 of a 7-element line: byte 8.
printf '\007\371' >want.bin
dd if=got.bin of=got2.bin bs=1 skip=8 count=2 2>/dev/null
cmp -s got2.bin want.bin || bad "f32 truncation: $(od -An -tx1 got2.bin)"

# NHWC input 1 (uint8, scale 1): SDK 08.06's TIDL-RT writes it planar,
# SDK 09 and 10 keep NHWC.
printf '\000\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020\021' >nhwc.bin
printf '\000\003\006\011\014\017\001\004\007\012\015\020\002\005\010\013\016\021' >planar.bin
"$TOOL" pack --tidl v0806.bin --input img -i nhwc.bin -o got.bin &&
  cmp -s got.bin planar.bin || bad "08.06 NHWC is planar in the buffer"
"$TOOL" pack --tidl v10.bin --input img -i nhwc.bin -o got.bin &&
  cmp -s got.bin nhwc.bin || bad "SDK 10 NHWC buffer"

# DIM1 = 2, DIM2 = 3 fold into N = 6: six batches of 147 bytes.
out=$("$TOOL" tidl v10_dims.bin --check 2>&1)
echo "$out" | grep -qx 'inputs\[0\]: ok: cpu fp32 \[6,3,4,5\] -> NCHW int8, 882 bytes' ||
  bad "DIM1/DIM2: $out"

# ---- 2. lay tidl and --check ---------------------------------------------
out=$("$TOOL" tidl v10.bin --check)
[ "$out" = "v10.bin: SDK 10
inputs[0]: ok: cpu fp32 [1,3,4,5] -> NCHW int8, 147 bytes
inputs[1]: ok: cpu uint8 [1,2,3,3] -> NHWC uint8, 18 bytes
note: outputs[0] 'logits': outPadB 2 runs past the channel pitch 18: read as 0 (TIOVX still allocates 6 rows)
outputs[0]: ok: cpu fp32 [1,2,3,4] -> NCHW int16, 96 bytes
outputs[1]: ok: cpu fp32 [2,1,1,10] -> NCHW fp32, 80 bytes" ] || bad "--check: $out"
for v in v0806:'SDK 08.06' v09_1:'SDK 09 (1 core)' v09_2:'SDK 09 (2 cores)' \
         v09_4:'SDK 09 (4 cores)' v10_multi:'SDK 10, 2 subgraphs'; do
  f=${v%%:*} name=${v#*:}
  "$TOOL" tidl $f.bin --check | head -1 | grep -qxF "$f.bin: $name" ||
    bad "$f: version is not $name"
done
out=$("$TOOL" tidl v10.bin)
echo "$out" | grep -qxF 'layout output0 (n, c, h, w) : fp32 -> [1 @ (n * c * (1 + h + 2) * (w)), n, c @ ((1 + h) * (w) + 2), 1 + h, w]' ||
  bad "lay tidl: output 0's layout"
echo "$out" | grep -qxF '    affine(num = 10, den = 1, to = int8, round = truncate, arith = f32)' ||
  bad "lay tidl: input 0's value rule"
echo "$out" | grep -qxF '# outputs[0] buffers: cpu 96 bytes (fp32), tidl 96 bytes (int16)' ||
  bad "lay tidl: buffer sizes"
# The printed spec loads as it is.
echo "$out" | grep -v '^# .* buffers' >spec.lay
"$TOOL" -f spec.lay pack tidl.input0 --shape 1,3,4,5 -i in0.f32 -o got.bin &&
  cmp -s got.bin in0_v10.expect || bad "printed spec"

# ---- 3. hostile files: exact messages ------------------------------------
# Whole-file errors: `lay tidl FILE` fails with this stderr line.
while IFS='|' read -r file msg; do
  [ -n "$file" ] || continue
  rm -f out.bin
  err=$("$TOOL" pack --tidl "$file" --input 0 -i in0.f32 -o out.bin 2>&1)
  rc=$?
  [ $rc -eq 1 ] || bad "$file: exit $rc"
  [ "$err" = "lay: $file: $msg" ] || bad "$file: got '$err'"
  [ -e out.bin ] && bad "$file: output left behind"
done <<'EOF'
bad_size.bin|378391 bytes is not the size of an sTIDL_IOBufDesc_t (37256: SDK 08.06; 93976, 187928, 375832: SDK 09 for 1, 2, 4 cores; 378392: SDK 10) or of a multi-subgraph container of one
bad_multi.bin|an SDK 10 multi-subgraph container whose subgraph 1 has offset 4 and size 378392 (expected 378392 and 378392)
bad_nin.bin|numInputBuf: 129 (the SDK 10 struct holds 0 to 128)
bad_nin_neg.bin|numInputBuf: -1 (the SDK 10 struct holds 0 to 128)
bad_nout.bin|numOutputBuf: 513 (the SDK 10 struct holds 0 to 512)
bad_cores.bin|numCores: 5 (the SDK 10 struct holds 1 to 4)
EOF
# Per-tensor errors: --check lists the tensor, pack/unpack on it fails
# with the same text, the other tensors stay usable.
while IFS='|' read -r file which key msg; do
  [ -n "$file" ] || continue
  out=$("$TOOL" tidl "$file" --check 2>/dev/null)
  [ $? -eq 1 ] || bad "$file: --check exit is not 1"
  echo "$out" | grep -qxF "inconsistent: $msg" || bad "$file: --check: $out"
  cmd=pack
  [ "$which" = output ] && cmd=unpack
  err=$("$TOOL" $cmd --tidl "$file" --$which "$key" -i in0.f32 -o out.bin 2>&1)
  [ "$err" = "lay: $file: $msg" ] || bad "$file: $cmd: got '$err'"
  [ -e out.bin ] && bad "$file: output left behind"
  n=$(echo "$out" | grep -c ': ok: ')
  [ "$n" -eq 3 ] || bad "$file: $n usable tensors, not 3"
done <<'EOF'
bad_name.bin|input|1|inputs[1] '': inDataName: not NUL-terminated within its 512 bytes
bad_oname.bin|output|0|outputs[0] '': outDataName: not NUL-terminated within its 512 bytes
bad_width.bin|input|0|inputs[0] 'input.1': inWidth: 0 (must be at least 1)
bad_height.bin|output|1|outputs[1] 'scores': outHeight: -3 (must be at least 1)
bad_chan.bin|input|1|inputs[1] 'img': inNumChannels: 0 (must be at least 1)
bad_batch.bin|output|0|outputs[0] 'logits': outNumBatches: 0 (must be at least 1)
bad_dim1.bin|input|0|inputs[0] 'input.1': inDIM1: 0 (must be at least 1)
bad_dim2.bin|output|1|outputs[1] 'scores': outDIM2: 0 (must be at least 1)
bad_padl.bin|input|0|inputs[0] 'input.1': inPadL: -1 (a pad must not be negative)
bad_padb.bin|output|0|outputs[0] 'logits': outPadB: -2 (a pad must not be negative)
bad_padch.bin|input|0|inputs[0] 'input.1': inPadCh: -1 (a pad must not be negative)
bad_type.bin|input|0|inputs[0] 'input.1': inElementType: 9 (not a TIDL element type: 0..8 are uint8, int8, uint16, int16, uint32, int32, float32, uint64, int64)
bad_type64.bin|output|1|outputs[1] 'scores': outElementType: 7 (uint64): TIDL's 64-bit element types are not imported (how TIDL-RT converts them is not known to lay)
bad_raw.bin|input|0|inputs[0] 'input.1': rawDataInElementType: -1 (not a TIDL element type: 0..8 are uint8, int8, uint16, int16, uint32, int32, float32, uint64, int64)
bad_layout.bin|output|0|outputs[0] 'logits': outLayout: 2 (0 is NCHW, 1 is NHWC)
bad_pitch.bin|input|0|inputs[0] 'input.1': inChannelPitch: 34 is less than (inPadT + inHeight) * line pitch = (1 + 4) * 7 = 35
bad_scale0.bin|input|0|inputs[0] 'input.1': inTensorScale: 0 (must be a finite positive number)
bad_scalenan.bin|output|0|outputs[0] 'logits': outTensorScale: nan (must be a finite positive number)
bad_scaleinf.bin|output|1|outputs[1] 'scores': outTensorScale: inf (must be a finite positive number)
bad_scaleneg.bin|input|1|inputs[1] 'img': inTensorScale: -1 (must be a finite positive number)
bad_nhwcpad.bin|input|1|inputs[1] 'img': inPadL 0, inPadR 0, inPadT 1, inPadB 0: pads on an NHWC buffer are not supported (TIDL-RT starts its data at linePitch * padT + padL with the planar line pitch)
bad_overflow_p.bin|input|0|inputs[0] 'input.1': inChannelPitch: 49 is less than (inPadT + inHeight) * line pitch = (2147483647 + 2147483647) * 6442450941 = more than 2^63
bad_overflow_n.bin|input|0|inputs[0] 'input.1': inNumBatches * inDIM1 * inDIM2 overflows 64 bits
bad_overflow_b.bin|output|1|outputs[1] 'scores': the buffer size overflows 64 bits
EOF

# ---- 4. usage ------------------------------------------------------------
err=$("$TOOL" pack --tidl v10.bin --input nope -i in0.f32 2>&1)
[ "$err" = "lay: v10.bin: no tensor 'nope' in inputs (2 tensors)" ] || bad "unknown tensor: $err"
err=$("$TOOL" pack --tidl v10.bin --input 0 -i nhwc.bin 2>&1)
[ "$err" = "lay: input is 18 bytes; inputs[0] needs 240 ([1,3,4,5])" ] || bad "size: $err"
"$TOOL" pack --tidl v10.bin --shape 1 --input 0 -i in0.f32 >/dev/null 2>&1
[ $? -eq 2 ] || bad "--shape with --tidl is not a usage error"
"$TOOL" pack --tidl v10.bin --hsi x.json --input 0 >/dev/null 2>&1
[ $? -eq 2 ] || bad "--hsi with --tidl is not a usage error"
"$TOOL" tidl >/dev/null 2>&1
[ $? -eq 2 ] || bad "lay tidl without a file"

[ $fail -eq 0 ] && echo "tidl_cli: ok"
exit $fail
