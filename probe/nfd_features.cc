#include "probe/nfd_features.h"

#include <map>

namespace rgpu::probe {

std::string nfd_features(const Inventory& inventory) {
  std::map<std::string, size_t> by_vendor;
  for (const auto& g : inventory.gpus) ++by_vendor[to_string(g.vendor)];
  std::string out = "rediacc-gpu.count=" + std::to_string(inventory.gpus.size()) + "\n";
  for (const auto& [vendor, n] : by_vendor) out += "rediacc-gpu." + vendor + ".count=" + std::to_string(n) + "\n";
  out += std::string("rediacc-gpu.platform=") + to_string(inventory.platform) + "\n";
  return out;
}

}  // namespace rgpu::probe
