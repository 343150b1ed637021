#include <catch2/catch.hpp>
#include <filesystem>
#include <random>

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

// /var/run is a link to /run on every current distribution, absolute on Debian: joined lexically,
// a socket's path under --root would reach the host's /run through it.
TEST_CASE("root: a socket's host path follows the root's links inside it, and on / is the path as written") {
  FixtureRoot root;
  root.link("/var/run", "/run");
  root.mkdir("/run/rediacc");
  root.link("/run/rediacc/docker-2816.sock", "../../srv/d.sock");
  RootFs fs(root.path());
  CHECK(fs.socket_path("/var/run/docker.sock") == root.host("/run/docker.sock"));
  CHECK(fs.socket_path("/var/run/rediacc/docker-2816.sock") == root.host("/srv/d.sock"));
  CHECK(fs.socket_path("/run/docker/plugins/rediacc-gpu-web.sock") ==
        root.host("/run/docker/plugins/rediacc-gpu-web.sock"));
  CHECK(RootFs("/").socket_path("/var/run/docker.sock") == "/var/run/docker.sock");
}

TEST_CASE("root: the kernel's resolution beneath the root gives the user-space walk's answer on random link trees") {
  // Trees of directories, files and links (relative, absolute, "..", dangling, loops), and paths
  // through them: resolve (openat2 first) and walk (user space) must name the same machine path,
  // and reading through either must give the same bytes.
  std::mt19937 random(20261130);
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  auto pick = [&](const std::vector<std::string>& from) { return from[random() % from.size()]; };
  auto random_path = [&](size_t max_parts, bool absolute) {
    std::string path = absolute ? "" : ".";
    const size_t parts = 1 + random() % max_parts;
    for (size_t i = 0; i < parts; ++i) {
      path += '/';  // appended, not "/" + string: GCC 12 -O3 warns falsely (-Wrestrict) on that
      path += random() % 5 == 0 ? std::string("..") : pick(names);
    }
    return absolute ? path : path.substr(2);
  };
  int compared = 0, by_kernel = 0, through_links = 0;
  for (int tree = 0; tree < 40; ++tree) {
    FixtureRoot root;
    std::vector<std::string> dirs = {""};
    for (int i = 0; i < 12; ++i) {
      std::string at = pick(dirs);
      at += '/';
      at += pick(names);
      std::error_code taken;
      if (std::filesystem::symlink_status(root.host(at), taken).type() != std::filesystem::file_type::not_found)
        continue;
      switch (random() % 4) {
        case 0:
          root.mkdir(at);
          dirs.push_back(at);
          break;
        case 1: root.write(at, "file " + at + "\n"); break;
        case 2: root.link(at, random_path(4, true)); break;
        default: root.link(at, random_path(4, false)); break;
      }
    }
    RootFs fs(root.path());
    for (int q = 0; q < 60; ++q) {
      const std::string path = random_path(5, true);
      std::vector<std::string> links;
      const auto walked = fs.walk(path, &links);
      const auto resolved = fs.resolve(path);
      INFO("tree " << tree << " path " << path);
      REQUIRE(resolved.has_value() == walked.has_value());
      if (!walked) continue;
      CHECK(*resolved == *walked);
      ++compared;
      std::error_code there;
      // Only a path that exists all the way is the kernel's answer; the others fell back to the walk.
      if (std::filesystem::exists(root.host(*walked), there)) {
        ++by_kernel;
        through_links += !links.empty();
      }
      const auto read = fs.read_file(path);
      std::error_code ec;
      if (std::filesystem::is_regular_file(root.host(*walked), ec)) {
        // The one way they differ: the kernel will not step back out of a missing component.
        if (read) CHECK(*read == root.read(*walked));
      } else {
        CHECK_FALSE(read);
      }
    }
  }
  INFO(compared << " compared, " << by_kernel << " resolved by the kernel, " << through_links << " through links");
  CHECK(compared > 1000);
  CHECK(by_kernel > 500);
  CHECK(through_links > 100);
}
