#pragma once
// What each running daemon says of itself (GET /info, GET /version), asked once a run for every
// check that needs it.

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/root_fs.h"
#include "docker/running_daemons.h"

namespace rgpu::facts {

/// What one running daemon said of itself.
struct DaemonAnswer {
  std::string label;       ///< "dockerd 123 of repository web", "the daemon of repository web"
  bool rootless = false;   ///< a dockerd found running as a user other than root
  std::string pid = "";    ///< its process, when found in /proc; empty for one reached only by address
  nlohmann::json info;     ///< GET /info; null when it did not answer
  nlohmann::json version;  ///< GET /version; null when it did not answer
  std::string repo = "";   ///< the repository whose plugin it runs behind (its CDI view); empty: none
};

/// Asks each daemon of `daemons`, each repository daemon of `repo_hosts` (docker::repo_daemon_addresses)
/// and each of `also` (label, socket path: the --docker-host doctor was given) for GET /info and
/// GET /version, once.
std::vector<DaemonAnswer> ask_daemons(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                                      const std::map<std::string, std::string>& repo_hosts,
                                      const std::vector<std::pair<std::string, std::string>>& also = {});

/// A string member of a daemon's answer ("Version" of GET /version); empty when absent.
std::string answer_text(const nlohmann::json& answer, const char* key);

}  // namespace rgpu::facts
