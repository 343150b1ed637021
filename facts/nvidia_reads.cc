#include "facts/nvidia_reads.h"

#include <sstream>
#include <utility>

#include "core/machine_paths.h"
#include "core/machine_program.h"
#include "facts/facts.h"
#include "facts/package_database.h"
#include "installers/nvidia_toolkit.h"
#include "probe/hardware_identity.h"

namespace rgpu::facts {
namespace {

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
    // The toolkit as setup sees it, so setup's "already installed" and doctor never disagree.
    r.toolkit_version = installed_version(fs, runner, dpkg_status, installers::kToolkitPackage);
    r.spec_nodes = spec_nodes(fs, specs);
  }
  r.nvidia_ctk = machine_program(fs, "nvidia-ctk");
  r.spec_text = fs.read_optional(paths::kNvidiaSpec).value_or(std::nullopt);
  r.var_run_spec = fs.kind("/var/run/cdi/nvidia.yaml") == NodeKind::file;
  if (r.nvidia_ctk) r.refresh = read_refresh(fs);
  return r;
}

}  // namespace rgpu::facts
