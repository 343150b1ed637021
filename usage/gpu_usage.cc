#include "usage/gpu_usage.h"

#include <sys/sysmacros.h>

#include <algorithm>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "docker/client.h"
#include "usage/process_scan.h"

namespace rgpu::usage {
namespace {

// Which GPU (by its place in the inventory) and node each device number is.
struct NodeOf {
  std::size_t gpu = 0;
  std::string node;
};

std::map<dev_t, NodeOf> node_numbers(const RootFs& fs, const probe::Inventory& inventory) {
  std::map<dev_t, NodeOf> out;
  for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
    for (const auto& node : gpu_nodes(inventory.gpus[i])) {
      if (auto n = fs.char_device(node)) out.emplace(makedev(n->major, n->minor), NodeOf{i, node});
    }
  }
  return out;
}

struct Container {
  std::string repository, name;
};

// GET /containers/json of one daemon: its running containers, by id.
Result<std::map<std::string, std::string>> running_containers(const std::string& host,
                                                              std::chrono::milliseconds timeout) {
  RGPU_TRY_ASSIGN(auto reply, docker::docker_call_at(host, "GET", "/containers/json", timeout));
  if (reply.status != 200) return fail(host + " answered HTTP " + std::to_string(reply.status));
  const auto list = nlohmann::json::parse(reply.body, nullptr, false);
  if (!list.is_array()) return fail(host + " sent a container list that does not parse");
  std::map<std::string, std::string> out;
  for (const auto& c : list) {
    if (!c.is_object() || !c.contains("Id") || !c["Id"].is_string()) continue;
    std::string name;
    if (c.contains("Names") && c["Names"].is_array() && !c["Names"].empty() && c["Names"][0].is_string())
      name = c["Names"][0].get<std::string>();
    if (name.starts_with("/")) name.erase(0, 1);
    out[c["Id"].get<std::string>()] = name;
  }
  return out;
}

// Every repository daemon asked at once, each within the timeout: a hung one costs its bound once.
std::map<std::string, Container> repository_containers(const std::map<std::string, std::string>& hosts,
                                                       std::chrono::milliseconds timeout,
                                                       std::vector<std::string>& unanswered) {
  std::vector<std::pair<std::string, std::future<Result<std::map<std::string, std::string>>>>> asked;
  for (const auto& [repo, host] : hosts)
    asked.emplace_back(repo, std::async(std::launch::async, running_containers, host, timeout));
  std::map<std::string, Container> out;
  for (auto& [repo, answer] : asked) {
    auto listed = answer.get();
    if (!listed) {
      unanswered.push_back(repo + ": " + listed.error().message);
      continue;
    }
    for (const auto& [id, name] : *listed) out[id] = {repo, name};
  }
  return out;
}

struct NvmlFigures {
  std::optional<std::uint64_t> memory;
  std::optional<unsigned> sm_percent;
};

// NVML's memory and SM utilisation per (PCI address, host pid).
std::map<std::pair<std::string, int>, NvmlFigures> nvml_figures(const std::optional<probe::NvmlReport>& nvml) {
  std::map<std::pair<std::string, int>, NvmlFigures> out;
  if (!nvml) return out;
  for (const auto& g : nvml->gpus) {
    if (!g.pci_address || !g.processes) continue;
    for (const auto& p : *g.processes) {
      auto& f = out[{*g.pci_address, static_cast<int>(p.pid)}];
      if (p.used_bytes) f.memory = f.memory.value_or(0) + *p.used_bytes;
      if (p.sm_percent) f.sm_percent = std::max(f.sm_percent.value_or(0), *p.sm_percent);
    }
  }
  return out;
}

void attribute(GpuProcess& p, const std::optional<std::string>& container,
               const std::map<std::string, Container>& containers) {
  p.container = container;
  if (!container) return;
  p.owner = Owner::unknown;
  const auto found = containers.find(*container);
  if (found == containers.end()) return;
  p.owner = Owner::repository;
  p.repository = found->second.repository;
  p.container_name = found->second.name;
}

// The DRM memory and utilisation of one process on one GPU: its DRM files on that GPU's nodes.
void drm_figures(GpuProcess& p, const NodeHolder& h, const std::map<int, DrmFile>* later, double interval_ns,
                 const std::map<dev_t, NodeOf>& nodes, std::size_t gpu) {
  std::optional<std::uint64_t> memory;
  std::optional<double> busiest;
  for (const auto& [fd, file] : h.drm_files) {
    const auto node = nodes.find(file.device);
    if (node == nodes.end() || node->second.gpu != gpu) continue;
    if (file.client.memory_bytes) memory = memory.value_or(0) + *file.client.memory_bytes;
    if (!later) continue;
    const auto again = later->find(fd);
    if (again == later->end()) continue;
    if (auto pct = busiest_engine_percent(file.client, again->second.client, static_cast<std::uint64_t>(interval_ns)))
      busiest = std::max(busiest.value_or(0.0), *pct);
  }
  if (memory && !p.memory_bytes) p.memory_bytes = memory;
  if (busiest) p.utilisation_percent = busiest;
}

}  // namespace

