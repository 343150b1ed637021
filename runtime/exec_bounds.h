#pragma once
// A process exec'd into a container made before gets the capabilities dockerd asks for: those of
// the container's spec as dockerd wrote it (containerd keeps that one), not those the verifier
// made it with. So the verifier bounds them again at `runc exec`: no CAP_NET_RAW for a process in
// a container whose own process was made without it (one on the host's network).

#include <optional>
#include <string>

#include "core/result.h"
#include "core/root_fs.h"
#include "runtime/runc_command.h"

namespace rgpu::runtime {

/// The bounding set of the container's init process, as runc's state (`<root>/<id>/state.json`)
/// and the kernel (/proc/PID/status) say now: a bit per capability number. An error when the
/// container is not running or its state cannot be read.
Result<unsigned long long> container_bounding_set(const RootFs& fs, const RuncCommand& exec);

/// The process spec `exec` names (its --process) bounded by `bounding`: the text runc is to read
/// instead, or nothing when the spec keeps within it already. An error when the spec cannot be
/// read or its --cap adds what the container lacks.
Result<std::optional<std::string>> bounded_process(const RootFs& fs, const RuncCommand& exec,
                                                   unsigned long long bounding);

}  // namespace rgpu::runtime
