// Layer 4: the NVIDIA spec's MIG names against the MIG devices present now. The toolkit names the
// slices that exist when it generates the spec, and its refresh service does not watch MIG
// changes (NVIDIA/nvidia-container-toolkit #1828), so a reconfiguration leaves names behind.

#include <algorithm>
#include <set>

#include "cdi/reach_rules.h"
#include "core/joined.h"
#include "doctor/doctor.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::specs};
constexpr std::string_view kNvidiaKind = "nvidia.com/gpu=";

struct Slices {
  std::set<std::string> caps;   ///< each MIG device's capability node, when mig-minors told it
  std::set<std::string> uuids;  ///< MIG-…
  std::vector<std::pair<std::string, const probe::Partition*>> present;  ///< with their GPU's label
  bool caps_known = true;
};

Slices slices_now(const probe::Inventory& inv) {
  Slices s;
  for (const auto& g : inv.gpus) {
    for (const auto& p : g.partitions) {
      if (!p.gpu_instance) continue;  // an AMD partition
      s.present.emplace_back(g.pci_address.value_or(g.name), &p);
      if (p.uuid) s.uuids.insert(*p.uuid);
      if (p.device_nodes.empty()) s.caps_known = false;
      s.caps.insert(p.device_nodes.begin(), p.device_nodes.end());
    }
  }
  return s;
}

bool maps_any(const std::vector<std::string>& nodes, const std::set<std::string>& wanted) {
  return std::any_of(nodes.begin(), nodes.end(), [&](const std::string& n) { return wanted.count(n) > 0; });
}

}  // namespace

Check mig_spec_check(const Facts& f) {
  const Slices now = slices_now(f.fresh);
  std::vector<std::string> stale;
  std::vector<const cdi::IndexedDevice*> slice_names;
  for (const auto& d : f.specs.devices) {
    if (!d.qualified_name.starts_with(kNvidiaKind) || d.qualified_name == "nvidia.com/gpu=all") continue;
    if (!std::any_of(d.device_nodes.begin(), d.device_nodes.end(),
                     [](const auto& n) { return cdi::is_mig_cap_node(n); }))
      continue;
    slice_names.push_back(&d);
    const std::string name = d.qualified_name.substr(kNvidiaKind.size());
    const bool exists =
        name.starts_with("MIG-") ? now.uuids.count(name) > 0 : !now.caps_known || maps_any(d.device_nodes, now.caps);
    if (!exists) stale.push_back(d.qualified_name);
  }
  std::vector<std::string> unnamed;
  if (now.caps_known) {
    for (const auto& present : now.present) {
      const probe::Partition& p = *present.second;
      const std::set<std::string> own(p.device_nodes.begin(), p.device_nodes.end());
      const bool named = std::any_of(slice_names.begin(), slice_names.end(),
                                     [&own](const cdi::IndexedDevice* d) { return maps_any(d->device_nodes, own); });
      if (!named) {
        std::string line = present.first;
        line += " MIG " + std::to_string(p.index) + " (" + p.profile.value_or("?") + ")";
        unnamed.push_back(line);
      }
    }
  }
  if (slice_names.empty() && now.present.empty()) {
    return kCheck.skip("nvidia-mig-spec", "no MIG device, and no MIG name in the NVIDIA spec");
  }
  if (stale.empty() && unnamed.empty()) {
    // Without the capability nodes (mig-minors unread), a slice's name cannot be matched to it.
    return kCheck.ok("nvidia-mig-spec",
                     std::to_string(now.present.size()) +
                         (now.caps_known ? " MIG devices, each named in the NVIDIA spec"
                                         : " MIG devices; the spec's MIG names by UUID are among them, its index "
                                           "names could not be matched and whether each device has a name is "
                                           "unknown (no MIG capability nodes were read)"),
                     Evidence("the NVIDIA spec, NVML's MIG devices, /proc/driver/nvidia-caps/mig-minors"));
  }
  std::vector<std::string> grants;
  if (f.grants) {
    for (const auto& g : f.grants->grants) {
      if (std::find(stale.begin(), stale.end(), g.device) != stale.end()) grants.push_back(g.repo + ": " + g.device);
    }
  }
  std::string observed;
  if (!stale.empty()) observed = "the NVIDIA spec names MIG devices that no longer exist: " + joined(stale);
  if (!unnamed.empty()) {
    observed +=
        (observed.empty() ? "" : "; ") + std::string("MIG devices without a name in the spec: ") + joined(unnamed);
  }
  if (!grants.empty()) observed += "; grants that point at them: " + joined(grants);
  return kCheck.fail(
      "nvidia-mig-spec", observed,
      "MIG was reconfigured after the spec was generated (the toolkit's refresh does not watch MIG changes): "
      "containers asking for a stale name fail, and index names may now reach another slice",
      "re-run rediacc-gpu setup (it regenerates the NVIDIA spec)" +
          std::string(grants.empty() ? "" : ", then re-grant or revoke: " + joined(grants)));
}

}  // namespace rgpu::doctor
