#pragma once
// The Docker daemons running on the machine, read from /proc under the root: what each was
// started with, and which daemon.json it reads.

#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::doctor {

struct RunningDaemon {
  std::string pid;
  std::vector<std::string> args;  ///< its command line, argv[0] first
  bool root_user = true;          ///< real uid 0; false for a rootless dockerd

  /// The value of `--name=V` or `--name V`; the last one wins, as for dockerd.
  std::optional<std::string> flag(const std::string& name) const;
  /// The daemon.json it reads: --config-file, else /etc/docker/daemon.json.
  std::string config_path() const;
};

/// Every process whose argv[0] is dockerd, by pid.
std::vector<RunningDaemon> running_docker_daemons(const RootFs& fs);

}  // namespace rgpu::doctor
