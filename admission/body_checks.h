#pragma once
// Checks of the fields that can attach hardware, in a create body's HostConfig (and, for
// engines up to 26.1, at its top level), an update body, an exec body and a volume body.

#include <optional>
#include <string>

#include "admission/gate_world.h"
#include "admission/refusal.h"
#include "core/host_policy.h"
#include "docker/go_json.h"
#include "grants/grant_set.h"

namespace rgpu::admission {

/// The grants for one decision: read from the source at most once, and only if asked.
class LazyGrants {
 public:
  explicit LazyGrants(const grants::GrantsSource& source) : source_(source) {}
  const Result<std::shared_ptr<const grants::GrantSet>>& get();

 private:
  const grants::GrantsSource& source_;
  std::optional<Result<std::shared_ptr<const grants::GrantSet>>> got_;
};

/// What a check needs beyond the body.
struct CheckContext {
  LazyGrants& grants;
  const std::string& repo;
  /// What the checks ask of the machine and the repository's daemon.
  GateWorld& world;
  /// What the machine's policy allows beyond the absolute refusals.
  PolicyRules policy = {};
  /// Set by a check for the operator's log (the grants file's path and error), never the tenant.
  std::string detail = {};
};

/// A refusal message, or nothing when the object attaches no hardware beyond granted CDI names
/// and loosens none of the confinement that keeps the host out.
Refusal check_host_config(const docker::GoValue& host_config, CheckContext& context);

/// A create body: its WorkingDir, its HostConfig, and the HostConfig fields that engines up to
/// 26.1 read at its top level too (each checked, whichever the engine applies).
Refusal check_create(const docker::GoValue& body, CheckContext& context);

/// An update body: its own fields, and those of HostConfig it shares (Resources, RestartPolicy).
Refusal check_update(const docker::GoValue& body, CheckContext& context);

/// A container the daemon already stores, as GET /containers/{name}/json returns it: refused
/// when its HostConfig (or its working directory) holds anything a create would be refused for
/// now. The lists the daemon itself fills in (MaskedPaths, ReadonlyPaths) are judged by whether
/// they still hold Docker's defaults, not by being there.
Refusal check_stored_container(const docker::GoValue& inspect, CheckContext& context);

/// runc once left a descriptor of the host's mount namespace open as /proc/self/fd/N while it
/// set the working directory (CVE-2024-21626); no workload needs a working directory under /proc.
Refusal check_working_dir(const std::optional<docker::GoValue>& dir);

/// A network create body: a network a repository makes is a bridge of its own, never one that
/// reaches the host's interfaces (macvlan, ipvlan, a parent, another bridge by name), a plugin's
/// driver (dockerd joins a driver name to its plugin directory unchecked) or another network's
/// configuration.
Refusal check_network_create(const docker::GoValue& body);

/// Volume driver and options (volumes/create, Mounts[].VolumeOptions).
Refusal check_volume(const std::optional<docker::GoValue>& driver, const std::optional<docker::GoValue>& options);

}  // namespace rgpu::admission
