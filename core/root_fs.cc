#include "core/root_fs.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
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

}  // namespace

RootFs::RootFs(std::filesystem::path root) : root_(std::move(root)) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(root_, ec);
  host_root_ = !ec && canonical == "/";
}

std::filesystem::path RootFs::host_path(std::string_view machine_path) const {
  std::string rel(machine_path);
  while (!rel.empty() && rel.front() == '/') rel.erase(0, 1);
  return rel.empty() ? root_ : root_ / rel;
}

Result<std::string> RootFs::resolve(std::string_view machine_path, std::vector<std::string>* links_seen) const {
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

Result<std::string> RootFs::read_file(std::string_view machine_path) const {
  auto resolved = resolve(machine_path);
  if (!resolved) return tl::unexpected(resolved.error());
  auto host = host_path(*resolved);
  int fd = ::open(host.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return fail("cannot read " + host_path(machine_path).string() + ": " + errno_text(err), err);
  }
  std::string data;
  char buf[8192];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return fail("cannot read " + host_path(machine_path).string() + ": " + errno_text(err), err);
    }
    data.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return data;
}

Result<std::optional<std::string>> RootFs::read_optional(std::string_view machine_path) const {
  auto data = read_file(machine_path);
  if (!data) {
    if (is_not_found(data.error())) return std::optional<std::string>{};
    return tl::unexpected(data.error());
  }
  std::string& s = *data;
  auto first = s.find_first_not_of(" \t\r\n");
  auto last = s.find_last_not_of(" \t\r\n");
  return std::optional<std::string>(first == std::string::npos ? "" : s.substr(first, last - first + 1));
}

Result<std::vector<std::string>> RootFs::list_dir(std::string_view machine_path) const {
  auto resolved = resolve(machine_path);
  if (!resolved) return tl::unexpected(resolved.error());
  auto host = host_path(*resolved);
  DIR* dir = ::opendir(host.c_str());
  if (!dir) {
    int err = errno;
    if (err == ENOENT) return std::vector<std::string>{};
    return fail("cannot list " + host_path(machine_path).string() + ": " + errno_text(err), err);
  }
  std::vector<std::string> names;
  while (auto* entry = ::readdir(dir)) {
    std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

NodeKind RootFs::kind(std::string_view machine_path) const {
  auto resolved = resolve(machine_path);
  if (!resolved) return NodeKind::other;
  struct stat st {};
  if (::stat(host_path(*resolved).c_str(), &st) != 0) return NodeKind::missing;
  if (S_ISREG(st.st_mode)) return NodeKind::file;
  if (S_ISDIR(st.st_mode)) return NodeKind::directory;
  if (S_ISCHR(st.st_mode)) return NodeKind::char_device;
  if (S_ISBLK(st.st_mode)) return NodeKind::block_device;
  return NodeKind::other;
}

std::optional<DeviceNumber> RootFs::char_device(std::string_view machine_path) const {
  auto resolved = resolve(machine_path);
  if (!resolved) return std::nullopt;
  struct stat st {};
  if (::stat(host_path(*resolved).c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) return std::nullopt;
  return DeviceNumber{::major(st.st_rdev), ::minor(st.st_rdev)};
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
