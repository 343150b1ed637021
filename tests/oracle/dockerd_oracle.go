// dockerd-oracle: what a dockerd (its own Go source from golang-github-docker-docker-dev: Debian
// 12's 20.10 built with docker2010_bodies.go, unstable's 28.5 with docker28_bodies.go) would apply
// for a request body, and whether rediacc-gpu's policy forbids it. The gate's tests judge the gate with it: every body the gate allows must be
// one this program finds harmless or one dockerd refuses.
//
// Input: one request a line, "ROUTE<TAB>BASE64-BODY", ROUTE being create or exec.
// Output: one JSON object a line: {"error": dockerd's refusal or null, "forbidden": [reasons],
// "facts": {...}}.
//
// Decoding is dockerd's own (runconfig.ContainerDecoder, encoding/json into the API types) and so
// is capability upper-casing (strings.ToUpper). What Debian's source does not ship in importable
// form is mirrored here, small and cited: parseSecurityOpt (daemon/daemon_unix.go), the Linux
// bind parser (volume/mounts/linux_parser.go), TweakCapabilities over every capability Linux 5.9
// knows (oci/caps/utils.go; Docker 26 on a new kernel accepts BPF, PERFMON, CHECKPOINT_RESTORE).
// The policy below is written from docs/capabilities.md and docs/gate-limits.md, not from the
// gate's C++.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/sysinfo"
	"github.com/docker/docker/runconfig"
)

// capabilities(7), kernel order, Linux 5.9.
var allCaps = []string{"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID",
	"SETUID", "SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW",
	"IPC_LOCK", "IPC_OWNER", "SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN",
	"SYS_BOOT", "SYS_NICE", "SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE",
	"AUDIT_CONTROL", "SETFCAP", "MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND",
	"AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE"}

// oci/caps/defaults.go
var defaultCaps = []string{"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FSETID", "CAP_FOWNER", "CAP_MKNOD",
	"CAP_NET_RAW", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP", "CAP_SETPCAP", "CAP_NET_BIND_SERVICE",
	"CAP_SYS_CHROOT", "CAP_KILL", "CAP_AUDIT_WRITE"}

// The policy (docs/capabilities.md): what a repository's container may hold.
var allowedCaps = map[string]bool{}

func init() {
	for _, c := range defaultCaps {
		allowedCaps[c] = true
	}
	for _, c := range []string{"LINUX_IMMUTABLE", "NET_BROADCAST", "NET_ADMIN", "IPC_LOCK", "IPC_OWNER",
		"SYS_NICE", "SYS_RESOURCE", "LEASE"} {
		allowedCaps["CAP_"+c] = true
	}
}

// Host paths no bind may reach, contain, or lie under (docs/gate-limits.md).
var protectedPaths = []string{"/dev", "/sys", "/proc", "/run/udev", "/etc/cdi", "/var/run/cdi", "/run/cdi",
	"/etc/rediacc", "/run/docker.sock", "/var/run/docker.sock", "/run/docker", "/var/run/docker", "/etc/docker",
	"/var/lib/docker", "/run/containerd", "/var/run/containerd", "/var/lib/containerd", "/run/containers",
	"/var/lib/containers", "/etc/containers", "/run/podman", "/var/run/podman", "/run/crun", "/run/runc",
	"/run/user", "/run/systemd", "/run/dbus"}

type facts struct {
	Privileged        bool       `json:"privileged"`
	Devices           []string   `json:"devices"`
	DeviceRequests    []string   `json:"device_requests"`
	DeviceCgroupRules []string   `json:"device_cgroup_rules"`
	Capabilities      []string   `json:"capabilities"`
	SecurityOpt       []string   `json:"security_opt"`
	MaskedPaths       *[]string  `json:"masked_paths"`
	ReadonlyPaths     *[]string  `json:"readonly_paths"`
	Namespaces        [4]string  `json:"namespaces"` // pid, ipc, network, userns
	CgroupParent      string     `json:"cgroup_parent"`
	Runtime           string     `json:"runtime"`
	HostSources       []string   `json:"host_sources"`
	VolumeDrivers     []string   `json:"volume_drivers"`
	VolumeOptions     []string   `json:"volume_options"`
	Resolved          [][]string `json:"resolved"`
	WorkingDir        string     `json:"working_dir"`
}

// runc's CVE-2024-21626: a working directory of /proc/self/fd/N reached the host's namespace.
func judgeWorkingDir(dir string) []string {
	if dir != "" && within(path.Clean("/"+dir), "/proc") {
		return []string{"working directory under /proc"}
	}
	return nil
}

