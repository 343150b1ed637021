#include "probe/module_version_backend.h"

namespace rgpu::probe {
namespace {

std::optional<std::string> first_line(const RootFs& fs, const std::string& path) {
  auto text = fs.read_optional(path);
  if (!text || !*text) return std::nullopt;
  std::string line = (*text)->substr(0, (*text)->find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line.empty() ? std::nullopt : std::optional<std::string>(line);
}

}  // namespace

Result<void> ModuleVersionBackend::enrich(const RootFs& fs, Inventory& inv, Warnings&) const {
  std::optional<std::optional<std::string>> release;  // read once, only when needed
  for (auto& gpu : inv.gpus) {
    if (!gpu.driver || gpu.driver_version || gpu.driver->find('/') != std::string::npos) continue;
    if (auto own = first_line(fs, "/sys/module/" + *gpu.driver + "/version")) {
      gpu.driver_version = own;
      continue;
    }
    if (!release) release = first_line(fs, "/proc/sys/kernel/osrelease");
    gpu.driver_version = *release;
  }
  return {};
}

}  // namespace rgpu::probe
