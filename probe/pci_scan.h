#pragma once
// PCI enumeration through libpci, pointed at <root>/sys/bus/pci.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

struct pci_access;  // libpci's handle

namespace rgpu::probe {

struct PciDevice {
  std::string address;  ///< canonical "0000:41:00.0"
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::uint32_t class_code = 0;  ///< 24 bits: base class, subclass, programming interface
  std::optional<std::string> driver;
};

/// Display (0x03) and processing-accelerator (0x12) base classes: where GPUs are.
inline bool in_gpu_classes(std::uint32_t class_code) {
  const unsigned base = class_code >> 16;
  return base == 0x03 || base == 0x12;
}

struct PciScan {
  std::vector<PciDevice> devices;  ///< sorted by address
  std::vector<std::string> warnings;
};

/// Every PCI device under <root>/sys/bus/pci. A device that could be a GPU (or whose ids read
/// as 0, libpci's reading of garbage) and whose vendor, device or class file is not a hex
/// number is skipped with a warning. No PCI tree
/// (a WSL2 machine, a container) is an empty scan, not an error.
Result<PciScan> scan_pci(const RootFs& fs);

/// Device names from pci.ids: <root>/usr/share/misc/pci.ids when the root has one, else the one
/// installed with this tool. The 1.3 MB database is read at the first lookup only, so a probe
/// whose GPUs are all named by their driver (NVML, procfs) never reads it.
class PciNames {
 public:
  explicit PciNames(const RootFs& fs);
  ~PciNames();
  PciNames(const PciNames&) = delete;
  PciNames& operator=(const PciNames&) = delete;

  /// "GH100 [H100 SXM5 80GB]"; "NVIDIA Corporation device 0x2330" when pci.ids lacks it.
  std::string device_name(std::uint16_t vendor, std::uint16_t device);

 private:
  std::string ids_path_;
  ::pci_access* access_ = nullptr;
};

}  // namespace rgpu::probe