type answer struct {
	Error     *string  `json:"error"`
	Forbidden []string `json:"forbidden"`
	Facts     *facts   `json:"facts"`
}

var (
	upperASCII = flag.Bool("upper-ascii", false, "print every non-ASCII rune that Go's strings.ToUpper maps into ASCII, and exit")
	root       = flag.String("root", "/", "the machine's root, where host paths are resolved")
	granted    = flag.String("granted", "", "comma-separated CDI names the repository holds")
	bindRoots  = flag.String("bind-roots", "", "comma-separated directories the repository may bind from, as the machine resolves them; none given: any place the fixed rules allow")
)

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// oci/caps.NormalizeLegacyCapabilities and TweakCapabilities, over allCaps.
func normalize(list []string) ([]string, error) {
	var out []string
	for _, c := range list {
		c = strings.ToUpper(c)
		if c == "ALL" {
			out = append(out, c)
			continue
		}
		if !strings.HasPrefix(c, "CAP_") {
			c = "CAP_" + c
		}
		if !contains(allCaps, strings.TrimPrefix(c, "CAP_")) {
			return nil, fmt.Errorf("unknown capability: %q", c)
		}
		out = append(out, c)
	}
	return out, nil
}

func tweak(adds, drops []string, privileged bool) ([]string, error) {
	every := make([]string, len(allCaps))
	for i, c := range allCaps {
		every[i] = "CAP_" + c
	}
	if privileged {
		return every, nil
	}
	if len(adds) == 0 && len(drops) == 0 {
		return defaultCaps, nil
	}
	d, err := normalize(drops)
	if err != nil {
		return nil, err
	}
	a, err := normalize(adds)
	if err != nil {
		return nil, err
	}
	var out []string
	switch {
	case contains(a, "ALL"):
		for _, c := range every {
			if !contains(d, c) {
				out = append(out, c)
			}
		}
	case contains(d, "ALL"):
		out = a
	default:
		for _, c := range defaultCaps {
			if !contains(d, c) {
				out = append(out, c)
			}
		}
		out = append(out, a...)
	}
	return out, nil
}

// daemon/daemon_unix.go parseSecurityOpt (20.10; 26 adds nothing a repository may use).
type security struct {
	labels            []string
	apparmor, seccomp string
	noNewPrivileges   *bool
}

func parseSecurityOpt(opts []string) (security, error) {
	var s security
	for _, opt := range opts {
		if opt == "no-new-privileges" {
			t := true
			s.noNewPrivileges = &t
			continue
		}
		if opt == "disable" {
			s.labels = append(s.labels, "disable")
			continue
		}
		var con []string
		if strings.Contains(opt, "=") {
			con = strings.SplitN(opt, "=", 2)
		} else if strings.Contains(opt, ":") {
			con = strings.SplitN(opt, ":", 2)
		}
		if len(con) != 2 {
			return s, fmt.Errorf("invalid --security-opt 1: %q", opt)
		}
		switch con[0] {
		case "label":
			s.labels = append(s.labels, con[1])
		case "apparmor":
			s.apparmor = con[1]
		case "seccomp":
			s.seccomp = con[1]
		case "no-new-privileges":
			b, err := strconv.ParseBool(con[1])
			if err != nil {
				return s, fmt.Errorf("invalid --security-opt 2: %q", opt)
			}
			s.noNewPrivileges = &b
		default:
			return s, fmt.Errorf("invalid --security-opt 2: %q", opt)
		}
	}
	return s, nil
}

// volume/mounts/linux_parser.go: the host source of a Binds entry, "" for a volume or a target alone.
func bindSource(raw string) (string, error) {
	arr := strings.SplitN(raw, ":", 4)
	if arr[0] == "" {
		return "", fmt.Errorf("invalid spec: %s", raw)
	}
	if len(arr) == 1 {
		return "", nil
	}
	if len(arr) > 3 {
		return "", fmt.Errorf("invalid spec: %s", raw)
	}
	if filepath.IsAbs(arr[0]) {
		return path.Clean(arr[0]), nil
	}
	return "", nil
}

// The machine path `p` names once every link is followed inside *root, the kernel's way; and
// every link passed on the way.
func resolve(p string) (string, []string, error) {
	var done, links []string
	pending := strings.Split(p, "/")
	for count := 0; len(pending) > 0; {
		part := pending[0]
		pending = pending[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(done) > 0 {
				done = done[:len(done)-1]
			}
			continue
		}
		done = append(done, part)
		here := "/" + strings.Join(done, "/")
		host := filepath.Join(*root, here)
		if fi, err := os.Lstat(host); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			continue
		}
		if count++; count > 40 {
			return "", nil, fmt.Errorf("too many links")
		}
		target, err := os.Readlink(host)
		if err != nil {
			return "", nil, err
		}
		links = append(links, here)
		done = done[:len(done)-1]
		if strings.HasPrefix(target, "/") {
			done = nil
		}
		pending = append(strings.Split(target, "/"), pending...)
	}
	return "/" + strings.Join(done, "/"), links, nil
}

