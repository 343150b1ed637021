#include "probe/nvml_library.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

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
struct NvmlAttributes {  // nvmlDeviceAttributes_t (nvmlDeviceGetAttributes_v2), MIG handles only
  unsigned int multiprocessor_count, shared_copy_engines, shared_decoders, shared_encoders, shared_jpeg, shared_ofa;
  unsigned int gpu_instance_slices, compute_instance_slices;
  unsigned long long memory_size_mb;
};
struct NvmlProcessSample {  // nvmlProcessUtilizationSample_t
  unsigned int pid;
  unsigned long long timestamp;  // CPU time in microseconds since the epoch
  unsigned int sm, memory, encoder, decoder;
};
struct NvmlProcessInfo {  // nvmlProcessInfo_v2_t, as the _v3 process lists fill it
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id, compute_instance_id;
};
constexpr unsigned long long kValueNotAvailable = ~0ULL;
constexpr NvmlReturn kSuccess = 0;
constexpr NvmlReturn kInsufficientSize = 7;
constexpr NvmlReturn kGpuIsLost = 15;
constexpr NvmlReturn kInvalidArgument = 2;
constexpr NvmlReturn kNotFound = 6;
constexpr unsigned kMigEnable = 1;
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
  // MIG: absent from drivers before R450; a GPU then simply has no MIG devices.
  NvmlReturn (*mig_mode)(NvmlDevice, unsigned*, unsigned*);
  NvmlReturn (*max_migs)(NvmlDevice, unsigned*);
  NvmlReturn (*mig_handle)(NvmlDevice, unsigned, NvmlDevice*);
  NvmlReturn (*gi_id)(NvmlDevice, unsigned*);
  NvmlReturn (*ci_id)(NvmlDevice, unsigned*);
  NvmlReturn (*attributes)(NvmlDevice, NvmlAttributes*);
  // The CUDA version: _v2 asks libcuda itself; the first form may answer "a known supported
  // version" when libcuda is missing. Either may be absent.
  NvmlReturn (*cuda_version)(int*);
  // Process lists (R470 and later); either may be absent.
  NvmlReturn (*compute_processes)(NvmlDevice, unsigned*, NvmlProcessInfo*);
  NvmlReturn (*graphics_processes)(NvmlDevice, unsigned*, NvmlProcessInfo*);
  // Per-process utilisation samples the driver keeps (R450 and later); may be absent.
  NvmlReturn (*process_utilization)(NvmlDevice, NvmlProcessSample*, unsigned*, unsigned long long);
  // Memory health; each may be absent, or answer NOT_SUPPORTED on a GPU without ECC.
  NvmlReturn (*total_ecc)(NvmlDevice, int, int, unsigned long long*);
  NvmlReturn (*remapped_rows)(NvmlDevice, unsigned*, unsigned*, unsigned*, unsigned*);
  NvmlReturn (*retired_pending)(NvmlDevice, int*);
};
constexpr int kUncorrectedErrors = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatileCounter = 0;    // NVML_VOLATILE_ECC: since the driver loaded

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
  const bool mig =
      bind(lib, "nvmlDeviceGetMigMode", api.mig_mode) && bind(lib, "nvmlDeviceGetMaxMigDeviceCount", api.max_migs) &&
      bind(lib, "nvmlDeviceGetMigDeviceHandleByIndex", api.mig_handle) &&
      bind(lib, "nvmlDeviceGetGpuInstanceId", api.gi_id) && bind(lib, "nvmlDeviceGetComputeInstanceId", api.ci_id) &&
      bind(lib, "nvmlDeviceGetAttributes_v2", api.attributes);
  if (!mig) api.mig_mode = nullptr;
  if (!bind(lib, "nvmlSystemGetCudaDriverVersion_v2", api.cuda_version))
    bind(lib, "nvmlSystemGetCudaDriverVersion", api.cuda_version);
  bind(lib, "nvmlDeviceGetComputeRunningProcesses_v3", api.compute_processes);
  bind(lib, "nvmlDeviceGetGraphicsRunningProcesses_v3", api.graphics_processes);
  bind(lib, "nvmlDeviceGetProcessUtilization", api.process_utilization);
  bind(lib, "nvmlDeviceGetTotalEccErrors", api.total_ecc);
  bind(lib, "nvmlDeviceGetRemappedRows", api.remapped_rows);
  bind(lib, "nvmlDeviceGetRetiredPagesPendingStatus", api.retired_pending);
  return api;
}

