// Layer 3, the NVIDIA side: the toolkit (installed only to make the NVIDIA spec), the spec it made,
// and the refresh that keeps it current, written where Docker reads it.

#include <algorithm>
#include <regex>
#include <set>
#include <sstream>

#include "core/joined.h"
#include "core/machine_paths.h"
#include "doctor/runtime/runtime_checks.h"
#include "installers/nvidia_toolkit.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::doctor {
namespace {

constexpr CheckMaker kCheck{Layer::runtime};

// The driver versions in the spec's library paths (libcuda.so.550.54.15): the driver it was made for.
std::set<std::string> spec_driver_versions(const std::string& spec) {
  static const std::regex kLib(R"(lib(?:cuda|nvidia-ml)\.so\.(\d+\.\d+(?:\.\d+)?))");
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(spec.begin(), spec.end(), kLib); it != std::sregex_iterator(); ++it) {
    found.insert((*it)[1]);
  }
  return found;
}

// Each node nvidia.yaml maps must reach an NVIDIA GPU now: after a card change that regenerated
// only our specs (the hot-plug rule), a stale nvidia.yaml can map another vendor's render node.
// A node missing from /dev is the device-nodes check's to report; what is there is judged by the
// device number the runtime will create, whatever the path says.
std::optional<Check> nvidia_spec_nodes(const Facts& f) {
  for (const auto& node : f.chain.nvidia.spec_nodes) {
    const auto& ids = node.identities;
    if (ids && std::all_of(ids->begin(), ids->end(), [](const std::string& id) {
          return id.starts_with("GPU-") || id.starts_with("MIG-") || id == "wsl";
        }))
      continue;
    const std::string id = ids ? joined(*ids) : "";
    return kCheck.fail(check_id::kNvidiaSpec,
                       std::string(paths::kNvidiaSpec) + " maps " + node.path + " under " + node.name + ", which " +
                           (ids ? "is " + id + " now, no NVIDIA GPU" : "reaches no GPU now"),
                       "the spec is older than the last change of hardware: a container given that name gets "
                       "another card's node (the gate refuses grants whose hardware moved, not this spec)",
                       "regenerate it: systemctl start nvidia-cdi-refresh.service, or rediacc-gpu setup");
  }
  return std::nullopt;
}
}  // namespace

Check toolkit(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia))
    return kCheck.skip("toolkit", no_gpu_observed(f, probe::Vendor::nvidia, "NVIDIA"));
  const auto& version = f.chain.nvidia.toolkit_version;
  const auto& ctk = f.chain.nvidia.nvidia_ctk;
  const std::string package = installers::kToolkitPackage;
  if (version && !installers::check_toolkit_version(version->substr(0, version->find_first_of("-~")))) {
    return kCheck.fail("toolkit",
                       package + " " + *version + " is installed, below " + installers::kMinimumToolkitVersion,
                       "older toolkits generate specs that miss devices or hooks this product relies on",
                       "run rediacc-gpu setup (it installs " + std::string(installers::kDefaultToolkitVersion) + ")");
  }
  if (ctk) {
    return kCheck
        .ok("toolkit", *ctk + " is installed" + (version ? " (" + *version + ")" : std::string()),
            Evidence(*ctk + (version ? ", the package database" : "")))
        .because("it generates the NVIDIA CDI spec", "");
  }
  if (version) {
    return kCheck.fail(
        "toolkit", package + " " + *version + " is recorded as installed, but nvidia-ctk is not on the machine",
        "nothing can generate or refresh the NVIDIA CDI spec", "reinstall " + package + ", then run rediacc-gpu setup");
  }
  return kCheck.fail("toolkit", "an NVIDIA GPU, but neither " + package + " nor nvidia-ctk is installed",
                     "nothing can generate or refresh the NVIDIA CDI spec",
                     "run rediacc-gpu setup (it installs the toolkit)");
}

