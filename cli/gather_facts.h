#pragma once
// The facts doctor, metrics and usage read, gathered once from the machine: a probe made now,
// the recorded inventory, the specs, the grants, the running daemons and who uses the GPUs.

#include <optional>
#include <string>

#include "core/command_runner.h"
#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::cli {

/// Gathers every fact under `fs`; `docker_host` (doctor's --docker-host, may be empty) is asked
/// too; who uses the GPUs only when `usage` is given. Fails only when the probe cannot run at all.
Result<doctor::Facts> gather_facts(const RootFs& fs, CommandRunner& runner, const std::string& docker_host,
                                   const std::optional<usage::UsageOptions>& usage = usage::UsageOptions{});

}  // namespace rgpu::cli
