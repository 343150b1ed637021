#include "cdi/reach_rules.h"

#include <algorithm>
#include <cctype>

namespace rgpu::cdi {

namespace {

bool digits_after(std::string_view node, std::string_view prefix) {
  if (!node.starts_with(prefix) || node.size() == prefix.size()) return false;
  return std::all_of(node.begin() + static_cast<std::ptrdiff_t>(prefix.size()), node.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

bool is_gpu_own_node(std::string_view node) {
  return digits_after(node, "/dev/dri/renderD") || digits_after(node, "/dev/dri/card") ||
         digits_after(node, "/dev/nvidia") || node == "/dev/dxg" || is_mig_cap_node(node);
}

std::string ungrantable_reason(const IndexedDevice& device) {
  if (device.qualified_name.starts_with("management.")) {
    return device.qualified_name +
           " is a management device (every GPU's capability nodes, MIG configuration "
           "included); it is for the host's own tools, never a tenant";
  }
  for (const auto& node : device.device_nodes) {
    if (node == "/dev/nvidia-caps/nvidia-cap1" || node == "/dev/nvidia-caps/nvidia-cap2") {
      return device.qualified_name + " maps " + node +
             ", the MIG configuration or monitor capability of every GPU; it is never given to a tenant";
    }
  }
  return "";
}

bool is_mig_cap_node(std::string_view node) { return digits_after(node, "/dev/nvidia-caps/nvidia-cap"); }

namespace {

// What a device's nodes reach. A device that maps MIG capability nodes reaches slices: its
// /dev/nvidiaN nodes are the parents every slice of GPU N must open, not GPU N whole (toolkit
// specs give each slice its parent's node).
struct Reach {
  std::vector<std::string_view> whole, parents, caps;
};

Reach reach_of(const std::vector<std::string>& nodes) {
  Reach r;
  const bool slices = std::any_of(nodes.begin(), nodes.end(), [](const std::string& n) { return is_mig_cap_node(n); });
  for (const auto& n : nodes) {
    if (is_mig_cap_node(n)) {
      r.caps.push_back(n);
    } else if (slices && digits_after(n, "/dev/nvidia")) {
      r.parents.push_back(n);
    } else if (is_gpu_own_node(n)) {
      r.whole.push_back(n);
    }
  }
  return r;
}

bool meet(const std::vector<std::string_view>& a, const std::vector<std::string_view>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](std::string_view n) { return std::find(b.begin(), b.end(), n) != b.end(); });
}

}  // namespace

bool reach_same_gpu(const std::vector<std::string>& a_nodes, const std::vector<std::string>& b_nodes) {
  const Reach a = reach_of(a_nodes), b = reach_of(b_nodes);
  // A whole GPU meets anything of it, slices included; slices meet only when they share a
  // capability node (the same GPU instance).
  return meet(a.whole, b.whole) || meet(a.whole, b.parents) || meet(b.whole, a.parents) || meet(a.caps, b.caps);
}

bool reach_same(const IndexedDevice& a, const IndexedDevice& b) {
  if (reach_same_gpu(a.device_nodes, b.device_nodes)) return true;
  for (const auto& x : a.carried.net_devices) {
    for (const auto& y : b.carried.net_devices) {
      if (x.host_interface == y.host_interface) return true;
    }
  }
  return false;
}

bool shares_node(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  return std::any_of(a.begin(), a.end(),
                     [&](const std::string& n) { return std::find(b.begin(), b.end(), n) != b.end(); });
}

bool is_hardware_keyed(std::string_view qualified_name) {
  const auto name = parse_device_name(qualified_name);
  return name && name->keyed();
}

bool is_numbered(std::string_view qualified_name) {
  const auto name = parse_device_name(qualified_name);
  return !name || name->numbered();
}

std::string keyed_alias(const SpecIndex& index, std::string_view qualified_name) {
  const auto* named = find_device(index, qualified_name);
  const auto name = parse_device_name(qualified_name);
  if (!named || !name || named->device_nodes.empty()) return {};
  for (const auto& d : index.devices) {
    const auto other = parse_device_name(d.qualified_name);
    if (other && other->kind() == name->kind() && other->keyed() && d.device_nodes == named->device_nodes)
      return d.qualified_name;
  }
  return {};
}

}  // namespace rgpu::cdi
