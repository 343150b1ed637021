#include "docker/proc_tables.h"

#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "core/split.h"

namespace rgpu::docker {

std::vector<std::string> process_ids(const RootFs& fs) {
  std::vector<std::string> out;
  const auto names = fs.list_dir("/proc");
  if (!names) return out;
  for (const auto& name : *names) {
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isdigit(c); }))
      out.push_back(name);
  }
  return out;
}

Result<ProcessStart> process_started(const RootFs& fs, const std::string& pid) {
  const auto now = std::chrono::system_clock::now();
  const std::string stat_path = "/proc/" + pid + "/stat";
  double uptime = -1;
  if (fs.is_host_root()) {
    timespec boot{};
    if (::clock_gettime(CLOCK_BOOTTIME, &boot) == 0)
      uptime = static_cast<double>(boot.tv_sec) + static_cast<double>(boot.tv_nsec) / 1e9;
  } else {
    RGPU_TRY_ASSIGN(const auto uptime_text, fs.read_file("/proc/uptime"));
    std::istringstream(uptime_text) >> uptime;
  }
  RGPU_TRY_ASSIGN(const auto stat, fs.read_file(stat_path));
  // The fields after the command name, which may hold spaces and ')': state (field 3) first, so
  // starttime (field 22) is the 20th.
  const auto close = stat.rfind(')');
  std::istringstream rest(close == std::string::npos ? std::string() : stat.substr(close + 1));
  std::vector<std::string> after;
  for (std::string f; rest >> f;) after.push_back(f);
  const long hz = ::sysconf(_SC_CLK_TCK);
  char* end = nullptr;
  const unsigned long long ticks = after.size() >= 20 ? std::strtoull(after[19].c_str(), &end, 10) : 0;
  if (after.size() < 20 || *end != '\0' || uptime < 0 || hz <= 0)
    return fail("the start of process " + pid + " cannot be read from " + fs.host_path(stat_path).string() + " and " +
                fs.host_path("/proc/uptime").string());
  // The tick's end: starttime is the start's boot time rounded down to a tick.
  const auto age = std::chrono::duration<double>(uptime - static_cast<double>(ticks + 1) / static_cast<double>(hz));
  return ProcessStart{ticks, now - std::chrono::duration_cast<std::chrono::system_clock::duration>(age)};
}

std::vector<std::string> process_args(const RootFs& fs, const std::string& pid) {
  const auto cmdline = fs.read_file("/proc/" + pid + "/cmdline");
  if (!cmdline) return {};
  return split(*cmdline, '\0', EmptyFields::keep);
}

std::set<ino_t> held_socket_inodes(const RootFs& fs, const std::string& pid) {
  std::set<ino_t> out;
  if (!fs.is_host_root()) return out;
  const std::string dir = "/proc/" + pid + "/fd";
  const auto fds = fs.list_dir(dir);
  if (!fds) return out;
  for (const auto& fd : *fds) {
    struct stat st {};
    // stat follows the fd's magic link to the socket itself.
    if (::stat((dir + "/" + fd).c_str(), &st) == 0 && S_ISSOCK(st.st_mode)) out.insert(st.st_ino);
  }
  return out;
}

std::vector<UnixListener> unix_listeners(const std::string& table) {
  std::vector<UnixListener> out;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string num, refs, protocol, flags, type, state, path;
    unsigned long inode = 0;
    if (fields >> num >> refs >> protocol >> flags >> type >> state >> inode >> path && flags == "00010000")
      out.push_back({inode, path});
  }
  return out;
}

}  // namespace rgpu::docker
