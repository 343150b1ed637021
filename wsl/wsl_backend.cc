#include "wsl/wsl_backend.h"

#include "probe/nvml_library.h"
#include "probe/probe.h"

namespace rgpu::wsl {
namespace {

probe::Gpu gpu_from_nvml(const probe::NvmlGpu& n, const std::optional<std::string>& driver_version) {
  probe::Gpu gpu;
  gpu.vendor = probe::Vendor::nvidia;
  gpu.vendor_id = n.vendor_id;
  gpu.device_id = n.device_id;
  gpu.name = n.name;
  gpu.uuid = n.uuid;
  gpu.memory_bytes = n.memory_bytes;
  gpu.driver = "dxgkrnl";
  gpu.driver_version = driver_version;  // the Windows driver's version, as NVML reports it
  gpu.device_nodes = {kDxgNode};
  gpu.platform = probe::Platform::wsl;
  return gpu;
}

}  // namespace

bool is_wsl(const RootFs& fs) { return fs.kind(kDxgNode) != NodeKind::missing && probe::wsl_kernel(fs); }

Result<void> WslBackend::enrich(const RootFs& fs, probe::ProbeReport& report) const {
  probe::Inventory& inv = report.inventory;
  probe::Warnings& warnings = report.warnings;
  if (!is_wsl(fs)) return {};
  inv.platform = probe::Platform::wsl;
  if (fs.kind(kDxgNode) != NodeKind::char_device) {
    warnings.push_back(fs.host_path(kDxgNode).string() + " is not a character device; the WSL2 GPU is not usable.");
  }
  RGPU_TRY_ASSIGN(auto nvml, probe::query_nvml(fs, {kWslLibDir}, probe::kWslNvmlRepair));
  if (!nvml) {
    warnings.push_back("WSL2 exposes " + std::string(kDxgNode) + " but " + fs.host_path(kWslLibDir).string() +
                       " has no libnvidia-ml.so.1, so no GPU is recorded; " + probe::kWslDriverRepair + ".");
    return {};
  }
  for (const auto& n : (nvml)->gpus) inv.gpus.push_back(gpu_from_nvml(n, (nvml)->driver_version));
  return {};
}

}  // namespace rgpu::wsl
