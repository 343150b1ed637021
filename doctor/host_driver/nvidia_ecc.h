#pragma once
// NVIDIA's memory health as NVML reports it: uncorrected ECC errors since the driver loaded, and
// the row remapper (A100 and later; page retirement before it): a remap waiting for the GPU's
// reset, or one that failed. GeForce cards keep none of these.

#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

/// Layer 1, from facts.nvml: a failed remap or uncorrected errors fail per GPU, a pending remap
/// warns; ok naming the GPUs NVML answered for; a skip when NVML did not answer or no GPU keeps
/// the counters.
std::vector<Check> nvidia_ecc_checks(const Facts& facts);

}  // namespace rgpu::doctor
