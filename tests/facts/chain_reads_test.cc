// The reads of doctor's layers 1 to 4, made once by facts::read_chain: each field holds what the
// machine had when it was read, and programs run only where the checks ran them before.

#include <sys/stat.h>

#include <algorithm>

#include <catch2/catch.hpp>

#include "cdi/spec_index.h"
#include "core/root_fs.h"
#include "facts/chain_reads.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

using rgpu::facts::ChainReads;
using rgpu::test::FixtureRoot;
using rgpu::test::kDebian12OsRelease;

namespace {

// Answers rpm -q PACKAGE (its last argument) as an rpm database holding `installed` would, and
// records every command it was asked to run.
class RecordingRunner final : public rgpu::CommandRunner {
 public:
  std::vector<rgpu::Argv> asked;
  std::map<std::string, std::string> installed = {{"nvidia-container-toolkit-base", "1.19.0-1"}};

  // The commands that asked for `package`.
  size_t asked_for(const std::string& package) const {
    return std::count_if(asked.begin(), asked.end(), [&](const auto& a) { return a.back() == package; });
  }

 protected:
  rgpu::Result<rgpu::CommandResult> do_run(const rgpu::Argv& argv, std::chrono::seconds,
                                           const std::map<std::string, std::string>&) override {
    asked.push_back(argv);
    const auto found = installed.find(argv.back());
    if (found == installed.end()) return rgpu::CommandResult{1, "package " + argv.back() + " is not installed\n"};
    return rgpu::CommandResult{0, found->second + "\n"};
  }
};

rgpu::probe::Gpu chain_gpu(rgpu::probe::Vendor vendor, std::vector<std::string> nodes) {
  rgpu::probe::Gpu g;
  g.vendor = vendor;
  g.device_nodes = std::move(nodes);
  return g;
}

struct ChainMachine {
  FixtureRoot root;
  rgpu::probe::Inventory fresh;
  std::vector<rgpu::docker::RunningDaemon> daemons;
  std::vector<rgpu::facts::DaemonAnswer> answers;
  RecordingRunner runner;

  ChainReads read() {
    const rgpu::RootFs fs(root.path());
    const auto specs = rgpu::cdi::read_spec_index(fs);
    return rgpu::facts::read_chain({fs, runner, fresh, specs, daemons, answers});
  }
};

const std::string kToolkitStatus =
    "Package: nvidia-container-toolkit-base\nStatus: install ok installed\nVersion: 1.20.0-1\n";

}  // namespace

TEST_CASE("facts: the host's modules, WSL and the device nodes the checks look at are read once") {
  ChainMachine m;
  m.root.mkdir("/sys/module/nouveau");
  m.root.write("/sys/module/amdgpu", "a file, not the module's directory");
  m.root.write("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2");
  m.root.write("/dev/dxg", "not a device");
  m.root.char_node("/dev/nvidiactl", 195, 255);
  m.root.char_node("/dev/nvidia0", 195, 0);
  m.root.char_node("/dev/nvidia-caps/nvidia-cap21", 238, 21);
  auto g = chain_gpu(rgpu::probe::Vendor::nvidia, {"/dev/nvidia0", "/dev/nvidia1"});
  rgpu::probe::Partition mig;
  mig.device_nodes = {"/dev/nvidia-caps/nvidia-cap21"};
  g.partitions = {mig};
  m.fresh.gpus = {g};

  const auto host = m.read().host;
  CHECK(host.nouveau_module);
  CHECK_FALSE(host.amdgpu_module);
  CHECK(host.wsl_kernel);
  CHECK(host.dxg);  // something is there, though no character device
  CHECK(host.char_devices == std::set<std::string>{"/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia0", "/dev/nvidiactl"});
}

