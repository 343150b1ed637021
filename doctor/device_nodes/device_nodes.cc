// Layer 2: the device nodes containers are given, as the kernel made them.

#include <algorithm>

#include "cdi/reach_rules.h"
#include "core/joined.h"
#include "core/selinux_devices.h"
#include "doctor/doctor.h"
#include "doctor/gpu_label.h"
#include "installers/nvidia_toolkit.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::device_nodes};

std::vector<Check> per_gpu_nodes(const Facts& f) {
  std::vector<Check> out;
  for (const auto& g : f.fresh.gpus) {
    // A MIG device's capability node is made only when something (nvidia-smi) asks for it.
    std::vector<std::string> nodes = g.device_nodes, missing;
    for (const auto& p : g.partitions) nodes.insert(nodes.end(), p.device_nodes.begin(), p.device_nodes.end());
    for (const auto& node : nodes) {
      if (!f.chain.host.char_devices.count(node)) missing.push_back(node);
    }
    const bool caps_missing =
        std::any_of(missing.begin(), missing.end(), [](const std::string& n) { return cdi::is_mig_cap_node(n); });
    Check c = kCheck.ok("device-nodes", gpu_label(g) + ": ",
                        Evidence("the nodes sysfs names, each a character device in /dev"));
    c.subject = usage::gpu_subject(g);
    if (g.device_nodes.empty()) {
      c.status = Status::fail;
      c.observed += "no device node";
      c.meaning = "the driver made no node for this GPU: nothing can be given to a container";
      c.decision = "check the driver binding (lspci -k) and the kernel log";
    } else if (!missing.empty()) {
      c.status = Status::fail;
      for (const auto& m : missing) c.observed += (c.observed.back() == ' ' ? "" : ", ") + m;
      c.observed += " missing or not a character device";
      c.meaning = "sysfs knows the node but /dev does not have it: containers given it fail to start";
      c.decision = caps_missing ? "run nvidia-smi once (it makes the MIG capability nodes), then rediacc-gpu setup"
                                : "reload the driver or run udevadm trigger, then rediacc-gpu setup";
    } else {
      for (const auto& n : nodes) c.observed += (c.observed.back() == ' ' ? "" : ", ") + n;
    }
    out.push_back(std::move(c));
  }
  return out;
}

Check shared_node(const Facts& f, probe::Vendor vendor, const char* id, const char* node, const char* why,
                  const char* fix) {
  if (!has_vendor(f.fresh, vendor)) return kCheck.skip(id, "no GPU that needs it");
  if (f.chain.host.char_devices.count(node))
    return kCheck.ok(id, std::string(node) + " is a character device", Evidence(node));
  return kCheck.fail(id, std::string(node) + " is missing", why, fix);
}

Check dxg(const Facts& f) {
  if (!f.chain.host.wsl_kernel) return kCheck.skip("dxg", "not a WSL2 kernel");
  if (f.chain.host.char_devices.count("/dev/dxg"))
    return kCheck.ok("dxg", "/dev/dxg is a character device", Evidence("/dev/dxg"));
  return kCheck.fail(
      "dxg", "a WSL2 kernel without /dev/dxg", "GPU paravirtualization is off: no GPU reaches this distribution",
      "update WSL (wsl --update) and the Windows GPU driver, check that .wslconfig does not turn the GPU off, "
      "then wsl --shutdown");
}

// WSL2 gives CUDA /dev/dxg instead of /dev/nvidiactl (the dxg check looks at it).
Check nvidiactl(const Facts& f) {
  const bool native = std::any_of(f.fresh.gpus.begin(), f.fresh.gpus.end(), [](const probe::Gpu& g) {
    return g.vendor == probe::Vendor::nvidia && g.platform == probe::Platform::native;
  });
  if (has_vendor(f.fresh, probe::Vendor::nvidia) && !native)
    return kCheck.skip("nvidiactl", "WSL2: CUDA reaches the GPU through /dev/dxg, not /dev/nvidiactl");
  return shared_node(f, probe::Vendor::nvidia, "nvidiactl", "/dev/nvidiactl",
                     "every CUDA process opens /dev/nvidiactl: without it no NVIDIA GPU works",
                     "load the NVIDIA driver (nvidia-modprobe makes the nodes), then rediacc-gpu setup");
}

