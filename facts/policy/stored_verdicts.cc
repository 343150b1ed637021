#include "facts/policy/stored_verdicts.h"

#include "admission/decide.h"
#include "gate/daemon_containers.h"
#include "gate/live_world.h"

namespace rgpu::facts {

std::vector<RepoStored> stored_verdicts(const RootFs& fs, const Result<grants::GrantSet>& grants,
                                        const PolicyRules& rules, const std::map<std::string, std::string>& hosts) {
  if (hosts.empty()) return {};
  std::vector<RepoStored> out;
  for (const auto& [repo, host] : hosts) {
    auto containers = docker::stored_containers_at(host);
    if (!containers) {
      out.push_back({.repo = repo, .containers = tl::unexpected(containers.error())});
      continue;
    }
    // The repository's plugin's own world, as the plugin assembles it: the stored container read
    // from the daemon as the start will read it, the machine's guarded paths found live, each
    // granted name's spec, review items and hardware now. A world that knows less would pass
    // containers the gate refuses at their next start.
    auto reader = gate::daemon_containers(host, "");
    if (!reader) {
      out.push_back({.repo = repo, .containers = tl::unexpected(reader.error())});
      continue;
    }
    gate::LiveWorld world(fs, repo, host, std::move(*reader));
    const admission::DecideOptions options{.world = world, .policy = rules};
    std::vector<StoredVerdict> judged;
    for (auto& c : *containers) {
      std::optional<std::string> refused;
      if (!grants) {
        refused = grants.error().message;
      } else {
        const auto d = admission::decide(*grants, repo, {"POST", "/containers/" + c.id + "/start", "", ""}, options);
        if (!d.allow) refused = d.msg;
      }
      judged.push_back({.container = std::move(c), .refused = std::move(refused)});
    }
    out.push_back({.repo = repo, .containers = std::move(judged)});
  }
  return out;
}

}  // namespace rgpu::facts
