// The gate on a machine laid out as Rediacc lays it out (issue: "The gate fits the host it
// guards"): renet's service shapes pass under Rediacc's policy and GPU names are still judged by
// grant in each of them; nothing reaches another repository's daemon, data or secrets, whatever
// the policy, found from the engines running rather than from a list of default paths.

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "admission/decide.h"
#include "admission/host_paths.h"
#include "admission/machine_world.h"
#include "docker/rediacc_layout.h"
#include "gate/guarded_paths.h"
#include "tests/support/build_paths.h"
#include "tests/support/fake_world.h"
#include "tests/support/fixture_root.h"
#include "tests/support/gate_requests.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::admission;
using namespace rgpu::test;

namespace {

const std::string kWebMount = kRediaccWebMount;
const std::string kOtherMount = kRediaccOtherMount;

// rediacc_two_repositories, judged for repository "web" (network id 2816).
struct RediaccMachine : HostPathSources {
  FixtureRoot root;
  RootFs fs{root.path()};
  HostPathJudge judge{fs, std::chrono::milliseconds(0), *this};
  MachineWorld world{judge};
  RediaccMachine() { rediacc_two_repositories(root); }
  std::string node_name(std::string_view) override { return {}; }
  std::vector<GuardedPath> guarded_paths() override {
    return gate::guarded_paths(fs, "web", "/run/rediacc/docker-2816.sock");
  }
  RepositoryPlaces repository_places() override {
    return docker::repository_places(fs, "web", "/run/rediacc/docker-2816.sock");
  }
};

DecideOptions on(RediaccMachine& m, HostPolicy policy) {
  return DecideOptions{.world = m.world, .policy = rules_of(policy)};
}

// A create as the docker CLI sends renet's service (docker create --network host --restart no,
// its labels, a bind under the repository's mount and one of its secrets), with `extra` HostConfig
// fields added.
AuthzRequest renet_service(const std::string& extra = "") {
  const std::string host_config =
      R"({"NetworkMode":"host","CapDrop":["NET_RAW"],"RestartPolicy":{"Name":"no","MaximumRetryCount":0},"Binds":[")" +
      kWebMount + R"(/app/data:/data","/var/run/rediacc/secrets/2816/DB_PASSWORD:/run/secrets/db:ro"])" + extra + "}";
  return req("POST", "/v1.47/containers/create?name=app",
             R"({"Image":"img","Labels":{"rediacc.network_id":"2816","rediacc.service_ip":"127.0.11.2",)"
             R"("rediacc.service_name":"app","rediacc.repo_name":"web"},"Env":["SERVICE_IP=127.0.11.2"],)"
             R"("HostConfig":)" +
                 host_config + "}");
}

constexpr const char* kCheckpointed =
    R"(,"CapAdd":["CHECKPOINT_RESTORE","SYS_PTRACE","NET_ADMIN"],"SecurityOpt":["apparmor=unconfined"],"UsernsMode":"host")";
constexpr const char* kWireguard =
    R"(,"CapAdd":["NET_ADMIN"],"Devices":[{"PathOnHost":"/dev/net/tun","PathInContainer":"/dev/net/tun","CgroupPermissions":"rwm"}])";

std::string gpu(const std::string& name) {
  return R"(,"DeviceRequests":[{"Driver":"cdi","Count":0,"DeviceIDs":[")" + name +
         R"("],"Capabilities":null,"Options":null}])";
}

}  // namespace

