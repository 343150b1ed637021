// Layer 5, the repositories' own daemons: that each reads a CDI view of its own (so dockerd
// itself cannot resolve a name its repository does not hold), and which of their containers still
// hold a device their repository no longer holds (refused at their next start; a running one
// keeps the device until it stops).

#include <filesystem>
#include <map>

#include "admission/decide.h"
#include "admission/host_paths.h"
#include "admission/machine_world.h"
#include "core/host_policy.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "core/structured_text.h"
#include "docker/stored_containers.h"
#include "doctor/doctor.h"
#include "doctor/policy/repo_daemon_view.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::policy};

bool holds(const Facts& f, const std::string& repo, const std::string& name) {
  return f.grants && f.grants->find(repo, name);
}

// One daemon's view, seen as the daemon sees it: through /proc/PID/root, into its mount namespace.
std::vector<std::string> view_problems(const Facts& f, const docker::RunningDaemon& d, const std::string& repo,
                                       const std::map<std::string, std::string>& hosts) {
  std::vector<std::string> problems;
  const std::string who = "dockerd " + d.pid + " of repository " + repo;
  const auto root = f.fs.host_path("/proc/" + d.pid + "/root");
  const auto view = repo_daemon_view(f, d, repo, hosts);
  for (const auto& dir : view.dirs.dirs) {
    const auto seen = root / std::filesystem::path(dir).relative_path();
    if (view.verdict.why(dir) == docker::NotTheView::machine_specs)
      problems.push_back(who + " reads the machine's whole /etc/cdi");
    std::vector<std::string> extra;
    for (const auto& device : cdi::read_spec_dir(seen).devices) {
      if (!holds(f, repo, device.qualified_name)) extra.push_back(device.qualified_name);
    }
    if (!extra.empty()) problems.push_back(who + " can resolve in " + dir + " what it does not hold: " + joined(extra));
  }
  return problems;
}

Check repo_cdi_views(const Facts& f) {
  const auto hosts = docker::repo_daemon_addresses(f.fs, f.daemons);
  std::vector<std::string> problems;
  std::vector<std::string> fine;
  for (const auto& d : f.daemons) {
    const auto repo = docker::plugin_repo(f.fs, d);
    if (!repo) continue;
    auto found = view_problems(f, d, *repo, hosts);
    if (found.empty()) fine.push_back(*repo + " (dockerd " + d.pid + ")");
    problems.insert(problems.end(), found.begin(), found.end());
  }
  if (problems.empty() && fine.empty())
    return kCheck.skip("repo-cdi-view", "no running dockerd calls a rediacc-gpu plugin");
  if (problems.empty())
    return kCheck.ok("repo-cdi-view", "each repository daemon reads only its own names: " + joined(fine),
                     Evidence("each daemon's spec directories through /proc/PID/root, its daemon.json, GET /info"));
  return kCheck.fail(
      "repo-cdi-view", joined(problems, "; "),
      "dockerd resolves CDI names itself at every start and restart-policy restore: a name it can read but its "
      "repository does not hold reaches a device whenever the plugin is not asked",
      "run rediacc-gpu setup (its drop-in binds /var/lib/rediacc/gpu/cdi/REPO over each repository daemon's "
      "/etc/cdi), restart the daemons named, and keep cdi-spec-dirs to [\"/etc/cdi\"]");
}

// The machine's paths, and the one container read from its daemon, whatever name asks for it.
class StoredContainerWorld final : public admission::MachineWorld {
 public:
  StoredContainerWorld(const admission::HostPathJudge& paths, const std::string& inspect)
      : MachineWorld(paths), inspect_(inspect) {}
  admission::Known<Result<std::string>> stored_container(std::string_view) override { return inspect_; }

 private:
  const std::string& inspect_;
};

// What a start of a stored container would get now: the plugin's own decision, on what was read.
std::optional<std::string> refusal_at_start(const Facts& f, const admission::HostPathJudge& host_paths,
                                            const std::string& repo, const docker::StoredContainer& c) {
  if (!f.grants) return f.grants.error().message;
  StoredContainerWorld world(host_paths, c.inspect);
  const admission::DecideOptions options{.world = world, .policy = effective_rules(f.fs)};
  const auto d = admission::decide(*f.grants, repo, {"POST", "/containers/" + c.id + "/start", "", ""}, options);
  if (d.allow) return std::nullopt;
  return d.msg;
}

// Every container a start would refuse now: names revoked since it was made, and anything else a
// copied or edited data-root carries; a daemon restoring restart-policy containers asks no plugin.
Check stale_device_containers(const Facts& f) {
  const auto hosts = docker::repo_daemon_addresses(f.fs, f.daemons);
  if (hosts.empty())
    return kCheck.skip(
        "stale-device-containers",
        "no repository daemon is configured (/etc/rediacc/gpu/plugins/REPO.env) or running behind its plugin");
  const admission::HostPathJudge host_paths(f.fs);
  std::vector<std::string> stale, unreachable;
  for (const auto& [repo, host] : hosts) {
    auto containers = docker::stored_containers_at(host);
    if (!containers) {
      unreachable.push_back(repo + ": " + containers.error().message);
      continue;
    }
    for (const auto& c : *containers) {
      const auto why = refusal_at_start(f, host_paths, repo, c);
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
