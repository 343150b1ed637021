#pragma once
// What a host-network container reaches, read where the host policy lets containers share the
// host's network: the host's listening sockets, and the eBPF programs that confine each
// repository daemon's containers to its own loopback range, read from the kernel.

#include <optional>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::facts {

/// The socket eBPF programs in effect on one repository daemon's cgroup.
struct DaemonIsolation {
  std::string pid;         ///< the repository daemon's process
  std::string network_id;  ///< its repository, as renet names it
  /// Its cgroup v2 directory (cgroup_dir); absent when that cannot be read.
  std::optional<std::string> cgroup_dir;
  /// The bind and connect programs in effect there (socket_programs); absent when the kernel does
  /// not say.
  std::optional<unsigned> socket_programs;
};

struct HostNetworkReads {
  std::optional<std::string> tcp_table = std::nullopt;   ///< /proc/net/tcp; absent when it cannot be read
  std::optional<std::string> unix_table = std::nullopt;  ///< /proc/net/unix; absent when it cannot be read
  /// One per running repository daemon of a renet repository, in the daemons' order; absent under
  /// another --root, whose kernel is this machine's.
  std::optional<std::vector<DaemonIsolation>> isolation = std::nullopt;
};

/// A running repository daemon: its process and its repository's network id.
struct RepositoryDaemon {
  std::string pid;
  std::string network_id;
};

/// The host's socket tables and the isolation of each of `daemons`.
HostNetworkReads read_host_network(const RootFs& fs, const std::vector<RepositoryDaemon>& daemons);

}  // namespace rgpu::facts
