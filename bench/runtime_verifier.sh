#!/usr/bin/env bash
# `docker start` of an existing container through the verifier in front of runc, against the same
# start with plain runc, alternated start by start on one real dockerd (this machine's docker.io),
# whose `runc` (first on its PATH, looked up anew by each shim) is switched between the two. The
# container is the verifier's hard case: BINDS (default 10) binds of the repository's own
# directories and two named volumes, each opened beneath its place and staged, and every engine on
# the machine read from /proc for the gate's guarded paths; BINDS=0 is a container with none.
# Prints both medians and verifier/plain (issue #77: at most 1.15).
# Runs in a mount namespace of its own: the policy, the view and the bind roots it makes are
# tmpfs there, never the machine's.
# Usage: bench/runtime_verifier.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
if [ -z "${RGPU_BENCH_UNSHARED:-}" ]; then
  exec env RGPU_BENCH_UNSHARED=1 unshare --mount --propagation private bash "$0" "$@"
fi
source "$(dirname "$0")/common.sh"
rounds=${2:-60}
docker=/usr/bin/docker
runc=$(command -v runc) || { echo "bench: runc not found; apt-get install runc" >&2; exit 1; }
command -v dockerd >/dev/null || { echo "bench: dockerd not found; apt-get install docker.io" >&2; exit 1; }
tool=$(realpath "$tool")
for dir in /etc/rediacc /var/lib/rediacc /srv/rediacc-gpu /run/rediacc-gpu; do
  mkdir -p "$dir" && mount -t tmpfs -o mode=0755 rgpu-bench "$dir"
done
mkdir -p /etc/rediacc/gpu /var/lib/rediacc/gpu/cdi/bench
echo '{"policy": "strict", "reason": "bench"}' >/etc/rediacc/gpu/host-policy.json
binds=()
nbinds=${BINDS:-10}
for i in $(seq "$nbinds"); do
  mkdir -p "/srv/rediacc-gpu/bench/d$i" && binds+=(-v "/srv/rediacc-gpu/bench/d$i:/d$i")
done
mkdir -p "$work/rt"
ln -s "$tool" "$work/rt/runc"
PATH="$work/rt:$PATH" REDIACC_GPU_REPO=bench dockerd --data-root "$work/data" --exec-root "$work/exec" \
  --host "unix://$work/docker.sock" --pidfile "$work/docker.pid" --iptables=false --bridge=none \
  --storage-driver=vfs >"$work/dockerd.log" 2>&1 &
daemon=$!
trap 'kill $daemon 2>/dev/null; while kill -0 $daemon 2>/dev/null; do sleep 0.1; done; rm -rf "$work"' EXIT
export DOCKER_HOST="unix://$work/docker.sock"
for _ in $(seq 300); do "$docker" version >/dev/null 2>&1 && break; sleep 0.2; done
mkdir -p "$work/rootfs/bin"
cp /bin/busybox "$work/rootfs/bin/" && ln -s busybox "$work/rootfs/bin/true"
tar -C "$work/rootfs" -c . | "$docker" import - img >/dev/null
"$docker" create --name bench "${binds[@]}" -v vol1:/v1 -v vol2:/v2 img true >/dev/null

use() { ln -sfn "$1" "$work/rt/runc"; }
# Both once first: the verifier's staging tmpfs is made at its first start, the image's layers read.
for target in "$tool" "$runc"; do
  use "$target"
  "$docker" start bench >/dev/null || { tail -5 "$work/dockerd.log" >&2; exit 1; }
  "$docker" wait bench >/dev/null
done
: >"$work/verifier.ns"; : >"$work/plain.ns"
for ((i = 0; i < rounds; i++)); do
  order=(verifier plain)
  ((i % 2)) && order=(plain verifier)
  for which in "${order[@]}"; do
    if [ "$which" = verifier ]; then use "$tool"; else use "$runc"; fi
    t0=$(now_ns)
    "$docker" start bench >/dev/null
    echo $(($(now_ns) - t0)) >>"$work/$which.ns"
    "$docker" wait bench >/dev/null
    # The shim deletes the exited container's runc state after docker wait returns: let it finish,
    # so that no start is timed against the last one's teardown.
    sleep 0.2
  done
done
v=$(median <"$work/verifier.ns"); p=$(median <"$work/plain.ns")
awk -v v="$v" -v p="$p" -v n="$rounds" -v b="$nbinds" 'BEGIN {
  printf "docker start, %d binds and 2 volumes (median of %d each): through the verifier %.2f ms, plain runc %.2f ms\n", b, n, v/1e6, p/1e6
  printf "  verifier/plain %.3f   (target <= 1.15)\n", v/p }'