TEST_CASE(
    "rediacc host: renet's services pass under Rediacc's policy, a granted GPU inside each, an ungranted one never") {
  RediaccMachine m;
  const auto grants = web_holding({"nvidia.com/gpu=all"});
  const auto rediacc = on(m, HostPolicy::rediacc);
  allowed(decide(grants, kGateRepo, renet_service(), rediacc));
  allowed(decide(grants, kGateRepo, renet_service(kCheckpointed), rediacc));
  allowed(decide(grants, kGateRepo, renet_service(kWireguard), rediacc));
  for (const std::string shape : {"", kCheckpointed, kWireguard}) {
    allowed(decide(grants, kGateRepo, renet_service(shape + gpu("nvidia.com/gpu=all")), rediacc));
    refused(decide(grants, kGateRepo, renet_service(shape + gpu("nvidia.com/gpu=0")), rediacc),
            "has no grant for nvidia.com/gpu=0");
  }
  // Still refused under Rediacc's policy: what reaches hardware or the host's other namespaces.
  refused(decide(grants, kGateRepo, renet_service(R"(,"Privileged":true)"), rediacc), "--privileged");
  refused(decide(grants, kGateRepo, renet_service(R"(,"PidMode":"host")"), rediacc), "--pid host");
  refused(decide(grants, kGateRepo, renet_service(R"(,"IpcMode":"host")"), rediacc), "--ipc host");
  refused(decide(grants, kGateRepo, renet_service(R"(,"CapAdd":["SYS_ADMIN"])"), rediacc), "CAP_SYS_ADMIN");
  refused(decide(grants, kGateRepo, renet_service(R"(,"SecurityOpt":["seccomp=unconfined"])"), rediacc), "seccomp");
  refused(
      decide(
          grants, kGateRepo,
          renet_service(
              R"(,"Devices":[{"PathOnHost":"/dev/dri/renderD128","PathInContainer":"/dev/dri/renderD128","CgroupPermissions":"rwm"}])"),
          rediacc),
      "raw device \"/dev/dri/renderD128\"");
}

TEST_CASE(
    "rediacc host: the real docker CLI's and Compose's requests for renet's shapes, other repositories and "
    "checkpoints") {
  // tests/fixtures/docker-cli/capture_rediacc.py recorded them from docker CLI 28 and Compose 2.40.
  RediaccMachine m;
  const auto grants = web_holding({"nvidia.com/gpu=all"});
  std::ifstream in(fixture_path("docker-cli/rediacc-corpus.jsonl"));
  REQUIRE(in);
  int lines = 0, services = 0;
  for (std::string line; std::getline(in, line); ++lines) {
    const auto j = nlohmann::json::parse(line);
    const auto request = parse_authz_request(line);
    REQUIRE(request);
    const std::string form = j["Form"];
    const auto rediacc = decide(grants, kGateRepo, *request, on(m, HostPolicy::rediacc));
    INFO(form << " -> " << rediacc.msg);
    CHECK(rediacc.allow == (j["Expect"] == "allow"));
    // The strict policy refuses every one of renet's services and every checkpoint.
    // The CLI's form says --network host, Compose's file network_mode host.
    const bool renet =
        form.find("--network host") != std::string::npos || form.find(R"("network_mode": "host")") != std::string::npos;
    if (renet || form.find("checkpoint") != std::string::npos) {
      services += renet;
      const auto strict = decide(grants, kGateRepo, *request, on(m, HostPolicy::strict));
      INFO("strict: " << strict.msg);
      CHECK_FALSE(strict.allow);
    }
  }
  CHECK(lines >= 46);
  CHECK(services >= 30);
}

TEST_CASE("rediacc host: the strict policy refuses renet's shapes, each saying why") {
  RediaccMachine m;
  const auto grants = web_holding({"nvidia.com/gpu=all"});
  const auto strict = on(m, HostPolicy::strict);
  refused(decide(grants, kGateRepo, renet_service(), strict), "--network host");
  refused(
      decide(grants, kGateRepo,
             req("POST", "/v1.47/containers/create", R"({"Image":"i","HostConfig":{"CapAdd":["CHECKPOINT_RESTORE"]}})"),
             strict),
      "CAP_CHECKPOINT_RESTORE");
  refused(
      decide(
          grants, kGateRepo,
          req("POST", "/v1.47/containers/create",
              R"({"Image":"i","HostConfig":{"Devices":[{"PathOnHost":"/dev/net/tun","PathInContainer":"/dev/net/tun","CgroupPermissions":"rwm"}]}})"),
          strict),
      "raw device \"/dev/net/tun\"");
}

