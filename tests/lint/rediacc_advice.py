#!/usr/bin/env python3
"""On a Rediacc machine every piece of advice can be followed there (docs/decisions.md, "Advice on a
Rediacc machine"): doctor's `do:` never tells the operator to edit a file renet rewrites at every
daemon start (a repository daemon's daemon.json or containerd.toml) unless to say it cannot be
done, and every `do:` names a command that machine has, or says why nothing can be done there.

Each fixture machine (rgpu-make-fixture's list) is laid out as renet lays a machine out (its units
and sockets for repositories 2816 and 2880, 2880's dockerd running without its gate, Debian 12),
then doctor runs on it as found, before and after setup (recording fakes first on PATH); on three
machines (NVIDIA, AMD, WSL2) each of a set of breakages is applied after setup. Every decision
doctor prints is judged.

Usage: rediacc_advice.py BINARY MAKE_FIXTURE
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DEBIAN12 = ('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
            'VERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n')
# The files renet writes anew at every start of a repository daemon.
RENET_REWRITES = ("daemon.json", "containerd.toml")
# Commands a Rediacc server on Debian has: renet's, systemd's, Docker's (renet installs it), the
# kernel's module tools, apt, and ours.
ON_THE_MACHINE = {"rediacc-gpu", "renet", "systemctl", "journalctl", "modprobe", "reboot", "docker", "apt-get",
                  "dpkg", "udevadm", "nvidia-smi", "update-initramfs", "rm", "mv"}
# Commands advice may name that a Debian Rediacc server lacks.
ELSEWHERE = {"dnf", "yum", "zypper", "rpm", "setsebool", "semanage", "dracut", "wsl", "podman", "rc-service",
             "service"}
WORD = re.compile(r"[a-z][a-z0-9_.-]*")


def write(root, path, text):
    full = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def rediacc_layout(root):
    write(root, "/etc/os-release", DEBIAN12)
    for repo in ("2816", "2880"):
        write(root, f"/etc/systemd/system/rediacc-docker-{repo}.service", "[Service]\nExecStart=/usr/bin/renet\n")
        write(root, f"/run/rediacc/docker-{repo}.sock", "")
    write(root, "/usr/local/bin/renet", "#!/bin/sh\n")
    write(root, "/proc/4343/cmdline", "/usr/bin/dockerd\0-H\0unix:///run/rediacc/docker-2880.sock\0")
    write(root, "/proc/4343/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n")


def remove(root, path):
    full = os.path.join(root, path.lstrip("/"))
    if os.path.isdir(full) and not os.path.islink(full):
        shutil.rmtree(full)
    elif os.path.lexists(full):
        os.remove(full)


# The machines every breakage is tried on.
BROKEN_ON = ("two-nvidia-nvml", "two-amd-instinct", "wsl2-nvidia")
# Each breakage: what a machine's life does to one link of the chain.
BREAKAGES = {
    "as found": lambda root: None,
    "the NVIDIA module unloaded": lambda root: remove(root, "/proc/driver/nvidia/version"),
    "nouveau loaded": lambda root: os.makedirs(os.path.join(root, "sys/module/nouveau"), exist_ok=True),
    "the inventory gone": lambda root: remove(root, "/etc/rediacc/gpu/inventory.json"),
    "the host policy unreadable": lambda root: write(root, "/etc/rediacc/gpu/host-policy.json", "{not json"),
    "the grants unreadable": lambda root: write(root, "/etc/rediacc/gpu/grants.json", "{not json"),
    "a render node gone": lambda root: remove(root, "/dev/dri/renderD128"),
    "the NVIDIA spec gone": lambda root: remove(root, "/etc/cdi/nvidia.yaml"),
    "a spec that does not parse": lambda root: write(root, "/etc/cdi/broken.yaml", "cdiVersion: [\n"),
    "the driver's log says it failed": lambda root: write(
        root, "/var/log/kern.log", "Nov 29 kernel: NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x22:0x56:667)\n"),
    "the toolkit removed": lambda root: (remove(root, "/usr/bin/nvidia-ctk"), remove(root, "/var/lib/dpkg/status")),
    "the persistenced socket gone": lambda root: remove(root, "/run/nvidia-persistenced/socket"),
}


def judge(decision):
    """What is wrong with one decision on a Debian Rediacc machine, or None."""
    lowered = decision.lower()
    for f in RENET_REWRITES:
        if f in lowered and "renet rewrites" not in lowered:
            return f"tells to edit {f}, which renet rewrites at every daemon start"
    words = set(WORD.findall(lowered))
    foreign = sorted(words & ELSEWHERE)
    if foreign:
        return "names " + ", ".join(foreign) + ", which a Debian Rediacc server does not have"
    if not words & ON_THE_MACHINE and not lowered.startswith("not possible"):
        return "names no command this machine has (" + ", ".join(sorted(ON_THE_MACHINE)) + ")"
    return None


def main():
    binary, make_fixture = sys.argv[1:3]
    machines = subprocess.run([make_fixture], capture_output=True, text=True).stderr.split("names:")[1].split()
    work = tempfile.mkdtemp(prefix="rgpu-rediacc-advice.")
    faults, seen, runs = {}, set(), 0
    try:
        fakes = os.path.join(work, "fakes")
        subprocess.run([make_fixture, "--fake-tools", fakes], check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, PATH=os.path.join(fakes, "bin") + ":" + os.environ["PATH"])
        runs_to_do = [(m, after, "as found") for m in machines for after in (False, True)]
        runs_to_do += [(m, True, b) for m in BROKEN_ON for b in BREAKAGES if b != "as found"]
        for machine, after_setup, breakage in runs_to_do:
            apply = BREAKAGES[breakage]
            root = os.path.join(work, "root")
            shutil.rmtree(root, ignore_errors=True)
            subprocess.run([make_fixture, machine, root], check=True, stdout=subprocess.DEVNULL)
            rediacc_layout(root)
            if after_setup:
                subprocess.run([binary, "setup", "--root", root], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            apply(root)
            r = subprocess.run([binary, "doctor", "-o", "json", "--root", root], env=env,
                               capture_output=True, text=True)
            runs += 1
            for check in json.loads(r.stdout)["checks"]:
                decision = check.get("decision") or ""
                if not decision:
                    continue
                seen.add(check["id"])
                fault = judge(decision)
                if fault:
                    where = f"{machine}, {'after setup' if after_setup else 'before setup'}, {breakage}"
                    faults.setdefault((check["id"], decision, fault), where)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for (check, decision, fault), where in sorted(faults.items()):
        print(f"{check}: {fault} (first on {where}):\n  do: {decision}", file=sys.stderr)
    print(f"rediacc advice: {runs} doctor runs on {len(machines)} machines laid out by renet; decisions of "
          f"{len(seen)} checks judged ({', '.join(sorted(seen))}); {len(faults)} cannot be followed there")
    return 1 if faults or not seen else 0


if __name__ == "__main__":
    sys.exit(main())
