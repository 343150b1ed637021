#pragma once
// Learns that something in a few directories changed instead of asking each time: inotify, read
// without blocking, so a caller that would stat a dozen files at every request reads one empty
// queue instead. Where a watch cannot be set (a directory missing, inotify's limits) or was lost
// (a watched directory removed or moved, the queue overflowed), it says so, and the caller looks
// at the files itself, as it would without a watch.

#include <chrono>
#include <filesystem>
#include <vector>

namespace rgpu {

class DirectoryWatch {
 public:
  /// Watches the host directories `dirs` for any entry created, removed, renamed, written or
  /// changed in its attributes.
  explicit DirectoryWatch(std::vector<std::filesystem::path> dirs);
  ~DirectoryWatch();
  DirectoryWatch(const DirectoryWatch&) = delete;
  DirectoryWatch& operator=(const DirectoryWatch&) = delete;

  /// True when nothing is known to have changed since the last call and every directory is
  /// watched. False when an event came, the watch was lost, or it never held; a lost watch is set
  /// again here, so the caller's next look is covered from then on. Events are drained before
  /// this returns: a change made after the call is seen by the next one.
  bool unchanged();

 private:
  bool arm();
  std::vector<std::filesystem::path> dirs_;
  int fd_ = -1;
  bool armed_ = false;
  std::chrono::steady_clock::time_point tried_{};
  std::vector<int> stand_ins_;  ///< watches of an ancestor standing in for a directory not there
};

}  // namespace rgpu
