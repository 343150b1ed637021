// setup end to end: the built binary on fixture roots, with recording fakes first on PATH; its text,
// JSON and exit codes (setup_run_test.cc checks the change lists of the library itself).

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/support/build_paths.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"
#include "units/unit_files.h"

using namespace rgpu::test;
namespace fs = std::filesystem;

namespace {

// Every nvidia-ctk cdi generate names each GPU by index and by UUID, whatever the toolkit's default.
const std::string kNameStrategies = " --device-name-strategy=index --device-name-strategy=uuid";

struct Family {
  const char* name;
  const char* os_release;
  const char* install_prefix;  ///< the call that installs the toolkit, {root} for the root's path
  const char* repo_file;
};

const Family kFamilies[] = {
    {"apt", "ID=debian\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n",
     "chroot {root} apt-get install", "/etc/apt/sources.list.d/nvidia-container-toolkit.list"},
    {"dnf", "ID=\"rocky\"\nID_LIKE=\"rhel centos fedora\"\nVERSION_ID=\"9.4\"\n", "dnf -y --installroot={root}",
     "/etc/yum.repos.d/nvidia-container-toolkit.repo"},
    {"zypper", "ID=\"opensuse-leap\"\nID_LIKE=\"suse opensuse\"\nVERSION_ID=\"15.6\"\n",
     "zypper --non-interactive --gpg-auto-import-keys", "/etc/zypp/repos.d/nvidia-container-toolkit.repo"},
};

struct SetupMachine {
  const char* name;
  void (*build)(const FixtureRoot&);
  bool nvidia;
  bool wsl;
};

const SetupMachine kMachines[] = {
    {"nvidia", [](const FixtureRoot& r) { two_nvidia_datacenter(r, true); }, true, false},
    {"amd", two_amd_instinct, false, false},
    {"intel", intel_discrete, false, false},
    {"none", no_gpu, false, false},
    {"wsl", wsl2_nvidia, true, true},
};

// The machine most tests start from: two NVIDIA datacenter GPUs with NVML, on Debian 12.
void debian_with_nvidia(const FixtureRoot& root) {
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kFamilies[0].os_release);
}

// What systemd-analyze verify --root needs to verify units as that machine: its systemd's own units,
// and the programs the units name, in the root.
void as_verifiable_machine(const FixtureRoot& root) {
  fs::create_directories(root.host("/lib/systemd"));
  fs::copy("/lib/systemd/system", root.host("/lib/systemd/system"),
           fs::copy_options::recursive | fs::copy_options::copy_symlinks);
  for (const char* program : {"/bin/true", "/bin/mkdir", "/usr/bin/nvidia-ctk", "/usr/bin/rediacc-gpu"}) {
    root.write(program, "#!/bin/sh\n");
    fs::permissions(root.host(program), fs::perms::owner_all);
  }
}

RunResult setup(const FixtureRoot& root, const FakeTools& fakes, const std::string& mode) {
  return run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", mode}, "", fakes.env());
}

bool any_install(const std::vector<std::string>& calls) {
  for (const auto& c : calls) {
    if (c.find("install") != std::string::npos && c.find("nvidia-container-toolkit-base") != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool file_changes_in(const std::string& out) {
  return out.find("      write ") != std::string::npos || out.find("      remove ") != std::string::npos;
}

}  // namespace

TEST_CASE("setup: every machine, mode and distribution family makes exactly the expected calls") {
  for (const auto& family : kFamilies) {
    for (const auto& machine : kMachines) {
      for (const std::string mode : {"auto", "true", "false"}) {
        INFO(family.name << " / " << machine.name << " / " << mode);
        FixtureRoot root;
        machine.build(root);
        root.write("/etc/os-release", family.os_release);
        FakeTools fakes;
        const std::string spec_before = root.read("/etc/cdi/nvidia.yaml");
        auto first = setup(root, fakes, mode);
        INFO(first.out << first.err);
        REQUIRE(first.exit_code == 0);
        const auto calls = fakes.calls();
        const bool install = mode == "true" || (mode == "auto" && machine.nvidia);
        CHECK(any_install(calls) == install);
        std::string prefix = family.install_prefix;
        if (auto at = prefix.find("{root}"); at != std::string::npos) prefix.replace(at, 6, root.str());
        CHECK(called(calls, prefix) == install);
        CHECK(fs::exists(root.host(family.repo_file)) == install);
        const bool generates = install && machine.nvidia;
        CHECK(called(calls, "nvidia-ctk cdi generate") == generates);
        // That machine's nvidia-ctk, run inside it, writing its own path.
        CHECK(called(calls, "chroot " + root.str() +
                                " nvidia-ctk cdi generate --output=/var/lib/rediacc/gpu/nvidia.yaml.generated" +
                                kNameStrategies + (machine.wsl ? " --mode=wsl" : "")) == generates);
        const bool from_nvidia_ctk = root.read("/etc/cdi/nvidia.yaml").rfind("---\ncdiVersion: 0.5.0\nkind", 0) == 0;
        CHECK(from_nvidia_ctk == generates);
        if (!generates) CHECK(root.read("/etc/cdi/nvidia.yaml") == spec_before);
        CHECK_FALSE(called(calls, "nvidia-ctk runtime"));
        CHECK(fs::exists(root.host("/etc/systemd/system/nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf")) == install);
        CHECK(fs::exists(root.host("/etc/udev/rules.d/90-rediacc-gpu.rules")));
        CHECK(fs::exists(root.host("/etc/rediacc/gpu/inventory.json")));
        // The node-feature-discovery file: labels for Kubernetes nodes.
        const auto nfd = root.read("/etc/kubernetes/node-feature-discovery/features.d/rediacc-gpu");
        CHECK_THAT(nfd, Catch::Contains("rediacc-gpu.count="));
        CHECK_THAT(nfd,
                   Catch::EndsWith(std::string("rediacc-gpu.platform=") + (machine.wsl ? "wsl" : "native") + "\n"));
        if (machine.nvidia) CHECK_THAT(nfd, Catch::Contains("rediacc-gpu.nvidia.count="));
        if (install && machine.nvidia) CHECK_THAT(first.out, Catch::Contains("NVIDIA CDI spec ... written"));
        if (install && !machine.nvidia) CHECK_THAT(first.out, Catch::Contains("no NVIDIA GPU for a spec to describe"));

        fakes.clear_calls();
        auto second = setup(root, fakes, mode);
        INFO(second.out);
        REQUIRE(second.exit_code == 0);
        CHECK_FALSE(any_install(fakes.calls()));
        CHECK_FALSE(called(fakes.calls(), "systemctl"));
        CHECK_FALSE(file_changes_in(second.out));
      }
    }
  }
}

TEST_CASE("setup: the refresh redirect is written before the package is installed") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  auto r = run_tool({"setup", "--root", root.str(), "-o", "json"}, "", fakes.env());
  REQUIRE(r.exit_code == 0);
  // The step's changes, in the order they were made.
  const auto changes = nlohmann::json::parse(r.out)["steps"][1]["changes"].dump();
  const auto redirect = changes.find("nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf");
  const auto install = changes.find("install -y --no-install-recommends nvidia-container-toolkit-base=1.20.0-1");
  REQUIRE(redirect != std::string::npos);
  REQUIRE(install != std::string::npos);
  CHECK(redirect < install);
  CHECK_THAT(root.read("/etc/rediacc/gpu/nvidia-cdi-refresh.env"),
             Catch::Contains("NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml"));
}

TEST_CASE("setup: a spec nvidia-cdi-refresh left in /var/run/cdi is removed, it would shadow /etc/cdi") {
  FixtureRoot root;
  debian_with_nvidia(root);
  root.write("/var/run/cdi/nvidia.yaml", "kind: nvidia.com/gpu\n");
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  CHECK_FALSE(fs::exists(root.host("/var/run/cdi/nvidia.yaml")));
}

TEST_CASE("setup: false removes the NVIDIA spec and units an earlier setup wrote, and nothing of others") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  REQUIRE(fs::exists(root.host("/etc/cdi/nvidia.yaml")));
  fakes.clear_calls();
  auto off = setup(root, fakes, "false");
  REQUIRE(off.exit_code == 0);
  CHECK_FALSE(fs::exists(root.host("/etc/cdi/nvidia.yaml")));
  CHECK_FALSE(fs::exists(root.host("/etc/systemd/system/rediacc-gpu-nvidia-spec.service")));
  CHECK_FALSE(fs::exists(root.host("/etc/systemd/system/nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf")));
  CHECK(called(fakes.calls(), "systemctl --root=" + root.str() + " disable rediacc-gpu-nvidia-spec.service"));

  FixtureRoot other;
  two_nvidia_datacenter(other, true);  // its nvidia.yaml was not installed by setup
  other.write("/etc/os-release", kFamilies[0].os_release);
  auto kept = setup(other, fakes, "false");
  REQUIRE(kept.exit_code == 0);
  CHECK(fs::exists(other.host("/etc/cdi/nvidia.yaml")));
  CHECK_THAT(kept.out, Catch::Contains("was not installed by setup and is left alone"));
}

