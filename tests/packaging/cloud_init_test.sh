#!/usr/bin/env bash
# contrib/cloud-init/user-data.yaml: cloud-init's own schema check passes, it installs the
# package before its runcmd, and every rediacc-gpu command in runcmd is one the built binary
# accepts and runs through on the NVIDIA fixture (the tests' recording fakes stand in for apt-get
# and nvidia-ctk, so nothing is installed).
# Usage: tests/packaging/cloud_init_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"
config=$(cd "$(dirname "$0")/../../contrib/cloud-init" && pwd)/user-data.yaml

cloud-init schema --config-file "$config" || fail "cloud-init schema rejects $config"

# The commands, one per line, argv joined by tabs; and the packages it installs.
python3 - "$config" >"$work/commands" <<'PY'
import sys, yaml
cfg = yaml.safe_load(open(sys.argv[1]))
assert "rediacc-gpu" in cfg.get("packages", []), "the config does not install the rediacc-gpu package"
for cmd in cfg["runcmd"]:
    assert isinstance(cmd, list), f"runcmd entry {cmd!r} is a shell string; use an argv list"
    print("\t".join(cmd))
PY
grep -q "^rediacc-gpu	setup" "$work/commands" || fail "runcmd does not run rediacc-gpu setup"

"$maker" two-nvidia-nvml "$work/root"
printf 'ID=debian\nVERSION_ID="12"\n' >"$work/root/etc/os-release"
"$maker" --fake-tools "$work/fakes"
export PATH="$work/fakes/bin:$PATH" RGPU_FAKE_DIR="$work/fakes"
while IFS=$'\t' read -r -a argv; do
  [[ ${argv[0]} == rediacc-gpu ]] || continue
  "$build/cli/rediacc-gpu" "${argv[@]:1}" --root "$work/root" >"$work/out" 2>"$work/err" ||
    { cat "$work/out" "$work/err" >&2; fail "runcmd '${argv[*]}' fails"; }
  if [[ ${argv[1]} == setup ]]; then
    python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["ok"] and r["changed"], r' "$work/out" ||
      fail "setup's output in the cloud-init log is not its JSON result"
  fi
done <"$work/commands"
grep -q "install.*nvidia-container-toolkit-base" "$work/fakes/calls.log" || fail "setup in auto mode did not install the toolkit on an NVIDIA machine"
echo "cloud-init: schema valid, $(wc -l <"$work/commands") runcmd commands accepted"