std::optional<unsigned> id_of(NvmlReturn (*fn)(NvmlDevice, unsigned*), NvmlDevice dev) {
  unsigned id = 0;
  return fn(dev, &id) == kSuccess ? std::optional<unsigned>(id) : std::nullopt;
}

NvmlMig read_mig(const NvmlApi& api, NvmlDevice mig, unsigned index, std::optional<std::uint64_t> gpu_bytes) {
  NvmlMig m;
  m.index = index;
  m.gpu_instance = id_of(api.gi_id, mig);
  m.compute_instance = id_of(api.ci_id, mig);
  char text[kNameLength] = {};
  if (api.uuid(mig, text, sizeof text) == kSuccess) m.uuid = std::string(text);
  NvmlMemory mem{};
  if (api.memory(mig, &mem) == kSuccess) m.memory_bytes = mem.total;
  NvmlAttributes attrs{};
  if (api.attributes(mig, &attrs) == kSuccess && gpu_bytes && attrs.gpu_instance_slices > 0) {
    m.profile =
        mig_profile_name(attrs.gpu_instance_slices, attrs.compute_instance_slices, attrs.memory_size_mb, *gpu_bytes);
  }
  return m;
}

// As the toolkit visits them: every slot up to the maximum, a missing one (NOT_FOUND or
// INVALID_ARGUMENT) being a hole, not an error; the slot is the MIG index in CDI names.
void read_migs(const NvmlApi& api, NvmlDevice dev, NvmlGpu& gpu) {
  unsigned current = 0, pending = 0, max = 0;
  if (!api.mig_mode) return;
  const bool answered = api.mig_mode(dev, &current, &pending) == kSuccess;
  gpu.mig_capable = answered;
  if (!answered || current != kMigEnable) return;
  gpu.mig_enabled = true;
  if (api.max_migs(dev, &max) != kSuccess) return;
  for (unsigned i = 0; i < max; ++i) {
    NvmlDevice mig = nullptr;
    NvmlReturn rc = api.mig_handle(dev, i, &mig);
    if (rc == kNotFound || rc == kInvalidArgument) continue;
    if (rc != kSuccess) break;
    gpu.migs.push_back(read_mig(api, mig, i, gpu.memory_bytes));
  }
}

// One list (compute or graphics), grown once when NVML says the first buffer was too small.
std::optional<std::vector<NvmlProcess>> process_list(NvmlReturn (*fn)(NvmlDevice, unsigned*, NvmlProcessInfo*),
                                                     NvmlDevice dev) {
  if (!fn) return std::nullopt;
  std::vector<NvmlProcessInfo> infos(64);
  unsigned count = static_cast<unsigned>(infos.size());
  NvmlReturn rc = fn(dev, &count, infos.data());
  if (rc == kInsufficientSize && count > infos.size()) {
    infos.resize(count + 16);
    count = static_cast<unsigned>(infos.size());
    rc = fn(dev, &count, infos.data());
  }
  if (rc != kSuccess) return std::nullopt;
  std::vector<NvmlProcess> out;
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    NvmlProcess p{infos[i].pid, std::nullopt};
    if (infos[i].used_gpu_memory != kValueNotAvailable) p.used_bytes = infos[i].used_gpu_memory;
    out.push_back(p);
  }
  return out;
}

std::optional<std::vector<NvmlProcess>> processes_of(const NvmlApi& api, NvmlDevice dev) {
  auto compute = process_list(api.compute_processes, dev);
  auto graphics = process_list(api.graphics_processes, dev);
  if (!compute) return graphics;
  for (const auto& p : graphics ? *graphics : std::vector<NvmlProcess>{}) {
    if (std::none_of(compute->begin(), compute->end(), [&](const NvmlProcess& c) { return c.pid == p.pid; }))
      compute->push_back(p);
  }
  return compute;
}