TEST_CASE("setup: false removes the NVIDIA spec setup installed even after its units regenerated it") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  // nvidia-cdi-refresh (a new driver) or our boot unit rewrote it since.
  root.write("/etc/cdi/nvidia.yaml", "---\ncdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n# regenerated\n");
  auto off = setup(root, fakes, "false");
  REQUIRE(off.exit_code == 0);
  CHECK_THAT(off.out, Catch::Contains("removed the spec an earlier setup installed"));
  CHECK_FALSE(fs::exists(root.host("/etc/cdi/nvidia.yaml")));
  CHECK_FALSE(fs::exists(root.host("/var/lib/rediacc/gpu/nvidia-spec.owned")));

  // Written by hand afterwards: no longer setup's.
  root.write("/etc/cdi/nvidia.yaml", "---\ncdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n");
  auto again = setup(root, fakes, "false");
  REQUIRE(again.exit_code == 0);
  CHECK(fs::exists(root.host("/etc/cdi/nvidia.yaml")));
}

TEST_CASE("setup: what it keeps for itself is in /var/lib/rediacc/gpu, and the downloaded key is not kept") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  auto r = setup(root, fakes, "auto");
  REQUIRE(r.exit_code == 0);
  // Run inside the machine it sets up: its own paths.
  CHECK(called(fakes.calls(), "chroot " + root.str() +
                                  " curl -fsSL --create-dirs -o /var/lib/rediacc/gpu/nvidia-container-toolkit.gpgkey"));
  CHECK(called(fakes.calls(), "chroot " + root.str() + " gpg --batch --yes --dearmor"));
  std::vector<std::string> kept;
  for (const auto& e : fs::directory_iterator(root.host("/var/lib/rediacc/gpu"))) {
    kept.push_back(e.path().filename().string());
  }
  std::sort(kept.begin(), kept.end());
  // grants.lock: the views step reads the grants under the lock grant and revoke take; runtime:
  // the verifier in front of runc, this binary by the name runc, first on the daemons' PATH.
  CHECK(kept == std::vector<std::string>{"cgroup.json", "grants.lock", "nvidia-spec.owned", "runtime", "setup.lock"});
  CHECK(fs::read_symlink(root.host("/var/lib/rediacc/gpu/runtime/runc")) == "/usr/bin/rediacc-gpu");
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-docker@.service.d/70-rediacc-gpu-runtime.conf"),
             Catch::Contains("Environment=REDIACC_GPU_REPO=%i\n") &&
                 Catch::Contains("Environment=PATH=/var/lib/rediacc/gpu/runtime:/usr/local/sbin:"));
  std::vector<std::string> config;
  for (const auto& e : fs::directory_iterator(root.host("/etc/rediacc/gpu"))) {
    config.push_back(e.path().filename().string());
  }
  std::sort(config.begin(), config.end());
  CHECK(config == std::vector<std::string>{"host-policy.json", "inventory.json", "nvidia-cdi-refresh.env"});
}

