// The facts of one doctor, metrics or usage run that are asked rather than read: the daemons'
// answers, NVML asked once, the processes found, and the record of grant use brought up to date.

#include "doctor/facts.h"

#include <algorithm>
#include <set>

#include "docker/client.h"
#include "probe/missing_gpus.h"

namespace rgpu::doctor {
namespace {

nlohmann::json get(const std::string& address, const std::string& target) {
  auto reply = docker::docker_call_at(address, "GET", target, std::chrono::seconds(5));
  if (!reply || reply->status != 200) return nullptr;
  auto doc = nlohmann::json::parse(reply->body, nullptr, false);
  return doc.is_object() ? doc : nlohmann::json();
}

}  // namespace

std::string answer_text(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool has_vendor(const probe::Inventory& inventory, probe::Vendor vendor) {
  return std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                     [vendor](const auto& g) { return g.vendor == vendor; });
}

std::string no_gpu_observed(const Facts& f, probe::Vendor vendor, const std::string& kind) {
  const auto missing = [vendor](const probe::MissingGpu& m) { return m.vendor == vendor; };
  if (f.recorded && (has_vendor(*f.recorded, vendor) ||
                     std::any_of(f.recorded->missing_gpus.begin(), f.recorded->missing_gpus.end(), missing)))
    return "the " + kind + " GPU the inventory recorded is not found now (gpu-present names it)";
  if (vendor == probe::Vendor::nvidia && !probe::nvidia_driver_gpus(f.fs).empty())
    return "the NVIDIA GPU the driver lists is not found now on the PCI bus (gpu-present names it)";
  return "no " + kind + " GPU";
}

void gather_nvml(Facts& f) {
  if (!has_vendor(f.fresh, probe::Vendor::nvidia)) return;
  if (auto nvml = probe::query_nvml(f.fs, probe::native_library_dirs()); nvml && *nvml) f.nvml = std::move(**nvml);
}

void gather_usage(Facts& f, std::chrono::system_clock::time_point now, const usage::UsageOptions& options) {
  f.usage = usage::gpu_usage(f.fs, f.fresh, f.nvml, docker::repo_daemon_addresses(f.fs, f.daemons), options);
  if (!f.grants) return;
  f.use = usage::judge_use(f.fs, *f.grants, f.specs, *f.usage);
  auto last = usage::read_last_use(f.fs);
  if (!last) {
    f.last_use = tl::unexpected(last.error());
    return;
  }
  auto record = usage::updated_use(std::move(*last), *f.use, now);
  MachineFileSink sink(f.fs);
  if (record.changed) {
    if (auto written = usage::write_use_record(sink, record.last); !written) {
      f.last_use = tl::unexpected(written.error());
      return;
    }
  }
  f.last_use = std::move(record.last);
}

std::vector<DaemonAnswer> ask_daemons(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                                      const std::vector<std::pair<std::string, std::string>>& also) {
  std::vector<DaemonAnswer> out;
  std::set<std::string> asked, repos;
  const auto ask = [&](const std::string& label, bool rootless, const std::string& address, const std::string& pid) {
    if (!asked.insert(address).second) return;
    DaemonAnswer a{label, rootless, pid, get(address, "/info"), get(address, "/version")};
    if (!a.info.is_null() || !a.version.is_null()) out.push_back(std::move(a));
  };
  for (const auto& d : daemons) {
    const auto address = docker::daemon_address(fs, d);
    const auto repo = docker::plugin_repo(fs, d);
    if (!address) continue;
    if (repo) repos.insert(*repo);
    ask("dockerd " + d.pid + (repo ? " of repository " + *repo : ""), !d.root_user, *address, d.pid);
  }
  // Repository daemons that may run outside this root's /proc, as their plugins reach them.
  for (const auto& [repo, address] : docker::repo_daemon_addresses(fs, daemons)) {
    if (!repos.count(repo)) ask("the daemon of repository " + repo, false, address, "");
  }
  for (const auto& [label, address] : also) ask(label, false, address, "");
  return out;
}

}  // namespace rgpu::doctor
