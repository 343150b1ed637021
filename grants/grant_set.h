#pragma once
// Grants: one exact CDI name for one repository. The store is one JSON file under
// /etc/rediacc/gpu, changed only under the machine-wide grants lock.

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace rgpu::grants {

inline constexpr int kGrantsSchema = 1;

struct Grant {
  std::string repo;    ///< the repository's name, without "@machine"
  std::string device;  ///< a qualified CDI name, "nvidia.com/gpu=all"
  bool exclusive = false;
  std::string granted_at;  ///< RFC 3339, UTC
  /// The GPU-own nodes the name mapped when it was granted, sorted; absent in grants written
  /// before rediacc-gpu recorded them. Lets doctor tell a name that now reaches other hardware
  /// (partitions renumbered, MIG reconfigured) from one that did not move.
  std::optional<std::vector<std::string>> reached = std::nullopt;
  /// What the operator reviewed and accepted with the grant (--allow-hooks, --allow-net-devices):
  /// cdi::needs_review's lines for the name when it was granted, sorted. The gate refuses the
  /// name once its spec carries anything needing review that is not among them.
  std::optional<std::vector<std::string>> reviewed = std::nullopt;
  /// The hardware the name reached when it was granted, read live (probe::HardwareReader's
  /// identities: GPU UUIDs, PCI addresses, partitions, MIG slices), sorted; absent in grants
  /// written before rediacc-gpu recorded it. The gate refuses the name once it reaches anything
  /// else, and no other repository reaches what an exclusive grant recorded.
  std::optional<std::vector<std::string>> hardware = std::nullopt;

  bool operator==(const Grant&) const = default;
};

struct GrantSet {
  std::vector<Grant> grants;  ///< sorted by repo, then device

  /// The grant of `repo` for `device`, or null.
  const Grant* find(const std::string& repo, const std::string& device) const;
  /// Every grant of `device`, whoever holds it.
  std::vector<const Grant*> holders(const std::string& device) const;
};

/// Where a decision reads the grants: asked only when a request names CDI devices, so a request
/// that attaches no hardware costs no read of the grants file.
using GrantsSource = std::function<Result<std::shared_ptr<const GrantSet>>()>;

/// The grants file's text: {"schema": 1, "grants": [...]}, two-space indent, trailing newline.
/// `reached` is an optional field, so the schema stays 1 and an older rediacc-gpu still reads it.
std::string grants_text(const GrantSet& set);

/// Parses the grants file; `where` names it in the error, which tells the operator the file is
/// left as it is.
Result<GrantSet> parse_grants(std::string_view text, std::string_view where);

/// The repository part of "name" or "name@machine"; the machine part must be `hostname`.
/// Names are letters, digits, '.', '_' and '-', starting with a letter or digit, and short enough
/// that the plugin socket they make fits a unix socket path (70 bytes: docker::plugin_socket_too_long).
Result<std::string> parse_repo(std::string_view written, const std::string& hostname);

}  // namespace rgpu::grants
