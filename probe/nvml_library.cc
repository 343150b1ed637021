#include "probe/nvml_library.h"

#include <dlfcn.h>

#include <memory>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

// The few NVML entry points we call. NVML's ABI is stable and versioned by symbol suffix,
// so declaring them here is safer than depending on a CUDA header package.
using NvmlReturn = int;
using NvmlDevice = struct NvmlDeviceOpaque*;
struct NvmlMemory {
  unsigned long long total, free, used;
};
struct NvmlPciInfo {  // nvmlPciInfo_t as read by nvmlDeviceGetPciInfo_v3
  char bus_id_legacy[16];
  unsigned int domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
};
constexpr NvmlReturn kSuccess = 0;
constexpr unsigned kNameLength = 96;

struct NvmlApi {
  NvmlReturn (*init)();
  NvmlReturn (*shutdown)();
  NvmlReturn (*driver_version)(char*, unsigned);
  NvmlReturn (*count)(unsigned*);
  NvmlReturn (*handle)(unsigned, NvmlDevice*);
  NvmlReturn (*name)(NvmlDevice, char*, unsigned);
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned);
  NvmlReturn (*memory)(NvmlDevice, NvmlMemory*);
  NvmlReturn (*pci)(NvmlDevice, NvmlPciInfo*);
  NvmlReturn (*minor)(NvmlDevice, unsigned*);
};

struct DlClose {
  void operator()(void* h) const { ::dlclose(h); }
};
using Library = std::unique_ptr<void, DlClose>;

template <class Fn>
bool bind(void* lib, const char* symbol, Fn& out) {
  out = reinterpret_cast<Fn>(::dlsym(lib, symbol));
  return out != nullptr;
}

Result<NvmlApi> bind_api(void* lib, const std::string& where) {
  NvmlApi api{};
  bool ok = bind(lib, "nvmlInit_v2", api.init) && bind(lib, "nvmlShutdown", api.shutdown) &&
            bind(lib, "nvmlSystemGetDriverVersion", api.driver_version) &&
            bind(lib, "nvmlDeviceGetCount_v2", api.count) && bind(lib, "nvmlDeviceGetHandleByIndex_v2", api.handle) &&
            bind(lib, "nvmlDeviceGetName", api.name) && bind(lib, "nvmlDeviceGetUUID", api.uuid) &&
            bind(lib, "nvmlDeviceGetMemoryInfo", api.memory) && bind(lib, "nvmlDeviceGetPciInfo_v3", api.pci) &&
            bind(lib, "nvmlDeviceGetMinorNumber", api.minor);
  if (!ok) return fail(where + " lacks the NVML functions rediacc-gpu needs; reinstall the NVIDIA driver.");
  return api;
}

NvmlGpu read_device(const NvmlApi& api, NvmlDevice dev) {
  NvmlGpu gpu;
  char text[kNameLength] = {};
  if (api.name(dev, text, sizeof text) == kSuccess) gpu.name = text;
  if (api.uuid(dev, text, sizeof text) == kSuccess) gpu.uuid = std::string(text);
  NvmlMemory mem{};
  if (api.memory(dev, &mem) == kSuccess) gpu.memory_bytes = mem.total;
  NvmlPciInfo pci{};
  if (api.pci(dev, &pci) == kSuccess) {
    gpu.pci_address = canonical_pci_address(pci.bus_id);
    gpu.vendor_id = static_cast<std::uint16_t>(pci.pci_device_id & 0xffff);
    gpu.device_id = static_cast<std::uint16_t>(pci.pci_device_id >> 16);
  }
  unsigned minor = 0;
  if (api.minor(dev, &minor) == kSuccess) gpu.minor = minor;
  return gpu;
}

NvmlReport read_report(const NvmlApi& api) {
  NvmlReport report;
  char version[kNameLength] = {};
  if (api.driver_version(version, sizeof version) == kSuccess) report.driver_version = std::string(version);
  unsigned count = 0;
  if (api.count(&count) != kSuccess) return report;
  for (unsigned i = 0; i < count; ++i) {
    NvmlDevice dev = nullptr;
    if (api.handle(i, &dev) == kSuccess) report.gpus.push_back(read_device(api, dev));
  }
  return report;
}

}  // namespace

const std::vector<std::string>& native_library_dirs() {
  static const std::vector<std::string> dirs = {"/usr/lib/x86_64-linux-gnu",
                                                "/usr/lib/aarch64-linux-gnu",
                                                "/usr/lib64",
                                                "/usr/lib",
                                                "/lib/x86_64-linux-gnu",
                                                "/lib64"};
  return dirs;
}

Result<std::optional<NvmlReport>> query_nvml(const RootFs& fs, const std::vector<std::string>& dirs) {
  for (const auto& dir : dirs) {
    const std::string machine = dir + "/libnvidia-ml.so.1";
    if (fs.kind(machine) != NodeKind::file) continue;
    auto resolved = fs.resolve(machine);
    if (!resolved) return tl::unexpected(resolved.error());
    const std::string host = fs.host_path(*resolved).string();
    Library lib(::dlopen(host.c_str(), RTLD_NOW | RTLD_LOCAL));
    if (!lib)
      return fail("cannot load " + host + " (" + ::dlerror() +
                  "); reinstall the NVIDIA driver's user-space libraries.");
    auto api = bind_api(lib.get(), host);
    if (!api) return tl::unexpected(api.error());
    if (NvmlReturn rc = api->init(); rc != kSuccess) {
      return fail(host + " did not initialise (NVML error " + std::to_string(rc) +
                  "); check that the NVIDIA kernel module is loaded and matches the library.");
    }
    NvmlReport report = read_report(*api);
    api->shutdown();
    report.library = machine;
    return std::optional<NvmlReport>(std::move(report));
  }
  return std::optional<NvmlReport>{};
}

}  // namespace rgpu::probe