TEST_CASE("setup: units written under --root run the programs of that machine, not of the host") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;  // an nvidia-ctk on the host's PATH: not the one the machine's systemd will run
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  const auto spec_unit = root.read("/etc/systemd/system/rediacc-gpu-nvidia-spec.service");
  CHECK_THAT(spec_unit, Catch::Contains("ConditionPathExists=/usr/bin/nvidia-ctk\n"));
  CHECK_THAT(spec_unit,
             Catch::Contains("ExecStart=/usr/bin/rediacc-gpu cdi nvidia --wait=60 --nvidia-ctk=/usr/bin/nvidia-ctk\n"));
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-authz@.service"),
             Catch::Contains("ExecStart=/usr/bin/rediacc-gpu authz-plugin"));
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-refresh.service"),
             Catch::Contains("ExecStart=/usr/bin/rediacc-gpu cdi generate"));

  // The machine's own nvidia-ctk, and the tool where the operator says it is.
  root.write("/usr/local/bin/nvidia-ctk", "#!/bin/sh\n");
  REQUIRE(run_tool({"setup", "--root", root.str(), "--tool-path", "/opt/rediacc/bin/rediacc-gpu"}, "", fakes.env())
              .exit_code == 0);
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-nvidia-spec.service"),
             Catch::Contains("ExecStart=/opt/rediacc/bin/rediacc-gpu cdi nvidia --wait=60 "
                             "--nvidia-ctk=/usr/local/bin/nvidia-ctk\n"));
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-authz@.service"),
             Catch::Contains("ExecStart=/opt/rediacc/bin/rediacc-gpu authz-plugin"));
  CHECK(run_tool({"setup", "--root", root.str(), "--tool-path", "bin/rediacc-gpu"}).exit_code == 2);
}

TEST_CASE("setup: units the package ships unchanged get no copy in /etc, and setup's earlier copies go") {
  FixtureRoot root;
  intel_discrete(root);
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "false").exit_code == 0);
  const std::vector<std::string> shipped = {
      "/etc/systemd/system/rediacc-gpu-refresh.service", "/etc/udev/rules.d/90-rediacc-gpu.rules",
      "/etc/systemd/system/rediacc-gpu-authz@.socket", "/etc/systemd/system/rediacc-gpu-authz@.service"};
  for (const auto& p : shipped) REQUIRE(fs::exists(root.host(p)));

  // The package: the same rendering, under the package's header.
  for (const auto& f : rgpu::units::packaged_units()) root.write("/usr" + f.path, f.content);
  root.write("/etc/systemd/system/rediacc-gpu-authz@.service", "# an operator's override\n[Service]\n");

  auto again = setup(root, fakes, "false");
  REQUIRE(again.exit_code == 0);
  CHECK_FALSE(fs::exists(root.host(shipped[0])));
  CHECK_FALSE(fs::exists(root.host(shipped[1])));
  CHECK_FALSE(fs::exists(root.host(shipped[2])));
  CHECK(root.read(shipped[3]) == "# an operator's override\n[Service]\n");  // not setup's: left alone
  CHECK_THAT(again.out, Catch::Contains("remove " + root.host(shipped[0]).string()));
  auto third = setup(root, fakes, "false");
  CHECK_FALSE(file_changes_in(third.out));

  // A package built for another path ships other text: setup writes its own copy again.
  root.write("/usr/lib/systemd/system/rediacc-gpu-refresh.service", "[Service]\nExecStart=/opt/x cdi generate\n");
  REQUIRE(setup(root, fakes, "false").exit_code == 0);
  CHECK(fs::exists(root.host(shipped[0])));
}

TEST_CASE("setup: an installed toolkit at the pinned version is not installed again") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  fakes.installed(root, "1.20.0-1");
  auto r = setup(root, fakes, "auto");
  REQUIRE(r.exit_code == 0);
  CHECK_FALSE(any_install(fakes.calls()));
  CHECK_THAT(r.out, Catch::Contains("nvidia-container-toolkit-base 1.20.0 already installed"));
}

TEST_CASE("setup: the default toolkit version is a floor: a newer one is kept, an older one upgraded") {
  for (const auto& family : kFamilies) {
    INFO(family.name);
    FixtureRoot root;
    two_nvidia_datacenter(root, true);
    root.write("/etc/os-release", family.os_release);
    FakeTools fakes;
    fakes.installed(root, "1.21.0-1");  // after a routine apt upgrade
    auto kept = setup(root, fakes, "auto");
    INFO(kept.out << kept.err);
    REQUIRE(kept.exit_code == 0);
    CHECK_FALSE(any_install(fakes.calls()));
    CHECK_THAT(kept.out, Catch::Contains("nvidia-container-toolkit-base 1.21.0-1 kept (at or above 1.20.0"));

    fakes.installed(root, "1.19.2-1");
    fakes.clear_calls();
    auto upgraded = setup(root, fakes, "auto");
    REQUIRE(upgraded.exit_code == 0);
    CHECK(any_install(fakes.calls()));
    CHECK_THAT(upgraded.out, Catch::Contains("upgrade nvidia-container-toolkit-base 1.19.2-1 to 1.20.0"));
  }
}

TEST_CASE("setup: --nvidia-toolkit-version is exact: below what is installed it downgrades, as apt needs it asked") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  fakes.installed(root, "1.21.0-1");
  auto r = run_tool({"setup", "--root", root.str(), "--nvidia-toolkit-version", "1.20.0"}, "", fakes.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(called(fakes.calls(),
               "apt-get install -y --no-install-recommends --allow-downgrades "
               "nvidia-container-toolkit-base=1.20.0-1"));
  CHECK_THAT(r.out, Catch::Contains("downgrade nvidia-container-toolkit-base 1.21.0-1 to 1.20.0"));
  fakes.clear_calls();
  REQUIRE(run_tool({"setup", "--root", root.str(), "--nvidia-toolkit-version", "1.20.0"}, "", fakes.env()).exit_code ==
          0);
  CHECK_FALSE(any_install(fakes.calls()));
}

