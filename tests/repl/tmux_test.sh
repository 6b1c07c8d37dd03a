#!/bin/sh
# tmux_test.sh LAY WORKDIR: drive the interactive `lay repl` in detached
# tmux sessions (their own server socket), typing key by key, and check
# what the screen shows: the banner and prompt; Tab completion of a
# command, a layout name and a namespace; multi-line definitions (an open
# bracket, a paste, a text that stops short and goes on at the `...> `
# prompt, a transform continued after it compiled); an error's caret in the
# exact column of the typed text, on the first and on a second line;
# Ctrl-C; colours in `show`, and none under NO_COLOR, TERM=dumb or no
# TERM; the history file written as lines are entered (the REPL is then
# killed), and read again by the next session, where Up recalls a command
# and a multi-line definition. Exits 77 (CTest SKIP) only when tmux is not
# installed.
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
esc=$(printf '\033')
screen() { t capture-pane -p -J -t "$sess" -S -300; }
# The last N non-empty lines of the screen, without trailing blanks.
last_lines() { screen | sed 's/ *$//; /^$/d' | tail -n "$1"; }
# poll COMMAND...: until the command succeeds (a guard against a hang, up
# to 20 s; the test's outcome never depends on how long it took).
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
fail() {
  echo "FAIL: $1"; fails=$((fails + 1))
  if [ "$fails" -ge 3 ]; then
    echo "--- screen:"; screen; echo "giving up"; exit 1
  fi
}
expect() { # expect WHAT TEXT (three failures end the test early)
  if poll on_screen "$2"; then echo "ok: $1"; else fail "$1: '$2' not on the screen"; fi
}
# expect_end WHAT LINES: the screen ends with these (non-empty) lines.
ends_with() { [ "$(last_lines "$(printf '%s\n' "$1" | wc -l)")" = "$1" ]; }
expect_end() {
  if poll ends_with "$2"; then echo "ok: $1"; else
    fail "$1: the screen does not end with:"; printf '%s\n' "$2"
    echo "--- it ends with:"; last_lines 4
  fi
}
expect_not() { # expect_not WHAT TEXT: TEXT is nowhere on the screen
  if on_screen "$2"; then fail "$1: '$2' is on the screen"; else echo "ok: $1"; fi
}
# expect_caret WHAT TYPED_LINE COLUMN: the error shows TYPED_LINE indented
# by 4 and, on the next line, a caret under column COLUMN (1-based) of it.
expect_caret() {
  want=$(printf "%$((4 + $3 - 1))s^" "")
  got=$(screen | awk -v src="    $2" 'found { print; exit } $0 == src { found = 1 }')
  if [ "$got" = "$want" ]; then echo "ok: $1"; else
    fail "$1: after '    $2' expected '$want', got '$got'"
  fi
}
keys() { t send-keys -t "$sess" -l -- "$1"; }
key() { t send-keys -t "$sess" "$@"; }
# A launcher: `start.sh NAME ENV...` runs `lay repl` with HOME in WORKDIR,
# the environment changes ENV (`TERM=dumb`, `-u TERM`), and its pid in
# WORKDIR/NAME.pid (the shell execs lay, keeping its pid).
cat > "$work/start.sh" <<EOF || exit 1
name=\$1; shift
echo \$\$ > '$work'/"\$name".pid
exec env "\$@" HOME='$work/home' '$lay' repl
EOF
start() { # start SESSION ENV...
  s=$1; shift
  t new-session -d -s "$s" -x 150 -y 60 \
    "sh '$work/start.sh' $s $*; echo REPL-EXIT=\$?; sleep 60" || exit 1
}

start repl TERM=xterm-256color
expect "banner" "Type help for the commands"
expect "prompt" "lay> "

