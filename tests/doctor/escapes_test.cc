// doctor against the runtime's and the daemon's known escapes, and what each daemon says it reads:
// a stand-in daemon answering GET /info and /version on a fixture machine's socket, and a
// recorded fake of `runc --version`, with and without the distribution's changelog.

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/version.h"
#include "doctor/policy/known_escapes.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu;
using namespace rgpu::doctor;
using namespace rgpu::test;
using nlohmann::json;

namespace {

// What a stand-in daemon answers: GET /info and GET /version.
std::map<std::string, json> answers(json info, json version) { return {{"/info", info}, {"/version", version}}; }

json info_of(const json& dirs) {
  return {{"DefaultRuntime", "runc"}, {"Runtimes", {{"runc", {{"path", "runc"}}}}}, {"CDISpecDirs", dirs}};
}

// The machine's runc (the root's /usr/bin/runc, as its dockerd finds it), a recorded fake.
void fake_runc(const FixtureRoot& root, const std::string& version, const std::string& commit) {
  const auto path = root.host("/usr/bin/runc");
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\nprintf 'runc version " << version << "\\ncommit: " << commit
                      << "\\nspec: 1.0.2-dev\\n'\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
}

void changelog(const FixtureRoot& root, const std::string& package, const std::string& text) {
  const std::string plain = "/usr/share/doc/" + package + "/changelog.Debian";
  root.write(plain, text);
  REQUIRE(run_program("/bin/gzip", {"-9n", root.host(plain).string()}).exit_code == 0);
}

json escape_check(const FixtureRoot& root, const FakeTools& fakes, const std::string& id,
                  const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"doctor", "-o", "json", "--root", root.str()};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_tool(args, "", fakes.env());
  const auto doctor_doc = json::parse(r.out);

  for (const auto& c : doctor_doc["checks"]) {
    if (c["id"] == id) return c;
  }
  FAIL("no check " << id << " in " << r.out);
  return {};
}

}  // namespace

TEST_CASE("known escapes: versions compare as releases, each line against its own fix") {
  CHECK(compare_versions("1.1.5+ds1", "1.1.12") < 0);
  CHECK(compare_versions("1.4.0-rc.2", "1.4.0-rc.3") < 0);
  CHECK(compare_versions("1.4.0", "1.4.0-rc.3") > 0);
  CHECK(compare_versions("v1.2.8", "1.2.8") == 0);
  const auto& runc_2025 = known_escapes().front();
  REQUIRE(std::string(runc_2025.cve) == "CVE-2025-31133");
  for (const char* v : {"1.1.15", "1.2.7", "1.3.2", "1.4.0-rc.2", "1.0.0-rc93"}) CHECK(affected(runc_2025, v));
  for (const char* v : {"1.2.8", "1.2.9", "1.3.3", "1.4.0-rc.3", "1.4.0", "1.5.1"}) CHECK_FALSE(affected(runc_2025, v));
  CHECK(standing(runc_2025, "1.1.5+ds1-1+deb12u1", std::nullopt) == Standing::unknown);
  CHECK(standing(runc_2025, "1.1.5", std::nullopt) == Standing::affected);
  CHECK(standing(runc_2025, "1.1.5+ds1", std::string("* CVE-2025-31133: fixed")) == Standing::patched_by_distribution);
}

