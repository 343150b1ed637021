// A container that already exists is judged again when it starts, through a real dockerd 20.10:
// its stored hostconfig.json, edited while the daemon was stopped (what a fork, a restored backup
// or anything that writes the data-root can do), is refused as a create would be.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/docker_daemon.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

void ran(const RunResult& r, const std::string& log) {
  INFO(r.out << r.err << log);
  CHECK(r.exit_code == 0);
}

std::string trimmed(std::string s) {
  s.erase(s.find_last_not_of("\n") + 1);
  return s;
}

void edit_host_config(const fs::path& data_root, const std::string& id, const std::function<void(json&)>& edit) {
  const fs::path file = data_root / "containers" / id / "hostconfig.json";
  json config = json::parse(slurp(file));
  edit(config);
  std::ofstream(file) << config.dump();
}

}  // namespace

TEST_CASE("e2e: containers whose stored configuration was edited to carry hardware are refused at start and restart",
          "[e2e]") {
  FixtureRoot machine;
  two_nvidia_datacenter(machine, true);
  // The daemon's data-root, socket and log, kept across its restart: in the machine, so its
  // socket is one the machine names (/srv/web-daemon/docker.sock), reached under --root.
  const fs::path place = machine.host("/srv/web-daemon");
  fs::create_directories(place);
  const std::string name = unique_name("rgpu-e2e-stored");
  const std::vector<std::string> edited = {"device", "privileged", "unmasked", "rules", "caps"};
  std::map<std::string, std::string> ids;
  {
    PluginProcess plugin(name, "web", machine.str(), DockerDaemon::host_in(place));
    DockerDaemon daemon({"--authorization-plugin=" + plugin.name()}, place);
    daemon.import_busybox("img");
    for (const std::string& c : edited) {
      REQUIRE(daemon.docker({"create", "--name", c, "img", "true"}).exit_code == 0);
      ids[c] = trimmed(daemon.docker({"inspect", "-f", "{{.Id}}", c}).out);
    }
    REQUIRE(daemon.docker({"create", "--name", "clean", "img", "true"}).exit_code == 0);
    const std::string clean_id = trimmed(daemon.docker({"inspect", "-f", "{{.Id}}", "clean"}).out);
    // A name, a short ID prefix and a full ID: dockerd resolves each for the plugin as for the start.
    for (const std::string& how : {std::string("clean"), clean_id.substr(0, 7), clean_id})
      ran(daemon.docker({"start", how}), plugin.log());
  }
  // Edited while the daemon is stopped, as a copied or restored data-root would be.
  const auto data = place / "data";
  edit_host_config(data, ids["device"], [](json& c) {
    c["Devices"] = json::array(
        {{{"PathOnHost", "/dev/null"}, {"PathInContainer", "/dev/dri/renderD128"}, {"CgroupPermissions", "rwm"}}});
  });
  edit_host_config(data, ids["privileged"], [](json& c) { c["Privileged"] = true; });
  edit_host_config(data, ids["unmasked"], [](json& c) { c["MaskedPaths"] = json::array(); });
  edit_host_config(data, ids["rules"], [](json& c) { c["DeviceCgroupRules"] = {"c 226:* rwm"}; });
  edit_host_config(data, ids["caps"], [](json& c) { c["CapAdd"] = {"SYS_ADMIN"}; });
  {
    PluginProcess plugin(name, "web", machine.str(), DockerDaemon::host_in(place));
    DockerDaemon daemon({"--authorization-plugin=" + plugin.name()}, place);
    ran(daemon.docker({"start", "clean"}), plugin.log());
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"device", "raw device \"/dev/null\""},
        {"privileged", "--privileged"},
        {"unmasked", "MaskedPaths no longer mask /proc/asound"},
        {"rules", "device cgroup rules"},
        {"caps", "capability CAP_SYS_ADMIN"},
    };
    for (const auto& [c, words] : cases) {
      INFO(c);
      for (const char* verb : {"start", "restart"}) {
        const auto r = daemon.docker({verb, c});
        refused_by_plugin(r, plugin.name(),
                          "container \"/" + c + "\" (" + ids[c].substr(0, 12) + ") of repository \"web\"");
        CHECK_THAT(r.err, Catch::Contains(words));
      }
    }
    CHECK_THAT(plugin.log(), Catch::Contains("refused repo=web route=\"POST /v1.41/containers/device/start\""));
    // doctor names each container a start would refuse: a daemon that restores restart-policy
    // containers at its own start asks no plugin.
    machine.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=unix:///srv/web-daemon/docker.sock\n");
    const auto checked = run_tool({"doctor", "-o", "json", "--root", machine.str()});
    nlohmann::json stale;
    const auto doctor_doc = json::parse(checked.out);

    for (const auto& c : doctor_doc["checks"]) {
      if (c["id"] == "stale-device-containers") stale = c;
    }
    INFO(checked.out);
    REQUIRE_FALSE(stale.is_null());
    CHECK(stale["status"] == "fail");
    CHECK_THAT(stale["observed"].get<std::string>(),
               Catch::Contains("web: /device (" + ids["device"].substr(0, 12) + ", stopped) would be refused") &&
                   Catch::Contains("raw device \"/dev/null\"") && Catch::Contains("web: /caps (") &&
                   !Catch::Contains("/clean"));
    // The real daemon's own word on its version and runtime, judged with this machine's own
    // Debian changelogs: 20.10.24+dfsg1-1+deb12u1 names CVE-2024-41110, runc's deb12u1 CVE-2024-21626.
    fs::create_directories(machine.host("/usr/bin"));
    fs::copy_file("/usr/bin/runc", machine.host("/usr/bin/runc"), fs::copy_options::overwrite_existing);
    for (const std::string package : {"runc", "docker.io"}) {
      const std::string log = "/usr/share/doc/" + package + "/changelog.Debian.gz";
      fs::create_directories(machine.host(log).parent_path());
      fs::copy_file(log, machine.host(log), fs::copy_options::overwrite_existing);
    }
    std::map<std::string, json> by_id;
    const auto escapes_doc = json::parse(run_tool({"doctor", "-o", "json", "--root", machine.str()}).out);
    for (const auto& c : escapes_doc["checks"]) by_id[c["id"].get<std::string>()] = c;
    const std::string docker = by_id["docker-escapes"]["observed"], runc = by_id["runc-escapes"]["observed"];
    INFO(docker << "\n" << runc);
    CHECK_THAT(docker, Catch::Contains("the daemon of repository web 20.10.24") && Catch::Contains("CVE-2026-34040") &&
                           !Catch::Contains("CVE-2024-41110 ("));
    CHECK_THAT(
        runc, Catch::Contains("runc (run by the daemon of repository web) 1.1.") && !Catch::Contains("CVE-2024-21626"));
    CHECK_THAT(by_id["daemon-cdi-dirs"]["observed"].get<std::string>(),
               Catch::Contains("the daemon of repository web (20.10.24") &&
                   Catch::Contains("reports no CDISpecDirs (API before 1.44)"));
    fs::remove(machine.host("/etc/rediacc/gpu/plugins/web.env"));
  }
  // A plugin that was not told the repository's daemon cannot judge a start: it refuses, and says
  // where the daemon's address goes.
  PluginProcess blind(name, "web", machine.str(), "");
  DockerDaemon daemon({"--authorization-plugin=" + blind.name()}, place);
  refused_by_plugin(daemon.docker({"start", "clean"}), blind.name(),
                    "was started without --docker-host, so it cannot see what the container attaches; set "
                    "REDIACC_GPU_DOCKER_HOST=unix:///PATH/docker.sock in /etc/rediacc/gpu/plugins/web.env");
  CHECK_THAT(blind.log(), Catch::Contains("warning: no --docker-host"));
}

