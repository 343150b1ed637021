#include "setup/defaults.h"

#include <algorithm>
#include <filesystem>

#include "setup/steps.h"

namespace rgpu::setup {

std::string unit_tool_path(const RootFs& fs, const std::string& given) {
  if (!given.empty()) return given;
  if (!fs.is_host_root()) return kPackagedToolPath;
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? kPackagedToolPath : self.string();
}

std::vector<std::string> disabled_hooks(const RootFs& fs, const std::vector<std::string>& given) {
  if (given.empty()) return recorded_disabled_hooks(fs);
  std::vector<std::string> out;
  for (const auto& h : given) {
    if (h != "none" && std::find(out.begin(), out.end(), h) == out.end()) out.push_back(h);
  }
  return out;
}

}  // namespace rgpu::setup
