#!/usr/bin/env bash
# Two builds of rediacc-gpu (before and after a change) through the same benchmarks in one run,
# alternated round by round so the machine's drift falls on both alike: admit/floor over the
# docker-CLI corpus, the in-process decision's p50 and p99, the views of 500 repositories rebuilt,
# and setup's no-op re-run. Prints each figure's median per build and after/before.
# Build each first (Release: cmake -DCMAKE_BUILD_TYPE=Release; the targets rediacc-gpu,
# rgpu-make-fixture, rgpu-decide-bench, rgpu-admit-floor).
# Usage: bench/before_after.sh BEFORE_BUILD AFTER_BUILD [ROUNDS]   (default 3 rounds)
set -euo pipefail
cd "$(dirname "$0")/.."
before=$1 after=$2 rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# One round of every benchmark on BUILD, its figures appended to $work/LABEL.tsv as "name value".
measure() {
  local label=$1 build=$2 out
  out=$(bash bench/admit_throughput.sh "$build" 2>&1 | sed -n '1,/^mix/p')
  sed -nE 's/.*admit\/floor time ([0-9.]+).*/admit\/floor\t\1/p' <<<"$out" | head -n 1 >>"$work/$label.tsv"
  # The decision takes microseconds, so one run swings by a third with the machine's load; five
  # runs a round give it as many samples as the slower figures get rounds.
  for ((k = 0; k < 5; k++)); do
    out=$(taskset -c 0 "$build/bench/rgpu-decide-bench")
    sed -nE 's/.*p50 ([0-9.]+) us, p99 ([0-9.]+) us.*/decide p50 (us)\t\1\ndecide p99 (us)\t\2/p' <<<"$out" >>"$work/$label.tsv"
  done
  out=$(bash bench/views_rebuild.sh "$build" 3 500)
  sed -nE 's/.*cdi views ([0-9.]+) ms.*/views rebuild, 500 repos (ms)\t\1/p' <<<"$out" >>"$work/$label.tsv"
  out=$(bash bench/setup_rerun.sh "$build" 10)
  sed -nE 's/.*no-op re-run ([0-9.]+) ms.*/setup no-op re-run (ms)\t\1/p' <<<"$out" >>"$work/$label.tsv"
}

for ((i = 1; i <= rounds; i++)); do
  echo "round $i of $rounds" >&2
  measure before "$before"
  measure after "$after"
done

python3 - "$work/before.tsv" "$work/after.tsv" "$rounds" <<'PY'
import statistics, sys
def read(path):
    figures = {}
    for line in open(path):
        name, value = line.rstrip("\n").split("\t")
        figures.setdefault(name, []).append(float(value))
    return figures
before, after, rounds = read(sys.argv[1]), read(sys.argv[2]), sys.argv[3]
print(f"{'figure':34} {'before':>9} {'after':>9} {'after/before':>13}   {'spread before':>15} {'spread after':>15}")
for name in before:
    bs, as_ = before[name], after.get(name, [float("nan")])
    b, a = statistics.median(bs), statistics.median(as_)
    print(f"{name:34} {b:9.2f} {a:9.2f} {a / b:13.2f}   {min(bs):7.2f}-{max(bs):<7.2f} {min(as_):7.2f}-{max(as_):<7.2f}")
print(f"(medians of {rounds} rounds, the decision's of {5 * int(rounds)} runs; spread is the lowest and highest seen)")
PY
