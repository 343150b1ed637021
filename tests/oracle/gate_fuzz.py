#!/usr/bin/env python3
"""Seeded mutation fuzzing of the gate against dockerd's own decoder.

Starts from the real docker CLI's create bodies (tests/fixtures/docker-cli/corpus.jsonl) and exec
bodies, mutates them (key case and Unicode folding, escapes, duplicate and merged keys, legacy
top-level fields with and without HostConfig, spellings of capabilities, security options, paths
and links, combinations), and sends every mutant through `rediacc-gpu admit --jsonl` and through
dockerd-oracle (dockerd's own source deciding what the daemon would apply, and the policy's verdict
on it: Debian 12's dockerd 20.10, or with --top-level-ignored unstable's 28.5). On a fixture machine with links a tenant could make.

Fails when the gate allows a mutant that dockerd would accept and the policy forbids (a bypass),
or when the gate refuses a harmless mutant for a reason not listed in DELIBERATE (the classes
docs/decisions.md explains). Prints the counts per class.

usage: gate_fuzz.py --binary rediacc-gpu --oracle dockerd-oracle [--seed N] [--count N] [--top-level-ignored]
"""
import argparse, base64, functools, http.server, json, os, random, re, shutil, socketserver, stat, subprocess, sys, tempfile
import threading, time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "..", "fixtures", "docker-cli", "corpus.jsonl")
GRANTED = ["nvidia.com/gpu=all", "rediacc.io/dri=renderD128"]

# Refusals of bodies dockerd would accept and the policy allows, on purpose (docs/decisions.md,
# "Refusals the oracle finds harmless"). A refusal matching none of these fails the run.
DELIBERATE = [
    ("folded duplicate keys", r"two keys that Docker reads as one"),
    ("cdi request with Count or Options", r"CDI device request with (a Count|Options)"),
    ("cdi annotation (Docker 26 applies it, 20.10 ignores it)", r"annotation \"cdi\.k8s\.io/"),
    ("non-ASCII in a string dockerd reads as U+FFFD", r"not valid UTF-8"),
    ("runtime spelled other than runc", r"runtime \""),
    ("volume option spelled in another case", r"a volume with option"),
    ("security option that a later one of the same key overrides", r"security option \""),
    ("unclean path in the request line", r"is not clean"),
    ("capability dropped that dockerd does not know", r"is no capability Docker knows"),
    ("empty CDI request", r"names no device"),
    ("a field the gate does not know, carrying a value (dockerd 20.10 ignores it, a newer one may not)",
     r"a field the gate does not know"),
    ("a value of the wrong type that dockerd ignores", r"is not a list|not a name|not text"),
    # This oracle does not run dockerd's mount validation (20.10's source lacks volume/mounts); the
    # gate's claim is held to dockerd 28.5's own parser by tests/admission/mount_spec_test.cc.
    ("a mount dockerd's own parser refuses", r"that dockerd would not take either"),
]

CAPS = ["CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID", "SETPCAP",
        "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
        "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
        "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
        "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF",
        "CHECKPOINT_RESTORE", "ALL", "all", "SYS_ADMINX", "CAP_SYS_ADMIN", ""]
# Runes whose case mapping is interesting to Go: the two that upper-case into ASCII, the Kelvin
# sign and long s of key folding, and look-alikes that must stay unknown.
CONFUSABLE = {"i": ["\u0131", "\u0130", "\uff49"], "s": ["\u017f", "\uff53"], "k": ["\u212a", "\u0137"], "a": ["\u0430"],
              "e": ["\u0117"]}

# The one directory repository "web" may bind from on the fixture machine: the strict default,
# /srv/rediacc-gpu/{repo}, as setup records it when no operator named others.
BIND_ROOT = "/srv/rediacc-gpu/web"

