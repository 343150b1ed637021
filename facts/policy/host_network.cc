#include "facts/policy/host_network.h"

#include "facts/policy/cgroup_bpf.h"

namespace rgpu::facts {
namespace {

std::optional<std::string> table(const RootFs& fs, const std::string& path) {
  auto text = fs.read_file(path);
  if (!text) return std::nullopt;
  return std::move(*text);
}

}  // namespace

HostNetworkReads read_host_network(const RootFs& fs, const std::vector<RepositoryDaemon>& daemons) {
  HostNetworkReads out{.tcp_table = table(fs, "/proc/net/tcp"), .unix_table = table(fs, "/proc/net/unix")};
  // Another --root is not this machine's kernel: its cgroups cannot be asked.
  if (!fs.is_host_root()) return out;
  out.isolation.emplace();
  for (const auto& d : daemons) {
    const auto dir = cgroup_dir(fs, d.pid);
    out.isolation->push_back({.pid = d.pid,
                              .network_id = d.network_id,
                              .cgroup_dir = dir,
                              .socket_programs = dir ? socket_programs(*dir) : std::nullopt});
  }
  return out;
}

}  // namespace rgpu::facts
