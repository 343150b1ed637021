#pragma once
// The admission decision: may this repository's request reach its Docker daemon? Hardware
// reaches a container only through a CDI name the repository was granted; every other way of
// attaching a device is refused, with the CDI form to use instead.

#include <string>

#include "admission/authz_request.h"
#include "admission/grants.h"
#include "admission/host_paths.h"

namespace rgpu::admission {

inline constexpr size_t kMaxBody = 1024 * 1024;  ///< dockerd forwards no larger body to a plugin

struct DecideOptions {
  /// BuildKit's /session and /grpc carry builds the gate cannot read, which can attach CDI
  /// devices; allow them only for daemons whose builder has device entitlements turned off.
  bool allow_buildkit = false;
  /// The machine the daemon runs on, where bind and mount sources are resolved (links followed)
  /// before they are judged; null judges their text alone (benchmarks, the libFuzzer target).
  const HostPathJudge* host_paths = nullptr;
};

/// The grants (read from `grants` only if the request names CDI devices) and the request in,
/// allow or deny with a message out. A source that fails refuses only requests that need it.
Decision decide(const GrantsSource& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options = {});

/// Pure: the same with grants in hand.
Decision decide(const GrantSet& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options = {});

}  // namespace rgpu::admission
