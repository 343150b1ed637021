// A GPU the machine had is never forgotten by a setup that no longer finds it: it stays in the
// inventory as missing (doctor fails on it, metrics count it) until it is back or an operator
// says it is gone on purpose (setup --forget-gpu). Provisioning runs setup at every boot, so a
// GPU forgotten there would be invisible after one reboot.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "probe/nvml_library.h"
#include "tests/support/admit_on.h"
#include "tests/support/cdi_schema.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using Catch::Contains;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr const char* kFirst = "0000:41:00.0";
constexpr const char* kSecond = "0001:c1:00.0";

RunResult setup_with(const FixtureRoot& root, const FakeTools& fakes, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"setup", "--root", root.str()};
  args.insert(args.end(), more.begin(), more.end());
  return run_tool(args, "", fakes.env());
}

json inventory(const FixtureRoot& root) { return json::parse(root.read("/etc/rediacc/gpu/inventory.json")); }

// The machine after a reboot without the first card: no PCI device, no /proc/driver/nvidia entry,
// and NVML answers for the one card left.
void reboot_without_first(const FixtureRoot& root) {
  MachineBuilder m(root);
  m.unplug(kFirst);
  fs::remove_all(root.host(std::string("/proc/driver/nvidia/gpus/") + kFirst));
  m.fake_nvml("/usr/lib/x86_64-linux-gnu",
              "driver 550.54.15\ncuda 12040\n" + nvml_gpu_line("00000001:C1:00.0", "NVIDIA H100 80GB HBM3",
                                                               "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee", 80ULL << 30,
                                                               0, 0x2330));
}

}  // namespace

TEST_CASE("setup: GPUs gone from sysfs that the NVIDIA driver still lists are recorded missing and named") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kDebian12OsRelease);
  FakeTools fakes;
  REQUIRE(setup_with(root, fakes).exit_code == 0);
  // Both cards fell off the bus: sysfs shows neither, the driver (still loaded) lists both.
  MachineBuilder m(root);
  m.unplug(kFirst);
  m.unplug(kSecond);
  REQUIRE(fs::exists(root.host(std::string("/proc/driver/nvidia/gpus/") + kFirst + "/information")));
  const auto again = setup_with(root, fakes);
  INFO(again.out << again.err);
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out, !Contains("no NVIDIA GPU"));
  CHECK_THAT(again.out, Contains("0 GPUs, platform native; 2 missing (0000:41:00.0, 0001:c1:00.0)"));
  CHECK_THAT(again.out, Contains("NVIDIA Container Toolkit ... skipped: every NVIDIA GPU is missing "
                                 "(0000:41:00.0, 0001:c1:00.0)"));
  const auto inv = inventory(root);
  CHECK(inv["gpus"].empty());
  REQUIRE(inv["missing_gpus"].size() == 2);
  CHECK(inv["missing_gpus"][0]["pci_address"] == kFirst);
  CHECK(inv["missing_gpus"][0]["vendor"] == "nvidia");
  CHECK(inv["missing_gpus"][0]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(inv["missing_gpus"][0]["uuid"] == "GPU-11111111-2222-3333-4444-555555555555");
  CHECK(inv["missing_gpus"][0]["missing_since"].is_string());
  CHECK(inv["missing_gpus"][1]["pci_address"] == kSecond);
  CHECK(inventory_schema_errors(inv).empty());
  // Nothing names a missing GPU: our specs describe only what is on the bus.
  CHECK_THAT(root.read("/etc/cdi/rediacc.io-dri.json"), !Contains("pci-0000-41-00.0"));
  // The other writers of the inventory keep them too: probe, and cdi generate (the hotplug unit's).
  REQUIRE(tool_on(root, {"probe"}).exit_code == 0);
  CHECK(inventory(root)["missing_gpus"].size() == 2);
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  CHECK(inventory(root)["missing_gpus"].size() == 2);

  const auto present = doctor_checks(root, "gpu-present");
  REQUIRE(present.size() == 2);
  for (const auto& c : present) {
    CHECK(c["status"] == "fail");
    CHECK_THAT(c["decision"].get<std::string>(),
               Contains("rediacc-gpu setup --forget-gpu " + c["subject"].get<std::string>()));
  }
  CHECK_THAT(present[0]["observed"].get<std::string>(), Contains("(0000:41:00.0)") && Contains("missing since"));
  CHECK(tool_on(root, {"doctor"}).exit_code == 1);
  const auto metrics = tool_on(root, {"metrics"}).out;
  CHECK_THAT(metrics, Contains("rediacc_gpu_gpus_missing 2\n") &&
                          Contains("rediacc_gpu_gpu_lost{pci_address=\"0000:41:00.0\"} 1\n") &&
                          Contains("rediacc_gpu_gpu_lost{pci_address=\"0001:c1:00.0\"} 1\n"));

  // Not forgotten while the driver still holds it: the next setup would record it again.
  const auto held = setup_with(root, fakes, {"--forget-gpu", kFirst});
  CHECK(held.exit_code == 1);
  CHECK_THAT(held.err, Contains("/proc/driver/nvidia/gpus/0000:41:00.0") && Contains("reboot"));
  CHECK(inventory(root)["missing_gpus"].size() == 2);

  // After a reboot without either card the driver lists none: the inventory alone remembers them,
  // and no check says the machine has no NVIDIA GPU.
  fs::remove_all(root.host("/proc/driver/nvidia/gpus"));
  REQUIRE(setup_with(root, fakes).exit_code == 0);
  CHECK(inventory(root)["missing_gpus"].size() == 2);
  CHECK(doctor_checks(root, "gpu-present").size() == 2);
  for (const char* id : {"nvidia-driver", "nvml"}) {
    INFO(id);
    const auto c = doctor_checks(root, id);
    REQUIRE(c.size() == 1);
    CHECK_THAT(c[0]["observed"].get<std::string>(), !Contains("no NVIDIA GPU") && Contains("not found now"));
  }
}

