#pragma once
// NVIDIA on a native machine: NVML when its library loads, else /proc/driver/nvidia
// (memory then unknown). /dev/nvidiaN comes from each GPU's minor, never from PCI order.

#include <optional>
#include <string>

#include "probe/backend.h"

namespace rgpu::probe {

class NvidiaBackend final : public Backend {
 public:
  std::string_view name() const override { return "nvidia"; }
  Result<void> enrich(const RootFs& fs, ProbeReport& report) const override;
};

/// The loaded NVIDIA kernel module's version, from /proc/driver/nvidia/version; absent when no
/// module is loaded (or the file says no version).
std::optional<std::string> nvidia_module_version(const RootFs& fs);

}  // namespace rgpu::probe
