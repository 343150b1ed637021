#pragma once
// Rendering for people: aligned tables and human units.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cdi/spec_index.h"
#include "probe/inventory.h"

namespace rgpu::cli {

/// Versions of the JSON documents `grants -o json` and `cdi list -o json` print (objects with
/// the list under "grants" and "devices"), bumped when a field changes meaning or goes.
inline constexpr int kGrantsJsonSchema = 1;
inline constexpr int kCdiListJsonSchema = 1;
/// `grants apply -o json`: {"schema", "changed", "dry_run", "added", "updated", "revoked",
/// "unchanged", "refused", "containers_using_revoked", "warnings"}.
inline constexpr int kGrantsApplyJsonSchema = 1;

/// "80.0 GiB", "512 MiB"; "unknown" when absent.
std::string human_bytes(std::optional<std::uint64_t> bytes);

/// "16 GT/s x16"; "2.5 GT/s x16 (max 32 GT/s x16)" when the link runs below its maximum;
/// "-" for no link. Unknown values read "?".
std::string link_text(const std::optional<probe::PcieLink>& link);

/// What a CDI name carries besides its nodes, as table cells: hooks ("createContainer
/// /usr/bin/nvidia-cdi-hook update-ldcache ..."), mounts ("/host -> /container") and net devices
/// ("eth1 as eth0"), each "; "-joined, "-" for none.
std::vector<std::string> carried_cells(const cdi::Carried& carried);

/// "2 hooks, 5 mounts", "1 net device"; "-" for nothing.
std::string carried_summary(const cdi::Carried& carried);

/// {"hooks": [{"hook", "path", "args"}], "mounts": [{"host_path", "container_path"}],
/// "net_devices": [{"host_interface", "name"}]}.
nlohmann::ordered_json carried_json(const cdi::Carried& carried);

/// Columns padded to their widest cell, two spaces apart, no trailing spaces.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace rgpu::cli
