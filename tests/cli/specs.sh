#!/bin/sh
# tests/cli/specs.sh: user specs: lay check, lay test, -f FILE, LAY_PATH,
# name clashes (an error, never an override) and lay list.
#   sh specs.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

mkdir "$T/lp" "$T/w"
cd "$T/w" || exit 1
cat >good.lay <<'X'
# A vendor layout of our own: a transposed matrix.
namespace myv
layout rows (a, b) -> [b, a]
X
cat >bad.lay <<'X'
namespace myv
layout x (a) -> [b]
X
cat >clash.lay <<'X'
namespace amd
layout hcwnc4 (n, c, h, w) -> [n, c, h, w]
X

# ---- check
run check good.lay
expect_rc 0 "check good.lay"
expect_out "good.lay: ok" "check good.lay"
run check bad.lay
expect_rc 1 "check bad.lay"
head -n 1 "$T/err" | grep -q "^bad.lay:2:[0-9]*: error: .*'b'" ||
  fail "check bad.lay: $(cat "$T/err")"
# The positioned form: the source line and a caret under the column.
sed -n 2p "$T/err" | grep -q "layout x (a) -> \[b\]" || fail "check bad.lay: no source line"
sed -n 3p "$T/err" | grep -q "^ *\^\$" || fail "check bad.lay: no caret"
run check good.lay bad.lay
expect_rc 1 "check good.lay bad.lay"
expect_out "good.lay: ok" "check good.lay bad.lay"
run check missing.lay
expect_rc 1 "check missing.lay"
grep -q "missing.lay" "$T/err" || fail "check missing.lay: $(cat "$T/err")"
run check clash.lay
expect_rc 1 "check clash.lay"
grep -q "hcwnc4" "$T/err" || fail "check clash.lay: $(cat "$T/err")"
# After a failing definition the others are checked too: every failing
# one is reported, and the exit status is 1.
cat >multi.lay <<'X'
layout bad1 (a) -> [b]
layout good (a, b) -> [b, a]
layout bad2 (n, c) -> [n, c/8, c%4]
X
run check multi.lay good.lay
expect_rc 1 "check multi.lay good.lay"
expect_out "good.lay: ok" "check multi.lay good.lay"
expect_err "multi.lay:1:21: error: unknown name 'b'
    layout bad1 (a) -> [b]
                        ^
multi.lay:3:32: error: inconsistent splits of 'c': 'c/8' and 'c%4'
    layout bad2 (n, c) -> [n, c/8, c%4]
                                   ^" "check multi.lay"

# An error inside a template is reported where the file instantiates it.
printf 'layout z = amd.hcwnc(0)\n' >tmpl.lay
run check tmpl.lay
expect_rc 1 "check tmpl.lay"
expect_err "tmpl.lay:1:12: error: amd.hcwnc(0): digit c/x: 0 is not a positive integer (stdlib/amd.lay:13:39)
    layout z = amd.hcwnc(0)
               ^" "check tmpl.lay"

