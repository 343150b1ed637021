#pragma once
// The inventory as node-feature-discovery's local feature file, for machines that are
// Kubernetes nodes: nfd-worker turns each line into a node label
// (feature.node.kubernetes.io/<name>), so schedulers can select GPU nodes by vendor and count.

#include <string>

#include "probe/inventory.h"

namespace rgpu::probe {

inline constexpr const char* kNfdFeaturePath = "/etc/kubernetes/node-feature-discovery/features.d/rediacc-gpu";

/// "name=value" lines: rediacc-gpu.count, rediacc-gpu.<vendor>.count for each vendor present,
/// rediacc-gpu.platform. Names and values are valid Kubernetes label parts; sorted, stable.
std::string nfd_features(const Inventory& inventory);

}  // namespace rgpu::probe
