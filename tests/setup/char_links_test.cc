// The /dev/char links of the nodes the specs map (cdi/char_links.h): runc's systemd cgroup
// driver names each device of a container by its link, and runc 1.1.3 to 1.1.6 leave out one that
// has none, so systemd applying the device rules again takes it away (issue: "after setup on an
// NVIDIA machine, no /dev/char link exists for any NVIDIA node ... the first daemon-reload after a
// container starts would take its GPU away, silently"). tests/e2e/systemd_reload_test.sh shows it
// under a real systemd.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/rediacc_servers.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// A third party's spec beside NVIDIA's: every node any spec maps is linked, not only ours.
constexpr const char* kVendorSpec = R"(cdiVersion: 0.5.0
kind: vendor.example/ctl
devices:
- name: ctl
  containerEdits:
    deviceNodes:
    - path: /dev/nvidiactl
    - path: /dev/nvidia-uvm
)";

// A spec that comes later, for a node no other spec maps.
constexpr const char* kLateSpec = R"(cdiVersion: 0.5.0
kind: vendor.example/late
devices:
- name: late
  containerEdits:
    deviceNodes:
    - path: /dev/vendor0
)";

std::string link_of(const FixtureRoot& root, const std::string& link) {
  std::error_code ec;
  return fs::read_symlink(root.host(link), ec).string();
}

}  // namespace

TEST_CASE(
    "char links: setup links each node a spec maps under /dev/char, keeps udev's, and the second run changes none") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", rediacc_servers()[1].os_release);
  root.write("/etc/cdi/vendor.yaml", kVendorSpec);
  // udev's own link for a render node: a link that reaches the node is left as it is.
  fs::create_directories(root.host("/dev/char"));
  fs::create_symlink("../dri/renderD128", root.host("/dev/char/226:128"));
  // A stale link for nvidiactl's numbers, to another node: replaced.
  fs::create_symlink("../nvidia-modeset", root.host("/dev/char/195:255"));
  FakeTools fakes;
  const auto r = run_tool({"setup", "--root", root.str(), "-o", "json"}, "", fakes.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);

  CHECK(link_of(root, "/dev/char/195:0") == "../nvidia0");  // NVIDIA's spec (the fake nvidia-ctk's)
  CHECK(link_of(root, "/dev/char/195:255") == "../nvidiactl");
  CHECK(link_of(root, "/dev/char/508:0") == "../nvidia-uvm");        // its major, from /proc/devices
  CHECK(link_of(root, "/dev/char/226:128") == "../dri/renderD128");  // ours (rediacc.io/dri), udev's link
  CHECK(link_of(root, "/dev/char/226:129") == "../dri/renderD129");
  const auto doc = json::parse(r.out);
  json step;
  for (const auto& s : doc["steps"]) {
    if (s["id"] == "char-links") step = s;
  }
  REQUIRE(step.is_object());
  CHECK(step["status"] == "ok");
  CHECK_THAT(step["changes"].dump(),
             Catch::Contains(R"("path":"/dev/char/195:0")") && !Catch::Contains(R"("path":"/dev/char/226:128")"));

  const auto again = run_tool({"setup", "--root", root.str(), "-o", "json"}, "", fakes.env());
  REQUIRE(again.exit_code == 0);
  // Kept whole: a range-for over parse(...)["steps"] walks a document already destroyed.
  const auto second = json::parse(again.out);
  for (const auto& s : second["steps"]) {
    if (s["id"] == "char-links") CHECK(s["outcome"] == "unchanged");
  }
}

TEST_CASE("char links: cdi views makes the link of a node a new spec maps, as the path unit runs it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.char_node("/dev/vendor0", 240, 0);
  REQUIRE(run_tool({"cdi", "views", "--root", root.str()}).exit_code == 0);
  CHECK(link_of(root, "/dev/char/195:255") == "../nvidiactl");  // NVIDIA's spec maps it
  CHECK(link_of(root, "/dev/char/240:0").empty());              // no spec maps it yet
  root.write("/etc/cdi/late.yaml", kLateSpec);
  const auto r = run_tool({"cdi", "views", "--root", root.str()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("/dev/char/240:0") && !Catch::Contains("/dev/char/195:255"));
  CHECK(link_of(root, "/dev/char/240:0") == "../vendor0");
  // Not a link where a link belongs: left as it is, and the error names it.
  fs::remove(root.host("/dev/char/240:0"));
  root.write("/dev/char/240:0", "not a link");
  const auto refused = run_tool({"cdi", "views", "--root", root.str()});
  CHECK(refused.exit_code != 0);
  CHECK_THAT(refused.err, Catch::Contains("/dev/char/240:0") && Catch::Contains("not a symbolic link"));
  CHECK(root.read("/dev/char/240:0") == "not a link");
}

TEST_CASE(
    "char links: doctor fails a node without its link where a daemon hands its devices to systemd, warns on cgroup "
    "v2") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/cdi/vendor.yaml", kVendorSpec);
  root.write("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  FakeTools fakes;
  const auto doctor = [&] {
    const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
    INFO(r.err);
    return check_of(json::parse(r.out), "char-links");
  };
  // No daemon running, cgroup v2 (where Docker's default driver is systemd): a warning.
  auto c = doctor();
  INFO(c.dump(2));
  CHECK(c["status"] == "warn");
  CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("/dev/nvidiactl (/dev/char/195:255)"));
  {
    StandInDaemon daemon(
        root, "4242",
        {{"/info", {{"CgroupDriver", "systemd"}, {"CgroupVersion", "2"}}}, {"/version", {{"Version", "28.5.2"}}}});
    c = doctor();
    INFO(c.dump(2));
    CHECK(c["status"] == "fail");
    CHECK_THAT(c["meaning"].get<std::string>(), Catch::Contains("daemon-reload") && Catch::Contains("dockerd 4242"));
    CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("rediacc-gpu cdi views"));
  }
  REQUIRE(run_tool({"cdi", "views", "--root", root.str()}).exit_code == 0);
  CHECK(doctor()["status"] == "ok");
}
