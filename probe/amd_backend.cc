#include "probe/amd_backend.h"

#include "probe/kfd_topology.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

// A CPX partition's location_id carries the partition in its function bits; the card itself is
// function 0 of the same slot.
std::string card_address(const std::string& partition_address) {
  return partition_address.substr(0, partition_address.size() - 1) + "0";
}

Gpu* find_amd(Inventory& inv, const std::string& address) {
  for (auto& g : inv.gpus) {
    if (g.vendor == Vendor::amd && g.pci_address == address) return &g;
  }
  return nullptr;
}

void add_kfd_facts(Gpu& gpu, const KfdGpuNode& node, bool first_node) {
  if (!gpu.uuid && node.unique_id) gpu.uuid = node.unique_id;
  if (!gpu.kfd_node || node.node < *gpu.kfd_node) gpu.kfd_node = node.node;
  if (first_node && !gpu.render_node && node.render_minor) {
    gpu.render_node = "/dev/dri/renderD" + std::to_string(*node.render_minor);
    gpu.device_nodes.push_back(*gpu.render_node);
  }
}

void apply_topology(const RootFs& fs, Inventory& inv, Warnings& warnings) {
  std::map<std::string, std::uint64_t> kfd_memory;
  for (const auto& node : read_kfd_topology(fs, warnings)) {
    Gpu* gpu = find_amd(inv, node.pci_address);
    bool exact = gpu != nullptr;
    if (!gpu) gpu = find_amd(inv, card_address(node.pci_address));
    if (!gpu) {
      warnings.push_back("KFD topology node " + std::to_string(node.node) + " names PCI device " + node.pci_address +
                         ", which is not an AMD GPU on this machine; ignoring it.");
      continue;
    }
    add_kfd_facts(*gpu, node, exact);
    if (node.memory_bytes) kfd_memory[*gpu->pci_address] += *node.memory_bytes;
  }
  for (auto& [address, bytes] : kfd_memory) {
    Gpu* gpu = find_amd(inv, address);
    if (gpu && !gpu->memory_bytes) gpu->memory_bytes = bytes;
  }
}

}  // namespace

Result<void> AmdBackend::enrich(const RootFs& fs, Inventory& inv, Warnings& warnings) const {
  bool any = false;
  std::optional<std::string> version;
  if (auto v = fs.read_optional("/sys/module/amdgpu/version"); v && *v && !(*v)->empty()) version = **v;
  for (auto& gpu : inv.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.pci_address) continue;
    any = true;
    auto vram = fs.read_optional("/sys/bus/pci/devices/" + *gpu.pci_address + "/mem_info_vram_total");
    if (vram && *vram) gpu.memory_bytes = parse_decimal_attribute(**vram);
    if (!gpu.driver_version && gpu.driver == "amdgpu") gpu.driver_version = version;
  }
  if (any && fs.kind("/dev/kfd") == NodeKind::char_device) apply_topology(fs, inv, warnings);
  return {};
}

}  // namespace rgpu::probe
