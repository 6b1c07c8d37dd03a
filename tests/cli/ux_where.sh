#!/bin/sh
# tests/cli/ux_where.sh: where and at (issue 19, point 10): where prints
# every byte plane's offset, at says which byte of a multi-byte element,
# both take the REPL's coordinate forms; --json on info, where and at.
# Offsets from stdlib/kneron.lay (1W16C8BHL: [n, c/16, h, w, byte, c%16],
# the lo plane of 16 channels, then their hi plane) and AMD's HCWNC4.
#   sh ux_where.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# (0,1,0,0) of 1x3x2x2: channel 1 of pixel (0,0): lo byte 1, hi byte 17.
for at in 0,1,0,0 '(0,1,0,0)' '[0,1,0,0]' '(0, 1, 0, 0)'; do
  run where kneron.1w16c8bhl --shape 1,3,2,2 --at "$at"
  expect_rc 0 "where --at '$at'"
  expect_out "1 (plane lo), 17 (plane hi)" "where --at '$at'"
done
run where kneron.1w16c8bhl --shape 1,3,2,2 --at 0,1,0,0 --json
expect_out '{"coord": [0, 1, 0, 0], "offset": 1, "planes": [{"name": "lo", "offset": 1}, {"name": "hi", "offset": 17}]}' "where --json with planes"
# No planes: one number, as before.
run where amd.hcwnc4 --shape 1,3,2,2 --at '(0,1,1,0)'
expect_out 9 "where without planes"
run where amd.hcwnc4 --shape 1,3,2,2 --at 0,1,1,0 --json
expect_out '{"coord": [0, 1, 1, 0], "offset": 9, "planes": []}' "where --json"

# at: which byte of a 2-byte element (HCWNC4 bf16: (0,1,1,0) is element 9,
# bytes 18 and 19).
run at amd.hcwnc4 --shape 1,3,2,2 --dtype bf16 --offset 18
expect_out "(0,1,1,0) byte 0 of 2" "at the low byte"
run at amd.hcwnc4 --shape 1,3,2,2 --dtype bf16 --offset 19
expect_out "(0,1,1,0) byte 1 of 2" "at the high byte"
run at amd.hcwnc4 --shape 1,3,2,2 --dtype bf16 --offset 19 --json
expect_out '{"offset": 19, "kind": "data", "coord": [0, 1, 1, 0], "byte": 1, "element_bytes": 2}' "at --json"
run at kneron.1w16c8bhl --shape 1,20,1,1 --offset 17 --json
expect_out '{"offset": 17, "kind": "data", "coord": [0, 1, 0, 0], "plane": "hi", "byte": 0, "element_bytes": 1}' "at --json with a plane"
run at amd.hcwnc4 --shape 1,3,2,2 --offset 3 --json
expect_out '{"offset": 3, "kind": "pad", "coord": [0, 3, 0, 0], "byte": 0, "element_bytes": 1}' "at --json on a pad"

run info amd.hcwnc4 --shape 1,3,2,2 --json
if command -v python3 >/dev/null; then
  python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cpu_shape"] == [1, 3, 2, 2] and d["cpu_bytes"] == 12 and d["bytes"] == 16
assert [a["axis"] for a in d["layout"]] == ["h", "c/4", "w", "n", "c%4"]
assert [a["extent"] for a in d["layout"]] == [2, 1, 2, 1, 4]
' "$T/out" || fail "info --json: $(cat "$T/out")"
fi
finish
