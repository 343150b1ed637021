#pragma once
// libdrm's drmGetVersion on an open render node: the kernel driver's name and version. libdrm
// hard-codes /dev, so this only adds facts on the real machine (--root /), never on a fixture.

#include "probe/backend.h"

namespace rgpu::probe {

class DrmVersionBackend final : public Backend {
 public:
  std::string_view name() const override { return "libdrm"; }
  Result<void> enrich(const RootFs& fs, ProbeReport& report) const override;
};

}  // namespace rgpu::probe
