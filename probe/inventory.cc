#include "probe/inventory.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

#include "core/structured_text.h"

namespace rgpu::probe {
namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

template <class T>
std::optional<T> get_opt(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::nullopt;
  return it->get<T>();
}

std::optional<std::uint16_t> parse_hex16(const std::string& s) {
  unsigned v = 0;
  int used = 0;
  if (std::sscanf(s.c_str(), "0x%4x%n", &v, &used) != 1 || used != static_cast<int>(s.size())) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

std::string class_hex(std::uint32_t klass) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%06x", klass);
  return buf;
}

std::optional<std::uint32_t> parse_class_hex(const std::string& s) {
  unsigned v = 0;
  int used = 0;
  if (std::sscanf(s.c_str(), "0x%6x%n", &v, &used) != 1 || used != static_cast<int>(s.size())) return std::nullopt;
  return v;
}

json partition_to_json(const Partition& p) {
  return json{{"index", p.index},
              {"render_node", opt(p.render_node)},
              {"card_node", opt(p.card_node)},
              {"kfd_node", opt(p.kfd_node)},
              {"gpu_instance", opt(p.gpu_instance)},
              {"compute_instance", opt(p.compute_instance)},
              {"profile", opt(p.profile)},
              {"uuid", opt(p.uuid)},
              {"memory_bytes", opt(p.memory_bytes)},
              {"device_nodes", p.device_nodes},
              {"cdi_devices", p.cdi_devices}};
}

json link_to_json(const std::optional<PcieLink>& l) {
  if (!l) return nullptr;
  return json{{"current_speed_gts", opt(l->current_speed_gts)},
              {"current_width", opt(l->current_width)},
              {"max_speed_gts", opt(l->max_speed_gts)},
              {"max_width", opt(l->max_width)}};
}

json gpu_to_json(const Gpu& g) {
  json partitions = json::array();
  for (const auto& p : g.partitions) partitions.push_back(partition_to_json(p));
  return json{{"pci_address", opt(g.pci_address)},
              {"vendor", to_string(g.vendor)},
              {"vendor_id", hex_id(g.vendor_id)},
              {"device_id", hex_id(g.device_id)},
              {"pci_class", g.pci_class ? json(class_hex(*g.pci_class)) : json(nullptr)},
              {"name", g.name},
              {"driver", opt(g.driver)},
              {"driver_version", opt(g.driver_version)},
              {"memory_bytes", opt(g.memory_bytes)},
              {"render_node", opt(g.render_node)},
              {"card_node", opt(g.card_node)},
              {"uuid", opt(g.uuid)},
              {"kfd_node", opt(g.kfd_node)},
              {"device_nodes", g.device_nodes},
              {"platform", to_string(g.platform)},
              {"cdi_devices", g.cdi_devices},
              {"compute_partition", opt(g.compute_partition)},
              {"memory_partition", opt(g.memory_partition)},
              {"mig_capable", opt(g.mig_capable)},
              {"partitions", partitions},
              {"numa_node", opt(g.numa_node)},
              {"pcie_link", link_to_json(g.pcie_link)}};
}

json missing_to_json(const MissingGpu& m) {
  return json{{"pci_address", m.pci_address},
              {"vendor", to_string(m.vendor)},
              {"name", m.name},
              {"uuid", opt(m.uuid)},
              {"missing_since", m.missing_since}};
}

Vendor vendor_from_string(const std::string& s) {
  if (s == "nvidia") return Vendor::nvidia;
  if (s == "amd") return Vendor::amd;
  if (s == "intel") return Vendor::intel;
  return Vendor::other;
}

Platform platform_from_string(const std::string& s) { return s == "wsl" ? Platform::wsl : Platform::native; }

Partition partition_from_json(const json& j) {
  Partition p;
  p.index = j.at("index").get<unsigned>();
  p.render_node = get_opt<std::string>(j, "render_node");
  p.card_node = get_opt<std::string>(j, "card_node");
  p.kfd_node = get_opt<unsigned>(j, "kfd_node");
  p.gpu_instance = get_opt<unsigned>(j, "gpu_instance");
  p.compute_instance = get_opt<unsigned>(j, "compute_instance");
  p.profile = get_opt<std::string>(j, "profile");
  p.uuid = get_opt<std::string>(j, "uuid");
  p.memory_bytes = get_opt<std::uint64_t>(j, "memory_bytes");
  p.device_nodes = j.value("device_nodes", std::vector<std::string>{});
  p.cdi_devices = j.value("cdi_devices", std::vector<std::string>{});
  return p;
}

std::optional<PcieLink> link_from_json(const json& j) {
  auto it = j.find("pcie_link");
  if (it == j.end() || it->is_null()) return std::nullopt;
  PcieLink l;
  l.current_speed_gts = get_opt<double>(*it, "current_speed_gts");
  l.current_width = get_opt<unsigned>(*it, "current_width");
  l.max_speed_gts = get_opt<double>(*it, "max_speed_gts");
  l.max_width = get_opt<unsigned>(*it, "max_width");
  return l;
}

Gpu gpu_from_json(const json& j) {
  Gpu g;
  g.pci_address = get_opt<std::string>(j, "pci_address");
  g.vendor = vendor_from_string(j.at("vendor").get<std::string>());
  g.vendor_id = parse_hex16(j.at("vendor_id").get<std::string>()).value_or(0);
  g.device_id = parse_hex16(j.at("device_id").get<std::string>()).value_or(0);
  if (auto klass = get_opt<std::string>(j, "pci_class")) g.pci_class = parse_class_hex(*klass);
  g.name = j.at("name").get<std::string>();
  g.driver = get_opt<std::string>(j, "driver");
  g.driver_version = get_opt<std::string>(j, "driver_version");
  g.memory_bytes = get_opt<std::uint64_t>(j, "memory_bytes");
  g.render_node = get_opt<std::string>(j, "render_node");
  g.card_node = get_opt<std::string>(j, "card_node");
  g.uuid = get_opt<std::string>(j, "uuid");
  g.kfd_node = get_opt<unsigned>(j, "kfd_node");
  g.device_nodes = j.value("device_nodes", std::vector<std::string>{});
  g.platform = platform_from_string(j.value("platform", "native"));
  g.cdi_devices = j.value("cdi_devices", std::vector<std::string>{});
  g.compute_partition = get_opt<std::string>(j, "compute_partition");
  g.memory_partition = get_opt<std::string>(j, "memory_partition");
  g.mig_capable = get_opt<bool>(j, "mig_capable");
  if (auto it = j.find("partitions"); it != j.end() && !it->is_null()) {
    for (const auto& p : *it) g.partitions.push_back(partition_from_json(p));
  }
  g.numa_node = get_opt<int>(j, "numa_node");
  g.pcie_link = link_from_json(j);
  return g;
}

MissingGpu missing_from_json(const json& j) {
  MissingGpu m;
  m.pci_address = j.at("pci_address").get<std::string>();
  m.vendor = vendor_from_string(j.at("vendor").get<std::string>());
  m.name = j.at("name").get<std::string>();
  m.uuid = get_opt<std::string>(j, "uuid");
  m.missing_since = j.at("missing_since").get<std::string>();
  return m;
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

}  // namespace

const char* to_string(Vendor v) {
  switch (v) {
    case Vendor::nvidia: return "nvidia";
    case Vendor::amd: return "amd";
    case Vendor::intel: return "intel";
    case Vendor::other: return "other";
  }
  return "other";
}

const char* to_string(Platform p) { return p == Platform::wsl ? "wsl" : "native"; }

Vendor vendor_of(std::uint16_t vendor_id) {
  switch (vendor_id) {
    case 0x10de: return Vendor::nvidia;
    case 0x1002: return Vendor::amd;
    case 0x8086: return Vendor::intel;
    default: return Vendor::other;
  }
}

std::string hex_id(std::uint16_t id) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "0x%04x", id);
  return buf;
}

