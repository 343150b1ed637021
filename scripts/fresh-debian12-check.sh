#!/usr/bin/env bash
# Checks the README's two set-up commands where nothing was installed by hand, and times them: a
# debootstrap'd Debian 12 root (from this machine's archive), a clone of this checkout in it, then
# `setup.sh main` and `setup.sh test` in the README's order; with --warm, a second clone with a
# one-line change runs `setup.sh test` again in the same root (what CI costs after a day's work);
# with --test-only, `setup.sh main` is left out: what CI runs from nothing (.ci/run is `setup.sh
# test`), with nothing configured before it.
# Not a test: it takes the better part of an hour on 2 cores. Needs root and debootstrap.
# Usage: scripts/fresh-debian12-check.sh DIR [--test-only] [--warm]
#   (DIR must not exist; it is left for a look)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: fresh-debian12-check.sh DIR [--test-only] [--warm]}
shift
jobs=(main test) warm=
for arg in "$@"; do
  case $arg in
    --test-only) jobs=(test) ;;
    --warm) warm=--warm ;;
    *) echo "fresh-debian12-check: unknown option $arg" >&2; exit 2 ;;
  esac
done
[ ! -e "$dir" ] || { echo "fresh-debian12-check: $dir exists; name a new folder" >&2; exit 2; }
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

start=$SECONDS
debootstrap bookworm "$dir" "$mirror" >/dev/null
echo "debootstrap: $((SECONDS - start))s"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
cleanup() { umount -R "$dir" 2>/dev/null || true; }
trap cleanup EXIT
# The root is a mount point of its own, as a machine's / is: the tests' throwaway overlays
# (unshare --propagation) and dockerd's layer imports (remount /) need that.
mount --bind "$dir" "$dir"
mount -t proc proc "$dir/proc"
mount --rbind /sys "$dir/sys"
mount --rbind /dev "$dir/dev"
mount -t tmpfs tmpfs "$dir/run"
mount -t tmpfs tmpfs "$dir/tmp"
git clone -q "$src" "$dir/root/rediacc-gpu"
in_root() { chroot "$dir" env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 CI=true "$@"; }

for job in "${jobs[@]}"; do
  start=$SECONDS
  rc=0
  in_root bash /root/rediacc-gpu/scripts/setup.sh "$job" >"$dir/root/$job.log" 2>&1 || rc=$?
  echo "setup.sh $job: exit $rc after $((SECONDS - start))s (log: $dir/root/$job.log)"
  [ "$rc" = 0 ] || exit 1
done
[ "$warm" = --warm ] || exit 0

# A day's work later: a clone elsewhere with one line changed in one source file.
git clone -q "$src" "$dir/root/second-clone"
sed -i '0,/^namespace rgpu::admission {/s//&\nstatic_assert(sizeof(int) >= 2, "a one-line change");/' \
  "$dir/root/second-clone/admission/decide.cc"
start=$SECONDS
rc=0
in_root bash /root/second-clone/scripts/setup.sh test >"$dir/root/warm.log" 2>&1 || rc=$?
echo "setup.sh test, second clone, one line changed: exit $rc after $((SECONDS - start))s (log: $dir/root/warm.log)"
[ "$rc" = 0 ]