PATHS = ["/dev", "/dev/dri", "/dev/dri/renderD128", "/sys", "/sys/bus/pci", "/proc", "/proc/self/root/dev",
         "/proc/1/root", "/proc/self/cwd", "/run/udev", "/var/run/udev", "/etc", "/etc/cdi", "/var/run/cdi",
         "/run/cdi", "/etc/rediacc/gpu", "/etc/rediacc/gpu/grants.json", "/run/docker.sock", "/var/run/docker.sock",
         "/run/containerd/containerd.sock", "/run/systemd/private", "/", "/run", "/var", "/var/lib",
         "/var/lib/docker/volumes", "/etc/docker/daemon.json", "/home/t/data", "/srv/data", "/srv/data/new/dir",
         "/home/t/link-sys", "/home/t/link-dev/dri", "/home/t/link-proc", "/home/t/link-cdi", "/home/t/link-up",
         "/home/t/link-sys/newdir", "/srv/volumes/vol/_data/escape", "/srv/volumes/vol/_data/ok", "/srv/node",
         "/opt/cdi-alias", "/opt/cdi-alias/x.json", "/home/t/loop", "/home/t/relative-dev", "/usr/share",
         "/home/t/link-home", BIND_ROOT, BIND_ROOT + "/data", BIND_ROOT + "/new/dir", BIND_ROOT + "/link-sys",
         BIND_ROOT + "/link-up", BIND_ROOT + "/link-data", BIND_ROOT + "/link-dev/dri", BIND_ROOT + "/node",
         BIND_ROOT + "x", "/srv/rediacc-gpu", "/home/t/link-in", "/home/t/link-in/sub"]

SECOPT_KEYS = ["label", "apparmor", "seccomp", "no-new-privileges", "writable-cgroups", "systempaths", "LABEL",
               "Seccomp", "label ", ""]
SECOPT_VALUES = ["disable", "type:spc_t", "type:unconfined_t", "level:s0-s0:c0.c1023", "user:system_u", "unconfined",
                 "docker-default", "other-profile", "builtin", '{"defaultAction":"SCMP_ACT_ALLOW"}',
                 '{"defaultAction":"SCMP_ACT_ERRNO","syscalls":[{"names":["mount"],"action":"SCMP_ACT_ALLOW"}]}',
                 "true", "false", "1", "0", "TRUE", "f", "yes", ""]


def non_bind_mount_source(msg, facts):
    """A `Source` on a mount dockerd does not bind (a volume, a tmpfs, a type it rejects) is
    judged as a bind anyway; a bind mount's source the oracle judged harmless is not excused."""
    m = re.search(r'a mount of "([^"]*)"', msg)
    if not m:
        return None
    source = os.path.normpath(m.group(1)).replace("//", "/")
    if source in (facts.get("host_sources") or []):
        return None
    return "mount source of a non-bind mount"


