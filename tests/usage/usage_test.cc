// Who uses each GPU: processes found by the device numbers they hold open (never the path text a
// container shows), their containers and repositories, memory from NVML and DRM fdinfo, and what
// doctor and metrics make of it.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/support/admit_on.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/machines.h"
#include "tests/support/stand_in_daemon.h"
#include "usage/process_parsers.h"

using namespace rgpu;
using namespace rgpu::usage;
using namespace rgpu::test;
using Catch::Contains;
using nlohmann::json;

namespace {

const std::string kTrain(64, 'a'), kCuda(64, 'b'), kStray(64, 'c');

// A process in the fixture's /proc: its command, its cgroup, and fds that are links to host
// paths (as the kernel's magic links resolve) with their fdinfo.
struct Proc {
  std::string pid, comm, cgroup;
  std::map<std::string, std::pair<std::string, std::string>> fds;  ///< fd -> (machine path of the node, fdinfo)
};

void add(const FixtureRoot& root, const Proc& p) {
  const std::string dir = "/proc/" + p.pid;
  root.write(dir + "/comm", p.comm + "\n");
  root.write(dir + "/cgroup", p.cgroup);
  root.mkdir(dir + "/fd");
  for (const auto& [fd, node] : p.fds) {
    root.link(dir + "/fd/" + fd, root.host(node.first).string());
    root.write(dir + "/fdinfo/" + fd, "pos:\t0\nflags:\t02100002\n" + node.second);
  }
}

std::string amd_fdinfo(const std::string& client) {
  return "drm-driver:\tamdgpu\ndrm-client-id:\t" + client +
         "\ndrm-pdev:\t0000:03:00.0\ndrm-memory-vram:\t1048576 KiB\ndrm-memory-gtt:\t2048 KiB\n"
         "drm-engine-gfx:\t1000 ns\n";
}

// The workstation (Intel renderD128, RTX 4090 /dev/nvidia0 and renderD129, RX 7900 renderD130)
// with NVML answering for the 4090, and five processes: a repository's training job on the AMD card
// (one client through two fds), the same repository's CUDA job on the 4090 through a node its
// container shows elsewhere, a desktop process of the machine on the Intel GPU, another
// repository's container on the AMD card, and a process holding /dev/null.
void busy_workstation(const FixtureRoot& root) {
  workstation_numbered(root, {128, 129, 130});
  MachineBuilder m(root);
  m.fake_nvml("/usr/lib/x86_64-linux-gnu", "driver 570.86.15\n" +
                                               nvml_gpu_line("00000000:01:00.0", "NVIDIA GeForce RTX 4090",
                                                             kWorkstation4090Uuid, 24ULL << 30, 0, 0x2684) +
                                               "process 0 300 2147483648\nutil 0 300 87 3\nutil 0 300 12 1\n"
                                               "util 0 301 99 60\n");
  root.char_node("/ctr/dev/nvidia3", 195, 0);  // what the CUDA job's container calls /dev/nvidia0
  root.char_node("/dev/null", 1, 3);
  add(root, {"100",
             "python3",
             "0::/system.slice/docker-" + kTrain + ".scope\n",
             {{"3", {"/dev/dri/renderD130", amd_fdinfo("7")}}, {"4", {"/dev/dri/renderD130", amd_fdinfo("7")}}}});
  add(root, {"300",
             "cuda-job",
             "12:devices:/docker/" + kCuda + "\n0::/docker/" + kCuda + "\n",
             {{"5", {"/ctr/dev/nvidia3", ""}}}});
  add(root, {"200",
             "Xorg",
             "0::/user.slice/user-1000.slice/session-2.scope\n",
             {{"9", {"/dev/dri/renderD128", "drm-driver:\ti915\ndrm-client-id:\t3\ndrm-pdev:\t0000:00:02.0\n"}}}});
  add(root, {"500",
             "miner",
             "0::/system.slice/docker-" + kStray + ".scope\n",
             {{"3", {"/dev/dri/renderD130", amd_fdinfo("9")}}}});
  add(root, {"600", "bash", "0::/user.slice\n", {{"1", {"/dev/null", ""}}}});
}

json usage_of(const FixtureRoot& root) {
  const auto r = tool_on(root, {"usage", "-o", "json", "--sample-ms", "0"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

std::map<std::string, json> processes_by_pid(const json& usage) {
  std::map<std::string, json> out;
  for (const auto& g : usage["gpus"]) {
    for (auto p : g["processes"]) {
      p["gpu"] = g["pci_address"];
      out[std::to_string(p["pid"].get<int>())] = p;
    }
  }
  return out;
}

// Repository daemons answering which containers are theirs, found through their plugins'
// environment files.
struct RepoDaemons {
  StandInDaemon web, beta;
  RepoDaemons(const FixtureRoot& root)
      : web(root, "9001",
            {{"/containers/json",
              json::array({{{"Id", kTrain}, {"Names", {"/train-1"}}}, {{"Id", kCuda}, {"Names", {"/cuda-1"}}}})}},
            0, false),
        beta(root, "9002", {{"/containers/json", json::array({{{"Id", kStray}, {"Names", {"/idle-1"}}}})}}, 0, false) {
    // Machine paths, as setup writes them: reached under the root.
    root.write("/etc/rediacc/gpu/plugins/web.env", "REDIACC_GPU_DOCKER_HOST=unix:///proc/9001/root/run/d.sock\n");
    root.write("/etc/rediacc/gpu/plugins/beta.env", "REDIACC_GPU_DOCKER_HOST=unix:///proc/9002/root/run/d.sock\n");
  }
};

}  // namespace

TEST_CASE("usage: a process's container is the last container id its cgroup names, under any driver or parent") {
  CHECK(container_of_cgroup("0::/system.slice/docker-" + kTrain + ".scope\n") == kTrain);
  CHECK(container_of_cgroup("12:pids:/docker/" + kCuda + "\n1:name=systemd:/docker/" + kCuda + "\n") == kCuda);
  // A tenant's --cgroup-parent naming another container's id comes before its own.
  CHECK(container_of_cgroup("0::/docker/" + kTrain + "/" + kStray + "\n") == kStray);
  CHECK(container_of_cgroup("0::/mine.slice/mine-docker-" + kCuda + ".scope\n") == kCuda);
  CHECK_FALSE(container_of_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n"));
  CHECK_FALSE(container_of_cgroup("0::/docker/" + std::string(63, 'a') + "\n"));
  CHECK_FALSE(container_of_cgroup("0::/x" + kTrain + "\n"));
}

TEST_CASE("usage: DRM fdinfo gives a client's VRAM, resident sizes first, and its busiest engine's share") {
  const auto amd = parse_drm_fdinfo(amd_fdinfo("7"));
  REQUIRE(amd);
  CHECK(amd->client_id == "7");
  CHECK(amd->pdev == "0000:03:00.0");
  CHECK(amd->memory_bytes == 1024ULL * 1024 * 1024);  // VRAM only, not GTT
  const auto newer = parse_drm_fdinfo(
      "drm-driver:\txe\ndrm-total-vram0:\t64 MiB\ndrm-resident-vram0:\t32 MiB\ndrm-memory-vram0:\t999 MiB\n"
      "drm-resident-system:\t4 MiB\n");
  REQUIRE(newer);
  CHECK(newer->memory_bytes == 36ULL * 1024 * 1024);  // no "vram"/"local" region named so: every resident one
  const auto intel = parse_drm_fdinfo("drm-driver:\ti915\ndrm-resident-local0:\t8 MiB\ndrm-resident-system:\t4 MiB\n");
  REQUIRE(intel);
  CHECK(intel->memory_bytes == 8ULL * 1024 * 1024);
  CHECK_FALSE(parse_drm_fdinfo("pos:\t0\nflags:\t02\nmnt_id:\t25\n"));
  CHECK_FALSE(parse_drm_fdinfo("drm-driver:\tamdgpu\n")->memory_bytes);

  const auto before = parse_drm_fdinfo("drm-driver:\tamdgpu\ndrm-engine-gfx:\t1000 ns\ndrm-engine-compute:\t0 ns\n");
  const auto after =
      parse_drm_fdinfo("drm-driver:\tamdgpu\ndrm-engine-gfx:\t51000 ns\ndrm-engine-compute:\t20000 ns\n");
  CHECK(busiest_engine_percent(*before, *after, 100000) == Approx(50.0));
  CHECK_FALSE(busiest_engine_percent(*parse_drm_fdinfo("drm-driver:\tx\n"), *parse_drm_fdinfo("drm-driver:\tx\n"), 10));
}

TEST_CASE("usage: each GPU's processes by device number, the machine's own and unknown containers told apart") {
  FixtureRoot root;
  busy_workstation(root);
  const auto usage = usage_of(root);
  INFO(usage.dump(2));
  REQUIRE(usage["gpus"].size() == 3);
  const auto by_pid = processes_by_pid(usage);
  CHECK(by_pid.size() == 4);  // not the one holding /dev/null
  CHECK(by_pid.at("200")["gpu"] == "0000:00:02.0");
  CHECK(by_pid.at("200")["repository"] == "host");
  CHECK(by_pid.at("200")["container"].is_null());
  // The CUDA job's node is /dev/nvidia3 inside its container: the number says it is the 4090.
  CHECK(by_pid.at("300")["gpu"] == "0000:01:00.0");
  CHECK(by_pid.at("300")["nodes"] == json::array({"/dev/nvidia0"}));
  CHECK(by_pid.at("300")["memory_bytes"] == 2147483648ULL);  // NVML's word
  CHECK(by_pid.at("300")["utilisation_percent"] == 12.0);    // its newest sample, not its busiest
  CHECK(by_pid.at("300")["repository"] == "unknown");        // no repository daemon answers yet
  CHECK(by_pid.at("300")["container"] == kCuda);
  // One DRM client through two fds counts once; its VRAM, not its GTT.
  CHECK(by_pid.at("100")["gpu"] == "0000:03:00.0");
  CHECK(by_pid.at("100")["memory_bytes"] == 1073741824ULL);
  CHECK(by_pid.at("100")["utilisation_percent"].is_null());  // not sampled

  // A tenant names its own processes: no terminal escape reaches the operator's screen.
  add(root, {"700", "\x1b[2Jx", "0::/user.slice\n", {{"1", {"/dev/dri/renderD128", ""}}}});
  CHECK(processes_by_pid(usage_of(root)).at("700")["command"] == "?[2Jx");

  const auto table = tool_on(root, {"usage", "--sample-ms", "0"}).out;
  CHECK_THAT(table, Contains("GPU") && Contains("REPOSITORY") && Contains("cuda-job") && Contains("2.0 GiB"));
}

TEST_CASE(
    "usage: repository daemons name their containers, and doctor fails a repository's process outside its "
    "grants") {
  FixtureRoot root;
  busy_workstation(root);
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "rediacc.io/dri=renderD130"}).exit_code == 0);
  RepoDaemons daemons(root);
  const auto by_pid = processes_by_pid(usage_of(root));
  CHECK(by_pid.at("100")["repository"] == "web");
  CHECK(by_pid.at("100")["container_name"] == "train-1");
  CHECK(by_pid.at("300")["repository"] == "web");
  CHECK(by_pid.at("500")["repository"] == "beta");

  const auto use = doctor_checks(root, "gpu-use");
  INFO(json(use).dump(2));
  REQUIRE(use.size() == 2);
  for (const auto& c : use) {
    CHECK(c["status"] == "fail");
    CHECK(c["layer"] == 5);
  }
  // web's CUDA job holds the 4090, for which web holds no grant; beta holds nothing at all.
  CHECK(use[0]["subject"] == "web");
  CHECK_THAT(use[0]["observed"].get<std::string>(),
             Contains("process 300 (cuda-job) in container cuda-1 (bbbbbbbbbbbb) of repository web holds "
                      "/dev/nvidia0 (" +
                      std::string(kWorkstation4090Uuid) + ") on 0000:01:00.0") &&
                 Contains("web holds no grant that covers it"));
  CHECK(use[1]["subject"] == "beta");
  CHECK_THAT(use[1]["observed"].get<std::string>(), Contains("process 500 (miner)") && Contains("0000:03:00.0"));

  const auto metrics = tool_on(root, {"metrics"}).out;
  CHECK_THAT(metrics, Contains("rediacc_gpu_processes{repository=\"web\",pci_address=\"0000:03:00.0\"} 1\n") &&
                          Contains("rediacc_gpu_processes{repository=\"host\",pci_address=\"0000:00:02.0\"} 1\n") &&
                          Contains("rediacc_gpu_memory_used_bytes{repository=\"web\",pci_address=\"0000:01:00.0\"} "
                                   "2147483648\n") &&
                          Contains("rediacc_gpu_grant_in_use{repository=\"web\",device=\"rediacc.io/dri=renderD130\"} "
                                   "1\n") &&
                          Contains("rediacc_gpu_grant_last_used_timestamp_seconds{repository=\"web\""));
  // A scrape that must stay cheapest leaves it out, and says nothing of it.
  CHECK_THAT(tool_on(root, {"metrics", "--no-usage"}).out, !Contains("rediacc_gpu_processes") &&
                                                               !Contains("rediacc_gpu_grant_in_use") &&
                                                               Contains("rediacc_gpu_doctor_failed_checks"));
  const auto record = json::parse(root.read("/var/lib/rediacc/gpu/grant-use.json"));
  CHECK(record["grants"][0]["repo"] == "web");
  CHECK(record["grants"][0]["device"] == "rediacc.io/dri=renderD130");
}

TEST_CASE("usage: asks the repository daemons for their containers alone, and writes nothing") {
  FixtureRoot root;
  busy_workstation(root);
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "rediacc.io/dri=renderD130"}).exit_code == 0);
  RepoDaemons daemons(root);
  const auto files = [&] {
    std::map<std::string, std::filesystem::file_time_type> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root.path())) {
      if (e.is_regular_file()) out[e.path().string()] = e.last_write_time();
    }
    return out;
  };
  const auto before = files();
  CHECK(processes_by_pid(usage_of(root)).at("100")["repository"] == "web");
  CHECK(files() == before);
  CHECK_FALSE(std::filesystem::exists(root.host("/var/lib/rediacc/gpu/grant-use.json")));
  for (const auto* daemon : {&daemons.web, &daemons.beta}) {
    const auto asked = daemon->requests();
    INFO(Catch::rangeToString(asked));
    CHECK(std::all_of(asked.begin(), asked.end(),
                      [](const std::string& r) { return r.starts_with("GET /containers/json"); }));
  }
}

