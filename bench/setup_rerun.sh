#!/usr/bin/env bash
# Times a no-op re-run of `setup` on the NVIDIA fixture against the first run, with the
# recording fakes of the tests standing in for apt-get, dpkg-query and nvidia-ctk.
# Target: the no-op re-run under 20 ms, and far below the first run.
# Usage: bench/setup_rerun.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
"$maker" --fake-tools "$work/fakes"
export PATH="$work/fakes/bin:$PATH" RGPU_FAKE_DIR="$work/fakes"

: >"$work/first.ns"; : >"$work/rerun.ns"
for ((i = 0; i < rounds; i++)); do
  rm -rf "$work/root" "$work/fakes/installed"
  "$maker" two-nvidia-nvml "$work/root"
  printf 'ID=debian\nVERSION_ID="12"\n' >"$work/root/etc/os-release"
  t0=$(now_ns); "$tool" setup --root "$work/root" >/dev/null; echo $(($(now_ns) - t0)) >>"$work/first.ns"
  t0=$(now_ns); "$tool" setup --root "$work/root" >"$work/rerun.out"; echo $(($(now_ns) - t0)) >>"$work/rerun.ns"
  if grep -qE '^ +(write|remove) ' "$work/rerun.out"; then echo "bench: the re-run changed files" >&2; exit 1; fi
done
f=$(median <"$work/first.ns"); r=$(median <"$work/rerun.ns")
awk -v f="$f" -v r="$r" -v n="$rounds" 'BEGIN {
  printf "setup on the NVIDIA fixture: first run %.1f ms, no-op re-run %.1f ms, ratio %.2f (median of %d each; target re-run < 20 ms)\n", f/1e6, r/1e6, r/f, n }'
