#!/usr/bin/env python3
"""rediacc-gpu's reading of /etc/cdi against the CDI Go library's, over generated spec directories,
valid and broken. cdi-oracle is built from Debian 12's library 0.5.2; with --library 0.7 from the
0.7.2 that Debian 13's docker.io 26 vendors (its source package); with --library 1.0 from unstable's
1.0.1, Docker 28.5's.

Every directory is read by both: `rediacc-gpu cdi list -o json --root ROOT` and `cdi-oracle
ROOT/etc/cdi`. The CDI names each offers must be the same, except in three deliberate classes
where we follow the CDI versions Docker 25 and later read rather than 0.5.2 (docs/decisions.md):
  newer      a cdiVersion past the library's (0.6.0 for 0.5.2, 0.8.0 for 0.7.2, 1.1.0 for 1.0.1), a "v"
             prefix, or a field the library predates (annotations, intelRdt and additionalGids for
             0.5.2; intelRdt's root CLOS "/" before 1.1.0): the library refuses them; not compared
             here (tests/cdi/spec_index_test.cc holds what we accept).
  below-min  a cdiVersion below what the content needs (0.3.0 floor, hostPath and digit-first
             names 0.5.0, mount type 0.4.0): newer libraries refuse it, so we offer none of its names.
  panic      a one-letter vendor or class: 0.5.2 (and every release to 1.1.0) panics, so we offer
             none of its names.

Each run first reads PINNED: the kinds of difference the generator once found against 0.5.2
(a link to a directory, a dotted vendor at 0.3.0, names listed by one reader and not the other in
both directions, a conflict), so every library's run judges them.

Usage: cdi_differential.py --binary rediacc-gpu --oracle cdi-oracle [--seed N] [--count N] [--library 0.5|0.7|1.0]
Exits 1 on the first mismatch, printing the directory's files.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

HOOKS = ["prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"]


def yaml_scalar(v):
    if isinstance(v, str):
        return json.dumps(v)  # a double-quoted YAML scalar
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def to_yaml(v, indent=0, quote_keys=False):
    """Block YAML for dicts and lists of plain values; list items of dicts in flow style. Keys are
    plain, or double-quoted as some generators write them ("cdiVersion": "0.3.0")."""
    pad = "  " * indent
    if isinstance(v, dict):
        if not v:
            return pad + "{}\n"
        out = ""
        for k, x in v.items():
            key = json.dumps(k) if quote_keys else "" if k is None else k  # None: a null key
            if isinstance(x, (dict, list)) and x:
                out += f"{pad}{key}:\n" + to_yaml(x, indent + 1, quote_keys)
            else:
                out += f"{pad}{key}: {json.dumps(x) if isinstance(x, (dict, list)) else yaml_scalar(x)}\n"
        return out
    if isinstance(v, list):
        return "".join(f"{pad}- {json.dumps(x) if isinstance(x, (dict, list)) else yaml_scalar(x)}\n" for x in v)
    return pad + yaml_scalar(v) + "\n"


class Gen:
    def __init__(self, rng):
        self.r = rng

    def name(self):
        return self.r.choice(["gpu0", "all", "renderD128", "GPU-1234abcd", "mig-1", "a.b", "x_y", "c-d", "g0:1"])

    def node(self):
        n = {"path": self.r.choice(["/dev/dri/renderD128", "/dev/nvidia0", "/dev/kfd", "/dev/x"])}
        if self.r.random() < 0.3:
            n["type"] = self.r.choice(["c", "b", "u", "p"])
        if self.r.random() < 0.2:
            n["permissions"] = self.r.choice(["rw", "rwm", "r", "m"])
        if self.r.random() < 0.2:
            n["major"] = self.r.choice([226, 195, 0])
        return n

    def edits(self):
        e = {}
        while not e:
            if self.r.random() < 0.5:
                e["env"] = [self.r.choice(["A=1", "NVIDIA_VISIBLE_DEVICES=void", "X=a=b"])]
            if self.r.random() < 0.6:
                e["deviceNodes"] = [self.node() for _ in range(self.r.randint(1, 2))]
            if self.r.random() < 0.2:
                e["mounts"] = [{"hostPath": "/usr/lib/x.so", "containerPath": "/usr/lib/x.so", "options": ["ro"]}]
            if self.r.random() < 0.2:
                e["hooks"] = [{"hookName": self.r.choice(HOOKS), "path": "/usr/bin/hook", "args": ["hook", "x"]}]
        return e

    def spec(self):
        kind = self.r.choice(["nvidia.com/gpu", "rediacc.io/dri", "amd.com/gpu", "ab/cd", "x-y.z/class_1"])
        names = []
        while len(names) < self.r.randint(1, 3):
            n = self.name()
            if n not in names:
                names.append(n)
        return {"cdiVersion": "0.3.0", "kind": kind,
                "devices": [{"name": n, "containerEdits": self.edits()} for n in names]}

    # Mutations: each changes the spec in place; classify() then says what the result is.
    def mutate(self, spec):
        r = self.r
        devs = spec["devices"]
        d = r.choice(devs)
        e = d["containerEdits"]
        choice = r.randrange(33)
        if choice == 0:
            r.choice([spec, d, e]).update({r.choice(["unknown", "annotation", "extra"]): "x"})
        elif choice == 1:
            e.setdefault("deviceNodes", [{"path": "/dev/x"}])[0]["type"] = r.choice(["x", "cc", "B", "C", " "])
        elif choice == 2:
            e.setdefault("deviceNodes", [{"path": "/dev/x"}])[0]["permissions"] = r.choice(["x", "R", "rwx", "rw "])
        elif choice == 3:
            e["hooks"] = [{"hookName": r.choice(["onStart", "Prestart", "prestart ", "preStart"]), "path": "/x"}]
        elif choice == 4:
            e["env"] = [r.choice(["A", "=x", "A=", ""])]
        elif choice == 5:
            e["mounts"] = [r.choice([{"containerPath": "/x"}, {"hostPath": "/x"}, {"hostPath": "", "containerPath": "/x"}])]
        elif choice == 6:
            d["name"] = r.choice(["-x", "x-", "a b", "é", "x=", "a/b", ""])
        elif choice == 7:
            spec["kind"] = r.choice(["1x.com/gpu", "x.com/gpu/y", "x.com", "x.com/-gpu", "x_.com/gpu", "/gpu"])
        elif choice == 8:
            spec["kind"] = r.choice(["x/gpu", "x.com/g"])
        elif choice == 9:
            spec["cdiVersion"] = r.choice(["9.9.9", "", "0.3", "0.5.0 "])
        elif choice == 10:
            spec["cdiVersion"] = r.choice(["0.1.0", "0.2.0"])
        elif choice == 11:
            e.setdefault("deviceNodes", [{"path": "/dev/x"}])[0]["hostPath"] = "/dev/dri/renderD129"
            if r.random() < 0.5:
                spec["cdiVersion"] = "0.5.0"
        elif choice == 12:
            e["mounts"] = [{"hostPath": "/a", "containerPath": "/b", "type": "bind"}]
            if r.random() < 0.5:
                spec["cdiVersion"] = r.choice(["0.4.0", "0.5.0"])
        elif choice == 13:
            d["name"] = r.choice(["0", "1abc", "9:0", 7])
            if r.random() < 0.5:
                spec["cdiVersion"] = "0.5.0"
        elif choice == 14:
            spec["cdiVersion"] = r.choice(["0.6.0", "0.7.0", "1.0.0", "v0.5.0"])
        elif choice == 15:
            spec["kind"] = "x.com/gpu.v2"
            spec["cdiVersion"] = r.choice(["0.3.0", "0.5.0"])  # both refuse: 0.5.2 always, us below 0.6.0
        elif choice == 16:  # a key in another case: Go's decoder matches it
            key = r.choice(["kind", "devices", "cdiVersion"])
            spec[{"kind": "Kind", "devices": "DEVICES", "cdiVersion": "CDIVersion"}[key]] = spec.pop(key)
        elif choice == 17:
            e["env"] = "A=1"
        elif choice == 18:
            e.setdefault("deviceNodes", [{"path": "/dev/x"}])[0]["major"] = r.choice(["1", 1.5, True])
        elif choice == 19:
            d["name"] = r.choice([["a"], {"a": 1}, True, None])
        elif choice == 20:
            spec["devices"] = []
        elif choice == 21:
            spec.pop("devices")
        elif choice == 22:
            d["containerEdits"] = r.choice([{}, None, {"env": []}])
        elif choice == 23:
            spec.pop(r.choice(["kind", "cdiVersion"]))
        elif choice == 24:
            spec["devices"].append(dict(d))  # the same name twice
        elif choice == 25:
            e.setdefault("deviceNodes", [{"path": "/dev/x"}])[0]["path"] = ""
        elif choice == 26:
            e["hooks"] = [{"hookName": "prestart", "path": ""}]
        elif choice == 27:
            e.setdefault("deviceNodes", [{"path": "/dev/x"}])[0]["uid"] = r.choice([-1, 4294967296, 0, 1000])
        elif choice == 28:
            spec["containerEdits"] = r.choice([{"env": ["A"]}, {"env": ["A=1"]}, {"bad": 1}, {}])
        elif choice == 29:
            e["deviceNodes"] = "not-a-list"
        # What 0.6.0 and 0.7.0 added, declared at that version or below it.
        elif choice == 30:
            r.choice([spec, d])["annotations"] = r.choice(
                [{"example.com/owner": "lab"}, {"a": ""}, {"bad key": "x"}, {"": "x"}, {"x/": "y"}, {}, "x",
                 {None: "x"}, {"~": "x"}, {"a": None}])
            spec["cdiVersion"] = r.choice(["0.5.0", "0.6.0", "0.7.0"])
        elif choice == 31:
            e["additionalGids"] = r.choice([[44, 109], [0], [], [-1], ["44"]])
            spec["cdiVersion"] = r.choice(["0.6.0", "0.7.0"])
        elif choice == 32:
            e["intelRdt"] = r.choice([{"closID": "gpu"}, {"closID": "/"}, {"closID": ".."}, {"closID": "a/b"},
                                      {"l3CacheSchema": "L3:0=f"}, {}, None])
            spec["cdiVersion"] = r.choice(["0.6.0", "0.7.0"])

    def file(self):
        """(name, text, class): one spec file, valid or not."""
        spec = self.spec()
        for _ in range(self.r.choice([0, 0, 1, 1, 2])):
            try:
                self.mutate(spec)
            except (KeyError, TypeError, AttributeError, IndexError):
                pass  # an earlier mutation removed what this one changes
        klass = classify(spec)
        style = self.r.choice(["json", "yaml", "yaml-in-json", "dup-key", "quoted-keys"])
        if style == "json":
            name, text = "spec.json", json.dumps(spec, indent=self.r.choice([None, 2]))
        elif style == "yaml":
            name, text = "spec.yaml", to_yaml(spec)
        elif style == "yaml-in-json":
            name, text = "spec.json", to_yaml(spec)
        elif style == "quoted-keys":
            name, text = "spec.yaml", to_yaml(spec, quote_keys=True)
        else:
            text = to_yaml(spec)
            key = self.r.choice(["kind", "cdiVersion"])
            value = self.r.choice([json.dumps(spec.get(key, "x.com/gpu")), '"y.com/gpu"'])
            name, text = "spec.yaml", text + f"{key}: {value}\n"
        return name, text, klass


def get_ci(d, key):
    """A field as Go's decoder finds it: the key in any ASCII case; of two spellings, the one
    that sorts last (the YAML layer hands keys to the JSON decoder sorted)."""
    if not isinstance(d, dict):
        return None
    found = [k for k in d if isinstance(k, str) and k.lower() == key.lower()]
    return d[max(found)] if found else None


def as_text(v):
    """A plain YAML scalar in a string field, as the library's YAML layer turns it into a string."""
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v) if isinstance(v, int) else v if isinstance(v, str) else ""


