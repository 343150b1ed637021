// The daemons' answers of one doctor or metrics run: each reachable daemon asked once.

#include "facts/daemon_answers.h"

#include <set>

#include "docker/client.h"

namespace rgpu::facts {
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

std::vector<DaemonAnswer> ask_daemons(const RootFs& fs, const std::vector<docker::RunningDaemon>& daemons,
                                      const std::map<std::string, std::string>& repo_hosts,
                                      const std::vector<std::pair<std::string, std::string>>& also) {
  std::vector<DaemonAnswer> out;
  std::set<std::string> asked, repos;
  const auto ask = [&](const std::string& label, bool rootless, const std::string& address, const std::string& pid,
                       const std::string& repo) {
    if (!asked.insert(address).second) return;
    DaemonAnswer a{label, rootless, pid, get(address, "/info"), get(address, "/version"), repo};
    if (!a.info.is_null() || !a.version.is_null()) out.push_back(std::move(a));
  };
  for (const auto& d : daemons) {
    const auto address = docker::daemon_address(fs, d);
    const auto repo = docker::plugin_repo(fs, d);
    if (!address) continue;
    if (repo) repos.insert(*repo);
    ask("dockerd " + d.pid + (repo ? " of repository " + *repo : ""), !d.root_user, *address, d.pid, repo.value_or(""));
  }
  // Repository daemons that may run outside this root's /proc, as their plugins reach them.
  for (const auto& [repo, address] : repo_hosts) {
    if (!repos.count(repo)) ask("the daemon of repository " + repo, false, address, "", repo);
  }
  for (const auto& [label, address] : also) ask(label, false, address, "", "");
  return out;
}

}  // namespace rgpu::facts