def make_machine(root):
    """A fixture machine with the links a distribution has and those a tenant could make."""
    def mkdir(p):
        os.makedirs(root + p, exist_ok=True)

    def link(p, target):
        mkdir(os.path.dirname(p))
        os.symlink(target, root + p)

    for d in ["/dev/dri", "/sys/bus/pci", "/run/udev", "/etc/cdi", "/run/cdi", "/etc/rediacc/gpu", "/run/systemd",
              "/run/containerd", "/etc/docker", "/var/lib/docker/volumes", "/home/t/data", "/srv/data",
              "/srv/volumes/vol/_data/ok", "/usr/share", "/proc/1"]:
        mkdir(d)
    link("/var/run", "../run")
    link("/proc/self", "1")
    link("/proc/1/root", "/")
    link("/proc/1/cwd", "/")
    link("/home/t/link-sys", "/sys")
    link("/home/t/link-dev", "../../dev")
    link("/home/t/link-proc", "/proc/self/root/etc")
    link("/home/t/link-cdi", "/etc/cdi")
    link("/home/t/link-up", "../..")
    link("/home/t/link-home", "data")
    link("/home/t/relative-dev", "../../../../../dev")
    link("/home/t/loop", "loop")
    link("/srv/volumes/vol/_data/escape", "/sys")
    link("/opt/cdi-alias", "/etc/cdi")
    # A tenant's own directory holds links out of it, and a link elsewhere points into it.
    mkdir(BIND_ROOT + "/data")
    link(BIND_ROOT + "/link-sys", "/sys")
    link(BIND_ROOT + "/link-up", "..")
    link(BIND_ROOT + "/link-data", "data")
    link(BIND_ROOT + "/link-dev", "../../../dev")
    link("/home/t/link-in", BIND_ROOT + "/data")
    for f in ["/run/docker.sock", "/etc/docker/daemon.json", "/dev/dri/renderD128"]:
        open(root + f, "w").close()
    device_node = False
    try:
        for node in ("/srv/node", BIND_ROOT + "/node"):
            os.mknod(root + node, 0o600 | stat.S_IFCHR, os.makedev(226, 128))
        device_node = True
    except PermissionError:
        for node in ("/srv/node", BIND_ROOT + "/node"):
            open(root + node, "w").close()
    grants = {"schema": 1, "grants": [{"repo": "web", "device": d, "exclusive": False,
                                       "granted_at": "2026-11-30T00:00:00Z"} for d in GRANTED]}
    with open(root + "/etc/rediacc/gpu/grants.json", "w") as f:
        json.dump(grants, f)
    # Each granted name is defined (the gate refuses a granted name no spec defines), by a node of
    # no GPU driver, numbered in the spec itself: /dev/null's 1:3, which /proc/devices calls mem.
    for kind, name in (n.split("=") for n in GRANTED):
        with open(root + "/etc/cdi/" + kind.replace("/", "-") + ".yaml", "w") as f:
            f.write("cdiVersion: 0.5.0\nkind: %s\ndevices:\n- name: %s\n  containerEdits:\n"
                    "    deviceNodes: [{path: /dev/fuzz-null, type: c, major: 1, minor: 3}]\n" % (kind, name))
    with open(root + "/proc/devices", "w") as f:
        f.write("Character devices:\n  1 mem\n\nBlock devices:\n  8 sd\n")
    with open(root + "/etc/hostname", "w") as f:
        f.write("fuzz\n")
    return device_node


# A JSON document as a tree that keeps key order, duplicate keys and the raw text of each key.
class Obj:
    def __init__(self, members):
        self.members = members  # [(raw key text, value)]


# The fuzzer spends most of its time on these few pure functions of a short string or a scalar:
# cached, and the common scalars written directly, they cost a fraction (the cases are the same).
@functools.lru_cache(maxsize=None)
def key_text(key):
    return json.dumps(key)[1:-1]


def tree(value):
    if isinstance(value, dict):
        return Obj([(key_text(k), tree(v)) for k, v in value.items()])
    if isinstance(value, list):
        return [tree(v) for v in value]
    return value


def dump(value):
    if isinstance(value, Obj):
        return "{" + ",".join('"' + k + '":' + dump(v) for k, v in value.members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(v) for v in value) + "]"
    if isinstance(value, RawString):
        return '"' + value.raw + '"'
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if type(value) is int:
        return str(value)
    return json.dumps(value, ensure_ascii=False)


class RawString:
    """A string already written as JSON text (escapes chosen by the mutator)."""
    def __init__(self, raw):
        self.raw = raw


@functools.lru_cache(maxsize=None)
def go_name(key):
    """The ASCII field name Go would match for a raw key, as far as the mutator spelled it."""
    text = json.loads('"' + key + '"')
    return text.replace("\u017f", "s").replace("\u212a", "k").upper()


def find(obj, name):
    for i, (k, v) in enumerate(obj.members):
        if go_name(k) == name.upper():
            return i
    return -1


def respell_key(rng, name):
    out = []
    for ch in name:
        r = rng.random()
        if ch.lower() == "s" and r < 0.15:
            out.append("\u017f" if rng.random() < 0.7 else "\\u017f")
        elif ch.lower() == "k" and r < 0.15:
            out.append("\u212a" if rng.random() < 0.7 else "\\u212a")
        elif r < 0.3:
            out.append(ch.swapcase())
        elif r < 0.38:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def escape_string(rng, text):
    out = []
    for ch in text:
        r = rng.random()
        if ch == "/" and r < 0.3:
            out.append("\\/" if rng.random() < 0.5 else "\\u002f")
        elif r < 0.05 and ch.isascii():
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(json.dumps(ch, ensure_ascii=False)[1:-1])
    return RawString("".join(out))


