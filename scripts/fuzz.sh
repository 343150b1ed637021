#!/usr/bin/env bash
# Fuzzes the admission decision with libFuzzer for SECONDS (default 180). CI-optional: not part
# of the README's test command. Needs clang (apt-get install clang).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-180}
command -v clang++ >/dev/null || { apt-get update -qq && apt-get install -y -qq clang >/dev/null; }
CXX=clang++ CC=clang cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRGPU_FUZZ=ON \
  -DRGPU_BUILD_TESTS=OFF >/dev/null
cmake --build build-fuzz --target rgpu-decide-fuzz
mkdir -p build-fuzz/corpus
python3 - <<'PY' || true
import base64, json
for i, line in enumerate(open("tests/fixtures/docker-cli/corpus.jsonl")):
    body = json.loads(line).get("RequestBody")
    if body:
        # The first byte picks the route (0: containers/create), the rest is the body.
        open("build-fuzz/corpus/cli-%02d" % i, "wb").write(b"\x00" + base64.b64decode(body))
PY
./build-fuzz/tests/rgpu-decide-fuzz -max_total_time="$seconds" -max_len=4096 build-fuzz/corpus
