// The NVIDIA driver makes its control nodes (/dev/nvidia-uvm, -uvm-tools, -modeset) at first use:
// after a reboot none is there until something runs CUDA (issue: "after a reboot, before anything
// used CUDA, /dev/nvidia-uvm is absent ... every hint loops. The real cause and its one command are
// never named").

#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/rediacc_servers.h"
#include "tests/support/run_binary.h"
#include "units/unit_files.h"

using namespace rgpu::test;
namespace fs = std::filesystem;

TEST_CASE(
    "boot nodes: the NVIDIA spec unit makes the driver's control nodes before the spec, and the views follow it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", rediacc_servers()[1].os_release);
  FakeTools fakes;
  const auto r = run_tool({"setup", "--root", root.str()}, "", fakes.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto unit = root.read("/etc/systemd/system/rediacc-gpu-nvidia-spec.service");
  const auto nodes = unit.find(
      "ExecStartPre=/usr/bin/nvidia-ctk system create-device-nodes --control-devices --load-kernel-modules\n");
  REQUIRE(nodes != std::string::npos);
  CHECK(nodes < unit.find("ExecStart=/usr/bin/nvidia-ctk cdi generate"));
  // The repositories' daemons start after their views, which come after this unit: the nodes and
  // the spec that maps them are there before any container of theirs.
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-views.service"),
             Catch::Contains("After=") && Catch::Contains("rediacc-gpu-nvidia-spec.service"));

  // Under WSL the GPU is /dev/dxg: no control node to make.
  rgpu::units::UnitOptions wsl;
  wsl.wsl = true;
  for (const auto& f : rgpu::units::nvidia_units(wsl)) CHECK_THAT(f.content, !Catch::Contains("create-device-nodes"));
}

TEST_CASE(
    "boot nodes: a name whose /dev/nvidia-uvm the driver has not made yet is refused naming the command that makes "
    "it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  fs::remove(root.host("/dev/nvidia-uvm"));
  const auto r = run_tool({"grant", "web", "--device", "nvidia.com/gpu=0", "--root", root.str()});
  INFO(r.out << r.err);
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err,
             Catch::Contains("/dev/nvidia-uvm") &&
                 Catch::Contains("nvidia-ctk system create-device-nodes --control-devices --load-kernel-modules") &&
                 !Catch::Contains("run rediacc-gpu setup"));
}
