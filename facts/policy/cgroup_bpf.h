#pragma once
// Which eBPF programs the kernel runs on a cgroup's socket binds and connects: how Rediacc pins
// each repository to its own loopback range, read back from the kernel (BPF_PROG_QUERY), as
// bpftool cgroup show does, without needing bpftool.

#include <optional>
#include <string>

#include "core/root_fs.h"

namespace rgpu::facts {

/// The number of programs in effect (attached there or above) on the cgroup directory `host_dir`
/// for IPv4 and IPv6 bind and connect; absent when the kernel does not say (not root, no bpf, not
/// a cgroup v2 directory).
std::optional<unsigned> socket_programs(const std::string& host_dir);

/// The cgroup v2 directory of process `pid` on this machine: the unified hierarchy's mount point
/// (from /proc/mounts: /sys/fs/cgroup, or /sys/fs/cgroup/unified on a hybrid host) joined with the
/// process's "0::" line of /proc/PID/cgroup; absent when either cannot be read.
std::optional<std::string> cgroup_dir(const RootFs& host, const std::string& pid);

}  // namespace rgpu::facts
