#pragma once
// Where the gate reads a repository's stored containers: that repository's own dockerd, over its
// unix socket (GET /containers/{name}/json), so names and ID prefixes resolve as the start will.

#include <chrono>
#include <string>

#include "admission/decide.h"

namespace rgpu::plugin {

/// A source reading the daemon at `docker_host` (unix:///path or /path), each read bounded by
/// `timeout`. An empty `docker_host` gives a source that fails every read with `unset_why`: the
/// routes that need a stored container are then refused, never let through unjudged.
Result<admission::ContainerSource> daemon_containers(const std::string& docker_host, const std::string& unset_why,
                                                     std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace rgpu::plugin
