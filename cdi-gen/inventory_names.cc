#include "cdi-gen/inventory_names.h"

#include <algorithm>

namespace rgpu::cdi {
namespace {

bool reaches(const IndexedDevice& dev, const probe::Gpu& gpu) {
  return reach_same_gpu(gpu.device_nodes, dev.device_nodes);
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
