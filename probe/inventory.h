#pragma once
// The inventory model: what the probe found, as recorded in /etc/rediacc/gpu/inventory.json.
// Facts the machine did not report are std::optional and become null in JSON.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace rgpu::probe {

// 2: partitions (AMD compute partitions, NVIDIA MIG), compute/memory partition modes, NUMA node
// and PCIe link. 3: mig_capable. 4: missing_gpus. Older files still read: the new facts are simply
// absent. A rediacc-gpu older than a file refuses it rather than rewrite it without what it adds.
inline constexpr int kInventorySchema = 4;

enum class Vendor { nvidia, amd, intel, other };
enum class Platform { native, wsl };

/// One slice of a GPU a tenant can be given alone: an AMD compute partition (XCP) or an NVIDIA
/// MIG device. AMD fields and MIG fields are absent on the other kind.
struct Partition {
  unsigned index = 0;  ///< AMD: position among the card's partitions by render minor; MIG: NVML's MIG index
  std::optional<std::string> render_node;    ///< AMD
  std::optional<std::string> card_node;      ///< AMD
  std::optional<unsigned> kfd_node;          ///< AMD
  std::optional<unsigned> gpu_instance;      ///< MIG GI id (not the MIG index)
  std::optional<unsigned> compute_instance;  ///< MIG CI id within its GI
  std::optional<std::string> profile;        ///< MIG "1g.10gb", "1c.3g.71gb"
  std::optional<std::string> uuid;           ///< MIG "MIG-…"
  std::optional<std::uint64_t> memory_bytes;
  std::vector<std::string> device_nodes;  ///< nodes that reach this partition alone, sorted
  std::vector<std::string> cdi_devices;   ///< names that reach this partition but not the whole GPU, sorted

  bool operator==(const Partition&) const = default;
};

/// The PCIe link from sysfs; each value absent when the kernel reports it unknown.
struct PcieLink {
  std::optional<double> current_speed_gts;  ///< 16.0 for "16.0 GT/s PCIe" or "16 GT/s"
  std::optional<unsigned> current_width;
  std::optional<double> max_speed_gts;
  std::optional<unsigned> max_width;

  bool operator==(const PcieLink&) const = default;
};

struct Gpu {
  std::optional<std::string> pci_address;  ///< "0000:41:00.0"; absent under WSL
  Vendor vendor = Vendor::other;
  std::uint16_t vendor_id = 0;
  std::uint16_t device_id = 0;
  std::optional<std::uint32_t> pci_class;  ///< 24-bit class code, 0x030200
  std::string name;
  std::optional<std::string> driver;          ///< kernel driver bound, absent when none
  std::optional<std::string> driver_version;  ///< absent when no source reported one
  std::optional<std::uint64_t> memory_bytes;  ///< absent when unknown, never 0 for "unknown"
  std::optional<std::string> render_node;     ///< "/dev/dri/renderD128"
  std::optional<std::string> card_node;       ///< "/dev/dri/card1"
  std::optional<std::string> uuid;            ///< NVIDIA "GPU-…", AMD KFD unique_id
  std::optional<unsigned> kfd_node;           ///< AMD: first KFD topology node, amd-ctk's order
  std::vector<std::string> device_nodes;      ///< nodes that reach this GPU alone, sorted
  Platform platform = Platform::native;
  std::vector<std::string> cdi_devices;          ///< CDI names that reach the whole GPU, sorted
  std::optional<std::string> compute_partition;  ///< AMD "SPX", "CPX"…; "MIG" for an NVIDIA GPU in MIG mode
  std::optional<std::string> memory_partition;   ///< AMD "NPS1", "NPS4"…
  std::optional<bool> mig_capable;               ///< NVIDIA through NVML: the GPU supports MIG
  std::vector<Partition> partitions;             ///< empty for a GPU that is not split
  std::optional<int> numa_node;                  ///< absent when unknown (sysfs says -1)
  std::optional<PcieLink> pcie_link;             ///< absent for a device without PCIe link files

  bool operator==(const Gpu&) const = default;
};

/// A GPU the machine had (an earlier inventory recorded it, or the NVIDIA driver still lists it)
/// that the probe no longer finds on the PCI bus. Kept by its identity alone, apart from `gpus`:
/// it reaches nothing, so it is never a source of device nodes, CDI names or reach, and a reader
/// that knows only `gpus` takes it for absent. It stays until it is back on the bus or an operator
/// forgets it (setup --forget-gpu).
struct MissingGpu {
  std::string pci_address;  ///< "0000:41:00.0"
  Vendor vendor = Vendor::other;
  std::string name;
  std::optional<std::string> uuid;  ///< NVIDIA "GPU-…", AMD KFD unique_id, as last known
  std::string missing_since;        ///< RFC 3339, UTC: the first probe that did not find it

  bool operator==(const MissingGpu&) const = default;
};

struct Inventory {
  int schema = kInventorySchema;
  std::string generated_at;             ///< RFC 3339, UTC
  std::optional<std::string> hostname;  ///< absent when the machine names none
  Platform platform = Platform::native;
  std::optional<std::string> cuda_driver_version;  ///< NVML's: the highest CUDA the NVIDIA driver supports
  std::vector<Gpu> gpus;                           ///< sorted by PCI address, then name
  std::vector<std::string> cdi_devices;            ///< every grantable name on the machine, sorted
  std::vector<MissingGpu> missing_gpus;            ///< sorted by PCI address

  bool operator==(const Inventory&) const = default;
};

const char* to_string(Vendor v);
const char* to_string(Platform p);

/// Vendor of a PCI vendor id: 0x10de nvidia, 0x1002 amd, 0x8086 intel, anything else other.
Vendor vendor_of(std::uint16_t vendor_id);

/// "0x10de".
std::string hex_id(std::uint16_t id);

/// Sorts GPUs, missing GPUs and every name list, so output is deterministic.
void normalise(Inventory& inventory);

nlohmann::json to_json(const Inventory& inventory);

/// Reads an inventory back; `where` names the file in errors.
Result<Inventory> inventory_from_json(const nlohmann::json& j, std::string_view where);

}  // namespace rgpu::probe
