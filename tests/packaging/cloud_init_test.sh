#!/usr/bin/env bash
# contrib/cloud-init/user-data.yaml: cloud-init's own schema check passes, it names the package's
# repository for each of Rediacc's five distributions in the section cloud-init reads there (the
# installed cloud-init's own module metadata says which distributions read which section), it
# installs the package before its runcmd, and every rediacc-gpu command in runcmd is one the built binary
# accepts and runs through on the NVIDIA fixture (the tests' recording fakes stand in for apt-get
# and nvidia-ctk, so nothing is installed), with its write_files in place under the fixture root:
# the grants it applies hold, and each repository it grants to has its plugin socket enabled.
# Usage: tests/packaging/cloud_init_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"
config=$(cd "$(dirname "$0")/../../contrib/cloud-init" && pwd)/user-data.yaml

cloud-init schema --config-file "$config" || fail "cloud-init schema rejects $config"
# Debian's python3, the one cloud-init's modules are installed for.
/usr/bin/python3 - "$config" <<'PY' || fail "the config does not reach the package on each of the five distributions"
import sys, yaml
from cloudinit.config import cc_apt_configure, cc_yum_add_repo, cc_zypper_add_repo
cfg = yaml.safe_load(open(sys.argv[1]))
has = {"apt": bool(cfg.get("apt", {}).get("sources")), "yum_repos": bool(cfg.get("yum_repos")),
       "zypper": bool(cfg.get("zypper", {}).get("repos"))}
reads = {"apt": cc_apt_configure.meta["distros"], "yum_repos": cc_yum_add_repo.meta["distros"],
         "zypper": cc_zypper_add_repo.meta["distros"]}
# cloud-init's distribution names: Ubuntu, Debian, Fedora, Oracle Linux (rhel), openSUSE.
for distro in ["ubuntu", "debian", "fedora", "rhel", "opensuse"]:
    sections = [s for s, names in reads.items() if distro in names and has[s]]
    assert sections, f"no repository section that cloud-init reads on {distro}"
PY

"$maker" two-nvidia-nvml "$work/root"
# The commands, one per line, argv joined by tabs (a path write_files writes named under the
# fixture root); the packages it installs; write_files written under the root.
python3 - "$config" "$work/root" >"$work/commands" <<'PY'
import json, os, sys, yaml
cfg, root = yaml.safe_load(open(sys.argv[1])), sys.argv[2]
assert "rediacc-gpu" in cfg.get("packages", []), "the config does not install the rediacc-gpu package"
written = {}
for f in cfg.get("write_files", []):
    path = root + f["path"]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").write(f["content"])
    written[f["path"]] = path
enabled = set()
for cmd in cfg["runcmd"]:
    assert isinstance(cmd, list), f"runcmd entry {cmd!r} is a shell string; use an argv list"
    if cmd[:3] == ["systemctl", "enable", "--now"]:
        enabled.update(cmd[3:])
    print("\t".join(written.get(a, a) for a in cmd))
desired = json.load(open(written["/etc/rediacc/gpu/grants.desired.json"]))
for repo in desired["repositories"]:
    assert f"rediacc-gpu-authz@{repo['name']}.socket" in enabled, f"runcmd does not enable {repo['name']}'s plugin socket"
    assert f"/etc/rediacc/gpu/plugins/{repo['name']}.env" in written, f"no plugin environment for {repo['name']}"
PY
grep -q "^rediacc-gpu	setup" "$work/commands" || fail "runcmd does not run rediacc-gpu setup"
grep -q "^rediacc-gpu	grants	apply" "$work/commands" || fail "runcmd does not apply the grants"

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
python3 -c 'import json, sys; g = json.load(open(sys.argv[1]))["grants"]; assert [(x["repo"], x["device"], x["exclusive"]) for x in g] == [("team-a", "nvidia.com/gpu=all", True)], g' \
  "$work/root/etc/rediacc/gpu/grants.json" || fail "the grants cloud-init applies are not the ones it lists"
grep -q "install.*nvidia-container-toolkit-base" "$work/fakes/calls.log" || fail "setup in auto mode did not install the toolkit on an NVIDIA machine"
echo "cloud-init: schema valid, $(wc -l <"$work/commands") runcmd commands accepted"
