#pragma once
// The PCI devices that could be GPUs, read from <root>/sys/bus/pci/devices, and their names.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/inventory.h"
#include "probe/pci_ids.h"

namespace rgpu::probe {

struct PciDevice {
  std::string address;  ///< canonical "0000:41:00.0"
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::uint32_t class_code = 0;  ///< 24 bits: base class, subclass, programming interface
  std::optional<std::string> driver;
  std::optional<int> numa_node;       ///< absent when sysfs says -1 or has no file
  std::optional<PcieLink> pcie_link;  ///< absent without link files (not a PCIe device)
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

/// The PCI devices in the GPU classes, with their ids and bound driver. Every device's class is
/// read; only these devices' other files are. A device whose class, vendor or device file cannot
/// be read or is not a hex number is skipped with a warning naming the file. No PCI tree (a WSL2
/// machine, a container) is an empty scan; a tree that cannot be listed is an error.
Result<PciScan> scan_pci(const RootFs& fs);

/// Device names from pci.ids: the root's /usr/share/misc/pci.ids (Debian, Ubuntu) or
/// /usr/share/hwdata/pci.ids (Fedora, Oracle Linux, openSUSE), else this host's, read at the first
/// lookup only, so a probe whose GPUs are all named
/// by their driver (NVML, procfs) never reads it.
class PciNames {
 public:
  explicit PciNames(const RootFs& fs);

  /// "GH100 [H100 SXM5 80GB]"; "NVIDIA Corporation device 0x2330" when pci.ids lacks the
  /// device, "PCI device 0x10de:0x2330" when it lacks the vendor too.
  std::string device_name(std::uint16_t vendor, std::uint16_t device);

 private:
  PciIds ids_;
};

}  // namespace rgpu::probe