TEST_CASE("rediacc host: /dev/net/tun passes only as the TUN device itself, never another node under its name") {
  RediaccMachine m;
  const auto grants = web_holding({});
  const auto rediacc = on(m, HostPolicy::rediacc);
  const auto tun = [&](const std::string& path) {
    return renet_service(R"(,"Devices":[{"PathOnHost":")" + path +
                         R"(","PathInContainer":"/dev/net/tun","CgroupPermissions":"rwm"}])");
  };
  allowed(decide(grants, kGateRepo, tun("/dev/net/tun"), rediacc));
  allowed(decide(grants, kGateRepo, tun("/dev/net/../net/tun"), rediacc));
  refused(decide(grants, kGateRepo, tun("/dev/net"), rediacc), "raw device");
  m.root.char_node("/dev/dri/renderD128", 226, 128);
  std::filesystem::remove(m.root.host("/dev/net/tun"));
  m.root.link("/dev/net/tun", "/dev/dri/renderD128");
  refused(decide(grants, kGateRepo, tun("/dev/net/tun"), rediacc), "raw device");
  std::filesystem::remove(m.root.host("/dev/net/tun"));
  m.root.char_node("/dev/net/tun", 226, 128);
  refused(decide(grants, kGateRepo, tun("/dev/net/tun"), rediacc), "raw device");
}

TEST_CASE(
    "rediacc host: no bind reaches another repository's daemon, mount or secrets, nor the repository's own daemon "
    "state") {
  RediaccMachine m;
  const auto grants = web_holding({});
  for (const auto policy : {HostPolicy::rediacc, HostPolicy::strict}) {
    const auto options = on(m, policy);
    const auto create = [&](const std::string& source) {
      return decide(
          grants, kGateRepo,
          req("POST", "/v1.47/containers/create", R"({"Image":"i","HostConfig":{"Binds":[")" + source + R"(:/x"]}})"),
          options);
    };
    refused(create("/var/run/rediacc"), "every Rediacc repository's daemon socket and secrets");
    refused(create("/run/rediacc/docker-2880.sock"), "dockerd 200's socket");
    refused(create("/var/run/rediacc/docker-2880.sock"), "socket");
    refused(create("/run/rediacc/secrets/2880"), "secrets");
    refused(create("/run/rediacc/secrets"), "secrets");
    refused(create(kOtherMount), "dockerd 200");
    refused(create(kOtherMount + "/app/data"), "another Rediacc repository's mount");
    refused(create(kOtherMount + "/.rediacc/docker/data"), "dockerd 200's data root");
    refused(create(kWebMount + "/.rediacc/docker/data"), "dockerd 100's data root");
    refused(create(kWebMount + "/.rediacc/docker/config"), "the repository's own daemon state");
    refused(create(kWebMount), "dockerd 100's data root");
    refused(create("/mnt/rediacc"), "the Rediacc datastore");
    refused(create("/mnt/rediacc/repositories/aaaa-web"), "the Rediacc datastore");
    refused(create("/srv/ctd/containerd.sock"), "containerd 300's socket");
    refused(create("/srv/ctd"), "containerd 300's");
    refused(create("/run/rediacc/exec-2880"), "dockerd 200's exec root");
    // What renet itself binds stays open under Rediacc's policy: the repository's own files, its
    // own secrets, the proxy's certificates read-only. The strict policy's roots hold none of them.
    const auto open = [&](const std::string& spec) {
      const auto d =
          decide(grants, kGateRepo,
                 req("POST", "/v1.47/containers/create", R"({"Image":"i","HostConfig":{"Binds":[")" + spec + R"("]}})"),
                 options);
      if (policy == HostPolicy::rediacc) return allowed(d);
      refused(d, "lies outside the directories repository \"web\" may bind from: /srv/rediacc-gpu/web");
    };
    open(kWebMount + "/app/data:/x");
    open("/var/run/rediacc/secrets/2816/DB_PASSWORD:/x:ro");
    open("/run/rediacc/secrets/2816:/x");
    open("/opt/rediacc/proxy/letsencrypt:/x:ro");
  }
  const auto rediacc = on(m, HostPolicy::rediacc);
  const auto bind = [&](const std::string& spec) {
    return decide(
        grants, kGateRepo,
        req("POST", "/v1.47/containers/create", R"({"Image":"i","HostConfig":{"Binds":[")" + spec + R"("]}})"),
        rediacc);
  };
  refused(bind("/opt/rediacc/proxy/letsencrypt:/x"), "may bind it only read-only");
  // Nothing else of the host, wherever it is written: the roots say where binds may come from.
  for (const char* system : {"/usr/bin", "/usr/bin/runc", "/usr/lib/x86_64-linux-gnu", "/etc/systemd/system",
                             "/etc/cron.d", "/root/.ssh", "/etc/shadow", "/etc/sudoers.d", "/etc/ld.so.preload",
                             "/lib/modules", "/boot", "/usr/bin/renet", "/opt/rediacc", "/home", "/tmp"}) {
    refused(bind(std::string(system) + ":/x"),
            "lies outside the directories repository \"web\" may bind from: " + kWebMount +
                ", /run/rediacc/secrets/2816, "
                "/opt/rediacc/proxy/letsencrypt (read-only)");
  }
  // A link in the repository's own files is followed to where it leads.
  m.root.link(kWebMount + "/app/data/peer", kOtherMount + "/app/data");
  refused(decide(grants, kGateRepo,
                 req("POST", "/v1.47/containers/create",
                     R"({"Image":"i","HostConfig":{"Mounts":[{"Type":"bind","Source":")" + kWebMount +
                         R"(/app/data/peer","Target":"/x"}]}})"),
                 on(m, HostPolicy::rediacc)),
          "another Rediacc repository's mount");
}

