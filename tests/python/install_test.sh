#!/bin/sh
# install_test.sh: `cmake --install` into a temporary prefix, then each piece
# used from there alone: lay on PATH, pkg-config building examples/use_lay.c
# against the installed lay.h and liblay, `import lay` with only the
# installed files, `man -l` rendering the page, bash completion of commands,
# options and format names.
#   install_test.sh BUILD_DIR SOURCE_DIR PYTHON     (the install test)
#   install_test.sh --man LAY_BINARY MAN_PAGE        (every command and option
#                                                     of `lay --help` is in the page)
set -eu

# man_covers_help LAY PAGE: each command (the word after "lay " in the
# Commands lines) and each option of `lay --help` must appear in the page.
man_covers_help() {
  page=$(sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' "$2")
  help=$("$1" --help)
  cmds=$(printf '%s\n' "$help" | sed -n 's/^  lay \([a-z|]*\).*/\1/p' | tr '|' '\n' | sort -u)
  opts=$(printf '%s\n' "$help" | grep -o -- '\(^\|[][ (,]\)--*[a-z][a-z-]*' | sed 's/^[][ (,]*//' | sort -u)
  [ -n "$cmds" ] && [ -n "$opts" ] || { echo "no commands or options in lay --help" >&2; exit 1; }
  bad=0
  for c in $cmds; do
    printf '%s\n' "$page" | grep -q "^$c \|^$c$\|^$c|" \
      || { echo "man page: command '$c' of lay --help is not described" >&2; bad=1; }
  done
  for o in $opts; do
    printf '%s\n' "$page" | grep -q -- "$o\([^a-z-]\|$\)" \
      || { echo "man page: option '$o' of lay --help is missing" >&2; bad=1; }
  done
  [ $bad -eq 0 ] || exit 1
  echo "man page covers $(echo $cmds | wc -w) commands and $(echo $opts | wc -w) options"
}

if [ "$1" = "--man" ]; then
  man_covers_help "$2" "$3"
  exit 0
fi

build=$1 src=$2 py=$3
# In a sanitizer build, programs not built with the sanitizers (python3,
# use_lay linked by plain cc) get the runtimes from LAY_TEST_PRELOAD; the
# system tools (man, pkg-config) run without them.
pre() {
  if [ -n "${LAY_TEST_PRELOAD:-}" ]; then LD_PRELOAD=$LAY_TEST_PRELOAD "$@"; else "$@"; fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
cmake --install "$build" --prefix "$P" >"$tmp/install.log"

# lay from P/bin, with its liblay.so from P/lib.
PATH=$P/bin:$PATH
lay --version | grep -q '^lay ' || { echo "installed lay does not run" >&2; exit 1; }
ldd "$P/bin/lay" | grep -q "$P/bin/../lib/liblay.so" \
  || { echo "installed lay does not use the installed liblay.so" >&2; ldd "$P/bin/lay"; exit 1; }

# pkg-config builds examples/use_lay.c against the installed header and library.
export PKG_CONFIG_PATH=$P/lib/pkgconfig
pkg-config --modversion lay | grep -q '^[0-9]' || { echo "pkg-config does not know lay" >&2; exit 1; }
# shellcheck disable=SC2046
cc -Wall -Werror -o "$tmp/use_lay" "$src/examples/use_lay.c" \
  $(pkg-config --cflags --libs lay) -Wl,-rpath,"$P/lib"
case "$(pkg-config --cflags lay)" in *"$P/include"*) ;; *) echo "lay.pc: cflags miss $P/include" >&2; exit 1 ;; esac
pre "$tmp/use_lay" "$src/examples/xla_tiled.lay" >"$tmp/use_lay.out"
grep -q '^all done$' "$tmp/use_lay.out" || { cat "$tmp/use_lay.out"; exit 1; }

# import lay with only the installed files (no build tree, no source tree).
site=$(find "$P" -name __init__.py -path '*/lay/*' | head -1)
[ -n "$site" ] || { echo "the Python package was not installed" >&2; exit 1; }
site=$(dirname "$(dirname "$site")")
(cd "$tmp" && PYTHONPATH="$site" PYTHONNOUSERSITE=1 pre "$py" -c "
import lay, numpy as np
assert lay.__file__.startswith('$P'), lay.__file__
x = np.arange(12, dtype=np.int8).reshape(1, 3, 2, 2)
assert lay.pack('amd.hcwnc4', x).tolist() == [0,4,8,0,1,5,9,0,2,6,10,0,3,7,11,0]
print('import lay from', lay.__file__)
")
[ -f "$site/lay/__init__.pyi" ] || { echo "no type stubs installed" >&2; exit 1; }

# man -l renders the installed page.
MANWIDTH=80 man -l "$P/share/man/man1/lay.1" >"$tmp/man.txt" 2>"$tmp/man.err"
grep -q '^NAME' "$tmp/man.txt" && grep -q 'lay *- pack, unpack' "$tmp/man.txt" \
  || { cat "$tmp/man.err"; echo "man -l did not render the page" >&2; exit 1; }
man_covers_help "$P/bin/lay" "$P/share/man/man1/lay.1"

# bash completion: commands, options, format names (from lay list).
comp=$P/share/bash-completion/completions/lay
bash -c '
. "$1"
c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _lay; echo "${COMPREPLY[*]}"; }
[ "$(c lay pa)" = "pack" ] || { echo "completion of commands: $(c lay pa)"; exit 1; }
[ "$(c lay pack --sh)" = "--shape" ] || { echo "completion of options: $(c lay pack --sh)"; exit 1; }
[ "$(c lay pack amd.hcwnc1)" = "amd.hcwnc16" ] || { echo "completion of formats: $(c lay pack amd.hcwnc1)"; exit 1; }
[ "$(c lay pack x --dtype bf)" = "bf16" ] || { echo "completion of dtypes"; exit 1; }
' sh "$comp"
echo "install test: bin, lib, include, pkg-config, python, man, completion all work from $P"
