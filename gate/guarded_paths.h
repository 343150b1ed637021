#pragma once
// The paths no bind of a repository's container may reach, found live on the machine: every
// container engine's sockets, roots and configuration (docker::engine_paths), and on a machine
// laid out as Rediacc lays it out, the other repositories' sockets, secrets and mounts and the
// repository's own daemon state; the repository's own mount and secrets stay open to it.

#include <string>
#include <vector>

#include "admission/host_paths.h"
#include "core/root_fs.h"

namespace rgpu::gate {

/// For the repository whose daemon listens at `own_socket` (a machine path; empty when unknown,
/// which leaves nothing of the datastore or of /run/rediacc open).
std::vector<admission::GuardedPath> guarded_paths(const RootFs& fs, const std::string& repo,
                                                  const std::string& own_socket);

}  // namespace rgpu::gate
