// DirectoryWatch: a change in a watched directory is seen at the next call and never twice; a
// directory not there yet is covered once it appears; a lost watch says so instead of "quiet".

#include <catch2/catch.hpp>
#include <filesystem>

#include "core/directory_watch.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using namespace rgpu::test;

TEST_CASE("directory watch: writes, renames and removals are seen once, then it is quiet again") {
  FixtureRoot root;
  root.mkdir("/etc/cdi");
  DirectoryWatch watch({root.host("/etc/cdi")});
  CHECK(watch.unchanged());
  root.write("/etc/cdi/a.yaml", "x");
  CHECK_FALSE(watch.unchanged());
  CHECK(watch.unchanged());
  root.write("/etc/cdi/.tmp", "y");
  std::filesystem::rename(root.host("/etc/cdi/.tmp"), root.host("/etc/cdi/b.yaml"));
  CHECK_FALSE(watch.unchanged());
  CHECK(watch.unchanged());
  std::filesystem::remove(root.host("/etc/cdi/a.yaml"));
  CHECK_FALSE(watch.unchanged());
  CHECK(watch.unchanged());
}

TEST_CASE("directory watch: a directory made later is watched from then on, one moved away is a change") {
  FixtureRoot root;
  DirectoryWatch watch({root.host("/etc/cdi")});
  CHECK(watch.unchanged());  // its ancestor stands in
  root.mkdir("/etc/cdi");
  CHECK_FALSE(watch.unchanged());
  CHECK(watch.unchanged());
  root.write("/etc/cdi/a.yaml", "x");
  CHECK_FALSE(watch.unchanged());
  std::filesystem::rename(root.host("/etc/cdi"), root.host("/etc/cdi.old"));
  CHECK_FALSE(watch.unchanged());
  root.mkdir("/etc/cdi");
  root.write("/etc/cdi/b.yaml", "y");
  CHECK_FALSE(watch.unchanged());
}
