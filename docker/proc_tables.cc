#include "docker/proc_tables.h"

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
