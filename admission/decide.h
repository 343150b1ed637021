#pragma once
// The admission decision: may this repository's request reach its Docker daemon? Hardware
// reaches a container only through a CDI name the repository was granted; every other way of
// attaching a device is refused, with the CDI form to use instead.

#include <string>

#include "admission/authz_request.h"
#include "admission/body_checks.h"
#include "admission/gate_world.h"
#include "admission/refusal.h"
#include "core/host_policy.h"
#include "grants/grant_set.h"

namespace rgpu::admission {

/// dockerd 29.3.1 and later forward bodies up to 4 MiB to a plugin and refuse larger ones
/// (CVE-2026-34040, moby pkg/authorization/authz.go maxBodySize); earlier ones forward up to
/// 1 MiB and send a larger body as none, which the gate refuses on every route it judges.
inline constexpr size_t kMaxBody = 4 * 1024 * 1024;

struct DecideOptions {
  /// BuildKit's /session and /grpc carry builds the gate cannot read, which can attach CDI
  /// devices: the operator's word that they may, whatever the world's build verdict.
  bool allow_buildkit = false;
  /// What the decision asks of the machine and the repository's daemon: the host paths binds and
  /// mounts resolve to, the stored containers of routes that run a process in an existing one (and
  /// a create's --volumes-from), each granted name's spec and hardware now, the names the specs
  /// define, whether builds are safe. Every caller names it, none is assumed: the plugin, admit
  /// and doctor's verdict on a stored container the live one (gate::LiveWorld); the benchmarks
  /// and the libFuzzer target null_world(), which knows nothing; a test its own.
  GateWorld& world;
  /// What the machine's policy allows beyond the absolute refusals (host networking, the
  /// checkpoint capabilities, checkpoints, ...); the strict rules by default.
  PolicyRules policy = {};
};

/// True for a route whose decision may ask the daemon: a stored container (every create, for its
/// --volumes-from) or, for BuildKit's routes, what the daemon reads. The plugin answers those
/// off its event loop, so the daemon's own call for that lookup is served meanwhile.
bool asks_the_daemon(const AuthzRequest& request);

/// The grants (read from `grants` only if the request names CDI devices) and the request in,
/// allow or deny with a message out. A source that fails refuses only requests that need it.
Decision decide(const grants::GrantsSource& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options);

/// decide, failing closed: anything thrown on the way (a grants source, a daemon lookup, a body
/// the gate chokes on) refuses this one request, saying so, instead of ending the process that
/// serves every request of the repository. What every caller of the decision uses.
Decision decide_or_refuse(const grants::GrantsSource& grants, const std::string& repo, const AuthzRequest& request,
                          const DecideOptions& options);

/// Pure: the same with grants in hand.
Decision decide(const grants::GrantSet& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options);

}  // namespace rgpu::admission
