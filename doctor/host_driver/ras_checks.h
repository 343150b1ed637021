#pragma once
// Layer 1's verdict on AMD's RAS error counters (facts/ras_counts.h reads them).

#include <vector>

#include "doctor/check.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

/// Uncorrectable errors fail per GPU, correctable ones warn; ok naming the GPUs counted; a skip
/// when no AMD GPU keeps counters.
std::vector<Check> ras_checks(const Facts& facts);

}  // namespace rgpu::doctor
