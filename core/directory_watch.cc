#include "core/directory_watch.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>

namespace rgpu {
namespace {

constexpr uint32_t kMask = IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO |
                           IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF | IN_DONT_FOLLOW | IN_ONLYDIR;

}  // namespace

DirectoryWatch::DirectoryWatch(std::vector<std::filesystem::path> dirs) : dirs_(std::move(dirs)) { armed_ = arm(); }

DirectoryWatch::~DirectoryWatch() {
  if (fd_ >= 0) ::close(fd_);
}

// A fresh descriptor each time: watches of the old one (some may still hold) go with it.
bool DirectoryWatch::arm() {
  tried_ = std::chrono::steady_clock::now();
  if (fd_ >= 0) ::close(fd_);
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) return false;
  stand_ins_.clear();
  for (const auto& dir : dirs_) {
    // A directory not there yet is watched through its nearest ancestor that is: its creation
    // there is an event, and the next arm watches it itself.
    auto at = dir;
    int wd = ::inotify_add_watch(fd_, at.c_str(), kMask);
    while (wd < 0 && errno == ENOENT && at.has_relative_path()) {
      at = at.parent_path();
      wd = ::inotify_add_watch(fd_, at.c_str(), kMask);
      if (wd >= 0) stand_ins_.push_back(wd);
    }
    if (wd < 0) return false;
  }
  return true;
}

bool DirectoryWatch::unchanged() {
  // A watch that cannot be set (a directory missing) is tried again at most once a second.
  if (fd_ < 0 || (!armed_ && std::chrono::steady_clock::now() - tried_ < std::chrono::seconds(1))) return false;
  bool quiet = armed_;
  alignas(inotify_event) std::array<char, 4096> buf;
  for (;;) {
    const auto n = ::read(fd_, buf.data(), buf.size());
    if (n <= 0) break;  // EAGAIN: drained
    quiet = false;
    for (ssize_t at = 0; at < n;) {
      const auto* e = reinterpret_cast<const inotify_event*>(buf.data() + at);
      if (e->mask & (IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF)) armed_ = false;
      if (std::find(stand_ins_.begin(), stand_ins_.end(), e->wd) != stand_ins_.end()) armed_ = false;
      at += static_cast<ssize_t>(sizeof(inotify_event) + e->len);
    }
  }
  if (!armed_) armed_ = arm();
  return quiet;
}

}  // namespace rgpu
