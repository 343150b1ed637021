#include "docker/engine_paths.h"

#include "docker/proc_tables.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace rgpu::docker {
namespace {

// Every value of a repeatable flag, in its spellings ("--root V", "--root=V", "-H V").
std::vector<std::string> values(const std::vector<std::string>& args, std::initializer_list<std::string_view> names) {
  std::vector<std::string> out;
  for (size_t i = 1; i < args.size(); ++i) {
    for (const auto name : names) {
      if (args[i] == name && i + 1 < args.size()) out.push_back(args[i + 1]);
      if (args[i].size() > name.size() && args[i].starts_with(name) && args[i][name.size()] == '=')
        out.push_back(args[i].substr(name.size() + 1));
    }
  }
  return out;
}

std::optional<std::string> last(const std::vector<std::string>& args, std::initializer_list<std::string_view> names) {
  auto all = values(args, names);
  if (all.empty()) return std::nullopt;
  return all.back();
}

std::string config_string(const std::optional<nlohmann::json>& config, const char* key) {
  if (!config || !config->contains(key) || !(*config)[key].is_string()) return {};
  return (*config)[key].get<std::string>();
}

// "unix:///run/x.sock" -> "/run/x.sock"; a plain absolute path stays; anything else (tcp://, fd://) is none.
std::optional<std::string> unix_path(const std::string& address) {
  if (address.starts_with("unix://") && address.size() > 7) return address.substr(7);
  if (address.starts_with("/")) return address;
  return std::nullopt;
}

// The quoted value of `key = "..."` on any line of a TOML file (containerd's root, state and
// grpc address; buildkitd's root): enough to find paths, whatever table they sit in.
std::vector<std::string> toml_strings(const RootFs& fs, const std::string& path, const std::string& key) {
  std::vector<std::string> out;
  const auto text = fs.read_optional(path);
  if (!text || !*text) return out;
  const std::regex line("^\\s*" + key + "\\s*=\\s*[\"']([^\"']+)[\"']");
  std::istringstream lines(**text);
  for (std::string l; std::getline(lines, l);) {
    std::smatch m;
    if (std::regex_search(l, m, line)) out.push_back(m[1]);
  }
  return out;
}

// The unix sockets the process holds listening, from its own network namespace's table: what a
// socket-activated daemon (-H fd://) serves. Only on the host's own root, where /proc/PID/fd is real.
std::vector<std::string> held_sockets(const RootFs& fs, const std::string& pid) {
  std::vector<std::string> out;
  const auto held = held_socket_inodes(fs, pid);
  if (held.empty()) return out;
  const auto table = fs.read_file("/proc/" + pid + "/net/unix");
  if (!table) return out;
  for (const auto& l : unix_listeners(*table)) {
    if (l.path.starts_with("/") && held.count(static_cast<ino_t>(l.inode))) out.push_back(l.path);
  }
  return out;
}

struct Found {
  std::vector<EnginePath>& out;
  std::string who;  // "dockerd 812"
  void add(const std::string& path, const std::string& what) {
    if (path.empty() || path.front() != '/') return;
    for (const auto& p : out) {
      if (p.path == path) return;
    }
    out.push_back({path, who + "'s " + what});
  }
  void sockets(const std::vector<std::string>& addresses) {
    for (const auto& a : addresses) {
      if (auto p = unix_path(a)) add(*p, "socket");
    }
  }
};

// --data-root (or the old -g/--graph), else daemon.json's "data-root" (or "graph"), else the default.
std::string data_root_of(const RunningDaemon& d, const std::optional<nlohmann::json>& config) {
  if (auto flag = last(d.args, {"--data-root", "-g", "--graph"})) return *flag;
  for (const char* key : {"data-root", "graph"}) {
    if (auto v = config_string(config, key); !v.empty()) return v;
  }
  return "/var/lib/docker";
}

std::string exec_root_of(const RunningDaemon& d, const std::optional<nlohmann::json>& config) {
  std::string exec_root = last(d.args, {"--exec-root"}).value_or(config_string(config, "exec-root"));
  return exec_root.empty() ? "/var/run/docker" : exec_root;
}

void dockerd_paths(const RootFs& fs, const RunningDaemon& d, Found& found) {
  const auto config = daemon_config(fs, d);
  found.add(data_root_of(d, config), "data root");
  found.add(exec_root_of(d, config), "exec root");
  found.sockets(values(d.args, {"--host", "-H"}));
  if (config && config->contains("hosts") && (*config)["hosts"].is_array()) {
    for (const auto& h : (*config)["hosts"]) {
      if (h.is_string()) found.sockets({h.get<std::string>()});
    }
  }
  if (auto c = last(d.args, {"--containerd"})) found.sockets({*c});
  found.sockets({config_string(config, "containerd")});
  found.add(d.config_path(), "configuration");
}

void containerd_paths(const RootFs& fs, const std::vector<std::string>& args, Found& found) {
  const std::string config = last(args, {"--config", "-c"}).value_or("/etc/containerd/config.toml");
  auto from_config = [&](const char* key, std::string fallback) {
    const auto v = toml_strings(fs, config, key);
    return v.empty() ? fallback : v.front();
  };
  found.sockets({last(args, {"--address", "-a"}).value_or(from_config("address", "/run/containerd/containerd.sock"))});
  found.add(last(args, {"--root"}).value_or(from_config("root", "/var/lib/containerd")), "root");
  found.add(last(args, {"--state"}).value_or(from_config("state", "/run/containerd")), "state");
  found.add(config, "configuration");
}

void buildkitd_paths(const RootFs& fs, const std::vector<std::string>& args, Found& found) {
  const std::string config = last(args, {"--config"}).value_or("/etc/buildkit/buildkitd.toml");
  const auto roots = toml_strings(fs, config, "root");
  found.add(last(args, {"--root"}).value_or(roots.empty() ? "/var/lib/buildkit" : roots.front()), "root");
  auto addresses = values(args, {"--addr"});
  if (addresses.empty()) addresses.push_back("unix:///run/buildkit/buildkitd.sock");
  found.sockets(addresses);
  found.add(config, "configuration");
}

void podman_paths(const std::vector<std::string>& args, Found& found) {
  if (std::find(args.begin(), args.end(), "service") == args.end()) return;
  for (const auto& a : args) {
    if (a.starts_with("unix://")) found.sockets({a});
  }
  found.add(last(args, {"--root"}).value_or("/var/lib/containers/storage"), "storage root");
  found.add(last(args, {"--runroot"}).value_or("/run/containers/storage"), "run root");
}

}  // namespace

