// doctor on a machine laid out as Rediacc lays it out: which policy the gate applies, renet's
// repository daemons each behind its own plugin, and what a host-network container reaches that
// the repositories' loopback isolation does not cover.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using nlohmann::json;
using namespace std::string_literals;

namespace {

json policy_check(const FixtureRoot& root, const std::string& id) {
  const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()});
  const auto doc = json::parse(r.out);
  for (const auto& c : doc["checks"]) {
    if (c["id"] == id) return c;
  }
  FAIL("no check " << id << " in " << r.out);
  return {};
}

void renet_units(const FixtureRoot& root) {
  for (const char* id : {"2816", "2880"}) {
    root.write("/etc/systemd/system/rediacc-docker-"s + id + ".service", "[Service]\nExecStart=/bin/true\n");
    root.write("/run/rediacc/docker-"s + id + ".sock", "");
  }
}

void policy_repo_daemon(const FixtureRoot& root, const std::string& pid, const std::string& id,
                        const std::string& plugin) {
  std::string cmdline = "/usr/bin/dockerd\0-H\0unix:///run/rediacc/docker-"s + id + ".sock\0"s;
  if (!plugin.empty()) cmdline += "--authorization-plugin=" + plugin + '\0';
  root.write("/proc/" + pid + "/cmdline", cmdline);
  root.write("/proc/" + pid + "/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
}

}  // namespace

TEST_CASE("doctor: the host policy is named with why, and none recorded on a Rediacc machine fails") {
  FixtureRoot root;
  intel_discrete(root);
  CHECK(policy_check(root, "host-policy")["status"] == "ok");
  renet_units(root);
  auto none = policy_check(root, "host-policy");
  CHECK(none["status"] == "fail");
  CHECK_THAT(none["meaning"].get<std::string>(), Catch::Contains("refuse every renet service"));
  root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "strict", "reason": "--host-policy=strict"})");
  CHECK(policy_check(root, "host-policy")["status"] == "warn");
  root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "rediacc", "reason": "found a Rediacc layout"})");
  auto ok = policy_check(root, "host-policy");
  CHECK(ok["status"] == "ok");
  CHECK_THAT(ok["observed"].get<std::string>(), Catch::Contains("host policy rediacc (found a Rediacc layout)"));
  CHECK_THAT(
      ok["observed"].get<std::string>(),
      Catch::Contains("containers may bind host directories only from {mount}, /run/rediacc/secrets/{id}, "
                      "/opt/rediacc/proxy/letsencrypt (read-only) (the policy's defaults: this record predates"));
  root.write(
      "/etc/rediacc/gpu/host-policy.json",
      R"({"policy": "rediacc", "reason": "r", "bind_roots": ["{mount}", "/srv/x:ro"], "bind_roots_named": true})");
  CHECK_THAT(policy_check(root, "host-policy")["observed"].get<std::string>(),
             Catch::Contains("only from {mount}, /srv/x (read-only) (named by an operator: setup --bind-root)"));
  root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "rediacc", "reason": "r", "bind_roots": ["/etc"]})");
  CHECK(policy_check(root, "host-policy")["status"] == "fail");  // a root no setup would record
  root.write("/etc/rediacc/gpu/host-policy.json", "{not json");
  CHECK(policy_check(root, "host-policy")["status"] == "fail");
}

TEST_CASE("doctor: a renet repository daemon running without its own plugin fails, and renet's restart is named") {
  FixtureRoot root;
  intel_discrete(root);
  renet_units(root);
  policy_repo_daemon(root, "4242", "2816", "rediacc-gpu-2816");
  CHECK(policy_check(root, "rediacc-daemons")["status"] == "ok");
  policy_repo_daemon(root, "4343", "2880", "");
  auto bare = policy_check(root, "rediacc-daemons");
  CHECK(bare["status"] == "fail");
  CHECK_THAT(bare["observed"].get<std::string>(),
             Catch::Contains("dockerd 4343 of repository 2880 runs without any rediacc-gpu plugin"));
  // Before setup wired the gate, setup comes first; then renet's own restart of that daemon.
  CHECK(bare["decision"] ==
        "run rediacc-gpu setup (it writes the drop-in that starts each repository daemon behind its own plugin), "
        "then restart it when its tenants can stop for a moment: renet daemon stop --network-id 2880 && renet daemon "
        "start --network-id 2880 (or systemctl restart rediacc-docker-2880.service)");
  root.write("/etc/systemd/system/rediacc-docker-.service.d/70-rediacc-gpu-gate.conf", "[Service]\n");
  CHECK(policy_check(root, "rediacc-daemons")["decision"] ==
        "restart it when its tenants can stop for a moment: renet daemon stop --network-id 2880 && renet daemon start "
        "--network-id 2880 (or systemctl restart rediacc-docker-2880.service) (setup's drop-in starts it behind its "
        "own plugin)");
  policy_repo_daemon(root, "4343", "2880", "rediacc-gpu-2816");
  CHECK_THAT(policy_check(root, "rediacc-daemons")["observed"].get<std::string>(),
             Catch::Contains("calls the plugin of repository 2816"));
}

