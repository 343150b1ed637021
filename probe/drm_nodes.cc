#include "probe/drm_nodes.h"

#include <string_view>

#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }

// Numeric order, so renderD99 (never seen, but legal) sorts before renderD128.
std::optional<unsigned> node_number(const std::string& name, std::string_view prefix) {
  if (!starts_with(name, prefix)) return std::nullopt;
  auto rest = name.substr(prefix.size());
  if (rest.empty() || rest.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return static_cast<unsigned>(std::stoul(rest));
}

void keep_lowest(std::optional<std::string>& slot, std::optional<unsigned>& slot_number, const std::string& name,
                 unsigned number) {
  if (!slot_number || number < *slot_number) {
    slot = "/dev/dri/" + name;
    slot_number = number;
  }
}

DrmNodes lowest_nodes_in(const RootFs& fs, const std::string& drm_dir) {
  DrmNodes nodes;
  auto names = fs.list_dir(drm_dir);
  if (!names) return nodes;
  std::optional<unsigned> render_no, card_no;
  for (const auto& name : *names) {
    if (auto n = node_number(name, "renderD")) keep_lowest(nodes.render_node, render_no, name, *n);
    if (auto n = node_number(name, "card")) keep_lowest(nodes.card_node, card_no, name, *n);
  }
  return nodes;
}

}  // namespace

DrmNodes drm_nodes_of_pci(const RootFs& fs, const std::string& pci_address) {
  return lowest_nodes_in(fs, "/sys/bus/pci/devices/" + pci_address + "/drm");
}

DrmNodes drm_nodes_beside(const RootFs& fs, const std::string& render_name) {
  return lowest_nodes_in(fs, "/sys/class/drm/" + render_name + "/device/drm");
}

DrmClassScan scan_drm_class(const RootFs& fs) {
  DrmClassScan scan;
  auto names = fs.list_dir("/sys/class/drm");
  if (!names) {
    scan.warnings.push_back(names.error().message);
    return scan;
  }
  for (const auto& name : *names) {
    if (!node_number(name, "renderD")) continue;
    const std::string link = "/sys/class/drm/" + name + "/device";
    // One open beneath the root says the link reaches a directory; only a failure is walked
    // again, to say where the link points.
    auto device = fs.open_dir(link);
    if (!device) {
      auto target = fs.resolve(link);
      scan.warnings.push_back("ignoring /dev/dri/" + name + ": " +
                              (target ? "its device link " + fs.host_path(link).string() + " points at " + *target +
                                            ", which does not exist."
                                      : target.error().message));
      continue;
    }
    // A node whose device is not a PCI function (amdgpu_xcp_* partitions of an MI300) is no GPU;
    // the scan pairs these only with the PCI devices it found.
    auto target = device->resolved_path();
    if (!target) continue;
    if (auto address = canonical_pci_address(base_name(*target))) {
      scan.render_by_pci.emplace(*address, "/dev/dri/" + name);
    }
  }
  return scan;
}

}  // namespace rgpu::probe