def cap_spelling(rng):
    name = rng.choice(CAPS)
    prefix = rng.choice(["", "", "CAP_", "cap_", "Cap_", "CAP_CAP_"]) if name not in ("ALL", "all") else ""
    text = prefix + name
    out = []
    for ch in text:
        r = rng.random()
        if ch.lower() in CONFUSABLE and r < 0.12:
            out.append(rng.choice(CONFUSABLE[ch.lower()]))
        elif r < 0.4:
            out.append(ch.lower())
        else:
            out.append(ch)
    return "".join(out)


def path_spelling(rng):
    p = rng.choice(PATHS)
    r = rng.random()
    if r < 0.15:
        p = p.replace("/", "//", 1)
    elif r < 0.25:
        p = p + "/"
    elif r < 0.35:
        p = "/srv/../" + p.lstrip("/")
    elif r < 0.45:
        p = p.replace("/", "/./", 1)
    elif r < 0.5 and p.count("/") > 1:
        p = p + "/x/.."
    return p


def secopt(rng):
    r = rng.random()
    if r < 0.15:
        return rng.choice(["disable", "no-new-privileges", "NO-NEW-PRIVILEGES", "no-new-privileges ", "label"])
    return rng.choice(SECOPT_KEYS) + rng.choice(["=", ":", "=", "=="]) + rng.choice(SECOPT_VALUES)


def strslice(rng, gen, n_max=3):
    if rng.random() < 0.25:
        return gen(rng)
    return [gen(rng) for _ in range(rng.randint(0, n_max))]


def dangerous_field(rng):
    """A HostConfig field and a value, harmful or not."""
    choice = rng.randrange(24)
    if choice == 0:
        return "Privileged", rng.choice([True, False, True])
    if choice in (1, 2, 3):
        return "CapAdd", strslice(rng, cap_spelling)
    if choice == 4:
        return "CapDrop", strslice(rng, cap_spelling)
    if choice in (5, 6):
        return "SecurityOpt", [secopt(rng) for _ in range(rng.randint(1, 2))]
    if choice == 7:
        return rng.choice(["MaskedPaths", "ReadonlyPaths"]), rng.choice([[], None, ["/proc/kcore"], ["/x"]])
    if choice == 8:
        return rng.choice(["PidMode", "IpcMode", "NetworkMode", "UsernsMode", "UTSMode", "CgroupnsMode"]), \
            rng.choice(["host", "HOST", "host ", "container:other", "private", "", "none", "bridge"])
    if choice == 9:
        return "CgroupParent", rng.choice(["", "system.slice", "/other-tenant"])
    if choice in (10, 11, 12, 13):
        mode = rng.choice(["", "", ":ro", ":rw", ":ro,z", ":Z", ":rslave"])
        binds = [path_spelling(rng) + ":/x" + mode]
        if rng.random() < 0.1:
            binds.append(path_spelling(rng))  # a target alone
        if rng.random() < 0.2:
            binds.append("named:/v")
        return "Binds", binds
    if choice in (14, 15):
        mount = {"Type": rng.choice(["bind", "bind", "volume", "tmpfs", "BIND"]), "Source": path_spelling(rng),
                 "Target": "/x"}
        if rng.random() < 0.3:
            mount["VolumeOptions"] = {"DriverConfig": {"Name": rng.choice(["local", "nfs", ""]),
                                                        "Options": rng.choice([{}, {"o": "bind"}, {"device": "/dev/sda"},
                                                                               {"size": "1G"}, {"O": "bind"}])}}
        return "Mounts", [mount]
    if choice == 16:
        return "Devices", [{"PathOnHost": rng.choice(["/dev/dri/renderD128", "nvidia.com/gpu=all", "/dev/kfd"]),
                            "PathInContainer": "/dev/x", "CgroupPermissions": "rwm"}]
    if choice == 17:
        return "DeviceCgroupRules", rng.choice([["c 226:* rwm"], [], None])
    if choice == 18:
        ids = [rng.choice(GRANTED + ["nvidia.com/gpu=0", "rediacc.io/amd=gpu0", "NVIDIA.COM/GPU=ALL"])
               for _ in range(rng.randint(0, 2))]
        req = {"Driver": rng.choice(["cdi", "cdi", "nvidia", "", "CDI"]), "DeviceIDs": ids}
        if rng.random() < 0.2:
            req["Count"] = rng.choice([0, -1, 1])
        return "DeviceRequests", [req]
    if choice == 19:
        return "Runtime", rng.choice(["runc", "nvidia", "RUNC", "", "io.containerd.runc.v2"])
    if choice == 20:
        return "VolumeDriver", rng.choice(["local", "nfs", ""])
    if choice == 21:  # a field no dockerd up to the gate's table has, or a key Go folds to none
        return rng.choice(["FutureDevices", "NetDevices", "Pr\u0131vileged", "DevicesX"]), \
            rng.choice([None, [], {}, "", 0, False, ["/dev/kfd"], True, {"eth0": {}}, "x", 1])
    return rng.choice(["GroupAdd", "Memory", "ShmSize"]), rng.choice([["video"], 1 << 30, 0])