Check nvidia_spec(const Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia))
    return kCheck.skip(check_id::kNvidiaSpec, no_gpu_observed(f, probe::Vendor::nvidia, "NVIDIA"));
  const auto& spec = f.chain.nvidia.spec_text;
  if (!spec) {
    return kCheck.fail(check_id::kNvidiaSpec, std::string(paths::kNvidiaSpec) + " is missing",
                       "no nvidia.com/gpu name exists: NVIDIA GPUs cannot be granted or requested",
                       "run rediacc-gpu setup (it generates the spec)");
  }
  const auto versions = spec_driver_versions(*spec);
  const auto& loaded = f.nvidia_module;
  if (loaded && !versions.empty() && !versions.count(*loaded)) {
    return kCheck.fail(
        check_id::kNvidiaSpec,
        std::string(paths::kNvidiaSpec) + " was generated for driver " + *versions.begin() + ", the driver now is " +
            *loaded,
        "drift: containers get the old driver's libraries, which do not match the kernel module (CUDA fails with "
        "a driver/library version mismatch)",
        "run rediacc-gpu setup (it regenerates the spec for the driver now loaded)");
  }
  if (auto nodes = nvidia_spec_nodes(f)) return *nodes;
  if (versions.empty()) {
    return kCheck.warn(check_id::kNvidiaSpec,
                       std::string(paths::kNvidiaSpec) +
                           " maps NVIDIA GPUs' nodes, but names no versioned driver library (libcuda.so.N), so which "
                           "driver it was made for cannot be told",
                       "nvidia-ctk writes those paths: this spec was made otherwise, or by hand",
                       "regenerate it with rediacc-gpu setup");
  }
  return kCheck.ok(check_id::kNvidiaSpec,
                   std::string(paths::kNvidiaSpec) +
                       (loaded ? " names driver " + *loaded + "'s libraries, as loaded,"
                               : " names driver " + *versions.begin() + "'s libraries,") +
                       " and its nodes reach NVIDIA GPUs",
                   Evidence(std::string(paths::kNvidiaSpec) + (loaded ? ", /proc/driver/nvidia/version" : "") +
                            ", each node's device in /sys"));
}

Check shadowing_spec(const Facts& f) {
  if (!f.chain.nvidia.var_run_spec) {
    return kCheck.ok("var-run-cdi", "no /var/run/cdi/nvidia.yaml", Evidence("/var/run/cdi"));
  }
  return kCheck.warn(
      "var-run-cdi", "/var/run/cdi/nvidia.yaml exists",
      "/var/run/cdi takes precedence over /etc/cdi: that spec, not ours, decides what nvidia.com/gpu names reach",
      "run rediacc-gpu setup (it points nvidia-cdi-refresh at /etc/cdi and removes that file)");
}

Check refresh_wired(const Facts& f) {
  if (!f.chain.nvidia.nvidia_ctk) {
    return kCheck.skip("refresh-wired", "the toolkit is not installed");
  }
  const auto& r = f.chain.nvidia.refresh;
  const std::string dropin = facts::kRefreshDropin;
  // The file's last assignment is the one systemd keeps.
  const std::string variable = "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=";
  const std::string wanted = variable + paths::kNvidiaSpec;
  std::string set;
  std::istringstream env_lines(r.env.value_or(""));
  for (std::string line; std::getline(env_lines, line);) {
    if (line.starts_with(variable)) set = line;
  }
  if (set == wanted) {
    return kCheck.ok("refresh-wired", std::string("nvidia-cdi-refresh writes ") + paths::kNvidiaSpec,
                     Evidence(dropin + " and the " + r.env_file + " it names"));
  }
  return kCheck.warn("refresh-wired",
                     !r.dropin            ? "nvidia-cdi-refresh is not redirected to /etc/cdi (no " + dropin + ")"
                     : r.env_file.empty() ? dropin + " names no EnvironmentFile"
                                          : r.env_file + " does not set " + wanted,
                     "the package's refresh writes /var/run/cdi/nvidia.yaml, which shadows ours",
                     "run rediacc-gpu setup");
}

}  // namespace rgpu::doctor
