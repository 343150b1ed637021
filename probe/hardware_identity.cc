#include "probe/hardware_identity.h"

#include "probe/identity_cache.h"
#include "probe/identity_rules.h"

namespace rgpu::probe {

std::vector<NodeRef> node_refs(const std::vector<std::string>& paths) {
  std::vector<NodeRef> out;
  out.reserve(paths.size());
  for (const auto& p : paths) out.push_back({p, "", 0, 0});
  return out;
}

HardwareReader::HardwareReader(const RootFs& fs) : cache_(std::make_unique<identity::Cache>(fs)) {}
HardwareReader::~HardwareReader() = default;

Result<std::string> HardwareReader::identity(const std::string& node) const {
  const std::lock_guard hold(mutex_);
  identity::Seen seen;
  RGPU_TRY_ASSIGN(const identity::Found a, cache_->found({node, "", 0, 0}, seen, nullptr));
  if (a.role == identity::Role::other || a.role == identity::Role::shared)
    return tl::unexpected(identity::unknown_hardware(node, "it is no GPU's own device node"));
  return a.identity;
}

Result<Reach> HardwareReader::reach(const std::vector<NodeRef>& nodes) const {
  ReachMemo memo;
  return reach(nodes, memo);
}

Result<Reach> HardwareReader::reach(const std::vector<NodeRef>& nodes, ReachMemo& memo) const {
  const std::lock_guard hold(mutex_);
  identity::Seen seen;
  if (memo.proof && cache_->holds(*memo.proof, seen)) return memo.reach;
  memo.proof.reset();
  auto proof = std::make_shared<ReachProof>(cache_->new_proof(seen));
  std::vector<identity::Found> found;
  found.reserve(nodes.size());
  for (const auto& n : nodes) {
    RGPU_TRY_ASSIGN(auto a, cache_->found(n, seen, proof.get()));
    found.push_back(std::move(a));
  }
  auto out = identity::reach_of(std::move(found));
  if (proof->whole) {
    memo.reach = out;
    memo.proof = std::move(proof);
  }
  return out;
}

Result<std::vector<std::string>> HardwareReader::identities(const std::vector<NodeRef>& nodes) const {
  RGPU_TRY_ASSIGN(auto r, reach(nodes));
  return std::move(r.identities);
}

Result<std::vector<std::string>> HardwareReader::identities(const std::vector<std::string>& nodes) const {
  return identities(node_refs(nodes));
}

bool identity_covers(std::string_view granted, std::string_view now) {
  return now == granted || (now.size() > granted.size() && now.starts_with(granted) && now[granted.size()] == '/');
}

std::string identity_card(std::string_view identity) { return std::string(identity.substr(0, identity.find('/'))); }

}  // namespace rgpu::probe
