#include "probe/amd_backend.h"

#include <algorithm>
#include <map>

#include "probe/drm_nodes.h"
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

// A card with more than one KFD node is split into compute partitions: one node per active
// partition (an inactive XCP's nodes have none). amd-ctk orders a card's partitions by render
// minor; so do we, so partition k here is the k-th of the card there.
void add_partitions(const RootFs& fs, Gpu& gpu, std::vector<const KfdGpuNode*> nodes) {
  std::erase_if(nodes, [](const KfdGpuNode* n) { return !n->render_minor; });
  if (nodes.size() < 2) return;
  std::sort(nodes.begin(), nodes.end(),
            [](const KfdGpuNode* a, const KfdGpuNode* b) { return *a->render_minor < *b->render_minor; });
  for (const KfdGpuNode* node : nodes) {
    Partition p;
    p.index = static_cast<unsigned>(gpu.partitions.size());
    const std::string render = "renderD" + std::to_string(*node->render_minor);
    p.render_node = "/dev/dri/" + render;
    p.card_node = p.render_node == gpu.render_node ? gpu.card_node : drm_nodes_beside(fs, render).card_node;
    p.kfd_node = node->node;
    p.memory_bytes = node->memory_bytes;
    p.device_nodes.push_back(*p.render_node);
    if (p.card_node) p.device_nodes.push_back(*p.card_node);
    gpu.device_nodes.insert(gpu.device_nodes.end(), p.device_nodes.begin(), p.device_nodes.end());
    gpu.partitions.push_back(std::move(p));
  }
}

void apply_topology(const RootFs& fs, Inventory& inv, Warnings& warnings) {
  const auto topology = read_kfd_topology(fs, warnings);
  std::map<std::string, std::vector<const KfdGpuNode*>> by_card;
  for (const auto& node : topology) {
    Gpu* gpu = find_amd(inv, node.pci_address);
    bool exact = gpu != nullptr;
    if (!gpu) gpu = find_amd(inv, card_address(node.pci_address));
    if (!gpu) {
      warnings.push_back("KFD topology node " + std::to_string(node.node) + " names PCI device " + node.pci_address +
                         ", which is not an AMD GPU on this machine; ignoring it.");
      continue;
    }
    add_kfd_facts(*gpu, node, exact);
    by_card[*gpu->pci_address].push_back(&node);
  }
  for (auto& [address, nodes] : by_card) {
    Gpu* gpu = find_amd(inv, address);
    if (!gpu->memory_bytes) {
      std::uint64_t bytes = 0;
      for (const auto* n : nodes) bytes += n->memory_bytes.value_or(0);
      if (bytes > 0) gpu->memory_bytes = bytes;
    }
    add_partitions(fs, *gpu, nodes);
  }
}

std::optional<std::string> mode_file(const RootFs& fs, const std::string& address, const char* name) {
  auto text = fs.read_optional("/sys/bus/pci/devices/" + address + "/" + name);
  if (!text || !*text || (*text)->empty()) return std::nullopt;
  return **text;
}

}  // namespace

Result<void> AmdBackend::enrich(const RootFs& fs, ProbeReport& report) const {
  Inventory& inv = report.inventory;
  Warnings& warnings = report.warnings;
  bool any = false;
  std::optional<std::string> version;
  if (auto v = fs.read_optional("/sys/module/amdgpu/version"); v && *v && !(*v)->empty()) version = **v;
  for (auto& gpu : inv.gpus) {
    if (gpu.vendor != Vendor::amd || !gpu.pci_address) continue;
    any = true;
    auto vram = fs.read_optional("/sys/bus/pci/devices/" + *gpu.pci_address + "/mem_info_vram_total");
    if (vram && *vram) gpu.memory_bytes = parse_decimal_attribute(**vram);
    if (!gpu.driver_version && gpu.driver == "amdgpu") gpu.driver_version = version;
    // Only MI300-class cards with an XCP manager have these files.
    gpu.compute_partition = mode_file(fs, *gpu.pci_address, "current_compute_partition");
    gpu.memory_partition = mode_file(fs, *gpu.pci_address, "current_memory_partition");
  }
  if (any && fs.kind("/dev/kfd") == NodeKind::char_device) apply_topology(fs, inv, warnings);
  return {};
}

}  // namespace rgpu::probe
