#include "admission/container_judge.h"

#include <algorithm>
#include <array>
#include <span>
#include <tuple>
#include <utility>

#include "admission/capabilities.h"
#include "core/in_quotes.h"

namespace rgpu::admission {
namespace {

// The character devices every dockerd from 20.10 to 28.5 lets a container open (oci/defaults.go:
// null, zero, random, urandom, tty, console); the container's own /dev/pts and ptmx come from its
// devpts instance, not from these rules.
constexpr std::array<std::pair<std::int64_t, std::int64_t>, 6> kDockerDevices = {
    {{1, 3}, {1, 5}, {1, 8}, {1, 9}, {5, 0}, {5, 1}}};
// The TUN device, which a policy may allow (WireGuard).
constexpr std::pair<std::int64_t, std::int64_t> kTun = {10, 200};

// 'u' is the same character device as 'c' to the kernel.
std::string node_type(std::string_view type) { return type == "u" ? "c" : std::string(type); }

bool granted_node(const ContainerAllowance& a, std::string_view type, std::int64_t major, std::int64_t minor) {
  return std::any_of(a.granted_nodes.begin(), a.granted_nodes.end(), [&](const probe::NodeRef& n) {
    return node_type(n.type) == node_type(type) && n.major == major && n.minor == minor;
  });
}

bool tun_allowed(const ContainerAllowance& a, std::string_view type, std::int64_t major, std::int64_t minor) {
  return a.policy.tun_device && node_type(type) == "c" && std::pair{major, minor} == kTun;
}

constexpr const char* kCdiWay =
    "ask for a device by the CDI name the repository was granted (--device VENDOR/CLASS=NAME)";

Refusal judge_devices(const ContainerModel& m, const ContainerAllowance& a) {
  for (const auto& d : m.devices) {
    if (granted_node(a, d.type, d.major, d.minor) || tun_allowed(a, d.type, d.major, d.minor)) continue;
    return "refused: the container would get device node " + d.path + " (" + d.type + " " + std::to_string(d.major) +
           ":" + std::to_string(d.minor) + "), which no CDI name granted to the repository maps; " + kCdiWay + ".";
  }
  for (const auto& r : m.device_rules) {
    if (!r.allow) continue;
    const auto describe = [&] {
      return (r.type.empty() ? std::string("a") : r.type) + " " + (r.major ? std::to_string(*r.major) : "*") + ":" +
             (r.minor ? std::to_string(*r.minor) : "*") + " " + r.access;
    };
    const bool exact = (r.type == "c" || r.type == "b") && r.major && r.minor;
    const bool known_access =
        std::all_of(r.access.begin(), r.access.end(), [](char c) { return c == 'r' || c == 'w' || c == 'm'; });
    const bool docker_default =
        exact && r.type == "c" &&
        std::find(kDockerDevices.begin(), kDockerDevices.end(), std::pair{*r.major, *r.minor}) != kDockerDevices.end();
    if (exact && known_access &&
        (docker_default || granted_node(a, r.type, *r.major, *r.minor) || tun_allowed(a, r.type, *r.major, *r.minor)))
      continue;
    return "refused: the container's device cgroup would allow " + describe() +
           ", more than Docker's defaults and the repository's granted CDI names; " + kCdiWay + ".";
  }
  return std::nullopt;
}

bool same_hook(const ContainerHook& h, const cdi::CdiHook& granted) {
  return h.stage == granted.hook_name && h.path == granted.path && h.args == granted.args;
}

// dockerd 20.10 to 27 sets up a container's network from a prestart hook that runs the daemon's own
// binary: "/proc/PID/exe libnetwork-setkey -exec-root=DIR ID CONTROLLER".
bool daemon_hook(const ContainerHook& h, const ContainerModel& m, const ContainerAllowance& a) {
  return !a.daemon_hook_path.empty() && h.stage == "prestart" && h.path == a.daemon_hook_path && h.args.size() == 4 &&
         h.args[0] == "libnetwork-setkey" && h.args[1] == "-exec-root=" + a.daemon_exec_root && h.args[2] == m.id;
}

Refusal judge_hooks(const ContainerModel& m, const ContainerAllowance& a) {
  for (const auto& h : m.hooks) {
    if (daemon_hook(h, m, a)) continue;
    if (std::any_of(a.granted_hooks.begin(), a.granted_hooks.end(), [&](const auto& g) { return same_hook(h, g); }))
      continue;
    return "refused: the container would run " + in_quotes(h.path) + " on the host as its " + h.stage +
           " hook, which no CDI name granted to the repository carries; hooks come only with a granted name, "
           "reviewed when it was granted.";
  }
  return std::nullopt;
}

Refusal judge_capabilities(const ContainerModel& m, const ContainerAllowance& a) {
  const auto policy = capability_policy();
  for (const auto& cap : m.capabilities) {
    const std::string_view name = std::string_view(cap).starts_with("CAP_") ? std::string_view(cap).substr(4) : "";
    const auto rule = std::find_if(policy.begin(), policy.end(), [&](const auto& r) { return r.name == name; });
    if (rule == policy.end())
      return "refused: the container would hold capability " + in_quotes(cap) + ", which no kernel dockerd knows has.";
    if (rule->allowed || (rule->for_checkpoints && a.policy.checkpoint_capabilities)) continue;
    return "refused: the container would hold " + cap + " (" + std::string(rule->reason) +
           "); recreate it without --cap-add " + std::string(name) + ".";
  }
  return std::nullopt;
}

const ContainerNamespace* find_namespace(const ContainerModel& m, std::string_view type) {
  const auto it = std::find_if(m.namespaces.begin(), m.namespaces.end(), [&](const auto& n) { return n.type == type; });
  return it == m.namespaces.end() ? nullptr : &*it;
}

// A namespace the container shares with the host: none of its own, or one joined that is the host's.
bool shares_host(const ContainerModel& m, std::string_view type) {
  const auto* n = find_namespace(m, type);
  return !n || (n->path && n->joins_host.value_or(true));
}

Refusal judge_namespaces(const ContainerModel& m, const ContainerAllowance& a) {
  static constexpr std::string_view kKnown[] = {"mount", "network", "pid", "ipc", "uts", "user", "cgroup", "time"};
  for (const auto& n : m.namespaces) {
    if (std::find(std::begin(kKnown), std::end(kKnown), n.type) == std::end(kKnown))
      return "refused: the container asks for a namespace of type " + in_quotes(n.type) +
             ", which the gate does not know.";
    if (n.path && (n.type == "mount" || n.type == "user" || n.type == "cgroup" || n.type == "time"))
      return "refused: the container would join the " + n.type + " namespace at " + *n.path +
             ", which Docker never shares; recreate it.";
  }
  struct Shared {
    const char* type;
    bool allowed;
    const char* why;
  };
  const Shared kShared[] = {
      {"mount", false, "the host's mount namespace is the host's files"},
      {"pid", false, "its /proc/1/root is the host's root and every host process is in reach"},
      {"ipc", false, "it shares the host's and other tenants' shared memory"},
      {"network", a.policy.host_network, "it sniffs and binds the host's interfaces and loopback services"},
      {"cgroup", !a.private_cgroupns_default, "it shows the whole cgroup tree, every repository's containers"},
  };
  for (const auto& s : kShared) {
    if (s.allowed || !shares_host(m, s.type)) continue;
    return std::string("refused: the container would share the host's ") + s.type + " namespace: " + s.why +
           "; recreate it without that.";
  }
  return std::nullopt;
}

Refusal judge_security(const ContainerModel& m, const ContainerAllowance& a) {
  if (a.apparmor_enabled) {
    const std::string profile = m.apparmor_profile.value_or("");
    const bool ok = profile == "docker-default" || (profile == "unconfined" && a.policy.apparmor_unconfined);
    if (!ok)
      return "refused: the container would run under AppArmor profile " +
             in_quotes(profile.empty() ? "unconfined" : profile) + "; only docker-default is allowed" +
             (a.policy.apparmor_unconfined ? " (or unconfined)" : "") + ".";
  }
  if (!m.seccomp)
    return std::string(
        "refused: the container would run with no seccomp filter (seccomp=unconfined); recreate it without that "
        "option.");
  static constexpr std::string_view kClosed[] = {"SCMP_ACT_ERRNO", "SCMP_ACT_KILL", "SCMP_ACT_KILL_PROCESS",
                                                 "SCMP_ACT_KILL_THREAD", "SCMP_ACT_TRAP"};
  if (std::find(std::begin(kClosed), std::end(kClosed), m.seccomp->default_action) == std::end(kClosed))
    return "refused: the container's seccomp filter lets every syscall it does not name through (" +
           m.seccomp->default_action + "); recreate it with Docker's default profile.";
  if (!m.seccomp->listener_path.empty())
    return "refused: the container's seccomp filter would be handed to " + in_quotes(m.seccomp->listener_path) +
           " on the host; recreate it with Docker's default profile.";
  if (m.selinux_label && !m.selinux_label->empty() && m.selinux_label->find(":container_t:") == std::string::npos)
    return "refused: the container would run with SELinux label " + in_quotes(*m.selinux_label) +
           ", not Docker's container_t; recreate it without a label option.";
  for (const auto& [list, defaults, what] :
       {std::tuple{&m.masked_paths, std::span<const char* const>(kDefaultMaskedPaths), "masked"},
        std::tuple{&m.readonly_paths, std::span<const char* const>(kDefaultReadonlyPaths), "read-only"}}) {
    for (const std::string_view path : defaults) {
      if (std::find(list->begin(), list->end(), path) != list->end()) continue;
      return "refused: the container's " + std::string(path) + " would not be " + what +
             " as Docker keeps it in every container (systempaths=unconfined, or an edited hostconfig.json); "
             "recreate it without that option.";
    }
  }
  return std::nullopt;
}

// The filesystems Docker and BuildKit mount that are not binds, each where it goes: a second /proc
// elsewhere would show what the masked paths hide, a writable /sys or cgroup tree the host's.
Refusal judge_filesystem(const ContainerMount& mount) {
  struct Place {
    std::string_view type, destination;
    bool read_only;
  };
  static constexpr Place kPlaces[] = {
      {"proc", "/proc", false},           {"sysfs", "/sys", true},
      {"cgroup", "/sys/fs/cgroup", true}, {"cgroup2", "/sys/fs/cgroup", true},
      {"devpts", "/dev/pts", false},      {"mqueue", "/dev/mqueue", false},
  };
  if (mount.type == "tmpfs") return std::nullopt;
  for (const auto& p : kPlaces) {
    if (mount.type != p.type) continue;
    if (mount.destination == p.destination && (!p.read_only || mount.read_only)) return std::nullopt;
    return "refused: the container would mount " + mount.type + " at " + mount.destination +
           (p.read_only && !mount.read_only ? " writable" : "") + ", which Docker never does; recreate it.";
  }
  return "refused: the container would mount a " + in_quotes(mount.type) + " filesystem from " +
         in_quotes(mount.source) + " at " + mount.destination +
         "; only binds from where the repository may bind, tmpfs and named volumes are "
         "allowed.";
}

Refusal judge_mounts(const ContainerModel& m) {
  for (const auto& mount : m.mounts) {
    if (mount.propagation == "shared" || mount.propagation == "rshared")
      return "refused: the container's mount at " + mount.destination +
             " would propagate its mounts back to the host (" + mount.propagation + "); use the default propagation.";
    if (!mount.bind) {
      if (auto bad = judge_filesystem(mount)) return bad;
    }
  }
  if (m.rootfs_propagation == "shared" || m.rootfs_propagation == "rshared")
    return "refused: the container's root would propagate its mounts back to the host (" + m.rootfs_propagation +
           "); use the default propagation.";
  return std::nullopt;
}

Refusal judge_process(const ContainerModel& m) {
  if (m.cwd == "/proc" || m.cwd.starts_with("/proc/"))
    return "refused: a working directory under /proc (" + in_quotes(m.cwd) +
           ") can leak into the host's namespaces; use a directory of the image.";
  if (m.oom_score_adj < 0)
    return "refused: an OOM score of " + std::to_string(m.oom_score_adj) +
           " shields the container at the other repositories' expense; leave it unset.";
  // Its own cgroup, named after it: dockerd's /docker/ID, systemd's docker-ID.scope, BuildKit's.
  const auto cut = m.cgroups_path.find_last_of("/:");
  const std::string_view leaf =
      cut == std::string::npos ? std::string_view(m.cgroups_path) : std::string_view(m.cgroups_path).substr(cut + 1);
  if (!m.cgroups_path.empty() && (leaf != m.id || m.cgroups_path.find("..") != std::string::npos))
    return "refused: the container would run in cgroup " + in_quotes(m.cgroups_path) +
           ", not one of its own; leave CgroupParent unset.";
  for (const auto& key : m.annotations)
    return "refused: annotation " + in_quotes(key) +
           " reaches the runtime (systemd properties, CRIU's configuration, CDI devices); recreate the container "
           "without annotations.";
  for (const auto& field : m.unknown_fields)
    return "refused: the container's runtime configuration sets " + field +
           ", which the gate does not judge; ask an operator.";
  return std::nullopt;
}

}  // namespace

bool on_host_network(const ContainerModel& model) { return shares_host(model, "network"); }

Refusal judge_container(const ContainerModel& model, const ContainerAllowance& allowance) {
  if (auto bad = judge_devices(model, allowance)) return bad;
  if (auto bad = judge_hooks(model, allowance)) return bad;
  if (auto bad = judge_capabilities(model, allowance)) return bad;
  if (auto bad = judge_namespaces(model, allowance)) return bad;
  if (auto bad = judge_security(model, allowance)) return bad;
  if (auto bad = judge_mounts(model)) return bad;
  return judge_process(model);
}

}  // namespace rgpu::admission
