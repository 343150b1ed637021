#pragma once
// The admission decision: may this repository's request reach its Docker daemon? Hardware
// reaches a container only through a CDI name the repository was granted; every other way of
// attaching a device is refused, with the CDI form to use instead.

#include <functional>
#include <string>

#include "admission/authz_request.h"
#include "admission/grants.h"
#include "admission/host_paths.h"

namespace rgpu::admission {

inline constexpr size_t kMaxBody = 1024 * 1024;  ///< dockerd forwards no larger body to a plugin

/// A container as the repository's own daemon stores it: the text of GET /containers/{name}/json
/// (dockerd resolves a name, a short ID prefix or a full ID exactly as the start will), or an
/// error saying why the daemon could not be asked.
using ContainerSource = std::function<Result<std::string>(const std::string& name)>;

struct DecideOptions {
  /// BuildKit's /session and /grpc carry builds the gate cannot read, which can attach CDI
  /// devices; allow them only for daemons whose builder has device entitlements turned off.
  bool allow_buildkit = false;
  /// The machine the daemon runs on, where bind and mount sources are resolved (links followed)
  /// before they are judged; null judges their text alone (benchmarks, the libFuzzer target).
  const HostPathJudge* host_paths = nullptr;
  /// Where routes that run a process in an existing container (start, restart, unpause, exec,
  /// an update that sets a restart policy) read that container, judged as a create would be now.
  /// Null judges the request alone (benchmarks, the libFuzzer target); the plugin and admit
  /// always pass one, which fails closed when no daemon was named.
  const ContainerSource* containers = nullptr;
};

/// True for a route whose decision asks the daemon for a stored container: the plugin answers
/// those off its event loop, so the daemon's own call for that lookup is served meanwhile.
bool judges_stored_container(const AuthzRequest& request);

/// The grants (read from `grants` only if the request names CDI devices) and the request in,
/// allow or deny with a message out. A source that fails refuses only requests that need it.
Decision decide(const GrantsSource& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options = {});

/// Pure: the same with grants in hand.
Decision decide(const GrantSet& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options = {});

}  // namespace rgpu::admission
