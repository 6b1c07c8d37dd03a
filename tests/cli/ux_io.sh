#!/bin/sh
# tests/cli/ux_io.sh: safe I/O (issue 19, points 8 and 9; issue 21, point
# 10): binary data is not written to nor read from a terminal; a repeated
# option is an error; a broken file in LAY_PATH is a warning unless its
# names are used; -o refuses a read-only or hard-linked file unless
# --force, and keeps the mode of the file it replaces.
#   sh ux_io.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"
printf '\001\002\003\004\005\006\007\010\011\012\013\014' >"$T/in.bin"

# A terminal, through script(1) when it is there.
if command -v script >/dev/null 2>&1; then
  script -qc "'$LAY' pack amd.hcwnc4 --shape 1,3,2,2 -i '$T/in.bin'" /dev/null >"$T/tty.out" 2>&1
  grep -q "lay: refusing to write binary data to a terminal: give -o FILE or redirect the output" "$T/tty.out" ||
    fail "binary to a terminal: $(cat "$T/tty.out")"
  script -qc "'$LAY' pack amd.hcwnc4 --shape 1,3,2,2 -o '$T/o.bin'" /dev/null >"$T/tty.out" 2>&1 </dev/null
  grep -q "lay: refusing to read binary data from a terminal: give -i FILE or redirect the input" "$T/tty.out" ||
    fail "binary from a terminal: $(cat "$T/tty.out")"
  [ -e "$T/o.bin" ] && fail "a refused read left an output file"
else
  echo "note: script(1) is missing, the terminal checks are skipped"
fi
# Not a terminal: stdout is fine.
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin"
expect_rc 0 "binary to a pipe"

# A repeated option.
run pack amd.hcwnc4 --shape 1,3,2,2 --shape 1,3,4,4 -i "$T/in.bin"
expect_rc 2 "--shape twice"
expect_err "lay: option '--shape' is given twice
Try 'lay --help'" "--shape twice"
run where amd.hcwnc4 --shape 1,3,2,2 --at 0,0,0,0 --at=0,1,0,0
expect_err "lay: option '--at' is given twice
Try 'lay --help'" "--at twice"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" --in "$T/in.bin"
expect_err "lay: option '--in' is given twice
Try 'lay --help'" "-i and --in"
run list --json --json
expect_rc 2 "--json twice"

# A broken file in LAY_PATH: a warning with its position; others work.
mkdir -p "$T/lp"
printf 'namespace ok\nlayout a (x) -> [x]\n' >"$T/lp/a.lay"
printf 'namespace br\nlayout b (x) -> [y]\n' >"$T/lp/b.lay"
LAY_PATH=$T/lp "$LAY" show ok.a --shape 2 >"$T/out" 2>"$T/err"
rc=$?
expect_rc 0 "a good LAY_PATH file next to a broken one"
expect_out "(0), (1)" "the good file's layout"
expect_err "lay: warning: LAY_PATH file $T/lp/b.lay skipped, its names are not defined:
$T/lp/b.lay:2:18: error: unknown name 'y'
    layout b (x) -> [y]
                     ^" "the broken file's warning"
LAY_PATH=$T/lp "$LAY" show br.b --shape 2 >"$T/out" 2>"$T/err"
rc=$?
expect_rc 1 "a name of the broken file"
tail -n 1 "$T/err" | grep -qx "lay: unknown layout 'br.b'" || fail "br.b: $(cat "$T/err")"

# -o over a read-only file: refused, then replaced with --force, mode kept.
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" -o "$T/ro.bin"
chmod 444 "$T/ro.bin"
printf 'old' >"$T/keep"
cp "$T/keep" "$T/ro2.bin" && chmod 444 "$T/ro2.bin"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" -o "$T/ro2.bin"
expect_rc 1 "a read-only -o"
expect_err "lay: cannot write '$T/ro2.bin': it is read-only (mode 0444); --force replaces it" "a read-only -o"
cmp -s "$T/keep" "$T/ro2.bin" || fail "the read-only file was changed"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" -o "$T/ro2.bin" --force
expect_rc 0 "--force"
cmp -s "$T/ro.bin" "$T/ro2.bin" || fail "--force wrote other bytes"
[ "$(stat -c %a "$T/ro2.bin")" = 444 ] || fail "--force did not keep mode 0444: $(stat -c %a "$T/ro2.bin")"
# A file with another hard link: refused; with --force this name only.
printf 'old' >"$T/h1.bin"
ln "$T/h1.bin" "$T/h2.bin"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" -o "$T/h1.bin"
expect_err "lay: cannot write '$T/h1.bin': it has 2 hard links, which would keep the old bytes; --force replaces this name only" "hard link"
run pack amd.hcwnc4 --shape 1,3,2,2 -i "$T/in.bin" -o "$T/h1.bin" --force
cmp -s "$T/ro.bin" "$T/h1.bin" || fail "--force on a hard link"
[ "$(cat "$T/h2.bin")" = old ] || fail "the other link changed"
# draw takes --force too.
chmod 444 "$T/ro2.bin"
run draw amd.hcwnc4 --shape 1,3,2,2 -o "$T/ro2.bin"
expect_rc 1 "draw over a read-only file"
run draw amd.hcwnc4 --shape 1,3,2,2 -o "$T/ro2.bin" --force
expect_rc 0 "draw --force"
finish
