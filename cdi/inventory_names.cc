#include "cdi/inventory_names.h"
#include "cdi/reach_rules.h"

#include <algorithm>

namespace rgpu::cdi {
namespace {

// A split GPU: a name that reaches every partition (or none in particular: only the parent
// node) is the GPU's; a name that reaches some partitions is listed under each of them.
void attach_to_split(probe::Gpu& gpu, const IndexedDevice& dev) {
  std::vector<probe::Partition*> reached;
  for (auto& p : gpu.partitions) {
    if (shares_node(p.device_nodes, dev.device_nodes)) reached.push_back(&p);
  }
  if (reached.empty() || reached.size() == gpu.partitions.size()) {
    gpu.cdi_devices.push_back(dev.qualified_name);
    return;
  }
  for (auto* p : reached) p->cdi_devices.push_back(dev.qualified_name);
}

}  // namespace

void attach_cdi_names(probe::Inventory& inventory, const SpecIndex& index) {
  inventory.cdi_devices.clear();
  for (auto& gpu : inventory.gpus) {
    gpu.cdi_devices.clear();
    for (auto& p : gpu.partitions) p.cdi_devices.clear();
  }
  for (const auto& dev : index.devices) {
    if (!ungrantable_reason(dev).empty()) continue;
    inventory.cdi_devices.push_back(dev.qualified_name);
    for (auto& gpu : inventory.gpus) {
      bool touches = reach_same_gpu(gpu.device_nodes, dev.device_nodes);
      for (const auto& p : gpu.partitions) touches = touches || reach_same_gpu(p.device_nodes, dev.device_nodes);
      if (!touches) continue;
      if (gpu.partitions.empty()) {
        gpu.cdi_devices.push_back(dev.qualified_name);
      } else {
        attach_to_split(gpu, dev);
      }
    }
  }
  probe::normalise(inventory);
}

}  // namespace rgpu::cdi
