// doctor's verdict on a stored container is the gate's own: one machine, one repository daemon
// answering the same stored containers, judged by `admit` (the plugin's gate, as assembled for
// every request) and by doctor. For each reason the gate refuses a start that a world knowing less
// would miss (the hardware a name reaches moved, a spec's hook its grant did not review, a bind of
// another repository's mount), doctor names the container with the gate's own words.

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"
#include "tests/support/machines.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
using nlohmann::json;

namespace {

// The vendor's spec, its toolkit name's hook moved to a program of the vendor's own.
std::string hook_moved(std::string spec) {
  const std::string toolkit = "path: /usr/bin/nvidia-cdi-hook";
  spec.replace(spec.find(toolkit), toolkit.size(), "path: /opt/vendor/bin/hook");
  return spec;
}

// A stopped container as dockerd 26 stores it, with `devices` requested by CDI name and `binds`.
json stored(const std::string& id, const std::string& name, const std::vector<std::string>& devices,
            const std::vector<std::string>& binds) {
  auto c = inspect_fixture("plain-26.1.5.json");
  c["Id"] = id;
  c["Name"] = "/" + name;
  if (!devices.empty())
    c["HostConfig"]["DeviceRequests"] = json::array({{{"Driver", "cdi"}, {"Count", 0}, {"DeviceIDs", devices}}});
  if (!binds.empty()) c["HostConfig"]["Binds"] = binds;
  return c;
}

}  // namespace

TEST_CASE(
    "doctor: a stored container the gate refuses at its next start is named with the gate's words, for each reason "
    "the gate's live world knows") {
  FixtureRoot m;
  // Granted while the cards had these numbers and the vendor's hook was the toolkit's.
  workstation_numbered(m, {128, 129, 130});
  m.char_node("/dev/null", 1, 3);
  m.char_node("/dev/zero", 1, 5);
  m.write("/etc/cdi/vendor.com-xpu.yaml", vendor_xpu_spec("--flag"));
  REQUIRE(tool_on(m, {"cdi", "generate"}).exit_code == 0);
  for (const char* name : {"rediacc.io/dri=renderD129", "vendor.com/xpu=toolkit"})
    REQUIRE(tool_on(m, {"grant", "web", "--device", name}).exit_code == 0);
  // Then the cards trade numbers at a boot, the vendor's spec runs a program of its own, and the
  // machine is laid out as Rediacc lays it out, with a second repository beside "web".
  workstation_numbered(m, {128, 130, 129});
  m.char_node("/dev/null", 1, 3);
  m.char_node("/dev/zero", 1, 5);
  REQUIRE(tool_on(m, {"cdi", "generate"}).exit_code == 0);
  m.write("/etc/cdi/vendor.com-xpu.yaml", hook_moved(vendor_xpu_spec("--flag")));
  rediacc_two_repositories(m);

  const std::string moved(64, 'a'), hooked(64, 'b'), peer(64, 'c'), clean(64, 'd');
  const std::map<std::string, json> containers = {
      {moved, stored(moved, "moved", {"rediacc.io/dri=renderD129"}, {})},
      {hooked, stored(hooked, "hooked", {"vendor.com/xpu=toolkit"}, {})},
      {peer, stored(peer, "peer", {}, {std::string(kRediaccOtherMount) + "/app/data:/x"})},
      {clean, stored(clean, "clean", {}, {})},
  };
  std::map<std::string, json> routes;
  json list = json::array();
  for (const auto& [id, c] : containers) {
    list.push_back({{"Id", id}, {"Names", {c["Name"]}}});
    routes["/containers/" + id + "/json"] = c;
  }
  routes["/containers/json?all=1"] = list;
  StandInDaemon daemon(m, "9001", routes, 0, false);
  // The repository's daemon where renet puts it: its socket, and its plugin's environment file.
  std::filesystem::remove(m.host("/run/rediacc/docker-2816.sock"));
  // A relative link, which the kernel and a reader confined to the root follow alike.
  std::filesystem::create_symlink("../../proc/9001/root/run/d.sock", m.host("/run/rediacc/docker-2816.sock"));
  m.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=unix:///run/rediacc/docker-2816.sock\n");

  // The gate, as dockerd asks it to start each one.
  const auto gate_on_start = [&](const std::string& id) {
    const auto r = run_tool({"admit", "--repo", "web", "--root", m.str(), "--docker-host",
                             "unix://" + m.host("/run/rediacc/docker-2816.sock").string()},
                            R"({"RequestMethod":"POST","RequestUri":"/v1.47/containers/)" + id + R"(/start"})");
    INFO(r.out << r.err);
    const auto reply = json::parse(r.out);
    return std::make_pair(reply.value("Allow", false), reply.value("Msg", std::string()));
  };
  const auto [clean_allowed, clean_why] = gate_on_start(clean);
  INFO(clean_why);
  CHECK(clean_allowed);

  const auto checks = doctor_checks(m, "stale-device-containers");
  REQUIRE(checks.size() == 1);
  const std::string observed = checks[0].value("observed", "");
  INFO(observed);
  CHECK(checks[0]["status"] == "fail");
  CHECK_THAT(observed, !Catch::Contains("/clean"));
  const std::vector<std::pair<std::string, std::string>> refused_for = {
      {moved, "now reaches other hardware than was granted"},
      {hooked, "it now carries hook createContainer /opt/vendor/bin/hook update-ldcache (not in the allow-list)"},
      {peer, "another Rediacc repository's mount"},
  };
  for (const auto& [id, because] : refused_for) {
    const std::string name = containers.at(id)["Name"];
    INFO(name);
    const auto [allowed, why] = gate_on_start(id);
    CHECK_FALSE(allowed);
    CHECK_THAT(why, Catch::Contains(because));
    CHECK_THAT(observed, Catch::Contains("web: " + name + " (" + id.substr(0, 12) +
                                         ", stopped) would be refused at "
                                         "its next start (" +
                                         why + ")"));
  }
}
