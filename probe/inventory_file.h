#pragma once
// The inventory on disk: <root>/etc/rediacc/gpu/inventory.json, written atomically.

#include <optional>
#include <string>

#include "core/change.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::probe {

/// The inventory's JSON as written: two-space indent, trailing newline.
std::string inventory_text(const Inventory& inventory);

/// Writes the inventory; `unchanged` when the same bytes are already there.
Result<Change> write_inventory(const RootFs& fs, const Inventory& inventory);

/// The recorded inventory and its exact text; absent when none was written yet. A file that
/// does not parse is an error naming it (and is never overwritten by a reader).
struct RecordedInventory {
  Inventory inventory;
  std::string text;
};
Result<std::optional<RecordedInventory>> read_inventory(const RootFs& fs);

}  // namespace rgpu::probe
