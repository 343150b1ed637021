// What every container engine running keeps where a bind could reach it, read from each engine's
// command line and configuration file rather than from a list of default paths.

#include <catch2/catch.hpp>

#include "core/root_fs.h"
#include "docker/engine_paths.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;

TEST_CASE("engines: sockets, roots and configuration are read from each engine's command line and configuration") {
  FixtureRoot root;
  rediacc_two_repositories(root);
  const RootFs fs(root.path());
  const std::string web = kRediaccWebMount, other = kRediaccOtherMount;
  const auto paths = docker::engine_paths(fs);
  const auto has = [&](const std::string& path, const std::string& what) {
    for (const auto& p : paths) {
      if (p.path == path && p.what == what) return true;
    }
    return false;
  };
  CHECK(has(web + "/.rediacc/docker/data", "dockerd 100's data root"));
  CHECK(has("/run/rediacc/docker-2816.sock", "dockerd 100's socket"));
  CHECK(has("/var/run/docker", "dockerd 100's exec root"));
  CHECK(has(other + "/.rediacc/docker/data", "dockerd 200's data root"));
  CHECK(has("/run/rediacc/exec-2880", "dockerd 200's exec root"));
  CHECK(has("/run/rediacc/docker-2880.sock", "dockerd 200's socket"));
  CHECK(has(other + "/.rediacc/docker/config/daemon.json", "dockerd 200's configuration"));
  CHECK(has("/srv/ctd/containerd.sock", "containerd 300's socket"));
  CHECK(has("/srv/ctd/root", "containerd 300's root"));
  CHECK(has("/run/containerd", "containerd 300's state"));
}
