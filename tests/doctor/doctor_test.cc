// doctor on fixture machines: a healthy one gives no failure, and each broken link of the chain
// fails or warns at its layer with the decision that fixes it.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <tuple>

#include "cdi/spec_index.h"
#include "docker/builder_entitlements.h"
#include "docker/running_daemons.h"
#include "doctor/container/container.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/nvidia_set_up.h"
#include "tests/support/run_binary.h"
#include "tests/support/stand_in_daemon.h"

using namespace rgpu::test;
namespace fs = std::filesystem;

namespace {

struct Doctor {
  int exit_code;
  nlohmann::json checks;
  std::string text;

  // The check `id` (the first of that id whose status is not ok, else the first).
  nlohmann::json check(const std::string& id) const {
    nlohmann::json first;
    for (const auto& c : checks) {
      if (c["id"] != id) continue;
      if (c["status"] != "ok") return c;
      if (first.is_null()) first = c;
    }
    return first;
  }
};

Doctor doctor_json_on(const FixtureRoot& root) {
  auto r = run_tool({"doctor", "-o", "json", "--root", root.str()});
  INFO(r.out << r.err);
  REQUIRE_FALSE(r.out.empty());
  return {r.exit_code, nlohmann::json::parse(r.out)["checks"], r.out};
}

void expect(const Doctor& d, const std::string& id, int layer, const std::string& status, const std::string& decision) {
  const auto c = d.check(id);
  INFO(d.text);
  REQUIRE_FALSE(c.is_null());
  CHECK(c["layer"] == layer);
  CHECK(c["status"] == status);
  CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains(decision));
  if (status == "fail") CHECK(d.exit_code == 1);
}

}  // namespace

TEST_CASE("doctor: a link narrower than its maximum warns, a lower speed alone does not, and metrics show both") {
  FixtureRoot root;
  healthy_nvidia(root);
  const std::string a = "/sys/devices/pci0000:00/0000:41:00.0", b = "/sys/devices/pci0001:00/0001:c1:00.0";
  for (const auto& [dir, cur_speed, cur_width] :
       {std::tuple{a, "32.0 GT/s PCIe", "8"}, std::tuple{b, "2.5 GT/s PCIe", "16"}}) {
    root.write(dir + "/current_link_speed", std::string(cur_speed) + "\n");
    root.write(dir + "/current_link_width", std::string(cur_width) + "\n");
    root.write(dir + "/max_link_speed", "32.0 GT/s PCIe\n");
    root.write(dir + "/max_link_width", "16\n");
    root.write(dir + "/numa_node", "-1\n");
  }
  const auto d = doctor_json_on(root);
  std::map<std::string, nlohmann::json> by_gpu;
  for (const auto& c : d.checks) {
    if (c["id"] == "pcie-link") by_gpu[c["observed"].get<std::string>().substr(0, 40)] = c;
  }
  REQUIRE(by_gpu.size() == 2);
  int warned = 0;
  for (const auto& [_, c] : by_gpu) {
    INFO(c.dump());
    CHECK(c["layer"] == 1);
    CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("NUMA node unknown"));
    if (c["observed"].get<std::string>().find("x8 of 32 GT/s x16") != std::string::npos) {
      ++warned;
      CHECK(c["status"] == "warn");
      CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("reseat"));
    } else {
      CHECK(c["status"] == "ok");
      CHECK_THAT(c["meaning"].get<std::string>(), Catch::Contains("idle"));
    }
  }
  CHECK(warned == 1);
  CHECK(d.exit_code == 0);  // a warning, not a failure
  auto m = run_tool({"metrics", "--root", root.str()});
  CHECK_THAT(m.out, Catch::Contains("rediacc_gpu_pcie_link_width{pci_address=\"0000:41:00.0\",value=\"current\"} 8\n"));
  CHECK_THAT(m.out, Catch::Contains("rediacc_gpu_pcie_link_width{pci_address=\"0000:41:00.0\",value=\"max\"} 16\n"));
  CHECK_THAT(m.out,
             Catch::Contains("rediacc_gpu_pcie_link_speed_gts{pci_address=\"0001:c1:00.0\",value=\"current\"} 2.5\n"));
  CHECK(run_program("/usr/bin/promtool", {"check", "metrics"}, m.out).exit_code == 0);
}

TEST_CASE("doctor: the table's last line sums up, naming the first failing layer") {
  FixtureRoot root;
  healthy_nvidia(root);
  fs::remove(root.host("/dev/nvidia0"));
  auto r = run_tool({"doctor", "--root", root.str()});
  CHECK(r.exit_code == 1);
  // The last line alone: a "(.|\n)*" regex over the whole table overflows std::regex's stack under ASan.
  REQUIRE(r.out.ends_with("\n"));
  const auto start = r.out.rfind('\n', r.out.size() - 2) + 1;
  CHECK_THAT(r.out.substr(start), Catch::Matches("1 failed, 0 warnings, [0-9]+ passed, [0-9]+ skipped; first failing "
                                                 "layer: 2 device nodes\n"));
}

TEST_CASE("doctor: the container check needs both --repo and --image, one alone is a usage error") {
  FixtureRoot root;
  healthy_nvidia(root);
  auto only_repo = run_tool({"doctor", "--root", root.str(), "--repo", "web"});
  CHECK(only_repo.exit_code == 2);
  CHECK_THAT(only_repo.err, Catch::Contains("needs both --repo and --image (got only --repo)"));
  auto only_image = run_tool({"doctor", "--root", root.str(), "--image", "busybox"});
  CHECK(only_image.exit_code == 2);
}

TEST_CASE("doctor: a healthy NVIDIA machine passes every check, each with what it saw") {
  FixtureRoot root;
  healthy_nvidia(root);
  const auto d = doctor_json_on(root);
  INFO(d.text);
  CHECK(d.exit_code == 0);
  for (const auto& c : d.checks) {
    INFO(c.dump());
    CHECK((c["status"] == "ok" || c["status"] == "skip"));
    CHECK_FALSE(c["observed"].get<std::string>().empty());
    for (const char* key : {"id", "layer", "status", "observed", "evidence", "meaning", "decision"})
      CHECK(c.contains(key));
  }
  auto table = run_tool({"doctor", "--root", root.str()});
  CHECK(table.exit_code == 0);
  // Line by line: a "(.|\n)*" regex over the whole table overflows std::regex's stack under ASan.
  std::vector<std::string> lines;
  for (size_t at = 0, nl; (nl = table.out.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(table.out.substr(at, nl - at));
  CHECK(std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    return std::regex_match(l, std::regex("\\[1\\] ok    nvidia-driver +NVIDIA kernel module 550.54.15 is loaded  "
                                          "\\[from /proc/driver/nvidia/version\\]"));
  }));
  REQUIRE_FALSE(lines.empty());
  // Skipped checks are said apart: they passed nothing.
  CHECK_THAT(lines.back(), Catch::Matches("[0-9]+ passed, [0-9]+ skipped"));
  size_t ok = 0, skipped = 0;
  for (const auto& c : d.checks) (c["status"] == "ok" ? ok : skipped) += 1;
  CHECK(lines.back() == std::to_string(ok) + " passed, " + std::to_string(skipped) + " skipped");
}

