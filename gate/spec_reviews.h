#pragma once
// What each CDI name carries now that a grant must have reviewed (hooks outside the allow-list,
// net devices), for the gate: the spec directory is read again only when a file in it, the
// operator's allow-list or a toolkit hook program changed, so a decision costs a few stats.

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/directory_watch.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "probe/hardware_identity.h"

namespace rgpu::gate {

class SpecReviews {
 public:
  /// `repo`, when given, is the repository whose daemon reads its CDI view
  /// (/var/lib/rediacc/gpu/cdi/REPO): a name's nodes are then those of /etc/cdi and of the view,
  /// so a view not yet refreshed after a change cannot hand dockerd nodes the gate did not check.
  explicit SpecReviews(const RootFs& fs, const std::string& repo = "");
  /// grants::review_items of the name's spec as it is now; nothing for a name no spec defines
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
  /// The hardware the name reaches now: its nodes from the specs as they are (and the view's), each node's
  /// identity read live from the machine (probe::HardwareReader); absent for a name no spec
  /// defines. Fails when a node's hardware cannot be told.
  Result<std::optional<probe::Reach>> reach(const std::string& name);
  /// reach's identities; nothing for a name no spec defines.
  Result<std::vector<std::string>> hardware(const std::string& name);

 private:
  std::string state();
  void refresh();        ///< with mutex_ held
  void refresh_hints();  ///< refresh at most once a second, with mutex_ held
  const RootFs& fs_;
  std::mutex mutex_;
  bool have_ = false;
  std::string state_;
  std::map<std::string, std::vector<std::string>> items_;
  /// A name's device nodes, with what the reader last answered for them.
  struct Nodes {
    std::vector<probe::NodeRef> nodes;
    probe::HardwareReader::ReachMemo memo;  ///< changed by reader_ only, under its lock
  };
  std::map<std::string, std::shared_ptr<Nodes>> nodes_;  ///< name -> its device nodes
  probe::HardwareReader reader_;
  /// The spec directory, the allow-list's and the hook programs': a quiet watch spares state()'s
  /// stats. Not trusted while one of those files is a link (its target can change unseen).
  std::filesystem::path view_;  ///< the repository's view directory on the host; empty: none
  DirectoryWatch watch_;
  bool trust_watch_ = false;
  std::vector<std::string> names_;
  std::map<std::string, std::string, std::less<>> node_names_;  ///< device node -> name_for_node
  std::chrono::steady_clock::time_point checked_{};
};

}  // namespace rgpu::gate
