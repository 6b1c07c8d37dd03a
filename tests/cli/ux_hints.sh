#!/bin/sh
# tests/cli/ux_hints.sh: hints after a size mismatch (issue 19, point 4):
# another dtype, the other side of the plan, a .npy header; and a note for
# a channels-last shape given to an (n, c, h, w) layout.
#   sh ux_hints.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# 4x the int8 size of 1x3x32x32: fp32 or int32 data.
head -c 12288 /dev/zero >"$T/a.bin"
run pack amd.hcwnc4 --shape 1,3,32,32 -i "$T/a.bin" -o "$T/o.bin"
expect_rc 1 "4x the size"
expect_err "lay: input is 12288 bytes, amd.hcwnc4 on 1x3x32x32 int8 needs 3072
hint: that is 3072 elements of 4 bytes: give their type, --dtype fp32, int32" "4x the size"
# With --dtype given, no dtype hint.
run pack amd.hcwnc4 --shape 1,3,32,32 --dtype int8 -i "$T/a.bin" -o "$T/o.bin"
expect_err "lay: input is 12288 bytes, amd.hcwnc4 on 1x3x32x32 int8 needs 3072" "--dtype given"

# The packed size given to pack (hcwnc4 pads 3 channels to 4: 16 bytes).
head -c 16 /dev/zero >"$T/16.bin"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/16.bin" -o "$T/o.bin"
expect_err "lay: input is 16 bytes, amd.hcwnc4 on 1x3x2x2 int8 needs 12
hint: that is the size of the packed buffer: did you mean lay unpack?" "packed size to pack"

# A .npy file: magic, version 1.0, a 2-byte header length (118), the
# header padded to 128 bytes, then the data.
npy() { # FILE DATA_BYTES
  {
    printf '\223NUMPY\001\000\166\000'
    printf "{'descr': '|i1', 'fortran_order': False, 'shape': (1, 3, 224, 224), }"
    printf '%*s\n' 48 ''
  } >"$1"
  head -c "$2" /dev/zero >>"$1"
}
# A .npy file under another name is read as raw bytes: the hint says so.
npy "$T/x.data" 150528
[ "$(wc -c <"$T/x.data" | tr -d ' ')" = 150656 ] || fail "the .npy fixture is 150656 bytes"
run pack core.nchw --shape 1,3,224,224 -i "$T/x.data" -o "$T/o.bin"
expect_err "lay: input is 150656 bytes, core.nchw on 1x3x224x224 int8 needs 150528
hint: $T/x.data is a .npy file: its data after the 128-byte header has the size needed (raw bytes: tail -c +129 $T/x.data)" ".npy header"
# The hint's command gives the raw bytes.
tail -c +129 "$T/x.data" >"$T/raw.bin"
run pack core.nchw --shape 1,3,224,224 -i "$T/raw.bin" -o "$T/o.bin"
expect_rc 0 "the data without the header"
run pack core.nchw --shape 1,3,2,2 -i "$T/x.data" -o "$T/o.bin"
expect_err "lay: input is 150656 bytes, core.nchw on 1x3x2x2 int8 needs 12
hint: $T/x.data is a .npy file (a 128-byte header, then 150528 bytes of data); lay reads raw bytes" ".npy of another size"
# Named .npy, it is read as one (cli_npy.c).
cp "$T/x.data" "$T/x.npy"
run pack core.nchw -i "$T/x.npy" -o "$T/o2.bin"
expect_rc 0 "pack X.npy"
cmp -s "$T/o.bin" "$T/o2.bin" 2>/dev/null || cmp -s "$T/o2.bin" "$T/raw.bin" || fail "pack X.npy gives the raw data's bytes"

# A channels-last shape on an (n, c, h, w) layout: a note, the command runs.
head -c 150528 /dev/zero >"$T/img.bin"
run pack amd.hcwnc4 --shape 1,224,224,3 -i "$T/img.bin" -o "$T/o.bin"
expect_rc 0 "NHWC shape still packs"
expect_err "lay: note: this shape means n=1, c=224, h=224, w=3 for amd.hcwnc4; if the tensor is channels last, give --shape 1,3,224,224" "NHWC shape note"
run pack amd.hcwnc4 --shape 1,3,224,224 -i "$T/img.bin" -o "$T/o.bin"
[ -s "$T/err" ] && fail "NCHW shape: a note $(cat "$T/err")"
run pack core.nhwc --shape 1,224,224,3 -i "$T/img.bin" -o "$T/o.bin"
[ -s "$T/err" ] && fail "an NHWC layout: a note $(cat "$T/err")"
finish