// The driver makes /dev/nvidia-uvm, -uvm-tools and -modeset at first use: after a boot they are
// missing until something runs CUDA or rediacc-gpu-nvidia-spec.service makes them. A spec that
// maps one that is missing fails every container given its names (and the gate refuses them);
// one that does not map them gives containers no UVM, which CUDA needs.
Check nvidia_control_nodes(const Facts& f) {
  constexpr const char* kId = "nvidia-control-nodes";
  const bool native = std::any_of(f.fresh.gpus.begin(), f.fresh.gpus.end(), [](const probe::Gpu& g) {
    return g.vendor == probe::Vendor::nvidia && g.platform == probe::Platform::native;
  });
  if (!native) return kCheck.skip(kId, "no NVIDIA GPU on this machine's own bus");
  if (!f.nvidia_module) return kCheck.skip(kId, "the NVIDIA driver is not loaded (host-driver says so)");
  std::vector<std::string> missing, mapped_by;
  for (const char* node : installers::kNvidiaControlNodes) {
    if (f.chain.host.char_devices.count(node)) continue;
    missing.push_back(node);
    for (const auto& d : f.specs.devices) {
      if (std::find(d.device_nodes.begin(), d.device_nodes.end(), node) != d.device_nodes.end() &&
          std::find(mapped_by.begin(), mapped_by.end(), d.qualified_name) == mapped_by.end())
        mapped_by.push_back(d.qualified_name);
    }
  }
  if (missing.empty())
    return kCheck.ok(kId, "/dev/nvidia-uvm, /dev/nvidia-uvm-tools and /dev/nvidia-modeset are character devices",
                     Evidence("/dev"));
  // rediacc-gpu cdi nvidia makes them (nvidia-ctk's create-device-nodes, else nvidia-modprobe) and
  // regenerates the spec that maps them; without the toolkit only the driver's helper is there.
  const std::string fix = f.chain.nvidia.nvidia_ctk
                              ? "run rediacc-gpu cdi nvidia (it runs " + std::string(installers::kMakeControlNodes) +
                                    " and regenerates the NVIDIA spec); at boot rediacc-gpu-nvidia-spec.service does it"
                              : std::string("run ") + installers::kMakeControlNodesWithoutToolkit;
  if (!mapped_by.empty()) {
    if (mapped_by.size() > 3) mapped_by.resize(3), mapped_by.push_back("...");
    return kCheck.fail(kId, joined(missing) + " missing, and mapped by " + joined(mapped_by),
                       "the NVIDIA driver makes these at first use, and nothing made them since this boot: a "
                       "container given those names does not start, and the gate refuses them",
                       fix);
  }
  return kCheck.warn(kId, joined(missing) + " missing",
                     "the NVIDIA driver makes these at first use: CUDA in a container started now has no UVM, and "
                     "the NVIDIA spec maps only the nodes there when it was made",
                     fix);
}

}  // namespace

// On an enforcing SELinux host a container labelled container_t opens the GPU nodes it was given
// only where the boolean for their label is on (core/selinux_devices.h).
Check selinux_devices(const Facts& f) {
  const auto& host = f.chain.host;
  if (!host.selinux_enforcing) return kCheck.skip("selinux-devices", "SELinux is not enforcing");
  const auto needed =
      device_booleans(has_vendor(f.fresh, probe::Vendor::nvidia), has_vendor(f.fresh, probe::Vendor::amd));
  if (needed.empty()) return kCheck.skip("selinux-devices", "no GPU whose nodes SELinux keeps from containers");
  std::vector<std::string> off, on;
  for (const auto& b : needed) {
    const auto found = host.selinux_booleans.find(b.name);
    const auto value = found == host.selinux_booleans.end() ? std::nullopt : found->second;
    if (!value)
      off.push_back(std::string(b.name) + " (the loaded policy has none: is container-selinux installed?)");
    else if (!*value)
      off.push_back(std::string(b.name) + " is off");
    else
      on.push_back(b.name);
  }
  if (!off.empty()) {
    std::string fix = "setsebool -P";
    for (const auto& b : needed) fix += std::string(" ") + b.name + "=on";
    return kCheck.fail("selinux-devices", "SELinux enforcing, and " + joined(off),
                       "a container labelled container_t is refused the GPU nodes it was granted (permission "
                       "denied inside, an AVC denial in the audit log)",
                       fix + " (rediacc-gpu setup does it), never label=disable or --privileged");
  }
  return kCheck.ok("selinux-devices", "SELinux enforcing, " + joined(on) + " on",
                   Evidence("/sys/fs/selinux/enforce, /sys/fs/selinux/booleans"));
}

std::vector<Check> device_node_checks(const Facts& f) {
  auto out = per_gpu_nodes(f);
  out.push_back(nvidiactl(f));
  out.push_back(nvidia_control_nodes(f));
  out.push_back(shared_node(f, probe::Vendor::amd, "kfd", "/dev/kfd",
                            "ROCm computes through /dev/kfd: without it AMD GPUs only render",
                            "load amdgpu with KFD support (a kernel with CONFIG_HSA_AMD), then rediacc-gpu setup"));
  out.push_back(dxg(f));
  out.push_back(selinux_devices(f));
  out.push_back(char_link_check(f));
  out.push_back(cgroup_change_check(f));
  return out;
}

}  // namespace rgpu::doctor
