#pragma once
// The inventory as node-feature-discovery's local feature file, for machines that are
// Kubernetes nodes: nfd-worker turns each line into a node label
// (feature.node.kubernetes.io/<name>), so schedulers can select GPU nodes by vendor, product,
// memory, driver and partitioning, as NVIDIA's GPU feature discovery offers for NVIDIA alone.

#include <string>
#include <string_view>

#include "probe/inventory.h"

namespace rgpu::probe {

/// `text` as a Kubernetes label value: at most 63 characters of letters, digits, '-', '_' and
/// '.', starting and ending with a letter or digit. Each run of other characters becomes one '-'
/// ("NVIDIA H100 80GB HBM3" -> "NVIDIA-H100-80GB-HBM3"); empty when nothing is left.
std::string label_value(std::string_view text);

/// "name=value" lines, sorted: rediacc-gpu.count and rediacc-gpu.platform, and for each vendor
/// present rediacc-gpu.<vendor>.{count, product, memory (MiB, the smallest GPU's), driver.major,
/// driver.minor, driver.rev, driver.version}; NVIDIA adds cuda.major, cuda.minor (the highest
/// CUDA the driver supports) and mig.capable; AMD adds compute-partition and memory-partition.
/// A fact the probe did not learn has no line; GPUs of one vendor that differ read "mixed".
std::string nfd_features(const Inventory& inventory);

}  // namespace rgpu::probe
