#include "gate/guarded_paths.h"

#include "docker/engine_paths.h"
#include "docker/rediacc_layout.h"
#include "docker/running_daemons.h"

namespace rgpu::gate {
namespace {

// "/mnt/rediacc/mounts/{guid}" -> "/mnt/rediacc": the datastore every repository's mount lies in.
std::string datastore_of(const std::string& mount) {
  const auto mounts = mount.rfind("/mounts/");
  if (mounts == std::string::npos || mounts == 0) return docker::kRediaccDatastore;
  return mount.substr(0, mounts);
}

void add_rediacc(const RootFs& fs, const std::string& repo, const std::string& own_socket,
                 std::vector<admission::GuardedPath>& out) {
  const auto daemons = docker::running_docker_daemons(fs);
  const auto own = docker::daemon_on_socket(fs, own_socket, daemons);
  const auto own_mount = own ? docker::rediacc_mount(docker::data_root(fs, *own)) : std::nullopt;
  const auto id = docker::repository_places(fs, repo, own_socket).network_id;
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

}  // namespace rgpu::gate
