// Layer 1's gpu-present: each GPU the machine has lost (facts.presence), by name, with what to do.

#include "doctor/host_driver/gpu_present.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

std::string what_to_do(const probe::MissingGpu& g) {
  const std::string log = g.vendor == probe::Vendor::nvidia ? "Xid 79 (fallen off the bus) or another Xid"
                          : g.vendor == probe::Vendor::amd  ? "an amdgpu GPU reset or RAS error"
                                                            : "a driver error";
  return "read the kernel log for " + log + " (journalctl -k, dmesg); reset the GPU" +
         (g.vendor == probe::Vendor::nvidia ? " (nvidia-smi -r -i " + g.pci_address + ")" : "") +
         ", or reseat or power-cycle it, then run rediacc-gpu setup; if it was removed on purpose, run rediacc-gpu "
         "setup --forget-gpu " +
         g.pci_address + " (once the NVIDIA driver no longer lists it: after a reboot)";
}

}  // namespace

std::vector<Check> gpu_present_checks(const Facts& f) {
  std::vector<Check> out;
  for (const auto& lost : f.presence.lost) {
    const auto& g = lost.gpu;
    out.push_back(kCheck.fail(
        "gpu-present",
        g.name + " (" + g.pci_address + ")" + (lost.known.empty() ? "" : ", " + lost.known) + ", " + lost.why,
        "its containers have lost it, and the names that reached it reach nothing now", what_to_do(g)));
    out.back().subject = g.pci_address;
  }
  if (!out.empty()) return out;
  if (!f.recorded) return {kCheck.skip("gpu-present", "no recorded inventory to compare the bus with")};
  const size_t n = f.presence.recorded, answered = f.presence.answering;
  if (n == 0) return {kCheck.skip("gpu-present", "the inventory records no GPU on the PCI bus")};
  std::string seen = std::to_string(n) + " recorded GPU(s) on the PCI bus";
  if (answered == n) {
    seen += n == 1 ? ", answering from its configuration space" : ", each answering from its configuration space";
  } else {
    seen += ", " + std::to_string(answered) + " answering from their configuration space (" +
            std::to_string(n - answered) + " could not be read: run as root to read it)";
  }
  if (f.nvml) seen += ", and none NVML reports lost";
  return {kCheck.ok("gpu-present", seen,
                    Evidence("the inventory of " + f.recorded->generated_at + ", /sys/bus/pci/devices/*/config" +
                             (f.nvml ? ", NVML" : "")))};
}

}  // namespace rgpu::doctor
