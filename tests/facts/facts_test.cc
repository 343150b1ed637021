// The facts of a doctor or metrics run: each source read once, so every check and series sees the
// same machine.

#include <catch2/catch.hpp>

#include "core/root_fs.h"
#include "facts/file_reads.h"
#include "tests/support/fixture_root.h"

TEST_CASE("doctor: the files several checks read are read once a run, so every check sees the same bytes") {
  rgpu::test::FixtureRoot root;
  root.write("/etc/docker/daemon.json", R"({"runtimes": {}})");
  const rgpu::RootFs fs(root.path());
  const rgpu::facts::FileReads files(fs);
  const auto& first = files.read("/etc/docker/daemon.json");
  root.write("/etc/docker/daemon.json", R"({"changed": true})");
  const auto& again = files.read("/etc/docker/daemon.json");
  REQUIRE(again);
  CHECK(&first == &again);
  CHECK(**again == R"({"runtimes": {}})");
  CHECK(files.read("/etc/absent.json").value() == std::nullopt);
}
