#!/usr/bin/env bash
# contrib/ansible: ansible-lint passes (production profile), and the role, run by ansible-playbook
# against localhost (connection local) on the NVIDIA fixture root, installs the built .deb, runs
# setup in auto (the tests' recording fakes stand in for apt-get and nvidia-ctk, passed through
# rediacc_gpu_setup_environment), returns the inventory and setup's result as facts, wires two
# repositories (plugin environment, socket enabled under the root by the real systemctl, grants
# applied), changes nothing on a second run, prunes a grant taken out of the list, and removes the
# NVIDIA spec when switched to false. Then by family, from a release folder: on a RedHat host
# (Fedora, Oracle Linux) it installs the release's .rpm with dnf, on a Suse host (openSUSE) with
# zypper (recording fakes stand in for both), and with install method file it puts the single
# executable in the bin folder given and runs setup from it.
# Usage: tests/packaging/ansible_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"
contrib=$(cd "$(dirname "$0")/../../contrib/ansible" && pwd)
trap 'remove_if_installed; rm -rf "$work" /var/cache/rediacc-gpu' EXIT

(cd "$contrib" && ansible-lint --offline --nocolor --profile production) >"$work/lint.log" 2>&1 ||
  { cat "$work/lint.log" >&2; fail "ansible-lint reports the findings above"; }

deb=$(build_deb)
remove_if_installed
"$maker" two-nvidia-nvml "$work/root"
printf 'ID=debian\nVERSION_ID="12"\n' >"$work/root/etc/os-release"
"$maker" --fake-tools "$work/fakes"
cat >"$work/play.yml" <<YAML
---
- name: Apply rediacc_gpu to this machine
  hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - role: rediacc_gpu
  tasks:
    - name: Keep the facts for the test
      ansible.builtin.copy:
        content: "{{ {'inventory': rediacc_gpu_inventory, 'setup': rediacc_gpu_setup_result,
                      'grants': rediacc_gpu_grants_result} | to_nice_json }}"
        dest: $work/fact.json
        mode: "0644"
      changed_when: false  # the test's own record, not the role's change
YAML
cat >"$work/vars.json" <<JSON
{"rediacc_gpu_deb": "$deb", "rediacc_gpu_root": "$work/root",
 "rediacc_gpu_setup_environment": {"PATH": "$work/fakes/bin:$PATH", "RGPU_FAKE_DIR": "$work/fakes"},
 "rediacc_gpu_repositories": [
   {"name": "team-a", "docker_host": "unix:///run/team-a/docker.sock",
    "grants": [{"device": "rediacc.io/dri=renderD128", "exclusive": true}]},
   {"name": "team-b", "docker_host": "unix:///run/team-b/docker.sock", "grants": ["rediacc.io/dri=renderD129"]}]}
JSON
# team-b taken out of its grant, the list otherwise the same.
python3 - "$work/vars.json" "$work/pruned.json" <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
v["rediacc_gpu_repositories"][1]["grants"] = []
json.dump({"rediacc_gpu_repositories": v["rediacc_gpu_repositories"]}, open(sys.argv[2], "w"))
PY
play() {  # MODE [ansible-playbook arguments...]
  local mode=$1; shift
  ANSIBLE_ROLES_PATH="$contrib/roles" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
    ansible-playbook -i localhost, "$work/play.yml" -e ansible_python_interpreter=/usr/bin/python3 \
    -e "@$work/vars.json" -e "rediacc_gpu_install_nvidia_toolkit=$mode" "$@" -v \
    >"$work/play.log" 2>&1 || { cat "$work/play.log" >&2; fail "ansible-playbook failed"; }
  grep -oE 'localhost +: ok=[0-9]+ +changed=[0-9]+ .*failed=[0-9]+' "$work/play.log"
}
grants() { python3 -c 'import json,sys; print(" ".join(g["repo"]+":"+g["device"]+(":x" if g["exclusive"] else "") for g in json.load(open(sys.argv[1]))["grants"]))' "$work/root/etc/rediacc/gpu/grants.json"; }

first=$(play auto)
[[ $first == *"changed=0"* ]] && fail "the first run changed nothing: $first"
dpkg-query -W -f '${Status}' rediacc-gpu | grep -q "install ok installed" || fail "the role did not install the package"
grep -q "install -y --no-install-recommends nvidia-container-toolkit-base" "$work/fakes/calls.log" ||
  fail "setup in auto did not install the toolkit on the NVIDIA fixture"
[[ -f $work/root/etc/cdi/nvidia.yaml ]] || fail "setup in auto wrote no NVIDIA spec"
python3 - "$work/fact.json" <<'PY' || fail "the facts are not the machine's inventory and setup's result"
import json, sys
facts = json.load(open(sys.argv[1]))
inv = facts["inventory"]
assert inv["platform"] == "native" and len(inv["gpus"]) == 2, inv
assert all(g["vendor"] == "nvidia" for g in inv["gpus"]), inv
assert facts["setup"]["ok"] and facts["setup"]["changed"], facts["setup"]
assert facts["grants"]["changed"] and len(facts["grants"]["added"]) == 2, facts["grants"]
PY
[[ $(grants) == "team-a:rediacc.io/dri=renderD128:x team-b:rediacc.io/dri=renderD129" ]] ||
  fail "the role applied other grants than listed: $(grants)"
grep -qx "REDIACC_GPU_DOCKER_HOST=unix:///run/team-a/docker.sock" "$work/root/etc/rediacc/gpu/plugins/team-a.env" ||
  fail "team-a's plugin is not pointed at its daemon"
for repo in team-a team-b; do
  [[ -L $work/root/etc/systemd/system/sockets.target.wants/rediacc-gpu-authz@$repo.socket ]] ||
    fail "rediacc-gpu-authz@$repo.socket is not enabled under the root"
