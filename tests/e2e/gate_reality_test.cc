// The gate judges what dockerd will do, not what a request says (issue: "three ways to the host and
// to other repositories"), through Docker 26 and 28.5. Each case first shows, on a daemon with no
// gate, what dockerd really does with the request (the reach is real, or the premise is false), then
// that the gated daemon refuses it: a bind whose source starts with a backslash, binds of system
// paths, URLs the daemon would fetch, parameters hidden in a body the plugin never sees, a volume
// made to bind the host before the gate, the host's cgroup namespace, a lowered OOM score, and a
// log driver that ships output to an address the request names.

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/support/cdi_docker.h"
#include "tests/support/fixture_root.h"
#include "tests/support/raw_http.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;

namespace {

// A secret of the host's, in the chroot's own /run: what a container must never read.
constexpr const char* kProbe = "/run/rgpu/probe";
const std::string kClimb = [] {
  std::string up;
  for (int i = 0; i < 30; ++i) up += "../";
  return up;
}();

CdiDockerOptions without_gate() {
  CdiDockerOptions o;
  o.plugin = false;
  return o;
}

// The daemons run on this machine's kernel: its cgroup version decides dockerd's default cgroup
// namespace (private on v2, as on every Rediacc server; the host's on v1), which the gate reads.
bool cgroup_v2() { return std::filesystem::exists("/sys/fs/cgroup/cgroup.controllers"); }

// A machine the gate judges on, with this one's cgroup version and the repository's default bind root.
void strict_machine(const FixtureRoot& machine) {
  machine.mkdir("/sys/fs/cgroup");
  machine.mkdir("/proc");
  if (cgroup_v2()) machine.write("/sys/fs/cgroup/cgroup.controllers", "cpu memory pids\n");
  machine.mkdir("/srv/rediacc-gpu/web");
}

void plant_probe(const CdiDocker& docker) {
  std::filesystem::create_directories(docker.root() + kProbe);
  docker.write_file(std::string(kProbe) + "/secret", "swordfish\n");
}

// The Mounts bind of the issue: "\" first, then climbing out of wherever runc resolves it from.
std::string backslash_create(const std::string& target_dir) {
  return R"({"Image":"img","Cmd":["cat","/r/secret"],"HostConfig":{"Mounts":[{"Type":"bind","Source":"\\/)" + kClimb +
         target_dir.substr(1) + R"(","Target":"/r","BindOptions":{"CreateMountpoint":true}}]}})";
}

// A copy of a daemon's data root that outlives it: the next daemon (one at a time per root) starts
// on it, as a fork or a restore would.
void keep_data(const CdiDocker& docker, const FixtureRoot& into) {
  REQUIRE(run_program("/bin/cp", {"-a", docker.data_root() + "/.", into.str()}).exit_code == 0);
}

}  // namespace

TEST_CASE(
    "gate reality: a Mounts bind whose source starts with a backslash reaches the host's files without the gate, "
    "and is refused with it, at create and at the start of a container made before",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  strict_machine(machine);
  FixtureRoot data;
  {
    CdiDocker docker(machine, without_gate());
    docker.import_busybox("img");
    plant_probe(docker);
    const auto created =
        raw_http(docker.socket_path(), json_post("/v1.44/containers/create?name=bs", backslash_create(kProbe)));
    INFO(created);
    REQUIRE(http_status(created) == 201);
    // dockerd checked "//../.." as absolute, and mounts "../../run/rgpu/probe", relative to runc.
    const auto ran = docker.start_and_read("bs");
    INFO(ran.err << docker.daemon_log());
    CHECK_THAT(ran.out, Catch::Contains("swordfish"));
    keep_data(docker, data);
  }
  CdiDockerOptions gated;
  gated.data_from = data.str();
  CdiDocker docker(machine, gated);
  plant_probe(docker);
  refused_by_gate(docker, docker.docker({"start", "-a", "bs"}), "dockerd reads a backslash as '/'");
  const auto created = raw_http(docker.socket_path(), json_post("/v1.44/containers/create", backslash_create(kProbe)));
  CHECK(http_status(created) == 403);
  CHECK_THAT(created, Catch::Contains("dockerd reads a backslash as '/'"));
}

