// rediacc-gpu cdi generate | nvidia | views | list: our CDI specs, the NVIDIA spec, the
// repositories' views, and every CDI name the machine defines.

#include <chrono>
#include <iostream>
#include <thread>

#include "cdi-gen/generate.h"
#include "cdi-gen/spec_writer.h"
#include "cdi/char_links.h"
#include "cdi/spec_index.h"
#include "cli/change_lines.h"
#include "cli/command.h"
#include "cli/output_format.h"
#include "cli/render.h"
#include "core/file_sink.h"
#include "core/machine_paths.h"
#include "grants/views.h"
#include "probe/inventory_file.h"
#include "probe/machine_probe.h"
#include "probe/missing_gpus.h"
#include "probe/probe.h"
#include "setup/nvidia_spec.h"
#include "units/unit_files.h"

namespace rgpu::cli {
namespace {

void print_warnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) print_warning(w);
}

int run_generate(const GlobalOptions& global) {
  RootFs fs(global.root);
  MachineFileSink sink(fs);
  auto report = probe::probe_hardware(fs);
  if (!report) return report_failure(report.error());
  auto specs = cdi::generate_specs(fs, report->inventory);
  report->warnings.insert(report->warnings.end(), specs.warnings.begin(), specs.warnings.end());
  auto changes = cdi::write_specs(sink, {specs.dri, specs.amd});
  if (!changes) {
    print_warnings(report->warnings);
    return report_failure(changes.error());
  }
  auto views = grants::refresh_views(fs, sink);
  if (!views) {
    print_warnings(report->warnings);
    return report_failure(views.error());
  }
  changes->insert(changes->end(), views->begin(), views->end());
  auto links = cdi::write_char_links(fs, sink, cdi::read_spec_index(fs));
  if (!links) {
    print_warnings(report->warnings);
    return report_failure(links.error());
  }
  changes->insert(changes->end(), links->begin(), links->end());
  probe::attach_cdi_names(fs, *report);
  probe::note_missing_gpus(fs, report->inventory);  // the hotplug unit runs this: a lost GPU stays missing
  print_warnings(report->warnings);
  auto recorded = probe::record_inventory(fs, sink, report->inventory);
  if (!recorded) return report_failure(recorded.error());
  changes->push_back(*recorded);
  for (const auto& line : change_lines(fs, *changes, {.unchanged = true})) std::cout << line << "\n";
  return kExitOk;
}

// Each repository's view, and the /dev/char link of each node a spec maps (a spec that changed
// may map one without: cdi/char_links.h), rebuilt from /etc/cdi as it is; what changed printed.
int follow_specs(const RootFs& fs, FileSink& sink) {
  auto changes = grants::refresh_views(fs, sink);
  if (!changes) return report_failure(changes.error());
  auto links = cdi::write_char_links(fs, sink, cdi::read_spec_index(fs));
  if (!links) return report_failure(links.error());
  changes->insert(changes->end(), links->begin(), links->end());
  for (const auto& line : change_lines(fs, *changes, {})) {
    std::cout << line << "\n";
  }
  return kExitOk;
}

struct NvidiaFlags {
  int wait_seconds = 0;
  setup::NvidiaSpecOptions spec;
};

