#include "cli/change_lines.h"

namespace rgpu::cli {

std::vector<std::string> change_lines(const RootFs& fs, const Changes& changes, const ChangeLineOptions& options) {
  std::vector<std::string> lines;
  for (const auto& c : changes) {
    if (c.kind == Change::Kind::unchanged && !options.unchanged) continue;
    if (c.kind == Change::Kind::run && !options.runs) continue;
    const std::string target = c.kind == Change::Kind::run ? c.target : fs.host_path(c.target).string();
    lines.push_back((options.dry_run ? "would " : "") + std::string(to_string(c.kind)) + " " + target);
  }
  return lines;
}

}  // namespace rgpu::cli
