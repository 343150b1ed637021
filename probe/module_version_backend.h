#pragma once
// A driver's version for GPUs no vendor source gave one: the module's own version file
// (/sys/module/<driver>/version, out-of-tree modules), else the kernel release, which is the
// version of every in-tree driver (i915, xe, amdgpu as the kernel ships it).

#include "probe/backend.h"

namespace rgpu::probe {

class ModuleVersionBackend final : public Backend {
 public:
  std::string_view name() const override { return "module-version"; }
  Result<void> enrich(const RootFs& fs, ProbeReport& report) const override;
};

}  // namespace rgpu::probe
