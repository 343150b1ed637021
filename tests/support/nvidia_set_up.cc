// Built into the test binary, not the support library: it asserts with Catch.

#include "tests/support/nvidia_set_up.h"

#include <catch2/catch.hpp>

#include "tests/support/machines.h"
#include "tests/support/run_binary.h"

namespace rgpu::test {

void healthy_nvidia(const FixtureRoot& root) {
  two_nvidia_datacenter(root, true);
  root.write("/usr/bin/nvidia-ctk", "#!/bin/sh\n");
  root.write("/etc/systemd/system/nvidia-cdi-refresh.service.d/50-rediacc-gpu.conf",
             "[Service]\nEnvironmentFile=/etc/rediacc/gpu/nvidia-cdi-refresh.env\n");
  root.write("/etc/rediacc/gpu/nvidia-cdi-refresh.env", "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/etc/cdi/nvidia.yaml\n");
  root.write("/run/nvidia-persistenced/socket", "");
  root.write("/sys/fs/cgroup/cgroup.controllers", "cpu io memory pids\n");
  REQUIRE(run_tool({"cdi", "generate", "--root", root.str()}).exit_code == 0);
  REQUIRE(run_tool({"probe", "--root", root.str()}).exit_code == 0);
}

}  // namespace rgpu::test
