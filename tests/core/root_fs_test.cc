#include <catch2/catch.hpp>

#include "core/root_fs.h"
#include "tests/support/fixture_root.h"

using rgpu::NodeKind;
using rgpu::RootFs;
using rgpu::test::FixtureRoot;

TEST_CASE("root: an absolute link is followed inside the root, never to the host") {
  FixtureRoot root;
  root.write("/etc/hostname", "inside\n");
  root.link("/sys/link", "/etc/hostname");
  RootFs fs(root.path());
  REQUIRE(fs.resolve("/sys/link").value() == "/etc/hostname");
  REQUIRE(fs.read_file("/sys/link").value() == "inside\n");
}

TEST_CASE("root: dot-dot in a link cannot climb above the root") {
  FixtureRoot root;
  root.write("/etc/passwd", "fixture\n");
  root.link("/a/b/up", "../../../../../../etc/passwd");
  RootFs fs(root.path());
  REQUIRE(fs.resolve("/a/b/up").value() == "/etc/passwd");
  REQUIRE(fs.read_file("/a/b/up").value() == "fixture\n");
}

TEST_CASE("root: a link loop is an error naming the path, not a hang") {
  FixtureRoot root;
  root.link("/x/one", "two");
  root.link("/x/two", "one");
  RootFs fs(root.path());
  auto r = fs.read_file("/x/one");
  REQUIRE_FALSE(r);
  REQUIRE_THAT(r.error().message, Catch::Contains("symbolic link loop"));
  REQUIRE(fs.kind("/x/one") == NodeKind::other);
}

TEST_CASE("root: a missing file reads as absent, a directory read as a file is an error") {
  FixtureRoot root;
  root.mkdir("/sys/dir");
  RootFs fs(root.path());
  auto missing = fs.read_optional("/sys/nothing");
  REQUIRE(missing);
  REQUIRE_FALSE(missing->has_value());
  auto dir = fs.read_optional("/sys/dir");
  REQUIRE_FALSE(dir);
  REQUIRE_THAT(dir.error().message, Catch::Contains(root.host("/sys/dir").string()));
}

TEST_CASE("root: directory listings are sorted and an absent directory is empty") {
  FixtureRoot root;
  root.write("/d/b", "");
  root.write("/d/a", "");
  RootFs fs(root.path());
  REQUIRE(fs.list_dir("/d").value() == std::vector<std::string>{"a", "b"});
  REQUIRE(fs.list_dir("/nope").value().empty());
}

TEST_CASE("root: device nodes are seen with their numbers") {
  FixtureRoot root;
  root.char_node("/dev/dri/renderD128", 226, 128);
  RootFs fs(root.path());
  REQUIRE(fs.kind("/dev/dri/renderD128") == NodeKind::char_device);
  auto numbers = fs.char_device("/dev/dri/renderD128");
  REQUIRE(numbers);
  REQUIRE(numbers->major == 226);
  REQUIRE(numbers->minor == 128);
  REQUIRE_FALSE(fs.char_device("/dev/missing"));
}

TEST_CASE("root: only / itself is the host root") {
  FixtureRoot root;
  REQUIRE(RootFs("/").is_host_root());
  REQUIRE_FALSE(RootFs(root.path()).is_host_root());
}
