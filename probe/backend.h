#pragma once
// One backend per source of facts (a vendor, WSL2, libdrm), behind one interface. A backend
// that fails is skipped with a warning, never fatal: the rest of the inventory still counts.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/inventory.h"
#include "probe/nvml_library.h"

namespace rgpu::probe {

using Warnings = std::vector<std::string>;

/// What the NVIDIA backend read while it probed, handed on so that a doctor, metrics or usage
/// run does not load NVML (up to its time bound on a hung driver) or read /proc again.
struct NvidiaReadings {
  bool asked = false;                         ///< a backend asked NVML (native NVIDIA GPUs, or WSL2's)
  std::optional<NvmlReport> nvml;             ///< NVML's answer; absent when no library answered
  std::optional<std::string> module_version;  ///< /proc/driver/nvidia/version's; absent when not loaded
  /// Why NVML did not answer: its library failed to load or initialise (the error, which names the
  /// library and the repair), or none was found. Absent when it answered or was not asked.
  std::optional<std::string> nvml_failure = std::nullopt;
};

struct ProbeReport {
  Inventory inventory;
  Warnings warnings;
  NvidiaReadings nvidia = {};
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// Short name for messages ("amd", "nvidia", "wsl").
  virtual std::string_view name() const = 0;
  /// Adds what this source knows to the report's inventory; problems that skip one device go to
  /// its warnings.
  virtual Result<void> enrich(const RootFs& fs, ProbeReport& report) const = 0;
};

}  // namespace rgpu::probe
