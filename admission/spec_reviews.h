#pragma once
// What each CDI name carries now that a grant must have reviewed (hooks outside the allow-list,
// net devices), for the gate: the spec directory is read again only when a file in it, the
// operator's allow-list or a toolkit hook program changed, so a decision costs a few stats.

#include <chrono>
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
  /// Every grantable name the specs define, sorted, for a refusal's suggestions: a hint, so the
  /// directory is looked at again at most once a second (refusals stay as cheap as they were).
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
  std::chrono::steady_clock::time_point checked_{};
};

}  // namespace rgpu::admission