TEST_CASE("doctor: on every fixture machine, each ok names what it read to say so") {
  using Builder = void (*)(const FixtureRoot&);
  const std::vector<std::pair<const char*, Builder>> machines = {
      {"nvidia", [](const FixtureRoot& r) { healthy_nvidia(r); }},
      {"amd", two_amd_instinct},
      {"mi300x", amd_mi300x_partitioned},
      {"intel", intel_discrete},
      {"mixed", mixed_workstation},
      {"wsl2", wsl2_nvidia},
      {"none", no_gpu}};
  for (const auto& [name, build] : machines) {
    FixtureRoot root;
    build(root);
    run_tool({"cdi", "generate", "--root", root.str()});
    run_tool({"probe", "--root", root.str()});
    const auto d = doctor_json_on(root);
    size_t passed = 0;
    for (const auto& c : d.checks) {
      INFO(name << ": " << c.dump());
      if (c["status"] != "ok") continue;
      ++passed;
      CHECK(c["evidence"].get<std::string>().size() > 3);
    }
    INFO(name);
    CHECK(passed > 5);
  }
}

TEST_CASE("doctor: each broken link fails or warns at its layer, with the decision that fixes it") {
  SECTION("layer 1: the NVIDIA module is not loaded") {
    FixtureRoot root;
    healthy_nvidia(root);
    fs::remove(root.host("/proc/driver/nvidia/version"));
    expect(doctor_json_on(root), "nvidia-driver", 1, "fail", "modprobe nvidia");
  }
  SECTION("layer 1: nouveau is loaded") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.mkdir("/sys/module/nouveau");
    expect(doctor_json_on(root), "nouveau", 1, "fail", "blacklist nouveau");
  }
  SECTION("layer 1: a GPU bound to a nouveau built into the kernel (no /sys/module/nouveau)") {
    FixtureRoot root;
    healthy_nvidia(root);
    fs::remove(root.host("/sys/bus/pci/devices/0001:c1:00.0/driver"));
    root.link("/sys/bus/pci/devices/0001:c1:00.0/driver", "../../../bus/pci/drivers/nouveau");
    const auto d = doctor_json_on(root);
    expect(d, "nouveau", 1, "fail", "blacklist nouveau");
    CHECK_THAT(d.check("nouveau")["observed"].get<std::string>(),
               Catch::Contains("nouveau drives") && Catch::Contains("0001:c1:00.0"));
  }
  SECTION("layer 1: amdgpu loaded but driving none of the AMD GPUs") {
    FixtureRoot root;
    two_amd_instinct(root);
    for (const std::string gpu : {"0000:43:00.0", "0000:c3:00.0"}) {
      REQUIRE(fs::remove(root.host("/sys/bus/pci/devices/" + gpu + "/driver")));
      root.link("/sys/bus/pci/devices/" + gpu + "/driver", "../../../bus/pci/drivers/vfio-pci");
    }
    const auto d = doctor_json_on(root);
    INFO(d.text);
    expect(d, "amdgpu", 1, "fail", "amdgpu's probe error");
  }
  SECTION("layer 1: a configuration space that cannot be read is not claimed to answer") {
    FixtureRoot root;
    healthy_nvidia(root);
    fs::remove(root.host("/sys/bus/pci/devices/0001:c1:00.0/config"));
    const auto d = doctor_json_on(root);
    CHECK(d.check("gpu-present")["status"] == "ok");
    CHECK_THAT(d.check("gpu-present")["observed"].get<std::string>(),
               Catch::Contains("2 recorded GPU(s) on the PCI bus, 1 answering from their configuration space (1 could "
                               "not be read"));
  }
  SECTION("layer 1: the driver failed in the kernel log") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/var/log/kern.log", "Nov 29 kernel: NVRM: GPU 0000:41:00.0: RmInitAdapter failed! (0x22:0x56:667)\n");
    const auto d = doctor_json_on(root);
    expect(d, "kernel-log", 1, "fail", "reload the driver");
    CHECK_THAT(d.check("kernel-log")["observed"].get<std::string>(), Catch::Contains("RmInitAdapter failed"));
  }
  SECTION("layer 1: under WSL2, /dev/dxg is there but NVML does not load: the GPU vanished") {
    FixtureRoot root;
    wsl2_nvidia(root);
    root.write("/usr/lib/wsl/lib/fake-nvml.conf", "driver 581.57\ninit_error 9\n");
    const auto d = doctor_json_on(root);
    expect(d, "wsl-gpu", 1, "fail", "Windows");
    CHECK_THAT(d.check("wsl-gpu")["observed"].get<std::string>(),
               Catch::Contains("/usr/lib/wsl/lib/libnvidia-ml.so.1") && Catch::Contains("did not initialise"));
    CHECK(d.exit_code == 1);
  }
  SECTION("layer 1: under WSL2 with no NVML library at all") {
    FixtureRoot root;
    wsl2_nvidia(root);
    fs::remove(root.host("/usr/lib/wsl/lib/libnvidia-ml.so.1"));
    expect(doctor_json_on(root), "wsl-gpu", 1, "fail", "Windows");
  }
  SECTION("layer 1: a GPU with no driver bound") {
    FixtureRoot root;
    healthy_nvidia(root);
    fs::remove(root.host("/sys/bus/pci/devices/0001:c1:00.0/driver"));
    const auto d = doctor_json_on(root);
    expect(d, "gpu-driver", 1, "fail", "lspci -k");
    CHECK_THAT(d.check("gpu-driver")["observed"].get<std::string>(), Catch::Contains("0001:c1:00.0"));
  }
  SECTION("layer 1: what the probe warned about is a finding, never silence") {
    FixtureRoot root;
    healthy_nvidia(root);
    // NVML fails: the probe falls back to /proc/driver/nvidia and says so.
    root.write("/usr/lib/x86_64-linux-gnu/fake-nvml.conf", "driver 550.54.15\ninit_error 9\n");
    const auto d = doctor_json_on(root);
    bool warned = false;
    for (const auto& c : d.checks) {
      warned = warned || (c["id"] == "probe" && c["layer"] == 1 && c["status"] == "warn" &&
                          c["observed"].get<std::string>().find("did not initialise") != std::string::npos);
    }
    INFO(d.text);
    CHECK(warned);
  }
  SECTION("layer 2: a device node is missing") {
    FixtureRoot root;
    healthy_nvidia(root);
    fs::remove(root.host("/dev/nvidia0"));
    const auto d = doctor_json_on(root);
    expect(d, "device-nodes", 2, "fail", "udevadm trigger");
    CHECK_THAT(d.check("device-nodes")["observed"].get<std::string>(), Catch::Contains("/dev/nvidia0 missing"));
  }
  SECTION("layer 2: a WSL2 kernel without /dev/dxg") {
    FixtureRoot root;
    wsl2_nvidia(root);
    fs::remove(root.host("/dev/dxg"));
    expect(doctor_json_on(root), "dxg", 2, "fail", "wsl --update");
  }
  SECTION("layer 3: the NVIDIA spec is older than the driver loaded") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/proc/driver/nvidia/version",
               "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 15 00:43:42 UTC 2025\n");
    const auto d = doctor_json_on(root);
    expect(d, "nvidia-spec", 3, "fail", "rediacc-gpu setup");
    CHECK_THAT(d.check("nvidia-spec")["observed"].get<std::string>(),
               Catch::Contains("generated for driver 550.54.15, the driver now is 570.86.15"));
  }
  SECTION("layer 3: an nvidia runtime in daemon.json") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/etc/docker/daemon.json", R"({"runtimes":{"nvidia":{"path":"nvidia-container-runtime"}}})");
    expect(doctor_json_on(root), "docker-daemon", 3, "fail", "remove the nvidia runtime");
  }
  SECTION("layer 3: a repository daemon's own configuration, or its answer, runs nvidia by default") {
    using namespace std::string_literals;
    FixtureRoot root;
    healthy_nvidia(root);
    CHECK(doctor_json_on(root).check("docker-daemon")["status"] == "ok");
    // Not /etc/docker/daemon.json: the --config-file the repository daemon was started with.
    root.write(
        "/proc/4242/cmdline",
        "/usr/sbin/dockerd\0--authorization-plugin=rediacc-gpu-web\0--config-file\0/etc/rediacc-docker/web.json\0"s);
    root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
    root.write("/etc/rediacc-docker/web.json", R"({"default-runtime":"nvidia","cdi-spec-dirs":["/etc/cdi"]})");
    auto d = doctor_json_on(root);
    expect(d, "docker-daemon", 3, "fail", "remove the nvidia runtime");
    CHECK_THAT(d.check("docker-daemon")["observed"].get<std::string>(),
               Catch::Contains("/etc/rediacc-docker/web.json makes \"nvidia\" the default runtime"));
    CHECK_THAT(d.check("docker-daemon")["meaning"].get<std::string>(), Catch::Contains("NVIDIA_VISIBLE_DEVICES"));
    // The daemon's own word, when its configuration came from elsewhere (flags, a file not found).
    root.write("/etc/rediacc-docker/web.json", R"({"cdi-spec-dirs":["/etc/cdi"]})");
    StandInDaemon answering(root, "4343",
                            {{"/info", {{"DefaultRuntime", "nvidia"}}}, {"/version", {{"Version", "28.5.1"}}}});
    d = doctor_json_on(root);
    expect(d, "docker-daemon", 3, "fail", "remove the nvidia runtime");
    CHECK_THAT(d.check("docker-daemon")["observed"].get<std::string>(),
               Catch::Contains("dockerd 4343") && Catch::Contains("runs \"nvidia\" by default (GET /info)"));
  }
  SECTION("layer 3: nvidia-cdi-refresh's drop-in is there, but its file does not send the spec to /etc/cdi") {
    FixtureRoot root;
    healthy_nvidia(root);
    CHECK(doctor_json_on(root).check("refresh-wired")["status"] == "ok");
    root.write("/etc/rediacc/gpu/nvidia-cdi-refresh.env",
               "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml\nNVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/"
               "nvidia.yaml\n");
    const auto d = doctor_json_on(root);
    expect(d, "refresh-wired", 3, "warn", "rediacc-gpu setup");
    CHECK_THAT(d.check("refresh-wired")["observed"].get<std::string>(), Catch::Contains("does not set"));
  }
  SECTION("layer 3: a toolkit below the minimum") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/var/lib/dpkg/status",
               "Package: nvidia-container-toolkit-base\nStatus: install ok installed\nVersion: 1.14.3-1\n\n");
    const auto d = doctor_json_on(root);
    expect(d, "toolkit", 3, "fail", "rediacc-gpu setup");
    CHECK_THAT(d.check("toolkit")["observed"].get<std::string>(),
               Catch::Contains("1.14.3-1 is installed, below 1.18.0"));
  }
  SECTION("layer 3: dockerd reads CDI specs elsewhere than /etc/cdi") {
    FixtureRoot root;
    healthy_nvidia(root);
    CHECK(doctor_json_on(root).check("cdi-spec-dirs")["status"] == "skip");  // no Docker that reads CDI
    root.write("/var/lib/dpkg/status", "Package: docker.io\nStatus: install ok installed\nVersion: 26.1.5+dfsg1-9\n\n");
    // Docker's default also reads /var/run/cdi, where a spec wins over /etc/cdi.
    root.write("/etc/docker/daemon.json", R"({"features":{"cdi":true}})");
    auto d = doctor_json_on(root);
    expect(d, "cdi-spec-dirs", 3, "fail", "\"cdi-spec-dirs\": [\"/etc/cdi\"]");
    CHECK_THAT(d.check("cdi-spec-dirs")["observed"].get<std::string>(),
               Catch::Contains("/etc/docker/daemon.json sets no cdi-spec-dirs"));
    root.write("/etc/docker/daemon.json", R"({"features":{"cdi":true},"cdi-spec-dirs":["/etc/cdi","/opt/cdi"]})");
    CHECK_THAT(doctor_json_on(root).check("cdi-spec-dirs")["observed"].get<std::string>(),
               Catch::Contains("lets dockerd read /opt/cdi"));
    root.write("/etc/docker/daemon.json", R"({"features":{"cdi":true},"cdi-spec-dirs":["/opt/cdi"]})");
    CHECK_THAT(doctor_json_on(root).check("cdi-spec-dirs")["observed"].get<std::string>(),
               Catch::Contains("keeps dockerd from /etc/cdi"));
    root.write("/etc/docker/daemon.json", R"({"features":{"cdi":true},"cdi-spec-dirs":["/etc/cdi"]})");
    CHECK(doctor_json_on(root).check("cdi-spec-dirs")["status"] == "ok");

    // A repository daemon reads the daemon.json its command line names.
    using namespace std::string_literals;
    root.write("/proc/77/cmdline", "dockerd\0--config-file=/etc/rediacc-docker/web.json\0"s);
    root.write("/etc/rediacc-docker/web.json", R"({"features":{"cdi":true}})");
    CHECK_THAT(doctor_json_on(root).check("cdi-spec-dirs")["observed"].get<std::string>(),
               Catch::Equals("/etc/rediacc-docker/web.json sets no cdi-spec-dirs, so dockerd also reads /var/run/cdi"));
    root.write("/etc/rediacc-docker/web.json", R"({"features":{"cdi":true},"cdi-spec-dirs":["/etc/cdi"]})");
    CHECK(doctor_json_on(root).check("cdi-spec-dirs")["status"] == "ok");

    // A spec in /run/cdi (/var/run/cdi) that defines a name of /etc/cdi or a grant is named.
    root.link("/var/run", "../run");
    root.write(
        "/run/cdi/evil.json",
        R"({"cdiVersion":"0.5.0","kind":"nvidia.com/gpu","devices":[{"name":"all","containerEdits":{"deviceNodes":[{"path":"/dev/sda"}]}}]})");
    root.write(
        "/run/cdi/other.json",
        R"({"cdiVersion":"0.5.0","kind":"example.com/x","devices":[{"name":"y","containerEdits":{"deviceNodes":[{"path":"/dev/null"}]}}]})");
    d = doctor_json_on(root);
    expect(d, "cdi-spec-dirs", 3, "fail", "remove the specs named");
    CHECK_THAT(d.check("cdi-spec-dirs")["observed"].get<std::string>(),
               Catch::Equals("/var/run/cdi/evil.json (nvidia.com/gpu=all) defines names /etc/cdi or a grant uses"));
  }
  SECTION("layer 3: a Docker that predates CDI, or has it off") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/var/lib/dpkg/status",
               "Package: docker.io\nStatus: install ok installed\nVersion: 20.10.24+dfsg1-1\n\n");
    expect(doctor_json_on(root), "docker-cdi", 3, "fail", "Docker 25 or later");
    root.write("/var/lib/dpkg/status",
               "Package: docker-ce\nStatus: install ok installed\nVersion: 5:27.5.1-1~debian.12~bookworm\n\n");
    expect(doctor_json_on(root), "docker-cdi", 3, "fail", "\"features\": {\"cdi\": true}");
    root.write("/etc/docker/daemon.json", R"({"features":{"cdi":true}})");
    CHECK(doctor_json_on(root).check("docker-cdi")["status"] == "ok");
    root.write("/var/lib/dpkg/status",
               "Package: docker-ce\nStatus: install ok installed\nVersion: 5:28.2.2-1~debian.12~bookworm\n\n");
    fs::remove(root.host("/etc/docker/daemon.json"));
    CHECK(doctor_json_on(root).check("docker-cdi")["status"] == "ok");
  }
  SECTION("layer 4: an inventory that does not parse") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/etc/rediacc/gpu/inventory.json", "{ not an inventory");
    expect(doctor_json_on(root), "inventory", 4, "fail", "move the file away");
  }
  SECTION("layer 5: a rootless Docker daemon") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/run/user/1000/docker.sock", "");
    expect(doctor_json_on(root), "rootless", 5, "warn", "--authorization-plugin");
  }
  SECTION("layer 5: a dockerd run by a user, its socket elsewhere than /run/user") {
    using namespace std::string_literals;
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/proc/4545/cmdline", "/usr/bin/dockerd\0--host=unix:///home/ci/docker.sock\0"s);
    root.write("/proc/4545/status", "Name:\tdockerd\nUid:\t1000\t1000\t1000\t1000\n");
    const auto d = doctor_json_on(root);
    expect(d, "rootless", 5, "warn", "--authorization-plugin");
    CHECK_THAT(d.check("rootless")["observed"].get<std::string>(), Catch::Contains("dockerd 4545 (not run by root)"));
  }
  SECTION("layer 5: each daemon's builder entitlements, and the repositories whose builds the gate refuses for them") {
    FixtureRoot root;
    healthy_nvidia(root);
    using namespace std::string_literals;
    root.write(
        "/proc/4242/cmdline",
        "/usr/sbin/dockerd\0--authorization-plugin=rediacc-gpu-web\0--config-file=/etc/rediacc-docker/web.json\0"s);
    root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
    process_start(root, "4242", std::chrono::seconds(0));
    root.write("/etc/rediacc-docker/web.json", R"({"cdi-spec-dirs":["/etc/cdi"]})");
    auto d = doctor_json_on(root);
    expect(d, "buildkit", 5, "warn", "\"network-host\": false");
    CHECK_THAT(d.check("buildkit")["observed"].get<std::string>(),
               Catch::Contains("dockerd 4242 of repository web: device entitlement on, network-host on, "
                               "security-insecure off"));
    CHECK_THAT(d.check("buildkit")["meaning"].get<std::string>(),
               Catch::Contains("web (/etc/rediacc-docker/web.json: network-host is not off)"));
    root.write("/etc/rediacc-docker/web.json",
               R"({"cdi-spec-dirs":["/etc/cdi"],"Builder":{"Entitlements":{"network-host":false,"device":false}}})");
    d = doctor_json_on(root);
    CHECK(d.check("buildkit")["status"] == "ok");
    CHECK_THAT(d.check("buildkit")["observed"].get<std::string>(),
               Catch::Contains("device entitlement off, network-host off, security-insecure off"));
    root.write("/etc/rediacc-docker/web.json",
               R"({"builder":{"entitlements":{"network-host":false,"security-insecure":true}}})");
    CHECK_THAT(doctor_json_on(root).check("buildkit")["meaning"].get<std::string>(),
               Catch::Contains("security-insecure is on"));

    // Two spellings of one key (Go merges them, the last winning): doctor answers as the gate does,
    // from the one function both call.
    root.write("/etc/rediacc-docker/web.json",
               R"({"builder":{"entitlements":{"network-host":false},"Entitlements":{"network-host":true}}})");
    const rgpu::RootFs fs(root.path());
    const auto gate = rgpu::docker::daemon_builder_entitlements(fs, fs, *rgpu::docker::read_daemon(fs, "4242"));
    REQUIRE_FALSE(gate);
    CHECK_THAT(gate.error().message, Catch::Contains("/etc/rediacc-docker/web.json cannot be judged"));
    d = doctor_json_on(root);
    expect(d, "buildkit", 5, "warn", "restart the daemon");
    CHECK_THAT(d.check("buildkit")["meaning"].get<std::string>(),
               Catch::Contains("web (/etc/rediacc-docker/web.json cannot be judged (an object has two keys that "
                               "Docker reads as one"));

    // Edited after the daemon started, which reads its builder's entitlements only then.
    root.write("/etc/rediacc-docker/web.json", R"({"builder":{"entitlements":{"network-host":false}}})");
    process_start(root, "4242", std::chrono::seconds(600));
    CHECK_THAT(doctor_json_on(root).check("buildkit")["meaning"].get<std::string>(),
               Catch::Contains("web (/etc/rediacc-docker/web.json changed after the daemon started"));
  }
  SECTION("layer 5: what a build step's RUN --device reaches, by the version each daemon answers") {
    FixtureRoot root;
    healthy_nvidia(root);
    const auto answers = [](const std::string& version) {
      return std::map<std::string, nlohmann::json>{{"/info", nlohmann::json::object()},
                                                   {"/version", {{"Version", version}}}};
    };
    StandInDaemon d29(root, "4329", answers("29.1.0"));
    StandInDaemon d28(root, "4328", answers("28.5.2+dfsg4"));
    StandInDaemon d26(root, "4326", answers("26.1.5+dfsg1"));
    const auto seen = doctor_json_on(root).check("buildkit")["observed"].get<std::string>();
    CHECK_THAT(seen, Catch::Contains("dockerd 4329: device entitlement on, network-host on"));
    root.write("/etc/docker/daemon.json", R"({"builder":{"entitlements":{"device":false}}})");
    CHECK_THAT(doctor_json_on(root).check("buildkit")["observed"].get<std::string>(),
               Catch::Contains("dockerd 4329: device entitlement off (devices marked auto-allowed still pass), "
                               "network-host on"));
    CHECK_THAT(seen, Catch::Contains("dockerd 4328: RUN --device: only devices marked auto-allowed (Docker 28 has no "
                                     "device entitlement), network-host on"));
    CHECK_THAT(seen, Catch::Contains("dockerd 4326: RUN --device: none (Docker 26.1.5+dfsg1's BuildKit attaches no "
                                     "CDI device), network-host on"));
  }
  SECTION("layer 5: a repository daemon whose container root is host root") {
    FixtureRoot root;
    healthy_nvidia(root);
    using namespace std::string_literals;
    root.write("/proc/4242/cmdline",
               "/usr/sbin/dockerd\0--authorization-plugin=rediacc-gpu-web\0--config-file\0"
               "/etc/rediacc-docker/web.json\0"s);
    root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
    root.write("/etc/rediacc-docker/web.json", R"({"cdi-spec-dirs":["/etc/cdi"]})");
    wire_runtime_verifier(root, "4242");
    root.write("/proc/4343/cmdline", "dockerd\0--userns-remap=default\0"s);
    root.write("/proc/4343/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
    root.write("/proc/4444/cmdline", "/usr/bin/dockerd\0--rootless\0"s);
    root.write("/proc/4444/status", "Name:\tdockerd\nUid:\t1000\t1000\t1000\t1000\n");
    root.write("/proc/4545/cmdline", "/usr/bin/containerd\0"s);
    auto d = doctor_json_on(root);
    expect(d, "userns", 5, "warn", "\"userns-remap\": \"default\"");
    const auto c = d.check("userns");
    CHECK_THAT(c["observed"].get<std::string>(),
               Catch::Equals("container root is host root under dockerd 4242 (plugin rediacc-gpu-web)"));
    CHECK(d.exit_code == 0);

    root.write("/etc/rediacc-docker/web.json", R"({"cdi-spec-dirs":["/etc/cdi"],"userns-remap":"default"})");
    d = doctor_json_on(root);
    CHECK(d.check("userns")["status"] == "ok");
    CHECK_THAT(d.check("userns")["observed"].get<std::string>(),
               Catch::Contains("dockerd 4242 (plugin rediacc-gpu-web) userns-remap=default") &&
                   Catch::Contains("dockerd 4343 (no authorization plugin) userns-remap=default") &&
                   Catch::Contains("dockerd 4444 (no authorization plugin) rootless"));
  }
  SECTION("layer 4: our spec still names a GPU that was removed") {
    FixtureRoot root;
    healthy_nvidia(root);
    fs::remove(root.host("/sys/bus/pci/devices/0001:c1:00.0"));
    const auto d = doctor_json_on(root);
    expect(d, "rediacc-specs", 4, "fail", "rediacc-gpu cdi generate");
    expect(d, "inventory", 4, "warn", "rediacc-gpu setup");
    // What differs, not a guess at why (issue 61): the GPU by its address, and the names it took.
    const auto observed = d.check("inventory")["observed"].get<std::string>();
    CHECK_THAT(observed, Catch::Contains("GPU 0001:c1:00.0 (NVIDIA H100 80GB HBM3) is no longer found"));
    CHECK_THAT(d.check("inventory")["meaning"].get<std::string>(), !Catch::Contains("driver or hardware change"));
  }
  SECTION("layer 4: only the NVIDIA spec changed: the inventory's drift names the CDI names, not a driver") {
    FixtureRoot root;
    healthy_nvidia(root);
    std::string spec = root.read("/etc/cdi/nvidia.yaml");
    const auto at = spec.find("name: all\n");
    REQUIRE(at != std::string::npos);
    spec.replace(at, 9, "name: every");
    root.write("/etc/cdi/nvidia.yaml", spec);
    const auto d = doctor_json_on(root);
    expect(d, "inventory", 4, "warn", "rediacc-gpu setup");
    const auto observed = d.check("inventory")["observed"].get<std::string>();
    CHECK_THAT(observed, Catch::Contains("CDI name nvidia.com/gpu=every is new") &&
                             Catch::Contains("CDI name nvidia.com/gpu=all is gone") &&
                             Catch::Contains("GPU 0000:41:00.0: cdi_devices gained nvidia.com/gpu=every, lost "
                                             "nvidia.com/gpu=all"));
  }
  SECTION("layer 5: a grant names a device no spec defines") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write(
        "/etc/rediacc/gpu/grants.json",
        R"({"schema":1,"grants":[{"repo":"web","device":"nvidia.com/gpu=7","exclusive":false,"granted_at":"2026-11-29T00:00:00Z"}]})");
    const auto d = doctor_json_on(root);
    expect(d, "grants", 5, "warn", "rediacc-gpu revoke web --device nvidia.com/gpu=7");
    CHECK(d.exit_code == 0);  // a warning does not fail
  }
  SECTION("layer 5: an exclusive grant another repository reaches through an alias fails (a reservation broken)") {
    FixtureRoot root;
    healthy_nvidia(root);
    root.write("/etc/rediacc/gpu/grants.json", R"({"schema":1,"grants":[
      {"repo":"ml","device":"nvidia.com/gpu=0","exclusive":true,"granted_at":"2026-11-29T00:00:00Z"},
      {"repo":"web","device":"nvidia.com/gpu=1","exclusive":false,"granted_at":"2026-11-29T00:00:00Z"},
      {"repo":"web","device":"nvidia.com/gpu=all","exclusive":false,"granted_at":"2026-11-29T00:00:00Z"}]})");
    const auto d = doctor_json_on(root);
    expect(d, "grants", 5, "fail", "rediacc-gpu revoke web --device nvidia.com/gpu=all");
    CHECK_THAT(d.check("grants")["observed"].get<std::string>(),
               Catch::Contains("ml holds nvidia.com/gpu=0 exclusively, and web holds nvidia.com/gpu=all"));
    CHECK(d.text.find("nvidia.com/gpu=1, which reaches") == std::string::npos);
  }
}

