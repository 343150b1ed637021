#include "cli/render.h"

#include "cdi/hook_policy.h"

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

namespace {

template <typename T, typename F>
std::string cell(const std::vector<T>& items, F text) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + text(i);
  return out.empty() ? "-" : out;
}

std::string counted(size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

std::vector<std::string> carried_cells(const cdi::Carried& carried) {
  return {cell(carried.hooks, [](const cdi::CdiHook& h) { return cdi::hook_text(h); }),
          cell(carried.mounts, [](const cdi::CdiMount& m) { return m.host_path + " -> " + m.container_path; }),
          cell(carried.net_devices, [](const cdi::CdiNetDevice& n) { return n.host_interface + " as " + n.name; })};
}

std::string carried_summary(const cdi::Carried& carried) {
  std::vector<std::string> parts;
  if (!carried.hooks.empty()) parts.push_back(counted(carried.hooks.size(), "hook"));
  if (!carried.mounts.empty()) parts.push_back(counted(carried.mounts.size(), "mount"));
  if (!carried.net_devices.empty()) parts.push_back(counted(carried.net_devices.size(), "net device"));
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out.empty() ? "-" : out;
}

nlohmann::ordered_json carried_json(const cdi::Carried& carried) {
  auto hooks = nlohmann::ordered_json::array(), mounts = nlohmann::ordered_json::array(),
       nets = nlohmann::ordered_json::array();
  for (const auto& h : carried.hooks) hooks.push_back({{"hook", h.hook_name}, {"path", h.path}, {"args", h.args}});
  for (const auto& m : carried.mounts)
    mounts.push_back({{"host_path", m.host_path}, {"container_path", m.container_path}});
  for (const auto& n : carried.net_devices) nets.push_back({{"host_interface", n.host_interface}, {"name", n.name}});
  return {{"hooks", hooks}, {"mounts", mounts}, {"net_devices", nets}};
}

}  // namespace rgpu::cli