// Under --root the toolkit lands in that root (apt inside it), and setup and doctor read the same
// package database: no "already installed" on one side and "missing, run setup" on the other.
TEST_CASE("setup: under --root the toolkit is installed into the root, and doctor there agrees it is") {
  for (const auto& family : kFamilies) {
    INFO(family.name);
    FixtureRoot root;
    two_nvidia_datacenter(root, true);
    root.write("/etc/os-release", family.os_release);
    FakeTools fakes;
    REQUIRE(setup(root, fakes, "auto").exit_code == 0);
    CHECK(fs::exists(root.host("/usr/bin/nvidia-ctk")));
    auto d = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
    const auto checks = nlohmann::json::parse(d.out)["checks"];
    bool seen = false;
    for (const auto& c : checks) {
      if (c["id"] != "toolkit") continue;
      seen = true;
      INFO(c.dump());
      CHECK(c["status"] == "ok");
      CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("/usr/bin/nvidia-ctk is installed (1.20.0-1)"));
    }
    CHECK(seen);
    fakes.clear_calls();
    auto again = setup(root, fakes, "auto");
    CHECK_THAT(again.out, Catch::Contains("nvidia-container-toolkit-base 1.20.0 already installed"));
  }
}

TEST_CASE("setup: a failing install is one failed step: every step that does not need it still runs") {
  FixtureRoot root;
  debian_with_nvidia(root);
  const std::string spec_before = root.read("/etc/cdi/nvidia.yaml");
  FakeTools fakes;
  // An air-gapped host, or a proxy not yet set: apt-get exits non-zero.
  fakes.fail("apt-get", "install -y --no-install-recommends nvidia-container-toolkit-base");
  auto r = setup(root, fakes, "auto");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("setup step \"NVIDIA Container Toolkit\" failed"));
  CHECK_THAT(r.err, Catch::Contains("apt-get: simulated failure"));
  CHECK_THAT(r.err, Catch::Contains("--install-nvidia-toolkit=false") && Catch::Contains("Acquire::https::Proxy"));
  CHECK_THAT(r.out, Catch::Contains("NVIDIA CDI spec ... not run: step \"NVIDIA Container Toolkit\" failed"));
  CHECK(root.read("/etc/cdi/nvidia.yaml") == spec_before);
  CHECK(root.read("/etc/rediacc/gpu/nvidia-cdi-refresh.env").find("NVIDIA_CTK_CDI_OUTPUT_FILE_PATH") !=
        std::string::npos);
  // None of these needs the toolkit.
  CHECK(fs::exists(root.host("/etc/rediacc/gpu/inventory.json")));
  CHECK(fs::exists(root.host("/etc/cdi/rediacc.io-dri.json")));
  CHECK(fs::exists(root.host("/etc/udev/rules.d/90-rediacc-gpu.rules")));
  CHECK_THAT(r.out, Catch::Contains("[9/9] inventory ... "));
  // The last line names what failed.
  CHECK_THAT(r.err, Catch::EndsWith("but \"NVIDIA Container Toolkit\" failed (and what needs it did not run); run "
                                    "setup again once it is fixed.\n"));

  fs::remove(fs::path(fakes.bin_dir()).parent_path() / "fail-apt-get");
  auto again = setup(root, fakes, "auto");
  CHECK(again.exit_code == 0);
  CHECK(root.read("/etc/cdi/nvidia.yaml") != spec_before);
}

TEST_CASE("setup: progress in a log: each step's header before it runs, each command as it starts") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  auto r = setup(root, fakes, "auto");
  REQUIRE(r.exit_code == 0);
  const std::string header = "[2/9] NVIDIA Container Toolkit ... \n";
  const auto at = r.out.find(header);
  REQUIRE(at != std::string::npos);
  const auto run = r.out.find("      run chroot " + root.str() + " apt-get update\n", at);
  const auto outcome =
      r.out.find("[2/9] NVIDIA Container Toolkit ... install nvidia-container-toolkit-base 1.20.0", at);
  CHECK(run != std::string::npos);
  CHECK(outcome != std::string::npos);
  CHECK(run < outcome);
}

TEST_CASE("setup: a second setup waiting on the lock says for whom") {
  FixtureRoot root;
  intel_discrete(root);
  FakeTools fakes;
  // Hold the lock from another process that records its pid the way setup does.
  root.write("/var/lib/rediacc/gpu/setup.lock", "");
  const auto lock = root.host("/var/lib/rediacc/gpu/setup.lock").string();
  auto holder = std::async(std::launch::async, [&] {
    return run_program("/usr/bin/flock", {lock, "sh", "-c", "echo $$ > " + lock + "; sleep 2"});
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  auto r = setup(root, fakes, "auto");
  holder.get();
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Matches("waiting for another rediacc-gpu setup \\(pid [0-9]+\\) to finish...\n(.|\n)*"));
}

TEST_CASE("setup: a failing nvidia-ctk fails its step and keeps the previous spec whole") {
  FixtureRoot root;
  debian_with_nvidia(root);
  const std::string before = root.read("/etc/cdi/nvidia.yaml");
  FakeTools fakes;
  fakes.fail("nvidia-ctk");
  auto r = setup(root, fakes, "true");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err,
             Catch::Contains("setup step \"NVIDIA CDI spec\" failed") && Catch::Contains("nvidia-ctk cdi generate"));
  CHECK(root.read("/etc/cdi/nvidia.yaml") == before);
}

TEST_CASE("setup: --dry-run prints the plan and changes nothing") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kFamilies[1].os_release);
  FakeTools fakes;
  auto r = run_tool({"setup", "--root", root.str(), "--dry-run"}, "", fakes.env());
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("would run dnf -y --installroot=" + root.str() +
                                    " install nvidia-container-toolkit-base-1.20.0-1"));
  CHECK_THAT(r.out, Catch::Contains("would write " + root.host("/etc/cdi/rediacc.io-dri.json").string()));
  CHECK_THAT(r.out, Catch::Contains("dry run: nothing was changed"));
  for (const auto& c : fakes.calls()) CHECK(c.rfind("rpm ", 0) == 0);  // only the read-only query ran
  CHECK_FALSE(fs::exists(root.host("/etc/rediacc")));
  CHECK_FALSE(fs::exists(root.host("/etc/cdi/rediacc.io-dri.json")));
}

TEST_CASE("setup: progress shows each step with its outcome and duration") {
  FixtureRoot root;
  intel_discrete(root);
  FakeTools fakes;
  auto r = setup(root, fakes, "auto");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Matches("(.|\n)*\\[1/9\\] probe \\.\\.\\. 1 GPU, platform native [0-9.]+s\n(.|\n)*"));
  CHECK_THAT(r.out, Catch::Contains("[9/9] inventory ... "));
}

