# tests/cli/lib.sh: helpers sourced by the CLI test scripts (POSIX sh).
#   . lib.sh PATH/TO/lay
# run ARGS...      runs lay; stdout in $T/out, stderr in $T/err, status in $rc
# expect_rc N WHAT, expect_err TEXT WHAT, expect_out TEXT WHAT
# hex FILE         the bytes of FILE as "01 02 0a"
# finish           exit 1 when any check failed
# $HERE is tests/cli in the source tree, $T a scratch folder.
set -u
HERE=$(cd "$(dirname "$0")" && pwd) # tests/cli in the source tree
LAY=${1:?usage: $0 PATH/TO/lay}
case $LAY in /*) ;; *) LAY=$PWD/$LAY ;; esac
unset LAY_PATH NO_COLOR
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
rc=0

fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

run() {
  "$LAY" "$@" >"$T/out" 2>"$T/err"
  rc=$?
}

expect_rc() {
  [ "$rc" = "$1" ] || fail "$2: exit status $rc, expected $1; stderr: $(cat "$T/err")"
}

expect_err() {
  printf '%s\n' "$1" >"$T/want"
  cmp -s "$T/want" "$T/err" || fail "$2: stderr is
$(cat "$T/err")
expected
$1"
}

expect_out() {
  printf '%s\n' "$1" >"$T/want"
  cmp -s "$T/want" "$T/out" || fail "$2: stdout is
$(cat "$T/out")
expected
$1"
}

hex() {
  od -An -tx1 -v "$1" | tr -s ' \n' '  ' | sed 's/^ //; s/ $//'
}

finish() {
  if [ "$fails" -gt 0 ]; then
    echo "$fails check(s) failed" >&2
    exit 1
  fi
  echo "all checks passed"
  exit 0
}
