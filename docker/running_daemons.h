#pragma once
// The Docker daemons running on the machine, read from /proc under the root: what each was
// started with, and which daemon.json it reads.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::docker {

struct RunningDaemon {
  std::string pid;
  std::vector<std::string> args;  ///< its command line, argv[0] first
  bool root_user = true;          ///< real uid 0; false for a rootless dockerd

  /// The value of `--name=V` or `--name V`; the last one wins, as for dockerd.
  std::optional<std::string> flag(const std::string& name) const;
  /// The daemon.json it reads: --config-file, else /etc/docker/daemon.json.
  std::string config_path() const;
};

/// Every daemon.json a daemon here runs with, or would: /etc/docker/daemon.json (the machine's
/// own dockerd, running or not) and each running daemon's --config-file. Sorted.
std::vector<std::string> daemon_config_paths(const std::vector<RunningDaemon>& daemons);

/// Its daemon.json as an object; absent when there is none or it does not parse (docker-daemon
/// reports that).
std::optional<nlohmann::json> daemon_config(const RootFs& fs, const RunningDaemon& daemon);

/// daemon_config of a daemon.json already read (`text`, from `path`).
std::optional<nlohmann::json> parse_daemon_config(const std::string& text, const std::string& path);

/// The repository whose plugin (rediacc-gpu-REPO) the daemon calls: --authorization-plugin, or
/// "authorization-plugins" in its daemon.json.
std::optional<std::string> plugin_repo(const RootFs& fs, const RunningDaemon& daemon);
/// plugin_repo with its daemon.json as already read (daemon_config; absent: none).
std::optional<std::string> plugin_repo(const RunningDaemon& daemon, const std::optional<nlohmann::json>& config);

/// Its unix socket as it was started with it (--host / -H unix://PATH, or "hosts" in its
/// daemon.json), the path in the daemon's own mount namespace; absent when it listens on none.
std::optional<std::string> unix_host(const RootFs& fs, const RunningDaemon& daemon);
/// unix_host with its daemon.json as already read (daemon_config; absent: none).
std::optional<std::string> unix_host(const RunningDaemon& daemon, const std::optional<nlohmann::json>& config);

/// Where doctor reaches the daemon: "unix://" + its socket through /proc/PID/root (the path in its
/// own mount namespace); absent when it listens on no unix socket.
std::optional<std::string> daemon_address(const RootFs& fs, const RunningDaemon& daemon);

/// Where doctor asks each repository's daemon, by repository: its plugin's environment file
/// (REDIACC_GPU_DOCKER_HOST), else the daemon_address of a daemon running behind its plugin.
std::map<std::string, std::string> repo_daemon_addresses(const RootFs& fs, const std::vector<RunningDaemon>& daemons);

/// The process `pid` when its argv[0] is dockerd; absent otherwise or when it is gone.
std::optional<RunningDaemon> read_daemon(const RootFs& fs, const std::string& pid);

/// Every process whose argv[0] is dockerd, by pid.
std::vector<RunningDaemon> running_docker_daemons(const RootFs& fs);

/// The cgroup namespace `daemon` gives a container that asks for none: its --default-cgroupns-mode
/// or daemon.json's default-cgroupns-mode, else dockerd's own default for the machine: "private" on
/// cgroup v2 (/sys/fs/cgroup/cgroup.controllers), "host" on v1. With no daemon, the machine's.
std::string default_cgroupns_mode(const RootFs& fs, const std::optional<RunningDaemon>& daemon);

}  // namespace rgpu::docker
