#pragma once
// Where the gate reads a repository's stored containers: that repository's own dockerd, over its
// unix socket (GET /containers/{name}/json), so names and ID prefixes resolve as the start will.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace rgpu::gate {

class DaemonContainers {
 public:
  /// GET /containers/{name}/json's text from the daemon, or why it could not be asked.
  Result<std::string> inspect(std::string_view name) const;
  /// The daemon's data root as it answers GET /info (DockerRootDir), or why it could not be asked.
  Result<std::string> data_root() const;

 private:
  friend Result<DaemonContainers> daemon_containers(const std::string&, const std::string&, std::chrono::milliseconds);
  DaemonContainers(std::optional<std::string> socket, std::string unset_why, std::chrono::milliseconds timeout)
      : socket_(std::move(socket)), unset_why_(std::move(unset_why)), timeout_(timeout) {}
  std::optional<std::string> socket_;  ///< absent: no daemon was named
  std::string unset_why_;
  std::chrono::milliseconds timeout_;
};

/// The containers of the daemon at `docker_host` (unix:///path or /path), each read bounded by
/// `timeout`. An empty `docker_host` gives one that fails every read with `unset_why`: the routes
/// that need a stored container are then refused, never let through unjudged. An error when
/// `docker_host` is not a daemon address.
Result<DaemonContainers> daemon_containers(const std::string& docker_host, const std::string& unset_why,
                                           std::chrono::milliseconds timeout = std::chrono::seconds(10));

}  // namespace rgpu::gate
