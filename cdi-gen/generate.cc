#include "cdi-gen/generate.h"

#include <algorithm>
#include <optional>

namespace rgpu::cdi {
namespace {

constexpr const char* kKfd = "/dev/kfd";

std::optional<DeviceNode> node_on_machine(const RootFs& fs, const std::string& path) {
  auto numbers = fs.char_device(path);
  if (!numbers) return std::nullopt;
  return DeviceNode{path, 'c', numbers->major, numbers->minor};
}

// Render nodes in numeric order, so renderD128 comes before renderD1000.
bool render_less(const std::string& a, const std::string& b) {
  return std::make_pair(a.size(), a) < std::make_pair(b.size(), b);
}

Spec dri_spec(const RootFs& fs, const probe::Inventory& inv, std::vector<std::string>& warnings) {
  Spec spec{kVendor, "dri", {}};
  std::vector<std::string> renders;
  for (const auto& g : inv.gpus) {
    if (g.render_node) renders.push_back(*g.render_node);
  }
  std::sort(renders.begin(), renders.end(), render_less);
  for (const auto& path : renders) {
    auto node = node_on_machine(fs, path);
    if (!node) {
      warnings.push_back("leaving rediacc.io/dri=" + base_name(path) + " out: " + fs.host_path(path).string() +
                         " is not a character device any more; run `rediacc-gpu probe` if the GPU was removed.");
      continue;
    }
    spec.devices.push_back({base_name(path), {*node}});
  }
  return spec;
}

std::vector<const probe::Gpu*> amd_cards_in_kfd_order(const probe::Inventory& inv) {
  std::vector<const probe::Gpu*> cards;
  for (const auto& g : inv.gpus) {
    if (g.vendor == probe::Vendor::amd && g.render_node) cards.push_back(&g);
  }
  std::stable_sort(cards.begin(), cards.end(), [](const probe::Gpu* a, const probe::Gpu* b) {
    // Cards with a KFD node first, by node; the rest after them, by PCI address.
    return std::make_pair(!a->kfd_node, a->kfd_node.value_or(0)) <
           std::make_pair(!b->kfd_node, b->kfd_node.value_or(0));
  });
  return cards;
}

Spec amd_spec(const RootFs& fs, const probe::Inventory& inv, std::vector<std::string>& warnings) {
  Spec spec{kVendor, "amd", {}};
  auto cards = amd_cards_in_kfd_order(inv);
  if (cards.empty()) return spec;
  auto kfd = node_on_machine(fs, kKfd);
  if (!kfd) {
    warnings.push_back("no rediacc.io/amd devices: " + fs.host_path(kKfd).string() +
                       " is missing, so AMD compute is not available; load amdgpu with KFD support.");
    return spec;
  }
  Device all{"all", {*kfd}};
  for (const auto* card : cards) {
    auto render = node_on_machine(fs, *card->render_node);
    if (!render) {
      warnings.push_back("leaving AMD GPU " + card->pci_address.value_or("?") + " out of rediacc.io/amd: " +
                         fs.host_path(*card->render_node).string() + " is not a character device any more.");
      continue;
    }
    spec.devices.push_back({"gpu" + std::to_string(spec.devices.size()), {*kfd, *render}});
    all.nodes.push_back(*render);
  }
  if (!spec.devices.empty()) spec.devices.push_back(std::move(all));
  return spec;
}

}  // namespace

GeneratedSpecs generate_specs(const RootFs& fs, const probe::Inventory& inventory) {
  GeneratedSpecs out;
  out.dri = dri_spec(fs, inventory, out.warnings);
  out.amd = amd_spec(fs, inventory, out.warnings);
  return out;
}

}  // namespace rgpu::cdi
