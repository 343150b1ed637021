#!/usr/bin/env bash
# What finding who uses the GPUs adds to `metrics` (issue #37: within 50 ms): on the 8x H100
# fixture with 2,000 fixture processes in /proc (each with 12 fds, /dev/null and a file; every
# tenth in a container holding one H100's /dev/nvidiaN, every fifth of those also a render node with
# DRM fdinfo), `metrics` against `metrics --no-usage` on the same machine, rotated in the same run.
# The fixture's fds are symlinks to host paths, each stat a full path walk: dearer than the kernel's
# own /proc links, which go straight to the open file. No repository daemon is configured, so no
# answer is waited for. Prints the medians, the difference and the target.
# Usage: bench/metrics_usage.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
rounds=${2:-15}
root="$work/root"
"$maker" dgx-h100 "$root"
"$tool" cdi generate --root "$root" >/dev/null
python3 - "$root" <<'PY'
import os, sys
root = sys.argv[1]
proc = os.path.join(root, "proc")
renders = sorted(n for n in os.listdir(os.path.join(root, "dev/dri")) if n.startswith("renderD"))
os.makedirs(os.path.join(root, "var/tmp"), exist_ok=True)
plain = os.path.join(root, "var/tmp/data")
open(plain, "w").close()
if not os.path.exists(os.path.join(root, "dev/null")):
    os.mknod(os.path.join(root, "dev/null"), 0o20666, os.makedev(1, 3))
for i in range(2000):
    d = os.path.join(proc, str(100000 + i))
    os.makedirs(os.path.join(d, "fd"))
    os.makedirs(os.path.join(d, "fdinfo"))
    with open(os.path.join(d, "comm"), "w") as f:
        f.write("worker\n")
    in_container = i % 10 == 0
    cgroup = "0::/system.slice/docker-%064x.scope\n" % i if in_container else "0::/user.slice/session-1.scope\n"
    with open(os.path.join(d, "cgroup"), "w") as f:
        f.write(cgroup)
    targets = [os.path.join(root, "dev/null"), plain] * 6
    if in_container:
        targets[0] = os.path.join(root, "dev/nvidia%d" % (i // 10 % 8))
        if i % 50 == 0 and renders:
            targets[1] = os.path.join(root, "dev/dri", renders[i // 50 % len(renders)])
            with open(os.path.join(d, "fdinfo/1"), "w") as f:
                f.write("drm-driver:\tnvidia-drm\ndrm-client-id:\t%d\ndrm-memory-vram:\t1024 KiB\n" % i)
    for fd, t in enumerate(targets):
        os.symlink(t, os.path.join(d, "fd", str(fd)))
PY
n=$("$tool" usage -o json --sample-ms 0 --root "$root" | python3 -c 'import json,sys; print(sum(len(g["processes"]) for g in json.load(sys.stdin)["gpus"]))')
[ "$n" -ge 200 ] || { echo "bench: usage found $n GPU processes, expected at least 200" >&2; exit 1; }
: >"$work/with.ns"; : >"$work/without.ns"
for ((r = 0; r < rounds; r++)); do
  t0=$(now_ns); "$tool" metrics --no-usage --root "$root" >/dev/null; echo $(($(now_ns) - t0)) >>"$work/without.ns"
  t0=$(now_ns); "$tool" metrics --root "$root" >/dev/null; echo $(($(now_ns) - t0)) >>"$work/with.ns"
done
w=$(median <"$work/with.ns"); o=$(median <"$work/without.ns")
awk -v w="$w" -v o="$o" -v n="$rounds" -v p="$n" 'BEGIN {
  printf "metrics on 8x H100 with 2,000 processes, %d on GPUs (median of %d): %.1f ms, with --no-usage %.1f ms, usage adds %.1f ms, ratio %.2f (target: adds <= 50 ms)\n", p, n, w/1e6, o/1e6, (w-o)/1e6, w/o }'
