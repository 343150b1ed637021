// metrics on fixture machines: node_exporter's textfile format, and what one scrape costs the
// machine.

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/nvidia_set_up.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
namespace fs = std::filesystem;

TEST_CASE("metrics: the textfile collector's format, written atomically, passes promtool") {
  FixtureRoot root;
  healthy_nvidia(root);
  root.write(
      "/etc/rediacc/gpu/grants.json",
      R"({"schema":1,"grants":[{"repo":"web","device":"nvidia.com/gpu=all","exclusive":true,"granted_at":"2026-11-29T00:00:00Z"}]})");
  auto r = run_tool({"metrics", "--root", root.str(), "--textfile", "/var/lib/node-exporter/rediacc-gpu.prom"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = root.read("/var/lib/node-exporter/rediacc-gpu.prom");
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_gpus{vendor=\"nvidia\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_inventory_present 1\n"));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_inventory_age_seconds "));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_spec_drift 0\n"));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_doctor_check{id=\"nvidia-driver\",layer=\"1\",status=\"ok\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_doctor_failed_checks 0\n"));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_grants{exclusive=\"true\"} 1\n"));
  CHECK_THAT(text, Catch::Contains("rediacc_gpu_grants_readable 1\n"));
  auto lint = run_program("/usr/bin/promtool", {"check", "metrics"}, text);
  INFO(lint.out << lint.err);
  CHECK(lint.exit_code == 0);

  // No grants and unreadable grants both count 0 grants: the second says it cannot be read.
  root.write("/etc/rediacc/gpu/grants.json", "{\"schema\": 1, \"grants\": [\n");
  const auto unreadable = run_tool({"metrics", "--root", root.str()}).out;
  CHECK_THAT(unreadable, Catch::Contains("rediacc_gpu_grants_readable 0\n") &&
                             Catch::Contains("rediacc_gpu_grants{exclusive=\"true\"} 0\n"));
  fs::remove(root.host("/etc/rediacc/gpu/grants.json"));
  CHECK_THAT(run_tool({"metrics", "--root", root.str()}).out, Catch::Contains("rediacc_gpu_grants_readable 1\n"));

  // A driver change: the drift shows, and stdout gets the same format.
  root.write("/proc/driver/nvidia/version",
             "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Wed Jan 15 00:43:42 UTC 2025\n");
  auto drifted = run_tool({"metrics", "--root", root.str()});
  CHECK_THAT(drifted.out, Catch::Contains("rediacc_gpu_spec_drift 1\n"));
  CHECK_THAT(drifted.out,
             Catch::Contains("rediacc_gpu_doctor_check{id=\"nvidia-spec\",layer=\"3\",status=\"fail\"} 1\n"));
  CHECK(run_program("/usr/bin/promtool", {"check", "metrics"}, drifted.out).exit_code == 0);
}

TEST_CASE("metrics: one scrape reads the kernel log once, for doctor's kernel-log check and the Xid series alike") {
  FixtureRoot root;
  workstation_numbered(root, {128, 129, 130});
  FakeTools fakes;
  // No /dev/kmsg in the root: the journal is read, through the root's journalctl, which hands
  // over to the recording fake first on PATH.
  root.write("/usr/bin/journalctl", "#!/bin/sh\nexec journalctl \"$@\"\n");
  fs::permissions(root.host("/usr/bin/journalctl"), fs::perms::owner_all);
  const auto scrape = run_tool({"metrics", "--root", root.str()}, "", fakes.env());
  INFO(scrape.err);
  REQUIRE(scrape.exit_code == 0);
  CHECK_THAT(scrape.out, Catch::Contains("rediacc_gpu_kernel_log_readable 1\n"));
  const auto calls = fakes.calls();
  INFO(Catch::rangeToString(calls));
  CHECK(std::count_if(calls.begin(), calls.end(), [](const std::string& c) { return c.starts_with("journalctl "); }) ==
        1);
}
