#!/usr/bin/env bash
# What the udev rule starts when a render node comes or goes (rediacc-gpu cdi generate: probe,
# our specs, the inventory, every repository's view), timed from its start to the last view
# written, on the 8x MI300X CPX fixture (64 partitions, 200 filler PCI devices) where each of 64
# repositories holds one partition by its card-keyed name. Each round one partition's render
# node and KFD node vanish or come back. Peer, in the same run: `rediacc-gpu probe`, the machine
# read alone, which every refresh costs at least.
# Prints the medians, the ratio, and the target (issue #36: every view updated in <= 1 s).
# Usage: bench/hotplug_refresh.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
rounds=${2:-9}
root="$work/root"
"$maker" mi300x-x8-cpx "$root"
"$tool" cdi generate --root "$root" >/dev/null
i=0
for name in $("$tool" cdi list -o json --root "$root" |
  python3 -c 'import json,sys; print("\n".join(d["name"] for d in json.load(sys.stdin)["devices"] if d["name"].startswith("rediacc.io/amd=pci-") and "-cpx" in d["name"]))'); do
  "$tool" grant "repo$((i++))" --device "$name" --root "$root" >/dev/null
done
[ "$i" = 64 ] || { echo "bench: expected 64 partition names, granted $i" >&2; exit 1; }
# The last partition of the last card: its render node, its class link and its KFD node.
moving=("$root/sys/class/drm/renderD191" "$root/dev/dri/renderD191" "$root/sys/class/kfd/kfd/topology/nodes/65")
: >"$work/gen.ns"; : >"$work/probe.ns"
for ((r = 0; r < rounds; r++)); do
  for p in "${moving[@]}"; do
    if [ -e "$p" ] || [ -L "$p" ]; then mv "$p" "$p.gone"; else mv "$p.gone" "$p"; fi
  done
  t0=$(now_ns); "$tool" cdi generate --root "$root" >"$work/changed"; echo $(($(now_ns) - t0)) >>"$work/gen.ns"
  grep -q "/var/lib/rediacc/gpu/cdi/repo" "$work/changed" || { echo "bench: round $r updated no view" >&2; exit 1; }
  t0=$(now_ns); "$tool" probe --root "$root" >/dev/null; echo $(($(now_ns) - t0)) >>"$work/probe.ns"
done
g=$(median <"$work/gen.ns"); p=$(median <"$work/probe.ns")
awk -v g="$g" -v p="$p" -v n="$rounds" 'BEGIN {
  printf "hot-plug refresh on 8x MI300X CPX, 64 repositories (median of %d): cdi generate %.0f ms, probe %.0f ms, ratio %.2f (target: every view updated <= 1000 ms)\n", n, g/1e6, p/1e6, g/p }'