TEST_CASE("gate reality: binds come only from where the repository may bind, never a system path, however written",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  strict_machine(machine);
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  for (const char* system : {"/usr/bin", "/usr/bin/runc", "/usr/lib", "/etc/systemd/system", "/etc/cron.d",
                             "/root/.ssh", "/etc/shadow", "/etc/sudoers.d", "/lib/modules", "/boot", "/opt", "/home",
                             "/tmp", "/srv", "/srv/rediacc-gpu", "/srv/rediacc-gpu/other"}) {
    refused_by_gate(docker, docker.docker({"run", "--rm", "-v", std::string(system) + ":/x", "img", "true"}),
                    "lies outside the directories repository \"web\" may bind from: /srv/rediacc-gpu/web");
  }
  refused_by_gate(docker,
                  docker.docker({"run", "--rm", "--mount", "type=bind,source=/usr/bin,target=/x", "img", "true"}),
                  "a mount of \"/usr/bin\"");
  // What the repository may bind runs: its own directory, as dockerd sees it.
  std::filesystem::create_directories(docker.root() + "/srv/rediacc-gpu/web/data");
  ran(docker, docker.docker({"run", "--rm", "-v", "/srv/rediacc-gpu/web/data:/x", "img", "true"}));
  ran(docker, docker.docker({"run", "--rm", "-v", "/srv/rediacc-gpu//web/../web/data:/x:ro", "img", "true"}));
}

TEST_CASE(
    "gate reality: dockerd downloads a build context or an import from any address it is given, and the gate "
    "refuses both, so nothing is fetched",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  strict_machine(machine);
  LoopbackListener service("FROM scratch\nLABEL probe=swordfish\n");
  const std::string build =
      "POST /v1.44/build?version=1&remote=" + service.url("/Dockerfile") +
      " HTTP/1.1\r\nHost: docker\r\nContent-Type: application/x-tar\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  const std::string import =
      "POST /v1.44/images/create?fromSrc=" + service.url("/x.tar") +
      "&repo=imported HTTP/1.1\r\nHost: docker\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
  {
    CdiDocker docker(machine, without_gate());
    const auto built = raw_http(docker.socket_path(), build);
    CHECK(service.connections() == 1);
    CHECK_THAT(built, Catch::Contains("LABEL probe=swordfish"));  // the download comes back to the tenant
    raw_http(docker.socket_path(), import);
    CHECK(service.connections() == 2);
  }
  CdiDocker docker(machine, "web");
  const auto built = raw_http(docker.socket_path(), build);
  CHECK(http_status(built) == 403);
  CHECK_THAT(built, Catch::Contains("download or clone it yourself"));
  const auto imported = raw_http(docker.socket_path(), import);
  CHECK(http_status(imported) == 403);
  CHECK_THAT(imported, Catch::Contains("use docker load"));
  CHECK(service.connections() == 2);
}

TEST_CASE(
    "gate reality: behind two Content-Type headers, dockerd reads a pull's parameters from a form body the "
    "plugin never sees, never a build's, and the gate refuses a pull that may carry one",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  strict_machine(machine);
  LoopbackListener service("not a tar");
  const std::string form = "fromImage=&fromSrc=" + service.url("/x.tar") + "&repo=hidden";
  // The first Content-Type decides whether dockerd hands the body to the plugin and how Go reads it;
  // the plugin is shown the last.
  const std::string head =
      "HTTP/1.1\r\nHost: docker\r\nContent-Type: application/x-www-form-urlencoded\r\n"
      "Content-Type: text/plain\r\n";
  const std::string pull = "POST /v1.44/images/create?fromImage=127.0.0.1:9/none&tag=latest " + head +
                           "Content-Length: " + std::to_string(form.size()) + "\r\nConnection: close\r\n\r\n" + form;
  char chunk_size[16];
  std::snprintf(chunk_size, sizeof chunk_size, "%zx", form.size());
  const std::string chunked = "POST /v1.44/images/create?fromImage=127.0.0.1:9/none&tag=latest " + head +
                              "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunk_size + "\r\n" + form +
                              "\r\n0\r\n\r\n";
  const std::string build_form = "remote=" + service.url("/Dockerfile") + "&version=1";
  const std::string build = "POST /v1.44/build?t=hidden " + head +
                            "Content-Length: " + std::to_string(build_form.size()) + "\r\nConnection: close\r\n\r\n" +
                            build_form;
  {
    CdiDocker docker(machine, without_gate());
    raw_http(docker.socket_path(), pull);
    CHECK(service.connections() == 1);  // the pull became an import of the body's fromSrc
    raw_http(docker.socket_path(), chunked);
    CHECK(service.connections() == 2);
    const auto built = raw_http(docker.socket_path(), build);
    INFO(built);
    CHECK(service.connections() == 2);  // /build reads its query alone: the body was the context
    // A multipart form, which Go's FormValue reads too: still the query alone.
    const std::string part =
        "--b\r\nContent-Disposition: form-data; name=\"remote\"\r\n\r\n" + service.url("/Dockerfile") + "\r\n--b--\r\n";
    const std::string multipart =
        "POST /v1.44/build?t=hidden HTTP/1.1\r\nHost: docker\r\n"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Type: application/x-tar\r\n"
        "Content-Length: " +
        std::to_string(part.size()) + "\r\nConnection: close\r\n\r\n" + part;
    INFO(raw_http(docker.socket_path(), multipart));
    CHECK(service.connections() == 2);
  }
  CdiDocker docker(machine, "web");
  for (const auto* request : {&pull, &chunked}) {
    const auto answer = raw_http(docker.socket_path(), *request);
    CHECK(http_status(answer) == 403);
    CHECK_THAT(answer, Catch::Contains("a pull that may carry a body"));
  }
  CHECK(service.connections() == 2);
  // The CLI's own pull (Content-Length: 0) is judged and passes to dockerd, which finds no registry.
  const auto pulled = docker.docker({"pull", "127.0.0.1:9/none"});
  CHECK_THAT(pulled.err, !Catch::Contains("authorization denied"));
}

