#pragma once
// Times as the inventory records them (RFC 3339, UTC) and as a person reads an age.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace rgpu {

using SystemTime = std::chrono::system_clock::time_point;

/// "2026-11-29T15:20:00Z": whole seconds, UTC.
std::string format_rfc3339_utc(SystemTime t);

/// Reads what format_rfc3339_utc writes (a trailing "Z" is required); absent when malformed.
std::optional<SystemTime> parse_rfc3339_utc(std::string_view text);

/// "just now", "42s ago", "3m ago", "5h ago", "2d ago"; "in the future" when the clock went back.
std::string format_age(std::chrono::seconds age);

}  // namespace rgpu
