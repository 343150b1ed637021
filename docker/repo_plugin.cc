#include "docker/repo_plugin.h"

#include "docker/client.h"
#include "docker/rediacc_layout.h"

#include "core/split.h"
#include "core/state_paths.h"

namespace rgpu::docker {
namespace {

constexpr std::string_view kPluginPrefix = "rediacc-gpu-";

}  // namespace

std::string plugin_name(const std::string& repo) { return std::string(kPluginPrefix) + repo; }

std::optional<std::string> plugin_repository(std::string_view plugin) {
  if (!plugin.starts_with(kPluginPrefix) || plugin.size() == kPluginPrefix.size()) return std::nullopt;
  return std::string(plugin.substr(kPluginPrefix.size()));
}

std::string plugin_socket(const std::string& repo) { return "/run/docker/plugins/" + plugin_name(repo) + ".sock"; }

std::optional<std::string> plugin_socket_too_long(const std::string& repo) {
  const std::string socket = plugin_socket(repo);
  if (socket.size() <= kMaxSocketPath) return std::nullopt;
  return "repository \"" + repo + "\" is too long: its plugin socket " + socket + " would be " +
         std::to_string(socket.size()) + " bytes, past the " + std::to_string(kMaxSocketPath) +
         " a unix socket path may hold; use a shorter name.";
}

std::string plugin_environment_path(const std::string& repo) {
  return std::string(state::kPluginEnvDir) + "/" + repo + ".env";
}

std::string configured_docker_host(const RootFs& fs, const std::string& repo) {
  const auto text = fs.read_optional(plugin_environment_path(repo));
  if (!text || !*text) {
    // renet's repository daemon of network id REPO, started after setup wrote any environment file.
    const std::string socket = rediacc_socket(repo);
    if (rediacc_network_id(socket) && fs.kind(socket) != NodeKind::missing) return machine_address(fs, socket);
    return {};
  }
  const std::string key = std::string(state::kDockerHostVariable) + "=";
  std::string value;
  for (const auto& line : split(**text, '\n', EmptyFields::drop)) {
    if (line.starts_with(key)) value = line.substr(key.size());  // the last one wins, as for systemd
  }
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front())
    value = value.substr(1, value.size() - 2);
  // The machine's own path (setup writes its daemon's socket as the daemon was started with it).
  return value.empty() ? value : machine_address(fs, value);
}

}  // namespace rgpu::docker
