#pragma once
// The Docker Engine API over a daemon's unix socket: one request, one answer, bounded in time.
// The gate reads a stored container through it, revoke stops containers, doctor reads images.

#include <chrono>
#include <string>
#include <string_view>

#include "core/result.h"

namespace rgpu::docker {

/// The daemon's socket path for `docker_host` ("unix:///run/docker.sock" or a bare path); empty
/// means $DOCKER_HOST, else /var/run/docker.sock. Other schemes (tcp://, ssh://) are an error.
Result<std::string> docker_socket(const std::string& docker_host);

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
