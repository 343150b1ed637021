#include "probe/nvidia_backend.h"

#include "probe/nvml_library.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

void set_minor(Gpu& gpu, unsigned minor) { gpu.device_nodes.push_back("/dev/nvidia" + std::to_string(minor)); }

constexpr const char* kMigMinors = "/proc/driver/nvidia-caps/mig-minors";

// A MIG device is reached through its compute instance's capability node; mig-minors says which
// minor that is for the parent's /dev/nvidia minor, GPU instance and compute instance.
Partition mig_partition(const NvmlMig& m, std::optional<unsigned> parent_minor,
                        const std::map<std::string, unsigned>& minors) {
  Partition p;
  p.index = m.index;
  p.gpu_instance = m.gpu_instance;
  p.compute_instance = m.compute_instance;
  p.profile = m.profile;
  p.uuid = m.uuid;
  p.memory_bytes = m.memory_bytes;
  if (parent_minor && m.gpu_instance && m.compute_instance) {
    const std::string cap = "gpu" + std::to_string(*parent_minor) + "/gi" + std::to_string(*m.gpu_instance) + "/ci" +
                            std::to_string(*m.compute_instance) + "/access";
    if (auto it = minors.find(cap); it != minors.end()) {
      p.device_nodes.push_back("/dev/nvidia-caps/nvidia-cap" + std::to_string(it->second));
    }
  }
  return p;
}

void apply_nvml(const RootFs& fs, Gpu& gpu, const NvmlGpu& n, const std::optional<std::string>& driver_version,
                Warnings& warnings) {
  if (!n.name.empty()) gpu.name = n.name;
  gpu.uuid = n.uuid;
  gpu.memory_bytes = n.memory_bytes;
  if (driver_version) gpu.driver_version = driver_version;
  if (n.minor) set_minor(gpu, *n.minor);
  gpu.mig_capable = n.mig_capable;
  if (!n.mig_enabled) return;
  gpu.compute_partition = "MIG";
  if (n.migs.empty()) return;
  auto text = fs.read_optional(kMigMinors);
  const auto minors = text && *text ? parse_mig_minors(**text) : std::map<std::string, unsigned>{};
  if (minors.empty()) {
    warnings.push_back("NVIDIA GPU " + *gpu.pci_address + " has MIG devices but " + fs.host_path(kMigMinors).string() +
                       " cannot be read, so which CDI names reach each MIG device is not known; run nvidia-smi once "
                       "(it makes the capability files) and probe again.");
  }
  for (const auto& m : n.migs) gpu.partitions.push_back(mig_partition(m, n.minor, minors));
}

// /proc/driver/nvidia/gpus/<address>/information: "Model:", "GPU UUID:", "Device Minor:".
void apply_procfs(const RootFs& fs, Gpu& gpu, const std::optional<std::string>& driver_version, Warnings& warnings) {
  const std::string path = "/proc/driver/nvidia/gpus/" + *gpu.pci_address + "/information";
  auto text = fs.read_optional(path);
  if (!text) {
    warnings.push_back("NVIDIA GPU " + *gpu.pci_address + ": " + text.error().message);
    return;
  }
  if (driver_version) gpu.driver_version = driver_version;
  if (!*text) return;
  auto fields = parse_colon_pairs(**text);
  if (auto it = fields.find("Model"); it != fields.end() && !it->second.empty()) gpu.name = it->second;
  if (auto it = fields.find("GPU UUID"); it != fields.end() && !it->second.empty()) gpu.uuid = it->second;
  if (auto it = fields.find("Device Minor"); it != fields.end()) {
    if (auto minor = parse_decimal_attribute(it->second)) set_minor(gpu, static_cast<unsigned>(*minor));
  }
}

const NvmlGpu* match(const NvmlReport& report, const std::string& address) {
  for (const auto& n : report.gpus) {
    if (n.pci_address == address) return &n;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> nvidia_module_version(const RootFs& fs) {
  auto text = fs.read_optional("/proc/driver/nvidia/version");
  if (!text || !*text) return std::nullopt;
  return parse_nvidia_version(**text);
}

Result<void> NvidiaBackend::enrich(const RootFs& fs, ProbeReport& report) const {
  Inventory& inv = report.inventory;
  Warnings& warnings = report.warnings;
  std::vector<Gpu*> gpus;
  for (auto& g : inv.gpus) {
    if (g.vendor == Vendor::nvidia && g.pci_address && g.platform == Platform::native) gpus.push_back(&g);
  }
  if (gpus.empty()) return {};

  std::optional<NvmlReport> nvml;
  std::optional<std::string> failure;
  if (auto loaded = query_nvml(fs, native_library_dirs(), kNativeNvmlRepair); loaded) {
    nvml = std::move(*loaded);
    if (!nvml) failure = "no libnvidia-ml.so.1 was found";
  } else {
    failure = loaded.error().message;
    warnings.push_back(loaded.error().message + " Falling back to /proc/driver/nvidia (memory unknown).");
  }
  auto proc_version = nvidia_module_version(fs);
  if (nvml) inv.cuda_driver_version = nvml->cuda_version;
  for (Gpu* gpu : gpus) {
    const NvmlGpu* n = nvml ? match(*nvml, *gpu->pci_address) : nullptr;
    // A GPU NVML calls lost answers nothing live: what /proc still says of it is all there is.
    if (n && !n->lost) {
      apply_nvml(fs, *gpu, *n, nvml->driver_version ? nvml->driver_version : proc_version, warnings);
    } else {
      apply_procfs(fs, *gpu, proc_version, warnings);
    }
  }
  report.nvidia = {.asked = true,
                   .nvml = std::move(nvml),
                   .module_version = std::move(proc_version),
                   .nvml_failure = std::move(failure)};
  return {};
}

}  // namespace rgpu::probe