# The stdlib's own files check in place of their embedded copies; the
# same text outside a stdlib folder clashes with the embedded names.
for f in "$HERE"/../../stdlib/*.lay; do
  run check "$f"
  expect_rc 0 "check $f"
done
mkdir stdlib other
cp "$HERE/../../stdlib/amd.lay" other/amd.lay
run check other/amd.lay
expect_rc 1 "check other/amd.lay"
grep -q "already defined" "$T/err" || fail "check other/amd.lay: $(cat "$T/err")"
cp good.lay stdlib/amd.lay
run check stdlib/amd.lay
expect_rc 0 "check stdlib/amd.lay (a replacement)"
expect_out "stdlib/amd.lay: ok" "check stdlib/amd.lay"

# ---- -f FILE: a new layout without a rebuild. x[a][b] = 3a + b, stored [b, a].
printf '\000\001\002\003\004\005' >m.bin
run -f good.lay pack myv.rows --shape 2,3 -i m.bin -o t.bin
expect_rc 0 "-f good.lay pack myv.rows"
[ "$(hex t.bin)" = "00 03 01 04 02 05" ] || fail "myv.rows: $(hex t.bin)"
run pack myv.rows --shape 2,3 -i m.bin -f good.lay
expect_rc 0 "-f after the command"
run pack myv.rows --shape 2,3 -i m.bin
expect_rc 1 "myv.rows without -f"
expect_err "lay: unknown layout 'myv.rows'" "myv.rows without -f"

# A clash with the stdlib is an error, never an override; no output file.
run -f clash.lay pack amd.hcwnc4 --shape 1,3,2,2 -i m.bin -o c.bin
expect_rc 1 "-f clash.lay"
grep -q "hcwnc4" "$T/err" || fail "-f clash.lay: $(cat "$T/err")"
[ -e c.bin ] && fail "-f clash.lay left an output file"
# A spec error in -f is reported with its position.
run -f bad.lay list
expect_rc 1 "-f bad.lay"
head -n 1 "$T/err" | grep -q "^bad.lay:2:" || fail "-f bad.lay: $(cat "$T/err")"
run -f missing.lay list
expect_rc 1 "-f missing.lay"

# ---- LAY_PATH
cp good.lay "$T/lp/"
LAY_PATH=$T/lp "$LAY" pack myv.rows --shape 2,3 -i m.bin -o t2.bin ||
  fail "LAY_PATH: pack myv.rows"
cmp -s t.bin t2.bin || fail "LAY_PATH: wrong bytes"
LAY_PATH=/nonexistent-lay-dir:$T/lp "$LAY" list >/dev/null 2>"$T/err" &&
  fail "LAY_PATH with a missing folder accepted"
grep -q "nonexistent-lay-dir" "$T/err" || fail "LAY_PATH missing folder: $(cat "$T/err")"
# The same file through LAY_PATH and -f is one file, not a clash.
LAY_PATH=$T/lp "$LAY" -f "$T/lp/good.lay" pack myv.rows --shape 2,3 -i m.bin >/dev/null ||
  fail "LAY_PATH and -f of the same file"
# A clash between LAY_PATH and -f files is an error.
LAY_PATH=$T/lp "$LAY" -f good.lay list >/dev/null 2>"$T/err" &&
  fail "a clash between LAY_PATH and -f accepted"
cp clash.lay "$T/lp/"
LAY_PATH=$T/lp "$LAY" list >/dev/null 2>"$T/err" && fail "a clash in LAY_PATH accepted"
grep -q "hcwnc4" "$T/err" || fail "LAY_PATH clash: $(cat "$T/err")"
rm "$T/lp/clash.lay"

# ---- list
run list
expect_rc 0 "list"
for n in amd.hcwnc4 amd.hcwnc8 amd.hcwnc16 qnn.crouton kneron.1w16c8bhl ti.tidl core.nhwc; do
  grep -q "^$n " "$T/out" || fail "list: no $n"
done
run -f good.lay list
grep -q "^myv.rows " "$T/out" || fail "list -f: no myv.rows"

# ---- test
cat >pass.lay <<'X'
test "AMD HCWNC4: G[1,0] is byte 9" {
  use amd.hcwnc4 shape [1,3,2,2] : int8
  where [0,1,1,0] == 9
  at 3 == pad
}
X
cat >mixed.lay <<'X'
test "right" {
  use amd.hcwnc4 shape [1,3,2,2] : int8
  where [0,1,1,0] == 9
}
test "wrong" {
  use amd.hcwnc4 shape [1,3,2,2] : int8
  where [0,1,1,0] == 10
}
X
run test pass.lay
expect_rc 0 "test pass.lay"
[ "$(tail -n 1 "$T/out")" = "1 passed, 0 failed" ] || fail "test pass.lay: $(cat "$T/out")"
run test mixed.lay
expect_rc 1 "test mixed.lay"
[ "$(tail -n 1 "$T/out")" = "1 passed, 1 failed" ] || fail "test mixed.lay: $(cat "$T/out")"
grep -q "^mixed.lay:7:.*wrong" "$T/out" || fail "test mixed.lay: no failure line: $(cat "$T/out")"
run test pass.lay mixed.lay
expect_rc 1 "test pass.lay mixed.lay"
[ "$(tail -n 1 "$T/out")" = "2 passed, 1 failed" ] || fail "test both: $(cat "$T/out")"
run test bad.lay
expect_rc 1 "test bad.lay"

finish
