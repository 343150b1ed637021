#pragma once
// What layer 5's checks (doctor/policy/) know of the machine, read once a run by read_policy: the
// kernel's confinement (cgroups, security modules), the host policy and Rediacc's layout, each
// running dockerd as the gate judges it, what a host-network container reaches, each repository
// daemon's stored containers as a start would be judged, the hardware each granted name reaches,
// and the runtimes' versions against the known escapes.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cdi/spec_index.h"
#include "core/command_runner.h"
#include "core/host_policy.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "docker/builder_entitlements.h"
#include "docker/running_daemons.h"
#include "docker/runtime_wiring.h"
#include "facts/daemon_answers.h"
#include "facts/policy/host_network.h"
#include "facts/policy/repo_daemon_view.h"
#include "facts/policy/runtime_versions.h"
#include "facts/policy/stored_verdicts.h"
#include "grants/grant_set.h"
#include "grants/hardware.h"

namespace rgpu::facts {

/// What the policy checks read of one running dockerd.
struct DaemonReads {
  docker::RunningDaemon daemon;
  /// Its daemon.json (config_path) is a file.
  bool config_file = false;
  /// Its daemon.json as an object (docker::parse_daemon_config of the run's read); absent when
  /// there is none or it does not parse.
  std::optional<nlohmann::json> config = std::nullopt;
  /// The unix socket it was started with (docker::unix_host).
  std::optional<std::string> unix_host = std::nullopt;
  /// The repository whose plugin it calls (docker::plugin_repo).
  std::optional<std::string> plugin_repo = std::nullopt;
  /// What its own BuildKit grants builds, as the gate reads them: its daemon.json while unchanged
  /// since the daemon started (docker::daemon_builder_entitlements).
  Result<docker::BuilderEntitlements> builder = {};
  /// For one that calls a repository's plugin: which spec directories it reads and whether they are
  /// its view alone.
  std::optional<RepoDaemonView> view = std::nullopt;
  /// For one that calls a repository's plugin: which runc its containers get (the verifier first).
  std::optional<docker::RuntimeWiring> runtime = std::nullopt;
};

struct PolicyReads {
  /// /sys/fs/cgroup/cgroup.controllers (a file: cgroup v2) and /sys/fs/cgroup itself.
  NodeKind cgroup_controllers = NodeKind::missing;
  NodeKind cgroup_root = NodeKind::missing;
  /// /sys/module/apparmor/parameters/enabled ("Y": enabled); absent when it cannot be read.
  std::optional<std::string> apparmor_enabled = std::nullopt;
  /// /sys/fs/selinux/enforce ("1": enforcing); absent when it cannot be read.
  std::optional<std::string> selinux_enforce = std::nullopt;
  /// What runs as PID 1 (pid1_name); absent when the root shows no running system.
  std::optional<std::string> pid1 = std::nullopt;
  /// Something is at /run/nvidia-persistenced/socket.
  bool persistenced_socket = false;
  /// /run/user/UID/docker.sock of each user that has one: rootless daemons' sockets.
  std::vector<std::string> rootless_sockets = {};
  /// The recorded host policy (read_host_policy).
  Result<std::optional<RecordedPolicy>> host_policy = {};
  /// What shows a Rediacc layout (docker::rediacc_layout_evidence); absent when nothing does.
  std::optional<std::string> rediacc_layout = std::nullopt;
  /// renet's repository daemons' network ids (docker::rediacc_network_ids).
  std::vector<std::string> rediacc_ids = {};
  /// setup's drop-in that starts each of renet's daemons behind its gate (units::gate_dropin_path)
  /// is a file.
  bool rediacc_gate_dropin = false;
  /// The verifier's staging directory (state::kRuntimeStagingDir): its owner and mode; absent when
  /// it is not there (no container was made through the verifier since boot).
  std::optional<std::pair<unsigned, unsigned>> runtime_staging = std::nullopt;
  /// One per running dockerd, in the order they were found.
  std::vector<DaemonReads> daemons = {};
  /// What a host-network container reaches; absent where the host policy refuses host networking.
  std::optional<HostNetworkReads> host_network = std::nullopt;
  /// Each repository daemon's stored containers, judged as a start would be.
  std::vector<RepoStored> stored = {};
  /// What each granted name reaches now (grants::reach_now), read once per name; empty when
  /// grants.json does not parse.
  std::map<std::string, grants::ReachNow> grant_reach = {};
  /// The runtimes the daemons run, their versions, and the changelogs of the packages judged.
  RuntimeVersions runtimes = {};
};

/// What read_policy reads from.
struct PolicySources {
  const RootFs& fs;
  /// Runs each runtime's --version and reads the packages' changelogs.
  CommandRunner& runner;
  const std::vector<docker::RunningDaemon>& daemons;
  const std::vector<DaemonAnswer>& answers;
  const cdi::SpecIndex& specs;
  const Result<grants::GrantSet>& grants;
  /// Each daemon.json's text as the run read it (DockerReads::configs), by path.
  const std::map<std::string, std::string>& daemon_configs;
  /// Where each repository's daemon is asked (Facts::repo_daemon_hosts).
  const std::map<std::string, std::string>& repo_daemon_hosts;
};

/// Everything layer 5 reads, once.
PolicyReads read_policy(const PolicySources& s);

}  // namespace rgpu::facts
