#include "core/in_root_open.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>

namespace rgpu {
namespace {

// Whether openat2 works here; learnt from the first call that says it does not.
std::atomic<bool> g_no_openat2{false};

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

InRootOpen open_in_root(int root_fd, std::string_view machine_path, int flags) {
  InRootOpen out;
  if (root_fd < 0 || g_no_openat2.load(std::memory_order_relaxed)) {
    out.walk_instead = true;
    return out;
  }
  while (!machine_path.empty() && machine_path.front() == '/') machine_path.remove_prefix(1);
  const std::string relative = machine_path.empty() ? std::string(".") : std::string(machine_path);
  open_how how{};
  how.flags = static_cast<unsigned long long>(flags | O_CLOEXEC);
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  for (;;) {
    const long fd = ::syscall(SYS_openat2, root_fd, relative.c_str(), &how, sizeof how);
    if (fd >= 0) {
      out.fd = UniqueFd(static_cast<int>(fd));
      return out;
    }
    if (errno == EINTR) continue;
    out.error = errno;
    break;
  }
  if (out.error == ENOSYS) g_no_openat2.store(true, std::memory_order_relaxed);
  out.walk_instead =
      out.error == ENOSYS || out.error == EPERM || out.error == EAGAIN || out.error == ELOOP || out.error == EXDEV;
  return out;
}

bool read_all(int fd, std::string& out, bool one_read) {
  char buf[16384];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    out.append(buf, static_cast<size_t>(n));
    if (one_read && static_cast<size_t>(n) < sizeof buf) return true;
  }
}

bool one_read_is_whole(std::string_view machine_path) { return machine_path.rfind("/sys/", 0) == 0; }

bool read_dir_names(int fd, std::vector<std::string>& names) {
  // getdents64 itself: no DIR to allocate, and no fcntl that fdopendir would make.
  alignas(8) char buf[32768];
  for (;;) {
    const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buf + at);
      const std::string_view name(entry->d_name);
      if (name != "." && name != "..") names.emplace_back(name);
      at += entry->d_reclen;
    }
  }
}

}  // namespace rgpu
