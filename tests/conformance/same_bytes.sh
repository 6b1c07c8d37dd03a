#!/bin/sh
# tests/conformance/same_bytes.sh: several formats give byte-identical
# buffers for one tensor, through the CLI (`lay pack`), and unpack each
# buffer back to the input. Used by CTest to check the general
# mlir.pack(...) against each of the templates it replaces.
#   same_bytes.sh LAY SPEC SHAPE DTYPE BYTES FORMAT FORMAT...
# SPEC is loaded with -f; BYTES is the input's size (the shape's
# elements times the element size); the input is random bytes.
set -eu
lay=$1 spec=$2 shape=$3 dtype=$4 bytes=$5
shift 5
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
head -c "$bytes" /dev/urandom >"$dir/in"
first=
for f in "$@"; do
  "$lay" -f "$spec" pack "$f" --shape "$shape" --dtype "$dtype" \
      -i "$dir/in" -o "$dir/out"
  "$lay" -f "$spec" unpack "$f" --shape "$shape" --dtype "$dtype" \
      -i "$dir/out" -o "$dir/back"
  cmp "$dir/in" "$dir/back" || { echo "$f: unpack does not give the input back"; exit 1; }
  if [ -z "$first" ]; then
    first=$f
    mv "$dir/out" "$dir/first"
  elif ! cmp "$dir/first" "$dir/out"; then
    echo "$f and $first give different buffers"
    exit 1
  fi
done
echo "$# formats, the same $(wc -c <"$dir/first") bytes"
