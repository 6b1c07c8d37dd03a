#!/bin/sh
# tests/cli/draw_nibbles.sh: `lay draw` of a 4-bit buffer (int4, uint4)
# draws one cell per element (each nibble), in the element order of `lay
# where/at --elements`, the column header naming the nibble of the byte
# (lo or hi, as the layout's nibble order puts it), each cell's <title>
# its element index and byte. Expected cells are worked out by hand in the
# comments and checked against `lay at --elements` too.
#   sh draw_nibbles.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# The cells of an SVG: "element I: byte B N|LABEL" per cell, in order.
cells() {
  sed -n 's/.*<title>\([^<]*\)<\/title><\/rect><text x="[0-9]*" y="[0-9]*"[^>]*>\([^<]*\)<\/text>.*/\1|\2/p' "$1"
}
heads() {
  sed -n 's/.*text-anchor="middle">\(+[^<]*\)<\/text>.*/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'
}
rows() {
  sed -n 's/.*text-anchor="end" fill="#444">\([^<]*\)<\/text>.*/\1/p' "$1" | tr '\n' ' ' | sed 's/ $//'
}

# xla.tiled(2,2) on int4 2x3: tiles of 2x2, (0,0) (0,1) (1,0) (1,1) |
# (0,2) pad (0,3) (1,2) pad (1,3); two a byte, low nibble first.
run draw 'xla.tiled(2,2)' --shape 2,3 --dtype int4 --row 2 -o "$T/x.svg"
expect_rc 0 "draw int4"
expect_err "wrote $T/x.svg: 8 cells in 2 rows" "draw int4 message"
cells "$T/x.svg" >"$T/got"
cat >"$T/want" <<'W'
element 0: byte 0 lo|0,0
element 1: byte 0 hi|0,1
element 2: byte 1 lo|1,0
element 3: byte 1 hi|1,1
element 4: byte 2 lo|0,2
element 5: byte 2 hi|0,3
element 6: byte 3 lo|1,2
element 7: byte 3 hi|1,3
W
cmp -s "$T/want" "$T/got" || fail "xla.tiled(2,2) int4 cells:
$(cat "$T/got")"
[ "$(heads "$T/x.svg")" = "+0 lo +0 hi +1 lo +1 hi" ] || fail "headers: $(heads "$T/x.svg")"
[ "$(rows "$T/x.svg")" = "0x0 0x2" ] || fail "row offsets: $(rows "$T/x.svg")"
grep -q '>4 bytes, 8 cells of 4 bits (int4, low nibble first), 4 per row;' "$T/x.svg" ||
  fail "caption: $(grep -o '>[0-9]* bytes[^<]*' "$T/x.svg")"
# the pads are grey: elements 5 and 7
[ "$(grep -c 'fill="#e4e4e4" stroke="#777"' "$T/x.svg")" = 2 ] || fail "two pad cells"
# every cell is what `lay at --elements` says of its index
i=0
while [ $i -lt 8 ]; do
  run at 'xla.tiled(2,2)' --shape 2,3 --dtype int4 --offset $i --elements
  want=$(sed -n "$((i + 1))p" "$T/want" | sed 's/.*|//')
  case $(cat "$T/out") in
    "($want)"|"pad ($want)") ;;
    *) fail "element $i: at --elements says $(cat "$T/out"), the picture $want" ;;
  esac
  i=$((i + 1))
done

# high_first, [w, h] on uint4 2x3 (odd: 6 elements, 3 bytes): (0,0) (1,0)
# (0,1) (1,1) (0,2) (1,2), the first of each byte in its high nibble.
cat >"$T/h.lay" <<'LAY'
namespace nd
layout m (h, w) : uint4 -> [w, h]
  nibbles = high_first
LAY
run -f "$T/h.lay" draw nd.m --shape 2,3 --row 2 -o "$T/h.svg"
expect_rc 0 "draw uint4 high_first"
cells "$T/h.svg" >"$T/got"
cat >"$T/want" <<'W'
element 0: byte 0 hi|0,0
element 1: byte 0 lo|1,0
element 2: byte 1 hi|0,1
element 3: byte 1 lo|1,1
element 4: byte 2 hi|0,2
element 5: byte 2 lo|1,2
W
cmp -s "$T/want" "$T/got" || fail "nd.m uint4 high_first cells:
$(cat "$T/got")"
[ "$(heads "$T/h.svg")" = "+0 hi +0 lo +1 hi +1 lo" ] || fail "high_first headers: $(heads "$T/h.svg")"
grep -q '>3 bytes, 6 cells of 4 bits (uint4, high nibble first), 4 per row;' "$T/h.svg" ||
  fail "high_first caption"
# --from/--to stay byte offsets: bytes 2 to 2 are row 1 (elements 4, 5)
run -f "$T/h.lay" draw nd.m --shape 2,3 --row 2 --from 2 --to 3 -o "$T/r.svg"
expect_err "wrote $T/r.svg: 6 cells in 2 rows; drew rows 1 to 1 (bytes 0x2 to 0x3)" "--from/--to on nibbles"
[ "$(cells "$T/r.svg" | tr '\n' ' ')" = "element 4: byte 2 hi|0,2 element 5: byte 2 lo|1,2 " ] ||
  fail "--from/--to cells: $(cells "$T/r.svg")"
# an odd element count: 1x3 is 3 cells in 2 bytes
run -f "$T/h.lay" draw nd.m --shape 1,3 -o "$T/o.svg"
expect_err "wrote $T/o.svg: 3 cells in 1 row" "odd count"
# an 8-bit layout keeps its byte cells (no titles, no nibble headers)
run draw 'xla.tiled(2,2)' --shape 2,3 --dtype int8 --row 2 -o "$T/b.svg"
grep -q '<title>' "$T/b.svg" && fail "int8 cells have titles"
[ "$(heads "$T/b.svg")" = "+0 +1" ] || fail "int8 headers: $(heads "$T/b.svg")"
finish