namespace {

std::string amd_ctk_spec(const std::string& render) {
  return R"({"cdiVersion":"0.6.0","kind":"amd.com/gpu","devices":[{"name":"3","containerEdits":{"deviceNodes":[)"
         R"({"path":"/dev/kfd"},{"path":")" +
         render + R"("}]}}]})";
}

nlohmann::json checks_with_id(const Doctor& d, const std::string& id) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& c : d.checks) {
    if (c["id"] == id) out.push_back(c);
  }
  return out;
}

}  // namespace

// amd-ctk numbers partitions 0, 1… in order, so re-partitioning renumbers every name; ours carry
// the mode and vanish instead. Either way the grant no longer reaches what it was granted.
TEST_CASE("doctor: a grant whose name now reaches other hardware fails, one whose name vanished warns") {
  FixtureRoot cpx;
  amd_instinct_x8(cpx, true, 8);
  cpx.write("/etc/cdi/amd.json", amd_ctk_spec("/dev/dri/renderD138"));  // card 0's partition 3
  REQUIRE(run_tool({"cdi", "generate", "--root", cpx.str()}).exit_code == 0);
  REQUIRE(run_tool({"grant", "web", "--device", "amd.com/gpu=3", "--root", cpx.str()}).exit_code == 0);
  REQUIRE(run_tool({"grant", "ml", "--device", "rediacc.io/amd=gpu0-cpx3", "--root", cpx.str()}).exit_code == 0);
  CHECK(checks_with_id(doctor_json_on(cpx), "grants")[0]["status"] == "ok");

  // The same machine after `amd-smi set --compute-partition DPX` and a new spec from amd-ctk.
  FixtureRoot dpx;
  amd_instinct_x8(dpx, true, 2);
  dpx.write("/etc/rediacc/gpu/grants.json", cpx.read("/etc/rediacc/gpu/grants.json"));
  dpx.write("/etc/cdi/amd.json", amd_ctk_spec("/dev/dri/renderD137"));  // now card 1's partition 1
  REQUIRE(run_tool({"cdi", "generate", "--root", dpx.str()}).exit_code == 0);
  const auto d = doctor_json_on(dpx);
  const auto grants = checks_with_id(d, "grants");
  INFO(grants.dump(2));
  REQUIRE(grants.size() == 2);
  for (const auto& c : grants) {
    const std::string observed = c["observed"];
    if (observed.starts_with("web")) {
      CHECK(c["status"] == "fail");
      CHECK(observed ==
            "web holds amd.com/gpu=3, which now reaches other hardware than was granted (granted on "
            "0000:05:00.0/cpx3, now 0000:26:00.0/dpx1)");
      CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("rediacc-gpu grant web --device amd.com/gpu=3"));
    } else {
      CHECK(c["status"] == "warn");
      CHECK_THAT(observed, Catch::Contains("no spec defines now (it reached 0000:05:00.0/cpx3 when granted)"));
    }
  }
  CHECK(d.exit_code == 1);
  // Granting the name again accepts what it reaches now.
  REQUIRE(run_tool({"grant", "web", "--device", "amd.com/gpu=3", "--root", dpx.str()}).exit_code == 0);
  for (const auto& c : checks_with_id(doctor_json_on(dpx), "grants")) CHECK(c["status"] != "fail");
}

