# Shared by the packaging and contrib tests: a work dir removed at exit, the package built from
# this build tree, and install/remove of it on this machine (the tests run as root on CI).
# shellcheck shell=bash
set -euo pipefail
build=$(cd "$1" && pwd)
# shellcheck disable=SC2034  # used by the tests that source this file
maker=$build/tests/rgpu-make-fixture
work=$(mktemp -d)
# A test that installs the package removes it again, whatever happens in between.
trap 'remove_if_installed; rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# Builds the .deb into $work and prints its path.
build_deb() {
  (cd "$build" && cpack -G DEB -B "$work/pkg" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log" >&2; fail "cpack failed"; }
  ls "$work"/pkg/rediacc-gpu_*.deb
}

# A package left by an earlier interrupted run would make every check below meaningless.
remove_if_installed() {
  if dpkg-query -W -f '${Status}' rediacc-gpu 2>/dev/null | grep -q installed; then dpkg -r rediacc-gpu >/dev/null; fi
}
