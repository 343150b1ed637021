#pragma once
// Which Docker the machine has, as each family installs it: a package dpkg records (docker-ce,
// docker.io), else the version a running daemon reports, else a package rpm records (docker-ce,
// Fedora's moby-engine, openSUSE's docker). So every check that needs Docker's version runs on
// every distribution, and rpm runs only where neither a file nor a daemon said.

#include <optional>
#include <string>
#include <vector>

#include "core/command_runner.h"
#include "core/root_fs.h"
#include "facts/daemon_answers.h"

namespace rgpu::facts {

struct InstalledDocker {
  std::string name;     ///< the package ("docker-ce"), or the daemon's label when only a daemon said
  std::string version;  ///< as its source writes it ("5:28.1.1-1~debian.12", "28.5.2")
  std::string source;   ///< where it was read: "dpkg's status", "rpm", "GET /version"
};

/// The machine's Docker; absent when no package database and no running daemon names one.
std::optional<InstalledDocker> read_installed_docker(const RootFs& fs, CommandRunner& runner,
                                                     const std::optional<std::string>& dpkg_status,
                                                     const std::vector<DaemonAnswer>& answers);

}  // namespace rgpu::facts
