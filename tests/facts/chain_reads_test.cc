// The reads of doctor's layers 1 to 4, made once by facts::read_chain: each field holds what the
// machine had when it was read, and programs run only where the checks ran them before.

#include <sys/stat.h>

#include <catch2/catch.hpp>

#include "cdi-gen/spec_index.h"
#include "core/root_fs.h"
#include "facts/chain_reads.h"
#include "tests/support/fixture_root.h"

using rgpu::facts::ChainReads;
using rgpu::test::FixtureRoot;

namespace {

// Answers rpm with a version and records every command it was asked to run.
class RecordingRunner final : public rgpu::CommandRunner {
 public:
  std::vector<rgpu::Argv> asked;

 protected:
  rgpu::Result<rgpu::CommandResult> do_run(const rgpu::Argv& argv, std::chrono::seconds,
                                           const std::map<std::string, std::string>&) override {
    asked.push_back(argv);
    return rgpu::CommandResult{0, "1.19.0-1\n"};
  }
};

rgpu::probe::Gpu gpu(rgpu::probe::Vendor vendor, std::vector<std::string> nodes) {
  rgpu::probe::Gpu g;
  g.vendor = vendor;
  g.device_nodes = std::move(nodes);
  return g;
}

struct Machine {
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

const std::string kDebian = "ID=debian\nVERSION_ID=\"12\"\n";
const std::string kToolkitStatus =
    "Package: nvidia-container-toolkit-base\nStatus: install ok installed\nVersion: 1.20.0-1\n";

}  // namespace

TEST_CASE("facts: the host's modules, WSL and the device nodes the checks look at are read once") {
  Machine m;
  m.root.mkdir("/sys/module/nouveau");
  m.root.write("/sys/module/amdgpu", "a file, not the module's directory");
  m.root.write("/proc/sys/kernel/osrelease", "5.15.153.1-microsoft-standard-WSL2");
  m.root.write("/dev/dxg", "not a device");
  m.root.char_node("/dev/nvidiactl", 195, 255);
  m.root.char_node("/dev/nvidia0", 195, 0);
  m.root.char_node("/dev/nvidia-caps/nvidia-cap21", 238, 21);
  auto g = gpu(rgpu::probe::Vendor::nvidia, {"/dev/nvidia0", "/dev/nvidia1"});
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
  Machine m;
  m.fresh.gpus = {gpu(rgpu::probe::Vendor::nvidia, {})};
  m.root.write("/etc/os-release", kDebian);
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
  Machine m;
  m.root.write("/etc/os-release", "ID=fedora\nVERSION_ID=40\n");
  CHECK_FALSE(m.read().nvidia.toolkit_version);
  CHECK(m.runner.asked.empty());

  m.fresh.gpus = {gpu(rgpu::probe::Vendor::nvidia, {})};
  CHECK(m.read().nvidia.toolkit_version == "1.19.0-1");
  REQUIRE(m.runner.asked.size() == 1);
  CHECK(m.runner.asked[0] == rgpu::Argv{"rpm", "--root", m.root.str(), "-q", "--qf", "%{VERSION}-%{RELEASE}",
                                        "nvidia-container-toolkit-base"});
}

TEST_CASE("facts: the NVIDIA spec's nodes are read but a numberless one that is missing") {
  Machine m;
  m.fresh.gpus = {gpu(rgpu::probe::Vendor::nvidia, {})};
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
  Machine m;
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
  Machine m;
  m.root.write("/etc/cdi/rediacc.io-dri.json", "left from a GPU that is gone\n");

  const auto ours = m.read().our_specs;
  REQUIRE(ours.size() == 2);
  CHECK(ours[0].path == "/etc/cdi/rediacc.io-dri.json");
  CHECK_FALSE(ours[0].generated);  // no GPU: no file wanted
  CHECK(ours[0].on_disk == "left from a GPU that is gone\n");
  CHECK(ours[1].path == "/etc/cdi/rediacc.io-amd.json");
  CHECK_FALSE(ours[1].on_disk);
}
