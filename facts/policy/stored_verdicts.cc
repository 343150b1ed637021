#include "facts/policy/stored_verdicts.h"

#include <string_view>

#include "admission/decide.h"
#include "admission/host_paths.h"
#include "admission/machine_world.h"
#include "docker/client.h"
#include "docker/engine_paths.h"
#include "docker/local_volumes.h"
#include "docker/rediacc_layout.h"
#include "docker/running_daemons.h"

namespace rgpu::facts {
namespace {

// The machine's paths, and the one container read from its daemon, whatever name asks for it.
// Its daemon's defaults and volumes are read as the plugin reads them.
class StoredContainerWorld final : public admission::MachineWorld {
 public:
  StoredContainerWorld(const admission::HostPathJudge& paths, const std::string& inspect, const RootFs& fs,
                       const std::optional<docker::RunningDaemon>& daemon)
      : MachineWorld(paths), inspect_(inspect), fs_(fs), daemon_(daemon) {}
  admission::Known<Result<std::string>> stored_container(std::string_view) override { return inspect_; }
  admission::Known<std::string> default_cgroupns_mode() override { return docker::default_cgroupns_mode(fs_, daemon_); }
  admission::Known<Result<std::string>> volume_mount(std::string_view name) override {
    if (!daemon_) return std::nullopt;
    return docker::volume_mount_of(fs_, *daemon_, name);
  }

 private:
  const std::string& inspect_;
  const RootFs& fs_;
  const std::optional<docker::RunningDaemon>& daemon_;
};

// What a start of a stored container would get now: the plugin's own decision, on what was read.
std::optional<std::string> refusal_at_start(const Result<grants::GrantSet>& grants, const PolicyRules& rules,
                                            const admission::HostPathJudge& host_paths, const std::string& repo,
                                            const docker::StoredContainer& c, const RootFs& fs,
                                            const std::optional<docker::RunningDaemon>& daemon) {
  if (!grants) return grants.error().message;
  StoredContainerWorld world(host_paths, c.inspect, fs, daemon);
  const admission::DecideOptions options{.world = world, .policy = rules};
  const auto d = admission::decide(*grants, repo, {"POST", "/containers/" + c.id + "/start", "", ""}, options);
  if (d.allow) return std::nullopt;
  return d.msg;
}

// The paths a repository's plugin knows beyond the machine's files, less those found by running
// daemons: where the repository lives (its bind roots' {mount} and {id}).
class RepositoryPaths final : public admission::HostPathSources {
 public:
  explicit RepositoryPaths(RepositoryPlaces places) : places_(std::move(places)) {}
  std::string node_name(std::string_view) override { return {}; }
  std::vector<admission::GuardedPath> guarded_paths() override { return {}; }
  RepositoryPlaces repository_places() override { return places_; }

 private:
  RepositoryPlaces places_;
};

// The socket a repository daemon's address names, as a machine path: an address found from a
// running daemon goes through its /proc/PID/root, and under --root through the root.
std::string machine_socket(const RootFs& fs, const std::string& host) {
  std::string socket = docker::docker_socket(host).value_or(std::string());
  const std::string root = fs.root().string();
  if (!fs.is_host_root() && socket.starts_with(root + "/")) socket.erase(0, root.size());
  if (socket.starts_with("/proc/")) {
    if (const auto at = socket.find("/root/", 6); at != std::string::npos) socket.erase(0, at + 5);
  }
  return socket;
}

}  // namespace

std::vector<RepoStored> stored_verdicts(const RootFs& fs, const Result<grants::GrantSet>& grants,
                                        const PolicyRules& rules, const std::map<std::string, std::string>& hosts) {
  if (hosts.empty()) return {};
  std::vector<RepoStored> out;
  const auto daemons = docker::running_docker_daemons(fs);
  for (const auto& [repo, host] : hosts) {
    const auto socket = machine_socket(fs, host);
    const auto daemon = docker::daemon_on_socket(fs, socket, daemons);
    RepositoryPaths places(docker::repository_places(fs, repo, socket));
    const admission::HostPathJudge host_paths(fs, std::chrono::seconds(2), places);
    auto containers = docker::stored_containers_at(host);
    if (!containers) {
      out.push_back({.repo = repo, .containers = tl::unexpected(containers.error())});
      continue;
    }
    std::vector<StoredVerdict> judged;
    for (auto& c : *containers) {
      auto refused = refusal_at_start(grants, rules, host_paths, repo, c, fs, daemon);
      judged.push_back({.container = std::move(c), .refused = std::move(refused)});
    }
    out.push_back({.repo = repo, .containers = std::move(judged)});
  }
  return out;
}

}  // namespace rgpu::facts
