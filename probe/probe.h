#pragma once
// The probe: PCI and DRM give the GPUs, then each backend adds what it knows.

#include <memory>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"
#include "core/time_text.h"
#include "probe/backend.h"
#include "probe/inventory.h"

namespace rgpu::probe {

/// The backends every probe of a native machine runs: AMD (KFD), NVIDIA (NVML, procfs), and on
/// the real machine only, libdrm's driver version. WSL's backend lives in wsl/ and is added by
/// the caller.
std::vector<std::unique_ptr<Backend>> native_backends();

/// The machine's name from /proc/sys/kernel/hostname, else /etc/hostname; absent when neither says.
std::optional<std::string> machine_hostname(const RootFs& fs);

/// True when the running kernel is WSL2's (its release names microsoft or WSL).
bool wsl_kernel(const RootFs& fs);

/// Probes the machine under `fs`. Fails only when the PCI tree exists but cannot be read.
Result<ProbeReport> run_probe(const RootFs& fs, const std::vector<std::unique_ptr<Backend>>& backends, SystemTime now);

}  // namespace rgpu::probe
