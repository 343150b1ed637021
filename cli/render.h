#pragma once
// Rendering for people: aligned tables and human units.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "probe/inventory.h"

namespace rgpu::cli {

/// "80.0 GiB", "512 MiB"; "unknown" when absent.
std::string human_bytes(std::optional<std::uint64_t> bytes);

/// "16 GT/s x16"; "2.5 GT/s x16 (max 32 GT/s x16)" when the link runs below its maximum;
/// "-" for no link. Unknown values read "?".
std::string link_text(const std::optional<probe::PcieLink>& link);

/// Columns padded to their widest cell, two spaces apart, no trailing spaces.
std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

}  // namespace rgpu::cli