TEST_CASE("facts: the NVIDIA toolkit, its spec and its refresh are read as the checks read them") {
  ChainMachine m;
  m.fresh.gpus = {chain_gpu(rgpu::probe::Vendor::nvidia, {})};
  m.root.write("/etc/os-release", kDebian12OsRelease);
  m.root.write("/var/lib/dpkg/status", kToolkitStatus);
  m.root.write("/usr/bin/nvidia-ctk", "");
  m.root.write("/etc/cdi/nvidia.yaml", "libcuda.so.550.54.15");
  m.root.write("/var/run/cdi/nvidia.yaml", "");
  m.root.write(rgpu::facts::kRefreshDropin, "[Service]\nEnvironmentFile=-/etc/a.env\nEnvironmentFile=-/etc/b.env\n");
  m.root.write("/etc/b.env", "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml\n");

  const auto chain = m.read();
  const auto& nvidia = chain.nvidia;
  CHECK(nvidia.toolkit_version == "1.20.0-1");  // dpkg's status on an apt family: nothing runs
  CHECK(m.runner.asked.empty());
  CHECK(chain.dpkg_status == kToolkitStatus.substr(0, kToolkitStatus.size() - 1));
  CHECK(nvidia.nvidia_ctk == "/usr/bin/nvidia-ctk");
  CHECK(nvidia.spec_text == "libcuda.so.550.54.15");
  CHECK(nvidia.var_run_spec);
  CHECK(nvidia.refresh.dropin);
  CHECK(nvidia.refresh.env_file == "/etc/b.env");  // the last one, without systemd's "-"
  CHECK(nvidia.refresh.env == "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml");

  SECTION("without nvidia-ctk the refresh is not looked at") {
    std::filesystem::remove(m.root.host("/usr/bin/nvidia-ctk"));
    const auto without = m.read().nvidia;
    CHECK_FALSE(without.nvidia_ctk);
    CHECK_FALSE(without.refresh.dropin);
    CHECK_FALSE(without.refresh.env);
  }
  SECTION("a drop-in that names no environment file reads none") {
    m.root.write(rgpu::facts::kRefreshDropin, "[Service]\n");
    const auto refresh = m.read().nvidia.refresh;
    CHECK(refresh.dropin);
    CHECK(refresh.env_file.empty());
    CHECK_FALSE(refresh.env);
  }
}

TEST_CASE("facts: an rpm family's toolkit is asked of rpm, once, and only with an NVIDIA GPU") {
  ChainMachine m;
  m.root.write("/etc/os-release", "ID=fedora\nVERSION_ID=40\n");
  CHECK_FALSE(m.read().nvidia.toolkit_version);
  CHECK(m.runner.asked_for("nvidia-container-toolkit-base") == 0);

  m.fresh.gpus = {chain_gpu(rgpu::probe::Vendor::nvidia, {})};
  CHECK(m.read().nvidia.toolkit_version == "1.19.0-1");
  REQUIRE(m.runner.asked_for("nvidia-container-toolkit-base") == 1);
  CHECK(std::find(m.runner.asked.begin(), m.runner.asked.end(),
                  rgpu::Argv{"rpm", "--root", m.root.str(), "-q", "--qf", "%{VERSION}-%{RELEASE}",
                             "nvidia-container-toolkit-base"}) != m.runner.asked.end());
}

// Issue: "Docker is found as it is installed on each family (dpkg, rpm, or the running dockerd's
// own version), so every check that needs Docker's version runs on all five".
TEST_CASE("facts: the machine's Docker is its dpkg package, else a running daemon's version, else its rpm package") {
  ChainMachine m;
  SECTION("Debian and Ubuntu: dpkg's status, and no program runs") {
    m.root.write("/etc/os-release", kDebian12OsRelease);
    m.root.write("/var/lib/dpkg/status", "Package: docker.io\nStatus: install ok installed\nVersion: 26.1.5+dfsg1-9\n");
    const auto docker = m.read().installed_docker;
    REQUIRE(docker);
    CHECK(docker->name == "docker.io");
    CHECK(docker->version == "26.1.5+dfsg1-9");
    CHECK(docker->source == "dpkg's status");
    CHECK(m.runner.asked.empty());
  }
  SECTION("Fedora with moby-engine and no daemon running: rpm, in the order the families name it") {
    m.root.write("/etc/os-release", "ID=fedora\nVERSION_ID=43\n");
    m.runner.installed["moby-engine"] = "27.5.1-3.fc43";
    const auto docker = m.read().installed_docker;
    REQUIRE(docker);
    CHECK(docker->name == "moby-engine");
    CHECK(docker->version == "27.5.1-3.fc43");
    CHECK(docker->source == "rpm");
    CHECK(m.runner.asked_for("docker-ce") == 1);
    CHECK(m.runner.asked_for("docker") == 0);
  }
  SECTION("openSUSE Leap's docker package") {
    m.root.write("/etc/os-release", "ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\nVERSION_ID=\"16.0\"\n");
    m.runner.installed["docker"] = "28.3.3_ce-160000.1.1";
    const auto docker = m.read().installed_docker;
    REQUIRE(docker);
    CHECK(docker->name == "docker");
    CHECK(docker->source == "rpm");
  }
  SECTION("a running daemon's own version, the oldest of them, before rpm is asked") {
    m.root.write("/etc/os-release", "ID=\"ol\"\nID_LIKE=\"fedora\"\nVERSION_ID=\"10.0\"\n");
    m.runner.installed["docker-ce"] = "28.5.2-1.el10";
    const auto answer = [](std::string label, nlohmann::json version) {
      rgpu::facts::DaemonAnswer a;
      a.label = std::move(label);
      a.version = std::move(version);
      return a;
    };
    m.answers.push_back(answer("dockerd 400", {{"Version", "28.5.2"}}));
    m.answers.push_back(answer("dockerd 500 of repository web", {{"Version", "26.1.5"}}));
    m.answers.push_back(answer("a daemon that did not answer", nullptr));
    const auto docker = m.read().installed_docker;
    REQUIRE(docker);
    CHECK(docker->name == "dockerd 500 of repository web");
    CHECK(docker->version == "26.1.5");
    CHECK(docker->source == "GET /version");
    CHECK(m.runner.asked.empty());
  }
  SECTION("none of them: no Docker") {
    m.root.write("/etc/os-release", "ID=fedora\nVERSION_ID=43\n");
    CHECK_FALSE(m.read().installed_docker);
    CHECK(m.runner.asked_for("docker") == 1);
  }
}

