// rediacc-gpu list: the recorded inventory as a table, or exactly as recorded with -o json.

#include <chrono>
#include <iostream>

#include "cli/command.h"
#include "cli/render.h"
#include "core/time_text.h"
#include "probe/inventory_file.h"

namespace rgpu::cli {
namespace {

std::string joined(const std::vector<std::string>& names) {
  if (names.empty()) return "-";
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string age_of(const probe::Inventory& inv) {
  auto made = parse_rfc3339_utc(inv.generated_at);
  if (!made) return "unknown";
  auto age = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *made);
  return format_age(age);
}

std::string table(const probe::Inventory& inv) {
  const std::string age = age_of(inv);
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : inv.gpus) {
    // "i915 6.1.0-28-amd64"; under WSL2 the Windows driver has no Linux module, only a version.
    const std::string driver =
        g.driver ? *g.driver + " " + g.driver_version.value_or("(version unknown)") : g.driver_version.value_or("none");
    rows.push_back({g.pci_address.value_or("-"), g.name, driver, human_bytes(g.memory_bytes),
                    probe::to_string(g.platform), age, joined(g.cdi_devices)});
  }
  std::string out = render_table({"PCI ADDRESS", "NAME", "DRIVER", "MEMORY", "PLATFORM", "AGE", "CDI DEVICES"}, rows);
  if (inv.gpus.empty()) out += "(no GPU found; inventory made " + age + ")\n";
  return out;
}

int run_list(const GlobalOptions& global, const std::string& output) {
  RootFs fs(global.root);
  auto recorded = probe::read_inventory(fs);
  if (!recorded) return report_failure(recorded.error());
  if (!*recorded) {
    std::cerr << "rediacc-gpu: no inventory at " << fs.host_path(probe::kInventoryPath).string()
              << "; run `rediacc-gpu probe` first.\n";
    return kExitFailure;
  }
  std::cout << (output == "json" ? (*recorded)->text : table((*recorded)->inventory));
  return kExitOk;
}

}  // namespace

Runner attach_list(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto output = std::make_shared<std::string>("table");
  sub.add_option("-o,--output", *output, "Output format: table or json")->check(CLI::IsMember({"table", "json"}));
  return [&global, output] { return run_list(global, *output); };
}

}  // namespace rgpu::cli
