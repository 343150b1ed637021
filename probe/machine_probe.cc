#include "probe/machine_probe.h"

#include <chrono>

#include "cdi/inventory_names.h"
#include "wsl/wsl_backend.h"

namespace rgpu::probe {

Result<ProbeReport> probe_hardware(const RootFs& fs) {
  auto backends = native_backends();
  backends.push_back(std::make_unique<wsl::WslBackend>());
  return run_probe(fs, backends, std::chrono::system_clock::now());
}

void attach_cdi_names(const RootFs& fs, ProbeReport& report) {
  auto index = cdi::read_spec_index(fs);
  for (const auto& problem : index.problems) {
    report.warnings.push_back("skipping CDI spec " + fs.host_path(problem.spec_path).string() + ": " + problem.reason);
  }
  cdi::attach_cdi_names(report.inventory, index);
}

Result<ProbeReport> probe_machine(const RootFs& fs) {
  auto report = probe_hardware(fs);
  if (report) attach_cdi_names(fs, *report);
  return report;
}

}  // namespace rgpu::probe
