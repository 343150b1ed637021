#include "grants/store.h"

#include <algorithm>
#include <tuple>

#include "cdi/hook_policy.h"
#include "cdi/reach_rules.h"
#include "core/edit_distance.h"
#include "core/joined.h"
#include "core/state_paths.h"
#include "grants/hardware.h"
#include "grants/views.h"

#include "core/file_lock.h"
#include "probe/inventory_file.h"

namespace rgpu::grants {
namespace {

struct Review {
  std::vector<std::string> hooks, nets;
  std::vector<std::string> items() const {
    std::vector<std::string> all = hooks;
    all.insert(all.end(), nets.begin(), nets.end());
    std::sort(all.begin(), all.end());
    return all;
  }
};

Review review_of(const RootFs& fs, const cdi::IndexedDevice& device) {
  const auto allowed = cdi::allowed_hooks(fs);
  return {cdi::needs_review(fs, device, allowed, false), cdi::needs_review(fs, device, allowed, true)};
}

}  // namespace

Result<const cdi::IndexedDevice*> grantable(const cdi::SpecIndex& index, const std::string& device) {
  if (const auto* d = cdi::find_device(index, device)) {
    if (auto why = cdi::ungrantable_reason(*d); !why.empty()) return fail(why + "; nothing was granted.");
    return d;
  }
  auto near = closest_names(index, device);
  return fail("no CDI spec in /etc/cdi defines \"" + device + "\"; nothing was granted." +
              (near.empty() ? " This machine defines no CDI names yet: run `rediacc-gpu setup`."
                            : " Closest names: " + joined(near) + "."));
}

// A reservation is of hardware, not of a string: any name reaching a GPU (or partition) another
// repository holds exclusively is refused, and so is reserving one another repository reaches.
// Two ways to reach the same: through the machine's names now (ReachMap), or through the
// hardware the other grant recorded, whatever name points at it now.
std::string exclusivity_conflict(const Grant& other, const std::string& device, bool exclusive,
                                 const std::vector<std::string>& hardware, const cdi::ReachMap& reach) {
  const bool same = other.device == device;
  std::string through;
  if (reach.reach_same(other.device, device)) {
    through = same ? "" : " through " + other.device + ", which reaches the same GPU";
  } else if (auto id = other.hardware ? shared_hardware(*other.hardware, hardware) : ""; !id.empty()) {
    through = " through " + other.device + ", granted on " + id + ", which " + device + " reaches now";
  } else {
    return "";
  }
  if (other.exclusive) return device + " is reserved exclusively by repository \"" + other.repo + "\"" + through;
  if (!exclusive) return "";
  return "cannot reserve " + device + " exclusively: repository \"" + other.repo + "\" holds " +
         (same ? "it" : other.device) + (through.empty() ? "" : through.substr(through.find(',')));
}

// A name that runs host code or moves a host interface is granted only when the operator says so.
Result<std::vector<std::string>> accepted_review(const RootFs& fs, const cdi::IndexedDevice& device,
                                                 const GrantReview& review) {
  const auto [hooks, nets] = review_of(fs, device);
  if (!hooks.empty() && !review.allow_hooks) {
    return fail(device.qualified_name + " makes the runtime run " + joined(hooks) +
                " on the host, as root, for every container that asks for it; nothing was granted. Review the "
                "program and pass --allow-hooks, or add it to " +
                std::string(state::kAllowedHooksPath) + ".");
  }
  if (!nets.empty() && !review.allow_net_devices) {
    return fail(device.qualified_name + " moves a host network interface into the container (" + joined(nets) +
                "); nothing was granted. Pass --allow-net-devices to grant it anyway.");
  }
  return Review{hooks, nets}.items();
}

void sort_grants(GrantSet& set) {
  std::sort(set.grants.begin(), set.grants.end(),
            [](const Grant& a, const Grant& b) { return std::tie(a.repo, a.device) < std::tie(b.repo, b.device); });
}

std::vector<std::string> review_items(const RootFs& fs, const cdi::IndexedDevice& device) {
  return review_of(fs, device).items();
}

std::vector<std::string> unreviewed(const Grant& grant, const std::vector<std::string>& carried_now) {
  std::vector<std::string> out;
  for (const auto& item : carried_now) {
    if (!grant.reviewed || std::find(grant.reviewed->begin(), grant.reviewed->end(), item) == grant.reviewed->end())
      out.push_back(item);
  }
  return out;
}

std::vector<std::string> reached_nodes(const cdi::IndexedDevice& device) {
  std::vector<std::string> out;
  for (const auto& n : device.device_nodes) {
    if (cdi::is_gpu_own_node(n)) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

Result<GrantSet> load_grants(const RootFs& fs) {
  auto text = fs.read_file(state::kGrantsPath);
  if (!text) {
    if (is_not_found(text.error())) return GrantSet{};
    return tl::unexpected(text.error());
  }
  return parse_grants(*text, fs.host_path(state::kGrantsPath).string());
}

namespace {

// The views follow the grants under the lock the caller holds, also when the grants did not
// change: a view left stale by an earlier failure is mended by doing it again.
Result<GrantOutcome> with_views(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index, const GrantSet& set,
                                Change change) {
  auto views = write_views(fs, sink, index, set);
  if (!views) return fail(views_not_updated(views.error().message));
  return GrantOutcome{std::move(change), std::move(*views)};
}

}  // namespace

Result<GrantOutcome> add_grant(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index, const std::string& repo,
                               const std::string& device, bool exclusive, SystemTime now, const GrantReview& review) {
  RGPU_TRY_ASSIGN(auto spec_device, grantable(index, device));
  RGPU_TRY_ASSIGN(auto reviewed, accepted_review(fs, *spec_device, review));
  RGPU_TRY_ASSIGN(auto hardware, hardware_of(probe::HardwareReader(fs), *spec_device));
  RGPU_TRY_ASSIGN(auto lock, FileLock::acquire(fs, state::kGrantsLock));
  RGPU_TRY_ASSIGN(auto set, load_grants(fs));
  const auto reach = machine_reach(fs, index);
  const Grant* existing = set.find(repo, device);
  // A grant held exclusively stays so when granted again plainly: it is checked as a reservation,
  // or accepting a move would leave the card it now reaches reserved and held elsewhere.
  if (existing && existing->exclusive) exclusive = true;
  for (const auto& g : set.grants) {
    if (g.repo == repo) continue;
    if (auto why = exclusivity_conflict(g, device, exclusive, hardware, reach); !why.empty())
      return fail(why + "; nothing was granted. Revoke it there first.");
  }
  const auto reached = reached_nodes(*spec_device);
  // Granting again what is held records what the name reaches now: how an operator accepts a
  // name that moved to other hardware.
  if (existing && existing->exclusive == exclusive && existing->reached == reached && existing->hardware == hardware &&
      existing->reviewed.value_or(std::vector<std::string>{}) == reviewed) {
    return with_views(fs, sink, index, set,
                      {Change::Kind::unchanged, state::kGrantsPath, repo + " already holds " + device});
  }
  std::erase_if(set.grants, [&](const Grant& g) { return g.repo == repo && g.device == device; });
  set.grants.push_back({repo, device, exclusive, format_rfc3339_utc(now), reached, reviewed, hardware});
  sort_grants(set);
  RGPU_TRY_ASSIGN(auto written, sink.write(state::kGrantsPath, grants_text(set), 0644));
  return with_views(fs, sink, index, set, std::move(written));
}

Result<GrantOutcome> remove_grant(const RootFs& fs, FileSink& sink, const std::string& repo,
                                  const std::string& device) {
  RGPU_TRY_ASSIGN(auto lock, FileLock::acquire(fs, state::kGrantsLock));
  RGPU_TRY_ASSIGN(auto set, load_grants(fs));
  const auto index = cdi::read_spec_index(fs);
  if (!set.find(repo, device)) {
    return with_views(
        fs, sink, index, set,
        {Change::Kind::unchanged, state::kGrantsPath, "repository \"" + repo + "\" holds no grant for " + device});
  }
  std::erase_if(set.grants, [&](const Grant& g) { return g.repo == repo && g.device == device; });
  RGPU_TRY_ASSIGN(auto written, sink.write(state::kGrantsPath, grants_text(set), 0644));
  return with_views(fs, sink, index, set, std::move(written));
}

cdi::ReachMap machine_reach(const RootFs& fs, const cdi::SpecIndex& index) {
  auto recorded = probe::read_inventory(fs);
  std::optional<probe::Inventory> inventory;
  if (recorded && *recorded) inventory = (*recorded)->inventory;
  return cdi::ReachMap(index, inventory);
}

std::vector<AliasHolder> alias_holders(const GrantSet& set, const cdi::ReachMap& reach, const std::string& repo,
                                       const std::string& device) {
  std::vector<AliasHolder> out;
  for (const auto& alias : reach.aliases_of(device)) {
    for (const Grant* g : set.holders(alias)) {
      if (g->repo != repo) out.push_back({g->repo, alias});
    }
  }
  return out;
}

std::vector<std::string> closest_names(const cdi::SpecIndex& index, const std::string& device, size_t n) {
  std::vector<std::string> names;
  for (const auto& d : index.devices) {
    if (cdi::ungrantable_reason(d).empty()) names.push_back(d.qualified_name);
  }
  return closest(device, names, n);
}

}  // namespace rgpu::grants
