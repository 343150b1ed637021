#include "plugin/live_world.h"

#include <chrono>

#include "docker/client.h"
#include "plugin/guarded_paths.h"

namespace rgpu::plugin {
namespace {

// The socket of the repository's own daemon as a machine path ("" when none or not a unix
// socket): --docker-host is a host path, which under --root DIR lies in DIR.
std::string own_socket(const RootFs& fs, const std::string& docker_host) {
  if (docker_host.empty()) return {};
  std::string socket = docker::docker_socket(docker_host).value_or(std::string());
  const std::string root = fs.root().string();
  if (!fs.is_host_root() && socket.starts_with(root + "/")) socket.erase(0, root.size());
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

std::vector<admission::GuardedPath> LiveWorld::guarded_paths() {
  return plugin::guarded_paths(fs_, repo_, own_socket_);
}

admission::Refusal LiveWorld::judge_host_path(std::string_view source, std::string_view what) {
  return host_paths_.check(source, what);
}

std::string LiveWorld::cdi_form(std::string_view device_path) { return host_paths_.cdi_form(device_path); }

bool LiveWorld::is_tun_device(std::string_view path) { return host_paths_.is_tun_device(path); }

admission::Known<Result<std::string>> LiveWorld::stored_container(std::string_view name) {
  return containers_.inspect(name);
}

std::vector<std::string> LiveWorld::review_items(const std::string& name) { return spec_reviews_.of(name); }

admission::Known<std::vector<std::string>> LiveWorld::defined_names() { return spec_reviews_.defined(); }

admission::Known<Result<std::optional<probe::Reach>>> LiveWorld::reach(const std::string& name) {
  return spec_reviews_.reach(name);
}

admission::Known<admission::Refusal> LiveWorld::build_refusal(const PolicyRules& policy) {
  return admission::Known<admission::Refusal>(std::in_place, build_safety_.check(policy));
}

}  // namespace rgpu::plugin