std::string data_root(const RootFs& fs, const RunningDaemon& d) { return data_root_of(d, daemon_config(fs, d)); }

std::string exec_root(const RootFs& fs, const RunningDaemon& d) { return exec_root_of(d, daemon_config(fs, d)); }

std::vector<EnginePath> engine_paths(const RootFs& fs) {
  std::vector<EnginePath> out;
  for (const auto& pid : process_ids(fs)) {
    const auto args = process_args(fs, pid);
    if (args.empty()) continue;
    const std::string name = base_name(args.front());
    if (name != "dockerd" && name != "containerd" && name != "buildkitd" && name != "podman") continue;
    Found found{out, name + " " + pid};
    if (name == "dockerd") dockerd_paths(fs, RunningDaemon{pid, args}, found);
    if (name == "containerd") containerd_paths(fs, args, found);
    if (name == "buildkitd") buildkitd_paths(fs, args, found);
    if (name == "podman") podman_paths(args, found);
    for (const auto& s : held_sockets(fs, pid)) found.add(s, "socket");
  }
  return out;
}

std::optional<RunningDaemon> daemon_on_socket(const RootFs& fs, const std::string& socket,
                                              const std::vector<RunningDaemon>& daemons) {
  if (socket.empty()) return std::nullopt;
  const auto plain = [](std::string path) { return path.starts_with("/var/run/") ? path.substr(4) : path; };
  for (const auto& d : daemons) {
    if (const auto host = unix_host(fs, d); host && plain(*host) == plain(socket)) return d;
  }
  for (const auto& d : daemons) {
    for (const auto& held : held_sockets(fs, d.pid)) {
      if (plain(held) == plain(socket)) return d;
    }
  }
  return std::nullopt;
}

}  // namespace rgpu::docker
