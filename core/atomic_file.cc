#include "core/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace rgpu {
namespace {

Error io_error(const std::string& what, const std::filesystem::path& path, int err) {
  return Error{"cannot " + what + " " + path.string() + ": " + std::strerror(err) +
                   "; check that the directory exists, is writable and has free space.",
               err};
}

Result<void> make_parents(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return tl::unexpected(io_error("create directory", dir, ec.value()));
  return {};
}

bool same_content(const std::filesystem::path& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return false;
  std::string existing;
  char buf[8192];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) existing.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return n == 0 && existing == content;
}

Result<void> write_all(int fd, std::string_view content, const std::filesystem::path& tmp) {
  while (!content.empty()) {
    ssize_t n = ::write(fd, content.data(), content.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return tl::unexpected(io_error("write", tmp, errno));
    }
    content.remove_prefix(static_cast<size_t>(n));
  }
  if (::fsync(fd) != 0) return tl::unexpected(io_error("sync", tmp, errno));
  return {};
}

void sync_directory(const std::filesystem::path& dir) {
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

// The parent directory is resolved inside the root, so a link such as /etc -> /real/etc in a
// fixture tree can never send a write outside it; the last component is never followed.
Result<std::filesystem::path> host_target(const RootFs& fs, std::string_view machine_path) {
  std::filesystem::path machine(machine_path);
  RGPU_TRY_ASSIGN(auto parent, fs.resolve(machine.parent_path().string()));
  return fs.host_path(parent) / machine.filename();
}

}  // namespace

Result<Change> write_file_atomic(const RootFs& fs, std::string_view machine_path, std::string_view content,
                                 mode_t mode) {
  RGPU_TRY_ASSIGN(const std::filesystem::path target, host_target(fs, machine_path));
  struct stat st {};
  if (::lstat(target.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    return fail(target.string() + " is a symbolic link; remove it so a real file can be written there.");
  }
  if (same_content(target, content)) return Change{Change::Kind::unchanged, std::string(machine_path), ""};
  RGPU_TRY(make_parents(target.parent_path()));

  // Built by appending: GCC 12 at -O3 warns (-Wrestrict) on "." + std::string&&, wrongly.
  std::string hidden = ".";
  hidden += target.filename().string();
  hidden += ".tmp.XXXXXX";
  std::string tmp = (target.parent_path() / hidden).string();
  int fd = ::mkstemp(tmp.data());
  if (fd < 0) return tl::unexpected(io_error("create a temporary file beside", target, errno));
  auto written = write_all(fd, content, tmp);
  if (written && ::fchmod(fd, mode) != 0) written = tl::unexpected(io_error("set the mode of", tmp, errno));
  ::close(fd);
  if (written && ::rename(tmp.c_str(), target.c_str()) != 0)
    written = tl::unexpected(io_error("replace", target, errno));
  if (!written) {
    ::unlink(tmp.c_str());
    return tl::unexpected(written.error());
  }
  sync_directory(target.parent_path());
  return Change{Change::Kind::write, std::string(machine_path), std::to_string(content.size()) + " bytes"};
}

std::optional<std::string> read_link(const RootFs& fs, std::string_view machine_path) {
  auto target = host_target(fs, machine_path);
  if (!target) return std::nullopt;
  std::error_code ec;
  auto read = std::filesystem::read_symlink(*target, ec);
  if (ec) return std::nullopt;
  return read.string();
}

Result<Change> write_link_atomic(const RootFs& fs, std::string_view machine_path, std::string_view target) {
  RGPU_TRY_ASSIGN(const std::filesystem::path path, host_target(fs, machine_path));
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISLNK(st.st_mode))
      return fail(path.string() + " exists and is not a symbolic link; it is left as it is: remove it if it is stale.");
    if (read_link(fs, machine_path) == std::string(target))
      return Change{Change::Kind::unchanged, std::string(machine_path), ""};
  }
  RGPU_TRY(make_parents(path.parent_path()));
  // symlink() never replaces, so the link is made under a free hidden name, then renamed over.
  std::string hidden = ".";
  hidden += path.filename().string();
  hidden += ".tmp.";
  hidden += std::to_string(::getpid());
  std::filesystem::path tmp;
  for (int attempt = 0;; ++attempt) {
    tmp = path.parent_path() / (hidden + "." + std::to_string(attempt));
    if (::symlink(std::string(target).c_str(), tmp.c_str()) == 0) break;
    if (errno != EEXIST || attempt == 100) return tl::unexpected(io_error("create a link beside", path, errno));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return tl::unexpected(io_error("replace", path, err));
  }
  sync_directory(path.parent_path());
  return Change{Change::Kind::write, std::string(machine_path), "link to " + std::string(target)};
}

Result<Change> remove_file(const RootFs& fs, std::string_view machine_path) {
  RGPU_TRY_ASSIGN(const std::filesystem::path target, host_target(fs, machine_path));
  if (::unlink(target.c_str()) != 0) {
    if (is_not_found_errno(errno)) return Change{Change::Kind::unchanged, std::string(machine_path), ""};
    return tl::unexpected(io_error("remove", target, errno));
  }
  sync_directory(target.parent_path());
  return Change{Change::Kind::remove, std::string(machine_path), ""};
}

}  // namespace rgpu
