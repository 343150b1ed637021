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

inline constexpr int kInventorySchema = 1;
inline constexpr const char* kInventoryPath = "/etc/rediacc/gpu/inventory.json";

enum class Vendor { nvidia, amd, intel, other };
enum class Platform { native, wsl };

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
  std::vector<std::string> cdi_devices;  ///< grantable CDI names that reach it, sorted

  bool operator==(const Gpu&) const = default;
};

struct Inventory {
  int schema = kInventorySchema;
  std::string generated_at;             ///< RFC 3339, UTC
  std::optional<std::string> hostname;  ///< absent when the machine names none
  Platform platform = Platform::native;
  std::vector<Gpu> gpus;                 ///< sorted by PCI address, then name
  std::vector<std::string> cdi_devices;  ///< every grantable name on the machine, sorted

  bool operator==(const Inventory&) const = default;
};

const char* to_string(Vendor v);
const char* to_string(Platform p);

/// Vendor of a PCI vendor id: 0x10de nvidia, 0x1002 amd, 0x8086 intel, anything else other.
Vendor vendor_of(std::uint16_t vendor_id);

/// "0x10de".
std::string hex_id(std::uint16_t id);

/// Sorts GPUs and every name list, so output is deterministic.
void normalise(Inventory& inventory);

nlohmann::json to_json(const Inventory& inventory);

/// Reads an inventory back; `where` names the file in errors.
Result<Inventory> inventory_from_json(const nlohmann::json& j, std::string_view where);

}  // namespace rgpu::probe