// Toolkit 1.18 stopped naming a GPU in MIG mode whole: a grant of its index name silently names
// nothing after the upgrade.
TEST_CASE("doctor: after a toolkit upgrade drops a MIG GPU's whole name, its grant is named with what it reached") {
  FixtureRoot root, upgraded;
  nvidia_mig(root, true);
  nvidia_mig(upgraded, false);
  REQUIRE(run_tool({"grant", "web", "--device", "nvidia.com/gpu=0", "--root", root.str()}).exit_code == 0);
  root.write("/etc/cdi/nvidia.yaml", upgraded.read("/etc/cdi/nvidia.yaml"));
  const auto grants = checks_with_id(doctor_json_on(root), "grants");
  REQUIRE(grants.size() == 1);
  CHECK(grants[0]["status"] == "warn");
  CHECK(grants[0]["observed"] ==
        "web holds nvidia.com/gpu=0, which no spec defines now (it reached "
        "GPU-41255406-c9af-f94b-4ebf-9d57ad1853da when granted)");
  CHECK_THAT(grants[0]["decision"].get<std::string>(), Catch::Contains("grant the name that now reaches"));
}

TEST_CASE("doctor: a MIG device whose capability node is missing fails at layer 2, saying to run nvidia-smi") {
  FixtureRoot root;
  nvidia_mig(root, false);
  CHECK(doctor_json_on(root).check("device-nodes")["status"] == "ok");
  fs::remove(root.host("/dev/nvidia-caps/nvidia-cap220"));  // GI 9's compute instance on /dev/nvidia1
  const auto d = doctor_json_on(root);
  expect(d, "device-nodes", 2, "fail", "run nvidia-smi once");
  CHECK_THAT(d.check("device-nodes")["observed"].get<std::string>(),
             Catch::Contains("/dev/nvidia-caps/nvidia-cap220 missing"));
}

