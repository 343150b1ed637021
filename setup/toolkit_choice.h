#pragma once
// Whether this setup installs the NVIDIA Container Toolkit: decided once, from the operator's
// --install-nvidia-toolkit and the probed GPUs, and read by every step it concerns (toolkit,
// NVIDIA spec, units).

#include "probe/inventory.h"

namespace rgpu::setup {

/// --install-nvidia-toolkit: auto, true, false.
enum class ToolkitMode { automatic, always, never };

enum class ToolkitChoice {
  install,     ///< installed (or kept), the NVIDIA spec generated, its units written
  not_needed,  ///< auto on a machine without an NVIDIA GPU: nothing NVIDIA touched
  refused,     ///< false: and what an earlier setup installed for it (spec, units) goes
};

/// Pure: always → install; never → refused; auto → install exactly when an NVIDIA GPU is present.
ToolkitChoice toolkit_wanted(ToolkitMode mode, const probe::Inventory& inventory);

/// True when the inventory holds an NVIDIA GPU.
bool has_nvidia_gpu(const probe::Inventory& inventory);

}  // namespace rgpu::setup
