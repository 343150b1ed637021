#pragma once
// Who uses each GPU now: the processes holding its device nodes open, the container each runs in,
// the repository whose daemon made that container, and the memory and time each takes where
// the driver says. What `usage` prints, doctor's layer 5 judges and metrics count.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "probe/inventory.h"
#include "probe/nvml_library.h"

namespace rgpu::usage {

/// Whose a process is: a repository's container, a container no repository daemon lists, or a
/// process of the machine itself (outside any container).
enum class Owner { repository, unknown, host };

struct GpuProcess {
  int pid = 0;
  std::string command;             ///< /proc/PID/comm
  std::vector<std::string> nodes;  ///< the GPU's nodes it holds open (machine paths), sorted
  Owner owner = Owner::host;
  std::optional<std::string> container;       ///< Docker container id, from its cgroup
  std::optional<std::string> container_name;  ///< as its daemon names it, without the '/'
  std::optional<std::string> repository;      ///< set when owner is repository
  std::optional<std::uint64_t> memory_bytes;  ///< NVML's per process, or its DRM clients' own
  /// The busiest DRM engine over the sample, or NVML's SM utilisation (its latest sample of the
  /// last five seconds); absent: unknown.
  std::optional<double> utilisation_percent;
};

struct GpuUse {
  probe::Gpu gpu;                     ///< as the probe made now found it
  std::vector<GpuProcess> processes;  ///< by pid
};

struct UsageReport {
  std::vector<GpuUse> gpus;  ///< every GPU of the inventory, used or not, in its order
  /// Repository daemons that did not answer (their containers' processes read as unknown):
  /// "web: cannot reach unix:///…".
  std::vector<std::string> unanswered;
  std::size_t processes_read = 0;        ///< processes whose open files were read in /proc
  std::size_t processes_unreadable = 0;  ///< processes whose open files could not be read
};

struct UsageOptions {
  /// How long to watch DRM clients' engines for their utilisation; zero reads none.
  std::chrono::milliseconds sample{0};
  /// How long each repository daemon has to list its containers.
  std::chrono::milliseconds daemon_timeout{std::chrono::seconds(2)};
};

/// Every node that reaches `gpu` alone: its render and card nodes, its own nodes and those of
/// its partitions, sorted, without repeats.
std::vector<std::string> gpu_nodes(const probe::Gpu& gpu);

/// Who uses each GPU of `inventory` now, found through the root's /proc; `nvml` (when NVML
/// answered) gives NVIDIA processes' memory, each daemon of `repo_hosts` (repository -> address,
/// repo_daemon_addresses) is asked which containers are its own.
UsageReport gpu_usage(const RootFs& fs, const probe::Inventory& inventory, const std::optional<probe::NvmlReport>& nvml,
                      const std::map<std::string, std::string>& repo_hosts, const UsageOptions& options = {});

/// What names one GPU in `usage`'s table, a check's subject and a metric's label: its PCI
/// address, else its UUID, else its name.
std::string gpu_subject(const probe::Gpu& gpu);

/// "web", "unknown" or "host": the owner as metrics and `usage` label it.
std::string owner_label(const GpuProcess& process);

}  // namespace rgpu::usage
