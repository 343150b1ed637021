#pragma once
// Which CDI spec directories a repository's dockerd reads and whether they are its view alone,
// read once a run for doctor's repo-cdi-view and buildkit checks as the gate reads them: the daemon
// the repository's plugin names answers GET /info, and each directory is seen through the daemon's
// /proc/PID/root (docker::reads_only_view, the gate's own verdict).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"
#include "docker/cdi_spec_dirs.h"
#include "docker/running_daemons.h"
#include "docker/view_verdict.h"

namespace rgpu::facts {

struct RepoDaemonView {
  /// It answered GET /info at its repository's address, as the gate asks it.
  bool answered = false;
  /// What it reported, else what its daemon.json sets, else Docker's defaults (docker::spec_dirs).
  docker::CdiSpecDirs dirs;
  docker::ViewVerdict verdict;
  /// The qualified names each of `dirs` defines, read through the daemon's /proc/PID/root (what
  /// dockerd itself can resolve there), by the directory as the daemon names it.
  std::map<std::string, std::vector<std::string>> names;
};

/// Dockerd `d` of repository `repo`, whose daemon.json is `config` (docker::daemon_config), asked
/// at `hosts`' address for `repo` (docker::repo_daemon_addresses; none known: not asked).
RepoDaemonView repo_daemon_view(const RootFs& fs, const docker::RunningDaemon& d,
                                const std::optional<nlohmann::json>& config, const std::string& repo,
                                const std::map<std::string, std::string>& hosts);

}  // namespace rgpu::facts
