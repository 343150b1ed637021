#pragma once
// One hexadecimal digit's value, either case: URL escapes and pci.ids ids both need it.

namespace rgpu {

/// 0..15, or -1 when `c` is no hex digit.
constexpr int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace rgpu
