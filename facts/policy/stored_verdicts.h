#pragma once
// What a start of each container a repository's daemon stores would get now: the plugin's own
// decision (admission::decide) in the plugin's own world (gate::LiveWorld: the container as its
// daemon answers, live guarded paths, each granted name's spec and hardware), read once a run for
// doctor's stale-device-containers. A daemon restoring its
// restart-policy containers asks no plugin, so a container the gate would refuse is a finding.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/host_policy.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "docker/stored_containers.h"
#include "grants/grant_set.h"

namespace rgpu::facts {

struct StoredVerdict {
  docker::StoredContainer container;
  /// Why the gate would refuse its next start (the decision's message, or why grants.json does
  /// not parse); absent when it would be allowed.
  std::optional<std::string> refused;
};

/// One repository's daemon's stored containers, or why it could not be asked.
struct RepoStored {
  std::string repo;
  Result<std::vector<StoredVerdict>> containers;
};

/// Each repository daemon of `hosts` (docker::repo_daemon_addresses) asked for every container it
/// stores, each judged as the plugin of its repository judges a start under `rules` and `grants`.
std::vector<RepoStored> stored_verdicts(const RootFs& fs, const Result<grants::GrantSet>& grants,
                                        const PolicyRules& rules, const std::map<std::string, std::string>& hosts);

}  // namespace rgpu::facts
