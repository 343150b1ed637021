#pragma once
// What each CDI name carries now that a grant must have reviewed (hooks outside the allow-list,
// net devices), for the gate: the spec directory is read again only when a file in it, the
// operator's allow-list or a toolkit hook program changed, so a decision costs a few stats.

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "core/root_fs.h"

namespace rgpu::admission {

class SpecReviews {
 public:
  explicit SpecReviews(const RootFs& fs) : fs_(fs) {}
  /// admission::review_items of the name's spec as it is now; nothing for a name no spec defines
  /// (dockerd refuses it). Safe to call from several threads.
  std::vector<std::string> of(const std::string& name);
  /// Every grantable name the specs define now, sorted (for a refusal's suggestions).
  std::vector<std::string> defined();

 private:
  std::string state() const;
  void refresh();  ///< with mutex_ held
  const RootFs& fs_;
  std::mutex mutex_;
  bool have_ = false;
  std::string state_;
  std::map<std::string, std::vector<std::string>> items_;
  std::vector<std::string> names_;
};

}  // namespace rgpu::admission
