#include "facts/chain_reads.h"

#include "core/selinux_devices.h"

#include "cdi-gen/generate.h"
#include "cdi-gen/spec_writer.h"
#include "installers/dpkg_status.h"
#include "probe/probe.h"

namespace rgpu::facts {
namespace {

HostReads read_host(const RootFs& fs, const probe::Inventory& fresh) {
  HostReads r;
  r.nouveau_module = fs.kind("/sys/module/nouveau") == NodeKind::directory;
  r.amdgpu_module = fs.kind("/sys/module/amdgpu") == NodeKind::directory;
  r.wsl_kernel = probe::wsl_kernel(fs);
  r.dxg = fs.kind("/dev/dxg") != NodeKind::missing;
  std::vector<std::string> nodes = {"/dev/nvidiactl", "/dev/kfd", "/dev/dxg"};
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
  r.host = read_host(s.fs, s.fresh);
  if (auto status = s.fs.read_optional(installers::kDpkgStatus); status && *status) r.dpkg_status = std::move(**status);
  r.nvidia = read_nvidia(s.fs, s.runner, s.fresh, s.specs, r.dpkg_status);
  r.docker = read_docker(s.fs, s.daemons, s.answers);
  r.installed_docker = read_installed_docker(s.fs, s.runner, r.dpkg_status, s.answers);
  r.our_specs = read_our_specs(s.fs, s.fresh);
  return r;
}

}  // namespace rgpu::facts
