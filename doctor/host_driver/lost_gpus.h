#pragma once
// GPUs the recorded inventory has and the machine has lost: gone from the PCI bus (fallen off
// the bus, Xid 79; removed), or on it but answering all-ones from its configuration space (a
// device that stopped responding). What doctor's layer 1 fails on and metrics count.

#include <string>
#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

struct LostGpu {
  probe::Gpu gpu;   ///< as the inventory recorded it
  std::string why;  ///< "is no longer on the PCI bus", "answers all-ones …"
};

/// Every native GPU of the recorded inventory that the probe made now does not find on the bus,
/// or whose configuration space reads all-ones; none when there is no recorded inventory.
std::vector<LostGpu> lost_gpus(const Facts& facts);

/// One failing check per lost GPU (id gpu-present, its PCI address as subject), or one ok naming
/// how many recorded GPUs answered; a skip without a recorded inventory.
std::vector<Check> gpu_present_checks(const Facts& facts);

}  // namespace rgpu::doctor
