#include "facts/driver_libraries.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "core/split.h"
#include "usage/process_parsers.h"

namespace rgpu::facts {

std::optional<std::string> driver_library_version(std::string_view path) {
  const auto slash = path.rfind('/');
  const auto name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (std::string_view lib : {"libcuda.so.", "libnvidia-ml.so."}) {
    if (!name.starts_with(lib)) continue;
    const auto version = name.substr(lib.size());
    // "1" is the soname's link; the driver's own file is "550.54.14".
    const bool dotted = version.find('.') != std::string_view::npos;
    const bool digits = std::all_of(version.begin(), version.end(),
                                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
    if (dotted && digits) return std::string(version);
  }
  return std::nullopt;
}

std::vector<ContainerDriverLibraries> containers_on_other_driver(const RootFs& fs, const std::string& module_version) {
  std::vector<ContainerDriverLibraries> out;
  auto pids = fs.list_dir("/proc");
  if (!pids) return out;
  std::set<std::string> seen;
  for (const auto& pid : *pids) {
    if (pid.empty() || !std::all_of(pid.begin(), pid.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
    const auto cgroup = fs.read_file("/proc/" + pid + "/cgroup");
    if (!cgroup) continue;
    const auto container = usage::container_of_cgroup(*cgroup);
    if (!container || !seen.insert(*container).second) continue;
    const auto mounts = fs.read_file("/proc/" + pid + "/mountinfo");
    if (!mounts) continue;
    for (const auto& line : split(*mounts, '\n', EmptyFields::drop)) {
      // mountinfo: ID PARENT MAJ:MIN ROOT MOUNT-POINT ...; a bind-mounted file's point is its path.
      const auto fields = split(line, ' ', EmptyFields::drop);
      if (fields.size() < 5) continue;
      const auto version = driver_library_version(fields[4]);
      if (version && *version != module_version) {
        out.push_back({*container, pid, *version});
        break;
      }
    }
  }
  return out;
}

}  // namespace rgpu::facts
