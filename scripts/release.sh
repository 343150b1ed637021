#!/usr/bin/env bash
# The release: `bash scripts/setup.sh release` installs what it needs, then runs this. Writes
# dist/ with exactly one self-contained executable per CPU (x86_64, aarch64), a .deb and an .rpm
# for each, and SHA256SUMS over them. Built from Debian 12 packages only: Debian's static archives,
# and simdjson's Debian source package (Debian ships no static simdjson), fetched from the archive
# this machine installs from; aarch64 through Debian's cross toolchain and arm64 multiarch
# libraries. Each executable needs only glibc (2.36 or older) at run time.
#
# Usage: scripts/release.sh [DIST] [CMAKE_ARG...]   (DIST defaults to dist; CMAKE_ARGs are added
# to both builds' configure, e.g. a compiler launcher)
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(realpath -m "${1:-dist}")
shift || true
work=$PWD/build-release
# What comes from the archive (simdjson's source, the arm64 archives) is kept here between runs;
# the README's test command points it at its cache, beside the Docker roots.
fetched=${RGPU_RELEASE_CACHE:-$work}
version=$(sed -n 's/^project(rediacc-gpu VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
[ -n "$version" ] || { echo "release: no version in CMakeLists.txt's project()" >&2; exit 1; }
say() { echo "release: $*" >&2; }

# apt with a private configuration: the machine's own archives (as TYPE: deb or deb-src) for
# ARCH, with its own lists and cache, so the machine's sources, lists and dpkg stay as they are.
# private_apt NAME TYPE ARCH sets apt_opts.
private_apt() {
  local apt=$work/apt-$1 type=$2 arch=$3 f
  rm -rf "$apt"
  mkdir -p "$apt/parts" "$apt/lists/partial" "$apt/cache/archives/partial"
  : >"$apt/sources.list"
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -e "$f" ] && sed "s/^Types:.*$/Types: $type/" "$f" >"$apt/parts/$(basename "$f")"
  done
  [ -f /etc/apt/sources.list ] && sed -n "s/^deb \(.*\)$/$type \1/p" /etc/apt/sources.list >"$apt/sources.list"
  apt_opts=(-o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=$apt/parts"
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache=$apt/cache" -o "APT::Architecture=$arch"
    -o "APT::Architectures::=$arch" -o "APT::Sandbox::User=root")
  apt-get "${apt_opts[@]}" update -qq
}

# simdjson's Debian source, unpacked with its Debian patches (apt checks the .dsc's hashes against
# the archive's signed Sources index). Kept between runs.
simdjson_source() {
  local dir
  dir=$(find "$fetched/src" -maxdepth 1 -name 'simdjson-*' -type d 2>/dev/null | head -n 1)
  if [ -n "$dir" ] && [ -f "$dir/singleheader/simdjson.cpp" ]; then echo "$dir"; return; fi
  rm -rf "$fetched/src"
  mkdir -p "$fetched/src"
  private_apt src deb-src amd64
  (cd "$fetched/src" && apt-get "${apt_opts[@]}" source -qq simdjson >/dev/null)
  dir=$(find "$fetched/src" -maxdepth 1 -name 'simdjson-*' -type d | head -n 1)
  [ -f "$dir/singleheader/simdjson.cpp" ] || { say "simdjson's source has no singleheader/simdjson.cpp"; exit 1; }
  echo "$dir"
}

# Debian's arm64 static archives of the libraries linked in, unpacked from their packages (not
# installed: Debian 12's libyaml-cpp-dev cannot sit beside the amd64 one). Prints their folder.
ARM64_LIBRARIES=(libdrm-dev libyaml-cpp-dev libboost-filesystem1.74-dev)
arm64_libraries() {
  local dir=$fetched/arm64-libs deb
  if [ -f "$dir/complete" ]; then echo "$dir/usr/lib/aarch64-linux-gnu"; return; fi
  rm -rf "$dir" "$fetched/arm64-debs"
  mkdir -p "$dir" "$fetched/arm64-debs"
  private_apt arm64 deb arm64
  (cd "$fetched/arm64-debs" && apt-get "${apt_opts[@]}" download -qq "${ARM64_LIBRARIES[@]}" >/dev/null)
  for deb in "$fetched"/arm64-debs/*.deb; do dpkg-deb -x "$deb" "$dir"; done
  touch "$dir/complete"
  echo "$dir/usr/lib/aarch64-linux-gnu"
}

# build ARCH [CMAKE_ARG...]: the self-contained executable and its two packages, built in
# build-release-ARCH: a folder at the checkout's top, as the test command's GCC build is, so that
# ccache (which sees paths relative to the build folder) finds the x86_64 objects there and CI
# compiles the product once for both.
build() {
  local arch=$1; shift
  local dir=$PWD/build-release-$arch
  say "building $arch"
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRGPU_BUILD_TESTS=OFF -DRGPU_SELF_CONTAINED=ON -DRGPU_UNITY_BUILD=ON \
    -DRGPU_SIMDJSON_SOURCE="$simdjson" \
    -DRGPU_SYSTEMD_UNIT_DIR=/usr/lib/systemd/system -DRGPU_UDEV_RULES_DIR=/usr/lib/udev/rules.d \
    "$@" "${extra[@]}" >/dev/null
  cmake --build "$dir" --parallel "$(nproc)"
  rm -rf "$dir/pkg"
  (cd "$dir" && cpack -G "DEB;RPM" -B "$dir/pkg" >"$dir/cpack.log" 2>&1) ||
    { cat "$dir/cpack.log" >&2; say "cpack failed for $arch"; exit 1; }
  cp "$dir/cli/rediacc-gpu" "$dist/rediacc-gpu-$version-linux-$arch"
  cp "$dir"/pkg/*.deb "$dir"/pkg/*.rpm "$dist/"
}

extra=("$@")
simdjson=$(simdjson_source)
rm -rf "$dist"
mkdir -p "$dist"
build x86_64
build aarch64 -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" -DRGPU_STATIC_LIBRARY_DIR="$(arm64_libraries)"
(cd "$dist" && sha256sum -- * >SHA256SUMS)
say "wrote $dist:"
ls -l "$dist" >&2
