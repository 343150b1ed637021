#include "core/split.h"

namespace rgpu {

std::vector<std::string> split(std::string_view text, char separator, EmptyFields empty) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto end = text.find(separator);
    const std::string_view field = text.substr(0, end);
    if (!field.empty() || empty == EmptyFields::keep) out.emplace_back(field);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return out;
}

}  // namespace rgpu
