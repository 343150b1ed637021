#include "grants/cache.h"

#include "core/state_paths.h"
#include "grants/store.h"

namespace rgpu::grants {

GrantsCache::GrantsCache(const RootFs& fs) : fs_(fs), path_(fs.host_path(state::kGrantsPath).string()) {}

Result<std::shared_ptr<const GrantSet>> GrantsCache::current() {
  const std::lock_guard hold(mutex_);
  struct stat st {};
  const bool exists = ::stat(path_.c_str(), &st) == 0;
  const bool same = have_ && exists == (seen_.st_ino != 0) &&
                    (!exists || (st.st_ino == seen_.st_ino && st.st_dev == seen_.st_dev &&
                                 st.st_mtim.tv_sec == seen_.st_mtim.tv_sec &&
                                 st.st_mtim.tv_nsec == seen_.st_mtim.tv_nsec && st.st_size == seen_.st_size));
  if (same) return grants_;
  RGPU_TRY_ASSIGN(auto loaded, load_grants(fs_));
  grants_ = std::make_shared<const GrantSet>(std::move(loaded));
  seen_ = {};
  if (exists) seen_ = st;
  have_ = true;
  return grants_;
}

}  // namespace rgpu::grants
