#pragma once
// The capability policy: which Linux capabilities a repository's container may add, decided on
// the names dockerd will apply (oci/caps.NormalizeLegacyCapabilities: Go's Unicode upper-casing,
// a CAP_ prefix added when missing), not on the text of the request. docs/capabilities.md is
// the same table in prose; a test keeps the two equal.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "admission/refusal.h"
#include "core/host_policy.h"
#include "docker/go_json.h"

namespace rgpu::admission {

struct CapabilityRule {
  std::string_view name;  ///< without CAP_, as capabilities(7) spells it
  bool allowed;
  std::string_view reason;  ///< why, in a few words (docs/capabilities.md's last column)
  /// Refused under the strict policy, allowed where the machine's policy allows checkpoints
  /// (PolicyRules::checkpoint_capabilities): CRIU's restore needs these two.
  bool for_checkpoints = false;
};

/// Every capability any dockerd knows (Linux 5.9: CAP_CHOWN to CAP_CHECKPOINT_RESTORE), in
/// kernel order. A name not in it is one dockerd refuses as unknown, and so does the gate.
std::span<const CapabilityRule> capability_policy();

/// `written` as dockerd reads it: Go's strings.ToUpper (ASCII letters, and the two runes whose
/// upper case is ASCII, U+0131 and U+017F; any other non-ASCII byte cannot name a capability),
/// then "CAP_" prefixed unless present or the name is "ALL". Nothing when no capability has
/// that name.
std::optional<std::string> normalise_capability(std::string_view written);

/// True when a container with these CapAdd/CapDrop keeps capability `name` ("CAP_NET_RAW"), as
/// dockerd works out its set (oci/caps.TweakCapabilities): ALL added keeps every one, ALL dropped
/// keeps only those added, else Docker's default set less those dropped plus those added. Names
/// read as normalise_capability reads them; one that names no capability counts for nothing.
bool keeps_capability(const std::optional<docker::GoValue>& cap_add, const std::optional<docker::GoValue>& cap_drop,
                      std::string_view name);

/// A refusal message when CapAdd/CapDrop (Go's StrSlice: one string or a list of strings) would
/// give the container a capability the policy refuses, name one dockerd does not know, or add
/// ALL; nothing otherwise. Only additions can widen Docker's default set, which is all allowed.
/// The machine's policy may allow the rules marked for_checkpoints.
Refusal check_capabilities(const std::optional<docker::GoValue>& cap_add,
                           const std::optional<docker::GoValue>& cap_drop, const PolicyRules& policy = {});

}  // namespace rgpu::admission
