#pragma once
// AMD's RAS error counters: amdgpu keeps, per GPU and hardware block (umc: memory, gfx, sdma,
// mmhub, xgmi_wafl, …), the uncorrectable and correctable errors since the driver loaded, in
// /sys/bus/pci/devices/ADDRESS/ras/BLOCK_err_count ("ue: N" and "ce: N").

#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

struct RasCount {
  std::string pci_address;
  std::string block;  ///< "umc", "gfx", …
  unsigned long long uncorrectable = 0;
  unsigned long long correctable = 0;
};

/// Every block's counters of every AMD GPU the probe found now; none where amdgpu keeps no RAS.
std::vector<RasCount> amd_ras_counts(const Facts& facts);

/// Layer 1: uncorrectable errors fail per GPU, correctable ones warn; ok naming the GPUs counted;
/// a skip when no AMD GPU keeps counters.
std::vector<Check> ras_checks(const Facts& facts);

}  // namespace rgpu::doctor
