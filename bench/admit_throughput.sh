#!/usr/bin/env bash
# `rediacc-gpu admit --jsonl` against two peers in the same run, each on one core (taskset -c 0),
# reading the same requests from a file and answering one line each:
#   the floor   bench/admit_floor.cc: simdjson DOM of the envelope and the base64-decoded body,
#               one field read, no decision (what admit costs above it is the gate's own work);
#   Python      bench/admit_python_peer.py: Python's C json module, two fields looked at.
# Over the corpus captured from the real docker CLI repeated to 100,000 requests (~2.4 KB each),
# then over a mix where one request in 100 is a create with a 900 KB environment list.
# Then the in-process bench: p50/p99 of one decision.
# Targets: admit/floor time <= 1.3, admit at >= 10x Python's rate, in-process p99 < 5 us.
source "$(dirname "$0")/common.sh"
corpus=tests/fixtures/docker-cli/corpus.jsonl
floor="$build/bench/rgpu-admit-floor"
[ -x "$floor" ] || { echo "bench: $floor not found; build first" >&2; exit 1; }
"$maker" two-nvidia-nvml "$work/root"
"$tool" grant web --device nvidia.com/gpu=all --root "$work/root" >/dev/null

awk '{ line[NR] = $0 } END { for (i = 0; i < 100000; i++) print line[i % NR + 1] }' "$corpus" >"$work/corpus.jsonl"
python3 - "$corpus" "$work/mix.jsonl" <<'PY'
import base64, json, sys
lines = open(sys.argv[1]).read().splitlines()
env = ["VAR_%05d=%s" % (i, "x" * 88) for i in range(9000)]  # 900 KB
body = json.dumps({"Image": "img", "Env": env, "HostConfig": {"Binds": ["/srv/data:/data"]}}).encode()
big = json.dumps({"User": "", "UserAuthNMethod": "", "RequestMethod": "POST",
                  "RequestUri": "/v1.47/containers/create", "RequestHeaders": {"Content-Type": "application/json"},
                  "RequestBody": base64.b64encode(body).decode()})
with open(sys.argv[2], "w") as out:
    for i in range(10000):
        out.write((big if i % 100 == 99 else lines[i % len(lines)]) + "\n")
PY

timed() {  # timed INPUT CMD...: prints the wall time in ns of CMD reading INPUT on core 0
  local input=$1 t0; shift
  t0=$(now_ns)
  taskset -c 0 "$@" <"$input" >"$work/out.jsonl" 2>/dev/null
  echo $(($(now_ns) - t0))
}

compare() {  # compare LABEL INPUT
  local label=$1 input=$2 n a f p i
  n=$(wc -l <"$input")
  : >"$work/a.ns"; : >"$work/f.ns"; : >"$work/p.ns"
  for i in 1 2 3 4 5; do  # alternated, median of 5
    timed "$input" "$tool" admit --repo web --jsonl --root "$work/root" >>"$work/a.ns"
    [ "$(wc -l <"$work/out.jsonl")" = "$n" ] || { echo "bench: admit answered $(wc -l <"$work/out.jsonl") of $n" >&2; exit 1; }
    timed "$input" "$floor" >>"$work/f.ns"
    timed "$input" python3 bench/admit_python_peer.py >>"$work/p.ns"
  done
  a=$(median <"$work/a.ns"); f=$(median <"$work/f.ns"); p=$(median <"$work/p.ns")
  awk -v label="$label" -v n="$n" -v a="$a" -v f="$f" -v p="$p" 'BEGIN {
    printf "%s (%d requests)\n", label, n
    printf "  admit/floor time %.2f   (target <= 1.3)   admit %.0f/s, floor %.0f/s\n", a / f, n / (a / 1e9), n / (f / 1e9)
    printf "  admit/Python rate %.1f  (target >= 10)    Python %.0f/s\n", p / a, n / (p / 1e9) }'
}

compare "real docker CLI corpus" "$work/corpus.jsonl"
compare "mix, 1 in 100 with a 900 KB environment" "$work/mix.jsonl"
taskset -c 0 "$build/bench/rgpu-decide-bench"
