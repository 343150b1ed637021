#include "probe/nfd_features.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace rgpu::probe {
namespace {

constexpr size_t kLabelMax = 63;

bool is_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool is_label_char(char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; }

std::string trim_to_alnum(std::string s) {
  while (!s.empty() && !is_alnum(s.back())) s.pop_back();
  const auto first = std::find_if(s.begin(), s.end(), is_alnum);
  return std::string(first, s.end());
}

using Labels = std::map<std::string, std::string>;

// The one value GPUs of a vendor share, "mixed" when they differ; absent when none reports it.
std::optional<std::string> shared(const std::vector<const Gpu*>& gpus,
                                  const std::function<std::optional<std::string>(const Gpu&)>& fact) {
  std::set<std::string> seen;
  for (const Gpu* g : gpus) {
    if (auto v = fact(*g)) seen.insert(*v);
  }
  if (seen.empty()) return std::nullopt;
  return seen.size() == 1 ? *seen.begin() : "mixed";
}

void put(Labels& labels, const std::string& name, const std::optional<std::string>& value) {
  if (!value) return;
  if (auto v = label_value(*value); !v.empty()) labels[name] = v;
}

// "550.54.15" -> major 550, minor 54, rev 15; "6.8" has no rev. Anything not numeric has none.
void put_version(Labels& labels, const std::string& prefix, const std::optional<std::string>& version) {
  if (!version || *version == "mixed") return;
  static const char* const kParts[] = {"major", "minor", "rev"};
  size_t start = 0;
  for (const char* part : kParts) {
    const size_t end = std::min(version->find('.', start), version->size());
    const std::string piece = version->substr(start, end - start);
    if (piece.empty() || !std::all_of(piece.begin(), piece.end(), [](char c) { return c >= '0' && c <= '9'; })) return;
    labels[prefix + part] = piece;
    if (end == version->size()) return;
    start = end + 1;
  }
}

std::optional<std::string> smallest_memory_mib(const std::vector<const Gpu*>& gpus) {
  std::optional<std::uint64_t> least;
  for (const Gpu* g : gpus) {
    if (g->memory_bytes && (!least || *g->memory_bytes < *least)) least = g->memory_bytes;
  }
  if (!least) return std::nullopt;
  return std::to_string(*least / (1024 * 1024));
}

void vendor_labels(Labels& labels, const Inventory& inventory, Vendor vendor, const std::vector<const Gpu*>& gpus) {
  const std::string p = std::string("rediacc-gpu.") + to_string(vendor) + ".";
  labels[p + "count"] = std::to_string(gpus.size());
  put(labels, p + "product", shared(gpus, [](const Gpu& g) { return std::optional<std::string>(g.name); }));
  put(labels, p + "memory", smallest_memory_mib(gpus));
  const auto driver = shared(gpus, [](const Gpu& g) { return g.driver_version; });
  put(labels, p + "driver.version", driver);
  put_version(labels, p + "driver.", driver);
  if (vendor == Vendor::nvidia) {
    put_version(labels, p + "cuda.", inventory.cuda_driver_version);
    labels.erase(p + "cuda.rev");
    put(labels, p + "mig.capable", shared(gpus, [](const Gpu& g) -> std::optional<std::string> {
          if (!g.mig_capable) return std::nullopt;
          return *g.mig_capable ? "true" : "false";
        }));
  }
  if (vendor == Vendor::amd) {
    put(labels, p + "compute-partition", shared(gpus, [](const Gpu& g) { return g.compute_partition; }));
    put(labels, p + "memory-partition", shared(gpus, [](const Gpu& g) { return g.memory_partition; }));
  }
}

}  // namespace

std::string label_value(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (is_label_char(c)) {
      out += c;
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  out = trim_to_alnum(std::move(out));
  if (out.size() > kLabelMax) out = trim_to_alnum(out.substr(0, kLabelMax));
  return out;
}

std::string nfd_features(const Inventory& inventory) {
  std::map<Vendor, std::vector<const Gpu*>> by_vendor;
  for (const auto& g : inventory.gpus) by_vendor[g.vendor].push_back(&g);
  Labels labels;
  labels["rediacc-gpu.count"] = std::to_string(inventory.gpus.size());
  labels["rediacc-gpu.platform"] = to_string(inventory.platform);
  for (const auto& [vendor, gpus] : by_vendor) vendor_labels(labels, inventory, vendor, gpus);
  std::string out;
  for (const auto& [name, value] : labels) out.append(name).append("=").append(value).append("\n");
  return out;
}

}  // namespace rgpu::probe
