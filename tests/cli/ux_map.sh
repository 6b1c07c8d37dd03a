#!/bin/sh
# tests/cli/ux_map.sh: converting between layouts that name their
# dimensions differently (issue 19, point 1): the mismatch error names both
# sides' dimensions and suggests a --map; --map T=S renames the target's
# dimensions; core.flatN works as an end point.
#   sh ux_map.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"

# The error names both sides and gives the map that pairs them.
run convert core.nchw qnn.crouton --shape 1,64,56,56 </dev/null
expect_rc 1 "nchw -> crouton without a map"
expect_err "lay: core.nchw -> qnn.crouton: dimension 'n' of the source is not in the target: the source has (n, c, h, w), the target (b, h, w, d)
hint: if they are the same dimensions in another naming, say which is which: --map b=n,d=c" "nchw -> crouton error"

run convert qnn.crouton core.nchw --shape 1,8,8,64 </dev/null
expect_err "lay: qnn.crouton -> core.nchw: dimension 'b' of the source is not in the target: the source has (b, h, w, d), the target (n, c, h, w)
hint: if they are the same dimensions in another naming, say which is which: --map n=b,c=d" "crouton -> nchw error"

# A flat side pairs by position.
run convert core.flat4 amd.hcwnc4 --shape 1,4,2,2 </dev/null
expect_err "lay: core.flat4 -> amd.hcwnc4: dimension 'a' of the source is not in the target: the source has (a, b, c, d), the target (n, c, h, w)
hint: if they are the same dimensions in another naming, say which is which: --map n=a,c=b,h=c,w=d" "flat4 -> hcwnc4 error"

# The map's bytes, from the crouton's definition (Qualcomm's
# ChunkedMemoryLayout<4, 0,0, 1,0, 2,0, 3,0, 1,8, 2,8, 3,32>: inside a
# chunk, offset = h%8 * 256 + w%8 * 32 + d%32): NCHW 1x2x1x2 holding
# c0w0=01 c0w1=02 c1w0=03 c1w1=04 puts (w0,d0)=01 at 0, (w0,d1)=03 at 1,
# (w1,d0)=02 at 32, (w1,d1)=04 at 33, in a 2048-byte chunk.
printf '\001\002\003\004' >"$T/x.bin"
run convert core.nchw qnn.crouton --shape 1,2,1,2 --map b=n,d=c -i "$T/x.bin" -o "$T/c.bin"
expect_rc 0 "nchw -> crouton with --map"
[ "$(wc -c <"$T/c.bin" | tr -d ' ')" = 2048 ] || fail "crouton chunk size"
[ "$(head -c 2 "$T/c.bin" | od -An -tx1 | tr -d ' \n')" = 0103 ] || fail "crouton bytes 0,1"
[ "$(dd if="$T/c.bin" bs=1 skip=32 count=2 2>/dev/null | od -An -tx1 | tr -d ' \n')" = 0204 ] || fail "crouton bytes 32,33"
# ... and back.
run convert qnn.crouton core.nchw --shape 1,1,2,2 --map n=b,c=d -i "$T/c.bin" -o "$T/back.bin"
expect_rc 0 "crouton -> nchw with --map"
cmp -s "$T/x.bin" "$T/back.bin" || fail "crouton -> nchw gives back the input"

# The same bytes as going through NHWC and packing the crouton.
head -c 4096 /dev/urandom >"$T/r.bin"
run convert core.nchw qnn.crouton --shape 1,64,8,8 --map b=n,d=c -i "$T/r.bin" -o "$T/a.bin"
run convert core.nchw core.nhwc --shape 1,64,8,8 -i "$T/r.bin" -o "$T/nhwc.bin"
run pack qnn.crouton --shape 1,8,8,64 -i "$T/nhwc.bin" -o "$T/b.bin"
cmp -s "$T/a.bin" "$T/b.bin" || fail "--map convert equals nhwc + pack"

# core.flat4 as an end point: the positional map is amd.hcwnc4's pack.
head -c 16 "$T/r.bin" >"$T/f.bin"
run convert core.flat4 amd.hcwnc4 --shape 1,4,2,2 --map n=a,c=b,h=c,w=d -i "$T/f.bin" -o "$T/h1.bin"
expect_rc 0 "flat4 -> hcwnc4"
run pack amd.hcwnc4 --shape 1,4,2,2 -i "$T/f.bin" -o "$T/h2.bin"
cmp -s "$T/h1.bin" "$T/h2.bin" || fail "flat4 -> hcwnc4 equals the pack"

# Bad maps.
run convert core.nchw qnn.crouton --shape 1,2,1,2 --map x=n -i "$T/x.bin"
expect_err "lay: core.nchw -> qnn.crouton: bad map 'x=n': the target has no dimension 'x' (it has b, h, w, d)" "unknown target dimension"
run convert core.nchw qnn.crouton --shape 1,2,1,2 --map b=n,b=c -i "$T/x.bin"
expect_err "lay: core.nchw -> qnn.crouton: bad map 'b=n,b=c': 'b' is mapped twice" "a dimension mapped twice"
run convert core.nchw qnn.crouton --shape 1,2,1,2 --map bn -i "$T/x.bin"
expect_err "lay: core.nchw -> qnn.crouton: bad map 'bn': expected TARGET=SOURCE pairs like b=n,d=c" "a pair without ="
run convert core.nchw qnn.crouton --shape 1,2,1,2 --map b=n -i "$T/x.bin"
expect_err "lay: core.nchw -> qnn.crouton: dimension 'c' of the source is not in the target: the source has (n, c, h, w), the target (n, h, w, d)" "a map that leaves one out"
run pack core.nchw --shape 1,2,1,2 --map b=n -i "$T/x.bin"
expect_rc 2 "--map on pack"

# The help says how.
run convert --help
grep -q -- "--map T=S" "$T/out" || fail "convert --help mentions --map"
finish
