#!/usr/bin/env bash
# `docker create` through a real dockerd with our authorization plugin against one without it,
# alternated in one run (ROUNDS each, default 200), with Debian's docker CLI.
# Prints each median and the ratio with/without. Target (issue #17): ratio <= 1.03.
# Usage: bench/plugin_overhead.sh [BUILD_DIR] [ROUNDS]   (build first: scripts/setup.sh test)
source "$(dirname "$0")/common.sh"
rounds=${2:-200}
docker=/usr/bin/docker  # docker.io's, from the README's test command
command -v dockerd >/dev/null || { echo "bench: dockerd not found; apt-get install docker.io" >&2; exit 1; }
plugin=rgpu-bench-$$
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done; done
  rm -rf "$work"
}
trap cleanup EXIT

"$maker" two-nvidia-nvml "$work/root"
"$tool" authz-plugin --repo web --root "$work/root" --socket "/run/docker/plugins/$plugin.sock" 2>"$work/plugin.log" &
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

mkdir -p "$work/rootfs/bin"
cp /bin/busybox "$work/rootfs/bin/" && ln -s busybox "$work/rootfs/bin/true"
for d in with without; do
  tar -C "$work/rootfs" -c . | DOCKER_HOST="unix://$work/$d/docker.sock" "$docker" import - img >/dev/null
done

: >"$work/with.ns"; : >"$work/without.ns"
for ((i = 0; i < rounds; i++)); do
  # Which daemon goes first alternates too: going first or second must not bias the ratio.
  order="with without"
  ((i % 2)) && order="without with"
  for d in $order; do
    t0=$(now_ns)
    DOCKER_HOST="unix://$work/$d/docker.sock" "$docker" create img true >/dev/null
    echo $(($(now_ns) - t0)) >>"$work/$d.ns"
  done
done
w=$(median <"$work/with.ns"); wo=$(median <"$work/without.ns")
awk -v w="$w" -v wo="$wo" -v n="$rounds" 'BEGIN {
  printf "docker create: with plugin %.2f ms   without %.2f ms   ratio %.3f   (median of %d each)   target: <= 1.03\n", w/1e6, wo/1e6, w/wo, n }'
