#!/bin/sh
# tests/cli/planes.sh: byte planes (Kneron HL) and their pad value. The pad
# value is an element value of the type whose bits the planes split; the
# pad element is split into planes like any element (lang/ir.h).
#   sh planes.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

cat >"$T/hl.lay" <<'X'
namespace t
# Entries of 4 channels: a low-byte plane lo = (u >> 1) & 0x7f, then a
# high-byte plane hi = (u >> 8) & 0xff, of the int16 value u.
layout pad258 (n, c) : fp32 -> [n, c/4, byte, c%4]
    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)
    fixed(scale = 1, radix = 0, to = int16) pad_value = 258
layout padneg (n, c) : fp32 -> [n, c/4, byte, c%4]
    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)
    fixed(scale = 1, radix = 0, to = int16) pad_value = -1
layout raw (n, c) : int16 -> [n, c/4, byte, c%4]
    where byte = bytes(lo = (u >> 1) & 0x7f, hi = (u >> 8) & 0xff)
    pad_value = -1
X
# One fp32 channel, 1.0: u = 1 gives lo 0x00, hi 0x00; three pad channels.
printf '\000\000\200\077' >"$T/one.bin"

# pad 258 = 0x0102: lo (0x102 >> 1) & 0x7f = 0x01, hi 0x01
run -f "$T/hl.lay" pack t.pad258 --shape 1,1 -i "$T/one.bin" -o "$T/o1.bin"
expect_rc 0 "pack t.pad258"
[ "$(hex "$T/o1.bin")" = "00 01 01 01 00 01 01 01" ] ||
  fail "pack t.pad258: $(hex "$T/o1.bin")"

# pad -1 = 0xffff: lo 0x7f, hi 0xff
run -f "$T/hl.lay" pack t.padneg --shape 1,1 -i "$T/one.bin" -o "$T/o2.bin"
expect_rc 0 "pack t.padneg"
[ "$(hex "$T/o2.bin")" = "00 7f 7f 7f 00 ff ff ff" ] ||
  fail "pack t.padneg: $(hex "$T/o2.bin")"

# Without a value rule the split type is the CPU type, int16: -1 fits.
# The element 0x0102 gives lo 0x01, hi 0x01.
printf '\002\001' >"$T/e.bin"
run -f "$T/hl.lay" pack t.raw --shape 1,1 -i "$T/e.bin" -o "$T/o3.bin"
expect_rc 0 "pack t.raw"
[ "$(hex "$T/o3.bin")" = "01 7f 7f 7f 01 ff ff ff" ] ||
  fail "pack t.raw: $(hex "$T/o3.bin")"

# A pad value that does not fit the split type is an error.
printf 'layout x (c) : int16 -> [c/4, byte, c%%4]\n  where byte = bytes(lo = u & 0xff, hi = u >> 8)\n  pad_value = 40000\n' >"$T/bad.lay"
run check "$T/bad.lay"
expect_rc 1 "check bad.lay"
expect_err "$T/bad.lay:3:15: error: pad_value 40000 does not fit int16
      pad_value = 40000
                  ^" "check bad.lay"

finish
