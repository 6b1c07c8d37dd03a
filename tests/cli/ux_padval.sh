#!/bin/sh
# tests/cli/ux_padval.sh: pad_value checked against the hardware type
# everywhere, the error at the `pad_value = V` item (issue 19, point 12):
# a literal on a typed layout, a value through a parameter (a format
# reference, or an instantiation in a file), through --dtype on a layout
# whose type is open (and the int8 default), fp16 and bf16 out of range, a
# fraction on an integer type; integers on float types and values in
# range are accepted. The ranges are LANGUAGE.md's (pad_value: an integer
# in range, or a float finite once rounded to the type).
#   sh ux_padval.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

cat >"$T/pv.lay" <<'LAY'
namespace pv
layout par(v) (n) : uint8 -> [n/4, n%4] pad_value = v
layout open(v) (n) -> [n/4, n%4] pad_value = v
layout open300 (n) -> [n/4, n%4] pad_value = 300
layout f32 (n) : fp32 -> [n/4, n%4] pad_value = 3
LAY
P=$T/pv.lay

# A literal on a typed layout: lay check.
printf 'layout lit (n) : uint8 -> [n/4, n%%4] pad_value = 300\n' >"$T/lit.lay"
run check "$T/lit.lay"
expect_rc 1 "literal"
expect_err "$T/lit.lay:1:50: error: pad_value 300 does not fit uint8
    layout lit (n) : uint8 -> [n/4, n%4] pad_value = 300
                                                     ^" "literal"

# Through a parameter, from a format reference.
run -f "$P" show 'pv.par(300)' --shape 5
expect_rc 1 "parameter"
expect_err "$P:2:53: error: pad_value 300 does not fit uint8 (pad_value = v, with pv.par(300))
    layout par(v) (n) : uint8 -> [n/4, n%4] pad_value = v
                                                        ^" "parameter"
run -f "$P" show 'pv.par(v = 255)' --shape 5
expect_rc 0 "parameter in range"
expect_out "(0), (1) ... (4), pad x3" "parameter in range"

# Through an instantiation in a file: at the pad item, naming the use.
printf 'namespace pv2\nlayout p(v) (n) : uint8 -> [n/4, n%%4] pad_value = v\nlayout t = p(v = -1)\n' >"$T/tpl.lay"
run check "$T/tpl.lay"
expect_rc 1 "template argument"
expect_err "$T/tpl.lay:2:51: error: pad_value -1 does not fit uint8 (pad_value = v, with p(v=-1) at $T/tpl.lay:3:12)
    layout p(v) (n) : uint8 -> [n/4, n%4] pad_value = v
                                                      ^" "template argument"

# Through --dtype on a layout whose type is open.
run -f "$P" show pv.open300 --shape 5 --dtype uint8
expect_rc 1 "--dtype"
expect_err "$P:4:46: error: pad_value 300 does not fit uint8 (the layout's element type is open, uint8 is the type asked for)
    layout open300 (n) -> [n/4, n%4] pad_value = 300
                                                 ^" "--dtype"
run -f "$P" show 'pv.open(300)' --shape 5
expect_rc 1 "the default type"
expect_err "$P:3:46: error: pad_value 300 does not fit int8 (pad_value = v, with pv.open(300); the layout's element type is open, int8 by default)
    layout open(v) (n) -> [n/4, n%4] pad_value = v
                                                 ^" "the default type"
run -f "$P" show pv.open300 --shape 5 --dtype int16
expect_rc 0 "--dtype int16 holds 300"
run -f "$P" convert pv.open300 core.flat1 --map a=n --shape 5 --dtype uint8 -i /dev/null -o "$T/o"
expect_rc 1 "convert --dtype"
head -1 "$T/err" >"$T/err1"
[ "$(cat "$T/err1")" = "$P:4:46: error: pad_value 300 does not fit uint8 (the layout's element type is open, uint8 is the type asked for)" ] ||
  fail "convert --dtype: $(cat "$T/err")"

# fp16 stops at 65504, bf16 at about 3.39e38 (finite once rounded).
run -f "$P" show 'pv.open(70000)' --shape 5 --dtype fp16
expect_rc 1 "fp16"
expect_err "$P:3:46: error: pad_value 70000 does not fit fp16 (pad_value = v, with pv.open(70000); the layout's element type is open, fp16 is the type asked for)
    layout open(v) (n) -> [n/4, n%4] pad_value = v
                                                 ^" "fp16"
run -f "$P" show 'pv.open(65504)' --shape 5 --dtype fp16
expect_rc 0 "fp16 65504"
run -f "$P" show 'pv.open(1e39)' --shape 5 --dtype bf16
expect_rc 1 "bf16"
expect_err "$P:3:46: error: pad_value 1e+39 does not fit bf16 (pad_value = v, with pv.open(1e39); the layout's element type is open, bf16 is the type asked for)
    layout open(v) (n) -> [n/4, n%4] pad_value = v
                                                 ^" "bf16"
printf 'layout h (n) : fp16 -> [n/4, n%%4] pad_value = 65520\n' >"$T/h.lay"
run check "$T/h.lay"
expect_err "$T/h.lay:1:47: error: pad_value 65520 does not fit fp16
    layout h (n) : fp16 -> [n/4, n%4] pad_value = 65520
                                                  ^" "fp16 literal (65520 rounds to infinity)"

# A fraction on an integer type is refused; an integer on a float type and
# a fraction on one are values of it.
run -f "$P" show 'pv.open(1.5)' --shape 5 --dtype int16
expect_rc 1 "fraction on int16"
head -1 "$T/err" >"$T/err1"
[ "$(cat "$T/err1")" = "$P:3:46: error: pad_value 1.5 does not fit int16 (pad_value = v, with pv.open(1.5); the layout's element type is open, int16 is the type asked for)" ] ||
  fail "fraction on int16: $(cat "$T/err")"
run -f "$P" show 'pv.open(1.5)' --shape 5 --dtype fp32
expect_rc 0 "fraction on fp32"
head -c 20 /dev/zero >"$T/z20"
run -f "$P" pack pv.f32 --shape 5 -i "$T/z20" -o "$T/f32.bin"
expect_rc 0 "integer pad on fp32"
# 5 zeros then three pads of 3.0f (0x40400000, little-endian).
[ "$(hex "$T/f32.bin")" = "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 40 40 00 00 40 40 00 00 40 40" ] ||
  fail "integer pad on fp32: $(hex "$T/f32.bin")"
finish
