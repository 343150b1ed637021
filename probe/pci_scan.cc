#include "probe/pci_scan.h"

extern "C" {
#include <pci/pci.h>
}

#include <csetjmp>
#include <cstdarg>
#include <algorithm>
#include <cstdio>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

constexpr const char* kPciIds = "/usr/share/misc/pci.ids";

// libpci's error callback must not return. It jumps back into scan_with_libpci, whose frame
// holds no object that the jump could skip destroying; only libpci's C frames are unwound.
thread_local std::jmp_buf* t_escape = nullptr;
thread_local char t_message[512];

[[noreturn]] void on_libpci_error(char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(t_message, sizeof t_message, fmt, args);
  va_end(args);
  std::longjmp(*t_escape, 1);
}

void on_libpci_warning(char*, ...) {}

std::string device_name(pci_access* acc, std::uint16_t vendor, std::uint16_t device) {
  char buf[256];
  if (const char* name = pci_lookup_name(acc, buf, sizeof buf, PCI_LOOKUP_DEVICE | PCI_LOOKUP_NO_NUMBERS, vendor, device)) {
    return name;
  }
  char vbuf[256];
  const char* vname = pci_lookup_name(acc, vbuf, sizeof vbuf, PCI_LOOKUP_VENDOR | PCI_LOOKUP_NO_NUMBERS, vendor);
  char fallback[300];
  std::snprintf(fallback, sizeof fallback, "%s device 0x%04x", vname ? vname : "Unknown vendor", device);
  return fallback;
}

PciDevice record(pci_access* acc, pci_dev* d) {
  PciDevice dev;
  char addr[32];
  std::snprintf(addr, sizeof addr, "%04x:%02x:%02x.%x", static_cast<unsigned>(d->domain), d->bus, d->dev, d->func);
  dev.address = addr;
  dev.vendor_id = d->vendor_id;
  dev.device_id = d->device_id;
  dev.class_code = (static_cast<std::uint32_t>(d->device_class) << 8) | d->prog_if;
  if (const char* drv = pci_get_string_property(d, PCI_FILL_DRIVER)) dev.driver = drv;
  dev.name = device_name(acc, d->vendor_id, d->device_id);
  return dev;
}

// Runs libpci; on a libpci error returns false with the message in t_message.
bool scan_with_libpci(pci_access* acc, std::vector<PciDevice>& out) {
  std::jmp_buf escape;
  t_escape = &escape;
  if (setjmp(escape) != 0) return false;
  pci_init(acc);
  pci_scan_bus(acc);
  for (pci_dev* d = acc->devices; d; d = d->next) {
    pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT | PCI_FILL_DRIVER);
    out.push_back(record(acc, d));
  }
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
  std::string ids = fs.kind(kPciIds) == NodeKind::file ? fs.host_path(kPciIds).string() : kPciIds;
  pci_access* acc = pci_alloc();
  acc->error = on_libpci_error;
  acc->warning = on_libpci_warning;
  acc->method = PCI_ACCESS_SYS_BUS_PCI;
  pci_set_param(acc, const_cast<char*>("sysfs.path"), sysfs.data());
  pci_set_param(acc, const_cast<char*>("hwdb.disable"), const_cast<char*>("1"));
  pci_set_name_list_path(acc, ids.data(), 0);

  std::vector<PciDevice> found;
  bool ok = scan_with_libpci(acc, found);
  pci_cleanup(acc);
  if (!ok) {
    return fail("cannot read the PCI devices under " + sysfs + " (libpci: " + t_message +
                "); check that sysfs is mounted and readable.");
  }
  for (auto& dev : found) {
    if (auto bad = malformed_attribute(fs, join_path(devices_dir, dev.address))) {
      scan.warnings.push_back("skipping PCI device " + dev.address + ": " + *bad + ".");
      continue;
    }
    scan.devices.push_back(std::move(dev));
  }
  std::sort(scan.devices.begin(), scan.devices.end(),
            [](const PciDevice& a, const PciDevice& b) { return a.address < b.address; });
  return scan;
}

}  // namespace rgpu::probe
