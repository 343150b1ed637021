#include "tests/support/renet_repository.h"

#include <catch2/catch.hpp>

#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace std::string_literals;

namespace rgpu::test {

void rediacc_machine(const FixtureRoot& machine) {
  two_amd_instinct(machine);
  REQUIRE(run_tool({"cdi", "generate", "--root", machine.str()}).exit_code == 0);
  machine.link("/var/run", "../run");  // as on the chroot's Debian, and every Debian
  machine.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "rediacc", "reason": "e2e"})");
  for (const auto& [pid, id, mount] : {std::tuple{"910001", "2816", std::string(kRediaccMount)},
                                       std::tuple{"910002", "2880", std::string(kOtherRediaccMount)}}) {
    const std::string config = mount + "/.rediacc/docker/config/daemon.json";
    machine.write(config, R"({"data-root": ")" + mount + R"(/.rediacc/docker/data"})");
    machine.mkdir(mount + "/app/data");
    machine.mkdir(mount + "/.rediacc/docker/data");
    machine.write("/proc/"s + pid + "/cmdline",
                  "dockerd\0--config-file\0"s + config + "\0--host\0unix:///run/rediacc/docker-"s + id + ".sock\0"s);
    machine.write("/run/rediacc/secrets/"s + id + "/DB_PASSWORD", id);
  }
  machine.write("/run/rediacc/docker-2880.sock", "");
  // The views the daemons read (setup makes each repository's, empty until it holds a name).
  machine.mkdir("/var/lib/rediacc/gpu/cdi/2816");
  machine.mkdir("/var/lib/rediacc/gpu/cdi/2880");
}

void grant_web(const FixtureRoot& machine, const std::string& name) {
  const auto r = run_tool({"grant", "2816", "--device", name, "--root", machine.str()});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

namespace {

const FixtureRoot& laid_out(const FixtureRoot& m, const std::string& granted) {
  rediacc_machine(m);
  if (!granted.empty()) grant_web(m, granted);
  return m;
}

CdiDockerOptions daemon_of(const FixtureRoot& m, const RenetOptions& r) {
  CdiDockerOptions o;
  o.rediacc_id = "2816";
  if (r.on_view) o.cdi_dir = m.host("/var/lib/rediacc/gpu/cdi/2816").string();
  o.runtime_verifier = r.runtime_verifier;
  o.mount_from_machine = r.mount_from_machine;
  return o;
}

}  // namespace

RenetRepository::RenetRepository(const RenetOptions& options)
    : machine(), docker(laid_out(machine, options.granted), daemon_of(machine, options)) {
  // What the gate reads of the daemon's wiring: its containerd's PATH, the verifier first.
  wire_runtime_verifier(machine, "910001", options.runtime_verifier);
  docker.import_busybox("img");
}

}  // namespace rgpu::test
