#!/usr/bin/env bash
# A test dependency: a Debian root with a Docker that injects CDI devices, made with debootstrap
# from the same Debian archive as this machine. The tests run its dockerd in a chroot, behind our
# authorization plugin running on the host.
#   26: Debian 13 (trixie): docker.io 26, containerd 1.7, runc, and systemd with D-Bus, which
#       systemd-nspawn --boot runs as PID 1 (tests/e2e/systemd_reload_test.sh); Compose 2.30 or later and buildx
#       0.17 or later from unstable (Compose 2.40 builds only through buildx 0.17+); and the Go
#       libraries its dockerd vendors (CDI 0.7.2, no Debian package) from its source package, in
#       usr/share/docker-vendor as a GOPATH, for the CDI oracle of that version.
#   28: Debian unstable: docker.io 28.5, containerd 2.1, buildx 0.29, Compose; and dockerd's own Go
#       source with the Go that builds it, for the oracle of that version; and BuildKit's Dockerfile
#       frontend with its labs features (RUN --device), which no package ships, built from the
#       BuildKit source dockerd 28.5 vendors, in usr/local/libexec/rgpu-tests.
#
# Each starts from a copy of the bare root of its suite (scripts/minimal-root.sh 13 or unstable),
# which the release's tests need anyway: one debootstrap per suite.
#
# Usage: scripts/docker-root.sh 26|28. Prints the root's path. Cached under $RGPU_TEST_CACHE
# (default /var/cache/rediacc-gpu-tests), keyed on this script's text and minimal-root.sh's (the
# package lists live here): a second run reuses it, a root left half-made (no stamp) is removed
# and made again.
set -euo pipefail
self=$(readlink -f "$0")
docker=${1:-}

# criu: runc checkpoints and restores with it (docker checkpoint create, docker start --checkpoint).
COMMON=(docker.io docker-cli containerd runc criu busybox-static ca-certificates)
# What BuildKit's Dockerfile frontend imports beyond dockerd's own source.
FRONTEND_LIBRARIES=(golang-github-agext-levenshtein-dev golang-github-gofrs-flock-dev golang-github-google-shlex-dev
  golang-github-mitchellh-hashstructure-dev)
case "$docker" in
  26) suite=trixie bare=13 PACKAGES=("${COMMON[@]}" systemd systemd-sysv dbus) UNSTABLE_PACKAGES=(docker-compose docker-buildx) ;;
  28) suite=sid bare=unstable PACKAGES=("${COMMON[@]}" docker-compose docker-buildx golang-go golang-github-docker-docker-dev
    "${FRONTEND_LIBRARIES[@]}") UNSTABLE_PACKAGES=() ;;
  *) echo "usage: scripts/docker-root.sh 26|28" >&2; exit 2 ;;
esac

