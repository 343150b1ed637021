#pragma once
// NVML loaded at run time with dlopen from the root's library directories. The proprietary
// driver exposes no VRAM size in sysfs, so NVML is the source for name, memory and UUID.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::probe {

/// A MIG device as NVML reports it under its parent GPU.
struct NvmlMig {
  unsigned index = 0;  ///< the MIG index, j of nvidia.com/gpu=i:j
  std::optional<unsigned> gpu_instance;
  std::optional<unsigned> compute_instance;
  std::optional<std::string> uuid;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<std::string> profile;  ///< "1g.10gb", computed as the toolkit names profiles
};

/// A process NVML says uses a GPU (compute or graphics): its pid as the host sees it (NVML knows
/// no PID namespaces) and the GPU memory it holds.
struct NvmlProcess {
  unsigned pid = 0;
  std::optional<std::uint64_t> used_bytes;  ///< absent when NVML cannot say (no accounting, WDDM)
  /// Its SM utilisation in NVML's latest sample of the last few seconds; absent without one.
  std::optional<unsigned> sm_percent = std::nullopt;
  bool operator==(const NvmlProcess&) const = default;
};

struct NvmlGpu {
  std::optional<std::string> pci_address;  ///< canonical; absent when NVML gave none
  std::uint16_t vendor_id = 0x10de;
  std::uint16_t device_id = 0;
  std::string name;
  std::optional<std::string> uuid;
  std::optional<std::uint64_t> memory_bytes;
  std::optional<unsigned> minor;  ///< N of /dev/nvidiaN
  bool mig_enabled = false;       ///< MIG mode is on now (the pending mode is not looked at)
  /// NVML answers the MIG mode (on or off): the GPU can be split. Absent when this driver's NVML
  /// has no MIG functions.
  std::optional<bool> mig_capable;
  std::vector<NvmlMig> migs;  ///< by MIG index; empty unless mig_enabled
  /// NVML answered GPU_IS_LOST for it: it fell off the bus or stopped answering (Xid 79).
  bool lost = false;
  /// The processes using it, compute and graphics; absent when this NVML cannot list them.
  std::optional<std::vector<NvmlProcess>> processes;
  /// Memory health, each absent where the GPU or driver does not report it (GeForce cards keep no
  /// ECC counters): uncorrected ECC errors since the driver loaded (volatile), and the row
  /// remapper's state (A100 and later) or, before it, page retirement waiting for a reset.
  std::optional<std::uint64_t> ecc_uncorrected;
  std::optional<unsigned> rows_remapped_uncorrectable;
  std::optional<bool> remap_pending;  ///< a remap or page retirement waits for the GPU's reset
  std::optional<bool> remap_failed;   ///< a row could not be remapped: the GPU needs replacing
};

/// The toolkit's MIG profile name: "<G>g.<GB>gb", or "<C>c.<G>g.<GB>gb" when the compute instance
/// has fewer slices than its GPU instance. GB is the instance's share of the GPU's memory rounded
/// up to eighths, times the GPU's memory in whole GiB rounded up (go-nvlib's getMigMemorySizeGB).
std::string mig_profile_name(unsigned gi_slices, unsigned ci_slices, std::uint64_t instance_mib,
                             std::uint64_t gpu_bytes);

struct NvmlReport {
  std::string library;  ///< machine path of the libnvidia-ml.so.1 that answered
  std::optional<std::string> driver_version;
  std::optional<std::string> cuda_version;  ///< the highest CUDA the driver supports, "12.4"
  std::vector<NvmlGpu> gpus;
};

/// Machine directories where a native machine keeps libnvidia-ml.so.1, searched in order.
const std::vector<std::string>& native_library_dirs();

/// The variable that bounds how long NVML may take to answer, in seconds (default 10).
inline constexpr const char* kNvmlTimeoutVariable = "REDIACC_GPU_NVML_TIMEOUT";

/// How long query_nvml waits for the library: $REDIACC_GPU_NVML_TIMEOUT seconds (1 to 3600), else 10.
std::chrono::seconds nvml_time_bound();

/// What an operator does when a libnvidia-ml.so.1 is there but does not load, or does not
/// initialise: who provides the library decides it.
struct NvmlRepair {
  std::string_view cannot_load;
  std::string_view no_init;
};
/// A native machine's: the library comes with the driver's user-space packages, and answers only
/// a kernel module of its own version.
inline constexpr NvmlRepair kNativeNvmlRepair{"reinstall the NVIDIA driver's user-space libraries",
                                              "check that the NVIDIA kernel module is loaded and matches the library"};
/// WSL2's: the library in /usr/lib/wsl/lib is the Windows driver's, and nothing inside the
/// distribution repairs it (doctor's wsl-gpu gives the same words).
inline constexpr const char* kWslDriverRepair =
    "install or repair the NVIDIA driver on Windows (it provides /usr/lib/wsl/lib/libnvidia-ml.so.1), run wsl "
    "--shutdown, then rediacc-gpu setup";
inline constexpr NvmlRepair kWslNvmlRepair{kWslDriverRepair, kWslDriverRepair};

/// Loads libnvidia-ml.so.1 from the first of `dirs` (machine paths under the root) that holds it.
/// Absent when none does; an error when it is there but does not load or initialise (saying what
/// `repair` says to do), or does not answer within nvml_time_bound() (a hung driver).
Result<std::optional<NvmlReport>> query_nvml(const RootFs& fs, const std::vector<std::string>& dirs,
                                             const NvmlRepair& repair);

}  // namespace rgpu::probe
