#pragma once
// The inventory on disk: <root>/etc/rediacc/gpu/inventory.json, written atomically.

#include <optional>
#include <string>

#include "core/change.h"
#include "core/file_sink.h"
#include "core/result.h"
#include "core/root_fs.h"
#include "probe/inventory.h"

namespace rgpu::probe {

/// The inventory's JSON as written: two-space indent, trailing newline.
std::string inventory_text(const Inventory& inventory);

/// Records a fresh probe. When its facts equal the recorded ones the file is left alone (same
/// bytes, same mtime) and `inventory.generated_at` takes the recorded time, so re-provisioning
/// an unchanged machine changes nothing and the age says how long the facts have held. A
/// recorded file that does not parse is refused, never overwritten.
Result<Change> record_inventory(const RootFs& fs, FileSink& sink, Inventory& inventory);

/// The recorded inventory and its exact text; absent when none was written yet. A file that
/// does not parse is an error naming it (and is never overwritten by a reader).
struct RecordedInventory {
  Inventory inventory;
  std::string text;
};
Result<std::optional<RecordedInventory>> read_inventory(const RootFs& fs);

}  // namespace rgpu::probe