TEST_CASE(
    "doctor: a guarded daemon whose containers' runc is not the verifier fails with renet's restart, and one wired by "
    "setup passes") {
  FixtureRoot root;
  intel_discrete(root);
  renet_units(root);
  CHECK(policy_check(root, "runtime-verifier")["status"] == "skip");
  policy_repo_daemon(root, "4242", "2816", "rediacc-gpu-2816");
  // Started before setup put the verifier on its PATH: its containerd runs the machine's runc.
  wire_runtime_verifier(root, "4242", false);
  const auto bare = policy_check(root, "runtime-verifier");
  CHECK(bare["status"] == "fail");
  CHECK(bare["observed"] ==
        "dockerd 4242 of repository 2816: its containers' runc is /usr/sbin/runc (first on the PATH of containerd "
        "42421), not the verifier /var/lib/rediacc/gpu/runtime/runc");
  CHECK_THAT(bare["decision"].get<std::string>(),
             Catch::StartsWith("run rediacc-gpu setup (it puts the verifier first on each repository daemon's PATH)") &&
                 Catch::EndsWith("renet daemon stop --network-id 2816 && renet daemon start --network-id 2816 (or "
                                 "systemctl restart rediacc-docker-2816.service)"));
  wire_runtime_verifier(root, "4242");
  const auto wired = policy_check(root, "runtime-verifier");
  CHECK(wired["status"] == "ok");
  CHECK_THAT(wired["observed"].get<std::string>(),
             Catch::Contains("2816 (dockerd 4242: /var/lib/rediacc/gpu/runtime/runc, then /usr/sbin/runc)"));
  // The verifier's staging directory, were it anyone else's, could have a staged source replaced.
  root.mkdir("/run/rediacc-gpu/staging");
  std::filesystem::permissions(root.host("/run/rediacc-gpu/staging"), std::filesystem::perms::all);
  CHECK_THAT(policy_check(root, "runtime-verifier")["observed"].get<std::string>(),
             Catch::Contains("staging directory /run/rediacc-gpu/staging is not root's alone"));
}

TEST_CASE("doctor: on a Rediacc machine no advice edits the daemon.json renet rewrites") {
  FixtureRoot root;
  intel_discrete(root);
  renet_units(root);
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  policy_repo_daemon(root, "4242", "2816", "rediacc-gpu-2816");
  // No view bound: the daemon's /etc/cdi, through /proc/4242/root, is the machine's.
  std::filesystem::create_directories(root.host("/proc/4242"));
  std::filesystem::create_directory_symlink(root.path(), root.host("/proc/4242/root"));
  const auto userns = policy_check(root, "userns");
  CHECK(userns["status"] == "warn");
  CHECK_THAT(userns["decision"].get<std::string>(),
             Catch::StartsWith("not possible for renet's repository daemons: renet rewrites each one's daemon.json") &&
                 Catch::Contains("rediacc-gpu setup --bind-root PATH:ro") && !Catch::Contains("in their daemon.json"));
  const auto view = policy_check(root, "repo-cdi-view");
  CHECK(view["status"] == "fail");
  CHECK(view["decision"] ==
        "run rediacc-gpu setup (its drop-ins bind each repository's view over its daemon's /etc/cdi and /run/cdi), "
        "then restart each named when its tenants can stop for a moment: renet daemon stop --network-id 2816 && renet "
        "daemon start --network-id 2816 (or systemctl restart rediacc-docker-2816.service)");
  // A daemon of the operator's own beside renet's keeps the advice its own daemon.json allows.
  root.write("/proc/4545/cmdline", "/usr/bin/dockerd\0"s);
  root.write("/proc/4545/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
  CHECK_THAT(policy_check(root, "userns")["decision"].get<std::string>(),
             Catch::Contains("\"userns-remap\": \"default\" in their daemon.json"));
}

TEST_CASE("doctor: what host-network containers reach outside the repositories' loopback ranges is listed") {
  FixtureRoot root;
  intel_discrete(root);
  renet_units(root);
  root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "rediacc", "reason": "test"})");
  // 127.0.11.2:8080 is repository 2816's own service; nv-hostengine on 127.0.0.1:5555 and the
  // fabric manager on 0.0.0.0:6666 are the host's; an established connection is no listener.
  root.write("/proc/net/tcp",
             "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
             "   0: 020B007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1\n"
             "   1: 0100007F:15B3 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 2\n"
             "   2: 00000000:1A0A 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 3\n"
             "   3: 0100007F:9C40 0100007F:15B3 01 00000000:00000000 00:00000000 00000000     0        0 4\n");
  root.write("/proc/net/unix",
             "Num       RefCount Protocol Flags    Type St Inode Path\n"
             "0000000000000000: 00000002 00000000 00010000 0001 01 11 @/containerd-shim/abc.sock\n"
             "0000000000000000: 00000002 00000000 00010000 0001 01 12 /run/dbus/system_bus_socket\n");
  auto c = policy_check(root, "host-network");
  CHECK(c["status"] == "warn");
  const auto observed = c["observed"].get<std::string>();
  CHECK_THAT(observed, Catch::Contains("127.0.0.1:5555") && Catch::Contains("0.0.0.0:6666") &&
                           !Catch::Contains("8080") && !Catch::Contains("40000") &&
                           Catch::Contains("@/containerd-shim/abc.sock") && !Catch::Contains("system_bus"));
  CHECK_THAT(c["meaning"].get<std::string>(), Catch::Contains("NET_ADMIN"));
  CHECK_THAT(observed, Catch::Contains("the eBPF isolation is not read under --root"));
  root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "strict", "reason": "test"})");
  CHECK(policy_check(root, "host-network")["status"] == "skip");
}
