#!/usr/bin/env bash
# A test dependency: a bare Debian root (debootstrap --variant=minbase, nothing added), from the
# archive this machine installs from, for running the release's executable and installing its
# .deb where nothing else is: 12 (bookworm), 13 (trixie) or unstable (sid).
#
# Usage: scripts/minimal-root.sh 12|13|unstable. Prints the root's path. Cached under
# $RGPU_TEST_CACHE (default /var/cache/rediacc-gpu-tests) like scripts/docker-root.sh's roots:
# keyed on this script's text, a root left half-made (no stamp) is made again. Tests work on a
# copy, never on the cached root. scripts/docker-root.sh starts its roots from a copy of 13's and
# unstable's, so each suite is bootstrapped once.
set -euo pipefail
self=$(readlink -f "$0")
case "${1:-}" in
  12) suite=bookworm ;;
  13) suite=trixie ;;
  unstable) suite=sid ;;
  *) echo "usage: scripts/minimal-root.sh 12|13|unstable" >&2; exit 2 ;;
esac
cache=${RGPU_TEST_CACHE:-/var/cache/rediacc-gpu-tests}
key=$(sha256sum "$self" | cut -c1-16)
dir="$cache/minimal-$suite-$key"
if [ -f "$dir/complete" ]; then
  echo "$dir/root"
  exit 0
fi
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
command -v debootstrap >/dev/null || { echo "minimal-root: debootstrap is missing; run bash scripts/setup.sh test" >&2; exit 1; }
mkdir -p "$cache"
for old in "$cache"/minimal-"$suite"-*; do
  [ -e "$old" ] && [ "$old" != "$dir" ] && rm -rf --one-file-system "$old"
done
rm -rf --one-file-system "$dir"
mkdir -p "$dir"
echo "minimal-root: making $dir/root ($suite) from $mirror" >&2
# dpkg syncs every file it unpacks before renaming it: kernel time taken from the compilers beside
# it (the kernel's share of a from-nothing test run is a quarter of the CPU). A root cut short is
# made again whole (no stamp), so that safety buys nothing here. Taken out again below: the root
# holds nothing else.
unsafe_io=$dir/root/etc/dpkg/dpkg.cfg.d/rgpu-unsafe-io
mkdir -p "${unsafe_io%/*}"
echo force-unsafe-io >"$unsafe_io"
debootstrap --variant=minbase "$suite" "$dir/root" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
  { tail -20 "$dir/debootstrap.log" >&2; exit 1; }
rm "$unsafe_io"
chroot "$dir/root" apt-get clean
touch "$dir/complete"
echo "$dir/root"
