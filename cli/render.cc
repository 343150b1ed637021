#include "cli/render.h"

#include <algorithm>
#include <cstdio>

namespace rgpu::cli {

std::string human_bytes(std::optional<std::uint64_t> bytes) {
  if (!bytes) return "unknown";
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(*bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(kUnits)) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(*bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", value, kUnits[unit]);
  }
  return buf;
}

namespace {

std::string speed_width(std::optional<double> speed, std::optional<unsigned> width) {
  char buf[32];
  if (speed) {
    std::snprintf(buf, sizeof buf, "%g GT/s", *speed);
  } else {
    std::snprintf(buf, sizeof buf, "? GT/s");
  }
  return std::string(buf) + " x" + (width ? std::to_string(*width) : "?");
}

}  // namespace

std::string link_text(const std::optional<probe::PcieLink>& link) {
  if (!link) return "-";
  std::string out = speed_width(link->current_speed_gts, link->current_width);
  const std::string max = speed_width(link->max_speed_gts, link->max_width);
  if (max != out) out += " (max " + max + ")";
  return out;
}

std::string render_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> width(header.size(), 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  };
  measure(header);
  for (const auto& row : rows) measure(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string out;
    for (size_t i = 0; i < row.size(); ++i) {
      out += row[i];
      if (i + 1 < row.size()) out += std::string(width[i] - row[i].size() + 2, ' ');
    }
    return out + "\n";
  };
  std::string out = line(header);
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace rgpu::cli