def to_tree_value(rng, value):
    if isinstance(value, str) and rng.random() < 0.3:
        return escape_string(rng, value)
    if isinstance(value, dict):
        return Obj([(respell_key(rng, k) if rng.random() < 0.2 else k, to_tree_value(rng, v))
                    for k, v in value.items()])
    if isinstance(value, list):
        return [to_tree_value(rng, v) for v in value]
    return value


HOST_CONFIG_FIELDS = {"PRIVILEGED", "CAPADD", "CAPDROP", "SECURITYOPT", "MASKEDPATHS", "READONLYPATHS", "PIDMODE",
                      "IPCMODE", "NETWORKMODE", "USERNSMODE", "UTSMODE", "CGROUPNSMODE", "CGROUPPARENT", "BINDS",
                      "MOUNTS", "DEVICES", "DEVICECGROUPRULES", "DEVICEREQUESTS", "RUNTIME", "VOLUMEDRIVER",
                      "GROUPADD", "MEMORY", "SHMSIZE"}


def legacy_beside_host_config(doc):
    """Top-level HostConfig fields while a HostConfig object stands: dockerd ignores them, the
    gate checks them anyway."""
    names = [(go_name(k), v) for k, v in doc.members]
    return any(n == "HOSTCONFIG" and isinstance(v, Obj) for n, v in names) and \
        any(n in HOST_CONFIG_FIELDS for n, _ in names)


def legacy_at_top_level(doc):
    """A HostConfig field at the body's top level: dockerd 26.1 and earlier read it there when no
    HostConfig object stands, 27 and later (API 1.44's types) never; the gate checks it anyway."""
    return any(go_name(k) in HOST_CONFIG_FIELDS for k, _ in doc.members)


def mutate_create(rng, doc):
    hc_index = find(doc, "HostConfig")
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(10)
        name, value = dangerous_field(rng)
        entry = (respell_key(rng, name) if rng.random() < 0.3 else name, to_tree_value(rng, value))
        hc = doc.members[hc_index][1] if hc_index >= 0 else None
        if op <= 4 and isinstance(hc, Obj):
            at = find(hc, name)
            if at >= 0 and rng.random() < 0.7:
                hc.members[at] = entry
            else:
                hc.members.append(entry)
        elif op <= 6:  # legacy: at the top level
            doc.members.append(entry)
        elif op == 7 and hc_index >= 0:  # HostConfig gone or null: the legacy fields apply
            if rng.random() < 0.5:
                doc.members[hc_index] = (doc.members[hc_index][0], None)
            else:
                del doc.members[hc_index]
            hc_index = -1
            doc.members.append(entry)
        elif op == 8 and rng.random() < 0.25:  # Config.WorkingDir (CVE-2024-21626's door)
            doc.members.append((respell_key(rng, "WorkingDir"),
                                to_tree_value(rng, rng.choice(["/proc/self/fd/7", "/proc", "/work", "proc/1/cwd",
                                                                "//proc/../proc/self", "/srv/proc"]))))
        elif op == 8 and hc_index >= 0:  # a second HostConfig, merged by Go's decoder
            doc.members.append((respell_key(rng, "HostConfig"), Obj([entry])))
        else:  # respell an existing key
            i = rng.randrange(len(doc.members))
            k, v = doc.members[i]
            doc.members[i] = (respell_key(rng, json.loads('"' + k + '"')), v)