// The driver samples each process's SM use about every sixth of a second and keeps a short
// history: the newest sample of the last five seconds per process, so a process that stopped
// computing a minute ago reads as absent, not as its old figure.
void read_process_utilisation(const NvmlApi& api, NvmlDevice dev, std::vector<NvmlProcess>& processes) {
  if (!api.process_utilization || processes.empty()) return;
  using namespace std::chrono;
  const auto since = static_cast<unsigned long long>(
      duration_cast<microseconds>((system_clock::now() - seconds(5)).time_since_epoch()).count());
  unsigned count = 0;
  NvmlReturn rc = api.process_utilization(dev, nullptr, &count, since);
  if (rc != kInsufficientSize || count == 0) return;  // NOT_FOUND: no sample in that time
  std::vector<NvmlProcessSample> samples(count + 8);
  count = static_cast<unsigned>(samples.size());
  if (api.process_utilization(dev, samples.data(), &count, since) != kSuccess) return;
  std::map<unsigned, const NvmlProcessSample*> newest;
  for (unsigned i = 0; i < count && i < samples.size(); ++i) {
    auto& at = newest[samples[i].pid];
    if (!at || samples[i].timestamp > at->timestamp) at = &samples[i];
  }
  for (auto& p : processes) {
    if (const auto s = newest.find(p.pid); s != newest.end()) p.sm_percent = std::min(s->second->sm, 100u);
  }
}

void read_memory_health(const NvmlApi& api, NvmlDevice dev, NvmlGpu& gpu) {
  unsigned long long uncorrected = 0;
  if (api.total_ecc && api.total_ecc(dev, kUncorrectedErrors, kVolatileCounter, &uncorrected) == kSuccess)
    gpu.ecc_uncorrected = uncorrected;
  unsigned corrected = 0, unc = 0, pending = 0, failed = 0;
  if (api.remapped_rows && api.remapped_rows(dev, &corrected, &unc, &pending, &failed) == kSuccess) {
    gpu.rows_remapped_uncorrectable = unc;
    gpu.remap_pending = pending != 0;
    gpu.remap_failed = failed != 0;
    return;
  }
  // Before the row remapper (Volta, Turing): a retired page also waits for a reset.
  int retired = 0;
  if (api.retired_pending && api.retired_pending(dev, &retired) == kSuccess) gpu.remap_pending = retired != 0;
}

NvmlGpu read_device(const NvmlApi& api, NvmlDevice dev) {
  NvmlGpu gpu;
  char text[kNameLength] = {};
  const NvmlReturn named = api.name(dev, text, sizeof text);
  if (named == kSuccess) gpu.name = text;
  if (api.uuid(dev, text, sizeof text) == kSuccess) gpu.uuid = std::string(text);
  NvmlMemory mem{};
  const NvmlReturn measured = api.memory(dev, &mem);
  if (measured == kSuccess) gpu.memory_bytes = mem.total;
  // After Xid 79 the driver still knows the GPU's bus address, but every live query answers so.
  gpu.lost = named == kGpuIsLost || measured == kGpuIsLost;
  NvmlPciInfo pci{};
  if (api.pci(dev, &pci) == kSuccess) {
    gpu.pci_address = canonical_pci_address(pci.bus_id);
    gpu.vendor_id = static_cast<std::uint16_t>(pci.pci_device_id & 0xffff);
    gpu.device_id = static_cast<std::uint16_t>(pci.pci_device_id >> 16);
  }
  unsigned minor = 0;
  if (api.minor(dev, &minor) == kSuccess) gpu.minor = minor;
  if (gpu.lost) return gpu;
  read_migs(api, dev, gpu);
  gpu.processes = processes_of(api, dev);
  if (gpu.processes) read_process_utilisation(api, dev, *gpu.processes);
  read_memory_health(api, dev, gpu);
  return gpu;
}

NvmlReport read_report(const NvmlApi& api) {
  NvmlReport report;
  char version[kNameLength] = {};
  if (api.driver_version(version, sizeof version) == kSuccess) report.driver_version = std::string(version);
  int cuda = 0;
  if (api.cuda_version && api.cuda_version(&cuda) == kSuccess && cuda > 0) {
    report.cuda_version = std::to_string(cuda / 1000) + "." + std::to_string((cuda % 1000) / 10);
  }
  unsigned count = 0;
  if (api.count(&count) != kSuccess) return report;
  for (unsigned i = 0; i < count; ++i) {
    NvmlDevice dev = nullptr;
    const NvmlReturn rc = api.handle(i, &dev);
    if (rc == kSuccess) report.gpus.push_back(read_device(api, dev));
    if (rc == kGpuIsLost) {
      NvmlGpu lost;
      lost.lost = true;
      report.gpus.push_back(std::move(lost));
    }
  }
  return report;
}

}  // namespace

