#pragma once
// Whether BuildKit may build for a repository. A build's /session and /grpc carry what the gate
// cannot read, and a build step can attach CDI devices (RUN --device from Docker 29): builds are
// safe only while dockerd itself can resolve no name the repository was not granted. That holds
// when every CDI spec directory the repository's daemon reads is the repository's own view. Its
// builder must also grant neither entitlement that reaches past the gate: security.insecure runs
// build steps privileged, network.host (on by default) shares the host's network with them, as
// the gate refuses for containers and for the classic builder.

#include <chrono>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "admission/refusal.h"
#include "core/host_policy.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "docker/builder_entitlements.h"
#include "docker/running_daemons.h"

namespace rgpu::gate {

/// The refusal for the spec directories the repository's daemon reports (`info`: its GET /info),
/// each seen in its own root (`daemon_root`); nothing when every one is the repository's view in
/// `fs` (docker::reads_only_view, the verdict doctor's buildkit check reports).
admission::Refusal spec_dirs_refusal(const nlohmann::json& info, const RootFs& daemon_root, const RootFs& fs,
                                     const std::string& repo);

/// The refusal for the builder entitlements the daemon runs with (`granted`: from `config_path`,
/// docker::running_builder_entitlements) under `policy`: when they cannot be told, or a build step
/// could reach past the gate (docker::builder_reach, which doctor's buildkit check asks too).
admission::Refusal builder_refusal(const Result<docker::BuilderEntitlements>& granted, const std::string& config_path,
                                   const PolicyRules& policy);

class BuildSafety {
 public:
  /// The daemon is the dockerd serving `docker_host`'s unix socket (docker::serving_daemon: a
  /// host path, as --docker-host is), read through the host's /proc/PID/root, where its mount
  /// namespace shows what it reads; the view is `fs`'s /var/lib/rediacc/gpu/cdi/REPO.
  BuildSafety(const RootFs& fs, std::string repo, std::string docker_host);

  /// Nothing when builds are safe now under `policy` (where it allows the host's network, the
  /// builder's network-host entitlement may be on); else the refusal: what does not hold and what
  /// to fix. A verdict is kept for two seconds (one build sends many requests), for one policy.
  admission::Refusal check(const PolicyRules& policy = {});

 private:
  admission::Refusal judge(const PolicyRules& policy);
  admission::Refusal entitlements_refusal(const docker::RunningDaemon& daemon, const RootFs& daemon_root,
                                          const PolicyRules& policy);

  const RootFs& fs_;
  std::string repo_;
  std::string docker_host_;
  std::mutex mutex_;
  struct Kept {
    std::chrono::steady_clock::time_point at;
    bool host_network;  ///< the policy it was judged under
    admission::Refusal verdict;
  };
  std::optional<Kept> kept_;
  /// The daemon.json text first read while the daemon it was read for ran (that process: its pid
  /// and start); absent text is no file.
  struct FirstRead {
    std::string pid;
    unsigned long long ticks = 0;
    std::optional<std::string> text;
  };
  std::optional<FirstRead> first_read_;
};

}  // namespace rgpu::gate
