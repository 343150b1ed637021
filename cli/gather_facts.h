#pragma once
// The facts of one doctor or metrics run: the probe as every command runs it, everything else
// facts::gather reads, and the record of grant use this look leaves, written as the run's own change.

#include <optional>
#include <string>

#include "core/command_runner.h"
#include "core/file_sink.h"
#include "facts/facts.h"
#include "usage/gpu_usage.h"

namespace rgpu::cli {

/// What a doctor or metrics run asks beyond the machine's files.
struct FactsWanted {
  /// doctor's --docker-host (unix:///…), asked too; empty: none.
  std::string docker_host = "";
  /// Who uses the GPUs, looked for with these options; absent: not looked at (metrics --no-usage).
  std::optional<usage::UsageOptions> usage = usage::UsageOptions{};
};

/// Probes the machine under `fs` and gathers every fact; doctor and metrics own grant-use.json, so
/// the record this look leaves is written through `sink`, and a write that fails is what the facts
/// then hold for it. Fails only when the probe cannot run at all.
Result<facts::Facts> gather_facts(const RootFs& fs, CommandRunner& runner, FileSink& sink,
                                  const FactsWanted& wanted = {});

}  // namespace rgpu::cli
