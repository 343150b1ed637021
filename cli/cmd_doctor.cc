// rediacc-gpu doctor: the GPU-in-container playbook run on this machine, layer by layer; and
// rediacc-gpu metrics: the same findings as fleet signals.

#include <algorithm>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "admission/grant_store.h"
#include "cli/command.h"
#include "cli/probe_machine.h"
#include "core/atomic_file.h"
#include "core/command_runner.h"
#include "doctor/container.h"
#include "doctor/doctor.h"
#include "doctor/metrics.h"
#include "probe/inventory_file.h"

namespace rgpu::cli {
namespace {

struct DoctorFlags {
  std::string output = "table";
  doctor::ContainerRequest container;
};

const char* layer_name(int layer) {
  switch (layer) {
    case 1: return "host driver";
    case 2: return "device nodes";
    case 3: return "runtime integration";
    case 4: return "specs and inventory";
    case 5: return "grants and policy";
    case 6: return "container";
  }
  return "other";
}

// "2 failed, 1 warning; first failing layer: 3 runtime integration": what an operator reads first.
std::string summary(const std::vector<doctor::Check>& checks) {
  std::size_t failed = 0, warned = 0;
  int first = 0;
  for (const auto& c : checks) {
    if (c.status == doctor::Status::warn) ++warned;
    if (c.status != doctor::Status::fail) continue;
    ++failed;
    if (first == 0 || c.layer < first) first = c.layer;
  }
  if (failed == 0 && warned == 0) return "all " + std::to_string(checks.size()) + " checks passed";
  std::string out =
      std::to_string(failed) + " failed, " + std::to_string(warned) + (warned == 1 ? " warning" : " warnings");
  if (first) out += "; first failing layer: " + std::to_string(first) + " " + layer_name(first);
  return out;
}

void print_table(const std::vector<doctor::Check>& checks) {
  std::size_t width = 0;
  for (const auto& c : checks) width = std::max(width, c.id.size());
  for (const auto& c : checks) {
    std::string status = doctor::status_name(c.status);
    status.resize(4, ' ');
    std::string id = c.id;
    id.resize(width, ' ');
    std::cout << "[" << c.layer << "] " << status << "  " << id << "  " << c.observed << "\n";
    if (c.status == doctor::Status::ok || c.status == doctor::Status::skip) continue;
    const std::string indent(4 + 4 + 2 + width + 2, ' ');
    if (!c.meaning.empty()) std::cout << indent << "means: " << c.meaning << "\n";
    if (!c.decision.empty()) std::cout << indent << "do:    " << c.decision << "\n";
  }
  std::cout << summary(checks) << "\n";
}

void print_json(const std::vector<doctor::Check>& checks) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    out.push_back({{"id", c.id},
                   {"layer", c.layer},
                   {"status", doctor::status_name(c.status)},
                   {"observed", c.observed},
                   {"meaning", c.meaning},
                   {"decision", c.decision}});
  }
  std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

struct MetricsFlags {
  std::string textfile;
};

// Runs the checks on facts gathered now, then hands both to `use`.
template <typename Use>
int with_checks(const GlobalOptions& global, Use use) {
  RootFs fs(global.root);
  auto report = probe_machine(fs);
  if (!report) return report_failure(report.error());
  auto recorded = probe::read_inventory(fs);
  std::optional<probe::Inventory> inventory;
  std::optional<std::string> inventory_error;
  if (recorded && *recorded) inventory = (*recorded)->inventory;
  if (!recorded) inventory_error = recorded.error().message;
  ProcessRunner runner;
  doctor::Facts facts{fs,
                      report->inventory,
                      inventory,
                      inventory_error,
                      cdi::read_spec_index(fs),
                      admission::load_grants(fs),
                      doctor::running_docker_daemons(fs),
                      report->warnings,
                      &runner};
  facts.answers = doctor::ask_daemons(fs, facts.daemons);
  return use(facts, doctor::run_doctor(facts));
}

int run_doctor(const GlobalOptions& global, DoctorFlags f) {
  if (f.container.repo.empty() != f.container.image.empty()) {
    std::cerr << "rediacc-gpu: doctor's container check needs both --repo and --image (got only "
              << (f.container.repo.empty() ? "--image" : "--repo") << "); give both, or neither for the host checks\n";
    return kExitUsage;
  }
  if (!f.container.repo.empty()) {
    auto repo = repo_of(RootFs(global.root), f.container.repo);
    if (!repo) {
      report_failure(repo.error());
      return kExitUsage;
    }
    f.container.repo = *repo;
  }
  return with_checks(global, [&f](const doctor::Facts& facts, std::vector<doctor::Check> checks) {
    ProcessRunner runner;
    const auto container = doctor::container_checks(facts, runner, f.container);
    checks.insert(checks.end(), container.begin(), container.end());
    if (f.output == "json") {
      print_json(checks);
    } else {
      print_table(checks);
    }
    return doctor::healthy(checks) ? kExitOk : kExitFailure;
  });
}

int run_metrics(const GlobalOptions& global, const MetricsFlags& f) {
  return with_checks(global, [&f](const doctor::Facts& facts, const std::vector<doctor::Check>& checks) {
    const auto text = doctor::metrics_text(facts, checks, std::chrono::system_clock::now());
    if (f.textfile.empty()) {
      std::cout << text;
      return kExitOk;
    }
    auto written = write_file_atomic(facts.fs, f.textfile, text);
    return written ? kExitOk : report_failure(written.error());
  });
}

}  // namespace

Runner attach_doctor(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<DoctorFlags>();
  sub.add_option("-o,--output", f->output, "table or json")->check(CLI::IsMember({"table", "json"}));
  sub.add_option("--repo", f->container.repo, "With --image: run a container with each device this repository holds");
  sub.add_option("--image", f->container.image, "Image for the container check (it needs sh)");
  sub.add_option("--docker-host", f->container.docker_host,
                 "The repository daemon's address for the container check (docker -H)");
  return [&global, f] { return run_doctor(global, *f); };
}

Runner attach_metrics(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<MetricsFlags>();
  sub.add_option("--textfile", f->textfile,
                 "Write to this file atomically (node_exporter's textfile collector directory), not stdout");
  return [&global, f] { return run_metrics(global, *f); };
}

}  // namespace rgpu::cli
