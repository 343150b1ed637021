// Layer 5's reads of the machine, made once by facts::read_policy: what the policy checks render
// is there, read under the conditions the checks read it in (host networking only where the
// policy allows it, a changelog only for a version said, the kernel's cgroups only on its own root).

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cdi/spec_index.h"
#include "core/root_fs.h"
#include "docker/running_daemons.h"
#include "facts/docker_reads.h"
#include "facts/policy/policy_reads.h"
#include "tests/support/fixture_root.h"

using namespace rgpu;
using namespace std::string_literals;
using rgpu::test::FixtureRoot;

namespace {

// Answers each program with its canned output, recording every command line it was given.
class CannedRunner final : public CommandRunner {
 public:
  std::map<std::string, std::string> outputs;  ///< by the program's last argument ("--version") or argv[0]
  std::vector<Argv> ran;

 protected:
  Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds,
                               const std::map<std::string, std::string>&) override {
    ran.push_back(argv);
    const auto out = outputs.find(argv[0] == "gzip" ? "gzip" : argv.back());
    if (out == outputs.end()) return CommandResult{.exit_code = 127, .output = "", .performed = true};
    return CommandResult{.exit_code = 0, .output = out->second, .performed = true};
  }
};

facts::PolicyReads read(const RootFs& fs, CommandRunner& runner, const std::vector<facts::DaemonAnswer>& answers = {},
                        const Result<grants::GrantSet>& set = grants::GrantSet{}) {
  const auto daemons = docker::running_docker_daemons(fs);
  const auto specs = cdi::read_spec_index(fs);
  // As the run reads them before: each daemon.json once (read_docker), each repository daemon's address once.
  const auto configs = facts::read_docker(fs, daemons, answers).configs;
  const auto hosts = docker::repo_daemon_addresses(fs, daemons);
  return facts::read_policy({fs, runner, daemons, answers, specs, set, configs, hosts});
}

// A renet repository daemon behind its own plugin, with a daemon.json of its own.
void repository_daemon(const FixtureRoot& root) {
  root.write("/etc/systemd/system/rediacc-docker-2816.service", "[Service]\nExecStart=/bin/true\n");
  root.write("/run/rediacc/docker-2816.sock", "");
  root.write("/proc/4242/cmdline",
             "/usr/bin/dockerd\0-H\0unix:///run/rediacc/docker-2816.sock\0--authorization-plugin=rediacc-gpu-2816\0"
             "--config-file\0/etc/rediacc-docker/2816.json\0"s);
  root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
  root.write("/etc/rediacc-docker/2816.json", R"({"userns-remap": "default"})");
}

}  // namespace