TEST_CASE("doctor: the daemons' runc and Docker are judged against the known escapes, distribution patches read") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FakeTools fakes;
  SECTION("Debian 12's runc: its changelog patches CVE-2024-21626, not the November 2025 escapes") {
    StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi"}), {{"Version", "20.10.24+dfsg1"}}));
    fake_runc(root, "1.1.5+ds1", "1.1.5+ds1-1+deb12u1");
    changelog(root, "runc", "runc (1.1.5+ds1-1+deb12u1) bookworm-security\n  * CVE-2024-21626: leaked fds\n");
    changelog(root, "docker.io", "docker.io (20.10.24+dfsg1-1+deb12u1)\n  * Fix CVE-2024-41110: Authz zero length\n");
    const auto runc = escape_check(root, fakes, "runc-escapes");
    INFO(runc.dump(2));
    CHECK(runc["status"] == "fail");
    CHECK(runc["layer"] == 5);
    const std::string seen = runc["observed"];
    CHECK_THAT(seen, Catch::Contains("runc (run by dockerd 4242) 1.1.5+ds1-1+deb12u1 has CVE-2025-31133") &&
                         Catch::Contains("CVE-2025-52565") && Catch::Contains("CVE-2025-52881") &&
                         Catch::Contains("fixed in 1.2.8, 1.3.3, 1.4.0-rc.3") && !Catch::Contains("CVE-2024-21626"));
    // Docker: 41110 patched by Debian; 34040 unpatched, a warning: the gate refuses missing bodies.
    const auto docker = escape_check(root, fakes, "docker-escapes");
    INFO(docker.dump(2));
    CHECK(docker["status"] == "warn");
    CHECK_THAT(docker["observed"].get<std::string>(),
               Catch::Contains("CVE-2026-34040") && Catch::Contains("fixed in 29.3.1") &&
                   Catch::Contains("the gate refuses every route it judges when the body is missing") &&
                   !Catch::Contains("CVE-2024-41110"));
  }
  SECTION("a fixed runc and Docker pass") {
    StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi"}), {{"Version", "29.3.1"}}));
    fake_runc(root, "1.3.3", "v1.3.3-0-gd842d771");
    CHECK(escape_check(root, fakes, "runc-escapes")["status"] == "ok");
    CHECK(escape_check(root, fakes, "docker-escapes")["status"] == "ok");
  }
  SECTION("a distribution build with no changelog to read cannot be told") {
    StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi"}), {{"Version", "26.1.4+dfsg1"}}));
    fake_runc(root, "1.1.5+ds1", "1.1.5+ds1-1+deb12u1");
    const auto runc = escape_check(root, fakes, "runc-escapes");
    CHECK(runc["status"] == "warn");
    CHECK_THAT(runc["observed"].get<std::string>(), Catch::Contains("cannot tell whether the distribution patched"));
  }
  SECTION("upstream builds are judged on their number") {
    StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi"}), {{"Version", "26.1.4"}}));
    fake_runc(root, "1.1.11", "v1.1.11-0-g4bccb38c");
    const auto runc = escape_check(root, fakes, "runc-escapes");
    CHECK(runc["status"] == "fail");
    CHECK_THAT(runc["observed"].get<std::string>(), Catch::Contains("CVE-2024-21626") && Catch::Contains("1.1.12"));
    const auto docker = escape_check(root, fakes, "docker-escapes");
    CHECK_THAT(docker["observed"].get<std::string>(),
               Catch::Contains("CVE-2024-41110") && Catch::Contains("26.1.5") && Catch::Contains("CVE-2026-34040"));
  }
}

TEST_CASE("doctor: each daemon is asked which spec directories it reads, and rootless Docker 28.2+ is named") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FakeTools fakes;
  fake_runc(root, "1.3.3", "v1.3.3");
  SECTION("a directory beside /etc/cdi fails") {
    StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi", "/var/run/cdi"}), {{"Version", "27.5.1"}}));
    const auto dirs = escape_check(root, fakes, "daemon-cdi-dirs");
    CHECK(dirs["status"] == "fail");
    CHECK(dirs["layer"] == 3);
    CHECK_THAT(dirs["observed"].get<std::string>(), Catch::Contains("dockerd 4242 also reads /var/run/cdi"));
  }
  SECTION("/etc/cdi alone passes, with the devices the CDI driver sees") {
    json info = info_of({"/etc/cdi"});
    info["DiscoveredDevices"] =
        json::parse(R"([{"Source":"cdi","ID":"nvidia.com/gpu=0"},{"Source":"cdi","ID":"nvidia.com/gpu=1"}])");
    StandInDaemon daemon(root, "4242", answers(info, {{"Version", "28.3.0"}}));
    const auto dirs = escape_check(root, fakes, "daemon-cdi-dirs");
    CHECK(dirs["status"] == "ok");
    CHECK_THAT(dirs["observed"].get<std::string>(),
               Catch::Contains("dockerd 4242 reads /etc/cdi, its CDI driver sees 2 devices"));
  }
  SECTION("a directory someone other than root can write fails, as the daemon sees it through /proc/PID/root") {
    // A rootless Docker 29.2+ lists its user's XDG directories; a root daemon an operator pointed
    // at a shared directory.
    root.mkdir("/proc/4444/root/etc/cdi");
    root.mkdir("/proc/4444/root/home/u/.config/cdi");
    REQUIRE(::chown(root.host("/proc/4444/root/home/u").c_str(), 1000, 1000) == 0);
    StandInDaemon rootless(
        root, "4444",
        answers(info_of({"/etc/cdi", "/home/u/.config/cdi", "/run/user/1000/cdi"}), {{"Version", "29.2.0"}}), 1000);
    const auto dirs = escape_check(root, fakes, "daemon-cdi-dirs");
    INFO(dirs.dump(2));
    CHECK(dirs["status"] == "fail");
    CHECK_THAT(dirs["observed"].get<std::string>(),
               Catch::Contains("reads specs in /home/u/.config/cdi, where /home/u is owned by uid 1000") &&
                   !Catch::Contains("reads specs in /etc/cdi"));
    CHECK_THAT(dirs["meaning"].get<std::string>(), Catch::Contains("define a granted name anew"));
  }
  SECTION("a shared directory made world-writable, or a missing one under a sticky /tmp, fails; /etc/cdi passes") {
    // One daemon per case (a stand-in's socket is named by its pid).
    for (const char* pid : {"4242", "4343", "4545"}) {
      root.mkdir("/proc/" + std::string(pid) + "/root/etc/cdi");
      root.mkdir("/proc/" + std::string(pid) + "/root/opt/cdi");
      root.mkdir("/proc/" + std::string(pid) + "/root/tmp");
      REQUIRE(::chmod(root.host("/proc/" + std::string(pid) + "/root/opt/cdi").c_str(), 0777) == 0);
      REQUIRE(::chmod(root.host("/proc/" + std::string(pid) + "/root/tmp").c_str(), 01777) == 0);
    }
    {
      StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi", "/opt/cdi"}), {{"Version", "27.5.1"}}));
      CHECK_THAT(escape_check(root, fakes, "daemon-cdi-dirs")["observed"].get<std::string>(),
                 Catch::Contains("reads specs in /opt/cdi, where /opt/cdi is writable by everyone"));
    }
    {
      StandInDaemon daemon(root, "4343", answers(info_of({"/etc/cdi", "/tmp/cdi"}), {{"Version", "27.5.1"}}));
      CHECK_THAT(escape_check(root, fakes, "daemon-cdi-dirs")["observed"].get<std::string>(),
                 Catch::Contains("reads specs in /tmp/cdi, where /tmp is writable by everyone"));
    }
    StandInDaemon daemon(root, "4545", answers(info_of({"/etc/cdi"}), {{"Version", "27.5.1"}}));
    CHECK(escape_check(root, fakes, "daemon-cdi-dirs")["status"] == "ok");
  }
  SECTION("rootless 28.2 and later also reads its user's XDG directories") {
    StandInDaemon daemon(root, "4444", answers(info_of({"/etc/cdi"}), {{"Version", "28.2.1"}}), 1000);
    const auto dirs = escape_check(root, fakes, "daemon-cdi-dirs");
    CHECK(dirs["status"] == "warn");
    CHECK_THAT(
        dirs["observed"].get<std::string>(),
        Catch::Contains("rootless Docker 28.2.1, which also reads $XDG_CONFIG_HOME/cdi and $XDG_RUNTIME_DIR/cdi"));
  }
}

