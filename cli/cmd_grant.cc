// rediacc-gpu grant | revoke | grants: which repository may attach which CDI device.

#include <chrono>
#include <iostream>

#include "cdi/reach_rules.h"
#include "cli/command.h"
#include "cli/output_format.h"
#include "cli/render.h"
#include "cli/repo_arg.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "docker/client.h"
#include "docker/repo_plugin.h"
#include "docker/stored_containers.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::cli {
namespace {

struct GrantFlags {
  std::string repo;
  std::string device;
  bool exclusive = false;
  OutputFormat output = OutputFormat::table;
  std::string docker_host;  ///< revoke: the repository's daemon, where containers using the name are found
  bool stop = false;        ///< revoke: stop them and keep them stopped
  grants::GrantReview review;
};

// A number is not a card: said at grant time, with the name that is.
std::string numbered_name_warning(const cdi::SpecIndex& index, const std::string& device) {
  std::string out = device +
                    " is a number given in the order the cards were probed: after a card is added, removed or "
                    "moved, or a reboot, it can name another card";
  const auto keyed = cdi::keyed_alias(index, device);
  return out + (keyed.empty() ? "; grant a name keyed by the card's PCI address or UUID where its spec has one"
                              : "; grant " + keyed + " to name this card by its address or UUID");
}

int run_grant(const GlobalOptions& global, const GrantFlags& f) {
  RootFs fs(global.root);
  auto repo = repo_of(fs, f.repo);
  if (!repo) return report_failure(repo.error());
  MachineFileSink sink(fs);
  const auto index = cdi::read_spec_index(fs);
  auto outcome =
      grants::add_grant(fs, sink, index, *repo, f.device, f.exclusive, std::chrono::system_clock::now(), f.review);
  if (!outcome) return report_failure(outcome.error());
  if (cdi::is_numbered(f.device)) print_warning(numbered_name_warning(index, f.device));
  if (outcome->change.kind == Change::Kind::unchanged) {
    std::cout << *repo << " already holds " << f.device << (f.exclusive ? " exclusively" : "") << "\n";
  } else {
    std::cout << "granted " << f.device << " to " << *repo << (f.exclusive ? " exclusively" : "") << "\n";
  }
  return kExitOk;
}

// A revoke applies at the next request: these containers are refused at their next start, and a
// running one keeps the device cgroup it started with until it stops.
int report_containers(const RootFs& fs, const std::string& repo, const GrantFlags& f) {
  const std::string host = f.docker_host.empty() ? docker::configured_docker_host(fs, repo) : f.docker_host;
  if (host.empty()) {
    std::cout << "Containers made while " << repo << " held it are refused at their next start; a running one keeps "
              << "the device until it stops (pass --docker-host to list them).\n";
    return f.stop ? report_failure({"--stop needs the repository's daemon: pass --docker-host unix:///PATH"}) : kExitOk;
  }
  const auto socket = docker::docker_socket(host);
  auto holding = socket.and_then([](const std::string& at) { return docker::stored_containers(at); });
  if (!holding)
    return report_failure({"the grant is revoked, but its containers could not be listed: " + holding.error().message});
  int status = kExitOk;
  for (const auto& c : *holding) {
    if (std::find(c.cdi_names.begin(), c.cdi_names.end(), f.device) == c.cdi_names.end()) continue;
    std::string state = c.running ? "running: it keeps the device until it stops" : "stopped";
    if (f.stop) {
      auto stopped = docker::stop_for_good(*socket, c.id);
      state = stopped ? std::string("stopped now, restart policy no") : "not stopped: " + stopped.error().message;
      if (!stopped) status = kExitFailure;
    }
    std::cout << "container " << c.name << " (" << c.id.substr(0, 12) << ") uses " << f.device << ", " << state
              << "; it is refused at its next start.\n";
  }
  return status;
}

int run_revoke(const GlobalOptions& global, const GrantFlags& f) {
  RootFs fs(global.root);
  auto repo = repo_of(fs, f.repo);
  if (!repo) return report_failure(repo.error());
  MachineFileSink sink(fs);
  auto outcome = grants::remove_grant(fs, sink, *repo, f.device);
  if (!outcome) return report_failure(outcome.error());
  const auto& change = outcome->change;
  if (change.kind == Change::Kind::unchanged) {
    // Idempotent (exit 0), but a mistyped name should not look like success: say what it holds.
    std::string held;
    if (auto set = grants::load_grants(fs)) {
      for (const auto& g : set->grants) {
        if (g.repo == *repo) held += (held.empty() ? "" : ", ") + g.device;
      }
    }
    std::cout << change.detail << "; nothing to revoke. "
              << (held.empty() ? "It holds no grant." : "It holds: " + held + ".") << "\n";
    // Revoked earlier: its containers can still be listed and stopped.
    const bool asked = f.stop || !f.docker_host.empty();
    return asked ? report_containers(fs, *repo, f) : kExitOk;
  }
  std::cout << "revoked " << f.device << " from " << *repo << "\n";
  return report_containers(fs, *repo, f);
}

// For each grant: other repositories' grants of names that reach the same GPU.
std::string overlaps(const grants::GrantSet& set, const cdi::ReachMap& reach, const grants::Grant& g) {
  std::string out;
  for (const auto& h : grants::alias_holders(set, reach, g.repo, g.device)) {
    out += (out.empty() ? "" : ", ") + h.repo + ": " + h.alias;
  }
  return out.empty() ? "-" : out;
}

int run_list_grants(const GlobalOptions& global, const GrantFlags& f) {
  RootFs fs(global.root);
  auto set = grants::load_grants(fs);
  if (!set) return report_failure(set.error());
  std::string only;
  if (!f.repo.empty()) {
    auto repo = repo_of(fs, f.repo);
    if (!repo) return report_failure(repo.error());
    only = *repo;
  }
  std::vector<grants::Grant> shown = set->grants;
  std::erase_if(shown, [&](const grants::Grant& g) { return !only.empty() && g.repo != only; });
  const auto index = cdi::read_spec_index(fs);
  const auto reach = grants::machine_reach(fs, index);
  const auto moves = grants::moved_grants(probe::HardwareReader(fs), index, *set);
  const auto move_of = [&](const grants::Grant& g) -> const grants::GrantMove* {
    for (const auto& m : moves) {
      if (m.grant.repo == g.repo && m.grant.device == g.device) return &m;
    }
    return nullptr;
  };
  if (f.output == OutputFormat::json) {
    auto list = nlohmann::ordered_json::array();
    for (const auto& g : shown) {
      auto aliases = nlohmann::ordered_json::array();
      for (const auto& h : grants::alias_holders(*set, reach, g.repo, g.device)) {
        aliases.push_back({{"repo", h.repo}, {"device", h.alias}});
      }
      list.push_back({{"repo", g.repo},
                      {"device", g.device},
                      {"exclusive", g.exclusive},
                      {"granted_at", g.granted_at},
                      {"same_gpu_also_granted_to", aliases}});
      const auto* d = cdi::find_device(index, g.device);
      list.back().update(carried_json(d ? d->carried : cdi::Carried{}));
      list.back()["reviewed"] = g.reviewed.value_or(std::vector<std::string>{});
      list.back()["hardware"] = g.hardware ? nlohmann::ordered_json(*g.hardware) : nlohmann::ordered_json();
      const auto* moved = move_of(g);
      list.back()["moved"] = moved != nullptr;
      if (moved) {
        list.back()["hardware_now"] = moved->now;
        if (!moved->unreadable.empty()) list.back()["hardware_unreadable"] = moved->unreadable;
        if (!moved->stale.empty()) list.back()["stale"] = moved->stale;
      }
    }
    // An object with a version, as every document we print: a script can tell a format it does not know.
    std::cout << nlohmann::ordered_json{{"schema", kGrantsJsonSchema}, {"grants", list}}.dump(2) << "\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& g : shown) {
    const auto* moved = move_of(g);
    const std::string mark = !moved                                                         ? ""
                             : moved->stale_kind == grants::GrantMove::Stale::undefined     ? " (UNDEFINED)"
                             : moved->stale_kind == grants::GrantMove::Stale::key_elsewhere ? " (STALE SPEC)"
                                                                                            : " (MOVED)";
    rows.push_back({g.repo, g.device + mark, g.exclusive ? "yes" : "no", g.granted_at, overlaps(*set, reach, g)});
    const auto* d = cdi::find_device(index, g.device);
    if (f.output == OutputFormat::wide) {
      std::string hardware = g.hardware ? joined(*g.hardware) : "-";
      if (moved) hardware += moved->unreadable.empty() ? "; now " + joined(moved->now) : "; now unreadable";
      rows.back().push_back(hardware.empty() ? "-" : hardware);
      for (auto& c : carried_cells(d ? d->carried : cdi::Carried{})) rows.back().push_back(std::move(c));
    } else {
      rows.back().push_back(carried_summary(d ? d->carried : cdi::Carried{}));
    }
  }
  std::vector<std::string> header = {"REPO", "DEVICE", "EXCLUSIVE", "GRANTED AT", "SAME GPU ALSO GRANTED TO"};
  if (f.output == OutputFormat::wide) {
    header.insert(header.end(), {"HARDWARE", "HOOKS", "MOUNTS", "NET DEVICES"});
  } else {
    header.push_back("CARRIES");
  }
  std::cout << render_table(header, rows);
  return kExitOk;
}

}  // namespace

