#pragma once
// The kernel's own resolution of a path beneath a directory that stands for "/" (openat2 with
// RESOLVE_IN_ROOT, Linux 5.6+): one system call where walking the path in user space takes an
// lstat per component. RootFs uses it first and walks in user space where the kernel cannot.

#include <string>
#include <string_view>
#include <vector>

namespace rgpu {

/// An owned file descriptor, closed when it goes; -1 holds nothing.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_ = -1;
};

/// What opening beneath a root came to.
struct InRootOpen {
  UniqueFd fd;    ///< valid on success
  int error = 0;  ///< errno on failure
  /// True when the kernel could not decide and the caller must walk the path itself: no openat2
  /// (ENOSYS, or a seccomp filter's EPERM), a magic link of /proc (refused so that the answer is
  /// the one the user-space walk gives), a rename race (EAGAIN), or a link loop (ELOOP), whose
  /// message the walk words.
  bool walk_instead = false;
};

/// Opens `machine_path` ("/sys/...") beneath `root_fd` with `flags` (O_CLOEXEC is added); every
/// link, absolute or relative, and every ".." stays beneath the root. The kernel answers ENOENT
/// for a missing component even when a later ".." would have stepped back out of it.
InRootOpen open_in_root(int root_fd, std::string_view machine_path, int flags);

/// Reads the whole of an open file; false with errno set on a read error. With `one_read`, a
/// read that does not fill the buffer is taken as the whole file, saving the read that would
/// find its end: right for sysfs attributes (the kernel renders one whole, at most a page) and
/// regular files, wrong for /proc's seq files, which hand out a record at a time.
bool read_all(int fd, std::string& out, bool one_read = false);

/// True for the machine paths whose files one read gives whole: sysfs's.
bool one_read_is_whole(std::string_view machine_path);

/// Appends the names in an open directory but "." and ".." to `names`, unsorted; false with
/// errno set on an error.
bool read_dir_names(int fd, std::vector<std::string>& names);

}  // namespace rgpu
