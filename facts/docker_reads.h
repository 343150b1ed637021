#pragma once
// Docker's side of layer 3 as the machine has it: each daemon's configuration, the specs in the
// other directories Docker reads (and prefers), and who besides root could write the spec
// directories each running daemon reports it reads.

#include <map>
#include <string>
#include <vector>

#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "facts/daemon_answers.h"

namespace rgpu::facts {

/// A spec in /var/run/cdi or /run/cdi that parses, and the names it defines.
struct OtherDirSpec {
  std::string path;                ///< its machine path
  std::vector<std::string> names;  ///< qualified names, in the spec's order
};

/// A spec directory a daemon reports it reads, which someone other than root could put a spec in.
struct SpecDirWriter {
  std::string label;   ///< the daemon's (DaemonAnswer::label)
  std::string dir;     ///< as the daemon reports it
  std::string writer;  ///< who: "/home/u is owned by uid 1000", "/x is writable by everyone"
};

struct DockerReads {
  /// The text of each daemon configuration a daemon here runs with or would (daemon_config_paths),
  /// by path; a file missing or unreadable has none.
  std::map<std::string, std::string> configs = {};
  /// The specs of paths::kDockerRunCdiDir and paths::kPodmanRunCdiDir (each directory once when
  /// one links to the other) that parse, in the order of the directories and their names.
  std::vector<OtherDirSpec> other_dir_specs = {};
  /// For each daemon that answered with its CDISpecDirs, each directory it reads that another
  /// user could write, as the daemon sees it (a rootless one's through /proc/PID/root), in order.
  std::vector<SpecDirWriter> spec_dir_writers = {};
};

/// What Docker's checks read of the machine, for `daemons` running and the `answers` they gave.
DockerReads read_docker(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                        const std::vector<DaemonAnswer>& answers);

}  // namespace rgpu::facts
