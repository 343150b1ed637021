#pragma once
// The host's cgroup mode and each repository daemon's cgroup driver as setup last found them
// (state::kCgroupRecord). Which of the two hands a container's devices to the kernel decides what
// a systemctl daemon-reload does to them: doctor compares the machine now with this record and
// names a change (a host moved between cgroup v1 and v2, a daemon whose driver changed).

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/root_fs.h"

namespace rgpu::docker {

struct CgroupRecord {
  bool host_v2 = false;  ///< the unified hierarchy alone is mounted at /sys/fs/cgroup
  /// Each repository's daemon that answered GET /info: its CgroupDriver ("systemd", "cgroupfs").
  std::map<std::string, std::string> drivers = {};
  bool operator==(const CgroupRecord&) const = default;
};

/// True when /sys/fs/cgroup is cgroup v2 alone (its cgroup.controllers is there).
bool host_cgroup_v2(const RootFs& fs);

/// The host's mode now, and the driver of each repository daemon that answers at its address
/// (docker::repo_daemon_addresses).
CgroupRecord cgroups_now(const RootFs& fs);

std::string cgroup_record_text(const CgroupRecord& record);
/// Absent when `text` is not such a record.
std::optional<CgroupRecord> parse_cgroup_record(std::string_view text);

/// "cgroup v2" or "cgroup v1".
std::string cgroup_mode(bool v2);

}  // namespace rgpu::docker