TEST_CASE("doctor: MIG reconfigured after the NVIDIA spec was made fails, naming stale names and their grants") {
  FixtureRoot root;
  nvidia_mig(root, false);
  REQUIRE(run_tool({"grant", "web", "--device", "nvidia.com/gpu=0:4", "--root", root.str()}).exit_code == 0);
  CHECK(doctor_json_on(root).check("nvidia-mig-spec")["status"] == "ok");
  // GI 10 (MIG index 4) destroyed, a 1g.10gb made as GI 11, which NVML puts at MIG index 2.
  const std::string conf_path = "/usr/lib/x86_64-linux-gnu/fake-nvml.conf";
  std::string conf = root.read(conf_path);
  const std::string gone = "mig 0|4|10|0|1|1|9984|MIG-2d3e4f50-6172-5839-a4b5-c6d7e8f90a1b\n";
  REQUIRE(conf.find(gone) != std::string::npos);
  conf.replace(conf.find(gone), gone.size(), "mig 0|2|11|0|1|1|9984|MIG-3e4f5061-7283-594a-b5c6-d7e8f90a1b2c\n");
  root.write(conf_path, conf);
  const auto d = doctor_json_on(root);
  const auto c = d.check("nvidia-mig-spec");
  INFO(c.dump(2));
  CHECK(c["status"] == "fail");
  CHECK(c["layer"] == 4);
  const std::string observed = c["observed"];
  CHECK_THAT(observed, Catch::Contains("nvidia.com/gpu=0:4, nvidia.com/gpu=MIG-2d3e4f50-6172-5839-a4b5-c6d7e8f90a1b"));
  CHECK_THAT(observed, Catch::Contains("without a name in the spec: 0000:41:00.0 MIG 2 (1g.10gb)"));
  CHECK_THAT(observed, Catch::Contains("grants that point at them: web: nvidia.com/gpu=0:4"));
  CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("re-run rediacc-gpu setup") &&
                                                   Catch::Contains("re-grant or revoke: web: nvidia.com/gpu=0:4"));
  CHECK(d.exit_code == 1);
}

