// WSL2: the GPU the Windows driver exposes through /dev/dxg, named by NVML from /usr/lib/wsl/lib,
// probed through the same pipeline the CLI runs; /dev/dxg on a native kernel is no WSL.

#include <catch2/catch.hpp>
#include <filesystem>

#include "probe/inventory.h"
#include "tests/probe/probe_test_support.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;

namespace {
using Names = std::vector<std::string>;
}  // namespace

TEST_CASE("probe: WSL2 reports platform wsl and its GPU from NVML in /usr/lib/wsl/lib") {
  FixtureRoot root;
  wsl2_nvidia(root);
  auto inv = probe_fixture(root).inventory;
  CHECK(inv.platform == probe::Platform::wsl);
  REQUIRE(inv.gpus.size() == 1);
  const auto& g = inv.gpus[0];
  CHECK_FALSE(g.pci_address);
  CHECK(g.platform == probe::Platform::wsl);
  CHECK(g.name == "NVIDIA GeForce RTX 4080 Laptop GPU");
  CHECK(g.driver_version == "581.57");
  CHECK(g.memory_bytes == 12 * kGiB);
  CHECK(g.device_id == 0x27e0);
  CHECK_FALSE(g.render_node);
  CHECK(g.device_nodes == Names{"/dev/dxg"});
  CHECK(g.cdi_devices == Names{"nvidia.com/gpu=all"});
  CHECK(probe::to_json(inv)["gpus"][0]["pci_address"].is_null());
}

TEST_CASE("probe: /dev/dxg without NVML records no GPU and says why") {
  FixtureRoot root;
  wsl2_nvidia(root);
  std::filesystem::remove(root.host("/usr/lib/wsl/lib/libnvidia-ml.so.1"));
  auto report = probe_fixture(root);
  CHECK(report.inventory.platform == probe::Platform::wsl);
  CHECK(report.inventory.gpus.empty());
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0], Catch::Contains("has no libnvidia-ml.so.1"));
}

TEST_CASE("probe: /dev/dxg on a native kernel is not WSL") {
  FixtureRoot root;
  no_gpu(root);
  root.char_node("/dev/dxg", 10, 125);
  root.write("/proc/sys/kernel/osrelease", "6.1.0-27-amd64\n");
  CHECK(probe_fixture(root).inventory.platform == probe::Platform::native);
}
