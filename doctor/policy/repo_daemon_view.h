#pragma once
// Which CDI spec directories a repository's dockerd reads and whether they are its view alone,
// read once for doctor's repo-cdi-view and buildkit checks as the gate reads them: the daemon the
// repository's plugin names answers GET /info, and each directory is seen through the daemon's
// /proc/PID/root (docker::reads_only_view, the gate's own verdict).

#include <map>
#include <string>

#include "docker/cdi_spec_dirs.h"
#include "docker/running_daemons.h"
#include "docker/view_verdict.h"
#include "doctor/facts.h"

namespace rgpu::doctor {

struct RepoDaemonView {
  /// It answered GET /info at its repository's address, as the gate asks it.
  bool answered = false;
  /// What it reported, else what its daemon.json sets, else Docker's defaults (docker::spec_dirs).
  docker::CdiSpecDirs dirs;
  docker::ViewVerdict verdict;
};

/// Dockerd `d` of repository `repo`, asked at `hosts`' address for `repo`
/// (docker::repo_daemon_addresses; none known: not asked).
RepoDaemonView repo_daemon_view(const Facts& f, const docker::RunningDaemon& d, const std::string& repo,
                                const std::map<std::string, std::string>& hosts);

}  // namespace rgpu::doctor