# The spec versions each library reads: 0.5.2 up to 0.5.0, 0.7.2 up to 0.7.0, 1.0.1 up to 1.0.0
# (specs-go/version.go).
READS = {"0.5": ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0"),
         "0.7": ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0"),
         "1.0": ("0.1.0", "0.2.0", "0.3.0", "0.4.0", "0.5.0", "0.6.0", "0.7.0", "0.8.0", "1.0.0")}
# The libraries that load a spec with no devices without a word (1.0.0 refuses it; we report it).
LOADS_EMPTY = ("0.5", "0.7")
LIBRARY = "0.5"


def uses_newer_fields(spec):
    """Content the library predates whatever the version declared: 0.5.2 has no annotations,
    intelRdt or additionalGids field at all (its strict decoding refuses the key, even empty);
    before 1.1.0 the root CLOS ("/") is no valid intelRdt closID."""
    devices = get_ci(spec, "devices")
    devices = [d for d in devices if isinstance(d, dict)] if isinstance(devices, list) else []
    holders = [spec] + devices
    edits = [e for e in [get_ci(h, "containerEdits") for h in holders] if isinstance(e, dict)]
    if LIBRARY == "0.5":
        if any(get_ci(h, "annotations") is not None or
               any(k.lower() == "annotations" for k in h if isinstance(k, str)) for h in holders):
            return True
        if any(k.lower() in ("intelrdt", "additionalgids") for e in edits for k in e if isinstance(k, str)):
            return True
    rdts = [get_ci(e, "intelRdt") for e in edits]
    return any(isinstance(r, dict) and get_ci(r, "closID") == "/" for r in rdts)


