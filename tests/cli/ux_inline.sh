#!/bin/sh
# tests/cli/ux_inline.sh: a layout given inline wherever a format name is
# (issue 19, point 11), errors positioned in the text given; -f - reads a
# spec from standard input.
#   sh ux_inline.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"
printf '\001\002\003\004\005\006\007\010\011\012\013\014' >"$T/in.bin"

# The inline text of amd.hcwnc(4) (stdlib/amd.lay) packs as amd.hcwnc4.
run pack '(n, c, h, w) -> [h, c/4, w, n, c%4]' --shape 1,3,2,2 -i "$T/in.bin" -o "$T/a.bin"
expect_rc 0 "pack inline"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" -o "$T/b.bin"
cmp -s "$T/a.bin" "$T/b.bin" || fail "inline pack differs from amd.hcwnc4"
run show '(n,c,h,w) -> [h, c/4, w, n, c%4]' --shape 1,3,1,1
expect_out "(0,0,0,0), (0,1,0,0), (0,2,0,0), pad x1" "show inline"
run convert amd.hcwnc4 '(n, c, h, w) -> [n, c, h, w]' --shape 1,3,2,2 -i "$T/b.bin" -o "$T/c.bin"
cmp -s "$T/c.bin" "$T/in.bin" || fail "convert into an inline layout"
run draw '(a) -> [a]' --shape 4 -o "$T/i.svg"
expect_rc 0 "draw inline"
run where '(a, b) : int16 -> [b, a]' --shape 2,3 --at 1,2
expect_out 10 "where inline with a type: (1,2) of [b, a] is element 5, byte 10"

# Errors point into the text given.
run show '(n,c,h,w) -> [h, q, w, n, c%4]' --shape 1,3,2,2
expect_rc 1 "inline error"
expect_err "<inline>:1:18: error: unknown name 'q'
    (n,c,h,w) -> [h, q, w, n, c%4]
                     ^" "inline error position"

# -f -: the spec from stdin.
printf 'namespace s\nlayout r (a, b) -> [b, a]\n' >"$T/r.lay"
"$LAY" -f - show s.r --shape 2,3 <"$T/r.lay" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "-f -"
expect_out "(0,0), (1,0)
(0,1), (1,1)
(0,2), (1,2)" "-f - show"
printf 'namespace s\nlayout r (a, b) -> [b, a\n' | "$LAY" -f - show s.r --shape 2,3 >"$T/out" 2>"$T/err"
rc=$?
expect_rc 1 "-f - with an error"
expect_err "<stdin>:2:25: error: ']' expected (to close '[' at 2:20)
    layout r (a, b) -> [b, a
                            ^" "-f - error position"
"$LAY" -f - pack s.r --shape 2,3 <"$T/r.lay" >"$T/out" 2>"$T/err"
rc=$?
expect_rc 1 "-f - with the input on stdin too"
expect_err "lay: -f - reads the spec from stdin: give the input with -i FILE" "-f - and stdin input"
head -c 6 "$T/in.bin" >"$T/six.bin"
"$LAY" -f - pack s.r --shape 2,3 -i "$T/six.bin" -o "$T/r.bin" <"$T/r.lay" 2>"$T/err"
[ "$(od -An -tx1 "$T/r.bin" | tr -d ' \n')" = 010402050306 ] || fail "-f - pack with -i: $(cat "$T/err")"
finish
