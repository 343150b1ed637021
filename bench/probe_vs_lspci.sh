#!/usr/bin/env bash
# Times `rediacc-gpu probe` against `lspci -nn -k` reading the same sysfs tree, alternated in one
# run, on every 8-GPU fixture (each among ~200 other PCI devices) and on this machine; then how
# the probe's cost grows with an MI300X's compute partitions (8 cards: 1, 2, 4, 8 per card).
# Prints each median, the ratio probe/lspci, and the probe's system calls when strace is there.
# Target: ratio <= 0.5 everywhere.
# Usage: bench/probe_vs_lspci.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
command -v lspci >/dev/null || { echo "bench: lspci not found; install pciutils" >&2; exit 1; }

syscalls() {  # syscalls ROOT: the probe's system calls, or "-" without strace
  command -v strace >/dev/null || { echo "-"; return; }
  strace -f -c -o "$work/strace.txt" "$tool" probe --root "$1" >/dev/null 2>&1
  awk '$NF == "total" { print $(NF-2) }' "$work/strace.txt"
}

compare() {  # compare LABEL ROOT
  local label=$1 root=$2 t0 i
  : >"$work/probe.ns"; : >"$work/lspci.ns"
  for ((i = 0; i < rounds; i++)); do
    t0=$(now_ns); "$tool" probe --root "$root" >/dev/null 2>&1; echo $(($(now_ns) - t0)) >>"$work/probe.ns"
    t0=$(now_ns); lspci -nn -k -A linux-sysfs -O "sysfs.path=${root%/}/sys/bus/pci" >/dev/null 2>&1
    echo $(($(now_ns) - t0)) >>"$work/lspci.ns"
  done
  local p l calls
  p=$(median <"$work/probe.ns"); l=$(median <"$work/lspci.ns")
  calls=$(syscalls "$root")
  awk -v label="$label" -v p="$p" -v l="$l" -v n="$rounds" -v calls="$calls" 'BEGIN {
    printf "%-34s probe %6.2f ms   lspci -nn -k %6.2f ms   ratio %.2f   syscalls %5s   (median of %d each)\n",
           label, p/1e6, l/1e6, p/l, calls, n }'
}

for machine in dgx-h100 dgx-h100-procfs mi210-x8 mi300x-x8-cpx mixed-x8; do
  "$maker" "$machine" "$work/$machine"
done
compare "8x H100, NVML (dgx-h100)" "$work/dgx-h100"
compare "8x H100, procfs (dgx-h100-procfs)" "$work/dgx-h100-procfs"
compare "8x MI210 + KFD (mi210-x8)" "$work/mi210-x8"
compare "8x MI300X CPX, 64 partitions" "$work/mi300x-x8-cpx"
compare "mixed Intel/NVIDIA/AMD (mixed-x8)" "$work/mixed-x8"
compare "this machine (--root /)" "/"

echo "growth with compute partitions (8x MI300X):"
for mode in spx dpx qpx; do "$maker" "mi300x-x8-$mode" "$work/mi300x-x8-$mode"; done
for mode in spx dpx qpx cpx; do
  compare "  ${mode^^} ($(ls "$work/mi300x-x8-$mode/sys/class/kfd/kfd/topology/nodes" | wc -l) KFD nodes)" \
    "$work/mi300x-x8-$mode"
done
