#include "facts/policy/repo_daemon_view.h"

#include <chrono>
#include <filesystem>

#include "cdi/repo_views.h"
#include "cdi/spec_index.h"
#include "docker/client.h"

namespace rgpu::facts {

RepoDaemonView repo_daemon_view(const RootFs& fs, const docker::RunningDaemon& d,
                                const std::optional<nlohmann::json>& config, const std::string& repo,
                                const std::map<std::string, std::string>& hosts) {
  RepoDaemonView view;
  nlohmann::json info;
  if (const auto host = hosts.find(repo); host != hosts.end()) {
    auto reply = docker::docker_call_at(host->second, "GET", "/info", std::chrono::seconds(5));
    view.answered = reply && reply->status == 200;
    if (view.answered) info = nlohmann::json::parse(reply->body, nullptr, false);
  }
  view.dirs = docker::spec_dirs(info, config.value_or(nlohmann::json()));
  const auto root = fs.host_path("/proc/" + d.pid + "/root");
  const RootFs daemon_root(root);
  view.verdict = docker::reads_only_view(view.dirs, daemon_root, fs, cdi::view_dir(repo));
  for (const auto& dir : view.dirs.dirs) {
    if (view.names.contains(dir)) continue;
    auto& names = view.names[dir];
    for (const auto& device : cdi::read_spec_dir(root / std::filesystem::path(dir).relative_path()).devices)
      names.push_back(device.qualified_name);
  }
  return view;
}

}  // namespace rgpu::facts