cache=${RGPU_TEST_CACHE:-/var/cache/rediacc-gpu-tests}
minimal=${self%/*}/minimal-root.sh
key=$(cat "$self" "$minimal" | sha256sum | cut -c1-16)
dir="$cache/docker$docker-$key"
root="$dir/root"
if [ -f "$dir/complete" ]; then
  echo "$root"
  exit 0
fi

# The archive this machine installs from, for debootstrap and the root's own apt.
mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '/^deb / { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian

say() { echo "docker-root $docker: $*" >&2; }
command -v debootstrap >/dev/null || { say "debootstrap is missing; run bash scripts/setup.sh test"; exit 1; }
mkdir -p "$cache"
# Leftovers of an earlier attempt for this Docker (mounts first, if it died inside the chroot).
for old in "$cache"/docker"$docker"-*; do
  [ -e "$old" ] || continue
  [ "$old" = "$dir" ] && [ -f "$dir/complete" ] && continue
  umount -R "$old/root" 2>/dev/null || true
  findmnt -rno TARGET | grep -q "^$old/" && { say "$old still has mounts; unmount them"; exit 1; }
  rm -rf --one-file-system "$old"
done
mkdir -p "$dir"
base=$(bash "$minimal" "$bare")
say "making $root ($suite) from $base and $mirror"
cp -a "$base" "$root"
# As minimal-root.sh does: no sync per unpacked file while a root is made (a root cut short has no
# stamp and is made again), and none left in the root once it is.
unsafe_io=$root/etc/dpkg/dpkg.cfg.d/rgpu-unsafe-io
echo force-unsafe-io >"$unsafe_io"

cleanup() { umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mount -t proc proc "$root/proc"
if [ "${#UNSTABLE_PACKAGES[@]}" -gt 0 ]; then
  echo "deb $mirror unstable main" >"$root/etc/apt/sources.list.d/unstable.list"
  printf 'Package: *\nPin: release a=unstable\nPin-Priority: 100\n' >"$root/etc/apt/preferences.d/unstable"
fi
# Nothing inside the root starts a service while it is being made.
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod +x "$root/usr/sbin/policy-rc.d"
in_root() { chroot "$root" env DEBIAN_FRONTEND=noninteractive "$@"; }
# unstable's Release file may be past its Valid-Until on a snapshot archive.
in_root apt-get -o Acquire::Check-Valid-Until=false update -qq >"$dir/apt.log" 2>&1 ||
  { tail -20 "$dir/apt.log" >&2; exit 1; }
in_root apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" >>"$dir/apt.log" 2>&1 ||
  { tail -20 "$dir/apt.log" >&2; exit 1; }
if [ "${#UNSTABLE_PACKAGES[@]}" -gt 0 ]; then
  in_root apt-get install -y -qq --no-install-recommends -t unstable "${UNSTABLE_PACKAGES[@]}" >>"$dir/apt.log" 2>&1 ||
    { tail -20 "$dir/apt.log" >&2; exit 1; }
fi
if [ "$docker" = 26 ]; then
  # Docker 26's CDI library is the one in its own source's vendor directory. Only the orig tarball
  # is needed: its address and checksum come from the signed Sources index of the installed
  # binary's source version, and apt's own helper fetches and checks it (a mirror may lack that
  # version's .dsc, which apt-get source would insist on).
  echo "deb-src $mirror $suite main" >"$root/etc/apt/sources.list.d/$suite-src.list"
  in_root apt-get -o Acquire::Check-Valid-Until=false update -qq >>"$dir/apt.log" 2>&1 ||
    { tail -20 "$dir/apt.log" >&2; exit 1; }
  installed=$(in_root dpkg-query -W -f="\${source:Version}" docker.io)
  upstream=${installed%-*}
  orig="docker.io_$upstream.orig.tar.xz"
  read -r uri hash < <(in_root apt-get source -qq --print-uris "docker.io=$installed" 2>>"$dir/apt.log" |
    awk -v f="$orig" '$2 == f { gsub("\047", "", $1); print $1, $4 }') ||
    { tail -20 "$dir/apt.log" >&2; say "the Sources index names no $orig"; exit 1; }
  in_root /usr/lib/apt/apt-helper download-file "$uri" "/tmp/$orig" "$hash" >>"$dir/apt.log" 2>&1 ||
    { tail -20 "$dir/apt.log" >&2; exit 1; }
  unpack="$root/tmp/docker-src"
  mkdir -p "$unpack" "$root/usr/share/docker-vendor"
  tar -xJf "$root/tmp/$orig" -C "$unpack" --wildcards '*/engine/vendor/*'
  mv "$unpack"/*/engine/vendor "$root/usr/share/docker-vendor/src"
  rm -rf "$unpack" "$root/tmp/$orig" "$root/etc/apt/sources.list.d/$suite-src.list"
  [ -d "$root/usr/share/docker-vendor/src/tags.cncf.io/container-device-interface/pkg/cdi" ] ||
    { say "docker.io $installed's source vendors no CDI library"; exit 1; }
  say "Go libraries vendored by docker.io $installed: $(grep -A0 '^# tags.cncf.io/container-device-interface ' \
    "$root/usr/share/docker-vendor/src/modules.txt" | cut -d' ' -f2-)"
fi
if [ "$docker" = 28 ]; then
  # Debian's GOPATH holds hashstructure without the /v2 its importers name.
  gopath=/tmp/frontend-gopath
  mkdir -p "$root$gopath/src/github.com/mitchellh/hashstructure" "$root/usr/local/libexec/rgpu-tests"
  ln -s /usr/share/gocode/src/github.com/mitchellh/hashstructure "$root$gopath/src/github.com/mitchellh/hashstructure/v2"
  in_root env GO111MODULE=off GOPATH="/usr/share/gocode:$gopath" GOCACHE=/tmp/frontend-cache GOFLAGS= GOTOOLCHAIN=local \
    CGO_ENABLED=0 go build -tags "dfrundevice netgo osusergo static_build" \
    -o /usr/local/libexec/rgpu-tests/dockerfile-frontend github.com/moby/buildkit/frontend/dockerfile/cmd/dockerfile-frontend \
    >"$dir/frontend.log" 2>&1 || { tail -20 "$dir/frontend.log" >&2; exit 1; }
  rm -rf "$root$gopath" "$root/tmp/frontend-cache"
fi
in_root apt-get clean
rm "$unsafe_io"
cleanup
trap - EXIT
in_root docker --version >&2
in_root docker compose version >&2
in_root docker buildx version >&2
touch "$dir/complete"
echo "$root"