namespace {

// The Engine API's log stream without a TTY: one stdout frame.
std::string framed(const std::string& text) {
  std::string out = {'\1', '\0', '\0', '\0'};
  for (int shift : {24, 16, 8, 0}) out += static_cast<char>((text.size() >> shift) & 0xff);
  return out + text;
}

// A repository daemon that makes, starts and removes one container whose output is `logs`, or
// refuses its creation with `refusal`.
std::vector<StandInAnswer> one_container(const std::string& logs, const std::string& refusal = "") {
  if (!refusal.empty()) return {{"POST", "/containers/create", 403, nlohmann::json{{"message", refusal}}.dump()}};
  return {{"POST", "/containers/create", 201, R"({"Id":"c0ffee"})"},
          {"POST", "/containers/c0ffee/start", 204, ""},
          {"POST", "/containers/c0ffee/wait", 200, R"({"StatusCode":0})"},
          {"GET", "/containers/c0ffee/logs", 200, framed(logs)},
          {"DELETE", "/containers/c0ffee", 204, ""}};
}

}  // namespace

TEST_CASE("doctor: the container check runs a canary through the repository's daemon and looks inside by number") {
  FixtureRoot root;
  root.char_node("/dev/dri/renderD128", 226, 128);
  root.write("/etc/cdi/rediacc.io-dri.yaml",
             R"({"cdiVersion":"0.6.0","kind":"rediacc.io/dri","devices":[{"name":"renderD128",)"
             R"("containerEdits":{"deviceNodes":[{"path":"/dev/dri/renderD128"}]}}]})");
  const rgpu::RootFs fs(root.path());
  rgpu::grants::GrantSet grants;
  grants.grants = {{"web", "rediacc.io/dri=renderD128", false, ""}};
  const rgpu::doctor::Facts facts{.specs = rgpu::cdi::read_spec_index(fs), .grants = grants};
  const auto containers = [&](const StandInDaemon& daemon) {
    const rgpu::doctor::ContainerRequest req{"web", "busybox", "unix://" + daemon.socket()};
    auto checks = rgpu::doctor::container_checks(fs, facts, req);
    REQUIRE(checks.size() == 2);
    CHECK(checks[0].id == "image-cuda");  // the stand-in has no image: it says so, and goes on
    CHECK(checks[0].status == rgpu::doctor::Status::warn);
    return checks[1];
  };

  // Inside under another name, same numbers: what counts is the device, not the path.
  StandInDaemon seen(root, "700",
                     one_container("--- dev\n/dev:\ntotal 0\n\n/dev/dri:\n"
                                   "crw-rw---- 1 root 44 226, 128 Dec  2 15:00 card9\n"
                                   "--- nvidia-smi\nabsent\n"));
  auto ok = containers(seen);
  CHECK(ok.status == rgpu::doctor::Status::ok);
  CHECK_THAT(ok.observed, Catch::Contains("inside: /dev/dri/card9 (226:128)"));
  CHECK_THAT(ok.evidence, Catch::Contains("a container made through unix://" + seen.socket()));
  const auto asked = seen.requests();
  const auto create = std::find_if(asked.begin(), asked.end(),
                                   [](const std::string& r) { return r.starts_with("POST /containers/create"); });
  REQUIRE(create != asked.end());
  CHECK_THAT(*create,
             Catch::Contains(R"("DeviceRequests":[{"DeviceIDs":["rediacc.io/dri=renderD128"],"Driver":"cdi"}])"));
  CHECK(std::any_of(asked.begin(), asked.end(),
                    [](const std::string& r) { return r.starts_with("DELETE /containers/c0ffee"); }));

  // The container ran and the node was not there: the playbook's silent CPU fallback.
  StandInDaemon fallback(root, "701",
                         one_container("--- dev\n/dev:\ncrw-rw-rw- 1 root 0 1, 3 Dec  2 null\n"
                                       "--- nvidia-smi\nabsent\n"));
  auto cpu = containers(fallback);
  CHECK(cpu.status == rgpu::doctor::Status::fail);
  CHECK_THAT(cpu.observed, Catch::Contains("without /dev/dri/renderD128 (226:128)"));
  CHECK_THAT(cpu.meaning, Catch::Contains("silent CPU fallback"));

  // The gate's refusal comes back at create.
  StandInDaemon refused(root, "702", one_container("", "authorization denied by plugin rediacc-gpu-web: refused"));
  auto gate = containers(refused);
  CHECK(gate.status == rgpu::doctor::Status::fail);
  CHECK_THAT(gate.meaning, Catch::Contains("the gate refused"));

  // A name /etc/cdi does not define proves nothing by running.
  grants.grants = {{"web", "rediacc.io/dri=renderD129", false, ""}};
  const rgpu::doctor::Facts unknown{.specs = rgpu::cdi::read_spec_index(fs), .grants = grants};
  StandInDaemon ran(root, "703", one_container("--- dev\n--- nvidia-smi\nabsent\n"));
  auto nothing = rgpu::doctor::container_checks(fs, unknown, {"web", "busybox", "unix://" + ran.socket()});
  REQUIRE(nothing.size() == 2);
  CHECK(nothing[1].status == rgpu::doctor::Status::fail);
  CHECK_THAT(nothing[1].meaning, Catch::Contains("nothing proves the devices reached the container"));

  // Without --docker-host, the repository's own daemon, as its plugin names it; none known fails.
  auto nowhere = rgpu::doctor::container_checks(fs, facts, {"web", "busybox", ""});
  REQUIRE(nowhere.size() == 1);
  CHECK(nowhere[0].status == rgpu::doctor::Status::fail);
  CHECK_THAT(nowhere[0].decision, Catch::Contains("/etc/rediacc/gpu/plugins/web.env"));
}

