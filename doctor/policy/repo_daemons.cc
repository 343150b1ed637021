// Layer 5, the repositories' own daemons: that each reads a CDI view of its own (so dockerd
// itself cannot resolve a name its repository does not hold), and which of their containers still
// hold a device their repository no longer holds (refused at their next start; a running one
// keeps the device until it stops).

#include "core/joined.h"
#include "core/state_paths.h"
#include "core/structured_text.h"
#include "docker/rediacc_gates.h"
#include "docker/rediacc_layout.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

bool holds(const Facts& f, const std::string& repo, const std::string& name) {
  return f.grants && f.grants->find(repo, name);
}

// The names a daemon can resolve in `dir` that its repository does not hold.
std::vector<std::string> names_not_held(const Facts& f, const std::string& repo, const facts::RepoDaemonView& view,
                                        const std::string& dir) {
  std::vector<std::string> extra;
  if (const auto read = view.names.find(dir); read != view.names.end()) {
    for (const auto& name : read->second) {
      if (!holds(f, repo, name)) extra.push_back(name);
    }
  }
  return extra;
}

// One daemon's view, seen as the daemon sees it: through /proc/PID/root, into its mount namespace.
std::vector<std::string> view_problems(const Facts& f, const std::string& pid, const std::string& repo,
                                       const facts::RepoDaemonView& view) {
  std::vector<std::string> problems;
  const std::string who = "dockerd " + pid + " of repository " + repo;
  for (const auto& dir : view.dirs.dirs) {
    if (view.verdict.why(dir) == docker::NotTheView::machine_specs)
      problems.push_back(who + " reads the machine's whole /etc/cdi");
    const auto extra = names_not_held(f, repo, view, dir);
    if (!extra.empty()) problems.push_back(who + " can resolve in " + dir + " what it does not hold: " + joined(extra));
  }
  return problems;
}

// The way out for the daemons whose view failed. renet's daemons are restarted by renet, and
// their daemon.json is renet's (rewritten at every start): no advice edits it.
std::string view_repair(const Facts& f, const std::vector<const facts::DaemonReads*>& failed) {
  std::vector<std::string> restarts, others, renet_dirs;
  for (const auto* d : failed) {
    const auto id = d->unix_host ? docker::rediacc_network_id(*d->unix_host) : std::nullopt;
    if (!id) {
      others.push_back(d->daemon.pid);
      continue;
    }
    restarts.push_back(docker::renet_restart_command(*id));
    for (const auto& dir : d->view->dirs.dirs) {
      const bool at_fault = d->view->verdict.why(dir) == docker::NotTheView::machine_specs ||
                            !names_not_held(f, *d->plugin_repo, *d->view, dir).empty();
      if (at_fault && dir != "/etc/cdi" && dir != "/run/cdi" && dir != "/var/run/cdi") renet_dirs.push_back(dir);
    }
  }
  std::string out;
  if (!restarts.empty()) {
    out = (f.policy.rediacc_gate_dropin ? ""
                                        : "run rediacc-gpu setup (its drop-ins bind each repository's view "
                                          "over its daemon's /etc/cdi and /run/cdi), then ") +
          std::string("restart each named when its tenants can stop for a moment: ") + joined(restarts, "; ");
    if (!renet_dirs.empty())
      out += "; the spec directories " + joined(renet_dirs) +
             " come from renet's daemon.json, which renet rewrites at every start: they cannot be changed on this "
             "machine";
  }
  if (!others.empty()) {
    out += std::string(out.empty() ? "" : "; for dockerd ") + (out.empty() ? "" : joined(others) + ": ") +
           "run rediacc-gpu setup (its drop-in binds /var/lib/rediacc/gpu/cdi/REPO over each repository daemon's "
           "/etc/cdi), restart the daemons named, and keep cdi-spec-dirs to [\"/etc/cdi\"] in their daemon.json";
  }
  return out;
}

Check repo_cdi_views(const Facts& f) {
  std::vector<std::string> problems;
  std::vector<std::string> fine;
  std::vector<const facts::DaemonReads*> failed;
  for (const auto& d : f.policy.daemons) {
    const auto& repo = d.plugin_repo;
    if (!repo || !d.view) continue;
    auto found = view_problems(f, d.daemon.pid, *repo, *d.view);
    if (found.empty()) fine.push_back(*repo + " (dockerd " + d.daemon.pid + ")");
    if (!found.empty()) failed.push_back(&d);
    problems.insert(problems.end(), found.begin(), found.end());
  }
  if (problems.empty() && fine.empty())
    return kCheck.skip("repo-cdi-view", "no running dockerd calls a rediacc-gpu plugin");
  if (problems.empty())
    return kCheck.ok("repo-cdi-view", "each repository daemon reads only its own names: " + joined(fine),
                     Evidence("each daemon's spec directories through /proc/PID/root, its daemon.json, GET /info"));
  return kCheck.fail("repo-cdi-view", joined(problems, "; "),
                     "dockerd resolves CDI names itself at every start and restart-policy restore: a name it can read "
                     "but its repository does not hold reaches a device whenever the plugin is not asked",
                     view_repair(f, failed));
}

// Every container a start would refuse now: names revoked since it was made, and anything else a
// copied or edited data-root carries; a daemon restoring restart-policy containers asks no plugin.
Check stale_device_containers(const Facts& f) {
  const auto& hosts = f.repo_daemon_hosts;
  if (hosts.empty())
    return kCheck.skip(
        "stale-device-containers",
        "no repository daemon is configured (/etc/rediacc/gpu/plugins/REPO.env) or running behind its plugin");
  std::vector<std::string> stale, unreachable;
  for (const auto& [repo, containers] : f.policy.stored) {
    if (!containers) {
      unreachable.push_back(repo + ": " + containers.error().message);
      continue;
    }
    for (const auto& [c, why] : *containers) {
      if (!why) continue;
      std::string uses;
      for (const auto& name : c.cdi_names) {
        if (!holds(f, repo, name)) uses += " uses " + name + ",";
      }
      stale.push_back(repo + ": " + c.name + " (" + c.id.substr(0, 12) + ", " + (c.running ? "running" : "stopped") +
                      ")" + (uses.empty() ? " " : uses + " ") + "would be refused at its next start (" + *why + ")");
    }
  }
  if (!stale.empty()) {
    return kCheck.fail(
        "stale-device-containers", "containers hold what their repository may not have now: " + joined(stale),
        "a running one keeps its device until it stops; a stopped one is refused at its next start, but a daemon "
        "restoring its restart-policy containers asks no plugin",
        "rediacc-gpu revoke REPO --device NAME --stop stops them for good; or recreate them without it");
  }
  if (!unreachable.empty())
    return kCheck.warn(
        "stale-device-containers", "could not ask " + joined(unreachable), "",
        "check that the repository daemons run and that their plugins' environment files name their sockets");
  return kCheck.ok("stale-device-containers",
                   "every container would be allowed to start (" + std::to_string(hosts.size()) + " daemons asked)",
                   Evidence("each repository daemon's GET /containers/json?all=1 and /containers/ID/json, judged as "
                            "the plugin judges a start"));
}

}  // namespace

std::vector<Check> repo_daemon_checks(const Facts& f) { return {repo_cdi_views(f), stale_device_containers(f)}; }

}  // namespace rgpu::doctor
