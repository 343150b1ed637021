#include "plugin/daemon_containers.h"

#include "docker/client.h"

namespace rgpu::plugin {

Result<admission::ContainerSource> daemon_containers(const std::string& docker_host, const std::string& unset_why,
                                                     std::chrono::milliseconds timeout) {
  if (docker_host.empty()) {
    return admission::ContainerSource(
        [unset_why](const std::string&) -> Result<std::string> { return fail(unset_why); });
  }
  RGPU_TRY_ASSIGN(auto socket, docker::docker_socket(docker_host));
  return admission::ContainerSource([socket, timeout](const std::string& name) -> Result<std::string> {
    RGPU_TRY_ASSIGN(
        auto reply,
        docker::docker_call(socket, "GET", "/containers/" + docker::escaped_segment(name) + "/json", "", timeout));
    if (reply.status == 404) return fail("the daemon at " + socket + " has no container \"" + name + "\"");
    if (reply.status != 200) {
      return fail("the daemon at " + socket + " answered HTTP " + std::to_string(reply.status) + " for container \"" +
                  name + "\"");
    }
    return std::move(reply.body);
  });
}

}  // namespace rgpu::plugin
