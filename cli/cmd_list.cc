// rediacc-gpu list: the recorded inventory as a table, or exactly as recorded with -o json.

#include <algorithm>
#include <chrono>
#include <iostream>

#include "cdi/reach_rules.h"
#include "cli/command.h"
#include "cli/output_format.h"
#include "cli/render.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "core/time_text.h"
#include "probe/inventory_file.h"

namespace rgpu::cli {
namespace {

// The names to grant first: those keyed by the card's address or UUID, which stay on the card when
// the machine numbers its cards anew; then the numbers and "all".
std::string names_or_dash(std::vector<std::string> names) {
  std::stable_partition(names.begin(), names.end(), [](const std::string& n) { return cdi::is_hardware_keyed(n); });
  return names.empty() ? "-" : joined(names);
}

std::string age_of(const probe::Inventory& inv) {
  auto made = parse_rfc3339_utc(inv.generated_at);
  if (!made) return "unknown";
  auto age = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now() - *made);
  return format_age(age);
}

// "CPX partition 3 (renderD131)", "MIG 1g.10gb (GI 9, CI 0)".
std::string partition_name(const probe::Gpu& g, const probe::Partition& p) {
  if (p.profile || p.gpu_instance) {
    std::string out = "MIG " + p.profile.value_or("?");
    if (p.gpu_instance) {
      out += " (GI " + std::to_string(*p.gpu_instance) + ", CI " +
             (p.compute_instance ? std::to_string(*p.compute_instance) : "?") + ")";
    }
    return out;
  }
  std::string out = g.compute_partition.value_or("compute") + " partition " + std::to_string(p.index);
  if (p.render_node) out += " (" + base_name(*p.render_node) + ")";
  return out;
}

std::string numa_text(const probe::Gpu& g) { return g.numa_node ? std::to_string(*g.numa_node) : "unknown"; }

// "nvidia.com/gpu=0: 3 hooks, 9 mounts" for each name that brings more than its nodes.
std::string carries_text(const cdi::SpecIndex& index, const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    for (const auto& d : index.devices) {
      if (d.qualified_name != name) continue;
      const std::string summary = carried_summary(d.carried);
      if (summary != "-") out += (out.empty() ? "" : "; ") + name + ": " + summary;
    }
  }
  return out.empty() ? "-" : out;
}

std::string table(const probe::Inventory& inv, const cdi::SpecIndex* index) {
  const bool wide = index != nullptr;
  const std::string age = age_of(inv);
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : inv.gpus) {
    // "i915 6.1.0-28-amd64"; under WSL2 the Windows driver has no Linux module, only a version.
    const std::string driver =
        g.driver ? *g.driver + " " + g.driver_version.value_or("(version unknown)") : g.driver_version.value_or("none");
    rows.push_back({g.pci_address.value_or("-"), g.name, driver, human_bytes(g.memory_bytes),
                    probe::to_string(g.platform), age, names_or_dash(g.cdi_devices)});
    if (wide) {
      rows.back().insert(rows.back().end() - 1, {numa_text(g), link_text(g.pcie_link)});
      rows.back().push_back(carries_text(*index, g.cdi_devices));
    }
    for (const auto& p : g.partitions) {
      rows.push_back({"  - " + std::to_string(p.index), partition_name(g, p), "", human_bytes(p.memory_bytes), "", "",
                      names_or_dash(p.cdi_devices)});
      if (wide) {
        rows.back().insert(rows.back().end() - 1, {"", ""});
        rows.back().push_back(carries_text(*index, p.cdi_devices));
      }
    }
  }
  std::vector<std::string> header = {"PCI ADDRESS", "NAME", "DRIVER", "MEMORY", "PLATFORM", "AGE", "CDI DEVICES"};
  if (wide) {
    header.insert(header.end() - 1, {"NUMA", "PCIE LINK"});
    header.push_back("CDI CARRIES");
  }
  std::string out = render_table(header, rows);
  if (inv.gpus.empty()) out += "(no GPU found; inventory made " + age + ")\n";
  // Kept until back on the bus or forgotten: doctor fails on each meanwhile.
  for (const auto& m : inv.missing_gpus) {
    out += "missing since " + m.missing_since + ": " + m.pci_address + " " + m.name +
           (m.uuid ? " (" + *m.uuid + ")" : "") + "; rediacc-gpu setup --forget-gpu " + m.pci_address +
           " once it is removed on purpose\n";
  }
  return out;
}

int run_list(const GlobalOptions& global, OutputFormat output) {
  RootFs fs(global.root);
  auto recorded = probe::read_inventory(fs);
  if (!recorded) return report_failure(recorded.error());
  if (!*recorded) {
    return report_failure(
        {"no inventory at " + fs.host_path(state::kInventoryPath).string() + "; run `rediacc-gpu probe` first."});
  }
  if (output == OutputFormat::json) {
    std::cout << (*recorded)->text;
  } else if (output == OutputFormat::wide) {
    const auto index = cdi::read_spec_index(fs);
    std::cout << table((*recorded)->inventory, &index);
  } else {
    std::cout << table((*recorded)->inventory, nullptr);
  }
  return kExitOk;
}

}  // namespace

Runner attach_list(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto output = std::make_shared<OutputFormat>(OutputFormat::table);
  add_output_option(sub, *output, {OutputFormat::table, OutputFormat::wide, OutputFormat::json},
                    "Output format: table, wide (adds NUMA node, PCIe link and what each CDI name brings beyond its "
                    "nodes) or json");
  return [&global, output] { return run_list(global, *output); };
}

}  // namespace rgpu::cli
