#include "doctor/facts.h"

#include <algorithm>

namespace rgpu::doctor {

std::string no_gpu_observed(const Facts& f, probe::Vendor vendor, const std::string& kind) {
  const auto missing = [vendor](const probe::MissingGpu& m) { return m.vendor == vendor; };
  if (f.recorded && (has_vendor(*f.recorded, vendor) ||
                     std::any_of(f.recorded->missing_gpus.begin(), f.recorded->missing_gpus.end(), missing)))
    return "the " + kind + " GPU the inventory recorded is not found now (gpu-present names it)";
  if (vendor == probe::Vendor::nvidia && !f.nvidia_driver_gpus.empty())
    return "the NVIDIA GPU the driver lists is not found now on the PCI bus (gpu-present names it)";
  return "no " + kind + " GPU";
}

}  // namespace rgpu::doctor
