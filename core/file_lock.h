#pragma once
// An exclusive flock(2) on a lock file under the root, held for the object's lifetime. One lock
// file per machine-wide critical section (setup, grants): concurrent runs queue, never interleave.

#include <functional>
#include <optional>
#include <string_view>

#include "core/result.h"
#include "core/root_fs.h"

namespace rgpu {

class FileLock {
 public:
  /// Opens (creating it and its directory, mode 0600) and locks the machine path, waiting for
  /// whoever holds it.
  /// The holder writes its pid into the file: `on_wait`, when given, is told it (absent when the
  /// file names none) before waiting, so a caller can say what it waits for.
  static Result<FileLock> acquire(const RootFs& fs, std::string_view machine_path,
                                  const std::function<void(std::optional<long>)>& on_wait = {});
  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&&) = delete;
  FileLock(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace rgpu
