#include "plugin/live_gate.h"

#include <chrono>

#include "docker/client.h"
#include "plugin/daemon_containers.h"
#include "plugin/guarded_paths.h"

namespace rgpu::plugin {

Result<std::unique_ptr<LiveGate>> LiveGate::open(const RootFs& fs, GateSettings settings) {
  RGPU_TRY_ASSIGN(auto containers, daemon_containers(settings.docker_host, settings.no_daemon_why));
  return std::unique_ptr<LiveGate>(new LiveGate(fs, std::move(settings), std::move(containers)));
}

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

LiveGate::LiveGate(const RootFs& fs, GateSettings settings, admission::ContainerSource containers)
    : fs_(fs),
      settings_(std::move(settings)),
      cache_(fs),
      grants_([this] { return cache_.current(); }),
      spec_reviews_(fs, settings_.repo),
      host_paths_(
          fs, std::chrono::seconds(2), [this](std::string_view path) { return spec_reviews_.name_for_node(path); },
          [this, socket = own_socket(fs, settings_.docker_host)] {
            return guarded_paths(fs_, settings_.repo, socket);
          }),
      containers_(std::move(containers)),
      reviews_([this](const std::string& name) { return spec_reviews_.of(name); }),
      names_([this] { return spec_reviews_.defined(); }),
      hardware_([this](const std::string& name) { return spec_reviews_.reach(name); }),
      build_safety_(fs, settings_.repo, settings_.docker_host),
      builds_([this] { return build_safety_.check(policy()); }),
      options_{.allow_buildkit = settings_.allow_buildkit,
               .host_paths = &host_paths_,
               .containers = &containers_,
               .reviews = &reviews_,
               .names = &names_,
               .hardware = &hardware_,
               .builds = &builds_} {}

PolicyRules LiveGate::policy() {
  if (settings_.policy) return rules_of(*settings_.policy);
  const std::lock_guard lock(policy_mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (!policy_ || now - policy_->first > std::chrono::seconds(2)) policy_.emplace(now, effective_rules(fs_));
  return policy_->second;
}

admission::Decision LiveGate::decide(const admission::AuthzRequest& request) {
  admission::DecideOptions options = options_;
  options.policy = policy();
  return admission::decide_or_refuse(grants_, settings_.repo, request, options);
}

}  // namespace rgpu::plugin
