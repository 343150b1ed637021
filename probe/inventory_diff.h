#pragma once
// What differs between a recorded inventory and one probed now, said as an operator checks it:
// which GPU (by PCI address, else UUID, else name), which field, what it was and what it is, and
// which grantable CDI names came or went. No guess at why: a name that came with a new NVIDIA
// spec and a driver upgrade read differently here, and doctor says exactly this.

#include <string>
#include <vector>

#include "probe/inventory.h"

namespace rgpu::probe {

/// One sentence per difference in the GPUs (in the recorded order, then the new ones) and then in
/// the grantable CDI names; empty when both are the same.
std::vector<std::string> inventory_differences(const Inventory& recorded, const Inventory& now);

}  // namespace rgpu::probe
