#pragma once
// What the checks of the chain from the driver to a container's devices (doctor's layers 1 to 4)
// read of the machine beyond the probe: kernel modules and device nodes, the NVIDIA toolkit and
// spec (nvidia_reads.h), Docker's configuration and spec directories (docker_reads.h), dpkg's
// status, and our own specs on disk against those the probe made now would generate.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cdi/char_links.h"
#include "cdi/spec_index.h"
#include "core/command_runner.h"
#include "core/root_fs.h"
#include "docker/cgroup_record.h"
#include "docker/running_daemons.h"
#include "facts/daemon_answers.h"
#include "facts/docker_reads.h"
#include "facts/installed_docker.h"
#include "facts/nvidia_reads.h"
#include "probe/inventory.h"

namespace rgpu::facts {

/// What the chain's reads start from: the machine, and what the run already gathered.
struct ChainSources {
  const RootFs& fs;
  CommandRunner& runner;  ///< asks an rpm family's package database for the toolkit and Docker
  const probe::Inventory& fresh;
  const cdi::SpecIndex& specs;
  const std::vector<docker::RunningDaemon>& daemons;
  const std::vector<DaemonAnswer>& answers;
};

/// The host's kernel modules and the device nodes containers are given (layers 1 and 2).
struct HostReads {
  bool nouveau_module = false;  ///< /sys/module/nouveau is a directory
  bool amdgpu_module = false;   ///< /sys/module/amdgpu is a directory
  bool wsl_kernel = false;      ///< the kernel's release is a WSL2 one (probe::wsl_kernel)
  bool dxg = false;             ///< something is at /dev/dxg
  /// SELinux is enforcing, and the value of each boolean a GPU kind needs (device_booleans), by
  /// name: absent when the loaded policy has no such boolean.
  bool selinux_enforcing = false;
  std::map<std::string, std::optional<bool>> selinux_booleans = {};
  /// Which of the nodes the checks look at (each GPU's and partition's nodes the probe found,
  /// /dev/nvidiactl and the NVIDIA control nodes, /dev/kfd, /dev/dxg) are character devices.
  std::set<std::string> char_devices = {};
  /// The running kernel's release (/proc/sys/kernel/osrelease); empty when it cannot be read.
  std::string kernel_release = "";
  /// The modules the running kernel's modules.dep lists, by name ("nvidia-current" for
  /// updates/dkms/nvidia-current.ko.xz); absent when it cannot be read. After a kernel update
  /// that DKMS did not build the driver for, the GPU's module is not among them.
  std::optional<std::set<std::string>> kernel_modules = std::nullopt;
  /// The /dev/char link of each character node the specs map (cdi::char_links).
  std::vector<cdi::CharLink> char_links = {};
  /// /sys/fs/cgroup is the unified hierarchy (cgroup v2): devices are then allowed by a BPF
  /// program that systemd builds from /dev/char links for the systemd cgroup driver (cdi/char_links.h).
  bool cgroup_v2 = false;
  /// The cgroup mode and repository daemons' drivers as setup last recorded them
  /// (state::kCgroupRecord); absent when none was recorded or it does not parse.
  std::optional<docker::CgroupRecord> cgroup_record = std::nullopt;
};

/// One of our specs (rediacc.io/dri, rediacc.io/amd).
struct OurSpec {
  std::string path;  ///< its machine path in /etc/cdi
  /// The text generated now from the probe's inventory (cdi::generate_specs); absent when it has
  /// no device, so no file is wanted.
  std::optional<std::string> generated = std::nullopt;
  std::optional<std::string> on_disk = std::nullopt;  ///< the file's text; absent when it cannot be read
};

struct ChainReads {
  HostReads host = {};
  NvidiaReads nvidia = {};
  DockerReads docker = {};
  /// installers::kDpkgStatus's text, where the Docker and toolkit packages' versions are read; absent when unread.
  std::optional<std::string> dpkg_status = std::nullopt;
  /// The machine's Docker, from its package database or a running daemon (read_installed_docker).
  std::optional<InstalledDocker> installed_docker = std::nullopt;
  std::vector<OurSpec> our_specs = {};  ///< rediacc.io/dri, then rediacc.io/amd
};

/// Every read of layers 1 to 4's checks, each once.
ChainReads read_chain(const ChainSources& sources);

}  // namespace rgpu::facts
