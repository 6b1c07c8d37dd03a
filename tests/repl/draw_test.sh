#!/bin/sh
# draw_test.sh LAY WORKDIR: `lay draw` writes valid SVG (xmllint --noout)
# whose cells match the layout, summarises a large buffer, and leaves no
# file behind when it fails.
set -u
lay=$1 work=$2
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
check() { # check WHAT COMMAND...: the command must succeed
  what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fails=$((fails + 1)); fi
}
count() { grep -o "$1" "$2" | wc -l | tr -d ' '; }

# qnn.crouton on 1x3x5x30: one 8x8x32 crouton = 2048 cells, of which
# 3*5*30 = 450 hold data and 1598 are pad (the Qualcomm doc's example).
check "draw crouton" "$lay" draw qnn.crouton --shape 1,3,5,30 -o c.svg
check "crouton: valid XML" xmllint --noout c.svg
check "crouton: 1598 pad cells" test "$(count 'fill="#e4e4e4" stroke="#777"' c.svg)" = 1598
check "crouton: 2048 cells" test "$(count 'stroke-width="0.5"' c.svg)" = 2048
check "crouton: last data cell labelled" grep -q '>0,2,4,29<' c.svg
check "crouton: pad labelled with its padded coordinate" grep -q '>0,0,0,30<' c.svg
check "crouton: coloured by w by default" grep -q 'colour = w (dimension 2)' c.svg

# amd.hcwnc4 on 1x3x2x2 (the AMD doc's example): 16 bytes, every 4th pad,
# coloured by c by default, chunks of c%4 = 4 cells.
check "draw hcwnc4" "$lay" draw amd.hcwnc4 --shape 1,3,2,2 -o h.svg
check "hcwnc4: valid XML" xmllint --noout h.svg
check "hcwnc4: 4 pad cells" test "$(count 'fill="#e4e4e4" stroke="#777"' h.svg)" = 4
check "hcwnc4: coloured by c" grep -q 'colour = c (dimension 1)' h.svg
check "hcwnc4: chunks of 4" grep -q 'chunk of 4 cells' h.svg
# The cell labels in memory order: [h, c/4, w, n, c%4], c padded to 4.
labels() { grep -o 'stroke-width="0.5"/><text[^>]*>[^<]*<' "$1" | sed 's/.*>//; s/<$//' | tr '\n' ' '; }
want="0,0,0,0 0,1,0,0 0,2,0,0 0,3,0,0 0,0,0,1 0,1,0,1 0,2,0,1 0,3,0,1 \
0,0,1,0 0,1,1,0 0,2,1,0 0,3,1,0 0,0,1,1 0,1,1,1 0,2,1,1 0,3,1,1 "
check "hcwnc4: cells in memory order" test "$(labels h.svg)" = "$want"
check "hcwnc4 --color w --row 4" "$lay" draw amd.hcwnc4 --shape 1,3,2,2 --row 4 --color w -o h4.svg
check "hcwnc4 --row 4: 4 rows" grep -q '>0xc<' h4.svg
check "hcwnc4 --color w" grep -q 'colour = w (dimension 3)' h4.svg

# A large buffer is summarised, and stays valid and small.
check "draw large" "$lay" draw amd.hcwnc4 --shape 1,64,56,56 -o big.svg
check "large: valid XML" xmllint --noout big.svg
check "large: summarised" grep -q 'more rows' big.svg
check "large: under 2 MB" test "$(wc -c < big.svg)" -lt 2000000

# Failures: non-zero exit, a one-line message, no file left behind.
check "unknown format fails" sh -c "! '$lay' draw no.such --shape 1,2 -o bad.svg 2>err"
check "unknown format: no file" test ! -e bad.svg
check "bad --color fails" sh -c "! '$lay' draw amd.hcwnc4 --shape 1,3,2,2 --color q -o bad.svg 2>err"
check "bad --color: no file" test ! -e bad.svg
check "bad --color: says why" grep -q 'no such dimension' err
check "no temporary files left" test -z "$(ls -A | grep tmp)"
check "svg to stdout" sh -c "'$lay' draw amd.ab --shape 2,3 | xmllint --noout -"

if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
