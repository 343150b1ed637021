#pragma once
// What each CDI name carries now that a grant must have reviewed (hooks outside the allow-list,
// net devices), for the gate: the spec directory is read again only when a file in it, the
// operator's allow-list or a toolkit hook program changed, so a decision costs a few stats.

#include <chrono>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
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
  /// The grantable name that reaches device node `path` most narrowly (fewest nodes, then the
  /// shortest name: nvidia.com/gpu=0 over its UUID name and over nvidia.com/gpu=all), from the
  /// specs as they are; empty when none maps it. Refusal hints take it: /dev/nvidia3 is not
  /// nvidia.com/gpu=3 when minors do not follow the GPUs' order. Looked at as `defined` is.
  std::string name_for_node(std::string_view path);

 private:
  std::string state() const;
  void refresh();        ///< with mutex_ held
  void refresh_hints();  ///< refresh at most once a second, with mutex_ held
  const RootFs& fs_;
  std::mutex mutex_;
  bool have_ = false;
  std::string state_;
  std::map<std::string, std::vector<std::string>> items_;
  std::vector<std::string> names_;
  std::map<std::string, std::string, std::less<>> node_names_;  ///< device node -> name_for_node
  std::chrono::steady_clock::time_point checked_{};
};

}  // namespace rgpu::admission