def classify(spec):
    """The deliberate class of a spec's final content, or None when both must read it alike."""
    version = as_text(get_ci(spec, "cdiVersion"))
    if version in ("0.6.0", "0.7.0", "0.8.0", "1.0.0", "1.1.0") and version not in READS[LIBRARY] or \
            version.startswith("v"):
        return "newer"
    if uses_newer_fields(spec):
        return "newer"
    kind = as_text(get_ci(spec, "kind"))
    if "/" in kind:
        vendor, klass = kind.split("/", 1)
        if len(vendor) == 1 or len(klass) == 1:
            return "panic"
    if version in ("0.1.0", "0.2.0"):
        return "below-min"
    needs = 30
    devices = get_ci(spec, "devices")
    edits = [get_ci(spec, "containerEdits")]
    for d in devices if isinstance(devices, list) else []:
        name = as_text(get_ci(d, "name"))
        if name[:1].isdigit():
            needs = max(needs, 50)
        edits.append(get_ci(d, "containerEdits"))
    for a in [get_ci(spec, "annotations")] + [get_ci(d, "annotations") for d in
                                              (devices if isinstance(devices, list) else [])]:
        if isinstance(a, dict) and a:
            needs = max(needs, 60)
    for e in edits:
        if get_ci(e, "intelRdt") is not None or get_ci(e, "additionalGids"):
            needs = max(needs, 70)
        nodes = get_ci(e, "deviceNodes")
        for n in nodes if isinstance(nodes, list) else []:
            if as_text(get_ci(n, "hostPath")):
                needs = max(needs, 50)
        mounts = get_ci(e, "mounts")
        for m in mounts if isinstance(mounts, list) else []:
            if as_text(get_ci(m, "type")):
                needs = max(needs, 40)
    declared = {"0.3.0": 30, "0.4.0": 40, "0.5.0": 50, "0.6.0": 60, "0.7.0": 70, "0.8.0": 80, "1.0.0": 100}.get(version)
    if declared is not None and declared < needs:
        return "below-min"
    return None