TEST_CASE("rediacc host: checkpoints pass in the daemon's own directory only, and only where the policy allows them") {
  const auto grants = web_holding({});
  const DecideOptions rediacc{.world = null_world(), .policy = rules_of(HostPolicy::rediacc)};
  allowed(decide(
      grants, kGateRepo,
      req("POST", "/v1.47/containers/app/checkpoints", R"({"CheckpointID":"cp1","CheckpointDir":"","Exit":true})"),
      rediacc));
  refused(decide(grants, kGateRepo,
                 req("POST", "/v1.47/containers/app/checkpoints",
                     R"({"CheckpointID":"cp1","CheckpointDir":"/tmp/x","Exit":true})"),
                 rediacc),
          "--checkpoint-dir");
  refused(decide(grants, kGateRepo,
                 req("POST", "/v1.47/containers/app/checkpoints", R"({"CheckpointID":"cp1","checkpointdir":"/tmp/x"})"),
                 rediacc),
          "--checkpoint-dir");
  allowed(decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/start?checkpoint=cp1"), rediacc));
  refused(decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/start?checkpoint=cp1&checkpoint-dir=/tmp/x"),
                 rediacc),
          "--checkpoint-dir");
  // dockerd validates a checkpoint's name at create only, and joins the one a start names to the
  // container's checkpoint directory (daemon/checkpoint.go getCheckpointDir): "../" climbs out to an
  // image the tenant wrote in its own mount, which CRIU would restore as root.
  for (const char* name : {"../../../../../../mnt/rediacc/mounts/aaaa-web/app/data/evil", "cp1/../../x", "..", "-x",
                           "%2e%2e%2fx", "a/b"}) {
    INFO(name);
    refused(
        decide(grants, kGateRepo, req("POST", std::string("/v1.47/containers/app/start?checkpoint=") + name), rediacc),
        "is not a checkpoint name");
    refused(
        decide(grants, kGateRepo,
               req("POST", "/v1.47/containers/app/checkpoints", std::string(R"({"CheckpointID":")") + name + R"("})"),
               rediacc),
        "is not a checkpoint name");
  }
  refused(decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/start?checkpoint=cp1&checkpoint=../x"), rediacc),
          "is not a checkpoint name");
  allowed(decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/start?checkpoint=cp-1.2_x"), rediacc));
  const DecideOptions strict{.world = null_world()};
  refused(
      decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/checkpoints", R"({"CheckpointID":"cp1"})"), strict),
      "policy (strict)");
  refused(decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/start?checkpoint=cp1"), strict),
          "policy (strict)");
}

TEST_CASE("rediacc host: listing or removing checkpoints never names a directory of the request's choosing") {
  // dockerd removes DIR/NAME whole for DELETE /containers/{name}/checkpoints/{NAME}?dir=DIR, and
  // makes and lists DIR for GET .../checkpoints?dir=DIR (daemon/checkpoint.go): any directory of
  // the host, another repository's data included. Refused under every policy.
  const auto grants = web_holding({});
  for (const auto policy : {HostPolicy::strict, HostPolicy::rediacc}) {
    const DecideOptions options{.world = null_world(), .policy = rules_of(policy)};
    refused(decide(grants, kGateRepo,
                   req("DELETE", "/v1.47/containers/app/checkpoints/app?dir=/mnt/rediacc/mounts/bbbb-other"), options),
            "checkpoint directory");
    refused(decide(grants, kGateRepo, req("DELETE", "/v1.47/containers/app/checkpoints/cp1?dir=%2Fsrv&x=1"), options),
            "checkpoint directory");
    refused(decide(grants, kGateRepo, req("GET", "/v1.47/containers/app/checkpoints?dir=/etc"), options),
            "checkpoint directory");
    refused(decide(grants, kGateRepo,
                   req("DELETE", "/v1.47/containers/app/checkpoints/cp1", "dir=%2Fsrv",
                       "application/x-www-form-urlencoded"),
                   options),
            "form-encoded");
    allowed(decide(grants, kGateRepo, req("GET", "/v1.47/containers/app/checkpoints"), options));
    allowed(decide(grants, kGateRepo, req("DELETE", "/v1.47/containers/app/checkpoints/cp1"), options));
  }
}

TEST_CASE("rediacc host: a start from a checkpoint is judged as any start of the stored container") {
  const auto grants = web_holding({"nvidia.com/gpu=all"});
  FakeWorld daemon;
  daemon.stored =
      R"({"Id":"0123456789abcdef","Name":"/app","Config":{},"HostConfig":{"NetworkMode":"host",)"
      R"("MaskedPaths":["/proc/asound","/proc/acpi","/proc/kcore","/proc/keys","/proc/latency_stats","/proc/timer_list","/proc/timer_stats","/proc/sched_debug","/proc/scsi","/sys/firmware"],)"
      R"("ReadonlyPaths":["/proc/bus","/proc/fs","/proc/irq","/proc/sys","/proc/sysrq-trigger"],)"
      R"("DeviceRequests":[{"Driver":"cdi","DeviceIDs":["nvidia.com/gpu=0"]}]}})";
  const DecideOptions rediacc{.world = daemon, .policy = rules_of(HostPolicy::rediacc)};
  refused(decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/start?checkpoint=cp1"), rediacc),
          "has no grant for nvidia.com/gpu=0");
  refused(
      decide(grants, kGateRepo, req("POST", "/v1.47/containers/app/checkpoints", R"({"CheckpointID":"cp1"})"), rediacc),
      "has no grant for nvidia.com/gpu=0");
}

TEST_CASE("rediacc host: builds follow the policy's host network, never its privileges") {
  const auto grants = web_holding({});
  refused(decide(grants, kGateRepo, req("POST", "/v1.47/build?networkmode=host"), DecideOptions{.world = null_world()}),
          "--network host");
  allowed(decide(grants, kGateRepo, req("POST", "/v1.47/build?networkmode=host"),
                 DecideOptions{.world = null_world(), .policy = rules_of(HostPolicy::rediacc)}));
}