TEST_CASE("setup: -o json is one object: each step's outcome, duration and changes, and whether anything changed") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  auto json_setup = [&] {
    return run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", "auto", "-o", "json"}, "", fakes.env());
  };
  auto first = json_setup();
  INFO(first.out << first.err);
  REQUIRE(first.exit_code == 0);
  const auto one = nlohmann::json::parse(first.out);
  CHECK(one["ok"] == true);
  CHECK(one["changed"] == true);
  CHECK(one["root"] == root.str());
  REQUIRE(one["steps"].size() == 9);
  CHECK(one["steps"][0]["step"] == "probe");
  CHECK(one["steps"][0]["seconds"].is_number());
  CHECK(one["steps"][2]["outcome"] == "written");
  CHECK(one["steps"][2]["changes"].dump().find(R"({"action":"write","path":"/etc/cdi/nvidia.yaml"})") !=
        std::string::npos);
  CHECK(one["steps"][1]["changes"].dump().find(R"("action":"run","command":"chroot )" + root.str() + " apt-get") !=
        std::string::npos);

  // A re-run on the unchanged machine: nothing changed, not even a command that only regenerates.
  auto second = json_setup();
  REQUIRE(second.exit_code == 0);
  const auto two = nlohmann::json::parse(second.out);
  CHECK(two["changed"] == false);
  for (const auto& step : two["steps"]) {
    INFO(step.dump());
    CHECK(step["changed"] == false);
    CHECK(step["changes"].empty());
  }

  fakes.fail("nvidia-ctk");
  root.write("/etc/cdi/nvidia.yaml", "stale\n");
  auto failed = json_setup();
  CHECK(failed.exit_code == 1);
  const auto three = nlohmann::json::parse(failed.out);
  CHECK(three["ok"] == false);
  CHECK(three["steps"][2]["id"] == "nvidia-spec");
  CHECK(three["steps"][2]["outcome"] == "failed");
  CHECK(three["steps"][2]["status"] == "failed");
  CHECK_THAT(three["steps"][2]["ran"].dump(), Catch::Contains("nvidia-ctk cdi generate"));
  CHECK(three["failed_steps"] == nlohmann::json{"nvidia-spec"});
  CHECK(three["steps"].back()["status"] == "ok");  // the inventory was still recorded
  CHECK_THAT(three["error"].get<std::string>(), Catch::StartsWith("setup step \"NVIDIA CDI spec\" failed: "));
  CHECK_THAT(failed.err, Catch::Contains("rediacc-gpu: setup step \"NVIDIA CDI spec\" failed"));
}

TEST_CASE("setup: versions below 1.18.0 and unknown modes are usage errors") {
  FixtureRoot root;
  CHECK(run_tool({"setup", "--root", root.str(), "--nvidia-toolkit-version", "1.17.8"}).exit_code == 2);
  CHECK(run_tool({"setup", "--root", root.str(), "--install-nvidia-toolkit", "maybe"}).exit_code == 2);
}

TEST_CASE("setup: an unknown distribution is refused when the toolkit is needed, naming os-release") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", "ID=gentoo\nPRETTY_NAME=\"Gentoo Linux\"\n");
  FakeTools fakes;
  auto r = setup(root, fakes, "auto");
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("os-release names \"Gentoo Linux\""));
}

TEST_CASE("setup: every unit written passes systemd-analyze verify") {
  FixtureRoot root;
  debian_with_nvidia(root);
  // Stand-ins for the units our drop-ins extend: NVIDIA's refresh service and a repository daemon.
  root.write("/etc/systemd/system/nvidia-cdi-refresh.service",
             "[Service]\nType=oneshot\nEnvironmentFile=-/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env\n"
             "ExecStart=/bin/true\n");
  root.write("/etc/systemd/system/rediacc-docker@.service", "[Service]\nExecStart=/bin/true %i\n");
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  // Verified as that machine: its systemd's own units, and the programs the units name, in the root.
  as_verifiable_machine(root);
  auto r =
      run_program("/usr/bin/systemd-analyze",
                  {"verify", "--root=" + root.str(), "rediacc-gpu-nvidia-spec.service", "rediacc-gpu-refresh.service",
                   "nvidia-cdi-refresh.service", "rediacc-docker@repo1.service", "rediacc-gpu-authz@repo1.socket",
                   "rediacc-gpu-authz@repo1.service", "rediacc-gpu-views.path", "rediacc-gpu-views.service"});
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}

// A restart policy's restore at boot reaches what the view maps without asking the gate: the
// view is rebuilt, against the hardware as it is, before the daemon starts.
TEST_CASE("setup: a repository daemon starts after its view is rebuilt, the views after the specs follow the cards") {
  FixtureRoot root;
  debian_with_nvidia(root);
  root.write("/etc/systemd/system/rediacc-docker@.service", "[Service]\nExecStart=/bin/true %i\n");
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  const auto dropin = root.read("/etc/systemd/system/rediacc-docker@.service.d/60-rediacc-gpu-cdi-view.conf");
  // CDI's other default directory, /run/cdi, outranks /etc/cdi: it is the view too.
  CHECK_THAT(dropin, Catch::Contains("Wants=rediacc-gpu-views.service\n") &&
                         Catch::Contains("After=rediacc-gpu-views.service\n") &&
                         Catch::Contains("BindReadOnlyPaths=/var/lib/rediacc/gpu/cdi/%i:/run/cdi\n"));
  CHECK_THAT(root.read("/etc/systemd/system/rediacc-gpu-views.service"),
             Catch::Contains("After=rediacc-gpu-refresh.service rediacc-gpu-nvidia-spec.service "
                             "nvidia-cdi-refresh.service\n"));
  const auto rule = root.read("/etc/udev/rules.d/90-rediacc-gpu.rules");
  CHECK_THAT(rule, Catch::Contains("KERNEL==\"renderD*|card[0-9]*\"") &&
                       Catch::Contains("SUBSYSTEM==\"module\", KERNEL==\"nvidia\""));
}

