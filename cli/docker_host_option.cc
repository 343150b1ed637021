// --docker-host, the daemon a command asks: six commands take it, each saying which daemon it
// means and what it does without one; the form of the value and its check are the same for all.

#include "cli/command.h"
#include "docker/client.h"

namespace rgpu::cli {

CLI::Option* add_docker_host_option(CLI::App& sub, std::string& into, const std::string& which) {
  // Empty is no daemon named (an empty REDIACC_GPU_DOCKER_HOST too): each command has its default.
  const auto unix_socket = [](std::string& value) -> std::string {
    if (value.empty()) return {};
    auto socket = docker::docker_socket(value);
    return socket ? std::string() : socket.error().message;
  };
  return sub
      .add_option("--docker-host", into,
                  "The Docker daemon at unix:///PATH or /PATH (a host path, even with --root): " + which)
      ->check(CLI::Validator(unix_socket, "", "DOCKER_HOST"));
}

}  // namespace rgpu::cli
