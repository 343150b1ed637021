#include "doctor/doctor.h"

#include <algorithm>

namespace rgpu::doctor {

const char* status_name(Status status) {
  switch (status) {
    case Status::ok: return "ok";
    case Status::warn: return "warn";
    case Status::fail: return "fail";
    case Status::skip: return "skip";
  }
  return "skip";
}

bool has_vendor(const probe::Inventory& inventory, probe::Vendor vendor) {
  return std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                     [vendor](const auto& g) { return g.vendor == vendor; });
}

std::string no_gpu_observed(const Facts& f, probe::Vendor vendor, const std::string& kind) {
  if (f.recorded && has_vendor(*f.recorded, vendor))
    return "the " + kind + " GPU the inventory recorded is not found now (gpu-present names it)";
  return "no " + kind + " GPU";
}

std::string gpu_subject(const probe::Gpu& gpu) { return gpu.pci_address.value_or(gpu.uuid.value_or(gpu.name)); }

std::vector<Check> run_doctor(const Facts& facts) {
  std::vector<Check> all;
  for (auto layer : {host_driver_checks, placement_checks, device_node_checks, runtime_checks, spec_checks,
                     policy_checks, repo_daemon_checks, usage_checks, escape_checks, canary_checks}) {
    auto checks = layer(facts);
    all.insert(all.end(), checks.begin(), checks.end());
  }
  return all;
}

bool healthy(const std::vector<Check>& checks) {
  return std::none_of(checks.begin(), checks.end(), [](const Check& c) { return c.status == Status::fail; });
}

}  // namespace rgpu::doctor
