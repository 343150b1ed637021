// Layer 1: the host's drivers, before anything about containers.

#include <algorithm>
#include <array>
#include <initializer_list>
#include <map>
#include <optional>

#include "core/joined.h"
#include "doctor/doctor.h"
#include "doctor/gpu_label.h"
#include "doctor/host_driver/gpu_present.h"
#include "doctor/host_driver/nvidia_ecc.h"
#include "doctor/host_driver/ras_checks.h"
#include "facts/kernel_log.h"
#include "probe/nvml_library.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

// Under WSL2 the driver is Windows': there is no NVIDIA kernel module in the distribution, and
// NVML (from /usr/lib/wsl/lib) is what reports the driver's version.
std::optional<Check> wsl_nvidia_driver(const Facts& f) {
  for (const auto& g : f.fresh.gpus) {
    if (g.vendor != probe::Vendor::nvidia || g.platform != probe::Platform::wsl) continue;
    return kCheck
        .ok("nvidia-driver",
            "WSL2: the Windows NVIDIA driver " + g.driver_version.value_or("(version unknown)") + " through /dev/dxg",
            Evidence("NVML from /usr/lib/wsl/lib, as the probe asked it"))
        .because("WSL2 has no NVIDIA kernel module: the Windows driver serves the GPU", "");
  }
  return std::nullopt;
}

// Never "no NVIDIA GPU" while the inventory recorded one: the check cannot look, and says why.
Check no_gpu_of(const Facts& f, probe::Vendor vendor, const char* id, const std::string& kind) {
  return kCheck.skip(id, no_gpu_observed(f, vendor, kind));
}

// A kernel update whose driver module was not built for it (DKMS failed, or the headers were
// missing): named as such, before anything further down the chain is blamed.
std::optional<Check> module_not_built(const Facts& f, const char* id, std::initializer_list<const char*> names,
                                      const std::string& driver) {
  const auto& host = f.chain.host;
  if (!host.kernel_modules) return std::nullopt;
  for (const char* name : names) {
    if (host.kernel_modules->count(name)) return std::nullopt;
  }
  const std::string kernel = host.kernel_release;
  return kCheck.fail(
      id,
      "no " + driver + " module for the running kernel " + kernel + " (/lib/modules/" + kernel +
          "/modules.dep lists none)",
      "the kernel was updated and the " + driver +
          " driver was not built for it (DKMS failed, or this kernel's headers were missing): the module "
          "cannot load, so no GPU reaches a container, whatever the specs and grants say",
      "install this kernel's headers (apt install linux-headers-" + kernel + ", dnf install kernel-devel-" + kernel +
          ", zypper install kernel-default-devel), rebuild (dkms autoinstall), load the module, then run "
          "rediacc-gpu setup; or boot the previous kernel");
}

Check nvidia_driver(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia))
    return no_gpu_of(f, probe::Vendor::nvidia, "nvidia-driver", "NVIDIA");
  if (auto wsl = wsl_nvidia_driver(f)) return *wsl;
  const auto& version = f.nvidia_module;
  if (!version) {
    // Debian builds the module as nvidia-current, Ubuntu and NVIDIA's own packages as nvidia.
    if (auto unbuilt = module_not_built(f, "nvidia-driver", {"nvidia", "nvidia-current"}, "NVIDIA")) return *unbuilt;
    return kCheck.fail("nvidia-driver", "an NVIDIA GPU, but /proc/driver/nvidia/version is missing",
                       "the NVIDIA kernel module is not loaded: no container can reach the GPU, whatever the runtime",
                       "install or load the NVIDIA driver (modprobe nvidia), then run rediacc-gpu setup");
  }
  return kCheck.ok("nvidia-driver", "NVIDIA kernel module " + *version + " is loaded",
                   Evidence("/proc/driver/nvidia/version"));
}

// The probe read NVIDIA GPUs through NVML or, when it did not load, from /proc/driver/nvidia: a
// UUID comes from either, memory only from NVML, so memory is the evidence that NVML answered.
Check nvml(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia)) return no_gpu_of(f, probe::Vendor::nvidia, "nvml", "NVIDIA");
  size_t native = 0, answered = 0;
  for (const auto& g : f.fresh.gpus) {
    if (g.vendor != probe::Vendor::nvidia || g.platform != probe::Platform::native) continue;
    ++native;
    answered += g.memory_bytes.has_value();
  }
  if (native == 0)
    return kCheck.ok("nvml", "WSL2: NVML from /usr/lib/wsl/lib answered (it is how the GPU was found)",
                     Evidence("the probe's NVML query"));
  // The library that answered, when this run asked it itself (facts::ask_nvml): the evidence, named.
  const std::string from =
      f.nvml ? " (" + f.nvml->library + (f.nvml->driver_version ? ", driver " + *f.nvml->driver_version : "") + ")"
             : "";
  if (answered > 0)
    return kCheck.ok("nvml", "NVML" + from + " answered for " + std::to_string(answered) + " GPU(s)",
                     Evidence(f.nvml ? "NVML, asked by this run" : "the probe's NVML query (memory sizes read)"));
  const std::string why = f.nvml_failure.value_or("no libnvidia-ml.so.1 was found");
  return kCheck.warn(
      "nvml",
      "NVML did not answer (" + why + "); " + std::to_string(native) + " GPU(s) read from /proc/driver/nvidia instead",
      "nvidia-ctk generates the NVIDIA CDI spec through NVML: without it the spec cannot be made",
      "install the NVIDIA driver's user-space libraries of the kernel module's version (nvidia-smi answers once they "
      "match), then run rediacc-gpu setup, which generates the spec");
}

