#!/usr/bin/env python3
"""The manual's examples say what the binary prints: each fenced block that a Markdown file marks
with `<!-- example: MACHINE [fresh] [os=debian12] -->` is run against the binary on that fixture
machine (tests/support/machines.cc, made by rgpu-make-fixture), with recording fakes first on PATH
(their nvidia-ctk writes the NVIDIA spec the machine came with), and its printed lines must be what
the binary prints.

In a block, `# rediacc-gpu ARGS` runs as root on the machine (`--root` added, and its output read as
the machine itself would print it: no chroot, machine paths); the lines after it, up to the next
command, are its output. A line `...` stands for any number of lines; a duration
at a line's end (`0.61s`) for any. The blocks of one file share one machine per name, in order
(setup, then list, grant...), unless marked `fresh`. `$ docker ...` shows a tenant's command: one
whose output is the gate's refusal (`authorization denied by plugin rediacc-gpu-REPO: refused:`) is
judged by `rediacc-gpu admit` with the Docker CLI's own request for the same options
(tests/fixtures/docker-cli/corpus.jsonl) and the refusal's words must be the gate's, the lines
joined as the page wraps them; others need a GPU and a daemon and are counted as shown, not run.

Usage: manual_examples.py SOURCE_DIR BINARY MAKE_FIXTURE FILE...
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

DEBIAN12 = ('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nNAME="Debian GNU/Linux"\nVERSION_ID="12"\n'
            'VERSION="12 (bookworm)"\nVERSION_CODENAME=bookworm\nID=debian\n')
MARK = re.compile(r"^<!-- example: (\S+)((?: \S+)*) -->$")
DURATION = re.compile(r" [0-9]+\.[0-9]+s$")
REFUSAL = re.compile(r"^docker: Error response from daemon: authorization denied by plugin rediacc-gpu-(\S+): (.*)$",
                     re.S)


def blocks(path):
    """(line number, machine, options, lines) of each marked block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = MARK.match(lines[i])
        if not m:
            i += 1
            continue
        if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
            sys.exit(f"{path}:{i + 1}: an example mark must stand right above its fenced block")
        end = i + 2
        while end < len(lines) and not lines[end].startswith("```"):
            end += 1
        out.append((i + 3, m.group(1), m.group(2).split(), lines[i + 2:end]))
        i = end + 1
    return out


def segments(lines):
    """(command line, expected output lines) pairs: a command starts with '# ' or '$ '."""
    out = []
    for line in lines:
        if line.startswith("# ") or line.startswith("$ "):
            out.append((line, []))
        elif out:
            out[-1][1].append(line)
    for _, expected in out:
        while expected and expected[-1] == "":
            expected.pop()
    return out


def as_on_the_host(text, root):
    """What the command prints on the machine itself: under --root, setup runs the machine's own tools
    in it (chroot ROOT, systemctl --root=ROOT) and names its files by their path here."""
    return text.replace("chroot " + root + " ", "").replace(" --root=" + root, "").replace(root + "/", "/")


def matches(expected, actual):
    """The printed lines against the page's, '...' standing for any lines, durations for any."""
    norm = [DURATION.sub(" Ns", line.rstrip()) for line in actual]
    want = [DURATION.sub(" Ns", line.rstrip()) for line in expected]

    def at(w, a):
        if w == len(want):
            return a == len(norm)
        if want[w] == "...":
            return any(at(w + 1, k) for k in range(a, len(norm) + 1))
        return a < len(norm) and norm[a] == want[w] and at(w + 1, a + 1)

    return at(0, 0)


def corpus_request(source, options):
    """The Docker CLI's own request for `docker create OPTIONS img`."""
    form = "docker create " + " ".join(options + ["img"])
    with open(os.path.join(source, "tests/fixtures/docker-cli/corpus.jsonl")) as f:
        for line in f:
            request = json.loads(line)
            if request.get("Form") == form:
                return request
    return None


def tenant_options(command):
    """`$ docker run --rm OPTIONS img CMD...` -> OPTIONS, the create request's."""
    words = shlex.split(command[2:], comments=True)
    if words[:2] != ["docker", "run"] or "img" not in words:
        return None
    return [w for w in words[2:words.index("img")] if w != "--rm"]


def main():
    source, binary, make_fixture = sys.argv[1:4]
    work = tempfile.mkdtemp(prefix="rgpu-manual-examples.")
    failures, ran, judged, shown = [], 0, 0, 0
    try:
        fakes = os.path.join(work, "fakes")
        subprocess.run([make_fixture, "--fake-tools", fakes], check=True, stdout=subprocess.DEVNULL)
        env = dict(os.environ, PATH=os.path.join(fakes, "bin") + ":" + os.environ["PATH"])
        for page in sys.argv[4:]:
            roots = {}
            for line_no, machine, options, lines in blocks(os.path.join(source, page)):
                if machine not in roots or "fresh" in options:
                    root = os.path.join(work, f"{len(os.listdir(work))}-{machine}")
                    subprocess.run([make_fixture, machine, root], check=True, stdout=subprocess.DEVNULL)
                    if "os=debian12" in options:
                        with open(os.path.join(root, "etc/os-release"), "w") as f:
                            f.write(DEBIAN12)
                        # Before its first setup the machine has no NVIDIA spec: the fakes' nvidia-ctk
                        # writes the one the real one wrote on that machine.
                        spec = os.path.join(root, "etc/cdi/nvidia.yaml")
                        if os.path.exists(spec):
                            os.makedirs(os.path.join(root, "usr/share/fake-nvidia-ctk"))
                            shutil.move(spec, os.path.join(root, "usr/share/fake-nvidia-ctk/nvidia.yaml"))
                    roots[machine] = root
                root = roots[machine]
                for command, expected in segments(lines):
                    where = f"{page}:{line_no} `{command}`"
                    if command.startswith("# rediacc-gpu "):
                        argv = [binary] + shlex.split(command[len("# rediacc-gpu "):]) + ["--root", root]
                        r = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                        ran += 1
                        printed = as_on_the_host(r.stdout, root).rstrip("\n").split("\n")
                        if not matches(expected, printed):
                            failures.append(f"{where} prints:\n" + "\n".join("  | " + p for p in printed) +
                                            "\nwhere the page shows:\n" + "\n".join("  | " + e for e in expected))
                        continue
                    refusal = REFUSAL.match(" ".join(expected))
                    if not refusal:
                        shown += 1
                        continue
                    options_ = tenant_options(command)
                    request = corpus_request(source, options_) if options_ is not None else None
                    if request is None:
                        failures.append(f"{where}: no request of the Docker CLI for these options in "
                                        "tests/fixtures/docker-cli/corpus.jsonl")
                        continue
                    r = subprocess.run([binary, "admit", "--repo", refusal.group(1), "--root", root], env=env,
                                       input=json.dumps(request), stdout=subprocess.PIPE, text=True)
                    judged += 1
                    answer = json.loads(r.stdout)
                    said = " ".join(refusal.group(2).split())
                    if answer.get("Allow") or " ".join(answer.get("Msg", "").split()) != said:
                        failures.append(f"{where}: the gate answers {r.stdout.strip()}\nwhere the page shows: {said}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for f in failures:
        print(f, file=sys.stderr)
    print(f"manual examples: {ran} commands run, {judged} refusals judged by admit, {shown} tenant commands shown "
          f"(they need a GPU and a daemon), {len(failures)} differ")
    return 1 if failures or ran == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
