#!/usr/bin/env bash
# Decisions per second of `rediacc-gpu admit --jsonl` over the corpus captured from the real
# docker CLI, repeated to 100,000 requests, then the in-process bench (p99 of one decision);
# both against the peer the in-process bench measures in the same run (nlohmann DOM parse).
# Target: at least 100,000 decisions per second on one core.
source "$(dirname "$0")/common.sh"
corpus=tests/fixtures/docker-cli/corpus.jsonl
"$maker" two-nvidia-nvml "$work/root"
"$tool" grant web --device nvidia.com/gpu=all --root "$work/root" >/dev/null
awk '{ line[NR] = $0 } END { for (i = 0; i < 100000; i++) print line[i % NR + 1] }' "$corpus" >"$work/requests.jsonl"
t0=$(now_ns)
taskset -c 0 "$tool" admit --repo web --jsonl --root "$work/root" <"$work/requests.jsonl" >"$work/answers.jsonl"
t=$(($(now_ns) - t0))
taskset -c 0 "$build/bench/rgpu-decide-bench" | tee "$work/inprocess.txt"
peer=$(awk '/^peer/ { print $(NF-3) }' "$work/inprocess.txt")
awk -v n="$(wc -l <"$work/answers.jsonl")" -v t="$t" -v peer="$peer" 'BEGIN {
  rate = n / (t / 1e9)
  printf "admit --jsonl: %d answers in %.2f s, %.0f decisions/s on one core; ratio admit/peer: %.2f   target: >= 100000 decisions/s\n", n, t / 1e9, rate, rate / peer
}'
