#include "probe/probe.h"

#include "core/machine_paths.h"
#include "probe/amd_backend.h"
#include "probe/drm_nodes.h"
#include "probe/drm_version_backend.h"
#include "probe/gpu_filter.h"
#include "probe/module_version_backend.h"
#include "probe/nvidia_backend.h"
#include "probe/pci_scan.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

Gpu gpu_from_pci(const PciDevice& dev, const DrmNodes& nodes) {
  Gpu gpu;
  gpu.pci_address = dev.address;
  gpu.vendor = vendor_of(dev.vendor_id);
  gpu.vendor_id = dev.vendor_id;
  gpu.device_id = dev.device_id;
  gpu.pci_class = dev.class_code;
  gpu.driver = dev.driver;
  gpu.numa_node = dev.numa_node;
  gpu.pcie_link = dev.pcie_link;
  gpu.render_node = nodes.render_node;
  gpu.card_node = nodes.card_node;
  if (nodes.render_node) gpu.device_nodes.push_back(*nodes.render_node);
  if (nodes.card_node) gpu.device_nodes.push_back(*nodes.card_node);
  return gpu;
}

// The PCI device's drm/ directory is the rule; /sys/class/drm fills a gap and flags a disagreement.
DrmNodes cross_checked_nodes(const RootFs& fs, const PciDevice& dev, const DrmClassScan& by_class, Warnings& warnings) {
  DrmNodes nodes = drm_nodes_of_pci(fs, dev.address);
  auto it = by_class.render_by_pci.find(dev.address);
  if (it == by_class.render_by_pci.end()) return nodes;
  if (!nodes.render_node) {
    nodes.render_node = it->second;
  } else if (*nodes.render_node != it->second) {
    warnings.push_back("PCI device " + dev.address + " lists " + *nodes.render_node + " but /sys/class/drm links " +
                       it->second + " to it; keeping " + *nodes.render_node + ".");
  }
  return nodes;
}

}  // namespace

std::optional<std::string> machine_hostname(const RootFs& fs) {
  for (const char* path : {"/proc/sys/kernel/hostname", "/etc/hostname"}) {
    auto text = fs.read_optional(path);
    if (text && *text && !(*text)->empty()) return **text;
  }
  return std::nullopt;
}

bool wsl_kernel(const RootFs& fs) {
  const auto release = fs.read_optional(paths::kKernelRelease);
  return release && *release && is_wsl_kernel_release(**release);
}

std::vector<std::unique_ptr<Backend>> native_backends() {
  std::vector<std::unique_ptr<Backend>> out;
  out.push_back(std::make_unique<AmdBackend>());
  out.push_back(std::make_unique<NvidiaBackend>());
  out.push_back(std::make_unique<ModuleVersionBackend>());
  out.push_back(std::make_unique<DrmVersionBackend>());
  return out;
}

Result<ProbeReport> run_probe(const RootFs& fs, const std::vector<std::unique_ptr<Backend>>& backends, SystemTime now) {
  RGPU_TRY_ASSIGN(auto pci, scan_pci(fs));
  ProbeReport report;
  report.warnings = pci.warnings;
  DrmClassScan by_class = scan_drm_class(fs);
  report.warnings.insert(report.warnings.end(), by_class.warnings.begin(), by_class.warnings.end());

  Inventory& inv = report.inventory;
  inv.generated_at = format_rfc3339_utc(now);
  inv.hostname = machine_hostname(fs);
  for (const auto& dev : pci.devices) {
    if (!in_gpu_classes(dev.class_code)) continue;
    DrmNodes nodes = cross_checked_nodes(fs, dev, by_class, report.warnings);
    if (is_gpu(dev, nodes.render_node.has_value())) inv.gpus.push_back(gpu_from_pci(dev, nodes));
  }
  for (const auto& backend : backends) {
    if (auto done = backend->enrich(fs, report); !done) {
      report.warnings.push_back("the " + std::string(backend->name()) +
                                " backend was skipped: " + done.error().message);
    }
  }
  PciNames names(fs);
  for (auto& gpu : inv.gpus) {
    if (gpu.name.empty()) gpu.name = names.device_name(gpu.vendor_id, gpu.device_id);
  }
  normalise(inv);
  return report;
}

}  // namespace rgpu::probe
