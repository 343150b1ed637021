// rediacc-gpu usage: each GPU with the processes holding it, their container and repository,
// and the memory and time they take where the driver says.

#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/command.h"
#include "cli/output_format.h"
#include "cli/render.h"
#include "core/joined.h"
#include "docker/running_daemons.h"
#include "facts/gather.h"
#include "probe/machine_probe.h"
#include "usage/gpu_usage.h"

namespace rgpu::cli {
namespace {

/// `usage -o json`: {"schema", "gpus": [{…, "processes": [...]}], "unanswered", "processes_read",
/// "processes_unreadable"}.
constexpr int kUsageJsonSchema = 1;

struct UsageFlags {
  OutputFormat output = OutputFormat::table;
  int sample_ms = 500;
};

std::string percent(std::optional<double> p) {
  if (!p) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(0) << *p << "%";
  return out.str();
}

std::string container_text(const usage::GpuProcess& p) {
  if (!p.container) return "-";
  const auto id = p.container->substr(0, 12);
  return p.container_name ? *p.container_name + " (" + id + ")" : id;
}

std::string table(const usage::UsageReport& r) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& use : r.gpus) {
    const auto gpu = usage::gpu_subject(use.gpu);
    if (use.processes.empty()) rows.push_back({gpu, use.gpu.name, "-", "(idle)", "", "", "", "", ""});
    for (const auto& p : use.processes) {
      rows.push_back({gpu, use.gpu.name, std::to_string(p.pid), p.command, usage::owner_label(p), container_text(p),
                      p.memory_bytes ? human_bytes(p.memory_bytes) : "-", percent(p.utilisation_percent),
                      joined(p.nodes)});
    }
  }
  std::string out =
      render_table({"GPU", "NAME", "PID", "COMMAND", "REPOSITORY", "CONTAINER", "MEMORY", "UTIL", "NODES"}, rows);
  if (r.gpus.empty()) out += "(no GPU found)\n";
  return out;
}

nlohmann::ordered_json json(const usage::UsageReport& r) {
  auto gpus = nlohmann::ordered_json::array();
  for (const auto& use : r.gpus) {
    auto processes = nlohmann::ordered_json::array();
    for (const auto& p : use.processes) {
      const auto opt = [](const auto& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
      processes.push_back({{"pid", p.pid},
                           {"command", p.command},
                           {"repository", usage::owner_label(p)},
                           {"container", opt(p.container)},
                           {"container_name", opt(p.container_name)},
                           {"memory_bytes", opt(p.memory_bytes)},
                           {"utilisation_percent", opt(p.utilisation_percent)},
                           {"nodes", p.nodes}});
    }
    gpus.push_back({{"pci_address", use.gpu.pci_address ? nlohmann::ordered_json(*use.gpu.pci_address) : nullptr},
                    {"uuid", use.gpu.uuid ? nlohmann::ordered_json(*use.gpu.uuid) : nullptr},
                    {"vendor", probe::to_string(use.gpu.vendor)},
                    {"name", use.gpu.name},
                    {"processes", processes}});
  }
  return {{"schema", kUsageJsonSchema},
          {"gpus", gpus},
          {"unanswered", r.unanswered},
          {"processes_read", r.processes_read},
          {"processes_unreadable", r.processes_unreadable}};
}

int run_usage(const GlobalOptions& global, const UsageFlags& f) {
  RootFs fs(global.root);
  auto probed = probe::probe_machine(fs);
  if (!probed) return report_failure(probed.error());
  usage::UsageOptions options;
  options.sample = std::chrono::milliseconds(f.sample_ms);
  // Who uses the GPUs and nothing else: no daemon is asked of itself, and no record is written.
  const auto& inventory = probed->inventory;
  const auto report = usage::gpu_usage(fs, inventory, facts::ask_nvml(fs, inventory, probed->nvidia),
                                       docker::repo_daemon_addresses(fs, docker::running_docker_daemons(fs)), options);
  if (f.output == OutputFormat::json) {
    std::cout << json(report).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else {
    std::cout << table(report);
  }
  for (const auto& why : report.unanswered)
    print_warning("a repository daemon did not answer, its containers read as unknown: " + why);
  if (report.processes_unreadable > 0)
    print_warning("the open files of " + std::to_string(report.processes_unreadable) +
                  " processes could not be read, so a GPU they hold is not listed; run as root");
  return kExitOk;
}

}  // namespace

Runner attach_usage(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<UsageFlags>();
  add_output_option(sub, f->output, {OutputFormat::table, OutputFormat::json}, "table or json");
  sub.add_option("--sample-ms", f->sample_ms, "Watch DRM clients' engines this long for their utilisation (0: none)")
      ->check(CLI::Range(0, 10000));
  return [&global, f] { return run_usage(global, *f); };
}

}  // namespace rgpu::cli
