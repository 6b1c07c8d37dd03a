#!/bin/sh
# ux_tmux.sh LAY WORKDIR: issue 19, point 6, at the interactive `lay repl`
# in a detached tmux session (its own server socket), typed key by key: a
# layout defined in the current namespace is found by its short name; Tab
# completes a folder with a '/' and no space (the next Tab goes on inside
# it) and a file with a space; pack and unpack work on files. Exits 77
# (CTest SKIP) only when tmux is not installed.
set -u
lay=$1 work=$2
case $lay in /*) ;; *) lay=$PWD/$lay ;; esac
if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIP: tmux is not installed, the interactive REPL is not tested"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/home" "$work/data/sub" || exit 1
printf '\001\002\003\004\005\006' >"$work/data/sub/in.bin" || exit 1
sock="lay-ux-test-$$"
t() { tmux -L "$sock" "$@"; }
cleanup() { t kill-server >/dev/null 2>&1; }
trap cleanup EXIT
fails=0
sess=ux
screen() { t capture-pane -p -J -t "$sess" -S -300; }
poll() {
  i=0
  while [ $i -lt 200 ]; do
    if "$@"; then return 0; fi
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
on_screen() { screen | grep -qF -- "$1"; }
fail() { echo "FAIL: $1"; fails=$((fails + 1)); }
expect() { # expect WHAT TEXT
  if poll on_screen "$2"; then echo "ok: $1"; else
    fail "$1: '$2' not on the screen"; echo "--- screen:"; screen | tail -8
  fi
}
keys() { t send-keys -t "$sess" -l -- "$1"; }
key() { t send-keys -t "$sess" "$@"; }
cat > "$work/start.sh" <<X || exit 1
cd '$work' && exec env TERM=xterm HOME='$work/home' '$lay' repl
X
t new-session -d -s "$sess" -x 150 -y 60 \
  "sh '$work/start.sh'; echo REPL-EXIT=\$?; sleep 60" || exit 1
expect "prompt" "lay> "

# The current namespace is searched first.
keys "namespace my"; key Enter
keys "layout blk (a, b) -> [b, a]"; key Enter
expect "defined in my" "defined my.blk"
keys "where blk 2,3 1,2"; key Enter
expect "blk found in the current namespace" "(1,2) -> 5"

# Tab on a folder: "dat" -> "data/" with no space, the next Tab goes on
# inside it ("data/sub/"), the next completes the file, with a space.
keys "pack my.blk 2,3 dat"; key Tab
expect "a folder completes with its /" "lay> pack my.blk 2,3 data/"
key Tab
expect "the next Tab goes on inside it" "lay> pack my.blk 2,3 data/sub/"
key Tab
keys "out.bin"; key Enter
expect "a file completes with a space" "lay> pack my.blk 2,3 data/sub/in.bin out.bin"
expect "pack wrote the file" "wrote out.bin: 6 bytes"
keys "unpack blk 2,3 out.bin back.bin"; key Enter
expect "unpack wrote the file" "wrote back.bin: 6 bytes"
# Spec errors at the prompt: did-you-mean on a dimension name, and a
# pad_value that does not fit the type asked for, at its item.
keys "layout dym (n, c) -> [n, cc]"; key Enter
expect "did-you-mean in a spec error" "error: unknown name 'cc' (did you mean 'c'?)"
keys "layout pv(v) (n) -> [n/4, n%4] pad_value = v"; key Enter
keys "show pv(300) 5:uint8"; key Enter
expect "pad_value at its item" "error: pad_value 300 does not fit uint8 (pad_value = v, with my.pv(300); the layout's element type is open, uint8 is the type asked for)"
keys "quit"; key Enter
expect "quit" "REPL-EXIT=0"

# [b, a] of a 2x3 tensor 1 2 3 / 4 5 6 is its transpose 1 4 2 5 3 6.
[ "$(od -An -tx1 "$work/out.bin" | tr -d ' \n')" = 010402050306 ] ||
  fail "pack's bytes: $(od -An -tx1 "$work/out.bin")"
cmp -s "$work/back.bin" "$work/data/sub/in.bin" || fail "unpack gives back the input"
[ $fails = 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all checks passed"
