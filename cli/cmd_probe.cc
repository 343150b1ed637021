// rediacc-gpu probe: find the GPUs, write the inventory, print a line per GPU.

#include <iostream>

#include "cli/command.h"
#include "cli/render.h"
#include "core/change.h"
#include "core/file_sink.h"
#include "core/state_paths.h"
#include "probe/inventory_file.h"
#include "probe/machine_probe.h"
#include "probe/missing_gpus.h"

namespace rgpu::cli {
namespace {

std::string summary_line(const probe::Gpu& g) {
  std::string line = g.pci_address.value_or("(wsl)") + "  " + probe::to_string(g.vendor) + "  " + g.name + "  " +
                     human_bytes(g.memory_bytes);
  if (g.render_node) line += "  " + *g.render_node;
  line += "  driver " + g.driver.value_or("none");
  if (g.driver_version) line += " " + *g.driver_version;
  return line;
}

int run_probe_command(const GlobalOptions& global) {
  RootFs fs(global.root);
  MachineFileSink sink(fs);
  auto report = probe::probe_machine(fs);
  if (!report) return report_failure(report.error());
  for (const auto& w : report->warnings) print_warning(w);
  probe::note_missing_gpus(fs, report->inventory);
  auto recorded = probe::record_inventory(fs, sink, report->inventory);
  if (!recorded) return report_failure(recorded.error());
  for (const auto& g : report->inventory.gpus) std::cout << summary_line(g) << "\n";
  for (const auto& m : report->inventory.missing_gpus)
    std::cout << m.pci_address << "  " << probe::to_string(m.vendor) << "  " << m.name << "  MISSING since "
              << m.missing_since << "\n";
  const auto n = report->inventory.gpus.size();
  std::cout << n << (n == 1 ? " GPU" : " GPUs") << " (platform " << probe::to_string(report->inventory.platform)
            << "); inventory " << (recorded->kind == Change::Kind::unchanged ? "unchanged at " : "written to ")
            << fs.host_path(state::kInventoryPath).string() << "\n";
  return kExitOk;
}

}  // namespace

Runner attach_probe(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  return [&global] { return run_probe_command(global); };
}

}  // namespace rgpu::cli
