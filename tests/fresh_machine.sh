#!/bin/sh
# tests/fresh_machine.sh: checks the README's two set-up commands on a fresh
# Debian (bookworm, minbase: none of lay's packages installed), as a new
# user would run them. Needs root and the debootstrap package; not part of
# tests/run.sh (it downloads a whole base system).
#   sh tests/fresh_machine.sh [ROOTDIR]
set -eu
cd "$(dirname "$0")/.."
repo=$(pwd)
root=${1:-$(mktemp -d /tmp/lay-fresh.XXXXXX)}
[ "$(id -u)" -eq 0 ] || { echo "fresh_machine: run as root" >&2; exit 1; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
[ -x "$root/bin/sh" ] || debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >/dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
for d in proc sys dev dev/pts; do mountpoint -q "$root/$d" || mount --bind "/$d" "$root/$d"; done
trap 'for d in dev/pts dev sys proc; do umount "$root/$d" 2>/dev/null || true; done' EXIT
rm -rf "$root/root/lay" "$root/home/u"
git clone -q "$repo" "$root/root/lay"

echo "== as a user without root: both commands print the install line and stop"
chroot "$root" /bin/sh -c 'id u >/dev/null 2>&1 || useradd -m u; cp -r /root/lay /home/u/lay; chown -R u /home/u/lay'
for cmd in "sh examples/quickstart.sh" "sh tests/run.sh"; do
  if chroot "$root" su u -c "cd ~/lay && $cmd" 2>&1 | grep 'apt-get install'; then :; else
    echo "fresh_machine: '$cmd' as a user did not print the install line" >&2; exit 1
  fi
done
echo "== as root: sh examples/quickstart.sh"
chroot "$root" /bin/sh -c 'cd /root/lay && sh examples/quickstart.sh'
echo "== as root: sh tests/run.sh"
chroot "$root" /bin/sh -c 'cd /root/lay && sh tests/run.sh'