def mutate_exec(rng):
    fields = [("Cmd", ["true"]), ("AttachStdout", True)]
    if rng.random() < 0.3:
        fields.append((respell_key(rng, "WorkingDir"), rng.choice(["/proc/self/fd/8", "/tmp", "/proc"])))
    if rng.random() < 0.6:
        fields.append((respell_key(rng, "Privileged"), rng.choice([True, False, None])))
    if rng.random() < 0.2:
        fields.append(("Privileged", rng.choice([True, False])))
    return Obj(fields)



class _StoredContainer(http.server.BaseHTTPRequestHandler):
    inspect = b""

    def do_GET(self):
        # The gate asks /info for the data root, where a named volume's stored options are read;
        # the fixture machine has no volumes there, so every named volume is a plain directory.
        if self.path.endswith("/info"):
            found, body = True, b'{"DockerRootDir":"/var/lib/docker"}'
        else:
            # "abc" is the container --volumes-from names, "other" the one whose network a mutant
            # joins: both plain containers on the daemon's bridge.
            found = self.path.startswith(("/containers/abc/json", "/containers/other/json"))
            body = self.inspect if found else b'{"message":"No such container"}'
        self.send_response(200 if found else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def address_string(self):
        return "docker.sock"

    def log_message(self, *args):
        pass


class _UnixHTTPServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class stored_container_daemon:
    """A unix-socket HTTP server answering GET /containers/{abc,other}/json and /info, for the duration of a with."""

    def __init__(self, path):
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "fixtures", "docker-inspect", "plain-26.1.5.json"), "rb") as f:
            _StoredContainer.inspect = f.read()
        self.path = path

    def __enter__(self):
        self.server = _UnixHTTPServer(self.path, _StoredContainer)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return "unix://" + self.path

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()
        os.unlink(self.path)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--oracle", required=True)
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--count", type=int, default=30000)
    ap.add_argument("--show", type=int, default=5, help="examples printed per failing class")
    ap.add_argument("--top-level-ignored", action="store_true",
                    help="the oracle's dockerd reads no HostConfig field at the body's top level (27 and later)")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    seeds = []
    with open(CORPUS) as f:
        for line in f:
            j = json.loads(line)
            if j.get("RequestBody") and j["RequestUri"].endswith("/containers/create"):
                seeds.append(json.loads(base64.b64decode(j["RequestBody"])))

    started = time.time()
    root = tempfile.mkdtemp(prefix="rgpu-gate-fuzz-")
    try:
        device_node = make_machine(root)
        mutants = []  # (route, body bytes, the deliberate class its shape alone explains)
        for _ in range(args.count):
            if rng.random() < 0.05:
                mutants.append(("exec", dump(mutate_exec(rng)).encode(), None))
                continue
            doc = tree(rng.choice(seeds))
            mutate_create(rng, doc)
            text = dump(doc)
            shape = "legacy top-level field beside HostConfig" if legacy_beside_host_config(doc) else None
            if shape is None and args.top_level_ignored and legacy_at_top_level(doc):
                shape = "legacy top-level field (dockerd 26.1 reads it, this dockerd ignores it)"
            if rng.random() < 0.02:
                text += rng.choice([" ", "\n", "{}", "x"])
                shape = shape or (None if text[-1].isspace() else "data after the body's JSON value")
            mutants.append(("create", text.encode(), shape))

        # Every rune Go upper-cases into ASCII, asked of Go itself, in place of its letter in each
        # capability name, so the gate's normalisation is checked for all of them, not a sample.
        runes = subprocess.run([args.oracle, "-upper-ascii"], capture_output=True, check=True, text=True).stdout
        for line in runes.split("\n"):
            if not line:
                continue
            rune, upper = (chr(int(x)) for x in line.split())
            for cap in CAPS:
                if upper in cap:
                    spelled = cap.replace(upper, rune, 1)
                    body = json.dumps({"Image": "img", "HostConfig": {"CapAdd": [spelled]}}, ensure_ascii=False)
                    mutants.append(("create", body.encode(), None))

        uris = {"create": "/v1.41/containers/create", "exec": "/v1.41/containers/abc/exec"}
        gate_in = "".join(json.dumps({"RequestMethod": "POST", "RequestUri": uris[r],
                                      "RequestHeaders": {"Content-Type": "application/json"},
                                      "RequestBody": base64.b64encode(b).decode()}) + "\n" for r, b, _ in mutants)
        oracle_in = "".join(r + "\t" + base64.b64encode(b).decode() + "\n" for r, b, _ in mutants)
        # An exec is judged on its own body and on the container it runs in: the gate asks the
        # repository's daemon for it, here a stand-in storing container abc as dockerd 26.1.5 does
        # for `docker create img true`, so only the mutant's body decides.
        with stored_container_daemon(os.path.join(root, "docker.sock")) as host:
            gate = subprocess.run([args.binary, "admit", "--repo", "web", "--jsonl", "--root", root,
                                   "--docker-host", host], input=gate_in.encode(), capture_output=True, check=True)
        oracle = subprocess.run([args.oracle, "-root", root, "-granted", ",".join(GRANTED), "-bind-roots", BIND_ROOT],
                                input=oracle_in.encode(), capture_output=True, check=True)
        answers = [json.loads(l) for l in gate.stdout.decode().splitlines()]
        verdicts = [json.loads(l) for l in oracle.stdout.decode().splitlines()]
        assert len(answers) == len(mutants) == len(verdicts), (len(answers), len(mutants), len(verdicts))

        tally = Counter()
        classes = Counter()
        bypasses, unexplained = [], []
        for (route, body, shape), a, v in zip(mutants, answers, verdicts):
            forbidden = v["forbidden"] or []
            if v["error"] is not None:
                tally["dockerd refuses (decode or validation error)"] += 1
            elif forbidden:
                tally["forbidden by the policy"] += 1
                if a["Allow"]:
                    bypasses.append((body, forbidden))
            else:
                tally["harmless"] += 1
                if not a["Allow"]:
                    cls = next((c for c, rx in DELIBERATE if re.search(rx, a["Msg"])), None)
                    cls = cls or non_bind_mount_source(a["Msg"], v["facts"])
                    if cls is None:
                        cls = shape
                    if cls is None:
                        unexplained.append((body, a["Msg"], v["facts"]))
                    else:
                        classes[cls] += 1
            tally["gate allows" if a["Allow"] else "gate refuses"] += 1
            if a["Allow"] and v["facts"] and v["facts"].get("host_sources"):
                tally["gate allows, binding from the repository's root"] += 1

        print("gate_fuzz: seed %d, %d mutants, %.1f s, device node %s" %
              (args.seed, len(mutants), time.time() - started, "made" if device_node else "NOT made (not root)"))
        for k, n in sorted(tally.items()):
            print("  %-48s %d" % (k, n))
        print("refusals of harmless bodies, by deliberate class:")
        for k, n in classes.most_common():
            print("  %-60s %d" % (k, n))
        for body, why in bypasses[: args.show]:
            print("BYPASS: the gate allowed %s\n  dockerd would apply: %s" % (body.decode(errors="replace"), why))
        for body, msg, facts in unexplained[: args.show]:
            print("UNEXPLAINED REFUSAL: %s\n  gate: %s\n  oracle facts: %s" %
                  (body.decode(errors="replace"), msg, json.dumps(facts)))
        print("%d passed, %d failed" % (len(mutants) - len(bypasses) - len(unexplained),
                                         len(bypasses) + len(unexplained)))
        # A run where no bind inside the root got through would prove the allow-list only refuses.
        if not tally["gate allows, binding from the repository's root"]:
            print("no mutant bound a directory under %s and was allowed: the fuzz no longer tries the allowed side"
                  % BIND_ROOT)
            return 1
        return 1 if bypasses or unexplained else 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
