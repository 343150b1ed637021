#pragma once
// The one place that knows how a repository meets its plugin: the plugin's name as dockerd's
// --authorization-plugin spells it, the socket dockerd finds it on, and the environment file that
// tells the plugin where the repository's own daemon listens.

#include <optional>
#include <string>
#include <string_view>

#include "core/root_fs.h"

namespace rgpu::docker {

/// "rediacc-gpu-REPO": what a repository daemon names in --authorization-plugin.
std::string plugin_name(const std::string& repo);

/// The repository a plugin name is for; absent for another plugin.
std::optional<std::string> plugin_repository(std::string_view plugin);

/// /run/docker/plugins/rediacc-gpu-REPO.sock, where dockerd finds plugin rediacc-gpu-REPO.
std::string plugin_socket(const std::string& repo);

/// The longest path a unix socket can be bound at or reached by: sun_path's 108 bytes less the NUL.
inline constexpr std::size_t kMaxSocketPath = 107;

/// Why `repo` cannot be served, when its plugin socket's machine path (what systemd or the plugin
/// binds on the machine) is past kMaxSocketPath; absent when it fits.
std::optional<std::string> plugin_socket_too_long(const std::string& repo);

/// /etc/rediacc/gpu/plugins/REPO.env, the plugin's environment file.
std::string plugin_environment_path(const std::string& repo);

/// The repository daemon the plugin of `repo` reads, from its environment file
/// (REDIACC_GPU_DOCKER_HOST=…, the last one winning as for systemd); without that file, for a
/// repository named by a Rediacc network id, renet's socket of it when present; else empty.
/// Both name machine paths: the address returned is "unix://" + the socket's host path under the
/// root (machine_address), so under --root DIR it is never the host's.
std::string configured_docker_host(const RootFs& fs, const std::string& repo);

}  // namespace rgpu::docker
