#include "gate/live_gate.h"

#include <chrono>

namespace rgpu::gate {

Result<std::unique_ptr<LiveGate>> LiveGate::open(const RootFs& fs, GateSettings settings) {
  RGPU_TRY_ASSIGN(auto containers, daemon_containers(settings.docker_host, settings.no_daemon_why));
  return std::unique_ptr<LiveGate>(new LiveGate(fs, std::move(settings), std::move(containers)));
}

LiveGate::LiveGate(const RootFs& fs, GateSettings settings, DaemonContainers containers)
    : fs_(fs),
      settings_(std::move(settings)),
      cache_(fs),
      grants_([this] { return cache_.current(); }),
      world_(fs, settings_.repo, settings_.docker_host, std::move(containers)),
      options_{.allow_buildkit = settings_.allow_buildkit, .world = world_} {}

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

}  // namespace rgpu::gate