TEST_CASE("gate reality: a named volume made to bind a host path before the gate is refused wherever it is used",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  strict_machine(machine);
  FixtureRoot data;
  {
    CdiDocker docker(machine, without_gate());
    docker.import_busybox("img");
    plant_probe(docker);
    ran(docker, docker.docker({"volume", "create", "--opt", "type=none", "--opt", "o=bind", "--opt",
                               std::string("device=") + kProbe, "vol"}));
    const auto read = docker.docker({"run", "--rm", "-v", "vol:/x", "img", "cat", "/x/secret"});
    CHECK_THAT(read.out, Catch::Contains("swordfish"));
    ran(docker, docker.docker({"create", "--name", "holder", "-v", "vol:/x", "img", "true"}));
    keep_data(docker, data);
  }
  // The data root as a fork or a restore brings it; its volume metadata says nothing of the options.
  CdiDockerOptions gated;
  gated.data_from = data.str();
  gated.machine_sees_data_root = true;
  CdiDocker docker(machine, gated);
  plant_probe(docker);
  const std::string why = "volume \"vol\" mounts type=none device=/run/rgpu/probe o=bind from the host";
  refused_by_gate(docker, docker.docker({"run", "--rm", "-v", "vol:/x", "img", "cat", "/x/secret"}), why);
  refused_by_gate(docker, docker.docker({"run", "--rm", "--mount", "source=vol,target=/x", "img", "true"}), why);
  refused_by_gate(docker, docker.docker({"run", "--rm", "--volumes-from", "holder", "img", "true"}), why);
  refused_by_gate(docker, docker.docker({"start", "holder"}), why);
  ran(docker, docker.docker({"run", "--rm", "-v", "plain:/x", "img", "true"}));
}

TEST_CASE(
    "gate reality: no container takes the host's cgroup namespace, a lower OOM score, an annotation the runtime "
    "acts on, or a log driver that ships its output to an address the request names",
    "[e2e][cdi-docker]") {
  FixtureRoot machine;
  strict_machine(machine);
  LoopbackListener syslog("");
  const std::string address = "syslog-address=tcp://127.0.0.1:" + std::to_string(syslog.port());
  {
    CdiDocker docker(machine, without_gate());
    docker.import_busybox("img");
    docker.docker({"run", "--rm", "--log-driver", "syslog", "--log-opt", address, "img", "true"});
    CHECK(syslog.connections() >= 1);  // dockerd itself connects, from its own network namespace
  }
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  const int before = syslog.connections();
  refused_by_gate(docker, docker.docker({"run", "--rm", "--log-driver", "syslog", "--log-opt", address, "img", "true"}),
                  "log driver \"syslog\"");
  refused_by_gate(docker,
                  docker.docker({"run", "--rm", "--log-driver", "gelf", "--log-opt", "gelf-address=udp://127.0.0.1:9",
                                 "img", "true"}),
                  "log driver \"gelf\"");
  CHECK(syslog.connections() == before);
  // Where the daemon's default is a private namespace, asking for the host's is refused; on cgroup
  // v1 the host's is every container's default, stored with each, and passes as such.
  const auto host_cgroupns = docker.docker({"run", "--rm", "--cgroupns", "host", "img", "true"});
  INFO("cgroup v2: " << cgroup_v2());
  if (cgroup_v2()) {
    refused_by_gate(docker, host_cgroupns, "--cgroupns host");
  } else {
    ran(docker, host_cgroupns);
  }
  refused_by_gate(docker, docker.docker({"run", "--rm", "--oom-score-adj", "-500", "img", "true"}), "--oom-score-adj");
  // Annotations reach runc, which makes systemd properties and CRIU's options file of some.
  refused_by_gate(
      docker, docker.docker({"run", "--rm", "--annotation", "org.criu.config=/srv/rediacc-gpu/web/c", "img", "true"}),
      "annotations reach the runtime");
  // What dockerd fills in for every container passes, at create and at the start of a stored one.
  ran(docker,
      docker.docker({"create", "--name", "plain", "--oom-score-adj", "500", "--log-driver", "local", "img", "true"}));
  ran(docker, docker.docker({"start", "plain"}));
}
