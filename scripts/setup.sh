#!/usr/bin/env bash
# The two set-up commands of the README, on a fresh Debian 12 machine as root:
#   bash scripts/setup.sh main   installs the dependencies, builds, runs the main job here
#                                (setup --install-nvidia-toolkit=auto, then list)
#   bash scripts/setup.sh test   installs the dependencies, builds, runs every test
#                                (clang-format; the release; GCC Release runs every test, the
#                                release's included; clang with AddressSanitizer + UBSan runs
#                                those that run our code again), then prints each phase's time
# and, not a set-up command, the release (scripts/release.sh):
#   bash scripts/setup.sh release  installs what it needs and writes dist/
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
# lintian, shellcheck, cloud-init, ansible-core and ansible-lint check what contrib/ and the
# package ship (zsh runs the completion script through bashcompinit; clang builds it all once more) (python3-apt lets Ansible's apt module install the .deb); golang-go and dockerd's own
# Go source build the oracle the gate is fuzzed against; debootstrap makes the Debian 13 and unstable roots (xz-utils unpacks Docker 26's source there)
# whose Docker 26 and 28.5 inject CDI devices (scripts/docker-root.sh); ccache keeps compiled objects between
# runs and libclang-rt-14-dev is clang's sanitizer runtime; systemd-container's systemd-nspawn boots
# the Docker 26 root and this machine's own userland with systemd as PID 1, whose Docker talks
# to it over D-Bus (tests/e2e/systemd_reload_test.sh).
TEST_DEPS=(
  git catch2 clang clang-format pciutils libpci-dev libvalijson-dev
  golang-github-container-orchestrated-devices-container-device-interface-dev
  podman runc busybox-static systemd docker.io prometheus shellcheck lintian
  cloud-init python3-yaml ansible-core ansible-lint python3-apt zsh
  golang-go golang-github-docker-docker-dev debootstrap xz-utils ccache libclang-rt-14-dev
  systemd-container dbus
)

# The release (scripts/release.sh): Debian's cross toolchain and qemu-user for aarch64 (the build
# runs the arm64 executable to render the man page), rpmbuild; its libraries' static archives come
# with BUILD_DEPS (arm64's are unpacked from their packages by the script).
RELEASE_DEPS=(crossbuild-essential-arm64 qemu-user-static rpm dpkg-dev)
# The release's test: rpm2cpio and cpio unpack the .rpm, rpmlint checks it.
RELEASE_TEST_DEPS=(rpm2cpio cpio rpmlint)

install_packages() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

build() {  # build DIR BUILD_TYPE [cmake args...]
  local dir=$1 type=$2; shift 2
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$type" "$@" >/dev/null &&
  cmake --build "$dir" --parallel "$(nproc)"
}

check_format() {
  git ls-files -- '*.cc' '*.h' '*.c' | xargs clang-format --dry-run --Werror
  echo "clang-format: every source file is formatted"
}

# Every test run starts from a fresh clone, so what can be kept between runs lives in one cache
# (like the Docker 26 root): ccache's objects, hit from a clone at any path (paths under the clone
# are hashed relative to it, the working directory not at all), and Go's build cache.
use_test_cache() {
  local cache=${RGPU_TEST_CACHE:-/var/cache/rediacc-gpu-tests}
  mkdir -p "$cache/ccache" "$cache/go-build"
  export CCACHE_DIR=$cache/ccache CCACHE_BASEDIR=$PWD CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=6G
  # The release's downloads from the archive (simdjson's source, the arm64 archives).
  export RGPU_RELEASE_CACHE=$cache/release
  export CCACHE_COMPILERCHECK=content
  # The build precompiles its heaviest headers (cmake/precompiled_headers.cmake); ccache caches
  # such builds only when told these differences do not matter.
  export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
  # RGPU_RELATIVE_SOURCE_PATHS: the test batches' __FILE__ (Catch2's) no longer carries the clone's
  # path, which had every one of them compiled again by each run (30 objects of GCC's and clang's).
  LAUNCHER=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache
            -DRGPU_GO_CACHE="$cache/go-build" -DRGPU_RELATIVE_SOURCE_PATHS=ON)
  ccache --zero-stats >/dev/null
}