TEST_CASE(
    "doctor: a repository daemon that reads the machine's /etc/cdi, or names its repository does not hold, fails") {
  using namespace std::string_literals;
  FixtureRoot root;
  healthy_nvidia(root);
  REQUIRE(run_tool({"grant", "web", "--device", "rediacc.io/dri=renderD128", "--root", root.str()}).exit_code == 0);
  root.write("/proc/4242/cmdline",
             "/usr/sbin/dockerd\0--authorization-plugin=rediacc-gpu-web\0--config-file\0"
             "/etc/rediacc-docker/web.json\0"s);
  root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
  root.write("/etc/rediacc-docker/web.json", R"({"cdi-spec-dirs":["/etc/cdi"]})");
  // The daemon's root as the kernel shows it through /proc/4242/root: here its own directory
  // holding what the drop-in binds over its /etc/cdi, the repository's view.
  fs::create_directories(root.host("/proc/4242/root/etc"));
  fs::copy(root.host("/var/lib/rediacc/gpu/cdi/web"), root.host("/proc/4242/root/etc/cdi"));
  auto d = doctor_json_on(root);
  CHECK(d.check("repo-cdi-view")["status"] == "ok");
  CHECK_THAT(d.check("repo-cdi-view")["observed"].get<std::string>(), Catch::Contains("web (dockerd 4242)"));

  // A spec the repository does not hold in the daemon's directory (a hand copy, another view).
  fs::copy(root.host("/etc/cdi/nvidia.yaml"), root.host("/proc/4242/root/etc/cdi/nvidia.yaml"));
  d = doctor_json_on(root);
  expect(d, "repo-cdi-view", 5, "fail", "/var/lib/rediacc/gpu/cdi/REPO");
  CHECK_THAT(d.check("repo-cdi-view")["observed"].get<std::string>(),
             Catch::Contains("dockerd 4242 of repository web can resolve in /etc/cdi what it does not hold: "
                             "nvidia.com/gpu=0") &&
                 !Catch::Contains("rediacc.io/dri=renderD128,"));
  CHECK(d.exit_code == 1);

  // No bind at all: the daemon's /etc/cdi is the machine's.
  fs::remove_all(root.host("/proc/4242/root"));
  fs::create_directory_symlink(root.path(), root.host("/proc/4242/root"));
  d = doctor_json_on(root);
  CHECK_THAT(d.check("repo-cdi-view")["observed"].get<std::string>(),
             Catch::Contains("dockerd 4242 of repository web reads the machine's whole /etc/cdi"));
}