# Tab completes a command ("wh" -> "where") and a layout name
# ("amd.hcwnc" is the common prefix of hcwnc4, hcwnc8, hcwnc16).
keys "wh"; key Tab; keys "amd.hcw"; key Tab; keys "4 1,3,2,2 0,1,0,1"; key Enter
expect "completed command and name" "lay> where amd.hcwnc4 1,3,2,2 0,1,0,1"
expect "where answers" "(0,1,0,1) -> 5"
# After `list`, Tab completes a namespace ("kn" -> "kneron").
keys "list kn"; key Tab; key Enter
expect "completed namespace" "lay> list kneron"
expect "list answers" "kneron.16w1c8bhl"

# A definition over two lines: the bracket stays open after the first.
keys "layout tm (a, b) -> [b,"; key Enter
expect_end "continuation prompt after an open bracket" "lay> layout tm (a, b) -> [b,
...>"
keys "a]"; key Enter
expect "multi-line definition compiled" "defined tm"
keys "where tm 2,3 1,2"; key Enter
expect "the new layout answers" "(1,2) -> 5"

# A pasted definition whose second line starts with "->": the REPL sees
# that more input is waiting and reads it as part of the definition.
keys "$(printf 'layout tp (a, b)\n    -> [b, a]\nwhere tp 2,3 0,2')"; key Enter
expect "pasted definition compiled" "defined tp"
expect "the pasted layout answers" "(0,2) -> 4"

# A text that stops short (nothing open, no operator at the end) goes on
# at the continuation prompt instead of failing.
keys "layout ml (a, b)"; key Enter
expect_end "continuation prompt after a text that stopped short" "lay> layout ml (a, b)
...>"
keys "-> [b, a]"; key Enter
expect "the text completed on the next line compiled" "defined ml"
expect_not "no error at the end of the first line" "unexpected end of input"
keys "where ml 2,3 0,1"; key Enter
expect "it answers" "(0,1) -> 2"

# The issue's transform, one line at a time: `| reshape` continues the
# transform that compiled and replaces it.
keys "transform tr (x : int8[2,3]) ="; key Enter
expect_end "continuation prompt after '='" "lay> transform tr (x : int8[2,3]) =
...>"
keys "transpose([1,0])"; key Enter
expect "transform compiled" "defined tr"
keys "| reshape([6])"; key Enter
expect "a continuation line redefines it" "redefined tr"
expect_not "the continuation is not a command" "unknown command"
keys "at tr 2,3 7"; key Enter
expect "6 bytes before the pad" "error: offset 7 is outside the 6-byte buffer"
keys "| pad(end = [2])"; key Enter
keys "at tr 2,3 7"; key Enter
expect "8 bytes after it" "7 -> pad (-1,-1)"

