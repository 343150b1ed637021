// What the local volume driver mounts for a named volume, read from its options file as the driver
// reads it when the daemon starts.

#include "docker/local_volumes.h"

#include <catch2/catch.hpp>

#include "tests/support/fixture_root.h"

using namespace rgpu;
using rgpu::test::FixtureRoot;

TEST_CASE("volumes: a volume's stored options are what it mounts, whatever made it, and a plain one mounts nothing") {
  FixtureRoot root;
  const RootFs fs(root.path());
  const std::string data = "/var/lib/docker";
  root.write(data + "/volumes/bound/opts.json", R"({"MountType":"none","MountOpts":"bind","MountDevice":"/etc"})");
  root.write(data + "/volumes/cased/opts.json", R"({"mountdevice":"/etc","MOUNTTYPE":"none"})");  // Go folds keys
  root.write(data + "/volumes/emptied/opts.json", R"({"MountType":"","MountOpts":"","MountDevice":"","Quota":{}})");
  root.mkdir(data + "/volumes/plain/_data");
  root.write(data + "/volumes/broken/opts.json", "{");
  const auto bound = docker::local_volume_mount(fs, data, "bound");
  REQUIRE(bound);
  REQUIRE(*bound);
  CHECK(docker::mount_text(**bound) == "type=none device=/etc o=bind");
  CHECK(docker::local_volume_mount(fs, data, "cased").value()->device == "/etc");
  CHECK_FALSE(docker::local_volume_mount(fs, data, "emptied").value());
  CHECK_FALSE(docker::local_volume_mount(fs, data, "plain").value());
  CHECK_FALSE(docker::local_volume_mount(fs, data, "none-such").value());
  CHECK_FALSE(docker::local_volume_mount(fs, data, "../volumes/bound").value());  // no volume has that name
  const auto broken = docker::local_volume_mount(fs, data, "broken");
  REQUIRE_FALSE(broken);
  CHECK_THAT(broken.error().message, Catch::Contains("broken/opts.json is not the options file"));
}