# phase NAME COMMAND...: runs COMMAND, and keeps its time for the table printed at the end (also
# when a phase fails, which is then named).
PHASES=()
CURRENT=
phase() {
  local name=$1 start=$SECONDS; shift
  CURRENT=$name
  "$@"
  PHASES+=("$(printf '%-34s %6ss' "$name" $((SECONDS - start)))")
  CURRENT=
}
print_phases() {
  local rc=$?
  # A failure while a job runs beside: it is left to finish (each root is cached whole or not at
  # all), not cut off half-made.
  local pid
  for pid in "${beside_pid[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo
  echo "phase times (this run: ${SECONDS}s)"
  printf '  %s\n' "${PHASES[@]}"
  [ -z "$CURRENT" ] || printf '  %-34s failed\n' "$CURRENT"
  if [ "${#LAUNCHER[@]}" -gt 0 ]; then
    ccache --print-stats 2>/dev/null | awk -F'\t' '$1 ~ /^(direct_cache_hit|preprocessed_cache_hit|cache_miss)$/ { printf "%s=%s ", $1, $2 }
      END { print "" }' | sed 's/^/  ccache: /'
  fi
  print_test_count
  return "$rc"
}
LAUNCHER=()

# beside SLOT NAME COMMAND...: runs COMMAND in the background, its output kept in a log, at a lower
# priority, so that what runs in front (compilers, tests) keeps the CPU it asks for and this job
# takes what is left (the archive's and the disk's waits, the tests' sleeps). One job per SLOT.
# await_beside SLOT waits for it; its own time and the wait go in the table as one phase.
declare -A beside_pid=() beside_name=() beside_dir=()
beside() {
  local slot=$1 dir; shift
  beside_name[$slot]=$1; shift
  dir=$(mktemp -d)
  beside_dir[$slot]=$dir
  (
    start=$SECONDS rc=0
    renice -n 10 -p "$BASHPID" >/dev/null
    "$@" >"$dir/log" 2>&1 || rc=$?
    echo $((SECONDS - start)) >"$dir/seconds"
    exit "$rc"
  ) &
  beside_pid[$slot]=$!
}
await_beside() {  # await_beside SLOT WHAT_RAN_IN_FRONT
  local slot=$1 waited=$SECONDS rc=0 dir=${beside_dir[$1]}
  CURRENT=${beside_name[$slot]}
  wait "${beside_pid[$slot]}" || rc=$?
  unset "beside_pid[$slot]"
  [ "$rc" = 0 ] || { tail -n 60 "$dir/log" >&2; return 1; }
  CURRENT=
  PHASES+=("$(printf '%-34s %6ss (beside %s; then waited %ss)' "${beside_name[$slot]}" "$(cat "$dir/seconds")" \
    "$2" $((SECONDS - waited)))")
}
# The Docker 26 and 28.5 roots and the bare Debian 12, 13 and unstable roots (where the release's
# executable must run alone), made beside the release: debootstrap waits mostly on the archive and
# the disk, the release's compilers on the CPU. Each Docker root starts from a copy of its suite's
# bare root (13's, unstable's). The 28.5 root, the longest (from nothing it took 23 minutes: Go,
# dockerd's source, BuildKit's frontend compiled), is made beside the others, since debootstrap
# fetches one package at a time. Their folders, one per line, to FILE: Docker 26's, 28.5's, then
# the bare ones in that order (asked for once both sides are done: each side makes its own).
make_roots() {
  local others
  (
    bash scripts/docker-root.sh 26 >"$1.26" && bash scripts/minimal-root.sh 12 >/dev/null
  ) &
  others=$!
  bash scripts/docker-root.sh 28 >"$1.28" || { wait "$others"; return 1; }
  wait "$others" || return 1
  for version in 12 13 unstable; do bash scripts/minimal-root.sh "$version" || return 1; done >"$1.minimal"
  cat "$1.26" "$1.28" "$1.minimal" >>"$1"
}
# What the release builds with is installed first, the roots made beside it; the tests' packages
# (most of the install: Go, Docker's source, podman, clang, Ansible) are then installed beside the
# release's compile, which has the CPU that apt's downloads and dpkg's unpacking leave idle.
install_beside_roots() {
  install_packages debootstrap xz-utils
  beside roots "Docker 26, 28.5 and bare roots" make_roots "$roots_file"
  install_packages "${BUILD_DEPS[@]}" "${RELEASE_DEPS[@]}" ccache git
}
# The tests' packages, installed beside the release; a mark for clang's build, which waits for them.
install_tests() {
  install_packages "${TEST_DEPS[@]}" "${RELEASE_TEST_DEPS[@]}" && touch "$tests_installed"
}
# The roots' folders, once make_roots wrote all five.
read_roots() {
  mapfile -t folders <"$roots_file"
  docker26_root=${folders[0]} docker28_root=${folders[1]}
  minimal_roots="${folders[2]};${folders[3]};${folders[4]}"
}
# waits_for FILE LINES PID: until FILE holds LINES lines; fails as soon as PID, which writes it,
# is gone without doing so.
waits_for() {
  until [ -e "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; do
    kill -0 "$3" 2>/dev/null || { [ -e "$1" ] && [ "$(wc -l <"$1")" -ge "$2" ]; } || return 1
    sleep 2
  done
}
# clang's build, beside everything from the release on, on what the CPU leaves (from nothing, the
# release's single-threaded stretches, the wait for the roots, GCC's tests' waits on daemons): as
# soon as the tests' packages (clang's among them) are in, what needs no root, at a priority below
# the roots' own making (the longer of the jobs beside); then, once the roots are made, the rest.
clang_build() {
  # (A job beside runs with errexit off, as the left side of ||: each step says when it failed.)
  # clang allocates through glibc's malloc: told to back it with transparent huge pages (where the
  # kernel offers them on request), it compiles a test batch in a fifth less time here (24.9 s ->
  # 19.3 s), page faults and TLB misses being what a virtual machine makes dear. (GCC's compiler
  # keeps its own pages: no change measured there.)
  export GLIBC_TUNABLES=glibc.malloc.hugetlb=1
  waits_for "$tests_installed" 0 "${beside_pid[tests]}" || { echo "the tests' packages were not installed" >&2; return 1; }
  (renice -n 15 -p "$BASHPID" >/dev/null && build build-asan Debug "${clang_flags[@]}") || return 1
  waits_for "$roots_file" 5 "${beside_pid[roots]}" || { echo "the roots were not made" >&2; return 1; }
  read_roots
  # RGPU_REQUIRE_DOCKER_ROOTS, as GCC's.
  build build-asan Debug "${clang_flags[@]}" -DRGPU_REQUIRE_DOCKER_ROOTS=ON \
    -DRGPU_DOCKER26_ROOT="$docker26_root" -DRGPU_DOCKER28_ROOT="$docker28_root"
}
# Each ctest run's output is also kept in its build folder, for the closing count of tests. GCC's
# run: two tests per core (most wait on processes; clang's build beside takes what they leave).
# clang's: one slot per core and one per chain of real daemons, which start first there
# (tests/CMakeLists.txt): each chain runs one test at a time, mostly waiting on its daemon, so the
# cores stay with the rest; its two chains are Docker 28.5's and this machine's dockerd.
test_release() { (cd build && ctest --output-on-failure --timeout 300 -j "$((2 * $(nproc)))" | tee ctest.log); }
test_sanitized() {
  (cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --output-on-failure --timeout 300 -j "$(($(nproc) + 2))" | tee ctest.log)
}
# "tests: N passed, N failed" over both runs, from ctest's own summary lines: the last line.
print_test_count() {
  cat build/ctest.log build-asan/ctest.log 2>/dev/null |
    awk '/tests failed out of/ { failed += $(NF - 5); total += $NF; seen = 1 }
         END { if (seen) printf "tests: %d passed, %d failed\n", total - failed, failed }'
}

case "${1:-}" in
  main)
    install_packages "${BUILD_DEPS[@]}"
    build build Release -DRGPU_BUILD_TESTS=OFF
    ./build/cli/rediacc-gpu setup --install-nvidia-toolkit=auto
    ./build/cli/rediacc-gpu list
    ;;
  test)
    rm -f build/ctest.log build-asan/ctest.log
    trap print_phases EXIT
    # Debian 13's Docker 26 and unstable's 28.5 (CDI), Compose and buildx in cached debootstrap roots,
    # made beside the rest of the install and the release: debootstrap first, which makes them.
    roots_file=$(mktemp)
    tests_installed=$(mktemp -u)
    phase "install packages: build, release" install_beside_roots
    beside tests "install packages: tests" install_tests
    use_test_cache
    # Warnings are errors here (RGPU_WERROR), never in a packager's build. GCC builds everything
    # optimised and runs every test; clang builds everything again with AddressSanitizer + UBSan
    # and runs the tests that run our code again (all but the packages', the manual's and Docker
    # 26's chain, which 28.5's repeats: tests/CMakeLists.txt says why): both compilers build it all.
    # RGPU_BUILD_TESTS=ON outright: the main job configured the same build folder without tests.
    # Both compile each library's files in batches (RGPU_UNITY_BUILD), as the release does.
    gcc_flags=(-DRGPU_BUILD_TESTS=ON -DRGPU_WERROR=ON -DRGPU_UNITY_BUILD=ON "${LAUNCHER[@]}")
    # clang: -O1 and line tables only, what the sanitizers' reports need, at a fraction of -O2 -g's
    # cost. No precompiled headers: clang's record the clone's absolute path, so ccache would find
    # none of a clone elsewhere's objects (GCC's are hashed as preprocessed text, and hit).
    # Its executables are linked without PIE: the sanitized test binary carries 1.1 million
    # relocations that every one of its 500 processes would apply at start (268 ms -> 241 ms a start).
    clang_flags=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_EXE_LINKER_FLAGS=-no-pie
      -DRGPU_UNITY_BUILD=ON -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON
      -DCMAKE_C_FLAGS_DEBUG="-O1 -gline-tables-only" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -gline-tables-only"
      -DRGPU_BUILD_TESTS=ON -DRGPU_WERROR=ON -DRGPU_SANITIZE=ON "${LAUNCHER[@]}")
    beside clang "build: clang ASan+UBSan" clang_build
    # The release's seven files, tested by the GCC run below (packaging.release); warnings are
    # errors here too. Its x86_64 objects are the GCC build's below (same flags, same depth).
    phase "release: x86_64 and aarch64" bash scripts/release.sh dist -DRGPU_WERROR=ON "${LAUNCHER[@]}"
    await_beside tests "the release"
    phase "clang-format check" check_format
    # What needs no root is compiled while the roots are still being made: the roots' paths only
    # register tests and build the oracles from their Go source, and only the file that holds them
    # (tests/support/build_paths.cc) compiles again once they are given.
    phase "build: GCC Release, before the roots" build build Release "${gcc_flags[@]}"
    await_beside roots "the install, the release and GCC's build"
    read_roots
    # RGPU_REQUIRE_DOCKER_ROOTS: a root that is missing fails the configure, where a plain build
    # would leave out the tests that need it.
    phase "build: GCC Release" build build Release "${gcc_flags[@]}" -DRGPU_REQUIRE_DOCKER_ROOTS=ON \
      -DRGPU_DOCKER26_ROOT="$docker26_root" -DRGPU_DOCKER28_ROOT="$docker28_root" \
      -DRGPU_RELEASE_DIST="$PWD/dist" -DRGPU_MINIMAL_ROOTS="$minimal_roots"
    phase "tests: GCC Release" test_release
    await_beside clang "the release, GCC's builds and tests"
    phase "tests: clang ASan+UBSan" test_sanitized
    ;;
  release)
    install_packages "${BUILD_DEPS[@]}" "${RELEASE_DEPS[@]}"
    bash scripts/release.sh dist
    ;;
  *)
    echo "usage: bash scripts/setup.sh main|test|release" >&2
    exit 2
    ;;
esac
