// Rediacc's layout as the docker folder reads it: renet's units and sockets, their network ids,
// and the repository mount a daemon's path lies under.

#include <catch2/catch.hpp>

#include "core/root_fs.h"
#include "docker/rediacc_layout.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using namespace rgpu::test;

TEST_CASE("rediacc layout: found from renet's units or sockets, with its network ids") {
  FixtureRoot root;
  RootFs fs(root.path());
  CHECK_FALSE(docker::rediacc_layout_evidence(fs));
  root.write("/etc/systemd/system/rediacc-docker-2816.service", "[Service]\n");
  root.write("/etc/systemd/system/rediacc-docker-2816.socket", "[Socket]\n");
  root.write("/run/rediacc/docker-2880.sock", "");
  root.write("/etc/systemd/system/rediacc-docker-x.service", "[Service]\n");
  CHECK(docker::rediacc_layout_evidence(fs).value_or("").find("rediacc-docker-2816.service") != std::string::npos);
  CHECK(docker::rediacc_network_ids(fs) == std::vector<std::string>{"2816", "2880"});
  CHECK(docker::rediacc_network_id("unix:///var/run/rediacc/docker-2816.sock") == "2816");
  CHECK_FALSE(docker::rediacc_network_id("/run/rediacc/docker-.sock"));
  CHECK(docker::rediacc_mount("/mnt/rediacc/mounts/g/.rediacc/docker/data/") == "/mnt/rediacc/mounts/g");
  CHECK_FALSE(docker::rediacc_mount("/var/lib/docker"));
}
