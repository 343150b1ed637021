#pragma once
// The probe as every command runs it: the native backends and WSL's, then the CDI names the
// machine's specs define. Its own library (rgpu_machine_probe), drawn after wsl/ and cdi/, whose
// backend and names it puts together; the engine and the model below them know neither.

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/probe.h"

namespace rgpu::probe {

/// Probes the hardware under `fs`: native backends plus WSL; no CDI names yet.
Result<ProbeReport> probe_hardware(const RootFs& fs);

/// Fills the inventory's CDI names from <root>/etc/cdi; spec problems become warnings.
void attach_cdi_names(const RootFs& fs, ProbeReport& report);

/// probe_hardware, then attach_cdi_names.
Result<ProbeReport> probe_machine(const RootFs& fs);

}  // namespace rgpu::probe
