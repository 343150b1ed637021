#include "facts/policy/stored_verdicts.h"

#include <string_view>

#include "admission/decide.h"
#include "admission/host_paths.h"
#include "admission/machine_world.h"

namespace rgpu::facts {
namespace {

// The machine's paths, and the one container read from its daemon, whatever name asks for it.
class StoredContainerWorld final : public admission::MachineWorld {
 public:
  StoredContainerWorld(const admission::HostPathJudge& paths, const std::string& inspect)
      : MachineWorld(paths), inspect_(inspect) {}
  admission::Known<Result<std::string>> stored_container(std::string_view) override { return inspect_; }

 private:
  const std::string& inspect_;
};

// What a start of a stored container would get now: the plugin's own decision, on what was read.
std::optional<std::string> refusal_at_start(const Result<grants::GrantSet>& grants, const PolicyRules& rules,
                                            const admission::HostPathJudge& host_paths, const std::string& repo,
                                            const docker::StoredContainer& c) {
  if (!grants) return grants.error().message;
  StoredContainerWorld world(host_paths, c.inspect);
  const admission::DecideOptions options{.world = world, .policy = rules};
  const auto d = admission::decide(*grants, repo, {"POST", "/containers/" + c.id + "/start", "", ""}, options);
  if (d.allow) return std::nullopt;
  return d.msg;
}

}  // namespace

std::vector<RepoStored> stored_verdicts(const RootFs& fs, const Result<grants::GrantSet>& grants,
                                        const PolicyRules& rules, const std::map<std::string, std::string>& hosts) {
  if (hosts.empty()) return {};
  const admission::HostPathJudge host_paths(fs);
  std::vector<RepoStored> out;
  for (const auto& [repo, host] : hosts) {
    auto containers = docker::stored_containers_at(host);
    if (!containers) {
      out.push_back({.repo = repo, .containers = tl::unexpected(containers.error())});
      continue;
    }
    std::vector<StoredVerdict> judged;
    for (auto& c : *containers) {
      auto refused = refusal_at_start(grants, rules, host_paths, repo, c);
      judged.push_back({.container = std::move(c), .refused = std::move(refused)});
    }
    out.push_back({.repo = repo, .containers = std::move(judged)});
  }
  return out;
}

}  // namespace rgpu::facts
