#include "docker/rediacc_layout.h"

#include "docker/engine_paths.h"
#include "docker/running_daemons.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace rgpu::docker {
namespace {

constexpr std::string_view kDataRootTail = "/.rediacc/docker/data";

// Where systemd reads units, the operator's first.
constexpr const char* kUnitDirs[] = {"/etc/systemd/system", "/run/systemd/system", "/usr/local/lib/systemd/system",
                                     "/lib/systemd/system", "/usr/lib/systemd/system"};

bool network_id(std::string_view s) {
  return !s.empty() && s.size() <= 10 &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// "rediacc-docker-2816.service" -> "2816".
std::optional<std::string> id_between(std::string_view name, std::string_view prefix, std::string_view suffix) {
  if (!name.starts_with(prefix) || !name.ends_with(suffix) || name.size() <= prefix.size() + suffix.size())
    return std::nullopt;
  const auto id = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  if (!network_id(id)) return std::nullopt;
  return std::string(id);
}

}  // namespace

std::vector<std::string> rediacc_network_ids(const RootFs& fs) {
  std::set<std::string> ids;
  for (const char* dir : kUnitDirs) {
    if (const auto names = fs.list_dir(dir)) {
      for (const auto& n : *names) {
        if (auto id = id_between(n, kRediaccDaemonPrefix, ".service")) ids.insert(*id);
      }
    }
  }
  if (const auto names = fs.list_dir(kRediaccRunDir)) {
    for (const auto& n : *names) {
      if (auto id = id_between(n, "docker-", ".sock")) ids.insert(*id);
    }
  }
  return {ids.begin(), ids.end()};
}

std::optional<std::string> rediacc_layout_evidence(const RootFs& fs) {
  for (const char* dir : kUnitDirs) {
    if (const auto names = fs.list_dir(dir)) {
      for (const auto& n : *names) {
        if (id_between(n, kRediaccDaemonPrefix, ".service"))
          return "renet's unit " + join_path(dir, n) + " is on this machine";
      }
    }
  }
  if (const auto names = fs.list_dir(kRediaccRunDir)) {
    for (const auto& n : *names) {
      if (id_between(n, "docker-", ".sock"))
        return "renet's repository daemon socket " + join_path(kRediaccRunDir, n) + " is on this machine";
    }
  }
  return std::nullopt;
}

std::string rediacc_socket(const std::string& id) { return std::string(kRediaccRunDir) + "/docker-" + id + ".sock"; }

std::string rediacc_secrets(const std::string& id) { return std::string(kRediaccRunDir) + "/secrets/" + id; }

std::optional<std::string> rediacc_network_id(std::string_view s) {
  if (s.starts_with("unix://")) s.remove_prefix(7);
  if (s.starts_with("/var/run/")) s.remove_prefix(4);
  const std::string_view dir = "/run/rediacc/";
  if (!s.starts_with(dir)) return std::nullopt;
  return id_between(s.substr(dir.size()), "docker-", ".sock");
}

std::optional<std::string> rediacc_mount(std::string_view data_root) {
  while (data_root.size() > 1 && data_root.ends_with('/')) data_root.remove_suffix(1);
  if (!data_root.ends_with(kDataRootTail) || data_root.size() == kDataRootTail.size()) return std::nullopt;
  return std::string(data_root.substr(0, data_root.size() - kDataRootTail.size()));
}

rgpu::RepositoryPlaces repository_places(const RootFs& fs, const std::string& repo, const std::string& socket) {
  RepositoryPlaces out;
  if (const auto own = daemon_on_socket(fs, socket, running_docker_daemons(fs)))
    out.mount = rediacc_mount(data_root(fs, *own));
  out.network_id = rediacc_network_id(socket);
  if (!out.network_id && rediacc_network_ids(fs) == std::vector<std::string>{repo}) out.network_id = repo;
  return out;
}

}  // namespace rgpu::docker
