// rediacc-gpu grants apply FILE: the grants a file lists, made true in one change.

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>

#include "cli/command.h"
#include "cli/output_format.h"
#include "cli/render.h"
#include "docker/client.h"
#include "docker/repo_plugin.h"
#include "docker/stored_containers.h"
#include "grants/apply.h"
#include "probe/inventory_file.h"
#include "probe/probe.h"

namespace rgpu::cli {
namespace {

using nlohmann::ordered_json;

struct ApplyFlags {
  std::string file;
  bool prune = false;
  bool accept_moves = false;
  bool dry_run = false;
  OutputFormat output = OutputFormat::text;
};

struct Holder {
  std::string repo, device, container, id;
  bool running = false;
};

struct Report {
  grants::ApplyOutcome outcome;
  std::vector<Holder> holders;
  std::vector<std::string> warnings;
  bool views_stale = false;  ///< the grants were written but the views not: exit 1
};

std::string source_name(const std::string& file) { return file == "-" ? "standard input" : file; }

// FILE is the operator's, as their shell names it (not under --root); "-" is standard input.
Result<std::string> read_desired(const std::string& file) {
  if (file == "-") return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  std::ifstream in(file, std::ios::binary);
  if (!in) return fail("cannot read " + file + ": " + std::strerror(errno) + "; name a readable JSON or YAML file.");
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// The containers that still ask for a revoked name: refused at their next start, a running one
// keeping the device until it stops. Read from each repository's configured daemon, when it has one.
void find_holders(const RootFs& fs, Report& report) {
  std::map<std::string, std::vector<std::string>> revoked;
  for (const auto& g : report.outcome.revoked) revoked[g.repo].push_back(g.device);
  for (const auto& [repo, devices] : revoked) {
    const auto host = docker::configured_docker_host(fs, repo);
    if (host.empty()) continue;
    auto stored = docker::stored_containers_at(host);
    if (!stored) {
      report.warnings.push_back("the containers of " + repo +
                                " that use a revoked name could not be listed: " + stored.error().message);
      continue;
    }
    for (const auto& c : *stored) {
      for (const auto& d : devices) {
        if (std::find(c.cdi_names.begin(), c.cdi_names.end(), d) == c.cdi_names.end()) continue;
        report.holders.push_back({repo, d, c.name, c.id, c.running});
      }
    }
  }
}

ordered_json grant_json(const grants::Grant& g) {
  return {{"repo", g.repo}, {"device", g.device}, {"exclusive", g.exclusive}};
}

ordered_json report_json(const Report& r, bool dry_run) {
  const auto& o = r.outcome;
  auto list = [](const std::vector<grants::Grant>& grants) {
    auto out = ordered_json::array();
    for (const auto& g : grants) out.push_back(grant_json(g));
    return out;
  };
  auto updated = ordered_json::array();
  for (const auto& u : o.updated) {
    updated.push_back(grant_json(u.grant));
    updated.back()["why"] = u.why;
  }
  auto refused = ordered_json::array();
  for (const auto& f : o.refused) refused.push_back({{"repo", f.repo}, {"device", f.device}, {"reason", f.reason}});
  auto holders = ordered_json::array();
  for (const auto& h : r.holders) {
    holders.push_back(
        {{"repo", h.repo}, {"device", h.device}, {"container", h.container}, {"id", h.id}, {"running", h.running}});
  }
  return {{"schema", kGrantsApplyJsonSchema},
          {"changed", o.refused.empty() && o.changed()},
          {"dry_run", dry_run},
          {"added", list(o.added)},
          {"updated", updated},
          {"revoked", list(o.revoked)},
          {"unchanged", list(o.unchanged)},
          {"refused", refused},
          {"containers_using_revoked", holders},
          {"warnings", r.warnings}};
}

void print_text(const Report& r, bool dry_run) {
  const auto& o = r.outcome;
  const auto exclusively = [](const grants::Grant& g) { return g.exclusive ? " exclusively" : ""; };
  for (const auto& g : o.added)
    std::cout << (dry_run ? "would grant " : "granted ") << g.device << " to " << g.repo << exclusively(g) << "\n";
  for (const auto& u : o.updated)
    std::cout << (dry_run ? "would update " : "updated ") << u.grant.device << " of " << u.grant.repo << ": " << u.why
              << "\n";
  for (const auto& g : o.revoked)
    std::cout << (dry_run ? "would revoke " : "revoked ") << g.device << " from " << g.repo << "\n";
  for (const auto& h : r.holders) {
    std::cout << "container " << h.container << " (" << h.id.substr(0, 12) << ") of " << h.repo << " uses " << h.device
              << (h.running ? ", running: it keeps the device until it stops" : ", stopped")
              << "; it is refused at its next start.\n";
  }
  for (const auto& w : r.warnings) std::cout << "warning: " << w << "\n";
  if (!o.changed()) {
    std::cout << "nothing to change: " << o.unchanged.size() << " grant" << (o.unchanged.size() == 1 ? "" : "s")
              << " as listed\n";
  } else {
    std::cout << (dry_run ? "would change: " : "applied: ") << o.added.size() << " added, " << o.updated.size()
              << " updated, " << o.revoked.size() << " revoked, " << o.unchanged.size() << " unchanged\n";
  }
}

int run_apply(const GlobalOptions& global, const ApplyFlags& f) {
  RootFs fs(global.root);
  auto text = read_desired(f.file);
  if (!text) return report_failure(text.error());
  auto desired = grants::parse_desired_grants(*text, source_name(f.file), probe::machine_hostname(fs).value_or(""));
  if (!desired) return report_failure(desired.error());
  MachineFileSink machine(fs);
  DryRunFileSink dry(fs);
  FileSink& sink = f.dry_run ? static_cast<FileSink&>(dry) : machine;
  auto outcome = grants::apply_grants(fs, sink, cdi::read_spec_index(fs), *desired, f.prune,
                                      std::chrono::system_clock::now(), f.accept_moves);
  if (!outcome) return report_failure(outcome.error());
  Report report{std::move(*outcome), {}, {}};
  if (report.outcome.refused.empty()) {
    find_holders(fs, report);
    if (report.outcome.views_error) {
      report.warnings.push_back(*report.outcome.views_error);
      report.views_stale = true;
    }
  }
  if (f.output == OutputFormat::json) {
    std::cout << report_json(report, f.dry_run).dump(2) << "\n";
  } else if (report.outcome.refused.empty()) {
    print_text(report, f.dry_run);
  }
  if (!report.outcome.refused.empty()) {
    if (f.output != OutputFormat::json) {
      for (const auto& r : report.outcome.refused) print_error("refused " + r.repo + " " + r.device + ": " + r.reason);
    }
    std::set<std::pair<std::string, std::string>> grants;
    for (const auto& r : report.outcome.refused) grants.emplace(r.repo, r.device);
    const auto n = grants.size();
    return report_failure({source_name(f.file) + ": " + std::to_string(n) + " grant" + (n == 1 ? " was" : "s were") +
                           " refused, so nothing was changed"});
  }
  return report.views_stale ? kExitFailure : kExitOk;
}

}  // namespace

Runner attach_grants_apply(CLI::App& grants, GlobalOptions& global) {
  CLI::App* apply = grants.add_subcommand(
      "apply", "Make the grants of the repositories FILE lists what it says, in one change, or change nothing.");
  add_root_option(*apply, global);
  auto f = std::make_shared<ApplyFlags>();
  apply->add_option("FILE", f->file, "JSON or YAML: {\"schema\": 1, \"repositories\": [{\"name\", \"grants\"}]}")
      ->required();
  apply->add_flag("--prune", f->prune, "Also revoke, for the repositories FILE lists, every name it does not list");
  apply->add_flag("--accept-moves", f->accept_moves,
                  "Record the hardware a listed name reaches now where it moved to another card since it was "
                  "granted (refused without it)");
  apply->add_flag("--dry-run", f->dry_run, "Say what would change and change nothing");
  add_output_option(*apply, f->output, {OutputFormat::text, OutputFormat::json}, "Output format: text or json");
  return [&global, f, apply]() -> int { return apply->parsed() ? run_apply(global, *f) : -1; };
}

}  // namespace rgpu::cli