# An error points at the typed text: the caret in the column of the
# unknown name, on the first line and on a continuation line.
typed="layout bad (a) -> [b]"
col=$(( ${#typed} - 1 )) # the 'b' of "[b]"
keys "$typed"; key Enter
expect "error message at 1:$col" "<repl>:1:$col: error: unknown name 'b'"
expect_caret "caret under the error" "$typed" "$col"
keys "layout bad2 (a, b)"; key Enter
expect_end "continuation prompt" "lay> layout bad2 (a, b)
...>"
typed2="-> [b, c]"
col2=$(( ${#typed2} - 1 )) # the 'c' of "c]"
keys "$typed2"; key Enter
expect "error message at 2:$col2" "<repl>:2:$col2: error: unknown name 'c'"
expect_caret "caret under the error on line 2" "$typed2" "$col2"
keys "at amd.hcwnc4 1,3,2,2 4"; key Enter
expect "survives the error" "4 -> (0,0,0,1)"

# Ctrl-C drops a half-typed definition and the REPL goes on.
keys "layout half (a) -> ["; key Enter
expect_end "inside a definition" "lay> layout half (a) -> [
...>"
key C-c
# Type only once the fresh prompt is there (a slow build, ASan, takes a
# moment to come back from the signal).
expect_end "a fresh prompt after Ctrl-C" "lay>"
keys "where amd.hcwnc4 1,3,2,2 0,2,1,1"; key Enter
expect "survives Ctrl-C" "(0,2,1,1) -> 14"

# A multi-line definition, then `show`, coloured on a terminal.
keys "layout hm (a, b) -> [b,"; key Enter
expect_end "continuation prompt" "lay> layout hm (a, b) -> [b,
...>"
keys "a]"; key Enter
expect "defined hm" "defined hm"
keys "show amd.hcwnc4 1,3,2,2"; key Enter
expect "show answers" "(0,0,0,0)"
if t capture-pane -p -e -t "$sess" | grep -q "$esc\[36m(0,0,0,0)"; then
  echo "ok: show is coloured"
else
  fail "show is not coloured on a terminal"
fi

# Kill the REPL: the history is on disk already, entry by entry. libedit's
# format escapes blanks (\040) and newlines (\012); the multi-line
# definition is one entry.
kill -KILL "$(cat "$work/repl.pid")"
expect "killed" "REPL-EXIT=137"
hist=$work/home/.lay_history
if [ "$(head -n 1 "$hist" 2>/dev/null)" = "_HiStOrY_V2_" ]; then
  echo "ok: history file has libedit's header"
else
  fail "~/.lay_history lacks libedit's header line"
fi
if [ "$(tail -n 2 "$hist" 2>/dev/null)" = 'layout\040hm\040(a,\040b)\040->\040[b,\012a]
show\040amd.hcwnc4\0401,3,2,2' ]; then
  echo "ok: history written as lines were entered"
else
  fail "~/.lay_history does not end with the last two entries:"; tail -n 3 "$hist"
fi
if sed 's/\\040/ /g' "$hist" | grep -qx "| reshape(\[6\])"; then
  echo "ok: a continuation line is in the history"
else
  fail "~/.lay_history lacks '| reshape([6])'"
fi

# A second session reads the history: Up recalls the last command, Up
# again the multi-line definition, whole. (It starts before the first
# session ends, so the server stays.) With NO_COLOR set, `show` prints no
# escape sequences on a terminal.
start repl2 TERM=xterm-256color NO_COLOR=1
t kill-session -t repl
sess=repl2
expect "second session" "lay> "
key Up
expect_end "Up recalls the last command of the killed session" "lay> show amd.hcwnc4 1,3,2,2"
key Up
expect_end "Up again recalls the multi-line definition" "lay> layout hm (a, b) -> [b,
a]"
key Enter
expect "the recalled definition compiles" "defined hm"
keys "where hm 2,3 1,2"; key Enter
expect "and answers" "(1,2) -> 5"
keys "show amd.hcwnc4 1,3,2,2"; key Enter
expect "show answers under NO_COLOR" "(0,0,0,0)"
if t capture-pane -p -e -t "$sess" | grep -q "$esc\[3"; then
  fail "NO_COLOR=1 but show is coloured"
else
  echo "ok: NO_COLOR turns the colours off"
fi
keys "quit"; key Enter
expect "quits with 0" "REPL-EXIT=0"

# TERM=dumb, and no TERM at all: no colours either.
for how in TERM=dumb "-u TERM"; do
  start repl3 $how
  t kill-session -t "$sess"
  sess=repl3
  expect "session with $how" "lay> "
  keys "show amd.hcwnc4 1,3,2,2"; key Enter
  expect "show answers with $how" "(0,0,0,0)"
  if t capture-pane -p -e -t "$sess" | grep -q "$esc\[3"; then
    fail "$how but show is coloured"
  else
    echo "ok: $how turns the colours off"
  fi
  keys "quit"; key Enter
  expect "quits with 0" "REPL-EXIT=0"
  t rename-session -t repl3 repl4
  sess=repl4
done

if [ "$fails" -ne 0 ]; then
  echo "--- screen:"; screen
  echo "$fails check(s) failed"; exit 1
fi
