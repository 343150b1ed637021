#include "grants/views.h"

#include "cdi/repo_views.h"
#include "core/file_lock.h"
#include "core/state_paths.h"
#include "grants/hardware.h"
#include "grants/store.h"

namespace rgpu::grants {

Result<std::vector<Change>> refresh_views(const RootFs& fs, FileSink& sink) {
  RGPU_TRY_ASSIGN(auto lock, FileLock::acquire(fs, state::kGrantsLock));
  RGPU_TRY_ASSIGN(auto set, load_grants(fs));
  return write_views(fs, sink, cdi::read_spec_index(fs), set);
}

std::string views_not_updated(const std::string& why) {
  return "the grants are recorded, but the repositories' CDI views were not updated (" + why +
         "); run rediacc-gpu cdi views once that is fixed";
}

Result<std::vector<Change>> write_views(const RootFs& fs, FileSink& sink, const cdi::SpecIndex& index,
                                        const GrantSet& set) {
  cdi::HeldNames held;
  for (const auto& g : set.grants) held[g.repo].insert(g.device);
  // A view holds no name the gate would refuse for its hardware or its spec: a restart policy's
  // restore or a build's RUN --device reaches what the view maps without asking the gate. A name
  // that reaches other hardware than its grant recorded or than its key names, hardware that
  // cannot be told, a card another repository reserved, or whose spec now carries what its grant
  // did not review stays out until an operator mends it.
  const probe::HardwareReader reader(fs);
  for (const auto& m : moved_grants(reader, index, set)) held[m.grant.repo].erase(m.grant.device);
  for (const auto& g : set.grants) {
    const auto* d = held[g.repo].count(g.device) ? cdi::find_device(index, g.device) : nullptr;
    if (!d) continue;
    const auto now = reader.identities(d->nodes);
    if (!now || reserved_by_other(set, g.repo, *now) || !unreviewed(g, review_items(fs, *d)).empty())
      held[g.repo].erase(g.device);
  }
  return cdi::update_views(fs, sink, index, held);
}

}  // namespace rgpu::grants