TEST_CASE("facts: layer 5's machine files, host policy and daemons are read once into the policy reads") {
  FixtureRoot root;
  root.write("/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  root.write("/sys/module/apparmor/parameters/enabled", "Y\n");
  root.write("/sys/fs/selinux/enforce", "0");
  root.write("/etc/cdi/nvidia.yaml", "mounts: [{hostPath: /run/nvidia-persistenced/socket}]\n");
  root.write("/run/nvidia-persistenced/socket", "");
  root.write("/run/user/1000/docker.sock", "");
  root.mkdir("/run/user/1001");
  root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "rediacc", "reason": "test"})");
  root.write("/proc/net/tcp", "  sl  local_address\n");
  root.write("/proc/net/unix", "Num RefCount\n");
  root.write("/proc/uptime", "100.00 200.00\n");
  repository_daemon(root);
  const RootFs fs(root.path());
  CannedRunner runner;
  grants::GrantSet set;
  set.grants = {{"2816", "rediacc.io/dri=renderD128", false, ""}};
  const auto p = read(fs, runner, {}, set);

  CHECK(p.cgroup_controllers == NodeKind::file);
  CHECK(p.cgroup_root == NodeKind::directory);
  CHECK(p.apparmor_enabled == "Y");
  CHECK(p.selinux_enforce == "0");
  CHECK(p.persistenced_socket);
  CHECK(p.rootless_sockets == std::vector<std::string>{"/run/user/1000/docker.sock"});
  REQUIRE(p.host_policy);
  REQUIRE(*p.host_policy);
  CHECK((*p.host_policy)->policy == HostPolicy::rediacc);
  CHECK(p.rediacc_layout);
  CHECK(p.rediacc_ids == std::vector<std::string>{"2816"});

  REQUIRE(p.daemons.size() == 1);
  const auto& d = p.daemons.front();
  CHECK(d.daemon.pid == "4242");
  CHECK(d.config_file);
  REQUIRE(d.config);
  CHECK((*d.config)["userns-remap"] == "default");
  CHECK(d.unix_host == "/run/rediacc/docker-2816.sock");
  CHECK(d.plugin_repo == "2816");
  // As the gate reads them: only while the file is what the daemon started with, which needs its start.
  REQUIRE_FALSE(d.builder);
  CHECK_THAT(d.builder.error().message, Catch::Contains("/proc/4242/stat"));
  // Not answering at its repository's address, it is judged on its daemon.json's directories.
  REQUIRE(d.view);
  CHECK_FALSE(d.view->answered);
  CHECK(d.view->dirs.dirs == std::vector<std::string>{"/etc/cdi", "/var/run/cdi"});
  CHECK(d.view->names.size() == 2);

  // Host networking allowed: what it reaches is read; the kernel's cgroups not under --root.
  REQUIRE(p.host_network);
  CHECK(p.host_network->tcp_table == "  sl  local_address\n");
  CHECK(p.host_network->unix_table == "Num RefCount\n");
  CHECK_FALSE(p.host_network->isolation);

  REQUIRE(p.stored.size() == 1);
  CHECK(p.stored.front().repo == "2816");
  CHECK_FALSE(p.stored.front().containers);  // nothing listens there

  REQUIRE(p.grant_reach.size() == 1);
  const auto& reach = p.grant_reach.at("rediacc.io/dri=renderD128");
  REQUIRE(reach);
  CHECK_FALSE(*reach);  // no spec defines it

  // No daemon answered and the root has no runc: nothing was run.
  CHECK(p.runtimes.programs_run);
  REQUIRE(p.runtimes.runtimes.size() == 1);
  CHECK(p.runtimes.runtimes.at("runc").users == std::vector<std::string>{"this machine"});
  CHECK_FALSE(p.runtimes.runtimes.at("runc").found);
  CHECK(runner.ran.empty());
  CHECK(p.runtimes.changelogs.empty());

  SECTION("the strict policy refuses host networking: the socket tables are not read") {
    root.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "strict", "reason": "test"})");
    CHECK_FALSE(read(fs, runner).host_network);
  }
  SECTION("grants.json that does not parse: no granted name's hardware is read") {
    CHECK(read(fs, runner, {}, fail("grants.json is not JSON")).grant_reach.empty());
  }
}

TEST_CASE("facts: each runtime the daemons run is asked its version once, a changelog read only for a version said") {
  FixtureRoot root;
  root.write("/usr/bin/runc", "#!/bin/sh\n");
  root.write("/usr/share/doc/runc/changelog.Debian.gz", "gz");
  const RootFs fs(root.path());
  CannedRunner runner;
  runner.outputs = {{"--version", "runc version 1.1.5+ds1\ncommit: 1.1.5+ds1-1+deb12u1\nspec: 1.0.2-dev\n"},
                    {"gzip", "* CVE-2024-21626\n"}};
  const nlohmann::json info = {{"DefaultRuntime", "runc"}, {"Runtimes", {{"runc", {{"path", "runc"}}}}}};
  const std::vector<facts::DaemonAnswer> answers = {
      {.label = "dockerd 1", .info = info, .version = {{"Version", "26.1.4+dfsg1"}}},
      {.label = "dockerd 2", .info = info, .version = nullptr}};
  const auto p = read(fs, runner, answers);

  REQUIRE(p.runtimes.runtimes.size() == 1);
  const auto& runc = p.runtimes.runtimes.at("runc");
  CHECK(runc.users == std::vector<std::string>{"dockerd 1", "dockerd 2"});
  CHECK(runc.found);
  CHECK(runc.version == "1.1.5+ds1-1+deb12u1");
  CHECK(p.runtimes.changelogs.at("runc") == "* CVE-2024-21626\n");
  // A daemon said its version: docker.io's changelog is looked for, and there is none.
  REQUIRE(p.runtimes.changelogs.contains("docker.io"));
  CHECK_FALSE(p.runtimes.changelogs.at("docker.io"));
  // One --version for both daemons' runc (under --root, the root's own), one gzip for its changelog.
  REQUIRE(runner.ran.size() == 2);
  CHECK(runner.ran[0] == Argv{fs.host_path("/usr/bin/runc").string(), "--version"});
  CHECK(runner.ran[1] == Argv{"gzip", "-dc", fs.host_path("/usr/share/doc/runc/changelog.Debian.gz").string()});

  SECTION("a runtime that does not say its version: no changelog read") {
    runner.outputs.erase("--version");
    runner.ran.clear();
    const auto silent = read(fs, runner, {{.label = "dockerd 1", .info = info, .version = nullptr}});
    CHECK(silent.runtimes.runtimes.at("runc").version.empty());
    CHECK(silent.runtimes.changelogs.empty());
    CHECK(runner.ran.size() == 1);
  }
}
