#include "cdi/device_name.h"

#include <algorithm>
#include <cctype>

namespace rgpu::cdi {
namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

bool only(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || extra.find(c) != std::string_view::npos; });
}

constexpr std::string_view kPciPrefix = "pci-";
constexpr size_t kPciAddress = 12;  // "0000-01-00.0"

}  // namespace

bool valid_vendor(std::string_view v) { return !v.empty() && alpha(v.front()) && alnum(v.back()) && only(v, "-_."); }
bool valid_class(std::string_view c) { return !c.empty() && alpha(c.front()) && alnum(c.back()) && only(c, "-_."); }
bool valid_device_name(std::string_view n) {
  return !n.empty() && alnum(n.front()) && alnum(n.back()) && only(n, "-_.:");
}

std::string DeviceName::kind() const { return vendor + "/" + klass; }

std::string DeviceName::qualified() const { return kind() + "=" + device; }

bool DeviceName::keyed() const {
  return device.starts_with(kPciPrefix) || device.starts_with("GPU-") || device.starts_with("MIG-");
}

bool DeviceName::numbered() const { return !keyed() && device != "all"; }

std::optional<HardwareKey> DeviceName::key() const {
  if (device.starts_with("GPU-")) return HardwareKey{.kind = HardwareKey::Kind::gpu_uuid, .id = device};
  if (device.starts_with("MIG-")) return HardwareKey{.kind = HardwareKey::Kind::mig_uuid, .id = device};
  if (!device.starts_with(kPciPrefix) || device.size() < kPciPrefix.size() + kPciAddress) return std::nullopt;
  std::string address = device.substr(kPciPrefix.size(), kPciAddress);
  if (address[4] != '-' || address[7] != '-' || address[10] != '.') return std::nullopt;
  address[4] = address[7] = ':';
  const std::string_view rest = std::string_view(device).substr(kPciPrefix.size() + kPciAddress);
  if (!rest.empty() && (rest.front() != '-' || rest.size() == 1)) return std::nullopt;
  return HardwareKey{.kind = HardwareKey::Kind::pci,
                     .id = std::move(address),
                     .part = std::string(rest.empty() ? rest : rest.substr(1))};
}

std::optional<DeviceName> parse_device_name(std::string_view qualified) {
  const auto eq = qualified.find('=');
  const auto slash = qualified.find('/');
  if (eq == std::string_view::npos || slash == std::string_view::npos || slash > eq) return std::nullopt;
  DeviceName name{.vendor = std::string(qualified.substr(0, slash)),
                  .klass = std::string(qualified.substr(slash + 1, eq - slash - 1)),
                  .device = std::string(qualified.substr(eq + 1))};
  if (!valid_vendor(name.vendor) || !valid_class(name.klass) || !valid_device_name(name.device)) return std::nullopt;
  return name;
}

std::string hardware_key(std::string_view pci_address) {
  std::string key(kPciPrefix);
  for (char c : pci_address) key += c == ':' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return key;
}

std::string keyed_device(std::string_view pci_address, std::string_view part) {
  std::string device = hardware_key(pci_address);
  if (!part.empty()) {
    device += '-';  // piece by piece: GCC 12's -Wrestrict misfires on "-" + std::string&&
    device += part;
  }
  return device;
}

}  // namespace rgpu::cdi
