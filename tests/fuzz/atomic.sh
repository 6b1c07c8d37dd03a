#!/bin/sh
# tests/fuzz/atomic.sh: a failed or interrupted `lay` run leaves an existing
# output file untouched and no temporary file behind (interp/cli/cli_io.c
# writes through a temporary file renamed over the target).
#   sh atomic.sh PATH/TO/lay
# Cases: a wrong input size, an unknown format, an output folder that does
# not exist, kill -9 while the input (a fifo) stalls, a run killed by a
# signal in the middle of writing (SIGXFSZ from `ulimit -f`, which nothing
# can clean up after, like kill -9), and kill -9 while the output is being
# written (caught by watching /proc/PID/fd for a file in the output folder).
# Then FIFOs, pipes, symbolic links and modes; then the fallback for file systems without O_TMPFILE (LAY_NO_TMPFILE=1: a
# named temporary file): the size limit, SIGTERM in the middle of the
# write, and a good run.
set -u
LAY=${1:?usage: $0 PATH/TO/lay}
case $LAY in /*) ;; *) LAY=$PWD/$LAY ;; esac
unset LAY_PATH
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() {
  echo "FAIL: $*" >&2
  fails=$((fails + 1))
}

O=$T/outdir # the output folder: it must hold exactly out.bin afterwards
mkdir "$O"
reset_out() {
  rm -rf "$O"
  mkdir "$O"
  printf 'ORIGINAL OUTPUT\n' >"$O/out.bin"
}
check_untouched() { # WHAT
  if [ "$(cat "$O/out.bin" 2>/dev/null)" != "ORIGINAL OUTPUT" ]; then
    fail "$1: the existing output file was changed"
  fi
  left=$(ls -A "$O" | grep -v '^out\.bin$')
  [ -z "$left" ] || fail "$1: left behind in the output folder: $left"
}

head -c 12 /dev/zero >"$T/small.bin"

# 1. failures before any output exists
reset_out
"$LAY" unpack amd.hcwnc4 --shape 1,3,2,2 -i "$T/small.bin" -o "$O/out.bin" 2>"$T/err"
rc=$?
[ $rc -ne 0 ] || fail "wrong input size: exit status 0"
grep -q "input is 12 bytes" "$T/err" || fail "wrong input size: stderr $(cat "$T/err")"
check_untouched "wrong input size"

reset_out
"$LAY" pack amd.nope --shape 1,3,2,2 -i "$T/small.bin" -o "$O/out.bin" 2>"$T/err"
[ $? -ne 0 ] || fail "unknown format: exit status 0"
check_untouched "unknown format"

"$LAY" pack core.flat1 --shape 12 -i "$T/small.bin" -o "$T/no/such/dir/out.bin" 2>"$T/err"
[ $? -ne 0 ] || fail "missing output folder: exit status 0"
[ ! -e "$T/no" ] || fail "missing output folder: something was created"

# 2. kill -9 while the input stalls (a fifo with half the data written)
reset_out
mkfifo "$T/in.fifo"
"$LAY" pack core.flat1 --shape 1000000 -i "$T/in.fifo" -o "$O/out.bin" 2>"$T/err" &
pid=$!
exec 3>"$T/in.fifo"
head -c 500000 /dev/zero >&3
# lay is now blocked reading the fifo: it cannot have written anything
kill -9 $pid
wait $pid 2>/dev/null
exec 3>&-
check_untouched "kill -9 while reading a stalled fifo"

# 3. killed by a signal in the middle of the write (SIGXFSZ: the output
#    is larger than the file size limit; the input file is only read)
N=8000000
head -c $N /dev/urandom >"$T/big.bin"
reset_out
(ulimit -f 1000 && exec "$LAY" pack core.flat1 --shape $N -i "$T/big.bin" -o "$O/out.bin") \
  2>"$T/err"
rc=$?
[ $rc -ne 0 ] || fail "file size limit: exit status 0"
check_untouched "killed by SIGXFSZ in the middle of the write"

# 4. kill -9 during the write: wait until lay holds an open file in the
#    output folder (the temporary file), then kill it
caught=0
for size in 64000000 128000000 256000000; do
  head -c $size /dev/zero >"$T/huge.bin" 2>/dev/null || break
  reset_out
  "$LAY" pack core.flat1 --shape $size -i "$T/huge.bin" -o "$O/out.bin" 2>"$T/err" &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    for fd in /proc/$pid/fd/*; do
      case $(readlink "$fd" 2>/dev/null) in
      "$O"/*)
        kill -9 $pid 2>/dev/null && caught=1
        break 2
        ;;
      esac
    done
  done
  wait $pid 2>/dev/null
  # lay may have finished (synced, closed, renamed) between the look at
  # its descriptors and the signal: then the output is whole, which is
  # allowed, and a larger input tries again; any other change fails below
  if [ $caught = 1 ] && cmp -s "$T/huge.bin" "$O/out.bin"; then caught=0; fi
  rm -f "$T/huge.bin"
  if [ $caught = 1 ]; then
    check_untouched "kill -9 in the middle of the write"
    break
  fi
done
[ $caught = 1 ] || fail "could not catch lay in the middle of a write"

# 5. a successful run does replace the file, and leaves nothing else
reset_out
"$LAY" pack core.flat1 --shape 12 -i "$T/small.bin" -o "$O/out.bin" 2>"$T/err" ||
  fail "good run: $(cat "$T/err")"
cmp -s "$T/small.bin" "$O/out.bin" || fail "good run: wrong output"
left=$(ls -A "$O" | grep -v '^out\.bin$')
[ -z "$left" ] || fail "good run: left behind: $left"

# 6. what is not a plain file: a FIFO and a pipe are written in place (not
#    replaced), a symbolic link is followed (the file it names is replaced,
#    the link stays), and an existing file keeps its permission bits
printf '\001\002\003\004\005\006\007\010\011\012\013\014' >"$T/twelve.bin"
mkfifo "$T/out.fifo"
cat "$T/out.fifo" >"$T/from_fifo" &
reader=$!
"$LAY" pack core.flat1 --shape 12 -i "$T/twelve.bin" -o "$T/out.fifo" 2>"$T/err" ||
  fail "FIFO output: $(cat "$T/err")"
wait $reader
[ -p "$T/out.fifo" ] || fail "FIFO output: the FIFO was replaced"
cmp -s "$T/twelve.bin" "$T/from_fifo" || fail "FIFO output: the reader got other bytes"

n=$("$LAY" pack core.flat1 --shape 12 -i "$T/twelve.bin" -o /proc/self/fd/1 2>"$T/err" | wc -c)
[ "$n" -eq 12 ] || fail "-o /proc/self/fd/1 into a pipe: $n bytes came through ($(cat "$T/err"))"

reset_out
ln -s out.bin "$O/link.bin"
"$LAY" pack core.flat1 --shape 12 -i "$T/twelve.bin" -o "$O/link.bin" 2>"$T/err" ||
  fail "symlink output: $(cat "$T/err")"
[ -L "$O/link.bin" ] || fail "symlink output: the link was replaced by a file"
cmp -s "$T/twelve.bin" "$O/out.bin" || fail "symlink output: the linked file was not written"
[ -z "$(ls -A "$O" | grep -v '^out\.bin$' | grep -v '^link\.bin$')" ] ||
  fail "symlink output: left behind: $(ls -A "$O")"

reset_out
chmod 640 "$O/out.bin"
"$LAY" pack core.flat1 --shape 12 -i "$T/twelve.bin" -o "$O/out.bin" 2>"$T/err" ||
  fail "mode: $(cat "$T/err")"
[ "$(stat -c %a "$O/out.bin")" = 640 ] || fail "mode: 640 became $(stat -c %a "$O/out.bin")"

"$LAY" pack core.flat1 --shape 12 -i "$T/twelve.bin" -o "$O" 2>"$T/err"
[ $? -ne 0 ] || fail "a folder as output: exit status 0"
grep -q "is a folder" "$T/err" || fail "a folder as output: stderr $(cat "$T/err")"

# 7. the named temporary file of the fallback path is removed on failure
#    and on a catchable signal
export LAY_NO_TMPFILE=1
reset_out
(ulimit -f 1000 && exec "$LAY" pack core.flat1 --shape $N -i "$T/big.bin" -o "$O/out.bin") \
  2>"$T/err"
[ $? -ne 0 ] || fail "fallback, file size limit: exit status 0"
grep -q "File too large" "$T/err" || fail "fallback, file size limit: stderr $(cat "$T/err")"
check_untouched "fallback, file size limit"

caught=0
for size in 64000000 128000000 256000000; do
  head -c $size /dev/zero >"$T/huge.bin" 2>/dev/null || break
  reset_out
  "$LAY" pack core.flat1 --shape $size -i "$T/huge.bin" -o "$O/out.bin" 2>"$T/err" &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    for fd in /proc/$pid/fd/*; do
      case $(readlink "$fd" 2>/dev/null) in
      "$O"/.lay-*)
        kill -TERM $pid 2>/dev/null && caught=1
        break 2
        ;;
      esac
    done
  done
  wait $pid 2>/dev/null
  # lay may have finished (synced, closed, renamed) between the look at
  # its descriptors and the signal: then the output is whole, which is
  # allowed, and a larger input tries again; any other change fails below
  if [ $caught = 1 ] && cmp -s "$T/huge.bin" "$O/out.bin"; then caught=0; fi
  rm -f "$T/huge.bin"
  if [ $caught = 1 ]; then
    check_untouched "fallback, SIGTERM in the middle of the write"
    break
  fi
done
[ $caught = 1 ] || fail "fallback: could not catch lay in the middle of a write"

reset_out
"$LAY" pack core.flat1 --shape 12 -i "$T/small.bin" -o "$O/out.bin" 2>"$T/err" ||
  fail "fallback, good run: $(cat "$T/err")"
cmp -s "$T/small.bin" "$O/out.bin" || fail "fallback, good run: wrong output"
left=$(ls -A "$O" | grep -v '^out\.bin$')
[ -z "$left" ] || fail "fallback, good run: left behind: $left"
unset LAY_NO_TMPFILE

if [ $fails -gt 0 ]; then
  echo "$fails atomic-output check(s) failed" >&2
  exit 1
fi
echo "atomic output: all checks passed"
