// Under --root DIR every unix socket the machine names (its default daemon socket, a plugin's
// environment file, renet's socket of a repository, the plugin's own socket) is reached or bound
// under DIR, its links followed inside DIR: never the host's. An explicit --docker-host (or the
// user's $DOCKER_HOST) is a host path, taken as given.

#include <signal.h>

#include <boost/process.hpp>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
namespace bp = boost::process;
namespace fs = std::filesystem;

namespace {

const char* kImage = "example.com/team/cuda124:v1";

nlohmann::json image_needing_cuda_12_4() {
  return {{"Config", {{"Env", {"NVIDIA_REQUIRE_CUDA=cuda>=12.4 brand=tesla,driver>=470,driver<471"}}}}};
}

}  // namespace

TEST_CASE("root sockets: check-image without --docker-host asks the root's /var/run/docker.sock, never the host's") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);  // driver 550.54.15, NVML says CUDA 12.4
  StandInDaemon daemon(root, "7", {{std::string("/images/") + kImage + "/json", image_needing_cuda_12_4()}}, 0, false);
  // Debian's absolute /var/run -> /run: joined lexically, the path would leave the root through it.
  root.link("/var/run", "/run");
  root.link("/run/docker.sock", "/proc/7/root/run/d.sock");
  const Env no_docker_host = {{"DOCKER_HOST", ""}};

  const auto fits = run_tool({"check-image", kImage, "--root", root.str()}, "", no_docker_host);
  INFO(fits.out << fits.err);
  CHECK(fits.exit_code == 0);
  CHECK_THAT(fits.out, Catch::Contains("needs CUDA >= 12.4; the host driver 550.54.15 supports CUDA 12.4"));
  CHECK(daemon.requests().size() == 1);

  // No daemon on the machine: the error names the machine's socket under the root.
  fs::remove(root.host("/run/docker.sock"));
  const auto none = run_tool({"check-image", kImage, "--root", root.str()}, "", no_docker_host);
  CHECK(none.exit_code == 1);
  CHECK_THAT(none.err, Catch::Contains("cannot reach the Docker daemon at " + root.host("/run/docker.sock").string()));

  // An explicit --docker-host is a host path, taken as given.
  const auto given = run_tool(
      {"check-image", kImage, "--root", root.str(), "--docker-host", "unix://" + daemon.socket()}, "", no_docker_host);
  CHECK(given.exit_code == 0);
}

TEST_CASE("root sockets: authz-plugin without --socket listens on the root's /run/docker/plugins, not the host's") {
  FixtureRoot root;
  no_gpu(root);
  const std::string repo = "rgpu-root-" + std::to_string(::getpid());
  const fs::path socket = root.host("/run/docker/plugins/rediacc-gpu-" + repo + ".sock");
  const fs::path host_socket = "/run/docker/plugins/rediacc-gpu-" + repo + ".sock";
  REQUIRE_FALSE(fs::exists(host_socket));
  const fs::path log = root.host("/plugin.log");
  ::unsetenv("REDIACC_GPU_DOCKER_HOST");
  bp::child plugin(tool_path(), bp::args({"authz-plugin", "--repo", repo, "--root", root.str()}),
                   bp::std_out > bp::null, bp::std_err > log.string());
  for (int i = 0; i < 100 && !fs::exists(socket) && plugin.running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const bool served = fs::exists(socket);
  const bool on_host = fs::exists(host_socket);
  if (plugin.running()) ::kill(plugin.id(), SIGTERM);
  plugin.wait();
  INFO(root.read("/plugin.log"));
  CHECK(served);
  CHECK_FALSE(on_host);
}
