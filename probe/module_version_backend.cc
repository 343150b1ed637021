#include "probe/module_version_backend.h"

#include "core/machine_paths.h"
#include "probe/sysfs_parsers.h"

namespace rgpu::probe {
namespace {

// A one-line attribute (a module's version, the kernel release), trimmed; nothing when absent.
std::optional<std::string> first_line(const RootFs& fs, const std::string& path) {
  auto text = fs.read_optional(path);
  if (!text || !*text) return std::nullopt;
  std::string line = trim(**text);
  return line.empty() ? std::nullopt : std::optional<std::string>(line);
}

}  // namespace

Result<void> ModuleVersionBackend::enrich(const RootFs& fs, ProbeReport& report) const {
  Inventory& inv = report.inventory;
  std::optional<std::optional<std::string>> release;  // read once, only when needed
  for (auto& gpu : inv.gpus) {
    if (!gpu.driver || gpu.driver_version || gpu.driver->find('/') != std::string::npos) continue;
    if (auto own = first_line(fs, "/sys/module/" + *gpu.driver + "/version")) {
      gpu.driver_version = own;
      continue;
    }
    if (!release) release = first_line(fs, paths::kKernelRelease);
    gpu.driver_version = *release;
  }
  return {};
}

}  // namespace rgpu::probe
