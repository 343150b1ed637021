#include "facts/ras_counts.h"

#include "probe/sysfs_parsers.h"

namespace rgpu::facts {
namespace {

constexpr std::string_view kSuffix = "_err_count";

}  // namespace

std::vector<RasCount> amd_ras_counts(const RootFs& fs, const probe::Inventory& inventory) {
  std::vector<RasCount> out;
  for (const auto& g : inventory.gpus) {
    if (g.vendor != probe::Vendor::amd || !g.pci_address) continue;
    const std::string dir = "/sys/bus/pci/devices/" + *g.pci_address + "/ras";
    auto names = fs.list_dir(dir);
    for (const auto& name : names ? *names : std::vector<std::string>{}) {
      if (name.size() <= kSuffix.size() || !name.ends_with(kSuffix)) continue;
      auto text = fs.read_optional(dir + "/" + name);
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

}  // namespace rgpu::facts
