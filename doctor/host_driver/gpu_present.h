#pragma once
// Layer 1's verdict on the GPUs the machine has lost (facts/lost_gpus.h finds them).

#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

/// One failing check per lost GPU (id gpu-present, its PCI address as subject), or one ok naming
/// how many recorded GPUs answered; a skip without a recorded inventory.
std::vector<Check> gpu_present_checks(const Facts& facts);

}  // namespace rgpu::doctor
