// The playbook's fourth horseman (issue: "a host that moved between cgroup v1 and v2, or a daemon
// whose cgroup driver changed, is named by doctor with what follows for device access").

#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/rediacc_servers.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
using nlohmann::json;

namespace {

json cgroup_change(const FixtureRoot& root, const FakeTools& fakes) {
  const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
  INFO(r.err);
  return check_of(json::parse(r.out), "cgroup-change");
}

}  // namespace

TEST_CASE("cgroup change: setup records the mode and each repository daemon's driver, doctor names what moved") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", rediacc_servers()[1].os_release);
  FakeTools fakes;
  CHECK(cgroup_change(root, fakes)["status"] == "skip");
  // Repository web's daemon, found through its plugin's environment file, on the cgroupfs driver.
  auto web = std::make_unique<StandInDaemon>(
      root, "9001", std::map<std::string, json>{{"/info", {{"CgroupDriver", "cgroupfs"}, {"CgroupVersion", "1"}}}}, 0,
      false);
  root.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=unix:///proc/9001/root/run/d.sock\n");
  const auto s = run_tool({"setup", "--root", root.str()}, "", fakes.env());
  INFO(s.out << s.err);
  REQUIRE(s.exit_code == 0);
  const auto record = json::parse(root.read("/var/lib/rediacc/gpu/cgroup.json"));
  CHECK(record["cgroup"] == "v1");
  CHECK(record["drivers"]["web"] == "cgroupfs");
  auto c = cgroup_change(root, fakes);
  INFO(c.dump(2));
  CHECK(c["status"] == "ok");

  // Rebooted into cgroup v2.
  root.write("/sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
  // Restarted (a new process) with Docker's default driver on v2, systemd.
  web = std::make_unique<StandInDaemon>(
      root, "9002", std::map<std::string, json>{{"/info", {{"CgroupDriver", "systemd"}, {"CgroupVersion", "2"}}}}, 0,
      false);
  root.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=unix:///proc/9002/root/run/d.sock\n");
  c = cgroup_change(root, fakes);
  INFO(c.dump(2));
  CHECK(c["status"] == "warn");
  CHECK(c["layer"] == 2);
  CHECK_THAT(c["observed"].get<std::string>(),
             Catch::Contains("the host moved from cgroup v1 to cgroup v2 since setup") &&
                 Catch::Contains("repository web's daemon uses the systemd cgroup driver (setup found cgroupfs)"));
  CHECK_THAT(c["meaning"].get<std::string>(),
             Catch::Contains("eBPF program") && Catch::Contains("built from the /dev/char links runc names"));
  CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("run rediacc-gpu setup"));
  // Setup again records the machine as it is now.
  REQUIRE(run_tool({"setup", "--root", root.str()}, "", fakes.env()).exit_code == 0);
  CHECK(cgroup_change(root, fakes)["status"] == "ok");
}
