#include "usage/process_parsers.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "core/split.h"

namespace rgpu::usage {
namespace {

constexpr std::size_t kIdLength = 64;

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// The id a cgroup path segment names: the whole segment, or a "docker-"/"…-" prefix and a
// ".scope" suffix around it.
std::optional<std::string> id_in_segment(std::string_view segment) {
  if (segment.ends_with(".scope")) segment.remove_suffix(6);
  if (segment.size() < kIdLength) return std::nullopt;
  const auto tail = segment.substr(segment.size() - kIdLength);
  if (!is_hex(tail)) return std::nullopt;
  if (segment.size() > kIdLength && segment[segment.size() - kIdLength - 1] != '-') return std::nullopt;
  return std::string(tail);
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// "1234 KiB" / "5 MiB" / "42" (bytes), as the kernel documents drm-memory-* and drm-resident-*.
std::optional<std::uint64_t> bytes_of(std::string_view value) {
  value = trimmed(value);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc()) return std::nullopt;
  const auto unit = trimmed(std::string_view(end, static_cast<std::size_t>(value.data() + value.size() - end)));
  if (unit.empty()) return n;
  if (unit == "KiB") return n * 1024;
  if (unit == "MiB") return n * 1024 * 1024;
  if (unit == "GiB") return n * 1024 * 1024 * 1024;
  return std::nullopt;
}

bool vram_region(std::string_view region) { return region == "vram" || region.starts_with("local"); }

struct Regions {
  std::map<std::string, std::uint64_t> resident, legacy;
};

std::optional<std::uint64_t> memory_of(const Regions& r) {
  const auto& regions = r.resident.empty() ? r.legacy : r.resident;
  if (regions.empty()) return std::nullopt;
  std::uint64_t vram = 0, all = 0;
  bool any_vram = false;
  for (const auto& [name, n] : regions) {
    all += n;
    if (vram_region(name)) {
      vram += n;
      any_vram = true;
    }
  }
  return any_vram ? vram : all;
}

}  // namespace

std::optional<std::string> container_of_cgroup(std::string_view cgroup) {
  std::optional<std::string> found;
  // Each line is "hierarchy:controllers:path"; under cgroup v1 every hierarchy names the same
  // container, under v2 there is one line.
  for (const std::string_view line : split(cgroup, '\n', EmptyFields::drop)) {
    const auto colon = line.find(':', line.find(':') + 1);
    if (colon == std::string_view::npos) continue;
    for (const std::string_view segment : split(line.substr(colon + 1), '/', EmptyFields::drop)) {
      if (auto id = id_in_segment(segment)) found = id;
    }
    if (found) break;
  }
  return found;
}

std::optional<DrmClient> parse_drm_fdinfo(std::string_view fdinfo) {
  DrmClient client;
  Regions regions;
  bool drm = false;
  for (const std::string_view line : split(fdinfo, '\n', EmptyFields::drop)) {
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = trimmed(line.substr(0, colon));
    const auto value = trimmed(line.substr(colon + 1));
    if (key == "drm-driver") drm = true;
    if (key == "drm-client-id") client.client_id = std::string(value);
    if (key == "drm-pdev") client.pdev = std::string(value);
    if (key.starts_with("drm-engine-") && !key.starts_with("drm-engine-capacity-")) {
      std::uint64_t ns = 0;
      if (std::from_chars(value.data(), value.data() + value.size(), ns).ec == std::errc())
        client.engines[std::string(key.substr(11))] = ns;
    }
    for (auto [prefix, into] : {std::pair{std::string_view("drm-resident-"), &regions.resident},
                                std::pair{std::string_view("drm-memory-"), &regions.legacy}}) {
      if (!key.starts_with(prefix)) continue;
      if (auto n = bytes_of(value)) (*into)[std::string(key.substr(prefix.size()))] = *n;
    }
  }
  if (!drm) return std::nullopt;
  client.memory_bytes = memory_of(regions);
  return client;
}

std::optional<double> busiest_engine_percent(const DrmClient& before, const DrmClient& after,
                                             std::uint64_t interval_ns) {
  if (after.engines.empty() || interval_ns == 0) return std::nullopt;
  std::uint64_t busiest = 0;
  for (const auto& [name, ns] : after.engines) {
    const auto was = before.engines.find(name);
    const std::uint64_t start = was == before.engines.end() ? ns : was->second;
    if (ns > start) busiest = std::max(busiest, ns - start);
  }
  return std::min(100.0, 100.0 * static_cast<double>(busiest) / static_cast<double>(interval_ns));
}

}  // namespace rgpu::usage
