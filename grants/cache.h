#pragma once
// Grants read live at every decision, parsed again only when the file changed: keyed on the
// file's identity and mtime, so a grant or revoke (an atomic rename: a new inode) takes effect
// at the next request with no restart.

#include <sys/stat.h>
#include <memory>
#include <mutex>
#include <string>

#include "core/root_fs.h"
#include "grants/grant_set.h"

namespace rgpu::grants {

class GrantsCache {
 public:
  explicit GrantsCache(const RootFs& fs);
  /// The grants now in force; an error when the file does not parse (every request is then refused).
  /// Safe to call from several threads (the plugin judges stored containers off its event loop).
  Result<std::shared_ptr<const GrantSet>> current();

 private:
  const RootFs& fs_;
  std::mutex mutex_;
  std::string path_;  // the grants file on the host, built once: a decision costs one stat
  struct stat seen_ {};
  bool have_ = false;
  std::shared_ptr<const GrantSet> grants_;
};

}  // namespace rgpu::grants
