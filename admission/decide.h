#pragma once
// The admission decision: may this repository's request reach its Docker daemon? Hardware
// reaches a container only through a CDI name the repository was granted; every other way of
// attaching a device is refused, with the CDI form to use instead.

#include <functional>
#include <string>

#include "admission/authz_request.h"
#include "admission/body_checks.h"
#include "admission/host_paths.h"
#include "admission/refusal.h"
#include "core/host_policy.h"
#include "grants/grant_set.h"

namespace rgpu::admission {

/// dockerd 29.3.1 and later forward bodies up to 4 MiB to a plugin and refuse larger ones
/// (CVE-2026-34040, moby pkg/authorization/authz.go maxBodySize); earlier ones forward up to
/// 1 MiB and send a larger body as none, which the gate refuses on every route it judges.
inline constexpr size_t kMaxBody = 4 * 1024 * 1024;

/// Whether BuildKit may build now: nothing when it may, else why not and what to fix
/// (plugin::BuildSafety asks the repository's daemon).
using BuildSource = std::function<Refusal()>;

struct DecideOptions {
  /// BuildKit's /session and /grpc carry builds the gate cannot read, which can attach CDI
  /// devices: the operator's word that they may, whatever `builds` says.
  bool allow_buildkit = false;
  /// The machine the daemon runs on, where bind and mount sources are resolved (links followed)
  /// before they are judged; null judges their text alone (benchmarks, the libFuzzer target).
  const HostPathJudge* host_paths = nullptr;
  /// Where routes that run a process in an existing container (start, restart, unpause, exec,
  /// an update that sets a restart policy) read that container, judged as a create would be now,
  /// and where a create's --volumes-from containers are read, their mounts judged as its own.
  /// Null judges the request alone (benchmarks, the libFuzzer target); the plugin and admit
  /// always pass one, which fails closed when no daemon was named.
  const ContainerSource* containers = nullptr;
  /// Where each granted name's hooks and net devices now are compared with what its grant
  /// reviewed (SpecReviews); null skips that (benchmarks, the libFuzzer target).
  const ReviewSource* reviews = nullptr;
  /// The names this machine's specs define, for the suggestions of a refusal (SpecReviews).
  const NameSource* names = nullptr;
  /// Where a granted name's hardware is read live (SpecReviews::hardware); null skips the
  /// identity and reservation checks (benchmarks, the libFuzzer target).
  const HardwareSource* hardware = nullptr;
  /// Whether builds are safe for this repository now (its daemon reads only its view); null
  /// refuses BuildKit unless allow_buildkit.
  const BuildSource* builds = nullptr;
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
                const DecideOptions& options = {});

/// decide, failing closed: anything thrown on the way (a grants source, a daemon lookup, a body
/// the gate chokes on) refuses this one request, saying so, instead of ending the process that
/// serves every request of the repository. What every caller of the decision uses.
Decision decide_or_refuse(const grants::GrantsSource& grants, const std::string& repo, const AuthzRequest& request,
                          const DecideOptions& options = {});

/// Pure: the same with grants in hand.
Decision decide(const grants::GrantSet& grants, const std::string& repo, const AuthzRequest& request,
                const DecideOptions& options = {});

}  // namespace rgpu::admission
