#include "probe/inventory_diff.h"

#include <algorithm>
#include <iterator>
#include <set>

#include "core/joined.h"

namespace rgpu::probe {
namespace {

using nlohmann::json;

// A GPU by what outlives a renumbering: its PCI address, else (WSL) its UUID, else its name.
std::string gpu_key(const Gpu& g) {
  if (g.pci_address) return *g.pci_address;
  if (g.uuid) return *g.uuid;
  return g.name;
}

// A value as the inventory's JSON holds it, short enough for one line.
std::string shown(const json& value) {
  if (value.is_null()) return "absent";
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  constexpr std::size_t kLongest = 80;
  if (text.size() > kLongest) text = text.substr(0, kLongest - 3) + "...";
  return text;
}

bool string_list(const json& value) {
  return value.is_array() && std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_string(); });
}

// What `after` has that `before` has not, in order.
std::vector<std::string> only_in(const std::set<std::string>& after, const std::set<std::string>& before) {
  std::vector<std::string> out;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(out));
  return out;
}

std::set<std::string> strings_of(const json& list) {
  std::set<std::string> out;
  for (const auto& v : list) out.insert(v.get<std::string>());
  return out;
}

// A list of names as what it gained and lost: "cdi_devices gained nvidia.com/gpu=2, lost ...".
std::string list_change(const json& was, const json& now) {
  const auto before = strings_of(was), after = strings_of(now);
  const std::string gained = joined(only_in(after, before), " "), lost = joined(only_in(before, after), " ");
  if (gained.empty() && lost.empty()) return " changed order";
  return (gained.empty() ? "" : " gained " + gained) + (gained.empty() || lost.empty() ? "" : ",") +
         (lost.empty() ? "" : " lost " + lost);
}

// Each field of one JSON object that differs from the other's, as "FIELD was X, is Y" (a list of
// names as what it gained and lost).
void field_changes(const std::string& who, const json& was, const json& now, std::vector<std::string>& out) {
  std::set<std::string> fields;
  for (const auto& [field, value] : was.items()) fields.insert(field);
  for (const auto& [field, value] : now.items()) fields.insert(field);
  for (const auto& field : fields) {
    const json before = was.contains(field) ? was.at(field) : json();
    const json after = now.contains(field) ? now.at(field) : json();
    if (before == after) continue;
    if (string_list(before) && string_list(after))
      out.push_back(who + field + list_change(before, after));
    else
      out.push_back(who + field + " was " + shown(before) + ", is " + shown(after));
  }
}

void name_changes(const std::vector<std::string>& was, const std::vector<std::string>& now,
                  std::vector<std::string>& out) {
  const std::set<std::string> before(was.begin(), was.end()), after(now.begin(), now.end());
  for (const auto& name : only_in(after, before)) out.push_back("CDI name " + name + " is new");
  for (const auto& name : only_in(before, after)) out.push_back("CDI name " + name + " is gone");
}

}  // namespace

std::vector<std::string> inventory_differences(const Inventory& recorded, const Inventory& now) {
  std::vector<std::string> out;
  const json was_json = to_json(recorded), now_json = to_json(now);
  const auto& was_gpus = was_json.at("gpus");
  const auto& now_gpus = now_json.at("gpus");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < recorded.gpus.size(); ++i) {
    const auto key = gpu_key(recorded.gpus[i]);
    seen.insert(key);
    const auto match = std::find_if(now.gpus.begin(), now.gpus.end(), [&](const Gpu& g) { return gpu_key(g) == key; });
    if (match == now.gpus.end()) {
      out.push_back("GPU " + key + " (" + recorded.gpus[i].name + ") is no longer found");
      continue;
    }
    field_changes("GPU " + key + ": ", was_gpus.at(i), now_gpus.at(match - now.gpus.begin()), out);
  }
  for (const auto& g : now.gpus) {
    if (!seen.count(gpu_key(g))) out.push_back("GPU " + gpu_key(g) + " (" + g.name + ") is new");
  }
  name_changes(recorded.cdi_devices, now.cdi_devices, out);
  return out;
}

}  // namespace rgpu::probe
