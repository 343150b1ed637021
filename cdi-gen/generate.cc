#include "cdi-gen/generate.h"

#include <algorithm>
#include <cctype>
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

// "cpx" for a card in CPX mode. The mode is part of a partition's name so that a grant made in
// one mode names nothing, rather than other hardware, once the card is re-partitioned.
std::string partition_mode(const probe::Gpu& card) {
  std::string mode;
  for (char c : card.compute_partition.value_or("")) {
    if (!std::isalnum(static_cast<unsigned char>(c))) return "xcp";
    mode += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return mode.empty() ? "xcp" : mode;
}

// The render nodes a card's name maps, each with the partition it belongs to: every partition's on
// a split card, else the card's own (no partition).
std::vector<std::pair<std::string, std::optional<unsigned>>> card_renders(const probe::Gpu& card) {
  std::vector<std::pair<std::string, std::optional<unsigned>>> out;
  for (const auto& p : card.partitions) {
    if (p.render_node) out.emplace_back(*p.render_node, p.index);
  }
  if (out.empty() && card.render_node) out.emplace_back(*card.render_node, std::nullopt);
  return out;
}

// "cpx3": the partition a name names, after its card's number or key.
std::string partition_part(const probe::Gpu& card, unsigned partition) {
  return partition_mode(card) + std::to_string(partition);
}

// "-cpx3": what a partition's numbered name adds to its card's.
std::string partition_suffix(const probe::Gpu& card, unsigned partition) {
  std::string suffix = "-";  // appended piece by piece: GCC 12's -Wrestrict misfires on "-" + std::string&&
  suffix += partition_part(card, partition);
  return suffix;
}

// A card's name by its PCI address, "pci-0000-01-00.0", or its partition's, "pci-0000-03-00.0-cpx3".
std::string keyed_name(const probe::Gpu& card, std::optional<unsigned> partition) {
  return keyed_device(*card.pci_address, partition ? partition_part(card, *partition) : std::string());
}

Spec dri_spec(const RootFs& fs, const probe::Inventory& inv, std::vector<std::string>& warnings) {
  Spec spec{kVendor, "dri", {}};
  std::vector<std::string> renders;
  for (const auto& g : inv.gpus) {
    if (g.render_node) renders.push_back(*g.render_node);
    for (const auto& p : g.partitions) {
      if (p.render_node) renders.push_back(*p.render_node);
    }
  }
  std::sort(renders.begin(), renders.end(), render_less);
  renders.erase(std::unique(renders.begin(), renders.end()), renders.end());
  for (const auto& path : renders) {
    auto node = node_on_machine(fs, path);
    if (!node) {
      warnings.push_back("leaving rediacc.io/dri=" + base_name(path) + " out: " + fs.host_path(path).string() +
                         " is not a character device any more; run `rediacc-gpu probe` if the GPU was removed.");
      continue;
    }
    spec.devices.push_back({base_name(path), {*node}});
  }
  // The same nodes again under their card's PCI address: a name that stays on its card when the
  // kernel numbers render nodes in another order (a card added, removed or moved, a reboot).
  for (const auto& g : inv.gpus) {
    if (!g.pci_address) continue;
    for (const auto& [path, partition] : card_renders(g)) {
      auto node = node_on_machine(fs, path);
      if (node) spec.devices.push_back({keyed_name(g, partition), {*node}});
    }
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
  std::vector<Device> keyed;
  unsigned number = 0;
  for (const auto* card : cards) {
    Device whole{"gpu" + std::to_string(number), {*kfd}};
    std::vector<Device> parts;
    // The card and its partitions again under the card's PCI address (see dri_spec).
    std::vector<Device> card_keyed;
    if (card->pci_address) card_keyed.push_back({keyed_name(*card, std::nullopt), {}});
    bool complete = true;
    // A card whose partitions are not all there is left out whole, never named by what is left.
    for (const auto& [path, partition] : card_renders(*card)) {
      auto render = node_on_machine(fs, path);
      if (!render) {
        warnings.push_back("leaving AMD GPU " + card->pci_address.value_or("?") + " out of rediacc.io/amd: " +
                           fs.host_path(path).string() + " is not a character device any more.");
        complete = false;
        break;
      }
      whole.nodes.push_back(*render);
      if (!partition) continue;
      parts.push_back({whole.name + partition_suffix(*card, *partition), {*kfd, *render}});
      if (card->pci_address) card_keyed.push_back({keyed_name(*card, partition), {*kfd, *render}});
    }
    if (!complete) continue;
    all.nodes.insert(all.nodes.end(), whole.nodes.begin() + 1, whole.nodes.end());
    if (!card_keyed.empty()) card_keyed.front().nodes = whole.nodes;
    for (auto& d : card_keyed) keyed.push_back(std::move(d));
    spec.devices.push_back(std::move(whole));
    for (auto& d : parts) spec.devices.push_back(std::move(d));
    ++number;
  }
  for (auto& d : keyed) spec.devices.push_back(std::move(d));
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
