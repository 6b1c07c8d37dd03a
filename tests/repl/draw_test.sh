#!/bin/sh
# draw_test.sh LAY WORKDIR: `lay draw` writes valid SVG (xmllint --noout)
# whose cells match the layout (and the README's account of its picture),
# summarises a large buffer, refuses a --row that does not hold whole
# elements or holds too many to read, and leaves no file behind when it
# fails.
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

# The picture of examples/pictures/README.md (--row 32: one (h, w) per
# row): its data cells are exactly those with h < 3, w < 5, d < 30, so the
# rows w = 5..7 of every h and all the rows of h = 3..7 are padding.
check "draw crouton --row 32" "$lay" draw qnn.crouton --shape 1,3,5,30 --row 32 -o c32.svg
data_cells() { # "INSIDE OUTSIDE": data labels inside h < 3, w < 5, d < 30
  grep -o '<text x="[0-9]*" y="[0-9]*">[0-9,]*<' "$1" | sed 's/.*>//; s/<$//' |
    awk -F, '{ if ($2 < 3 && $3 < 5 && $4 < 30) i++; else o++ } END { print i + 0, o + 0 }'
}
check "crouton --row 32: 450 data cells, all at h < 3, w < 5" test "$(data_cells c32.svg)" = "450 0"
check "crouton --row 32: 64 rows" grep -q '>0x7e0<' c32.svg
check "crouton --row 32: w = 5 of h = 0 is a pad row" grep -q 'fill="#6a6a6a">0,0,5,0<' c32.svg

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

# --row holds whole elements and at most 64 of them: narrower than one
# element, splitting elements or wider is an error (never a different
# picture than the one asked for), and leaves no file.
check "--row 64 (the widest)" "$lay" draw amd.hcwnc4 --shape 1,3,4,4 --row 64 -o r64.svg
check "--row 64: valid XML" xmllint --noout r64.svg
check "--row 64: 64 cells per row" grep -q '64 per row' r64.svg
check "--row 64: one row" sh -c "! grep -q '>0x40<' r64.svg"
check "--row 16 of fp32: 4 cells per row" "$lay" draw amd.hcwnc4 --shape 1,3,2,2 --dtype fp32 --row 16 -o f16.svg
check "--row 16 of fp32: says so" grep -q 'cells of 4 bytes, 4 per row' f16.svg
check "--row 2 of fp32 fails" sh -c "! '$lay' draw amd.hcwnc4 --shape 1,3,2,2 --dtype fp32 --row 2 -o bad.svg 2>err"
check "--row 2 of fp32: says why" grep -qx 'lay: a row of 2 bytes is narrower than one element (fp32: 4 bytes)' err
check "--row 2 of fp32: no file" test ! -e bad.svg
check "--row 6 of fp32 fails" sh -c "! '$lay' draw amd.hcwnc4 --shape 1,3,2,2 --dtype fp32 --row 6 -o bad.svg 2>err"
check "--row 6 of fp32: says why" grep -qx 'lay: a row of 6 bytes does not hold whole elements (fp32: 4 bytes each)' err
check "--row 65 fails" sh -c "! '$lay' draw amd.hcwnc4 --shape 1,3,2,2 --row 65 -o bad.svg 2>err"
check "--row 65: says why" grep -qx 'lay: a row of 65 bytes holds 65 cells, too many to read: at most 64 (64 bytes of int8)' err
check "--row 65: no file" test ! -e bad.svg
check "--row 0 fails" sh -c "! '$lay' draw amd.hcwnc4 --shape 1,3,2,2 --row 0 -o bad.svg 2>err"

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
