#!/bin/sh
# tests/cli/ux_help.sh: help (issue 19, point 5): lay --help lists every
# command; every command answers --help (also `lay help CMD`) with its
# usage, what it does, its options and an example that runs.
#   sh ux_help.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

run --help
cmds=$(sed -n 's/^  lay \([a-z]*\).*/\1/p' "$T/out" | sort -u)
for c in pack unpack convert show info where at check test list describe draw repl hsi export; do
  echo "$cmds" | grep -qx "$c" || fail "lay --help does not list $c"
done
for c in $cmds; do
  run "$c" --help
  expect_rc 0 "$c --help"
  [ -s "$T/err" ] && fail "$c --help wrote to stderr: $(cat "$T/err")"
  head -n 1 "$T/out" | grep -q "^usage: lay $c" || fail "$c --help: no usage line"
  grep -q "^Example" "$T/out" || fail "$c --help: no example"
  [ "$c" = repl ] || grep -q "^Options:" "$T/out" || fail "$c --help: no options"
  cp "$T/out" "$T/h1"
  run help "$c"
  cmp -s "$T/out" "$T/h1" || fail "lay help $c differs from lay $c --help"
done

run where --help
expect_out "usage: lay where FORMAT --shape S --at I,J,K,L [--dtype T] [--elements]

Print the byte offset of a CPU-side coordinate in the layout buffer;
with byte planes, each plane's: 1 (plane lo), 17 (plane hi). The
coordinate may be written 0,1,0,0, (0,1,0,0) or [0,1,0,0].
--elements prints the element index instead (memory order: the byte
offset over the element size; with int4 and uint4 the half byte).
Options:
  --shape S      the CPU-side shape, in CPU-side order: 1,3,224,224
  --dtype T      fp32 fp16 bf16 int8 uint8 int16 uint16 int32 uint32
                 int64 uint64 int4 uint4 fp8e4m3 fp8e5m2 (or numpy's names);
                 default: the spec's type, else int8
  --at I,J,K,L   a CPU-side coordinate
  --elements     element indexes (memory order) instead of bytes
  --json         print JSON for scripts
  -f FILE        load extra specs (repeatable)
  --help         this text
Example:
  lay where amd.hcwnc4 --shape 1,3,2,2 --at 0,1,1,0" "where --help"

# pack --help mentions --hsi.
run pack --help
grep -q -- "--hsi FILE --input K | --output K" "$T/out" || fail "pack --help: no --hsi"

# The examples of the layout commands run (those without files to read).
run where amd.hcwnc4 --shape 1,3,2,2 --at 0,1,1,0
expect_out 9 "where's example (AMD: G[1,0] of channel 1 is byte 9)"
run at amd.hcwnc4 --shape 1,3,2,2 --offset 9
expect_rc 0 "at's example"
run show amd.hcwnc4 --shape 1,3,2,2
expect_rc 0 "show's example"
run info qnn.crouton --shape 1,8,8,32
expect_rc 0 "info's example"
run describe ti.tidl
expect_rc 0 "describe's example"

# info without a shape describes the name.
run info amd.hcwnc4
cp "$T/out" "$T/i1"
run describe amd.hcwnc4
cmp -s "$T/out" "$T/i1" || fail "info NAME without --shape is describe"
run info core.nchw amd.hcwnc4
expect_rc 2 "info FROM TO without --shape"
expect_err "lay: info: missing --shape
Try 'lay --help'" "info FROM TO without --shape"
finish
