#pragma once
// What one doctor or metrics run knows of the machine, gathered once (gather.h) and only read
// after: doctor's checks and metrics render these fields, so every check and series of a run sees
// the same machine, and a scrape costs one read of each source.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "canary/record.h"
#include "cdi/spec_index.h"
#include "core/command_runner.h"
#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "facts/chain_reads.h"
#include "facts/daemon_answers.h"
#include "facts/driver_libraries.h"
#include "facts/kernel_log.h"
#include "facts/lost_gpus.h"
#include "facts/policy/policy_reads.h"
#include "facts/ras_counts.h"
#include "grants/grant_set.h"
#include "grants/hardware.h"
#include "probe/inventory.h"
#include "probe/missing_gpus.h"
#include "probe/nvml_library.h"
#include "usage/gpu_usage.h"
#include "usage/grant_use.h"

namespace rgpu::facts {

/// Every fact of one run, each read once by gather and read-only after. It holds no way to read
/// the machine (no RootFs, no runner): what a check says, it says of these fields.
struct Facts {
  probe::Inventory fresh = {};                      ///< a probe made now
  std::optional<probe::Inventory> recorded = {};    ///< inventory.json, when there is one and it parses
  std::optional<std::string> recorded_error = {};   ///< why inventory.json does not parse
  cdi::SpecIndex specs = {};                        ///< /etc/cdi as CDI consumers read it
  Result<grants::GrantSet> grants = {};             ///< grants.json (an error when it does not parse)
  std::vector<docker::RunningDaemon> daemons = {};  ///< dockerd processes found in /proc
  std::vector<std::string> probe_warnings = {};     ///< what the probe made now skipped or could not read
  /// Where each repository's daemon is asked, by repository (docker::repo_daemon_addresses: its
  /// plugin's environment file, else a daemon running behind its plugin).
  std::map<std::string, std::string> repo_daemon_hosts = {};
  /// Every running dockerd reachable on its unix socket and every repository daemon its plugin's
  /// environment file names (ask_daemons); empty when none answered.
  std::vector<DaemonAnswer> answers = {};
  /// What the checks of layers 1 to 4 read of the machine beyond the probe (read_chain).
  ChainReads chain = {};
  /// NVML's answer asked once for this run (its GPUs lost, their memory health, their processes);
  /// absent when no libnvidia-ml.so.1 answered or no NVIDIA GPU was found.
  std::optional<probe::NvmlReport> nvml = std::nullopt;
  /// Why NVML did not answer the probe (probe::NvidiaReadings::nvml_failure); absent when it did.
  std::optional<std::string> nvml_failure = std::nullopt;
  /// The NVIDIA kernel module's version from /proc/driver/nvidia/version; absent when it is not loaded.
  std::optional<std::string> nvidia_module = std::nullopt;
  /// Running containers given another version's driver libraries than that module's (a driver
  /// updated since they started); empty when the module is not loaded.
  std::vector<ContainerDriverLibraries> containers_on_other_driver = {};
  /// The GPUs the NVIDIA driver lists in /proc/driver/nvidia/gpus, whatever the bus shows now.
  std::vector<probe::MissingGpu> nvidia_driver_gpus = {};
  /// The kernel's log of this boot, from the first source that could be read.
  KernelLog kernel_log = {};
  /// The GPUs the machine has lost, and how many recorded ones answered.
  GpuPresence presence = {};
  /// AMD's RAS error counters of every AMD GPU found now.
  std::vector<RasCount> ras_counts = {};
  /// Grants whose names no spec defines now or that reach other hardware than granted
  /// (grants::grant_move of each, on policy.grant_reach); empty when grants do not parse.
  std::vector<grants::GrantMove> grant_moves = {};
  /// What layer 5's checks read of the machine: confinement, the host policy, each dockerd as the
  /// gate judges it, stored containers, granted names' hardware, the runtimes' versions.
  PolicyReads policy = {};
  /// Each repository's canary record, as the last canary left it.
  std::vector<canary::RepoRecord> canaries = {};
  /// Who uses each GPU now; absent when not looked at (metrics --no-usage).
  std::optional<usage::UsageReport> usage = std::nullopt;
  /// Which grants are in use now, and strays; absent when not looked at or grants do not parse.
  std::optional<usage::UseJudgement> use = std::nullopt;
  /// The record of grant use after this run's look; absent when not looked at.
  std::optional<Result<usage::LastUse>> last_use = std::nullopt;
  /// True when this run's look changed the record, so its owner writes it (write_use_record).
  bool last_use_changed = false;
};

bool has_vendor(const probe::Inventory& inventory, probe::Vendor vendor);

}  // namespace rgpu::facts