func dedupe(sorted []string) []string {
	var out []string
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func within(p, dir string) bool {
	return dir == "/" || p == dir || strings.HasPrefix(p, dir+"/")
}

func judgeHostPath(p string, f *facts) []string {
	var why []string
	resolved, links, err := resolve(p)
	if err != nil {
		return []string{"host path " + p + " does not resolve"}
	}
	f.Resolved = append(f.Resolved, []string{p, resolved})
	for _, l := range append(links, p, resolved) {
		if within(l, "/proc") {
			why = append(why, "host path "+p+" passes through /proc")
		}
	}
	for _, q := range protectedPaths {
		rq, _, _ := resolve(q)
		for _, x := range []string{q, rq} {
			if within(p, x) || within(x, p) || within(resolved, x) || within(x, resolved) {
				why = append(why, "host path "+p+" reaches "+x)
			}
		}
	}
	if fi, err := os.Stat(filepath.Join(*root, resolved)); err == nil && fi.Mode()&os.ModeDevice != 0 {
		why = append(why, "host path "+p+" is a device node")
	}
	// The policy allows a bind by where it lands, never by what it avoids: outside every root the
	// repository may bind from, it is forbidden whatever it reaches.
	if *bindRoots != "" {
		inside := false
		for _, r := range strings.Split(*bindRoots, ",") {
			inside = inside || within(resolved, r)
		}
		if !inside {
			why = append(why, "host path "+p+" lands at "+resolved+", outside the bind roots")
		}
	}
	return why
}

func judgeHostConfig(hc *container.HostConfig, f *facts, grants map[string]bool) (forbidden []string, failure error) {
	f.Privileged = hc.Privileged
	if hc.Privileged {
		forbidden = append(forbidden, "privileged")
	}
	for _, d := range hc.Devices {
		f.Devices = append(f.Devices, d.PathOnHost)
		forbidden = append(forbidden, "device "+d.PathOnHost)
	}
	for _, r := range hc.DeviceRequests {
		f.DeviceRequests = append(f.DeviceRequests, r.Driver+":"+strings.Join(r.DeviceIDs, ","))
		if r.Driver != "cdi" {
			forbidden = append(forbidden, "device request with driver "+r.Driver)
			continue
		}
		for _, id := range r.DeviceIDs {
			if !grants[id] {
				forbidden = append(forbidden, "ungranted CDI device "+id)
			}
		}
	}
	for _, rule := range hc.DeviceCgroupRules {
		f.DeviceCgroupRules = append(f.DeviceCgroupRules, rule)
		forbidden = append(forbidden, "device cgroup rule")
	}
	if hc.Runtime != "" && hc.Runtime != "runc" {
		forbidden = append(forbidden, "runtime "+hc.Runtime)
	}
	f.Runtime = hc.Runtime
	capSet, err := tweak(hc.CapAdd, hc.CapDrop, hc.Privileged)
	if err != nil {
		return forbidden, err
	}
	f.Capabilities = capSet
	for _, c := range capSet {
		if !allowedCaps[c] {
			forbidden = append(forbidden, "capability "+c)
		}
	}
	f.SecurityOpt = hc.SecurityOpt
	sec, err := parseSecurityOpt(hc.SecurityOpt)
	if err != nil {
		return forbidden, err
	}
	if len(sec.labels) > 0 {
		forbidden = append(forbidden, "SELinux label options")
	}
	if sec.apparmor != "" && sec.apparmor != "docker-default" {
		forbidden = append(forbidden, "AppArmor profile "+sec.apparmor)
	}
	if sec.seccomp != "" {
		forbidden = append(forbidden, "seccomp profile")
	}
	if sec.noNewPrivileges != nil && !*sec.noNewPrivileges {
		forbidden = append(forbidden, "no-new-privileges=false")
	}
	if hc.MaskedPaths != nil {
		f.MaskedPaths = &hc.MaskedPaths
		forbidden = append(forbidden, "MaskedPaths set")
	}
	if hc.ReadonlyPaths != nil {
		f.ReadonlyPaths = &hc.ReadonlyPaths
		forbidden = append(forbidden, "ReadonlyPaths set")
	}
	f.Namespaces = [4]string{string(hc.PidMode), string(hc.IpcMode), string(hc.NetworkMode), string(hc.UsernsMode)}
	if hc.PidMode.IsHost() {
		forbidden = append(forbidden, "host PID namespace")
	}
	if hc.IpcMode.IsHost() {
		forbidden = append(forbidden, "host IPC namespace")
	}
	if hc.NetworkMode.IsHost() {
		forbidden = append(forbidden, "host network namespace")
	}
	if hc.UsernsMode.IsHost() {
		forbidden = append(forbidden, "host user namespace")
	}
	f.CgroupParent = hc.CgroupParent
	if hc.CgroupParent != "" {
		forbidden = append(forbidden, "cgroup parent")
	}
	var sources []string
	for _, b := range hc.Binds {
		src, err := bindSource(b)
		if err != nil {
			return forbidden, err
		}
		if src != "" {
			sources = append(sources, src)
		}
	}
	for _, m := range hc.Mounts {
		if m.Type == "bind" {
			if !filepath.IsAbs(m.Source) {
				return forbidden, fmt.Errorf("invalid mount config: relative bind source")
			}
			sources = append(sources, path.Clean(m.Source))
		}
		if m.VolumeOptions != nil && m.VolumeOptions.DriverConfig != nil {
			d := m.VolumeOptions.DriverConfig
			f.VolumeDrivers = append(f.VolumeDrivers, d.Name)
			if d.Name != "" && d.Name != "local" {
				forbidden = append(forbidden, "volume driver "+d.Name)
			}
			for k := range d.Options {
				f.VolumeOptions = append(f.VolumeOptions, k)
				if k == "device" || k == "o" || k == "type" {
					forbidden = append(forbidden, "volume option "+k)
				}
			}
		}
	}
	f.HostSources = sources
	for _, s := range sources {
		forbidden = append(forbidden, judgeHostPath(s, f)...)
	}
	if hc.VolumeDriver != "" && hc.VolumeDriver != "local" {
		f.VolumeDrivers = append(f.VolumeDrivers, hc.VolumeDriver)
		forbidden = append(forbidden, "volume driver "+hc.VolumeDriver)
	}
	return forbidden, nil
}

func decide(route string, body []byte, grants map[string]bool) answer {
	var a answer
	fail := func(err error) answer {
		msg := err.Error()
		a.Error = &msg
		return a
	}
	switch route {
	case "create":
		decoder := runconfig.ContainerDecoder{GetSysInfo: func() *sysinfo.SysInfo {
			si := &sysinfo.SysInfo{}
			si.CPURealtime = true
			return si
		}}
		cfg, hc, _, err := decoder.DecodeConfig(bytes.NewReader(body))
		if err != nil {
			return fail(err)
		}
		a.Facts = &facts{}
		if cfg != nil {
			a.Facts.WorkingDir = cfg.WorkingDir
			a.Forbidden = append(a.Forbidden, judgeWorkingDir(cfg.WorkingDir)...)
		}
		if hc == nil {
			break
		}
		forbidden, err := judgeHostConfig(hc, a.Facts, grants)
		a.Forbidden = append(a.Forbidden, forbidden...)
		if err != nil {
			return fail(err)
		}
	case "exec":
		var ec execBody
		if err := json.NewDecoder(bytes.NewReader(body)).Decode(&ec); err != nil {
			return fail(err)
		}
		a.Facts = &facts{Privileged: ec.Privileged, WorkingDir: ec.WorkingDir}
		if ec.Privileged {
			a.Forbidden = []string{"privileged exec"}
		}
		a.Forbidden = append(a.Forbidden, judgeWorkingDir(ec.WorkingDir)...)
	default:
		return fail(fmt.Errorf("unknown route %q", route))
	}
	sort.Strings(a.Forbidden)
	a.Forbidden = dedupe(a.Forbidden)
	return a
}

func main() {
	flag.Parse()
	if *upperASCII {
		for r := rune(0x80); r <= unicode.MaxRune; r++ {
			if u := []rune(strings.ToUpper(string(r))); len(u) == 1 && u[0] < 0x80 {
				fmt.Printf("%d %d\n", r, u[0])
			}
		}
		return
	}
	grants := map[string]bool{}
	for _, g := range strings.Split(*granted, ",") {
		if g != "" {
			grants[g] = true
		}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 4<<20), 4<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for in.Scan() {
		route, b64, _ := strings.Cut(in.Text(), "\t")
		body, err := base64.StdEncoding.DecodeString(b64)
		var a answer
		if err != nil {
			a = decide("", nil, grants)
		} else {
			a = decide(route, body, grants)
		}
		if err := enc.Encode(a); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