TEST_CASE("facts: the NVIDIA spec's nodes are read but a numberless one that is missing") {
  ChainMachine m;
  m.fresh.gpus = {chain_gpu(rgpu::probe::Vendor::nvidia, {})};
  m.root.write("/etc/cdi/nvidia.yaml",
               R"({"cdiVersion":"0.6.0","kind":"nvidia.com/gpu","devices":[{"name":"0","containerEdits":)"
               R"({"deviceNodes":[{"path":"/dev/nvidia0"},{"path":"/dev/gone"}]}}]})");
  m.root.char_node("/dev/nvidia0", 195, 0);

  const auto nodes = m.read().nvidia.spec_nodes;
  REQUIRE(nodes.size() == 1);
  CHECK(nodes[0].name == "nvidia.com/gpu=0");
  CHECK(nodes[0].path == "/dev/nvidia0");
  CHECK_FALSE(nodes[0].identities);  // no sysfs says which GPU 195:0 is

  m.fresh.gpus.clear();  // nothing to judge them against: not read
  CHECK(m.read().nvidia.spec_nodes.empty());
}

TEST_CASE("facts: Docker's configurations, the other spec directories and who can write the reported ones") {
  ChainMachine m;
  m.root.write("/etc/docker/daemon.json", R"({"features": {"cdi": true}})");
  m.root.write("/etc/rediacc/web/daemon.json", "");
  m.daemons = {{"100", {"dockerd", "--config-file=/etc/rediacc/web/daemon.json"}},
               {"200", {"dockerd", "--config-file", "/etc/rediacc/gone.json"}}};
  m.root.write(
      "/var/run/cdi/other.yaml",
      R"({"cdiVersion":"0.6.0","kind":"vendor.com/gpu","devices":[{"name":"a","containerEdits":)"
      R"({"deviceNodes":[{"path":"/dev/a"}]}},{"name":"b","containerEdits":{"deviceNodes":[{"path":"/dev/b"}]}}]})");
  m.root.write("/var/run/cdi/broken.json", "{");
  m.root.write("/var/run/cdi/notes.txt", "not a spec");
  m.root.link("/run/cdi", "/var/run/cdi");  // one directory, read once
  m.root.mkdir("/opt/cdi");
  REQUIRE(::chmod(m.root.host("/opt/cdi").c_str(), 0777) == 0);
  m.answers = {{.label = "dockerd 100", .info = {{"CDISpecDirs", {"/opt/cdi"}}}, .version = {}},
               {.label = "dockerd 300", .info = {{"ServerVersion", "24.0.7"}}, .version = {}}};  // reports none

  const auto docker = m.read().docker;
  CHECK(docker.configs ==
        std::map<std::string, std::string>{{"/etc/docker/daemon.json", R"({"features": {"cdi": true}})"},
                                           {"/etc/rediacc/web/daemon.json", ""}});
  REQUIRE(docker.other_dir_specs.size() == 1);
  CHECK(docker.other_dir_specs[0].path == "/var/run/cdi/other.yaml");
  CHECK(docker.other_dir_specs[0].names == std::vector<std::string>{"vendor.com/gpu=a", "vendor.com/gpu=b"});
  REQUIRE(docker.spec_dir_writers.size() == 1);
  CHECK(docker.spec_dir_writers[0].label == "dockerd 100");
  CHECK(docker.spec_dir_writers[0].dir == "/opt/cdi");
  CHECK(docker.spec_dir_writers[0].writer == "/opt/cdi is writable by everyone");
}

TEST_CASE("facts: our specs on disk are read beside those the probe made now would generate") {
  ChainMachine m;
  m.root.write("/etc/cdi/rediacc.io-dri.json", "left from a GPU that is gone\n");

  const auto ours = m.read().our_specs;
  REQUIRE(ours.size() == 2);
  CHECK(ours[0].path == "/etc/cdi/rediacc.io-dri.json");
  CHECK_FALSE(ours[0].generated);  // no GPU: no file wanted
  CHECK(ours[0].on_disk == "left from a GPU that is gone\n");
  CHECK(ours[1].path == "/etc/cdi/rediacc.io-amd.json");
  CHECK_FALSE(ours[1].on_disk);
}
