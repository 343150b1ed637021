#!/usr/bin/env bash
# The two set-up commands of the README, on a fresh Debian 12 machine as root:
#   bash scripts/setup.sh main   installs the dependencies, builds, runs the main job here
#                                (setup --install-nvidia-toolkit=auto, then list)
#   bash scripts/setup.sh test   installs the dependencies, builds, runs every test
#                                (clang-format, GCC Release, clang Debug build, then AddressSanitizer + UBSan)
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian 12 packages only: no vendored copies, no downloads.
BUILD_DEPS=(
  build-essential cmake ninja-build pkg-config
  pci.ids libdrm-dev
  nlohmann-json3-dev libsimdjson-dev libyaml-cpp-dev libcli11-dev libexpected-dev
  libboost-dev libboost-filesystem-dev help2man
)
# git lists the sources for the format check; libpci judges the probe's pci.ids names; podman (+ runc: crun refuses hybrid cgroup hosts) and busybox-static run real containers; the
# CDI package ships the official JSON schema that valijson checks our specs against; systemd
# brings systemd-analyze, which verifies the units setup writes; docker.io is the real dockerd
# behind the authorization plugin; prometheus brings promtool, which checks our metrics;
# shellcheck, lintian, cloud-init, ansible-core and ansible-lint check what contrib/ and the
# package ship (zsh runs the completion script through bashcompinit; clang builds it all once more) (python3-apt lets Ansible's apt module install the .deb); golang-go and dockerd's own
# Go source build the oracle the gate is fuzzed against; debootstrap makes the Debian 13 root whose
# Docker 26 injects CDI devices (scripts/docker26-root.sh).
TEST_DEPS=(
  git catch2 clang clang-format pciutils libpci-dev libvalijson-dev
  golang-github-container-orchestrated-devices-container-device-interface-dev
  podman runc busybox-static systemd docker.io prometheus shellcheck lintian
  cloud-init python3-yaml ansible-core ansible-lint python3-apt zsh
  golang-go golang-github-docker-docker-dev debootstrap
)

install_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

build() {  # build DIR BUILD_TYPE [cmake args...]
  local dir=$1 type=$2; shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null
  cmake --build "$dir" --parallel "$(nproc)"
}

check_format() {
  git ls-files -- '*.cc' '*.h' '*.c' | xargs clang-format --dry-run --Werror
  echo "clang-format: every source file is formatted"
}

case "${1:-}" in
  main)
    install_packages "${BUILD_DEPS[@]}"
    build build Release -DRGPU_BUILD_TESTS=OFF
    ./build/cli/rediacc-gpu setup --install-nvidia-toolkit=auto
    ./build/cli/rediacc-gpu list
    ;;
  test)
    install_packages "${BUILD_DEPS[@]}" "${TEST_DEPS[@]}"
    check_format
    # Debian 13's Docker 26 (CDI), Compose and buildx in a cached debootstrap root.
    docker26_root=$(bash scripts/docker26-root.sh)
    # Warnings are errors here (RGPU_WERROR), never in a packager's build. GCC Release runs every
    # test; GCC with AddressSanitizer + UBSan runs them again; clang Debug must build everything.
    build build Release -DRGPU_WERROR=ON -DRGPU_DOCKER26_ROOT="$docker26_root"
    (cd build && ctest --output-on-failure --timeout 300)
    CC=clang CXX=clang++ build build-clang Debug -DRGPU_WERROR=ON
    build build-asan RelWithDebInfo -DRGPU_WERROR=ON -DRGPU_SANITIZE=ON -DRGPU_DOCKER26_ROOT="$docker26_root"
    (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure --timeout 300)
    ;;
  *)
    echo "usage: bash scripts/setup.sh main|test" >&2
    exit 2
    ;;
esac
