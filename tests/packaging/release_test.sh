#!/usr/bin/env bash
# The release (scripts/release.sh's dist/): exactly its seven files with their checksums; each
# executable needs glibc alone (2.36 or older) and loads NVML only by dlopen; the packages carry
# that very file; the .deb depends on libc6 alone and installs with dpkg -i on a bare Debian 13;
# the .rpm requires glibc's libraries and hwdata alone, ships the units where Fedora, Oracle Linux
# and openSUSE keep them and starts nothing. Then the x86_64 executable, run inside bare Debian 12,
# 13 and unstable roots, and the aarch64 one, run under qemu-user with Debian's arm64 C library,
# answer exactly as the ordinary build does: inventories, CDI specs and names, grants, and the
# admission decisions over both request corpora, on several fixture machines.
# Usage: tests/packaging/release_test.sh BUILD_DIR DIST ROOT12 ROOT13 ROOT_UNSTABLE
source "$(dirname "$0")/common.sh"
# This test never installs the package on this machine (only inside its copies of the bare roots),
# so it never removes it either: common.sh's exit trap would, and took the package from under the
# Ansible test running beside it (which holds the dpkg lock this one does not need).
trap 'rm -rf "$work"' EXIT
dist=$(cd "$2" && pwd)
roots=("$3" "$4" "$5")
src=$(cd "$(dirname "$0")/../.." && pwd)
ordinary=$build/cli/rediacc-gpu
version=$("$ordinary" --version | awk '{print $2}')

# --- the files -------------------------------------------------------------------------------
expected=$(printf '%s\n' "rediacc-gpu-$version-1.aarch64.rpm" "rediacc-gpu-$version-1.x86_64.rpm" \
  "rediacc-gpu-$version-linux-aarch64" "rediacc-gpu-$version-linux-x86_64" \
  "rediacc-gpu_${version}_amd64.deb" "rediacc-gpu_${version}_arm64.deb" SHA256SUMS | LC_ALL=C sort)
