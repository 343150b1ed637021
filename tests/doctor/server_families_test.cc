// Doctor on each of Rediacc's five server distributions: Docker is found as each family installs
// it, so the checks that need its version run on all five rather than skip for a false reason
// (issue: "on Fedora, Oracle Linux and openSUSE doctor says skip docker-cdi: no Docker package
// recorded by dpkg").

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/admit_on.h"
#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/rediacc_servers.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
using nlohmann::json;

TEST_CASE("doctor: Docker's version is judged on each of Rediacc's five server distributions") {
  for (const auto& server : rediacc_servers()) {
    INFO(server.name);
    FixtureRoot root;
    two_nvidia_datacenter(root, true);
    as_server(root, server);
    FakeTools fakes;
    const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
    INFO(r.err);
    const auto doc = json::parse(r.out);
    const auto docker = check_of(doc, "docker-cdi");
    INFO(docker.dump(2));
    CHECK(docker["status"] == "ok");
    CHECK_THAT(docker["observed"].get<std::string>(),
               Catch::StartsWith(server.docker_package + " " + server.docker_version));
    CHECK_THAT(docker.dump(), Catch::Contains(server.family == "apt" ? "dpkg's status" : "rpm"));
    // The spec directories are judged, not skipped: no daemon.json limits them to /etc/cdi.
    CHECK(check_of(doc, "cdi-spec-dirs")["status"] == "fail");
  }
}

TEST_CASE("doctor: a Docker no package database records is known by the running daemon's own version") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", rediacc_servers()[2].os_release);  // Fedora, Docker from a static tarball
  FakeTools fakes;
  auto doc = json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out);
  CHECK(check_of(doc, "docker-cdi")["status"] == "skip");
  CHECK_THAT(check_of(doc, "docker-cdi")["observed"].get<std::string>(),
             Catch::Contains("no Docker package (dpkg, rpm) and no running dockerd"));

  // Running, it says which it is: 27.5 needs the CDI feature on, which it lacks.
  StandInDaemon daemon(
      root, "4242",
      {{"/info", {{"DefaultRuntime", "runc"}, {"CDISpecDirs", {"/etc/cdi"}}}}, {"/version", {{"Version", "27.5.1"}}}});
  doc = json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out);
  const auto docker = check_of(doc, "docker-cdi");
  INFO(docker.dump(2));
  CHECK(docker["status"] == "fail");
  CHECK_THAT(docker["observed"].get<std::string>(), Catch::StartsWith("dockerd 4242") && Catch::Contains("27.5.1"));
}

TEST_CASE("doctor: where PID 1 is not systemd, it says what never starts and how to run it, rather than fail units") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FakeTools fakes;
  const auto init_system = [&] {
    return check_of(json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out),
                    "init-system");
  };
  CHECK(init_system()["status"] == "skip");  // a root with no running system: an image
  root.write("/proc/1/comm", "systemd\n");
  CHECK(init_system()["status"] == "ok");
  root.write("/proc/1/comm", "init\n");  // WSL2 without [boot] systemd=true
  const auto c = init_system();
  INFO(c.dump(2));
  CHECK(c["status"] == "warn");
  CHECK(c["observed"] == "PID 1 is init, not systemd");
  CHECK_THAT(c["meaning"].get<std::string>(), Catch::Contains("no repository daemon's plugin socket listens"));
  CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("rediacc-gpu authz-plugin --repo REPO --socket") &&
                                                   Catch::Contains("rediacc-gpu cdi views"));
}

// Issue: "on an enforcing host a granted device works in a container_t container without
// label=disable or --privileged ... setup makes it so persistently and says so, doctor's
// permissions layer fails while it is not so, naming the command".
TEST_CASE("setup and doctor: on Fedora and Oracle Linux, SELinux lets container_t open the granted GPU nodes") {
  for (const auto& server : rediacc_servers()) {
    if (!server.selinux) continue;
    INFO(server.name);
    FixtureRoot root;
    two_nvidia_datacenter(root, true);
    as_server(root, server);
    root.write("/sys/fs/selinux/booleans/container_use_xserver_devices", "0 0\n");
    root.write("/sys/fs/selinux/booleans/container_use_devices", "0 0\n");
    FakeTools fakes;
    const auto doctor = [&] {
      return check_of(json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out),
                      "selinux-devices");
    };
    auto before = doctor();
    INFO(before.dump(2));
    CHECK(before["status"] == "fail");
    CHECK(before["layer"] == 2);
    CHECK(before["observed"] == "SELinux enforcing, and container_use_xserver_devices is off");
    CHECK_THAT(
        before["decision"].get<std::string>(),
        Catch::StartsWith("setsebool -P container_use_xserver_devices=on") && Catch::Contains("never label=disable"));

    const auto set = run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", "false"}, "", fakes.env());
    INFO(set.out << set.err);
    CHECK(set.exit_code == 0);
    CHECK_THAT(set.out, Catch::Contains("SELinux device booleans ... container_use_xserver_devices on, persistently"));
    const auto calls = fakes.calls();
    // Only NVIDIA's boolean: the machine has no AMD GPU, and container_use_devices opens every node.
    CHECK(std::find(calls.begin(), calls.end(),
                    "chroot " + root.str() + " setsebool -P container_use_xserver_devices=on") != calls.end());
    CHECK(doctor()["status"] == "ok");
    const auto again = run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", "false"}, "", fakes.env());
    CHECK_THAT(again.out, Catch::Contains("SELinux device booleans ... container_use_xserver_devices already on"));
  }
}

