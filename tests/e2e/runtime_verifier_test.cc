// The gate holds where the container is made: the ways to the host that no request shows the
// plugin (a restart by policy, by a daemon's restart, a start racing a tenant's link swap), tried as
// a tenant would through Docker 26 and 28.5 with the plugin live, on a machine laid out as renet
// lays it out, and the verifier setup puts in front of runc refusing each at runc's own config.
// The repository's mount is the fixture machine's own directory, so the plugin, the daemon and runc
// all see the tenant's link.

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/support/cdi_docker.h"
#include "tests/support/docker_daemon.h"
#include "tests/support/renet_repository.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
namespace fs = std::filesystem;

namespace {

// What the tenant wants: another repository's secret, which no bind may reach.
constexpr const char* kOtherSecret = "/run/rediacc/secrets/2880";
constexpr const char* kToken = "token-of-repository-2880";

// Repository 2816 behind its plugin and the verifier, with repository 2880's secret on the host
// (the chroot's /run).
struct Tenant {
  Tenant() : repo(RenetOptions{.granted = "", .on_view = false, .runtime_verifier = true, .mount_from_machine = true}) {
    fs::create_directories(repo.docker.root() + kOtherSecret);
    repo.docker.write_file(std::string(kOtherSecret) + "/TOKEN", std::string(kToken) + "\n");
  }
  // The tenant's own directory `dir` under its mount (machine path, the same in the chroot).
  std::string own(const std::string& dir) const {
    const std::string source = std::string(kRediaccMount) + "/app/" + dir;
    repo.machine.write(source + "/mine", "the tenant's own file\n");  // what its service lists
    return source;
  }
  // The tenant replaces its checked directory with a link to the other repository's secrets, as
  // it can from its SSH session or another container: no request reaches the plugin.
  void swap_in_link(const std::string& source) const {
    const auto dir = repo.machine.host(source);
    fs::rename(dir, dir.string() + ".real");
    fs::create_symlink(kOtherSecret, dir);
  }
  // Waits until `name` has written something (its first start), up to 20 s.
  void wait_for_output(const std::string& name) const {
    for (int i = 0; i < 200 && repo.docker.docker({"logs", name}).out.empty(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::string state_error(const std::string& name) const {
    return repo.docker.docker({"inspect", "-f", "{{.State.Error}}", name}).out;
  }
  RenetRepository repo;
};

std::vector<std::string> service(const std::string& name, const std::string& source, const std::string& restart,
                                 const std::string& script) {
  return {"run",     "-d", "--name",          name,  "--restart", restart, "--network", "host", "--cap-drop",
          "NET_RAW", "-v", source + ":/data", "img", "sh",        "-c",    script};
}

// The script of a service that keeps data and exits now and then: what it reads each time.
constexpr const char* kReadsData = "ls /data; cat /data/TOKEN 2>/dev/null; sleep 1";

void never_read_the_secret(const Tenant& t, const std::string& name, const std::string& source) {
  const auto logs = t.repo.docker.docker({"logs", name});
  INFO(logs.out << logs.err << t.repo.docker.plugin_log() << t.repo.docker.daemon_log());
  CHECK_THAT(logs.out, !Catch::Contains(kToken));
  // It was not started again with the link: the verifier refused, and dockerd kept its sentence.
  // (In the gate's own words: the verifier judges the bind as the gate does before it opens it.)
  CHECK_THAT(t.state_error(name), Catch::Contains("runtime create failed: refused: ") &&
                                      Catch::Contains("\"" + source + "\"") && Catch::Contains("secrets/2880"));
}

}  // namespace

TEST_CASE("runtime verifier: a restart by policy after the tenant swapped its bind for a link mounts nothing",
          "[e2e][cdi-docker]") {
  Tenant t;
  auto& docker = t.repo.docker;
  for (const std::string policy : {"always", "on-failure:5"}) {
    const std::string name = "svc-" + policy.substr(0, policy.find(':'));
    const std::string source = t.own(name);
    ran(docker, docker.docker(service(name, source, policy, std::string(kReadsData) + "; exit 3")));
    t.wait_for_output(name);
    t.swap_in_link(source);
    // The process exits within a second; dockerd starts it again at once, asking nobody.
    std::this_thread::sleep_for(std::chrono::seconds(4));
    never_read_the_secret(t, name, source);
  }
}

TEST_CASE("runtime verifier: a restart policy set by update after create mounts no swapped link", "[e2e][cdi-docker]") {
  Tenant t;
  auto& docker = t.repo.docker;
  const std::string source = t.own("data");
  ran(docker, docker.docker(service("svc", source, "no", "ls /data; cat /data/TOKEN 2>/dev/null; sleep 3")));
  t.wait_for_output("svc");
  ran(docker, docker.docker({"update", "--restart", "always", "svc"}));
  t.swap_in_link(source);
  std::this_thread::sleep_for(std::chrono::seconds(5));
  never_read_the_secret(t, "svc", source);
}

TEST_CASE("runtime verifier: a daemon's restart restores no container whose bind became a link", "[e2e][cdi-docker]") {
  Tenant t;
  auto& docker = t.repo.docker;
  const std::string source = t.own("data");
  ran(docker, docker.docker(service("svc", source, "always", "ls /data; cat /data/TOKEN 2>/dev/null; sleep 300")));
  t.wait_for_output("svc");
  t.swap_in_link(source);
  // renet's restart: dockerd stops its containers, comes back, and starts those with a policy.
  docker.restart_as_renet(CdiDocker::renet_daemon_json());
  std::this_thread::sleep_for(std::chrono::seconds(4));
  never_read_the_secret(t, "svc", source);
}

TEST_CASE("runtime verifier: no start racing a tenant's exchange of its directory and a link mounts the link",
          "[e2e][cdi-docker]") {
  // The host side of the tenant (its SSH session) exchanges the checked directory and a link to the
  // other repository's secrets in a tight loop while its containers are started again and again: the
  // plugin checks one name, runc mounts whichever is there a moment later.
  Tenant t;
  auto& docker = t.repo.docker;
  const std::string source = t.own("race");
  const auto dir = t.repo.machine.host(source);
  const auto link = dir.string() + ".link";
  fs::create_symlink(kOtherSecret, link);
  t.repo.machine.mkdir(std::string(kRediaccMount) + "/app/out");
  constexpr int kContainers = 10;
  std::vector<std::string> start = {"start"};
  for (int i = 0; i < kContainers; ++i) {
    const std::string name = "racer" + std::to_string(i);
    ran(docker, docker.docker({"create", "--name", name, "--network", "host", "--cap-drop", "NET_RAW", "-v",
                               source + ":/data", "-v", std::string(kRediaccMount) + "/app/out:/out", "img", "sh", "-c",
                               "cat /data/TOKEN >> /out/hits 2>/dev/null; true"}));
    start.push_back(name);
  }
  std::atomic<bool> racing = true;
  std::thread exchange([&] {
    while (racing) ::renameat2(AT_FDCWD, dir.c_str(), AT_FDCWD, link.c_str(), RENAME_EXCHANGE);
  });
  int attempted = 0, started = 0;
  const int rounds = 100;
  for (int round = 0; round < rounds; ++round) {
    const auto r = docker.docker(start);
    attempted += kContainers;
    for (size_t at = 0; (at = r.out.find("racer", at)) != std::string::npos; ++at) ++started;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // each has exited before its next start
  }
  racing = false;
  exchange.join();
  const std::string hits = slurp(t.repo.machine.host(std::string(kRediaccMount) + "/app/out/hits"));
  const auto mounted_link = std::count(hits.begin(), hits.end(), '\n');
  WARN("Docker " << cdi_docker_major() << ": " << attempted << " starts, " << started << " ran, " << mounted_link
                 << " mounted the link's target");
  INFO(docker.plugin_log() << docker.daemon_log());
  CHECK(attempted >= 1000);
  CHECK(started > 0);
  CHECK(mounted_link == 0);
  // What the verifier staged went with each runc command: its tmpfs, root's alone, holds nothing.
  const fs::path staging = "/proc/" + std::to_string(docker.daemon_pid()) + "/root/run/rediacc-gpu/staging";
  struct ::stat st {};
  REQUIRE(::stat(staging.c_str(), &st) == 0);
  CHECK(st.st_uid == 0);
  CHECK((st.st_mode & 0777) == 0700);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(staging)) left.push_back(e.path().filename().string());
  INFO(left.size() << " left, first: " << (left.empty() ? "" : left.front()));
  CHECK(left.empty());
}

TEST_CASE(
    "runtime verifier: a service on the host's network passes as renet writes it, and neither it, a process exec'd "
    "into it nor one joining its network opens a packet socket",
    "[e2e][cdi-docker]") {
  // Without the verifier the gate refuses the request (rediacc_host_test.cc); with it the request
  // stands and the capability is taken where runc makes the container. A request naming runc
  // itself reaches the verifier too.
  Tenant t;
  auto& docker = t.repo.docker;
  const std::string probe = "busybox arping -c 1 -w 1 -I lo 127.0.0.1 2>&1; echo done";
  const std::string denied = "arping: socket: Operation not permitted";
  for (const std::vector<std::string>& run :
       {std::vector<std::string>{"run", "--rm", "--network", "host", "img", "sh", "-c", probe},
        {"run", "--rm", "--runtime", "runc", "--network", "host", "img", "sh", "-c", probe},
        {"run", "--rm", "--network", "host", "--cap-add", "NET_RAW", "img", "sh", "-c", probe}}) {
    const auto r = docker.docker(run);
    INFO(r.out << r.err << docker.plugin_log());
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains(denied) && Catch::Contains("done"));
  }
  ran(docker, docker.docker({"run", "-d", "--name", "svc", "--network", "host", "img", "sleep", "60"}));
  // dockerd gives an exec'd process the capabilities of the container's spec as it wrote it.
  const auto exec = docker.docker({"exec", "svc", "sh", "-c", probe});
  INFO(exec.out << exec.err << docker.daemon_log());
  CHECK_THAT(exec.out, Catch::Contains(denied) && Catch::Contains("done"));
  const auto joined = docker.docker({"run", "--rm", "--network", "container:svc", "img", "sh", "-c", probe});
  INFO(joined.out << joined.err);
  CHECK_THAT(joined.out, Catch::Contains(denied) && Catch::Contains("done"));
  // Off the host's network a container keeps Docker's default, packet sockets included.
  const auto own = docker.docker({"run", "--rm", "--network", "none", "img", "sh", "-c", probe});
  INFO(own.out << own.err);
  CHECK_THAT(own.out, !Catch::Contains(denied) && Catch::Contains("done"));
  docker.docker({"rm", "-f", "svc"});
}
