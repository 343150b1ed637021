#!/usr/bin/env bash
# contrib/ansible: ansible-lint passes (production profile), and the role, run by ansible-playbook
# against localhost (connection local) on the NVIDIA fixture root, installs the built .deb, runs
# setup in auto (the tests' recording fakes stand in for apt-get and nvidia-ctk, passed through
# rediacc_gpu_setup_environment), returns the inventory and setup's result as facts, changes
# nothing on a second run, and removes the NVIDIA spec when switched to false.
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
        content: "{{ {'inventory': rediacc_gpu_inventory, 'setup': rediacc_gpu_setup_result} | to_nice_json }}"
        dest: $work/fact.json
        mode: "0644"
      changed_when: false  # the test's own record, not the role's change
YAML
cat >"$work/vars.json" <<JSON
{"rediacc_gpu_deb": "$deb", "rediacc_gpu_root": "$work/root",
 "rediacc_gpu_setup_environment": {"PATH": "$work/fakes/bin:$PATH", "RGPU_FAKE_DIR": "$work/fakes"}}
JSON
play() {  # MODE
  ANSIBLE_ROLES_PATH="$contrib/roles" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
    ansible-playbook -i localhost, "$work/play.yml" -e ansible_python_interpreter=/usr/bin/python3 \
    -e "@$work/vars.json" -e "rediacc_gpu_install_nvidia_toolkit=$1" -v \
    >"$work/play.log" 2>&1 || { cat "$work/play.log" >&2; fail "ansible-playbook failed"; }
  grep -oE 'localhost +: ok=[0-9]+ +changed=[0-9]+ .*failed=[0-9]+' "$work/play.log"
}

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
PY
: >"$work/fakes/calls.log"
second=$(play auto)
[[ $second == *"changed=0"* ]] || { cat "$work/play.log" >&2; fail "the second run in auto changed something: $second"; }
grep -q "install -y" "$work/fakes/calls.log" && fail "the second run installed something again"
off=$(play false)
[[ $off == *"changed=0"* ]] && fail "switching to false changed nothing: $off"
[[ -e $work/root/etc/cdi/nvidia.yaml ]] && fail "switching to false left the NVIDIA spec setup installed"
echo "ansible: lint clean; auto: first run $first, second run $second; false: $off"
