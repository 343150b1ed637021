#include "gate/live_world.h"

#include <chrono>

#include "docker/client.h"
#include "docker/engine_paths.h"
#include "docker/local_volumes.h"
#include "docker/rediacc_layout.h"
#include "docker/running_daemons.h"
#include "docker/runtime_wiring.h"
#include "gate/guarded_paths.h"

namespace rgpu::gate {
namespace {

// The socket of the repository's own daemon as a machine path ("" when none or not a unix
// socket): --docker-host is a host path, which under --root DIR lies in DIR; an address doctor
// found from a running daemon goes through its /proc/PID/root.
std::string own_socket(const RootFs& fs, const std::string& docker_host) {
  if (docker_host.empty()) return {};
  std::string socket = docker::docker_socket(docker_host).value_or(std::string());
  const std::string root = fs.root().string();
  if (!fs.is_host_root() && socket.starts_with(root + "/")) socket.erase(0, root.size());
  if (socket.starts_with("/proc/")) {
    if (const auto at = socket.find("/root/", 6); at != std::string::npos) socket.erase(0, at + 5);
  }
  return socket;
}

}  // namespace

LiveWorld::LiveWorld(const RootFs& fs, const std::string& repo, const std::string& docker_host,
                     DaemonContainers containers)
    : fs_(fs),
      repo_(repo),
      own_socket_(own_socket(fs, docker_host)),
      spec_reviews_(fs, repo),
      host_paths_(fs, std::chrono::seconds(2), *this),
      containers_(std::move(containers)),
      build_safety_(fs, repo, docker_host) {}

std::string LiveWorld::node_name(std::string_view device_path) { return spec_reviews_.name_for_node(device_path); }

std::vector<admission::GuardedPath> LiveWorld::guarded_paths() { return gate::guarded_paths(fs_, repo_, own_socket_); }

RepositoryPlaces LiveWorld::repository_places() { return docker::repository_places(fs_, repo_, own_socket_); }

admission::Refusal LiveWorld::judge_host_path(const admission::HostBind& bind, const admission::BindScope& scope) {
  return host_paths_.check(bind, scope);
}

std::string LiveWorld::cdi_form(std::string_view device_path) { return host_paths_.cdi_form(device_path); }

bool LiveWorld::is_tun_device(std::string_view path) { return host_paths_.is_tun_device(path); }

admission::Known<Result<std::string>> LiveWorld::stored_container(std::string_view name) {
  return containers_.inspect(name);
}

admission::Known<Result<std::string>> LiveWorld::volume_mount(std::string_view name) {
  // The volumes are in the data root the daemon itself names (whatever started it, socket-activated
  // or not); asked again at most every 30 s, since only a restart moves it.
  std::string root;
  {
    const std::lock_guard lock(own_mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (!data_root_ || now - data_root_at_ > std::chrono::seconds(30)) {
      auto asked = containers_.data_root();
      if (!asked) return Result<std::string>(tl::unexpected(asked.error()));
      data_root_ = std::move(*asked);
      data_root_at_ = now;
    }
    root = *data_root_;
  }
  RGPU_TRY_ASSIGN(const auto mount, docker::local_volume_mount(fs_, root, name));
  return Result<std::string>(mount ? docker::mount_text(*mount) : std::string());
}

std::optional<docker::RunningDaemon> LiveWorld::own_daemon() {
  const std::lock_guard lock(own_mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (own_at_ == std::chrono::steady_clock::time_point{} || now - own_at_ > std::chrono::seconds(2)) {
    own_ = docker::daemon_on_socket(fs_, own_socket_, docker::running_docker_daemons(fs_));
    own_at_ = now;
  }
  return own_;
}

admission::Known<std::string> LiveWorld::default_cgroupns_mode() {
  return docker::default_cgroupns_mode(fs_, own_daemon());
}

std::vector<std::string> LiveWorld::review_items(const std::string& name) { return spec_reviews_.of(name); }

admission::Known<std::vector<std::string>> LiveWorld::defined_names() { return spec_reviews_.defined(); }

admission::Known<Result<std::optional<probe::Reach>>> LiveWorld::reach(const std::string& name) {
  return spec_reviews_.reach(name);
}

// Asked for every service on the host's network (every one renet writes): its /proc scan is kept
// as long as the daemon it judges, two seconds at most.
admission::Known<bool> LiveWorld::runtime_verified() {
  own_daemon();  // refreshed when older than two seconds
  const std::lock_guard lock(own_mutex_);
  if (own_at_ != verified_at_) {
    verified_ = own_ && docker::runtime_wiring_fault(docker::runtime_wiring(fs_, *own_)).empty();
    verified_at_ = own_at_;
  }
  return verified_;
}

admission::Known<admission::Refusal> LiveWorld::build_refusal(const PolicyRules& policy) {
  return admission::Known<admission::Refusal>(std::in_place, build_safety_.check(policy));
}

}  // namespace rgpu::gate
