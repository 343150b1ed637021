#!/usr/bin/env bash
# Release testing of the gate: MUTANTS (default 2,000,000) create and exec bodies through
# `admit --jsonl` and dockerd-oracle, in rounds of 100,000 from successive seeds starting at SEED.
# Any bypass or unexplained refusal stops it with the bodies printed. Run after
# `bash scripts/setup.sh test` (it uses build/).
set -euo pipefail
cd "$(dirname "$0")/.."
mutants=${1:-2000000}
seed=${2:-1}
build=${BUILD_DIR:-build}
cmake --build "$build" --target rediacc-gpu rgpu-dockerd-oracle >/dev/null
round=100000
done_count=0
while [ "$done_count" -lt "$mutants" ]; do
  python3 tests/oracle/gate_fuzz.py --binary "$build/cli/rediacc-gpu" --oracle "$build/tests/dockerd-oracle" \
    --seed "$seed" --count "$round" | grep -E '^(gate_fuzz|BYPASS|UNEXPLAINED|[0-9]+ passed)' 
  done_count=$((done_count + round))
  seed=$((seed + 1))
done
echo "fuzz_gate: $done_count mutants, no bypass"
