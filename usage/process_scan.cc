#include "usage/process_scan.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <iterator>
#include <memory>
#include <thread>

namespace rgpu::usage {
namespace {

constexpr unsigned kDrmMajor = 226;  // render and card nodes: the only ones with DRM fdinfo

struct DirClose {
  void operator()(DIR* d) const { ::closedir(d); }
};
using Dir = std::unique_ptr<DIR, DirClose>;

std::optional<int> number(const char* name) {
  if (!*name) return std::nullopt;
  int n = 0;
  for (const char* c = name; *c; ++c) {
    if (!std::isdigit(static_cast<unsigned char>(*c)) || n > 100'000'000) return std::nullopt;
    n = n * 10 + (*c - '0');
  }
  return n;
}

// The directory `relative` beneath the open /proc, listed; empty when the process ended.
Dir open_under(int proc, const std::string& relative) {
  const int fd = ::openat(proc, relative.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  Dir dir(::fdopendir(fd));
  if (!dir) ::close(fd);
  return dir;
}

std::optional<DrmClient> drm_client(const RootFs& fs, int pid, int fd) {
  auto text = fs.read_file("/proc/" + std::to_string(pid) + "/fdinfo/" + std::to_string(fd));
  return text ? parse_drm_fdinfo(*text) : std::nullopt;
}

// Keeps one fd per DRM client: a client reached through a dup'd fd counts once.
void add_file(std::map<int, DrmFile>& files, int fd, DrmFile file) {
  for (const auto& [_, known] : files) {
    if (file.client.client_id && known.client.client_id == file.client.client_id) return;
  }
  files.emplace(fd, std::move(file));
}

// Absent when it holds none of `devices`; `denied` says whether its fds could not be read at all.
std::optional<NodeHolder> holder(const RootFs& fs, int proc, int pid, const std::set<dev_t>& devices, bool& denied) {
  auto fds = open_under(proc, std::to_string(pid) + "/fd");
  denied = !fds && (errno == EACCES || errno == EPERM);
  if (!fds) return std::nullopt;
  NodeHolder h;
  h.pid = pid;
  std::vector<std::pair<int, dev_t>> drm_fds;
  while (const dirent* e = ::readdir(fds.get())) {
    const auto fd = number(e->d_name);
    struct stat st {};
    // fstatat follows the fd's magic link to the inode itself, never its path text.
    if (!fd || ::fstatat(::dirfd(fds.get()), e->d_name, &st, 0) != 0 || !S_ISCHR(st.st_mode)) continue;
    if (!devices.count(st.st_rdev)) continue;
    h.devices.insert(st.st_rdev);
    if (major(st.st_rdev) == kDrmMajor) drm_fds.emplace_back(*fd, st.st_rdev);
  }
  if (h.devices.empty()) return std::nullopt;
  const std::string dir = "/proc/" + std::to_string(pid);
  if (auto comm = fs.read_file(dir + "/comm")) {
    h.command = *comm;
    while (!h.command.empty() && h.command.back() == '\n') h.command.pop_back();
    // A tenant names its own processes: no terminal escape reaches an operator's screen.
    for (char& c : h.command) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
    }
  }
  if (auto cgroup = fs.read_file(dir + "/cgroup")) h.container = container_of_cgroup(*cgroup);
  for (auto [fd, device] : drm_fds) {
    if (auto client = drm_client(fs, pid, fd)) add_file(h.drm_files, fd, {device, std::move(*client)});
  }
  return h;
}

}  // namespace

HeldNodes processes_holding(const RootFs& fs, const std::set<dev_t>& devices) {
  HeldNodes out;
  if (devices.empty()) return out;
  const int proc = ::open(fs.host_path("/proc").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (proc < 0) return out;
  Dir pids(::fdopendir(proc));
  if (!pids) {
    ::close(proc);
    return out;
  }
  std::vector<int> all;
  while (const dirent* e = ::readdir(pids.get())) {
    if (const auto pid = number(e->d_name)) all.push_back(*pid);
  }
  // A stat per fd of every process is most of a scrape's cost on a busy machine: the processes are
  // shared among a few threads, each walking its own slice.
  const std::size_t threads =
      std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, std::max<std::size_t>(1, all.size() / 256));
  std::vector<std::vector<NodeHolder>> found(std::min<std::size_t>(threads, 4));
  std::vector<std::size_t> denied_in(found.size(), 0);
  const auto walk = [&](std::size_t slice) {
    for (std::size_t i = slice; i < all.size(); i += found.size()) {
      bool denied = false;
      if (auto h = holder(fs, ::dirfd(pids.get()), all[i], devices, denied)) found[slice].push_back(std::move(*h));
      denied_in[slice] += denied;
    }
  };
  std::vector<std::thread> running;
  for (std::size_t t = 1; t < found.size(); ++t) running.emplace_back(walk, t);
  walk(0);
  for (auto& t : running) t.join();
  for (auto& slice : found) std::move(slice.begin(), slice.end(), std::back_inserter(out.holders));
  std::sort(out.holders.begin(), out.holders.end(),
            [](const NodeHolder& a, const NodeHolder& b) { return a.pid < b.pid; });
  for (auto n : denied_in) out.unreadable += n;
  out.processes = all.size() - out.unreadable;
  return out;
}

std::map<int, DrmFile> reread_drm_files(const RootFs& fs, const NodeHolder& holder) {
  std::map<int, DrmFile> out;
  for (const auto& [fd, file] : holder.drm_files) {
    if (auto client = drm_client(fs, holder.pid, fd)) out.emplace(fd, DrmFile{file.device, std::move(*client)});
  }
  return out;
}

}  // namespace rgpu::usage