// The machine's real /sys, /proc and /dev, its own root as setup would find it, and every write
// thrown away with the private overlay the run happens in: the machine running the tests is left
// exactly as it was.
TEST_CASE("setup: a real run on this machine's own root, in a throwaway overlay of it") {
  const std::vector<std::string> watched = {"/etc/rediacc", "/var/lib/rediacc", "/etc/cdi/rediacc.io-dri.json",
                                            "/etc/systemd/system/rediacc-gpu-refresh.service",
                                            "/etc/udev/rules.d/90-rediacc-gpu.rules"};
  std::vector<bool> before;
  for (const auto& p : watched) before.push_back(fs::exists(p));
  const auto binary = fs::path(tool_path());
  auto r = run_program(source_path("/tests/support/throwaway_root.sh"),
                       {binary.parent_path().string(), "/opt/under-test/" + binary.filename().string(), "setup",
                        "--install-nvidia-toolkit", "auto"});
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("[1/9] probe ... ") && Catch::Contains("[9/9] inventory"));
  CHECK_THAT(r.out, Catch::Contains("\nwrote /var/lib/rediacc/gpu/"));  // the lock, at least: it ran as root's
  for (std::size_t i = 0; i < watched.size(); ++i) {
    INFO(watched[i]);
    CHECK(fs::exists(watched[i]) == before[i]);
  }
}

TEST_CASE("setup: two setups at once: the second waits for the first, then finds nothing to install") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  auto a = std::async(std::launch::async, [&] { return setup(root, fakes, "auto"); });
  auto b = std::async(std::launch::async, [&] { return setup(root, fakes, "auto"); });
  const auto ra = a.get(), rb = b.get();
  CHECK(ra.exit_code == 0);
  CHECK(rb.exit_code == 0);
  int installs = 0;
  for (const auto& c : fakes.calls()) {
    if (c.rfind("apt-get install -y --no-install-recommends nvidia-container-toolkit-base", 0) == 0) ++installs;
  }
  CHECK(installs == 1);
  const bool one_found_it_done =
      ra.out.find("already installed") != std::string::npos || rb.out.find("already installed") != std::string::npos;
  CHECK(one_found_it_done);
}

TEST_CASE("setup: a repository daemon running behind its plugin gets its address written for that plugin") {
  using namespace std::string_literals;
  FixtureRoot root;
  intel_discrete(root);
  root.write("/proc/4242/cmdline",
             "/usr/sbin/dockerd\0--authorization-plugin=rediacc-gpu-web\0-H\0unix:///run/rediacc/web.sock\0"s);
  root.write("/proc/4242/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
  root.write("/proc/4343/cmdline", "/usr/sbin/dockerd\0--authorization-plugin=rediacc-gpu-ci\0"s);
  root.write("/proc/4343/status", "Name:\tdockerd\nUid:\t0\t0\t0\t0\n");
  root.write("/etc/rediacc/gpu/plugins/ci.env", "REDIACC_GPU_DOCKER_HOST=unix:///srv/ci/docker.sock\n");
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  CHECK_THAT(root.read("/etc/rediacc/gpu/plugins/web.env"),
             Catch::Contains("\nREDIACC_GPU_DOCKER_HOST=unix:///run/rediacc/web.sock\n"));
  // The operator's own file is theirs.
  CHECK(root.read("/etc/rediacc/gpu/plugins/ci.env") == "REDIACC_GPU_DOCKER_HOST=unix:///srv/ci/docker.sock\n");
  const auto again = setup(root, fakes, "auto");
  CHECK_THAT(again.out, !Catch::Contains("plugins/web.env"));
}

TEST_CASE("setup: --nvidia-disable-hook reaches nvidia-ctk, the boot unit and nvidia-cdi-refresh, and is kept") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  auto r = run_tool({"setup", "--root", root.str(), "--nvidia-disable-hook", "enable-cuda-compat",
                     "--nvidia-disable-hook", "update-ldcache"},
                    "", fakes.env());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(called(fakes.calls(), "chroot " + root.str() +
                                  " nvidia-ctk cdi generate --output=/var/lib/rediacc/gpu/nvidia.yaml.generated" +
                                  kNameStrategies +
                                  " --disable-hook=enable-cuda-compat "
                                  "--disable-hook=update-ldcache"));
  const std::string unit = "/etc/systemd/system/" + std::string(rgpu::units::kNvidiaSpecUnit);
  CHECK_THAT(root.read(unit), Catch::Contains("cdi nvidia --wait=60 --nvidia-ctk=/usr/bin/nvidia-ctk"
                                              " --disable-hook=enable-cuda-compat --disable-hook=update-ldcache\n"));
  CHECK_THAT(root.read("/etc/rediacc/gpu/nvidia-cdi-refresh.env"),
             Catch::Contains("NVIDIA_CTK_CDI_GENERATE_DISABLED_HOOKS=enable-cuda-compat,update-ldcache\n"));
  // nvidia-cdi-refresh names each GPU by index and by UUID too, whatever its version's default.
  CHECK_THAT(root.read("/etc/rediacc/gpu/nvidia-cdi-refresh.env"),
             Catch::Contains("\nNVIDIA_CTK_CDI_GENERATE_DEVICE_NAME_STRATEGIES=index,uuid\n"));
  // A later setup without the flag keeps the recorded choice; none clears it.
  FakeTools again;
  REQUIRE(run_tool({"setup", "--root", root.str()}, "", again.env()).exit_code == 0);
  CHECK(called(again.calls(), "chroot " + root.str() +
                                  " nvidia-ctk cdi generate --output=/var/lib/rediacc/gpu/nvidia.yaml.generated" +
                                  kNameStrategies +
                                  " --disable-hook=enable-cuda-compat "
                                  "--disable-hook=update-ldcache"));
  CHECK_THAT(root.read(unit), Catch::Contains("--disable-hook=update-ldcache"));
  FakeTools cleared;
  REQUIRE(run_tool({"setup", "--root", root.str(), "--nvidia-disable-hook", "none"}, "", cleared.env()).exit_code == 0);
  for (const auto& c : cleared.calls()) CHECK_THAT(c, !Catch::Contains("--disable-hook"));
  CHECK_THAT(root.read(unit), !Catch::Contains("--disable-hook"));
  CHECK_THAT(root.read("/etc/rediacc/gpu/nvidia-cdi-refresh.env"), !Catch::Contains("DISABLED_HOOKS"));
  CHECK(run_tool({"setup", "--root", root.str(), "--nvidia-disable-hook", "nosuch"}, "", cleared.env()).exit_code != 0);
}

