#include "core/host_policy.h"

#include <nlohmann/json.hpp>

#include "core/state_paths.h"

namespace rgpu {

PolicyRules rules_of(HostPolicy policy) {
  if (policy == HostPolicy::strict) return {};
  return {.host_network = true,
          .host_user_namespace = true,
          .checkpoint_capabilities = true,
          .apparmor_unconfined = true,
          .tun_device = true,
          .checkpoints = true};
}

std::string_view to_string(HostPolicy policy) { return policy == HostPolicy::rediacc ? "rediacc" : "strict"; }

std::optional<HostPolicy> parse_host_policy(std::string_view word) {
  if (word == "strict") return HostPolicy::strict;
  if (word == "rediacc") return HostPolicy::rediacc;
  return std::nullopt;
}

std::string host_policy_text(const RecordedPolicy& recorded) {
  const nlohmann::json doc = {{"policy", to_string(recorded.policy)}, {"reason", recorded.reason}};
  return doc.dump(2) + "\n";
}

Result<std::optional<RecordedPolicy>> read_host_policy(const RootFs& fs) {
  RGPU_TRY_ASSIGN(const auto text, fs.read_optional(state::kHostPolicyPath));
  if (!text) return std::optional<RecordedPolicy>{};
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  const auto bad = [&] {
    return fail(fs.host_path(state::kHostPolicyPath).string() +
                " is not a host policy setup wrote; run rediacc-gpu setup --host-policy=auto|rediacc|strict to "
                "record one");
  };
  if (!doc.is_object() || !doc.contains("policy") || !doc["policy"].is_string()) return bad();
  const auto policy = parse_host_policy(doc["policy"].get<std::string>());
  if (!policy) return bad();
  RecordedPolicy out{.policy = *policy, .reason = ""};
  if (doc.contains("reason") && doc["reason"].is_string()) out.reason = doc["reason"].get<std::string>();
  return std::optional<RecordedPolicy>{out};
}

PolicyRules effective_rules(const RootFs& fs) { return effective_rules(read_host_policy(fs)); }

PolicyRules effective_rules(const Result<std::optional<RecordedPolicy>>& recorded) {
  if (!recorded || !*recorded) return {};
  return rules_of((*recorded)->policy);
}

}  // namespace rgpu
