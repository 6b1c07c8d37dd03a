#!/bin/sh
# make.sh [LAY]: regenerate the README pictures of this folder with
# `lay draw`, and their PNGs with rsvg-convert (Debian: librsvg2-bin).
#   crouton_1x3x5x30   qnn.crouton on 1x3x5x30, 32 bytes (one w) per row
#   hcwnc4_1x3x2x2     amd.hcwnc4 on 1x3x2x2, 8 bytes (one h) per row
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lay=${1:-$here/../../build/lay}
command -v rsvg-convert >/dev/null 2>&1 || {
  echo "rsvg-convert is missing: apt-get install librsvg2-bin" >&2; exit 1; }
"$lay" draw qnn.crouton --shape 1,3,5,30 --row 32 -o "$here/crouton_1x3x5x30.svg"
"$lay" draw amd.hcwnc4 --shape 1,3,2,2 --row 8 -o "$here/hcwnc4_1x3x2x2.svg"
for f in crouton_1x3x5x30 hcwnc4_1x3x2x2; do
  xmllint --noout "$here/$f.svg"
  rsvg-convert --background-color=white "$here/$f.svg" -o "$here/$f.png"
done