TEST_CASE(
    "setup: on a Rediacc machine one prefix drop-in reaches every rediacc-docker-ID unit, and the policy is "
    "Rediacc's") {
  FixtureRoot root;
  debian_with_nvidia(root);
  // renet's units as renet writes them: plain units named by network id, no template.
  for (const char* id : {"2816", "2880"}) {
    root.write("/etc/systemd/system/rediacc-docker-" + std::string(id) + ".service",
               "[Unit]\nRequires=rediacc-docker-" + std::string(id) + ".socket\n[Service]\nExecStart=/bin/true\n");
    root.write("/etc/systemd/system/rediacc-docker-" + std::string(id) + ".socket",
               "[Socket]\nListenStream=/run/rediacc/docker-" + std::string(id) + ".sock\n");
  }
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  const std::string dir = "/etc/systemd/system/rediacc-docker-.service.d/";
  CHECK_THAT(root.read(dir + "60-rediacc-gpu-cdi-view.conf"),
             Catch::Contains("BindReadOnlyPaths=/var/lib/rediacc/gpu/cdi/%j:/etc/cdi\n") &&
                 Catch::Contains("BindReadOnlyPaths=/var/lib/rediacc/gpu/cdi/%j:/run/cdi\n"));
  const auto gate = root.read(dir + "70-rediacc-gpu-gate.conf");
  CHECK_THAT(gate,
             Catch::Contains("Wants=rediacc-gpu-authz@%j.socket") &&
                 Catch::Contains("Environment=REDIACC_GPU_REPO=%j") &&
                 Catch::Contains("Environment=PATH=/var/lib/rediacc/gpu/dockerd-shim:/var/lib/rediacc/gpu/runtime:"));
  CHECK_FALSE(fs::exists(root.host(dir + "70-rediacc-gpu-runtime.conf")));
  CHECK(root.read(dir + "50-rediacc-gpu.conf").find("nvidia-persistenced") != std::string::npos);
  CHECK_FALSE(fs::exists(root.host("/etc/systemd/system/rediacc-docker@.service.d")));
  CHECK_THAT(root.read("/etc/rediacc/gpu/host-policy.json"),
             Catch::Contains("\"policy\": \"rediacc\"") && Catch::Contains("rediacc-docker-2816.service"));
  // The drop-in reaches renet's units as they are, each with its own repository: verified by systemd.
  as_verifiable_machine(root);
  auto verified =
      run_program("/usr/bin/systemd-analyze", {"verify", "--root=" + root.str(), "rediacc-docker-2816.service",
                                               "rediacc-gpu-authz@2816.socket", "rediacc-gpu-authz@2816.service"});
  INFO(verified.out << verified.err);
  CHECK(verified.exit_code == 0);
  // The roots binds may come from are recorded with the policy: what renet binds.
  CHECK_THAT(root.read("/etc/rediacc/gpu/host-policy.json"),
             Catch::Contains(R"("{mount}",)") && Catch::Contains(R"("/run/rediacc/secrets/{id}",)") &&
                 Catch::Contains(R"("/opt/rediacc/proxy/letsencrypt:ro")") &&
                 Catch::Contains(R"("bind_roots_named": false)"));
  // An explicit policy wins, and a second run changes nothing.
  CHECK(setup(root, fakes, "auto").out.find("host-policy.json") == std::string::npos);
  REQUIRE(run_tool({"setup", "--root", root.str(), "--host-policy", "strict"}, "", fakes.env()).exit_code == 0);
  CHECK_THAT(root.read("/etc/rediacc/gpu/host-policy.json"),
             Catch::Contains("\"policy\": \"strict\"") && Catch::Contains(R"("/srv/rediacc-gpu/{repo}")"));
}

TEST_CASE(
    "setup: on a Rediacc machine it names the repository daemons found, and how to restart one without its gate") {
  FixtureRoot root;
  debian_with_nvidia(root);
  rediacc_two_repositories(root);
  for (const char* id : {"2816", "2880", "2944"})
    root.write("/etc/systemd/system/rediacc-docker-" + std::string(id) + ".service",
               "[Service]\nExecStart=/bin/true\n");
  // 2816 was restarted behind its gate; 2880 started before setup wired it; 2944 is stopped.
  using namespace std::string_literals;
  root.write("/proc/100/cmdline",
             "/usr/bin/dockerd\0--authorization-plugin=rediacc-gpu-2816\0-H\0unix:///run/rediacc/docker-2816.sock\0"s);
  FakeTools fakes;
  const auto r = setup(root, fakes, "auto");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);  // all setup may do is done: the restart is the operator's
  CHECK_THAT(r.out, Catch::Contains("[7/9] systemd units and udev rule ... written; renet's repository daemons: 2816 "
                                    "behind its gate, 2880 without its gate until restarted, 2944 not running (its "
                                    "gate starts with it)"));
  CHECK_THAT(r.err,
             Catch::Contains("dockerd 200 of repository 2880 runs without any rediacc-gpu plugin: its "
                             "containers run without the gate until it restarts behind it. Restart it when its "
                             "tenants can stop for a moment: renet daemon stop --network-id 2880 && renet daemon "
                             "start --network-id 2880 (or systemctl restart rediacc-docker-2880.service)."));
  CHECK_THAT(r.err, !Catch::Contains("repository 2816"));
  // A second run, nothing to write, still says it.
  const auto again = setup(root, fakes, "auto");
  CHECK_THAT(again.out,
             Catch::Contains("... unchanged; renet's repository daemons: 2816 behind its gate, 2880 without"));
  CHECK_THAT(again.err, Catch::Contains("renet daemon stop --network-id 2880"));
}

