#include "probe/pci_scan.h"

extern "C" {
#include <pci/pci.h>
}

#include <algorithm>
#include <csetjmp>
#include <cstdarg>
#include <cstdio>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

constexpr const char* kPciIds = "/usr/share/misc/pci.ids";

// libpci's error callback must not return. It jumps back to the setjmp in scan_with_libpci or
// lookup, whose frames hold no object the jump could skip destroying: only libpci's C frames
// are unwound.
thread_local std::jmp_buf* t_escape = nullptr;
thread_local char t_message[512];

// GNU attributes, not [[noreturn]]: clang counts only them as part of the function's type, which
// must match libpci's noreturn callback pointer; `format` tells both compilers fmt is printf's.
__attribute__((noreturn, format(printf, 1, 2))) void on_libpci_error(char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(t_message, sizeof t_message, fmt, args);
  va_end(args);
  std::longjmp(*t_escape, 1);
}

void on_libpci_warning(char*, ...) {}

// One pci.ids lookup into `buf`, guarded like the scan; false when pci.ids lacks the id.
bool lookup(pci_access* acc, char* buf, int size, int flags, unsigned vendor, unsigned device) {
  std::jmp_buf escape;
  t_escape = &escape;
  if (setjmp(escape) != 0) {
    t_escape = nullptr;
    return false;
  }
  const char* name = pci_lookup_name(acc, buf, size, flags | PCI_LOOKUP_NO_NUMBERS, vendor, device);
  if (name && name != buf) std::snprintf(buf, static_cast<size_t>(size), "%s", name);
  t_escape = nullptr;
  return name != nullptr;
}

std::string lookup_name(pci_access* acc, std::uint16_t vendor, std::uint16_t device) {
  char name[256];
  if (lookup(acc, name, sizeof name, PCI_LOOKUP_DEVICE, vendor, device)) return name;
  char fallback[300];
  if (lookup(acc, name, sizeof name, PCI_LOOKUP_VENDOR, vendor, 0)) {
    std::snprintf(fallback, sizeof fallback, "%s device 0x%04x", name, device);
  } else {
    std::snprintf(fallback, sizeof fallback, "PCI device 0x%04x:0x%04x", vendor, device);
  }
  return fallback;
}

PciDevice record(pci_dev* d) {
  PciDevice dev;
  char addr[32];
  std::snprintf(addr, sizeof addr, "%04x:%02x:%02x.%x", static_cast<unsigned>(d->domain), d->bus, d->dev, d->func);
  dev.address = addr;
  dev.vendor_id = d->vendor_id;
  dev.device_id = d->device_id;
  dev.class_code = (static_cast<std::uint32_t>(d->device_class) << 8) | d->prog_if;
  if (const char* drv = pci_get_string_property(d, PCI_FILL_DRIVER)) dev.driver = drv;
  return dev;
}

// Runs libpci; on a libpci error returns false with the message in t_message.
bool scan_with_libpci(pci_access* acc, std::vector<PciDevice>& out) {
  std::jmp_buf escape;
  t_escape = &escape;
  if (setjmp(escape) != 0) {
    t_escape = nullptr;
    return false;
  }
  pci_init(acc);
  pci_scan_bus(acc);
  for (pci_dev* d = acc->devices; d; d = d->next) {
    pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_DRIVER);
    out.push_back(record(d));
  }
  t_escape = nullptr;
  return true;
}

// libpci reads "zz" in a sysfs file as 0 without a word; we say so and skip the device.
std::optional<std::string> malformed_attribute(const RootFs& fs, const std::string& dir) {
  for (const char* attr : {"vendor", "device", "class"}) {
    auto text = fs.read_file(join_path(dir, attr));
    if (!text) return text.error().message;
    if (!parse_hex_attribute(*text)) {
      return fs.host_path(join_path(dir, attr)).string() + " holds \"" + trim(*text) + "\", not a hex number";
    }
  }
  return std::nullopt;
}

}  // namespace

Result<PciScan> scan_pci(const RootFs& fs) {
  const std::string devices_dir = "/sys/bus/pci/devices";
  PciScan scan;
  if (fs.kind(devices_dir) != NodeKind::directory) return scan;

  std::string sysfs = fs.host_path("/sys/bus/pci").string();
  pci_access* acc = pci_alloc();
  acc->error = on_libpci_error;
  acc->warning = on_libpci_warning;
  acc->method = PCI_ACCESS_SYS_BUS_PCI;
  pci_set_param(acc, const_cast<char*>("sysfs.path"), sysfs.data());

  std::vector<PciDevice> found;
  bool ok = scan_with_libpci(acc, found);
  pci_cleanup(acc);
  if (!ok) {
    return fail("cannot read the PCI devices under " + sysfs + " (libpci: " + t_message +
                "); check that sysfs is mounted and readable.");
  }
  for (auto& dev : found) {
    // Only devices that can matter are re-read: a NIC's odd sysfs file is not our business.
    const bool suspect = in_gpu_classes(dev.class_code) || dev.vendor_id == 0 || dev.class_code == 0;
    auto bad = suspect ? malformed_attribute(fs, join_path(devices_dir, dev.address)) : std::nullopt;
    if (bad) {
      scan.warnings.push_back("skipping PCI device " + dev.address + ": " + *bad + ".");
      continue;
    }
    scan.devices.push_back(std::move(dev));
  }
  std::sort(scan.devices.begin(), scan.devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return scan;
}

PciNames::PciNames(const RootFs& fs)
    : ids_path_(fs.kind(kPciIds) == NodeKind::file ? fs.host_path(kPciIds).string() : kPciIds) {}

PciNames::~PciNames() {
  if (access_) pci_cleanup(access_);
}

std::string PciNames::device_name(std::uint16_t vendor, std::uint16_t device) {
  if (!access_) {
    access_ = pci_alloc();
    access_->error = on_libpci_error;
    access_->warning = on_libpci_warning;
    access_->debug = on_libpci_warning;  // pci_init would set it; a lookup miss calls it
    // udev's hwdb describes the host, not the root being probed.
    pci_set_param(access_, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
    pci_set_name_list_path(access_, ids_path_.data(), 0);
  }
  return lookup_name(access_, vendor, device);
}

}  // namespace rgpu::probe
