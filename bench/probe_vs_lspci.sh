#!/usr/bin/env bash
# Times `rediacc-gpu probe` against `lspci -nn -k` reading the same sysfs tree, alternated in one
# run, on the largest fixture (8x H100 among ~210 PCI devices) and on this machine.
# Prints each median and the ratio probe/lspci. Target: ratio <= 1.0 (probe no slower).
# Usage: bench/probe_vs_lspci.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
command -v lspci >/dev/null || { echo "bench: lspci not found; install pciutils" >&2; exit 1; }
"$maker" dgx-h100 "$work/dgx"

compare() {  # compare LABEL ROOT
  local label=$1 root=$2 t0 i
  : >"$work/probe.ns"; : >"$work/lspci.ns"
  for ((i = 0; i < rounds; i++)); do
    t0=$(now_ns); "$tool" probe --root "$root" >/dev/null 2>&1; echo $(($(now_ns) - t0)) >>"$work/probe.ns"
    t0=$(now_ns); lspci -nn -k -A linux-sysfs -O "sysfs.path=${root%/}/sys/bus/pci" >/dev/null 2>&1
    echo $(($(now_ns) - t0)) >>"$work/lspci.ns"
  done
  local p l
  p=$(median <"$work/probe.ns"); l=$(median <"$work/lspci.ns")
  awk -v label="$label" -v p="$p" -v l="$l" -v n="$rounds" 'BEGIN {
    printf "%-28s probe %7.2f ms   lspci -nn -k %7.2f ms   ratio %.2f   (median of %d each)\n", label, p/1e6, l/1e6, p/l, n }'
}

compare "largest fixture (dgx-h100)" "$work/dgx"
compare "this machine (--root /)" "/"
