#!/usr/bin/env bash
# contrib/compose: each example's x-rediacc-gate states what the gate answers for the request
# Compose sends for it (tests/packaging/compose_requests.py); this checks every statement against
# `rediacc-gpu admit` on a fixture machine: refused forms with their exact message, the CDI forms
# refused without the grant (naming it) and allowed with it.
# Usage: tests/packaging/compose_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"
here=$(cd "$(dirname "$0")" && pwd)
compose=$(cd "$here/../../contrib/compose" && pwd)
tool=$build/cli/rediacc-gpu

"$maker" two-nvidia-nvml "$work/root"  # nvidia.com/gpu=all, and render nodes renderD128/129
"$tool" cdi generate --root "$work/root" >/dev/null

# field FILE KEY: a top-level x-rediacc-gate field of a Compose file ("" when absent).
field() { python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["x-rediacc-gate"].get(sys.argv[2], ""))' "$1" "$2"; }
# answer FILE: the gate's answer to the file's create request, as "allowed" or its message.
answer() {
  python3 "$here/compose_requests.py" "$1" | "$tool" admit --root "$work/root" --repo team-a --jsonl |
    python3 -c 'import json, sys; a = json.load(sys.stdin); print("allowed" if a["Allow"] else a["Msg"])'
}

checked=0
for f in "$compose"/refused/*.yaml; do
  grep -q "^# Use instead:" "$f" || fail "$f does not say what to use instead"
  want=$(field "$f" refused) got=$(answer "$f")
  [[ $got == "$want" ]] || fail "$(basename "$f"): the gate says '$got', the file says '$want'"
  checked=$((checked + 1))
done
for f in "$compose"/*.yaml; do
  name=$(python3 -c 'import sys, yaml; s = next(iter(yaml.safe_load(open(sys.argv[1]))["services"].values())); print(s["devices"][0])' "$f")
  want=$(field "$f" without-grant) got=$(answer "$f")
  [[ $got == "$want" ]] || fail "$(basename "$f") without a grant: the gate says '$got', the file says '$want'"
  "$tool" grant team-a --device "$name" --root "$work/root" >/dev/null
  got=$(answer "$f")
  [[ $got == "$(field "$f" with-grant)" ]] || fail "$(basename "$f") with the grant of $name: the gate says '$got'"
  "$tool" revoke team-a --device "$name" --root "$work/root" >/dev/null
  checked=$((checked + 1))
done
echo "compose: $checked examples, each answered by the gate as the file says"
