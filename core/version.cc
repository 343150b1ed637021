#include "core/version.h"

#include <algorithm>
#include <cctype>

namespace rgpu {
namespace {

bool digit_at(std::string_view text, size_t i) {
  return i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
}

long number_at(std::string_view text, size_t& i) {
  long n = 0;
  while (digit_at(text, i)) n = n * 10 + (text[i++] - '0');
  return n;
}

// Past "N:", dpkg's epoch, which orders packages but is no part of the upstream version.
size_t past_epoch(std::string_view text) {
  size_t i = 0;
  while (digit_at(text, i)) ++i;
  return i > 0 && i < text.size() && text[i] == ':' ? i + 1 : 0;
}

}  // namespace

Version read_version(std::string_view text) {
  Version v;
  size_t i = past_epoch(text);
  if (i < text.size() && text[i] == 'v') ++i;
  while (digit_at(text, i)) {
    v.numbers.push_back(number_at(text, i));
    if (i < text.size() && text[i] == '.')
      ++i;
    else
      break;
  }
  if (i >= text.size() || (text[i] != '-' && text[i] != '~')) return v;
  const bool rc = text.compare(i + 1, 2, "rc") == 0;
  v.pre = rc || text[i] == '~';
  if (!rc) return v;
  size_t k = i + 3;
  if (k < text.size() && text[k] == '.') ++k;
  v.pre_number = number_at(text, k);
  return v;
}

std::optional<Version> dotted_version(std::string_view text) {
  Version v;
  size_t i = 0;
  for (;;) {
    const size_t start = i;
    const long n = number_at(text, i);
    if (i == start || i - start > 9) return std::nullopt;
    v.numbers.push_back(n);
    if (i == text.size()) return v;
    if (text[i++] != '.') return std::nullopt;
  }
}

int compare(const Version& a, const Version& b) {
  for (size_t i = 0; i < std::max(a.numbers.size(), b.numbers.size()); ++i) {
    const long x = i < a.numbers.size() ? a.numbers[i] : 0, y = i < b.numbers.size() ? b.numbers[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  if (a.pre != b.pre) return a.pre ? -1 : 1;
  if (a.pre_number != b.pre_number) return a.pre_number < b.pre_number ? -1 : 1;
  return 0;
}

int compare_versions(std::string_view a, std::string_view b) { return compare(read_version(a), read_version(b)); }

}  // namespace rgpu