def ours(binary, root):
    """The names `cdi list` offers, and the spec files it warns it skips."""
    r = subprocess.run([binary, "cdi", "list", "-o", "json", "--root", root], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"rediacc-gpu cdi list failed on {root}: {r.stderr}")
    skipped = {os.path.basename(p): why for p, why in re.findall(r"^warning: skipping CDI spec (\S+): (.*)$", r.stderr, re.M)}
    return sorted(d["name"] for d in json.loads(r.stdout)["devices"]), skipped


def add_links(rng, cdi_dir, files):
    """Entries named like specs that are no plain file: links to a directory, to nothing, round in
    a loop, to a spec of this directory (its names then defined twice) or outside it; a directory."""
    root_dir = os.path.dirname(os.path.dirname(cdi_dir))
    choice = rng.randrange(6)
    if choice == 0:
        os.makedirs(os.path.join(cdi_dir, "sub"), exist_ok=True)
        os.symlink("sub", os.path.join(cdi_dir, "to-dir.json"))
    elif choice == 1:
        os.symlink("missing.json", os.path.join(cdi_dir, "dangling.yaml"))
    elif choice == 2:
        os.symlink("loop-b.json", os.path.join(cdi_dir, "loop-a.json"))
        os.symlink("loop-a.json", os.path.join(cdi_dir, "loop-b.json"))
    elif choice == 3 and files:
        os.symlink(files[0][0], os.path.join(cdi_dir, "again-" + files[0][0]))
    elif choice == 4:
        os.makedirs(os.path.join(root_dir, "opt"), exist_ok=True)
        with open(os.path.join(root_dir, "opt", "elsewhere.json"), "w") as f:
            f.write(json.dumps({"cdiVersion": "0.3.0", "kind": "away.example.com/gpu",
                                "devices": [{"name": "far", "containerEdits": {"env": ["A=1"]}}]}))
        # relative: the oracle reads host paths, where an absolute link would leave the fixture root
        os.symlink("../../opt/elsewhere.json", os.path.join(cdi_dir, "linked.json"))
    else:
        os.makedirs(os.path.join(cdi_dir, rng.choice(["x.json", "x.yaml"])))


