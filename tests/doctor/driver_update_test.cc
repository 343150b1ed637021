// A driver update, in place and then its module reloaded (issue: "doctor names the running
// containers still holding the old driver's libraries (Driver/library version mismatch inside)
// and says they need a restart").

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "facts/driver_libraries.h"
#include "probe/sysfs_parsers.h"
#include "tests/support/doctor_json.h"
#include "tests/support/fake_tools.h"
#include "tests/support/fixture_root.h"
#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

using namespace rgpu::test;
using nlohmann::json;

namespace {

const std::string kOld = std::string(64, 'a');
const std::string kNew = std::string(64, 'b');

// A container's first process as /proc shows it: its cgroup, and the driver library its spec
// bind-mounted when it started.
void container_process(const FixtureRoot& root, const std::string& pid, const std::string& id,
                       const std::string& version) {
  root.write("/proc/" + pid + "/cgroup", "0::/system.slice/docker-" + id + ".scope\n");
  const std::string lib = "/usr/lib/x86_64-linux-gnu/libcuda.so." + version;
  root.write(
      "/proc/" + pid + "/mountinfo",
      "1200 1 0:60 / / rw,relatime - overlay overlay rw\n"
      "1230 1200 254:1 " +
          lib + " " + lib +
          " ro,nosuid,nodev,relatime - ext4 /dev/vda1 rw\n"
          "1231 1200 254:1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1 ro - ext4 "
          "/dev/vda1 rw\n");
}

}  // namespace

TEST_CASE("driver update: a driver library's version is read from its file name, the soname link is none") {
  using rgpu::facts::driver_library_version;
  CHECK(driver_library_version("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14") == "550.54.14");
  CHECK(driver_library_version("/usr/lib64/libnvidia-ml.so.570.86.15") == "570.86.15");
  CHECK_FALSE(driver_library_version("/usr/lib/x86_64-linux-gnu/libcuda.so.1"));
  CHECK_FALSE(driver_library_version("/usr/lib/x86_64-linux-gnu/libcudart.so.12.4.99"));
  CHECK_FALSE(driver_library_version("/usr/lib/x86_64-linux-gnu/libcuda.so.550.x"));
}

TEST_CASE("driver update: doctor names each container started before the module changed, and says to restart it") {
  FixtureRoot root;
  two_nvidia_datacenter(root, true);
  const auto loaded = rgpu::probe::parse_nvidia_version(root.read("/proc/driver/nvidia/version"));
  REQUIRE(loaded);
  FakeTools fakes;
  const auto check = [&] {
    const auto r = run_tool({"doctor", "-o", "json", "--root", root.str()}, "", fakes.env());
    INFO(r.err);
    return check_of(json::parse(r.out), "container-driver");
  };
  container_process(root, "9300", kNew, *loaded);
  auto c = check();
  INFO(c.dump(2));
  CHECK(c["status"] == "ok");
  // Started before the update: the old driver's libcuda, bind-mounted when it started.
  container_process(root, "9200", kOld, "535.104.05");
  c = check();
  INFO(c.dump(2));
  CHECK(c["status"] == "fail");
  CHECK(c["layer"] == 3);
  CHECK_THAT(c["observed"].get<std::string>(),
             Catch::Contains("container " + kOld.substr(0, 12) + " (process 9200) has 535.104.05") &&
                 !Catch::Contains(kNew.substr(0, 12)));
  CHECK_THAT(c["meaning"].get<std::string>(), Catch::Contains("Driver/library version mismatch"));
  CHECK_THAT(c["decision"].get<std::string>(), Catch::Contains("restart those containers"));
}
