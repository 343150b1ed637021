#include "doctor/host_driver/nvidia_ecc.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

Check about(Check c, const probe::NvmlGpu& g) {
  c.subject = g.pci_address.value_or(g.uuid.value_or(g.name));
  return c;
}

}  // namespace

std::vector<Check> nvidia_ecc_checks(const Facts& f) {
  if (!f.nvml) return {kCheck.skip("gpu-ecc", "NVML did not answer: no ECC counters to read")};
  std::vector<Check> out;
  size_t counted = 0;
  for (const auto& g : f.nvml->gpus) {
    if (!g.ecc_uncorrected && !g.remap_pending && !g.remap_failed) continue;
    ++counted;
    const std::string who = g.name + " (" + g.pci_address.value_or("?") + ")";
    if (g.remap_failed.value_or(false)) {
      out.push_back(about(kCheck.fail("gpu-ecc", who + ": NVML reports a row remapping failure",
                                      "the GPU has run out of spare memory rows: errors there are no longer contained",
                                      "drain its containers and have the card replaced"),
                          g));
    } else if (g.ecc_uncorrected.value_or(0) > 0) {
      out.push_back(about(
          kCheck.fail("gpu-ecc",
                      who + ": " + std::to_string(*g.ecc_uncorrected) +
                          " uncorrected ECC error(s) since the driver loaded (NVML, volatile)",
                      "data on the GPU was corrupted; jobs on it may have computed wrong results (Xid 48, 94 or 95 in "
                      "the kernel log says which)",
                      "drain its containers and reset the GPU (nvidia-smi -r) or reboot; if it recurs, replace it"),
          g));
    } else if (g.remap_pending.value_or(false)) {
      out.push_back(about(kCheck.warn("gpu-ecc", who + ": a memory row remap (or page retirement) waits for a reset",
                                      "the faulty memory stays in use until the GPU is reset",
                                      "when its containers are idle, reset the GPU (nvidia-smi -r) or reboot"),
                          g));
    }
  }
  if (!out.empty()) return out;
  if (counted == 0)
    return {kCheck.skip("gpu-ecc", "NVML reports no ECC counters for any GPU (cards without ECC keep none)")};
  return {kCheck.ok(
      "gpu-ecc",
      "no uncorrected ECC error since the driver loaded and no remap pending on " + std::to_string(counted) + " GPU(s)",
      Evidence("NVML's volatile ECC counts, remapped rows and pending page retirements"))};
}

}  // namespace rgpu::doctor
