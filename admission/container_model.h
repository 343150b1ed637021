#pragma once
// What a container gets, as one typed description: its device nodes and device cgroup rules, its
// mounts, capabilities, namespaces, security options and hooks. The verifier in front of runc
// (runtime/) fills it from the OCI config dockerd hands runc, and container_judge.h judges it by the
// gate's rules; a request is the same container said another way.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rgpu::admission {

/// A device node the runtime creates in the container.
struct ContainerDevice {
  std::string path;  ///< inside the container
  std::string type;  ///< "c", "b", "u", "p"
  std::int64_t major = 0;
  std::int64_t minor = 0;
};

/// A device cgroup rule; an absent type, major or minor is the wildcard ("a", "*").
struct DeviceRule {
  bool allow = false;
  std::string type;  ///< "c", "b", "a" or empty (all)
  std::optional<std::int64_t> major;
  std::optional<std::int64_t> minor;
  std::string access;  ///< letters of "rwm"
};

struct ContainerMount {
  std::string destination;
  std::string type;    ///< "bind", "proc", "tmpfs", ...
  std::string source;  ///< a host path for a bind, the filesystem's name otherwise
  std::vector<std::string> options;
  /// A bind mount, whatever its type says: runc binds when the options name bind or rbind.
  bool bind = false;
  bool read_only = false;  ///< "ro" or "rro"
  bool recursive = false;  ///< "rbind"
  /// The propagation asked for: "shared", "rshared", "slave", ... or empty.
  std::string propagation;
};

/// A namespace the container gets: its own (no path), or one it joins by path. A type the list
/// lacks is the host's (the daemon's own).
struct ContainerNamespace {
  std::string type;  ///< OCI's names: "mount", "network", "pid", "ipc", "uts", "user", "cgroup", "time"
  std::optional<std::string> path;
  /// For a joined one: whether it is the daemon's own, the host's (told by the caller, who can open
  /// it); absent until told.
  std::optional<bool> joins_host;
};

struct ContainerHook {
  std::string stage;  ///< "prestart", "createRuntime", "createContainer", "startContainer", "poststart", "poststop"
  std::string path;
  std::vector<std::string> args;  ///< argv, argv[0] first
};

struct Seccomp {
  std::string default_action;
  std::string listener_path;  ///< a seccomp agent's socket, which runc hands the filter's fd to
};

struct ContainerModel {
  std::string id;  ///< the container's ID as the runtime names it
  std::vector<ContainerDevice> devices;
  std::vector<DeviceRule> device_rules;
  std::vector<ContainerMount> mounts;
  /// Every capability of any of the process's sets, "CAP_NAME" as the config spells it.
  std::vector<std::string> capabilities;
  std::vector<ContainerNamespace> namespaces;
  std::vector<ContainerHook> hooks;
  std::optional<std::string> apparmor_profile;
  std::optional<std::string> selinux_label;
  std::optional<Seccomp> seccomp;  ///< absent: no filter at all
  std::vector<std::string> masked_paths;
  std::vector<std::string> readonly_paths;
  std::vector<std::string> annotations;  ///< their keys
  std::string cgroups_path;
  std::string rootfs_propagation;
  std::string cwd;
  std::int64_t oom_score_adj = 0;
  std::string root_path;  ///< the root filesystem's host path
  /// Fields that carry a value and that no judge reads ("linux.intelRdt"): refused, so a field a
  /// later runc acts on is read before it passes.
  std::vector<std::string> unknown_fields;
};

/// The paths every dockerd from 20.10 on (and BuildKit's executor) masks and makes read-only when
/// nothing asked otherwise (oci/defaults.go, DefaultLinuxSpec; later versions only add to them,
/// 26.0 /sys/devices/virtual/powercap).
inline constexpr const char* kDefaultMaskedPaths[] = {
    "/proc/asound",     "/proc/acpi",        "/proc/kcore",       "/proc/keys", "/proc/latency_stats",
    "/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/scsi", "/sys/firmware"};
inline constexpr const char* kDefaultReadonlyPaths[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys",
                                                        "/proc/sysrq-trigger"};

}  // namespace rgpu::admission
