#include "facts/chain_reads.h"

#include "core/selinux_devices.h"

#include <algorithm>
#include <string_view>

#include "cdi-gen/generate.h"
#include "cdi-gen/spec_writer.h"
#include "core/state_paths.h"
#include "installers/dpkg_status.h"
#include "installers/nvidia_toolkit.h"
#include "probe/probe.h"

namespace rgpu::facts {
namespace {

// The module names modules.dep (or modules.builtin) lists: "kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz: ..."
// -> "amdgpu".
std::set<std::string> listed_modules(const std::string& dep) {
  std::set<std::string> out;
  size_t at = 0;
  while (at < dep.size()) {
    const size_t end = std::min(dep.find('\n', at), dep.size());
    const std::string_view line(dep.data() + at, end - at);
    at = end + 1;
    auto path = line.substr(0, line.find(':'));  // modules.builtin's lines are the path alone
    path = path.substr(path.rfind('/') == std::string_view::npos ? 0 : path.rfind('/') + 1);
    const auto ko = path.find(".ko");
    if (ko != std::string_view::npos) out.emplace(path.substr(0, ko));
  }
  return out;
}

void read_kernel_modules(const RootFs& fs, HostReads& r) {
  auto release = fs.read_optional("/proc/sys/kernel/osrelease");
  if (!release || !*release || (*release)->empty()) return;
  r.kernel_release = **release;
  const std::string dir = "/lib/modules/" + r.kernel_release;
  auto dep = fs.read_file(dir + "/modules.dep");
  if (!dep) return;
  r.kernel_modules = listed_modules(*dep);
  // A driver built into the kernel is no module, and is there all the same.
  if (auto builtin = fs.read_file(dir + "/modules.builtin")) r.kernel_modules->merge(listed_modules(*builtin));
}

HostReads read_host(const RootFs& fs, const probe::Inventory& fresh, const cdi::SpecIndex& specs) {
  HostReads r;
  r.char_links = cdi::char_links(fs, specs);
  r.cgroup_v2 = docker::host_cgroup_v2(fs);
  if (auto text = fs.read_file(state::kCgroupRecord)) r.cgroup_record = docker::parse_cgroup_record(*text);
  read_kernel_modules(fs, r);
  r.nouveau_module = fs.kind("/sys/module/nouveau") == NodeKind::directory;
  r.amdgpu_module = fs.kind("/sys/module/amdgpu") == NodeKind::directory;
  r.wsl_kernel = probe::wsl_kernel(fs);
  r.dxg = fs.kind("/dev/dxg") != NodeKind::missing;
  // The NVIDIA driver's control nodes too: it makes them only at first use.
  std::vector<std::string> nodes = {"/dev/nvidiactl", "/dev/kfd", "/dev/dxg"};
  nodes.insert(nodes.end(), installers::kNvidiaControlNodes.begin(), installers::kNvidiaControlNodes.end());
  for (const auto& g : fresh.gpus) {
    nodes.insert(nodes.end(), g.device_nodes.begin(), g.device_nodes.end());
    for (const auto& p : g.partitions) nodes.insert(nodes.end(), p.device_nodes.begin(), p.device_nodes.end());
  }
  for (const auto& node : nodes) {
    if (fs.char_device(node)) r.char_devices.insert(node);
  }
  r.selinux_enforcing = selinux_enforcing(fs);
  if (r.selinux_enforcing) {
    for (const auto& b : device_booleans(true, true)) r.selinux_booleans[b.name] = selinux_boolean(fs, b.name);
  }
  return r;
}

std::vector<OurSpec> read_our_specs(const RootFs& fs, const probe::Inventory& fresh) {
  const auto generated = cdi::generate_specs(fs, fresh);
  std::vector<OurSpec> out;
  for (const auto* spec : {&generated.dri, &generated.amd}) {
    OurSpec ours{.path = cdi::spec_path(*spec)};
    if (!spec->devices.empty()) ours.generated = cdi::spec_text(*spec);
    if (auto text = fs.read_file(ours.path)) ours.on_disk = std::move(*text);
    out.push_back(std::move(ours));
  }
  return out;
}

}  // namespace

ChainReads read_chain(const ChainSources& s) {
  ChainReads r;
  r.host = read_host(s.fs, s.fresh, s.specs);
  if (auto status = s.fs.read_optional(installers::kDpkgStatus); status && *status) r.dpkg_status = std::move(**status);
  r.nvidia = read_nvidia(s.fs, s.runner, s.fresh, s.specs, r.dpkg_status);
  r.docker = read_docker(s.fs, s.daemons, s.answers);
  r.installed_docker = read_installed_docker(s.fs, s.runner, r.dpkg_status, s.answers);
  r.our_specs = read_our_specs(s.fs, s.fresh);
  return r;
}

}  // namespace rgpu::facts
