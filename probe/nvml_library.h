#pragma once
// NVML loaded at run time with dlopen from the root's library directories. The proprietary
// driver exposes no VRAM size in sysfs, so NVML is the source for name, memory and UUID.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::probe {

struct NvmlGpu {
  std::optional<std::string> pci_address;  ///< canonical; absent when NVML gave none
  std::uint16_t vendor_id = 0x10de;
  std::uint16_t device_id = 0;
  std::string name;
  std::optional<std::string> uuid;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<unsigned> minor;  ///< N of /dev/nvidiaN
};

struct NvmlReport {
  std::string library;  ///< machine path of the libnvidia-ml.so.1 that answered
  std::optional<std::string> driver_version;
  std::vector<NvmlGpu> gpus;
};

/// Machine directories where a native machine keeps libnvidia-ml.so.1, searched in order.
const std::vector<std::string>& native_library_dirs();

/// Loads libnvidia-ml.so.1 from the first of `dirs` (machine paths under the root) that holds it.
/// Absent when none does; an error when it is there but does not load or initialise.
Result<std::optional<NvmlReport>> query_nvml(const RootFs& fs, const std::vector<std::string>& dirs);

}  // namespace rgpu::probe
