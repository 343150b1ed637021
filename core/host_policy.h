#pragma once
// The machine's policy for the hardening that goes beyond the gate's absolute refusals. What
// reaches hardware or another repository is refused under every policy; host networking, the
// checkpoint capabilities, AppArmor unconfined, the host's user namespace, /dev/net/tun and
// checkpoints follow the machine's own rules. On a machine laid out as Rediacc lays it out, those
// are Rediacc's: every service runs on the host's network (isolated by eBPF in the kernel), and
// forks, backups and migrations checkpoint containers. Elsewhere the strict rules hold.

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu {

enum class HostPolicy { strict, rediacc };

/// What a policy allows beyond the absolute refusals; everything false is the strict policy.
struct PolicyRules {
  bool host_network = false;             ///< --network host (and a build's, and BuildKit's network-host)
  bool host_user_namespace = false;      ///< --userns host
  bool checkpoint_capabilities = false;  ///< CAP_CHECKPOINT_RESTORE and CAP_SYS_PTRACE
  bool apparmor_unconfined = false;      ///< --security-opt apparmor=unconfined
  bool tun_device = false;               ///< --device /dev/net/tun (WireGuard), the only raw device
  bool checkpoints = false;              ///< checkpoint create, start from one, in the daemon's own directory
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
};

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
