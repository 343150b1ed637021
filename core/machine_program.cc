#include "core/machine_program.h"

#include <boost/process/search_path.hpp>

namespace rgpu {

std::optional<std::string> machine_program(const RootFs& fs, const std::string& name) {
  if (fs.is_host_root()) {
    const auto found = boost::process::search_path(name);
    if (found.empty()) return std::nullopt;
    return found.string();
  }
  for (const char* dir : {"/usr/local/sbin/", "/usr/local/bin/", "/usr/sbin/", "/usr/bin/", "/sbin/", "/bin/"}) {
    if (fs.kind(dir + name) == NodeKind::file) return dir + name;
  }
  return std::nullopt;
}

}  // namespace rgpu
