#include "probe/missing_gpus.h"

#include <algorithm>

#include "core/joined.h"
#include "probe/inventory_file.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

// On the bus now: the same slot, or the same card in another slot (its UUID).
bool on_bus(const Inventory& fresh, const MissingGpu& m) {
  return std::any_of(fresh.gpus.begin(), fresh.gpus.end(), [&](const Gpu& g) {
    return g.pci_address == m.pci_address || (m.uuid && !m.uuid->empty() && g.uuid == m.uuid);
  });
}

MissingGpu identity_of(const Gpu& g) { return {*g.pci_address, g.vendor, g.name, g.uuid, ""}; }

const MissingGpu* find(const std::vector<MissingGpu>& list, const std::string& address) {
  auto it = std::find_if(list.begin(), list.end(), [&](const MissingGpu& m) { return m.pci_address == address; });
  return it == list.end() ? nullptr : &*it;
}

}  // namespace

std::vector<MissingGpu> nvidia_driver_gpus(const RootFs& fs) {
  std::vector<MissingGpu> out;
  auto dirs = fs.list_dir(kNvidiaDriverGpus);
  if (!dirs) return out;
  for (const auto& dir : *dirs) {
    auto address = canonical_pci_address(dir);
    if (!address) continue;
    MissingGpu m{*address, Vendor::nvidia, "NVIDIA GPU", std::nullopt, ""};
    auto text = fs.read_optional(std::string(kNvidiaDriverGpus) + "/" + dir + "/information");
    if (text && *text) {
      const auto fields = parse_colon_pairs(**text);
      if (auto it = fields.find("Model"); it != fields.end() && !it->second.empty()) m.name = it->second;
      if (auto it = fields.find("GPU UUID"); it != fields.end() && it->second.starts_with("GPU-")) m.uuid = it->second;
    }
    out.push_back(std::move(m));
  }
  return out;
}

void keep_missing_gpus(Inventory& fresh, const Inventory* recorded, const std::vector<MissingGpu>& driver_listed) {
  // Most trusted first: a GPU already recorded missing keeps its time, then one the inventory had,
  // then one only the driver names.
  std::vector<MissingGpu> candidates;
  if (recorded) {
    candidates = recorded->missing_gpus;
    for (const auto& g : recorded->gpus) {
      if (g.pci_address && g.platform == Platform::native) candidates.push_back(identity_of(g));
    }
  }
  candidates.insert(candidates.end(), driver_listed.begin(), driver_listed.end());
  std::vector<MissingGpu> missing;
  for (auto& m : candidates) {
    if (on_bus(fresh, m) || find(missing, m.pci_address)) continue;
    if (m.missing_since.empty()) m.missing_since = fresh.generated_at;
    missing.push_back(std::move(m));
  }
  fresh.missing_gpus = std::move(missing);
  normalise(fresh);
}

void note_missing_gpus(const RootFs& fs, Inventory& fresh) {
  if (fresh.platform != Platform::native) return;  // WSL2: no PCI bus, no driver list to compare
  auto recorded = read_inventory(fs);
  const Inventory* before = recorded && *recorded ? &(*recorded)->inventory : nullptr;
  keep_missing_gpus(fresh, before, nvidia_driver_gpus(fs));
}

Result<void> forget_missing_gpu(const RootFs& fs, Inventory& fresh, const std::string& pci_address) {
  const std::string flag = "--forget-gpu " + pci_address;
  if (std::any_of(fresh.gpus.begin(), fresh.gpus.end(), [&](const Gpu& g) { return g.pci_address == pci_address; }))
    return fail(flag + ": that GPU is on the PCI bus now, so there is nothing to forget; leave --forget-gpu out.");
  const auto listed = nvidia_driver_gpus(fs);
  if (find(listed, pci_address)) {
    return fail(flag + ": the NVIDIA driver still lists it (" +
                fs.host_path(std::string(kNvidiaDriverGpus) + "/" + pci_address).string() +
                "), so the next setup would record it missing again; once the card is out, reboot (or unload the "
                "nvidia module) and run setup with --forget-gpu again.");
  }
  if (!find(fresh.missing_gpus, pci_address)) {
    return fail(flag + ": the inventory records no missing GPU there (missing: " +
                (fresh.missing_gpus.empty() ? std::string("none") : missing_addresses(fresh.missing_gpus)) +
                "); name one of those, as rediacc-gpu list shows them.");
  }
  std::erase_if(fresh.missing_gpus, [&](const MissingGpu& m) { return m.pci_address == pci_address; });
  return {};
}

std::string missing_addresses(const std::vector<MissingGpu>& missing) {
  std::vector<std::string> addresses;
  for (const auto& m : missing) addresses.push_back(m.pci_address);
  return joined(addresses);
}

}  // namespace rgpu::probe