// WSL2 has no NVIDIA kernel module and no /dev/nvidiactl: the GPU comes through /dev/dxg and the
// Windows driver. A healthy WSL2 machine must not fail a check that only native Linux can pass.
TEST_CASE("doctor: a healthy WSL2 NVIDIA machine passes, with the Windows driver's version and no nvidiactl") {
  FixtureRoot root;
  wsl2_nvidia(root);
  root.write("/usr/bin/nvidia-ctk", "#!/bin/sh\n");
  root.write("/etc/systemd/system/nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf",
             "[Service]\nEnvironmentFile=/etc/rediacc/gpu/nvidia-cdi-refresh.env\n");
  root.write("/etc/rediacc/gpu/nvidia-cdi-refresh.env", "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml\n");
  root.write("/sys/fs/cgroup/cgroup.controllers", "cpu io memory pids\n");
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
  const auto d = doctor_json_on(root);
  INFO(d.text);
  for (const auto& c : d.checks) {
    INFO(c.dump());
    CHECK(c["status"] != "fail");
  }
  CHECK(d.exit_code == 0);
  CHECK(d.check("nvidia-driver")["status"] == "ok");
  CHECK_THAT(d.check("nvidia-driver")["observed"].get<std::string>(),
             Catch::Contains("581.57") && Catch::Contains("Windows"));
  CHECK(d.check("nvidiactl")["status"] == "skip");
  CHECK_THAT(d.check("nvidiactl")["observed"].get<std::string>(), Catch::Contains("/dev/dxg"));
  auto m = run_tool({"metrics", "--root", root.str()});
  CHECK_THAT(m.out, Catch::Contains("rediacc_gpu_doctor_failed_checks 0\n"));
}

TEST_CASE("doctor: amdgpu built into the kernel is judged by the cards bound to it, not by /sys/module") {
  FixtureRoot root;
  two_amd_instinct(root);
  fs::remove_all(root.host("/sys/module/amdgpu"));
  const auto d = doctor_json_on(root);
  CHECK(d.check("amdgpu")["status"] == "ok");
  CHECK_THAT(d.check("amdgpu")["observed"].get<std::string>(), Catch::Contains("amdgpu drives 2 of 2 AMD GPU(s)"));
  // Neither bound nor loaded: that is the failure.
  for (const char* addr : {"0000:43:00.0", "0000:c3:00.0"})
    fs::remove(root.host(std::string("/sys/bus/pci/devices/") + addr + "/driver"));
  const auto unbound = doctor_json_on(root);
  INFO(unbound.text);
  CHECK(unbound.check("amdgpu")["status"] == "fail");
}

TEST_CASE("doctor: a machine with no GPU does not claim every GPU has a driver") {
  FixtureRoot root;
  no_gpu(root);
  const auto d = doctor_json_on(root);
  CHECK(d.check("gpu-driver")["status"] == "skip");
  CHECK(d.check("gpu-driver")["observed"] == "no GPU on the PCI bus");
}

TEST_CASE("doctor: an unreachable daemon is not told to pull the image") {
  FixtureRoot root;
  healthy_nvidia(root);
  const std::string nowhere = "unix://" + root.host("/run/none.sock").string();
  auto r = run_tool(
      {"doctor", "-o", "json", "--root", root.str(), "--repo", "web", "--image", "busybox", "--docker-host", nowhere});
  nlohmann::json cuda;
  const auto doctor_doc = nlohmann::json::parse(r.out);

  for (const auto& c : doctor_doc["checks"]) {
    if (c["id"] == "image-cuda") cuda = c;
  }
  INFO(r.out);
  REQUIRE_FALSE(cuda.is_null());
  CHECK_THAT(cuda["decision"].get<std::string>(), !Catch::Contains("pull") && Catch::Contains("start the daemon"));
}

TEST_CASE("doctor: -o json is one object: a schema, a summary scripts branch on, and subjects on repeated checks") {
  FixtureRoot root;
  healthy_nvidia(root);
  fs::remove(root.host("/dev/nvidia0"));
  auto r = run_tool({"doctor", "-o", "json", "--root", root.str()});
  const auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["schema"] == 2);
  const auto& summary = doc["summary"];
  CHECK(summary["healthy"] == false);
  CHECK(summary["failed"] == 1);
  CHECK(summary["first_failing_layer"] == 2);
  CHECK(summary["first_failing_layer_name"] == "device nodes");
  size_t total = 0;
  for (const char* k : {"failed", "warnings", "passed", "skipped"}) total += summary[k].get<size_t>();
  CHECK(total == doc["checks"].size());
  std::set<std::string> gpus;
  for (const auto& c : doc["checks"]) {
    if (c["id"] == "pcie-link" || c["id"] == "device-nodes") {
      REQUIRE(c.contains("subject"));
      gpus.insert(c["id"].get<std::string>() + " " + c["subject"].get<std::string>());
    }
  }
  CHECK(gpus == std::set<std::string>{"device-nodes 0000:41:00.0", "device-nodes 0001:c1:00.0",
                                      "pcie-link 0000:41:00.0", "pcie-link 0001:c1:00.0"});
  root.write("/etc/rediacc/gpu/grants.json", R"({"schema":1,"grants":[
      {"repo":"web","device":"nvidia.com/gpu=7","exclusive":false,"granted_at":"2026-11-29T00:00:00Z"}]})");
  const auto again = nlohmann::json::parse(run_tool({"doctor", "-o", "json", "--root", root.str()}).out);
  bool grant_subject = false;
  for (const auto& c : again["checks"]) grant_subject = grant_subject || (c["id"] == "grants" && c["subject"] == "web");
  CHECK(grant_subject);
}
