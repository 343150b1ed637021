// Layer 1's gpu-ras: AMD's RAS counters since the driver loaded, per GPU.

#include "doctor/host_driver/ras_checks.h"

#include <map>

#include "core/joined.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};

}  // namespace

std::vector<Check> ras_checks(const Facts& f) {
  const auto& counts = f.ras_counts;
  if (counts.empty()) return {kCheck.skip("gpu-ras", "no AMD GPU keeps RAS error counters (ras/*_err_count)")};
  std::map<std::string, std::vector<std::string>> ue, ce;
  std::map<std::string, bool> gpus;
  for (const auto& c : counts) {
    gpus[c.pci_address] = true;
    if (c.uncorrectable) ue[c.pci_address].push_back(c.block + " " + std::to_string(c.uncorrectable));
    if (c.correctable) ce[c.pci_address].push_back(c.block + " " + std::to_string(c.correctable));
  }
  std::vector<Check> out;
  for (const auto& [address, blocks] : ue) {
    out.push_back(kCheck.fail("gpu-ras",
                              address + ": uncorrectable RAS errors since the driver loaded: " + joined(blocks),
                              "data on the GPU was corrupted; jobs on it may have computed wrong results",
                              "drain its containers and reset the GPU or reboot; if the count grows again (umc: its "
                              "memory), have the card replaced"));
    out.back().subject = address;
  }
  for (const auto& [address, blocks] : ce) {
    if (ue.count(address)) continue;
    out.push_back(kCheck.warn("gpu-ras",
                              address + ": correctable RAS errors since the driver loaded: " + joined(blocks),
                              "the hardware corrected them; a count that keeps growing foretells uncorrectable ones",
                              "watch rediacc_gpu_ras_errors; plan a replacement if it climbs"));
    out.back().subject = address;
  }
  if (out.empty())
    out.push_back(
        kCheck.ok("gpu-ras", std::to_string(gpus.size()) + " AMD GPU(s) count no RAS error since the driver loaded",
                  Evidence(std::to_string(counts.size()) + " counters in /sys/bus/pci/devices/*/ras/*_err_count")));
  return out;
}

}  // namespace rgpu::doctor
