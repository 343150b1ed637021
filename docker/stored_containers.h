#pragma once
// What a repository's existing containers ask for, read from its daemon: the containers a revoke
// leaves holding a name (until they stop, and refused at their next start), and how to stop one
// for good.

#include <string>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::docker {

struct StoredContainer {
  std::string id;    ///< the full ID
  std::string name;  ///< "/held", as dockerd names it
  bool running = false;
  std::vector<std::string> cdi_names;  ///< the CDI device requests it stores, in order
  std::string inspect;                 ///< GET /containers/{id}/json as the daemon answered it
};

/// Every container of the daemon at `socket`, running or not (GET /containers/json?all=1, then
/// each one's inspect).
Result<std::vector<StoredContainer>> stored_containers(const std::string& socket);

/// The same for the daemon a DOCKER_HOST value names (docker_socket's rules).
Result<std::vector<StoredContainer>> stored_containers_at(const std::string& docker_host);

/// Stops the container and keeps it stopped: its restart policy set to "no" first (or the daemon
/// would start it again), then a stop.
Result<void> stop_for_good(const std::string& socket, const std::string& id);

}  // namespace rgpu::docker
