#include "docker/proc_tables.h"

#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <sstream>

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

std::vector<std::string> process_args(const RootFs& fs, const std::string& pid) {
  std::vector<std::string> out;
  const auto cmdline = fs.read_file("/proc/" + pid + "/cmdline");
  if (!cmdline) return out;
  std::istringstream in(*cmdline);
  for (std::string part; std::getline(in, part, '\0');) out.push_back(part);
  return out;
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