void normalise(Inventory& inventory) {
  for (auto& g : inventory.gpus) {
    sort_unique(g.device_nodes);
    sort_unique(g.cdi_devices);
    for (auto& p : g.partitions) {
      sort_unique(p.device_nodes);
      sort_unique(p.cdi_devices);
    }
    std::stable_sort(g.partitions.begin(), g.partitions.end(),
                     [](const Partition& a, const Partition& b) { return a.index < b.index; });
  }
  sort_unique(inventory.cdi_devices);
  std::stable_sort(inventory.gpus.begin(), inventory.gpus.end(), [](const Gpu& a, const Gpu& b) {
    return std::tie(a.pci_address, a.name, a.uuid) < std::tie(b.pci_address, b.name, b.uuid);
  });
  std::stable_sort(inventory.missing_gpus.begin(), inventory.missing_gpus.end(),
                   [](const MissingGpu& a, const MissingGpu& b) { return a.pci_address < b.pci_address; });
}

json to_json(const Inventory& inventory) {
  json gpus = json::array();
  for (const auto& g : inventory.gpus) gpus.push_back(gpu_to_json(g));
  json missing = json::array();
  for (const auto& m : inventory.missing_gpus) missing.push_back(missing_to_json(m));
  return json{{"schema", inventory.schema},
              {"generated_at", inventory.generated_at},
              {"hostname", opt(inventory.hostname)},
              {"platform", to_string(inventory.platform)},
              {"cuda_driver_version", opt(inventory.cuda_driver_version)},
              {"gpus", gpus},
              {"cdi_devices", inventory.cdi_devices},
              {"missing_gpus", missing}};
}

Result<Inventory> inventory_from_json(const json& j, std::string_view where) {
  try {
    Inventory inv;
    inv.schema = j.at("schema").get<int>();
    if (inv.schema > kInventorySchema) {
      return fail(std::string(where) + " has schema " + std::to_string(inv.schema) +
                  ", newer than this rediacc-gpu understands; upgrade rediacc-gpu or run `rediacc-gpu probe` again.");
    }
    inv.generated_at = j.at("generated_at").get<std::string>();
    inv.hostname = get_opt<std::string>(j, "hostname");
    inv.platform = platform_from_string(j.value("platform", "native"));
    inv.cuda_driver_version = get_opt<std::string>(j, "cuda_driver_version");
    for (const auto& g : j.at("gpus")) inv.gpus.push_back(gpu_from_json(g));
    inv.cdi_devices = j.value("cdi_devices", std::vector<std::string>{});
    if (auto it = j.find("missing_gpus"); it != j.end() && !it->is_null()) {
      for (const auto& m : *it) inv.missing_gpus.push_back(missing_from_json(m));
    }
    return inv;
  } catch (const json::exception& e) {
    return fail(std::string(where) + " is not a rediacc-gpu inventory (" + without_parser_tag(e.what()) +
                "); move it away and run `rediacc-gpu probe` to write a new one.");
  }
}

}  // namespace rgpu::probe
