// A Docker upgrade (or a daemon left behind) changes what it does with GPUs (issue: "doctor knows
// what each Docker version the five distributions install does with GPUs ... and says which
// applies to each repository daemon; every view it serves is one that daemon's CDI library reads").

#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "docker/engine_gpu_features.h"
#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
using nlohmann::json;

namespace {

// The NVIDIA spec as toolkit 1.19.1 and later write it: cdiVersion 0.7.0, the render node's group
// given as additionalGids.
constexpr const char* kSpec070 = R"(cdiVersion: 0.7.0
kind: nvidia.com/gpu
devices:
- name: "0"
  containerEdits:
    deviceNodes:
    - path: /dev/nvidia1
    additionalGids: [992]
containerEdits:
  deviceNodes:
  - path: /dev/nvidiactl
)";

json daemon_gpu_path(const FixtureRoot& root, const FakeTools& fakes) {
  const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
  INFO(r.err);
  return check_of(json::parse(r.out), "daemon-gpu-path");
}

// A daemon of that release: its /version, and an /info that says nothing more.
std::map<std::string, json> daemon_answering(const std::string& version) {
  std::map<std::string, json> routes;
  routes["/version"] = json{{"Version", version}};
  routes["/info"] = json::object();
  return routes;
}

}  // namespace

TEST_CASE("docker upgrade: each release's GPU features, from moby's own tags") {
  using rgpu::docker::engine_gpu_features;
  CHECK(engine_gpu_features("24.0.9")->newest_spec == 0);
  CHECK(engine_gpu_features("26.0.2")->newest_spec == 60);
  CHECK(engine_gpu_features("26.1.5+dfsg1")->newest_spec == 70);
  CHECK(engine_gpu_features("28.1.1")->newest_spec == 80);
  CHECK_FALSE(engine_gpu_features("28.1.1")->cdi_on_by_default);
  CHECK(engine_gpu_features("28.2.0")->cdi_on_by_default);
  CHECK(engine_gpu_features("28.5.2")->newest_spec == 100);
  CHECK_FALSE(engine_gpu_features("29.1.0")->gpus_to_cdi_nvidia);
  CHECK(engine_gpu_features("29.2.0")->gpus_to_cdi_nvidia);
  CHECK_FALSE(engine_gpu_features("29.2.1")->gpus_to_cdi_amd);
  CHECK(engine_gpu_features("29.3.0")->gpus_to_cdi_amd);
  CHECK(engine_gpu_features("29.3.0")->newest_spec == 110);
  CHECK_FALSE(engine_gpu_features("29.4.0")->applies_additional_gids);
  CHECK(engine_gpu_features("29.5.0")->applies_additional_gids);
  CHECK_FALSE(engine_gpu_features("dev").has_value());
  CHECK(rgpu::docker::EngineGpuFeatures::first_release_reading(70) == "26.1");
}

TEST_CASE("docker upgrade: doctor names the daemon whose CDI library cannot read a spec it is served, and why") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/cdi/nvidia.yaml", kSpec070);
  FakeTools fakes;
  {
    // Debian 13's Docker 26.1 reads 0.7.0 but drops the additionalGids.
    StandInDaemon daemon(root, "4242", daemon_answering("26.1.5+dfsg1"));
    const auto c = daemon_gpu_path(root, fakes);
    INFO(c.dump(2));
    CHECK(c["status"] == "warn");
    CHECK(c["layer"] == 3);
    CHECK_THAT(c["observed"].get<std::string>(),
               Catch::Contains("dockerd 4242 (Docker 26.1.5+dfsg1) drops the additionalGids of nvidia.com/gpu=0"));
    CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("29.5 or later"));
  }
  {
    // Docker 26.0's library reads up to 0.6.0: the whole file is refused.
    StandInDaemon daemon(root, "4343", daemon_answering("26.0.2"));
    const auto c = daemon_gpu_path(root, fakes);
    INFO(c.dump(2));
    CHECK(c["status"] == "fail");
    CHECK_THAT(c["observed"].get<std::string>(),
               Catch::Contains("dockerd 4343 (Docker 26.0.2) cannot read /etc/cdi/nvidia.yaml (cdiVersion 0.7.0)"));
    CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("Docker to 26.1 or later"));
  }
  {
    // 29.5 applies them; and says what --gpus becomes there (the gate refuses it either way).
    StandInDaemon daemon(root, "4444", daemon_answering("29.5.0"));
    const auto c = daemon_gpu_path(root, fakes);
    INFO(c.dump(2));
    CHECK(c["status"] == "ok");
    CHECK_THAT(c["observed"].get<std::string>(),
               Catch::Contains("dockerd 4444 (Docker 29.5.0) reads CDI specs up to 1.1.0, --gpus becomes numbered CDI "
                               "names (nvidia.com/gpu=N, amd.com/gpu=N) (refused by the gate), applies CDI "
                               "additionalGids"));
  }
}
