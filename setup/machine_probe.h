#pragma once
// The probe as every command runs it: native backends plus WSL, then the CDI names the
// machine's specs define.

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/probe.h"

namespace rgpu::setup {

/// Probes the hardware under `fs`: native backends plus WSL; no CDI names yet.
Result<probe::ProbeReport> probe_hardware(const RootFs& fs);

/// Fills the inventory's CDI names from <root>/etc/cdi; spec problems become warnings.
void attach_cdi_names(const RootFs& fs, probe::ProbeReport& report);

/// probe_hardware, then attach_cdi_names.
Result<probe::ProbeReport> probe_machine(const RootFs& fs);

}  // namespace rgpu::setup
