#pragma once
// AMD's RAS error counters: amdgpu keeps, per GPU and hardware block (umc: memory, gfx, sdma,
// mmhub, xgmi_wafl, …), the uncorrectable and correctable errors since the driver loaded, in
// /sys/bus/pci/devices/ADDRESS/ras/BLOCK_err_count ("ue: N" and "ce: N").

#include <string>
#include <vector>

#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::facts {

struct RasCount {
  std::string pci_address;
  std::string block;  ///< "umc", "gfx", …
  unsigned long long uncorrectable = 0;
  unsigned long long correctable = 0;
};

/// Every block's counters of every AMD GPU of `inventory`; none where amdgpu keeps no RAS.
std::vector<RasCount> amd_ras_counts(const RootFs& fs, const probe::Inventory& inventory);

}  // namespace rgpu::facts
