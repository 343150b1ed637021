// The NVIDIA driver makes its control nodes (/dev/nvidia-uvm, -uvm-tools, -modeset) at first use:
// after a reboot none is there until something runs CUDA (issue: "after a reboot, before anything
// used CUDA, /dev/nvidia-uvm is absent ... every hint loops. The real cause and its one command are
// never named").

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/rediacc_servers.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
namespace fs = std::filesystem;
using json = nlohmann::json;

TEST_CASE(
    "boot nodes: the NVIDIA spec unit makes the driver's control nodes and the spec, starts again when the module "
    "loads, and the views follow it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", rediacc_servers()[1].os_release);
  fs::remove(root.host("/dev/nvidia-uvm"));  // after a boot, before anything ran CUDA
  FakeTools fakes;
  const auto r = run_tool({"setup", "--root", root.str()}, "", fakes.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  // Setup made the nodes before it generated the spec that maps them.
  const auto calls = fakes.calls();
  const auto at = [&](const std::string& prefix) {
    return std::find_if(calls.begin(), calls.end(), [&](const std::string& c) { return c.rfind(prefix, 0) == 0; });
  };
  REQUIRE(at("nvidia-ctk system create-device-nodes --control-devices --load-kernel-modules") != calls.end());
  CHECK(at("nvidia-ctk system create-device-nodes") < at("nvidia-ctk cdi generate"));
  const auto unit = root.read("/etc/systemd/system/rediacc-gpu-nvidia-spec.service");
  CHECK_THAT(unit,
             Catch::Contains("ExecStart=/usr/bin/rediacc-gpu cdi nvidia --wait=60 --nvidia-ctk=/usr/bin/nvidia-ctk\n"));
  CHECK_THAT(unit, Catch::Contains("TimeoutStartSec=120\n"));
  // Debian's module file is nvidia-current.ko, which the kernel names nvidia_current.
  CHECK(root.read("/etc/udev/rules.d/90-rediacc-gpu-nvidia.rules")
            .find("ACTION==\"add\", SUBSYSTEM==\"module\", KERNEL==\"nvidia|nvidia_current\", "
                  "RUN+=\"/usr/bin/systemctl --no-block start rediacc-gpu-nvidia-spec.service\"") != std::string::npos);
  // The repositories' daemons start after their views, which come after this unit: the nodes and
  // the spec that maps them are there before any container of theirs.
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-views.service"),
             Catch::Contains("After=") && Catch::Contains("rediacc-gpu-nvidia-spec.service"));
}

TEST_CASE("boot nodes: while the driver is not loaded, cdi nvidia keeps the last good spec and says what starts it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", rediacc_servers()[1].os_release);
  const std::string good = "# the last good spec\n";
  root.write("/etc/cdi/nvidia.yaml", good);
  fs::remove(root.host("/proc/driver/nvidia/version"));
  FakeTools fakes;
  const auto r = run_tool({"cdi", "nvidia", "--root", root.str()}, "", fakes.env());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("/proc/driver/nvidia/version is missing") &&
                        Catch::Contains("nvidia.yaml is kept as it was") &&
                        Catch::Contains("rediacc-gpu-nvidia-spec.service runs again when the nvidia module loads"));
  CHECK(root.read("/etc/cdi/nvidia.yaml") == good);
  CHECK_FALSE(called(fakes.calls(), "nvidia-ctk"));

  // Setup on that machine (provisioning before the driver): exit 0, the spec kept, the reason said.
  const auto s = run_tool({"setup", "--root", root.str()}, "", fakes.env());
  INFO(s.out << s.err);
  CHECK(s.exit_code == 0);
  CHECK_THAT(s.out + s.err, Catch::Contains("kept: the NVIDIA driver is not ready") &&
                                Catch::Contains("makes it when the nvidia module loads"));
  CHECK(root.read("/etc/cdi/nvidia.yaml") == good);
}

