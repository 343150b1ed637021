// setup as a library: each step's change list, on fixture machines, with the recording fakes run
// through the same ProcessRunner the binary uses.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>

#include "setup/run.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"

using namespace rgpu;
using namespace rgpu::test;
using setup::StepReport;
using setup::ToolkitChoice;
using setup::ToolkitMode;

namespace {

// The fakes first, as the binary's tests put them on PATH: a program is the fake when there is one.
class FakesFirst final : public CommandRunner {
 public:
  explicit FakesFirst(const FakeTools& fakes) : fakes_(fakes) {}

 protected:
  Result<CommandResult> do_run(const Argv& argv, std::chrono::seconds timeout,
                               const std::map<std::string, std::string>& env) override {
    Argv resolved = argv;
    const auto fake = std::filesystem::path(fakes_.bin_dir()) / argv[0];
    if (std::filesystem::exists(fake)) resolved[0] = fake.string();
    auto all = fakes_.env();
    all.insert(env.begin(), env.end());
    return real_.run(resolved, timeout, all);
  }

 private:
  const FakeTools& fakes_;
  ProcessRunner real_;
};

setup::SetupOptions options(ToolkitMode mode, bool dry_run = false) {
  return {.mode = mode,
          .toolkit_version = "1.20.0",
          .repo_daemon_unit = "rediacc-docker@.service",
          .tool_path = "/usr/bin/rediacc-gpu",
          .dry_run = dry_run};
}

setup::SetupRun run_on(const FixtureRoot& root, const FakeTools& fakes, ToolkitMode mode) {
  RootFs fs(root.str());
  MachineFileSink sink(fs);
  FakesFirst query(fakes), act(fakes);
  return setup::run_setup(fs, sink, query, act, options(mode));
}

setup::SetupRun dry_run_on(const FixtureRoot& root, const FakeTools& fakes, ToolkitMode mode) {
  RootFs fs(root.str());
  DryRunFileSink sink(fs);
  FakesFirst query(fakes);
  DryRunRunner act;
  return setup::run_setup(fs, sink, query, act, options(mode, true));
}

// Kind and target of each change, as a line: what a person compares.
std::vector<std::string> lines(const Changes& changes) {
  std::vector<std::string> out;
  for (const auto& c : changes) out.push_back(std::string(to_string(c.kind)) + " " + c.target);
  return out;
}

struct Shape {
  const char* name;
  void (*build)(const FixtureRoot&);
};

const Shape kShapes[] = {
    {"nvidia", [](const FixtureRoot& r) { two_nvidia_datacenter(r, true); }},
    {"amd", two_amd_instinct},
    {"none", no_gpu},
    {"wsl", wsl2_nvidia},
};

}  // namespace

TEST_CASE("setup: the toolkit is wanted as the mode and the GPUs say, and nowhere else") {
  probe::Inventory nvidia, amd, none;
  nvidia.gpus.push_back({});
  nvidia.gpus.back().vendor = probe::Vendor::nvidia;
  amd.gpus.push_back({});
  amd.gpus.back().vendor = probe::Vendor::amd;
  CHECK(setup::toolkit_wanted(ToolkitMode::automatic, nvidia) == ToolkitChoice::install);
  CHECK(setup::toolkit_wanted(ToolkitMode::automatic, amd) == ToolkitChoice::not_needed);
  CHECK(setup::toolkit_wanted(ToolkitMode::automatic, none) == ToolkitChoice::not_needed);
  for (const auto* inv : {&nvidia, &amd, &none}) {
    CHECK(setup::toolkit_wanted(ToolkitMode::always, *inv) == ToolkitChoice::install);
    CHECK(setup::toolkit_wanted(ToolkitMode::never, *inv) == ToolkitChoice::refused);
  }
}

TEST_CASE("setup: a second run on an unchanged machine changes nothing, step by step") {
  for (const auto& shape : kShapes) {
    for (const auto mode : {ToolkitMode::automatic, ToolkitMode::always, ToolkitMode::never}) {
      INFO(shape.name << " / mode " << static_cast<int>(mode));
      FixtureRoot root;
      shape.build(root);
      root.write("/etc/os-release", kDebian12OsRelease);
      FakeTools fakes;
      const auto first = run_on(root, fakes, mode);
      for (const auto& s : first.steps) {
        INFO(s.step->id << ": " << s.error.value_or(""));
        CHECK(s.status == StepReport::Status::ok);
      }
      CHECK(first.changed());
      fakes.clear_calls();
      const auto second = run_on(root, fakes, mode);
      REQUIRE(second.steps.size() == first.steps.size());
      for (const auto& s : second.steps) {
        INFO(s.step->id << ": " << s.outcome);
        CHECK(s.status == StepReport::Status::ok);
        for (const auto& c : s.changes) CHECK(lines({c}) == std::vector<std::string>{"unchanged " + c.target});
      }
      CHECK_FALSE(second.changed());
      CHECK_FALSE(called(fakes.calls(), "systemctl"));
      CHECK_FALSE(called(fakes.calls(), "chroot " + root.str() + " apt-get"));
    }
  }
}