done
[[ -f $work/root/var/lib/rediacc/gpu/cdi/team-a/rediacc.io-dri.json ]] || fail "team-a's CDI view was not written"
: >"$work/fakes/calls.log"
second=$(play auto)
[[ $second == *"changed=0"* ]] || { cat "$work/play.log" >&2; fail "the second run in auto changed something: $second"; }
grep -q "install -y" "$work/fakes/calls.log" && fail "the second run installed something again"
pruned=$(play auto -e "@$work/pruned.json")
# Two changes: the desired grants file the role writes, and the grants themselves.
[[ $pruned == *"changed=2 "* ]] || { cat "$work/play.log" >&2; fail "taking team-b's grant out did not change the file and the grants alone: $pruned"; }
[[ $(grants) == "team-a:rediacc.io/dri=renderD128:x" ]] || fail "team-b's grant was not pruned: $(grants)"
off=$(play false -e "@$work/pruned.json")
[[ $off == *"changed=0"* ]] && fail "switching to false changed nothing: $off"
[[ -e $work/root/etc/cdi/nvidia.yaml ]] && fail "switching to false left the NVIDIA spec setup installed"

# By family, from a release folder holding this build's files under the release's names.
version=$("$build/cli/rediacc-gpu" --version | awk '{print $2}')
mkdir -p "$work/release"
(cd "$build" && cpack -G RPM -B "$work/rpm" >"$work/cpack-rpm.log" 2>&1) || { cat "$work/cpack-rpm.log" >&2; fail "cpack -G RPM failed"; }
cp "$work"/rpm/rediacc-gpu-*.rpm "$work/release/rediacc-gpu-$version-1.x86_64.rpm"
cp "$build/cli/rediacc-gpu" "$work/release/rediacc-gpu-$version-linux-x86_64"
remove_if_installed
cat >"$work/family.yml" <<YAML
---
- name: Apply rediacc_gpu to this machine as other families' hosts
  hosts: all
  connection: local
  gather_facts: false
  roles:
    - role: rediacc_gpu
YAML
# The three hosts, each a fresh NVIDIA fixture, in one inventory (one ansible-playbook run, its
# forks running them side by side): a RedHat and a Suse host installing the release's package, and
# a Debian host taking the single file.
python3 - "$work" "$version" "$PATH" >"$work/families.json" <<'PY'
import json, sys
work, version, path = sys.argv[1:]
hosts = {}
for name, family, method in [("fedora", "RedHat", "package"), ("opensuse", "Suse", "package"), ("single", "Debian", "file")]:
    host = f"{work}/{name}"
    env = {"PATH": f"{host}/fakes/bin:{path}", "RGPU_FAKE_DIR": f"{host}/fakes"}
    hosts[name] = {"ansible_connection": "local", "ansible_python_interpreter": "/usr/bin/python3",
                   "rediacc_gpu_release_dir": f"{work}/release", "rediacc_gpu_version": version,
                   "rediacc_gpu_os_family": family, "rediacc_gpu_install_method": method,
                   "rediacc_gpu_repositories": [], "rediacc_gpu_install_nvidia_toolkit": "false",
                   "rediacc_gpu_bin_dir": f"{host}/root/usr/local/bin", "rediacc_gpu_root": f"{host}/root",
                   "rediacc_gpu_install_environment": env, "rediacc_gpu_setup_environment": env}
print(json.dumps({"all": {"hosts": hosts}}))
PY
for name in fedora opensuse single; do
  "$maker" two-nvidia-nvml "$work/$name/root"
  "$maker" --fake-tools "$work/$name/fakes"
  # What the fake dnf or zypper "installed": this build's binary on the PATH they are run with.
  ln -s "$build/cli/rediacc-gpu" "$work/$name/fakes/bin/rediacc-gpu"
done
ANSIBLE_ROLES_PATH="$contrib/roles" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
  ansible-playbook -i "$work/families.json" "$work/family.yml" -v >"$work/families.log" 2>&1 ||
  { cat "$work/families.log" >&2; fail "ansible-playbook failed on the RedHat, Suse or single-file host"; }
for name in fedora opensuse single; do
  [[ -s $work/$name/root/etc/rediacc/gpu/inventory.json ]] || fail "the role's setup wrote no inventory on the $name host"
done
grep -qx "dnf install -y /var/cache/rediacc-gpu/rediacc-gpu-$version-1.x86_64.rpm" "$work/fedora/fakes/calls.log" ||
  { cat "$work/fedora/fakes/calls.log" >&2; fail "the role did not install the .rpm with dnf on a RedHat host"; }
grep -qx "zypper --non-interactive install --allow-unsigned-rpm /var/cache/rediacc-gpu/rediacc-gpu-$version-1.x86_64.rpm" \
  "$work/opensuse/fakes/calls.log" || { cat "$work/opensuse/fakes/calls.log" >&2; fail "the role did not install the .rpm with zypper on a Suse host"; }
cmp -s "$work/single/root/usr/local/bin/rediacc-gpu" "$build/cli/rediacc-gpu" ||
  fail "the role did not install the single executable in rediacc_gpu_bin_dir"
[[ $(stat -c %a "$work/single/root/usr/local/bin/rediacc-gpu") == 755 ]] || fail "the single executable is not mode 0755"
! grep -q "apt-get install\|dnf install\|zypper" "$work/single/fakes/calls.log" ||
  fail "install method file ran a package manager"
echo "ansible: lint clean; auto: first run $first, second run $second, pruned $pruned; false: $off;" \
  "RedHat: .rpm by dnf, Suse: .rpm by zypper, file: the single executable"
