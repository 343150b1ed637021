#pragma once
// ASCII case folding for protocol names (HTTP header names): no locale, no allocation.

#include <string_view>

namespace rgpu {

inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// Equal when ASCII letters are compared without case; other bytes as they are.
inline bool ascii_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

}  // namespace rgpu
