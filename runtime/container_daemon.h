#pragma once
// Which dockerd a runc command serves, read live: the daemon whose exec root holds the command's
// runc state (containerd's shim runs runc --root EXEC_ROOT/runtime-runc/moby), or, for a step of a
// BuildKit build (its executor runs runc with no --root), the daemon whose data root holds the
// bundle (DATA_ROOT/buildkit/executor/ID).

#include <string>

#include "core/result.h"
#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "runtime/runc_command.h"

namespace rgpu::runtime {

struct ContainerDaemon {
  docker::RunningDaemon daemon;
  std::string data_root;  ///< as the machine resolves it (dockerd resolves its own)
  std::string exec_root;  ///< as the daemon names it (its hooks' -exec-root=)
  bool build_step = false;
};

/// The daemon running `command`'s container; an error saying which runc state or bundle no
/// running dockerd holds.
Result<ContainerDaemon> container_daemon(const RootFs& fs, const RuncCommand& command);

/// True when `path` is `dir` or lies under it (both clean machine paths).
bool under_dir(std::string_view path, std::string_view dir);

}  // namespace rgpu::runtime
