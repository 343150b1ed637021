#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/probe/probe_test_support.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;

namespace {

bool any_warning_contains(const probe::ProbeReport& r, const std::string& text) {
  for (const auto& w : r.warnings) {
    if (w.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("bad input: a vendor file that is not hex skips that device with a warning") {
  FixtureRoot root;
  two_amd_instinct(root);
  root.write("/sys/devices/pci0000:00/0000:c3:00.0/vendor", "zz\n");
  auto report = probe_fixture(root);
  REQUIRE(report.inventory.gpus.size() == 1);
  CHECK(report.inventory.gpus[0].pci_address == "0000:43:00.0");
  CHECK(any_warning_contains(report, "skipping PCI device 0000:c3:00.0"));
  CHECK(any_warning_contains(report, "not a hex number"));
}

TEST_CASE("bad input: a dangling device link of a render node is a warning, not a crash") {
  FixtureRoot root;
  intel_discrete(root);
  root.link("/sys/class/drm/renderD200", "../../devices/gone/drm/renderD200");
  auto report = probe_fixture(root);
  CHECK(report.inventory.gpus.size() == 1);
  CHECK(any_warning_contains(report, "ignoring /dev/dri/renderD200"));
}

TEST_CASE("bad input: a link loop under /sys/class/drm is a warning, not a hang") {
  FixtureRoot root;
  intel_discrete(root);
  root.mkdir("/sys/class/drm/renderD201");
  root.link("/sys/class/drm/renderD201/device", "../renderD201/device");
  auto report = probe_fixture(root);
  CHECK(report.inventory.gpus.size() == 1);
  CHECK(any_warning_contains(report, "symbolic link loop"));
}

TEST_CASE("bad input: a truncated KFD properties file skips that node with a warning") {
  FixtureRoot root;
  two_amd_instinct(root);
  root.write("/sys/class/kfd/kfd/topology/nodes/3/properties", "cpu_cores_count 0\nsimd_count 416\nmem_ban");
  auto report = probe_fixture(root);
  REQUIRE(report.inventory.gpus.size() == 2);
  CHECK(any_warning_contains(report, "skipping KFD topology node 3"));
  CHECK_FALSE(gpu_at(report.inventory, "0000:c3:00.0").uuid);
  CHECK(gpu_at(report.inventory, "0000:43:00.0").uuid == "5847760019078012339");
}

TEST_CASE("bad input: an unreadable KFD properties file skips that node with a warning") {
  FixtureRoot root;
  two_amd_instinct(root);
  std::filesystem::remove(root.host("/sys/class/kfd/kfd/topology/nodes/2/properties"));
  root.mkdir("/sys/class/kfd/kfd/topology/nodes/2/properties");  // read() fails: EISDIR
  auto report = probe_fixture(root);
  REQUIRE(report.inventory.gpus.size() == 2);
  CHECK(any_warning_contains(report, "skipping KFD topology node 2"));
}

TEST_CASE("bad input: a KFD node naming a PCI device that is not there is ignored with a warning") {
  FixtureRoot root;
  two_amd_instinct(root);
  MachineBuilder(root).kfd_gpu_node({4, 0, 0x9900, 140, "1", 0});
  auto report = probe_fixture(root);
  CHECK(report.inventory.gpus.size() == 2);
  CHECK(any_warning_contains(report, "0000:99:00.0, which is not an AMD GPU"));
}

TEST_CASE("bad input: a GPU whose vendor file is gone is skipped with a warning naming the file") {
  FixtureRoot root;
  two_amd_instinct(root);
  std::filesystem::remove(root.host("/sys/devices/pci0000:00/0000:c3:00.0/vendor"));
  auto report = probe_fixture(root);
  REQUIRE(report.inventory.gpus.size() == 1);
  CHECK(any_warning_contains(report, "skipping PCI device 0000:c3:00.0: cannot read " +
                                         root.host("/sys/bus/pci/devices/0000:c3:00.0/vendor").string()));
}

TEST_CASE("bad input: a device's odd files outside the GPU classes are not read, a bad class file is named") {
  FixtureRoot root;
  no_gpu(root);
  MachineBuilder(root).pci({"0000:03:00.0", 0x8086, 0x56a0, 0x030000, "i915", 1, 128});
  root.write("/sys/devices/pci0000:00/0000:17:00.0/vendor", "zz\n");  // the NIC's: not our business
  root.write("/sys/devices/pci0000:00/0000:18:00.0/class", "0x01zz02\n");
  auto report = probe_fixture(root);
  CHECK(report.inventory.gpus.size() == 1);
  REQUIRE(report.warnings.size() == 1);
  CHECK_THAT(report.warnings[0], Catch::Contains("skipping PCI device 0000:18:00.0: " +
                                                 root.host("/sys/bus/pci/devices/0000:18:00.0/class").string() +
                                                 " holds \"0x01zz02\", not a hex number"));
}

TEST_CASE("bad input: a PCI tree that cannot be listed fails the probe with the path named") {
  FixtureRoot root;
  intel_discrete(root);
  std::filesystem::remove_all(root.host("/sys/bus/pci/devices"));
  root.write("/sys/bus/pci/devices", "not a directory\n");
  RootFs fs(root.path());
  auto report = probe::probe_machine(fs);
  REQUIRE_FALSE(report);
  CHECK_THAT(report.error().message,
             Catch::Contains("cannot read the PCI devices under " + root.host("/sys/bus/pci/devices").string()));
}

TEST_CASE("bad input: a CDI spec that does not parse is skipped with a warning, the others count") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/cdi/broken.yaml", "kind: [oops\n");
  auto report = probe_fixture(root);
  CHECK(report.inventory.cdi_devices.size() == 5);
  CHECK(any_warning_contains(report, "broken.yaml"));
}
