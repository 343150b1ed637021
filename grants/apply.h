#pragma once
// Grants as desired state: a file lists repositories and the names each must hold, and applying
// it makes the grants file say so in one change under the grants lock, or changes nothing and
// says every reason why. What fleets (Ansible, cloud-init, a controller) run on every host.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grants/store.h"

namespace rgpu::grants {

inline constexpr int kDesiredGrantsSchema = 1;

struct DesiredGrant {
  std::string device;
  bool exclusive = false;
  GrantReview review;
};

struct DesiredRepository {
  std::string name;
  std::vector<DesiredGrant> grants;
};

struct DesiredGrants {
  std::vector<DesiredRepository> repositories;
};

/// Reads `{"schema": 1, "repositories": [{"name": "team-a", "grants": [{"device": "nvidia.com/gpu=0",
/// "exclusive": true, "allow_hooks": false, "allow_net_devices": false}]}]}`, as JSON or YAML (told
/// by the text: JSON starts with '{'). A grant may be written as its name alone. Names are
/// repository names or name@`hostname`. A field it does not know, a repository or a name listed
/// twice, or a newer schema is an error naming where it is in `where`.
Result<DesiredGrants> parse_desired_grants(std::string_view text, std::string_view where, const std::string& hostname);

struct GrantRefusal {
  std::string repo;
  std::string device;
  std::string reason;  ///< one sentence: what stops it and what to do
};

struct UpdatedGrant {
  Grant grant;      ///< as it is recorded now
  std::string why;  ///< "exclusive now", "no longer exclusive", "reaches other hardware now (…)", "reviewed again"
};

struct ApplyOutcome {
  std::vector<Grant> added;
  std::vector<UpdatedGrant> updated;
  std::vector<Grant> revoked;  ///< only with prune, only of listed repositories
  std::vector<Grant> unchanged;
  std::vector<GrantRefusal> refused;  ///< when not empty, nothing was written
  Change change;                      ///< the grants file: `unchanged` when nothing was to change
  std::vector<Change> views;          ///< the repositories' views, written under the same lock
  /// Set when grants.json was written but the views could not be (views_not_updated's sentence).
  std::optional<std::string> views_error = std::nullopt;

  bool changed() const { return !added.empty() || !updated.empty() || !revoked.empty(); }
};

/// Makes the grants of the repositories `desired` lists what it says, leaving every other
/// repository's grants as they are; with `prune`, a listed repository's names the file does not
/// list are revoked. Each name is checked as `grant` checks it (defined, reviewed), and every
/// exclusive reservation against the grants as they would be once applied (cdi::ReachMap): if
/// anything is refused, nothing is written and every refusal is returned. `exclusive` is what the
/// file says (an exclusive grant listed without it stops being exclusive); a grant that is
/// already as listed keeps its time and stays unchanged. An error is returned only when the
/// grants cannot be read, locked or written. A listed grant whose name now reaches other hardware
/// than it recorded is refused as a move unless `accept_moves`, which records what it reaches now.
/// Unless refused, the views follow under the same lock (also when nothing changed).
Result<ApplyOutcome> apply_grants(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index,
                                  const DesiredGrants& desired, bool prune, SystemTime now, bool accept_moves = false);

}  // namespace rgpu::grants
