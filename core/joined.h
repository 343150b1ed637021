#pragma once
// A list of names as one line of text, for messages and tables.

#include <string>
#include <string_view>
#include <vector>

namespace rgpu {

/// The items with `separator` between them; "" for none.
inline std::string joined(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

}  // namespace rgpu