TEST_CASE("boot nodes: cdi nvidia tries again until the driver loads, then makes the nodes, the spec and its links") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  const auto version = root.read("/proc/driver/nvidia/version");
  fs::remove(root.host("/proc/driver/nvidia/version"));
  fs::remove(root.host("/dev/nvidia-modeset"));
  FakeTools fakes;
  auto run = std::async(std::launch::async, [&] {
    return run_tool({"cdi", "nvidia", "--wait", "30", "--root", root.str()}, "", fakes.env());
  });
  // The module loads a moment after the unit started.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  CHECK_FALSE(called(fakes.calls(), "nvidia-ctk"));
  root.write("/proc/driver/nvidia/version", version);
  const auto r = run.get();
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(called(fakes.calls(), "nvidia-ctk system create-device-nodes --control-devices --load-kernel-modules"));
  CHECK_THAT(root.read("/etc/cdi/nvidia.yaml"), Catch::Contains("kind: nvidia.com/gpu"));
  // The fake's spec maps /dev/nvidia0 (195:0): its link is made here, not only by the path unit.
  CHECK(fs::read_symlink(root.host("/dev/char/195:0")) == "../nvidia0");
}

TEST_CASE("boot nodes: a spec nvidia-ctk makes that maps a node /dev lacks is not installed") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  const std::string good = "# the last good spec\n";
  root.write("/etc/cdi/nvidia.yaml", good);
  fs::remove(root.host("/dev/nvidia0"));  // the fake nvidia-ctk's spec maps it
  FakeTools fakes;
  const auto r = run_tool({"cdi", "nvidia", "--root", root.str()}, "", fakes.env());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("maps /dev/nvidia0, which is not a character device") &&
                        Catch::Contains("is kept as it was"));
  CHECK(root.read("/etc/cdi/nvidia.yaml") == good);
}

TEST_CASE("boot nodes: a toolkit without create-device-nodes leaves the nodes to nvidia-modprobe") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  fs::remove(root.host("/dev/nvidia-uvm-tools"));
  FakeTools fakes;
  fakes.fail("nvidia-ctk", "create-device-nodes");
  auto r = run_tool({"cdi", "nvidia", "--root", root.str()}, "", fakes.env());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(called(fakes.calls(), "nvidia-modprobe -u -c=0"));
  CHECK(called(fakes.calls(), "nvidia-modprobe -m"));
  CHECK(r.err.empty());
  // Neither could: the spec is still made from what is there, and the warning names both.
  fakes.fail("nvidia-modprobe");
  r = run_tool({"cdi", "nvidia", "--root", root.str()}, "", fakes.env());
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("neither nvidia-ctk system create-device-nodes") &&
                        Catch::Contains("nor nvidia-modprobe (exit 1)"));
}

TEST_CASE("boot nodes: doctor names a control node the driver has not made yet, and the one command that makes it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FakeTools fakes;
  const auto doctor = [&] {
    const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
    INFO(r.err);
    return check_of(json::parse(r.out), "nvidia-control-nodes");
  };
  CHECK(doctor()["status"] == "ok");
  fs::remove(root.host("/dev/nvidia-uvm"));
  fs::remove(root.host("/etc/cdi/nvidia.yaml"));
  // No spec maps it: containers started now have no UVM.
  auto c = doctor();
  INFO(c.dump(2));
  CHECK(c["status"] == "warn");
  CHECK(c["layer"] == 2);
  // A spec maps it: those names fail, and the fix is named (without the toolkit, the driver's helper).
  root.write("/etc/cdi/nvidia.yaml",
             "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n    deviceNodes:\n"
             "    - path: /dev/nvidia1\ncontainerEdits:\n  deviceNodes:\n  - path: /dev/nvidia-uvm\n");
  c = doctor();
  INFO(c.dump(2));
  CHECK(c["status"] == "fail");
  CHECK_THAT(c["observed"].get<std::string>(),
             Catch::Contains("/dev/nvidia-uvm missing, and mapped by nvidia.com/gpu=0"));
  CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("nvidia-modprobe -u -c=0"));
  fakes.installed(root, "1.20.0-1");
  CHECK_THAT(doctor()["decision"].get<std::string>(),
             Catch::Contains("run rediacc-gpu cdi nvidia") && Catch::Contains("create-device-nodes"));
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
