#pragma once
// AMD: VRAM and driver version from sysfs, and the KFD topology that ties compute nodes
// (/dev/kfd) to PCI devices.

#include "probe/backend.h"

namespace rgpu::probe {

class AmdBackend final : public Backend {
 public:
  std::string_view name() const override { return "amd"; }
  Result<void> enrich(const RootFs& fs, ProbeReport& report) const override;
};

}  // namespace rgpu::probe
