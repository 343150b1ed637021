#pragma once
// PCI enumeration through libpci, pointed at <root>/sys/bus/pci.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::probe {

struct PciDevice {
  std::string address;  ///< canonical "0000:41:00.0"
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::uint32_t class_code = 0;  ///< 24 bits: base class, subclass, programming interface
  std::optional<std::string> driver;
  std::string name;  ///< from pci.ids; "NVIDIA Corporation device 0x2330" when it has none
};

struct PciScan {
  std::vector<PciDevice> devices;  ///< sorted by address
  std::vector<std::string> warnings;
};

/// Every PCI device under <root>/sys/bus/pci. Names come from <root>/usr/share/misc/pci.ids
/// when the root has one, else from the pci.ids installed with this tool. A device whose
/// vendor, device or class file is not a hex number is skipped with a warning. No PCI tree
/// (a WSL2 machine, a container) is an empty scan, not an error.
Result<PciScan> scan_pci(const RootFs& fs);

}  // namespace rgpu::probe