TEST_CASE("doctor: a grant no process of its repository used for a day is noted, and one in use is not") {
  FixtureRoot root;
  busy_workstation(root);
  REQUIRE(tool_on(root, {"cdi", "generate"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "rediacc.io/dri=renderD128", "--exclusive"}).exit_code == 0);
  REQUIRE(tool_on(root, {"grant", "web", "--device", "rediacc.io/dri=renderD130"}).exit_code == 0);
  RepoDaemons daemons(root);
  CHECK(doctor_checks(root, "grant-idle")[0]["status"] == "ok");  // granted just now
  // Two days later: the record began then, and the grants were made then.
  root.write("/var/lib/rediacc/gpu/grant-use.json", R"({"schema": 1, "since": "2026-01-01T00:00:00Z", "grants": []})");
  auto grants = json::parse(root.read("/etc/rediacc/gpu/grants.json"));
  for (auto& g : grants["grants"]) g["granted_at"] = "2026-01-01T00:00:00Z";
  root.write("/etc/rediacc/gpu/grants.json", grants.dump());
  const auto idle = doctor_checks(root, "grant-idle");
  INFO(json(idle).dump(2));
  REQUIRE(idle.size() == 1);  // renderD130 is in use by train-1
  CHECK(idle[0]["status"] == "warn");
  CHECK_THAT(idle[0]["observed"].get<std::string>(),
             Contains("web holds rediacc.io/dri=renderD128 (exclusive) and no process of it has used it for") &&
                 Contains("days"));
  CHECK_THAT(idle[0]["meaning"].get<std::string>(), Contains("a reserved GPU sits idle"));
}

TEST_CASE("doctor: a GPU NVML reports lost fails by name, and the probe keeps what /proc still says of it") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  MachineBuilder m(root);
  const std::string gpu =
      nvml_gpu_line("00000000:01:00.0", "NVIDIA GeForce RTX 4090", kWorkstation4090Uuid, 24ULL << 30, 0, 0x2684);
  m.fake_nvml("/usr/lib/x86_64-linux-gnu", "driver 570.86.15\n" + gpu);
  REQUIRE(tool_on(root, {"probe"}).exit_code == 0);
  m.fake_nvml("/usr/lib/x86_64-linux-gnu", "driver 570.86.15\n" + gpu + "lost 0\n");
  const auto present = doctor_checks(root, "gpu-present");
  INFO(json(present).dump(2));
  REQUIRE(present.size() == 1);
  CHECK(present[0]["status"] == "fail");
  CHECK_THAT(present[0]["observed"].get<std::string>(),
             Contains("NVIDIA GeForce RTX 4090 (0000:01:00.0)") && Contains("reported lost by NVML"));
  CHECK_THAT(tool_on(root, {"metrics"}).out, Contains("rediacc_gpu_gpu_lost{pci_address=\"0000:01:00.0\"} 1\n"));
}
