#pragma once
// A CDI device name, "vendor.com/class=device", parsed once by CDI's rules, and the hardware a
// name is keyed by: how the generator spells a card's key and how the gate, grants, the views and
// doctor read it back, in one place, so that no reader splits a name's text on its own.

#include <optional>
#include <string>
#include <string_view>

namespace rgpu::cdi {

/// CDI's rules for a kind's vendor ("nvidia.com") and class ("gpu"), and for a device name.
bool valid_vendor(std::string_view vendor);
bool valid_class(std::string_view klass);
bool valid_device_name(std::string_view name);

/// The hardware a device name is keyed by: ours by PCI address ("pci-0000-01-00.0", and
/// "pci-0000-03-00.0-cpx3" for a partition of that card), NVIDIA's by UUID ("GPU-…", "MIG-…").
struct HardwareKey {
  enum class Kind { pci, gpu_uuid, mig_uuid };
  Kind kind = Kind::pci;
  std::string id;         ///< "0000:01:00.0", or the UUID
  std::string part = {};  ///< the partition a PCI-keyed name names ("cpx3"); empty for the whole card
};

struct DeviceName {
  std::string vendor;  ///< "rediacc.io"
  std::string klass;   ///< "dri"
  std::string device;  ///< "pci-0000-01-00.0"

  std::string kind() const;       ///< "rediacc.io/dri"
  std::string qualified() const;  ///< "rediacc.io/dri=pci-0000-01-00.0"
  /// Of the keyed form (pci-…, GPU-…, MIG-…): it stays on its hardware when the machine numbers its
  /// cards anew.
  bool keyed() const;
  /// A number given in the order cards were probed (renderD129, gpu0, 0, 0:1): neither keyed nor
  /// "all", which names no card in particular.
  bool numbered() const;
  /// The hardware it is keyed by, when its device name spells a key in full.
  std::optional<HardwareKey> key() const;
};

/// `qualified` read as a CDI device name; absent unless it is vendor/class=device with each part
/// valid by CDI's rules.
std::optional<DeviceName> parse_device_name(std::string_view qualified);

/// "pci-0000-01-00.0" for "0000:01:00.0": a CDI device name that Compose's `devices:` entries keep
/// whole (Compose splits an entry at ':', so the address's colons become dashes).
std::string hardware_key(std::string_view pci_address);

/// The device name keyed by a card's PCI address and, for a partition, its part ("cpx3"):
/// "pci-0000-03-00.0-cpx3". HardwareKey reads it back.
std::string keyed_device(std::string_view pci_address, std::string_view part);

}  // namespace rgpu::cdi
