#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>

#include "core/atomic_file.h"
#include "tests/support/fixture_root.h"

using rgpu::Change;
using rgpu::RootFs;
using rgpu::test::FixtureRoot;

namespace {

struct timespec mtime_of(const std::filesystem::path& p) {
  struct stat st {};
  ::stat(p.c_str(), &st);
  return st.st_mtim;
}

size_t entries_in(const std::filesystem::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("atomic write: creates missing directories and leaves no temp file") {
  FixtureRoot root;
  RootFs fs(root.path());
  auto change = rgpu::write_file_atomic(fs, "/etc/rediacc/gpu/inventory.json", "{}\n");
  REQUIRE(change);
  REQUIRE(change->kind == Change::Kind::write);
  REQUIRE(root.read("/etc/rediacc/gpu/inventory.json") == "{}\n");
  REQUIRE(entries_in(root.host("/etc/rediacc/gpu")) == 1);
}

TEST_CASE("atomic write: the same bytes again are unchanged, with the same mtime") {
  FixtureRoot root;
  RootFs fs(root.path());
  REQUIRE(rgpu::write_file_atomic(fs, "/etc/x.json", "same\n"));
  auto before = mtime_of(root.host("/etc/x.json"));
  auto again = rgpu::write_file_atomic(fs, "/etc/x.json", "same\n");
  REQUIRE(again->kind == Change::Kind::unchanged);
  auto after = mtime_of(root.host("/etc/x.json"));
  REQUIRE(before.tv_sec == after.tv_sec);
  REQUIRE(before.tv_nsec == after.tv_nsec);
}

TEST_CASE("atomic write: refuses to write through a symlink") {
  FixtureRoot root;
  root.write("/elsewhere", "keep\n");
  root.link("/etc/target", "/elsewhere");
  RootFs fs(root.path());
  auto r = rgpu::write_file_atomic(fs, "/etc/target", "new\n");
  REQUIRE_FALSE(r);
  REQUIRE_THAT(r.error().message, Catch::Contains("symbolic link"));
  REQUIRE(root.read("/elsewhere") == "keep\n");
}

TEST_CASE("atomic write: a linked parent directory is resolved inside the root") {
  FixtureRoot root;
  root.mkdir("/real/etc");
  root.link("/etc", "/real/etc");
  RootFs fs(root.path());
  REQUIRE(rgpu::write_file_atomic(fs, "/etc/a.json", "x"));
  REQUIRE(root.read("/real/etc/a.json") == "x");
}

TEST_CASE("atomic write: a failed write leaves the old file whole") {
  FixtureRoot root;
  root.write("/etc/rediacc/gpu/inventory.json", "old\n");
  RootFs fs(root.path());
  // The tests run as root, which ignores directory modes: a file where a directory must be
  // is what makes this write fail.
  root.write("/etc/blocked", "");
  auto r = rgpu::write_file_atomic(fs, "/etc/blocked/inventory.json", "new\n");
  REQUIRE_FALSE(r);
  REQUIRE_THAT(r.error().message, Catch::Contains("blocked"));
  REQUIRE(root.read("/etc/rediacc/gpu/inventory.json") == "old\n");
}

TEST_CASE("atomic remove: removing an absent file is unchanged") {
  FixtureRoot root;
  RootFs fs(root.path());
  REQUIRE(rgpu::remove_file(fs, "/etc/cdi/none.yaml")->kind == Change::Kind::unchanged);
  root.write("/etc/cdi/x.yaml", "a");
  REQUIRE(rgpu::remove_file(fs, "/etc/cdi/x.yaml")->kind == Change::Kind::remove);
}
