// Real consumers accept our specs: Debian's podman (the reference Go CDI library inside) runs a
// container with --device rediacc.io/dri=… and rediacc.io/amd=…, and the node is there inside.
// Podman 4.3 reads specs only from /etc/cdi and /var/run/cdi, and the nodes must exist on this
// machine, so the test places both there and removes what it placed.

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "tests/support/fixture_root.h"
#include "tests/support/machine_builder.h"
#include "tests/support/run_binary.h"

namespace fs = std::filesystem;
using namespace rgpu::test;

namespace {

constexpr unsigned kRenderMinor = 200;  // renderD200: far above what a test machine's GPUs use

// Things placed on the real machine for the test, removed in reverse order at the end.
class HostPlacements {
 public:
  ~HostPlacements() {
    for (auto it = placed_.rbegin(); it != placed_.rend(); ++it) {
      std::error_code ec;
      fs::remove(*it, ec);
    }
  }
  void node(const fs::path& path, unsigned major, unsigned minor) {
    if (fs::exists(path)) return;  // a real device of this machine: use it, never remove it
    for (auto dir = path.parent_path(); !fs::exists(dir); dir = dir.parent_path()) placed_.insert(placed_.begin(), dir);
    fs::create_directories(path.parent_path());
    REQUIRE(::mknod(path.c_str(), S_IFCHR | 0666, ::makedev(major, minor)) == 0);
    placed_.push_back(path);
  }
  void copy(const fs::path& from, const fs::path& to) {
    REQUIRE_FALSE(fs::exists(to));
    if (!fs::exists(to.parent_path())) {
      fs::create_directories(to.parent_path());
      placed_.push_back(to.parent_path());
    }
    fs::copy_file(from, to);
    placed_.push_back(to);
  }

 private:
  std::vector<fs::path> placed_;
};

struct DeviceNumbers {
  unsigned major, minor;
};

DeviceNumbers host_kfd() {
  struct stat st {};
  if (::stat("/dev/kfd", &st) == 0 && S_ISCHR(st.st_mode)) return {::major(st.st_rdev), ::minor(st.st_rdev)};
  return {234, 0};
}

// A podman with its own storage, network configuration, state and no event log, running a
// directory rather than an image, so the test leaves the machine as it was (otherwise podman
// makes /etc/cni/net.d/cni.lock and /var/lib/containers/cache on first use).
class Podman {
 public:
  Podman() {
    require_program("/usr/bin/podman");
    require_program("/usr/sbin/runc");
    fs::create_directories(dir_.host("/rootfs/bin"));
    fs::copy_file("/bin/busybox", dir_.host("/rootfs/bin/busybox"));
    for (const char* tool : {"sh", "stat", "ls"}) fs::create_symlink("busybox", dir_.host("/rootfs/bin") / tool);
  }
  RunResult run(std::vector<std::string> args) {
    // crun refuses this machine's hybrid cgroups; runc does not.
    std::vector<std::string> all = {"--root",
                                    dir_.host("/storage").string(),
                                    "--runroot",
                                    dir_.host("/run").string(),
                                    "--storage-driver",
                                    "vfs",
                                    "--runtime",
                                    "/usr/sbin/runc",
                                    "--network-config-dir",
                                    dir_.host("/networks").string(),
                                    "--tmpdir",
                                    dir_.host("/tmp").string(),
                                    "--events-backend",
                                    "none"};
    all.insert(all.end(), args.begin(), args.end());
    return run_program("/usr/bin/podman", all);
  }
  RunResult in_container(const std::string& device, const std::string& command) {
    return run({"run", "--rm", "--network", "none", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024",
                "--device", device, "--rootfs", dir_.host("/rootfs").string(), "sh", "-c", command});
  }

 private:
  FixtureRoot dir_;
};

}  // namespace

TEST_CASE("e2e: podman runs containers with our rediacc.io/dri and rediacc.io/amd devices", "[e2e]") {
  const auto kfd = host_kfd();
  FixtureRoot root;
  MachineBuilder m(root);
  m.pci({"0000:43:00.0", 0x1002, 0x740f, 0x038000, "amdgpu", 9, kRenderMinor});
  root.char_node("/dev/kfd", kfd.major, kfd.minor);
  m.kfd_gpu_node({1, 0, 0x4300, kRenderMinor, "42", 0});
  auto generated = run_tool({"cdi", "generate", "--root", root.str()});
  INFO(generated.err);
  REQUIRE(generated.exit_code == 0);

  HostPlacements host;
  host.node("/dev/dri/renderD200", 226, kRenderMinor);
  host.node("/dev/kfd", kfd.major, kfd.minor);
  for (const char* spec : {"rediacc.io-dri.json", "rediacc.io-amd.json"}) {
    host.copy(root.host(std::string("/etc/cdi/") + spec), fs::path("/var/run/cdi") / spec);
  }
  Podman podman;
  char expected_render[32], expected_kfd[32];
  std::snprintf(expected_render, sizeof expected_render, "%x:%x", 226u, kRenderMinor);
  std::snprintf(expected_kfd, sizeof expected_kfd, "%x:%x", kfd.major, kfd.minor);

  auto dri = podman.in_container("rediacc.io/dri=renderD200", "stat -c '%F %t:%T' /dev/dri/renderD200");
  INFO(dri.err);
  REQUIRE(dri.exit_code == 0);
  CHECK(dri.out == std::string("character special file ") + expected_render + "\n");

  auto amd = podman.in_container("rediacc.io/amd=gpu0", "stat -c '%t:%T' /dev/kfd /dev/dri/renderD200");
  INFO(amd.err);
  REQUIRE(amd.exit_code == 0);
  CHECK(amd.out == std::string(expected_kfd) + "\n" + expected_render + "\n");

  auto missing = podman.in_container("rediacc.io/dri=renderD199", "true");
  CHECK(missing.exit_code != 0);
  CHECK_THAT(missing.err, Catch::Contains("rediacc.io/dri=renderD199"));
}
