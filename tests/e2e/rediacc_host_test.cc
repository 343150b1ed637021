// A repository daemon run as renet runs it, through Docker 26 and 28.5: its data root and
// daemon.json in the repository's mount, socket /run/rediacc/docker-ID.sock, bridge none, no
// iptables, experimental; started by name through the dockerd shim setup writes, which adds the
// plugin (renet rewrites daemon.json at every start). The machine's host policy is Rediacc's.
// The plugin judges paths on the fixture machine, laid out as the chroot is: the same mounts and
// sockets, and /proc entries naming the repository daemons as they run (issue: "The gate fits the
// host it guards").

#include <signal.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "tests/support/cdi_docker.h"
#include "tests/support/docker_daemon.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/renet_repository.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using namespace std::string_literals;

namespace {

const std::string kOther = kOtherRediaccMount;

// The Compose file as renet writes it: every service on the host's network, restart "no", its
// labels and environment, the data under the repository's mount.
const char* kRenetCompose = R"(services:
  app:
    image: img
    command: ["sh", "-c", "ls /dev/dri; cat /run/secrets/db"]
    network_mode: host
    cap_drop: [NET_RAW]
    restart: "no"
    labels:
      rediacc.network_id: "2816"
      rediacc.service_ip: "127.0.11.2"
      rediacc.service_name: app
      rediacc.repo_name: web
    environment:
      SERVICE_IP: 127.0.11.2
      REDIACC_NETWORK_ID: "2816"
    devices: [DEVICE]
    volumes:
      - ./data:/data
      - /var/run/rediacc/secrets/2816/DB_PASSWORD:/run/secrets/db:ro
)";

// `docker checkpoint create svc cp1`, bounded: CRIU 4.1.1 (Debian 13's, beside Docker 26) waits
// forever on this machine's kernel for a task in wait4 to trap after its parasite left (CRIU issue
// 162's signature; 28.5's CRIU 4.2 does not). After a minute the CRIU dumping container `id` (its
// work directory names it) is killed, which fails the dump, and `stuck` says so.
RunResult bounded_dump(const CdiDocker& docker, const std::string& id, bool& stuck) {
  auto dump = std::async(std::launch::async, [&] { return docker.docker({"checkpoint", "create", "svc", "cp1"}); });
  if (dump.wait_for(std::chrono::seconds(60)) == std::future_status::ready) return dump.get();
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    std::string comm;
    std::getline(std::ifstream(e.path() / "comm"), comm);
    std::error_code ec;
    const auto cwd = std::filesystem::read_symlink(e.path() / "cwd", ec).string();
    if (comm == "criu" && !ec && cwd.find(id) != std::string::npos) {
      stuck = true;
      ::kill(std::stoi(e.path().filename().string()), SIGKILL);
    }
  }
  return dump.get();
}

}  // namespace

TEST_CASE("rediacc host: renet's Compose services run on the host's network with a granted GPU, never another",
          "[e2e][cdi-docker]") {
  RenetRepository repository("rediacc.io/dri=renderD128");
  auto& docker = repository.docker;
  // The project where renet keeps it: in the repository's mount, seen by the daemon at that path.
  const std::string project = docker.root() + kRediaccMount + "/app";
  std::filesystem::create_directories(project + "/data");
  std::filesystem::create_directories(docker.root() + "/run/rediacc/secrets/2816");
  std::ofstream(docker.root() + "/run/rediacc/secrets/2816/DB_PASSWORD") << "s3cret\n";
  const auto compose = [&](const std::string& device) {
    std::string text = kRenetCompose;
    text.replace(text.find("DEVICE"), 6, device);
    std::ofstream(project + "/compose.yaml") << text;
    return docker.docker(
        {"compose", "-p", "web", "-f", std::string(kRediaccMount) + "/app/compose.yaml", "run", "--rm", "app"});
  };
  const auto granted = compose("rediacc.io/dri=renderD128");
  ran(docker, granted);
  CHECK_THAT(granted.out, Catch::Contains("renderD128") && Catch::Contains("s3cret"));
  const auto other = compose("rediacc.io/dri=renderD129");
  refused_by_gate(docker, other, "has no grant for rediacc.io/dri=renderD129");
}

