// A kernel update whose GPU driver module DKMS did not build (issue: "when the NVIDIA or AMD module
// is missing for the running kernel, doctor's first failing layer is the host driver, naming the
// kernel and the module, not a CDI or grant problem further down").

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using nlohmann::json;

TEST_CASE("kernel update: a driver not built for the running kernel is the host driver's failure, naming both") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  // Booted into a new kernel: the NVIDIA module did not load, and DKMS built none for it.
  std::filesystem::remove(root.host("/proc/driver/nvidia/version"));
  root.write("/proc/sys/kernel/osrelease", "6.1.0-28-amd64\n");
  root.write("/lib/modules/6.1.0-28-amd64/modules.dep",
             "kernel/drivers/gpu/drm/drm.ko.xz:\nkernel/drivers/net/ethernet/intel/e1000e/e1000e.ko.xz:\n");
  FakeTools fakes;
  auto doctor = [&] {
    const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
    INFO(r.err);
    return json::parse(r.out);
  };
  auto doc = doctor();
  auto c = check_of(doc, "nvidia-driver");
  INFO(c.dump(2));
  CHECK(c["status"] == "fail");
  CHECK_THAT(c["observed"].get<std::string>(),
             Catch::Contains("no NVIDIA module for the running kernel 6.1.0-28-amd64"));
  CHECK_THAT(c["decision"].get<std::string>(),
             Catch::Contains("linux-headers-6.1.0-28-amd64") && Catch::Contains("dkms autoinstall"));
  CHECK(doc["summary"]["first_failing_layer"] == 1);

  // Built (Debian names it nvidia-current) but not loaded: the plain "not loaded" again.
  root.write("/lib/modules/6.1.0-28-amd64/modules.dep",
             "updates/dkms/nvidia-current.ko.xz: kernel/drivers/gpu/drm/drm.ko.xz\n");
  c = check_of(doctor(), "nvidia-driver");
  CHECK(c["status"] == "fail");
  CHECK_THAT(c["observed"].get<std::string>(), Catch::Contains("/proc/driver/nvidia/version is missing"));
}