namespace {

// A step's outcome in a run, by the step's id.
std::string outcome(const setup::SetupRun& run, std::string_view id) {
  for (const auto& s : run.steps) {
    if (s.step->id == id) return s.outcome;
  }
  return std::string("(no step ") + std::string(id) + ")";
}

}  // namespace

TEST_CASE(
    "setup: a dry run lists the changes the real run then makes and makes none, and its outcomes say what the "
    "real run would do, counted as the real run counts") {
  for (const char* name : {"amd", "none"}) {
    INFO(name);
    FixtureRoot root;
    (std::string(name) == "amd" ? two_amd_instinct : no_gpu)(root);
    root.write("/etc/os-release", kDebian12OsRelease);
    FakeTools fakes;
    const auto planned = dry_run_on(root, fakes, ToolkitMode::automatic);
    CHECK_FALSE(std::filesystem::exists(root.host("/etc/rediacc")));
    CHECK_FALSE(std::filesystem::exists(root.host("/etc/cdi/rediacc.io-dri.json")));
    CHECK(fakes.calls().empty());
    const auto made = run_on(root, fakes, ToolkitMode::automatic);
    REQUIRE(planned.steps.size() == made.steps.size());
    for (size_t i = 0; i < made.steps.size(); ++i) {
      INFO(made.steps[i].step->id);
      CHECK(lines(planned.steps[i].changes) == lines(made.steps[i].changes));
    }
    for (const auto& s : planned.steps) CHECK_THAT(s.outcome, !Catch::Contains("written"));
    CHECK(outcome(planned, "inventory") == "would record " + outcome(made, "inventory"));
    CHECK(outcome(planned, "units") == "would write and enable");
    CHECK(outcome(made, "units") == "written");
  }
}

TEST_CASE("setup: a dry run where nvidia-ctk is still to run says its names are not counted yet") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kDebian12OsRelease);
  FakeTools fakes;
  CHECK(outcome(dry_run_on(root, fakes, ToolkitMode::automatic), "inventory") ==
        "would record 9 grantable CDI names, and those of the NVIDIA spec nvidia-ctk would generate");
}

TEST_CASE("setup: a dry run on an NVIDIA machine plans the toolkit and the spec nvidia-ctk would write") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kDebian12OsRelease);
  FakeTools fakes;
  const auto planned = dry_run_on(root, fakes, ToolkitMode::automatic);
  REQUIRE(planned.steps.size() == 9);
  const auto& toolkit = planned.steps[1];
  CHECK(toolkit.outcome == "would install nvidia-container-toolkit-base 1.20.0 (apt)");
  const auto planned_lines = lines(toolkit.changes);
  CHECK(std::count(planned_lines.begin(), planned_lines.end(),
                   "write /etc/apt/sources.list.d/nvidia-container-toolkit.list") == 1);
  const auto& spec = planned.steps[2];
  CHECK(spec.outcome == "planned");
  CHECK(lines(spec.changes) ==
        std::vector<std::string>{"run chroot " + root.str() +
                                     " nvidia-ctk cdi generate --output=/var/lib/rediacc/gpu/nvidia.yaml.generated"
                                     " --device-name-strategy=index --device-name-strategy=uuid",
                                 "write /etc/cdi/nvidia.yaml"});
  CHECK_FALSE(std::filesystem::exists(root.host("/etc/apt/sources.list.d/nvidia-container-toolkit.list")));
}

TEST_CASE("setup: a failed command is listed among those the step ran, not among its changes") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  root.write("/etc/os-release", kDebian12OsRelease);
  FakeTools fakes;
  fakes.fail("chroot", "apt-get install");
  const auto run = run_on(root, fakes, ToolkitMode::automatic);
  const auto& toolkit = run.steps[1];
  REQUIRE(toolkit.status == StepReport::Status::failed);
  CHECK_THAT(*toolkit.error, Catch::Contains("way out:"));
  CHECK_THAT(toolkit.ran.back(), Catch::Contains("apt-get install"));
  for (const auto& c : toolkit.changes) CHECK(c.target.find("apt-get install") == std::string::npos);
  CHECK(run.steps[2].status == StepReport::Status::blocked);
  CHECK(run.steps[2].outcome == "not run: step \"NVIDIA Container Toolkit\" failed");
  CHECK(run.failed() == std::vector<std::string>{"nvidia-toolkit"});
  CHECK_THAT(run.failure_summary(), Catch::Contains("\"NVIDIA Container Toolkit\" failed (and what needs it"));
}