TEST_CASE("rediacc host: no container of a repository reaches another's daemon or data, nor its own daemon's state",
          "[e2e][cdi-docker]") {
  RenetRepository repository("");
  auto& docker = repository.docker;
  const auto bind = [&](const std::string& source) {
    return docker.docker(
        {"run", "--rm", "--network", "host", "--cap-drop", "NET_RAW", "-v", source + ":/x", "img", "true"});
  };
  refused_by_gate(docker, bind("/run/rediacc"), "every Rediacc repository's daemon socket and secrets");
  refused_by_gate(docker, bind("/var/run/rediacc/docker-2880.sock"), "dockerd 910002's socket");
  refused_by_gate(docker, bind("/run/rediacc/docker-2816.sock"), "dockerd 910001's socket");
  refused_by_gate(docker, bind("/run/rediacc/secrets/2880"), "secrets");
  refused_by_gate(docker, bind(kOther + "/app/data"), "another Rediacc repository's mount");
  refused_by_gate(docker, bind(std::string(kRediaccMount) + "/.rediacc/docker/data"), "dockerd 910001's data root");
  refused_by_gate(docker, bind("/mnt/rediacc"), "the Rediacc datastore");
  // Nothing else of the host either: binds come from the repository's own places alone.
  refused_by_gate(docker, bind("/usr/bin"),
                  "lies outside the directories repository \"2816\" may bind from: " + std::string(kRediaccMount) +
                      ", /run/rediacc/secrets/2816, /opt/rediacc/proxy/letsencrypt (read-only)");
  // renet rewrites daemon.json at every start, naming no plugin: the daemon comes back behind it.
  docker.restart_as_renet(R"({"bridge": "none", "iptables": false, "experimental": true, "storage-driver": "vfs", )"
                          R"("data-root": ")" +
                          std::string(kRediaccMount) + R"(/.rediacc/docker/data"})");
  refused_by_gate(docker, bind("/run/rediacc/docker-2880.sock"), "dockerd 910002's socket");
  ran(docker, bind(std::string(kRediaccMount) + "/app/data"));
}

TEST_CASE(
    "rediacc host: a service on the host's network drops NET_RAW, whose packet sockets read every "
    "repository's loopback traffic",
    "[e2e][cdi-docker]") {
  // What such a socket is: a container on the host's network, on a daemon with no gate, opens one.
  const std::string probe = "busybox arping -c 1 -w 1 -I lo 127.0.0.1 2>&1; echo done";
  {
    FixtureRoot machine;
    machine.mkdir("/sys");
    CdiDockerOptions plain;
    plain.plugin = false;
    CdiDocker docker(machine, plain);
    docker.import_busybox("img");
    const auto r = docker.docker({"run", "--rm", "--network", "host", "img", "sh", "-c", probe});
    INFO(r.out << r.err);
    CHECK_THAT(r.out, !Catch::Contains("Operation not permitted") && Catch::Contains("done"));
  }
  RenetRepository repository("");
  auto& docker = repository.docker;
  refused_by_gate(docker, docker.docker({"run", "--rm", "--network", "host", "img", "sh", "-c", probe}),
                  "keeps CAP_NET_RAW");
  const auto r = docker.docker({"run", "--rm", "--network", "host", "--cap-drop", "NET_RAW", "img", "sh", "-c", probe});
  INFO(r.out << r.err << docker.plugin_log());
  CHECK_THAT(r.out, Catch::Contains("arping: socket: Operation not permitted") && Catch::Contains("done"));
  // Nor by joining such a service's network namespace.
  ran(docker, docker.docker(
                  {"run", "-d", "--name", "svc", "--network", "host", "--cap-drop", "NET_RAW", "img", "sleep", "60"}));
  refused_by_gate(docker, docker.docker({"run", "--rm", "--network", "container:svc", "img", "true"}),
                  "keeps CAP_NET_RAW");
  docker.docker({"rm", "-f", "svc"});
}

