#pragma once
// Our own specs, generated from the inventory: rediacc.io/dri (one device per render node,
// partitions' included) and rediacc.io/amd (gpu<N> per AMD card, mapping every render node of its
// partitions; gpu<N>-<mode><K> per compute partition, "gpu0-cpx3"; all; each with /dev/kfd).
// Every card with a PCI address is named a second time by it, in both specs: "pci-0000-01-00.0"
// (its render node, or for AMD the card) and "pci-0000-03-00.0-cpx3" (a partition). Numbers follow
// the order the kernel probes cards in; the address is the card's for as long as it sits there.

#include <string>
#include <string_view>
#include <vector>

#include "cdi-gen/spec.h"
#include "cdi/device_name.h"
#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::cdi {

inline constexpr const char* kVendor = "rediacc.io";

struct GeneratedSpecs {
  Spec dri;
  Spec amd;                           ///< no devices when no AMD GPU has /dev/kfd to go with it
  std::vector<std::string> warnings;  ///< devices left out because their node is gone
};

/// Builds both specs. Each node's type, major and minor are read from the node under the root;
/// a node the inventory names but the machine no longer has is left out with a warning.
/// AMD cards are numbered in KFD topology order (as amd-ctk numbers amd.com/gpu), PCI order
/// for cards without a topology node.
GeneratedSpecs generate_specs(const RootFs& fs, const probe::Inventory& inventory);

}  // namespace rgpu::cdi
