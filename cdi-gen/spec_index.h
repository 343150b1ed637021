#pragma once
// The machine's index of CDI names: every device that the spec files in /etc/cdi define, ours,
// NVIDIA's and anyone's. Grants are checked against it.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "core/machine_paths.h"
#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::cdi {

inline constexpr const char* kSpecDir = paths::kCdiSpecDir;

/// A program the runtime runs on the host, as root, for every container that asks for the name.
struct CdiHook {
  std::string hook_name;  ///< the OCI hook point: "createContainer", "prestart", ...
  std::string path;
  std::vector<std::string> args;
  bool operator==(const CdiHook&) const = default;
};

struct CdiMount {
  std::string host_path;
  std::string container_path;
  bool operator==(const CdiMount&) const = default;
};

/// A host network interface moved into the container (CDI 1.1).
struct CdiNetDevice {
  std::string host_interface;
  std::string name;  ///< its name inside the container
  bool operator==(const CdiNetDevice&) const = default;
};

/// What a name brings besides its nodes: its own edits and its spec's top-level ones, which CDI
/// applies whenever any name of the spec is asked for.
struct Carried {
  std::vector<CdiHook> hooks;
  std::vector<CdiMount> mounts;
  std::vector<CdiNetDevice> net_devices;
  bool operator==(const Carried&) const = default;
};

struct IndexedDevice {
  std::string qualified_name;             ///< "nvidia.com/gpu=0"
  std::string spec_path;                  ///< machine path of the file that defines it
  std::vector<std::string> device_nodes;  ///< host device nodes the device maps, sorted
  Carried carried;
};

/// Two names reach the same thing: the same GPU (reach_same_gpu) or a same host network interface.
bool reach_same(const IndexedDevice& a, const IndexedDevice& b);

/// A spec file that was skipped, and why.
struct SpecProblem {
  std::string spec_path;
  std::string reason;
};

struct SpecIndex {
  std::vector<IndexedDevice> devices;  ///< sorted by qualified name
  std::vector<SpecProblem> problems;
};

/// Devices of one spec's text (JSON or YAML, told by `spec_path`'s extension). Fails when the
/// text does not parse or breaks the CDI naming rules.
Result<std::vector<IndexedDevice>> parse_spec(std::string_view text, std::string_view spec_path);

/// Every *.json and *.yaml spec in <root>/etc/cdi (CDI reads no other extension). A file that
/// fails is listed in `problems` and skipped; a name that two files define is a conflict, left
/// out, with both files listed in `problems`.
SpecIndex read_spec_index(const RootFs& fs);

/// The same for a spec directory given by its host path, read with the kernel's own path walk:
/// doctor reads a daemon's /etc/cdi through /proc/PID/root, a link into that daemon's mount
/// namespace that only the kernel can follow. Its problems name the host paths.
SpecIndex read_spec_dir(const std::filesystem::path& host_dir);

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

/// CDI's rules for a kind's vendor ("nvidia.com") and class ("gpu"), and for a device name.
bool valid_vendor(std::string_view vendor);
bool valid_class(std::string_view klass);
bool valid_device_name(std::string_view name);

}  // namespace rgpu::cdi
