#!/bin/sh
# tests/cli/readme_pictures.sh: the README's pictures are what the
# commands printed beside them draw today (issue 19, point 7). For every
# picture ![...](DIR/NAME.png) of README.md and examples/pictures/README.md
# the `lay draw ... -o NAME.svg` command written next to it (within three
# lines) is run and its SVG must equal DIR/NAME.svg byte for byte; the PNG
# (rendered from that SVG by make.sh) must have the SVG's size; make.sh
# must redraw it with the same arguments; and any other `lay draw` command
# of the READMEs on the same format and shape must draw the same picture
# (the crouton command of the command list once drew 16-byte rows while
# its picture had 32).
#   sh readme_pictures.sh PATH/TO/lay
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$HERE/../.." && pwd)
MAKE=$ROOT/examples/pictures/make.sh

# "W H" of an SVG's <svg width= height=> and of a PNG's IHDR.
svg_size() {
  sed -n 's/.*<svg [^>]*width="\([0-9]*\)" height="\([0-9]*\)".*/\1 \2/p' "$1" | head -1
}
png_size() {
  od -An -tu1 -j16 -N8 -v "$1" | awk '{ print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}
# The arguments of a `lay draw` command written on a line: from "draw" to
# the end of the command (before a `#` comment or a closing backquote).
draw_args() {
  sed -n 's/.*lay draw \([^`#]*\).*/\1/p' | sed 's/ *$//'
}

pictures=0
: >"$T/keys"
for md in "$ROOT/README.md" "$ROOT/examples/pictures/README.md"; do
  dir=$(dirname "$md")
  grep -n '!\[[^]]*\]([^)]*\.png)' "$md" >"$T/images"
  while IFS= read -r img; do
    line=${img%%:*}
    png=$(printf '%s\n' "$img" | sed 's/.*!\[[^]]*\](\([^)]*\.png\)).*/\1/')
    name=$(basename "$png" .png)
    svg=$dir/$(dirname "$png")/$name.svg
    pictures=$((pictures + 1))
    # The command beside the picture: the nearest `lay draw` line within
    # three lines that writes NAME.svg.
    from=$((line - 3)); [ "$from" -lt 1 ] && from=1
    args=$(sed -n "${from},$((line + 3))p" "$md" | grep "lay draw .*-o $name\.svg" |
      draw_args | head -1)
    if [ -z "$args" ]; then
      fail "$md:$line: no 'lay draw ... -o $name.svg' command beside $png"
      continue
    fi
    case $args in *"-o $name.svg") ;; *)
      fail "$md:$line: '$args' does not end with -o $name.svg"; continue ;;
    esac
    keep=${args% -o $name.svg}
    # shellcheck disable=SC2086 # the arguments as written in the README
    run draw $keep -o "$T/$name.svg"
    expect_rc 0 "$md:$line: lay draw $args"
    cmp -s "$T/$name.svg" "$svg" ||
      fail "$md:$line: 'lay draw $args' no longer draws $svg (run examples/pictures/make.sh)"
    [ "$(svg_size "$svg")" = "$(png_size "$dir/$png")" ] ||
      fail "$dir/$png is $(png_size "$dir/$png"), its SVG $(svg_size "$svg"): redraw it with make.sh"
    grep -q "draw $keep -o \"\$here/$name.svg\"" "$MAKE" ||
      fail "make.sh does not draw $name.svg with '$keep'"
    # Remember FORMAT --shape S of the picture.
    key=$(printf '%s\n' "$keep" | sed -n 's/^\([^ ]*\) .*--shape \([^ ]*\).*/\1 \2/p')
    printf '%s|%s\n' "$key" "$svg" >>"$T/keys"
  done <"$T/images"
done
[ "$pictures" -ge 3 ] || fail "only $pictures pictures found in the READMEs"

# Every other `lay draw` command of the READMEs on a pictured format and
# shape draws that picture.
for md in "$ROOT/README.md" "$ROOT/examples/pictures/README.md"; do
  grep 'lay draw ' "$md" | draw_args >"$T/cmds"
  while IFS= read -r args; do
    keep=$(printf '%s\n' "$args" | sed 's/ -o [^ ]*//')
    key=$(printf '%s\n' "$keep" | sed -n 's/^\([^ ]*\) .*--shape \([^ ]*\).*/\1 \2/p')
    svg=$(grep "^$key|" "$T/keys" | head -1 | sed 's/.*|//')
    [ -n "$svg" ] || continue
    # shellcheck disable=SC2086
    run draw $keep -o "$T/other.svg"
    expect_rc 0 "$md: lay draw $args"
    cmp -s "$T/other.svg" "$svg" ||
      fail "$md: 'lay draw $args' draws another picture than $(basename "$svg") of the same layout"
  done <"$T/cmds"
done
finish