TEST_CASE("rediacc host: checkpoints in the daemon's own directory pass the gate, judged as a start of the container",
          "[e2e][cdi-docker]") {
  RenetRepository repository("rediacc.io/dri=renderD128");
  auto& machine = repository.machine;
  auto& docker = repository.docker;
  // renet's rediacc.checkpoint=true service, with a granted render node.
  ran(docker, docker.docker({"run",
                             "-d",
                             "--name",
                             "svc",
                             "--network",
                             "host",
                             "--cap-drop",
                             "NET_RAW",
                             "--label",
                             "rediacc.checkpoint=true",
                             "--cap-add",
                             "CHECKPOINT_RESTORE",
                             "--cap-add",
                             "SYS_PTRACE",
                             "--cap-add",
                             "NET_ADMIN",
                             "--security-opt",
                             "apparmor=unconfined",
                             "--userns",
                             "host",
                             "--device",
                             "rediacc.io/dri=renderD128",
                             "img",
                             "sh",
                             "-c",
                             "i=0; while true; do i=$((i+1)); echo $i; sleep 1; done"}));
  refused_by_gate(docker, docker.docker({"checkpoint", "create", "--checkpoint-dir", "/tmp/cp", "svc", "cp0"}),
                  "--checkpoint-dir");
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));  // a few lines before the dump
  const std::string id = docker.docker({"inspect", "-f", "{{.Id}}", "svc"}).out.substr(0, 64);
  bool criu_stuck = false;
  const auto created = bounded_dump(docker, id, criu_stuck);
  INFO(created.out << created.err << docker.plugin_log());
  // The gate refused only the --checkpoint-dir one; CRIU (the root's criu 4.x, run by runc) dumps
  // the container into the daemon's own checkpoint directory, and says why when it cannot.
  const auto log = docker.plugin_log();
  CHECK(log.find("/checkpoints\" reason=") == log.rfind("/checkpoints\" reason="));  // only cp0's
  std::string criu_log;
  for (const auto& e : std::filesystem::recursive_directory_iterator(
           docker.root() + "/run/docker/containerd", std::filesystem::directory_options::skip_permission_denied)) {
    if (e.path().filename() == "criu-dump.log") criu_log += slurp(e.path());
  }
  std::string criu_errors;
  std::istringstream criu_lines(criu_log);
  for (std::string line; std::getline(criu_lines, line);) {
    if (line.find("Error") != std::string::npos) criu_errors += line + "\n";
  }
  INFO("criu: " << criu_errors);
  // A machine whose / is a chroot (a debootstrap'd root the test command is checked in) is one
  // CRIU refuses to dump from: the container's root is not its mount namespace's.
  const bool chrooted = criu_errors.find("has another root than mntns") != std::string::npos;
  const bool dumped = !criu_stuck && !chrooted;
  if (!dumped) {
    // The gate let the dump through to runc; CRIU, not the gate, never finished it.
    if (criu_stuck)
      WARN("CRIU in the Docker " << cdi_docker_major()
                                 << " root never finished dumping the container (it waited for a trap this machine's "
                                    "kernel did not deliver, CRIU issue 162's signature) and was stopped; the dump "
                                    "and restore are judged by the gate's answers alone");
    else
      WARN("CRIU in the Docker "
           << cdi_docker_major()
           << " root refused to dump the container because this machine's / is a chroot (\"The "
              "root task has another root than mntns\"), as in a debootstrap'd check root; a "
              "machine's own / is not; the dump and restore are judged by the gate's answers alone");
    CHECK_THAT(created.err, !Catch::Contains("authorization denied"));
  } else {
    CHECK(created.exit_code == 0);
  }
  refused_by_gate(docker, docker.docker({"start", "--checkpoint", "../../../../../../mnt/rediacc/x", "svc"}),
                  "is not a checkpoint name");
  // Restored from its checkpoint (CRIU through runc): the loop goes on from where it was, it does
  // not start again at 1. dockerd itself sometimes fails the restore after the gate allowed it,
  // uploading the checkpoint as content containerd already holds (moby/moby#42900; here Docker
  // 26 restores, 28.5 with containerd 2.1 fails so at each run): then the failure must be that one, never the gate's.
  const auto restored = docker.docker({"start", "--checkpoint", "cp1", "svc"});
  INFO(restored.err);
  CHECK_THAT(restored.err, !Catch::Contains("authorization denied"));
  if (!dumped) {
    docker.docker({"stop", "-t", "1", "svc"});
  } else if (restored.exit_code == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2500));
    const auto logs = docker.docker({"logs", "svc"}).out;
    INFO(logs);
    CHECK(logs.starts_with("1\n"));
    CHECK(logs.find("\n1\n") == std::string::npos);
    CHECK(std::count(logs.begin(), logs.end(), '\n') >= 4);
    docker.docker({"stop", "-t", "1", "svc"});
  } else {
    CHECK_THAT(restored.err,
               Catch::Contains("failed to upload checkpoint to containerd") && Catch::Contains("already exists"));
  }
  // Revoked since: the stored container is judged at a start from its checkpoint, as at any start.
  REQUIRE(run_tool({"revoke", "2816", "--device", "rediacc.io/dri=renderD128", "--root", machine.str()}).exit_code ==
          0);
  refused_by_gate(docker, docker.docker({"start", "--checkpoint", "cp1", "svc"}),
                  "has no grant for rediacc.io/dri=renderD128");
}

TEST_CASE("rediacc host: BuildKit builds on the host's network pass where services may use it, never privileged ones",
          "[e2e][cdi-docker]") {
  // The daemon reads its own view only (what BuildKit needs to pass at all), and its builder keeps
  // Docker's default entitlements: network-host on, which the strict policy refuses.
  RenetRepository repository("rediacc.io/dri=renderD128", true);
  auto& docker = repository.docker;
  FixtureRoot context;
  context.write("/Dockerfile", "FROM img\nRUN echo built > /built\n");
  const auto built = docker.docker({"build", "--network", "host", "-t", "built", "."}, context.str());
  ran(docker, built);
  // The same daemon under the strict policy: its builder's network-host is a reason to refuse.
  repository.machine.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "strict", "reason": "e2e"})");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // the gate keeps a build verdict 2 s
  refused_by_gate(docker, docker.docker({"build", "-t", "built", "."}, context.str()), "the host's network");
  repository.machine.write("/etc/rediacc/gpu/host-policy.json", R"({"policy": "rediacc", "reason": "e2e"})");
  // renet restarts the daemon with a builder that may run steps privileged: refused, saying so.
  docker.restart_as_renet(R"({"bridge": "none", "iptables": false, "experimental": true, "storage-driver": "vfs", )"
                          R"("cdi-spec-dirs": ["/etc/cdi"], "builder": {"entitlements": {"security-insecure": true}}, )"
                          R"("data-root": ")" +
                          std::string(kRediaccMount) + R"(/.rediacc/docker/data"})");
  std::this_thread::sleep_for(std::chrono::milliseconds(2100));  // the gate keeps a build verdict 2 s
  refused_by_gate(docker, docker.docker({"build", "--network", "host", "-t", "built", "."}, context.str()),
                  "security-insecure");
}
