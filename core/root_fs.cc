#include "core/root_fs.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>

namespace rgpu {
namespace {

constexpr int kMaxLinks = 40;  // the kernel's own limit (MAXSYMLINKS)

std::deque<std::string> split_components(std::string_view path) {
  std::deque<std::string> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.emplace_back(path.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

std::string join_components(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out.empty() ? "/" : out;
}

std::string errno_text(int err) { return std::strerror(err); }

// Where an open fd is on the host, as the kernel names it; absent without /proc, or when it is no
// longer anywhere (deleted) or is no path at all ("anon_inode:").
std::optional<std::string> fd_host_path(int fd) {
  char proc[64];
  std::snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  char target[4096];
  const ssize_t n = ::readlink(proc, target, sizeof target - 1);
  if (n <= 0 || target[0] != '/') return std::nullopt;
  const std::string_view host(target, static_cast<size_t>(n));
  if (host.size() >= 10 && host.substr(host.size() - 10) == " (deleted)") return std::nullopt;
  return std::string(host);
}

}  // namespace

RootFs::RootFs(std::filesystem::path root) : root_(std::move(root)) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(root_, ec);
  host_root_ = !ec && canonical == "/";
  // Absent (a root not made yet) leaves every path to the walk, which reads it as missing.
  root_fd_ = std::make_shared<const UniqueFd>(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (*root_fd_) canonical_root_ = fd_host_path(root_fd_->get()).value_or("");
}

std::filesystem::path RootFs::host_path(std::string_view machine_path) const {
  std::string rel(machine_path);
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  return rel.empty() ? root_ : root_ / rel;
}

std::filesystem::path RootFs::socket_path(std::string_view machine_path) const {
  if (host_root_) return host_path(machine_path);
  // A loop is left as joined: connecting to it fails, naming the path.
  const auto resolved = resolve(machine_path);
  return host_path(resolved ? std::string_view(*resolved) : machine_path);
}

std::optional<std::string> RootFs::machine_path_of(int fd) const {
  if (canonical_root_.empty()) return std::nullopt;
  auto host = fd_host_path(fd);
  if (!host) return std::nullopt;
  if (canonical_root_ == "/") return host;
  if (*host == canonical_root_) return std::string("/");
  if (host->size() > canonical_root_.size() && host->compare(0, canonical_root_.size(), canonical_root_) == 0 &&
      (*host)[canonical_root_.size()] == '/') {
    return host->substr(canonical_root_.size());
  }
  return std::nullopt;  // reached through a mount from outside the root: let the walk say where
}

Result<std::string> RootFs::resolve(std::string_view machine_path, std::vector<std::string>* links_seen) const {
  if (!links_seen) {
    auto opened = open_in_root(root_fd_->get(), machine_path, O_PATH);
    if (opened.fd) {
      if (auto path = machine_path_of(opened.fd.get())) return *path;
    }
  }
  // Missing components are kept as written, and loops get their sentence: only the walk does both.
  return walk(machine_path, links_seen);
}

Result<std::string> RootFs::walk(std::string_view machine_path, std::vector<std::string>* links_seen) const {
  std::deque<std::string> pending = split_components(machine_path);
  std::vector<std::string> done;
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.front());
    pending.pop_front();
    if (part == ".") continue;
    if (part == "..") {
      if (!done.empty()) done.pop_back();
      continue;
    }
    done.push_back(part);
    auto host = host_path(join_components(done));
    struct stat st {};
    if (::lstat(host.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) continue;
    if (++links > kMaxLinks) {
      return fail(host.string() + " is part of a symbolic link loop; fix or remove the link.", ELOOP);
    }
    char target[4096];
    ssize_t n = ::readlink(host.c_str(), target, sizeof target - 1);
    if (n < 0) return fail("cannot read link " + host.string() + ": " + errno_text(errno), errno);
    target[n] = '\0';
    if (links_seen) links_seen->push_back(join_components(done));
    done.pop_back();
    if (target[0] == '/') done.clear();
    auto target_parts = split_components(target);
    pending.insert(pending.begin(), target_parts.begin(), target_parts.end());
  }
  return join_components(done);
}

Result<UniqueFd> RootFs::open(std::string_view machine_path, int flags, const char* verb) const {
  auto opened = open_in_root(root_fd_->get(), machine_path, flags);
  if (opened.fd) return std::move(opened.fd);
  int err = opened.error;
  if (opened.walk_instead) {
    RGPU_TRY_ASSIGN(auto resolved, walk(machine_path));
    const int fd = ::open(host_path(resolved).c_str(), flags | O_CLOEXEC);
    if (fd >= 0) return UniqueFd(fd);
    err = errno;
  }
  return fail(std::string("cannot ") + verb + " " + host_path(machine_path).string() + ": " + errno_text(err), err);
}

Result<std::string> RootFs::read_opened(const UniqueFd& fd, std::string_view machine_path) const {
  std::string data;
  if (!read_all(fd.get(), data, one_read_is_whole(machine_path))) {
    const int err = errno;
    return fail("cannot read " + host_path(machine_path).string() + ": " + errno_text(err), err);
  }
  return data;
}

Result<std::string> RootFs::read_file(std::string_view machine_path) const {
  RGPU_TRY_ASSIGN(auto fd, open(machine_path, O_RDONLY, "read"));
  return read_opened(fd, machine_path);
}

Result<std::optional<std::string>> trimmed_if_present(Result<std::string> data) {
  if (!data) {
    if (is_not_found(data.error())) return std::optional<std::string>{};
    return tl::unexpected(data.error());
  }
  std::string& s = *data;
  auto first = s.find_first_not_of(" \t\r\n");
  auto last = s.find_last_not_of(" \t\r\n");
  return std::optional<std::string>(first == std::string::npos ? "" : s.substr(first, last - first + 1));
}

Result<UniqueFd> RootFs::open_read(std::string_view machine_path) const { return open(machine_path, O_RDONLY, "read"); }

Result<std::optional<std::string>> RootFs::read_optional(std::string_view machine_path) const {
  return trimmed_if_present(read_file(machine_path));
}

Result<std::vector<std::string>> RootFs::list_dir(std::string_view machine_path) const {
  auto fd = open(machine_path, O_RDONLY | O_DIRECTORY, "list");
  if (!fd) {
    // Absent is no entries; a path that is not a directory (ENOTDIR) is a tree that cannot be listed.
    if (fd.error().sys_errno == ENOENT) return std::vector<std::string>{};
    return tl::unexpected(fd.error());
  }
  std::vector<std::string> names;
  if (!read_dir_names(fd->get(), names)) {
    const int err = errno;
    return fail("cannot list " + host_path(machine_path).string() + ": " + errno_text(err), err);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// O_PATH: the node's metadata without opening it, so a device node's driver never sees an open.
NodeKind RootFs::kind(std::string_view machine_path) const {
  auto fd = open(machine_path, O_PATH, "open");
  if (!fd) return is_not_found(fd.error()) ? NodeKind::missing : NodeKind::other;
  struct stat st {};
  if (::fstat(fd->get(), &st) != 0) return NodeKind::other;
  if (S_ISREG(st.st_mode)) return NodeKind::file;
  if (S_ISDIR(st.st_mode)) return NodeKind::directory;
  if (S_ISCHR(st.st_mode)) return NodeKind::char_device;
  if (S_ISBLK(st.st_mode)) return NodeKind::block_device;
  return NodeKind::other;
}

std::optional<struct ::stat> RootFs::stat(std::string_view machine_path) const {
  auto fd = open(machine_path, O_PATH, "stat");
  struct ::stat st {};
  if (!fd || ::fstat(fd->get(), &st) != 0) return std::nullopt;
  return st;
}

Result<UniqueFd> RootFs::open_dir_fd(std::string_view machine_path) const {
  return open(machine_path, O_PATH | O_DIRECTORY, "open");
}

std::optional<struct ::stat> RootFs::lstat(std::string_view machine_path) const {
  const auto slash = machine_path.rfind('/');
  const std::string leaf(slash == std::string_view::npos ? machine_path : machine_path.substr(slash + 1));
  if (leaf.empty() || leaf == "." || leaf == "..") return stat(machine_path);
  const std::string_view parent = slash == std::string_view::npos || slash == 0 ? "/" : machine_path.substr(0, slash);
  auto dir = open_dir_fd(parent);
  struct ::stat st {};
  if (!dir || ::fstatat(dir->get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return std::nullopt;
  return st;
}

std::optional<DeviceNumber> RootFs::char_device(std::string_view machine_path) const {
  auto fd = open(machine_path, O_PATH, "open");
  struct stat st {};
  if (!fd || ::fstat(fd->get(), &st) != 0 || !S_ISCHR(st.st_mode)) return std::nullopt;
  return DeviceNumber{::major(st.st_rdev), ::minor(st.st_rdev)};
}

Result<RootDir> RootFs::open_dir(std::string_view machine_path) const {
  RGPU_TRY_ASSIGN(auto fd, open(machine_path, O_PATH | O_DIRECTORY, "open"));
  return RootDir(*this, std::string(machine_path), std::move(fd));
}

Result<std::string> RootDir::read_file(std::string_view name) const {
  const std::string path = join_path(path_, name);
  if (name.find('/') != std::string_view::npos) return fs_->read_file(path);
  const std::string leaf(name);
  // O_NOFOLLOW: a plain file is read here; a link is followed from the root, never from here.
  const int fd = ::openat(fd_.get(), leaf.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) return fs_->read_file(path);
    return fail("cannot read " + fs_->host_path(path).string() + ": " + errno_text(err), err);
  }
  return fs_->read_opened(UniqueFd(fd), path);
}

std::optional<std::string> RootDir::resolved_path() const {
  if (auto path = fs_->machine_path_of(fd_.get())) return path;
  auto walked = fs_->walk(path_);
  return walked ? std::optional<std::string>(*walked) : std::nullopt;
}

Result<std::optional<std::string>> RootDir::read_optional(std::string_view name) const {
  return trimmed_if_present(read_file(name));
}

std::optional<std::string> RootDir::link_base_name(std::string_view name) const {
  const std::string leaf(name);
  char target[4096];
  const ssize_t n = ::readlinkat(fd_.get(), leaf.c_str(), target, sizeof target - 1);
  if (n <= 0) return std::nullopt;
  return base_name(std::string_view(target, static_cast<size_t>(n)));
}

std::string join_path(std::string_view dir, std::string_view name) {
  std::string out(dir);
  while (!out.empty() && out.back() == '/') out.pop_back();
  std::string_view rest = name;
  while (!rest.empty() && rest.front() == '/') rest.remove_prefix(1);
  return out + "/" + std::string(rest);
}

std::string base_name(std::string_view path) {
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace rgpu
