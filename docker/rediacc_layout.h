#pragma once
// How Rediacc lays out a machine's repositories (renet): one dockerd per repository, started by
// rediacc-docker-{id}.service with a .socket unit, listening on /run/rediacc/docker-{id}.sock, its
// data root at {mount}/.rediacc/docker/data inside the repository's own mount under the datastore
// (/mnt/rediacc/mounts/{guid}), its secrets under /run/rediacc/secrets/{id}. On such a machine a
// repository is named by its network id ({id}), as renet names its units.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/host_policy.h"
#include "core/root_fs.h"

namespace rgpu::docker {

/// Every repository daemon's socket, and every repository's secrets: one directory.
inline constexpr const char* kRediaccRunDir = "/run/rediacc";
/// renet's datastore by default: repository images, their mounts, credentials.
inline constexpr const char* kRediaccDatastore = "/mnt/rediacc";
/// renet's repository daemons' units are this prefix, the network id and ".service".
inline constexpr const char* kRediaccDaemonPrefix = "rediacc-docker-";

/// The network ids of renet's repository daemons found on the machine: units named
/// rediacc-docker-{id}.service in systemd's unit directories, sockets /run/rediacc/docker-{id}.sock.
/// Sorted, each once.
std::vector<std::string> rediacc_network_ids(const RootFs& fs);

/// What shows the machine is laid out as Rediacc lays it out ("renet's unit
/// /etc/systemd/system/rediacc-docker-2816.service"); absent when nothing does.
std::optional<std::string> rediacc_layout_evidence(const RootFs& fs);

/// "/run/rediacc/docker-{id}.sock".
std::string rediacc_socket(const std::string& network_id);

/// The network id a repository daemon's socket is named by (/run/rediacc/docker-2816.sock or
/// /var/run/rediacc/…, "unix://" or not); absent for another path.
std::optional<std::string> rediacc_network_id(std::string_view socket_or_address);

/// The repository's mount a daemon's data root lies in ({mount}/.rediacc/docker/data); absent
/// when the data root is not laid out that way.
std::optional<std::string> rediacc_mount(std::string_view data_root);

/// The places of repository `repo`, whose daemon listens on `socket` (a machine path; "" unknown):
/// its mount from the data root of the daemon listening there; its network id from the socket's
/// name (/run/rediacc/docker-{id}.sock), or its own name when that is the machine's only id.
rgpu::RepositoryPlaces repository_places(const RootFs& fs, const std::string& repo, const std::string& socket);

/// "/run/rediacc/secrets/{id}".
std::string rediacc_secrets(const std::string& network_id);

}  // namespace rgpu::docker
