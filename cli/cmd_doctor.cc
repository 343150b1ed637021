// rediacc-gpu doctor: the GPU-in-container playbook run on this machine, layer by layer.

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/gather_facts.h"
#include "cli/output_format.h"
#include "cli/repo_arg.h"
#include "core/command_runner.h"
#include "docker/images.h"
#include "doctor/container/container.h"
#include "doctor/doctor.h"

namespace rgpu::cli {
namespace {

struct DoctorFlags {
  OutputFormat output = OutputFormat::table;
  doctor::ContainerRequest container;
};

struct Counts {
  std::size_t passed = 0, warned = 0, failed = 0, skipped = 0;
  int first_failing_layer = 0;  ///< 0: none fails
};

Counts count(const std::vector<doctor::Check>& checks) {
  Counts n;
  for (const auto& c : checks) {
    switch (c.status) {
      case doctor::Status::ok: ++n.passed; break;
      case doctor::Status::warn: ++n.warned; break;
      case doctor::Status::skip: ++n.skipped; break;
      case doctor::Status::fail:
        ++n.failed;
        if (n.first_failing_layer == 0 || doctor::layer_number(c.layer) < n.first_failing_layer)
          n.first_failing_layer = doctor::layer_number(c.layer);
        break;
    }
  }
  return n;
}

// "2 failed, 1 warning, 20 passed, 7 skipped; first failing layer: 3 runtime integration": what an
// operator reads first. A skipped check passed nothing, so it is never counted as passed.
std::string summary(const std::vector<doctor::Check>& checks) {
  const auto n = count(checks);
  const std::string tail = std::to_string(n.passed) + " passed, " + std::to_string(n.skipped) + " skipped";
  if (n.failed == 0 && n.warned == 0) return tail;
  std::string out = std::to_string(n.failed) + " failed, " + std::to_string(n.warned) +
                    (n.warned == 1 ? " warning, " : " warnings, ") + tail;
  if (n.first_failing_layer)
    out += "; first failing layer: " + std::to_string(n.first_failing_layer) + " " +
           doctor::layer_name(static_cast<doctor::Layer>(n.first_failing_layer));
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
    std::cout << "[" << doctor::layer_number(c.layer) << "] " << status << "  " << id << "  " << c.observed
              << (c.evidence.empty() ? "" : "  [from " + c.evidence + "]") << "\n";
    if (c.status == doctor::Status::ok || c.status == doctor::Status::skip) continue;
    const std::string indent(4 + 4 + 2 + width + 2, ' ');
    if (!c.meaning.empty()) std::cout << indent << "means: " << c.meaning << "\n";
    if (!c.decision.empty()) std::cout << indent << "do:    " << c.decision << "\n";
  }
  std::cout << summary(checks) << "\n";
}

// One object: a schema version, the summary a script branches on, and every check.
void print_json(const std::vector<doctor::Check>& checks) {
  auto list = nlohmann::ordered_json::array();
  for (const auto& c : checks) {
    list.push_back({{"id", c.id}, {"layer", doctor::layer_number(c.layer)}, {"status", doctor::status_name(c.status)}});
    if (!c.subject.empty()) list.back()["subject"] = c.subject;
    list.back().update(nlohmann::ordered_json{
        {"observed", c.observed}, {"evidence", c.evidence}, {"meaning", c.meaning}, {"decision", c.decision}});
  }
  const auto n = count(checks);
  nlohmann::ordered_json out = {
      {"schema", doctor::kDoctorJsonSchema},
      {"summary",
       {{"healthy", n.failed == 0},
        {"failed", n.failed},
        {"warnings", n.warned},
        {"passed", n.passed},
        {"skipped", n.skipped},
        {"first_failing_layer", n.first_failing_layer ? nlohmann::ordered_json(n.first_failing_layer) : nullptr},
        {"first_failing_layer_name", n.first_failing_layer ? nlohmann::ordered_json(doctor::layer_name(
                                                                 static_cast<doctor::Layer>(n.first_failing_layer)))
                                                           : nullptr}}},
      {"checks", list}};
  std::cout << out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
}

int run_doctor(const GlobalOptions& global, DoctorFlags f) {
  if (f.container.repo.empty() != f.container.image.empty()) {
    return report_usage({std::string("doctor's container check needs both --repo and --image (got only ") +
                         (f.container.repo.empty() ? "--image" : "--repo") +
                         "); give both, or neither for the host checks"});
  }
  if (!f.container.repo.empty()) {
    auto repo = repo_of(RootFs(global.root), f.container.repo);
    if (!repo) {
      report_failure(repo.error());
      return kExitUsage;
    }
    f.container.repo = *repo;
  }
  RootFs fs(global.root);
  ProcessRunner runner;
  MachineFileSink sink(fs);
  auto facts = gather_facts(fs, runner, sink, {.docker_host = f.container.docker_host});
  if (!facts) return report_failure(facts.error());
  auto checks = doctor::run_doctor(*facts);
  const auto container = doctor::container_checks(fs, *facts, f.container);
  checks.insert(checks.end(), container.begin(), container.end());
  if (f.output == OutputFormat::json) {
    print_json(checks);
  } else {
    print_table(checks);
  }
  return doctor::healthy(checks) ? kExitOk : kExitFailure;
}

}  // namespace

Runner attach_doctor(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<DoctorFlags>();
  add_output_option(sub, f->output, {OutputFormat::table, OutputFormat::json}, "table or json");
  sub.add_option("--repo", f->container.repo,
                 "With --image: run a container through this repository's daemon with each device it holds");
  sub.add_option("--image", f->container.image, "Image for the container check (it needs sh and ls)");
  add_docker_host_option(sub, f->container.docker_host,
                         "the repository's, for the container check; default: its plugin's environment file, or the "
                         "daemon running behind its plugin");
  return [&global, f] { return run_doctor(global, *f); };
}

}  // namespace rgpu::cli
