#include "setup/toolkit_choice.h"

#include <algorithm>

namespace rgpu::setup {

bool has_nvidia_gpu(const probe::Inventory& inventory) {
  return std::any_of(inventory.gpus.begin(), inventory.gpus.end(),
                     [](const probe::Gpu& g) { return g.vendor == probe::Vendor::nvidia; });
}

ToolkitChoice toolkit_wanted(ToolkitMode mode, const probe::Inventory& inventory) {
  switch (mode) {
    case ToolkitMode::always: return ToolkitChoice::install;
    case ToolkitMode::never: return ToolkitChoice::refused;
    case ToolkitMode::automatic: break;
  }
  return has_nvidia_gpu(inventory) ? ToolkitChoice::install : ToolkitChoice::not_needed;
}

}  // namespace rgpu::setup
