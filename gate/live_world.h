#pragma once
// The gate's world for one repository as the machine is now: host paths resolved on the machine
// (and the paths found live that no bind may reach), the repository daemon's stored containers,
// each CDI name's spec and hardware (SpecReviews), and whether BuildKit may build for it
// (BuildSafety). It knows every fact: where one cannot be read, it answers with the error, and the
// decision refuses.

#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "admission/gate_world.h"
#include "admission/host_paths.h"
#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "gate/build_safety.h"
#include "gate/daemon_containers.h"
#include "gate/spec_reviews.h"

namespace rgpu::gate {

class LiveWorld final : public admission::GateWorld, private admission::HostPathSources {
 public:
  /// `docker_host` is the repository's own daemon (unix:///path), read by `containers`; empty
  /// when none was named.
  LiveWorld(const RootFs& fs, const std::string& repo, const std::string& docker_host, DaemonContainers containers);
  LiveWorld(const LiveWorld&) = delete;
  LiveWorld& operator=(const LiveWorld&) = delete;

  admission::Refusal judge_host_path(const admission::HostBind& bind, const admission::BindScope& scope) override;
  std::string cdi_form(std::string_view device_path) override;
  bool is_tun_device(std::string_view path) override;
  admission::Known<Result<std::string>> stored_container(std::string_view name) override;
  admission::Known<Result<std::string>> volume_mount(std::string_view name) override;
  admission::Known<std::string> default_cgroupns_mode() override;
  std::vector<std::string> review_items(const std::string& name) override;
  admission::Known<std::vector<std::string>> defined_names() override;
  admission::Known<Result<std::optional<probe::Reach>>> reach(const std::string& name) override;
  admission::Known<admission::Refusal> build_refusal(const PolicyRules& policy) override;
  admission::Known<bool> runtime_verified() override;

  /// The roots `scope` lets binds come from now, filled in: where the verifier in front of runc opens
  /// a bind beneath.
  std::vector<admission::FilledRoot> bind_roots(const admission::BindScope& scope) const {
    return host_paths_.filled_roots(scope);
  }

 private:
  std::string node_name(std::string_view device_path) override;
  std::vector<admission::GuardedPath> guarded_paths() override;
  RepositoryPlaces repository_places() override;

  /// The daemon listening on the repository's socket, looked up at most every two seconds (a /proc
  /// scan); absent when none does.
  std::optional<docker::RunningDaemon> own_daemon();

  const RootFs& fs_;
  std::string repo_;
  std::mutex own_mutex_;
  std::chrono::steady_clock::time_point own_at_{};
  std::optional<docker::RunningDaemon> own_;
  std::chrono::steady_clock::time_point verified_at_{};  ///< the own_at_ verified_ was judged for
  bool verified_ = false;
  std::chrono::steady_clock::time_point data_root_at_{};
  std::optional<std::string> data_root_;  ///< the daemon's DockerRootDir, asked at most every 30 s
  std::string own_socket_;                ///< the repository daemon's socket as a machine path, "" when none
  SpecReviews spec_reviews_;
  admission::HostPathJudge host_paths_;
  DaemonContainers containers_;
  BuildSafety build_safety_;
};

}  // namespace rgpu::gate
