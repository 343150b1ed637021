#pragma once
// What each Docker Engine release does with GPUs, from its version alone: the CDI library it
// vendors (the newest spec it reads: a spec declaring a later cdiVersion is refused whole), when
// CDI came on by default, when --gpus became CDI names, when CDI's additionalGids are applied.
// From moby's tags (vendor.mod, the release notes); docs/decisions.md cites each.

#include <optional>
#include <string>
#include <string_view>

namespace rgpu::docker {

struct EngineGpuFeatures {
  /// The newest cdiVersion its CDI library reads, as cdi::spec_version_number (60 is 0.6.0);
  /// 0 before 25.0, which has no CDI.
  int newest_spec = 0;
  /// The minimum release that reads `needed` (0.7.0 is 26.1), for the advice; empty when none.
  static std::string first_release_reading(int needed);
  bool cdi_on_by_default = false;        ///< 28.2: no "features": {"cdi": true} needed
  bool gpus_to_cdi_nvidia = false;       ///< 29.2: --gpus becomes nvidia.com/gpu=N (nvidia-cdi-hook on PATH)
  bool gpus_to_cdi_amd = false;          ///< 29.3: the same for amd.com/gpu=N
  bool applies_additional_gids = false;  ///< 29.5: before, CDI's additionalGids are dropped
};

/// The features of Docker `version` ("28.5.2", "26.1.5+dfsg1"); absent when it is no version.
std::optional<EngineGpuFeatures> engine_gpu_features(std::string_view version);

}  // namespace rgpu::docker
