#!/bin/sh
# tmux_test.sh LAY WORKDIR: drive the interactive `lay repl` in a detached
# tmux session (its own server socket) and check what the screen shows: the
# banner and prompt, Tab completion of a command and of a layout name, a
# multi-line definition with the continuation prompt, an error with its
# caret after which the REPL answers again, Ctrl-C, colours in `show`
# (and none under NO_COLOR), and the history file. Exits 77 (CTest SKIP)
# only when tmux is not installed.
set -u
lay=$1 work=$2
if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIP: tmux is not installed, the interactive REPL is not tested"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work/home" || exit 1
sock="lay-repl-test-$$"
t() { tmux -L "$sock" "$@"; }
cleanup() { t kill-server >/dev/null 2>&1; }
trap cleanup EXIT
fails=0
sess=repl
screen() { t capture-pane -p -J -t "$sess" -S -200; }
# wait_for TEXT: poll the screen until TEXT shows (a guard against a hang,
# up to 20 s; the test's outcome never depends on how long it took).
wait_for() {
  i=0
  while [ $i -lt 200 ]; do
    if screen | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
    i=$((i + 1))
  done
  return 1
}
expect() { # expect WHAT TEXT (three failures end the test early)
  if wait_for "$2"; then echo "ok: $1"; return; fi
  echo "FAIL: $1: '$2' not on the screen"; fails=$((fails + 1))
  if [ "$fails" -ge 3 ]; then
    echo "--- screen:"; screen; echo "giving up"; exit 1
  fi
}
keys() { t send-keys -t "$sess" -l "$1"; }
key() { t send-keys -t "$sess" "$@"; }

t new-session -d -s repl -x 150 -y 60 \
  "env HOME='$work/home' TERM=xterm-256color '$lay' repl; echo REPL-EXIT=\$?; sleep 60" || exit 1
expect "banner" "Type help for the commands"
expect "prompt" "lay> "

# Tab completes a command ("wh" -> "where") and a layout name
# ("amd.hcwnc" is the common prefix of hcwnc4, hcwnc8, hcwnc16).
keys "wh"; key Tab; keys "amd.hcw"; key Tab; keys "4 1,3,2,2 0,1,0,1"; key Enter
expect "completed command and name" "lay> where amd.hcwnc4 1,3,2,2 0,1,0,1"
expect "where answers" "(0,1,0,1) -> 5"

# A definition over two lines: the bracket stays open after the first.
keys "layout tm (a, b) -> [b,"; key Enter
expect "continuation prompt" "...> "
keys "a]"; key Enter
expect "multi-line definition compiled" "defined tm"
keys "where tm 2,3 1,2"; key Enter
expect "the new layout answers" "(1,2) -> 5"

# A pasted definition whose second line starts with "->": the REPL sees
# that more input is waiting and reads it as part of the definition.
keys "$(printf 'layout tp (a, b)\n    -> [b, a]\nwhere tp 2,3 0,2')"; key Enter
expect "pasted definition compiled" "defined tp"
expect "the pasted layout answers" "(0,2) -> 4"

# An error points at the typed text; the REPL goes on.
keys "layout bad (a) -> [b]"; key Enter
expect "error message" "<repl>:1:20: error:"
expect "caret under the error" "                       ^"
keys "at amd.hcwnc4 1,3,2,2 4"; key Enter
expect "survives the error" "4 -> (0,0,0,1)"

# Ctrl-C drops a half-typed definition and the REPL goes on.
keys "layout half (a) -> ["; key Enter
expect "inside a definition" "...> "
key C-c
keys "where amd.hcwnc4 1,3,2,2 0,2,1,1"; key Enter
expect "survives Ctrl-C" "(0,2,1,1) -> 14"

# `show` is coloured on a terminal.
keys "show amd.hcwnc4 1,3,2,2"; key Enter
expect "show answers" "(0,0,0,0)"
if t capture-pane -p -e -t "$sess" | grep -q "$(printf '\033')\[36m(0,0,0,0)"; then
  echo "ok: show is coloured"
else
  echo "FAIL: show is not coloured on a terminal"; fails=$((fails + 1))
fi

keys "quit"; key Enter
expect "quits with 0" "REPL-EXIT=0"
# libedit writes a space as \040.
if sed 's/\\040/ /g' "$work/home/.lay_history" 2>/dev/null | grep -qx "where tm 2,3 1,2"; then
  echo "ok: history saved in ~/.lay_history"
else
  echo "FAIL: ~/.lay_history lacks the session"; fails=$((fails + 1))
fi
# With NO_COLOR set, `show` prints no escape sequences on a terminal.
# (The second session starts before the first ends, so the server stays.)
t new-session -d -s repl2 -x 150 -y 60 \
  "env HOME='$work/home' NO_COLOR=1 '$lay' repl; echo REPL-EXIT=\$?; sleep 60" || exit 1
t kill-session -t repl
sess=repl2
expect "second session" "lay> "
keys "show amd.hcwnc4 1,3,2,2"; key Enter
expect "show answers under NO_COLOR" "(0,0,0,0)"
if t capture-pane -p -e -t "$sess" | grep -q "$(printf '\033')\[3"; then
  echo "FAIL: NO_COLOR=1 but show is coloured"; fails=$((fails + 1))
else
  echo "ok: NO_COLOR turns the colours off"
fi
keys "quit"; key Enter
expect "quits" "REPL-EXIT=0"

if [ "$fails" -ne 0 ]; then
  echo "--- screen:"; screen
  echo "$fails check(s) failed"; exit 1
fi