Check nouveau(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia)) return no_gpu_of(f, probe::Vendor::nvidia, "nouveau", "NVIDIA");
  // /sys/module/nouveau is there for the module; a nouveau built into the kernel may not show
  // there, but a GPU bound to it does.
  const auto held =
      std::find_if(f.fresh.gpus.begin(), f.fresh.gpus.end(), [](const probe::Gpu& g) { return g.driver == "nouveau"; });
  const bool loaded = f.chain.host.nouveau_module;
  if (!loaded && held == f.fresh.gpus.end()) {
    return kCheck.ok("nouveau", "nouveau is not loaded and drives no GPU",
                     Evidence("/sys/module/nouveau and each GPU's PCI driver link"));
  }
  return kCheck.fail(
      "nouveau",
      held != f.fresh.gpus.end() ? "nouveau drives " + held->name + " (" + held->pci_address.value_or("?") + ")"
                                 : std::string("the nouveau module is loaded"),
      "nouveau holds the GPU: the NVIDIA driver cannot bind it, and CUDA has no device",
      "blacklist nouveau (modprobe.d: blacklist nouveau, options nouveau modeset=0), rebuild the initramfs "
      "and reboot");
}

// The module directory is one sign; a card the kernel bound to amdgpu is another (a driver built
// into the kernel, or a /sys without /sys/module): never "not loaded" while it drives a GPU.
Check amdgpu(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::amd)) return no_gpu_of(f, probe::Vendor::amd, "amdgpu", "AMD");
  size_t bound = 0, amd = 0;
  for (const auto& g : f.fresh.gpus) {
    if (g.vendor != probe::Vendor::amd) continue;
    ++amd;
    if (g.driver == "amdgpu") ++bound;
  }
  const bool module = f.chain.host.amdgpu_module;
  const std::string drives = "amdgpu drives " + std::to_string(bound) + " of " + std::to_string(amd) + " AMD GPU(s)";
  if (bound > 0) {
    // One not bound is gpu-driver's (or vfio's) to name; here, that the driver is there and works.
    return kCheck.ok("amdgpu", drives + (module ? "" : " (built into the kernel: no /sys/module/amdgpu)"),
                     Evidence("each GPU's PCI driver link, /sys/module/amdgpu"));
  }
  if (module) {
    return kCheck.fail("amdgpu", "amdgpu is loaded but drives none of " + std::to_string(amd) + " AMD GPU(s)",
                       "another driver (vfio-pci) holds them, or amdgpu failed to bring them up: no render node, no "
                       "/dev/kfd",
                       "read the kernel log for amdgpu's probe error (journalctl -k | grep amdgpu) and lspci -k");
  }
  if (auto unbuilt = module_not_built(f, "amdgpu", {"amdgpu"}, "amdgpu")) return *unbuilt;
  return kCheck.fail("amdgpu", "an AMD GPU, but no GPU is bound to amdgpu and the module is not loaded",
                     "without amdgpu there are no render nodes and no /dev/kfd",
                     "load amdgpu (modprobe amdgpu; check that it is not blacklisted), then run rediacc-gpu setup");
}

// The kernel's word since boot, from wherever this host keeps it: a failed bring-up, then per GPU
// the Xids that want a reset (everything but an application's own fault) and amdgpu's resets and
// uncorrectable errors, then the application faults.
std::vector<Check> kernel_log(const Facts& f) {
  const auto& log = f.kernel_log;
  if (log.source.empty())
    return {kCheck.skip("kernel-log", "no kernel log could be read (/dev/kmsg, the journal, /var/log/kern.log)")};
  std::vector<Check> out;
  for (const char* fatal : {"RmInitAdapter failed", "amdgpu: probe of"}) {
    for (auto it = log.lines.rbegin(); it != log.lines.rend(); ++it) {
      if (it->find(fatal) == std::string::npos) continue;
      out.push_back(kCheck.fail(
          "kernel-log", *it + " (" + log.source + ")", "the driver failed to bring a GPU up",
          "look at the GPU's power, seating and firmware; reload the driver or reboot, then run rediacc-gpu doctor"));
      break;
    }
  }
  std::map<std::string, std::vector<std::string>> critical, faults;
  for (const auto& [key, n] : facts::xid_counts(log.lines)) {
    const std::string what = "Xid " + std::to_string(key.second) + (n > 1 ? " x" + std::to_string(n) : "");
    (facts::xid_application_fault(key.second) ? faults : critical)[key.first].push_back(what);
  }
  for (const auto& [key, n] : facts::amdgpu_events(log.lines)) {
    critical[key.first].push_back((key.second == "reset" ? "amdgpu GPU reset" : "amdgpu uncorrectable (RAS) error") +
                                  std::string(n > 1 ? " x" + std::to_string(n) : ""));
  }
  for (const auto& [address, events] : critical) {
    out.push_back(kCheck.fail("kernel-log",
                              address + ": " + joined(events) + " " + log.coverage + " (" + log.source + ")",
                              "the GPU reported errors after which it is not to be trusted: jobs on it failed or "
                              "will, and it may have left the bus",
                              "drain its containers and reset the GPU (nvidia-smi -r -i " + address +
                                  " or a reboot); if it recurs, the card's power, cooling or seating; see NVIDIA's "
                                  "Xid table for each code"));
    out.back().subject = address;
  }
  for (const auto& [address, events] : faults) {
    out.push_back(kCheck.warn("kernel-log",
                              address + ": " + joined(events) + " " + log.coverage + " (" + log.source + ")",
                              "an application faulted on the GPU (bad memory access, a killed context); the GPU "
                              "itself stays usable",
                              "look at the failing workload's logs; nothing to do on the host"));
    out.back().subject = address;
  }
  if (out.empty())
    out.push_back(kCheck.ok("kernel-log", "no Xid, amdgpu reset or failed GPU bring-up " + log.coverage,
                            Evidence(log.source + ", " + std::to_string(log.lines.size()) + " lines")));
  return out;
}

