#include "cdi-gen/reach_rules.h"

#include <algorithm>
#include <cctype>

namespace rgpu::cdi {
namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool alpha(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

bool only(std::string_view s, std::string_view extra) {
  return std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || extra.find(c) != std::string_view::npos; });
}

}  // namespace

bool valid_vendor(std::string_view v) { return !v.empty() && alpha(v.front()) && alnum(v.back()) && only(v, "-_."); }
bool valid_class(std::string_view c) { return !c.empty() && alpha(c.front()) && alnum(c.back()) && only(c, "-_."); }
bool valid_device_name(std::string_view n) {
  return !n.empty() && alnum(n.front()) && alnum(n.back()) && only(n, "-_.:");
}

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

namespace {

std::string_view kind_of(std::string_view qualified) { return qualified.substr(0, qualified.find('=')); }

std::string_view device_of(std::string_view qualified) {
  const auto eq = qualified.find('=');
  return eq == std::string_view::npos ? std::string_view{} : qualified.substr(eq + 1);
}

}  // namespace

bool is_hardware_keyed(std::string_view qualified_name) {
  const auto device = device_of(qualified_name);
  return device.starts_with("pci-") || device.starts_with("GPU-") || device.starts_with("MIG-");
}

bool is_numbered(std::string_view qualified_name) {
  return !is_hardware_keyed(qualified_name) && device_of(qualified_name) != "all";
}

std::string keyed_alias(const SpecIndex& index, std::string_view qualified_name) {
  const auto* named = find_device(index, qualified_name);
  if (!named || named->device_nodes.empty()) return {};
  for (const auto& d : index.devices) {
    if (kind_of(d.qualified_name) == kind_of(qualified_name) && is_hardware_keyed(d.qualified_name) &&
        d.device_nodes == named->device_nodes)
      return d.qualified_name;
  }
  return {};
}

}  // namespace rgpu::cdi
