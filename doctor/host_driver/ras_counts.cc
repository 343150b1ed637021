#include "doctor/host_driver/ras_counts.h"

#include <map>

#include "core/joined.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::host_driver};
constexpr std::string_view kSuffix = "_err_count";

}  // namespace

std::vector<RasCount> amd_ras_counts(const Facts& f) {
  std::vector<RasCount> out;
  for (const auto& g : f.fresh.gpus) {
    if (g.vendor != probe::Vendor::amd || !g.pci_address) continue;
    const std::string dir = "/sys/bus/pci/devices/" + *g.pci_address + "/ras";
    auto names = f.fs.list_dir(dir);
    for (const auto& name : names ? *names : std::vector<std::string>{}) {
      if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) continue;
      auto text = f.fs.read_optional(dir + "/" + name);
      if (!text || !*text) continue;
      RasCount c{*g.pci_address, name.substr(0, name.size() - kSuffix.size())};
      for (const auto& [key, value] : probe::parse_colon_pairs(**text)) {
        const auto n = probe::parse_decimal_attribute(value).value_or(0);
        if (key == "ue") c.uncorrectable = n;
        if (key == "ce") c.correctable = n;
      }
      out.push_back(std::move(c));
    }
  }
  return out;
}

std::vector<Check> ras_checks(const Facts& f) {
  const auto counts = amd_ras_counts(f);
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