// What rediacc-gpu-nvidia-spec.service runs at boot and when the nvidia module loads. The module
// can load after the unit starts, and NVML answer a moment after the module: each try that finds
// the driver not ready, or gets an unusable spec, is tried again until --wait runs out, and the
// last good spec stays in place meanwhile.
int run_nvidia(const GlobalOptions& global, NvidiaFlags flags) {
  RootFs fs(global.root);
  MachineFileSink sink(fs);
  ProcessRunner runner;
  flags.spec.wsl = probe::wsl_kernel(fs);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(flags.wait_seconds);
  for (;;) {
    auto outcome = setup::refresh_nvidia_spec(fs, sink, runner, runner, flags.spec);
    if (!outcome) return report_failure(outcome.error());
    if (outcome->nodes_warning) print_warning(*outcome->nodes_warning);
    if (outcome->hold == setup::NvidiaSpecHold::none) {
      std::cout << to_string(outcome->installed) << " " << fs.host_path(paths::kNvidiaSpec).string() << "\n";
      break;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return report_failure(Error{outcome->reason + "; " + fs.host_path(paths::kNvidiaSpec).string() +
                                  " is kept as it was. " + units::kNvidiaSpecUnit +
                                  " runs again when the nvidia module loads; to wait longer, run rediacc-gpu cdi "
                                  "nvidia --wait 300."});
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  // The views and /dev/char links follow the new spec here too: without systemd no path unit does.
  return follow_specs(fs, sink);
}

// What the path unit runs when /etc/cdi or the grants change.
int run_views(const GlobalOptions& global) {
  RootFs fs(global.root);
  MachineFileSink sink(fs);
  return follow_specs(fs, sink);
}

int run_cdi_list(const GlobalOptions& global, OutputFormat output) {
  RootFs fs(global.root);
  auto index = cdi::read_spec_index(fs);
  for (const auto& p : index.problems) {
    print_warning("skipping CDI spec " + fs.host_path(p.spec_path).string() + ": " + p.reason);
  }
  if (output == OutputFormat::json) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& d : index.devices) {
      out.push_back({{"name", d.qualified_name}, {"spec", d.spec_path}, {"device_nodes", d.device_nodes}});
      out.back().update(carried_json(d.carried));
    }
    std::cout << nlohmann::ordered_json{{"schema", kCdiListJsonSchema}, {"devices", out}}.dump(2) << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& d : index.devices) {
    rows.push_back({d.qualified_name, d.spec_path});
    if (output == OutputFormat::wide) {
      for (auto& c : carried_cells(d.carried)) rows.back().push_back(std::move(c));
    }
  }
  std::vector<std::string> header = {"NAME", "SPEC"};
  if (output == OutputFormat::wide) header.insert(header.end(), {"HOOKS", "MOUNTS", "NET DEVICES"});
  std::cout << render_table(header, rows);
  return kExitOk;
}

}  // namespace

Runner attach_cdi(CLI::App& sub, GlobalOptions& global) {
  sub.require_subcommand(1);
  CLI::App* generate =
      sub.add_subcommand("generate", "Write the rediacc.io/dri and rediacc.io/amd specs into /etc/cdi.");
  add_root_option(*generate, global);
  CLI::App* nvidia = sub.add_subcommand(
      "nvidia",
      "Make the NVIDIA driver's control nodes and regenerate /etc/cdi/nvidia.yaml with nvidia-ctk (the boot unit "
      "runs it, and again when the nvidia module loads); the last good spec stays while the driver is not ready.");
  add_root_option(*nvidia, global);
  auto nvidia_flags = std::make_shared<NvidiaFlags>();
  nvidia->add_option("--wait", nvidia_flags->wait_seconds, "Seconds to keep trying while the driver is not ready")
      ->check(CLI::Range(0, 3600));
  nvidia->add_option("--nvidia-ctk", nvidia_flags->spec.nvidia_ctk, "The machine's nvidia-ctk (default: on PATH)");
  nvidia->add_option("--disable-hook", nvidia_flags->spec.disabled_hooks,
                     "A hook nvidia-ctk leaves out of the spec (as setup --nvidia-disable-hook)");
  CLI::App* list = sub.add_subcommand("list", "List every CDI name the specs in /etc/cdi define, with its file.");
  add_root_option(*list, global);
  CLI::App* views = sub.add_subcommand(
      "views",
      "Rebuild each repository's CDI view (/var/lib/rediacc/gpu/cdi/REPO: the names it holds) from /etc/cdi, and give "
      "each node the specs map its /dev/char link.");
  add_root_option(*views, global);
  auto output = std::make_shared<OutputFormat>(OutputFormat::table);
  add_output_option(*list, *output, {OutputFormat::table, OutputFormat::wide, OutputFormat::json},
                    "Output format: table, wide (adds the hooks, mounts and net devices each name brings) or json");
  return [&global, generate, nvidia, nvidia_flags, views, output] {
    if (generate->parsed()) return run_generate(global);
    if (nvidia->parsed()) return run_nvidia(global, *nvidia_flags);
    return views->parsed() ? run_views(global) : run_cdi_list(global, *output);
  };
}

}  // namespace rgpu::cli