TEST_CASE("doctor: an AMD GPU's /dev/kfd needs container_use_devices, and AppArmor hosts need no boolean") {
  FixtureRoot root;
  two_amd_instinct(root);
  as_server(root, rediacc_servers()[2]);  // Fedora 43
  FakeTools fakes;
  auto c = check_of(json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out),
                    "selinux-devices");
  INFO(c.dump(2));
  CHECK(c["status"] == "fail");
  CHECK(c["observed"] == "SELinux enforcing, and container_use_devices is off");
  std::filesystem::remove_all(root.host("/sys/fs/selinux/booleans"));  // container-selinux not installed
  c = check_of(json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out),
               "selinux-devices");
  CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("container_use_devices (the loaded policy has none"));

  FixtureRoot ubuntu;
  two_amd_instinct(ubuntu);
  as_server(ubuntu, rediacc_servers()[0]);
  c = check_of(json::parse(run_tool({"doctor", "-o", "json", "--root", ubuntu.str()}, "", fakes.env()).out),
               "selinux-devices");
  CHECK(c["status"] == "skip");
}

// Issue: "Fixture machines for all five ... driving setup, doctor, grant and the gate end to end, so a
// sixth distribution is a new fixture, not new code".
TEST_CASE("servers: setup, grant, the gate and doctor, end to end on each of Rediacc's five server distributions") {
  for (const auto& server : rediacc_servers()) {
    INFO(server.name);
    FixtureRoot root;
    two_amd_instinct(root);
    as_server(root, server);
    FakeTools fakes;
    const auto set = run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", "false"}, "", fakes.env());
    INFO(set.out << set.err);
    REQUIRE(set.exit_code == 0);
    // Setup's SELinux step ran where SELinux enforces (the fake setsebool records the boolean).
    CHECK(server.selinux == (root.read("/sys/fs/selinux/booleans/container_use_devices") == "1 1\n"));
    REQUIRE(run_tool({"grant", "web", "--device", "rediacc.io/amd=gpu0", "--root", root.str()}).exit_code == 0);
    CHECK(admit_create(root, "web", "rediacc.io/amd=gpu0").exit_code == 0);
    const auto other = admit_create(root, "web", "rediacc.io/amd=gpu1");
    CHECK(other.exit_code == 1);
    CHECK_THAT(other.out, Catch::Contains("rediacc.io/amd=gpu1"));
    const auto doc = json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env()).out);
    CHECK(check_of(doc, "docker-cdi")["status"] == "ok");
    CHECK(check_of(doc, "selinux-devices")["status"] == (server.selinux ? "ok" : "skip"));
    CHECK(check_of(doc, "grants")["status"] != "fail");
  }
}

TEST_CASE("setup: an enforcing SELinux host whose policy lacks a GPU's boolean is told so, and setup still ends well") {
  FixtureRoot root;
  two_amd_instinct(root);
  as_server(root, rediacc_servers()[4]);  // Oracle Linux 10, then container-selinux removed
  std::filesystem::remove_all(root.host("/sys/fs/selinux/booleans"));
  FakeTools fakes;
  const auto set = run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", "false"}, "", fakes.env());
  INFO(set.out << set.err);
  CHECK(set.exit_code == 0);
  CHECK_THAT(set.out + set.err, Catch::Contains("the loaded policy has no boolean container_use_devices") &&
                                    Catch::Contains("install container-selinux"));
  const auto calls = fakes.calls();
  CHECK(
      std::none_of(calls.begin(), calls.end(), [](const auto& c) { return c.find("setsebool") != std::string::npos; }));
}
