#!/usr/bin/env bash
# A test dependency: a Debian 13 (trixie) root with a Docker that injects CDI devices (docker.io
# 26, containerd, runc, busybox-static), and Docker Compose 2.30 or later and buildx 0.17 or later
# from unstable (Compose 2.40 builds only through buildx 0.17+), made with debootstrap from the same Debian archive as this machine. The tests run its
# dockerd in a chroot, behind our authorization plugin running on the host.
#
# Prints the root's path. Cached under $RGPU_TEST_CACHE (default /var/cache/rediacc-gpu-tests),
# keyed on this script's own text (the package list lives here): a second run reuses it, a root
# left half-made (no stamp) is removed and made again.
set -euo pipefail
self=$(readlink -f "$0")

PACKAGES=(docker.io docker-cli containerd runc busybox-static ca-certificates)
UNSTABLE_PACKAGES=(docker-compose docker-buildx)

cache=${RGPU_TEST_CACHE:-/var/cache/rediacc-gpu-tests}
key=$(sha256sum "$self" | cut -c1-16)
dir="$cache/docker26-$key"
root="$dir/root"
if [ -f "$dir/complete" ]; then
  echo "$root"
  exit 0
fi

# The archive this machine installs from, for debootstrap and the root's own apt.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

command -v debootstrap >/dev/null || { echo "docker26-root: debootstrap is missing; run bash scripts/setup.sh test" >&2; exit 1; }
mkdir -p "$cache"
# Leftovers of an earlier attempt (mounts first, if it died inside the chroot).
for old in "$cache"/docker26-*; do
  [ -e "$old" ] || continue
  [ "$old" = "$dir" ] && [ -f "$dir/complete" ] && continue
  umount -R "$old/root" 2>/dev/null || true
  findmnt -rno TARGET | grep -q "^$old/" && { echo "docker26-root: $old still has mounts; unmount them" >&2; exit 1; }
  rm -rf --one-file-system "$old"
done
mkdir -p "$dir"
echo "docker26-root: making $root from $mirror (about two minutes)" >&2
debootstrap --variant=minbase trixie "$root" "$mirror" >"$dir/debootstrap.log" 2>&1 ||
  { tail -20 "$dir/debootstrap.log" >&2; exit 1; }

cleanup() { umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mount -t proc proc "$root/proc"
echo "deb $mirror unstable main" >"$root/etc/apt/sources.list.d/unstable.list"
printf 'Package: *\nPin: release a=unstable\nPin-Priority: 100\n' >"$root/etc/apt/preferences.d/unstable"
# Nothing inside the root starts a service while it is being made.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive "$@"; }
# unstable's Release file may be past its Valid-Until on a snapshot archive.
in_root apt-get -o Acquire::Check-Valid-Until=false update -qq >"$dir/apt.log" 2>&1 ||
  { tail -20 "$dir/apt.log" >&2; exit 1; }
in_root apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >>"$dir/apt.log" 2>&1 ||
  { tail -20 "$dir/apt.log" >&2; exit 1; }
in_root apt-get install -y -qq --no-install-recommends -t unstable "${UNSTABLE_PACKAGES[@]}" >>"$dir/apt.log" 2>&1 ||
  { tail -20 "$dir/apt.log" >&2; exit 1; }
in_root apt-get clean
cleanup
trap - EXIT
in_root docker --version >&2
in_root docker compose version >&2
in_root docker buildx version >&2
touch "$dir/complete"
echo "$root"
