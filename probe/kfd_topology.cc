#include "probe/kfd_topology.h"

#include <algorithm>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

constexpr const char* kNodes = "/sys/class/kfd/kfd/topology/nodes";

std::optional<std::uint64_t> number(const std::map<std::string, std::string>& props, const char* key) {
  auto it = props.find(key);
  return it == props.end() ? std::nullopt : parse_decimal_attribute(it->second);
}

// The kernel numbers a node's banks 0..mem_banks_count-1 and says the count in the node's
// properties: reading them by number spares listing the directory (four system calls a node,
// 66 nodes on an MI300X machine in CPX). Without the count, the directory is listed.
std::optional<std::uint64_t> bank_memory(const RootFs& fs, const std::string& node_dir,
                                         std::optional<std::uint64_t> count) {
  std::vector<std::string> banks;
  if (count && *count <= 64) {
    for (std::uint64_t i = 0; i < *count; ++i) banks.push_back(std::to_string(i));
  } else {
    auto listed = fs.list_dir(node_dir + "/mem_banks");
    if (!listed) return std::nullopt;
    banks = std::move(*listed);
  }
  if (banks.empty()) return std::nullopt;
  std::uint64_t total = 0;
  for (const auto& bank : banks) {
    auto text = fs.read_file(node_dir + "/mem_banks/" + bank + "/properties");
    if (!text) return std::nullopt;
    auto size = number(parse_space_pairs(*text), "size_in_bytes");
    if (!size) return std::nullopt;
    total += *size;
  }
  return total > 0 ? std::optional<std::uint64_t>(total) : std::nullopt;
}

std::optional<KfdGpuNode> read_node(const RootFs& fs, unsigned node, Warnings& warnings) {
  const std::string dir = std::string(kNodes) + "/" + std::to_string(node);
  auto text = fs.read_file(dir + "/properties");
  if (!text) {
    warnings.push_back("skipping KFD topology node " + std::to_string(node) + ": " + text.error().message);
    return std::nullopt;
  }
  auto props = parse_space_pairs(*text);
  auto simd = number(props, "simd_count");
  auto location = number(props, "location_id");
  if (simd && *simd == 0) return std::nullopt;  // a CPU node
  if (!simd || !location) {
    warnings.push_back("skipping KFD topology node " + std::to_string(node) + ": " +
                       fs.host_path(dir + "/properties").string() + " lacks simd_count or location_id (truncated?).");
    return std::nullopt;
  }
  KfdGpuNode gpu;
  gpu.node = node;
  gpu.pci_address = kfd_pci_address(static_cast<std::uint32_t>(number(props, "domain").value_or(0)),
                                    static_cast<std::uint32_t>(*location));
  if (auto minor = number(props, "drm_render_minor")) gpu.render_minor = static_cast<unsigned>(*minor);
  if (auto it = props.find("unique_id"); it != props.end() && it->second != "0") gpu.unique_id = it->second;
  gpu.memory_bytes = bank_memory(fs, dir, number(props, "mem_banks_count"));
  return gpu;
}

}  // namespace

std::vector<KfdGpuNode> read_kfd_topology(const RootFs& fs, Warnings& warnings) {
  std::vector<KfdGpuNode> out;
  auto names = fs.list_dir(kNodes);
  if (!names) {
    warnings.push_back(names.error().message);
    return out;
  }
  std::vector<unsigned> nodes;
  for (const auto& name : *names) {
    if (auto n = parse_decimal_attribute(name)) nodes.push_back(static_cast<unsigned>(*n));
  }
  std::sort(nodes.begin(), nodes.end());
  for (unsigned node : nodes) {
    if (auto gpu = read_node(fs, node, warnings)) out.push_back(std::move(*gpu));
  }
  return out;
}

}  // namespace rgpu::probe