std::vector<std::string> gpu_nodes(const probe::Gpu& gpu) {
  std::set<std::string> nodes(gpu.device_nodes.begin(), gpu.device_nodes.end());
  for (const auto& n : {gpu.render_node, gpu.card_node}) {
    if (n) nodes.insert(*n);
  }
  for (const auto& part : gpu.partitions) {
    nodes.insert(part.device_nodes.begin(), part.device_nodes.end());
    for (const auto& n : {part.render_node, part.card_node}) {
      if (n) nodes.insert(*n);
    }
  }
  return {nodes.begin(), nodes.end()};
}

UsageReport gpu_usage(const RootFs& fs, const probe::Inventory& inventory, const std::optional<probe::NvmlReport>& nvml,
                      const std::map<std::string, std::string>& repo_hosts, const UsageOptions& options) {
  UsageReport report;
  for (const auto& g : inventory.gpus) report.gpus.push_back({g, {}});
  const auto nodes = node_numbers(fs, inventory);
  std::set<dev_t> wanted;
  for (const auto& [n, _] : nodes) wanted.insert(n);
  auto scan = processes_holding(fs, wanted);
  report.processes_read = scan.processes;
  report.processes_unreadable = scan.unreadable;
  const auto& holders = scan.holders;
  if (holders.empty()) return report;

  const bool in_containers =
      std::any_of(holders.begin(), holders.end(), [](const NodeHolder& h) { return h.container.has_value(); });
  const auto containers = in_containers ? repository_containers(repo_hosts, options.daemon_timeout, report.unanswered)
                                        : std::map<std::string, Container>{};
  const auto nvidia = nvml_figures(nvml);

  std::vector<std::map<int, DrmFile>> later;
  const bool sample =
      options.sample.count() > 0 &&
      std::any_of(holders.begin(), holders.end(), [](const NodeHolder& h) { return !h.drm_files.empty(); });
  if (sample) {
    std::this_thread::sleep_for(options.sample);
    for (const auto& h : holders) later.push_back(reread_drm_files(fs, h));
  }
  const double interval_ns = std::chrono::duration<double, std::nano>(options.sample).count();

  for (std::size_t i = 0; i < holders.size(); ++i) {
    const auto& h = holders[i];
    std::map<std::size_t, std::vector<std::string>> held;  // GPU -> its nodes this process holds
    for (dev_t d : h.devices) {
      const auto& n = nodes.at(d);
      held[n.gpu].push_back(n.node);
    }
    for (auto& [gpu, held_nodes] : held) {
      GpuProcess p;
      p.pid = h.pid;
      p.command = h.command;
      std::sort(held_nodes.begin(), held_nodes.end());
      p.nodes = held_nodes;
      attribute(p, h.container, containers);
      const auto& address = inventory.gpus[gpu].pci_address;
      if (address) {
        if (const auto n = nvidia.find({*address, h.pid}); n != nvidia.end()) {
          p.memory_bytes = n->second.memory;
          if (n->second.sm_percent) p.utilisation_percent = static_cast<double>(*n->second.sm_percent);
        }
      }
      drm_figures(p, h, sample ? &later[i] : nullptr, interval_ns, nodes, gpu);
      report.gpus[gpu].processes.push_back(std::move(p));
    }
  }
  return report;
}

std::string gpu_subject(const probe::Gpu& gpu) { return gpu.pci_address.value_or(gpu.uuid.value_or(gpu.name)); }

std::string owner_label(const GpuProcess& process) {
  switch (process.owner) {
    case Owner::repository: return process.repository.value_or("unknown");
    case Owner::unknown: return "unknown";
    case Owner::host: return "host";
  }
  return "unknown";
}

}  // namespace rgpu::usage
