// The Docker daemons running on the machine, read from /proc: what each was started with, which
// daemon.json it reads, which repository's plugin it calls and where it listens.

#include "docker/running_daemons.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <set>

#include "core/machine_paths.h"
#include "core/state_paths.h"
#include "core/structured_text.h"
#include "docker/proc_tables.h"
#include "docker/repo_plugin.h"

namespace rgpu::docker {

std::optional<std::string> RunningDaemon::flag(const std::string& name) const {
  std::optional<std::string> value;
  for (size_t i = 1; i < args.size(); ++i) {
    if (args[i] == name && i + 1 < args.size()) value = args[i + 1];
    if (args[i].rfind(name + "=", 0) == 0) value = args[i].substr(name.size() + 1);
  }
  return value;
}

std::string RunningDaemon::config_path() const { return flag("--config-file").value_or(paths::kDockerDaemonConfig); }

std::vector<std::string> daemon_config_paths(const std::vector<RunningDaemon>& daemons) {
  std::set<std::string> configs = {paths::kDockerDaemonConfig};
  for (const auto& d : daemons) configs.insert(d.config_path());
  return {configs.begin(), configs.end()};
}

std::optional<nlohmann::json> daemon_config(const RootFs& fs, const RunningDaemon& d) {
  const auto text = fs.read_optional(d.config_path());
  if (!text || !*text) return std::nullopt;
  return parse_daemon_config(**text, d.config_path());
}

std::optional<nlohmann::json> parse_daemon_config(const std::string& text, const std::string& path) {
  auto json = parse_json(text, path);
  if (!json || !json->is_object()) return std::nullopt;
  return *json;
}

namespace {

// Every value of a repeatable flag, --name V and --name=V, in order.
std::vector<std::string> flag_values(const RunningDaemon& d, const std::string& name) {
  std::vector<std::string> out;
  for (size_t i = 1; i < d.args.size(); ++i) {
    if (d.args[i] == name && i + 1 < d.args.size()) out.push_back(d.args[i + 1]);
    if (d.args[i].starts_with(name + "=")) out.push_back(d.args[i].substr(name.size() + 1));
  }
  return out;
}

std::vector<std::string> config_strings(const std::optional<nlohmann::json>& config, const char* key) {
  std::vector<std::string> out;
  if (!config || !config->contains(key) || !(*config)[key].is_array()) return out;
  for (const auto& v : (*config)[key]) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

}  // namespace

std::optional<std::string> plugin_repo(const RootFs& fs, const RunningDaemon& d) {
  return plugin_repo(d, daemon_config(fs, d));
}

std::optional<std::string> plugin_repo(const RunningDaemon& d, const std::optional<nlohmann::json>& config) {
  auto plugins = flag_values(d, "--authorization-plugin");
  const auto configured = config_strings(config, "authorization-plugins");
  plugins.insert(plugins.end(), configured.begin(), configured.end());
  for (const auto& p : plugins) {
    if (auto repo = plugin_repository(p)) return repo;
  }
  return std::nullopt;
}

std::optional<std::string> unix_host(const RootFs& fs, const RunningDaemon& d) {
  return unix_host(d, daemon_config(fs, d));
}

std::optional<std::string> unix_host(const RunningDaemon& d, const std::optional<nlohmann::json>& config) {
  auto hosts = flag_values(d, "--host");
  const auto short_form = flag_values(d, "-H");
  hosts.insert(hosts.end(), short_form.begin(), short_form.end());
  const auto configured = config_strings(config, "hosts");
  hosts.insert(hosts.end(), configured.begin(), configured.end());
  for (const auto& h : hosts) {
    if (h.starts_with("unix://") && h.size() > 7) return h.substr(7);
  }
  return std::nullopt;
}

std::optional<std::string> daemon_address(const RootFs& fs, const RunningDaemon& d) {
  const auto socket = unix_host(fs, d);
  if (!socket) return std::nullopt;
  return "unix://" + fs.socket_path("/proc/" + d.pid + "/root" + *socket).string();
}

std::map<std::string, std::string> repo_daemon_addresses(const RootFs& fs, const std::vector<RunningDaemon>& daemons) {
  std::map<std::string, std::string> hosts;
  for (const auto& d : daemons) {
    const auto repo = plugin_repo(fs, d);
    const auto address = daemon_address(fs, d);
    if (repo && address) hosts[*repo] = *address;
  }
  if (const auto envs = fs.list_dir(state::kPluginEnvDir)) {
    for (const auto& name : *envs) {
      if (!name.ends_with(".env")) continue;
      const std::string repo = name.substr(0, name.size() - 4);
      if (auto host = configured_docker_host(fs, repo); !host.empty()) hosts[repo] = host;
    }
  }
  return hosts;
}

std::optional<RunningDaemon> read_daemon(const RootFs& fs, const std::string& pid) {
  auto args = process_args(fs, pid);
  if (args.empty() || base_name(args.front()) != "dockerd") return std::nullopt;
  RunningDaemon d{pid, std::move(args)};
  // "Uid:\t<real>\t<effective>...": a rootless dockerd runs as its user's real uid.
  if (const auto status = fs.read_file("/proc/" + pid + "/status")) {
    if (const auto at = status->find("\nUid:"); at != std::string::npos) {
      const auto first = status->find_first_not_of(" \t", at + 5);
      const auto end = status->find_first_of(" \t\n", first);
      d.root_user = first != std::string::npos && status->substr(first, end - first) == "0";
    }
  }
  return d;
}

std::vector<RunningDaemon> running_docker_daemons(const RootFs& fs) {
  std::vector<RunningDaemon> out;
  for (const auto& pid : process_ids(fs)) {
    if (auto d = read_daemon(fs, pid)) out.push_back(std::move(*d));
  }
  return out;
}

std::string default_cgroupns_mode(const RootFs& fs, const std::optional<RunningDaemon>& daemon) {
  if (daemon) {
    if (auto flag = daemon->flag("--default-cgroupns-mode")) return *flag;
    if (const auto config = daemon_config(fs, *daemon)) {
      if (const auto it = config->find("default-cgroupns-mode"); it != config->end() && it->is_string())
        return it->get<std::string>();
    }
  }
  return fs.kind("/sys/fs/cgroup/cgroup.controllers") == NodeKind::missing ? "host" : "private";
}

}  // namespace rgpu::docker
