#include "plugin/guarded_paths.h"

#include "docker/engine_paths.h"
#include "docker/rediacc_layout.h"
#include "docker/running_daemons.h"

namespace rgpu::plugin {
namespace {

std::string strip_var(std::string path) { return path.starts_with("/var/run/") ? path.substr(4) : path; }

// The repository's own daemon among those running: the one started listening on its socket.
std::optional<docker::RunningDaemon> own_daemon(const RootFs& fs, const std::string& own_socket,
                                                const std::vector<docker::RunningDaemon>& daemons) {
  if (own_socket.empty()) return std::nullopt;
  for (const auto& d : daemons) {
    if (const auto socket = docker::unix_host(fs, d); socket && strip_var(*socket) == strip_var(own_socket)) return d;
  }
  return std::nullopt;
}

// "/mnt/rediacc/mounts/{guid}" -> "/mnt/rediacc": the datastore every repository's mount lies in.
std::string datastore_of(const std::string& mount) {
  const auto mounts = mount.rfind("/mounts/");
  if (mounts == std::string::npos || mounts == 0) return docker::kRediaccDatastore;
  return mount.substr(0, mounts);
}

void add_rediacc(const RootFs& fs, const std::string& repo, const std::string& own_socket,
                 std::vector<admission::GuardedPath>& out) {
  const auto daemons = docker::running_docker_daemons(fs);
  const auto own = own_daemon(fs, own_socket, daemons);
  const auto own_mount = own ? docker::rediacc_mount(docker::data_root(fs, *own)) : std::nullopt;
  auto id = docker::rediacc_network_id(own_socket);
  if (!id && docker::rediacc_network_ids(fs) == std::vector<std::string>{repo}) id = repo;
  admission::GuardedPath run{
      .path = docker::kRediaccRunDir,
      .what = "every Rediacc repository's daemon socket and secrets",
  };
  if (id) run.open.push_back(docker::rediacc_secrets(*id));
  out.push_back(std::move(run));
  for (const auto& d : daemons) {
    const auto mount = docker::rediacc_mount(docker::data_root(fs, d));
    if (!mount) continue;
    if (own_mount && *mount == *own_mount) {
      out.push_back({.path = *mount + "/.rediacc",
                     .what = "the repository's own daemon state (its data root, stored containers, checkpoints and "
                             "configuration)"});
    } else {
      out.push_back({.path = *mount, .what = "another Rediacc repository's mount (dockerd " + d.pid + ")"});
    }
  }
  admission::GuardedPath store{
      .path = own_mount ? datastore_of(*own_mount) : std::string(docker::kRediaccDatastore),
      .what = "the Rediacc datastore (every repository's disk image, mount and credentials)",
  };
  if (own_mount) store.open.push_back(*own_mount);
  out.push_back(std::move(store));
}

}  // namespace

std::vector<admission::GuardedPath> guarded_paths(const RootFs& fs, const std::string& repo,
                                                  const std::string& own_socket) {
  std::vector<admission::GuardedPath> out;
  for (auto& p : docker::engine_paths(fs)) out.push_back({.path = std::move(p.path), .what = std::move(p.what)});
  const bool rediacc = fs.kind(docker::kRediaccRunDir) != NodeKind::missing ||
                       fs.kind(docker::kRediaccDatastore) != NodeKind::missing ||
                       docker::rediacc_layout_evidence(fs).has_value();
  if (rediacc) add_rediacc(fs, repo, own_socket, out);
  return out;
}

}  // namespace rgpu::plugin
