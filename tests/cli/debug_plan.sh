#!/bin/sh
# tests/cli/debug_plan.sh: --debug-plan (and LAY_DEBUG_PLAN) print the plan
# after each planning step, in order, to stderr only (issue 15): the
# output bytes are those of a run without it.
#   sh debug_plan.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

steps() { grep '^-- plan after ' "$T/err" | tr '\n' '|'; }
want='-- plan after sides --|-- plan after refine --|-- plan after boxes --|-- plan after coalesce --|-- plan after kernels --|'

# HCWNC4 of a 1x3x2x2 tensor (the doc's order [h, c/4, w, n, c%4]).
printf '\000\001\002\003\004\005\006\007\010\011\012\013' >"$T/x.bin"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/x.bin" -o "$T/plain.bin"
expect_rc 0 "pack"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/x.bin" -o "$T/dbg.bin" --debug-plan
expect_rc 0 "pack --debug-plan"
[ "$(steps)" = "$want" ] || fail "pack --debug-plan: steps $(steps)"
cmp -s "$T/plain.bin" "$T/dbg.bin" || fail "pack --debug-plan: other bytes"
[ "$(hex "$T/dbg.bin")" = "00 04 08 00 01 05 09 00 02 06 0a 00 03 07 0b 00" ] ||
  fail "pack: bytes $(hex "$T/dbg.bin")"
# The last step is the finished plan, as lay info describes it.
"$LAY" info amd.hcwnc4 --shape 1,3,2,2 | grep '^  box 0:' >"$T/box"
[ -s "$T/box" ] && grep -qxF "$(cat "$T/box")" "$T/err" ||
  fail "the kernels step lacks the plan's box line: $(cat "$T/box")"

# The environment variable; a convert plan (with --map too); before the
# command as well as after it.
LAY_DEBUG_PLAN=1 "$LAY" info core.nchw core.nhwc --shape 1,3,2,2 >"$T/out" 2>"$T/err"
[ "$(steps)" = "$want" ] || fail "LAY_DEBUG_PLAN=1 info: steps $(steps)"
LAY_DEBUG_PLAN=1 "$LAY" convert core.nchw core.nhwc --shape 1,3,2,2 --map n=n \
  -i "$T/x.bin" -o "$T/nhwc.bin" 2>"$T/err"
[ "$(steps)" = "$want" ] || fail "LAY_DEBUG_PLAN=1 convert --map: steps $(steps)"
LAY_DEBUG_PLAN=0 "$LAY" info core.nchw core.nhwc --shape 1,3,2,2 >"$T/out" 2>"$T/err"
[ -z "$(steps)" ] || fail "LAY_DEBUG_PLAN=0 still logs"
run --debug-plan where amd.hcwnc4 --shape 1,3,2,2 --at 0,1,1,0
expect_out 9 "where after --debug-plan"
[ "$(steps)" = "$want" ] || fail "--debug-plan where: steps $(steps)"
run info amd.hcwnc4 --shape 1,3,2,2 --debug-plan=1
expect_rc 2 "--debug-plan=1"
finish
