#pragma once
// WSL2: the Windows driver reaches Linux through /dev/dxg and the libraries in /usr/lib/wsl/lib.
// There is no PCI GPU and no /dev/dri; NVML from /usr/lib/wsl/lib names the GPUs.

#include "probe/backend.h"

namespace rgpu::wsl {

inline constexpr const char* kDxgNode = "/dev/dxg";
inline constexpr const char* kWslLibDir = "/usr/lib/wsl/lib";

/// True when <root>/dev/dxg exists and the kernel release says WSL.
bool is_wsl(const RootFs& fs);

class WslBackend final : public probe::Backend {
 public:
  std::string_view name() const override { return "wsl"; }
  /// On WSL2: platform `wsl` and one GPU per NVML device. /dev/dxg alone does not mean NVIDIA
  /// (AMD and Intel use it too), so without NVML no GPU is recorded and a warning says why.
  Result<void> enrich(const RootFs& fs, probe::ProbeReport& report) const override;
};

}  // namespace rgpu::wsl