// A GPU-vendor display or compute device the kernel bound no driver to is on the bus and
// nowhere else: no node, no spec, no name to grant.
std::vector<Check> gpu_drivers(const Facts& f) {
  std::vector<Check> out;
  const bool on_bus =
      std::any_of(f.fresh.gpus.begin(), f.fresh.gpus.end(), [](const auto& g) { return g.pci_address; });
  if (!on_bus) return {kCheck.skip("gpu-driver", "no GPU on the PCI bus")};
  for (const auto& g : f.fresh.gpus) {
    if (!g.pci_address || g.driver) continue;
    out.push_back(kCheck.fail("gpu-driver", gpu_label(g) + " has no driver bound",
                              "the GPU is on the bus but no container can be given it",
                              "check lspci -k -s " + *g.pci_address +
                                  " and the kernel log (a blacklisted module, a failed probe, a vfio-pci binding), "
                                  "then run rediacc-gpu setup"));
    out.back().subject = *g.pci_address;
  }
  if (out.empty())
    out.push_back(
        kCheck.ok("gpu-driver", "every GPU on the bus has a driver bound", Evidence("/sys/bus/pci/devices/*/driver")));
  return out;
}

// Under WSL2 the GPU is known only through NVML in /usr/lib/wsl/lib: when it does not load,
// the GPU disappears from the inventory without anything else looking wrong.
Check wsl_gpu(const Facts& f) {
  if (!f.chain.host.wsl_kernel || !f.chain.host.dxg) {
    return kCheck.skip("wsl-gpu", "not WSL2 with /dev/dxg");
  }
  if (!f.fresh.gpus.empty()) {
    return kCheck.ok("wsl-gpu",
                     std::to_string(f.fresh.gpus.size()) + " GPU(s) through /dev/dxg and the Windows driver's NVML",
                     Evidence("the probe's NVML query through /usr/lib/wsl/lib"));
  }
  const std::string why = f.nvml_failure.value_or("no GPU answered");
  return kCheck.fail("wsl-gpu", "/dev/dxg is there but no GPU was recorded: " + why,
                     "the GPU exists for Windows but not for this distribution's containers: no spec, no name to grant",
                     probe::kWslDriverRepair);
}

// Everything the probe skipped or could not read is missing from the inventory and the specs.
std::vector<Check> probe_findings(const Facts& f) {
  std::vector<Check> out;
  for (const auto& w : f.probe_warnings) {
    out.push_back(kCheck.warn(
        "probe", w, "what the probe skipped is missing from the inventory and from the names that can be granted",
        "fix what it names, then run rediacc-gpu setup"));
  }
  if (out.empty())
    out.push_back(kCheck.ok("probe", "the probe read the machine without a warning",
                            Evidence("a probe made now: PCI in /sys, DRM nodes in /dev, NVML, KFD topology")));
  return out;
}

}  // namespace

std::vector<Check> host_driver_checks(const Facts& f) {
  std::vector<Check> out = probe_findings(f);
  auto present = gpu_present_checks(f);
  out.insert(out.end(), present.begin(), present.end());
  auto bound = gpu_drivers(f);
  out.insert(out.end(), bound.begin(), bound.end());
  for (auto c : {nvidia_driver(f), nvml(f), nouveau(f), amdgpu(f), wsl_gpu(f)}) out.push_back(c);
  auto kernel = kernel_log(f);
  out.insert(out.end(), kernel.begin(), kernel.end());
  auto ras = ras_checks(f);
  out.insert(out.end(), ras.begin(), ras.end());
  auto ecc = nvidia_ecc_checks(f);
  out.insert(out.end(), ecc.begin(), ecc.end());
  return out;
}

}  // namespace rgpu::doctor
