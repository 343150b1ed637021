#include "admission/grant_views.h"

#include "admission/grant_store.h"
#include "cdi-gen/repo_views.h"
#include "core/file_lock.h"
#include "core/state_paths.h"

namespace rgpu::admission {

Result<std::vector<Change>> refresh_views(const RootFs& fs, FileSink& sink) {
  RGPU_TRY_ASSIGN(auto lock, FileLock::acquire(fs, state::kGrantsLock));
  RGPU_TRY_ASSIGN(auto set, load_grants(fs));
  cdi::HeldNames held;
  for (const auto& g : set.grants) held[g.repo].insert(g.device);
  return cdi::update_views(fs, sink, cdi::read_spec_index(fs), held);
}

}  // namespace rgpu::admission
