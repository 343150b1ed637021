#include "probe/inventory_file.h"

#include "core/state_paths.h"
#include "core/structured_text.h"

namespace rgpu::probe {

std::string inventory_text(const Inventory& inventory) { return to_json(inventory).dump(2) + "\n"; }

Result<std::optional<RecordedInventory>> read_inventory(const RootFs& fs) {
  auto text = fs.read_file(state::kInventoryPath);
  if (!text) {
    if (is_not_found(text.error())) return std::optional<RecordedInventory>{};
    return tl::unexpected(text.error());
  }
  const std::string where = fs.host_path(state::kInventoryPath).string();
  auto tree = parse_json(*text, where);
  if (!tree) {
    return fail(where + " is not valid JSON; move it away and run `rediacc-gpu probe` to write a new inventory.");
  }
  RGPU_TRY_ASSIGN(auto inv, inventory_from_json(*tree, where));
  return std::optional<RecordedInventory>(RecordedInventory{std::move(inv), std::move(*text)});
}

Result<Change> record_inventory(const RootFs& fs, FileSink& sink, Inventory& inventory) {
  RGPU_TRY_ASSIGN(auto recorded, read_inventory(fs));
  if (recorded) {
    Inventory same_time = inventory;
    same_time.generated_at = (recorded)->inventory.generated_at;
    if (inventory_text(same_time) == (recorded)->text) {
      inventory.generated_at = same_time.generated_at;
      return Change{Change::Kind::unchanged, state::kInventoryPath, ""};
    }
  }
  return sink.write(state::kInventoryPath, inventory_text(inventory), 0644);
}

}  // namespace rgpu::probe
