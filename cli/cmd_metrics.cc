// rediacc-gpu metrics: doctor's findings and the machine's GPU facts as fleet signals, for
// node_exporter's textfile collector.

#include <chrono>
#include <iostream>

#include "cli/command.h"
#include "cli/gather_facts.h"
#include "core/command_runner.h"
#include "core/file_sink.h"
#include "doctor/doctor.h"
#include "metrics/metrics.h"

namespace rgpu::cli {
namespace {

struct MetricsFlags {
  std::string textfile;
  bool usage = true;
};

int run_metrics(const GlobalOptions& global, const MetricsFlags& f) {
  RootFs fs(global.root);
  ProcessRunner runner;
  MachineFileSink sink(fs);
  auto facts = gather_facts(fs, runner, sink, {.usage = f.usage ? std::optional(usage::UsageOptions{}) : std::nullopt});
  if (!facts) return report_failure(facts.error());
  const auto text = metrics::text(*facts, doctor::run_doctor(*facts), std::chrono::system_clock::now());
  if (f.textfile.empty()) {
    std::cout << text;
    return kExitOk;
  }
  auto written = sink.write(f.textfile, text, 0644);
  return written ? kExitOk : report_failure(written.error());
}

}  // namespace

Runner attach_metrics(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<MetricsFlags>();
  sub.add_option("--textfile", f->textfile,
                 "Write to this file atomically (node_exporter's textfile collector directory), not stdout");
  sub.add_flag("--usage,!--no-usage", f->usage,
               "Find who uses the GPUs (processes, containers, repositories, grants in use); --no-usage leaves "
               "it out of the scrape");
  return [&global, f] { return run_metrics(global, *f); };
}

}  // namespace rgpu::cli
