#!/usr/bin/env bash
# Rebuilding every repository's CDI view after /etc/cdi/nvidia.yaml changes (a driver update, a
# boot), for REPOS repositories (default 500) that each hold an NVIDIA name and a render node, on
# the two-H100 fixture. Peer, in the same run: copying the machine's whole /etc/cdi into as many
# directories with cp (no filtering, no atomic writes), what any view costs at least in files.
# Prints the medians, the ratio, and the target (issue #24: every view rebuilt in <= 1 s).
# Usage: bench/views_rebuild.sh [BUILD_DIR] [ROUNDS] [REPOS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
rounds=${2:-5}
repos=${3:-500}
"$maker" two-nvidia-nvml "$work/root"
"$tool" cdi generate --root "$work/root" >/dev/null
python3 - "$work/root/etc/rediacc/gpu/grants.json" "$repos" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
grants = []
for i in range(n):
    for device in ("nvidia.com/gpu=%d" % (i % 2), "rediacc.io/dri=renderD%d" % (128 + i % 2)):
        grants.append({"repo": "repo%04d" % i, "device": device, "exclusive": False,
                       "granted_at": "2026-12-01T00:00:00Z"})
grants.sort(key=lambda g: (g["repo"], g["device"]))
json.dump({"schema": 1, "grants": grants}, open(path, "w"), indent=2)
PY
"$tool" cdi views --root "$work/root" >/dev/null  # every view made once
spec="$work/root/etc/cdi/nvidia.yaml"
: >"$work/views.ns"; : >"$work/cp.ns"
for ((i = 0; i < rounds; i++)); do
  # The toolkit regenerates the spec: a new variable in its own edits changes every NVIDIA view's
  # copy. (Not a new device node: a node that is not on the machine makes the name's hardware
  # unreadable, and views leave such a name out.)
  echo "# regenerated $i" >>"$spec"
  sed -i "s|^  - NVIDIA_VISIBLE_DEVICES=void$|  - NVIDIA_VISIBLE_DEVICES=void\n  - RGPU_REGENERATED=$i|" "$spec"
  t0=$(now_ns); "$tool" cdi views --root "$work/root" >"$work/changed"; echo $(($(now_ns) - t0)) >>"$work/views.ns"
  [ "$(grep -c '^write .*/nvidia.yaml$' "$work/changed")" = "$repos" ] || { echo "bench: not every view was rewritten" >&2; exit 1; }
  rm -rf "$work/copies"; mkdir -p "$work/copies"
  t0=$(now_ns)
  for ((r = 0; r < repos; r++)); do cp -r "$work/root/etc/cdi" "$work/copies/$r"; done
  echo $(($(now_ns) - t0)) >>"$work/cp.ns"
done
v=$(median <"$work/views.ns"); c=$(median <"$work/cp.ns")
awk -v v="$v" -v c="$c" -v n="$rounds" -v r="$repos" 'BEGIN {
  printf "views of %d repositories after nvidia.yaml changed (median of %d): cdi views %.0f ms, cp -r of /etc/cdi %.0f ms, ratio %.2f (target: views <= 1000 ms)\n", r, n, v/1e6, c/1e6, v/c }'
