#!/bin/sh
# tests/cli/ux_draw.sh: lay draw (issue 19, point 7; issue 21, point 4):
# --from/--to (byte offsets or coordinates) draw only those rows; a
# dimension longer than the 12-colour palette gets one colour per value;
# a huge, mostly-pad buffer is drawn at once (its summary), not walked.
#   sh ux_draw.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# Issue 21, point 4: 10^12 pad elements; the summary must not walk them.
start=$(date +%s)
run draw 'ti.tidl(pad_l=1000000000000)' --shape 1,1,1,1 -o "$T/huge.svg"
expect_rc 0 "huge mostly-pad buffer"
expect_err "wrote $T/huge.svg: 1000000000001 cells in 62500000001 rows (summarised)" "huge buffer summary"
[ $(( $(date +%s) - start )) -lt 10 ] || fail "draw of a huge buffer took $(( $(date +%s) - start )) s"

# core.nchw 1x64x4x4 int8, 16-byte rows: coordinate (0,1,0,0) is byte 16,
# (0,2,3,3) byte 47: rows 1 and 2, 32 cells, from (0,1,0,0) to (0,2,3,3).
run draw core.nchw --shape 1,64,4,4 --from 0,1,0,0 --to 0,2,3,3 -o "$T/r.svg"
expect_rc 0 "--from/--to coordinates"
expect_err "wrote $T/r.svg: 1024 cells in 64 rows; drew rows 1 to 2 (bytes 0x10 to 0x2f)" "--from/--to message"
labels=$(sed -n 's/.*<text x="[0-9]*" y="[0-9]*">\([0-9,]*\)<\/text>.*/\1/p' "$T/r.svg")
[ "$(echo "$labels" | wc -l | tr -d ' ')" = 32 ] || fail "--from/--to: $(echo "$labels" | wc -l) cells, expected 32"
[ "$(echo "$labels" | head -1)" = 0,1,0,0 ] || fail "first cell $(echo "$labels" | head -1)"
[ "$(echo "$labels" | tail -1)" = 0,2,3,3 ] || fail "last cell $(echo "$labels" | tail -1)"
# The same range as byte offsets.
run draw core.nchw --shape 1,64,4,4 --from 16 --to 48 -o "$T/r2.svg"
cmp -s "$T/r.svg" "$T/r2.svg" || fail "--from 16 --to 48 draws the same rows"
run draw core.nchw --shape 1,3,4,4 --from 100 -o "$T/x.svg"
expect_rc 1 "--from past the end"
expect_err "lay: --from 100 --to 48: the buffer has bytes 0 to 47" "--from past the end"
[ -e "$T/x.svg" ] && fail "a failed draw left a file"
run draw core.nchw --shape 1,3,4,4 --from 0,5,0,0 -o "$T/x.svg"
expect_rc 1 "--from outside the tensor"

# 64 channels in one 64-byte row, coloured by c: 64 different fills.
run draw core.nhwc --shape 1,1,1,64 --row 64 --color c -o "$T/p.svg"
expect_rc 0 "64 channels"
n=$(grep -o '<rect x="[0-9]*" y="[0-9]*" width="[0-9]*" height="22" fill="[^"]*"' "$T/p.svg" | sed 's/.*fill=//' | grep -v none | sort -u | wc -l | tr -d ' ')
[ "$n" = 64 ] || fail "64 channels drawn in $n colours"
# 12 or fewer values keep the ColorBrewer Set3 palette.
run draw core.nhwc --shape 1,1,1,12 --row 12 --color c -o "$T/q.svg"
grep -q 'fill="#8dd3c7"' "$T/q.svg" && grep -q 'fill="#9ecae1"' "$T/q.svg" || fail "Set3 for 12 values"
# A summary shows whole chunks: qnn.crouton's 8x8x32 = 2048-byte chunk is
# 128 rows of 16 bytes; the 192 head rows a summary may show end at 128,
# then 12544 - 128 - 32 rows are left out before the 32 tail rows.
run draw qnn.crouton --shape 1,56,56,64 -o "$T/cr.svg"
grep -q "\.\.\. 12384 more rows (0x800 to 0x30dff) \.\.\." "$T/cr.svg" || fail "crouton summary: $(grep -o 'more rows[^<]*' "$T/cr.svg")"
finish
