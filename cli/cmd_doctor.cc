// rediacc-gpu doctor: the GPU-in-container playbook run on this machine, layer by layer.

#include <iostream>
#include <nlohmann/json.hpp>

#include "admission/grant_store.h"
#include "cli/command.h"
#include "cli/probe_machine.h"
#include "cli/render.h"
#include "doctor/doctor.h"
#include "probe/inventory_file.h"

namespace rgpu::cli {
namespace {

struct DoctorFlags {
  std::string output = "table";
};

void print_table(const std::vector<doctor::Check>& checks) {
  for (const auto& c : checks) {
    std::cout << "[" << c.layer << "] " << doctor::status_name(c.status) << "  " << c.id << ": " << c.observed << "\n";
    if (c.status == doctor::Status::ok || c.status == doctor::Status::skip) continue;
    if (!c.meaning.empty()) std::cout << "      means: " << c.meaning << "\n";
    if (!c.decision.empty()) std::cout << "      do:    " << c.decision << "\n";
  }
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

int run_doctor(const GlobalOptions& global, const DoctorFlags& f) {
  RootFs fs(global.root);
  auto report = probe_machine(fs);
  if (!report) return report_failure(report.error());
  auto recorded = probe::read_inventory(fs);
  std::optional<probe::Inventory> inventory;
  if (recorded && *recorded) inventory = (*recorded)->inventory;
  const doctor::Facts facts{fs, report->inventory, inventory, cdi::read_spec_index(fs), admission::load_grants(fs)};
  const auto checks = doctor::run_doctor(facts);
  if (f.output == "json") {
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
  sub.add_option("-o,--output", f->output, "table or json")->check(CLI::IsMember({"table", "json"}));
  return [&global, f] { return run_doctor(global, *f); };
}

}  // namespace rgpu::cli
