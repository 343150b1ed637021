#include "core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace rgpu {

namespace {

std::optional<long> holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return std::nullopt;
  char* end = nullptr;
  const long pid = std::strtol(buf, &end, 10);
  if (pid <= 0 || end == buf) return std::nullopt;
  return pid;
}

void record_holder(int fd) {
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)!::pwrite(fd, pid.data(), pid.size(), 0);
}

}  // namespace

Result<FileLock> FileLock::acquire(const RootFs& fs, std::string_view machine_path,
                                   const std::function<void(std::optional<long>)>& on_wait) {
  std::filesystem::path machine(machine_path);
  RGPU_TRY_ASSIGN(auto parent, fs.resolve(machine.parent_path().string()));
  const auto dir = fs.host_path(parent);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const auto path = dir / machine.filename();
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return fail("cannot open the lock file " + path.string() + ": " + std::strerror(errno) + ".", errno);
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
    record_holder(fd);
    return FileLock(fd);
  }
  if (errno == EWOULDBLOCK && on_wait) on_wait(holder_pid(fd));
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    return fail("cannot lock " + path.string() + ": " + std::strerror(err) + ".", err);
  }
  record_holder(fd);
  return FileLock(fd);
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace rgpu
