// What runs, for whom, through the real chain: Docker 26 in its chroot behind our plugin, a
// container holding a granted render node, `usage` finding it through the machine's own /proc and
// the repository's own daemon, doctor failing it once the grant is revoked; and the canary through
// the same daemon, refused without a grant and passing with one, judged by the container's own output.

#include <sys/mount.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/admit_on.h"
#include "tests/support/cdi_docker.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using Catch::Contains;
using nlohmann::json;

namespace {

// The fixture machine's /proc is this machine's own (bound over it for the test, unbound before the
// fixture goes): its processes are the real containers', its dockerd the chroot's.
struct RealProc {
  std::string target;
  explicit RealProc(const FixtureRoot& machine) : target(machine.host("/proc").string()) {
    std::filesystem::remove_all(target);
    std::filesystem::create_directories(target);
    REQUIRE(::mount("/proc", target.c_str(), nullptr, MS_BIND, nullptr) == 0);
  }
  ~RealProc() { ::umount2(target.c_str(), MNT_DETACH); }
};

void ok(const RunResult& r) {
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
}

json gpu_use(const FixtureRoot& machine) {
  const auto doc = json::parse(tool_on(machine, {"doctor", "-o", "json"}).out);
  json out = json::array();
  for (const auto& c : doc["checks"]) {
    if (c["id"] == "gpu-use") out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("cdi docker: usage names the repository and container holding a GPU, and doctor fails it once revoked",
          "[e2e][cdi-docker][whole-machine]") {
  FixtureRoot machine;
  intel_discrete(machine);
  // No GPU driver here opens 226:128; the render node gets /dev/full's numbers (1:7, which nothing
  // on a test machine holds open), so the container's process can hold it for real. The machine's
  // sysfs says that number is the render node, as the kernel's /sys/dev/char says of a real one.
  std::filesystem::remove(machine.host("/dev/dri/renderD128"));
  machine.char_node("/dev/dri/renderD128", 1, 7);
  machine.link("/sys/dev/char/1:7", std::filesystem::read_symlink(machine.host("/sys/class/drm/renderD128")).string());
  ok(tool_on(machine, {"cdi", "generate"}));
  ok(tool_on(machine, {"grant", "web", "--device", kRenderD128Name}));
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  // Where usage asks web which containers are its own, as setup writes it.
  machine.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=" + CdiDocker::machine_host() + "\n");
  RealProc proc(machine);
  ran(docker, docker.docker({"run", "-d", "--name", "train", "--device", kRenderD128Name, "img", "sh", "-c",
                             "exec 3</dev/dri/renderD128; exec sleep 600"}));

  // `run -d` returns once the container started, maybe before its shell opened the node.
  json usage;
  for (int i = 0; i < 50; ++i) {
    const auto r = tool_on(machine, {"usage", "-o", "json", "--sample-ms", "0"});
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    usage = json::parse(r.out);
    if (!usage["gpus"][0]["processes"].empty()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  INFO(usage.dump(2) << docker.docker({"ps", "-a"}).out);
  REQUIRE(usage["gpus"].size() == 1);
  const auto& processes = usage["gpus"][0]["processes"];
  REQUIRE(processes.size() == 1);
  CHECK(processes[0]["command"] == "sleep");
  CHECK(processes[0]["repository"] == "web");
  CHECK(processes[0]["container_name"] == "train");
  CHECK(processes[0]["nodes"] == json::array({"/dev/dri/renderD128"}));
  const auto in_use = gpu_use(machine);
  REQUIRE(in_use.size() == 1);
  CHECK(in_use[0]["status"] == "ok");
  CHECK_THAT(tool_on(machine, {"metrics"}).out,
             Contains("rediacc_gpu_grant_in_use{repository=\"web\",device=\"" + kRenderD128Name + "\"} 1\n"));

  // Revoked without --stop: the running container keeps the device, and doctor says so.
  ok(tool_on(machine, {"revoke", "web", "--device", kRenderD128Name}));
  const auto kept = gpu_use(machine);
  INFO(kept.dump(2));
  REQUIRE(kept.size() == 1);
  CHECK(kept[0]["status"] == "fail");
  CHECK_THAT(kept[0]["observed"].get<std::string>(), Contains("(sleep) in container train (") &&
                                                         Contains("of repository web holds /dev/dri/renderD128") &&
                                                         Contains("web holds no grant that covers it"));
  ran(docker, docker.docker({"rm", "-f", "train"}));
}

TEST_CASE("cdi docker: the canary goes through the repository's own gate and view, and is judged from inside",
          "[e2e][cdi-docker]") {
  FixtureRoot machine;
  intel_discrete(machine);
  ok(tool_on(machine, {"cdi", "generate"}));
  CdiDocker docker(machine, "web");
  docker.import_busybox("img");
  const std::vector<std::string> canary = {
      "canary", "--repo", "web", "--image", "img", "--docker-host", "unix://" + docker.root() + "/run/docker.sock",
      "-o",     "json"};
  auto with_device = canary;
  with_device.insert(with_device.end(), {"--device", kRenderD128Name});
  const auto refused = tool_on(machine, with_device);
  INFO(refused.out << refused.err << docker.plugin_log());
  CHECK(refused.exit_code == 1);
  const auto no = json::parse(refused.out)["results"][0];
  CHECK(no["ok"] == false);
  CHECK(no["stage"] == "create");
  CHECK_THAT(no["detail"].get<std::string>(), Contains(docker.plugin_name()) && Contains("no grant"));

  ok(tool_on(machine, {"grant", "web", "--device", kRenderD128Name}));
  const auto passed = tool_on(machine, canary);  // every name web holds
  INFO(passed.out << passed.err << docker.daemon_log());
  REQUIRE(passed.exit_code == 0);
  const auto yes = json::parse(passed.out)["results"];
  REQUIRE(yes.size() == 1);
  CHECK(yes[0]["ok"] == true);
  CHECK_THAT(yes[0]["detail"].get<std::string>(), Contains("/dev/dri/renderD128 (226:128)"));
  CHECK(docker.docker({"ps", "-aq"}).out.empty());  // it removes its container

  const auto record = json::parse(machine.read("/var/lib/rediacc/gpu/canary/web.json"));
  CHECK(record["results"][0]["last_success"] == yes[0]["at"]);
  const auto metrics = tool_on(machine, {"metrics"}).out;
  CHECK_THAT(metrics, Contains("rediacc_gpu_canary_ok{repository=\"web\",device=\"" + kRenderD128Name + "\"} 1\n") &&
                          Contains("rediacc_gpu_canary_last_success_timestamp_seconds{repository=\"web\""));
  const auto doctor = json::parse(tool_on(machine, {"doctor", "-o", "json"}).out);
  bool seen = false;
  for (const auto& c : doctor["checks"]) {
    if (c["id"] != "canary") continue;
    seen = true;
    CHECK(c["status"] == "ok");
    CHECK(c["layer"] == 6);
  }
  CHECK(seen);

  // Revoked: refused again, and the record keeps when it last succeeded.
  ok(tool_on(machine, {"revoke", "web", "--device", kRenderD128Name}));
  const auto after = tool_on(machine, with_device);
  CHECK(after.exit_code == 1);
  const auto kept = json::parse(machine.read("/var/lib/rediacc/gpu/canary/web.json"))["results"][0];
  CHECK(kept["ok"] == false);
  CHECK(kept["last_success"] == yes[0]["at"]);  // the last success is kept through a failure
}
