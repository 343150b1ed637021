#pragma once
// The Docker Engine API over a daemon's unix socket: one request, one answer, bounded in time.
// The gate reads a stored container through it, revoke stops containers, doctor reads images.

#include <chrono>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu::docker {

/// The machine's own daemon, where no --docker-host or $DOCKER_HOST names one (machine path).
inline constexpr const char* kDefaultDockerSocket = "/var/run/docker.sock";

/// The daemon's socket path for `docker_host` ("unix:///run/docker.sock" or a bare path), a host
/// path taken as given. Other schemes (tcp://, ssh://) and an empty value are an error.
Result<std::string> docker_socket(const std::string& docker_host);

/// The same for a command reading the machine under `fs`: an empty `docker_host` is $DOCKER_HOST
/// (the user's own, a host path like --docker-host), else the machine's /var/run/docker.sock
/// under the root (RootFs::socket_path).
Result<std::string> docker_socket(const RootFs& fs, const std::string& docker_host);

/// A daemon address the machine itself names (a plugin's environment file, renet's socket):
/// "unix://" + its socket's host path under the root, for a unix:// or bare absolute path;
/// another scheme as it is (docker_socket refuses it where it is used).
std::string machine_address(const RootFs& fs, const std::string& address);

struct DockerReply {
  int status = 0;    ///< the HTTP status
  std::string body;  ///< as the daemon sent it (JSON for every route rediacc-gpu calls)
};

/// `method` `target` on the daemon at `socket` ("GET", "/containers/web/json"), with a JSON body
/// when `body` is not empty. Fails, naming the socket, when the daemon cannot be reached or does
/// not answer within `timeout` (the whole exchange); any HTTP status is an answer.
Result<DockerReply> docker_call(const std::string& socket, std::string_view method, const std::string& target,
                                const std::string& body = "",
                                std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// docker_call on the daemon a DOCKER_HOST value names (docker_socket's rules).
Result<DockerReply> docker_call_at(const std::string& docker_host, std::string_view method, const std::string& target,
                                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

/// `text` escaped for a request target: letters, digits and the bytes of `keep` stay, every other
/// byte is %XX. The default keeps a container name with '/' or '?' one path segment.
std::string escaped_segment(std::string_view text, std::string_view keep = "._-");

}  // namespace rgpu::docker