TEST_CASE("e2e: --volumes-from a container made before the gate cannot carry its host binds into a new one", "[e2e]") {
  FixtureRoot machine;
  two_nvidia_datacenter(machine, true);
  FixtureRoot place;
  const std::string name = unique_name("rgpu-e2e-volfrom");
  {
    // Before the gate: a container bound to the host's /dev, never started.
    DockerDaemon daemon({}, place.path());
    daemon.import_busybox("img");
    ran(daemon.docker({"create", "--name", "holder", "-v", "/dev:/hostdev", "img", "true"}), daemon.log());
    ran(daemon.docker({"create", "--name", "plain", "-v", "data:/data", "img", "true"}), daemon.log());
    // The door is real: without the gate, a new container sees the host's device nodes through it.
    const auto seen = daemon.docker({"run", "--rm", "--volumes-from", "holder", "img", "ls", "/hostdev/null"});
    CHECK(seen.exit_code == 0);
  }
  PluginProcess plugin(name, "web", machine.str(), DockerDaemon::host_in(place.path()));
  DockerDaemon daemon({"--authorization-plugin=" + plugin.name()}, place.path());
  for (const std::string& from : {std::string("holder"), std::string("holder:ro")}) {
    const auto r = daemon.docker({"run", "--rm", "--volumes-from", from, "img", "ls", "/hostdev/null"});
    refused_by_plugin(r, plugin.name(), "a mount of container \"holder\" (--volumes-from)");
    CHECK_THAT(r.err, Catch::Contains("/dev"));
  }
  // A named volume of another container of the repository is no host path: allowed.
  const auto ok = daemon.docker({"run", "--rm", "--volumes-from", "plain", "img", "ls", "/data"});
  ran(ok, plugin.log());
  refused_by_plugin(daemon.docker({"create", "--volumes-from", "nosuch", "img", "true"}), plugin.name(),
                    "--volumes-from nosuch: the gate could not read that container");
}
