#include "cdi/reach.h"
#include "cdi/reach_rules.h"

#include <algorithm>

#include "cdi/inventory_names.h"

namespace rgpu::cdi {

ReachMap::ReachMap(const SpecIndex& index, const std::optional<probe::Inventory>& inventory) : index_(index) {
  if (!inventory) return;
  auto placed = *inventory;
  attach_cdi_names(placed, index);  // sorts every list
  for (size_t g = 0; g < placed.gpus.size(); ++g) {
    const auto& gpu = placed.gpus[g];
    for (const auto& name : gpu.cdi_devices) targets_[name].push_back({g, std::nullopt});
    for (size_t p = 0; p < gpu.partitions.size(); ++p) {
      for (const auto& name : gpu.partitions[p].cdi_devices) targets_[name].push_back({g, p});
    }
  }
}

bool ReachMap::reach_same(const std::string& a, const std::string& b) const {
  if (a == b) return true;
  const auto ta = targets_.find(a), tb = targets_.find(b);
  if (ta != targets_.end() && tb != targets_.end()) {
    for (const auto& x : ta->second) {
      for (const auto& y : tb->second) {
        if (x.gpu == y.gpu && (!x.partition || !y.partition || *x.partition == *y.partition)) return true;
      }
    }
  }
  // Shared nodes always mean the same hardware, and shared network interfaces are no GPU at all.
  const auto *da = find_device(index_, a), *db = find_device(index_, b);
  return da && db && cdi::reach_same(*da, *db);
}

std::vector<std::string> ReachMap::aliases_of(const std::string& name) const {
  std::vector<std::string> out;
  if (!find_device(index_, name)) return out;
  for (const auto& other : index_.devices) {
    if (other.qualified_name != name && ungrantable_reason(other).empty() && reach_same(name, other.qualified_name))
      out.push_back(other.qualified_name);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace rgpu::cdi