# The kinds of difference the differential once found against Debian 12's library, kept as
# directories every run reads first, against whichever library it was built with. Each is
# (name, {file: text}, [(link, target)], [directories]).
_ENV = "  containerEdits:\n    env: [A=1]\n"
PINNED = [
    # The library reports a spec-named link to a directory broken; cdi list once said nothing.
    ("link to a directory", {"ok.json": '{"cdiVersion":"0.3.0","kind":"x.com/gpu","devices":[{"name":"a",'
                             '"containerEdits":{"env":["A=1"]}}]}'}, [("to-dir.json", "sub")], ["sub"]),
    # A dotted vendor is no newer feature: 0.3.0 reads it; cdi list once asked for 0.5.0.
    ("0.3.0 YAML, dotted vendor", {"v.yaml": "cdiVersion: 0.3.0\nkind: a.b.example.com/gpu\ndevices:\n- name: a\n" + _ENV},
     [], []),
    # Names the library lists: YAML in a .json file, keys in another case, YAML 1.1's "on".
    ("names the library lists", {"y.json": "cdiVersion: 0.5.0\nKind: x.com/gpu\nDevices:\n- name: 0\n" + _ENV
                                 + "- Name: on\n" + _ENV}, [], []),
    # Names it does not: a .yml file, a directory named like a spec, a device name it refuses.
    ("names the library does not list", {"n.yml": "cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n- name: yml\n" + _ENV,
                                         "d.yaml/in.yaml": "cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n- name: in\n" + _ENV,
                                         "bad.yaml": "cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n- name: a/b\n" + _ENV},
     [], ["d.yaml"]),
    # A name two files define: both files reported, the name offered by neither.
    ("a conflict", {"a.yaml": "cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n- name: one\n" + _ENV,
                    "b.yaml": "cdiVersion: 0.3.0\nkind: x.com/gpu\ndevices:\n- name: one\n" + _ENV
                    + "- name: two\n" + _ENV}, [], []),
]


