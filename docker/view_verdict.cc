#include "docker/view_verdict.h"

#include <sys/stat.h>

#include "core/joined.h"
#include "core/machine_paths.h"

namespace rgpu::docker {
namespace {

NotTheView why_not(const RootFs& daemon_root, const std::string& dir, const RootFs& fs) {
  if (same_directory(daemon_root, dir, fs, paths::kCdiSpecDir)) return NotTheView::machine_specs;
  const auto seen = dir.starts_with('/') ? daemon_root.stat(dir) : std::nullopt;
  return seen && S_ISDIR(seen->st_mode) ? NotTheView::elsewhere : NotTheView::absent;
}

}  // namespace

std::optional<NotTheView> ViewVerdict::why(std::string_view dir) const {
  for (const auto& s : strays) {
    if (s.dir == dir) return s.why;
  }
  return std::nullopt;
}

std::string ViewVerdict::reason() const {
  if (!reported) return "reports no CDISpecDirs (Docker before 25)";
  if (strays.empty()) return "";
  std::vector<std::string> dirs;
  for (const auto& s : strays) dirs.push_back(s.dir);
  return "reads CDI specs in " + joined(dirs) + ", which " + (dirs.size() == 1 ? "is" : "are") +
         " not the repository's own view";
}

ViewVerdict reads_only_view(const CdiSpecDirs& dirs, const RootFs& daemon_root, const RootFs& fs,
                            std::string_view view) {
  ViewVerdict verdict{dirs.from == SpecDirsFrom::info, {}};
  for (const auto& dir : dirs.dirs) {
    if (!same_directory(daemon_root, dir, fs, view)) verdict.strays.push_back({dir, why_not(daemon_root, dir, fs)});
  }
  return verdict;
}

}  // namespace rgpu::docker
