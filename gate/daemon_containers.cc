#include "gate/daemon_containers.h"

#include <nlohmann/json.hpp>

#include "docker/client.h"

namespace rgpu::gate {

Result<DaemonContainers> daemon_containers(const std::string& docker_host, const std::string& unset_why,
                                           std::chrono::milliseconds timeout) {
  if (docker_host.empty()) return DaemonContainers(std::nullopt, unset_why, timeout);
  RGPU_TRY_ASSIGN(auto socket, docker::docker_socket(docker_host));
  return DaemonContainers(std::move(socket), "", timeout);
}

Result<std::string> DaemonContainers::inspect(std::string_view name) const {
  if (!socket_) return fail(unset_why_);
  const std::string& socket = *socket_;
  RGPU_TRY_ASSIGN(
      auto reply,
      docker::docker_call(socket, "GET", "/containers/" + docker::escaped_segment(name) + "/json", "", timeout_));
  if (reply.status == 404) return fail("the daemon at " + socket + " has no container \"" + std::string(name) + "\"");
  if (reply.status != 200) {
    return fail("the daemon at " + socket + " answered HTTP " + std::to_string(reply.status) + " for container \"" +
                std::string(name) + "\"");
  }
  return std::move(reply.body);
}

Result<std::string> DaemonContainers::data_root() const {
  if (!socket_) return fail(unset_why_);
  RGPU_TRY_ASSIGN(auto reply, docker::docker_call(*socket_, "GET", "/info", "", timeout_));
  const auto info = nlohmann::json::parse(reply.body, nullptr, false);
  if (reply.status != 200 || !info.is_object() || !info.contains("DockerRootDir") || !info["DockerRootDir"].is_string())
    return fail("the daemon at " + *socket_ + " did not say where its data root is (GET /info answered HTTP " +
                std::to_string(reply.status) + ")");
  return info["DockerRootDir"].get<std::string>();
}

}  // namespace rgpu::gate