def write_pinned(cdi_dir, files, links, dirs):
    for d in dirs:
        os.makedirs(os.path.join(cdi_dir, d), exist_ok=True)
    for fname, text in files.items():
        with open(os.path.join(cdi_dir, fname), "w") as f:
            f.write(text)
    for link, target in links:
        os.symlink(target, os.path.join(cdi_dir, link))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--count", type=int, default=600)
    ap.add_argument("--library", choices=sorted(READS), default="0.5",
                    help="the CDI library the oracle was built with: which spec versions it reads")
    args = ap.parse_args()
    global LIBRARY
    LIBRARY = args.library
    rng = random.Random(args.seed)
    gen = Gen(rng)
    work = tempfile.mkdtemp(prefix="rgpu-cdi-diff.")
    counts = {"same": 0, "named": 0, "newer": 0, "below-min": 0, "panic": 0, "empty": 0}
    try:
        cases = []
        for i, (label, files, links, dirs) in enumerate(PINNED):
            root = os.path.join(work, f"pinned-{i}")
            os.makedirs(os.path.join(root, "etc", "cdi"))
            os.makedirs(os.path.join(root, "proc"))  # a machine's root: --root refuses one without /sys or /proc
            write_pinned(os.path.join(root, "etc", "cdi"), files, links, dirs)
            cases.append((root, [(f"{label}: {k}", v, None) for k, v in files.items()], None))
        for i in range(args.count):
            root = os.path.join(work, str(i))
            cdi_dir = os.path.join(root, "etc", "cdi")
            os.makedirs(cdi_dir)
            os.makedirs(os.path.join(root, "proc"))
            files = []
            # Deliberate classes alone in their directory; others one to three files, which may
            # define the same names (a conflict drops a name from both).
            for j in range(rng.choice([1, 1, 2, 3])):
                name, text, klass = gen.file()
                if klass and j > 0:
                    continue
                files.append((f"{j}-{name}", text, klass))
                if klass:
                    break
            if rng.random() < 0.05:
                files.append(("ignored.yml", files[0][1], None))  # .yml is not a spec file
            for fname, text, _ in files:
                with open(os.path.join(cdi_dir, fname), "w") as f:
                    f.write(text)
            if rng.random() < 0.15 and not any(k for _, _, k in files):
                add_links(rng, cdi_dir, files)
            cases.append((root, files, next((k for _, _, k in files if k), None)))
        oracle = subprocess.run([args.oracle] + [os.path.join(c[0], "etc", "cdi") for c in cases],
                                capture_output=True, text=True, check=True)
        verdicts = [json.loads(line) for line in oracle.stdout.splitlines()]
        for (root, files, klass), go in zip(cases, verdicts):
            got, skipped = ours(args.binary, root)
            if klass == "newer":
                counts["newer"] += 1
                continue
            if klass in ("below-min", "panic"):
                counts[klass] += 1
                if got:
                    dump(files)
                    raise SystemExit(f"FAIL ({klass}): rediacc-gpu offers {got}; it must offer none of these names")
                continue
            if go.get("panic"):
                dump(files)
                raise SystemExit(f"FAIL: the CDI library panicked ({go['panic']}) on a case not marked 'panic'")
            if got != go["devices"]:
                dump(files)
                raise SystemExit(f"FAIL: rediacc-gpu offers {got}, the CDI library loads {go['devices']}")
            if LIBRARY in LOADS_EMPTY:  # before 1.0 a spec with no devices loads silently
                empty = [f for f, why in skipped.items() if "defines no devices" in why]
                counts["empty"] += 1 if empty else 0
                skipped = {f: why for f, why in skipped.items() if f not in empty}
            skipped = sorted(skipped)
            if skipped != go["broken"]:
                dump(files)
                raise SystemExit(f"FAIL: rediacc-gpu skips {skipped}, the CDI library reports {go['broken']} broken")
            counts["same"] += 1
            counts["named"] += 1 if got else 0
        print(f"cdi differential: {len(PINNED)} pinned and {args.count} generated directories, seed {args.seed}: "
              f"{counts['same']} read alike "
              f"({counts['named']} offering names, the rest none); "
              f"deliberate: {counts['newer']} newer-spec (not compared), {counts['below-min']} below the version "
              f"their content needs and {counts['panic']} that crash the library, offered by neither; "
              f"{counts['empty']} with a spec of no devices that this library loads silently (1.0 refuses it)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


def dump(files):
    for fname, text, klass in files:
        print(f"--- {fname} ({klass or 'compared'})\n{text}", file=sys.stderr)


if __name__ == "__main__":
    main()
