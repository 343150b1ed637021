#pragma once
// The rules of which device nodes reach which GPU, which names may never go to a tenant, and what
// a CDI name may be: the one file every reader of names uses (the spec index, the inventory's
// names, ReachMap, grants, the gate's hints, doctor). ReachMap (reach.h) applies them to a
// machine's names with its inventory's grouping of nodes.

#include <string>
#include <string_view>
#include <vector>

#include "cdi/device_name.h"
#include "cdi/spec_index.h"

namespace rgpu::cdi {

/// The directory of NVIDIA's MIG capability nodes.
inline constexpr std::string_view kMigCapDir = "/dev/nvidia-caps/";

/// Two names reach the same thing: the same GPU (reach_same_gpu) or a same host network interface.
bool reach_same(const IndexedDevice& a, const IndexedDevice& b);

/// True for a node that belongs to one GPU: a DRM render or card node, /dev/nvidiaN, /dev/dxg,
/// a MIG capability node /dev/nvidia-caps/nvidia-capN.
/// Not for the control nodes every GPU of a driver shares (/dev/kfd, /dev/nvidiactl,
/// /dev/nvidia-uvm, /dev/nvidia-modeset): sharing those reaches the same driver, not the same GPU.
bool is_gpu_own_node(std::string_view node);

/// Why a defined device can never be granted to a tenant, or empty when it can: NVIDIA's
/// management spec (kind management.*) and any device that maps the MIG configuration or monitor
/// capability (/dev/nvidia-caps/nvidia-cap1 and -cap2, fixed by the driver), which reconfigure or
/// watch every GPU's slices.
std::string ungrantable_reason(const IndexedDevice& device);

/// A MIG capability node: /dev/nvidia-caps/nvidia-cap<minor>.
bool is_mig_cap_node(std::string_view node);

/// The one definition of two names being aliases: they reach the same hardware. Both map a same
/// GPU-own node, with one exception: a device that maps MIG capability nodes reaches slices, and
/// the parent /dev/nvidiaN it maps with them is no GPU whole. Two slices of one GPU are no
/// aliases unless they share a capability node (the same GPU instance); a slice and its GPU are.
/// Used by the inventory's per-GPU names, grant's warnings, `grants` and doctor.
bool reach_same_gpu(const std::vector<std::string>& a_nodes, const std::vector<std::string>& b_nodes);

/// True for a name that stays on its hardware when the machine numbers its cards anew: ours keyed
/// by PCI address ("rediacc.io/dri=pci-0000-01-00.0", "rediacc.io/amd=pci-0000-03-00.0-cpx3"),
/// NVIDIA's by UUID ("nvidia.com/gpu=GPU-…", "MIG-…").
bool is_hardware_keyed(std::string_view qualified_name);

/// True for a name that is a number (renderD129, gpu0, 0, 0:1) given in the order cards were
/// probed: neither hardware-keyed nor "all", which names no card in particular.
bool is_numbered(std::string_view qualified_name);

/// The hardware-keyed name of the same kind that maps exactly the nodes `qualified_name` maps now
/// ("rediacc.io/dri=renderD129" -> "rediacc.io/dri=pci-0000-01-00.0"), or empty when none does.
std::string keyed_alias(const SpecIndex& index, std::string_view qualified_name);

/// True when the two node lists share a node (any node, control nodes included).
bool shares_node(const std::vector<std::string>& a, const std::vector<std::string>& b);

}  // namespace rgpu::cdi
