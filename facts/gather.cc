#include "facts/gather.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "docker/client.h"
#include "grants/store.h"
#include "probe/inventory_file.h"
#include "probe/nvidia_backend.h"
#include "usage/grant_use.h"

namespace rgpu::facts {
namespace {

// The daemon named with --docker-host is asked too: layer 3 can then tell a Docker without CDI.
std::vector<std::pair<std::string, std::string>> named_daemon(const std::string& docker_host) {
  if (docker_host.empty()) return {};
  auto socket = docker::docker_socket(docker_host);
  if (!socket) return {};
  return {{"the daemon at " + docker_host, *socket}};
}

// Who uses the GPUs, what that says of the grants, and the record of grant use as this look
// leaves it (kept in memory: the record's owner writes it).
void look_at_usage(const RootFs& fs, Facts& f, const usage::UsageOptions& options,
                   std::chrono::system_clock::time_point now) {
  f.usage = usage::gpu_usage(fs, f.fresh, f.nvml, f.repo_daemon_hosts, options);
  if (!f.grants) return;
  f.use = usage::judge_use(fs, *f.grants, f.specs, *f.usage);
  auto last = usage::read_last_use(fs);
  if (!last) {
    f.last_use = tl::unexpected(last.error());
    return;
  }
  auto record = usage::updated_use(std::move(*last), *f.use, now);
  f.last_use = std::move(record.last);
  f.last_use_changed = record.changed;
}

}  // namespace

bool has_vendor(const probe::Inventory& inventory, probe::Vendor vendor) {
  return std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                     [vendor](const auto& g) { return g.vendor == vendor; });
}

std::optional<probe::NvmlReport> ask_nvml(const RootFs& fs, const probe::Inventory& inventory,
                                          probe::NvidiaReadings& probed) {
  if (probed.asked) return std::move(probed.nvml);
  if (!has_vendor(inventory, probe::Vendor::nvidia)) return std::nullopt;
  if (auto nvml = probe::query_nvml(fs, probe::native_library_dirs(), probe::kNativeNvmlRepair); nvml && *nvml)
    return std::move(**nvml);
  return std::nullopt;
}

Facts gather(Sources s) {
  auto recorded = probe::read_inventory(s.fs);
  Facts f{.fresh = std::move(s.probe.inventory),
          .recorded = recorded && *recorded ? std::optional((*recorded)->inventory) : std::nullopt,
          .recorded_error = recorded ? std::nullopt : std::optional(recorded.error().message),
          .specs = cdi::read_spec_index(s.fs),
          .grants = grants::load_grants(s.fs),
          .daemons = docker::running_docker_daemons(s.fs),
          .probe_warnings = std::move(s.probe.warnings)};
  f.repo_daemon_hosts = docker::repo_daemon_addresses(s.fs, f.daemons);
  f.nvml_failure = s.probe.nvidia.nvml_failure;
  f.nvml = ask_nvml(s.fs, f.fresh, s.probe.nvidia);
  // Next to NVML's answer, which is the probe's: the /proc scan and NVML's process list then see
  // the same moment, before the daemons' questions and the programs run below (seconds each).
  if (s.usage) look_at_usage(s.fs, f, *s.usage, s.now);
  f.answers = ask_daemons(s.fs, f.daemons, f.repo_daemon_hosts, named_daemon(s.docker_host));
  // The loaded module's own word: the version its user-space libraries in a spec must match.
  f.nvidia_module = s.probe.nvidia.asked ? s.probe.nvidia.module_version : probe::nvidia_module_version(s.fs);
  if (f.nvidia_module) f.containers_on_other_driver = containers_on_other_driver(s.fs, *f.nvidia_module);
  f.nvidia_driver_gpus = probe::nvidia_driver_gpus(s.fs);
  f.kernel_log = read_kernel_log(s.fs, &s.runner);
  f.presence = gpu_presence({.fs = s.fs,
                             .fresh = f.fresh,
                             .recorded = f.recorded,
                             .nvml = f.nvml,
                             .nvidia_driver_gpus = f.nvidia_driver_gpus});
  f.ras_counts = amd_ras_counts(s.fs, f.fresh);
  // After the kernel log's journalctl, as the toolkit check ran rpm after it.
  f.chain = read_chain(
      {.fs = s.fs, .runner = s.runner, .fresh = f.fresh, .specs = f.specs, .daemons = f.daemons, .answers = f.answers});
  f.policy = read_policy({.fs = s.fs,
                          .runner = s.runner,
                          .daemons = f.daemons,
                          .answers = f.answers,
                          .specs = f.specs,
                          .grants = f.grants,
                          .daemon_configs = f.chain.docker.configs,
                          .repo_daemon_hosts = f.repo_daemon_hosts});
  // grants::moved_grants, from each name's hardware as the policy reads read it once.
  if (f.grants) {
    for (const auto& g : f.grants->grants) {
      if (auto move = grants::grant_move(g, f.policy.grant_reach.at(g.device)))
        f.grant_moves.push_back(std::move(*move));
    }
  }
  f.canaries = canary::read_canary_records(s.fs);
  return f;
}

}  // namespace rgpu::facts