Runner attach_grant(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<GrantFlags>();
  sub.add_option("REPO", f->repo, "Repository, as name or name@machine")->required();
  sub.add_option("--device", f->device, "Exact CDI name, e.g. nvidia.com/gpu=all")->required();
  sub.add_flag("--exclusive", f->exclusive, "Reserve the name for this repository alone");
  sub.add_flag("--allow-hooks", f->review.allow_hooks,
               std::string("Grant a name whose spec runs a hook outside the allow-list (the toolkit's programs and ") +
                   state::kAllowedHooksPath + "); the gate refuses it again if its hooks change");
  sub.add_flag("--allow-net-devices", f->review.allow_net_devices,
               "Grant a name whose spec moves a host network interface into the container");
  return [&global, f] { return run_grant(global, *f); };
}

Runner attach_revoke(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<GrantFlags>();
  sub.add_option("REPO", f->repo, "Repository, as name or name@machine")->required();
  sub.add_option("--device", f->device, "Exact CDI name granted earlier")->required();
  add_docker_host_option(sub, f->docker_host,
                         "the repository's, to list the containers that use the name; default: "
                         "REDIACC_GPU_DOCKER_HOST of /etc/rediacc/gpu/plugins/REPO.env");
  sub.add_flag("--stop", f->stop, "Stop those containers and set their restart policy to no");
  return [&global, f] { return run_revoke(global, *f); };
}

Runner attach_grants(CLI::App& sub, GlobalOptions& global) {
  add_root_option(sub, global);
  auto f = std::make_shared<GrantFlags>();
  sub.add_option("REPO", f->repo, "Only this repository's grants");
  add_output_option(sub, f->output, {OutputFormat::table, OutputFormat::wide, OutputFormat::json},
                    "Output format: table, wide (the hooks, mounts and net devices each name brings) or json");
  auto apply = attach_grants_apply(sub, global);
  return [&global, f, apply] {
    if (const int applied = apply(); applied >= 0) return applied;
    return run_list_grants(global, *f);
  };
}

}  // namespace rgpu::cli
