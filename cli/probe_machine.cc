#include "cli/probe_machine.h"

#include <chrono>

#include "cdi-gen/inventory_names.h"
#include "wsl/wsl_backend.h"

namespace rgpu::cli {

Result<probe::ProbeReport> probe_machine(const RootFs& fs) {
  auto backends = probe::native_backends();
  backends.push_back(std::make_unique<wsl::WslBackend>());
  auto report = probe::run_probe(fs, backends, std::chrono::system_clock::now());
  if (!report) return report;
  auto index = cdi::read_spec_index(fs);
  for (const auto& problem : index.problems) {
    report->warnings.push_back("skipping CDI spec " + fs.host_path(problem.spec_path).string() + ": " + problem.reason);
  }
  cdi::attach_cdi_names(report->inventory, index);
  return report;
}

}  // namespace rgpu::cli
