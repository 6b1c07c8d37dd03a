# tests/setup.sh: sourced by tests/run.sh and examples/quickstart.sh.
# Installs the Debian packages lay needs when they are missing (as root),
# or prints the exact install line and stops (as another user).
# Usage: . tests/setup.sh; lay_setup PACKAGE...  (extra packages beyond the build's)

LAY_BUILD_PKGS="gcc libc6-dev make cmake re2c lemon libcjson-dev libedit-dev"
LAY_PYTHON_PKGS="python3-dev python3-numpy python3-pytest" # the Python module and its tests

lay_setup() {
  missing=""
  for p in $LAY_BUILD_PKGS "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' \
      || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "lay: missing Debian packages:$missing" >&2
    echo "lay: install them with:  sudo apt-get update && sudo apt-get install -y$missing" >&2
    exit 1
  fi
  echo "lay: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# lay_setup_optional PACKAGE...: as root, installs the packages that are
# missing; as another user, names them and goes on (the parts of the test
# command that need them are skipped with a message).
lay_setup_optional() {
  missing=""
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' \
      || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" -ne 0 ]; then
    echo "lay: optional packages missing (their tests are skipped):$missing" >&2
    return 0
  fi
  echo "lay: installing$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null
}

# lay_have_libfuzzer: true when clang can link a libFuzzer target.
lay_have_libfuzzer() {
  command -v clang >/dev/null 2>&1 || return 1
  d=$(mktemp -d)
  printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
    'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
    >"$d/probe.c"
  clang -fsanitize=fuzzer "$d/probe.c" -o "$d/probe" >/dev/null 2>&1
  ok=$?
  rm -rf "$d"
  return $ok
}

# lay_build DIR [TARGET] [CMAKE ARGS...]: configure and build DIR (all
# targets, or only TARGET when it is given and not an option).
lay_build() {
  dir=$1; shift
  target=""
  case "${1:-}" in ""|-*) ;; *) target="--target $1"; shift ;; esac
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
  # shellcheck disable=SC2086
  cmake --build "$dir" $target -j "$(nproc 2>/dev/null || echo 2)" >"$dir/build.log" 2>&1 \
    || { cat "$dir/build.log" >&2; echo "lay: build failed in $dir" >&2; exit 1; }
}
