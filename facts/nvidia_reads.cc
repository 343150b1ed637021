#include "facts/nvidia_reads.h"

#include <sstream>
#include <utility>

#include "core/machine_paths.h"
#include "core/machine_program.h"
#include "facts/facts.h"
#include "installers/dpkg_status.h"
#include "installers/nvidia_toolkit.h"
#include "installers/os_release.h"
#include "installers/package_manager.h"
#include "probe/hardware_identity.h"

namespace rgpu::facts {
namespace {

// The toolkit as setup sees it: the machine's own package database (dpkg's status file, or rpm
// --root), so setup's "already installed" and doctor never disagree.
std::optional<std::string> installed_toolkit(const RootFs& fs, CommandRunner& runner,
                                             const std::optional<std::string>& dpkg_status) {
  const auto os_text = fs.read_optional("/etc/os-release");
  std::optional<installers::PackageFamily> family;
  if (os_text && *os_text) {
    if (auto known = installers::package_family(installers::parse_os_release(**os_text), "/etc/os-release"))
      family = *known;
  }
  if (!family || *family == installers::PackageFamily::apt) {
    if (!dpkg_status) return std::nullopt;
    return installers::dpkg_installed_version_in(*dpkg_status, installers::kToolkitPackage);
  }
  const auto pm = installers::make_package_manager(*family, fs.root().string());
  return installers::installed_toolkit(fs, *pm, runner);
}

// A node the spec gives no number is whatever the host path is: when that is missing, the
// runtime has nothing to create, and the device-nodes check reports it.
std::vector<NvidiaSpecNode> spec_nodes(const RootFs& fs, const cdi::SpecIndex& specs) {
  const probe::HardwareReader reader(fs);
  std::vector<NvidiaSpecNode> out;
  for (const auto& d : specs.devices) {
    if (d.spec_path != paths::kNvidiaSpec) continue;
    for (const auto& node : d.nodes) {
      if (node.major == 0 && !fs.lstat(node.path)) continue;
      auto ids = reader.identities(std::vector<probe::NodeRef>{node});
      out.push_back({d.qualified_name, node.path, ids ? std::optional(std::move(*ids)) : std::nullopt});
    }
  }
  return out;
}

// The drop-in names an environment file; that file is what says where the refresh writes.
RefreshWiring read_refresh(const RootFs& fs) {
  RefreshWiring r;
  const auto unit = fs.read_optional(kRefreshDropin);
  if (!unit || !*unit) return r;
  r.dropin = true;
  std::istringstream lines(**unit);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("EnvironmentFile=")) r.env_file = line.substr(16);
  }
  if (!r.env_file.empty() && r.env_file.front() == '-') r.env_file.erase(0, 1);
  if (!r.env_file.empty()) r.env = fs.read_optional(r.env_file).value_or(std::nullopt);
  return r;
}

}  // namespace

NvidiaReads read_nvidia(const RootFs& fs, CommandRunner& runner, const probe::Inventory& fresh,
                        const cdi::SpecIndex& specs, const std::optional<std::string>& dpkg_status) {
  NvidiaReads r;
  // The package database is asked (rpm runs) only where the toolkit check looks: with an NVIDIA GPU.
  if (has_vendor(fresh, probe::Vendor::nvidia)) {
    r.toolkit_version = installed_toolkit(fs, runner, dpkg_status);
    r.spec_nodes = spec_nodes(fs, specs);
  }
  r.nvidia_ctk = machine_program(fs, "nvidia-ctk");
  r.spec_text = fs.read_optional(paths::kNvidiaSpec).value_or(std::nullopt);
  r.var_run_spec = fs.kind("/var/run/cdi/nvidia.yaml") == NodeKind::file;
  if (r.nvidia_ctk) r.refresh = read_refresh(fs);
  return r;
}

}  // namespace rgpu::facts
