#pragma once
// One backend per source of facts (a vendor, WSL2, libdrm), behind one interface. A backend
// that fails is skipped with a warning, never fatal: the rest of the inventory still counts.

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::probe {

using Warnings = std::vector<std::string>;

class Backend {
 public:
  virtual ~Backend() = default;
  /// Short name for messages ("amd", "nvidia", "wsl").
  virtual std::string_view name() const = 0;
  /// Adds what this source knows to `inventory`; problems that skip one device go to `warnings`.
  virtual Result<void> enrich(const RootFs& fs, Inventory& inventory, Warnings& warnings) const = 0;
};

}  // namespace rgpu::probe
