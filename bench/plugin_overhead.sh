#!/usr/bin/env bash
# `docker create`, then `docker start` of a container that already exists, through a real dockerd
# with our authorization plugin, against one without a plugin and one with the floor of a plugin
# (bench/authz_floor_plugin.cc: allows every call without reading it), alternated in one run
# (ROUNDS each, default 200), with Debian's docker CLI. Prints each median, the ratio with/without
# (target, issue #17: <= 1.03 for create), how that splits into what any plugin costs
# (floor/without) and what ours costs above it (with/floor; issue #24: a start, which our plugin
# judges on the stored container it reads back from the daemon, <= 1.05 of the floor's).
# Usage: bench/plugin_overhead.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
rounds=${2:-200}
docker=/usr/bin/docker  # docker.io's, from the README's test command
command -v dockerd >/dev/null || { echo "bench: dockerd not found; apt-get install docker.io" >&2; exit 1; }
plugin=rgpu-bench-$$
floor_plugin="$build/bench/rgpu-authz-floor-plugin"
[ -x "$floor_plugin" ] || { echo "bench: $floor_plugin not found; build first" >&2; exit 1; }
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; done
  rm -f "/run/docker/plugins/$plugin-floor.sock"  # ours removes its own socket; the floor does not
  rm -rf "$work"
}
trap cleanup EXIT

"$maker" two-nvidia-nvml "$work/root"
"$tool" authz-plugin --repo web --root "$work/root" --socket "/run/docker/plugins/$plugin.sock" \
  --docker-host "unix://$work/with/docker.sock" 2>"$work/plugin.log" &
pids+=($!)
"$floor_plugin" "/run/docker/plugins/$plugin-floor.sock" &
pids+=($!)

start_daemon() {  # start_daemon NAME [ARGS...]: a private dockerd, waited for
  local d=$work/$1
  shift
  mkdir -p "$d"
  dockerd --data-root "$d/data" --exec-root "$d/exec" --host "unix://$d/docker.sock" --pidfile "$d/docker.pid" \
    --iptables=false --bridge=none --storage-driver=vfs "$@" >"$d/dockerd.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 300); do DOCKER_HOST="unix://$d/docker.sock" "$docker" version >/dev/null 2>&1 && return; sleep 0.2; done
  echo "bench: dockerd $d did not start" >&2
  exit 1
}
start_daemon with --authorization-plugin="$plugin"
start_daemon without
start_daemon floor --authorization-plugin="$plugin-floor"

mkdir -p "$work/rootfs/bin"
cp /bin/busybox "$work/rootfs/bin/" && ln -s busybox "$work/rootfs/bin/true"
# The gate refuses docker import (its body can hide a fromSrc URL): imported where no plugin is,
# and loaded from there.
tar -C "$work/rootfs" -c . | DOCKER_HOST="unix://$work/without/docker.sock" "$docker" import - img >/dev/null
for d in with floor; do
  DOCKER_HOST="unix://$work/without/docker.sock" "$docker" save img |
    DOCKER_HOST="unix://$work/$d/docker.sock" "$docker" load >/dev/null
done

: >"$work/with.ns"; : >"$work/without.ns"; : >"$work/floor.ns"
orders=("with without floor" "without floor with" "floor with without")
for ((i = 0; i < rounds; i++)); do
  # Which daemon goes first rotates too: going first or last must not bias the ratios.
  order=${orders[i % 3]}
  for d in $order; do
    t0=$(now_ns)
    DOCKER_HOST="unix://$work/$d/docker.sock" "$docker" create img true >/dev/null
    echo $(($(now_ns) - t0)) >>"$work/$d.ns"
  done
done
report() {  # report VERB TARGET-LINE: medians and ratios of $work/{with,without,floor}.ns
  local w wo f
  w=$(median <"$work/with.ns"); wo=$(median <"$work/without.ns"); f=$(median <"$work/floor.ns")
  awk -v w="$w" -v wo="$wo" -v f="$f" -v n="$rounds" -v verb="$1" -v target="$2" 'BEGIN {
    printf "docker %s (median of %d each): with our plugin %.2f ms, without a plugin %.2f ms, with the floor plugin %.2f ms\n", verb, n, w/1e6, wo/1e6, f/1e6
    printf "  with/without %.3f   %s\n", w/wo, (target == "without" ? "(target <= 1.03)" : "")
    printf "  floor/without %.3f  (what any plugin costs: dockerd encoding the calls, the round trips)\n", f/wo
    printf "  with/floor %.3f     (what ours costs above that: reading and deciding)%s\n", w/f, (target == "floor" ? " (target <= 1.05)" : "") }'
}
report create without

# A start of an existing container: our plugin reads it back from the daemon (one nested
# GET /containers/ID/json, itself two more plugin calls) and judges it as a create.
for d in with without floor; do
  DOCKER_HOST="unix://$work/$d/docker.sock" "$docker" create --name started img true >/dev/null
done
: >"$work/with.ns"; : >"$work/without.ns"; : >"$work/floor.ns"
for ((i = 0; i < rounds; i++)); do
  order=${orders[i % 3]}
  for d in $order; do
    t0=$(now_ns)
    DOCKER_HOST="unix://$work/$d/docker.sock" "$docker" start started >/dev/null
    echo $(($(now_ns) - t0)) >>"$work/$d.ns"
  done
done
if grep -q refused "$work/plugin.log"; then echo "bench: our plugin refused a start: $(grep refused "$work/plugin.log" | head -1)" >&2; exit 1; fi
report start floor