TEST_CASE("setup: a GPU the inventory had stays missing across reboots, since when it was first missing") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kDebian12OsRelease);
  FakeTools fakes;
  REQUIRE(setup_with(root, fakes).exit_code == 0);
  reboot_without_first(root);
  const auto first = setup_with(root, fakes);
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  CHECK_THAT(first.out, Contains("1 GPU, platform native; 1 missing (0000:41:00.0)"));
  auto inv = inventory(root);
  REQUIRE(inv["gpus"].size() == 1);
  REQUIRE(inv["missing_gpus"].size() == 1);
  CHECK(inv["missing_gpus"][0]["pci_address"] == kFirst);
  CHECK(inv["missing_gpus"][0]["uuid"] == "GPU-11111111-2222-3333-4444-555555555555");
  // Missing since long ago: the next setups keep that time, and a re-run changes nothing.
  inv["missing_gpus"][0]["missing_since"] = "2024-01-01T00:00:00Z";
  root.write("/etc/rediacc/gpu/inventory.json", inv.dump(2) + "\n");
  REQUIRE(setup_with(root, fakes).exit_code == 0);
  CHECK(inventory(root)["missing_gpus"][0]["missing_since"] == "2024-01-01T00:00:00Z");
  const auto unchanged = run_tool({"setup", "--root", root.str(), "-o", "json"}, "", fakes.env());
  REQUIRE(unchanged.exit_code == 0);
  CHECK(json::parse(unchanged.out)["changed"] == false);
  CHECK(inventory(root)["missing_gpus"][0]["missing_since"] == "2024-01-01T00:00:00Z");

  const auto present = doctor_checks(root, "gpu-present");
  REQUIRE(present.size() == 1);
  CHECK(present[0]["status"] == "fail");
  CHECK(present[0]["subject"] == kFirst);
  CHECK_THAT(present[0]["observed"].get<std::string>(), Contains("missing since 2024-01-01T00:00:00Z"));
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_gpus_missing 1\n") &&
                                                 Contains("rediacc_gpu_gpu_lost{pci_address=\"0000:41:00.0\"} 1\n"));
  CHECK_THAT(tool_on(root, {"list"}).out,
             Contains("missing since 2024-01-01T00:00:00Z: 0000:41:00.0 NVIDIA H100 80GB HBM3"));

  SECTION("the card comes back: it is no longer missing") {
    MachineBuilder m(root);
    m.pci({kFirst, 0x10de, 0x2330, 0x030200, "nvidia", 1, 128});
    m.nvidia_proc_gpu({kFirst, "NVIDIA H100 80GB HBM3", "GPU-11111111-2222-3333-4444-555555555555", 1});
    REQUIRE(setup_with(root, fakes).exit_code == 0);
    const auto back = inventory(root);
    CHECK(back["gpus"].size() == 2);
    CHECK(back["missing_gpus"].empty());
    CHECK(doctor_checks(root, "gpu-present")[0]["status"] == "ok");
  }

  SECTION("--forget-gpu: removed on purpose, it is forgotten; what is not missing is refused") {
    const std::string before = root.read("/etc/rediacc/gpu/inventory.json");
    const auto on_bus = setup_with(root, fakes, {"--forget-gpu", kSecond});
    CHECK(on_bus.exit_code == 1);
    CHECK_THAT(on_bus.err, Contains("--forget-gpu 0001:c1:00.0") && Contains("on the PCI bus"));
    const auto unknown = setup_with(root, fakes, {"--forget-gpu", "0000:99:00.0"});
    CHECK(unknown.exit_code == 1);
    CHECK_THAT(unknown.err, Contains("--forget-gpu 0000:99:00.0") && Contains("0000:41:00.0"));
    CHECK(setup_with(root, fakes, {"--forget-gpu", "not-an-address"}).exit_code == 2);
    CHECK(root.read("/etc/rediacc/gpu/inventory.json") == before);

    const auto forgot = setup_with(root, fakes, {"--forget-gpu", kFirst});
    INFO(forgot.out << forgot.err);
    CHECK(forgot.exit_code == 0);
    CHECK_THAT(forgot.out, Contains("forgot 0000:41:00.0"));
    CHECK(inventory(root)["missing_gpus"].empty());
    CHECK(doctor_checks(root, "gpu-present")[0]["status"] == "ok");
    CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_gpus_missing 0\n"));
    // And the next setup at boot does not bring it back.
    REQUIRE(setup_with(root, fakes).exit_code == 0);
    CHECK(inventory(root)["missing_gpus"].empty());
  }
}

