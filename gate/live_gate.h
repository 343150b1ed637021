#pragma once
// The gate as it runs for one repository, assembled once for `admit` and `authz-plugin`: the
// grants as they are at each request (reloaded when the file changes), the host policy, and the
// machine and the repository's daemon as they are now (LiveWorld).

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "admission/decide.h"
#include "core/host_policy.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "gate/daemon_containers.h"
#include "gate/live_world.h"
#include "grants/cache.h"

namespace rgpu::gate {

struct GateSettings {
  std::string repo;
  /// The repository's own daemon (unix:///path); empty: the routes that need a stored container
  /// are refused with `no_daemon_why`.
  std::string docker_host;
  std::string no_daemon_why;
  bool allow_buildkit = false;
  /// The policy to apply instead of the one setup recorded (admit --host-policy).
  std::optional<HostPolicy> policy = std::nullopt;
};

class LiveGate {
 public:
  /// An error when docker_host is not a daemon address.
  static Result<std::unique_ptr<LiveGate>> open(const RootFs& fs, GateSettings settings);
  LiveGate(const LiveGate&) = delete;
  LiveGate& operator=(const LiveGate&) = delete;

  const std::string& repo() const { return settings_.repo; }
  /// What the decision reads of the machine; valid as long as the gate.
  const admission::DecideOptions& options() const { return options_; }
  /// The grants now, reloaded when grants.json changed.
  const grants::GrantsSource& grants() const { return grants_; }
  /// The decision on one request, failing closed on anything the gate throws.
  admission::Decision decide(const admission::AuthzRequest& request);
  /// The policy's rules now: --host-policy's, else the recorded policy, read again at most every
  /// two seconds. Thread-safe.
  PolicyRules policy();

 private:
  LiveGate(const RootFs& fs, GateSettings settings, DaemonContainers containers);

  const RootFs& fs_;
  GateSettings settings_;
  std::mutex policy_mutex_;
  std::optional<std::pair<std::chrono::steady_clock::time_point, PolicyRules>> policy_;
  grants::GrantsCache cache_;
  grants::GrantsSource grants_;
  LiveWorld world_;
  admission::DecideOptions options_;
};

}  // namespace rgpu::gate
