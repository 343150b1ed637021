#pragma once
// ASCII case folding for protocol names (HTTP header names, sysfs words, spec keys): no locale.

#include <string>
#include <string_view>

namespace rgpu {

inline char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// `s` with its ASCII letters lowered; other bytes as they are.
inline std::string ascii_lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

/// Equal when ASCII letters are compared without case; other bytes as they are.
inline bool ascii_iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

}  // namespace rgpu
