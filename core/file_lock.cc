#include "core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rgpu {

Result<FileLock> FileLock::acquire(const RootFs& fs, std::string_view machine_path) {
  std::filesystem::path machine(machine_path);
  auto parent = fs.resolve(machine.parent_path().string());
  if (!parent) return tl::unexpected(parent.error());
  const auto dir = fs.host_path(*parent);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto path = dir / machine.filename();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail("cannot open the lock file " + path.string() + ": " + std::strerror(errno) + ".", errno);
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return fail("cannot lock " + path.string() + ": " + std::strerror(err) + ".", err);
  }
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace rgpu
