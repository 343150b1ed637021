#include "docker/cgroup_record.h"

#include <chrono>
#include <nlohmann/json.hpp>

#include "docker/client.h"
#include "docker/running_daemons.h"

namespace rgpu::docker {

bool host_cgroup_v2(const RootFs& fs) { return fs.kind("/sys/fs/cgroup/cgroup.controllers") == NodeKind::file; }

CgroupRecord cgroups_now(const RootFs& fs) {
  CgroupRecord r;
  r.host_v2 = host_cgroup_v2(fs);
  for (const auto& [repo, address] : repo_daemon_addresses(fs, running_docker_daemons(fs))) {
    auto reply = docker_call_at(address, "GET", "/info", std::chrono::seconds(5));
    if (!reply || reply->status != 200) continue;
    const auto info = nlohmann::json::parse(reply->body, nullptr, false);
    if (info.is_object() && info.contains("CgroupDriver") && info["CgroupDriver"].is_string())
      r.drivers[repo] = info["CgroupDriver"].get<std::string>();
  }
  return r;
}

std::string cgroup_record_text(const CgroupRecord& record) {
  nlohmann::ordered_json doc = {{"schema", 1}, {"cgroup", record.host_v2 ? "v2" : "v1"}, {"drivers", record.drivers}};
  return doc.dump(2) + "\n";
}

std::optional<CgroupRecord> parse_cgroup_record(std::string_view text) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || doc.value("schema", 0) != 1 || !doc.contains("cgroup") || !doc["cgroup"].is_string())
    return std::nullopt;
  CgroupRecord r;
  r.host_v2 = doc["cgroup"] == "v2";
  if (doc.contains("drivers") && doc["drivers"].is_object()) {
    for (const auto& [repo, driver] : doc["drivers"].items()) {
      if (driver.is_string()) r.drivers[repo] = driver.get<std::string>();
    }
  }
  return r;
}

std::string cgroup_mode(bool v2) { return v2 ? "cgroup v2" : "cgroup v1"; }

}  // namespace rgpu::docker