TEST_CASE(
    "setup: bind roots an operator names are recorded and kept by later setups, and a system directory is not "
    "one") {
  FixtureRoot root;
  debian_with_nvidia(root);
  FakeTools fakes;
  const auto policy = [&] { return root.read("/etc/rediacc/gpu/host-policy.json"); };
  REQUIRE(run_tool({"setup", "--root", root.str(), "--bind-root", "/srv/data:ro", "--bind-root", "/home/{repo}/work"},
                   "", fakes.env())
              .exit_code == 0);
  CHECK_THAT(policy(), Catch::Contains(R"("/srv/data:ro",)") && Catch::Contains(R"("/home/{repo}/work")") &&
                           Catch::Contains(R"("bind_roots_named": true)"));
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);  // provisioning runs setup again, naming none
  CHECK_THAT(policy(), Catch::Contains(R"("/srv/data:ro",)"));
  REQUIRE(run_tool({"setup", "--root", root.str(), "--bind-root", "default"}, "", fakes.env()).exit_code == 0);
  CHECK_THAT(policy(), Catch::Contains(R"("/srv/rediacc-gpu/{repo}")") && !Catch::Contains("/srv/data"));
  for (const char* system : {"/usr/local", "/etc", "/", "/var", "/root/x", "/srv/../etc", "relative", "/srv/{x}"}) {
    const auto r = run_tool({"setup", "--root", root.str(), "--bind-root", system}, "", fakes.env());
    INFO(system << ": " << r.err);
    CHECK(r.exit_code != 0);
    CHECK_THAT(r.err, Catch::Contains("bind root"));
  }
  CHECK_THAT(policy(), Catch::Contains(R"("/srv/rediacc-gpu/{repo}")"));  // nothing written by a refused run
  // A record that cannot be read is never overwritten: setup stops, naming it.
  root.write("/etc/rediacc/gpu/host-policy.json", "{not json");
  const auto r = run_tool({"setup", "--root", root.str()}, "", fakes.env());
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("host-policy.json is not a host policy setup wrote"));
  CHECK(policy() == "{not json");
}

TEST_CASE(
    "setup: the dockerd renet's units start runs the machine's dockerd behind the repository's plugin, or not at all") {
  FixtureRoot root;
  debian_with_nvidia(root);
  root.write("/etc/systemd/system/rediacc-docker-2816.service", "[Service]\nExecStart=/bin/true\n");
  FakeTools fakes;
  REQUIRE(setup(root, fakes, "auto").exit_code == 0);
  const auto shim = root.host("/var/lib/rediacc/gpu/dockerd-shim/dockerd");
  REQUIRE(fs::exists(shim));
  CHECK((fs::status(shim).permissions() & fs::perms::owner_exec) != fs::perms::none);
  // The machine's dockerd, a stand-in that says how it was started, after the shim on PATH.
  root.write("/srv/bin/dockerd", "#!/bin/sh\necho \"real dockerd $*\"\n");
  fs::permissions(root.host("/srv/bin/dockerd"), fs::perms::owner_all);
  const std::string path = shim.parent_path().string() + ":" + root.host("/srv/bin").string() + ":/usr/bin:/bin";
  auto started = run_program("/usr/bin/env", {"PATH=" + path, "REDIACC_GPU_REPO=2816", shim.string(), "--config-file",
                                              "/mnt/rediacc/mounts/g/.rediacc/docker/config/daemon.json"});
  CHECK(started.exit_code == 0);
  CHECK(started.out ==
        "real dockerd --authorization-plugin=rediacc-gpu-2816 --config-file "
        "/mnt/rediacc/mounts/g/.rediacc/docker/config/daemon.json\n");
  auto ungated = run_program("/usr/bin/env", {"PATH=" + path, "REDIACC_GPU_REPO=", shim.string()});
  CHECK(ungated.exit_code == 1);
  CHECK(ungated.out.empty());
  CHECK_THAT(ungated.err, Catch::Contains("REDIACC_GPU_REPO is not set"));
}

// Issue: "no systemd as PID 1: setup exits 0 once every step it could do is done, says which parts
// cannot run there ... and how to run them by hand" (WSL2 without [boot] systemd=true, a container).
TEST_CASE(
    "setup: where PID 1 is not systemd, setup writes the units, starts nothing, exits 0 and says how to run them") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kFamilies[0].os_release);
  root.write("/proc/1/comm", "init\n");
  FakeTools fakes;
  fakes.fail("systemctl");  // no systemd to talk to, and no offline one either
  const auto first = setup(root, fakes, "false");
  INFO(first.out << first.err);
  CHECK(first.exit_code == 0);
  CHECK_FALSE(called(fakes.calls(), "systemctl"));
  CHECK_FALSE(called(fakes.calls(), "udevadm"));
  CHECK(fs::exists(root.host("/etc/systemd/system/rediacc-gpu-authz@.socket")));
  CHECK(fs::exists(root.host("/etc/udev/rules.d/90-rediacc-gpu.rules")));
  const auto said = first.out + first.err;
  CHECK_THAT(said, Catch::Contains("written, not started: PID 1 is init, not systemd"));
  CHECK_THAT(said, Catch::Contains("no repository daemon's plugin socket listens") &&
                       Catch::Contains("authz-plugin --repo REPO --socket /run/docker/plugins/rediacc-gpu-REPO.sock") &&
                       Catch::Contains("cdi generate` at boot") && Catch::Contains("cdi views` after each grant") &&
                       Catch::Contains("[boot] systemd=true"));
  const auto again = setup(root, fakes, "false");
  CHECK(again.exit_code == 0);
  CHECK_THAT(again.out + again.err, Catch::Contains("unchanged, not started: PID 1 is init"));
  CHECK_FALSE(called(fakes.calls(), "systemctl"));

  // Once systemd runs the machine, the next setup enables what it wrote.
  root.write("/proc/1/comm", "systemd\n");
  fs::remove(root.host("/etc/systemd/system/rediacc-gpu-views.path"));
  fakes.fail("systemctl", "no call says this");
  fakes.clear_calls();
  const auto with_systemd = setup(root, fakes, "false");
  INFO(with_systemd.out << with_systemd.err);
  CHECK(with_systemd.exit_code == 0);
  CHECK(called(fakes.calls(), "systemctl --root=" + root.str() + " enable rediacc-gpu-views.path"));
}
