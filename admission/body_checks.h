#pragma once
// Checks of the fields that can attach hardware, in a create body's HostConfig (and, for
// engines up to 26.1, at its top level), an update body, an exec body and a volume body.

#include <functional>
#include <optional>
#include <string>

#include "admission/go_json.h"
#include "admission/host_paths.h"
#include "admission/refusal.h"
#include "core/host_policy.h"
#include "grants/grant_set.h"
#include "probe/hardware_identity.h"

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

/// A container as the repository's own daemon stores it: the text of GET /containers/{name}/json
/// (dockerd resolves a name, a short ID prefix or a full ID exactly as the start will), or an
/// error saying why the daemon could not be asked.
using ContainerSource = std::function<Result<std::string>(const std::string& name)>;

/// What a granted CDI name carries now that its grant must have reviewed (SpecReviews::of).
using ReviewSource = std::function<std::vector<std::string>(const std::string& name)>;

/// The hardware a CDI name reaches now, read live (SpecReviews::reach): its nodes' identities and
/// cards; absent when no spec defines the name; an error when a node's hardware cannot be told.
using HardwareSource = std::function<Result<std::optional<probe::Reach>>(const std::string& name)>;

/// Every grantable CDI name this machine's specs define, sorted: what a refusal may suggest.
using NameSource = std::function<std::vector<std::string>()>;

/// What a check needs beyond the body.
struct CheckContext {
  LazyGrants& grants;
  const std::string& repo;
  const HostPathJudge* host_paths;  ///< where host paths are resolved; null: their text alone
  /// Where --volumes-from containers are read, their mounts judged as binds of the new one;
  /// null judges the name alone (benchmarks, the libFuzzer target).
  const ContainerSource* containers = nullptr;
  /// Where a granted name's hooks and net devices are compared with what its grant reviewed;
  /// null skips the comparison (benchmarks, the libFuzzer target).
  const ReviewSource* reviews = nullptr;
  /// The names the specs define, for a refusal's suggestions; null: suggest none of them.
  const NameSource* names = nullptr;
  /// Where a granted name's hardware now is read, compared with what its grant recorded and with
  /// every other repository's reservation; null skips both (benchmarks, the libFuzzer target).
  const HardwareSource* hardware = nullptr;
  /// What the machine's policy allows beyond the absolute refusals.
  PolicyRules policy = {};
  /// Set by a check for the operator's log (the grants file's path and error), never the tenant.
  std::string detail = {};
};

/// A refusal message, or nothing when the object attaches no hardware beyond granted CDI names
/// and loosens none of the confinement that keeps the host out.
Refusal check_host_config(const GoValue& host_config, CheckContext& context);

/// A create body: its WorkingDir, its HostConfig, and the HostConfig fields that engines up to
/// 26.1 read at its top level too (each checked, whichever the engine applies).
Refusal check_create(const GoValue& body, CheckContext& context);

/// An update body: its own fields, and those of HostConfig it shares (Resources, RestartPolicy).
Refusal check_update(const GoValue& body, CheckContext& context);

/// A container the daemon already stores, as GET /containers/{name}/json returns it: refused
/// when its HostConfig (or its working directory) holds anything a create would be refused for
/// now. The lists the daemon itself fills in (MaskedPaths, ReadonlyPaths) are judged by whether
/// they still hold Docker's defaults, not by being there.
Refusal check_stored_container(const GoValue& inspect, CheckContext& context);

/// runc once left a descriptor of the host's mount namespace open as /proc/self/fd/N while it
/// set the working directory (CVE-2024-21626); no workload needs a working directory under /proc.
Refusal check_working_dir(const std::optional<GoValue>& dir);

/// Volume driver and options (volumes/create, Mounts[].VolumeOptions).
Refusal check_volume(const std::optional<GoValue>& driver, const std::optional<GoValue>& options);

}  // namespace rgpu::admission