// A Docker that cannot attach CDI devices is a layer-3 finding from what the daemon says, found
// before any container is tried, also for a daemon doctor reaches only through --docker-host.
TEST_CASE("doctor: a daemon without CDI fails at layer 3 from its own answer, also one named by --docker-host") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  FakeTools fakes;
  fake_runc(root, "1.3.3", "v1.3.3");
  SECTION("Debian 12's dockerd predates CDI") {
    json info = {{"DefaultRuntime", "runc"}};
    StandInDaemon daemon(root, "4242", answers(info, {{"Version", "20.10.24+dfsg1"}}));
    const auto c = escape_check(root, fakes, "daemon-cdi");
    CHECK(c["status"] == "fail");
    CHECK(c["layer"] == 3);
    CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("dockerd 4242 (Docker 20.10.24+dfsg1) predates CDI"));
  }
  SECTION("Docker 26 with the feature off") {
    json info = {{"DefaultRuntime", "runc"}, {"CDISpecDirs", nullptr}};
    StandInDaemon daemon(root, "4242", answers(info, {{"Version", "26.1.5+dfsg1"}}));
    const auto c = escape_check(root, fakes, "daemon-cdi");
    CHECK(c["status"] == "fail");
    CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("\"features\": {\"cdi\": true}"));
  }
  SECTION("Docker 28.3 with its spec directories passes") {
    StandInDaemon daemon(root, "4242", answers(info_of({"/etc/cdi"}), {{"Version", "28.3.0"}}));
    CHECK(escape_check(root, fakes, "daemon-cdi")["status"] == "ok");
  }
  SECTION("a daemon only --docker-host names") {
    StandInDaemon daemon(root, "4343", answers({{"DefaultRuntime", "runc"}}, {{"Version", "20.10.24+dfsg1"}}), 0,
                         false);
    CHECK(escape_check(root, fakes, "daemon-cdi")["status"] == "skip");
    const auto c = escape_check(root, fakes, "daemon-cdi", {"--docker-host", "unix://" + daemon.socket()});
    INFO(c.dump());
    CHECK(c["status"] == "fail");
    CHECK(c["layer"] == 3);
    CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("the daemon at unix://" + daemon.socket()));
  }
}