TEST_CASE("setup and doctor give WSL2's one repair when the Windows driver's NVML does not answer") {
  // Issue 61: setup said to reinstall the driver's user-space libraries (a fix inside Linux),
  // doctor to repair the driver on Windows; the library in /usr/lib/wsl/lib is the Windows driver's.
  for (const char* broken : {"driver 581.57\ninit_error 9\n", ""}) {
    INFO((*broken ? "NVML does not initialise" : "NVML does not load"));
    FixtureRoot root;
    wsl2_nvidia(root);
    if (*broken)
      root.write("/usr/lib/wsl/lib/fake-nvml.conf", broken);
    else
      root.write("/usr/lib/wsl/lib/libnvidia-ml.so.1", "not a shared library\n");
    FakeTools fakes;
    const auto set_up = setup_with(root, fakes);
    const std::string said = set_up.out + set_up.err;
    INFO(said);
    CHECK_THAT(said, Catch::Contains(rgpu::probe::kWslDriverRepair));
    CHECK_THAT(said, !Catch::Contains("reinstall the NVIDIA driver's user-space libraries") &&
                         !Catch::Contains("kernel module is loaded"));
    bool named = false;
    for (const auto& c : doctor_checks(root, "wsl-gpu"))
      named = named || c["decision"] == rgpu::probe::kWslDriverRepair;
    CHECK(named);
  }
}
