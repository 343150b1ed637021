#!/usr/bin/env bash
# contrib/ansible: ansible-lint passes (production profile), and the role, run by ansible-playbook
# against localhost (connection local) on a fixture root, installs the built .deb, runs setup with
# the chosen toolkit mode, returns the inventory as a fact, and changes nothing on a second run.
# Usage: tests/packaging/ansible_test.sh BUILD_DIR
source "$(dirname "$0")/common.sh"
contrib=$(cd "$(dirname "$0")/../../contrib/ansible" && pwd)
trap 'remove_if_installed; rm -rf "$work" /var/cache/rediacc-gpu' EXIT

(cd "$contrib" && ansible-lint --offline --nocolor --profile production) >"$work/lint.log" 2>&1 ||
  { cat "$work/lint.log" >&2; fail "ansible-lint reports the findings above"; }

deb=$(build_deb)
remove_if_installed
"$maker" two-nvidia-nvml "$work/root"
cat >"$work/play.yml" <<YAML
---
- name: Apply rediacc_gpu to this machine
  hosts: localhost
  connection: local
  gather_facts: false
  roles:
    - role: rediacc_gpu
  tasks:
    - name: Keep the fact for the test
      ansible.builtin.copy:
        content: "{{ rediacc_gpu_inventory | to_nice_json }}"
        dest: $work/fact.json
        mode: "0644"
YAML
play() {
  ANSIBLE_ROLES_PATH="$contrib/roles" ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 \
    ansible-playbook -i localhost, "$work/play.yml" -e ansible_python_interpreter=/usr/bin/python3 \
    -e "rediacc_gpu_deb=$deb" -e "rediacc_gpu_root=$work/root" -e rediacc_gpu_install_nvidia_toolkit=false -v \
    >"$work/play.log" 2>&1 || { cat "$work/play.log" >&2; fail "ansible-playbook failed"; }
  grep -oE 'localhost +: ok=[0-9]+ +changed=[0-9]+ .*failed=[0-9]+' "$work/play.log"
}

first=$(play)
[[ $first == *"changed=0"* ]] && fail "the first run changed nothing: $first"
dpkg-query -W -f '${Status}' rediacc-gpu | grep -q "install ok installed" || fail "the role did not install the package"
grep -q 'skipped (--install-nvidia-toolkit=false)' "$work/play.log" || fail "setup did not run with the chosen toolkit mode"
python3 - "$work/fact.json" <<'PY' || fail "the fact rediacc_gpu_inventory is not the machine's inventory"
import json, sys
inv = json.load(open(sys.argv[1]))
assert inv["platform"] == "native" and len(inv["gpus"]) == 2, inv
assert all(g["vendor"] == "nvidia" for g in inv["gpus"]), inv
PY
second=$(play)
[[ $second == *"changed=0"* ]] || { cat "$work/play.log" >&2; fail "the second run changed something: $second"; }
echo "ansible: lint clean; first run $first; second run $second"
