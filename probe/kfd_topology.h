#pragma once
// The KFD topology (/sys/class/kfd/kfd/topology/nodes/*): one node per CPU socket and one per GPU
// or GPU partition (MI300 CPX mode has several nodes per card).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"
#include "probe/backend.h"

namespace rgpu::probe {

struct KfdGpuNode {
  unsigned node = 0;        ///< topology node number, the order amd-ctk numbers GPUs in
  std::string pci_address;  ///< from domain and location_id; a partition's function bits count partitions
  std::optional<unsigned> render_minor;
  std::optional<std::string> unique_id;
  std::optional<std::uint64_t> memory_bytes;  ///< sum of the node's mem_banks
};

/// GPU nodes of the topology, in node order; CPU nodes (simd_count 0) are left out. A node whose
/// properties are truncated or malformed is skipped with a warning.
std::vector<KfdGpuNode> read_kfd_topology(const RootFs& fs, Warnings& warnings);

}  // namespace rgpu::probe
