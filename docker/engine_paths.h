#pragma once
// What every container engine running on the machine keeps where a bind could reach it, found
// live from each process's command line and configuration, not from a list of default paths: a
// container that binds another daemon's socket drives that daemon, one that binds a data root
// edits stored containers (a restore applies their hostconfig.json without asking any plugin).

#include <string>
#include <vector>

#include "core/root_fs.h"
#include "docker/running_daemons.h"

namespace rgpu::docker {

struct EnginePath {
  std::string path;  ///< machine path, as the engine was told it
  std::string what;  ///< "dockerd 812's data root"
};

/// The data root a dockerd uses: --data-root (or the old -g/--graph), else its daemon.json's
/// "data-root" (or "graph"), else /var/lib/docker.
std::string data_root(const RootFs& fs, const RunningDaemon& daemon);

/// The exec root a dockerd uses: --exec-root, else its daemon.json's "exec-root", else
/// /var/run/docker. Its containers' runc state lies in EXEC_ROOT/runtime-runc/moby.
std::string exec_root(const RootFs& fs, const RunningDaemon& daemon);

/// For each dockerd, containerd, buildkitd and `podman system service` running: its unix
/// sockets (from its flags and configuration, and, on the host's own root, the sockets it holds
/// listening, which covers socket activation), its data root, exec or state root and the
/// configuration file it reads. In /proc order, then the engine's order.
std::vector<EnginePath> engine_paths(const RootFs& fs);

/// The daemon of `daemons` that listens on unix socket `socket` (a machine path; /var/run and /run
/// are one): by its -H or hosts, or, socket-activated (-H fd://, as renet's daemons are), by the
/// listening socket it holds; absent when none does, or `socket` is empty.
std::optional<RunningDaemon> daemon_on_socket(const RootFs& fs, const std::string& socket,
                                              const std::vector<RunningDaemon>& daemons);

}  // namespace rgpu::docker
