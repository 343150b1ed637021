#include "doctor/policy/repo_daemon_view.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "cdi-gen/repo_views.h"
#include "docker/client.h"

namespace rgpu::doctor {

RepoDaemonView repo_daemon_view(const Facts& f, const docker::RunningDaemon& d, const std::string& repo,
                                const std::map<std::string, std::string>& hosts) {
  RepoDaemonView view;
  nlohmann::json info;
  if (const auto host = hosts.find(repo); host != hosts.end()) {
    auto reply = docker::docker_call_at(host->second, "GET", "/info", std::chrono::seconds(5));
    view.answered = reply && reply->status == 200;
    if (view.answered) info = nlohmann::json::parse(reply->body, nullptr, false);
  }
  view.dirs = docker::spec_dirs(info, docker::daemon_config(f.fs, d).value_or(nlohmann::json()));
  const RootFs daemon_root(f.fs.host_path("/proc/" + d.pid + "/root"));
  view.verdict = docker::reads_only_view(view.dirs, daemon_root, f.fs, cdi::view_dir(repo));
  return view;
}

}  // namespace rgpu::doctor
