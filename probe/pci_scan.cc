#include "probe/pci_scan.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

// Where each family keeps pci.ids: Debian and Ubuntu's pci.ids package; hwdata on Fedora, Oracle
// Linux and openSUSE.
constexpr const char* kPciIdsPaths[] = {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids"};
constexpr const char* kDevices = "/sys/bus/pci/devices";

// A hex attribute read from `machine_path`, or the sentence saying why it cannot be had.
Result<std::uint32_t> hex_value(const RootFs& fs, const std::string& machine_path, const Result<std::string>& text) {
  if (!text) return tl::unexpected(text.error());
  auto value = parse_hex_attribute(*text);
  if (!value) return fail(fs.host_path(machine_path).string() + " holds \"" + trim(*text) + "\", not a hex number");
  return *value;
}

Result<std::uint32_t> hex_attribute(const RootFs& fs, const RootDir& dir, const char* name) {
  return hex_value(fs, join_path(dir.path(), name), dir.read_file(name));
}

std::optional<std::string> attribute(const RootDir& dir, const char* name) {
  auto text = dir.read_optional(name);
  return text ? *text : std::nullopt;
}

// Where the device sits: its NUMA node and PCIe link. Each file may be missing (not PCIe, an old
// kernel) or fail to read (a device in D3cold on kernels before 6.15's fix); either is unknown.
void read_placement(const RootDir& dir, PciDevice& dev) {
  if (auto numa = attribute(dir, "numa_node")) dev.numa_node = parse_numa_node(*numa);
  auto max_speed = attribute(dir, "max_link_speed");
  auto max_width = attribute(dir, "max_link_width");
  if (!max_speed && !max_width) return;
  PcieLink link;
  if (auto v = attribute(dir, "current_link_speed")) link.current_speed_gts = parse_link_speed_gts(*v);
  if (auto v = attribute(dir, "current_link_width")) link.current_width = parse_link_width(*v);
  if (max_speed) link.max_speed_gts = parse_link_speed_gts(*max_speed);
  if (max_width) link.max_width = parse_link_width(*max_width);
  dev.pcie_link = link;
}

// The ids and driver of a device in the GPU classes, read relative to its directory.
Result<PciDevice> read_device(const RootFs& fs, const std::string& address, std::uint32_t class_code) {
  RGPU_TRY_ASSIGN(auto dir, fs.open_dir(join_path(kDevices, address)));
  RGPU_TRY_ASSIGN(auto vendor, hex_attribute(fs, dir, "vendor"));
  RGPU_TRY_ASSIGN(auto device, hex_attribute(fs, dir, "device"));
  PciDevice dev;
  dev.address = address;
  dev.vendor_id = static_cast<std::uint16_t>(vendor);
  dev.device_id = static_cast<std::uint16_t>(device);
  dev.class_code = class_code;
  dev.driver = dir.link_base_name("driver");
  read_placement(dir, dev);
  return dev;
}

}  // namespace

Result<PciScan> scan_pci(const RootFs& fs) {
  PciScan scan;
  auto names = fs.list_dir(kDevices);
  if (!names) {
    return fail("cannot read the PCI devices under " + fs.host_path(kDevices).string() + " (" + names.error().message +
                "); check that sysfs is mounted and readable.");
  }
  for (const auto& name : *names) {
    auto address = canonical_pci_address(name);
    if (!address || *address != name) {
      scan.warnings.push_back("ignoring " + fs.host_path(join_path(kDevices, name)).string() +
                              ": not a PCI address (DDDD:BB:DD.F).");
      continue;
    }
    // Each device's class, one open beneath the root; only a possible GPU's other files are read.
    const std::string class_path = join_path(join_path(kDevices, name), "class");
    auto class_code = hex_value(fs, class_path, fs.read_file(class_path));
    if (!class_code) {
      scan.warnings.push_back("skipping PCI device " + name + ": " + class_code.error().message + ".");
      continue;
    }
    if (!in_gpu_classes(*class_code)) continue;
    auto dev = read_device(fs, name, *class_code & 0xffffff);
    if (!dev) {
      scan.warnings.push_back("skipping PCI device " + name + ": " + dev.error().message + ".");
      continue;
    }
    scan.devices.push_back(std::move(*dev));
  }
  std::sort(scan.devices.begin(), scan.devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return scan;
}

namespace {

// The machine's pci.ids under the root, else this host's own, else the first place (names then
// fall back to their ids).
std::string pci_ids_path(const RootFs& fs) {
  for (const char* path : kPciIdsPaths) {
    if (fs.kind(path) == NodeKind::file) return fs.host_path(path).string();
  }
  std::error_code ec;
  for (const char* path : kPciIdsPaths) {
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return kPciIdsPaths[0];
}

}  // namespace

PciNames::PciNames(const RootFs& fs) : ids_(pci_ids_path(fs)) {}

std::string PciNames::device_name(std::uint16_t vendor, std::uint16_t device) {
  if (auto name = ids_.device_name(vendor, device)) return *name;
  char fallback[300];
  if (auto name = ids_.vendor_name(vendor)) {
    std::snprintf(fallback, sizeof fallback, "%s device 0x%04x", name->c_str(), device);
  } else {
    std::snprintf(fallback, sizeof fallback, "PCI device 0x%04x:0x%04x", vendor, device);
  }
  return fallback;
}

}  // namespace rgpu::probe
