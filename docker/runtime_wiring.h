#pragma once
// Which runc a dockerd's containers get: the first `runc` on the PATH of the containerd that runs
// its shims (its own, a child of the daemon, or the one its --containerd names), the shims and
// BuildKit's executor finding it by that name. What setup wires for each guarded daemon is the
// verifier (state::kRuntimeDir/runc) first and the machine's runc after it: what doctor's
// runtime-verifier check judges, and what the gate asks before it leaves NET_RAW to the verifier.

#include <optional>
#include <string>

#include "core/root_fs.h"
#include "docker/running_daemons.h"

namespace rgpu::docker {

struct RuntimeWiring {
  std::string path;                       ///< the PATH runc is looked up on
  std::string path_from;                  ///< whose environment it is: "containerd 1234", "dockerd 812"
  std::optional<std::string> first_runc;  ///< machine path of the runc found first
  std::optional<std::string> next_runc;   ///< the one after it: what the verifier runs
};

/// `daemon`'s runtime as it runs now, from /proc (its containerd's environment, else its own).
RuntimeWiring runtime_wiring(const RootFs& fs, const RunningDaemon& daemon);

/// What is wrong with it, in a few words ("its containers' runc is /usr/sbin/runc, not the verifier");
/// empty when the verifier comes first and a runc after it.
std::string runtime_wiring_fault(const RuntimeWiring& wiring);

}  // namespace rgpu::docker
