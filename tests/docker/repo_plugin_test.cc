// The daemon a repository's plugin asks: the address its environment file names, or renet's
// socket of that network id, each a machine path reached under the root.

#include <catch2/catch.hpp>

#include "core/root_fs.h"
#include "docker/repo_plugin.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

using namespace rgpu::test;

TEST_CASE("root sockets: a plugin's environment file and renet's socket name machine paths, reached under the root") {
  FixtureRoot root;
  no_gpu(root);
  root.link("/var/run", "/run");
  root.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=unix:///var/run/web/docker.sock\n");
  root.write("/etc/rediacc/gpu/plugins/bare.env", "REDIACC_GPU_DOCKER_HOST=/var/run/bare.sock\n");
  root.write("/etc/rediacc/gpu/plugins/tcp.env", "REDIACC_GPU_DOCKER_HOST=tcp://10.0.0.1:2375\n");
  // renet's daemon of network id 2816, its socket a link inside the root.
  root.write("/srv/2816/docker.sock", "");
  root.link("/run/rediacc/docker-2816.sock", "/srv/2816/docker.sock");
  const rgpu::RootFs machine(root.path());
  CHECK(rgpu::docker::configured_docker_host(machine, "web") == "unix://" + root.host("/run/web/docker.sock").string());
  CHECK(rgpu::docker::configured_docker_host(machine, "bare") == "unix://" + root.host("/run/bare.sock").string());
  CHECK(rgpu::docker::configured_docker_host(machine, "tcp") == "tcp://10.0.0.1:2375");  // refused where it is used
  CHECK(rgpu::docker::configured_docker_host(machine, "2816") ==
        "unix://" + root.host("/srv/2816/docker.sock").string());
}
