#!/bin/sh
# tests/cli/usage.sh: lay --help, --version, COMMAND --help, and the usage
# errors (exit 2, one line "lay: ..." plus "Try 'lay --help'" on stderr).
#   sh usage.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

run --help
expect_rc 0 "--help"
head -n 1 "$T/out" | grep -q '^usage: lay ' || fail "--help: no usage line"
[ -s "$T/err" ] && fail "--help: wrote to stderr"
for c in pack unpack convert show info where at check test list; do
  grep -q "^  lay $c " "$T/out" || grep -q "^  lay $c\$" "$T/out" ||
    fail "--help does not list '$c'"
done

run help
expect_rc 0 "help"

run --version
expect_rc 0 "--version"
expect_out "lay 0.1.0" "--version"

run pack --help
expect_rc 0 "pack --help"
head -n 1 "$T/out" >"$T/first"
printf '%s\n' "usage: lay pack FORMAT --shape S [--dtype T] [-i IN] [-o OUT]" >"$T/want"
cmp -s "$T/first" "$T/want" || fail "pack --help: first line $(cat "$T/first")"
for c in unpack convert show info where at check test list; do
  run "$c" --help
  expect_rc 0 "$c --help"
  head -n 1 "$T/out" | grep -q "^usage: lay $c" || fail "$c --help: no usage"
done

# Usage errors: exit 2, the message and the hint, nothing on stdout.
usage() { # EXPECTED-MESSAGE ARGS...
  msg=$1
  shift
  run "$@"
  expect_rc 2 "lay $*"
  expect_err "lay: $msg
Try 'lay --help'" "lay $*"
  [ -s "$T/out" ] && fail "lay $*: wrote to stdout"
}
usage "no command given"
usage "unknown command 'frobnicate'" frobnicate
usage "unknown option '--bogus'" pack amd.hcwnc4 --shape 1,3,2,2 --bogus
usage "unknown option '-x'" -x pack
usage "pack: missing --shape" pack amd.hcwnc4
usage "pack: missing the FORMAT" pack --shape 1,3,2,2
usage "unpack: missing --shape" unpack amd.hcwnc4 -i /dev/null
usage "convert: missing the TO format" convert amd.hcwnc4 --shape 1,3,2,2
usage "convert: missing the FROM and TO formats" convert --shape 1,3,2,2
usage "option '--shape' needs a value" pack amd.hcwnc4 --shape
usage "option '-o' needs a value" pack amd.hcwnc4 --shape 1,3,2,2 -o
usage "show: option '-i' does not apply" show amd.hcwnc4 --shape 1,3,2,2 -i x
usage "show: option '--at' does not apply" --at 0,0 show amd.hcwnc4 --shape 1,3,2,2
usage "pack: unexpected argument 'extra'" pack amd.hcwnc4 extra --shape 1,3,2,2
usage "where: missing --at" where amd.hcwnc4 --shape 1,3,2,2
usage "at: missing --offset" at amd.hcwnc4 --shape 1,3,2,2
usage "check: missing a FILE" check
usage "test: missing a FILE" test
usage "info: missing the FORMAT" info

# --hsi: its usage errors (running reports is tested in tests/hsi).
# (--input/--output may be omitted when the report has one: issue 17.)
run pack --hsi "$T/flexmlrt-hsi.json" --input 0 --output 0 -o "$T/hsi.bin"
expect_rc 2 "pack --hsi with --input and --output"
expect_err "lay: pack --hsi: give one of --input K and --output K
Try 'lay --help'" "pack --hsi with --input and --output"
[ -e "$T/hsi.bin" ] && fail "pack --hsi left an output file"
usage "unpack --hsi: the shape and dtype come from the report" unpack --hsi "$T/flexmlrt-hsi.json" --output 0 --shape 1,2
usage "pack: --input is only used with --hsi" pack amd.hcwnc4 --shape 1,3,2,2 --input 0

# --opt=value works like --opt value.
printf '\001\002\003\004\021\022\023\024\041\042\043\044' >"$T/rgb.bin"
run pack amd.hcwnc4 --shape=1,3,2,2 --dtype=int8 -i "$T/rgb.bin"
expect_rc 0 "--shape=..."
[ "$(hex "$T/out")" = "01 11 21 00 02 12 22 00 03 13 23 00 04 14 24 00" ] ||
  fail "--shape=...: packed $(hex "$T/out")"

finish