actual=$(find "$dist" -mindepth 1 -maxdepth 1 -printf '%f\n' | LC_ALL=C sort)
[[ $actual == "$expected" ]] || fail "dist/ holds $(tr '\n' ' ' <<<"$actual"), not $(tr '\n' ' ' <<<"$expected")"
(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match dist/"
[[ $(awk '{print $2}' "$dist/SHA256SUMS" | LC_ALL=C sort) == "$(grep -v '^SHA256SUMS$' <<<"$expected")" ]] ||
  fail "SHA256SUMS does not cover exactly the six release files"
echo "dist: the seven files, SHA256SUMS verified"

digest() { sha256sum "$1" | cut -d' ' -f1; }
# arch CPU DEB_ARCH ELF_MACHINE LOADER
check_executable() {
  local cpu=$1 machine=$2 loader=$3 exe=$dist/rediacc-gpu-$version-linux-$1
  [[ -x $exe ]] || fail "$exe is not executable"
  readelf -h "$exe" | grep -q "Machine:.*$machine" || fail "$exe is not a $machine executable"
  local needed
  needed=$(readelf -d "$exe" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | LC_ALL=C sort | tr '\n' ' ')
  local lib
  for lib in $needed; do
    [[ $lib == libc.so.6 || $lib == libm.so.6 || $lib == "$loader" ]] ||
      fail "$exe needs $lib at run time (only glibc's libraries are allowed): NEEDED $needed"
  done
  readelf -l "$exe" | grep -q "interpreter: /lib.*/$loader" || fail "$exe's loader is not $loader"
  local newest
  newest=$(readelf -V --wide "$exe" | grep -o 'GLIBC_2\.[0-9]*' | sed 's/GLIBC_2\.//' | sort -n | tail -n 1)
  ((newest <= 36)) || fail "$exe uses glibc 2.$newest symbols: newer than Debian 12's 2.36"
  grep -q libnvidia-ml.so.1 "$exe" || fail "$exe does not name libnvidia-ml.so.1 (NVML is loaded by dlopen)"
  local symbols  # read whole: grep -q would stop readelf mid-write, a failure under pipefail
  symbols=$(readelf --dyn-syms --wide "$exe")
  grep -q ' dlopen@' <<<"$symbols" || fail "$exe does not call dlopen"
  echo "$cpu: needs $needed; newest glibc symbol 2.$newest; NVML by dlopen"
}
check_executable x86_64 X86-64 ld-linux-x86-64.so.2
check_executable aarch64 AArch64 ld-linux-aarch64.so.1

# --- the packages ----------------------------------------------------------------------------
for pair in amd64:x86_64 arm64:aarch64; do
  deb_arch=${pair%%:*} cpu=${pair##*:}
  deb=$dist/rediacc-gpu_${version}_$deb_arch.deb rpm=$dist/rediacc-gpu-$version-1.$cpu.rpm
  exe=$dist/rediacc-gpu-$version-linux-$cpu
  [[ $(dpkg-deb -f "$deb" Architecture) == "$deb_arch" ]] || fail "$deb is not for $deb_arch"
  depends=$(dpkg-deb -f "$deb" Depends)
  [[ $depends =~ ^libc6\ \(\>=\ 2\.[0-9]+\)$ ]] || fail "$deb depends on more than libc6: $depends"
  [[ $(dpkg-deb -f "$deb" Recommends) == pci.ids ]] || fail "$deb does not recommend pci.ids"
  lintian --fail-on error "$deb" >"$work/lintian.log" 2>&1 || { cat "$work/lintian.log" >&2; fail "lintian: errors in $deb"; }
  mkdir -p "$work/deb-$cpu" "$work/rpm-$cpu"
  dpkg-deb -x "$deb" "$work/deb-$cpu"
  [[ $(digest "$work/deb-$cpu/usr/bin/rediacc-gpu") == "$(digest "$exe")" ]] ||
    fail "$deb carries another file than $exe"

  [[ $(rpm -qp --qf '%{ARCH}' "$rpm" 2>/dev/null) == "$cpu" ]] || fail "$rpm is not for $cpu"
  while read -r req; do
    case $req in
      hwdata | /bin/sh | rpmlib\(* | libc.so.6* | libm.so.6* | ld-linux-*.so.* | rtld\(GNU_HASH\)) ;;
      *) fail "$rpm requires $req: only glibc's libraries and hwdata are allowed" ;;
    esac
  done < <(rpm -qp --requires "$rpm" 2>/dev/null)
  files=$(rpm -qp --list "$rpm" 2>/dev/null)
  for f in /usr/bin/rediacc-gpu /usr/lib/systemd/system/rediacc-gpu-refresh.service \
    /usr/lib/systemd/system/rediacc-gpu-authz@.socket /usr/lib/systemd/system/rediacc-gpu-authz@.service \
    /usr/lib/udev/rules.d/90-rediacc-gpu.rules; do
    grep -qx "$f" <<<"$files" || fail "$rpm does not ship $f"
  done
  ! grep -q lintian <<<"$files" || fail "$rpm ships Debian's lintian override"
  ! grep -qx '/usr/lib/systemd/system\|/usr/lib/udev/rules.d\|/usr/bin' <<<"$files" ||
    fail "$rpm claims a directory the system owns"
  scripts=$(rpm -qp --scripts "$rpm" 2>/dev/null)
  ! grep -Eq 'systemctl +(--[a-z]+ +)*(enable|start|restart)|udevadm' <<<"$scripts" ||
    fail "$rpm's scripts enable or start something: $scripts"
  (cd "$work/rpm-$cpu" && rpm2cpio "$rpm" | cpio -idm --quiet)
  [[ $(digest "$work/rpm-$cpu/usr/bin/rediacc-gpu") == "$(digest "$exe")" ]] ||
    fail "$rpm carries another file than $exe"
  rpmlint -c "$src/packaging/rpmlint.toml" "$rpm" >"$work/rpmlint.log" 2>&1 ||
    { cat "$work/rpmlint.log" >&2; fail "rpmlint: errors in $rpm"; }
  echo "$cpu: .deb and .rpm carry the tested file; Depends: $depends; rpm requires glibc and hwdata only"
done

# --- run where nothing else is ---------------------------------------------------------------
# A copy of each bare root, so the cached one stays bare.
for i in 0 1 2; do
  mkdir -p "$work/root$i"
  cp -a "${roots[$i]}/." "$work/root$i/"
done

# The .deb on a bare Debian 13 (roots[1]): dpkg -i, the binary runs, dpkg -r.
cp "$dist/rediacc-gpu_${version}_amd64.deb" "$work/root1/tmp/"
chroot "$work/root1" dpkg -i "/tmp/rediacc-gpu_${version}_amd64.deb" >"$work/dpkg.log" 2>&1 ||
  { cat "$work/dpkg.log" >&2; fail "dpkg -i of the .deb fails on a bare Debian 13"; }
[[ $(chroot "$work/root1" /usr/bin/rediacc-gpu --version) == "$("$ordinary" --version)" ]] ||
  fail "the installed .deb's binary does not answer --version as the ordinary build does"
chroot "$work/root1" dpkg -r rediacc-gpu >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log" >&2; fail "dpkg -r fails"; }
echo "deb: installs with dpkg -i on a bare Debian 13, runs, removes"

# transcript RUN MACHINE: every command the comparison covers, run by RUN (a command prefix) on
# MACHINE (a fixture root path as RUN sees it, the same text for every RUN), and what they left.
transcript_raw() {
  local run m=$2 hostm=$3
  read -ra run <<<"$1"
  step() {
    local rc=0
    echo "\$ $*"
    "$@" 2>&1 || rc=$?
    echo "[exit $rc]"
  }
  local r=(--root "$m")
  step "${run[@]}" probe "${r[@]}"
  step "${run[@]}" cdi generate "${r[@]}"
  step "${run[@]}" cdi list "${r[@]}"
  step "${run[@]}" list "${r[@]}" -o json
  local name
  name=$("${run[@]}" cdi list "${r[@]}" 2>/dev/null | awk 'NR == 2 {print $1}' || true)
  if [ -n "$name" ]; then
    step "${run[@]}" grant "${r[@]}" team-a --device "$name"
    step "${run[@]}" grant "${r[@]}" team-b --device "$name" --exclusive
  fi
  step "${run[@]}" grants "${r[@]}" -o json
  step "${run[@]}" admit "${r[@]}" --repo team-a --jsonl <"$src/tests/fixtures/docker-cli/corpus.jsonl"
  step "${run[@]}" admit "${r[@]}" --repo team-a --jsonl --host-policy rediacc \
    <"$src/tests/fixtures/docker-cli/rediacc-corpus.jsonl"
  # What they wrote; the clock (every timestamp) and lock holders (a PID) aside.
  (cd "$hostm" && find etc var -type f ! -name '*.lock' 2>/dev/null | LC_ALL=C sort | while read -r f; do
    echo "== $f"; cat "$f"; done)
}
transcript() { transcript_raw "$@" | sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/TIME/g'; }

MACHINES=(two-nvidia-nvml mi300x-x8-cpx wsl2-nvidia mixed-workstation no-gpu)
# make_machine NAME DIR: the fixture, with this host's pci.ids where Debian keeps it, or where
# Fedora, Oracle Linux and openSUSE keep it (hwdata) for every other machine, so every run reads
# the machine's own names, never the running system's (a bare root has none).
ids_place=/usr/share/misc/pci.ids
make_machine() {
  "$maker" "$1" "$2" >/dev/null
  mkdir -p "$2$(dirname "$ids_place")"
  cp /usr/share/misc/pci.ids "$2$ids_place"
}
fake_nvml_arm64=$work/libnvidia-ml.so.1.arm64
aarch64-linux-gnu-gcc -shared -fPIC -O1 -o "$fake_nvml_arm64" "$src/tests/support/fake_nvml.c" -ldl ||
  fail "cannot cross-build the fake NVML for aarch64"
compared=0
for machine in "${MACHINES[@]}"; do
  # The ordinary build, on the host, at the path the chroots (under their own root) and qemu use.
  base=$work/cmp
  rm -rf "$base"
  make_machine "$machine" "$base/m"
  transcript "$ordinary" "$base/m" "$base/m" | sed "s|$ordinary|rediacc-gpu|g" >"$work/ordinary.txt"
  { grep -q '"Allow":true' "$work/ordinary.txt" && grep -q '"Allow":false' "$work/ordinary.txt"; } ||
    fail "the corpora gave no allowed and refused requests on $machine: the comparison would prove little"

  for i in 0 1 2; do
    jail=$work/root$i
    rm -rf "$jail$base"
    make_machine "$machine" "$jail$base/m"
    cp "$dist/rediacc-gpu-$version-linux-x86_64" "$jail$base/rediacc-gpu"
    transcript "chroot $jail $base/rediacc-gpu" "$base/m" "$jail$base/m" |
      sed "s|chroot $jail $base/rediacc-gpu|rediacc-gpu|g" >"$work/release$i.txt"
    diff -u "$work/ordinary.txt" "$work/release$i.txt" >"$work/diff.txt" ||
      { head -60 "$work/diff.txt" >&2; fail "the x86_64 release answers otherwise than the ordinary build in ${roots[$i]} on $machine"; }
    rm -rf "${jail:?}$base"
  done

  rm -rf "$base"
  make_machine "$machine" "$base/m"
  find "$base/m" -name libnvidia-ml.so.1 -type f -exec cp "$fake_nvml_arm64" {} \;
  exe=$dist/rediacc-gpu-$version-linux-aarch64
  transcript "qemu-aarch64-static -L /usr/aarch64-linux-gnu $exe" "$base/m" "$base/m" |
    sed "s|qemu-aarch64-static -L /usr/aarch64-linux-gnu $exe|rediacc-gpu|g" >"$work/aarch64.txt"
  diff -u "$work/ordinary.txt" "$work/aarch64.txt" >"$work/diff.txt" ||
    { head -60 "$work/diff.txt" >&2; fail "the aarch64 release answers otherwise than the ordinary build on $machine"; }
  rm -rf "$base"
  compared=$((compared + $(grep -c '^\$ ' "$work/ordinary.txt")))
  if [[ $ids_place == /usr/share/misc/pci.ids ]]; then ids_place=/usr/share/hwdata/pci.ids; else ids_place=/usr/share/misc/pci.ids; fi
done
echo "release: $compared commands on ${#MACHINES[@]} machines answered identically by the ordinary build, the x86_64 executable in bare Debian 12, 13 and unstable, and the aarch64 one under qemu-user"
