#include "wsl/wsl_backend.h"

#include "probe/nvidia_backend.h"
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
  // NVML's answer is handed on as the native backend's is, so the facts never ask the native
  // library folders on WSL2, and why it did not answer is a fact, not a warning's words.
  report.nvidia.asked = true;
  report.nvidia.module_version = probe::nvidia_module_version(fs);
  auto nvml = probe::query_nvml(fs, {kWslLibDir}, probe::kWslNvmlRepair);
  if (!nvml) {
    report.nvidia.nvml_failure = nvml.error().message;
    return tl::unexpected(nvml.error());
  }
  if (!*nvml) {
    const std::string why = fs.host_path(kWslLibDir).string() + " has no libnvidia-ml.so.1";
    report.nvidia.nvml_failure = why;
    warnings.push_back("WSL2 exposes " + std::string(kDxgNode) + " but " + why + ", so no GPU is recorded; " +
                       probe::kWslDriverRepair + ".");
    return {};
  }
  for (const auto& n : (*nvml)->gpus) inv.gpus.push_back(gpu_from_nvml(n, (*nvml)->driver_version));
  report.nvidia.nvml = std::move(*nvml);
  return {};
}

}  // namespace rgpu::wsl
