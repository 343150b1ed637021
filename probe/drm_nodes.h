#pragma once
// Which DRM nodes belong to which PCI device. The PCI device's own drm/ directory is the rule
// (what NVIDIA's, AMD's and Intel's tools use); /sys/class/drm is the cross-check. Card and
// render numbers start anywhere, skip, and follow neither each other nor PCI order.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::probe {

struct DrmNodes {
  std::optional<std::string> render_node;  ///< "/dev/dri/renderD128"
  std::optional<std::string> card_node;    ///< "/dev/dri/card1"
};

/// Nodes listed in /sys/bus/pci/devices/<address>/drm/; the lowest of each kind when a
/// device lists several.
DrmNodes drm_nodes_of_pci(const RootFs& fs, const std::string& pci_address);

/// The nodes of the device that owns /dev/dri/<render_name> (an amdgpu_xcp partition's platform
/// device, say), from /sys/class/drm/<render_name>/device/drm/.
DrmNodes drm_nodes_beside(const RootFs& fs, const std::string& render_name);

struct DrmClassScan {
  std::map<std::string, std::string> render_by_pci;  ///< PCI address -> "/dev/dri/renderD<N>"
  std::vector<std::string> warnings;                 ///< dangling or looping device links
};

/// Every /sys/class/drm/renderD* and the device its `device` link reaches.
DrmClassScan scan_drm_class(const RootFs& fs);

}  // namespace rgpu::probe
