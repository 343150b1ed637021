// Layer 1: the host's drivers, before anything about containers.

#include <array>

#include "doctor/doctor.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::doctor {
namespace {

constexpr int kLayer = 1;

std::string line_at(const std::string& text, size_t at) {
  const size_t start = text.rfind('\n', at) == std::string::npos ? 0 : text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

Check nvidia_driver(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia))
    return {"nvidia-driver", kLayer, Status::skip, "no NVIDIA GPU", "", ""};
  const auto text = f.fs.read_optional("/proc/driver/nvidia/version");
  const auto version = text && *text ? probe::parse_nvidia_version(**text) : std::nullopt;
  if (!version) {
    return {"nvidia-driver",
            kLayer,
            Status::fail,
            "an NVIDIA GPU, but /proc/driver/nvidia/version is missing",
            "the NVIDIA kernel module is not loaded: no container can reach the GPU, whatever the runtime",
            "install or load the NVIDIA driver (modprobe nvidia), then run rediacc-gpu setup"};
  }
  return {"nvidia-driver", kLayer, Status::ok, "NVIDIA kernel module " + *version, "the driver is loaded", ""};
}

Check nvml(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia)) return {"nvml", kLayer, Status::skip, "no NVIDIA GPU", "", ""};
  size_t answered = 0;
  for (const auto& g : f.fresh.gpus) {
    if (g.vendor == probe::Vendor::nvidia && g.uuid) ++answered;
  }
  if (answered == 0) {
    return {"nvml",
            kLayer,
            Status::warn,
            "NVML did not answer (libnvidia-ml.so.1 missing or failing)",
            "nvidia-ctk generates the NVIDIA CDI spec through NVML: without it the spec cannot be made",
            "install the driver's user-space libraries of the same version as the kernel module"};
  }
  return {"nvml", kLayer, Status::ok, "NVML answered for " + std::to_string(answered) + " GPU(s)", "", ""};
}

Check nouveau(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia)) return {"nouveau", kLayer, Status::skip, "no NVIDIA GPU", "", ""};
  if (f.fs.kind("/sys/module/nouveau") != NodeKind::directory) {
    return {"nouveau", kLayer, Status::ok, "nouveau is not loaded", "", ""};
  }
  return {"nouveau",
          kLayer,
          Status::fail,
          "the nouveau module is loaded",
          "nouveau holds the GPU: the NVIDIA driver cannot bind it, and CUDA has no device",
          "blacklist nouveau (modprobe.d: blacklist nouveau, options nouveau modeset=0), rebuild the initramfs "
          "and reboot"};
}

Check amdgpu(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::amd)) return {"amdgpu", kLayer, Status::skip, "no AMD GPU", "", ""};
  if (f.fs.kind("/sys/module/amdgpu") != NodeKind::directory) {
    return {"amdgpu",
            kLayer,
            Status::fail,
            "an AMD GPU, but the amdgpu module is not loaded",
            "without amdgpu there are no render nodes and no /dev/kfd",
            "load amdgpu (modprobe amdgpu; check that it is not blacklisted), then run rediacc-gpu setup"};
  }
  return {"amdgpu", kLayer, Status::ok, "amdgpu is loaded", "", ""};
}

// Driver errors the playbook looks for first in the kernel log; readable only where the log is.
Check kernel_log(const Facts& f) {
  const auto log = f.fs.read_optional("/var/log/kern.log");
  if (!log || !*log) return {"kernel-log", kLayer, Status::skip, "/var/log/kern.log is not readable", "", ""};
  for (const char* fatal : {"RmInitAdapter failed", "GPU has fallen off the bus", "amdgpu: probe of"}) {
    const auto at = (*log)->rfind(fatal);
    if (at == std::string::npos) continue;
    return {"kernel-log",
            kLayer,
            Status::fail,
            line_at(**log, at),
            "the driver failed to bring a GPU up",
            "look at the GPU's power, seating and firmware; reload the driver or reboot, then run rediacc-gpu doctor"};
  }
  if ((*log)->find("NVRM: Xid") != std::string::npos) {
    return {"kernel-log",
            kLayer,
            Status::warn,
            "NVRM Xid errors in the kernel log",
            "the GPU reported errors; jobs may have failed",
            "read the Xid codes against NVIDIA's Xid table"};
  }
  return {"kernel-log", kLayer, Status::ok, "no GPU driver errors in the kernel log", "", ""};
}

}  // namespace

std::vector<Check> host_driver_checks(const Facts& f) {
  return {nvidia_driver(f), nvml(f), nouveau(f), amdgpu(f), kernel_log(f)};
}

}  // namespace rgpu::doctor
