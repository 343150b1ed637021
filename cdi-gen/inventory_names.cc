#include "cdi-gen/inventory_names.h"

#include <algorithm>

namespace rgpu::cdi {
namespace {

bool reaches(const IndexedDevice& dev, const probe::Gpu& gpu) {
  return std::any_of(gpu.device_nodes.begin(), gpu.device_nodes.end(), [&](const std::string& node) {
    return std::binary_search(dev.device_nodes.begin(), dev.device_nodes.end(), node);
  });
}

}  // namespace

void attach_cdi_names(probe::Inventory& inventory, const SpecIndex& index) {
  inventory.cdi_devices.clear();
  for (auto& gpu : inventory.gpus) gpu.cdi_devices.clear();
  for (const auto& dev : index.devices) {
    inventory.cdi_devices.push_back(dev.qualified_name);
    for (auto& gpu : inventory.gpus) {
      if (reaches(dev, gpu)) gpu.cdi_devices.push_back(dev.qualified_name);
    }
  }
  probe::normalise(inventory);
}

}  // namespace rgpu::cdi
