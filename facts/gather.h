#pragma once
// The one place the facts of a doctor or metrics run are gathered: the machine's files, the
// running daemons and their answers, NVML, the kernel log, who uses the GPUs, and what follows
// from them (lost GPUs, moved grants, the record of grant use after this look). Nothing is
// written here: the record's owner writes it (usage/grant_use.h).

#include <chrono>
#include <optional>
#include <string>

#include "core/command_runner.h"
#include "core/root_fs.h"
#include "facts/facts.h"
#include "probe/probe.h"
#include "usage/gpu_usage.h"

namespace rgpu::facts {

/// What a run gathers from.
struct Sources {
  const RootFs& fs;
  /// Runs the programs facts come from (journalctl) and that checks ask about.
  CommandRunner& runner;
  /// The probe made now, as every command runs it (probe::probe_machine).
  probe::ProbeReport probe;
  /// A daemon named on the command line (doctor's --docker-host), asked too; empty: none.
  std::string docker_host = "";
  /// How to look for who uses the GPUs; absent: not looked at (metrics --no-usage).
  std::optional<usage::UsageOptions> usage = std::nullopt;
  /// The time the record of grant use is brought up to.
  std::chrono::system_clock::time_point now = std::chrono::system_clock::now();
};

/// Every fact of the run, each read once.
Facts gather(Sources sources);

/// NVML's answer for this run, asked once: the probe's (taken from `probed`) when its NVIDIA backend
/// asked, else asked now when `inventory` has an NVIDIA GPU; absent when no libnvidia-ml.so.1 answered.
std::optional<probe::NvmlReport> ask_nvml(const RootFs& fs, const probe::Inventory& inventory,
                                          probe::NvidiaReadings& probed);

}  // namespace rgpu::facts
