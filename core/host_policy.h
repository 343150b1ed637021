#pragma once
// The machine's policy for the hardening that goes beyond the gate's absolute refusals. What
// reaches hardware or another repository is refused under every policy; host networking, the
// checkpoint capabilities, AppArmor unconfined, the host's user namespace, /dev/net/tun and
// checkpoints follow the machine's own rules. On a machine laid out as Rediacc lays it out, those
// are Rediacc's: every service runs on the host's network (isolated by eBPF in the kernel), and
// forks, backups and migrations checkpoint containers. Elsewhere the strict rules hold.

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu {

enum class HostPolicy { strict, rediacc };

/// A host directory a repository's containers may bind from, with everything under it. In `path`,
/// "{repo}" stands for the repository's name, and on a Rediacc machine "{id}" for its network id
/// and "{mount}" for its own mount (found live, from the daemon listening on its socket).
struct BindRoot {
  std::string path;
  bool read_only = false;  ///< binds from it must be read-only
  bool operator==(const BindRoot&) const = default;
};
using BindRoots = std::vector<BindRoot>;

/// What "{mount}" and "{id}" stand for, for one repository now; each absent when not known.
struct RepositoryPlaces {
  std::optional<std::string> mount;       ///< its own mount on a Rediacc machine
  std::optional<std::string> network_id;  ///< its Rediacc network id
};

/// Where `policy` lets binds come from when the operator named nothing: on a Rediacc machine the
/// repository's own mount (its .rediacc stays refused), its own secrets and renet's certificates
/// read-only; elsewhere /srv/rediacc-gpu/{repo}, a directory of no system's.
const std::shared_ptr<const BindRoots>& default_bind_roots(HostPolicy policy);

/// A root as the operator writes it, "PATH" or "PATH:ro"; an error saying what is wrong with it:
/// not absolute or not clean, a placeholder that is not a whole component, or a system directory
/// (one holding the host's programs, libraries, configuration or kernel, or a parent of one).
Result<BindRoot> parse_bind_root(std::string_view written);

/// "PATH" or "PATH:ro", as parse_bind_root reads it.
std::string bind_root_text(const BindRoot& root);

/// What a policy allows beyond the absolute refusals; everything false is the strict policy.
struct PolicyRules {
  bool host_network = false;             ///< --network host (and a build's, and BuildKit's network-host)
  bool host_user_namespace = false;      ///< --userns host
  bool checkpoint_capabilities = false;  ///< CAP_CHECKPOINT_RESTORE and CAP_SYS_PTRACE
  bool apparmor_unconfined = false;      ///< --security-opt apparmor=unconfined
  bool tun_device = false;               ///< --device /dev/net/tun (WireGuard), the only raw device
  bool checkpoints = false;              ///< checkpoint create, start from one, in the daemon's own directory
  /// Where binds may come from (shared: the rules are copied for every request).
  std::shared_ptr<const BindRoots> bind_roots = default_bind_roots(HostPolicy::strict);
};

/// The rules of `policy`.
PolicyRules rules_of(HostPolicy policy);

/// "strict" or "rediacc".
std::string_view to_string(HostPolicy policy);

/// The policy a word names ("strict", "rediacc"); absent for any other.
std::optional<HostPolicy> parse_host_policy(std::string_view word);

/// The policy setup recorded, and why it chose it.
struct RecordedPolicy {
  HostPolicy policy = HostPolicy::strict;
  std::string reason;  ///< "renet's unit rediacc-docker-2816.service is here", "--host-policy=strict"
  /// Where binds may come from; absent in a record that predates them (the policy's defaults).
  std::optional<BindRoots> bind_roots = std::nullopt;
  /// True when an operator named the roots (setup --bind-root), which later setups keep.
  bool bind_roots_named = false;
};

/// The rules of a recorded policy: its own bind roots, else the policy's defaults.
PolicyRules rules_of(const RecordedPolicy& recorded);

/// /etc/rediacc/gpu/host-policy.json as setup writes it.
std::string host_policy_text(const RecordedPolicy& recorded);

/// The recorded policy; absent when setup recorded none (the strict rules apply); an error naming
/// the file when it cannot be read or parsed (the gate then applies the strict rules).
Result<std::optional<RecordedPolicy>> read_host_policy(const RootFs& fs);

/// What the gate applies: the recorded policy's rules, the strict ones when none is recorded or
/// the record cannot be read.
PolicyRules effective_rules(const RootFs& fs);

/// The same of a record already read (read_host_policy), for a reader that keeps the record too.
PolicyRules effective_rules(const Result<std::optional<RecordedPolicy>>& recorded);

}  // namespace rgpu
