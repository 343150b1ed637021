#pragma once
// The probe as every command runs it: native backends plus WSL, then the CDI names the
// machine's specs define.

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/probe.h"

namespace rgpu::cli {

/// Probes the machine under `fs` and fills the inventory's CDI names; spec problems become warnings.
Result<probe::ProbeReport> probe_machine(const RootFs& fs);

}  // namespace rgpu::cli