std::string mig_profile_name(unsigned gi_slices, unsigned ci_slices, std::uint64_t instance_mib,
                             std::uint64_t gpu_bytes) {
  constexpr std::uint64_t kMiB = 1024 * 1024, kGiB = kMiB * 1024;
  const std::uint64_t gpu_gib = (gpu_bytes + kGiB - 1) / kGiB;
  // The share in eighths, rounded up: ceil(8 * instance bytes / GPU bytes), in integers.
  // (No overflow: a MIG instance holds far less than 2^40 MiB.)
  const std::uint64_t scaled = 8 * instance_mib * kMiB;
  const std::uint64_t eighths = gpu_bytes ? (scaled + gpu_bytes - 1) / gpu_bytes : 0;
  // eighths/8 of the GPU's whole GiB, rounded to the nearest.
  const std::uint64_t gb = (eighths * gpu_gib + 4) / 8;
  std::string name = std::to_string(gi_slices) + "g." + std::to_string(gb) + "gb";
  if (ci_slices > 0 && ci_slices < gi_slices) name = std::to_string(ci_slices) + "c." + name;
  return name;
}

const std::vector<std::string>& native_library_dirs() {
  static const std::vector<std::string> dirs = {"/usr/lib/x86_64-linux-gnu",
                                                "/usr/lib/aarch64-linux-gnu",
                                                "/usr/lib64",
                                                "/usr/lib",
                                                "/lib/x86_64-linux-gnu",
                                                "/lib64"};
  return dirs;
}

namespace {

// What the thread that talks to NVML hands back; shared, so a thread left behind in a hung call
// writes into memory that outlives the caller's wait.
struct NvmlCall {
  std::mutex mutex;
  std::condition_variable done;
  std::optional<Result<NvmlReport>> answer;
};

// Everything that calls into the library: dlopen runs its constructors, and nvmlInit and the
// queries enter the driver, where a GPU that stopped answering can block them.
Result<NvmlReport> ask_library(const std::string& host, const NvmlRepair& repair) {
  Library lib(::dlopen(host.c_str(), RTLD_NOW | RTLD_LOCAL));
  if (!lib) return fail("cannot load " + host + " (" + ::dlerror() + "); " + std::string(repair.cannot_load) + ".");
  RGPU_TRY_ASSIGN(auto api, bind_api(lib.get(), host));
  if (NvmlReturn rc = api.init(); rc != kSuccess) {
    return fail(host + " did not initialise (NVML error " + std::to_string(rc) + "); " + std::string(repair.no_init) +
                ".");
  }
  NvmlReport report = read_report(api);
  api.shutdown();
  return report;
}

}  // namespace

std::chrono::seconds nvml_time_bound() {
  const char* text = std::getenv(kNvmlTimeoutVariable);
  if (text && *text) {
    char* end = nullptr;
    const long n = std::strtol(text, &end, 10);
    if (end && *end == '\0' && n > 0 && n <= 3600) return std::chrono::seconds(n);
  }
  return std::chrono::seconds(10);
}

Result<std::optional<NvmlReport>> query_nvml(const RootFs& fs, const std::vector<std::string>& dirs,
                                             const NvmlRepair& repair) {
  for (const auto& dir : dirs) {
    const std::string machine = dir + "/libnvidia-ml.so.1";
    if (fs.kind(machine) != NodeKind::file) continue;
    RGPU_TRY_ASSIGN(auto resolved, fs.resolve(machine));
    const std::string host = fs.host_path(resolved).string();
    // A hung driver blocks NVML in the kernel, where no signal reaches it: the call runs on a
    // thread of its own, and past the bound it is left behind (the process's exit ends it).
    auto call = std::make_shared<NvmlCall>();
    std::thread([call, host, repair] {
      auto answer = ask_library(host, repair);
      const std::lock_guard lock(call->mutex);
      call->answer = std::move(answer);
      call->done.notify_all();
    }).detach();
    const auto bound = nvml_time_bound();
    std::unique_lock lock(call->mutex);
    if (!call->done.wait_for(lock, bound, [&] { return call->answer.has_value(); })) {
      return fail(host + " did not answer within " + std::to_string(bound.count()) +
                  " s: the driver is likely hung on a GPU (read the kernel log for an Xid; nvidia-smi hangs too); "
                  "reset the GPU or reboot (" +
                  kNvmlTimeoutVariable + " sets the bound in seconds)");
    }
    RGPU_TRY_ASSIGN(auto report, std::move(*call->answer));
    report.library = machine;
    return std::optional<NvmlReport>(std::move(report));
  }
  return std::optional<NvmlReport>{};
}

}  // namespace rgpu::probe
