#pragma once
// What /proc says of a process that holds a GPU, as pure functions over the files' text: the
// Docker container its cgroup names, and the DRM client statistics of an open render or card
// node (the kernel's "DRM client usage stats": drm-pdev, drm-memory-*, drm-engine-*).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rgpu::usage {

/// The Docker container id (64 hex digits) in /proc/PID/cgroup's text: the last path segment
/// that is one or ends in one ("docker-<id>.scope" with systemd's driver, "/docker/<id>" with
/// cgroupfs, "<parent>/<id>" under a --cgroup-parent). The last, because a tenant may name another
/// container's id in its own CgroupParent, which then comes before its own. Absent for a process
/// outside a container.
std::optional<std::string> container_of_cgroup(std::string_view cgroup);

/// One open DRM file's statistics (/proc/PID/fdinfo/FD).
struct DrmClient {
  std::optional<std::string> client_id;  ///< drm-client-id: the same client through another fd
  std::optional<std::string> pdev;       ///< drm-pdev: the PCI address the client is on
  /// Memory the client holds on the GPU, in bytes: its VRAM regions ("vram", "local*") when the
  /// driver reports any, else every region; resident sizes (drm-resident-*) over the older
  /// drm-memory-*. Absent when the driver reports no memory.
  std::optional<std::uint64_t> memory_bytes;
  /// Busy time so far of each engine, in nanoseconds, by name ("gfx", "compute"; drm-engine-*):
  /// two readings a known time apart give its utilisation.
  std::map<std::string, std::uint64_t> engines;
};

/// The statistics in one fdinfo file's text; absent when it is not a DRM file (no drm-driver).
std::optional<DrmClient> parse_drm_fdinfo(std::string_view fdinfo);

/// The busiest engine's share of `interval_ns` between two readings of one client, in percent
/// (0 to 100); absent when neither reports an engine.
std::optional<double> busiest_engine_percent(const DrmClient& before, const DrmClient& after,
                                             std::uint64_t interval_ns);

}  // namespace rgpu::usage
